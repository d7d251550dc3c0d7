"""Generalization graphs and assignment extraction (closed walk, backtracking, greedy l-diverse)."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal import (
    check_assignments,
    closed_walk_trace,
    extract_assignments,
    greedy_diverse_assignments,
)
from graphanon.counting.bitset import pack_words as pack_rows
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.graphs.generalization import GeneralizationGraph, ring_graph

# Table 1 order r2 r4 r3 r1 r5 r6 (0-based indices)
GOLD_ORDER = [1, 3, 2, 0, 4, 5]


def test_ring_golden_preimages():
    g = ring_graph(GOLD_ORDER, 3, record_ids=["r1", "r2", "r3", "r4", "r5", "r6"])
    assert g.is_k_regular(3)
    pre = g.preimages()
    names = ["r1", "r2", "r3", "r4", "r5", "r6"]
    got = {names[j]: sorted(names[i] for i in pre[j]) for j in range(6)}
    # Xue et al. Fig. 4(a): r'2 = vote(r2, r5, r6), r'4 = vote(r2, r4, r6), ...
    assert got == {
        "r2": ["r2", "r5", "r6"],
        "r4": ["r2", "r4", "r6"],
        "r3": ["r2", "r3", "r4"],
        "r1": ["r1", "r3", "r4"],
        "r5": ["r1", "r3", "r5"],
        "r6": ["r1", "r5", "r6"],
    }


def test_views_and_exports():
    g = ring_graph(GOLD_ORDER, 3, record_ids=["r1", "r2", "r3", "r4", "r5", "r6"])
    u = g.to_networkx()
    assert u.number_of_edges() == 18 and u.has_edge("r2", "r4") and u.has_edge("r6", "r2")
    assert all(u.out_degree(v) == 3 for v in u)
    b = g.to_networkx("bipartite")
    assert b.number_of_nodes() == 12 and b.has_edge(("orig", "r2"), ("pub", "r3"))
    assert nx.is_bipartite(b.to_undirected())
    ig = g.to_igraph()
    assert ig.vcount() == 6 and ig.ecount() == 18 and ig.is_directed()
    with pytest.raises(ParameterError, match="view"):
        g.to_networkx("sideways")


def test_bad_graphs():
    with pytest.raises(ParameterError, match="permutation"):
        ring_graph([0, 0, 1], 2)
    with pytest.raises(ParameterError, match="k must"):
        ring_graph([0, 1, 2], 4)
    with pytest.raises(ParameterError, match="repeated successor"):
        GeneralizationGraph([[0, 0], [1, 0]])
    irregular = GeneralizationGraph([[0, 1], [0, 1], [0, 1]])
    assert not irregular.is_k_regular()
    with pytest.raises(ParameterError, match="k-regular"):
        extract_assignments(irregular)
    with pytest.raises(ParameterError, match="method"):
        extract_assignments(ring_graph([0, 1], 1), method="magic")


def _random_regular(n, k, rng):
    """Union of k disjoint random permutations (a random k-regular digraph)."""
    perms = []
    taken = [set() for _ in range(n)]
    while len(perms) < k:
        p = rng.permutation(n)
        if all(p[i] not in taken[i] for i in range(n)):
            perms.append(p)
            for i in range(n):
                taken[i].add(int(p[i]))
    return GeneralizationGraph(np.array(perms).T)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 30), kfrac=st.floats(0, 1), seed=st.integers(0, 10**6), method=st.sampled_from(["closed-walk", "backtracking"]), ring=st.booleans())
def test_extraction_property(n, kfrac, seed, method, ring):
    rng = np.random.default_rng(seed)
    k = 1 + int(kfrac * (min(n, 6) - 1))
    g = ring_graph(rng.permutation(n), k) if ring else _random_regular(n, k, rng)
    A = extract_assignments(g, method=method, rng=seed)
    check_assignments(g, A)  # disjoint perfect matchings inside the graph
    # every edge used by exactly one assignment
    used = sorted(zip(np.tile(np.arange(n), k).tolist(), A.ravel().tolist(), strict=True))
    src, dst = g.edges()
    assert used == sorted(zip(src.tolist(), dst.tolist(), strict=True))


def test_check_assignments_catches_bad():
    g = ring_graph(range(5), 2)
    A = extract_assignments(g, rng=0)
    bad = A.copy()
    bad[1] = bad[0]
    with pytest.raises(InfeasibleError, match="same published record twice"):
        check_assignments(g, bad)
    bad = A.copy()
    bad[0, [0, 1]] = bad[0, [1, 0]]
    with pytest.raises(InfeasibleError):
        check_assignments(g, bad)


def test_extraction_reproducible_and_random():
    g = ring_graph(range(40), 4)
    a = extract_assignments(g, rng=7)
    assert np.array_equal(a, extract_assignments(g, rng=7))
    outs = {extract_assignments(g, rng=s).tobytes() for s in range(6)}
    assert len(outs) > 1


def test_closed_walk_trace_events():
    g = ring_graph(GOLD_ORDER, 3)
    A, events = closed_walk_trace(g, rng=3)
    assert sorted(A.tolist()) == list(range(6)) and g.contains_assignment(A)
    kinds = {e[0] for e in events}
    assert "step" in kinds and "close" in kinds
    closes = [e for e in events if e[0] == "close"]
    assert sum(e[3] for e in closes) >= 6  # every record committed in some cycle


@settings(max_examples=20, deadline=None)
@given(
    m=st.integers(1, 12),
    l=st.integers(2, 4),
    extra=st.integers(0, 3),
    seed=st.integers(0, 10**6),
    method=st.sampled_from(["flow", "greedy-walk"]),
)
def test_greedy_diverse_property(m, l, extra, seed, method):  # noqa: E741
    rng = np.random.default_rng(seed)
    n_labels = l + extra
    n = m * n_labels
    labels = [i % n_labels for i in range(n)]  # balanced: feasible
    rng.shuffle(labels)
    X = rng.random((n, 9)) < 0.4
    A = greedy_diverse_assignments(X, labels, l, rng.permutation(n), rng=seed, method=method)
    g = GeneralizationGraph.from_assignments(A)
    check_assignments(g, A)
    lab = np.array(labels)
    assert all(len(set(lab[A[:, i]].tolist())) == l for i in range(n))
    assert np.array_equal(A[0], np.arange(n))  # each record's own published record is among its matches


def test_greedy_infeasible_l():
    X = np.eye(6, dtype=bool)
    with pytest.raises(ParameterError, match="at least 3 distinct"):
        greedy_diverse_assignments(X, ["a", "a", "b", "b", "a", "b"], 3, range(6))
    with pytest.raises(ParameterError, match="more than n/l"):
        greedy_diverse_assignments(X, ["a", "a", "a", "a", "b", "c"], 3, range(6))
    with pytest.raises(ParameterError, match="sensitive labels"):
        greedy_diverse_assignments(X, None, 2, range(6))


def test_pack_rows_matches_dense():
    rng = np.random.default_rng(1)
    X = rng.random((7, 130)) < 0.3
    import scipy.sparse as sp

    assert np.array_equal(pack_rows(X), pack_rows(sp.csr_array(X)))
    P = pack_rows(X)
    assert int(np.bitwise_count(P[0] ^ P[1]).sum()) == int((X[0] != X[1]).sum())
