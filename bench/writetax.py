#!/usr/bin/python3
"""Write-tax benchmark: what a filter policy costs the write path (issue 29).

Runs fillrandom, fillseq, fillrandom with 4 threads, and overwrite with a 10%
deleterandom mix, each phase at least --seconds long, for bloomfilter:10,
monkey:10 (through monkey::Install, with its listener) and monkey:10 with
shape=static (no listener), in --rounds alternating rounds, with the patched
db_bench (build_tools/build_db_bench.sh). Prints per workload the median ops/s with
its min-max, the ratio to bloomfilter:10 ("no difference measured" where its
min-max contains 1.0), user CPU and rocksdb.stall.micros; writes table.txt,
results.json and every run's log to results/<timestamp>-writetax/.

  tools/compare.sh --preset=writetax [--release[=VERSION]] [flags below]
  bench/writetax.py --db_bench=PATH [--quick] [--rounds=N] [--seconds=S] ...

Python's standard library only.
"""

# The code is in bench/comparison/writetax.py.

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from comparison.writetax import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(description=__doc__))
