#!/usr/bin/env python3
"""Compiles every source of ours (library, tools, tests, fuzzers) against
RocksDB's headers with -DROCKSDB_NAMESPACE=<another name>, syntax only:
engines build RocksDB in their own namespace, and code that names
`rocksdb::` does not compile there. The commands come from the build's
compile_commands.json.

Usage: namespace_check.py <build dir> <source dir> [namespace]
"""
import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def main():
    build, source = sys.argv[1], os.path.realpath(sys.argv[2])
    namespace = sys.argv[3] if len(sys.argv) > 3 else "monkey_ns_check"
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    ours = [e for e in entries
            if os.path.realpath(e["file"]).startswith(source + os.sep)]
    if not ours:
        sys.exit("namespace_check: no sources of ours in compile_commands.json")

    def check(entry):
        args = shlex.split(entry["command"])
        # Drop the output: -o <file>.
        if "-o" in args:
            i = args.index("-o")
            del args[i:i + 2]
        args += ["-fsyntax-only", "-DROCKSDB_NAMESPACE=" + namespace]
        r = subprocess.run(args, cwd=entry["directory"], capture_output=True,
                           text=True)
        return entry["file"], r.returncode, r.stderr

    failed = 0
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, code, err in pool.map(check, ours):
            if code != 0:
                failed += 1
                print(f"namespace_check: {name} does not compile with "
                      f"ROCKSDB_NAMESPACE={namespace}:\n{err}")
    print(f"namespace_check: {len(ours) - failed} of {len(ours)} sources "
          f"compile with ROCKSDB_NAMESPACE={namespace}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
