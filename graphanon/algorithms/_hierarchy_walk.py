"""The top-down greedy walk of the cut lattice shared by HgHs and mHgHs (Liu & Wang, PAKDD 2010, Sec. 3).

Split from :mod:`graphanon.algorithms.hghs` (issue 12: modules under ~500 lines).
:func:`walk_round` runs one round; :class:`_LocalDeltas` evaluates child cuts on the
threat components they touch (see :func:`graphanon.algorithms.hghs.anonymize_hghs`,
Complexity).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from graphanon.algorithms._hierarchy import HierarchyIndex, ThreatSet
from graphanon.algorithms._hierarchy_search import SearchRound

EPS = 1e-9  # relative tolerance of the walk's cost comparisons


def evaluate_cut(index: HierarchyIndex, threats: ThreatSet, cut: np.ndarray):
    order = cut[np.argsort(index.rank[cut], kind="stable")]
    keep = threats.keep(order)
    sup = order[~keep]
    g = float(index.gen_cost[cut].sum())
    s = float(index.sup_cost[sup].sum())
    return g + s, g, s, sup


_MAX_CANDIDATES = 200_000  # candidate entries kept in a round's trace (for the lattice drawing)


def walk_round(index, threats, k, m, expandable, progress, round_label, allowed=None, frontier=None) -> SearchRound:
    """The top-down greedy walk of one round (see the module docstring).

    When every threat is a single node (mHgHs round 1, HgHs with m=1) a node
    is suppressed exactly when it is a threat, so the cost is a sum of
    per-node terms and a child cut's cost is the current cost plus the
    node's delta: each move evaluates all candidates in one vectorized step.
    Otherwise each candidate's change comes from :class:`_LocalDeltas`.
    """
    from graphanon.algorithms._hierarchy_kernels import first_best  # numba: loaded when a walk runs

    cur = np.array([0], dtype=np.int64)
    cost, g, s, sup = evaluate_cut(index, threats, cur)
    rnd = SearchRound(
        k=k, m=m, start=index.labels(cur), start_cost=(cost, g, s, index.labels(np.sort(sup))),
        n_threats=len(threats), allowed=allowed, frontier=frontier,
    )
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
        local = _LocalDeltas(index, threats)
    kept = 0
    step = 0
    while True:
        xs = cur[expandable[cur]]
        if singletons:
            dc, dn = delta[xs], delta_sup[xs]
        else:
            local.move_to(cur, sup)
            dc, dn = local.deltas(xs)
        costs = cost + dc
        b = first_best(costs) if len(xs) else -1
        best = None
        if b >= 0:
            x = int(xs[b])
            cand = np.sort(np.concatenate([cur[cur != x], index.children(x)]))
            best = (*evaluate_cut(index, threats, cand), x, cand)
        cands = list(zip(index.labels(xs), costs.tolist(), (len(sup) + dn).tolist(), strict=True))
        kept += len(cands)
        if kept > _MAX_CANDIDATES:
            cands = None  # the trace keeps the path, not every evaluated candidate, on large taxonomies
        if best is None or best[0] >= cost - EPS * max(1.0, abs(cost)):
            rnd.final_candidates = cands
            break
        cost, g, s, sup, x, cur = best
        step += 1
        rnd.steps.append(
            {
                "expanded": index.nodes[x],
                "cut": index.labels(cur),
                "cost": cost,
                "cost_generalization": g,
                "cost_suppression": s,
                "suppressed": index.labels(np.sort(sup)),
                "candidates": cands,
            }
        )
        if progress:
            progress(step, n_exp, f"{round_label}: expanded {index.nodes[x]!r}, cost {cost:.4g}")
    return rnd


class _LocalDeltas:
    """Cost changes of the child cuts of a cut, each found from the threat components it touches.

    The greedy suppression of a cut decomposes over the connected components
    of its threats (threats whose nodes all lie in the cut; a node in none is
    kept): a node's fate depends only on the nodes sharing a threat with it.
    Replacing ``x`` by its children changes only ``x``'s component, the new
    threats of the children and the components those reach, so the child
    cut's suppression is the current one there re-run by
    :func:`~graphanon.algorithms._hierarchy.greedy_keep` on that region alone.
    A candidate's change is cached and recomputed only when the walk's move
    touches a node it depends on (its region, or a member of any threat of
    its children). Same costs as evaluating every child cut in full, up to
    floating-point summation order (the walk's comparisons have a relative
    tolerance of ``1e-9``; the chosen cut is then evaluated in full).
    """

    def __init__(self, index: HierarchyIndex, threats: ThreatSet) -> None:
        self.index, self.threats = index, threats
        n = index.n_nodes
        self.cache: dict[int, tuple[float, int]] = {}
        self.users: dict[int, set] = {}  # node -> candidates whose cached change depends on it
        self.in_cut = np.zeros(n, dtype=bool)
        self.suppressed = np.zeros(n, dtype=bool)
        self.prev = None
        self.label = np.arange(n)

    def move_to(self, cut: np.ndarray, sup: np.ndarray) -> None:
        """Take the walk's current cut and its suppressed nodes; drop the cached changes that
        depend on a node whose membership, suppression or component changed."""
        thr = self.threats
        n = self.index.n_nodes
        in_cut = np.zeros(n, dtype=bool)
        in_cut[cut] = True
        suppressed = np.zeros(n, dtype=bool)
        suppressed[sup] = True
        changed = np.flatnonzero((in_cut != self.in_cut) | (suppressed != self.suppressed))
        stale = [changed] + ([self.component_of(changed)] if self.prev is not None else [])
        self.in_cut, self.suppressed = in_cut, suppressed
        mem = thr.members
        inside = np.where(mem >= 0, in_cut[np.maximum(mem, 0)], True).all(axis=1)
        t = np.flatnonzero(inside)
        width = mem.shape[1]
        a = np.repeat(mem[t, 0], width)
        b = mem[t].ravel()
        ok = b >= 0
        graph = sp.csr_array((np.ones(int(ok.sum()), dtype=np.int8), (a[ok], b[ok])), shape=(n, n))
        _, self.label = connected_components(graph, directed=False)
        order = np.argsort(self.label, kind="stable")
        self.comp_ptr = np.searchsorted(self.label[order], np.arange(self.label.max() + 2))
        self.comp_nodes = order
        self.prev = True
        stale.append(self.component_of(changed))
        for y in np.unique(np.concatenate(stale)).tolist():
            for x in self.users.pop(y, ()):
                self.cache.pop(x, None)

    def component_of(self, nodes: np.ndarray) -> np.ndarray:
        """All nodes in the threat components of ``nodes`` (in the current cut)."""
        if not len(nodes):
            return np.zeros(0, dtype=np.int64)
        comps = np.unique(self.label[nodes])
        return np.concatenate([self.comp_nodes[self.comp_ptr[c] : self.comp_ptr[c + 1]] for c in comps.tolist()])

    def deltas(self, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(cost change, change in the number of suppressed nodes) of expanding each node of ``xs``."""
        dc = np.empty(len(xs))
        dn = np.empty(len(xs), dtype=np.int64)
        for j, x in enumerate(xs.tolist()):
            if x not in self.cache:
                self.cache[x] = self._delta(x)
            dc[j], dn[j] = self.cache[x]
        return dc, dn

    def _delta(self, x: int) -> tuple[float, int]:
        idx, thr = self.index, self.threats
        ch = idx.children(x)
        tids = np.concatenate([thr.idx[thr.ptr[c] : thr.ptr[c + 1]] for c in ch.tolist()]) if len(ch) else np.zeros(0, np.int64)
        tids = np.unique(tids)
        mem = thr.members[tids]
        live = np.where(mem >= 0, self.in_cut[np.maximum(mem, 0)] | np.isin(mem, ch), True).all(axis=1)
        touched = np.unique(np.concatenate([mem[live].ravel(), [x]]))
        touched = touched[touched >= 0]
        old_nodes = touched[self.in_cut[touched]]
        region = np.unique(np.concatenate([self.component_of(old_nodes), touched]))
        region = region[(self.in_cut[region] | np.isin(region, ch)) & (region != x)]
        order = region[np.argsort(idx.rank[region], kind="stable")]
        keep = self.threats.keep(order)
        new_sup = order[~keep]
        before = region[self.in_cut[region]]
        old_sup = np.concatenate([before, [x]])
        old_sup = old_sup[self.suppressed[old_sup]]
        dc = (float(idx.gen_cost[ch].sum()) - float(idx.gen_cost[x]) + float(idx.sup_cost[new_sup].sum())
              - float(idx.sup_cost[old_sup].sum()))
        deps = np.unique(np.concatenate([region, [x], thr.members[tids].ravel()]))
        for y in deps[deps >= 0].tolist():
            self.users.setdefault(y, set()).add(x)
        return dc, len(new_sup) - len(old_sup)
