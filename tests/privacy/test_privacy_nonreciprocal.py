"""Nonreciprocal audits against brute force: k disjoint perfect matchings, viable
candidates, l-diverse factors, hand-made counter-examples that pass degree checks,
label multisets, and every anonymizer's output on bundled data."""

import itertools
import json
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.data import TransactionData, from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.privacy import LDiversity, NonreciprocalKAnonymity, nonreciprocal_matches
from graphanon.privacy.match_graph import expand_edges, match_classes, row_classes
from graphanon.privacy.matchings import hall_witness, k_factor_flow, ldiverse_flow, viable_edges
from graphanon.release import NonreciprocalRelease
from tests.conftest import cli

# --------------------------------------------------------------------------- brute force


def perfect_matchings(adj):
    """Every perfect matching of a bipartite graph (``adj[i]``: rows of record ``i``)."""
    n = len(adj)
    return [
        tuple(enumerate(p))
        for p in itertools.permutations(range(n))
        if all(p[i] in adj[i] for i in range(n))
    ]


def disjoint_matchings(adj, k, labels=None):
    """Whether ``k`` edge-disjoint perfect matchings exist (with ``labels``: whose union
    gives every record ``k`` distinct row labels), by exhaustive search."""
    n = len(adj)

    @cache
    def go(edges, k, used):
        if k == 0:
            return True
        rest = [set() for _ in range(n)]
        for i, j in edges:
            rest[i].add(j)
        for pm in perfect_matchings(rest):
            if labels is not None and any(labels[j] in used[i] for i, j in pm):
                continue
            nu = used if labels is None else tuple(used[i] | {labels[j]} for i, j in pm)
            if go(edges - frozenset(pm), k - 1, nu):
                return True
        return False

    edges = frozenset((i, j) for i in range(n) for j in adj[i])
    return go(edges, k, tuple(frozenset() for _ in range(n)))


def viable_pairs(adj):
    return {e for pm in perfect_matchings(adj) for e in pm}


def expand(left_size, right_size, ea, eb):
    """Record-level adjacency of a class graph, and the class of every record / row."""
    lc = np.repeat(np.arange(len(left_size)), left_size)
    rc = np.repeat(np.arange(len(right_size)), right_size)
    blocks = set(zip(np.asarray(ea).tolist(), np.asarray(eb).tolist()))
    adj = [{j for j in range(len(rc)) if (lc[i], rc[j]) in blocks} for i in range(len(lc))]
    return adj, lc, rc


# --------------------------------------------------------------------------- releases by hand


def make_release(items, base, distance, threshold, labels=None):
    """The one place hand-made releases are built (adapt here when the constructor changes)."""
    return NonreciprocalRelease(items, base, distance, threshold, labels)


def graph_release(record_class, row_neighbours, row_labels=None, record_labels=None):
    """Data and a release whose match graph is exactly the given class graph.

    Record ``i`` holds the single item ``c{record_class[i]}``; published row ``j``
    has an empty base, the items of its neighbouring record classes as distance
    positions and threshold 1, so its possible worlds are {} and each neighbour.
    """
    n_cls = int(max(record_class)) + 1
    items = [f"c{c}" for c in range(n_cls)]
    data = from_iterable([[f"c{c}"] for c in record_class], items=items, labels=record_labels)
    m = len(row_neighbours)
    D = np.zeros((m, n_cls), dtype=bool)
    for j, nb in enumerate(row_neighbours):
        D[j, list(nb)] = True
    thr = np.minimum(1, D.sum(axis=1))
    return data, make_release(items, np.zeros((m, n_cls), dtype=bool), D, thr, row_labels)


def degree_only(data, rel, k):
    """What the old audit checked: every record and every row has >= k matches."""
    orig, pub, _ = nonreciprocal_matches(data, rel)
    return bool(
        (np.bincount(orig, minlength=data.n_records) >= k).all()
        and (np.bincount(pub, minlength=rel.n_records) >= k).all()
    )


# --------------------------------------------------------------------------- graph-level hypothesis tests


