"""Benchmark of Clump and Partition (transactional k-anonymity by local recoding).

Per dataset (bms1 with a balanced fan-out-5 taxonomy, groceries with its own
taxonomy, mushroom balanced fan-out 5) and k in {2, 5, 10, 25, 50}: wall
time, groups, total GGD of the groups had they been published as their LCG
(``ggd_lcg``), the NCP of the release under its own reading in both
conventions (LM-based ``ncp`` and He & Naughton's ``ncp_hn``) and the AvgRE
of the shared COUNT workload (1000 queries, q=2, seed 0; the same queries
for every method). For reference, AA and mHgHs at the same k with m=2 (their
``ncp`` and AvgRE). Then the growth of time from 10k to 60k records of bms1
(k=10).

Every release is audited (transactional k-anonymity) before its numbers are
recorded. The machine is shared: the load average is recorded.

Usage: ``python benchmarks/clustering.py [--ks 2,5,10,25,50] [--datasets bms1,groceries,mushroom]
[--no-reference] [--no-scaling] [--reference-only] [--out NAME.json]``; prints JSON
and writes ``benchmarks/results/NAME.json`` (default ``clustering.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from graphanon.algorithms import anonymize_aa, anonymize_clump, anonymize_mhghs, anonymize_partition
from graphanon.datasets import load, load_taxonomy
from graphanon.metrics import average_relative_error, generate_workload, ncp_he_naughton, ncp_lm
from graphanon.metrics.loss import recoding_loss
from graphanon.privacy import TransactionalKAnonymity
from graphanon.taxonomy import Taxonomy


def dataset(name):
    data = load(name)
    if name == "groceries":
        return data, load_taxonomy("groceries")
    return data, Taxonomy.balanced(data.items, 5)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def local_row(method, data, tax, k, workload):
    sec, rel = timed(lambda: method(data, taxonomy=tax, k=k))
    rep = TransactionalKAnonymity(k).audit(data, rel)
    assert rep.satisfied, str(rep)
    return {
        "seconds": round(sec, 3),
        "groups": rel.trace.groups,
        "ggd_lcg": round(rel.params["ggd_lcg"], 2),
        "ncp": round(ncp_lm(data, rel), 5),
        "ncp_hn": round(ncp_he_naughton(data, rel), 5),
        "avg_re": round(average_relative_error(rel, workload), 4),
    }


def reference_row(method, data, tax, k, workload):
    sec, rel = timed(lambda: method(data, taxonomy=tax, k=k, m=2))
    return {
        "seconds": round(sec, 3),
        "ncp": round(recoding_loss(data, rel).ncp, 5),
        "avg_re": round(average_relative_error(rel, workload), 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ks", default="2,5,10,25,50")
    ap.add_argument("--datasets", default="bms1,groceries,mushroom")
    ap.add_argument("--no-reference", action="store_true")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--reference-only", action="store_true", help="only AA and mHgHs (m=2), no scaling")
    ap.add_argument("--out", default="clustering.json")
    args = ap.parse_args()
    ks = [int(x) for x in args.ks.split(",")]
    # compile the kernels before timing
    warm, warm_tax = dataset("groceries")
    anonymize_clump(warm.subset(np.arange(200)), taxonomy=warm_tax, k=2)
    anonymize_partition(warm.subset(np.arange(200)), taxonomy=warm_tax, k=2)
    out = {"machine": platform.platform(), "cpus": os.cpu_count(), "load_before": os.getloadavg(), "runs": []}
    for name in args.datasets.split(","):
        data, tax = dataset(name)
        workload = generate_workload(data, 1000, 2, rng=0)
        for k in ks:
            row = {"dataset": name, "k": k}
            for label, method in (("partition", anonymize_partition), ("clump", anonymize_clump)):
                if not args.reference_only:
                    row[label] = local_row(method, data, tax, k, workload)
            if not args.no_reference:
                for label, method in (("aa_m2", anonymize_aa), ("mhghs_m2", anonymize_mhghs)):
                    try:
                        row[label] = reference_row(method, data, tax, k, workload)
                    except Exception as exc:  # noqa: BLE001 - record why a reference is missing
                        row[label] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
            out["runs"].append(row)
            print(json.dumps(row), flush=True)
    if not (args.no_scaling or args.reference_only):
        data, tax = dataset("bms1")
        out["scaling_bms1_k10"] = []
        for n in (10_000, 20_000, 40_000, data.n_records):
            sub = data.subset(np.arange(n))
            t_p, _ = timed(lambda sub=sub: anonymize_partition(sub, taxonomy=tax, k=10))
            t_c, _ = timed(lambda sub=sub: anonymize_clump(sub, taxonomy=tax, k=10))
            row = {"records": n, "partition_s": round(t_p, 3), "clump_s": round(t_c, 3)}
            out["scaling_bms1_k10"].append(row)
            print(json.dumps(row), flush=True)
    out["load_after"] = os.getloadavg()
    text = json.dumps(out, indent=1)
    path = Path(__file__).parent / "results" / args.out
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
