#!/bin/sh
# Builds a Release RocksDB with Monkey compiled in as a RocksDB plugin
# (ROCKSDB_PLUGINS=monkey) and the patched db_bench, and installs both into a
# prefix: what an engine that links its own RocksDB fork does.
#
# Usage: build_tools/build_rocksdb_fork.sh [--dry-run] [VERSION] [PREFIX]
#   --dry-run  only get the source, link the plugin in and apply the patch
#            series, then stop: the CI check that the series still applies
#   VERSION  from Debian's source packages: 7.8.3 (default; Debian 12,
#            bookworm), 9.10.0 (trixie) or 9.11.2 (sid). Any other version
#            (10.10.1, 11.8.1, ...) is not in Debian: give ROCKSDB_GIT, whose
#            tag vVERSION is then built
#   PREFIX   install prefix (default: build-fork/rocksdb-VERSION/install)
# Environment:
#   ROCKSDB_SRC=path       build this RocksDB tree instead (an engine's fork;
#                          it is copied, never modified); VERSION is then read
#                          from its include/rocksdb/version.h
#   ROCKSDB_GIT=repo[@ref] build commit, tag or branch `ref` of this git
#                          repository (a clone of RocksDB's, bare or not,
#                          e.g. an engine's fork): exported with git archive
#                          into ROCKSDB_SOURCE_CACHE, never changed. Without
#                          @ref: tag vVERSION if VERSION is given, else HEAD.
#                          VERSION is read from the tree's version.h
#   ROCKSDB_SOURCE_CACHE=dir  where Debian's source packages and git exports
#                          are unpacked once (default: build-fork/sources)
#   DB_BENCH_PATCHES=dir   the db_bench patch series to apply (a directory
#                          with a `series` file, laid out like
#                          db_bench_patches/, the default), or `none`
#   FORK_WORKDIR=dir       sources, build tree and logs (default
#                          build-fork/rocksdb-VERSION)
#   JOBS=n                 parallel compile jobs (default: all cores)
#   ROCKSDB_CXXFLAGS=flags extra compiler flags for RocksDB, the plugin and
#                          db_bench, e.g. -DROCKSDB_NAMESPACE=engine_rocksdb
#                          for a fork in its own namespace (code built
#                          against the install needs the same define)
#
# RocksDB's own CMake picks the C++ standard (C++20 from 10.7 on); the
# plugin's sources are compiled with it.
#
# The build is the static librocksdb (what engines link) and db_bench, in
# Release: -O2 -DNDEBUG (assertions off, unlike Debian's
# library), PORTABLE and with RTTI like Debian's (RocksDB's CMake drops RTTI
# from Release builds by default, and code that links the library then misses
# its typeinfo), with gflags, snappy, lz4 and zstd. ccache is used when
# installed (RocksDB's CMake picks it up). Every step logs to
# FORK_WORKDIR/logs/<step>.log; a failing step names itself and shows why.
# The last line printed is the path of the installed db_bench.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
me=build_rocksdb_fork
dry_run=0
if [ "${1:-}" = --dry-run ]; then
  dry_run=1
  shift
fi
version=${1:-7.8.3}
jobs=${JOBS:-$(nproc)}
start=$(date +%s)

say() { printf '%s: %s\n' "$me" "$*" >&2; }
die() { say "$*"; exit 1; }
elapsed() { echo "$(($(date +%s) - start))s"; }
. "$repo/build_tools/progress.sh"
version_of() { # RocksDB tree -> its version, from include/rocksdb/version.h
  awk '/^#define ROCKSDB_(MAJOR|MINOR|PATCH) / { v = v sep $3; sep = "." }
       END { print v }' "$1/include/rocksdb/version.h"
}

# step NAME WHY-IF-IT-FAILS COMMAND...: runs COMMAND with its output in
# logs/NAME.log; on failure says which step failed, why, and the log's tail.
# Long steps print a progress line (the build's last percentage) every 30 s.
step() {
  name=$1 why=$2
  shift 2
  log="$work/logs/$name.log"
  say "[$name] $(elapsed)"
  "$@" >"$log" 2>&1 &
  if ! wait_with_progress $! "$log" "[$name] running"; then
    say "step '$name' FAILED: $why"
    say "last lines of $log:"
    tail -n "${tail_lines:-25}" "$log" >&2
    exit 1
  fi
}

