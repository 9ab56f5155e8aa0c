"""What a block read costs on the device a grid ran on: a least-squares fit
of each readmissing run's time per lookup to its block reads and the KiB
they read,

  micros a lookup = a * reads + b * KiB + c,

so that read_latency_bytes (objective=io's price of a read's bytes: a read
of n bytes costs 1 + n / read_latency_bytes small reads) is 1024 a / b. The
fit needs runs whose reads differ in size, full filter blocks beside 4 KiB
partitions and data blocks: where bytes follow reads, b and a are one
number. bench/cache_grid.py fits its runs with it.

Python's standard library only.
"""

import statistics

# The fit needs bytes a read that differ across runs by at least this
# factor, or it cannot tell a read from its bytes.
LEAST_BYTES_SPREAD = 2.0


def _det3(m):
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
            m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
            m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def fit(points):
    """points: (reads, KiB, micros) a lookup, one per run. Returns
    {"micros_per_read", "micros_per_kib", "micros_per_lookup",
    "read_latency_bytes", "median_error", "runs"}, or None when the reads'
    sizes do not vary enough (or a read's bytes would cost nothing)."""
    sizes = [kib / reads for reads, kib, _ in points if reads > 0]
    if len(points) < 3 or not sizes or \
            max(sizes) < LEAST_BYTES_SPREAD * min(sizes):
        return None
    rows = [(reads, kib, 1.0) for reads, kib, _ in points]
    # The normal equations, solved by Cramer's rule.
    gram = [[sum(r[i] * r[j] for r in rows) for j in range(3)]
            for i in range(3)]
    moments = [sum(r[i] * p[2] for r, p in zip(rows, points))
               for i in range(3)]
    det = _det3(gram)
    if det == 0:
        return None
    coef = []
    for k in range(3):
        m = [row[:] for row in gram]
        for i in range(3):
            m[i][k] = moments[i]
        coef.append(_det3(m) / det)
    a, b, c = coef
    if a <= 0 or b <= 0:
        return None
    errors = [abs(a * reads + b * kib + c - micros) / micros
              for reads, kib, micros in points if micros > 0]
    return {"micros_per_read": a, "micros_per_kib": b,
            "micros_per_lookup": c, "read_latency_bytes": 1024 * a / b,
            "median_error": statistics.median(errors), "runs": len(points)}


def fit_text(got):
    if got is None:
        return ("A read's cost: no fit (the runs' reads do not differ enough "
                "in size; full filters are needed beside partitions)")
    return (f"A read's cost over {got['runs']} runs: a lookup took "
            f"{got['micros_per_read']:.1f} us a block read + "
            f"{got['micros_per_kib']:.2f} us a KiB read + "
            f"{got['micros_per_lookup']:.1f} us, so read_latency_bytes = "
            f"{got['read_latency_bytes']:,.0f} (median error "
            f"{100 * got['median_error']:.1f}%)")
