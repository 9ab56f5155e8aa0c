#!/bin/sh
# Tests of build_tools/apply_db_bench_patches.sh on a made-up series and a made-up
# tools/db_bench_tool.cc: which file each version takes (since-<V>/ with the
# highest V <= the version, compared as versions), that a series applies,
# and that a hunk whose anchor is gone fails with the patch, the hunk and the
# missing line named.
set -eu
script=$(cd "$(dirname "$0")/../.." && pwd)/build_tools/apply_db_bench_patches.sh
. "$(dirname "$0")/../shell_test_lib.sh"
expect_eq() { # what got want
  [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# A series of two patches; 0001 inserts a line between "alpha" and "beta",
# 0002 one between "gamma" and "delta".
root=$tmp/patches
mkdir -p "$root/since-9.0.0" "$root/since-10.0.0" "$root/since-11.8.0"
printf '# comment\n0001-one.patch\n\n0002-two.patch\n' >"$root/series"
cat >"$root/0001-one.patch" <<'EOF'
one: a line after alpha

--- a/tools/db_bench_tool.cc
+++ b/tools/db_bench_tool.cc
@@ -1,2 +1,3 @@
 alpha
+ours-one
 beta
EOF
cat >"$root/0002-two.patch" <<'EOF'
--- a/tools/db_bench_tool.cc
+++ b/tools/db_bench_tool.cc
@@ -4,2 +4,3 @@
 gamma
+ours-two
 delta
EOF
cp "$root/0001-one.patch" "$root/since-10.0.0/"
cp "$root/0002-two.patch" "$root/since-9.0.0/"
cp "$root/0002-two.patch" "$root/since-11.8.0/"
printf '7.8.3 checked here\n' >"$root/checked"

list() { DB_BENCH_PATCHES=$root "$script" --list "$1" | sed "s|$root/||" | tr '\n' ' '; }
expect_eq "7.8.3" "$(list 7.8.3)" "0001-one.patch 0002-two.patch "
expect_eq "9.0.0" "$(list 9.0.0)" "0001-one.patch since-9.0.0/0002-two.patch "
expect_eq "10.10.1" "$(list 10.10.1)" \
  "since-10.0.0/0001-one.patch since-9.0.0/0002-two.patch "
expect_eq "11.8.1" "$(list 11.8.1)" \
  "since-10.0.0/0001-one.patch since-11.8.0/0002-two.patch "
# 11.10 comes after 11.8 (not as strings).
expect_eq "11.10.0" "$(list 11.10.0)" \
  "since-10.0.0/0001-one.patch since-11.8.0/0002-two.patch "

# It applies with offsets (two lines more at the top than the patches say).
tree=$tmp/tree
mkdir -p "$tree/tools"
printf 'x\ny\nalpha\nbeta\nz\ngamma\ndelta\n' >"$tree/tools/db_bench_tool.cc"
if out=$(DB_BENCH_PATCHES=$root "$script" 7.8.3 "$tree" 2>&1); then
  expect_eq "patched" "$(tr '\n' ' ' <"$tree/tools/db_bench_tool.cc")" \
    "x y alpha ours-one beta z gamma ours-two delta "
  case $out in *"RocksDB 7.8.3: checked here"*) ;; *) fail "no checked line: $out" ;; esac
else
  fail "the series did not apply: $out"
fi

# A version whose "gamma" changed: 0002 fails, and says where and why.
printf 'alpha\nbeta\nz\ngamma2\ndelta\n' >"$tree/tools/db_bench_tool.cc"
if out=$(DB_BENCH_PATCHES=$root "$script" 12.0.0 "$tree" 2>&1); then
  fail "a hunk without its anchor applied"
else
  for want in "not checked against RocksDB 12.0.0" "nearest checked: 7.8.3" \
    "trying the files for 12.0.0: since-10.0.0/0001-one.patch since-11.8.0/0002-two.patch" \
    "applied since-10.0.0/0001-one.patch" \
    "FAILED: 0002-two.patch does not apply to RocksDB 12.0.0" \
    "hunk #1 needs these lines" "|gamma   <- not in RocksDB 12.0.0" \
    "+ours-two" "copy $root/since-11.8.0/0002-two.patch to $root/since-12.0.0/"; do
    case $out in *"$want"*) ;; *) fail "failure message lacks '$want': $out" ;; esac
  done
fi

finish apply_db_bench_patches_test
