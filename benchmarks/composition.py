"""Several releases of one dataset: what the joint adversary learns, and what ``--prior`` keeps.

Data: e-book-like reading sessions with a genre-correlated sensitive label
(tests/ebook_sessions.py; ``--sessions`` sessions over ``--titles`` titles,
6 labels). Releases, each made with operating-system entropy (no seed):

* two ``nr`` l=3 releases;
* ``cahd`` l=3 + ``cahd`` l=2, and four ``cahd`` releases (l = 3, 2, 4, and
  l=3 grouped along a shuffled record order: CAHD's grouping is deterministic,
  so the same l on the same order gives the same groups);
* ``nr`` l=3 + an ``nr`` l=3 release made with ``priors=`` the first
  (reuse), and the same for ``cahd``.

For each set, the joint audit (:class:`graphanon.privacy.joint.JointAudit`,
propagation to the fixpoint -- the exact search is for small data) counts
records pinned to one label and records left with two; the *intersection
attack* (intersect the labels of the rows a record matches in each release,
no matching reasoning) is counted too, as the weaker adversary of the issue.
Every pinned record's label is checked against the truth (the data's labels).

Global recodings on groceries (bundled taxonomy), k=5 m=2: HgHs and a
level-1 cut made with ``priors=`` an AA release, AA made with ``priors=`` an
HgHs release, with the NCP of each and the joint k^m audit of the pair; and
HgHs made without priors, audited with AA jointly.

Usage: ``python benchmarks/composition.py [--sessions 15000] [--titles 1000]``;
prints JSON and writes ``benchmarks/results/composition.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from ebook_sessions import ebook_sessions  # noqa: E402

from graphanon.algorithms.hierarchy.aa import anonymize_aa  # noqa: E402
from graphanon.algorithms.hierarchy.cut import anonymize_cut  # noqa: E402
from graphanon.algorithms.hierarchy.hghs import anonymize_hghs  # noqa: E402
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.privacy import KmAnonymity, LDiversity  # noqa: E402
from graphanon.privacy.joint import JointAudit, joint_label_sets  # noqa: E402
from graphanon.privacy.match_graph import nonreciprocal_matches  # noqa: E402


def intersection_attack(data, releases, codes) -> np.ndarray:
    """Per record, how many labels survive intersecting the labels of the rows it matches."""
    keep = np.ones((data.n_records, len(codes)), dtype=bool)
    for r in releases:
        o, p, _ = nonreciprocal_matches(data, r)
        lab = np.array([codes[x] for x in r.labels])
        seen = np.zeros_like(keep)
        seen[o, lab[p]] = True
        keep &= seen
    return keep.sum(axis=1)


def measure(name, data, releases, level: int) -> dict:
    start = time.perf_counter()
    rep = JointAudit(LDiversity(level), exact=False).audit(data, releases)
    seconds = time.perf_counter() - start
    sets = joint_label_sets(data, releases)
    codes = {x: c for c, x in enumerate(sets.labels)}
    truth = np.array([codes[x] for x in data.labels])
    kept = sets.allowed[sets.record_class, truth]
    per = sets.labels_per_record()
    pinned = per == 1
    inter = intersection_attack(data, releases, codes)
    n = data.n_records
    row = {
        "releases": name,
        "records": n,
        "alone_satisfied": [r["satisfied"] for r in rep.details["per_release"]],
        "joint_satisfied": rep.satisfied,
        "pinned": int(pinned.sum()),
        "pinned_share": round(float(pinned.mean()), 4),
        "two_labels": int((per == 2).sum()),
        "below_l": rep.details["records_below_level"],
        "pinned_to_true_label": int((pinned & kept).sum()),
        "true_label_kept": float(kept.mean()),
        "intersection_pinned": int((inter == 1).sum()),
        "intersection_two": int((inter == 2).sum()),
        "audit_seconds": round(seconds, 2),
        "propagation_rounds": rep.details["propagation_rounds"],
    }
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=15000)
    ap.add_argument("--titles", type=int, default=1000)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "composition.json"))
    args = ap.parse_args()
    data = ebook_sessions(args.sessions, args.titles)
    rows = []
    nr = [anonymize_nonreciprocal(data, k=3, l=3) for _ in range(2)]
    rows.append(measure("nr l=3 + nr l=3", data, nr, 3))
    cahd = {level: anonymize_cahd(data, l=level) for level in (3, 2, 4)}
    shuffled = anonymize_cahd(data, l=3, order=np.random.default_rng(1).permutation(data.n_records))
    rows.append(measure("cahd l=3 + cahd l=2", data, [cahd[3], cahd[2]], 2))
    rows.append(measure("cahd l=3, 2, 4 + l=3 on a shuffled record order", data, [*cahd.values(), shuffled], 2))
    reused = anonymize_nonreciprocal(data, k=3, l=3, priors=nr[0])
    rows.append(measure("nr l=3 + nr l=3 with priors=", data, [nr[0], reused], 3))
    reused = anonymize_cahd(data, l=2, priors=cahd[3])
    rows.append(measure("cahd l=3 + cahd l=2 with priors=", data, [cahd[3], reused], 2))

    groceries, tax = load("groceries"), load_taxonomy("groceries")
    aa = anonymize_aa(groceries, taxonomy=tax, k=5, m=2)
    hghs = anonymize_hghs(groceries, taxonomy=tax, k=5, m=2)
    hghs_p = anonymize_hghs(groceries, taxonomy=tax, k=5, m=2, priors=aa)
    cut_p = anonymize_cut(groceries, taxonomy=tax, level=1, priors=aa)
    aa_p = anonymize_aa(groceries, taxonomy=tax, k=5, m=2, priors=hghs)
    km = KmAnonymity(5, 2)
    global_rows = []
    for name, prior, rel in (("hghs", aa, hghs), ("hghs with priors=aa", aa, hghs_p),
                             ("cut level=1 with priors=aa", aa, cut_p), ("aa with priors=hghs", hghs, aa_p)):
        rep = JointAudit(km).audit(groceries, [prior, rel])
        global_rows.append({
            "release": name, "ncp": round(float(rel.params["ncp"]), 4),
            "ncp_prior": round(float(prior.params["ncp"]), 4),
            "n_suppressed_nodes": rel.params["n_suppressed_nodes"],
            "alone_satisfied": km.audit(groceries, rel).satisfied, "joint_with_prior_satisfied": rep.satisfied,
            "joint_violations": rep.violations,
        })  # fmt: skip
        print(json.dumps(global_rows[-1]), flush=True)
    out = {"sessions": args.sessions, "titles": args.titles, "labelled": rows, "global": global_rows}
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
