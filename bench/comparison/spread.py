# Throughput with its spread: each benchmark's ops/s over the rounds of the
# measurement (median, min and max), and one configuration's ops/s over
# another's, round by round. A ratio whose min-max range contains 1.0 is
# "no difference measured": on a shared machine the rounds of one
# configuration differ by more than that (666k, 995k and 656k ops/s of one
# readmissing in three rounds of 0.2-0.3 s each).

import statistics

NO_DIFFERENCE = "no difference measured"


def ops_rounds(result, bench):
    """The ops/s of `bench` in each round of the measurement, or its one
    value where it ran once (a load phase); [] where it did not run. Of a
    benchmark listed more than once (the deep preset's overwrites), the
    last, as the table's figures take it."""
    for b in reversed(result["benchmarks"]):
        if b["benchmark"] != bench:
            continue
        rounds = [v for v in b.get("ops_per_sec_rounds") or []
                  if v is not None]
        if rounds:
            return rounds
        return [] if b.get("ops_per_sec") is None else [b["ops_per_sec"]]
    return []


def spread(values):
    """(median, min, max) of the values, or None without any."""
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def ratio_rounds(mine, theirs):
    """The ratios of two configurations' ops/s: round by round where both
    ran the same rounds (a round runs every configuration back to back, so
    that a change of machine load hits them alike), else every value over
    every other. [] where either has none or a zero."""
    if not mine or not theirs or 0 in theirs:
        return []
    if len(mine) == len(theirs):
        return [a / b for a, b in zip(mine, theirs)]
    return [a / b for a in mine for b in theirs]


def no_difference(ratios):
    """Whether the ratios' min-max range contains 1.0 (more than one round:
    one value has no spread to judge by)."""
    return len(ratios) > 1 and min(ratios) <= 1 <= max(ratios)


def fmt_rounds(n):
    return f"{n} round" + ("" if n == 1 else "s")


def fmt_range(low, high, fmt="{:,.0f}"):
    return f"{fmt.format(low)}-{fmt.format(high)}"


def fmt_ratio(ratios):
    """One throughput ratio as the tables and checks print it: the median of
    the ratios and their min-max, or "no difference measured" where that
    range contains 1.0."""
    if not ratios:
        return "-"
    median, low, high = spread(ratios)
    if len(ratios) == 1:
        return f"{median:.2f}x (1 round, no spread)"
    where = f"{low:.2f}-{high:.2f}x over {fmt_rounds(len(ratios))}"
    if no_difference(ratios):
        return f"{NO_DIFFERENCE} ({median:.2f}x, {where})"
    return f"{median:.2f}x ({where})"


def fmt_spread_cell(values):
    """A table cell under an ops/s row: the min-max of the rounds, or "1
    run" for a benchmark that ran once."""
    if not values:
        return "-"
    if len(values) == 1:
        return "1 run"
    _, low, high = spread(values)
    return fmt_range(low, high)
