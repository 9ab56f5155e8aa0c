#!/bin/sh
# Tests of bench/refilter on fpr_check's deterministic trees: the tree is
# kept (every level's keys and files), the filters are rebuilt under the new
# policy (Monkey's last level below its upper ones), optimize_filters_for_hits
# leaves the last level unfiltered, and a tree with L0 files or missing flags
# is refused.
#
# Usage: refilter_test.sh REFILTER FPR_CHECK MONKEY_PLAN
set -eu
refilter=$1 fpr_check=$2 monkey_plan=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
# tree NAME L0_FILES: a tree of 200, 2,000 and 20,000 keys in L1 to L3
# under bloomfilter:10.
tree() {
  "$fpr_check" --db="$tmp/$1" --l0_files="$2" --num=20000 --levels=4 \
    --filter_uri=bloomfilter:10 --probes=100 \
    --write_baseline="$tmp/$1.json" >"$tmp/$1.log" 2>&1 ||
    { cat "$tmp/$1.log"; exit 1; }
}
# levels DB: "level files entries bits/key" per level, one line each.
levels() {
  "$monkey_plan" --db="$1" --json | python3 -c '
import json, sys
for l in json.load(sys.stdin)["column_families"][0]["levels"]:
    print(l["level"], l["files"], l["entries"], "%.2f" % l["bits_per_key"])'
}
tree tree 0
before=$(levels "$tmp/tree")
cp -r "$tmp/tree" "$tmp/m7"
"$refilter" --db="$tmp/m7" --filter_uri=monkey:7 >"$tmp/m7.log" 2>&1 ||
  fail "refilter monkey:7 exited non-zero: $(cat "$tmp/m7.log")"
after=$(levels "$tmp/m7")
# The same levels, files and keys.
[ "$(echo "$before" | cut -d' ' -f1-3)" = "$(echo "$after" | cut -d' ' -f1-3)" ] ||
  fail "the tree changed: '$before' became '$after'"
# Monkey's bits: L3 below L1 and L2, the average about 7.
echo "$after" | python3 -c '
import sys
bits = {int(l.split()[0]): float(l.split()[3]) for l in sys.stdin}
entries = {1: 200, 2: 2000, 3: 20000}
avg = sum(bits[l] * entries[l] for l in bits) / sum(entries.values())
sys.exit(0 if bits[3] < bits[2] < bits[1] and 6.5 < avg < 7.5 else 1)' ||
  fail "monkey:7's bits per level are not Monkey's: '$after'"
grep -q "pass 2: L1" "$tmp/m7.log" || fail "no second pass: $(cat "$tmp/m7.log")"
# optimize_filters_for_hits: no filter on the last level.
cp -r "$tmp/tree" "$tmp/nolast"
"$refilter" --db="$tmp/nolast" --filter_uri=bloomfilter:10 \
  --optimize_filters_for_hits >/dev/null 2>&1 ||
  fail "refilter --optimize_filters_for_hits exited non-zero"
last=$(levels "$tmp/nolast" | awk '$1 == 3 {print $4}')
[ "$last" = "0.00" ] || fail "optimize_filters_for_hits: L3 at '$last' bits/key"
# Refused: L0 files, which would stay as they were; missing flags.
tree withl0 2
if out=$("$refilter" --db="$tmp/withl0" --filter_uri=monkey:7 2>&1); then
  fail "a tree with L0 files was rebuilt: $out"
fi
case $out in *"L0 files"*) ;; *) fail "the refusal does not say L0: $out" ;; esac
if "$refilter" --db="$tmp/tree" >/dev/null 2>&1; then
  fail "refilter without --filter_uri exited 0"
fi
[ $failed -eq 0 ] && echo "refilter_test: all passed"
exit $failed
