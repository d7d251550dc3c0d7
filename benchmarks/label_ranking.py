"""The ranking label adversary (issue 30, item 1) against l-diverse bit-voting releases; prints JSON.

Data: patient-like records with a skewed 5-value label correlated with the
codes (tests/patients.py: 3,000 patients over 400 codes, seed 0; ``--quick``:
1,000). Releases: ``nr`` l=3 (Gray order, structure seed 1) for every
extraction (closed-walk, backtracking) and every l_method (flow,
greedy-walk); ``cahd`` l=3 distinct, entropy and recursive c=2 (c=1 needs
groups of 4 distinct labels, which a label on 32% of the records does not
allow). For each
release: the uniform-candidate and majority adversaries
(:func:`~graphanon.attacks.label_inference`), and the ranking adversary
(:func:`~graphanon.attacks.ranking_label_inference`) with every built-in
score and its reverse; the best score is reported next to the bound 1/l and
its one-sided margin (confidence 0.999), and the ``ldiversity`` audit's
verdict. Results: ``benchmarks/results/label_ranking.json``.

Usage: ``python benchmarks/label_ranking.py [--quick] [--no-save]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import print_and_save  # noqa: E402
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.attacks import candidate_sets, label_inference, ranking_label_inference  # noqa: E402
from graphanon.privacy import LDiversity  # noqa: E402
from tests.patients import patients  # noqa: E402

L = 3


def releases(data):
    """(name, thunk) of every release attacked."""
    out = []
    for method in ("flow", "greedy-walk"):
        for extraction in ("closed-walk", "backtracking"):
            out.append((f"nr l=3 {method} {extraction}", lambda m=method, e=extraction: anonymize_nonreciprocal(
                data, l=L, order="gray", l_method=m, extraction=e, rng=1)))
    out.append(("cahd l=3 distinct", lambda: anonymize_cahd(data, l=L)))
    out.append(("cahd l=3 entropy", lambda: anonymize_cahd(data, l=L, diversity="entropy")))
    out.append(("cahd l=3 recursive c=2", lambda: anonymize_cahd(data, l=L, diversity="recursive", c=2)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1,000 patients instead of 3,000")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    n = 1000 if args.quick else 3000
    data = patients(n, seed=0)
    rows = []
    for name, make in releases(data):
        start = time.perf_counter()
        rel = make()
        seconds = time.perf_counter() - start
        C = candidate_sets(data, rel)
        uniform = label_inference(data, rel, candidates=C)
        ranked = ranking_label_inference(data, rel, score="best", candidates=C)
        hamming = ranking_label_inference(data, rel, score="hamming", candidates=C)
        audit = LDiversity(L).audit(data, rel)
        rows.append({
            "release": name,
            "records": data.n_records,
            "seconds": round(seconds, 2),
            "ldiversity_audit": bool(audit.satisfied),
            "majority": round(uniform.details["majority_success"], 4),
            "uniform_candidate": round(uniform.details["mean_true_share"], 4),
            "ranking_hamming": round(hamming.success, 4),
            "ranking_best": round(ranked.success, 4),
            "ranking_best_score": ranked.details["score"],
            "per_score": {k: round(v, 4) for k, v in ranked.details["per_score"].items()},
            "bound": round(ranked.bound, 4),
            "margin": round(ranked.margin, 4),
            "within_bound": ranked.within_bound(),
        })
        print(name, rows[-1]["ranking_best"], rows[-1]["ranking_best_score"], file=sys.stderr)
    doc = {
        "data": f"tests/patients.py: {n} patients, 400 codes, 5 skewed labels correlated with the codes, seed 0",
        "l": L,
        "confidence": 0.999,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }
    print_and_save(doc, "label_ranking" + ("_quick" if args.quick else ""), save=not args.no_save)


if __name__ == "__main__":
    main()
