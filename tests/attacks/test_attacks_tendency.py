"""The swap-partner tendency attack (graphanon.attacks.tendency) against brute force and on real swaps."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms import (
    anonymize_fullswap,
    anonymize_partsupp,
    anonymize_partswap,
    anonymize_randswap,
    anonymize_splitperson,
)
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.attacks.tendency import dominating_categories, partner_tendency
from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ParameterError
from graphanon.taxonomy import ItemGroups
from graphanon.taxonomy.categories import category_codes, parse_categories


def brute_force(data, release, cats, pairs, one_category=True):
    """The adversary of the module docstring, item by item, with Python sets."""
    items = list(data.items)
    cat_of = {x: cats.group_of(x) for x in items}
    names = list(cats.names)
    recs = [frozenset(items[j] for j in data.record_items(i)) for i in range(data.n_records)]
    Y = release.matrix_over(data.items).tocsr()
    rows = [frozenset(items[j] for j in Y.indices[Y.indptr[r]:Y.indptr[r + 1]]) for r in range(Y.shape[0])]

    def weights(rec):
        return Counter(cat_of[x] for x in rec)

    def heaviest(rec):
        w = weights(rec)
        if not w:
            return None
        top = max(w.values())
        if top * len(w) <= len(rec):
            return None
        return min((names.index(g) for g, v in w.items() if v == top))

    def dominating(rec):
        h = heaviest(rec)
        if h is not None:
            return h
        w = weights(rec)
        return names.index(next(iter(w))) if len(w) == 1 else None

    partners = {i: [] for i in range(len(recs))}
    for a, b in pairs:
        partners[a].append(b)
        partners[b].append(a)
    per = []
    for t, rec in enumerate(recs):
        doms = [dominating(recs[p]) for p in partners[t]]
        doms = [d for d in doms if d is not None]
        if not doms:
            continue
        h = heaviest(rec)
        S = frozenset(x for x in rec if h is not None and names.index(cat_of[x]) == h)
        K = rec - S
        score = [len(r & K) - len(r & S) for r in rows]
        cands = [r for r, s in zip(rows, score, strict=True) if s == max(score)]

        def spread(r, rec=rec):
            k = len({cat_of[x] for x in r - rec})
            return k if k else len(names) + 1

        if one_category:
            least = min(spread(r) for r in cands)
            cands = [r for r in cands if spread(r) == least]
        total = 0.0
        for r in cands:
            got = Counter(names.index(cat_of[x]) for x in r - rec)
            if not got:
                continue
            top = max(got.values())
            best = [g for g, v in got.items() if v == top]
            total += sum(doms.count(g) / len(doms) for g in best) / len(best)
        per.append(total / len(cands))
    return per


def small_data(draw):
    n = draw(st.integers(2, 9))
    cats = ItemGroups({"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"], "C": ["c1", "c2"]})
    items = ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2"]
    recs = [draw(st.lists(st.sampled_from(items), min_size=1, max_size=5, unique=True)) for _ in range(n)]
    return from_iterable(recs, items=items), cats


@settings(max_examples=60, deadline=None)
@given(data=st.data(), method=st.sampled_from(["partswap", "fullswap", "randswap"]), spread=st.integers(1, 3),
       one_category=st.booleans())
def test_attack_matches_brute_force(data, method, spread, one_category):
    d, cats = small_data(data.draw)
    seed = data.draw(st.integers(0, 1000))
    if method == "randswap":
        rel = anonymize_randswap(d, unsafe_secret_seed=seed)
    else:
        rel = (anonymize_partswap if method == "partswap" else anonymize_fullswap)(
            d, categories=cats, rng=seed, unsafe_secret_seed=seed, spread=spread)
    res = partner_tendency(d, rel, categories=cats, partners=rel.trace.pairs, truth=rel.link,
                           one_category=one_category)
    per = brute_force(d, rel, cats, rel.trace.pairs, one_category)
    assert res.n_targets == len(per)
    assert res.success == pytest.approx(float(np.mean(per)) if per else 0.0)


def test_dominating_categories_against_definition():
    X = from_iterable([["a1", "a2", "b1"], ["a1", "b1"], ["b1", "b2"], []],
                      items=["a1", "a2", "b1", "b2"])
    codes = np.array([0, 0, 1, 1])
    assert dominating_categories(X.matrix, codes, 2).tolist() == [0, -1, 1, -1]


@pytest.fixture(scope="module")
def groceries():
    data = load("groceries")
    sub = from_iterable([[data.items[j] for j in data.record_items(i)] for i in range(3000)],
                        items=list(data.items))
    return sub, parse_categories("taxonomy-level:1", sub, load_taxonomy("groceries"))


@pytest.mark.parametrize("method", ["partswap", "fullswap"])
def test_partner_tendency_leaks_on_groceries(groceries, method):
    """The attack of issue 20 item 4: reading the items a target received beats the majority
    baseline by far more than the margin (0.819 / 0.727 vs 0.50 on the full data)."""
    data, cats = groceries
    func = anonymize_partswap if method == "partswap" else anonymize_fullswap
    rel = func(data, categories=cats, rng=0, unsafe_secret_seed=0)
    res = partner_tendency(data, rel, categories=cats, partners=rel.trace.pairs, truth=rel.link)
    assert not res.within_bound(), str(res)
    assert res.success > res.bound + 0.1
    assert res.details["row_found"] > 0.4


def test_random_swap_and_methods_without_partners(groceries):
    data, cats = groceries
    rel = anonymize_randswap(data, unsafe_secret_seed=0)
    res = partner_tendency(data, rel, categories=cats, partners=rel.trace.pairs, truth=rel.link)
    assert res.within_bound(), str(res)
    for rel in (anonymize_partsupp(data, categories=cats), anonymize_splitperson(data, categories=cats)):
        res = partner_tendency(data, rel, categories=cats, partners=(), truth=rel.link)
        assert res.n_targets == 0 and res.success == 0.0


def test_scoring_is_by_partner_share():
    """Two partners of different categories: whatever the guess, half right."""
    cats = ItemGroups({"A": ["a1", "a2"], "B": ["b1", "b2"], "C": ["c1", "c2"]})
    data = from_iterable([["a1", "a2"], ["b1", "b2"], ["c1", "c2"]])
    codes = category_codes(cats, data.items)
    assert dominating_categories(data.matrix, codes, 3).tolist() == [0, 1, 2]
    rel = anonymize_partsupp(data, categories=cats)  # rows unchanged: nothing received
    res = partner_tendency(data, rel, categories=cats, partners=[(0, 1), (0, 2)])
    assert res.n_targets == 3
    # mean partner shares: A 2/3 (records 1 and 2), B and C 1/6 each (record 0)
    assert res.success == 0.0 and res.details["baseline"] == pytest.approx(2 / 3)


def test_errors():
    table = load("nr_table1")
    rel = anonymize_cahd(table, l=2)
    cats = ItemGroups({"all": list(table.items)})
    with pytest.raises(ParameterError, match="perturbed"):
        partner_tendency(table, rel, categories=cats, partners=())
    data = from_iterable([["a"], ["b"]])
    cats = ItemGroups({"A": ["a"], "B": ["b"]})
    rel = anonymize_partsupp(data, categories=cats)
    with pytest.raises(ParameterError, match="pairs of record indices"):
        partner_tendency(data, rel, categories=cats, partners=[(0, 5)])
