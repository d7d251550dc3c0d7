"""Nonreciprocal recoding and its k-anonymity audit at 10^5 and 10^6 records.

Data: ``graphanon.datasets.synthetic.quest(n, rng=0)`` (T10I4D100K's
parameters: 10 items per record on average, 1,000 items). Method: nonreciprocal
recoding with ``k = 5`` and the default options (closed-walk extraction),
seeded (``rng=0``, so the Gray-TSP searches its deterministic step budget),
then ``NonreciprocalKAnonymity(5).audit``.

Each step of :func:`~graphanon.algorithms.nonreciprocal.anonymize_nonreciprocal`
is run on its own, exactly as the function runs it:

* ``order``: the record order (``--order``, default ``gray-tsp``);
* ``graph``: the k-regular ring over the order;
* ``extraction``: the ``k`` disjoint assignments (closed walk);
* ``publish``: the members matrix, the bit vote and the shuffled release;
* ``audit``: ``NonreciprocalKAnonymity(k).audit(data, release)``.

Quality (not timed into the total): the cyclic Hamming length of the order,
and the release's ER and QE (``graphanon.metrics.evaluate_nonreciprocal``:
ER from the private link, QE over 500 type I and 500 type II COUNT queries
of 3 included / 4 excluded items, workload seed 0).

Per step: wall time, CPU time of this process (``time.process_time``; on a
shared machine the honest measure of the work, and without the pool's
processes when ``--n-jobs`` > 1), the CPU time of the pool's processes
(``children_cpu_seconds``, from ``RUSAGE_CHILDREN`` once the pool is joined) and the peak resident memory above the step's starting
resident set (``/proc/self/statm`` sampled every 10 ms by a thread, so a spike
shorter than that can be missed), plus the process's overall peak resident
set (``ru_maxrss``). The load average before and after is recorded: the
machine is shared.

Usage::

    python benchmarks/nonreciprocal_1e6.py [--sizes 100000 1000000] [--k 5]
        [--order gray-tsp|gray] [--n-jobs 1] [--solver local|local-length|ortools] [--step-limit N]

prints JSON (and writes ``benchmarks/results/nonreciprocal_1e6_<order>.json``
with ``--save``, ``nonreciprocal_1e6_<order>_<suffix>.json`` with ``--suffix``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import threading
import time
from pathlib import Path

import numpy as np

from graphanon.algorithms.nonreciprocal import (
    extract_assignments,
    hamming_cycle_length,
    members_matrix,
    record_order,
    tsp_budget,
)
from graphanon.datasets.synthetic import quest
from graphanon.graphs.generalization import GeneralizationGraph
from graphanon.metrics import evaluate_nonreciprocal
from graphanon.privacy import NonreciprocalKAnonymity
from graphanon.release import publish
from graphanon.release.nonreciprocal import NonreciprocalRelease

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


def _children_cpu() -> float:
    """User + system CPU of this process's ended children (the pool's workers, once joined)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Step:
    """Time a step and sample its peak resident memory above the starting resident set."""

    def __init__(self, name: str, out: dict) -> None:
        self.name, self.out = name, out

    def __enter__(self):
        self.start_rss = self.peak = _rss()
        self.stop = threading.Event()

        def sample():
            while not self.stop.wait(0.01):
                self.peak = max(self.peak, _rss())

        self.thread = threading.Thread(target=sample, daemon=True)
        self.thread.start()
        self.t, self.cpu = time.perf_counter(), time.process_time()
        self.children = _children_cpu()
        return self

    def __exit__(self, *exc):
        seconds = time.perf_counter() - self.t
        cpu = time.process_time() - self.cpu
        children = _children_cpu() - self.children
        self.stop.set()
        self.thread.join()
        self.peak = max(self.peak, _rss())
        self.out[self.name] = {
            "seconds": round(seconds, 2),
            "cpu_seconds": round(cpu, 2),
            "children_cpu_seconds": round(children, 2),
            "peak_extra_mib": round((self.peak - self.start_rss) / 2**20, 1),
            "rss_after_mib": round(_rss() / 2**20, 1),
        }
        return False


