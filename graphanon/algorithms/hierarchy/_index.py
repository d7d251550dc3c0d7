"""Shared machinery of the hierarchy-based recodings (AA, HgHs/mHgHs).

:class:`HierarchyIndex` puts a :class:`~graphanon.taxonomy.Taxonomy` and a
:class:`~graphanon.data.TransactionData` into flat numpy arrays indexed by the
taxonomy's preorder position:

* ``parent``, ``end`` (Euler interval: the subtree of node ``i`` is the
  preorder range ``[i, end[i])``), ``leaf_count``, ``lm``;
* ``occ`` - O(x), the occurrences in the ORIGINAL data of the leaves under x;
* ``gen_cost = O * IL_G`` and ``sup_cost = O * IL_S`` (Liu & Wang, Sec. 2);
* the *extended matrix* ``X @ A`` (records x nodes) where ``A`` maps each item
  to its leaf and all of that leaf's ancestors: column ``x`` holds the records
  that contain some leaf under ``x``. The support of any generalized itemset
  of pairwise unrelated nodes is read from it directly, for every cut at once.

Notes
-----
Complexity: building the index is O(nodes + items * height); the extended matrix costs
O(occurrences * (height + 1)) time and memory (one sparse product).

References
----------
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Sec. 2 (cost model), Sec. 4.1 (threats of all
cuts precomputed).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Protocol

import numpy as np
import scipy.sparse as sp

from graphanon.counting.support import ItemsetLevel, minimal_infrequent_itemsets
from graphanon.errors import ParameterError
from graphanon.taxonomy.tree import Taxonomy

__all__ = ["HierarchyIndex", "ThreatSet", "evaluate_cut", "infrequent_on_columns"]


class HierarchyIndex:
    """Flat arrays for a taxonomy over a dataset (see the module docstring).

    Parameters
    ----------
    data : TransactionData
    taxonomy : Taxonomy
        Every item of ``data`` must be a leaf (checked; the error names the
        missing items).
    """

    def __init__(self, data, taxonomy: Taxonomy) -> None:
        if not isinstance(taxonomy, Taxonomy):
            raise ParameterError(f"taxonomy must be a graphanon.taxonomy.Taxonomy, got {type(taxonomy).__name__}")
        taxonomy.check_covers(data.items)
        self.data = data
        self.taxonomy = taxonomy
        nodes = taxonomy.nodes
        self.nodes = nodes
        self.pos = {v: i for i, v in enumerate(nodes)}
        n = len(nodes)
        self.n_nodes = n
        parent = np.full(n, -1, dtype=np.int64)
        for i, v in enumerate(nodes[1:], start=1):
            parent[i] = self.pos[taxonomy.parent(v)]
        self.parent = parent
        end = np.arange(1, n + 1, dtype=np.int64)
        for i in range(n - 1, 0, -1):
            end[parent[i]] = max(end[parent[i]], end[i])
        self.end = end
        is_leaf = np.zeros(n, dtype=bool)
        for v in taxonomy.leaves:
            is_leaf[self.pos[v]] = True
        self.is_leaf = is_leaf
        leaf_prefix = np.concatenate([[0], np.cumsum(is_leaf)])
        self.leaf_count = (leaf_prefix[end] - leaf_prefix[np.arange(n)]).astype(np.int64)
        total = int(self.leaf_count[0])
        self.universe = total
        self.lm = (self.leaf_count - 1) / (total - 1) if total > 1 else np.zeros(n)
        # children lists (preorder positions) as CSR
        order = np.argsort(parent[1:], kind="stable") + 1
        counts = np.bincount(parent[1:], minlength=n) if n > 1 else np.zeros(n, dtype=np.int64)
        self.child_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.child_idx = order.astype(np.int64)
        # data items -> leaf positions, occurrences
        self.item_leaf = np.array([self.pos[x] for x in data.items], dtype=np.int64)
        leaf_occ = np.zeros(n, dtype=np.float64)
        np.add.at(leaf_occ, self.item_leaf, data.supports().astype(np.float64))
        occ_prefix = np.concatenate([[0.0], np.cumsum(leaf_occ)])
        self.occ = occ_prefix[end] - occ_prefix[np.arange(n)]
        self.gen_cost = self.occ * self.lm
        self.sup_cost = self.occ * (1.0 - self.lm)
        self.total_occurrences = float(data.matrix.nnz)
        # suppression priority: descending O*IL_S, ties by preorder (the paper's Fig. 2 order)
        self.by_rank = np.lexsort((np.arange(n), -self.sup_cost)).astype(np.int64)  # rank -> node
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[self.by_rank] = np.arange(n)
        self._ext = None

    # ------------------------------------------------------------------ structure
    def children(self, i: int) -> np.ndarray:
        return self.child_idx[self.child_ptr[i] : self.child_ptr[i + 1]]

    def positions(self, nodes: Iterable[Hashable]) -> np.ndarray:
        return np.array([self.pos[v] for v in nodes], dtype=np.int64)

    def labels(self, positions: Iterable[int]) -> list:
        return [self.nodes[int(i)] for i in positions]

    def ancestor_matrix(self) -> sp.csr_array:
        """``A`` (items x nodes): item j -> its leaf and every ancestor of it."""
        rows, cols = [], []
        for j, leaf in enumerate(self.item_leaf):
            a = int(leaf)
            while a >= 0:
                rows.append(j)
                cols.append(a)
                a = int(self.parent[a])
        return sp.csr_array(
            (np.ones(len(rows), dtype=np.int32), (np.array(rows), np.array(cols))),
            shape=(len(self.item_leaf), self.n_nodes),
        )

    @property
    def extended(self) -> sp.csr_array:
        """Records x nodes boolean matrix: record r holds node x when it holds a leaf under x."""
        if self._ext is None:
            self._ext = extended_matrix(self.data.matrix, self.ancestor_matrix())
        return self._ext

    # ------------------------------------------------------------------ cuts
    def cut_code(self, cut: np.ndarray) -> np.ndarray:
        """For each data item, the index (into ``cut``) of the cut node above its leaf."""
        owner = np.full(self.n_nodes, -1, dtype=np.int64)
        for c, i in enumerate(cut):
            owner[i : self.end[i]] = c
        code = owner[self.item_leaf]
        if (code < 0).any():
            raise ParameterError("internal error: the node set is not a cut")
        return code

    def cost(self, cut: np.ndarray, suppressed: np.ndarray) -> tuple[float, float]:
        """(cost_G(cut), cost_S(suppressed)) with LM, weighted by original occurrences."""
        return float(self.gen_cost[cut].sum()), float(self.sup_cost[suppressed].sum())

    def threats(
        self, k: int, m: int | None, allowed: np.ndarray | None = None, progress=None, *, algorithm: str = "hghs"
    ) -> ThreatSet:
        """Minimal privacy threats of all cuts made of ``allowed`` nodes.

        A threat is a set of pairwise unrelated nodes (no node with its
        ancestor) of size <= m whose support in the extended matrix is in
        (0, k); it is minimal when no proper subset is a threat. Searching
        the extended matrix level-wise finds exactly these: an itemset holding
        a node and its ancestor has the support of the itemset without the
        ancestor (a proper subset), so it is never a *minimal* infrequent
        itemset.

        Complexity: that of :func:`~graphanon.counting.support.minimal_infrequent_itemsets`
        on ``records x allowed nodes`` (the extended matrix has about
        ``height + 1`` times the original occurrences). Memory grows with the
        frequent itemsets of the extended matrix: a record of ``L`` items
        holds up to ``L (height + 1)`` nodes, and with ``m=None`` and small
        ``k`` their frequent combinations grow exponentially in that number
        (each record's generalizations are frequent). The search stops with
        a :class:`~graphanon.errors.MemoryBudgetError` naming ``m`` (and
        mHgHs, which mines round by round on a reduced taxonomy) before it
        exceeds the memory budget.
        """
        items = None if allowed is None else np.flatnonzero(allowed)
        m_text = "inf" if m is None else m
        viol, _ = infrequent_on_columns(
            self.extended, k, m, items, progress=progress,
            what=f"{algorithm} threat mining (k={k}, m={m_text}) on {self.data.n_records} records x "
            f"{self.n_nodes if items is None else len(items)} taxonomy nodes",
            advice="bound the attacker knowledge, e.g. m={m} (CLI: -m {m})"
            + (", or use mHgHs (CLI: -a mhghs), which mines threats round by round" if algorithm == "hghs" else ""),
        )
        width = max([lvl.size for lvl in viol if len(lvl)] + [1])
        rows = [np.pad(lvl.itemsets, ((0, 0), (0, width - lvl.size)), constant_values=-1) for lvl in viol if len(lvl)]
        members = np.concatenate(rows).astype(np.int64) if rows else np.zeros((0, width), dtype=np.int64)
        supports = np.concatenate([lvl.supports for lvl in viol if len(lvl)]) if rows else np.zeros(0, np.int64)
        return ThreatSet(members, supports.astype(np.int64), self.n_nodes)


class KeepsScenario(Protocol):
    """What :func:`evaluate_cut` reads of a threat set: its greedy suppression scenario (``keep``).

    :class:`ThreatSet` has it, and so has the walk's near set of threats.
    """

    def keep(self, order: np.ndarray) -> np.ndarray:
        """Whether each node of ``order`` is kept by the greedy suppression scenario."""
        ...


def evaluate_cut(index: HierarchyIndex, threats: KeepsScenario, cut: np.ndarray):
    """(cost, cost_G, cost_S, suppressed positions in rank order) of a cut with its greedy scenario.

    The cut's nodes are taken in rank order (descending ``O * IL_S``, ties by
    preorder) by filtering the precomputed rank order with a node mask, O(nodes)
    vectorized work instead of sorting the cut.
    """
    mask = np.zeros(index.n_nodes, dtype=bool)
    mask[cut] = True
    order = index.by_rank[mask[index.by_rank]]
    keep = threats.keep(order)
    sup = order[~keep]
    g = float(index.gen_cost[cut].sum())
    s = float(index.sup_cost[sup].sum())
    return g + s, g, s, sup


#: rows multiplied at once when the extended matrix is built (a multiple of 64, for the bitmaps packed
#: from it): the integer product, its CSR conversion and sort take 8 to 32 bytes per nonzero while they
#: run, so one product over 10^6 Quest records would add about 1.7 GB to the peak
CHUNK_ROWS = 1 << 18


def extended_matrix(X, A, chunk: int = CHUNK_ROWS) -> sp.csr_array:
    """The records x nodes boolean matrix of the records ``X`` (items) and the ancestor matrix ``A``.

    Built ``chunk`` rows at a time (``X[a:b] @ A``), so the integer product
    never holds more than one chunk; indices sorted within each row.
    (Also what each Dask worker runs on its block of records for AA.)
    """
    indices, counts = [], []
    for a in range(0, X.shape[0], chunk):
        part = X[a : a + chunk]
        Xi = sp.csr_array((np.ones(part.nnz, dtype=np.int32), part.indices, part.indptr), shape=part.shape)
        E = (Xi @ A).tocsr()
        E.sort_indices()
        indices.append(E.indices.astype(np.int32, copy=False))
        counts.append(np.diff(E.indptr))
    ind = np.concatenate(indices) if indices else np.zeros(0, dtype=np.int32)
    ptr = np.r_[0, np.cumsum(np.concatenate(counts))] if counts else np.zeros(1, dtype=np.int64)
    return sp.csr_array((np.ones(len(ind), dtype=bool), ind, ptr), shape=(X.shape[0], A.shape[1]))


def infrequent_on_columns(X, k: int, m: int | None, cols: np.ndarray | None, progress=None, **guard):
    """:func:`~graphanon.counting.support.minimal_infrequent_itemsets` on the columns ``cols`` of ``X``.

    The search runs on the column slice ``X[:, cols]`` (cheaper than masking
    the full matrix) and the itemsets are mapped back to column ids of ``X``
    (``cols`` sorted, so rows stay sorted). ``guard`` (``what``, ``advice``)
    words a memory-budget error.
    """
    if cols is None:
        return minimal_infrequent_itemsets(X, k, m, progress=progress, **guard)
    cols = np.unique(np.asarray(cols, dtype=np.int64))
    if len(cols) == 0:
        empty = ItemsetLevel(1, np.zeros((0, 1), dtype=np.int64), np.zeros(0, dtype=np.int64))
        return [empty], [empty]
    viol, freq = minimal_infrequent_itemsets(sp.csr_array(X)[:, cols], k, m, progress=progress, **guard)

    def back(levels):
        return [ItemsetLevel(lvl.size, cols[lvl.itemsets], lvl.supports) for lvl in levels]

    return back(viol), back(freq)


class ThreatSet:
    """Minimal threats as a padded array plus a node -> threat incidence (CSR).

    Attributes
    ----------
    members : ndarray, shape (n_threats, width)
        Node positions of each threat, padded with -1.
    sizes : ndarray
        Number of nodes per threat.
    supports : ndarray
        Support of each threat in the generalized data.
    ptr, idx : ndarray
        ``idx[ptr[x]:ptr[x+1]]`` are the threats containing node ``x``.
    """

    def __init__(self, members: np.ndarray, supports: np.ndarray, n_nodes: int) -> None:
        from graphanon.algorithms.hierarchy._kernels import (
            incidence,  # numba: loaded when threats are built
        )

        self.members = np.ascontiguousarray(members, dtype=np.int64)
        self.supports = supports
        self.sizes = (self.members >= 0).sum(axis=1).astype(np.int64)
        self.ptr, self.idx = incidence(self.members, n_nodes)

    def __len__(self) -> int:
        return len(self.sizes)

    def within(self, nodes: Iterable[int]) -> list[tuple[int, ...]]:
        """Threats whose nodes all lie in ``nodes`` (as tuples of positions)."""
        s = set(int(x) for x in nodes)
        out = set()
        for x in s:
            for t in self.idx[self.ptr[x] : self.ptr[x + 1]]:
                mem = self.members[t, : self.sizes[t]]
                if all(int(y) in s for y in mem):
                    out.add(tuple(int(y) for y in mem))
        return sorted(out)

    def keep(self, order: np.ndarray) -> np.ndarray:
        """Greedy suppression scenario: see :func:`~graphanon.algorithms.hierarchy._kernels.greedy_keep`."""
        from graphanon.algorithms.hierarchy._kernels import greedy_keep

        return greedy_keep(np.ascontiguousarray(order, dtype=np.int64), self.ptr, self.idx, np.diff(self.ptr),
                           self.members, self.sizes, len(self.ptr) - 1)
