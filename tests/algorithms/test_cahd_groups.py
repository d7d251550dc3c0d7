"""CAHD l-diverse grouping (graphanon.algorithms.nonreciprocal.cahd_groups)."""
# ruff: noqa: E741  (l is the diversity level, as in the papers)

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from graphanon.algorithms.nonreciprocal import gray_order, gray_tsp_order
from graphanon.algorithms.nonreciprocal.cahd_groups import (
    _candidate_window,
    cahd_groups,
    check_l_diverse_labels,
)
from graphanon.datasets import load
from graphanon.errors import ParameterError


def audit_groups(groups, labels, l, n):
    """Independent check: a partition of range(n) into groups of >= l records in which
    no label occurs more than |group| / l times."""
    seen = Counter()
    for g in groups:
        g = [int(i) for i in g]
        assert len(g) >= l, f"group {g} has fewer than {l} records"
        seen.update(g)
        top = max(Counter(labels[i] for i in g).values())
        assert top * l <= len(g), f"group {g} has a label {top} times out of {len(g)}"
    assert sorted(seen) == list(range(n)), "groups do not cover every record"
    assert all(c == 1 for c in seen.values()), "a record is in two groups"


def skewed_labels(n, rng, l):
    p = 1.0 / (np.arange(24) + 12)  # Zipf-like, shares from 7.4% down to 2.5%
    labels = rng.choice(len(p), size=n, p=p / p.sum())
    assert np.bincount(labels).max() * l <= n
    return [f"s{v}" for v in labels]


# ---------------------------------------------------------------- golden


def test_table1_groups():
    data = load("nr_table1")
    names = lambda gs: [[data.record_ids[i] for i in g] for g in gs]  # noqa: E731
    groups = cahd_groups(data, None, 2)
    audit_groups(groups, data.labels, 2, 6)
    # Gray order r2 r4 r1 r3 r5 r6, labels C B C M B M: each record takes its nearest
    # distinct-label neighbour
    assert names(groups) == [["r2", "r4"], ["r1", "r3"], ["r5", "r6"]]
    groups3 = cahd_groups(data, list(data.labels), 3)
    audit_groups(groups3, data.labels, 3, 6)
    assert all(len(g) == 3 for g in groups3)
    assert names(groups3)[0] == ["r2", "r4", "r3"]  # r3 (Muslim) is at Hamming 2, r6 at 3


def test_metrics_and_user_order():
    X = np.array([[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0], [0, 0, 1, 1]], dtype=bool)
    labels = ["a", "c", "b", "d"]
    order = [0, 1, 2, 3]
    # record 0: record 2 is nearest by Hamming (1), record 1 shares the most items (2)
    ham = cahd_groups(X, labels, 2, order=order)
    common = cahd_groups(X, labels, 2, order=order, metric="common_items")
    assert [g.tolist() for g in ham] == [[0, 2], [1, 3]]
    assert [g.tolist() for g in common] == [[0, 1], [2, 3]]
    # with three records of distinct labels and l = 2, no pair can leave an l-diverse rest
    assert [g.tolist() for g in cahd_groups(X[:3], labels[:3], 2, order=[0, 1, 2])] == [[0, 1, 2]]


def test_leftover_records_are_dealt_into_diverse_groups():
    # l = 3, eight records, four labels twice each: no group of exactly 3 leaves an
    # l-diverse rest (4 labels would each need to stay <= 5/3), so the records are
    # dealt into 8 // 3 = 2 groups of 4 distinct labels
    X = np.eye(8, dtype=bool)
    labels = list("ababcdcd")
    groups = cahd_groups(X, labels, 3, order=range(8))
    audit_groups(groups, labels, 3, 8)
    assert sorted(len(g) for g in groups) == [4, 4]
    assert all(sorted(labels[i] for i in g) == list("abcd") for g in groups)