def run(n: int, k: int, order: str, n_jobs: int, solver: str = "local", step_limit: int | None = None) -> dict:
    steps: dict = {}
    with Step("data", steps):
        data = quest(n, rng=0)
    rng = np.random.default_rng(0)
    tsp_seed = int(rng.integers(2**31 - 1))  # as anonymize_nonreciprocal draws it
    with Step("order", steps):
        perm = record_order(data, order, rng=tsp_seed, n_jobs=n_jobs, tsp_solver=solver, tsp_step_limit=step_limit)
    with Step("graph", steps):
        graph = GeneralizationGraph.ring(perm, k, data.record_ids)
    with Step("extraction", steps):
        assignments = extract_assignments(graph, rng=rng)
    with Step("publish", steps):
        secret = np.random.default_rng(1)
        sigma = assignments[int(secret.integers(k))]
        members = members_matrix(assignments, n)
        aligned = NonreciprocalRelease.from_preimages(data, members, sigma, algorithm="nr", params={"k": k})
        release = publish(data, aligned, secret=secret)
    del members, aligned, graph
    with Step("audit", steps):
        report = NonreciprocalKAnonymity(k).audit(data, release)
    t = time.perf_counter()
    quality = evaluate_nonreciprocal(data, release, queries=500, rng=0)
    quality_seconds = time.perf_counter() - t
    return {
        "records": n,
        "items": data.n_items,
        "occurrences": int(data.matrix.nnz),
        "k": k,
        "order": order,
        "tsp_solver": solver if order == "gray-tsp" else None,
        "tsp_step_limit": tsp_budget(None, step_limit, solver)[1] if order == "gray-tsp" else None,
        "n_jobs": n_jobs,
        "steps": steps,
        "total_seconds_without_data": round(sum(v["seconds"] for s, v in steps.items() if s != "data"), 2),
        "audit_satisfied": report.satisfied,
        "min_viable_candidates": report.details["min_viable_candidates"],
        "match_edges": report.details["match_edges"],
        "mean_threshold": round(float(release.threshold.mean()), 3),
        "order_cyclic_hamming": hamming_cycle_length(data, perm),
        "error_rate": round(quality["error_rate"], 5),
        "query_error": round(quality["query_error"], 6),
        "query_error_type1": round(quality["query_error_type1"], 6),
        "query_error_type2": round(quality["query_error_type2"], 6),
        "quality_seconds": round(quality_seconds, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--order", default="gray-tsp", choices=("gray-tsp", "gray"))
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--solver", default="local", choices=("local", "local-length", "ortools"))
    ap.add_argument("--step-limit", type=int, default=None)
    ap.add_argument("--save", action="store_true")
    ap.add_argument("--suffix", default=None, help="save as nonreciprocal_1e6_<order>_<suffix>.json")
    args = ap.parse_args()
    load_before = os.getloadavg()
    runs = []
    for n in args.sizes:  # each run also goes to stderr as it ends, so a long run's first sizes survive
        runs.append(run(n, args.k, args.order, args.n_jobs, args.solver, args.step_limit))
        print(json.dumps({**runs[-1], "load": [round(x, 2) for x in os.getloadavg()]}), file=sys.stderr, flush=True)
    out = {
        "benchmark": "nonreciprocal_1e6",
        "dataset": "graphanon.datasets.synthetic.quest(n, rng=0)",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "runs": runs,
    }
    text = json.dumps(out, indent=2)
    print(text)
    if args.save or args.suffix:
        name = args.order if args.suffix is None else f"{args.order}_{args.suffix}"
        path = Path(__file__).parent / "results" / f"nonreciprocal_1e6_{name}.json"
        path.write_text(text + "\n")


if __name__ == "__main__":
    main()