@st.composite
def class_graphs(draw, max_n=5):
    n = draw(st.integers(2, max_n))

    def split():
        cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
        return np.diff([0, *cuts, n]).astype(np.int64)

    ls, rs = split(), split()
    pairs = [(a, b) for a in range(len(ls)) for b in range(len(rs))]
    mask = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    e = {p for p, keep in zip(pairs, mask) if keep and draw(st.booleans())}
    # plant a few perfect matchings so that viability and factors are not trivially absent
    lc, rc = np.repeat(np.arange(len(ls)), ls), np.repeat(np.arange(len(rs)), rs)
    for _ in range(draw(st.integers(0, 2))):
        perm = draw(st.permutations(range(n)))
        e |= {(int(lc[i]), int(rc[perm[i]])) for i in range(n)}
    e = sorted(e)
    ea = np.array([a for a, _ in e], dtype=np.int64)
    eb = np.array([b for _, b in e], dtype=np.int64)
    labels = np.array(
        draw(st.lists(st.integers(0, 2), min_size=len(rs), max_size=len(rs))), dtype=np.int64
    )
    return ls, rs, ea, eb, labels


@settings(max_examples=150, deadline=None)
@given(g=class_graphs(max_n=6), k=st.integers(1, 3))
def test_k_factor_and_viable_edges_match_brute_force(g, k):
    ls, rs, ea, eb, _ = g
    adj, lc, rc = expand(ls, rs, ea, eb)
    flow = k_factor_flow(ls, rs, ea, eb, k)
    assert flow.full == disjoint_matchings(adj, k)
    assert flow.value <= flow.demand
    if not flow.full:
        w = hall_witness(ls, flow, k)
        assert w["records"] > 0 and w["supply"] < w["demand"]
    truth = viable_pairs(adj)
    for via in (
        viable_edges(ls, rs, ea, eb),
        viable_edges(ls, rs, ea, eb, flow, k) if flow.full else None,
    ):
        if via is None:
            continue
        for e in range(len(ea)):
            block = {
                (i, j) for i in np.flatnonzero(lc == ea[e]) for j in np.flatnonzero(rc == eb[e])
            }
            hit = block & truth
            assert hit in (set(), block)  # identical records and rows: all of a block or none
            assert bool(via[e]) == bool(hit)


@settings(max_examples=120, deadline=None)
@given(n=st.integers(3, 7), density=st.floats(0.05, 0.4), seed=st.integers(0, 10**6))
def test_viable_edges_of_sparse_graphs_with_a_perfect_matching(n, density, seed):
    rng = np.random.default_rng(seed)
    A = (rng.random((n, n)) < density) | (np.eye(n, dtype=bool)[rng.permutation(n)])
    ea, eb = np.nonzero(A)
    one = np.ones(n, dtype=np.int64)
    truth = viable_pairs([set(np.flatnonzero(r).tolist()) for r in A])
    assert viable_edges(one, one, ea, eb).tolist() == [
        (i, j) in truth for i, j in zip(ea.tolist(), eb.tolist())
    ]


@settings(max_examples=120, deadline=None)
@given(g=class_graphs(), l=st.integers(1, 3))
def test_ldiverse_flow_matches_brute_force(g, l):  # noqa: E741
    ls, rs, ea, eb, labels = g
    adj, _lc, rc = expand(ls, rs, ea, eb)
    row_labels = labels[rc].tolist()
    flow = ldiverse_flow(ls, rs, ea, eb, labels, l)
    assert flow.full == disjoint_matchings(adj, l, row_labels)


# --------------------------------------------------------------------------- full releases vs brute force


def label_preserving_matching_exists(adj, record_labels, row_labels) -> bool:
    """Brute force (backtracking): a perfect matching along ``adj`` giving each record a row of its label."""
    n = len(adj)
    if n != len(row_labels):
        return False
    used = [False] * n

    def place(i):
        if i == n:
            return True
        for j in adj[i]:
            if not used[j] and record_labels[i] == row_labels[j]:
                used[j] = True
                if place(i + 1):
                    return True
                used[j] = False
        return False

    return place(0)


