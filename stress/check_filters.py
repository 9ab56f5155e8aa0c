#!/usr/bin/env python3
"""Checks that a closed RocksDB database was written with a Monkey filter
policy, and prints its filters per column family and level.

Used by stress/stress.sh after db_stress and db_crashtest.py runs: it proves
the policy was in effect and not silently dropped (an unknown id in an
OPTIONS file becomes no filter, and db_stress then falls back to its own
--bloom_bits Bloom filter).

Usage: check_filters.py --ldb=LDB --sst_dump=SST_DUMP --db=DB --expect=SPEC
                        [--json=FILE] [--plan_min_levels=N] [--allow_young]
                        [--shape=static|live]
  LDB, SST_DUMP  RocksDB's ldb and sst_dump (any version that reads the DB)
  SPEC           the filter policy string the DB was meant to get:
                 monkey:B or id=monkey;bits_per_key=B;filter=...;
                 last_level_filter=...
  --json=FILE    also write the per-level figures as JSON
  --plan_min_levels=N  check 4 only in column families with N or more
                 non-empty levels (default 3: in a younger tree the last
                 level holds L0's files, moved down whole with L0's filter)
  --allow_young  pass a database where no column family is that deep
                 (by default that fails: it cannot show the plan)
  --shape=S      the plan the policy followed, for which level is the last:
                 static (a policy with shape=static, or one no shape
                 listener fed: Monkey plans each file for its level of the
                 OPTIONS file's num_levels, the last being num_levels - 1)
                 or live (the deepest non-empty level is the last; the
                 db_stress that stress/stress.sh builds adds the listener). Default: static when
                 the OPTIONS file's policy says shape=static, else live.

Reads (stress/sst_facts.py): the DB's latest OPTIONS file (every column
family's filter_policy), the live SST files per level (`ldb --hex
manifest_dump`), each live file's table properties (`sst_dump
--show_properties`: filter policy name, filter block size, entries for
filter) and each filter's kind from the marker byte at the end of its
filter block (-1 FastLocalBloom, -2 Ribbon).

Checks, each a FAIL line and exit status 1 when it does not hold:
  1. every column family's filter_policy in the OPTIONS file is Monkey with
     the SPEC's options (bits_per_key, filter, last_level_filter, ...);
  2. every live SST with a filter names `monkey` as its filter policy (a
     stock policy's name means Monkey was not in effect when it was built);
  3. each filter's kind is the one SPEC asks for (filter=ribbon: Ribbon at
     every level; auto: Bloom at L0, Ribbon below; bloom or unset: Bloom),
     except RocksDB's own exceptions: Bloom for a Ribbon filter of under
     1024 entries (when smaller), legacy Bloom in files of format_version
     < 5; a partitioned filter fails (its partitions are not read);
  4. per column family under leveled compaction (the OPTIONS file's
     compaction_style; universal and FIFO get checks 1-3 only) that has
     --plan_min_levels non-empty levels, with L the last level (--shape:
     num_levels - 1, or the deepest non-empty level): every level
     above L has a filter for every file whose keys a deeper file also
     holds (a file nothing deeper overlaps is the last level's kind: built
     there and moved up whole, it reads one block on a miss, as L does), and
     - last_level_filter=true (default): L's bits per key are fewer than
       every upper level's -- under the live plan, every upper level whose
       runs (each L0 file, or the level) hold at most a quarter of L's
       entries. The live plan prices each level by its size in the tree
       as it is, so a level near L's size gets nearly L's bits, and files
       keep the bits they were built with: a backlog level beside a last
       level built when the tree was younger can sit either side of it.
       At one price a run a quarter the size gets log2(4)/ln(2)^2 = 2.9
       more bits (Bloom), past the 10% of the budget by which the live
       plan's correction moves new files;
     - last_level_filter=false: the files on L that have no filter hold
       most (> 50%) of L's entries (files moved down whole by a trivial
       move keep the filter they were built with) and L's filters, if any,
       have more bits per key than none: they are upper levels' filters.
     Under the static plan L may be empty (db_stress's CompactFiles, to the
     level below its input, and CompactRange with change_level can leave
     the deepest data above num_levels - 1): then every non-empty level is
     an upper level, every file must have a filter, and with
     last_level_filter=true the deepest non-empty level's bits per key must
     still be fewer than every level's above it.
Exit status: 0 all checks passed, 1 a check failed, 2 bad usage or a tool
failed (the message says which).
"""
import argparse
import json
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sst_facts import (die, filter_kind, filter_policies,  # noqa: E402
                       key_ranges, latest_options_file, live_files,
                       policy_options, run, table_properties)

