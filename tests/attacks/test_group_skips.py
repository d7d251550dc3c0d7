"""The group-skip adversary (issue 30): the exact posterior against brute force, the heuristic against it, releases."""

from __future__ import annotations

import copy
import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.algorithms.nonreciprocal.cahd_groups import cahd_groups
from graphanon.algorithms.nonreciprocal.label_groups import label_groups
from graphanon.attacks import candidate_sets, group_skip_attack
from graphanon.attacks.group_skips import public_groups, public_order, record_groups
from graphanon.attacks.group_skips_exact import exact_posterior
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError
from tests.ebook_sessions import ebook_sessions

PLANTED = "ceeacdbbb"  # along the identity order, the order grouping pins three labels (brute force below)


def _distinct_permutations(items: list):
    """Every distinct ordering of a multiset (recursive, independent of itertools' set dedup)."""
    if not items:
        yield ()
        return
    for x in sorted(set(items)):
        rest = list(items)
        rest.remove(x)
        for tail in _distinct_permutations(rest):
            yield (x, *tail)


def _first_seen(groups) -> list[int]:
    """Group numbers renumbered by first appearance (equal lists iff equal partitions)."""
    seen: dict = {}
    return [seen.setdefault(int(g), len(seen)) for g in groups]


def _same_grouping(a, b, labels_a, labels_b) -> bool:
    """Same partition of the records and the same label multiset in each part."""
    if _first_seen(a) != _first_seen(b):
        return False
    parts_a = {frozenset(np.flatnonzero(a == g).tolist()) for g in np.unique(a)}
    parts_b = {frozenset(np.flatnonzero(b == g).tolist()) for g in np.unique(b)}
    if parts_a != parts_b:
        return False
    return all(Counter(labels_a[i] for i in part) == Counter(labels_b[i] for i in part) for part in parts_a)


def _brute_force_posterior(labels: list, group_of) -> np.ndarray:
    """Posterior over every labelling of the whole label multiset that the grouping reproduces (uniform prior)."""
    truth_groups = group_of(labels)
    values = sorted(set(labels))
    acc = np.zeros((len(labels), len(values)))
    for world in _distinct_permutations(list(labels)):
        if _same_grouping(group_of(list(world)), truth_groups, list(world), labels):
            acc[np.arange(len(labels)), [values.index(x) for x in world]] += 1
    return acc / acc.sum(axis=1, keepdims=True)


def _consistent_worlds(labels: list, group_of) -> list[list]:
    """The labellings that arrange each published part's labels over its records and reproduce the grouping."""
    truth_groups = group_of(labels)
    parts = [np.flatnonzero(truth_groups == g) for g in range(int(truth_groups.max()) + 1)]
    worlds = []
    for combo in itertools.product(*(list(_distinct_permutations([labels[i] for i in p])) for p in parts)):
        w = list(labels)
        for p, arrangement in zip(parts, combo, strict=True):
            for i, x in zip(p, arrangement, strict=True):
                w[i] = x
        if _same_grouping(group_of(w), truth_groups, w, labels):
            worlds.append(w)
    return worlds


def _posterior_of(worlds: list[list]) -> np.ndarray:
    values = sorted(set(worlds[0]))
    acc = np.zeros((len(worlds[0]), len(values)))
    for w in worlds:
        acc[np.arange(len(w)), [values.index(x) for x in w]] += 1
    return acc / len(worlds)


def _map_success(post: np.ndarray, labels: list) -> float:
    values = sorted(set(labels))
    top = post >= post.max(axis=1, keepdims=True) - 1e-12
    return float(np.mean([top[i, values.index(x)] / top[i].sum() for i, x in enumerate(labels)]))


def _planted_release(labels: str):
    data = from_iterable([[f"i{j}"] for j in range(len(labels))], labels=list(labels))
    rel = anonymize_nonreciprocal(data, k=3, l=3, grouping="order", order="identity", rng=0, unsafe_secret_seed=1)
    return data, rel


