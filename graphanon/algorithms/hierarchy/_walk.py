"""The top-down greedy walk of the cut lattice shared by HgHs and mHgHs (Liu & Wang, PAKDD 2010, Sec. 3).

Split from :mod:`graphanon.algorithms.hierarchy.hghs` (issue 12: modules under ~500 lines).
:func:`walk_round` runs one round: every move evaluates all child cuts of the
current cut by their cost *changes* (see :func:`walk_round`) and evaluates the
chosen one in full.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import scipy.sparse as sp

from graphanon.algorithms.hierarchy._index import (
    HierarchyIndex,
    KeepsScenario,
    ThreatSet,
    evaluate_cut,
)
from graphanon.algorithms.hierarchy._search import CutReplay, SearchRound, WalkStep
from graphanon.utils.memory import check_memory

__all__ = ["EPS", "evaluate_cut", "walk_round"]

EPS = 1e-9  # relative tolerance of the walk's cost comparisons

_MAX_CANDIDATES = 200_000  # candidate entries kept in a round's trace (for the lattice drawing)


def walk_round(
    index: HierarchyIndex, threats: ThreatSet | None, k, m, expandable, progress, round_label, allowed=None,
    frontier=None, algorithm: str = "hghs",
) -> tuple[SearchRound, ThreatSet]:
    """The top-down greedy walk of one round, from ``{root}``; the round and the threats it used.

    ``threats`` are the minimal threats of all cuts of the round's taxonomy
    (:meth:`HierarchyIndex.threats`), or None with ``m=2``: then the walk
    mines the threats itself, only those that lie wholly in its near set
    (:class:`MinedNearThreats`), and returns them (a
    :class:`~graphanon.algorithms.hierarchy._index.ThreatSet` holding every
    threat within any cut the walk visited, so the chosen cut's and each
    replayed step's scenario are the same as with all threats); a
    :class:`~graphanon.errors.MemoryBudgetError` then names ``algorithm``.

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
    ``tests/algorithms/test_large_vocabulary.py`` checks against a plain loop.

    The round's steps keep the expanded nodes, costs and candidates; a step's
    ``cut`` and ``suppressed`` are replayed on demand (:class:`CutReplay`), so
    the trace takes O(moves) memory instead of O(moves x cut).
    """
    from graphanon.algorithms.hierarchy._kernels import (  # numba: loaded when run
        child_cut_deltas,
        first_best,
    )

    cur = np.array([0], dtype=np.int64)
    if threats is None:
        if m != 2:
            raise ValueError(f"internal error: the walk mines pair threats only (m=2), got m={m}")
        near: _NearThreats | MinedNearThreats = MinedNearThreats(index, k, expandable, algorithm)
        near.enter(cur)
        singletons = False
    else:
        singletons = bool(len(threats) == 0 or threats.sizes.max() == 1)
        if not singletons:
            near = _NearThreats(index, threats, expandable)
            near.enter(cur)
    scenario = cast(KeepsScenario, threats if singletons else near)
    cost, g, s, sup = evaluate_cut(index, scenario, cur)
    rnd = SearchRound(
        k=k, m=m, start=index.labels(cur), start_cost=(cost, g, s, index.labels(np.sort(sup))),
        allowed=allowed, frontier=frontier,
    )
    replay = CutReplay(index, cast(ThreatSet, threats), cur)  # mined threats: set when the round ends
    n_exp = int(expandable.sum())
    if singletons:
        assert threats is not None  # singletons are only decided from given threats
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
                near.ptr, near.idx, near.n, near.members, near.sizes, index.gen_cost, index.sup_cost,
            )
        costs = cost + dc
        best = None
        if len(xs):
            x = int(xs[first_best(costs)])
            i = int(np.searchsorted(cur, x))  # x's subtree holds no other cut node: its children take its place
            cand = np.concatenate([cur[:i], index.children(x), cur[i + 1 :]])
            best = (*evaluate_cut(index, scenario, cand), x, cand)
        n_cands += len(xs)
        cands: list | None = None  # the trace keeps the path, not every evaluated candidate, on large taxonomies
        if n_cands <= _MAX_CANDIDATES:
            cands = list(zip(index.labels(xs), costs.tolist(), (len(sup) + dn).tolist(), strict=True))
        if best is None or best[0] >= cost - EPS * max(1.0, abs(cost)):
            rnd.final_candidates = cands
            break
        cost, g, s, sup, x, cur = best
        if not singletons:
            near.expand(x)
            in_cut[x] = False
            in_cut[index.children(x)] = True
            kept = in_cut.copy()
            kept[sup] = False
        rnd.steps.append(WalkStep(replay, len(rnd.steps), x, cost, g, s, cands))
        if progress:
            progress(len(rnd.steps), n_exp, f"{round_label}: expanded {index.nodes[x]!r}, cost {cost:.4g}")
    if threats is None:
        assert isinstance(near, MinedNearThreats)
        threats = near.threat_set()
        replay.threats = threats
    rnd.n_threats = len(threats)
    return rnd, threats


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
    with the same result for a cut inside ``N``. Node ``y``'s listed threats
    are ``idx[ptr[y]:ptr[y] + n[y]]``, rows of ``members`` (``sizes`` nodes each).
    """

    def __init__(self, index: HierarchyIndex, threats: ThreatSet, expandable: np.ndarray) -> None:
        self.index, self.threats, self.expandable = index, threats, expandable
        self.ptr, self._members, self._sizes = threats.ptr, threats.members, threats.sizes
        self.count = np.zeros(len(threats), dtype=np.int64)
        self.idx = np.empty_like(threats.idx)
        self.n = np.zeros(index.n_nodes, dtype=np.int64)
        self.inside = np.zeros(index.n_nodes, dtype=bool)

    @property
    def members(self) -> np.ndarray:
        """Each threat's nodes, one row per threat."""
        return self._members

    @property
    def sizes(self) -> np.ndarray:
        """Each threat's number of nodes."""
        return self._sizes

    def _entering(self, cut_nodes: np.ndarray) -> np.ndarray:
        """Mark ``cut_nodes`` and their expandable nodes' children as in ``N``; those not in it before."""
        idx = self.index
        kids = [idx.children(x) for x in cut_nodes[self.expandable[cut_nodes]].tolist()]
        nodes = np.concatenate([cut_nodes, *kids]).astype(np.int64)
        nodes = nodes[~self.inside[nodes]]
        self.inside[nodes] = True
        return nodes

    def enter(self, cut_nodes: np.ndarray) -> None:
        """``cut_nodes`` entered the cut: they and their expandable nodes' children enter ``N``."""
        from graphanon.algorithms.hierarchy._kernels import near_enter

        thr = self.threats
        near_enter(self._entering(cut_nodes), thr.ptr, thr.idx, thr.members, thr.sizes, self.count, self.idx, self.n)

    def expand(self, x: int) -> None:
        """The walk replaced cut node ``x`` by its children."""
        self.enter(self.index.children(x))

    def keep(self, order: np.ndarray) -> np.ndarray:
        from graphanon.algorithms.hierarchy._kernels import greedy_keep

        return greedy_keep(np.ascontiguousarray(order, dtype=np.int64), self.ptr, self.idx, self.n, self.members,
                           self.sizes, self.index.n_nodes)


class MinedNearThreats(_NearThreats):
    """The walk's near lists (see :class:`_NearThreats`) for k^2, mined as nodes enter ``N``.

    With ``m=2`` a minimal threat is a node of support in (0, k) or a pair
    of nodes, each of support >= k, whose joint support (in the extended
    matrix) is in (0, k). Instead of mining these for *all* pairs of nodes
    of the taxonomy (millions on retail-like data, nearly all of them never
    near the walk), a threat is mined when its last member enters ``N``,
    against the nodes then in ``N``: the entering nodes' supports, and for
    the frequent ones their joint supports with every node (one sparse
    product of their columns of the extended matrix with it), kept where the
    partner is a frequent node in ``N``. A threat lying wholly in a cut the
    walk visits has both members in ``N`` together, so it is listed by then:
    the lists hold exactly the threats of :class:`_NearThreats` that do not
    hold a node the walk already expanded (those can never complete again).

    The lists share one arena (``idx``); a list that outgrows its slot moves
    to the arena's end with twice the room
    (:func:`~graphanon.algorithms.hierarchy._kernels.near_relocate`), and a
    full arena is compacted into one twice the size of the lists' room, so
    listing costs O(1) amortized per incidence.

    Complexity: the products cost, over the whole walk, the sum over the
    nodes that enter ``N`` of (their records x the record lengths in the
    extended matrix); memory: the extended matrix (CSR with counts, and CSC)
    and the listed threats, instead of every pair support of the taxonomy.

    References
    ----------
    Liu, Wang. PAKDD 2010, Sec. 4.1 (the minimal threats of all cuts, here
    only of the cuts near the walk).
    """

    #: entries of the first arena and threat buffer (both grow by doubling)
    initial_room = 1024

    def __init__(self, index: HierarchyIndex, k: int, expandable: np.ndarray, algorithm: str = "hghs") -> None:
        E = index.extended
        n = index.n_nodes
        self.index, self.k, self.expandable, self.algorithm = index, int(k), expandable, algorithm
        self._rows = sp.csr_array((np.ones(E.nnz, dtype=np.int32), E.indices, E.indptr), shape=E.shape)
        self._cols = self._rows.tocsc()
        self.support = np.diff(self._cols.indptr).astype(np.int64)
        self._frequent = self.support >= self.k
        self.inside = np.zeros(n, dtype=bool)
        self._present = np.zeros(n, dtype=bool)  # in N now (entered, not yet expanded)
        self.n = np.zeros(n, dtype=np.int64)
        self.ptr = np.zeros(n, dtype=np.int64)
        self._cap = np.zeros(n, dtype=np.int64)
        room = self.initial_room
        self.idx = np.empty(room, dtype=np.int64)
        self._used = 0
        self._members = np.empty((room, 2), dtype=np.int64)
        self._supports = np.empty(room, dtype=np.int64)
        self._sizes = np.empty(room, dtype=np.int64)
        self.n_threats = 0

    @property
    def members(self) -> np.ndarray:
        return self._members[: self.n_threats]

    @property
    def sizes(self) -> np.ndarray:
        return self._sizes[: self.n_threats]

    def enter(self, cut_nodes: np.ndarray) -> None:
        """``cut_nodes`` entered the cut: mine and list the threats completed by the nodes entering ``N``."""
        new = self._entering(cut_nodes)
        if not len(new):
            return
        self._present[new] = True
        sup = self.support[new]
        singles = new[(sup > 0) & (sup < self.k)]
        heads = new[self._frequent[new]]
        pairs = np.zeros((0, 2), dtype=np.int64)
        joint = np.zeros(0, dtype=np.int64)
        if len(heads):
            self._check(24.0 * len(heads) * len(self.inside), "the joint supports of the nodes entering")
            P = (self._cols[:, heads].T @ self._rows).tocoo()  # heads x nodes: joint supports
            head, partner = heads[P.row], P.col.astype(np.int64)
            entering = np.zeros(len(self.inside), dtype=bool)
            entering[new] = True
            ok = (P.data < self.k) & self._present[partner] & self._frequent[partner]
            ok &= ~entering[partner] | (partner > head)  # a pair of entering nodes once, no node with itself
            head, partner, joint = head[ok], partner[ok], P.data[ok].astype(np.int64)
            pairs = np.stack([np.minimum(head, partner), np.maximum(head, partner)], axis=1)
        rows = np.concatenate([np.stack([singles, np.full(len(singles), -1)], axis=1), pairs])
        self._append(rows, np.concatenate([sup[(sup > 0) & (sup < self.k)], joint]))

    def expand(self, x: int) -> None:
        self._present[x] = False
        self.enter(self.index.children(x))

    def _append(self, rows: np.ndarray, supports: np.ndarray) -> None:
        from graphanon.algorithms.hierarchy._kernels import near_add, near_relocate

        if not len(rows):
            return
        first, total = self.n_threats, self.n_threats + len(rows)
        if total > len(self._members):
            size = max(2 * len(self._members), total)
            self._check(32.0 * size, f"a list of {size:,} threats")
            self._members = np.resize(self._members, (size, 2))
            self._supports = np.resize(self._supports, size)
            self._sizes = np.resize(self._sizes, size)
        self._members[first:total] = rows
        self._supports[first:total] = supports
        self._sizes[first:total] = (rows >= 0).sum(axis=1)
        self.n_threats = total
        need = self.n + np.bincount(rows[rows >= 0], minlength=len(self.n))
        grow = np.flatnonzero(need > self._cap)
        if len(grow):
            new_cap = np.maximum(2 * need[grow], 4)
            if self._used + int(new_cap.sum()) > len(self.idx):
                self._compact(grow, new_cap)
            else:
                self._used = near_relocate(grow, new_cap, self.ptr, self._cap, self.n, self.idx, self.idx, self._used)
        near_add(first, self.members, self.sizes, self.ptr, self.n, self.idx)

    def _compact(self, grow: np.ndarray, new_cap: np.ndarray) -> None:
        """Lay the lists out afresh in an arena twice their room (the growing ones with ``new_cap``)."""
        from graphanon.algorithms.hierarchy._kernels import near_relocate

        cap = self._cap.copy()
        cap[grow] = new_cap
        nodes = np.flatnonzero(cap)
        room = max(2 * int(cap.sum()), self.initial_room)
        self._check(8.0 * room, f"the near lists ({room:,} entries)")
        arena = np.empty(room, dtype=np.int64)
        self._used = near_relocate(nodes, cap[nodes], self.ptr, self._cap, self.n, self.idx, arena, 0)
        self.idx = arena

    def _check(self, needed: float, step: str) -> None:
        """Stop with a :class:`~graphanon.errors.MemoryBudgetError` before ``step`` exceeds the budget."""
        check_memory(needed, what=f"{self.algorithm} threat mining near the walk (k={self.k}, m=2): {step}",
                     advice="bound the attacker knowledge to single items, m=1 (CLI: -m 1)"
                     + (", or use mHgHs (CLI: -a mhghs), whose round 1 shrinks the taxonomy first"
                        if self.algorithm == "hghs" else ""))

    def threat_set(self) -> ThreatSet:
        """The mined threats as a :class:`~graphanon.algorithms.hierarchy._index.ThreatSet` (full incidence)."""
        return ThreatSet(self.members.copy(), self._supports[: self.n_threats].copy(), self.index.n_nodes)
