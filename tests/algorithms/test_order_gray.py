"""Gray order, Hamming lengths, breakpoint DP and Gray-TSP order (graphanon.algorithms.nonreciprocal)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from graphanon.algorithms.nonreciprocal import (
    consecutive_hamming,
    gray_order,
    gray_tsp_details,
    gray_tsp_order,
    hamming_cycle_length,
    hamming_matrix,
    order_report,
    segment_breakpoints,
)
from graphanon.counting.bitset import pack_bytes as pack_rows
from graphanon.datasets import load
from graphanon.errors import DataFormatError, ParameterError

# ---------------------------------------------------------------- helpers


def brute_gray_rank(row) -> int:
    """Integer r whose Gray code r ^ (r >> 1) is the bitmap (item 0 = MSB)."""
    g = 0
    for bit in row:
        g = (g << 1) | int(bit)
    r, shift = g, g >> 1
    while shift:
        r ^= shift
        shift >>= 1
    assert r ^ (r >> 1) == g
    return r


def brute_cycle(X, order) -> int:
    X = np.asarray(X, dtype=int)
    n = len(order)
    return int(sum(np.sum(X[order[p]] != X[order[(p + 1) % n]]) for p in range(n)))


def brute_breakpoint_cost(h, n, m, M):
    """Minimum breakpoint cost over all compositions of n into parts in [m, M]."""
    best = None

    def rec(pos, cost):
        nonlocal best
        if pos == n:
            best = cost if best is None else min(best, cost)
            return
        for L in range(m, M + 1):
            if pos + L > n:
                break
            rec(pos + L, cost + (h[pos - 1] if pos > 0 else 0))

    rec(0, 0)
    return best


def dp_cost(X, order, bounds):
    h = consecutive_hamming(X, order, cyclic=False)
    return int(sum(h[c - 1] for c in bounds[1:-1]))


bitmaps = st.integers(1, 12).flatmap(
    lambda b: arrays(np.bool_, st.tuples(st.integers(0, 40), st.just(b)))
)

# ---------------------------------------------------------------- golden


@pytest.fixture(scope="module")
def table1():
    return load("nr_table1")


def ids(data, order):
    return [data.record_ids[i] for i in order]


def test_golden_items_are_msb_first(table1):
    assert table1.items == ("Jogging", "Swimming", "Tennis", "Soccer")
    dense = table1.matrix.toarray().astype(int)
    assert ["".join(map(str, r)) for r in dense] == ["1100", "0110", "1101", "0111", "1110", "1011"]


def test_golden_gray_order(table1):
    assert ids(table1, gray_order(table1)) == ["r2", "r4", "r1", "r3", "r5", "r6"]


def test_golden_cycle_lengths(table1):
    index = {r: i for i, r in enumerate(table1.record_ids)}
    assert hamming_cycle_length(table1, np.arange(6)) == 14
    assert hamming_cycle_length(table1, gray_order(table1)) == 12
    tsp_paper = [index[r] for r in ["r2", "r4", "r3", "r1", "r5", "r6"]]
    assert hamming_cycle_length(table1, tsp_paper) == 10


def test_golden_tsp_single_segment_reaches_10(table1):
    res = gray_tsp_details(table1, time_limit=None, step_limit=4000)
    assert res.bounds.tolist() == [0, 6]  # n < min_segment: one segment
    order = res.order
    assert sorted(order.tolist()) == list(range(6))
    # ends fixed as in the Gray order: r2 first, r6 last
    assert ids(table1, order)[0] == "r2" and ids(table1, order)[-1] == "r6"
    # brute force over all interior permutations: 10 is the optimum with these ends
    gray = gray_order(table1)
    best = min(
        hamming_cycle_length(table1, [gray[0], *perm, gray[-1]])
        for perm in itertools.permutations(gray[1:-1])
    )
    assert best == 10
    assert hamming_cycle_length(table1, order) == 10
    assert res.gray_costs.tolist() == [9] and res.tsp_costs.tolist() == [7]


def test_golden_report(table1):
    rep = order_report(table1, time_limit=None, step_limit=4000)
    assert (rep.identity, rep.gray, rep.gray_tsp) == (14, 12, 10)
    assert rep.n_records == 6 and rep.n_items == 4 and rep.n_segments == 1
    d = rep.as_dict()
    assert d["gray"] == 12 and d["params"]["step_limit"] == 4000


# ---------------------------------------------------------------- Gray order properties


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 16).flatmap(
        lambda b: arrays(np.bool_, st.tuples(st.integers(0, 60), st.just(b)))
    )
)
def test_gray_order_matches_brute_force_rank(X):
    order = gray_order(X)
    n = X.shape[0]
    assert order.dtype == np.int64 and sorted(order.tolist()) == list(range(n))
    ranks = [brute_gray_rank(r) for r in X]
    expected = sorted(range(n), key=lambda i: (ranks[i], i))  # stable: ties keep input order
    assert order.tolist() == expected


def test_gray_order_many_items_no_overflow():
    rng = np.random.default_rng(3)
    X = rng.random((200, 300)) < 0.05
    X[:3] = X[3]  # duplicates must keep input order
    order = gray_order(X)
    ranks = [brute_gray_rank(r) for r in X]  # python ints: arbitrary precision
    assert order.tolist() == sorted(range(200), key=lambda i: (ranks[i], i))
    # sparse input gives the same order
    assert gray_order(sp.csr_array(X)).tolist() == order.tolist()


def test_consecutive_gray_codes_differ_in_one_bit():
    b = 7
    ints = np.arange(2**b)
    gray = ints ^ (ints >> 1)
    X = ((gray[:, None] >> np.arange(b - 1, -1, -1)) & 1).astype(bool)
    shuffled = np.random.default_rng(0).permutation(2**b)
    order = gray_order(X[shuffled])
    assert shuffled[order].tolist() == list(range(2**b))
    assert consecutive_hamming(X, np.arange(2**b), cyclic=True).tolist() == [1] * 2**b


@settings(max_examples=40, deadline=None)
@given(bitmaps, st.randoms(use_true_random=False))
def test_hamming_functions_match_brute_force(X, rnd):
    n = X.shape[0]
    order = list(range(n))
    rnd.shuffle(order)
    assert hamming_cycle_length(X, order) == brute_cycle(X, order)
    D = hamming_matrix(X)
    Xi = X.astype(int)
    assert D.tolist() == [[int(np.sum(a != c)) for c in Xi] for a in Xi]


def test_pack_rows_sparse_and_dense_agree():
    rng = np.random.default_rng(1)
    X = rng.random((50, 37)) < 0.3
    pd, b = pack_rows(X)
    ps, bs = pack_rows(sp.csr_matrix(X.astype(np.int8)))
    assert b == bs == 37 and np.array_equal(pd, ps)
    data = load("nr_table1")
    assert pack_rows(data)[0][:, 0].tolist() == [
        0b11000000,
        0b01100000,
        0b11010000,
        0b01110000,
        0b11100000,
        0b10110000,
    ]


def test_empty_and_single_inputs():
    assert gray_order(np.zeros((0, 5), dtype=bool)).tolist() == []
    assert gray_order(np.zeros((3, 0), dtype=bool)).tolist() == [0, 1, 2]
    assert hamming_cycle_length(np.zeros((0, 4)), []) == 0
    assert gray_tsp_order(np.ones((1, 4))).tolist() == [0]
    assert segment_breakpoints(np.zeros((0, 2)), []).tolist() == [0]


# ---------------------------------------------------------------- breakpoint DP


@settings(max_examples=80, deadline=None)
@given(
    arrays(np.bool_, st.tuples(st.integers(1, 16), st.integers(1, 5))),
    st.integers(1, 5),
    st.integers(0, 4),
)
def test_dp_lengths_in_range_and_optimal(X, m, extra):
    M = m + extra
    n = X.shape[0]
    order = gray_order(X)
    h = consecutive_hamming(X, order, cyclic=False)
    best = brute_breakpoint_cost(h, n, m, M)
    if n < m:
        assert segment_breakpoints(X, order, m, M).tolist() == [0, n]
        return
    if best is None:  # infeasible
        with pytest.raises(ParameterError, match="cannot be cut into segments"):
            segment_breakpoints(X, order, m, M, strict=True)
        bounds = segment_breakpoints(X, order, m, M)
        t = -(-n // M)
        lengths = np.diff(bounds)
        # min_len relaxed to n // t; the cheapest partition may then use more than t segments
        assert len(lengths) >= t and lengths.min() >= n // t and lengths.max() <= M
        assert dp_cost(X, order, bounds) == brute_breakpoint_cost(h, n, n // t, M)
        return
    bounds = segment_breakpoints(X, order, m, M, strict=True)
    lengths = np.diff(bounds)
    assert bounds[0] == 0 and bounds[-1] == n
    assert lengths.min() >= m and lengths.max() <= M
    assert dp_cost(X, order, bounds) == best


def test_dp_on_real_data_lengths():
    data = load("mushroom")
    order = gray_order(data)
    bounds = segment_breakpoints(data, order)  # default [300, 350]
    lengths = np.diff(bounds)
    assert bounds[-1] == data.n_records and lengths.min() >= 300 and lengths.max() <= 350
    h = consecutive_hamming(data, order, cyclic=False)
    cost = int(h[bounds[1:-1] - 1].sum())
    # never worse than cutting every 325 records (a feasible partition here)
    naive = np.arange(325, data.n_records - 300, 325)
    assert cost <= int(h[naive - 1].sum())


def test_dp_with_a_user_order():
    X = [[0, 0], [0, 0], [1, 1], [1, 1], [0, 1], [0, 1]]
    assert segment_breakpoints(X, [0, 1, 2, 3, 4, 5], 2, 3).tolist() == [0, 3, 6]
    # in the order 0 2 1 3 4 5 every gap is 2 except 3->4 (1) and 4->5 (0)
    assert segment_breakpoints(X, [0, 2, 1, 3, 4, 5], 2, 4).tolist() == [0, 4, 6]


# ---------------------------------------------------------------- Gray-TSP


@settings(max_examples=15, deadline=None)
@given(
    arrays(np.bool_, st.tuples(st.integers(2, 30), st.integers(1, 10))),
    st.integers(2, 6),
    st.integers(0, 3),
    st.sampled_from(["local", "ortools"]),
)
def test_tsp_keeps_ends_and_never_lengthens(X, m, extra, solver):
    budget = {"step_limit": 50} if solver == "local" else {"time_limit": 0.05, "solution_limit": 20}
    res = gray_tsp_details(X, min_segment=m, max_segment=m + extra, solver=solver, **budget)
    n = X.shape[0]
    assert sorted(res.order.tolist()) == list(range(n))
    assert res.gray.tolist() == gray_order(X).tolist()
    h = consecutive_hamming(X, res.gray, cyclic=False)
    for s in range(len(res.bounds) - 1):
        lo, hi = res.bounds[s], res.bounds[s + 1]
        assert res.order[lo] == res.gray[lo] and res.order[hi - 1] == res.gray[hi - 1]
        assert set(res.order[lo:hi].tolist()) == set(res.gray[lo:hi].tolist())
        tsp = consecutive_hamming(X, res.order, cyclic=False)[lo : hi - 1].sum()
        assert res.gray_costs[s] == h[lo : hi - 1].sum()
        assert res.tsp_costs[s] == tsp <= res.gray_costs[s]
    assert hamming_cycle_length(X, res.order) <= hamming_cycle_length(X, res.gray)


def test_tsp_is_deterministic_with_solution_limit():
    data = load("chess").subset(np.arange(400))
    kw = dict(min_segment=100, max_segment=130, time_limit=5.0, solution_limit=5, rng=7, solver="ortools")
    a = gray_tsp_order(data, **kw)
    b = gray_tsp_order(data, **kw)
    assert a.tolist() == b.tolist()
    # segments are independent: worker processes give the same order, progress in order
    calls = []
    c = gray_tsp_order(data, n_jobs=2, progress=lambda d, t, msg: calls.append(d), **kw)
    assert c.tolist() == a.tolist()
    assert calls == list(range(1, len(calls) + 1)) and len(calls) >= 3


def test_tsp_improves_chess_and_reports_progress():
    data = load("chess").subset(np.arange(700))
    calls = []
    res = gray_tsp_details(
        data,
        min_segment=300,
        max_segment=350,
        time_limit=0.2,
        progress=lambda d, t, msg: calls.append((d, t)),
    )
    assert calls == [(1, 2), (2, 2)]
    assert res.solved.all()
    assert (
        res.tsp_costs < res.gray_costs
    ).all()  # chess segments are far from optimal in Gray order
    gray_len = hamming_cycle_length(data, res.gray)
    assert (
        hamming_cycle_length(data, res.order)
        < gray_len
        < hamming_cycle_length(data, np.arange(700))
    )


def test_tsp_skips_segments_of_identical_records():
    X = np.repeat(np.eye(4, dtype=bool), 10, axis=0)
    res = gray_tsp_details(X, min_segment=10, max_segment=10, time_limit=0.05)
    assert not res.solved.any()
    assert res.order.tolist() == res.gray.tolist()


# ---------------------------------------------------------------- bad input


def test_bad_inputs():
    with pytest.raises(DataFormatError, match="record 1 item 0 has value 2"):
        gray_order([[0, 1], [2, 0]])
    with pytest.raises(DataFormatError, match="2-D"):
        gray_order([0, 1, 1])
    with pytest.raises(DataFormatError, match="bitmaps must be 0/1"):
        gray_order(sp.csr_array(np.array([[0, 3]])))
    X = np.eye(3, dtype=bool)
    with pytest.raises(ParameterError, match="permutation"):
        hamming_cycle_length(X, [0, 1])
    with pytest.raises(ParameterError, match="repeats a record"):
        hamming_cycle_length(X, [0, 1, 1])
    with pytest.raises(ParameterError, match=r"order\[2\] = 5"):
        hamming_cycle_length(X, [0, 1, 5])
    with pytest.raises(ParameterError, match="integer record indices"):
        hamming_cycle_length(X, [0.0, 1.0, 2.0])
    with pytest.raises(ParameterError, match=r"max_len \(2\) must be >= min_len \(3\)"):
        segment_breakpoints(X, [0, 1, 2], 3, 2)
    with pytest.raises(ParameterError, match="min_len must be >= 1"):
        segment_breakpoints(X, [0, 1, 2], 0, 2)
    with pytest.raises(ParameterError, match="time_limit must be a positive"):
        gray_tsp_order(X, time_limit=0)
    with pytest.raises(ParameterError, match="solution_limit"):
        gray_tsp_order(X, solution_limit=0)
    with pytest.raises(ParameterError, match="metaheuristic must be one of"):
        gray_tsp_order(X, metaheuristic="genetic", solver="ortools")
    with pytest.raises(ParameterError, match="solution_limit=5 is an OR-Tools option"):
        gray_tsp_order(X, solution_limit=5, solver="local")
    with pytest.raises(ParameterError, match="metaheuristic='tabu_search' is an OR-Tools option"):
        gray_tsp_order(X, metaheuristic="tabu_search", solver="local")
    with pytest.raises(ParameterError, match="solver must be one of"):
        gray_tsp_order(X, solver="genetic")
    with pytest.raises(ParameterError, match="min_segment must be an integer"):
        gray_tsp_order(X, min_segment=2.5)
    with pytest.raises(ParameterError, match="n_jobs must be an integer >= 1"):
        gray_tsp_order(X, n_jobs=0)
    with pytest.raises(ParameterError, match="rng must be None, a non-negative"):
        gray_tsp_order(X, rng="a")


def test_docstring_examples():
    import doctest

    import graphanon.algorithms.nonreciprocal.cahd_groups as cahd_mod
    import graphanon.algorithms.nonreciprocal.gray as order_mod
    import graphanon.counting.bitset as bitset_mod

    for mod in (bitset_mod, order_mod, cahd_mod):
        result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0, mod.__name__