@settings(max_examples=40, deadline=None)
@given(g=class_graphs(max_n=5), k=st.integers(1, 3))
def test_release_audits_match_brute_force(g, k):
    ls, rs, ea, eb, labels = g
    adj, lc, rc = expand(ls, rs, ea, eb)
    nbrs = [set(ea[eb == b].tolist()) for b in rc]
    row_labels = [f"s{v}" for v in labels[rc]]
    data, rel = graph_release(lc, nbrs, row_labels, list(reversed(row_labels)))
    orig, pub, _ = nonreciprocal_matches(data, rel)
    assert set(zip(orig.tolist(), pub.tolist())) == {
        (i, j) for i in range(len(adj)) for j in adj[i]
    }
    truth = viable_pairs(adj)
    rep = NonreciprocalKAnonymity(k).audit(data, rel)
    expect_k = disjoint_matchings(adj, k)
    assert rep.details["k_disjoint_perfect_matchings"] == expect_k
    assert rep.satisfied == expect_k
    assert rep.details["min_viable_candidates"] == min(
        sum((i, j) in truth for j in range(len(rc))) for i in range(len(lc))
    )
    rep_l = LDiversity(k).audit(data, rel)
    record_labels = list(reversed(row_labels))
    keeps_labels = label_preserving_matching_exists(adj, record_labels, row_labels)
    assert rep_l.details["label_preserving_assignment"] is keeps_labels
    assert rep_l.satisfied == (disjoint_matchings(adj, k, row_labels) and keeps_labels)
    viable_labels = [
        len({row_labels[j] for j in range(len(rc)) if (i, j) in truth}) for i in range(len(lc))
    ]
    assert rep_l.details["min_viable_labels"] == min(viable_labels)


def test_row_classes_never_merge_different_rows():
    rng = np.random.default_rng(0)
    M = rng.random((400, 6)) < 0.3
    import scipy.sparse as sp

    cls, size = row_classes([sp.csr_array(M)], [rng.integers(0, 2, 400)])
    keys = {}
    for i, c in enumerate(cls):
        keys.setdefault(c, set()).add(M[i].tobytes())
    assert all(len(v) == 1 for v in keys.values())
    assert len({M[i].tobytes() for i in range(400)}) <= len(size) == size.astype(bool).sum()
    assert size.sum() == 400


# --------------------------------------------------------------------------- hand-made counter-examples


def two_records_2_anonymous():
    """k=3: records 0-2 (one class) need all of rows 0-2, so records 3-4 keep only rows 3-4."""
    record_class = [0, 0, 0, 1, 1, 2, 3, 4]
    rows = [{0, 1}, {0}, {0}, {1, 2}, {1, 3}, {2, 3, 4}, {2, 3, 4}, {2, 3, 4}]
    return graph_release(record_class, rows)


def certain_row(row_labels=None, record_labels=None):
    """k=2: records 2-3 need rows 2-3, so record 1's row is certain (row 1)."""
    adj = [{0, 1, 4}, {1, 2}, {2, 3}, {2, 3}, {0, 4}]
    rows = [{i for i in range(5) if j in adj[i]} for j in range(5)]
    return graph_release(list(range(5)), rows, row_labels, record_labels)


def test_degrees_right_but_two_records_only_2_anonymous():
    data, rel = two_records_2_anonymous()
    assert degree_only(data, rel, 3)
    rep = NonreciprocalKAnonymity(3).audit(data, rel)
    assert not rep.satisfied
    assert rep.details["min_matches"] >= 3 and rep.details["min_matched_by"] >= 3
    assert not rep.details["k_disjoint_perfect_matchings"] and rep.details["flow_deficit"] > 0
    assert rep.details["min_viable_candidates"] == 2
    low = [ex for ex in rep.counterexamples if "viable_candidates" in ex]
    assert (
        {ex["record"] for ex in low} == {3}
        and low[0]["records_like_it"] == 2
        and low[0]["matches"] == 3
    )
    hall = next(ex for ex in rep.counterexamples if "demand" in ex)
    assert hall["supply"] < hall["demand"]
    assert rep.violations == 2 + 1  # two records short of k viable rows, no 3 disjoint matchings
    assert (
        rep.details["record_classes"] == 5 and rep.details["row_classes"] == 5
    )  # classes compressed
    assert NonreciprocalKAnonymity(2).audit(data, rel).satisfied


def test_degrees_right_but_one_row_certain():
    data, rel = certain_row()
    assert degree_only(data, rel, 2)
    rep = NonreciprocalKAnonymity(2).audit(data, rel)
    assert not rep.satisfied and rep.details["min_viable_candidates"] == 1
    assert [ex["record"] for ex in rep.counterexamples if "viable_candidates" in ex] == [1]


