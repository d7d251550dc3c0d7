"""Extraction kernels of a previous revision vs the working tree (closed walk and backtracking).

Loads ``graphanon/graphs/assignment.py`` as it was at ``--rev`` (default
b2d1fe1, before the closed walk's proposal sampling and the lazy Fisher-Yates
backtracking) with ``git show`` and times both versions of both methods on the
same graph, the k = 16 ring over the Gray order of chess x16 (as in
``benchmarks/nonreciprocal.py``): per seed the best of ``--repeats`` identical
runs, mean and median over ``--seeds`` seeds.

Usage: ``python benchmarks/extraction_vs_previous.py [--rev REV] [--factor 16]``;
prints JSON and writes ``benchmarks/results/extraction_vs_previous.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import graphanon.algorithms.nonreciprocal as current
from graphanon.algorithms.nonreciprocal import gray_order
from graphanon.datasets import load
from graphanon.graphs.generalization import ring_graph

sys.path.insert(0, str(Path(__file__).parent))
from nonreciprocal import perturbed_copies  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def load_previous(rev: str):
    """The module ``graphanon.graphs.assignment`` at git revision ``rev`` (numba cache off)."""
    src = subprocess.run(
        ["git", "show", f"{rev}:graphanon/graphs/assignment.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    src = src.replace("@numba.njit(cache=True", "@numba.njit(cache=False")
    path = Path(tempfile.mkdtemp()) / "assignment_previous.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("assignment_previous", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="b2d1fe1", help="git revision of the previous kernels")
    ap.add_argument("--factor", type=int, default=16, help="chess x FACTOR")
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "extraction_vs_previous.json"))
    args = ap.parse_args(argv)
    previous = load_previous(args.rev)
    data = perturbed_copies(load("chess"), args.factor, seed=0)
    g = ring_graph(gray_order(data.matrix), args.k)
    for module in (previous, current):  # compile
        for method in ("closed-walk", "backtracking"):
            module.extract_assignments(ring_graph(np.arange(10), 2), method=method, rng=0)
    load_before = os.getloadavg()
    rows = []
    for label, module in ((f"previous ({args.rev})", previous), ("current", current)):
        for method in ("closed-walk", "backtracking"):
            times, steps = [], []
            for seed in range(args.seeds):
                best = np.inf
                for _ in range(args.repeats):
                    st = {}
                    t = time.perf_counter()
                    module.extract_assignments(g, method=method, rng=seed, stats=st)
                    best = min(best, time.perf_counter() - t)
                times.append(best)
                steps.append(sum(st["steps"]))
            rows.append({"code": label, "method": method, "time_s_mean": float(np.mean(times)),
                         "time_s_median": float(np.median(times)), "steps_mean": float(np.mean(steps)),
                         "steps_median": float(np.median(steps)), "time_s_per_seed": times, "steps_per_seed": steps})
            print(json.dumps({key: v for key, v in rows[-1].items() if "per_seed" not in key}), flush=True)
    result = {"graph": f"ring k={args.k} over the Gray order of chess x{args.factor} (n={g.n})", "seeds": args.seeds,
              "repeats": args.repeats, "load_avg_before": list(load_before), "load_avg_after": list(os.getloadavg()),
              "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
