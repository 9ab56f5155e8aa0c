#!/usr/bin/python3
# Tests of bench/comparison/plots.py: the gnuplot script has each plot only
# when it has data, and gnuplot draws it.

import contextlib
import io
import os
import shutil
import tempfile
import unittest

from testing import level, result
from comparison.outputs import level_csv_rows
from comparison.plots import gnuplot_script, plot


def unfiltered(num):
    return result("none", num, None, None, 0, levels=[
        level(6, fpr=None, model_fpr=None, agrees=None, filter_bytes=0)])


def outputs(script):
    return [l for l in script if l.startswith("set output")]


class ScriptTest(unittest.TestCase):
    SERIES = [("levels_1.csv", "monkey:7")]

    def test_every_plot_has_data(self):
        for series in ([], self.SERIES):
            for by_keys in ([], [("sum_fpr_1.csv", "monkey:7")]):
                script = gnuplot_script([1000, 4000], series, True, by_keys)
                plots = [l for l in script if l.startswith("plot")]
                self.assertEqual(len(plots), len(outputs(script)))
                for line in plots:
                    self.assertRegex(line, r"^plot '[^']+\.csv'")

    def test_plots_by_what_there_is(self):
        script = gnuplot_script([1000], self.SERIES, True, [])
        self.assertEqual(outputs(script), [
            "set output 'bits_per_key_by_level.png'",
            "set output 'fpr_by_level.png'",
            "set output 'sum_fpr_vs_memory.png'"])
        # The memory plot is drawn on linear axes whatever came before.
        self.assertLess(script.index("unset logscale y"),
                        script.index("set output 'sum_fpr_vs_memory.png'"))
        script = gnuplot_script([1000], [], True, [])
        self.assertEqual(outputs(script),
                         ["set output 'sum_fpr_vs_memory.png'"])
        self.assertEqual(script[:2], ["set datafile separator ','",
                                      "set terminal pngcairo size 900,560 "
                                      "noenhanced"])
        self.assertIsNone(gnuplot_script([1000], [], False, []))


@unittest.skipUnless(shutil.which("gnuplot"), "no gnuplot")
class GnuplotTest(unittest.TestCase):
    def draw(self, results):
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            plot(out, results, level_csv_rows(results))
        return out, said.getvalue()

    def test_draws_every_plot(self):
        results = [result(c, n, 0.02, 0.02, 100) for n in (1000, 4000)
                   for c in ("bloomfilter:10", "monkey:7")]
        out, said = self.draw(results)
        self.assertEqual(said, "")
        for png in ("bits_per_key_by_level", "fpr_by_level",
                    "sum_fpr_vs_memory", "sum_fpr_by_keys"):
            self.assertGreater(os.path.getsize(f"{out}/{png}.png"), 0, png)

    def test_no_filter_at_the_largest_size(self):
        results = [result("monkey:7", 1000, 0.02, 0.02, 100),
                   unfiltered(4000)]
        out, said = self.draw(results)
        self.assertEqual(said, "")
        self.assertTrue(os.path.exists(f"{out}/sum_fpr_vs_memory.png"))
        self.assertFalse(os.path.exists(f"{out}/fpr_by_level.png"))

    def test_no_filter_no_plots(self):
        out, said = self.draw([unfiltered(1000)])
        self.assertEqual(said, "compare: no filter measured; no plots\n")
        self.assertFalse(os.path.exists(f"{out}/plots.gnuplot"))


if __name__ == "__main__":
    unittest.main()