def test_certain_label_fails_l_diversity_though_every_record_sees_two_labels():
    labels = ["A", "B", "A", "B", "B"]
    data, rel = certain_row(labels, ["B", "A", "B", "B", "A"])
    rep = LDiversity(2).audit(data, rel)
    assert rep.details["min_distinct_labels"] >= 2 and sorted(data.labels) == sorted(rel.labels)
    assert not rep.satisfied and rep.details["min_viable_labels"] == 1
    # record 1's certain row carries A, its label is B: no assignment keeps the labels either
    assert rep.details["label_preserving_assignment"] is False and not rep.details["labels_match_original"]


def test_invented_labels_fail():
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, l=3, order="gray", rng=1)
    assert LDiversity(3).audit(data, rel).satisfied
    invented = make_release(
        rel.items, rel.base, rel.distance, rel.threshold, [f"made-up {i}" for i in range(6)]
    )
    rep = LDiversity(3).audit(data, invented)
    # every degree-only check passes: l distinct labels among each record's matches, an l-diverse factor
    assert rep.details["min_distinct_labels"] >= 3 and rep.details["l_diverse_subgraph"]
    assert not rep.satisfied and not rep.details["labels_match_original"]
    problem = next(
        ex for ex in rep.counterexamples if ex.get("problem", "").startswith("published labels")
    )
    assert (
        "made-up 0" in problem["published_but_not_original"]
        and "Muslim" in problem["original_but_not_published"]
    )
    # the same label set with other counts fails too
    moved = make_release(
        rel.items,
        rel.base,
        rel.distance,
        rel.threshold,
        ["Christian"] * 3 + ["Muslim", "Buddhist", "Buddhist"],
    )
    assert not LDiversity(3).audit(data, moved).details["labels_match_original"]


def test_labels_missing_on_either_side():
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, l=3, order="gray", rng=1)
    bare = TransactionData(data.matrix.copy(), data.items, data.record_ids, None, data.name)
    rep = LDiversity(3).audit(bare, rel)
    assert not rep.satisfied and "no sensitive labels" in rep.counterexamples[0]["problem"]
    no_labels = make_release(rel.items, rel.base, rel.distance, rel.threshold)
    with pytest.raises(ParameterError, match="publishes sensitive labels"):
        LDiversity(3).audit(data, no_labels)


def test_count_mismatch_and_unknown_items():
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, k=2, order="identity", rng=0)
    rep = NonreciprocalKAnonymity(2).audit(data.subset(np.arange(5)), rel)
    assert not rep.satisfied and rep.counterexamples[0] == {
        "problem": "record count",
        "original": 5,
        "published": 6,
    }
    other = from_iterable([list(data.record_items(i)) for i in range(5)] + [["Chess"]])
    rep = NonreciprocalKAnonymity(1).audit(other, rel)
    assert not rep.satisfied and rep.details["min_viable_candidates"] == 0
    assert any("does not know" in ex.get("problem", "") for ex in rep.counterexamples)


def test_audit_reads_no_order_and_reports_progress():
    data = load("chess").subset(np.arange(300))
    rel = anonymize_nonreciprocal(data, k=4, order="gray", rng=0)
    perm = np.random.default_rng(5).permutation(300)
    shuffled = make_release(rel.items, rel.base[perm], rel.distance[perm], rel.threshold[perm])
    calls = []
    rep = NonreciprocalKAnonymity(4).audit(
        data, shuffled, progress=lambda d, t, msg: calls.append((d, t, msg))
    )
    with_link = NonreciprocalKAnonymity(4).audit(data, rel).details  # rel keeps its private link
    assert with_link.pop("audited_with_link") and with_link.pop("linked_records_not_matching") == 0
    assert rep.satisfied and not rep.details.pop("audited_with_link") and rep.details == with_link
    assert calls and all(0 <= d <= t for d, t, _ in calls) and calls[-1][0] == calls[-1][1]
    assert any(msg == "match graph" for *_, msg in calls)
    mc = match_classes(data, rel)
    eo, ep = rel.match_arrays(data)  # the release's own matcher agrees with the independent one
    orig, pub, _ = nonreciprocal_matches(data, rel)
    assert mc.n_edges == len(orig) == len(eo)
    assert sorted(zip(eo.tolist(), ep.tolist())) == list(zip(orig.tolist(), pub.tolist()))
    small = expand_edges(mc, block=7)  # many blocks give the same edges
    assert np.array_equal(small[0], orig) and np.array_equal(small[1], pub)
    with pytest.raises(ParameterError, match="max_edges"):
        nonreciprocal_matches(data, rel, max_edges=10)


