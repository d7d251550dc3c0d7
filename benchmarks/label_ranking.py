"""The ranking label adversary (issue 30, item 1) against l-diverse bit-voting releases; prints JSON.

Data: patient-like records with a skewed 5-value label correlated with the
codes (tests/patients.py: 3,000 patients over 400 codes, seed 0; ``--quick``:
1,000). Releases: ``nr`` l=3 (structure seed 1) for both orders (Gray-TSP,
the default, and Gray), every extraction (closed-walk, backtracking) and
every l_method; ``cahd`` l=3 distinct, entropy and recursive c=2 (c=1 needs
groups of 4 distinct labels, which a label on 32% of the records does not
allow). ``nr`` with label groups (the default ``l_method=groups``; ``--grouping random``, the
default: groups drawn in secret, the k=3 ring over the whole order, results suffix ``_random``;
``--grouping order``: groups formed along the order, one k=3 ring per group, the files without
that suffix) for every variant (distinct, entropy, recursive
c=2) and extraction; the paper's construction (``l_method=flow|greedy-walk``,
both orders) only with ``--paper`` (results ``label_ranking_paper.json``);
``--c1``: only recursive (1, 3)-diversity, groups of 4 distinct labels
(``label_ranking_ebook_c1.json``; the patients' top label, on 32% of the
records, refuses it). For each
release: the uniform-candidate and majority adversaries
(:func:`~graphanon.attacks.label_inference`), and the ranking adversary
(:func:`~graphanon.attacks.ranking_label_inference`) with every built-in
score and its reverse; the best score is reported next to the bound 1/l and
its one-sided margin (confidence 0.999), and the verdict of the variant's
audit (``ldiversity``, ``entropy-ldiversity``, ``recursive-ldiversity``). Results: ``benchmarks/results/label_ranking.json``.

``--ring`` (issue 30, item 4): k-only ``nr`` (k=5) with labels on 1,000
e-book-like sessions (tests/ebook_sessions.py, 150 titles, seed 0) and 1,000
patients; an adversary holding the data re-runs ``nr`` (with the seed, or
the deterministic order), maps the re-run's published records to the
release's rows by content, keeps each record's k ring rows and guesses
their majority label; compared with the link-free reference of
:func:`~graphanon.attacks.label_inference`. Results:
``benchmarks/results/label_ranking_ring.json``.

``--data ebook``: the same on e-book-like sessions (tests/ebook_sessions.py,
3,000 sessions over 300 titles, 6 labels; ``label_ranking_ebook.json``).

Usage: ``python benchmarks/label_ranking.py [--quick] [--data patients|ebook] [--grouping random|order]
[--paper] [--c1] [--ring] [--no-save]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks._common import print_and_save  # noqa: E402
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal, members_matrix  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.attacks import (  # noqa: E402
    candidate_sets,
    label_inference,
    ranking_label_inference,
    row_signatures,
)
from graphanon.attacks.candidates import label_codes  # noqa: E402
from graphanon.privacy import LDiversity  # noqa: E402
from graphanon.privacy.diversity import diversity_model  # noqa: E402
from graphanon.release import NonreciprocalRelease  # noqa: E402
from tests.ebook_sessions import ebook_sessions  # noqa: E402
from tests.patients import patients  # noqa: E402

L = 3


VARIANTS = (("distinct", {}), ("entropy", {"diversity": "entropy"}), ("recursive c=2", {"diversity": "recursive", "c": 2}))


C1 = (("recursive c=1", {"diversity": "recursive", "c": 1}),)


def releases(data, paper: bool = False, variants=VARIANTS, grouping: str = "random"):
    """(name, audit model, thunk) of every release attacked."""
    out = []
    for vname, kw in variants:
        model = diversity_model(L, kw.get("diversity", "distinct"), kw.get("c"))
        for extraction in ("closed-walk", "backtracking"):
            out.append((f"nr l=3 groups ({grouping}) {vname} {extraction}", model,
                        lambda e=extraction, kw=kw: anonymize_nonreciprocal(data, l=L, extraction=e, rng=1,
                                                                            grouping=grouping, **kw)))
    if paper:
        for order in ("gray-tsp", "gray"):
            for method in ("flow", "greedy-walk"):
                for extraction in ("closed-walk", "backtracking"):
                    out.append((f"nr l=3 {order} {method} {extraction} (the paper's)", LDiversity(L),
                                lambda o=order, m=method, e=extraction: anonymize_nonreciprocal(
                                    data, l=L, order=o, l_method=m, extraction=e, rng=1)))
    for vname, kw in variants:
        model = diversity_model(L, kw.get("diversity", "distinct"), kw.get("c"))
        out.append((f"cahd l=3 {vname}", model, lambda kw=kw: anonymize_cahd(data, l=L, **kw)))
    return out


def ring_majority(data, rel, rerun) -> tuple[float, float]:
    """Success of the majority label over each record's k ring rows (rebuilt from ``rerun``), and the mean row count."""
    n = data.n_records
    M = members_matrix(rerun.trace.assignments, n)
    rebuilt = NonreciprocalRelease.from_preimages(data, M, np.arange(n), algorithm="nr")  # row v: published v
    _, group = np.unique(np.vstack([row_signatures(rebuilt), row_signatures(rel)]), axis=0, return_inverse=True)
    group = group.reshape(-1)
    g_re, g_pub = group[:n], group[n:]
    (orig, pub), n_labels = label_codes(data.labels, rel.labels)
    # rows of the release per content group; a record's ring rows: the rows whose content is one of its k
    rows_of = {}
    for r, g in enumerate(g_pub):
        rows_of.setdefault(int(g), []).append(r)
    Mc = M.tocsc()
    per, sizes = np.zeros(n), np.zeros(n)
    for i in range(n):
        rows = sorted({r for v in Mc.indices[Mc.indptr[i]:Mc.indptr[i + 1]] for r in rows_of.get(int(g_re[v]), [])})
        sizes[i] = len(rows)
        if rows:
            counts = np.bincount(pub[rows], minlength=n_labels)
            top = np.flatnonzero(counts == counts.max())
            per[i] = float(orig[i] in top) / len(top)
    return float(per.mean()), float(sizes.mean())


