"""Benchmark of the hierarchy-based family: AA, mHgHs and MM for k^m-anonymity.

Datasets: bms1 with a balanced taxonomy of fan-out 5 (as the papers'
synthetic hierarchies) and groceries with its bundled 3-level taxonomy.
Grid: k in {2, 5, 10, 25, 50}, m in {1, 2, 3}. Each run is executed in a
forked child process with a time limit; a run that exceeds it is reported
as a timeout (never dropped). For each run: runtime, NCP
(:func:`graphanon.metrics.ncp`), suppression ratio, and the verdict of the
independent :class:`graphanon.privacy.KmAnonymity` audit.

Usage::

    python benchmarks/hierarchy.py            # full grid
    python benchmarks/hierarchy.py --quick    # tiny smoke test

Prints one JSON document and writes it to ``benchmarks/results/hierarchy.json``
(``--quick`` writes ``hierarchy_quick.json``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import time
import warnings
from pathlib import Path

warnings.simplefilter("ignore", FutureWarning)

from graphanon.algorithms import anonymize_aa, anonymize_mhghs, anonymize_mm  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.errors import InfeasibleError  # noqa: E402
from graphanon.metrics import ncp, suppression_ratio  # noqa: E402
from graphanon.privacy import KmAnonymity  # noqa: E402
from graphanon.taxonomy import Taxonomy  # noqa: E402

METHODS = {
    "aa": lambda data, tax, k, m: anonymize_aa(data, taxonomy=tax, k=k, m=m),
    "mhghs": lambda data, tax, k, m: anonymize_mhghs(data, taxonomy=tax, k=k, m=m),
    "mm": lambda data, tax, k, m: anonymize_mm(data, k=k, m=m),
}


def dataset(name: str):
    data = load(name)
    tax = Taxonomy.balanced(data.items, 5) if name == "bms1" else load_taxonomy(name)
    return data, tax


def one_run(name, method, k, m, queue):
    data, tax = dataset(name)
    try:
        t0 = time.perf_counter()
        rel = METHODS[method](data, tax, k, m)
        runtime = time.perf_counter() - t0
    except InfeasibleError as exc:
        queue.put({"status": "infeasible", "error": str(exc)})
        return
    t0 = time.perf_counter()
    rep = KmAnonymity(k, m).audit(data, rel)
    audit_time = time.perf_counter() - t0
    queue.put(
        {
            "status": "ok",
            "runtime_s": round(runtime, 4),
            "ncp": ncp(data, rel),
            "suppression_ratio": suppression_ratio(data, rel),
            "cost_generalization": rel.params.get("cost_generalization"),
            "cost_suppression": rel.params.get("cost_suppression"),
            "published_items": rel.n_published_items,
            "audit_satisfied": bool(rep.satisfied),
            "audit_violations": int(rep.violations),
            "audit_s": round(audit_time, 4),
        }
    )


def run_limited(name, method, k, m, limit):
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=one_run, args=(name, method, k, m, q))
    t0 = time.perf_counter()
    p.start()
    p.join(limit)
    if p.is_alive():
        p.terminate()
        p.join()
        return {"status": "timeout", "limit_s": limit, "runtime_s": None}
    try:
        out = q.get(timeout=5)
    except Exception:  # the child died without a result
        out = {"status": "crashed", "exitcode": p.exitcode}
    out["wall_s"] = round(time.perf_counter() - t0, 3)
    return out


def speed(repeats: int) -> dict:
    """Best-of-``repeats`` runtime of AA and mHgHs with k=5, m=2 on full bms1."""
    data, tax = dataset("bms1")
    out = {}
    for method in ("aa", "mhghs"):
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            METHODS[method](data, tax, 5, 2)
            times.append(time.perf_counter() - t0)
        out[method] = {"best_s": round(min(times), 3), "all_s": [round(t, 3) for t in times]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="tiny grid (smoke test)")
    ap.add_argument("--limit", type=float, default=120.0, help="per-run time limit in seconds")
    ap.add_argument("--out", default=None, help="output JSON path")
    args = ap.parse_args()
    if args.quick:
        grid = {"datasets": ["groceries"], "k": [5], "m": [1, 2]}
        repeats = 1
    else:
        grid = {"datasets": ["bms1", "groceries"], "k": [2, 5, 10, 25, 50], "m": [1, 2, 3]}
        repeats = 3
    for name in grid["datasets"]:  # load once before forking (children inherit the cache)
        dataset(name)
    for method in METHODS:  # compile the numba kernels once, outside the timed runs
        METHODS[method](load("liuwang_fig1"), load_taxonomy("liuwang_fig1"), 2, 1)
    runs = []
    t_start = time.perf_counter()
    for name in grid["datasets"]:
        for m in grid["m"]:
            for k in grid["k"]:
                for method in METHODS:
                    res = run_limited(name, method, k, m, args.limit)
                    res.update({"dataset": name, "method": method, "k": k, "m": m})
                    runs.append(res)
    doc = {
        "benchmark": "hierarchy",
        "grid": grid,
        "limit_s": args.limit,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "note": "2-core machine shared with other jobs while measured",
        },
        "datasets": {
            name: {
                "records": dataset(name)[0].n_records,
                "items": dataset(name)[0].n_items,
                "occurrences": int(dataset(name)[0].matrix.nnz),
                "taxonomy": repr(dataset(name)[1]),
            }
            for name in grid["datasets"]
        },
        "runs": runs,
        "speed_bms1_k5_m2": speed(repeats) if not args.quick else None,
        "total_s": round(time.perf_counter() - t_start, 1),
    }
    out = Path(args.out) if args.out else Path(__file__).parent / "results" / (
        "hierarchy_quick.json" if args.quick else "hierarchy.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
