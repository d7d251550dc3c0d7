"""Members against non-members: is the majority adversary's excess about the target or the population? (issue 30)

The majority adversary of :func:`~graphanon.attacks.label_inference`
(strategy ``"candidates"``) scores a little above ``1/l`` on ``nr --param
l=3`` releases with secret label groups. If that excess is inference about
the *population* (the code-label correlation a release is meant to let
analysts learn), an adversary gets it just as well for a person who is
**not** in the data. This benchmark measures both.

Data: one population, i.i.d. records. ``patients(n + 1000, seed=0)``
(tests/patients.py) draws the model (chapters, code and chapter weights)
first and then every record independently from it, so its first ``n``
records are the data and the last 1,000 are non-members from the same
distribution; likewise ``ebook_sessions(n + 1000, 300, seed=0)``
(tests/ebook_sessions.py, ``--data ebook``). ``n`` = 3,000 (``--quick``:
1,000).

Releases (each made ``--draws`` times, 6 by default, with
``unsafe_secret_seed`` = 0, 1, ... so they repeat; structure seed 1):
``nr -k 3 --param l=3`` (random label groups, the default),
``nr -k 3 --param l=3 --param grouping=order``, and ``cahd`` l=3, for
reference.

Adversaries, each guessing the most frequent label (ties split; a row of a
label group weighs each label by its share in the group, as
:func:`~graphanon.attacks.label_inference` does):

``member_candidates``
    Members, over their candidate rows (exactly ``label_inference``'s
    ``majority_success``).
``member_nearest`` / ``nonmember_nearest``
    Over the ``k = 3`` rows nearest to the person's items by Hamming
    distance to the row's published base (the ranking attack's ``hamming``
    score, :mod:`graphanon.attacks.ranking`), taken over **all** rows (a
    non-member has no candidate set; ties at the k-th distance broken by a
    seeded draw). Same definition for both, so the comparison is like for
    like.
``nonmember_candidates_like``
    Non-members over the rows they match as candidates would (rows whose
    bit-voting rule they satisfy); those with no matching row fall back to
    the nearest rows. Reported with the share that matched.

Reported per release kind: the success of each adversary pooled over the
draws (a person's success averaged over the draws, then over persons), the
difference member minus non-member with a two-sample 95% normal interval
(persons independent, Welch's standard error), the most-common-label
baseline (the most frequent published label, for members and non-members),
and the same difference on each person's success minus the baseline's hit
on that person (``*_excess_over_mode_*``: the two samples' label make-up
differs by chance, 0.254 against 0.227 for the mode on e-book sessions;
this removes it).

``--k K`` (another k, nr with random groups only): whether larger candidate
sets, which dilute the target's own label among more rows, close the gap.

Usage: ``python benchmarks/label_holdout.py [--quick] [--data patients|ebook] [--draws N] [--k K] [--no-save]``.
Results: ``benchmarks/results/label_holdout[_ebook][_quick][_k<K>].json``.
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
import scipy.sparse as sp  # noqa: E402

from benchmarks._common import print_and_save  # noqa: E402
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.attacks import candidate_sets  # noqa: E402
from graphanon.attacks.candidates import label_codes  # noqa: E402
from tests.ebook_sessions import ebook_sessions  # noqa: E402
from tests.patients import patients  # noqa: E402

K = 3
L = 3
NON_MEMBERS = 1000
Z95 = 1.959964


def in_columns(data, items) -> sp.csr_array:
    """``data``'s records over the column order ``items`` (items not in ``items`` dropped), as int64 0/1."""
    index = {x: j for j, x in enumerate(items)}
    cols = np.array([index.get(x, -1) for x in data.items], dtype=np.int64)
    coo = sp.csr_array(data.matrix).tocoo()
    keep = (cols[coo.col] >= 0) & (coo.data != 0)
    X = sp.csr_array((np.ones(int(keep.sum()), dtype=np.int64), (coo.row[keep], cols[coo.col[keep]])),
                     shape=(data.n_records, len(items)))
    X.sum_duplicates()
    X.data[:] = 1
    return X


