"""Assignment extraction from generalization graphs: the entry point.

An *assignment* is a perfect matching of the generalization graph: an array
``a`` with ``a[i]`` the published record standing for original record ``i``
(a permutation whose every edge ``i -> a[i]`` is in the graph). A k-regular
graph is the union of k disjoint assignments; this module extracts them.

Three extractors:

* :func:`extract_assignments` with ``method="closed-walk"`` -- the randomized
  closed walk of Xue et al. (Algorithm 1): a walk that may revisit vertices;
  every revisit closes a *deviant cycle*, which is dropped (loop erasure).
* ``method="backtracking"`` -- the WMC baseline of Wong et al.: a
  depth-first search for a simple cycle that backtracks at dead ends.
* :func:`greedy_diverse_assignments` -- l-diverse assignments: by default a
  min-cost l-diverse graph (min-cost flow) separated by the closed walk; or
  the paper's greedy walk (Algorithm 2, ``greedyPick``) on the complete graph.

How a round works (both random extractors)
------------------------------------------
A round keeps a bijection ``A`` (initially the identity, not necessarily made
of usable edges) and a set ``L`` of unprocessed records. A walk starts at a
random ``u in L`` whose slot ``A[u] = u`` is vacated; each step lets the
current record ``x`` take an unused edge ``x -> y`` and moves to the record
``A^{-1}(y)`` it displaces; the walk ends when it reaches ``u``'s vacated
slot. The matchings of the loop-erased walk are written into ``A`` and its
records leave ``L``. ``A`` stays a bijection throughout; when ``L`` is empty
every record holds an unused edge, i.e. ``A`` is a perfect matching of the
remaining graph. Because the remaining graph is regular (Eulerian in the
"displacement" view), a walk that never reuses an edge can only get stuck
where it started, so the closed walk always closes (Xue et al., Theorem 4.1).

Both random extractors keep, per record, the list of its edges not used by
earlier rounds, so a step never looks at a used edge. A closed-walk step
draws uniform proposals among those edges and accepts one only if it is a
preferred next hop, scanning the list once if two proposals fail; the
choice is uniform among the preferred next hops either way (see
:func:`closed_walk_round`). Backtracking draws its random edge order lazily
(Fisher-Yates), one draw per tried edge.

All hot loops are compiled with numba; randomness comes from the ``rng``
argument (a seed is drawn from it per round: for numba's generator in the
greedy walk, for a splitmix64 stream in the two random extractors).

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 4.2 (closed walk, Algorithm 1,
Theorem 4.1) and Sec. 4.4 (greedy assignment extraction, Algorithm 2).
Wong, Liu, Fu, Wang, Wang. Non-homogeneous generalization in privacy
preserving data publishing. SIGMOD 2010 (backtracking extraction, "WMC").
"""

from __future__ import annotations

import numpy as np

from graphanon.algorithms.nonreciprocal._kernels import ExtractionStats, drop_used_edges, edge_lists
from graphanon.algorithms.nonreciprocal.backtracking import backtracking_round
from graphanon.algorithms.nonreciprocal.closed_walk import CW_PROPOSALS, closed_walk_round
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.graphs.generalization import GeneralizationGraph
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.randomness import check_random_state

__all__ = ["ExtractionStats", "check_assignments", "extract_assignments"]


def check_assignments(graph: GeneralizationGraph, assignments) -> None:
    """Raise ``InfeasibleError`` unless ``assignments`` are ``graph.k`` disjoint perfect matchings inside ``graph`` that together use every edge exactly once."""
    a = np.asarray(assignments, dtype=np.int64)
    n, k = graph.n, graph.k
    if a.shape != (k, n):
        raise InfeasibleError(f"expected {k} assignments of {n} records, got shape {a.shape}")
    for r in range(k):
        if not np.array_equal(np.sort(a[r]), np.arange(n)):
            raise InfeasibleError(f"assignment {r} is not a permutation (not a perfect matching)")
        if not graph.contains_assignment(a[r]):
            bad = int(np.flatnonzero(~(graph.successors == a[r][:, None]).any(axis=1))[0])
            raise InfeasibleError(f"assignment {r} uses edge {bad} -> {int(a[r][bad])}, which is not in the graph")
    for i in range(n):
        if len(set(a[:, i].tolist())) != k:
            raise InfeasibleError(f"record {i} is matched to the same published record twice: {a[:, i].tolist()}")


