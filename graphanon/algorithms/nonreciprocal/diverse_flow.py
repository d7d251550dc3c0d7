"""The min-cost l-diverse generalization graph (min-cost flow, OR-Tools).

A flow on ``record u -> (u, label c) -> published v`` whose arcs are the
label-eligible pairs within a window of the record order plus certificate
arcs that guarantee feasibility; refined by re-costing against the voted
bases (:func:`graphanon.counting.bitset.vote_words`).
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.counting.bitset import popcount64, vote_words
from graphanon.errors import InfeasibleError, ParameterError


@numba.njit(cache=True)
def _window_arcs(order, rank, lab, window):
    """Candidate arcs ``x -> y`` of the l-diverse flow.

    ``y`` within ``window`` positions of ``x`` in the cyclic order (all records when ``2 window
    + 1 >= n``) with ``lab[y] != lab[x]`` (so ``y != x``).
    """
    n = order.shape[0]
    width = min(2 * window + 1, n)
    left = np.empty(n * width, dtype=np.int64)
    right = np.empty(n * width, dtype=np.int64)
    m = 0
    for x in range(n):
        i = rank[x]
        for d in range(width):
            y = order[(i - window + d) % n] if width < n else d
            if lab[y] == lab[x]:
                continue
            left[m] = x
            right[m] = y
            m += 1
    return left[:m], right[:m]


@numba.njit(cache=True)
def _cross_costs(P, Q, left, right, lens, scale):
    """``round(scale H(P[left[i]], Q[right[i]]) / lens[left[i]])`` per arc."""
    cost = np.empty(left.shape[0], dtype=np.int64)
    for i in range(left.shape[0]):
        x = left[i]
        y = right[i]
        h = 0
        for w in range(P.shape[1]):
            h += popcount64(P[x, w] ^ Q[y, w])
        cost[i] = (scale * h + lens[x] // 2) // lens[x]
    return cost


_COST_SCALE = 1024  # flow arc cost = round(_COST_SCALE * H(u, v) / |u|): ER's per-record weight, in integers


def _certificate_arcs(lab, l: int):  # noqa: E741
    """``l - 1`` arcs per record that form, with the identity, a feasible l-diverse graph.

    Records sorted by label (contiguous label groups) sit at positions
    ``0..n-1``; the record at position ``p`` gets the records at positions
    ``p + j s (mod n)``, ``j = 1..l-1``, with ``s = floor(n / l)``. Every label
    group has at most ``s`` records (``check_diversity_feasible``: at most
    ``n / l``), and two of these positions are at least ``s`` apart both ways
    round the cycle, so they fall in different label groups; every position is
    reached from exactly ``l - 1`` others. The circulant is the proof that the
    flow problem is feasible whatever the order window holds.
    """
    n = lab.shape[0]
    grouped = np.argsort(lab, kind="stable")
    s = n // l
    pos = np.arange(n)
    left = np.tile(grouped, l - 1)
    right = grouped[(pos[None, :] + s * np.arange(1, l)[:, None]) % n].ravel()
    return left.astype(np.int64), right.astype(np.int64)


def _solve_diverse_flow(left, right, cost, lab, l: int):  # noqa: E741
    """Min-cost flow over the candidate arcs; returns the successor matrix ``(n, l - 1)``."""
    from ortools.graph.python import min_cost_flow

    n = lab.shape[0]
    n_labels = int(lab.max()) + 1
    rl, rl_arc = np.unique(left * n_labels + lab[right], return_inverse=True)
    n_rl = rl.shape[0]
    # OR-Tools takes int32 node and arc ids and int64 costs; costs are at most 2048 d (d items), so
    # the cost scaling's cost * (nodes + 1) stays far inside int64 for any d below 10^6
    if 2 * n + n_rl >= 2**31 or n_rl + left.shape[0] >= 2**31:
        raise ParameterError(
            f"the l-diverse flow needs {2 * n + n_rl} nodes and {n_rl + left.shape[0]} arcs, more than OR-Tools' "
            "int32 ids; lower window"
        )
    # nodes: records 0..n-1, published n..2n-1, (record, label) 2n..2n+n_rl-1
    tails = np.concatenate([rl // n_labels, 2 * n + rl_arc]).astype(np.int32)
    heads = np.concatenate([2 * n + np.arange(n_rl), n + right]).astype(np.int32)
    caps = np.ones(tails.shape[0], dtype=np.int64)
    costs = np.concatenate([np.zeros(n_rl, dtype=np.int64), cost])
    flow = min_cost_flow.SimpleMinCostFlow()
    flow.add_arcs_with_capacity_and_unit_cost(tails, heads, caps, costs)
    supply = np.concatenate([np.full(n, l - 1), np.full(n, -(l - 1))]).astype(np.int64)
    flow.set_nodes_supplies(np.arange(2 * n, dtype=np.int32), supply)
    status = flow.solve()
    if status != flow.OPTIMAL:
        # the certificate arcs make the problem feasible; anything else is a solver failure
        raise InfeasibleError(f"min-cost flow for the l-diverse graph ended with status {status!r}")
    used = flow.flows(np.arange(n_rl, n_rl + left.shape[0], dtype=np.int32)) > 0
    u, v = left[used], right[used]
    if u.shape[0] != n * (l - 1) or not np.array_equal(np.bincount(u, minlength=n), np.full(n, l - 1)):
        raise InfeasibleError("min-cost flow returned an irregular l-diverse graph")
    return v[np.argsort(u, kind="stable")].reshape(n, l - 1), used


def _expected_error(P, succ, lens):
    """Mean of ``H(x, base of v) / lens[x]`` over the edges ``x -> v`` of ``succ``.

    The error rate of a release averaged over the assignments that partition the graph.
    """
    n, k = succ.shape
    flat = succ.ravel()
    pre_idx = np.argsort(flat, kind="stable") // k
    pre_ptr = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=n))]).astype(np.int64)
    B = vote_words(P, pre_ptr, pre_idx.astype(np.int64))
    h = _cross_costs(P, B, np.repeat(np.arange(n), k), succ.ravel(), np.ones(n, dtype=np.int64), 1)
    return float(np.mean(h.reshape(n, k) / lens[:, None])), B


def diverse_flow(P, lab, lens, l: int, order, rank, window: int, refine: int, stats):  # noqa: E741
    """Successor matrix ``(n, l - 1)``: the min-cost l-diverse edges besides the identity.

    A min-cost flow on ``record u -> (u, label c) -> published v``: each record
    sends ``l - 1`` units, each (record, label) node passes at most one (so a
    record's published records carry distinct labels, none its own), each
    published record absorbs ``l - 1``. Candidate arcs are the label-eligible
    pairs within ``window`` positions in ``order`` plus the certificate arcs
    of :func:`_certificate_arcs`, so a feasible flow always exists. The first
    solve costs ``u -> v`` by ``H(u, v) / |u|``; each of the ``refine``
    further solves by ``H(u, base of v) / |u|`` with the bases voted on the
    previous graph. The graph of least expected error rate is returned.
    """
    n = lab.shape[0]
    wl, wr = _window_arcs(order, rank, lab, window)
    cl, cr = _certificate_arcs(lab, l)
    key = np.concatenate([wl, cl]) * n + np.concatenate([wr, cr])
    key, first = np.unique(key, return_index=True)
    left, right = key // n, key % n
    in_window = first < wl.shape[0]
    identity = np.arange(n, dtype=np.int64)[:, None]
    Q = P
    best = None
    errors = []
    for it in range(refine + 1):
        cost = _cross_costs(P, Q, left, right, lens, _COST_SCALE)
        succ, used = _solve_diverse_flow(left, right, cost, lab, l)
        err, Q = _expected_error(P, np.hstack([identity, succ]), lens)
        errors.append(err)
        if best is None or err < best[0]:
            best = (err, it, succ, used)
    assert best is not None  # refine >= 0: at least one solve
    err, it, succ, used = best
    if stats is not None:
        ones = np.ones(n, dtype=np.int64)
        stats["candidate_arcs"] = int(left.shape[0])
        stats["certificate_edges"] = int((used & ~in_window).sum())
        stats["mean_hamming"] = float(np.mean(_cross_costs(P, P, np.repeat(identity[:, 0], l - 1), succ.ravel(), ones, 1)))
        stats["expected_error_rate"] = errors
        stats["chosen_solve"] = it
    return succ
