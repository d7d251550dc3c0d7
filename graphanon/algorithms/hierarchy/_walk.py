"""The top-down greedy walk of the cut lattice shared by HgHs and mHgHs (Liu & Wang, PAKDD 2010, Sec. 3).

Split from :mod:`graphanon.algorithms.hierarchy.hghs` (issue 12: modules under ~500 lines).
:func:`walk_round` runs one round: every move evaluates all child cuts of the
current cut by their cost *changes* (see :func:`walk_round`) and evaluates the
chosen one in full.
"""

from __future__ import annotations

import numpy as np

from graphanon.algorithms.hierarchy._index import HierarchyIndex, ThreatSet, evaluate_cut
from graphanon.algorithms.hierarchy._search import CutReplay, SearchRound, WalkStep

__all__ = ["EPS", "evaluate_cut", "walk_round"]

EPS = 1e-9  # relative tolerance of the walk's cost comparisons

_MAX_CANDIDATES = 200_000  # candidate entries kept in a round's trace (for the lattice drawing)


def walk_round(
    index: HierarchyIndex, threats: ThreatSet, k, m, expandable, progress, round_label, allowed=None, frontier=None
) -> SearchRound:
    """The top-down greedy walk of one round, from ``{root}``.

    Each move evaluates every child cut (one expandable cut node replaced by
    its children) by its change of cost, picks the first cheapest (a later
    candidate wins only when cheaper by more than the relative tolerance
    ``EPS``), evaluates that cut in full (its cost and suppression scenario
    are the ones recorded) and moves there while that lowers the cost.

    * When every threat is a single node (mHgHs round 1, HgHs with m=1) a
      node is suppressed exactly when it is a threat, so the cost is a sum of
      per-node terms and a child cut's change is a fixed per-node delta: a
      move is one vectorized gather.
    * Otherwise :func:`~graphanon.algorithms.hierarchy._kernels.child_cut_deltas`
      finds each candidate's change of the greedy scenario from the nodes it
      touches (its children and the later threat partners of nodes whose
      fate changes), all candidates in one compiled call.

    Both give the costs of evaluating every child cut in full, up to
    floating-point summation order (compared with the relative tolerance
    ``EPS``; the chosen cut is then evaluated in full), which
    ``tests/test_large_vocabulary.py`` checks against a plain loop.

    The round's steps keep the expanded nodes, costs and candidates; a step's
    ``cut`` and ``suppressed`` are replayed on demand (:class:`CutReplay`), so
    the trace takes O(moves) memory instead of O(moves x cut).
    """
    from graphanon.algorithms.hierarchy._kernels import (  # numba: loaded when run
        child_cut_deltas,
        first_best,
    )

    cur = np.array([0], dtype=np.int64)
    cost, g, s, sup = evaluate_cut(index, threats, cur)
    rnd = SearchRound(
        k=k, m=m, start=index.labels(cur), start_cost=(cost, g, s, index.labels(np.sort(sup))),
        n_threats=len(threats), allowed=allowed, frontier=frontier,
    )
    replay = CutReplay(index, threats, cur)
    n_exp = int(expandable.sum())
    singletons = bool(len(threats) == 0 or threats.sizes.max() == 1)
    if singletons:
        is_threat = np.zeros(index.n_nodes, dtype=bool)
        is_threat[threats.members[:, 0]] = True
        node_cost = index.gen_cost + np.where(is_threat, index.sup_cost, 0.0)
        delta = np.zeros(index.n_nodes)
        delta_sup = np.zeros(index.n_nodes, dtype=np.int64)
        parent = index.parent[1:]
        np.add.at(delta, parent, node_cost[1:])
        np.add.at(delta_sup, parent, is_threat[1:].astype(np.int64))
        delta -= node_cost
        delta_sup -= is_threat
    else:
        near = _NearThreats(index, threats, expandable)
        near.enter(cur)
        in_cut = np.zeros(index.n_nodes, dtype=bool)
        in_cut[cur] = True
        kept = in_cut.copy()
        kept[sup] = False
    n_cands = 0
    while True:
        xs = cur[expandable[cur]]
        if singletons:
            dc, dn = delta[xs], delta_sup[xs]
        else:
            dc, dn = child_cut_deltas(
                xs, in_cut, kept, index.rank, index.by_rank, index.child_ptr, index.child_idx,
                threats.ptr, near.idx, near.n, threats.members, threats.sizes, index.gen_cost, index.sup_cost,
            )
        costs = cost + dc
        best = None
        if len(xs):
            x = int(xs[first_best(costs)])
            i = int(np.searchsorted(cur, x))  # x's subtree holds no other cut node: its children take its place
            cand = np.concatenate([cur[:i], index.children(x), cur[i + 1 :]])
            best = (*evaluate_cut(index, threats if singletons else near, cand), x, cand)
        n_cands += len(xs)
        cands: list | None = None  # the trace keeps the path, not every evaluated candidate, on large taxonomies
        if n_cands <= _MAX_CANDIDATES:
            cands = list(zip(index.labels(xs), costs.tolist(), (len(sup) + dn).tolist(), strict=True))
        if best is None or best[0] >= cost - EPS * max(1.0, abs(cost)):
            rnd.final_candidates = cands
            break
        cost, g, s, sup, x, cur = best
        if not singletons:
            near.enter(index.children(x))
            in_cut[x] = False
            in_cut[index.children(x)] = True
            kept = in_cut.copy()
            kept[sup] = False
        rnd.steps.append(WalkStep(replay, len(rnd.steps), x, cost, g, s, cands))
        if progress:
            progress(len(rnd.steps), n_exp, f"{round_label}: expanded {index.nodes[x]!r}, cost {cost:.4g}")
    return rnd


