"""Benchmark of `graphanon report`: what bms1 and an mHgHs release of it achieve, and how fast.

Times :func:`graphanon.privacy.achieved.achieved_privacy` on BMS-WebView-1
(59,602 records, 497 items): each m = 1, 2, 3, inf alone and the whole
report, on the raw data and on an mHgHs release (balanced taxonomy fan-out 5,
k=5, m=2); checks the reported largest k against the k^m audit (satisfied at
k, violated at k + 1). Prints one JSON document and writes
benchmarks/results/report.json.

    python benchmarks/report.py            # full
    python benchmarks/report.py --quick    # smoke test (1/10 of the records)
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import best_of, print_and_save  # noqa: E402


def main() -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    from graphanon.algorithms.hierarchy.hghs import anonymize_mhghs
    from graphanon.datasets import load
    from graphanon.privacy import KmAnonymity
    from graphanon.privacy.achieved import achieved_privacy, rarest_supports
    from graphanon.taxonomy import Taxonomy

    data = load("bms1")
    if args.quick:
        data = data.subset(np.arange(0, data.n_records, 10))
    result: dict = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "load_average_at_start": list(os.getloadavg())},
        "dataset": {"name": "bms1" + (" (every 10th record)" if args.quick else ""), **data.summary()},
    }
    per_m = {}
    for m in (1, 2, 3, None):
        seconds, (rarest, _) = best_of(lambda m=m: rarest_supports(data.matrix, m), 3)
        per_m["inf" if m is None else str(m)] = {"seconds": round(seconds, 3), "largest_k": int(rarest.min())}
    result["raw_rarest_supports"] = per_m
    seconds, rep = best_of(lambda: achieved_privacy(data), 3)
    result["raw_report_s"] = round(seconds, 3)
    result["raw_report"] = {"largest_k": rep.largest_k, "transactional_k": rep.transactional_k,
                            "prosecutor": rep.prosecutor,
                            "at_risk_m3": {row["k"]: row["records_at_risk"] for row in rep.risk if row["m"] == 3}}

    start = time.perf_counter()
    rel = anonymize_mhghs(data, taxonomy=Taxonomy.balanced(data.items, 5), k=5, m=2, unsafe_secret_seed=0)
    result["mhghs_anonymize_s"] = round(time.perf_counter() - start, 3)
    seconds, rep = best_of(lambda: achieved_privacy(data, rel), 3)
    checks = {}
    for key, m in (("1", 1), ("2", 2), ("3", 3), ("inf", None)):
        k = rep.largest_k[int(key) if key != "inf" else key]
        upper = KmAnonymity(k + 1, m).audit(data, rel).satisfied if k < rep.n_records else None
        checks[key] = {"largest_k": k, "audit_at_k": KmAnonymity(k, m).audit(data, rel).satisfied,
                       "audit_at_k_plus_1": upper}
    result["mhghs_k5_m2"] = {"report_s": round(seconds, 3), "transactional_k": rep.transactional_k,
                             "published_items": rel.n_published_items, "audit_agreement": checks,
                             "at_risk_m3": {row["k"]: row["records_at_risk"] for row in rep.risk if row["m"] == 3}}
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["load_average_at_end"] = list(os.getloadavg())
    print_and_save(result, "report", save=not args.quick)
    return result


if __name__ == "__main__":
    main()
