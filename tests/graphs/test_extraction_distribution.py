"""Distribution of the random assignment extractors (closed walk, WMC backtracking).

The numba kernels draw their random choices in an optimized way (proposals
with a fallback scan for the closed walk, lazy Fisher-Yates for backtracking,
relabelled records, per-record unused-edge lists). These tests check that
the choices follow the algorithms as the papers state them:

* replaying ``closed_walk_trace`` step by step, every next hop is an edge not
  yet walked from its record in the walk, is a preferred next hop (closes
  the walk or reaches a record not yet visited by the walk) whenever one
  exists, and is uniform among the preferred (else among the other) edges;
* the distribution of whole extractions matches a plain-Python reference
  implementation of each algorithm (two-sample chi-square tests).

All seeds are fixed, so the tests are deterministic; each fails for a biased
or preference-ignoring next-hop rule (checked when the tests were written).
"""

import random
from collections import Counter, defaultdict

import numpy as np
import pytest
from scipy.stats import chi2_contingency, chisquare

from graphanon.algorithms.nonreciprocal import (
    check_assignments,
    closed_walk_trace,
    extract_assignments,
)
from graphanon.algorithms.nonreciprocal._kernels import rng_below as _rng_below
from graphanon.graphs.generalization import GeneralizationGraph, ring_graph

P_MIN = 1e-4  # deterministic seeds: a pass is a pass; this only sets the power


# ---------------------------------------------------------------------- reference implementations
def _commit_cycle(path, path_t, succ, A, inv, slots, in_l):
    """Write a closed cycle's matchings into the round's assignment (both references)."""
    for xq, t in zip(path, path_t, strict=True):
        A[xq] = succ[xq][t]
        inv[A[xq]] = xq
        slots[xq] = t
        in_l[xq] = False


def _ref_closed_walk_round(succ, used, rnd):
    """Xue et al., Algorithm 1, with a random next hop (the paper's Random Walk)."""
    n, k = len(succ), len(succ[0])
    A, inv, in_l = list(range(n)), list(range(n)), [True] * n
    starts = list(range(n))
    rnd.shuffle(starts)
    slots = [-1] * n
    for s in starts:
        if not in_l[s]:
            continue
        target = A[s]
        visited, walked = {s}, defaultdict(set)
        path, path_t = [s], []
        x = s
        while True:
            cand = [t for t in range(k) if not used[x][t] and t not in walked[x]]
            pref = [t for t in cand if succ[x][t] == target or inv[succ[x][t]] not in visited]
            t = rnd.choice(pref or cand)
            walked[x].add(t)
            path_t.append(t)
            y = succ[x][t]
            if y == target:
                break
            z = inv[y]
            if z in path:  # deviant cycle z -> ... -> z: dropped
                i = path.index(z)
                del path[i + 1 :]
                del path_t[i:]
            else:
                visited.add(z)
                path.append(z)
            x = z
        _commit_cycle(path, path_t, succ, A, inv, slots, in_l)
    return A, slots


def _ref_backtracking_round(succ, used, rnd):
    """WMC as Xue et al. describe it: DFS for a simple cycle, random edge order
    (a full shuffle on arrival), a record left by backtracking stays blocked."""
    n, k = len(succ), len(succ[0])
    A, inv, in_l = list(range(n)), list(range(n)), [True] * n
    starts = list(range(n))
    rnd.shuffle(starts)
    slots = [-1] * n

    def arrive(v, order, ptr):
        order[v] = [t for t in range(k) if not used[v][t]]
        rnd.shuffle(order[v])
        ptr[v] = 0

    for s in starts:
        if not in_l[s]:
            continue
        target = A[s]
        blocked, order, ptr = {s}, {}, {}
        arrive(s, order, ptr)
        path, path_t = [s], []
        closed = False
        while not closed:
            x = path[-1]
            advanced = False
            while ptr[x] < len(order[x]):
                t = order[x][ptr[x]]
                ptr[x] += 1
                y = succ[x][t]
                if y == target:
                    path_t.append(t)
                    closed = True
                    break
                z = inv[y]
                if z in blocked:
                    continue
                path_t.append(t)
                blocked.add(z)
                arrive(z, order, ptr)
                path.append(z)
                advanced = True
                break
            if not (closed or advanced):
                path.pop()
                if path_t:
                    path_t.pop()
                assert path, "reference backtracking got stuck"
        _commit_cycle(path, path_t, succ, A, inv, slots, in_l)
    return A, slots


def _ref_extract(graph, method, rnd):
    succ = graph.successors.tolist()
    n, k = graph.n, graph.k
    used = [[False] * k for _ in range(n)]
    rows = []
    one_round = _ref_closed_walk_round if method == "closed-walk" else _ref_backtracking_round
    for _ in range(k):
        A, slots = one_round(succ, used, rnd)
        for x, t in enumerate(slots):
            used[x][t] = True
        rows.append(tuple(A))
    return tuple(rows)


def _two_sample_p(a: Counter, b: Counter) -> float:
    """p-value of a chi-square test that two samples come from one distribution
    (categories with fewer than 10 observations in total are pooled)."""
    keys = sorted(set(a) | set(b))
    big = [key for key in keys if a[key] + b[key] >= 10]
    small = [key for key in keys if a[key] + b[key] < 10]
    table = [[a[key] for key in big], [b[key] for key in big]]
    if small:
        table[0].append(sum(a[key] for key in small))
        table[1].append(sum(b[key] for key in small))
    if len(table[0]) < 2:
        return 1.0
    return float(chi2_contingency(np.array(table)).pvalue)