def test_exact_posterior_against_brute_force_on_a_planted_order_grouping():
    data, rel = _planted_release(PLANTED)
    worlds = _consistent_worlds(list(PLANTED), lambda lab: label_groups(lab, 3, np.arange(len(lab))))
    post = _posterior_of(worlds)
    res = group_skip_attack(data, rel, truth=rel.link, method="exact")
    assert res.details["consistent_worlds"] == len(worlds)
    assert res.success == pytest.approx(_map_success(post, list(PLANTED)))
    values = sorted(set(PLANTED))
    truth_post = post[np.arange(len(PLANTED)), [values.index(x) for x in PLANTED]]
    assert res.details["posterior_truth"] == pytest.approx(truth_post.mean())
    pinned = (post > 1e-12).sum(axis=1) == 1
    assert res.details["pinned"] == int(pinned.sum()) == 3 and res.details["pinned_right"] == 3
    # the uniform-in-group reading (the model's 1/l) gives those records 1/3; the order gives them away
    assert res.baseline == pytest.approx(1 / 3)
    assert res.success == pytest.approx(2 / 3) and res.success > res.baseline + 0.3


def test_exact_posterior_against_brute_force_on_cahd():
    data = load("nr_table1")
    rel = anonymize_cahd(data, l=2, grouping="order", unsafe_secret_seed=0)
    order = public_order(data, rel)[0]
    matrix = data.matrix

    def group_of(lab):
        out = np.empty(len(lab), dtype=np.int64)
        for g, members in enumerate(cahd_groups(matrix, lab, 2, order=order)):
            out[members] = g
        return out

    labels = list(data.labels)
    post = _brute_force_posterior(labels, group_of)
    res = group_skip_attack(data, rel, truth=rel.link, method="exact")
    assert res.details["procedure"] == "scan" and res.details["order_source"] == "recomputed"
    assert res.success == pytest.approx(_map_success(post, labels))


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from("abcde"), min_size=9, max_size=9))
def test_the_heuristic_does_no_better_than_the_exact_posterior_over_the_consistent_worlds(labels):
    """Averaged over every labelling consistent with the release, no adversary reading only public information beats
    the Bayes (MAP) guess; the heuristic re-scored in each of those worlds must not either."""
    counts = Counter(labels)
    if len(counts) < 3 or max(counts.values()) > 3:
        return
    data, rel = _planted_release("".join(labels))
    exact = group_skip_attack(data, rel, truth=rel.link, method="exact")
    order = np.arange(9)
    worlds = _consistent_worlds(list(labels), lambda lab: label_groups(lab, 3, order))
    assert len(worlds) == exact.details["consistent_worlds"]
    C = candidate_sets(data, rel)
    groups = record_groups(data, rel, public_groups(rel)[0], rel.link, C)[0]
    values = sorted(counts)
    code = {x: values.index(x) for x in values}
    group_counts = np.zeros((int(groups.max()) + 1, len(values)))
    np.add.at(group_counts, (groups, [code[x] for x in labels]), 1)
    post, _ = exact_posterior(data, rel, order, groups, group_counts, dict(enumerate(values)), "order")
    heuristic = [group_skip_attack(from_iterable([[f"i{j}"] for j in range(9)], labels=w), rel, truth=rel.link,
                                   candidates=C).success for w in worlds]
    bayes = [_map_success(post, w) for w in worlds]  # the MAP guess reads public information only: one posterior
    assert bayes[worlds.index(list(labels))] == pytest.approx(exact.success)
    assert np.mean(heuristic) <= np.mean(bayes) + 1e-9


