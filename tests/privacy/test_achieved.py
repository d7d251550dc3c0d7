"""graphanon.privacy.achieved and `graphanon report`: what a dataset or release actually has.

The reported largest k is checked against the independent audits (satisfied at k,
violated at k + 1) and the risk distribution against brute-force enumeration."""

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.grouping.partition import anonymize_partition
from graphanon.algorithms.hierarchy.hghs import anonymize_mhghs
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.swapping import anonymize_randswap
from graphanon.data import TransactionData, from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ParameterError
from graphanon.privacy import KmAnonymity, TransactionalKAnonymity
from graphanon.privacy.achieved import achieved_privacy, rarest_supports
from graphanon.privacy.match_graph import nonreciprocal_matches
from graphanon.privacy.nonreciprocal import LDiversity
from graphanon.release import GlobalRecoding
from graphanon.taxonomy import Taxonomy
from tests.conftest import cli

from ..conftest import brute_support, small_records


def identity(data):
    return GlobalRecoding.from_mapping(data, {x: x for x in data.items})


def brute_rarest(records, m):
    """Smallest support of a non-empty subset of at most m items of each record (n for empty records)."""
    out = []
    for r in records:
        if not r:
            out.append(len(records))
            continue
        top = len(r) if m is None else min(m, len(r))
        out.append(min(brute_support(records, c) for size in range(1, top + 1)
                       for c in itertools.combinations(r, size)))
    return np.array(out)


@settings(max_examples=80, deadline=None)
@given(small_records(max_records=30, max_items=7), st.one_of(st.none(), st.integers(1, 4)))
def test_rarest_supports_match_brute_force(records, m):
    data = from_iterable(records)
    got, _ = rarest_supports(data.matrix, m)
    recs = [sorted(data.record(i)) for i in range(data.n_records)]
    assert got.tolist() == brute_rarest(recs, m).tolist()
    if m is not None:  # the most exposed itemsets: true supports, rarest first, none holds an earlier one
        rep = achieved_privacy(data, ms=(m,), unbounded=False, top=5)
        shown = [(set(e["itemset"]), e["support"]) for e in rep.exposed]
        assert all(sup == brute_support(recs, items) for items, sup in shown)
        assert [sup for _, sup in shown] == sorted(sup for _, sup in shown)
        assert not any(shown[i][0] <= shown[j][0] for i, j in itertools.combinations(range(len(shown)), 2))
        if shown:
            assert shown[0][1] == rep.largest_k[m] or any(not r for r in recs)


@settings(max_examples=60, deadline=None)
@given(small_records(max_records=30, max_items=7), st.lists(st.integers(1, 12), min_size=1, max_size=4))
def test_risk_distribution_and_prosecutor_risk_match_brute_force(records, grid):
    data = from_iterable(records)
    recs = [sorted(data.record(i)) for i in range(data.n_records)]
    rep = achieved_privacy(data, k_grid=grid)
    n = data.n_records
    for m in (1, 2, 3, None):
        key = "inf" if m is None else m
        rarest = brute_rarest(recs, m)
        for k in sorted(set(grid)):
            # at risk: some <= m of its items are shared by fewer than k records
            at = sum(any(0 < brute_support(recs, c) < k for size in range(1, (len(r) if m is None else m) + 1)
                         for c in itertools.combinations(r, size)) for r in recs)
            row = next(x for x in rep.risk if x["m"] == key and x["k"] == k)
            assert row["records_at_risk"] == at and row["share"] == pytest.approx(at / n)
        assert rep.rarest[key].tolist() == rarest.tolist()
        assert rep.prosecutor[key]["mean"] == pytest.approx(float(np.mean(1.0 / rarest)))
        assert rep.prosecutor[key]["max"] == pytest.approx(float(np.max(1.0 / rarest)))


