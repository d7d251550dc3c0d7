"""graphanon.attacks: each attack agrees with a brute-force adversary, flags a
planted leak (rows in input order, ids kept, a seed that decides the secret),
and stays within its bound on a release whose rows are shuffled."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.attacks import (
    AttackResult,
    candidate_sets,
    chernoff_margin,
    known_items,
    label_inference,
    m_item_linkage,
    row_linkage,
    seed_recovery,
)
from graphanon.data import TransactionData, from_iterable
from graphanon.errors import GraphanonError, ParameterError
from graphanon.release import GlobalRecoding, NonreciprocalRelease
from graphanon.release.publish import publish
from tests.ebook_sessions import ebook_sessions


# ---------------------------------------------------------------- helpers
def reorder(release, perm, ids=None):
    """The same release with published row r showing old row perm[r]; ``ids``
    plants the old model's per-row record ids (a leak)."""
    perm = np.asarray(perm)
    labels = None if release.labels is None else [release.labels[p] for p in perm]
    if isinstance(release, GlobalRecoding):
        out = GlobalRecoding(
            published_items=release.published_items,
            records=release.records[perm],
            universe=release.universe,
            n_suppressed=release.n_suppressed,
            algorithm=release.algorithm,
            params=release.params,
            labels=labels,
        )
    else:
        out = NonreciprocalRelease(
            release.items,
            release.base[perm],
            release.distance[perm],
            release.threshold[perm],
            labels,
            algorithm=release.algorithm,
            params=release.params,
        )
    if ids is not None:
        out.record_ids = tuple(ids)
    return out


def leaky(release, original):
    """Planted leak: rows in input order (row i is record i's) with the input ids."""
    return reorder(release, release.link.row_of_record, original.record_ids), np.arange(
        original.n_records
    )


def reshuffled(release, seed):
    """Another secret shuffle of a published release (and its truth)."""
    n = release.n_records
    perm = np.random.default_rng(seed).permutation(n)
    return reorder(release, perm), np.argsort(perm)[release.link.row_of_record]


def without_labels(data):
    """The records an adversary may know (the k-only method does not read labels)."""
    return TransactionData(data.matrix.copy(), data.items, data.record_ids, None, data.name)


@pytest.fixture(scope="module")
def ebook():
    return ebook_sessions(800, 160, seed=3)


@pytest.fixture(scope="module")
def nr_k4(ebook):
    return anonymize_nonreciprocal(ebook, k=4, order="gray", rng=5, unsafe_secret_seed=8)


@pytest.fixture(scope="module")
def cahd_l3(ebook):
    return anonymize_cahd(ebook, l=3, unsafe_secret_seed=8)


# ---------------------------------------------------------------- the margin
def test_margin_is_a_valid_one_sided_bound():
    """Simulated means of Bernoulli(p) exceed p + margin at most 1 - confidence of the time."""
    rng = np.random.default_rng(0)
    for n, p in [(50, 0.2), (400, 0.05), (1000, 0.5)]:
        t = chernoff_margin(n, p, 0.99)
        means = rng.binomial(n, p, size=20000) / n
        assert (means > p + t).mean() <= 0.01
        assert t <= np.sqrt(np.log(100) / (2 * n)) + 1e-12  # never wider than Hoeffding
    assert (
        chernoff_margin(100, 0.2, 0.999)
        > chernoff_margin(1000, 0.2, 0.999)
        > chernoff_margin(10000, 0.2, 0.999)
    )


def test_margin_rejects_bad_confidence():
    with pytest.raises(ParameterError, match="confidence"):
        chernoff_margin(10, 0.2, 1.0)


def test_result_verdict_and_dict():
    r = AttackResult("x", 0.3, 0.2, "1/k", 100, 0.05, 0.999, {"a": 1})
    assert not r.within_bound()
    assert r.to_dict()["within_bound"] is False and "ABOVE BOUND" in str(r)
    assert AttackResult("x", 0.24, 0.2, "1/k", 100, 0.05, 0.999).within_bound()


# ---------------------------------------------------------------- candidates vs brute force
def brute_nr_candidates(original, release):
    """Possible worlds by enumeration: flips of at most `threshold` distance positions."""
    items = list(release.items)
    out = []
    for i in range(original.n_records):
        rec = frozenset(original.record(i))
        cands = set()
        for j in range(release.n_records):
            base = {
                items[c]
                for c in release.base.indices[release.base.indptr[j] : release.base.indptr[j + 1]]
            }
            dist = [
                items[c]
                for c in release.distance.indices[
                    release.distance.indptr[j] : release.distance.indptr[j + 1]
                ]
            ]
            for r in range(int(release.threshold[j]) + 1):
                if any(
                    frozenset(base.symmetric_difference(f)) == rec
                    for f in itertools.combinations(dist, r)
                ):
                    cands.add(j)
                    break
        out.append(cands)
    return out


