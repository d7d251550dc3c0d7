"""Issue 20, item 6: broken releases the audits used to accept, re-made on tiny data and rejected.

Each exact check is compared with brute force (every permutation of records
to rows, n <= 6) on small random data, and each broken release is planted so
that it passes the weaker checks that were there before (label multiset,
degrees, "every record fits some row").
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from graphanon.algorithms.grouping.clump import anonymize_clump
from graphanon.algorithms.grouping.partition import anonymize_partition
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.data import TransactionData, from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import DataMismatchError, GraphanonError
from graphanon.privacy.consistency import recoding_mismatches
from graphanon.privacy.constraints import PrivacyConstraints
from graphanon.privacy.hkp import HKPCoherence
from graphanon.privacy.km import KmAnonymity, TransactionalKAnonymity
from graphanon.privacy.label_matching import label_preserving_assignment, labels_follow_link
from graphanon.privacy.local import local_recoding_mismatches
from graphanon.privacy.match_graph import match_classes
from graphanon.privacy.nonreciprocal import LDiversity, NonreciprocalKAnonymity
from graphanon.release import GlobalRecoding, ReleaseLink
from graphanon.release.local_recoding import LocalRecoding, PublishedNode
from graphanon.release.private_link import attach_link

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def max_placed(n: int, allowed) -> int:
    """Brute force: the most records any bijection records -> rows places on an allowed pair."""
    return int(max(sum(bool(allowed(i, p[i])) for i in range(n)) for p in itertools.permutations(range(n))))


def perfect_exists(n: int, allowed) -> bool:
    """Brute force by backtracking: some bijection records -> rows uses only allowed pairs."""
    used = [False] * n

    def place(i: int) -> bool:
        if i == n:
            return True
        for j in range(n):
            if not used[j] and allowed(i, j):
                used[j] = True
                if place(i + 1):
                    return True
                used[j] = False
        return False

    return place(0)


def without_link(release):
    release.link = None
    return release


# ---------------------------------------------------------------- 1. labelled global recodings
def _global_rows(release) -> list[frozenset]:
    R = sp.csr_array(release.records)
    names = [pi.label for pi in release.published_items]
    return [frozenset(names[g] for g in R.indices[R.indptr[j] : R.indptr[j + 1]]) for j in range(R.shape[0])]


def _expected_rows(data, mapping) -> list[frozenset]:
    return [frozenset(mapping[data.items[j]] for j in data.record_items(i) if mapping[data.items[j]] is not None)
            for i in range(data.n_records)]


def test_swapped_labels_of_a_global_recoding_fail_every_global_audit():
    data = from_iterable([["a", "b"], ["a", "b"], ["c"], ["c"]], labels=["flu", "flu", "hiv", "hiv"])
    rel = without_link(GlobalRecoding.from_mapping(data, {"a": "a", "b": "b", "c": "c"}))
    models = [KmAnonymity(2, 2), KmAnonymity(2, None), TransactionalKAnonymity(2),
              PrivacyConstraints([["a", "c"]], 2), HKPCoherence(h=1.0, k=2, p=2, private_items=["c"])]
    assert all(m.audit(data, rel).satisfied for m in models)
    rows = _global_rows(rel)
    i = rows.index(frozenset({"a", "b"}))
    j = rows.index(frozenset({"c"}))
    labels = list(rel.labels)
    labels[i], labels[j] = labels[j], labels[i]
    rel.labels = tuple(labels)
    # the weaker checks still pass: same row multiset, same label multiset
    assert sorted(map(sorted, _global_rows(rel))) == sorted(map(sorted, rows))
    assert sorted(rel.labels) == sorted(data.labels)
    for model in models:
        rep = model.audit(data, rel)
        assert not rep.satisfied, model.name
        assert rep.details.get("recoding_mismatches", rep.details.get("privacy", {}).get("recoding_mismatches")) == 2
    n_bad, problems = recoding_mismatches(data, rel)
    assert n_bad == 2 and any("[label" in str(p) for p in problems)


def test_labels_swapped_within_one_recoding_fail_only_with_the_link():
    data = from_iterable([["a"], ["a"], ["b"], ["b"]], record_ids=["w", "x", "y", "z"], labels=["flu", "hiv", "flu", "flu"])
    rel = GlobalRecoding.from_mapping(data, {"a": "a", "b": "b"})
    rows = _global_rows(rel)
    assert rows == _expected_rows(data, {"a": "a", "b": "b"})  # from_mapping keeps the record order
    rel.labels = ("hiv", "flu", "flu", "flu")  # the two "a" rows trade labels: invisible without the link
    assert recoding_mismatches(data, without_link(rel))[0] == 0
    rel.link = ReleaseLink(np.arange(4), record_ids=data.record_ids)
    n_bad, problems = recoding_mismatches(data, rel)
    assert n_bad == 2 and {p["records"][0] for p in problems} == {"w", "x"}
    assert not KmAnonymity(1, None).audit(data, rel).satisfied


@st.composite
def labelled_global(draw):
    n = draw(st.integers(2, 6))
    items = ["a", "b", "c", "d"]
    recs = [draw(st.sets(st.sampled_from(items), max_size=3)) for _ in range(n)]
    labels = [draw(st.sampled_from(["x", "y", "z"])) for _ in range(n)]
    mapping = {x: draw(st.sampled_from(["g1", "g2", x, None])) for x in items}
    perm = draw(st.permutations(range(n)))
    row_perm = draw(st.permutations(range(n)))
    return recs, labels, mapping, perm, row_perm


@SETTINGS
@given(labelled_global())
def test_global_recoding_check_equals_brute_force(case):
    recs, labels, mapping, perm, row_perm = case
    data = from_iterable([sorted(r) for r in recs], labels=labels, items=["a", "b", "c", "d"])
    mapping = {x: y for x, y in mapping.items()}
    rel = without_link(GlobalRecoding.from_mapping(data, mapping))
    # forge: labels permuted among rows, and rows permuted independently of their labels' records
    rel.labels = tuple(rel.labels[p] for p in perm)
    rel.records = sp.csr_array(sp.csr_array(rel.records)[list(row_perm)])
    expected, published = _expected_rows(data, mapping), _global_rows(rel)
    n = data.n_records

    def allowed(i, j):
        return expected[i] == published[j] and str(labels[i]) == str(rel.labels[j])

    best = max_placed(n, allowed)
    event(f"placeable: {'all' if best == n else 'not all'}")
    assert recoding_mismatches(data, rel)[0] == n - best
    # with the link (record i -> row i), each record is compared with its own row
    rel.link = ReleaseLink(np.arange(n), record_ids=data.record_ids)
    assert recoding_mismatches(data, rel)[0] == sum(not allowed(i, i) for i in range(n))


# ---------------------------------------------------------------- 2. l-diverse nonreciprocal releases
def _nr_matches(data, rel) -> np.ndarray:
    """Brute force from the definition: record i lies in row j's possible worlds."""
    col = {x: c for c, x in enumerate(rel.items)}
    n, m = data.n_records, rel.n_records
    base = sp.csr_array(rel.base).toarray().astype(bool)
    dist = sp.csr_array(rel.distance).toarray().astype(bool)
    ok = np.zeros((n, m), dtype=bool)
    for i in range(n):
        names = [data.items[j] for j in data.record_items(i)]
        if any(x not in col for x in names):
            continue
        v = np.zeros(len(rel.items), dtype=bool)
        v[[col[x] for x in names]] = True
        for j in range(m):
            flips = v != base[j]
            ok[i, j] = not (flips & ~dist[j]).any() and int(flips.sum()) <= int(rel.threshold[j])
    return ok


