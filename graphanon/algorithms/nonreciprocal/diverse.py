"""l-diverse assignments: min-cost flow graph + closed walk, or the paper's greedy walk.

The entry point :func:`greedy_diverse_assignments` picks the implementation
(``method="flow"``, the default, or ``"greedy-walk"``).
"""

from __future__ import annotations

import numpy as np

from graphanon.algorithms.nonreciprocal.diverse_flow import diverse_flow
from graphanon.algorithms.nonreciprocal.extraction import extract_assignments
from graphanon.algorithms.nonreciprocal.greedy_walk import greedy_walk_rounds
from graphanon.counting.bitset import pack_words
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.graphs.generalization import GeneralizationGraph
from graphanon.utils.progress import ProgressCallback
from graphanon.utils.randomness import check_random_state
from graphanon.utils.validation import check_diversity_feasible, check_order

__all__ = ["greedy_diverse_assignments"]


def _label_codes(labels) -> np.ndarray:
    index: dict = {}
    return np.array([index.setdefault(v, len(index)) for v in labels], dtype=np.int64)


def _check_diverse_rounds(out, lab, l: int) -> None:  # noqa: E741
    """Raise ``InfeasibleError`` unless ``out`` holds ``l`` permutations giving every record ``l`` distinct labels (hence ``l`` distinct published records)."""
    n = lab.shape[0]
    if out.shape != (l, n) or not (np.sort(out, axis=1) == np.arange(n)).all():
        raise InfeasibleError("l-diverse assignments are not perfect matchings")
    labs = np.sort(lab[out], axis=0)
    if l > 1 and (labs[1:] == labs[:-1]).any():
        bad = int(np.flatnonzero((labs[1:] == labs[:-1]).any(axis=0))[0])
        raise InfeasibleError(f"record {bad} has two matches with the same label: {out[:, bad].tolist()}")


