"""PrivBasis on bms1: top-k precision/recall/F, relative support error and wall time over repeated runs.

The universe is the 497 item ids of bms1 (``sorted(data.items)``): they are
the *observed* ids, standing in for a public catalogue, so this measures
utility -- it is not a deployment (docs/dp.md, "The universe"). Each run is
a fresh draw (OS entropy); the release file of the first run is checked for
the data's exact counts (records, occurrences) and a fingerprint.

Run::

    python benchmarks/privbasis.py                  # k=100, epsilon=1, 5 runs
    python benchmarks/privbasis.py --epsilon 0.5 --runs 3

Writes ``benchmarks/results/privbasis.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graphanon.algorithms.dp.privbasis import anonymize_privbasis  # noqa: E402
from graphanon.datasets import load  # noqa: E402
from graphanon.metrics.itemsets import top_k_metrics  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="bms1")
    ap.add_argument("-k", type=int, default=100)
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=str(RESULTS / "privbasis.json"))
    args = ap.parse_args(argv)
    data = load(args.dataset)
    universe = sorted(data.items, key=str)
    rows = []
    supports = []
    file_check = None
    for i in range(args.runs):
        start = time.perf_counter()
        rel = anonymize_privbasis(data, k=args.k, epsilon=args.epsilon, universe=universe)
        seconds = time.perf_counter() - start
        m = top_k_metrics(data, rel)
        tr = rel.trace
        rows.append({"seconds": round(seconds, 2), "lambda": tr.lam, "pairs": len(tr.pairs), "bases": len(tr.bases),
                     "longest_basis": max(len(b) for b in tr.bases), **{key: m[key] for key in (
                         "topk_precision", "topk_recall", "topk_f", "support_relative_error",
                         "support_relative_error_mean", "topk_common", "topk_true")}})
        supports.append(rel.to_dict()["supports"])
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        if i == 0:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "r.json"
                rel.save(path)
                text = path.read_text()
            occurrences = int(data.matrix.nnz)
            file_check = {"bytes": len(text), "data_fingerprint": json.loads(text)["data_fingerprint"],
                          "records_in_file": str(data.n_records) in text,
                          "occurrences_in_file": str(occurrences) in text}

    def summary(key):
        values = [r[key] for r in rows]
        return {"mean": round(statistics.fmean(values), 4),
                "sd": round(statistics.stdev(values), 4) if len(values) > 1 else None,
                "min": round(min(values), 4), "max": round(max(values), 4)}

    report = {
        "dataset": args.dataset, "records": data.n_records, "items": data.n_items, "k": args.k,
        "epsilon": args.epsilon, "runs": args.runs,
        "universe": "the dataset's item ids (observed; standing in for a public catalogue)",
        "summary": {key: summary(key) for key in ("topk_precision", "topk_recall", "topk_f", "support_relative_error",
                                                  "support_relative_error_mean", "seconds", "lambda", "bases")},
        "runs_differ": len({json.dumps(s) for s in supports}) == len(supports),
        "file_check": file_check, "per_run": rows,
        "machine": f"{platform.machine()}, Python {platform.python_version()} (2 shared cores, loaded)",
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "per_run"}, indent=1))


if __name__ == "__main__":
    main()