def test_the_attack_beats_its_bound_on_an_order_grouped_release():
    data = ebook_sessions(600, 100, seed=0)
    rel = anonymize_nonreciprocal(data, k=3, l=3, grouping="order", order="gray", rng=1, unsafe_secret_seed=5)
    res = group_skip_attack(data, rel, truth=rel.link)
    assert res.details["procedure"] == "order" and res.details["order_source"] == "trace"
    assert res.baseline == pytest.approx(1 / 3)  # the uniform reading of the own group is exactly 1/l
    assert not res.within_bound(), str(res)
    assert res.details["skipped_success"] > res.bound + res.details["skipped_margin"]
    assert res.details["pinned_right"] <= res.details["pinned"]
    assert res.details["group_from_candidates"] + res.details["group_from_link"] == 600
    with pytest.raises(ParameterError, match=r"would enumerate [\d,]+ labellings .* max_worlds"):
        group_skip_attack(data, rel, truth=rel.link, method="exact")


def test_without_the_link_only_records_whose_candidates_show_their_group_are_targeted():
    data = ebook_sessions(300, 100, seed=0)
    rel = anonymize_nonreciprocal(data, k=3, l=3, grouping="order", order="gray", rng=1, unsafe_secret_seed=5)
    res = group_skip_attack(data, rel)
    assert res.n_targets == res.details["group_from_candidates"] < 300
    assert res.details["group_unknown"] == 300 - res.n_targets and res.details["group_from_link"] == 0
    with pytest.raises(ParameterError, match="truth=release.link"):
        group_skip_attack(data, rel, method="exact")


def test_runs_on_a_cahd_release():
    data = ebook_sessions(300, 100, seed=0)
    rel = anonymize_cahd(data, l=3, grouping="order", unsafe_secret_seed=5)
    res = group_skip_attack(data, rel, truth=rel.link)
    assert res.attack == "group-skips/heuristic" and res.details["procedure"] == "scan"
    assert res.n_targets == 300 and 0 <= res.success <= 1
    groups, _ = public_groups(rel)
    group, revealed = record_groups(data, rel, groups, rel.link)
    assert (groups[rel.link.row_of_record] == group).all() and revealed.sum() == res.details["group_from_candidates"]


def test_the_gray_tsp_order_is_recomputed_from_the_structure_seed():
    data = ebook_sessions(80, 40, seed=1)
    rel = anonymize_nonreciprocal(data, k=3, l=3, grouping="order", rng=7, unsafe_secret_seed=1)
    loaded = copy.copy(rel)
    loaded.trace = None
    assert np.array_equal(public_order(data, loaded, seed=7)[0], rel.trace.order)
    with pytest.raises(ParameterError, match="structure seed"):
        group_skip_attack(data, loaded, truth=rel.link)
    res = group_skip_attack(data, loaded, truth=rel.link, seed=7)
    assert res.details["order_source"] == "recomputed"
    assert res.success == group_skip_attack(data, rel, truth=rel.link).success


def test_refusals_are_one_line():
    data = load("nr_table1")
    k_only = anonymize_nonreciprocal(data, k=2, rng=0)
    with pytest.raises(ParameterError, match="no sensitive labels|neither"):
        group_skip_attack(data, k_only)
    data, rel = _planted_release(PLANTED)
    with pytest.raises(ParameterError, match="method must be one of"):
        group_skip_attack(data, rel, method="bayes")
    drawn = copy.copy(rel)
    drawn.params = {**rel.params, "grouping": "random"}
    assert public_groups(drawn)[1] == "random"
    with pytest.raises(ParameterError, match="drawn at random"):
        group_skip_attack(data, drawn, truth=rel.link, method="exact")
    with pytest.raises(ParameterError, match="max_worlds=10"):
        group_skip_attack(data, rel, truth=rel.link, method="exact", max_worlds=10)


def test_a_wrong_order_is_refused_not_read():
    data = ebook_sessions(120, 60, seed=2)
    rel = anonymize_nonreciprocal(data, k=3, l=3, grouping="order", rng=4, unsafe_secret_seed=1)
    loaded = copy.copy(rel)
    loaded.trace = None
    with pytest.raises(ParameterError, match="not the release's"):
        group_skip_attack(data, loaded, truth=rel.link, seed=5)
    with pytest.raises(ParameterError, match="not the release's"):
        group_skip_attack(data, rel, truth=rel.link, order=np.arange(120)[::-1])