@settings(max_examples=60, deadline=None)
@given(small_records(max_records=25, max_items=6, min_records=2))
def test_largest_k_is_where_the_audits_flip(records):
    data = from_iterable(records)
    rel = identity(data)
    rep = achieved_privacy(data)
    n = data.n_records
    for key, m in ((1, 1), (2, 2), (3, 3), ("inf", None)):
        k = rep.largest_k[key]
        assert 1 <= k <= n
        assert KmAnonymity(k, m).audit(data, rel).satisfied
        if k < n:
            assert not KmAnonymity(k + 1, m).audit(data, rel).satisfied
    k = rep.transactional_k
    assert TransactionalKAnonymity(k).audit(data, rel).satisfied
    if k < n:
        assert not TransactionalKAnonymity(k + 1).audit(data, rel).satisfied


def test_bms1_report_agrees_with_the_audits():
    data = load("bms1")
    rel = identity(data)
    rep = achieved_privacy(data)  # all of bms1: the m-subsets of its records are looked up in many blocks
    # bms1 has items of support 1, so k = 1 for every m: the audit at m = 1 says so, and a record
    # holding an item of support 1 violates 2^m-anonymity at every m, unbounded too (its 1-subsets
    # are among its m-subsets; no other record contains it). Auditing m = 2, 3 and unbounded on all
    # of bms1 as well (8 s of CPU) would check nothing more; releases whose k differs with m are
    # checked against the audit at every m below.
    assert rep.largest_k == {1: 1, 2: 1, 3: 1, "inf": 1}
    assert KmAnonymity(1, 1).audit(data, rel).satisfied
    assert not KmAnonymity(2, 1).audit(data, rel).satisfied
    # m = 1: a record is at risk at k = 2 exactly when it holds an item of support 1
    unique_items = np.flatnonzero(np.asarray(data.matrix.sum(axis=0)).ravel() == 1)
    holders = np.unique(data.matrix[:, unique_items].tocoo().row)
    row = next(x for x in rep.risk if x["m"] == 1 and x["k"] == 2)
    assert row["records_at_risk"] == len(holders) > 0


def test_a_release_reads_like_raw_data_of_its_published_records():
    # The report of the identity recoding equals the report of the data: the same published records.
    data = load("liuwang_fig1")
    a, b = achieved_privacy(data).to_dict(), achieved_privacy(data, identity(data)).to_dict()
    a.pop("kind"), b.pop("kind")
    assert a == b


def test_empty_records_hide_among_all_records():
    data = from_iterable([["a"], [], ["a", "b"], ["a", "b"]])
    rarest, _ = rarest_supports(data.matrix, 2)
    assert rarest.tolist() == [3, 4, 2, 2]
    rep = achieved_privacy(data)
    assert rep.largest_k[2] == 2 and rep.transactional_k == 1  # ['a'] and [] are alone


def _subset(name, n, seed=1):
    data = load(name)
    rows = np.sort(np.random.default_rng(seed).choice(data.n_records, n, replace=False))
    return data.subset(rows)


@pytest.mark.parametrize("name", ["bms1", "groceries"])
def test_mhghs_release_report_agrees_with_the_audit(name):
    data = _subset(name, 1500)
    tax = load_taxonomy("groceries") if name == "groceries" else Taxonomy.balanced(data.items, 5)
    rel = anonymize_mhghs(data, taxonomy=tax, k=5, m=2, unsafe_secret_seed=3)
    rep = achieved_privacy(data, rel)
    assert rep.largest_k[2] >= 5  # what mHgHs promises
    for key, m in ((1, 1), (2, 2), (3, 3)):
        k = rep.largest_k[key]
        assert KmAnonymity(k, m).audit(data, rel).satisfied
        assert not KmAnonymity(k + 1, m).audit(data, rel).satisfied
    exposed = rep.exposed[0]
    index = {pi.label: j for j, pi in enumerate(rel.published_items)}
    cols = [index[x] for x in exposed["itemset"]]
    assert int(rel.records[:, cols].toarray().all(axis=1).sum()) == exposed["support"] == rep.largest_k[3]


