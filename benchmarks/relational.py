"""Relational-transaction benchmark: rt on 10^5 synthetic patients, and rt against the naive baseline.

Measures, on :func:`graphanon.datasets.synthetic.patients_with_demographics`
(5 QIs: age, gender, race, region, marital status; ICD-9-like codes):

* ``speed``: ``anonymize_rt`` on ``--n`` records (default 10^5; about 900 items
  of a 1,000-leaf code tree), k=5, m=2, delta=0.5, ``--transaction`` (default
  mhghs: AA lifts every group of this sparse data to the root), merge=rmerge_r:
  wall seconds of each step (clusters, merging, transactions per group, release),
  clusters, groups, merges, relational loss, and the verdict of an independent
  (k, k^2) check of the published rows (groups of >= k rows; every published item
  and pair of items supported 0 or >= k times in its group; sparse products
  ``P^T P`` per group, written here, not the method's code);
* ``study`` (``--study``, 3,000 records): rt with each transaction method x
  k in {2, 5, 10} against rt-naive: relational loss (mean NCP), average
  relative error of 200 COUNT queries of 2 items (one seeded workload), and
  the GCP of the published QI values and the average relative error of 200
  COUNT queries combining ranges on 2 QIs with 2 items
  (:func:`graphanon.metrics.rtviews.rt_utility`), and the rows the check
  finds below k (rows holding an itemset of <= 2 items supported by fewer
  than k rows of their relational group).

Usage::

    python benchmarks/relational.py            # speed at 10^5
    python benchmarks/relational.py --study    # and the study at 3,000 records
    python benchmarks/relational.py --n 20000  # smaller

Prints one JSON document and writes ``benchmarks/results/relational.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._common import print_and_save  # noqa: E402
from graphanon.algorithms.relational import _clusters, _merge, rt  # noqa: E402
from graphanon.datasets.synthetic import patients_with_demographics  # noqa: E402
from graphanon.metrics import average_relative_error, generate_workload  # noqa: E402
from graphanon.metrics.rtviews import rt_utility  # noqa: E402


def check_k_k2(release, k: int) -> dict:
    """(k, k^2) of the published rows: groups, violating itemsets and the rows holding one."""
    groups = release.groups()
    P = sp.csr_array(release.records, dtype=np.int64)
    small, bad_sets, bad_rows = 0, 0, 0
    for rows in groups:
        if len(rows) < k:
            small += 1
            bad_rows += len(rows)
            continue
        G = P[rows]
        sup = np.asarray(G.sum(axis=0)).ravel()
        bad_items = np.flatnonzero((sup > 0) & (sup < k))
        pairs = sp.triu(sp.csr_array(G.T @ G), k=1).tocoo()
        low = (pairs.data > 0) & (pairs.data < k)
        bad_sets += len(bad_items) + int(low.sum())
        hit = np.zeros(len(rows), dtype=bool)
        if len(bad_items):
            hit |= np.asarray(G[:, bad_items].sum(axis=1)).ravel() > 0
        csc = G.tocsc()
        for a, b in zip(pairs.row[low], pairs.col[low]):
            both = np.intersect1d(csc.indices[csc.indptr[a]:csc.indptr[a + 1]],
                                  csc.indices[csc.indptr[b]:csc.indptr[b + 1]])
            hit[both] = True
        bad_rows += int(hit.sum())
    return {"groups": len(groups), "groups_below_k": small, "violating_itemsets": bad_sets,
            "rows_below_k": bad_rows, "satisfied": small == 0 and bad_sets == 0}


def speed(n: int, k: int = 5, m: int = 2, delta: float = 0.5, transaction: str = "mhghs") -> dict:
    """One timed run of rt, step by step (the steps are the method's own functions, in its order)."""
    t0 = time.perf_counter()
    data, tax = patients_with_demographics(n, seed=0)
    t_data = time.perf_counter() - t0
    hs = [data.hierarchies[c] for c in data.qi]
    t0 = time.perf_counter()
    codes = data.qi_codes()
    cluster = _clusters.mondrian(codes, hs, k)
    t_clusters = time.perf_counter() - t0
    t0 = time.perf_counter()
    rel = rt.anonymize_rt(data, k=k, m=m, taxonomy=tax, delta=delta, transaction=transaction)
    t_total = time.perf_counter() - t0
    t0 = time.perf_counter()
    nodes = _clusters.cluster_nodes(codes, cluster, int(cluster.max()) + 1, hs)
    _merge.merge_clusters(cluster, nodes, data.transactions.matrix, hs, k=k, delta=delta, rule="rmerge_r")
    t_merge = time.perf_counter() - t0
    return {
        "records": n, "items": data.transactions.n_items, "qis": len(data.qi), "k": k, "m": m, "delta": delta,
        "transaction": transaction, "merge": "rmerge_r",
        "seconds_generate": round(t_data, 2), "seconds_rt": round(t_total, 2),
        "seconds_clusters_alone": round(t_clusters, 2), "seconds_merging_alone": round(t_merge, 2),
        "clusters": rel.trace.stats["clusters"], "merges": rel.trace.stats["merges"], "groups": rel.params["groups"],
        "ril": round(rel.params["ril"], 4), "published_items": len(rel.published_items),
        "check": check_k_k2(rel, k),
    }


def study(n: int = 3000, queries: int = 200) -> list[dict]:
    """rt with each transaction method x k against the naive baseline, relational and item utility side by side."""
    data, tax = patients_with_demographics(n, seed=1)
    workload = generate_workload(data.transactions, queries, 2, rng=0)
    out = []
    for k in (2, 5, 10):
        for transaction in ("aa", "mhghs", "coat"):
            for method in ("rt", "rt-naive"):
                t0 = time.perf_counter()
                if method == "rt":
                    rel = rt.anonymize_rt(data, k=k, m=2, taxonomy=tax, transaction=transaction, delta=0.5)
                    ril = rel.params["ril"]
                else:
                    rel = rt.anonymize_rt_naive(data, k=k, m=2, taxonomy=tax, transaction=transaction)
                    hs = [data.hierarchies[c] for c in data.qi]
                    groups = rel.groups()
                    sizes = np.array([len(g) for g in groups])
                    firsts = np.array([g[0] for g in groups])
                    ncp = sum(h.ncp_of(np.array([h.node(rel.values[c][rel.relational[j, c]]) for j in firsts]))
                              for c, h in enumerate(hs))
                    ril = float((sizes * ncp).sum() / (n * len(hs)))
                seconds = time.perf_counter() - t0
                check = check_k_k2(rel, k)
                utility = rt_utility(data, rel, queries=queries, q=2, attributes=2, rng=0)
                out.append({"method": method, "transaction": transaction, "k": k, "m": 2,
                            "seconds": round(seconds, 2), "groups": check["groups"], "ril": round(ril, 4),
                            "gcp": round(utility["rt_gcp"], 4),
                            "avg_relative_error": round(float(average_relative_error(rel, workload)), 4),
                            "rt_query_error": round(utility["rt_query_error"], 4),
                            "rows_below_k": check["rows_below_k"], "satisfied": check["satisfied"]})
                print(out[-1], file=sys.stderr)
    return out


def main() -> None:
    """Run the benchmark and print its JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--study", action="store_true")
    parser.add_argument("--transaction", default="mhghs", choices=("aa", "mhghs", "coat"))
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    doc = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "load_average": [round(x, 2) for x in os.getloadavg()]},
           "speed": speed(args.n, transaction=args.transaction)}
    if args.study:
        doc["study"] = study()
    doc["machine"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print_and_save(doc, "relational", save=not args.no_save)


if __name__ == "__main__":
    main()