class _NearThreats:
    """The threats that can matter to the walk's next move, listed per node.

    A child cut of the current cut ``C`` lies in the *near set* ``N = C +
    children of C's expandable nodes``, so only threats lying wholly in ``N``
    can complete in a candidate's scenario. When a node enters the cut its
    expandable children enter ``N`` (:meth:`enter`); a threat whose last
    member enters is appended to its members' lists
    (:func:`~graphanon.algorithms.hierarchy._kernels.near_enter`). Nodes leave
    ``N`` only by expansion, and the cut never returns above a node, so the
    lists only grow (a listed threat holding a node that left fails the
    kernels' membership tests) and the walk spends O(incidences of the nodes
    that ever enter ``N``) on them in all, instead of scanning every node's
    full incidence (millions of threats of the whole reduced taxonomy, on
    retail-like data) on each evaluation.

    Has :meth:`keep` like :class:`~graphanon.algorithms.hierarchy._index.ThreatSet`,
    with the same result for a cut inside ``N``.
    """

    def __init__(self, index: HierarchyIndex, threats: ThreatSet, expandable: np.ndarray) -> None:
        self.index, self.threats, self.expandable = index, threats, expandable
        self.count = np.zeros(len(threats), dtype=np.int64)
        self.idx = np.empty_like(threats.idx)
        self.n = np.zeros(index.n_nodes, dtype=np.int64)
        self.inside = np.zeros(index.n_nodes, dtype=bool)

    def enter(self, cut_nodes: np.ndarray) -> None:
        """``cut_nodes`` entered the cut: they and their expandable nodes' children enter ``N``."""
        from graphanon.algorithms.hierarchy._kernels import near_enter

        idx = self.index
        kids = [idx.children(x) for x in cut_nodes[self.expandable[cut_nodes]].tolist()]
        nodes = np.concatenate([cut_nodes, *kids]).astype(np.int64)
        nodes = nodes[~self.inside[nodes]]
        self.inside[nodes] = True
        thr = self.threats
        near_enter(nodes, thr.ptr, thr.idx, thr.members, thr.sizes, self.count, self.idx, self.n)

    def keep(self, order: np.ndarray) -> np.ndarray:
        from graphanon.algorithms.hierarchy._kernels import greedy_keep

        thr = self.threats
        return greedy_keep(np.ascontiguousarray(order, dtype=np.int64), thr.ptr, self.idx, self.n, thr.members,
                           thr.sizes, self.index.n_nodes)
