#!/usr/bin/python3
# Tests of bench/comparison/console.py: run_checked, which the benchmark
# drivers run db_bench and monkey_plan through.

import contextlib
import io
import os
import tempfile
import unittest

import testing  # noqa: F401  (the import path)
from comparison.console import run_checked


class RunCheckedTest(unittest.TestCase):
    def test_returns_stdout_and_keeps_both_streams(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.log")
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                got = run_checked("tool", ["sh", "-c", "echo out; echo err >&2"],
                                  tmp, out)
            self.assertEqual(got, "out\n")
            self.assertEqual(printed.getvalue(),
                             "tool: sh -c echo out; echo err >&2\n")
            with open(out) as f:
                self.assertEqual(f.read(), "out\nerr\n")

    def test_a_failure_exits_naming_the_command_and_its_stderr(self):
        with tempfile.TemporaryDirectory() as tmp:
            with contextlib.redirect_stdout(io.StringIO()):
                with self.assertRaises(SystemExit) as exit:
                    run_checked("tool", ["sh", "-c", "echo why >&2; exit 3"],
                                tmp)
        message = str(exit.exception.code)
        self.assertIn("tool: exit 3: sh -c", message)
        self.assertIn("why", message)


if __name__ == "__main__":
    unittest.main()
