"""Why the Gray-TSP order drives QE: bit-vote thresholds against record lengths in the order's windows.

Data: ``graphanon.datasets.synthetic.quest(n, rng=0)`` (default ``n = 20000``).
Orders: Gray, and Gray-TSP with ``solver`` "ortools" (default, 40,000 steps),
"local" and "local-length" (``rng=0``, default budgets). For every window of
``k = 5`` consecutive records of the cyclic order (the preimages of one row of
the ring graph), the bit vote of :func:`graphanon.release.bit_voting.bit_vote`
gives the threshold (the largest distance of a preimage to the majority). Per
order: mean threshold, mean longest record of a window, mean length range
(longest minus shortest) of a window, mean length difference of consecutive
records, mean base length and mean number of distance positions.

Usage::

    python benchmarks/gray_tsp_windows.py [--n 20000] [--k 5]

prints JSON lines and writes ``benchmarks/results/gray_tsp_windows.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.nonreciprocal import gray_order, gray_tsp_details
from graphanon.datasets.synthetic import quest
from graphanon.release.bit_voting import bit_vote


def window_statistics(X: sp.csr_array, order: np.ndarray, k: int) -> dict:
    """Bit-vote and length statistics of the ``k``-record windows of a cyclic order."""
    n = X.shape[0]
    lengths = np.diff(X.indptr)
    windows = order[(np.arange(n)[:, None] + np.arange(k)[None, :]) % n]
    members = sp.csr_array((np.ones(n * k), (np.repeat(np.arange(n), k), windows.ravel())), shape=(n, n))
    base, distance, threshold = bit_vote(X, members)
    window_lengths = lengths[windows]
    return {
        "mean_threshold": round(float(threshold.mean()), 3),
        "mean_window_max_length": round(float(window_lengths.max(axis=1).mean()), 3),
        "mean_window_length_range": round(float(np.ptp(window_lengths, axis=1).mean()), 3),
        "mean_consecutive_length_difference": round(float(np.abs(np.diff(lengths[order])).mean()), 3),
        "mean_base_length": round(float(np.diff(base.indptr).mean()), 3),
        "mean_distance_positions": round(float(np.diff(distance.indptr).mean()), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--k", type=int, default=5)
    args = ap.parse_args()
    X = sp.csr_array(quest(args.n, rng=0).matrix)
    orders = {"gray": gray_order(X)}
    for solver in ("ortools", "local", "local-length"):
        orders[solver] = gray_tsp_details(X, rng=0, solver=solver).order
    rows = []
    for name, order in orders.items():
        row = {"order": name, **window_statistics(X, order, args.k), "load_1min": round(os.getloadavg()[0], 2)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = {
        "benchmark": "gray_tsp_windows",
        "dataset": f"graphanon.datasets.synthetic.quest({args.n}, rng=0)",
        "k": args.k,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "rows": rows,
    }
    (Path(__file__).parent / "results" / "gray_tsp_windows.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
