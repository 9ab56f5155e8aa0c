#!/usr/bin/env python3
"""Adds --filter_uri to a RocksDB tree's db_stress (db_stress_tool/), the
flag our db_bench patch adds to db_bench: a filter policy string made with
FilterPolicy::CreateFromString and ignore_unsupported_options=false, so that
an unknown id is an error (exit 1), not "no filter". Without the flag,
db_stress builds its filter from --bloom_bits as before.

db_crashtest.py passes unknown flags through to db_stress, so the crash test
keeps all its randomized options and only the filter policy is ours. (An
OPTIONS file, db_stress's --options_file, replaces every option the flags
would set, merge operator included, and the crash test's runs then fail.)

Usage: add_filter_uri.py ROCKSDB_SRC
Edits three files in place, each at one anchor line that RocksDB has kept
from 9.x to 11.x; a tree that already has the flag is left as it is. Exits 1
naming the file and anchor when one is missing.
"""
import os
import sys

MARK = "monkey: --filter_uri"

EDITS = [
    ("db_stress_tool/db_stress_common.h",
     "DECLARE_double(bloom_bits);\n",
     "DECLARE_double(bloom_bits);\nDECLARE_string(filter_uri);  // " + MARK + "\n"),
    ("db_stress_tool/db_stress_gflags.cc",
     "DEFINE_double(bloom_bits, 10,\n",
     "// " + MARK + "\n"
     "DEFINE_string(filter_uri, \"\",\n"
     "              \"A filter policy string (FilterPolicy::CreateFromString, \"\n"
     "              \"unknown ids are an error). Overrides --bloom_bits.\");\n\n"
     "DEFINE_double(bloom_bits, 10,\n"),
    ("db_stress_tool/db_stress_test_base.cc",
     "std::shared_ptr<const FilterPolicy> CreateFilterPolicy() {\n",
     "std::shared_ptr<const FilterPolicy> CreateFilterPolicy() {\n"
     "  if (!FLAGS_filter_uri.empty()) {  // " + MARK + "\n"
     "    ConfigOptions config_options;\n"
     "    config_options.ignore_unsupported_options = false;\n"
     "    std::shared_ptr<const FilterPolicy> policy;\n"
     "    Status s = FilterPolicy::CreateFromString(config_options,\n"
     "                                              FLAGS_filter_uri, &policy);\n"
     "    if (!s.ok() || !policy) {\n"
     "      fprintf(stderr, \"--filter_uri=%s: %s\\n\", FLAGS_filter_uri.c_str(),\n"
     "              s.ok() ? \"no filter policy\" : s.ToString().c_str());\n"
     "      exit(1);\n"
     "    }\n"
     "    return policy;\n"
     "  }\n"),
]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src = sys.argv[1]
    for rel, anchor, replacement in EDITS:
        path = os.path.join(src, rel)
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            print("add_filter_uri: %s" % e, file=sys.stderr)
            return 1
        if MARK in text:
            continue
        if text.count(anchor) != 1:
            print("add_filter_uri: %s has %d lines '%s' (one expected): port "
                  "tools/stress/add_filter_uri.py to this RocksDB"
                  % (path, text.count(anchor), anchor.strip()), file=sys.stderr)
            return 1
        with open(path, "w") as f:
            f.write(text.replace(anchor, replacement))
    print("add_filter_uri: db_stress in %s takes --filter_uri" % src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