def _four_cycle_pairs():
    # 8 records in two 4-rings, k = 2 (a graph with two components)
    succ = [[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4]]
    return GeneralizationGraph(succ)


GRAPHS = {
    "ring n=6 k=3": lambda: ring_graph([3, 0, 5, 1, 4, 2], 3),
    "ring n=7 k=4 (first round)": lambda: ring_graph(range(7), 4),
    "random 3-regular n=6": lambda: GeneralizationGraph(
        np.array([[1, 2, 3], [2, 0, 4], [0, 5, 1], [4, 1, 5], [5, 3, 0], [3, 4, 2]])
    ),
    "two components": _four_cycle_pairs,
}


# ---------------------------------------------------------------------- tests
@pytest.mark.parametrize("method", ["closed-walk", "backtracking"])
@pytest.mark.parametrize("name", list(GRAPHS))
def test_extraction_matches_reference_distribution(name, method):
    g = GRAPHS[name]()
    first_only = "first round" in name
    runs = 3000
    ours, ref = Counter(), Counter()
    rnd = random.Random(20120812)
    for seed in range(runs):
        A = extract_assignments(g, method=method, rng=seed)
        ours[tuple(A[0]) if first_only else tuple(map(tuple, A))] += 1
        R = _ref_extract(g, method, rnd)
        ref[R[0] if first_only else R] += 1
    assert len(ours) > 1
    p = _two_sample_p(ours, ref)
    assert p > P_MIN, (name, method, p, ours.most_common(5), ref.most_common(5))


def _replay_ranks(graph, seeds):
    """Replay closed-walk traces; check every step and collect, per number m of
    eligible candidates, the rank (in column order) of the chosen one among them."""
    succ = graph.successors.tolist()
    n = graph.n
    ranks_pref, ranks_other = defaultdict(Counter), defaultdict(Counter)
    for seed in seeds:
        A_out, events = closed_walk_trace(graph, rng=seed, max_events=100_000)
        A, inv, in_l = list(range(n)), list(range(n)), [True] * n
        walk = None
        for ev in events:
            if ev[0] == "step":
                _, w, x, y = ev
                if w != walk:  # a new walk starts at x
                    walk, s = w, x
                    assert in_l[s]
                    target = A[s]
                    visited, walked, path, path_y = {s}, defaultdict(set), [s], []
                assert x == path[-1]
                # candidates in column order of graph.successors (the kernel's scan order)
                cand = [v for v in succ[x] if v not in walked[x]]
                pref = [v for v in cand if v == target or inv[v] not in visited]
                assert y in cand, "an edge was walked twice from the same record in one walk"
                if pref:
                    assert y in pref, "a visited record was chosen although an unvisited one was available"
                    ranks_pref[len(pref)][pref.index(y)] += 1
                else:
                    ranks_other[len(cand)][cand.index(y)] += 1
                walked[x].add(y)
                path_y.append(y)
                if y != target:
                    z = inv[y]
                    if z in path:
                        i = path.index(z)
                        del path[i + 1 :]
                        del path_y[i:]
                    else:
                        visited.add(z)
                        path.append(z)
            elif ev[0] == "drop":
                assert path[-1] == ev[2]
            else:  # close
                _, w, s_, length = ev
                assert (w, s_, length) == (walk, s, len(path))
                for xq, yq in zip(path, path_y, strict=True):
                    A[xq] = yq
                    inv[yq] = xq
                    in_l[xq] = False
        assert A == A_out.tolist() and not any(in_l)
    return ranks_pref, ranks_other


def test_closed_walk_next_hop_is_uniform_among_preferred():
    g = ring_graph(np.random.default_rng(5).permutation(40), 6)
    ranks_pref, ranks_other = _replay_ranks(g, range(300))
    tested = 0
    for ranks in (ranks_pref, ranks_other):
        for m, counts in ranks.items():
            if m < 2 or sum(counts.values()) < 50 * m:
                continue
            p = chisquare([counts[r] for r in range(m)]).pvalue
            assert p > P_MIN, (m, dict(counts), p)
            tested += 1
    assert tested >= 6  # several group sizes, both with and without preferred hops
    assert sum(sum(c.values()) for c in ranks_other.values()) > 500  # deviant cycles do happen


def test_rng_below_is_uniform():
    state = np.array([12345], dtype=np.uint64)
    for c in (1, 2, 3, 7, 10):
        draws = np.array([_rng_below(state, c) for _ in range(2000 * c)])
        assert draws.min() >= 0 and draws.max() < c
        if c > 1:
            assert chisquare(np.bincount(draws, minlength=c)).pvalue > P_MIN
    big = 3 * 2**30 + 1  # rejection threshold 2**32 mod c is large here
    draws = np.array([_rng_below(state, big) for _ in range(4000)])
    assert draws.min() >= 0 and draws.max() < big
    assert chisquare(np.bincount(draws * 4 // big, minlength=4)).pvalue > P_MIN


@pytest.mark.parametrize("method", ["closed-walk", "backtracking"])
def test_extraction_many_edges_per_record(method):
    # k > 64: the per-record walked-edge masks span two words
    g = ring_graph(np.random.default_rng(1).permutation(70), 66)
    A = extract_assignments(g, method=method, rng=3)
    check_assignments(g, A)
