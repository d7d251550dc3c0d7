"""The ranking label adversary (issue 30, item 1): against brute force, and on the releases it must judge."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.attacks import candidate_sets, label_inference, ranking_label_inference
from graphanon.attacks.ranking import SCORES
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.release import GlobalRecoding, NonreciprocalRelease
from tests.patients import patients


def _worlds(base: np.ndarray, dist: np.ndarray, thr: int):
    """Every bitmap in a row's possible worlds, by enumeration."""
    pos = np.flatnonzero(dist)
    for j in range(min(thr, len(pos)) + 1):
        for flip in itertools.combinations(pos, j):
            w = base.copy()
            w[list(flip)] ^= True
            yield w


def _brute_force(data, rel) -> dict[str, float]:
    """Success of every score and its reverse, by explicit worlds, per-target loops and ties split."""
    index = {x: j for j, x in enumerate(rel.items)}
    d = len(rel.items)
    X = np.zeros((data.n_records, d), dtype=bool)
    for i in range(data.n_records):
        for j in data.record_items(i):
            X[i, index[data.items[j]]] = True
    B, D = rel.base.toarray().astype(bool), rel.distance.toarray().astype(bool)
    thr = np.asarray(rel.threshold)
    worlds = [{w.tobytes() for w in _worlds(B[r], D[r], int(thr[r]))} for r in range(rel.n_records)]
    cands = [[r for r in range(rel.n_records) if X[i].tobytes() in worlds[r]] for i in range(data.n_records)]
    degree = [sum(r in c for c in cands) for r in range(rel.n_records)]

    def score(name, i, r):
        flips = int((X[i] ^ B[r])[D[r]].sum())
        return {
            "hamming": int((X[i] ^ B[r]).sum()),
            "flips": flips,
            "worlds": math.log(len(worlds[r])),
            "slack": int(thr[r]) - flips,
            "threshold": int(thr[r]),
            "degree": degree[r],
            "position": r,
        }[name]

    out = {}
    for name in SCORES:
        for sign, key in ((1, name), (-1, "-" + name)):
            per = []
            for i in range(data.n_records):
                s = {r: sign * score(name, i, r) for r in cands[i]}
                best = min(s.values())
                top = [r for r in cands[i] if math.isclose(s[r], best)]
                per.append(sum(_reads(rel, r, data.labels[i]) for r in top) / len(top))
            out[key] = float(np.mean(per))
    return out


def _reads(rel, r: int, label) -> float:
    """Chance that reading row ``r`` gives ``label``: its own label, or a draw from its label group."""
    if rel.label_groups is None:
        return float(rel.labels[r] == label)
    group = [j for j in range(rel.n_records) if rel.label_groups[j] == rel.label_groups[r]]
    return sum(rel.labels[j] == label for j in group) / len(group)


def _tiny(seed: int):
    rng = np.random.default_rng(seed)
    n, d = 12, 5
    records = [[f"i{j}" for j in range(d) if rng.random() < 0.45] or ["i0"] for _ in range(n)]
    labels = [f"L{x}" for x in rng.permutation(np.arange(n) % 4)]
    return from_iterable(records, labels=labels)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("make", ["nr", "nr-flow", "cahd"])
def test_every_score_matches_brute_force(seed, make):
    data = _tiny(seed)
    if make == "nr":  # label groups: a row's label is read as a draw from its group
        rel = anonymize_nonreciprocal(data, l=3, order="gray", rng=seed, unsafe_secret_seed=seed)
        assert rel.label_groups is not None
    elif make == "nr-flow":
        rel = anonymize_nonreciprocal(data, l=3, order="gray", l_method="flow", rng=seed, unsafe_secret_seed=seed)
    else:
        rel = anonymize_cahd(data, l=3, unsafe_secret_seed=seed)
    expected = _brute_force(data, rel)
    res = ranking_label_inference(data, rel, score="best")
    assert res.details["per_score"] == pytest.approx(expected, abs=1e-12)
    assert res.success == pytest.approx(max(expected.values()), abs=1e-12)
    for name in ("hamming", "-degree"):
        assert ranking_label_inference(data, rel, score=name).success == pytest.approx(expected[name], abs=1e-12)


def test_a_planted_release_where_the_nearest_row_names_the_label():
    # two records, two rows: each row is exactly one record, labels on the nearest row -> 1.0;
    # the same rows with the labels swapped -> 0.0; both rows cover both records (threshold 2)
    data = from_iterable([["a"], ["b"]], labels=["x", "y"])
    base, dist = [[1, 0], [0, 1]], [[1, 1], [1, 1]]
    right = NonreciprocalRelease(["a", "b"], base, dist, [2, 2], labels=["x", "y"], params={"l": 2})
    wrong = NonreciprocalRelease(["a", "b"], base, dist, [2, 2], labels=["y", "x"], params={"l": 2})
    assert ranking_label_inference(data, right, score="hamming").success == 1.0
    assert ranking_label_inference(data, wrong, score="hamming").success == 0.0
    assert ranking_label_inference(data, wrong, score="-hamming").success == 1.0
    # the uniform adversary sees 1/2 in both
    assert label_inference(data, right).details["mean_true_share"] == 0.5


