"""Every release kind respects every attack's bound (issue 10, "Must show").

Global recodings (cut, AA, mHgHs, MM, COAT) and nonreciprocal releases (nr
with k, nr with l, CAHD) are made on bundled data (chess, mushroom and
groceries subsamples, nr_table1) and on e-book-like sessions, published by
graphanon's model (secret shuffle, pseudonyms; a fixed unsafe secret seed
keeps the test deterministic), and attacked. Each release is also un-shuffled
into a planted leak that the attacks must flag, so a passing bound is not an
attack that cannot fail.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from graphanon.algorithms.coat import anonymize_coat
from graphanon.algorithms.coat.policies import km_policy
from graphanon.algorithms.hierarchy.aa import anonymize_aa
from graphanon.algorithms.hierarchy.cut import anonymize_cut
from graphanon.algorithms.hierarchy.hghs import anonymize_mhghs
from graphanon.algorithms.hierarchy.mm import anonymize_mm
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.attacks import (
    candidate_sets,
    label_inference,
    m_item_linkage,
    row_linkage,
    seed_recovery,
)
from graphanon.data import TransactionData
from graphanon.datasets import load, load_taxonomy
from graphanon.taxonomy import Taxonomy
from tests.attacks.test_attacks import leaky
from tests.conftest import skewed_labels
from tests.ebook_sessions import ebook_sessions

SECRET = 20261123  # unsafe_secret_seed: a fixed secret keeps the test deterministic
DATASETS = ["chess", "mushroom", "groceries", "nr_table1", "ebook"]
METHODS = ["cut", "aa", "mhghs", "mm", "coat", "nr-k", "nr-l", "cahd"]


@functools.cache
def dataset(name):
    """(data with labels, taxonomy, k)."""
    if name == "ebook":
        data = ebook_sessions(600, 120, seed=7)
        return data, Taxonomy.balanced(data.items, 5), 5
    data = load(name)
    if data.n_records > 600:
        rows = np.sort(np.random.default_rng(1).choice(data.n_records, 600, replace=False))
        data = data.subset(rows)
    if data.labels is None:
        data = TransactionData(
            data.matrix.copy(), data.items, data.record_ids, skewed_labels(data.n_records)
        )
    if name == "groceries":
        tax = load_taxonomy("groceries")
    else:
        tax = Taxonomy.balanced(data.items, 2 if name == "nr_table1" else 5)
    return data, tax, 2 if name == "nr_table1" else 5


def anonymize(method, data, tax, k, secret=SECRET, order="gray-tsp"):
    m, s = 2, {"unsafe_secret_seed": secret}
    if method == "cut":
        return anonymize_cut(data, taxonomy=tax, level=1, **s)
    if method == "aa":
        return anonymize_aa(data, taxonomy=tax, k=k, m=m, **s)
    if method == "mhghs":
        return anonymize_mhghs(data, taxonomy=tax, k=k, m=m, **s)
    if method == "mm":
        return anonymize_mm(data, k=k, m=m, **s)
    if method == "coat":
        return anonymize_coat(data, privacy=km_policy(m), utility=None, k=k, s=1.0, **s)
    if method == "nr-k":
        return anonymize_nonreciprocal(data, k=k, rng=0, order=order, **s)
    if method == "nr-l":
        return anonymize_nonreciprocal(data, l=3, rng=0, order=order, **s)
    return anonymize_cahd(data, l=3, **s)


@functools.cache
def release(name, method):
    data, tax, k = dataset(name)
    return anonymize(method, data, tax, k)


def all_attacks(data, rel, truth, k=None):
    C = candidate_sets(data, rel)
    out = [
        row_linkage(data, rel, truth=truth, strategy=s, candidates=C) for s in ("position", "id")
    ]
    out += [
        label_inference(data, rel, strategy=s, candidates=C)
        for s in ("candidates", "position", "id")
    ]
    out.append(m_item_linkage(data, rel, truth=truth, m=2, k=k, rng=0))
    return out


@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("method", METHODS)
def test_release_respects_every_bound_and_its_leak_is_flagged(name, method):
    data, _tax, k = dataset(name)
    rel = release(name, method)
    assert rel.labels is not None
    level = k if method == "cut" else None  # the others publish their k (or l)
    results = all_attacks(data, rel, rel.link, level)
    for res in results:
        assert res.within_bound(), res
    row_pos, row_id, lab_cand, lab_pos, lab_id, mitem = results
    assert row_id.details["exposed"] == 0.0  # pseudonyms name no record
    if method in ("nr-k", "nr-l", "cahd"):
        assert (
            row_pos.bound_kind == "1/k"
            and row_pos.details["min_candidates"] >= row_pos.details["k"]
        )
        assert mitem.details["share_below_k"] == 0.0
    if method in ("aa", "mhghs", "mm", "coat"):
        assert mitem.details["share_below_k"] == 0.0  # k^2-anonymous: >= k candidates for 2 items
    if method in ("nr-l", "cahd"):
        assert lab_cand.bound_kind == "1/l" and lab_cand.details["min_distinct"] >= 3
    # The same release with its rows put back in input order, ids planted: flagged whenever
    # the release hides anything at all (a bound of 1 leaves nothing to leak).
    bad, truth = leaky(rel, data)
    for res in all_attacks(data, bad, truth, level)[:2]:
        assert res.success == 1.0
        assert res.within_bound() == (res.bound + res.margin >= 1.0), res
    if method in ("nr-k", "cahd"):  # labels travel with the rows
        res = label_inference(data, bad, strategy="position")
        assert res.success == 1.0
        assert res.within_bound() == (res.bound + res.margin >= 1.0), res


@pytest.mark.parametrize("method", ["mhghs", "cahd", "nr-k", "nr-l"])
def test_seed_recovery_gains_nothing_against_a_secret_shuffle(method):
    data, tax, k = dataset("ebook")
    # order="gray": the Gray-TSP order is not yet reproducible from the seed (solver time limit)
    published = anonymize(method, data, tax, k, order="gray")
    fresh = iter(range(1, 100))

    def rerun(d, seed):  # structure seed 0 (nr) or none; each re-run draws a new secret
        return anonymize(method, d, tax, k, secret=next(fresh), order="gray")

    res = seed_recovery(data, published, rerun, [0], truth=published.link, draws=6)
    # cahd draws its groups' members in secret (grouping=random): a re-run does not even give the structure back
    assert res.details["recognized"] == ([] if method == "cahd" else [0]) and res.details["identical"] == []
    assert res.within_bound(), res
