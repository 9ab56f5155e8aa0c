#!/usr/bin/python3
# Tests of tools/comparison/checks.py: the instrument against the model, and
# monkey:10 and monkey:7 against bloomfilter:10.

import unittest

from testing import level, result
from comparison.checks import (checks, deep_checks, instrument_checks,
                               memlimit_checks, monkey_checks)


class ChecksTest(unittest.TestCase):
    def setUp(self):
        self.results = [result("bloomfilter:10", 1000, 0.02, 0.02, 100),
                        result("monkey:10", 1000, 0.014, 0.014, 104),
                        result("monkey:7", 1000, 0.05, 0.05, 70)]

    def test_verdicts(self):
        verdicts = checks(self.results)
        self.assertEqual(verdicts[0], "PASS instrument: all 3 measured "
                         "levels agree with the model (3 sigma or 5%)")
        self.assertEqual(
            verdicts[1],
            "PASS 1,000 keys monkey:10 vs bloomfilter:10 (lower sum FPR, "
            "bytes <= 1.05x): sum FPR 1.400% vs 2.000% (0.700x), filter "
            "bytes 1.040x; measured/model sum FPR 1.000")
        self.assertTrue(verdicts[2].startswith(
            "FAIL 1,000 keys monkey:7 vs bloomfilter:10 (sum FPR <=, fewer "
            "bytes): sum FPR 5.000% vs 2.000% (2.500x)"), verdicts)
        self.assertEqual(len(verdicts), 3)

    def test_variants_are_judged_like_their_base(self):
        static = result("monkey:7/static=id=monkey;bits_per_key=7;"
                        "shape=static", 1000, 0.019, 0.02, 70)
        self.assertTrue(monkey_checks(self.results + [static])[-1].startswith(
            "PASS 1,000 keys monkey:7/static"))
        # monkey:100 is not monkey:10.
        other = result("monkey:100", 1000, 0.001, 0.001, 1000)
        self.assertEqual(len(monkey_checks(self.results + [other])), 2)

    def test_the_memory_objective_holds_the_sum_fpr_in_fewer_bytes(self):
        spec = "monkey10/memory=id=monkey;bits_per_key=10;objective=memory"
        saving = result(spec, 1000, 0.0205, 0.0205, 80)
        self.assertTrue(monkey_checks(self.results + [saving])[-1].startswith(
            "PASS 1,000 keys monkey10/memory vs bloomfilter:10 (sum FPR <= "
            "1.05x, fewer bytes): sum FPR 2.050% vs 2.000% (1.025x)"))
        worse = result(spec, 1000, 0.022, 0.022, 80)
        self.assertTrue(monkey_checks(self.results + [worse])[-1].startswith(
            "FAIL 1,000 keys monkey10/memory"))
        bigger = result(spec, 1000, 0.02, 0.02, 100)
        self.assertTrue(monkey_checks(self.results + [bigger])[-1].startswith(
            "FAIL 1,000 keys monkey10/memory"))

    def test_too_many_bytes_fails(self):
        self.results[1] = result("monkey:10", 1000, 0.014, 0.014, 106)
        self.assertTrue(monkey_checks(self.results)[0].startswith("FAIL"))

    def test_deep_judges_runs_against_fixed10(self):
        def deep(spec, l0_fpr, fpr, filter_bytes, model=None):
            levels = [level(0, fpr=l0_fpr, model_fpr=l0_fpr)] + [
                level(n, fpr=fpr, model_fpr=model or fpr) for n in (3, 4, 5)]
            return result(spec, 1000, 0, 0, filter_bytes, levels=levels)
        fixed = deep("fixed10=bloomfilter:10", 0.01, 0.01, 100)  # 6 runs
        good = [deep("monkey10=monkey:10", 0.0001, 0.006, 104),
                deep("monkey7=monkey:7", 0.001, 0.015, 70)]
        verdicts = deep_checks([fixed] + good)
        self.assertTrue(verdicts[0].startswith(
            "PASS 1,000 keys deep tree: fixed10 has 6 filtered runs"),
            verdicts)
        self.assertTrue(verdicts[1].startswith(
            "PASS 1,000 keys monkey10 vs fixed10 (sum FPR <= 0.35x, bytes "
            "<= 1.05x): sum FPR over runs 1.830% vs 6.000% (0.305x)"),
            verdicts)
        self.assertTrue(verdicts[2].startswith("PASS 1,000 keys monkey7"),
                        verdicts)
        # Only in the deep preset.
        self.assertEqual(checks([fixed] + good, "tdstore"),
                         checks([fixed] + good))
        self.assertEqual(checks([fixed] + good, "deep")[-3:], verdicts)
        bad = [deep("monkey10=monkey:10", 0.0001, 0.006, 106),
               deep("monkey7=monkey:7", 0.001, 0.015, 70, model=0.012)]
        self.assertEqual([v[:4] for v in deep_checks([fixed] + bad)],
                         ["PASS", "FAIL", "FAIL"])
        shallow = result("fixed10=bloomfilter:10", 1000, 0, 0, 100,
                         levels=[level(5), level(6)])
        self.assertTrue(deep_checks([shallow])[0].startswith(
            "FAIL 1,000 keys deep tree: fixed10 has 2 filtered runs"))

    def test_memlimit_judges_inserts_and_filter_loads(self):
        def group(spec, ops, loads):
            r = result(spec, 1000, 0.05, 0.05, 100)
            r["benchmarks"] = [{"benchmark": "insertunique",
                                "ops_per_sec": ops, "p95_micros": 1.0,
                                "phase": "measure"}]
            r["block_loads"] = [{"filter_bytes_per_op": loads}]
            return r
        fixed = group("fixed10=bloomfilter:10", 1000, 500)
        self.assertTrue(memlimit_checks(
            [fixed, group("monkey7=monkey:7", 1060, 390)])[0].startswith(
            "PASS 1,000 keys monkey7 vs fixed10"))
        slow = memlimit_checks([fixed, group("monkey7=monkey:7", 1040, 390)])
        self.assertTrue(slow[0].startswith("FAIL"), slow)
        heavy = memlimit_checks([fixed, group("monkey7=monkey:7", 1100, 410)])
        self.assertTrue(heavy[0].startswith("FAIL"), heavy)
        self.assertEqual(checks([fixed], "memlimit"), checks([fixed]))

    def test_no_baseline_no_monkey_verdict(self):
        self.assertEqual(monkey_checks(self.results[1:]), [])

    def test_instrument_disagreement_fails_per_level(self):
        self.results[0] = result("bloomfilter:10", 1000, 0.02, 0.02, 100,
                                 agrees=False)
        verdicts = instrument_checks(self.results)
        self.assertEqual(verdicts, [
            "FAIL instrument: 1,000 keys bloomfilter:10 L6: measured "
            "1.0000%, model 2.0000% (sigma 0.1000%, 100 trials)"])

    def test_no_level_judged(self):
        changed = level(6, agrees=None)
        r = result("monkey:10", 1000, 0.01, 0.01, 100, levels=[changed])
        self.assertEqual(instrument_checks([r]), [
            "instrument: no level judged (every level's files changed "
            "during the measurement)"])


if __name__ == "__main__":
    unittest.main()