def greedy_diverse_assignments(
    X,
    labels,
    l: int,  # noqa: E741
    order,
    *,
    rng=None,
    method: str = "flow",
    window: int | None = None,
    refine: int = 2,
    lookahead: int = 0,
    stats: dict | None = None,
    progress: ProgressCallback | None = None,
) -> np.ndarray:
    """Build ``l`` disjoint assignments whose union makes every record l-diverse.

    An assignment is a perfect matching of records to published records
    (published record ``v`` carries record ``v``'s label). The result holds
    ``l`` of them such that every record's ``l`` published records carry
    ``l`` distinct labels -- hence are ``l`` distinct published records, so
    the assignments are disjoint and their union is an l-regular
    generalization graph. The first assignment is the identity (each record's
    own published record is one of its matches). Two methods:

    * ``method="flow"`` (default): the union graph is built at once as a
      minimum-cost l-diverse graph by a min-cost flow (OR-Tools
      ``SimpleMinCostFlow``) on ``record u -> (u, label c) -> published v``:
      every record gets ``l - 1`` published records besides itself, at most
      one per label and none of its own label; every published record gets
      ``l - 1`` preimages besides its own record. The cost of ``u -> v`` is
      ``H(u, v) / |u|`` (ER's per-record term with ``v``'s own bitmap
      standing in for its vote; scaled by 1024 and rounded to integers);
      then ``refine`` more solves cost ``u -> v`` by ``H(u, b_v) / |u|``
      with ``b_v`` the bit vote of ``v``'s preimages in the previous graph,
      and the graph of least expected ER (the mean of ``H(u, b_v) / |u|``
      over its edges, i.e. ER averaged over the assignments) is kept.
      Candidate pairs are the label-eligible records within ``window``
      positions in ``order``, plus ``l - 1`` *certificate* pairs per record
      that by themselves form a feasible solution (records sorted by label,
      each joined to the records ``j floor(n/l)`` positions on,
      ``j = 1..l-1``), so the flow always has a solution. The ``l - 1``
      non-identity assignments are then separated by the random closed walk
      (:func:`extract_assignments`; the graph is (l-1)-regular).

    * ``method="greedy-walk"`` (the paper, Algorithm 2, ``greedyPick``):
      ``l`` rounds of greedy closed walks on the complete generalization
      graph; the next hop of record ``u`` is the record nearest to ``u`` in
      ``order`` (alternating after/before, the lower Hamming distance first)
      whose label is not yet among ``u``'s matches and whose edge was not
      walked yet, preferring records not yet visited by the current walk.

    Parameters
    ----------
    X : sparse or dense boolean matrix, shape (n, d)
        Record bitmaps (for Hamming distances).
    labels : sequence, length n
        Sensitive label of each record.
    l : int
        Diversity level; feasibility is checked up front
        (:func:`check_diversity_feasible`).
    order : permutation of ``0..n-1``
        Cyclic record order (the Gray-TSP order in the paper).
    rng : Generator or seed, optional
        Randomness of the walks (both methods).
    method : {"flow", "greedy-walk"}
        How the l-diverse graph is built (see above).
    window : int, optional
        ``flow`` (default 128): half-width of the order window of candidate
        pairs (the whole data when ``2 window + 1 >= n``); wider windows
        lower ER and cost time (docs/performance_nonreciprocal.md).
        ``greedy-walk`` (default 64): once a visited (last-resort) candidate
        is found, keep scanning at most this many further positions for an
        unvisited one (the paper scans the whole order; the bound keeps each
        pick O(window)).
    refine : int
        ``flow`` only: number of re-solves with costs to the previous
        graph's voted bases (0: Hamming to the published record's own
        bitmap only).
    lookahead : int
        ``greedy-walk`` only. 0 (the paper): return the first eligible
        unvisited record found scanning outward. ``h > 0``: keep scanning
        ``h`` more positions and return the eligible unvisited record of
        least Hamming distance.
    stats : dict, optional
        ``flow``: filled with ``candidate_arcs``, ``certificate_edges``
        (chosen edges outside the window), ``mean_hamming`` (of the chosen
        non-identity edges), ``expected_error_rate`` (per solve) and
        ``chosen_solve``. ``greedy-walk``: ``fallback_rounds``.
    progress : callable(done, total, message), optional

    Returns
    -------
    ndarray of int64, shape (l, n)
        Disjoint assignments, row 0 the identity; row ``r`` column ``i`` is
        the published record of ``i`` in assignment ``r``. For every ``i``
        the labels of ``out[:, i]`` are distinct (checked before returning).

    Raises
    ------
    ParameterError
        For an infeasible ``l`` (fewer than ``l`` labels, or a label on more
        than ``n / l`` records) or an unknown ``method``.
    InfeasibleError
        ``greedy-walk``: if a round cannot be completed (earlier rounds can
        leave no label-eligible perfect matching even when ``l`` is
        feasible). ``flow``: only on a solver failure.

    Notes
    -----
    Why not round by round. Building one assignment per round (the paper's
    walk, or a min-cost perfect matching per round) can paint itself into a
    corner: with labels ``a a a b b b c d e`` and l = 3, a second round
    matching the ``a`` records to ``b`` records and vice versa is valid and
    cheapest when those records are alike, but leaves six records needing
    labels ``c``, ``d`` or ``e`` in the third round, which only three
    published records carry. The flow decides all ``l - 1`` matches of every
    record jointly, and the certificate arcs guarantee a solution whenever
    ``check_diversity_feasible`` passes.

    ``greedy-walk``: the label constraint also breaks the regularity that
    guarantees a closed walk closes (Theorem 4.1): in late rounds a walk may
    wander without reaching its start's slot. A greedy walk longer than
    ``20 n + 1000`` steps (or a round longer than ``300 n`` steps, or a pick
    that finds no eligible record within ``4 window + 64`` positions)
    abandons the greedy walk for that round, which is redone by label-aware
    *random* closed walks (uniform eligible next hops, same preference for
    unvisited records). Those rounds cost utility;
    ``stats["fallback_rounds"]`` lists them.

    Complexity: ``flow``: per solve, O(n (window + l) w) for the arc costs (``w``
    64-bit words per bitmap) and OR-Tools' cost-scaling min-cost flow on
    O(n (window + l)) arcs, O(n^2 (window + l) log(n C)) in the worst case
    and seconds in practice (docs/performance_nonreciprocal.md); O(n l d)
    for each vote; then the closed-walk separation, O(n l) steps in
    practice. ``greedy-walk``: O(n (window + w)) per round
    in practice.

    References
    ----------
    Xue et al., KDD 2012, Sec. 4.4, Algorithm 2 (greedyPick). Ahuja,
    Magnanti, Orlin, *Network Flows*, 1993, Ch. 9-10 (min-cost flow; a
    degree-constrained subgraph as a flow).
    """
    if method not in ("flow", "greedy-walk"):
        raise ParameterError(f"method must be 'flow' or 'greedy-walk', got {method!r}")
    n = len(labels) if labels is not None else 0
    check_diversity_feasible(labels, l)
    order = check_order(order, n)
    if window is None:
        window = 128 if method == "flow" else 64
    if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
        raise ParameterError(f"window must be a whole number >= 1, got {window!r}")
    if isinstance(refine, bool) or not isinstance(refine, (int, np.integer)) or refine < 0:
        raise ParameterError(f"refine must be a whole number >= 0, got {refine!r}")
    rng = check_random_state(rng)
    P = pack_words(X)
    if P.shape[0] != n:
        raise ParameterError(f"X has {P.shape[0]} rows but {n} labels were given")
    lab = _label_codes(labels)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    if method == "greedy-walk":
        out = greedy_walk_rounds(P, lab, l, order, rank, rng, window, lookahead, progress, stats)
    else:
        out = np.empty((l, n), dtype=np.int64)
        out[0] = np.arange(n)
        if l > 1:
            if progress is not None:
                progress(0, 2, "l-diverse graph (min-cost flow)")
            lens = np.maximum(np.bitwise_count(P).sum(axis=1), 1).astype(np.int64)
            succ = diverse_flow(P, lab, lens, l, order, rank, int(window), int(refine), stats)
            if progress is not None:
                progress(1, 2, "separating the l-diverse graph into assignments")
            out[1:] = extract_assignments(GeneralizationGraph(succ), rng=rng)
        elif stats is not None:
            stats.update(candidate_arcs=0, certificate_edges=0, mean_hamming=0.0, expected_error_rate=[0.0],
                         chosen_solve=0)
        if progress is not None:
            progress(2, 2, "l-diverse assignments")
    _check_diverse_rounds(out, lab, l)
    return out
