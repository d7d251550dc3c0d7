"""The group-skip adversary against nr's label groups (found 2026-11-28, not yet fixed); prints JSON.

``nr --param l=L`` (the default ``l_method=groups``) forms its label groups
along the public record order, taking from each label its earliest
ungrouped row (``label_groups`` in
``graphanon/algorithms/nonreciprocal/label_groups.py``): a row waits while
its label is already in the group being formed. Group membership is
therefore a function of the order and of the labels, and the order is
public structure. This adversary holds every record's items and the order
(``release.trace.order``: what anyone holding the data and the structure
seed recomputes), reads each record's group (its candidate rows lie in one
group) and each group's published label multiset, and for a target ``r``
takes the groups formed before ``r``'s own that span ``r``'s position (they
*skipped* ``r``): ``r``'s label is then usually one of theirs. It
intersects ``r``'s own group's labels with each skipping group's (an
intersection that would be empty is ignored) and guesses within what is
left in proportion to the own group's counts.

This is a heuristic, not the exact posterior: a label forced into a group
(one on ``floor(R / p)`` of the ``R`` rows left) does not skip anyone, and
the adversary ignores that, so its pins are often wrong. It is a lower
bound on what the order gives away. Reported: the uniform reading of the
own group (the model's ``1/l``), the adversary's success over every record
and over the records some group skipped (a target set the adversary can
choose), and the one-sided margin of 1/l at confidence 0.999 for each.

The same adversary against ``cahd`` l=3: its groups are formed along its
public Gray order too (a record is taken when its label differs from the
group's and it is near the pivot), so the same reading applies.

Data: tests/patients.py (3,000 patients, 400 codes, a skewed 5-value label
correlated with the codes, seed 0) and tests/ebook_sessions.py (3,000
sessions over 300 titles, 6 labels, seed 0); ``nr`` k=3, l=3, structure
seed 1, secret draws pinned (``unsafe_secret_seed=5``) so the run repeats.

Usage: ``python benchmarks/label_group_skips.py [--quick] [--no-save]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks._common import print_and_save  # noqa: E402
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd_groups import cahd_groups, gray_order  # noqa: E402
from tests.ebook_sessions import ebook_sessions  # noqa: E402
from tests.patients import patients  # noqa: E402

Z999 = 3.090232  # one-sided normal quantile at confidence 0.999


def nr_groups(data, release):
    """``(order, group of each record, label counts of each group)`` of an ``nr`` release with label groups."""
    row_group = np.asarray(release.label_groups)
    group = row_group[np.asarray(release.link.row_of_record)]  # the adversary reads it from the candidate rows
    counts = [Counter() for _ in range(int(group.max()) + 1)]
    for j, label in enumerate(release.labels):
        counts[row_group[j]][str(label)] += 1
    return np.asarray(release.trace.order), group, counts


def cahd_grouping(data, l):  # noqa: E741
    """The same for CAHD's groups: its public Gray order and the groups its scan forms (what a release's
    candidate sets show), with their label counts."""
    order = np.asarray(gray_order(data.matrix))
    labels = [str(x) for x in data.labels]
    groups = cahd_groups(data.matrix, labels, l, order=order)
    group = np.full(data.n_records, -1, dtype=np.int64)
    for g, members in enumerate(groups):
        group[np.asarray(members)] = g
    return order, group, [Counter(labels[i] for i in members) for members in groups]


def skip_attack(data, order, group, counts, l) -> dict:  # noqa: E741
    """The group-skip adversary's success, given the public ``order``, each record's ``group`` and the groups'
    published label ``counts``."""
    n = data.n_records
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    truth = [str(x) for x in data.labels]
    n_groups = len(counts)
    first = np.full(n_groups, n)
    last = np.full(n_groups, -1)
    np.minimum.at(first, group, position)
    np.maximum.at(last, group, position)
    uniform = adversary = 0.0
    skipped = skipped_success = 0.0
    pinned = pinned_right = 0
    for r in range(n):
        own, p = group[r], position[r]
        left = set(counts[own])
        skippers = np.flatnonzero((first < p) & (last > p) & (first < first[own]))
        for h in skippers:
            narrowed = left & set(counts[h])
            if narrowed:
                left = narrowed
        weight = {a: counts[own][a] for a in left}
        success = weight.get(truth[r], 0) / sum(weight.values())
        adversary += success
        uniform += counts[own][truth[r]] / sum(counts[own].values())
        if len(skippers):
            skipped += 1
            skipped_success += success
        if len(left) == 1:
            pinned += 1
            pinned_right += truth[r] in left
    bound = 1 / l

    def margin(m):
        return bound + Z999 * (bound * (1 - bound) / max(m, 1)) ** 0.5

    return {"records": n, "groups": n_groups, "uniform_in_group": round(uniform / n, 4),
            "adversary_all": round(adversary / n, 4), "bound_all": round(margin(n), 4),
            "skipped_records": int(skipped), "adversary_skipped": round(skipped_success / max(skipped, 1), 4),
            "bound_skipped": round(margin(skipped), 4), "pinned": pinned, "pinned_right": pinned_right}


def main() -> None:
    """Run the adversary on both datasets and print the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1,000 records instead of 3,000")
    ap.add_argument("--no-save", action="store_true", help="print only")
    args = ap.parse_args()
    n = 1000 if args.quick else 3000
    rows = []
    for name, data in (("patients", patients(n, seed=0)), ("e-book sessions", ebook_sessions(n, 300, seed=0))):
        start = time.perf_counter()
        release = anonymize_nonreciprocal(data, k=3, l=3, rng=1, unsafe_secret_seed=5)
        rows.append({"data": name, "method": "nr groups", **skip_attack(data, *nr_groups(data, release), 3),
                     "seconds": round(time.perf_counter() - start, 1)})
        start = time.perf_counter()
        rows.append({"data": name, "method": "cahd", **skip_attack(data, *cahd_grouping(data, 3), 3),
                     "seconds": round(time.perf_counter() - start, 1)})
    print_and_save({"benchmark": "label_group_skips", "l": 3, "rows": rows},
                   "label_group_skips", save=not args.no_save)


if __name__ == "__main__":
    main()