def majority_hit(votes: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per person, the chance a most-voted label (ties split uniformly) is ``truth``."""
    top = votes >= votes.max(axis=1, keepdims=True) - 1e-9
    top &= votes > 0
    hit = top[np.arange(len(truth)), truth]
    return np.where(hit, 1.0 / np.maximum(top.sum(axis=1), 1), 0.0)


def nearest_votes(X: sp.csr_array, rel, W: np.ndarray, rng, k: int = K) -> np.ndarray:
    """Label votes of the ``k`` rows nearest to each person (Hamming distance to the row's base, over all rows)."""
    B = sp.csr_array(rel.base).astype(np.int64)
    overlap = (X @ B.T).toarray()
    dist = np.diff(X.indptr)[:, None] + np.diff(B.indptr)[None, :] - 2 * overlap
    noisy = dist + 0.5 * rng.random(dist.shape)  # seeded tie-break below one unit of distance
    idx = np.argpartition(noisy, k - 1, axis=1)[:, :k]
    return W[idx].sum(axis=1)


def matching_votes(data, rel, W: np.ndarray):
    """Label votes over the rows whose bit-voting rule a person satisfies; and whether any matched.

    The rule of :func:`~graphanon.attacks.candidate_sets`: equal to the row's base outside its distance
    positions, within ``threshold`` flips on them (an item the release lacks matches no row).
    """
    X = in_columns(data, rel.items)
    known = set(rel.items)
    absent = np.array([x not in known for x in data.items], dtype=np.int64)
    lacks = (sp.csr_array(data.matrix) != 0).astype(np.int64) @ absent > 0
    B = sp.csr_array(rel.base).astype(np.int64)
    D = sp.csr_array(rel.distance).astype(np.int64)
    D.data[:] = 1
    nD = sp.csr_array(1 - D.toarray())
    BD, Bout = sp.csr_array(B.multiply(D)), sp.csr_array(B.multiply(nD))
    flips = (X @ D.T).toarray() + np.diff(BD.indptr)[None, :] - 2 * (X @ BD.T).toarray()
    out_diff = (X @ nD.T).toarray() + np.diff(Bout.indptr)[None, :] - 2 * (X @ Bout.T).toarray()
    match = (out_diff == 0) & (flips <= np.asarray(rel.threshold)[None, :]) & ~lacks[:, None]
    return match.astype(float) @ W, match.any(axis=1)


def welch(a: np.ndarray, b: np.ndarray) -> dict:
    """Mean difference ``a - b`` with a two-sample 95% normal interval (Welch's standard error)."""
    d = float(a.mean() - b.mean())
    se = float(np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b)))
    return {"difference": round(d, 4), "ci95": [round(d - Z95 * se, 4), round(d + Z95 * se, 4)],
            "se": round(se, 5)}


