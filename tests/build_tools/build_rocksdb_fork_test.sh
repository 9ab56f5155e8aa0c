#!/bin/sh
# Tests of build_tools/build_rocksdb_fork.sh's choice of source, on a made-up
# RocksDB git repository (a version.h and a tools/db_bench_tool.cc, two tagged
# commits) and a made-up patch series, all with --dry-run: ROCKSDB_GIT=repo@ref
# (work tree and bare), a bare VERSION resolving the tag vVERSION, HEAD, the
# patch file picked for the version, and the errors for a missing tag, a
# version that does not match, a path that is no repository, and a version
# Debian does not have.
set -eu
script=$(cd "$(dirname "$0")/../.." && pwd)/build_tools/build_rocksdb_fork.sh
. "$(dirname "$0")/../shell_test_lib.sh"

# The repository: 1.2.3 (tag v1.2.3), then 2.0.0 (tag v2.0.0, HEAD).
repo=$tmp/rocksdb
mkdir -p "$repo/include/rocksdb" "$repo/tools" "$repo/plugin"
echo "RocksDB's plugin folder" >"$repo/plugin/README.md"
git_() { git -C "$repo" -c user.name=test -c user.email=test@example.com "$@"; }
git_ init -q
commit() { # version
  major=${1%%.*} rest=${1#*.}
  printf '#define ROCKSDB_MAJOR %s\n#define ROCKSDB_MINOR %s\n#define ROCKSDB_PATCH %s\n' \
    "$major" "${rest%.*}" "${rest#*.}" >"$repo/include/rocksdb/version.h"
  printf 'alpha %s\nbeta\n' "$1" >"$repo/tools/db_bench_tool.cc"
  git_ add -A && git_ commit -q -m "$1" && git_ tag "v$1"
}
commit 1.2.3
commit 2.0.0
git clone -q --bare "$repo" "$tmp/bare.git"

# The series: one patch, a line after "beta"; from 2.0.0 on its own file.
series=$tmp/patches
mkdir -p "$series/since-2.0.0"
echo 0001-one.patch >"$series/series"
printf '1.2.3 checked here\n' >"$series/checked"
for dir in "$series" "$series/since-2.0.0"; do
  line=ours
  [ "$dir" = "$series" ] || line=ours-since-2
  printf -- '--- a/tools/db_bench_tool.cc\n+++ b/tools/db_bench_tool.cc\n@@ -2 +2,2 @@\n beta\n+%s\n' \
    "$line" >"$dir/0001-one.patch"
done

# run NAME [VERSION]: a dry run with its own work directory; prints its
# output and leaves the patched tree in $tmp/work-NAME/src.
run() {
  name=$1
  shift
  FORK_WORKDIR=$tmp/work-$name ROCKSDB_SOURCE_CACHE=$tmp/cache \
    DB_BENCH_PATCHES=$series "$script" --dry-run "$@" 2>&1
}
patched() { tr '\n' ' ' <"$tmp/work-$1/src/tools/db_bench_tool.cc"; }

if out=$(ROCKSDB_GIT=$repo@v1.2.3 run at-tag); then
  expect_in "repo@v1.2.3" "$out" "(RocksDB 1.2.3)" "applied 0001-one.patch" \
    "RocksDB 1.2.3: checked here" "apply to RocksDB 1.2.3"
  [ "$(patched at-tag)" = "alpha 1.2.3 beta ours " ] ||
    fail "repo@v1.2.3 patched: $(patched at-tag)"
else
  fail "repo@v1.2.3 failed: $out"
fi

# A bare VERSION is the tag vVERSION, of a bare repository too; 2.0.0 takes
# since-2.0.0/ and, not being in `checked`, is warned about.
if out=$(ROCKSDB_GIT=$tmp/bare.git run by-version 2.0.0); then
  expect_in "bare.git 2.0.0" "$out" "v2.0.0 = " "(RocksDB 2.0.0)" \
    "not checked against RocksDB 2.0.0" "nearest checked: 1.2.3" \
    "applied since-2.0.0/0001-one.patch"
  [ "$(patched by-version)" = "alpha 2.0.0 beta ours-since-2 " ] ||
    fail "bare.git 2.0.0 patched: $(patched by-version)"
else
  fail "bare.git 2.0.0 failed: $out"
fi

# No @ref and no VERSION: HEAD. The export is cached per commit.
if out=$(ROCKSDB_GIT=$repo run head); then
  expect_in "repo (HEAD)" "$out" "HEAD = " "(RocksDB 2.0.0)"
  ls "$tmp/cache" | grep -q '^git-' || fail "no git-<commit> export in the cache"
else
  fail "repo (HEAD) failed: $out"
fi

# Errors, each naming what is wrong.
if out=$(ROCKSDB_GIT=$repo run no-tag 9.9.9); then
  fail "a missing tag succeeded: $out"
else
  expect_in "missing tag" "$out" "no commit 'v9.9.9'" "or give repo@ref"
fi
if out=$(ROCKSDB_GIT=$repo@v1.2.3 run mismatch 2.0.0); then
  fail "a mismatched version succeeded: $out"
else
  expect_in "mismatch" "$out" "is RocksDB 1.2.3, not 2.0.0"
fi
if out=$(ROCKSDB_GIT=$tmp/nothing@main run not-a-repo); then
  fail "a missing repository succeeded: $out"
else
  expect_in "not a repo" "$out" "$tmp/nothing is not a git repository"
fi
if out=$(ROCKSDB_GIT=$repo ROCKSDB_SRC=$repo run both); then
  fail "ROCKSDB_SRC with ROCKSDB_GIT succeeded: $out"
else
  expect_in "both" "$out" "give ROCKSDB_SRC or ROCKSDB_GIT, not both"
fi
if out=$(run not-in-debian 11.8.1); then
  fail "11.8.1 without ROCKSDB_GIT succeeded: $out"
else
  expect_in "not in Debian" "$out" "RocksDB '11.8.1' has no Debian source package" \
    "ROCKSDB_GIT=path/to/rocksdb" "builds its tag v11.8.1"
fi

finish build_rocksdb_fork_test