# ---------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.bool_, st.tuples(st.integers(1, 60), st.integers(1, 8))),
    st.integers(1, 5),
    st.integers(1, 6),
    st.integers(1, 3),
    st.data(),
)
def test_groups_are_l_diverse_partition(X, l, n_labels, alpha, data):
    n = X.shape[0]
    labels = data.draw(st.lists(st.integers(0, n_labels - 1), min_size=n, max_size=n))
    counts = Counter(labels)
    feasible = len(counts) >= l and max(counts.values()) * l <= n
    if not feasible:
        with pytest.raises(ParameterError, match="l="):
            cahd_groups(X, labels, l, alpha=alpha)
        return
    order = data.draw(st.permutations(range(n))) if data.draw(st.booleans()) else None
    groups = cahd_groups(X, labels, l, alpha=alpha, order=order)
    audit_groups(groups, labels, l, n)
    # every group has pairwise distinct labels and fewer than 2 l records
    for g in groups:
        assert len({labels[i] for i in g}) == len(g) < 2 * l


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_tight_label_distributions(l, seed):
    # a label on exactly n / l records: every group must contain it
    rng = np.random.default_rng(seed)
    n = l * int(rng.integers(2, 12))
    labels = [0] * (n // l) + list(rng.integers(1, l + 3, size=n - n // l))
    assume(max(Counter(labels).values()) * l <= n and len(set(labels)) >= l)
    X = rng.random((n, 10)) < 0.4
    groups = cahd_groups(X, labels, l)
    audit_groups(groups, labels, l, n)


def test_chess_and_mushroom_with_skewed_labels():
    rng = np.random.default_rng(5)
    for name, l in (("chess", 4), ("mushroom", 10)):
        data = load(name)
        labels = skewed_labels(data.n_records, rng, l)
        groups = cahd_groups(data, labels, l)
        audit_groups(groups, labels, l, data.n_records)
        # the heuristic groups almost everything in groups of exactly l
        assert sum(len(g) == l for g in groups) * l >= 0.95 * data.n_records


def test_gray_tsp_order_and_locality():
    data = load("chess").subset(np.arange(600))
    rng = np.random.default_rng(2)
    labels = skewed_labels(600, rng, 4)
    order = gray_tsp_order(
        data, min_segment=100, max_segment=150, time_limit=0.05, solution_limit=5, solver="ortools"
    )
    groups = cahd_groups(data, labels, 4, order=order)
    audit_groups(groups, labels, 4, 600)
    # CAHD groups are local in the order: members lie within the candidate window
    pos = np.empty(600, dtype=int)
    pos[order] = np.arange(600)
    spans = [np.ptp(pos[g]) for g in groups[:-1]]
    assert np.median(spans) <= 2 * 3 * 4
    # and similar: the mean within-group Hamming distance is far below a random grouping's
    X = data.matrix.toarray()

    def spread(gs):
        return np.mean([np.mean(X[g] != X[g[0]]) for g in gs])

    random_groups = np.array_split(rng.permutation(600), 150)
    assert spread(groups) < 0.7 * spread(random_groups)


def test_l_one_and_default_order():
    X = np.eye(5, dtype=bool)
    groups = cahd_groups(X, list("aabbc"), 1)
    assert [g.tolist() for g in groups] == [[i] for i in gray_order(X)]


# ---------------------------------------------------------------- bad input


def test_infeasible_l_is_an_error_up_front():
    X = np.eye(6, dtype=bool)
    with pytest.raises(
        ParameterError, match="needs at least 3 distinct sensitive labels, the data has 2"
    ):
        cahd_groups(X, list("aabbab"), 3)
    with pytest.raises(
        ParameterError,
        match=r"label 'a' is on 4 of 6 records, more than n/l = 3.0; lower l to at most 1",
    ):
        cahd_groups(X, list("aaaabc"), 2)
    with pytest.raises(ParameterError, match="l must be a whole number >= 1"):
        cahd_groups(X, list("abcabc"), 0)
    with pytest.raises(ParameterError, match="needs sensitive labels"):
        cahd_groups(X, None, 2)
    with pytest.raises(ParameterError, match="labels has 5 entries for 6 records"):
        cahd_groups(X, list("abcab"), 2)
    with pytest.raises(ParameterError, match="alpha must be an integer >= 1"):
        cahd_groups(X, list("abcabc"), 2, alpha=0)
    with pytest.raises(ParameterError, match="metric must be one of"):
        cahd_groups(X, list("abcabc"), 2, metric="jaccard")
    with pytest.raises(ParameterError, match="repeats a record"):
        cahd_groups(X, list("abcabc"), 2, order=[0, 1, 2, 3, 4, 4])


def test_check_l_diverse_labels_codes():
    codes, values = check_l_diverse_labels(["x", None, "x", "y", None, "y"], 3)
    assert codes.tolist() == [0, 1, 0, 2, 1, 2] and values == ["x", None, "y"]


# ---------------------------------------------------------------- the candidate window


def walked_window(alive, lab, p, own, window):
    """Reference: walk the live positions from p each way, one step at a time, skipping label own."""
    before = [q for q in range(p - 1, -1, -1) if alive[q] and lab[q] != own][:window]
    after = [q for q in range(p + 1, len(alive)) if alive[q] and lab[q] != own][:window]
    return before + after


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_candidate_window_is_the_walk(data):
    n = data.draw(st.integers(1, 300))
    alive = data.draw(arrays(np.bool_, n))
    lab = data.draw(arrays(np.int64, n, elements=st.integers(0, 3)))
    p = data.draw(st.integers(0, n - 1))
    window = data.draw(st.sampled_from([1, 2, 3, 9, n]))
    got = _candidate_window(alive, lab, p, int(lab[p]), window)
    assert got.dtype == np.int64
    assert got.tolist() == walked_window(alive, lab, p, int(lab[p]), window)


def test_candidate_window_long_runs_of_one_label():
    """Runs of the visited record's label longer than every slice the window tries first."""
    n = 5000
    lab = np.zeros(n, dtype=np.int64)
    lab[[3, 10, 4990, 4999]] = 1
    alive = np.ones(n, dtype=bool)
    alive[10] = False
    for p, window in ((2500, 3), (0, 2), (n - 1, 9), (2500, n)):
        assert _candidate_window(alive, lab, p, 0, window).tolist() == walked_window(alive, lab, p, 0, window)
    assert _candidate_window(alive, lab, 2500, 0, 3).tolist() == [3, 4990, 4999]