# --- Which source ----------------------------------------------------------
given=${1:-}
cache=${ROCKSDB_SOURCE_CACHE:-$repo/build-fork/sources}
suite=""
if [ -n "${ROCKSDB_SRC:-}" ] && [ -n "${ROCKSDB_GIT:-}" ]; then
  die "step 'source' FAILED: give ROCKSDB_SRC or ROCKSDB_GIT, not both"
fi
if [ -n "${ROCKSDB_GIT:-}" ]; then
  # repo@ref, split at the last @ unless the whole value is a directory.
  git_repo=$ROCKSDB_GIT git_ref=""
  if [ ! -d "$ROCKSDB_GIT" ] && [ "${ROCKSDB_GIT%@*}" != "$ROCKSDB_GIT" ]; then
    git_repo=${ROCKSDB_GIT%@*} git_ref=${ROCKSDB_GIT##*@}
  fi
  git_dir=$(git -C "$git_repo" rev-parse --absolute-git-dir 2>/dev/null) ||
    die "step 'source' FAILED: ROCKSDB_GIT=$ROCKSDB_GIT: $git_repo is not a git repository"
  if [ -z "$git_ref" ]; then
    git_ref=HEAD
    [ -n "$given" ] && git_ref=v$given
  fi
  commit=$(git --git-dir="$git_dir" rev-parse --verify -q "$git_ref^{commit}") ||
    die "step 'source' FAILED: ROCKSDB_GIT=$ROCKSDB_GIT: no commit '$git_ref' in $git_dir${given:+ (a bare VERSION means its tag v$given; or give repo@ref)}"
  # Exported once per commit; a partial export (interrupted) is redone.
  export_dir=$cache/git-$(printf '%s' "$commit" | cut -c1-12)
  if [ ! -f "$export_dir/.monkey-exported" ]; then
    rm -rf "$export_dir" && mkdir -p "$export_dir"
    say "git archive $git_ref ($commit) of $git_dir into $export_dir"
    git --git-dir="$git_dir" archive "$commit" | tar -x -C "$export_dir" ||
      die "step 'source' FAILED: git archive $commit of $git_dir"
    echo "$commit" >"$export_dir/.monkey-exported"
  fi
  [ -f "$export_dir/include/rocksdb/version.h" ] ||
    die "step 'source' FAILED: $git_ref of $git_dir is not a RocksDB tree (no include/rocksdb/version.h)"
  ROCKSDB_SRC=$export_dir
  version=$(version_of "$ROCKSDB_SRC")
  [ -z "$given" ] || [ "$given" = "$version" ] ||
    die "step 'source' FAILED: $git_ref of $git_dir is RocksDB $version, not $given"
  say "source: $git_ref = $commit of $git_dir (RocksDB $version)"
elif [ -n "${ROCKSDB_SRC:-}" ]; then
  [ -f "$ROCKSDB_SRC/include/rocksdb/version.h" ] ||
    die "step 'source' FAILED: ROCKSDB_SRC=$ROCKSDB_SRC is not a RocksDB tree (no include/rocksdb/version.h)"
  version=$(version_of "$ROCKSDB_SRC")
  [ -z "$given" ] || [ "$given" = "$version" ] ||
    die "step 'source' FAILED: ROCKSDB_SRC is RocksDB $version, not $given"
else
  case $version in
    7.8.3) suite=bookworm ;;
    9.10.0) suite=trixie ;;
    9.11.2) suite=sid ;;
    *) die "step 'source' FAILED: RocksDB '$version' has no Debian source package (Debian has 7.8.3, 9.10.0 and 9.11.2). For another release or upstream main, give a clone of RocksDB's repository: ROCKSDB_GIT=path/to/rocksdb $0 $version (builds its tag v$version), or ROCKSDB_GIT=path@ref; for a plain tree, ROCKSDB_SRC=path" ;;
  esac
fi
work=${FORK_WORKDIR:-$repo/build-fork/rocksdb-$version}
prefix=${2:-$work/install}
mkdir -p "$work/logs"
work=$(cd "$work" && pwd)
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
patches=${DB_BENCH_PATCHES:-$repo/db_bench_patches}
if [ "$patches" != none ] && [ ! -f "$patches/series" ]; then
  die "step 'patches' FAILED: no db_bench patch series at $patches (a directory with a series file; DB_BENCH_PATCHES=none for stock db_bench)"
fi
say "RocksDB $version -> $prefix (work: $work, $jobs jobs)"

step deps "could not install the build's Debian packages" \
  "$repo/build_tools/install_deps.sh"

