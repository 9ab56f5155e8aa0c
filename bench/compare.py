#!/usr/bin/python3
"""Fixed-vs-Monkey filter comparison: the main job behind tools/compare.sh.

Runs one workload against several filter configurations with the patched
db_bench (build_tools/build_db_bench.sh), prints one side-by-side table, checks the
instrument against the FPR model and Monkey against bloomfilter:10, and writes
CSV, JSON and gnuplot plots to results/<timestamp>/.

Python's standard library only (csv, json); plots by gnuplot.
"""

# The code is in bench/comparison/ (its __init__.py lists the parts); this
# file is the command that runs it.

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from comparison.cli import main  # noqa: E402

if __name__ == "__main__":
    main(__doc__)
