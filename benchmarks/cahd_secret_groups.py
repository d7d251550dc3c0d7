"""CAHD's groups with members drawn in secret (``grouping=random``) against the paper's (``grouping=order``); prints JSON.

``cahd`` formed its groups by the paper's scan: the visited record and the
most similar candidate of each other label, a function of the public band
order and the labels, so the group-skip adversary (``docs/attacks.md``,
(j)) reads labels from which records a group passed over.
``grouping=random`` (:mod:`graphanon.algorithms.nonreciprocal.cahd_secret`)
takes the labels of each group from the labels' counts and each member by a
uniform secret draw in the band's window. Measured on each release:

* the group-skip adversary, heuristic reading
  (:func:`graphanon.attacks.group_skip_attack`, every record a target, each
  record's group from the private link where its rows do not show it), with
  the bound ``1/l`` and its one-sided margin at confidence 0.999;
* the (item, label) pair error (``pair_mae``, ``pair_mae_relative``:
  ``benchmarks/label_group_utility.py``'s :func:`label_utility`, the 50 most
  frequent items, every label);
* the seconds of ``anonymize_cahd``;
* the exact posterior (every labelling the groups' multisets allow, weighted
  by its likelihood: 1 or 0 for the paper's scan, the exact probability of
  the draws for ``grouping=random``; MAP guess, ties split) next to the
  heuristic, on ``--exact-samples`` e-book samples of 12 records, with
  ``alpha=1`` (windows of 6 records: with the default ``alpha=3`` a window
  of 18 holds a whole sample, the draws are Anatomy's and the posterior is
  the groups' shares by its proof, so only a smaller window shows what
  windows leak).

Data: tests/patients.py (3,000 patients, seed 0) and tests/ebook_sessions.py
(3,000 sessions over 300 titles, seed 0); l = 3; secret draws pinned
(``unsafe_secret_seed`` 5, 6, 7: three releases of ``grouping=random``; the
paper's grouping does not depend on them) so the run repeats.

Usage: ``python benchmarks/cahd_secret_groups.py [--quick] [--no-save] [--exact-samples S]``.
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
from benchmarks.label_group_skips import exact_rows  # noqa: E402
from benchmarks.label_group_utility import label_utility  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.attacks import group_skip_attack  # noqa: E402
from tests.ebook_sessions import ebook_sessions  # noqa: E402
from tests.patients import patients  # noqa: E402

L = 3
SECRETS = (5, 6, 7)


def main() -> None:
    """Both groupings on both datasets, then the exact posterior on small samples; print the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1,000 records instead of 3,000")
    ap.add_argument("--no-save", action="store_true", help="print only")
    ap.add_argument("--exact-samples", type=int, default=20, help="samples of the exact posterior")
    args = ap.parse_args()
    n = 1000 if args.quick else 3000
    rows = []
    for name, data in (("patients", patients(n, seed=0)), ("e-book sessions", ebook_sessions(n, 300, seed=0))):
        for grouping in ("order", "random"):
            for secret in SECRETS if grouping == "random" else SECRETS[:1]:
                start = time.perf_counter()
                release = anonymize_cahd(data, l=L, grouping=grouping, unsafe_secret_seed=secret)
                seconds = time.perf_counter() - start
                res = group_skip_attack(data, release, truth=release.link)
                d = res.details
                rows.append({"data": name, "grouping": grouping, "secret": secret, "records": res.n_targets,
                             "adversary_all": round(res.success, 4), "bound_all": round(res.bound + res.margin, 4),
                             "within_bound": res.within_bound(), "skipped_records": d["skipped_records"],
                             "adversary_skipped": round(d["skipped_success"], 4),
                             "bound_skipped": round(res.bound + d["skipped_margin"], 4),
                             "pinned": d["pinned"], "pinned_right": d["pinned_right"],
                             **label_utility(data, release), "seconds": round(seconds, 2)})
    exact = exact_rows(12, args.exact_samples, [
        (f"cahd grouping={g}, alpha=1", lambda d, g=g: anonymize_cahd(d, l=L, grouping=g, alpha=1, unsafe_secret_seed=5))
        for g in ("order", "random")])
    print_and_save({"benchmark": "cahd_secret_groups", "l": L, "records": n, "rows": rows, "exact": exact,
                    "load_average": [round(x, 2) for x in os.getloadavg()]},
                   "cahd_secret_groups", save=not args.no_save)


if __name__ == "__main__":
    main()
