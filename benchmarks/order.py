"""Benchmark the record orders of nonreciprocal recoding, and the CAHD grouping.

For chess, mushroom and bms1: total cyclic Hamming length and runtime of the
identity, Gray and Gray-TSP orders (segments [300, 350], several per-segment
TSP time limits, plus the deterministic step-limit run that seeded runs use),
the breakpoint cost
of the DP against cutting at fixed length, and the runtime of CAHD grouping
(skewed seeded labels) for l = 4..12.

Usage::

    python benchmarks/order.py            # full run (a few minutes)
    python benchmarks/order.py --quick    # smoke test (seconds)

Prints one JSON document and writes benchmarks/results/order.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from graphanon.algorithms.nonreciprocal import (
    DETERMINISTIC_STEP_LIMIT,
    consecutive_hamming,
    gray_order,
    gray_tsp_details,
    hamming_cycle_length,
)
from graphanon.algorithms.nonreciprocal.cahd_groups import cahd_groups
from graphanon.datasets import load

RESULTS = Path(__file__).resolve().parent / "results" / "order.json"


def skewed_labels(n: int, seed: int = 0) -> np.ndarray:
    """Zipf-like labels over 24 values (shares 7.4% .. 2.5%): feasible up to l = 13."""
    p = 1.0 / (np.arange(24) + 12)
    return np.random.default_rng(seed).choice(24, size=n, p=p / p.sum())


def order_rows(name, data, limits, step_limit, min_seg, max_seg, parallel=()):
    n = data.n_records
    rows = []
    ident = hamming_cycle_length(data, np.arange(n))
    t0 = time.perf_counter()
    gray = gray_order(data)
    t_gray = time.perf_counter() - t0
    gray_len = hamming_cycle_length(data, gray)
    # breakpoint DP vs cutting every (min+max)/2 records
    h = consecutive_hamming(data, gray, cyclic=False)
    runs = []
    for tl in limits:
        runs.append(("time_limit", tl, None, 1))
    if step_limit:
        runs.append(("step_limit", None, step_limit, 1))
    for tl in parallel:
        runs.append(("time_limit", tl, None, 2))
    for mode, tl, sl, jobs in runs:
        t0, c0 = time.perf_counter(), time.process_time()
        res = gray_tsp_details(
            data,
            min_segment=min_seg,
            max_segment=max_seg,
            time_limit=tl,
            step_limit=sl,
            n_jobs=jobs,
        )
        t, cpu = time.perf_counter() - t0, time.process_time() - c0
        bp = res.bounds[1:-1]
        step = (min_seg + max_seg) // 2
        fixed = np.arange(step, n, step)
        fixed = fixed[fixed < n]
        rows.append(
            {
                "dataset": name,
                "n_records": n,
                "n_items": data.n_items,
                "mode": mode,
                "time_limit_s": tl,
                "step_limit": sl,
                "n_jobs": jobs,
                "segments": int(len(res.bounds) - 1),
                "segments_solved": int(res.solved.sum()),
                "identity": ident,
                "gray": gray_len,
                "gray_tsp": hamming_cycle_length(data, res.order),
                "gray_tsp_vs_gray": round(hamming_cycle_length(data, res.order) / gray_len, 4),
                "breakpoint_cost_dp": int(h[bp - 1].sum()) if bp.size else 0,
                "breakpoint_cost_fixed_cut": int(h[fixed - 1].sum()) if fixed.size else 0,
                "seconds_gray": round(t_gray, 4),
                "seconds_gray_tsp": round(t, 2),
                "cpu_seconds_gray_tsp": round(cpu, 2) if jobs == 1 else None,
            }
        )
        print(json.dumps(rows[-1]), flush=True, file=__import__("sys").stderr)
    return rows


def cahd_rows(name, data, ls, order_kind):
    rows = []
    labels = skewed_labels(data.n_records)
    t0 = time.perf_counter()
    order = gray_order(data)
    t_order = time.perf_counter() - t0
    X = data.matrix
    for l in ls:  # noqa: E741
        t0 = time.perf_counter()
        groups = cahd_groups(data, labels, l, order=order)
        t = time.perf_counter() - t0
        sizes = np.array([len(g) for g in groups])
        # mean Hamming distance of a record to its group's bit vote (the bit-voting loss)
        flips = 0
        for g in groups:
            sub = X[g].toarray()
            base = sub.sum(axis=0) * 2 > len(g)  # majority, ties -> 0
            flips += int((sub != base).sum())
        rows.append(
            {
                "dataset": name,
                "order": order_kind,
                "l": l,
                "groups": len(groups),
                "largest_group": int(sizes.max()),
                "records_in_groups_of_l": int(sizes[sizes == l].sum()),
                "mean_bits_flipped_per_record": round(flips / data.n_records, 3),
                "seconds_order": round(t_order, 3),
                "seconds_cahd": round(t, 3),
            }
        )
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny smoke test")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    if args.quick:
        chess = load("chess").subset(np.arange(700))
        order = order_rows("chess[:700]", chess, [0.05], 2000, 300, 350, parallel=[0.05])
        cahd = cahd_rows("chess[:700]", chess, [4, 8], "gray")
    else:
        order = []
        steps = DETERMINISTIC_STEP_LIMIT
        order += order_rows("chess", load("chess"), [0.1, 0.2, 1.0], steps, 300, 350)
        order += order_rows("mushroom", load("mushroom"), [0.1, 0.2, 1.0], steps, 300, 350)
        order += order_rows("bms1", load("bms1"), [0.1, 0.2], steps, 300, 350, parallel=[0.1])
        cahd = []
        for name in ("chess", "mushroom", "bms1"):
            cahd += cahd_rows(name, load(name), [4, 6, 8, 10, 12], "gray")
    doc = {
        "benchmark": "order",
        "quick": args.quick,
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "note": "shared 2-core machine (other jobs running); wall-clock seconds",
        },
        "orders": order,
        "cahd": cahd,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
