"""ER and QE of the nonreciprocal release per record order: Gray, OR-Tools Gray-TSP, local Gray-TSP (Hamming, Hamming + length).

Data: ``graphanon.datasets.synthetic.quest(n, rng=0)`` (default ``n = 20000``).
Release: ``anonymize_nonreciprocal(data, k=5, rng=0, unsafe_secret_seed=s)``
for ``s`` in ``0 .. secrets - 1`` (the secret choices vary, the order does
not), every release audited (``NonreciprocalKAnonymity(5)``). Quality:
``evaluate_nonreciprocal(data, release, queries=500, rng=s)`` (ER from the
private link; QE over 500 type I and 500 type II COUNT queries of 3 included
/ 4 excluded items). Per configuration: the order's cyclic Hamming length,
the mean and standard deviation over the secrets of ER, QE, QE type II,
the mean bit-vote threshold and the mean number of distance positions, and
the CPU seconds of the first ``anonymize_nonreciprocal`` call.

Usage::

    python benchmarks/gray_tsp_quality.py [--n 20000] [--secrets 3] [--dataset bms1 --configs ... --out NAME]

prints JSON lines and writes ``benchmarks/results/gray_tsp_quality.json``
(``--dataset NAME``: a bundled dataset instead of Quest; ``--configs``: a
subset of the configuration labels; ``--out``: another file name).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal, hamming_cycle_length
from graphanon.datasets import load
from graphanon.datasets.synthetic import quest
from graphanon.metrics import evaluate_nonreciprocal
from graphanon.privacy import NonreciprocalKAnonymity

#: (label, keyword arguments of anonymize_nonreciprocal)
CONFIGS = [
    ("gray", {"order": "gray"}),
    ("ortools-40000 (default)", {}),
    ("ortools-5000", {"tsp_step_limit": 5000}),
    ("local-1500", {"tsp_solver": "local"}),
    ("local-300", {"tsp_solver": "local", "tsp_step_limit": 300}),
    ("local-length-1500", {"tsp_solver": "local-length"}),
    ("local-length-300", {"tsp_solver": "local-length", "tsp_step_limit": 300}),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--secrets", type=int, default=3)
    ap.add_argument("--dataset", default=None, help="a bundled dataset (graphanon.datasets.load) instead of Quest")
    ap.add_argument("--configs", nargs="*", default=None, help="labels of CONFIGS to run (default: all)")
    ap.add_argument("--out", default="gray_tsp_quality.json", help="file name under benchmarks/results")
    args = ap.parse_args()
    data = quest(args.n, rng=0) if args.dataset is None else load(args.dataset)
    rows = []
    for label, kw in CONFIGS:
        if args.configs is not None and label not in args.configs:
            continue
        values, cpu, length = [], None, None
        for secret in range(args.secrets):
            load_avg = os.getloadavg()[0]
            t = time.process_time()
            rel = anonymize_nonreciprocal(data, k=5, rng=0, unsafe_secret_seed=secret, **kw)
            if cpu is None:
                cpu = time.process_time() - t
                length = hamming_cycle_length(data, rel.trace.order)
            assert NonreciprocalKAnonymity(5).audit(data, rel).satisfied
            q = evaluate_nonreciprocal(data, rel, queries=500, rng=secret)
            values.append((q["error_rate"], q["query_error"], q["query_error_type2"],
                           float(rel.threshold.mean()), float(np.diff(rel.distance.indptr).mean())))
        v = np.array(values)
        names = ("error_rate", "query_error", "query_error_type2", "mean_threshold", "mean_distance_positions")
        row = {
            "config": label,
            "params": {key: value for key, value in rel.params.items() if key.startswith(("order", "tsp"))},
            "records": data.n_records,
            "order_cyclic_hamming": length,
            **{name: round(float(v[:, i].mean()), 6) for i, name in enumerate(names)},
            **{f"{name}_std": round(float(v[:, i].std()), 6) for i, name in enumerate(names[:3])},
            "anonymize_cpu_seconds": round(cpu, 2),
            "load_1min": round(load_avg, 2),
            "audits_satisfied": args.secrets,
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = {
        "benchmark": "gray_tsp_quality",
        "dataset": f"graphanon.datasets.synthetic.quest({args.n}, rng=0)" if args.dataset is None else args.dataset,
        "k": 5,
        "secrets": args.secrets,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "rows": rows,
    }
    (Path(__file__).parent / "results" / args.out).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
