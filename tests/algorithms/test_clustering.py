"""Clump and Partition: worked examples, audits on every release, release format, metrics."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms import anonymize_clump, anonymize_partition
from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ParameterError, TaxonomyError
from graphanon.graphs.lcg import NodeIndex, ggd_fraction
from graphanon.metrics import ggd_total, ncp_he_naughton, ncp_lm
from graphanon.metrics.clustering import ggd_per_record
from graphanon.privacy import KmAnonymity, TransactionalKAnonymity
from graphanon.release import LocalRecoding, Release
from graphanon.taxonomy import Taxonomy

METHODS = [anonymize_clump, anonymize_partition]


@pytest.fixture
def table2():
    tax = Taxonomy.from_parent_map({"a1": "A", "a2": "A", "b1": "B", "b2": "B", "A": "ALL", "B": "ALL"})
    data = from_iterable(
        [["a1"], ["a1", "a2"], ["b1", "b2"], ["b1", "b2"], ["a1", "a2", "b2"], ["a1", "a2", "b2"], ["a1", "a2", "b1", "b2"]]
    )
    return data, tax


def own_rows(rel, n):
    return [rel.render_record(int(rel.link.row_of_record[i])) for i in range(n)]


def test_partition_table2(table2):
    data, tax = table2
    rel = anonymize_partition(data, taxonomy=tax, k=2, unsafe_secret_seed=3)
    assert own_rows(rel, 7) == ["A", "A", "b1 b2", "b1 b2", "a1 a2 B", "a1 a2 B", "a1 a2 B"]
    # He & Naughton NCP by hand: T1 1/2, T2 2*1/2, T5 1/2, T6 1/2, T7 2*1/2 over 17 occurrences
    assert rel.params["ncp_hn"] == pytest.approx(3.5 / 17)
    assert ncp_he_naughton(data, rel) == pytest.approx(3.5 / 17)
    # LM = (2-1)/(4-1) = 1/3 per generalized occurrence
    assert ncp_lm(data, rel) == pytest.approx(7 / 3 / 17)
    assert rel.reading == "some" and rel.trace.groups == 3
    assert TransactionalKAnonymity(2).audit(data, rel).satisfied
    assert KmAnonymity(2, 2).audit(data, rel).satisfied and KmAnonymity(2, None).audit(data, rel).satisfied
    assert not TransactionalKAnonymity(4).audit(data, rel).satisfied  # groups of 2 and 3


def test_partition_picks_the_larger_gain(table2):
    """T5-T7 alone: expanding A gains 3/17 > 2/17 for B, and only the A split survives k=3."""
    data, tax = table2
    sub = data.subset([4, 5, 6])
    rel = anonymize_partition(sub, taxonomy=tax, k=3, unsafe_secret_seed=0)
    assert set(own_rows(rel, 3)) == {"a1 a2 B"}


def test_clump_golden_group_costs():
    data, tax = load("clump_food"), load_taxonomy("clump_food")
    rel = anonymize_clump(data, taxonomy=tax, k=2, unsafe_secret_seed=1)
    assert TransactionalKAnonymity(2).audit(data, rel).satisfied
    assert KmAnonymity(2, 2).audit(data, rel).satisfied and KmAnonymity(2, None).audit(data, rel).satisfied
    idx = NodeIndex(tax, data.items)
    groups = _groups_by_record(rel)
    expected = sum(ggd_fraction(idx, data, g) for g in groups)
    assert rel.params["ggd"] == pytest.approx(float(expected))
    assert ggd_total(data, rel) == pytest.approx(float(expected))
    assert ggd_per_record(data, rel).sum() == pytest.approx(float(expected))


def _groups_by_record(rel):
    gid = rel.group_ids()
    rec = np.asarray(rel.link.record_of_row)
    return [sorted(rec[gid == g].tolist()) for g in np.unique(gid)]


@pytest.mark.parametrize("method", METHODS)
def test_k_larger_than_n_is_an_error(method, table2):
    data, tax = table2
    with pytest.raises(ParameterError, match="exceeds the number of records"):
        method(data, taxonomy=tax, k=8)


@pytest.mark.parametrize("method", METHODS)
def test_items_outside_the_taxonomy(method, table2):
    _, tax = table2
    with pytest.raises(TaxonomyError, match="not leaves"):
        method(from_iterable([["a1", "zz"], ["a1"]]), taxonomy=tax, k=1)


@pytest.mark.parametrize("method", METHODS)
def test_release_round_trip_and_no_ids(method, table2, tmp_path):
    data, tax = table2
    rel = method(data, taxonomy=tax, k=2, unsafe_secret_seed=5)
    path = tmp_path / "rel.json"
    rel.save(path)
    text = path.read_text()
    assert "T1" not in text and "record_ids" not in text and "seed" not in text
    back = Release.from_dict(rel.to_dict())
    assert isinstance(back, LocalRecoding) and back.to_text() == rel.to_text()
    assert back.reading == rel.reading and back.fingerprint == rel.fingerprint
    # the file-only audit (no link) agrees
    assert TransactionalKAnonymity(2).audit(data, back).satisfied
    other = method(data, taxonomy=tax, k=2, unsafe_secret_seed=6)
    assert sorted(other.to_text().split("\n")) != [] and other.link is not None


@pytest.mark.parametrize("method", METHODS)
def test_match_counts_cover_the_group(method, table2):
    data, tax = table2
    rel = method(data, taxonomy=tax, k=2, unsafe_secret_seed=0)
    gid = rel.group_ids()
    size = np.bincount(gid)
    counts = rel.match_counts(data)
    own_size = size[gid[np.asarray(rel.link.row_of_record)]]
    assert np.all(counts >= own_size)
    g = rel.match_graph(data)
    assert g.number_of_edges() == counts.sum()


def test_file_only_audit_and_bms1_speed():
    """Full bms1, k=10: audits pass with and without the private link; match counts >= 10."""
    data = load("bms1")
    tax = Taxonomy.balanced(data.items, 5)
    rel = anonymize_partition(data, taxonomy=tax, k=10, unsafe_secret_seed=0)
    assert TransactionalKAnonymity(10).audit(data, rel).satisfied
    back = Release.from_dict(rel.to_dict())
    assert back.link is None and TransactionalKAnonymity(10).audit(data, back).satisfied
    assert rel.match_counts(data).min() >= 10


@pytest.mark.parametrize("method", METHODS)
def test_file_does_not_reveal_items_suppressed_everywhere(method):
    """A published node lists the taxonomy's leaves, not the data's items."""
    tax = load_taxonomy("clump_food")
    with_butter = from_iterable([["Orange", "Beef"], ["Apple", "Beef", "Butter"]] * 2)
    without = from_iterable([["Orange", "Beef"], ["Apple", "Beef"]] * 2)
    a = method(with_butter, taxonomy=tax, k=4, unsafe_secret_seed=0)
    for node in a.to_dict()["nodes"]:
        assert node["members"] == tax.leaves_under(node["label"])
    if method is anonymize_clump:  # Butter is suppressed in every record: same file as without it
        b = method(without, taxonomy=tax, k=4, unsafe_secret_seed=0)
        assert a.to_dict()["nodes"] == b.to_dict()["nodes"] and a.to_text() == b.to_text()
        assert "Butter" not in a.to_text()


def test_audit_catches_a_tampered_release(table2):
    data, tax = table2
    rel = anonymize_partition(data, taxonomy=tax, k=2, unsafe_secret_seed=0)
    doc = rel.to_dict()
    doc["records"][0] = doc["records"][0][:1] if len(doc["records"][0]) > 1 else doc["records"][0] + [0]
    bad = Release.from_dict(doc)
    rep = TransactionalKAnonymity(2).audit(data, bad)
    assert not rep.satisfied and rep.violations >= 1


def test_estimates_exact_for_ungeneralized_release(table2):
    data, tax = table2
    rel = anonymize_clump(data, taxonomy=tax, k=1, unsafe_secret_seed=0)
    assert rel.estimate_count(["a1", "a2"]) == pytest.approx(4)
    assert rel.estimate_count(["b1"], ["a1"]) == pytest.approx(2)
    part = anonymize_partition(data, taxonomy=tax, k=2, unsafe_secret_seed=0)
    # single-item counts are exact in expectation under the model: a1 in T1,T2 (A: P=2/3 each) + 3 exact
    assert part.estimate_count(["a1"]) == pytest.approx(3 + 2 * 2 / 3)


@pytest.mark.parametrize("method", METHODS)
def test_bundled_real_data_pass_both_audits(method):
    groceries = load("groceries").subset(np.arange(1200))
    mush = load("mushroom").subset(np.arange(800))
    cases = [
        (groceries.drop_unused_items(), load_taxonomy("groceries")),
        (mush, Taxonomy.balanced(mush.items, 5)),
    ]
    for data, tax in cases:
        for k in (2, 7):
            rel = method(data, taxonomy=tax, k=k, unsafe_secret_seed=0)
            assert TransactionalKAnonymity(k).audit(data, rel).satisfied
            assert KmAnonymity(k, 2).audit(data, rel).satisfied
            assert ggd_total(data, rel) == pytest.approx(rel.params.get("ggd", rel.params["ncp_taxonomy"] * data.matrix.nnz))


@st.composite
def instances(draw):
    n_items = draw(st.integers(1, 8))
    items = [f"i{j}" for j in range(n_items)]
    n_rec = draw(st.integers(1, 16))
    records = [draw(st.lists(st.sampled_from(items), max_size=min(5, n_items), unique=True)) for _ in range(n_rec)]
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    n_int = draw(st.integers(1, 4))
    parent = {f"N{i}": f"N{int(rng.integers(0, i))}" for i in range(1, n_int)}
    for x in items:
        parent[x] = f"N{int(rng.integers(0, n_int))}"
    k = draw(st.integers(1, n_rec))
    return from_iterable(records, items=items), Taxonomy.from_parent_map(parent), k


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_every_release_passes_the_audits(inst):
    data, tax, k = inst
    idx = NodeIndex(tax, data.items)
    for method in METHODS:
        rel = method(data, taxonomy=tax, k=k, unsafe_secret_seed=0)
        rep = TransactionalKAnonymity(k).audit(data, rel)
        assert rep.satisfied, (method.__name__, str(rep))
        assert KmAnonymity(k, 2).audit(data, rel).satisfied
        groups = _groups_by_record(rel)
        assert all(len(g) >= k for g in groups)
        exact = sum(ggd_fraction(idx, data, g) for g in groups)
        assert rel.params["ggd_lcg"] == pytest.approx(float(exact), abs=1e-9)
        if method is anonymize_clump:
            assert ggd_total(data, rel) == pytest.approx(float(exact), abs=1e-9)
        assert 0 <= ncp_he_naughton(data, rel) <= 1 + 1e-12
        assert isinstance(exact, Fraction | int)