def _label_brute(data, rel) -> int:
    ok = _nr_matches(data, rel)
    return max_placed(data.n_records, lambda i, j: ok[i, j] and str(data.labels[i]) == str(rel.labels[j]))


def _swaps(rel):
    labels = list(rel.labels)
    for i, j in itertools.combinations(range(len(labels)), 2):
        if labels[i] != labels[j]:
            forged = list(labels)
            forged[i], forged[j] = forged[j], forged[i]
            yield tuple(forged)


NINE = from_iterable(
    [["i3", "i6"], ["i1"], ["i1", "i2", "i5"], ["i6"], ["i3"], ["i0", "i3"], ["i4", "i5", "i7"], ["i0", "i5"], ["i3"]],
    labels=["w", "x", "y", "y", "w", "x", "z", "y", "x"],
)


@pytest.mark.parametrize(("make", "l"), [
    (lambda: anonymize_cahd(load("nr_table1"), l=2, unsafe_secret_seed=0), 2),
    (lambda: anonymize_nonreciprocal(NINE, l=3, order="identity", l_method="flow", rng=0, unsafe_secret_seed=0), 3),
], ids=["cahd-l2", "nr-l3"])
def test_swapped_labels_of_an_ldiverse_release_are_rejected(make, l):  # noqa: E741
    rel = make()
    table = load("nr_table1") if l == 2 else NINE
    link = rel.link
    assert LDiversity(l).audit(table, without_link(rel)).satisfied
    planted = 0
    for forged in _swaps(rel):
        rel.labels, rel.link = forged, None
        rep = LDiversity(l).audit(table, rel)
        allowed = _nr_matches(table, rel) & (np.array(table.labels)[:, None] == np.array(rel.labels)[None, :])
        exists = perfect_exists(table.n_records, lambda i, j, a=allowed: bool(a[i, j]))
        assert rep.details["label_preserving_assignment"] is exists
        assert rep.details["labels_match_original"] is exists
        if not exists:
            assert not rep.satisfied
            # the planted case: passes every check of before (label multiset, l-diverse subgraph)
            planted += rep.details["l_diverse_subgraph"] and rep.violations == 1
        rel.link = link
        rep = LDiversity(l).audit(table, rel)
        assert rep.details["audited_with_link"] and rep.details["label_preserving_assignment"] is exists
        if labels_follow_link(rel):  # cahd: with the private link every swap of two different labels fails
            assert not rep.satisfied and rep.details["linked_records_not_matching"] == 2
        else:  # nr with l: rows carry their postimage owner's label, which the link does not name
            assert rep.details["linked_records_not_matching"] == 0 and rep.satisfied is (rep.violations == 0)
    assert planted >= 1