# RocksDB's Ribbon builder falls back to Bloom below 1024 slots (one slot
# or more per entry) when Bloom takes less space.
RIBBON_MIN_ENTRIES = 1024


def parse_spec(spec):
    """SPEC -> {option: value} with id removed; monkey:B -> bits_per_key."""
    m = re.fullmatch(r"monkey:([0-9.]+)", spec)
    if m:
        return {"bits_per_key": m.group(1)}
    if not re.match(r"\s*id=monkey\s*(;|$)", spec):
        die("bad --expect '%s': not a Monkey policy (monkey:B or id=monkey;...)" % spec)
    opts = {}
    for part in spec.split(";"):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            die("bad --expect '%s': '%s' is not key=value" % (spec, part))
        k, v = part.split("=", 1)
        opts[k.strip()] = v.strip()
    if opts.pop("id", None) != "monkey":
        die("bad --expect '%s': not a Monkey policy (id=monkey or monkey:B)" % spec)
    return opts


def same_value(want, got):
    try:
        return abs(float(want) - float(got)) < 1e-9
    except ValueError:
        return want.lower() == got.lower()


def expected_kind(choice, level, format_version=7):
    if choice == "ribbon" or (choice == "auto" and level != 0):
        return "ribbon"
    # RocksDB's Bloom policy builds the legacy Bloom filter before
    # format_version 5 (its Ribbon policy builds Ribbon at any version).
    return "legacy_bloom" if format_version < 5 else "bloom"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ldb", required=True)
    ap.add_argument("--sst_dump", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--json")
    ap.add_argument("--allow_young", action="store_true")
    ap.add_argument("--plan_min_levels", type=int, default=3)
    ap.add_argument("--shape", choices=("static", "live"))
    args = ap.parse_args()
    want = parse_spec(args.expect)
    failures = []

    def fail(msg):
        failures.append(msg)
        print("FAIL: " + msg)

    if not os.path.isfile(os.path.join(args.db, "CURRENT")):
        die("%s is not a RocksDB database (no CURRENT)" % args.db)
    # 1. The OPTIONS file.
    options_file = latest_options_file(args.db)
    if options_file is None:
        # A run killed inside its first DB::Open (a whitebox kill point, or
        # a blackbox kill) can leave CURRENT and a MANIFEST but no OPTIONS
        # file yet; then it wrote no SST either, and there is no filter to
        # check. A live SST without an OPTIONS file still fails.
        cfs = live_files(args.ldb, args.db)
        ssts = sum(len(files) for levels in cfs.values()
                   for files in levels.values())
        if ssts:
            die("%s has no OPTIONS file but %d live SST file(s)"
                % (args.db, ssts))
        print("check_filters: nothing to check in %s: no OPTIONS file and "
              "no live SST file (killed before its first open finished)"
              % args.db)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"db": args.db, "expect": args.expect,
                           "column_families": [], "failures": [],
                           "plan_checked": [], "no_options_file": True},
                          f, indent=1)
        return 0
    num_levels = {}
    policies, styles = filter_policies(options_file, num_levels)
    if not policies:
        fail("%s names no filter_policy" % options_file)
    recorded = {}
    for cf, value in sorted(policies.items()):
        opts = policy_options(value)
        recorded[cf] = opts
        if opts.get("id") != "monkey":
            fail("column family '%s': OPTIONS has filter_policy=%s, not Monkey"
                 % (cf, value))
            continue
        for k, v in want.items():
            if k not in opts or not same_value(v, opts[k]):
                fail("column family '%s': OPTIONS has %s=%s, expected %s"
                     % (cf, k, opts.get(k, "(missing)"), v))
    choice = want.get("filter", "bloom").lower()
    last_filter = want.get("last_level_filter", "true").lower() == "true"
    by_value = {}
    for cf, value in sorted(policies.items()):
        by_value.setdefault(value, []).append(cf)
    for value, names in sorted(by_value.items()):
        print("%s: filter_policy=%s (column famil%s %s)"
              % (os.path.basename(options_file), value,
                 "y" if len(names) == 1 else "ies", ", ".join(names)))

    # 2-4. The live files.
    cfs = live_files(args.ldb, args.db)
    report = {"db": args.db, "expect": args.expect, "column_families": []}
    shapes = {}
    for cf in policies:
        shape = args.shape or recorded.get(cf, {}).get("shape", "live").lower()
        shapes[cf] = "static" if shape == "static" else "live"
    deepest_tree = 0
    plan_checked = []
    tables = table_properties(args.sst_dump, args.db)
    ranges = None  # read on first need
    for cf, levels in sorted(cfs.items()):
        rows = []
        for level in sorted(levels):
            row = {"level": level, "files": 0, "files_with_filter": 0,
                   "entries": 0, "filter_entries": 0, "filter_bytes": 0,
                   "unfiltered_entries": 0, "small_bloom_fallbacks": 0,
                   "kinds": {}, "file_numbers": list(levels[level]),
                   "unfiltered_files": []}
            bad_policy, bad_kind = [], []
            for number in levels[level]:
                path = os.path.join(args.db, "%06d.sst" % number)
                if not os.path.exists(path):
                    fail("column family '%s' L%d: live file %s is missing"
                         % (cf, level, path))
                    continue
                props = tables.get(os.path.basename(path))
                if props is None:
                    out = run([args.sst_dump, "--file=" + path, "--show_properties"],
                              check=False)
                    die("sst_dump printed no table properties for live file "
                        "%s: %s" % (path, out[-500:]))
                try:
                    kind, format_version = filter_kind(path)
                except (ValueError, IndexError, struct.error) as e:
                    die("cannot read the filter block of %s: %s" % (path, e))
                row["files"] += 1
                row["entries"] += props["entries"]
                has_filter = props["filter_size"] > 0 and kind != "none"
                if not has_filter:
                    row["unfiltered_entries"] += props["entries"]
                    row["unfiltered_files"].append(number)
                    continue
                row["files_with_filter"] += 1
                row["filter_entries"] += props["num_filter_entries"]
                row["filter_bytes"] += props["filter_size"]
                row["kinds"][kind] = row["kinds"].get(kind, 0) + 1
                if props["filter_policy"] != "monkey":
                    bad_policy.append("%s (%s)" % (os.path.basename(path),
                                                   props["filter_policy"] or "none"))
                wanted = expected_kind(choice, level, format_version)
                if kind == wanted:
                    continue
                if (wanted == "ribbon" and kind == "bloom"
                        and props["num_filter_entries"] < RIBBON_MIN_ENTRIES):
                    # RocksDB's Ribbon builds a Bloom filter for a small file
                    # when that is smaller (fewer than 1024 slots).
                    row["small_bloom_fallbacks"] += 1
                    continue
                bad_kind.append("%s (%s, %d entries)" % (
                    os.path.basename(path), kind, props["num_filter_entries"]))
            if bad_policy:
                fail("column family '%s' L%d: %d of %d filters were built by "
                     "another policy than monkey: %s"
                     % (cf, level, len(bad_policy), row["files_with_filter"],
                        ", ".join(bad_policy[:3]) + (", ..." if len(bad_policy) > 3 else "")))
            if bad_kind:
                fail("column family '%s' L%d: %d of %d filters are not the "
                     "kind filter=%s builds there: %s"
                     % (cf, level, len(bad_kind), row["files_with_filter"], choice,
                        ", ".join(bad_kind[:3]) + (", ..." if len(bad_kind) > 3 else "")))
            if row["files"] == 0:
                continue
            row["bits_per_key"] = (8.0 * row["filter_bytes"] / row["filter_entries"]
                                   if row["filter_entries"] else 0.0)
            rows.append(row)
        shape = shapes.get(cf, args.shape or "live")
        last_level = (num_levels[cf] - 1 if shape == "static" and cf in num_levels
                      else (rows[-1]["level"] if rows else None))
        report["column_families"].append({"name": cf, "levels": rows,
                                          "shape": shape,
                                          "compaction_style": styles.get(
                                              cf, "kCompactionStyleLevel"),
                                          "last_level": last_level})
        print("column family '%s':" % cf)
        print("  level  files  filtered    entries  filter KiB  bits/key  kinds")
        for r in rows:
            print("  L%-5d %5d %9d %10d %11.1f %9.3f  %s"
                  % (r["level"], r["files"], r["files_with_filter"], r["entries"],
                     r["filter_bytes"] / 1024.0, r["bits_per_key"],
                     ",".join("%s:%d" % kv for kv in sorted(r["kinds"].items()))
                     or "-"))
        if not rows:
            continue
        deepest_tree = max(deepest_tree, len(rows))
        style = styles.get(cf, "kCompactionStyleLevel")
        if style != "kCompactionStyleLevel":
            # Monkey plans for leveled compaction; the crash test also runs
            # universal and FIFO compaction, where only checks 1-3 apply.
            print("  (%s: per-level plan not checked)" % style)
            continue
        if len(rows) < args.plan_min_levels:
            # A young tree's last level holds files moved there whole from
            # L0 (a trivial move into an empty level keeps L0's filter).
            print("  (%d non-empty levels: per-level plan checked from %d)"
                  % (len(rows), args.plan_min_levels))
            continue
        plan_checked.append(cf)
        if rows[-1]["level"] == last_level:
            last, upper = rows[-1], rows[:-1]
        else:
            # The static plan's last level is empty: every level here was
            # planned as an upper level, the deepest one too.
            print("  (static plan: the last level L%d is empty; L%d and the "
                  "levels above it are upper levels)" % (last_level, rows[-1]["level"]))
            last, upper = None, rows
        for r in upper:
            # An upper file without a filter is the last level's kind of
            # file when nothing deeper holds its keys: built at the last
            # level and moved up whole (CompactRange's change_level), or
            # left by a tree that deepened beside it. A lookup of a key in
            # its range that misses reads one data block there, as in the
            # last level. Above a deeper file that holds its keys, it costs
            # a read the filter would have saved.
            if not r["unfiltered_files"]:
                continue
            if ranges is None:
                ranges = key_ranges(args.ldb, args.db)
            deeper = [(n, d["level"]) for d in rows if d["level"] > r["level"]
                      for n in d["file_numbers"]]
            above = []
            for number in r["unfiltered_files"]:
                lo, hi = ranges.get(number, (None, None))
                under = [(n, level) for n, level in deeper
                         if lo is None or n not in ranges or
                         not (ranges[n][1] < lo or hi < ranges[n][0])]
                if under:
                    above.append("%06d.sst over L%d's %06d.sst"
                                 % (number, under[0][1], under[0][0]))
            if above:
                fail("column family '%s' L%d: %d of %d files have no filter "
                     "above a deeper file holding their keys (only the last "
                     "level may be without): %s"
                     % (cf, r["level"], len(above), r["files"],
                        ", ".join(above[:3]) + (", ..." if len(above) > 3 else "")))
            else:
                print("  (L%d: %d file(s) without a filter, nothing deeper "
                      "holds their keys: the last level's kind of file)"
                      % (r["level"], len(r["unfiltered_files"])))
        if last is None:
            if last_filter:
                deepest = rows[-1]
                for r in rows[:-1]:
                    if r["filter_entries"] and not r["bits_per_key"] > deepest["bits_per_key"]:
                        fail("column family '%s': L%d has %.3f bits/key, not more "
                             "than the deepest level L%d's %.3f"
                             % (cf, r["level"], r["bits_per_key"], deepest["level"],
                                deepest["bits_per_key"]))
        elif last_filter:
            if last["files_with_filter"] != last["files"]:
                fail("column family '%s' L%d (last): %d of %d files have no "
                     "filter, but last_level_filter is true"
                     % (cf, last["level"], last["files"] - last["files_with_filter"],
                        last["files"]))
            for r in upper:
                runs = r["files"] if r["level"] == 0 else 1
                if shape == "live" and 4 * r["entries"] > runs * last["entries"]:
                    print("  (live plan: L%d's runs hold %d entries against "
                          "L%d's %d, over a quarter: bits not compared)"
                          % (r["level"], r["entries"] // runs, last["level"],
                             last["entries"]))
                    continue
                if r["filter_entries"] and not r["bits_per_key"] > last["bits_per_key"]:
                    fail("column family '%s': L%d has %.3f bits/key, not more "
                         "than the last level L%d's %.3f"
                         % (cf, r["level"], r["bits_per_key"], last["level"],
                            last["bits_per_key"]))
        else:
            if not 2 * last["unfiltered_entries"] > last["entries"]:
                fail("column family '%s' L%d (last): files without a filter "
                     "hold %d of %d entries, not most, with last_level_filter=false"
                     % (cf, last["level"], last["unfiltered_entries"],
                        last["entries"]))
    if not plan_checked and not args.allow_young:
        fail("no column family has %d non-empty levels (deepest: %d): "
             "too young a tree to show the plan" % (args.plan_min_levels, deepest_tree))
    report["failures"] = failures
    report["plan_checked"] = plan_checked
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if failures:
        print("check_filters: %d check(s) FAILED for %s" % (len(failures), args.db))
        return 1
    print("check_filters: all checks passed for %s (%s)" % (args.db, args.expect))
    return 0


if __name__ == "__main__":
    sys.exit(main())
