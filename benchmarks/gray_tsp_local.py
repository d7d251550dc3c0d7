"""Gray-TSP order: the local solver (iterated 2-opt / Or-opt, numba) against OR-Tools, per kick budget.

Data: chess, mushroom, bms1 (bundled) and ``graphanon.datasets.synthetic.quest(100000, rng=0)``
(T10I4D100K's parameters). Segments of 300-350 records (the defaults),
``rng=0``, one process (``n_jobs=1``). Per row: the order's cyclic Hamming
length, the sum of the segments' path lengths, wall and CPU seconds of
``gray_tsp_details`` (``time.process_time``; the machine is shared, so CPU is
the honest measure, best of ``--repeat`` runs) and the load average before
the row. Rows: the local solver at several kick budgets (``step_limit``;
1 is about the plain 2-opt / Or-opt descent from the Gray path, 1,500 the default), and OR-Tools at its default 40,000
steps (the default before issue 24), and the length-aware local solver
(``solver="local-length"``) at the ``--length-kicks`` budgets.

Usage::

    python benchmarks/gray_tsp_local.py [--datasets chess mushroom bms1 quest100k]
        [--kicks 1 300 1500 5000] [--length-kicks 1500] [--repeat 1] [--ortools-on chess mushroom]

prints JSON lines and writes ``benchmarks/results/gray_tsp_local.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from graphanon.algorithms.nonreciprocal import gray_order, gray_tsp_details, hamming_cycle_length
from graphanon.datasets import load
from graphanon.datasets.synthetic import quest


def _data(name: str):
    if name == "quest100k":
        return quest(100_000, rng=0).matrix
    return load(name).matrix


def _timed(fn, repeat: int):
    best = None
    for _ in range(repeat):
        load_avg = os.getloadavg()[0]
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        if best is None or cpu < best[2]:
            best = (out, wall, cpu, load_avg)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["chess", "mushroom", "bms1", "quest100k"])
    ap.add_argument("--kicks", type=int, nargs="+", default=[1, 300, 1500, 5000])
    ap.add_argument("--length-kicks", type=int, nargs="*", default=[1500],
                    help="kick budgets of the length-aware local solver (solver='local-length')")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--ortools-on", nargs="*", default=None,
                    help="datasets that also get the OR-Tools row (default: all; it costs about 0.1 s per segment)")
    ap.add_argument("--out", default=None, help="file name under benchmarks/results (default gray_tsp_local.json)")
    args = ap.parse_args()
    # compile (or load) the kernels before timing anything
    gray_tsp_details(np.eye(8, dtype=bool)[[0, 3, 1, 7, 2, 6, 4, 5]], step_limit=1)
    rows = []
    for name in args.datasets:
        X = _data(name)
        gray = gray_order(X)
        base = {"dataset": name, "records": int(X.shape[0]), "items": int(X.shape[1])}
        with_ortools = args.ortools_on is None or name in args.ortools_on
        runs = [("local", k) for k in args.kicks] + [("local-length", k) for k in args.length_kicks]
        runs += [("ortools", 40000)] if with_ortools else []
        gray_length = hamming_cycle_length(X, gray)
        for solver, steps in runs:
            res, wall, cpu, load_avg = _timed(
                lambda X=X, s=solver, k=steps: gray_tsp_details(X, solver=s, step_limit=k, rng=0), args.repeat
            )
            row = {
                **base,
                "solver": solver,
                "step_limit": steps,
                "segments": int(len(res.bounds) - 1),
                "gray_cyclic_hamming": gray_length,
                "cyclic_hamming": hamming_cycle_length(X, res.order),
                "segment_paths_gray": int(res.gray_costs.sum()),
                "segment_paths": int(res.tsp_costs.sum()),
                "wall_seconds": round(wall, 2),
                "cpu_seconds": round(cpu, 2),
                "cpu_ms_per_segment": round(1000 * cpu / (len(res.bounds) - 1), 2),
                "load_1min": round(load_avg, 2),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    out = {
        "benchmark": "gray_tsp_local",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "repeat": args.repeat,
        "rows": rows,
    }
    path = Path(__file__).parent / "results" / (args.out or "gray_tsp_local.json")
    path.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