def extract_assignments(
    graph: GeneralizationGraph,
    *,
    method: str = "closed-walk",
    rng=None,
    stats: dict | None = None,
    progress: ProgressCallback | None = None,
) -> np.ndarray:
    """Extract ``k`` disjoint assignments from a k-regular generalization graph.

    Parameters
    ----------
    graph : GeneralizationGraph
        A k-regular graph (``graph.is_k_regular()``).
    method : {"closed-walk", "backtracking"}
        ``closed-walk``: the randomized closed walk of Xue et al. (revisits
        allowed, deviant cycles dropped; next hop uniform among the unused,
        not yet walked edges whose record is not yet visited by the walk,
        else uniform among the other unused, not yet walked edges).
        ``backtracking``: the WMC baseline of Wong et al. (depth-first search
        for a simple cycle trying edges in random order; a vertex left by
        backtracking stays blocked for the rest of that search, which keeps
        each search linear in the edges).
    rng : numpy Generator or int seed, optional
        Source of randomness.
    stats : dict, optional
        Filled with ``steps`` (list, per round) for benchmarking: edges walked
        (closed walk), or edges tried plus backtracks (backtracking).
    progress : callable(done, total, message), optional

    Returns
    -------
    ndarray of int64, shape (k, n)
        ``out[r, i]`` is the published record of ``i`` in assignment ``r``.
        The k rows are disjoint perfect matchings whose union is the graph.

    Raises
    ------
    ParameterError
        If the graph is not k-regular or ``method`` is unknown.

    Notes
    -----
    Both methods share the same machinery: records relabelled in
    breadth-first order (memory locality), per-record lists of the edges not
    used by earlier rounds (swap-removal after each round), one splitmix64
    draw per random choice, and a per-walk stamp on published records whose
    holder is visited (one load to test "visited"). The closed walk draws up
    to two uniform proposals and accepts one only if it is a preferred next
    hop, else scans the record's unused edges once (the result is uniform
    among preferred edges either way); backtracking draws its random edge
    order lazily (Fisher-Yates, one draw per tried edge).

    Complexity: let ``c <= k`` be the number of unused edges of the current record.
    Closed walk: a step costs O(1) when a proposal is accepted and O(c) when
    the record's unused edges are scanned (every preferred next hop is then
    visited or rare); backtracking: O(1) per tried edge and per backtrack.
    A walk or search makes O(n k) steps; a round O(n^2 k) in the worst case
    (the bound Xue et al. quote for WMC), near-linear in practice on ring
    graphs. Bookkeeping is O(n k) per round, O(n k^2) overall; memory
    O(n k).

    Examples
    --------
    >>> from graphanon.graphs.generalization import ring_graph
    >>> g = ring_graph(range(6), 3)
    >>> A = extract_assignments(g, rng=0)
    >>> A.shape, sorted(A[0].tolist())
    ((3, 6), [0, 1, 2, 3, 4, 5])

    References
    ----------
    Xue et al., KDD 2012, Sec. 4.2, Algorithm 1. Wong et al., SIGMOD 2010.
    """
    if method not in ("closed-walk", "backtracking"):
        raise ParameterError(f"method must be 'closed-walk' or 'backtracking', got {method!r}")
    if not graph.is_k_regular():
        raise ParameterError(
            "assignment extraction needs a k-regular generalization graph (every record with k out- and k in-edges)"
        )
    rng = check_random_state(rng)
    n, k = graph.n, graph.k
    ay, at, cnt, order = edge_lists(np.ascontiguousarray(graph.successors), relabel=True)
    out = np.empty((k, n), dtype=np.int64)
    steps = []
    empty_trace = np.zeros((0, 4), dtype=np.int64)
    for r in range(k):
        starts = rng.permutation(n).astype(ay.dtype)
        seed = rng.integers(2**64, dtype=np.uint64)
        if method == "closed-walk":
            A, slot, st, ok, _ = closed_walk_round(ay, at, cnt, starts, seed, CW_PROPOSALS, empty_trace)
        else:
            A, slot, st, ok = backtracking_round(ay, at, cnt, starts, seed, False)
        if not ok:
            raise InfeasibleError(
                f"assignment extraction got stuck in round {r + 1}; the graph is not the union of {k} "
                "disjoint perfect matchings"
            )
        drop_used_edges(ay, at, cnt, slot)
        out[r, order] = order[A]
        steps.append(int(st))
        if progress is not None:
            progress(r + 1, k, f"assignment {r + 1}/{k} ({method})")
    if stats is not None:
        stats["steps"] = steps
    return out
