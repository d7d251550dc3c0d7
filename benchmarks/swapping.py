"""Benchmark of tendency hiding (issue 13) on BMS-WebView-1 with 50 random categories.

Measures: the time of every method on full bms1 (PartSwap target < 5 s) and
how PartSwap's time grows with the number of records; the paper's utility
orderings (FI similarity, number of FI, Dif) at supports 0.2 %-0.5 % on a
5,000-record sample and on full bms1; the tendency audit; and the package's
frequent-itemset engine against pyfim (when installed) on bms1.

Prints one JSON document and writes it to benchmarks/results/swapping.json.

    python benchmarks/swapping.py            # full
    python benchmarks/swapping.py --quick    # smoke test (sample only)
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import best_of, print_and_save  # noqa: E402

SUPPORTS = (0.002, 0.003, 0.004, 0.005)


def methods(data, cats):
    from graphanon.algorithms import (
        anonymize_fullswap,
        anonymize_partsupp,
        anonymize_partswap,
        anonymize_randswap,
        anonymize_splitperson,
    )

    return {
        "partswap": lambda: anonymize_partswap(data, categories=cats, rng=0),
        "fullswap": lambda: anonymize_fullswap(data, categories=cats, rng=0),
        "randswap": lambda: anonymize_randswap(data),
        "partsupp": lambda: anonymize_partsupp(data, categories=cats),
        "splitperson": lambda: anonymize_splitperson(data, categories=cats),
    }


def orderings(data, cats, repeat: int) -> dict:
    """Time, audit and utility of every method; whether the paper's orderings hold."""
    from graphanon.metrics.itemsets import itemset_metrics
    from graphanon.privacy import TendencyHiding

    out: dict = {"records": data.n_records, "methods": {}}
    for name, run in methods(data, cats).items():
        seconds, rel = best_of(run, repeat)
        audit_s, rep = best_of(lambda rel=rel: TendencyHiding(cats).audit(data, rel), 1)
        m = itemset_metrics(data, rel, SUPPORTS)
        out["methods"][name] = {
            "seconds": round(seconds, 4), "rows": rel.n_records, "dif": round(m["dif"], 6),
            "fi": [{**row, "similarity": round(row["similarity"], 4)} for row in m["fi"]],
            "audit_seconds": round(audit_s, 4), "kept_tendency": rep.details["kept_tendency"],
            "records_with_tendency": rep.details["records_with_tendency"],
            "items_conserved": rep.details.get("items_conserved"), "pairs": len(getattr(rel.trace, "pairs", ())),
        }
    res = out["methods"]
    checks = []
    for i, s in enumerate(SUPPORTS):
        sims = {k: v["fi"][i]["similarity"] for k, v in res.items()}
        best = max(sims[k] for k in sims if k != "partswap")
        checks.append({"claim": f"PartSwap has the highest FI similarity at {s:.1%}",
                       "holds": sims["partswap"] >= best, "values": sims})
    difs = {k: v["dif"] for k, v in res.items()}
    checks.append({"claim": "Dif: SplitPerson = 0", "holds": difs["splitperson"] == 0, "values": difs})
    checks.append({"claim": "Dif: PartSwap < RandSwap", "holds": difs["partswap"] < difs["randswap"]})
    checks.append({"claim": "Dif: PartSupp highest", "holds": difs["partsupp"] == max(difs.values())})
    out["paper_orderings"] = checks
    return out


def fi_engines(data) -> list[dict]:
    """The package's level-wise engine against pyfim's fpgrowth/eclat (list conversion included)."""
    from graphanon.metrics.itemsets import frequent_itemsets

    try:
        import fim
    except ImportError:
        fim = None
    rows = []
    X = data.matrix
    for s in SUPPORTS:
        k = int(np.ceil(s * data.n_records))
        ours_s, ours = best_of(lambda s=s: frequent_itemsets(data, s), 3)
        row = {"support": s, "count": k, "itemsets": len(ours), "graphanon_s": round(ours_s, 4)}
        if fim is not None:
            def run_fim(algo, k=k):
                recs = [X.indices[X.indptr[i] : X.indptr[i + 1]].tolist() for i in range(X.shape[0])]
                return getattr(fim, algo)(recs, target="s", supp=-k, zmin=1, report="a")

            for algo in ("fpgrowth", "eclat"):
                t, found = best_of(lambda algo=algo: run_fim(algo), 3)
                row[f"pyfim_{algo}_s"] = round(t, 4)
                row[f"pyfim_{algo}_itemsets"] = len(found)
        rows.append(row)
    return rows


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    from graphanon.algorithms import anonymize_partswap
    from graphanon.datasets import load
    from graphanon.taxonomy.categories import random_categories

    data = load("bms1")
    cats = random_categories(data.items, 50, rng=0)
    result: dict = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "load_average_at_start": [round(x, 2) for x in os.getloadavg()]},
        "dataset": {"name": "bms1", **data.summary()},
        "categories": "50 equal-size random categories (random_categories(items, 50, rng=0))",
    }
    anonymize_partswap(data.subset(np.arange(100)), categories=cats, rng=0)  # compile the numba kernel
    sample = data.subset(np.sort(np.random.default_rng(0).choice(data.n_records, 5000, replace=False)))
    result["sample_5000"] = orderings(sample, cats, 3)
    if not args.quick:
        result["full"] = orderings(data, cats, 3)
        growth = []
        for n in (7_500, 15_000, 30_000, data.n_records):
            sub = data if n == data.n_records else data.subset(np.sort(np.random.default_rng(1).choice(
                data.n_records, n, replace=False)))
            t, rel = best_of(lambda sub=sub: anonymize_partswap(sub, categories=cats, rng=0), 3)
            growth.append({"records": n, "seconds": round(t, 4), "pairs": len(rel.trace.pairs)})
        result["partswap_growth"] = growth
        result["fi_engines"] = fi_engines(data)
    result["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print_and_save(result, "swapping", save=not args.quick)
    return result


if __name__ == "__main__":
    main()