def kinds(data, k: int = K):
    out = [(f"nr -k {k} --param l=3 (grouping=random, the default)",
            lambda s: anonymize_nonreciprocal(data, k=k, l=L, rng=1, unsafe_secret_seed=s))]
    if k == K:
        out += [("nr -k 3 --param l=3 --param grouping=order",
                 lambda s: anonymize_nonreciprocal(data, k=K, l=L, rng=1, grouping="order", unsafe_secret_seed=s)),
                ("cahd l=3", lambda s: anonymize_cahd(data, l=L, unsafe_secret_seed=s))]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1,000 records instead of 3,000")
    ap.add_argument("--data", choices=("patients", "ebook"), default="patients")
    ap.add_argument("--draws", type=int, default=6, help="releases per kind (unsafe_secret_seed 0..draws-1)")
    ap.add_argument("--k", type=int, default=K,
                    help="nr's k and the nearest rows counted (default 3; another k: nr random groups only, "
                         "results suffix _k<k>)")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    n = 1000 if args.quick else 3000
    if args.data == "ebook":
        everyone = ebook_sessions(n + NON_MEMBERS, 300, seed=0)
        what = f"tests/ebook_sessions.py: ebook_sessions({n + NON_MEMBERS}, 300, seed=0), first {n} members"
    else:
        everyone = patients(n + NON_MEMBERS, seed=0)
        what = f"tests/patients.py: patients({n + NON_MEMBERS}, seed=0), first {n} members"
    data = everyone.subset(np.arange(n))
    others = everyone.subset(np.arange(n, n + NON_MEMBERS))
    rows = []
    for name, make in kinds(data, args.k):
        start = time.perf_counter()
        acc = {key: np.zeros(m) for key, m in (("member_candidates", n), ("member_nearest", n),
                                                ("nonmember_nearest", NON_MEMBERS),
                                                ("nonmember_candidates_like", NON_MEMBERS),
                                                ("member_mode", n), ("nonmember_mode", NON_MEMBERS))}
        matched = 0.0
        for s in range(args.draws):
            rel = make(s)
            (m_code, o_code, pub), n_labels = label_codes(data.labels, others.labels, rel.labels)
            W = rel.group_label_shares(pub, n_labels).toarray()
            C = candidate_sets(data, rel)
            acc["member_candidates"] += majority_hit(C.label_weights(np.arange(n), sp.csr_array(W)).toarray(),
                                                     m_code)
            rng = np.random.default_rng(100 + s)
            Xm, Xo = in_columns(data, rel.items), in_columns(others, rel.items)
            acc["member_nearest"] += majority_hit(nearest_votes(Xm, rel, W, rng, args.k), m_code)
            near_o = nearest_votes(Xo, rel, W, rng, args.k)
            acc["nonmember_nearest"] += majority_hit(near_o, o_code)
            votes, any_match = matching_votes(others, rel, W)
            acc["nonmember_candidates_like"] += majority_hit(np.where(any_match[:, None], votes, near_o), o_code)
            matched += float(any_match.mean()) / args.draws
            mode = int(np.argmax(np.bincount(pub, minlength=n_labels)))
            acc["member_mode"] += (m_code == mode)
            acc["nonmember_mode"] += (o_code == mode)
        per = {key: v / args.draws for key, v in acc.items()}
        rows.append({
            "release": name,
            "draws": args.draws,
            "seconds": round(time.perf_counter() - start, 1),
            **{key: round(float(v.mean()), 4) for key, v in per.items()},
            "nonmembers_matching_a_row": round(matched, 4),
            "nearest_member_minus_nonmember": welch(per["member_nearest"], per["nonmember_nearest"]),
            "candidates_member_minus_nonmember_like": welch(per["member_candidates"],
                                                            per["nonmember_candidates_like"]),
            "candidates_member_minus_nonmember_nearest": welch(per["member_candidates"], per["nonmember_nearest"]),
            # each person's success minus the mode's hit on that person: removes the samples' label make-up
            "nearest_excess_over_mode_member_minus_nonmember": welch(per["member_nearest"] - per["member_mode"],
                                                                     per["nonmember_nearest"] - per["nonmember_mode"]),
            "candidates_excess_over_mode_member_minus_nonmember_nearest": welch(
                per["member_candidates"] - per["member_mode"], per["nonmember_nearest"] - per["nonmember_mode"]),
        })
        print(name, {key: rows[-1][key] for key in per}, file=sys.stderr)
    doc = {
        "question": "majority label adversary: members against non-members of the same population (issue 30)",
        "data": what,
        "non_members": f"the next {NON_MEMBERS} records of the same generator call (i.i.d.)",
        "k_nearest": args.k,
        "l": L,
        "bound": round(1 / L, 4),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }
    suffix = ("_ebook" if args.data == "ebook" else "") + ("_quick" if args.quick else "") + (
        f"_k{args.k}" if args.k != K else "")
    print_and_save(doc, "label_holdout" + suffix, save=not args.no_save)


if __name__ == "__main__":
    main()