@st.composite
def labelled_small(draw):
    n = draw(st.integers(3, 6))
    rows = [draw(st.sets(st.integers(0, 3), min_size=1, max_size=3)) for _ in range(n)]
    labels = [draw(st.sampled_from(["x", "y", "z"])) for _ in range(n)]
    perm = draw(st.permutations(range(n)))
    return rows, labels, perm


@SETTINGS
@given(labelled_small())
def test_label_preserving_assignment_equals_brute_force(case):
    rows, labels, perm = case
    data = from_iterable([[f"i{x}" for x in sorted(r)] for r in rows], labels=labels)
    try:
        rel = anonymize_cahd(data, l=2, unsafe_secret_seed=0)
    except GraphanonError:
        assume(False)
    rel.labels = tuple(rel.labels[p] for p in perm)
    a = label_preserving_assignment(match_classes(data, rel, by_label=True), data.labels)
    event(f"label-preserving matching: {a.exists}")
    assert a.placed == _label_brute(data, rel)
    assert a.exists is (a.placed == data.n_records)


def test_nonreciprocal_k_anonymity_with_link_checks_each_record_against_its_row():
    table = load("nr_table1")
    rel = anonymize_nonreciprocal(table, k=2, order="identity", rng=0, unsafe_secret_seed=0)
    assert NonreciprocalKAnonymity(2).audit(table, rel).satisfied
    ok = _nr_matches(table, rel)
    rows = rel.link.row_of_record
    # a link that sends record 0 to a row it does not match (if any) is caught
    bad = np.flatnonzero(~ok[0])
    assert len(bad)
    other = int(np.flatnonzero(rows == bad[0])[0])
    forged = rows.copy()
    forged[0], forged[other] = forged[other], forged[0]
    rel.link = ReleaseLink(forged, record_ids=table.record_ids)
    rep = NonreciprocalKAnonymity(2).audit(table, rel)
    expected = int((~ok[np.arange(6), forged]).sum())
    assert not rep.satisfied and rep.details["linked_records_not_matching"] == expected >= 1


# ---------------------------------------------------------------- 3. local recodings without the link
def _food_nodes():
    tax = load_taxonomy("clump_food")
    names = ["Fruit", "Orange", "Apple", "Banana", "Meat", "Beef", "Chicken", "Milk", "Dairy"]
    return [PublishedNode(x, tuple(tax.leaves_under(x)), len(tax.leaves_under(x))) for x in names]