def test_custom_score_and_errors():
    data = load("nr_table1")
    rel = anonymize_cahd(data, l=3, unsafe_secret_seed=0)

    def nearest(ctx):
        return SCORES["hamming"](ctx)

    a = ranking_label_inference(data, rel, score=nearest)
    b = ranking_label_inference(data, rel, score="hamming")
    assert a.attack == "label-ranking/nearest" and a.success == b.success
    with pytest.raises(ParameterError, match="unknown ranking score"):
        ranking_label_inference(data, rel, score="closest")
    with pytest.raises(ParameterError, match="returned"):
        ranking_label_inference(data, rel, score=lambda ctx: np.zeros(1))
    glob = GlobalRecoding.from_mapping(data, {x: "(all)" for x in data.items})
    with pytest.raises(ParameterError, match="bit-voting"):
        ranking_label_inference(data, glob)
    with pytest.raises(ParameterError, match="the data has none"):
        ranking_label_inference(from_iterable([[data.items[j] for j in data.record_items(i)] for i in range(6)]), rel)
    unlabelled = NonreciprocalRelease(rel.items, rel.base, rel.distance, rel.threshold, params={"l": 3})
    with pytest.raises(ParameterError, match="no sensitive labels"):
        ranking_label_inference(data, unlabelled)


@pytest.fixture(scope="module")
def correlated():
    return patients(600, 400, seed=0)


def test_catches_the_postimage_labelling(correlated):
    """Issue 30: each row carries the label of the record whose own postimage it is; the nearest row names it."""
    rel = anonymize_nonreciprocal(correlated, l=3, order="gray", l_method="flow", rng=0)
    C = candidate_sets(correlated, rel)
    uniform = label_inference(correlated, rel, candidates=C)
    ranked = ranking_label_inference(correlated, rel, score="hamming", candidates=C)
    assert uniform.within_bound()
    assert not ranked.within_bound(), str(ranked)
    assert ranked.success > uniform.details["mean_true_share"] + 0.1


@pytest.mark.parametrize("variant", [{}, {"diversity": "entropy"}, {"diversity": "recursive", "c": 2}])
def test_cahd_holds_under_every_score(correlated, variant):
    rel = anonymize_cahd(correlated, l=3, **variant)
    res = ranking_label_inference(correlated, rel, score="best")
    assert res.within_bound(), str(res)
    # a CAHD group publishes one row content for all its records: no score separates them
    assert max(res.details["per_score"].values()) - min(res.details["per_score"].values()) < 0.05


def test_cahd_exact_expectation_over_every_secret_permutation_is_at_most_one_over_l():
    """Brute force over the secret: every within-group label permutation of a CAHD release, every score.

    A group publishes one content for its records, so whatever row a score picks, its label is uniform over the
    group's distinct labels when the permutation is: the exact expectation is at most 1/l for every score.
    """
    from graphanon.attacks import row_signatures

    rng = np.random.default_rng(4)
    records = [[f"i{j}" for j in range(6) if rng.random() < 0.5] or ["i0"] for _ in range(6)]
    data = from_iterable(records, labels=["a", "b", "c"] * 2)
    rel = anonymize_cahd(data, l=3, unsafe_secret_seed=0)
    C = candidate_sets(data, rel)
    _, group = np.unique(row_signatures(rel), axis=0, return_inverse=True)
    members = [np.flatnonzero(group.reshape(-1) == g) for g in range(int(group.max()) + 1)]
    assert all(len(m) == 3 for m in members)  # three identical rows per group
    totals: dict[str, float] = {}
    count = 0
    for perms in itertools.product(*(list(itertools.permutations(m.tolist())) for m in members)):
        labels = list(rel.labels)
        for m, p in zip(members, perms, strict=True):
            for dst, src in zip(m.tolist(), p, strict=True):
                labels[dst] = rel.labels[src]
        variant = NonreciprocalRelease(rel.items, rel.base, rel.distance, rel.threshold, labels=labels,
                                       params=rel.params)
        res = ranking_label_inference(data, variant, score="best", candidates=C)
        for name, value in res.details["per_score"].items():
            totals[name] = totals.get(name, 0.0) + value
        count += 1
    assert count == 6 ** len(members)
    for name, total in totals.items():
        assert total / count <= 1 / 3 + 1e-12, name
    assert totals["position"] / count == pytest.approx(1 / 3)  # one row picked: its label is uniform
