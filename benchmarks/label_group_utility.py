"""What label groups drawn in secret cost and buy: label utility and the group-skip adversary; prints JSON.

``nr --param l=L`` forms its label groups by Anatomy's secret selection
(``grouping=random``, the default: :mod:`graphanon.algorithms.nonreciprocal.random_groups`)
or along the public record order (``grouping=order``, the former default).
The price of random groups is label-to-content association: a group's
records are no longer neighbours in the order. Measured on each release:

* ``own_label_share``: the share of rows whose published label equals the
  label of the record the row is published for (private link);
* ``pair_mae``: the mean absolute error of the estimated count of (item,
  label) pairs over the 50 most frequent items and every label. Estimate:
  the sum over the rows whose published base holds the item of the label's
  share in the row's label group (``label_groups``; for ``cahd``, whose rows
  carry their labels, 1 when the row's label is the label); truth: the
  records holding the item with that label. ``pair_mae_relative``: divided
  by the mean true count. ``pair_mae_groups`` isolates the label grouping
  from the rows' generalization: the same estimate summed over the
  *records* holding the item (their own group's shares, private link);
* the group-skip adversary (``skip_attack``, copied from
  ``benchmarks/label_group_skips.py``, which stays the reference): for
  ``nr`` it reads every record's group from the private link (for random
  groups the candidate rows no longer show it: the strongest case), the
  order from the release's trace (what the seed's holder recomputes); for
  ``cahd`` the groups its public Gray-order scan forms. Reported next to
  the bound 1/l and its one-sided margin at confidence 0.999.

Data: tests/patients.py (3,000 patients, 400 codes, a skewed 5-value label
correlated with the codes, seed 0) and tests/ebook_sessions.py (3,000
sessions over 300 titles, 6 labels, seed 0); k=3, l=3, structure seed 1;
the secret draws pinned (``unsafe_secret_seed`` 5, 6, 7: three releases per
``nr`` grouping, their mean reported with the spread) so the run repeats.

Usage: ``python benchmarks/label_group_utility.py [--quick] [--no-save]``.
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
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd  # noqa: E402
from graphanon.algorithms.nonreciprocal.cahd_groups import cahd_groups, gray_order  # noqa: E402
from tests.ebook_sessions import ebook_sessions  # noqa: E402
from tests.patients import patients  # noqa: E402

Z999 = 3.090232  # one-sided normal quantile at confidence 0.999
K = L = 3
TOP_ITEMS = 50
SECRETS = (5, 6, 7)


# ---- copied from benchmarks/label_group_skips.py (nr_groups, cahd_grouping, skip_attack), unchanged ----

def nr_groups(data, release):
    """``(order, group of each record, label counts of each group)`` of an ``nr`` release with label groups."""
    row_group = np.asarray(release.label_groups)
    group = row_group[np.asarray(release.link.row_of_record)]  # the adversary reads it from the candidate rows
    counts = [Counter() for _ in range(int(group.max()) + 1)]
    for j, label in enumerate(release.labels):
        counts[row_group[j]][str(label)] += 1
    return np.asarray(release.trace.order), group, counts


def cahd_grouping(data, l):  # noqa: E741
    """The same for CAHD's groups: its public Gray order and the groups its scan forms, with their label counts."""
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

# ---- end of the copy ----


def label_utility(data, release) -> dict:
    """``own_label_share`` and the (item, label) pair-count error of one release (module docstring)."""
    names = sorted({str(x) for x in data.labels})
    code = {a: s for s, a in enumerate(names)}
    truth = np.array([code[str(x)] for x in data.labels])
    published = np.array([code[str(x)] for x in release.labels])
    rows = np.asarray(release.link.row_of_record)
    own = float((published[rows] == truth).mean())
    if release.label_groups is not None:  # each row: its group's label shares
        g = np.asarray(release.label_groups)
        G = np.zeros((int(g.max()) + 1, len(names)))
        np.add.at(G, (g, published), 1.0)
        share = (G / G.sum(axis=1, keepdims=True))[g]
    else:  # labels on the rows
        share = np.eye(len(names))[published]
    X = data.matrix.tocsc() if hasattr(data.matrix, "tocsc") else data.matrix
    top = np.argsort(-np.asarray(X.sum(axis=0)).ravel(), kind="stable")[:TOP_ITEMS]
    index = {x: j for j, x in enumerate(release.items)}
    B = release.base.tocsc()[:, [index[data.items[j]] for j in top]]
    estimate = np.asarray(B.T @ share)  # (items, labels)
    onehot = np.eye(len(names))[truth]
    true = np.asarray(X[:, top].T @ onehot)
    mae = float(np.abs(estimate - true).mean())
    by_groups = np.asarray(X[:, top].T @ share[rows])  # each record's own row's group shares
    return {"own_label_share": round(own, 4), "pair_mae": round(mae, 3),
            "pair_mae_relative": round(mae / float(true.mean()), 4),
            "pair_mae_groups": round(float(np.abs(by_groups - true).mean()), 3)}


def mean_rows(rows: list[dict]) -> dict:
    """The mean of every number over ``rows``, with the smallest and largest of the adversary's success."""
    out = {key: rows[0][key] if len({r[key] for r in rows}) == 1 else round(float(np.mean([r[key] for r in rows])), 4)
           for key in rows[0]}
    out["adversary_all_range"] = [min(r["adversary_all"] for r in rows), max(r["adversary_all"] for r in rows)]
    out["releases"] = len(rows)
    return out


def main() -> None:
    """Run both groupings and ``cahd`` on both datasets and print the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1,000 records instead of 3,000")
    ap.add_argument("--no-save", action="store_true", help="print only")
    args = ap.parse_args()
    n = 1000 if args.quick else 3000
    out = []
    for name, data in (("patients", patients(n, seed=0)), ("e-book sessions", ebook_sessions(n, 300, seed=0))):
        for grouping in ("order", "random"):
            start = time.perf_counter()
            rows = []
            for secret in SECRETS:
                release = anonymize_nonreciprocal(data, k=K, l=L, rng=1, grouping=grouping,
                                                  unsafe_secret_seed=secret)
                rows.append({**label_utility(data, release), **skip_attack(data, *nr_groups(data, release), L)})
            out.append({"data": name, "method": f"nr grouping={grouping}", **mean_rows(rows),
                        "seconds": round((time.perf_counter() - start) / len(SECRETS), 1)})
        start = time.perf_counter()
        release = anonymize_cahd(data, l=L, grouping="order", unsafe_secret_seed=SECRETS[0])
        out.append({"data": name, "method": "cahd", **label_utility(data, release),
                    **skip_attack(data, *cahd_grouping(data, L), L), "releases": 1,
                    "seconds": round(time.perf_counter() - start, 1)})
    print_and_save({"benchmark": "label_group_utility", "k": K, "l": L, "records": n, "top_items": TOP_ITEMS,
                    "rows": out}, "label_group_utility", save=not args.no_save)


if __name__ == "__main__":
    main()
