# Shared by the tests of bench/comparison/: puts tools/ on the import path,
# builds results as the runner makes them, and finds the build's programs.

import os
import sys

SOURCE_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..",
                                           "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "bench"))

from comparison.specs import parse_config  # noqa: E402


def level(number, fpr=0.01, model_fpr=0.01, agrees=True, filter_bytes=5):
    """One level of a filter report, with the keys ToJsonLine writes."""
    return {"level": number, "files": 3, "entries": 10,
            "filter_bytes": filter_bytes, "filter_entries": 10,
            "bits_per_key": 4.0, "filter": "bloom", "probes": 100,
            "useful": 99, "false_positives": 1, "fpr": fpr,
            "model_fpr": model_fpr, "fpr_sigma": 0.001,
            "model_agrees": agrees, "changed": False}


def result(spec, num, sum_fpr, model_sum_fpr, filter_bytes, agrees=True,
           levels=None, plan=None):
    """A result of one (size, configuration) with a readmissing report."""
    levels = levels if levels is not None else [
        level(6, model_fpr=0.01 if agrees else 0.02, agrees=agrees)]
    report = {"benchmark": "readmissing", "levels": levels,
              "sum_fpr": sum_fpr, "model_sum_fpr": model_sum_fpr,
              "filter_bytes_total": filter_bytes, "bits_per_key": 10,
              "fp_per_absent_lookup": 0.01, "lookups": 100,
              "block_cache_data_hit": 1, "block_cache_data_miss": 1,
              "model_agrees": agrees}
    return {"num": num, "config": parse_config(spec),
            "benchmarks": [{"benchmark": "readmissing", "ops_per_sec": 5,
                            "p95_micros": 1.0, "phase": "measure"}],
            "reports": {"readmissing": report}, "plan": plan or {}}


def program(variable):
    """The path of a program the build made, from the environment variable
    ctest sets (tests/CMakeLists.txt)."""
    path = os.environ.get(variable)
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError(f"set {variable} to the built program (ctest "
                           f"does: ctest -R compare); got {path!r}")
    return path
