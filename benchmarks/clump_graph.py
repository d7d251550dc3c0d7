"""Clump's similarity graph: time, peak memory and GGD, before and after the pruned kNN search.

Each case runs in a fresh child process for each source tree given
(``--tree NAME=PATH``, e.g. ``before=/tmp/clump_old`` made with
``git archive <commit> graphanon | tar -x -C /tmp/clump_old``, and
``after=.``), with ``PYTHONPATH`` set to that tree. In the child: load the
data and taxonomy, warm the numba kernels on 300 records, then run
``anonymize_clump(..., rng=0, unsafe_secret_seed=0)`` ``--repeat`` times and
keep the best wall and CPU seconds, the seconds of the similarity-graph phase
(between Clump's own progress reports "similarity graph" and "greedy
grouping": the identical-record groups and the kNN graph), the rise of the
process's peak RSS during the call (``VmHWM`` reset through
``/proc/self/clear_refs`` before it), the total GGD, a SHA-256 of the
similarity graph (CSR arrays) and of the published release, and whether the
transactional k-anonymity audit passes. The parent adds the child's whole
peak RSS (``os.wait4``). Then one whole-process run per tree of
``python -m graphanon anonymize bms1 -a clump -k 10 --taxonomy balanced:5``
(wall and CPU seconds and peak RSS of the run of best wall, of ``--repeat``).

With ``--knn-only`` each child times only the exact kNN search Clump runs
(``RecordSimilarityGraph.knn`` with ``neighbors=50`` on the records left
after the identical-record groups, one thread): its CPU seconds (the
thread's, best of ``--repeat``), its wall seconds, and a SHA-256 of the
graph (the trees must agree on it); no Clump call and no CLI run.

Before the cases, one throwaway child per tree fills its numba cache, so no
measured child compiles. The load average is recorded with every case: the
machine is shared.

Usage::

    python benchmarks/clump_graph.py --tree before=/tmp/clump_old --tree after=. [--repeat 3] [--out clump_graph.json]
    python benchmarks/clump_graph.py --knn-only --tree before=/tmp/clump_old --tree after=. --cases bms1:10 \
        --out clump_knn.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = [("bms1", 5), ("bms1", 10), ("bms1", 25), ("groceries", 10), ("chess", 10), ("mushroom", 10)]


def _clear_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _digest(*arrays) -> str:
    import numpy as np

    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def child(name: str, k: int, repeat: int, n_jobs: int) -> dict:
    """One case in this process (run by the parent with PYTHONPATH set to a tree)."""
    import inspect

    import numpy as np

    import graphanon
    from graphanon.algorithms import anonymize_clump
    from graphanon.datasets import load, load_taxonomy
    from graphanon.privacy import TransactionalKAnonymity
    from graphanon.taxonomy import Taxonomy

    data = load(name)
    tax = load_taxonomy("groceries") if name == "groceries" else Taxonomy.balanced(data.items, 5)
    anonymize_clump(data.subset(np.arange(300)), taxonomy=tax, k=2, rng=0)
    extra = {"n_jobs": n_jobs} if "n_jobs" in inspect.signature(anonymize_clump).parameters else {}
    if n_jobs > 1 and not extra:
        return {"skipped": "this tree has no n_jobs"}
    best = {"wall": 1e9, "cpu": 1e9, "graph_wall": 1e9, "peak_rise_mib": 1e9}
    for _ in range(repeat):
        marks = {}

        def progress(done, total, message, marks=marks):
            marks[message] = time.perf_counter()

        _clear_peak()
        before = _peak_mib()
        t, c = time.perf_counter(), time.process_time()
        rel = anonymize_clump(data, taxonomy=tax, k=k, rng=0, unsafe_secret_seed=0, progress=progress, **extra)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        best["peak_rise_mib"] = min(best["peak_rise_mib"], _peak_mib() - before)
        best["wall"] = min(best["wall"], wall)
        best["cpu"] = min(best["cpu"], cpu)
        best["graph_wall"] = min(best["graph_wall"], marks["greedy grouping"] - marks["similarity graph"])
    g = rel.trace.similarity_graph.matrix
    g.sort_indices()
    audit = TransactionalKAnonymity(k).audit(data, rel)
    return {
        "path": str(Path(graphanon.__file__).parent.parent),
        "ggd": rel.params["ggd"],
        "groups": rel.trace.groups,
        "graph_entries": int(g.nnz),
        "graph_sha": _digest(g.indptr.astype("int64"), g.indices.astype("int64"), g.data.astype("float64")),
        "release_sha": _digest(rel.records.indptr.astype("int64"), rel.records.indices.astype("int64"),
                               rel.link.row_of_record),
        "audit_satisfied": bool(audit.satisfied),
        **{key: round(v, 3) for key, v in best.items()},
    }


def child_knn(name: str, k: int, repeat: int) -> dict:
    """Only the kNN search of Clump (k = ``k``) on ``name``: thread CPU and wall seconds, best of ``repeat``."""
    import numpy as np
    import scipy.sparse as sp

    import graphanon
    from graphanon.algorithms.grouping.clump import _identical_groups
    from graphanon.datasets import load
    from graphanon.graphs.similarity import RecordSimilarityGraph

    data = load(name)
    group = _identical_groups(data.matrix, k)[0]
    free = np.flatnonzero(group < 0)
    X = sp.csr_array(sp.diags_array((group < 0).astype(np.float64)) @ data.matrix)
    RecordSimilarityGraph.knn(X, 50, rows=free[:300], n_jobs=1)  # load the kernel
    best_cpu = best_wall = 1e9
    for _ in range(repeat):
        t, c = time.perf_counter(), time.thread_time()
        g = RecordSimilarityGraph.knn(X, 50, rows=free, n_jobs=1)
        best_cpu = min(best_cpu, time.thread_time() - c)
        best_wall = min(best_wall, time.perf_counter() - t)
    M = g.matrix
    return {"path": str(Path(graphanon.__file__).parent.parent), "query_rows": int(len(free)),
            "graph_entries": int(M.nnz), "knn_cpu": round(best_cpu, 3), "knn_wall": round(best_wall, 3),
            "graph_sha": _digest(M.indptr.astype("int64"), M.indices.astype("int64"), M.data.astype("float64"))}


def run_child(tree: str, name: str, k: int, repeat: int, n_jobs: int, knn_only: bool = False) -> dict:
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    proc = subprocess.Popen([sys.executable, __file__, "--child-knn" if knn_only else "--child", name, str(k),
                             str(repeat), str(n_jobs)],
                            env=env, stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"child {tree} {name} k={k} failed (status {status})")
    row = json.loads(out.strip().splitlines()[-1])
    row["process_peak_mib"] = round(usage.ru_maxrss / 1024, 1)
    row["process_cpu"] = round(usage.ru_utime + usage.ru_stime, 3)
    return row


def cli_run(tree: str, repeat: int) -> dict:
    """Whole process: ``python -m graphanon anonymize bms1 -a clump -k 10`` (best wall, its peak RSS)."""
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    best_wall, peak, cpu = 1e9, 0.0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeat):
            out = Path(tmp) / "clump.json"
            out.unlink(missing_ok=True)
            t = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "graphanon", "anonymize", "bms1", "-a", "clump", "-k", "10",
                                     "--taxonomy", "balanced:5", "--seed", "0", "-o", str(out)], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tmp)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t
            if status != 0:
                raise SystemExit(f"CLI run in {tree} failed: {proc.stderr.read().decode()[-500:]}")
            if wall < best_wall:
                best_wall, peak, cpu = wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
    return {"wall": round(best_wall, 3), "cpu": round(cpu, 3), "process_peak_mib": round(peak, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", default=[], help="NAME=PATH of a source tree holding graphanon/")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", default=",".join(f"{n}:{k}" for n, k in CASES))
    ap.add_argument("--out", default="clump_graph.json")
    ap.add_argument("--knn-only", action="store_true", help="time only the kNN search (one thread) in each tree")
    ap.add_argument("--child", nargs=4, metavar=("DATA", "K", "REPEAT", "N_JOBS"), help=argparse.SUPPRESS)
    ap.add_argument("--child-knn", nargs=4, metavar=("DATA", "K", "REPEAT", "N_JOBS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        name, k, repeat, n_jobs = args.child
        print(json.dumps(child(name, int(k), int(repeat), int(n_jobs))))
        return
    if args.child_knn:
        name, k, repeat, _ = args.child_knn
        print(json.dumps(child_knn(name, int(k), int(repeat))))
        return
    trees = dict(t.split("=", 1) for t in args.tree) or {"after": "."}
    cases = [(c.split(":")[0], int(c.split(":")[1])) for c in args.cases.split(",")]
    for tree in trees.values():  # fill each tree's numba cache first: no child below compiles
        run_child(tree, "groceries", 2, 1, 1)
    rows = []
    if args.knn_only:  # alternate the trees, case by case
        for name, k in cases:
            for label, tree in trees.items():
                row = {"data": name, "k": k, "tree": label, "load": os.getloadavg()[0],
                       **run_child(tree, name, k, args.repeat, 1, knn_only=True)}
                rows.append(row)
                print(json.dumps(row), flush=True)
        result = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "repeat": args.repeat,
                  "knn_only": True, "neighbors": 50, "cases": rows, "load_end": os.getloadavg()[0]}
        (Path(__file__).parent / "results" / args.out).write_text(json.dumps(result, indent=1) + "\n")
        return
    for name, k in cases:
        for label, tree in trees.items():
            for n_jobs in (1, 2) if label == list(trees)[-1] else (1,):
                row = {"data": name, "k": k, "tree": label, "n_jobs": n_jobs, "load": os.getloadavg()[0],
                       **run_child(tree, name, k, args.repeat, n_jobs)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    cli = {label: {"load": os.getloadavg()[0], **cli_run(tree, args.repeat)} for label, tree in trees.items()}
    print(json.dumps({"cli": cli}), flush=True)
    result = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "repeat": args.repeat,
              "cases": rows, "cli_bms1_k10": cli}
    out = Path(__file__).parent / "results" / args.out
    out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