def test_local_recoding_report_agrees_with_the_audits():
    data = _subset("bms1", 1500)
    rel = anonymize_partition(data, taxonomy=Taxonomy.balanced(data.items, 5), k=5, unsafe_secret_seed=2)
    rep = achieved_privacy(data, rel)
    assert rep.transactional_k >= 5
    for key, m in ((1, 1), (2, 2), (3, 3), ("inf", None)):
        k = rep.largest_k[key]
        assert KmAnonymity(k, m).audit(data, rel).satisfied
        assert not KmAnonymity(k + 1, m).audit(data, rel).satisfied
    k = rep.transactional_k
    assert TransactionalKAnonymity(k).audit(data, rel).satisfied
    assert not TransactionalKAnonymity(k + 1).audit(data, rel).satisfied


def test_perturbed_release_is_read_as_its_published_records():
    data = _subset("groceries", 400)
    rel = anonymize_randswap(data, unsafe_secret_seed=0)
    published = TransactionData(rel.records, rel.items, tuple(range(rel.records.shape[0])))
    a, b = achieved_privacy(data, rel).to_dict(), achieved_privacy(published).to_dict()
    assert a.pop("kind") == "PerturbedRelease" and a.pop("notes") and b.pop("notes") == []
    b.pop("kind")
    assert a == b


def test_labels_give_distinct_and_entropy_l():
    base = from_iterable([["a"], ["a"], ["a"], ["b"], ["b"]])
    data = TransactionData(base.matrix, base.items, base.record_ids, ["x", "y", "y", "x", "x"])
    rep = achieved_privacy(data)
    # groups: {a: x, y, y} -> 2 distinct, entropy of (1/3, 2/3); {b: x, x} -> 1 distinct, entropy 0
    assert rep.l_diversity["distinct_l"] == 1
    assert rep.l_diversity["entropy_l"] == pytest.approx(1.0)


def test_nonreciprocal_k_is_the_fewest_matches():
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, k=2, order="identity", rng=0)
    rep = achieved_privacy(data, rel)
    orig, _, _ = nonreciprocal_matches(data, rel)
    assert rep.nonreciprocal["k"] == int(np.bincount(orig, minlength=data.n_records).min()) >= 2
    assert rep.largest_k == {} and rep.risk == []
    assert "distinct_l" not in rep.nonreciprocal or rep.nonreciprocal["distinct_l"] >= 1


def test_nonreciprocal_l_agrees_with_the_l_diversity_audit():
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, l=3, order="identity", rng=0)
    nr = achieved_privacy(data, rel).nonreciprocal
    assert nr["distinct_l"] == 3 and 1.0 <= nr["entropy_l"] <= 3.0
    assert LDiversity(3).audit(data, rel).satisfied and not LDiversity(4).audit(data, rel).satisfied


def test_bad_parameters():
    data = load("liuwang_fig1")
    with pytest.raises(ParameterError):
        achieved_privacy(data, ms=(0,))
    with pytest.raises(ParameterError):
        achieved_privacy(data, k_grid=(0, 2))


def test_cli_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = cli("report", "liuwang_fig1", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc == json.loads(json.dumps(achieved_privacy(load("liuwang_fig1")).to_dict()))
    res = cli("anonymize", "liuwang_fig1", "-a", "mhghs", "-k", "2", "-m", "2", "-o", "r.json")
    assert res.exit_code == 0, res.output
    res = cli("report", "liuwang_fig1", "r.json")
    assert res.exit_code == 0 and "largest k" in res.stdout and "k=100" in res.stdout
    res = cli("anonymize", "nr_table1", "-a", "nr", "-k", "2", "-o", "nr.json")
    assert res.exit_code == 0, res.output
    res = cli("report", "nr_table1", "nr.json", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["nonreciprocal"]["k"] >= 2
    res = cli("report", "nr_table1", "nr.json")
    assert res.exit_code == 0 and "nonreciprocal release" in res.stdout
    for bad in (["report", "nosuch"], ["report", "liuwang_fig1", "-m", "0"], ["report", "liuwang_fig1", "--k-grid", "a"],
                ["report", "bms1", "r.json"]):
        res = cli(*bad)
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("graphanon: error:"), (bad, res.output)
