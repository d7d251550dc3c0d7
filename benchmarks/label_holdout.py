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

Adversaries: those of :func:`graphanon.attacks.holdout_label_inference`
(this benchmark calls it with the draws of each release kind), each guessing
the most frequent label (ties split; a row of a label group weighs each
label by its share in the group): ``member_candidates`` (members over their
candidate rows, ``label_inference``'s ``majority_success``),
``member_nearest`` / ``nonmember_nearest`` (the ``k`` rows nearest to the
person's items by Hamming distance to the row's published base, over all
rows, for members and non-members alike; ties broken by the adversary's
seeded coin, ``seed + draw``) and ``nonmember_candidates_like``
(non-members over the rows whose bit-voting rule they satisfy, falling back
to the nearest rows; reported with the share that matched).

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

from benchmarks._common import print_and_save  # noqa: E402
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.attacks import holdout_label_inference  # noqa: E402
from tests.ebook_sessions import ebook_sessions  # noqa: E402
from tests.patients import patients  # noqa: E402

K = 3
L = 3
NON_MEMBERS = 1000
SEED = 100  # the adversary's tie-break coin for draw 0 (draw i: SEED + i)


def interval(details: dict, name: str) -> dict:
    """A difference of :func:`holdout_label_inference` with its 95% interval, rounded for the JSON."""
    lo, hi = details[name.removesuffix("difference") + "ci95"]
    return {"difference": round(details[name], 4), "ci95": [round(lo, 4), round(hi, 4)]}


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
        res = holdout_label_inference(data, [make(s) for s in range(args.draws)], others, k=args.k, seed=SEED)
        d = res.details
        keys = ("member_candidates", "member_nearest", "nonmember_nearest", "nonmember_candidates_like",
                "mode_members", "mode_nonmembers", "nonmembers_matching_a_row")
        rows.append({
            "release": name,
            "draws": d["draws"],
            "seconds": round(time.perf_counter() - start, 1),
            **{key: round(d[key], 4) for key in keys},
            "nearest_member_minus_nonmember": interval(d, "nearest_raw_difference"),
            "candidates_member_minus_nonmember_like": interval(d, "like_difference"),
            "candidates_member_minus_nonmember_nearest": interval(d, "raw_difference"),
            # each person's success minus the mode's hit on that person: removes the samples' label make-up
            "nearest_excess_over_mode_member_minus_nonmember": interval(d, "nearest_difference"),
            "candidates_excess_over_mode_member_minus_nonmember_nearest": interval(d, "difference"),
        })
        print(name, {key: rows[-1][key] for key in keys}, file=sys.stderr)
    doc = {
        "question": "majority label adversary: members against non-members of the same population (issue 30)",
        "data": what,
        "non_members": f"the next {NON_MEMBERS} records of the same generator call (i.i.d.)",
        "k_nearest": args.k,
        "adversary_seed": SEED,
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
