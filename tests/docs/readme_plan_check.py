#!/usr/bin/env python3
"""Checks the README's table of the planner's predictions against
monkey_plan: each row "| B bits/key | Monkey % | uniform % | last level gets
L bits/key |" must be what `monkey_plan --bits_per_key=B --num_levels=6
--size_ratio=10` prints, to the README's two decimals.

Usage: readme_plan_check.py <source dir> <monkey_plan>
"""
import os
import re
import subprocess
import sys

ROW = re.compile(r"^\| (\d+) bits/key \| ([\d.]+)% \| ([\d.]+)% \| "
                 r"([\d.]+) bits/key \|$", re.M)
TOTALS = re.compile(r"avg bits/key, sum FPR \|\s+[\d.]+\s+([\d.]+)% \|"
                    r"\s+[\d.]+\s+([\d.]+)%")
LAST = re.compile(r"^L\d+\s+[\d.]+%\s+\d+ \|\s+([\d.]+)\s", re.M)


def main():
    root, monkey_plan = sys.argv[1], sys.argv[2]
    with open(os.path.join(root, "README.md")) as f:
        rows = ROW.findall(f.read())
    if not rows:
        print("readme_plan_check: no prediction rows in README.md")
        return 1
    errors = 0
    for bits, monkey, uniform, last in rows:
        out = subprocess.run(
            [monkey_plan, f"--bits_per_key={bits}", "--num_levels=6",
             "--size_ratio=10"], capture_output=True, text=True,
            check=True).stdout
        got_monkey, got_uniform = TOTALS.search(out).groups()
        got_last = LAST.findall(out)[-1]
        want = (monkey, uniform, last)
        got = tuple(f"{float(v):.2f}" for v in
                    (got_monkey, got_uniform, got_last))
        if want != got:
            print(f"README.md: {bits} bits/key row says {want}, monkey_plan "
                  f"gives {got}")
            errors += 1
    print(f"readme_plan_check: {len(rows) - errors} of {len(rows)} rows "
          "agree with monkey_plan")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