def _fits_one(data, nodes, record: int, row) -> bool:
    """Brute force of the "one" reading: copies go to distinct items of the record, each under its node."""
    items = [data.items[j] for j in data.record_items(record)]
    copies = [nodes[x].members for x, c in row for _ in range(c)]
    if len(copies) > len(items):
        return False
    return any(all(items[p[t]] in copies[t] for t in range(len(copies)))
               for p in itertools.permutations(range(len(items)), len(copies)))


def _rows_of(rel):
    R = rel.records
    return [list(zip(R.indices[R.indptr[j] : R.indptr[j + 1]].tolist(), R.data[R.indptr[j] : R.indptr[j + 1]].tolist()))
            for j in range(R.shape[0])]


def test_clump_release_where_only_4_of_6_records_can_be_placed_is_rejected():
    data = from_iterable([["Orange", "Beef"], ["Orange", "Beef"], ["Apple", "Milk"], ["Apple", "Milk"],
                          ["Banana", "Chicken"], ["Banana", "Chicken"]])
    nodes = _food_nodes()
    ix = {nd.label: x for x, nd in enumerate(nodes)}
    M = np.zeros((6, len(nodes)), dtype=np.int64)
    M[0:2, ix["Fruit"]] = 1                     # every record fits these two rows
    M[2:4, ix["Orange"]] = 1                    # only records 0, 1 fit these ...
    M[4:6, [ix["Orange"], ix["Beef"]]] = 1      # ... and these
    rel = LocalRecoding(nodes=nodes, records=M, universe=8, reading="one")
    fits = [[_fits_one(data, nodes, i, row) for row in _rows_of(rel)] for i in range(6)]
    # the necessary conditions of before hold: every record fits some row, every group is fit by >= 2 records
    assert all(any(f) for f in fits)
    assert all(sum(fits[i][j] for i in range(6)) >= 2 for j in range(6))
    assert max_placed(6, lambda i, j: fits[i][j]) == 4
    n_bad, problems = local_recoding_mismatches(data, rel)
    assert n_bad == 2 and problems[0]["unplaced"] == 2
    rep = TransactionalKAnonymity(2).audit(data, rel)
    assert not rep.satisfied and rep.details["recoding_mismatches"] == 2
    assert not KmAnonymity(2, 1).audit(data, rel).satisfied


@st.composite
def edited_clump(draw):
    n = draw(st.integers(3, 6))
    names = ["Orange", "Apple", "Banana", "Beef", "Chicken", "Milk"]
    recs = [draw(st.sets(st.sampled_from(names), min_size=1, max_size=3)) for _ in range(n)]
    labels = [draw(st.sampled_from(["x", "y"])) for _ in range(n)] if draw(st.booleans()) else None
    edits = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, 8), st.integers(0, 2)), max_size=3))
    return recs, labels, edits


@SETTINGS
@given(edited_clump())
def test_local_recoding_assignment_equals_brute_force(case):
    recs, labels, edits = case
    data = from_iterable([sorted(r) for r in recs], labels=labels)
    rel = without_link(anonymize_clump(data, taxonomy=load_taxonomy("clump_food"), k=2, unsafe_secret_seed=0))
    nodes = list(rel.nodes)
    extra = [nd for nd in _food_nodes() if nd.label not in {x.label for x in nodes}]
    nodes += extra
    M = sp.csr_array(sp.hstack([rel.records, sp.csr_array((rel.n_records, len(extra)), dtype=np.int64)])).toarray()
    for row, node, copies in edits:  # forge: set some copy counts
        M[row, node % len(nodes)] = copies
    forged = LocalRecoding(nodes=nodes, records=M, universe=8, reading="one", labels=rel.labels)
    rows = _rows_of(forged)

    def allowed(i, j):
        return _fits_one(data, nodes, i, rows[j]) and (labels is None or str(labels[i]) == str(forged.labels[j]))

    n = data.n_records
    best = max_placed(n, allowed)
    event(f"placeable: {'all' if best == n else 'not all'}")
    assert local_recoding_mismatches(data, forged)[0] == n - best