def test_nonreciprocal_candidates_match_enumeration():
    rng = np.random.default_rng(1)
    for trial in range(4):
        recs = [sorted(set(rng.choice(6, size=rng.integers(0, 5)).tolist())) for _ in range(14)]
        data = from_iterable(
            [[f"i{x}" for x in r] for r in recs], items=[f"i{x}" for x in range(6)]
        )
        rel = anonymize_nonreciprocal(data, k=3, order="gray", rng=trial)
        C = candidate_sets(data, rel)
        brute = brute_nr_candidates(data, rel)
        t = np.arange(data.n_records)
        assert C.sizes(t).tolist() == [len(b) for b in brute]
        for j in range(data.n_records):
            assert C.contains(t, np.full(len(t), j)).tolist() == [j in b for b in brute]


def test_global_candidates_match_equality():
    rng = np.random.default_rng(2)
    recs = [sorted(set(rng.choice(5, size=rng.integers(0, 4)).tolist())) for _ in range(30)]
    items = ["i0", "i1", "i2", "i3", "i4"]
    data = from_iterable([[items[x] for x in r] for r in recs], items=items)
    recode = {"i0": "A", "i1": "A", "i2": "B", "i3": None, "i4": "B"}
    rel = GlobalRecoding.from_mapping(data, recode)
    C = candidate_sets(data, rel)
    pub = [rel.render_record(j) for j in range(30)]
    recoded = [" ".join(sorted({recode[items[x]] for x in r} - {None})) for r in recs]
    t = np.arange(30)
    assert C.sizes(t).tolist() == [sum(p == q for p in pub) for q in recoded]


# ---------------------------------------------------------------- m-item attack vs brute force
def brute_m_item(original, release, Q, truth):
    """Mean of 1/|candidates| by testing every row against every known-item set."""
    out = []
    for t in range(Q.shape[0]):
        known = [original.items[c] for c in Q.indices[Q.indptr[t] : Q.indptr[t + 1]]]
        if isinstance(release, GlobalRecoding):
            need = {release.published_index(x) for x in known} - {-1}
            ok = [
                need
                <= set(
                    release.records.indices[
                        release.records.indptr[j] : release.records.indptr[j + 1]
                    ]
                )
                for j in range(release.n_records)
            ]
        else:
            ok = []
            for j in range(release.n_records):
                b = set(release.base.indices[release.base.indptr[j] : release.base.indptr[j + 1]])
                d = set(
                    release.distance.indices[
                        release.distance.indptr[j] : release.distance.indptr[j + 1]
                    ]
                )
                cols = [release.items.index(x) for x in known]
                ok.append(
                    all(c in b or c in d for c in cols)
                    and sum(c in d and c not in b for c in cols) <= release.threshold[j]
                )
        out.append(1.0 / sum(ok) if ok[truth[t]] else 0.0)
    return float(np.mean(out))


@pytest.mark.parametrize("m", [1, 2, 3])
def test_m_item_attack_matches_brute_force(m):
    rng = np.random.default_rng(m)
    recs = [sorted(set(rng.choice(7, size=rng.integers(1, 5)).tolist())) for _ in range(24)]
    data = from_iterable([[f"i{x}" for x in r] for r in recs], items=[f"i{x}" for x in range(7)])
    nr = anonymize_nonreciprocal(data, k=3, order="gray", rng=0, unsafe_secret_seed=m)
    gr = publish(
        data,
        GlobalRecoding.from_mapping(
            data,
            {"i0": "A", "i1": "A", "i2": "B", "i3": "B", "i4": None, "i5": "i5", "i6": "i6"},
            params={"k": 2},
        ),
        unsafe_secret_seed=m,
    )
    for rel in (nr, gr):
        truth = rel.link.row_of_record
        res = m_item_linkage(data, rel, truth=truth, m=m, rng=11)
        Q = known_items(data.matrix, np.arange(24), m, rng=11)
        assert res.success == pytest.approx(brute_m_item(data, rel, Q, truth))


def test_m_item_attack_flags_a_release_that_is_not_km():
    data = from_iterable([["a", "b"], ["a", "c"], ["b", "c"], ["a", "b"]])
    rel = GlobalRecoding.from_mapping(data, {"a": "a", "b": "b", "c": "c"}, params={"k": 2})
    res = m_item_linkage(data, rel, truth=np.arange(4), m=2, rng=0)
    assert res.details["share_below_k"] == 0.5  # the records holding c are unique
    assert res.success == pytest.approx((0.5 + 1 + 1 + 0.5) / 4)


# ---------------------------------------------------------------- planted leaks are flagged
@pytest.mark.parametrize("strategy", ["position", "id"])
def test_row_linkage_flags_rows_in_input_order(ebook, nr_k4, cahd_l3, strategy):
    for rel in (nr_k4, cahd_l3):
        bad, truth = leaky(rel, ebook)
        res = row_linkage(ebook, bad, truth=truth, strategy=strategy)
        assert res.success == 1.0 and not res.within_bound(), res


@pytest.mark.parametrize("strategy", ["position", "id"])
def test_label_inference_flags_labels_in_input_order(ebook, nr_k4, cahd_l3, strategy):
    for rel in (nr_k4, cahd_l3):
        bad, _ = leaky(rel, ebook)
        res = label_inference(ebook, bad, strategy=strategy)
        assert res.success == 1.0 and not res.within_bound(), res