# Debian's source is unpacked once into the cache and kept pristine; every
# run builds a fresh copy, so the patch series always applies to pristine
# files (ccache keeps the rebuild cheap).
pristine=${ROCKSDB_SRC:-}
if [ -z "$pristine" ]; then
  step fetch "could not get rocksdb $version from Debian's $suite source package" \
    "$repo/build_tools/fetch_rocksdb_source.sh" "$suite" "$cache/$suite"
  grep 'warning' "$work/logs/fetch.log" >&2 || true
  pristine=$(tail -n 1 "$work/logs/fetch.log")
  got=$(version_of "$pristine")
  [ "$got" = "$version" ] ||
    die "step 'fetch' FAILED: Debian's $suite has RocksDB $got, not $version"
fi
src=$work/src
rm -rf "$src"
step source "could not copy $pristine to $src" cp -a "$pristine/." "$src/"
rm -rf "$src/.git"

# --- Link the plugin in and patch db_bench ---------------------------------
[ -e "$src/plugin/monkey" ] &&
  die "step 'plugin' FAILED: $src/plugin/monkey already exists in the source"
ln -s "$repo" "$src/plugin/monkey"

# One series for every version; build_tools/apply_db_bench_patches.sh picks each
# patch's file for this one and explains a hunk that does not apply.
if [ "$patches" != none ]; then
  tail_lines=200 # its explanation, whole
  step patches "the db_bench patch series $patches does not apply to RocksDB $version (which patch and hunk, and how to port it, below)" \
    env DB_BENCH_PATCHES="$patches" "$repo/build_tools/apply_db_bench_patches.sh" \
    "$version" "$src"
  tail_lines=25
  sed -n 's/^apply_db_bench_patches: //p' "$work/logs/patches.log" |
    sed "s/^/$me: /" >&2
fi

if [ $dry_run = 1 ]; then
  n=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$patches/series" 2>/dev/null |
    wc -l | tr -d ' ')
  [ "${n:-0}" -gt 0 ] || n=no
  say "dry run done in $(elapsed): $n patch(es) of $patches apply to RocksDB $version"
  exit 0
fi

# --- Configure, build, install ---------------------------------------------
build=$work/build
step configure "RocksDB's CMake configuration failed (a missing -dev package?)" \
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  ${ROCKSDB_CXXFLAGS:+"-DCMAKE_CXX_FLAGS=$ROCKSDB_CXXFLAGS"} \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG" \
  -DROCKSDB_PLUGINS=monkey -DPORTABLE=ON -DFAIL_ON_WARNINGS=OFF -DUSE_RTTI=ON \
  -DWITH_GFLAGS=ON -DWITH_SNAPPY=ON -DWITH_LZ4=ON -DWITH_ZSTD=ON \
  -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=ON -DWITH_CORE_TOOLS=OFF \
  -DWITH_TOOLS=OFF -DWITH_TRACE_TOOLS=OFF -DROCKSDB_BUILD_SHARED=OFF
grep -q 'PLUGIN monkey' "$work/logs/configure.log" ||
  die "step 'configure' FAILED: RocksDB's CMake did not pick up plugin/monkey"
command -v ccache >/dev/null && say "ccache: $(command -v ccache)"

step build "compiling RocksDB with the plugin failed" \
  cmake --build "$build" -j"$jobs" --target rocksdb db_bench
step install "could not install into $prefix" \
  cmake --install "$build" --prefix "$prefix"
install -d "$prefix/bin"
install -m 755 "$build/db_bench" "$prefix/bin/db_bench"

# The plugin is in when the library knows `monkey` with no registration
# call: a DB made from an OPTIONS file naming it records the Monkey policy
# (an unknown id would silently become no filter).
verify() {
  rm -rf "$work/verify" && mkdir -p "$work/verify"
  cat >"$work/verify/OPTIONS" <<EOF
[Version]
  rocksdb_version=$version
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
[CFOptions "default"]
[TableOptions/BlockBasedTable "default"]
  filter_policy=monkey:7
EOF
  "$prefix/bin/db_bench" --benchmarks=fillrandom --num=1000 \
    --options_file="$work/verify/OPTIONS" --db="$work/verify/db" &&
    grep -l 'id=monkey' "$work"/verify/db/OPTIONS-* &&
    ls "$prefix"/include/rocksdb/plugin/monkey/install.h &&
    rm -rf "$work/verify"
}
step verify "the installed db_bench does not know the filter policy 'monkey', or the plugin's headers are not installed (plugin not built in?)" \
  verify
say "done in $(elapsed): Release RocksDB $version with monkey in $prefix"
echo "$prefix/bin/db_bench"
