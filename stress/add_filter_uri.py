#!/usr/bin/env python3
"""Edits a RocksDB tree's db_stress (db_stress_tool/) so that it runs a
filter policy the way users run Monkey:

1. --filter_uri, the flag our db_bench patch adds to db_bench: a filter
   policy string made with FilterPolicy::CreateFromString and
   ignore_unsupported_options=false, so that an unknown id is an error
   (exit 1), not "no filter". Without the flag, db_stress builds its filter
   from --bloom_bits as before. db_crashtest.py passes unknown flags through
   to db_stress, so the crash test keeps all its randomized options and only
   the filter policy is ours. (An OPTIONS file, db_stress's --options_file,
   replaces every option the flags would set, merge operator included, and
   the crash test's runs then fail.)

2. monkey::Install's listener: at every DB open (the first and each
   reopen), after db_stress has reset options_.listeners to its own,
   monkey::NewShapeListener(policy) for the table's filter policy, whether
   it came from --filter_uri, --bloom_bits or --options_file (db_stress
   gives every column family ColumnFamilyOptions(options_), so they share
   that one policy object, as Install's does); and after the open,
   monkey::RefreshShape(db_), as the README and our db_bench patch do.
   NewShapeListener returns nullptr for anything but a Monkey policy with
   shape=live, so stock policies and `shape=static` (the static plan) run
   as before. That is what Install adds to a user's Options beyond the
   strict parse of 1 (registration: the plugin build registers `monkey`).

   Why an edit of db_stress and not the preload registrar
   (libmonkeyfilter_preload.so): the fork's db_stress links RocksDB
   statically, with `monkey` already registered by the plugin table, so a
   preloaded shared library would register into another copy of RocksDB; and
   registration is all a loader-time initializer can do: the listener must
   go into the Options that db_stress builds and rebuilds at each reopen
   (it clears options_.listeners there), which only code in db_stress sees.

Usage: add_filter_uri.py ROCKSDB_SRC
Edits three files in place, each at anchor lines that RocksDB has kept from
7.8.3 to 11.x; an edit already in the tree (its marker comment) is left as
it is, so a tree edited by an older version of this script gets the newer
edits added. Exits 1 naming the file and anchor when one is missing.
"""
import os
import sys

MARK = "monkey: --filter_uri"
LISTENER_MARK = "monkey: Install's shape listener"

# (file, anchor, replacement, marker): the replacement keeps the anchor.
EDITS = [
    ("db_stress_tool/db_stress_common.h",
     "DECLARE_double(bloom_bits);\n",
     "DECLARE_double(bloom_bits);\nDECLARE_string(filter_uri);  // " + MARK + "\n",
     MARK),
    ("db_stress_tool/db_stress_gflags.cc",
     "DEFINE_double(bloom_bits, 10,\n",
     "// " + MARK + "\n"
     "DEFINE_string(filter_uri, \"\",\n"
     "              \"A filter policy string (FilterPolicy::CreateFromString, \"\n"
     "              \"unknown ids are an error). Overrides --bloom_bits.\");\n\n"
     "DEFINE_double(bloom_bits, 10,\n",
     MARK),
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
     "  }\n",
     MARK),
    # The three edits of monkey::Install's listener, one marker each.
    ("db_stress_tool/db_stress_test_base.cc",
     "#include \"rocksdb/filter_policy.h\"\n",
     "#include \"rocksdb/filter_policy.h\"\n"
     "#include \"monkey/install.h\"  // " + LISTENER_MARK + ": include\n",
     LISTENER_MARK + ": include"),
    ("db_stress_tool/db_stress_test_base.cc",
     "    RegisterAdditionalListeners();\n",
     "    RegisterAdditionalListeners();\n"
     "    // " + LISTENER_MARK + ": add. What monkey::Install adds, for\n"
     "    // the policy every column family shares (nullptr unless Monkey\n"
     "    // with shape=live). db_stress cleared options_.listeners above.\n"
     "    if (const auto* monkey_table =\n"
     "            options_.table_factory->GetOptions<BlockBasedTableOptions>()) {\n"
     "      if (auto monkey_listener =\n"
     "              ::monkey::NewShapeListener(monkey_table->filter_policy)) {\n"
     "        options_.listeners.push_back(std::move(monkey_listener));\n"
     "      }\n"
     "    }\n",
     LISTENER_MARK + ": add"),
    ("db_stress_tool/db_stress_test_base.cc",
     "    fprintf(stderr, \"open error: %s\\n\", s.ToString().c_str());\n"
     "    exit(1);\n"
     "  }\n",
     "    fprintf(stderr, \"open error: %s\\n\", s.ToString().c_str());\n"
     "    exit(1);\n"
     "  }\n"
     "  ::monkey::RefreshShape(db_);  // " + LISTENER_MARK + ": refresh\n",
     LISTENER_MARK + ": refresh"),
]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src = sys.argv[1]
    texts = {}
    for rel, anchor, replacement, mark in EDITS:
        path = os.path.join(src, rel)
        if path not in texts:
            try:
                with open(path) as f:
                    texts[path] = f.read()
            except OSError as e:
                print("add_filter_uri: %s" % e, file=sys.stderr)
                return 1
        text = texts[path]
        if mark in text:
            continue
        if text.count(anchor) != 1:
            print("add_filter_uri: %s has %d lines '%s' (one expected): port "
                  "stress/add_filter_uri.py to this RocksDB"
                  % (path, text.count(anchor), anchor.strip().split("\n")[0]),
                  file=sys.stderr)
            return 1
        texts[path] = text.replace(anchor, replacement)
    for path, text in texts.items():
        with open(path) as f:
            if f.read() == text:
                continue
        with open(path, "w") as f:
            f.write(text)
    print("add_filter_uri: db_stress in %s takes --filter_uri and attaches "
          "monkey::Install's shape listener" % src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
