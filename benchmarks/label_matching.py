"""Issue 30, item 1: relabel ``nr`` l=3 by a random l-diverse perfect matching of its graph; does the ranking attack stop?

Data: tests/patients.py (3,000 patients, 400 codes, 5 skewed labels correlated with the codes, seed 0)
and tests/ebook_sessions.py (3,000 sessions, 300 titles, 6 genre-correlated labels, seed 0);
``--quick``: 1,000. Releases: ``nr`` l=3 (Gray-TSP order, structure seed 1), l_method flow and
greedy-walk, each extraction (closed-walk, backtracking); each republished by
``tests/nr_label_matching.py`` with the labels on a CP-SAT-drawn perfect matching of the graph that
keeps every record's 3 rows 3-diverse: ``min-own`` (fewest labels left on their own postimage, then
random weights) and ``random`` (random weights only). Reported: the records whose label stays on
their own postimage, the draw's seconds, the ``ldiversity`` audit, the uniform and majority
adversaries and the ranking adversary (best of 14 scores) against 1/l with its margin (0.999).
``--time N``: only the draw's time on N patients (flow). Results:
``benchmarks/results/label_matching.json``.

Usage: ``python benchmarks/label_matching.py [--quick] [--time N] [--no-save]``.
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
from graphanon.attacks import candidate_sets, label_inference, ranking_label_inference  # noqa: E402
from graphanon.privacy import LDiversity  # noqa: E402
from tests.ebook_sessions import ebook_sessions  # noqa: E402
from tests.nr_label_matching import matching_labelled_nr  # noqa: E402
from tests.patients import patients  # noqa: E402

L = 3


def attack_row(data, rel) -> dict:
    C = candidate_sets(data, rel)
    uniform = label_inference(data, rel, candidates=C)
    ranked = ranking_label_inference(data, rel, score="best", candidates=C)
    return {
        "ldiversity_audit": bool(LDiversity(L).audit(data, rel).satisfied),
        "majority": round(uniform.details["majority_success"], 4),
        "uniform_candidate": round(uniform.details["mean_true_share"], 4),
        "ranking_best": round(ranked.success, 4),
        "ranking_best_score": ranked.details["score"],
        "bound": round(ranked.bound, 4),
        "margin": round(ranked.margin, 4),
        "within_bound": ranked.within_bound(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--time", type=int, default=None, help="only time the draw on this many patients")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    rows = []
    if args.time:
        data = patients(args.time, seed=0)
        start = time.perf_counter()
        rel = anonymize_nonreciprocal(data, l=L, order="gray", rng=1)
        built = time.perf_counter() - start
        for mode in ("min-own", "random"):
            start = time.perf_counter()
            _, stats = matching_labelled_nr(data, rel, avoid_own=mode == "min-own")
            rows.append({"records": data.n_records, "labels": mode, "nr_seconds": round(built, 1),
                         "draw_seconds": round(time.perf_counter() - start, 2), **stats})
            print(rows[-1], file=sys.stderr)
        doc = {"what": "draw time, nr l=3 flow, Gray order", "load_average": [round(x, 2) for x in os.getloadavg()],
               "rows": rows}
        print_and_save(doc, f"label_matching_time_{args.time}", save=not args.no_save)
        return
    n = 1000 if args.quick else 3000
    sets = [("patients", patients(n, seed=0)), ("ebook", ebook_sessions(n, 300, seed=0))]
    for dname, data in sets:
        for method in ("flow", "greedy-walk"):
            for extraction in ("closed-walk", "backtracking"):
                rel = anonymize_nonreciprocal(data, l=L, l_method=method, extraction=extraction, rng=1)
                name = f"{dname} nr {method} {extraction}"
                rows.append({"release": name, "labels": "postimage (Fig. 4b)", "records": n,
                             "own_postimage": n, **attack_row(data, rel)})
                for mode in ("min-own", "random"):
                    start = time.perf_counter()
                    new, stats = matching_labelled_nr(data, rel, avoid_own=mode == "min-own")
                    seconds = time.perf_counter() - start
                    rows.append({"release": name, "labels": mode, "records": n,
                                 "own_postimage": stats["fixed_points"], "draw_seconds": round(seconds, 2),
                                 "status": stats["status"], **attack_row(data, new)})
                for r in rows[-3:]:
                    print(r["release"], r["labels"], r["own_postimage"], r["ranking_best"], r["ldiversity_audit"],
                          file=sys.stderr)
    doc = {"l": L, "confidence": 0.999, "load_average": [round(x, 2) for x in os.getloadavg()], "rows": rows}
    print_and_save(doc, "label_matching" + ("_quick" if args.quick else ""), save=not args.no_save)


if __name__ == "__main__":
    main()