def test_local_recoding_with_the_link_checks_labels():
    tax = load_taxonomy("clump_food")
    base = load("clump_food")
    data = TransactionData(sp.csr_array(base.matrix, copy=True), base.items, labels=["x", "y", "z"] * 3)
    rel = anonymize_clump(data, taxonomy=tax, k=3, unsafe_secret_seed=0)
    assert TransactionalKAnonymity(3).audit(data, rel).satisfied
    labels = list(rel.labels)
    i = 0
    j = next(t for t in range(1, 9) if labels[t] != labels[0])
    labels[i], labels[j] = labels[j], labels[i]
    rel.labels = tuple(labels)
    n_bad, problems = local_recoding_mismatches(data, rel)
    assert n_bad == 2 and all("label" in p["problem"] for p in problems)


# ---------------------------------------------------------------- 6. the link must belong to the release
def test_a_link_of_another_release_is_refused():
    table = load("nr_table1")
    a = anonymize_cahd(table, l=2)
    b = anonymize_cahd(table, l=2)
    with pytest.raises(DataMismatchError, match="fingerprints differ"):
        attach_link(a, b.link)
    link = a.link
    a.link = None
    assert attach_link(a, link).link is link


def _fits_some(data, nodes, record: int, row) -> bool:
    """Brute force of the "some" reading: an item under every node, every item under some node (empty row: any)."""
    if not row:
        return True
    items = {data.items[j] for j in data.record_items(record)}
    under = [set(nodes[x].members) for x, _ in row]
    return all(items & u for u in under) and all(any(i in u for u in under) for i in items)


def test_some_reading_row_with_nested_nodes_fits_nothing_it_covers_twice():
    data = from_iterable([["Orange"], ["Orange"]])
    nodes = _food_nodes()
    ix = {nd.label: x for x, nd in enumerate(nodes)}
    M = np.zeros((2, len(nodes)), dtype=np.int64)
    M[:, ix["Orange"]] = 1
    M[0, ix["Fruit"]] = 1
    rel = LocalRecoding(nodes=nodes, records=M, universe=8, reading="some")
    assert local_recoding_mismatches(data, rel)[0] == 1


@SETTINGS
@given(edited_clump())
def test_some_reading_assignment_equals_brute_force(case):
    recs, labels, edits = case
    data = from_iterable([sorted(r) for r in recs], labels=labels)
    rel = without_link(anonymize_partition(data, taxonomy=load_taxonomy("clump_food"), k=2, unsafe_secret_seed=0))
    assert rel.reading == "some"
    nodes = list(rel.nodes)
    nodes += [nd for nd in _food_nodes() if nd.label not in {x.label for x in nodes}]
    M = np.zeros((rel.n_records, len(nodes)), dtype=np.int64)
    M[:, : len(rel.nodes)] = sp.csr_array(rel.records).toarray()
    for row, node, copies in edits:
        M[row, node % len(nodes)] = min(copies, 1)
    forged = LocalRecoding(nodes=nodes, records=M, universe=8, reading="some", labels=rel.labels)
    rows = _rows_of(forged)
    # a "some" row is a set of disjoint nodes (Partition publishes cuts); nested nodes are refused conservatively
    assume(all(not set(nodes[x].members) & set(nodes[y].members) for row in rows for (x, _), (y, _) in
               itertools.combinations(row, 2)))
    n = data.n_records

    def allowed(i, j):
        return _fits_some(data, nodes, i, rows[j]) and (labels is None or str(labels[i]) == str(forged.labels[j]))

    best = max_placed(n, allowed)
    event(f"placeable: {'all' if best == n else 'not all'}")
    assert local_recoding_mismatches(data, forged)[0] == n - best


def test_metrics_refuse_a_split_link_with_a_clear_error():
    from graphanon.metrics.nonreciprocal import error_rate
    from graphanon.release import SplitLink

    table = load("nr_table1")
    rel = anonymize_nonreciprocal(table, k=2, order="identity", rng=0)
    split = SplitLink(np.arange(6), record_ids=table.record_ids, fingerprint=rel.fingerprint)
    with pytest.raises(DataMismatchError, match="SplitPerson"):
        error_rate(table, rel, link=split)
    with pytest.raises(DataMismatchError, match="split"):
        attach_link(rel, split)