def test_label_bounds_are_one_over_l_or_the_link_free_reference(ebook, nr_k4, cahd_l3):
    res = label_inference(ebook, cahd_l3)
    assert res.bound == pytest.approx(1 / 3) and res.bound_kind == "1/l"
    res = label_inference(ebook, nr_k4)
    assert res.bound_kind.startswith("reference") and res.bound == res.details["link_free"]
    assert res.bound >= res.details["majority_success"] == res.success
    assert 1 / 6 < res.bound < 1


def test_global_recoding_leak_is_flagged_against_the_baseline():
    data = ebook_sessions(600, 120, seed=4)
    mapping = {x: f"g{int(x[1:]) % 12}" for x in data.items}
    aligned = GlobalRecoding.from_mapping(data, mapping)  # row i is record i: the leak
    res = row_linkage(data, aligned, truth=np.arange(600))
    assert res.bound_kind.startswith("baseline") and res.success == 1.0 and not res.within_bound()
    assert label_inference(data, aligned, strategy="position").success == 1.0
    good = publish(data, GlobalRecoding.from_mapping(data, mapping), unsafe_secret_seed=0)
    for strategy in ("position", "id"):
        assert row_linkage(data, good, truth=good.link, strategy=strategy).within_bound()
    assert label_inference(data, good, strategy="position").within_bound()


def test_seed_recovery_flags_a_seed_that_decides_the_assignment():
    data = without_labels(ebook_sessions(200, 60, seed=5))

    def seeded_secret(d, seed):  # the model before graphanon's: the seed decides everything
        return anonymize_nonreciprocal(d, k=3, order="gray", rng=seed, unsafe_secret_seed=seed)

    published = seeded_secret(data, 4)
    res = seed_recovery(data, published, seeded_secret, range(6), truth=published.link, draws=2)
    assert res.details["identical"] == [4]
    assert res.details["chance_of_exact_reproduction"] < 1e-100
    assert res.success == 1.0 and not res.within_bound()


def test_seed_recovery_finds_only_the_structure_when_the_secret_is_secret():
    data = without_labels(ebook_sessions(200, 60, seed=5))
    fresh = itertools.count(1000)  # the adversary's re-runs draw other secrets (fixed for the test)

    def structure_seed(d, seed):
        return anonymize_nonreciprocal(
            d, k=3, order="gray", rng=seed, unsafe_secret_seed=next(fresh)
        )

    published = anonymize_nonreciprocal(data, k=3, order="gray", rng=4, unsafe_secret_seed=1)
    res = seed_recovery(data, published, structure_seed, [3, 4], truth=published.link, draws=6)
    assert 4 in res.details["recognized"] and res.details["identical"] == []
    assert len(res.details["per_draw"]) >= 6
    assert res.within_bound(), res


# ---------------------------------------------------------------- shuffled releases respect the bounds
def test_published_releases_respect_every_bound(ebook, nr_k4, cahd_l3):
    for rel in (nr_k4, cahd_l3):
        for good, truth in [(rel, rel.link.row_of_record), reshuffled(rel, 1)]:
            C = candidate_sets(ebook, good)
            results = [
                row_linkage(ebook, good, truth=truth, strategy=s, candidates=C)
                for s in ("position", "id")
            ]
            results += [
                label_inference(ebook, good, strategy=s, candidates=C)
                for s in ("candidates", "position", "id")
            ]
            results.append(m_item_linkage(ebook, good, truth=truth, m=2, rng=0))
            for res in results:
                assert res.within_bound(), res
            assert results[1].details["exposed"] == 0.0  # pseudonyms name no record


# ---------------------------------------------------------------- errors
def test_attack_errors_are_graphanon_errors(ebook, nr_k4):
    with pytest.raises(ParameterError, match="truth"):
        row_linkage(ebook, nr_k4, truth=None)
    with pytest.raises(ParameterError, match="one-to-one"):
        row_linkage(ebook, nr_k4, truth=np.zeros(ebook.n_records, dtype=int))
    with pytest.raises(ParameterError, match="strategy"):
        row_linkage(ebook, nr_k4, truth=np.arange(ebook.n_records), strategy="guess")
    with pytest.raises(ParameterError, match="sensitive labels"):
        label_inference(without_labels(ebook), nr_k4)
    with pytest.raises(ParameterError, match="records"):
        row_linkage(ebook.subset(np.arange(10)), nr_k4, truth=np.arange(10))
    with pytest.raises(GraphanonError, match="m "):
        m_item_linkage(ebook, nr_k4, truth=np.arange(ebook.n_records), m=0)
    with pytest.raises(ParameterError, match="draws"):
        seed_recovery(
            ebook, nr_k4, lambda d, s: nr_k4, [0], truth=np.arange(ebook.n_records), draws=0
        )
    X = sp.csr_array(np.eye(3, dtype=bool))
    assert known_items(X, np.arange(3), 5, rng=0).nnz == 3