def ring_main(save: bool) -> None:
    rows = []
    sets = [("e-book sessions", ebook_sessions(1000, 150, seed=0)), ("patients", patients(1000, seed=0))]
    cases = [("--seed 11", {"rng": 11}, {"rng": 11}), ("--seed 12", {"rng": 12}, {"rng": 12}),
             ("order=gray, no seed", {"order": "gray"}, {"order": "gray"}),
             ("gray-tsp, no seed (the default)", {}, {})]
    for dname, data in sets:
        for case, made, rerun_with in cases:
            rel = anonymize_nonreciprocal(data, k=5, **made)
            rerun = anonymize_nonreciprocal(data, k=5, **rerun_with)
            C = candidate_sets(data, rel)
            ref = label_inference(data, rel, candidates=C)
            success, ring_rows = ring_majority(data, rel, rerun)
            rows.append({"data": dname, "records": data.n_records, "release": case, "k": 5,
                         "ring_majority": round(success, 4), "ring_rows": round(ring_rows, 2),
                         "candidates": round(float(C.sizes(np.arange(data.n_records)).mean()), 2),
                         "reference": round(ref.details["link_free"], 4), "margin": round(ref.margin, 4)})
            print(dname, case, rows[-1]["ring_majority"], rows[-1]["reference"], file=sys.stderr)
    doc = {"attack": "majority label over the k ring rows rebuilt by re-running nr (issue 30, item 4)",
           "load_average": [round(x, 2) for x in os.getloadavg()], "rows": rows}
    print_and_save(doc, "label_ranking_ring", save=save)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1,000 patients instead of 3,000")
    ap.add_argument("--data", choices=("patients", "ebook"), default="patients",
                    help="patient-like records (default) or e-book-like sessions (tests/ebook_sessions.py, 6 labels)")
    ap.add_argument("--ring", action="store_true", help="the k-only ring-rebuild attack instead (issue 30, item 4)")
    ap.add_argument("--paper", action="store_true",
                    help="also the paper's construction (l_method=flow|greedy-walk, both orders and extractions)")
    ap.add_argument("--c1", action="store_true",
                    help="only recursive (1, 3)-diversity (groups of 4 distinct labels; results suffix _c1)")
    ap.add_argument("--grouping", choices=("random", "order"), default="random",
                    help="nr's label groups: drawn in secret (default; results suffix _random) or along the order")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    if args.ring:
        ring_main(not args.no_save)
        return
    n = 1000 if args.quick else 3000
    if args.data == "ebook":
        data = ebook_sessions(n, 300, seed=0)
        what = f"tests/ebook_sessions.py: {n} sessions, 300 titles, 6 genre-correlated labels, seed 0"
    else:
        data = patients(n, seed=0)
        what = f"tests/patients.py: {n} patients, 400 codes, 5 skewed labels correlated with the codes, seed 0"
    rows = []
    for name, model, make in releases(data, paper=args.paper, variants=C1 if args.c1 else VARIANTS,
                                      grouping=args.grouping):
        start = time.perf_counter()
        rel = make()
        seconds = time.perf_counter() - start
        C = candidate_sets(data, rel)
        uniform = label_inference(data, rel, candidates=C)
        ranked = ranking_label_inference(data, rel, score="best", candidates=C)
        hamming = ranking_label_inference(data, rel, score="hamming", candidates=C)
        audit = model.audit(data, rel)
        rows.append({
            "release": name,
            "records": data.n_records,
            "seconds": round(seconds, 2),
            "audit": model.name,
            "audit_satisfied": bool(audit.satisfied),
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
        "data": what,
        "l": L,
        "confidence": 0.999,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }
    suffix = ("_ebook" if args.data == "ebook" else "") + ("_quick" if args.quick else "") + (
        "_paper" if args.paper else "") + ("_c1" if args.c1 else "") + ("_random" if args.grouping == "random" else "")
    print_and_save(doc, "label_ranking" + suffix, save=not args.no_save)


if __name__ == "__main__":
    main()