# --------------------------------------------------------------------------- every anonymizer passes


def skewed(data, n_labels=12, seed=0):
    p = 0.85 ** np.arange(n_labels)
    labels = [
        f"s{v}"
        for v in np.random.default_rng(seed).choice(n_labels, size=data.n_records, p=p / p.sum())
    ]
    return TransactionData(data.matrix.copy(), data.items, data.record_ids, labels, data.name)


@pytest.mark.parametrize(
    "make",
    [
        lambda d: (anonymize_nonreciprocal(d, k=5, order="gray", rng=0), None),
        lambda d: (anonymize_nonreciprocal(d, l=5, order="gray", rng=0), 5),
        lambda d: (anonymize_nonreciprocal(d, l=5, order="gray", l_method="greedy-walk", rng=0), 5),
        lambda d: (anonymize_cahd(d, l=5), 5),
    ],
    ids=["nr-k", "nr-l-flow", "nr-l-greedy-walk", "cahd"],
)
def test_every_anonymizer_passes_on_chess(make):
    data = skewed(load("chess").subset(np.arange(0, 3196, 4)))
    rel, l = make(data)  # noqa: E741
    assert NonreciprocalKAnonymity(5).audit(data, rel).satisfied
    if l is not None:
        rep = LDiversity(l).audit(data, rel)
        assert rep.satisfied, str(rep)


def test_every_anonymizer_passes_on_nr_table1():
    data = load("nr_table1")
    assert (
        NonreciprocalKAnonymity(3)
        .audit(data, anonymize_nonreciprocal(data, k=3, order="identity", rng=0))
        .satisfied
    )
    for rel in (
        anonymize_nonreciprocal(data, l=3, order="gray", rng=0),
        anonymize_nonreciprocal(data, l=3, order="gray", l_method="greedy-walk", rng=0),
        anonymize_cahd(data, l=3),
    ):
        assert NonreciprocalKAnonymity(3).audit(data, rel).satisfied
        assert LDiversity(3).audit(data, rel).satisfied


@settings(max_examples=15, deadline=None)
@given(groups=st.integers(1, 8), k=st.integers(1, 4), seed=st.integers(0, 10**6))
def test_hypothesis_data_releases_pass(groups, k, seed):
    n = 4 * groups
    rng = np.random.default_rng(seed)
    X = rng.random((n, 6)) < 0.35
    labels = [f"s{i % 4}" for i in range(n)]  # balanced: l <= 4 is feasible
    data = from_iterable(
        [[f"i{j}" for j in np.flatnonzero(r)] for r in X],
        items=[f"i{j}" for j in range(6)],
        labels=labels,
    )
    assert (
        NonreciprocalKAnonymity(k)
        .audit(data, anonymize_nonreciprocal(data, k=k, order="gray", rng=seed))
        .satisfied
    )
    if k > 1:
        rel = anonymize_nonreciprocal(data, l=k, order="gray", rng=seed)
        assert LDiversity(k).audit(data, rel).satisfied
        assert NonreciprocalKAnonymity(k).audit(data, rel).satisfied


def test_cli_audit(tmp_path):
    data, rel = two_records_2_anonymous()
    src = tmp_path / "data.dat"
    src.write_text(
        "\n".join(" ".join(sorted(data.record(i))) for i in range(data.n_records)) + "\n"
    )
    path = tmp_path / "rel.json"
    rel.save(path)
    res = cli("audit", src, path, "--model", "nonreciprocal", "-k", "3", "--json", "--format", "basket")
    assert res.exit_code == 1, res.output
    out = json.loads(res.output)
    assert out["details"]["min_viable_candidates"] == 2 and not out["satisfied"]
    res = cli("audit", src, path, "--model", "nonreciprocal", "-k", "2", "--format", "basket")
    assert res.exit_code == 0, res.output
