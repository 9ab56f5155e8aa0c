#!/bin/sh
# Applies our db_bench patch series (db_bench_patches/: --filter_uri, the
# per-level filter report, insertunique) to one RocksDB version's
# tools/db_bench_tool.cc, picking each patch's file for that version; on a
# hunk that does not apply, says which one, what it anchors on, and how to
# port it. Used by build_tools/build_db_bench.sh and build_tools/build_rocksdb_fork.sh.
#
#   build_tools/apply_db_bench_patches.sh VERSION TREE
#   build_tools/apply_db_bench_patches.sh --list VERSION   the files it would apply
#
#   VERSION  the RocksDB version of TREE, e.g. 9.10.0
#   TREE     a directory with tools/db_bench_tool.cc (a RocksDB source tree
#            or a copy of its tools/); patched in place
# Environment:
#   DB_BENCH_PATCHES=dir   the series (default: this repository's
#                          db_bench_patches/)
#
# Which file: db_bench_patches/series names the patches in order. Each is
# db_bench_patches/<name>, unless a directory since-<V>/ with V <= VERSION
# holds its own <name>; then the one with the highest such V. Patches apply
# with exact context (patch -F0); only line offsets may differ. See
# db_bench_patches/README.md.
set -eu

me=apply_db_bench_patches
say() { printf '%s: %s\n' "$me" "$*" >&2; }
die() {
  say "$*"
  exit 1
}

list_only=0
if [ "${1:-}" = --list ]; then
  list_only=1
  shift
fi
[ $# -ge 1 ] || die "usage: $0 [--list] VERSION [TREE]"
version=$1
tree=${2:-}
[ $list_only = 1 ] || [ -n "$tree" ] || die "usage: $0 VERSION TREE"

repo=$(cd "$(dirname "$0")/.." && pwd)
root=${DB_BENCH_PATCHES:-$repo/db_bench_patches}
[ -f "$root/series" ] || die "no series file in $root"
root=$(cd "$root" && pwd)
shown=${root#"$repo"/} # for messages: relative inside this repository

# version_le A B: A <= B as versions (sort -V: 11.9.0 < 11.10.0).
version_le() {
  [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]
}

# The file of patch $1 for $version.
patch_file() {
  best=$root/$1
  best_since=""
  for dir in "$root"/since-*/; do
    [ -f "$dir$1" ] || continue
    since=${dir%/}
    since=${since##*/since-}
    version_le "$since" "$version" || continue
    if [ -z "$best_since" ] || version_le "$best_since" "$since"; then
      best=$dir$1
      best_since=$since
    fi
  done
  echo "$best"
}

patches() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$root/series"; }

if [ $list_only = 1 ]; then
  for p in $(patches); do patch_file "$p"; done
  exit 0
fi

target=$tree/tools/db_bench_tool.cc
[ -f "$target" ] || die "no tools/db_bench_tool.cc in '$tree'"

# What the series is known to do on this version (db_bench_patches/checked).
checked=$(awk -v v="$version" '$1 == v { $1 = ""; sub(/^ +/, ""); print }' \
  "$root/checked" 2>/dev/null || true)
if [ -n "$checked" ]; then
  say "RocksDB $version: $checked"
else
  # The nearest checked version: the highest below, else the lowest above.
  nearest=""
  for v in $(awk '!/^#/ && NF { print $1 }' "$root/checked" 2>/dev/null |
    sort -V); do
    if version_le "$v" "$version" || [ -z "$nearest" ]; then nearest=$v; fi
  done
  say "warning: the series was not checked against RocksDB $version" \
    "($shown/checked${nearest:+; nearest checked: $nearest}); trying the" \
    "files for $version:" $(for p in $(patches); do
      f=$(patch_file "$p")
      echo "${f#"$root"/}"
    done)
fi

# hunk_context PATCH N: hunk N's lines, each of RocksDB's with how often the
# target has it, so that one sees what the hunk anchors on and what is gone.
hunk_context() {
  awk -v n="$2" '/^@@/ { h++; next } h == n && /^[ +]/' "$1" |
    while IFS= read -r line; do
      text=${line#?}
      case $line in
        +*) printf '      +%s\n' "$text" ;;
        *)
          note=""
          if [ -n "$(printf '%s' "$text" | tr -d ' ')" ]; then
            found=$(grep -c -x -F -e "$text" "$target" || true)
            case $found in
              0) note="   <- not in RocksDB $version" ;;
              1) ;;
              *) note="   <- $found times in RocksDB $version" ;;
            esac
          fi
          printf '      |%s%s\n' "$text" "$note"
          ;;
      esac
    done
}

# explain_failure PATCH OUTPUT: what failed, and how to port it.
explain_failure() {
  printf '%s\n' "$2" | sed 's/^/    /' >&2
  say "FAILED: $(basename "$1") does not apply to RocksDB $version's" \
    "tools/db_bench_tool.cc (file: ${1#"$repo"/})."
  for n in $(printf '%s\n' "$2" | sed -n 's/^Hunk #\([0-9]*\) FAILED.*/\1/p'); do
    say "hunk #$n needs these lines, adjacent (| RocksDB's, + ours):"
    hunk_context "$1" "$n" >&2
  done
  say "No file in the series fits RocksDB $version. To port it: copy" \
    "${1#"$repo"/} to $shown/since-$version/$(basename "$1")," \
    "re-anchor the hunk there on lines this version has, rerun this script," \
    "and add $version to $shown/checked (see" \
    "db_bench_patches/README.md). For a stock db_bench instead:" \
    "DB_BENCH_PATCHES=none (build_tools/build_rocksdb_fork.sh)."
  exit 1
}

for p in $(patches); do
  file=$(patch_file "$p")
  [ -f "$file" ] || die "series names $p, which is not in $root"
  if ! out=$(patch -p1 -F0 -d "$tree" --dry-run -N <"$file" 2>&1); then
    explain_failure "$file" "$out"
  fi
  patch -p1 -F0 -d "$tree" -N -s --no-backup-if-mismatch <"$file"
  say "applied ${file#"$root"/}"
done
