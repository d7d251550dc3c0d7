"""Least common generalization (LCG) and group generalization distortion (GGD).

A group ``S`` of records is published as ``LCG(S)``: a multiset of taxonomy
nodes such that, in every record of ``S``, each published node copy stands for
a *distinct* original item under it; the items no copy stands for are
suppressed. Its cost is ``GGD(S, t) = |S| * sum_{x in t} LM(x) + Ns``
(``Ns`` suppressed occurrences, ``LM(x) = (M_x - 1)/(M - 1)``).

The LCG computation (the paper's text breaks off before it)
-----------------------------------------------------------
Let ``a_r(x)`` be the number of items of record ``r`` under node ``x`` and
``c(x) = min_{r in S} a_r(x)``. A multiset with ``n(x)`` copies of ``x`` is a
valid common generalization iff, for every node ``x``,
``T(x) = sum_{y under x (or x)} n(y) <= c(x)``: by Hall's theorem a record
has distinct items for all copies iff every set of copies has enough items
in the union of its subtrees, and subtrees are laminar (nested or disjoint),
so the condition reduces to single subtrees.

Since every original occurrence is either represented (cost ``LM(x)``) or
suppressed (cost 1), ``GGD = N_S - |S| * sum_x n(x) (1 - LM(x))``. Write
``1 - LM(x) = sum_{y ancestor-or-self of x} d(y)`` with
``d(y) = LM(parent(y)) - LM(y) >= 0`` (and ``LM(parent(root)) := 1``, so
``d(root) = 0``). Then ``sum_x n(x)(1 - LM(x)) = sum_y d(y) T(y)``, which is
at most ``sum_y d(y) c(y)``; the bottom-up fill ``n(x) = c(x) - sum_{children
z} c(z)`` reaches ``T(x) = c(x)`` at every node simultaneously (it is
non-negative because ``c(x) >= sum_z c(z)``), hence it is **optimal**:

    GGD(S, LCG(S)) = N_S - |S| * sum_y d(y) c_S(y).

This closed form makes ``Delta GGD`` of adding a record to a group a sparse
dot product, which is what :mod:`graphanon.algorithms.grouping.clump` evaluates. Among
optimal multisets the bottom-up fill is also the most specific (copies sit as
deep as the constraint allows). The optimality is also tested against brute
force over all multisets on random taxonomies (``tests/graphs/test_lcg.py``).

Examples
--------
>>> from graphanon.datasets import load, load_taxonomy
>>> data, tax = load("clump_food"), load_taxonomy("clump_food")
>>> idx = NodeIndex(tax, data.items)
>>> lcg_labels(idx, data, [0, 1]), ggd_fraction(idx, data, [0, 1])
(['Fruit', 'Beef'], Fraction(11, 7))

References
----------
Clump (transaction clustering for k-anonymity), SECRYPT 2010, Sec. 2.2
(Definitions 1-3, Examples 2-3). SPEC §3 (the laminar constraint).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from graphanon.errors import TaxonomyError

__all__ = ["NodeIndex", "ggd", "ggd_fraction", "groups_to_lcg", "lcg", "lcg_labels"]


class NodeIndex:
    """Taxonomy nodes as arrays, aligned with a data set's item columns.

    Parameters
    ----------
    taxonomy : Taxonomy
    items : sequence
        The data's item labels (columns); each must be a leaf of ``taxonomy``.

    Attributes
    ----------
    nodes : tuple
        Node labels in depth-first preorder (index 0 is the root).
    parent, depth, leaves : ndarray
        Per node: parent index (-1 for the root), depth, number of leaves.
    lm : ndarray
        ``(leaves - 1)/(M - 1)`` (Liu & Wang's LM, the Clump paper's cost).
    ncp_hn : ndarray
        He & Naughton's NCP: 0 for a leaf, ``leaves / M`` otherwise.
    delta : ndarray
        ``LM(parent) - LM(node)`` (``1 - LM(root)`` for the root).
    item_node : ndarray
        Node index of each item column.
    ancestors : scipy.sparse.csr_array, shape (n_items, n_nodes)
        ``[j, x] = 1`` when node ``x`` is item ``j``'s leaf or an ancestor of it.

    Notes
    -----
    Complexity: O(nodes + items * height).
    """

    def __init__(self, taxonomy, items) -> None:
        order = list(taxonomy._order)
        pos = {v: i for i, v in enumerate(order)}
        self.taxonomy = taxonomy
        self.nodes = tuple(order)
        self.pos = pos
        self.parent = np.asarray(taxonomy._parent, dtype=np.int64)
        self.depth = np.asarray(taxonomy._depth, dtype=np.int64)
        self.leaves = np.asarray(taxonomy._leaf_count, dtype=np.int64)
        self.is_leaf = np.asarray(taxonomy._is_leaf, dtype=bool)
        total = int(self.leaves[0])
        self.universe = total
        self.lm = (self.leaves - 1) / (total - 1) if total > 1 else np.zeros(len(order))
        self.ncp_hn = np.where(self.is_leaf, 0.0, self.leaves / total)
        parent_lm = np.where(self.parent >= 0, self.lm[np.maximum(self.parent, 0)], 1.0)
        self.delta = parent_lm - self.lm
        missing = [x for x in items if x not in pos or not self.is_leaf[pos[x]]]
        if missing:
            raise TaxonomyError(
                f"{len(missing)} item(s) are not leaves of the taxonomy, e.g. {missing[:5]}; "
                f"give a taxonomy whose leaves cover the data's items"
            )
        self.item_node = np.array([pos[x] for x in items], dtype=np.int64)
        rows, cols = [], []
        for j, v in enumerate(self.item_node):
            x = int(v)
            while x >= 0:
                rows.append(j)
                cols.append(x)
                x = int(self.parent[x])
        self.ancestors = sp.csr_array(
            (np.ones(len(rows), dtype=np.int32), (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64))),
            shape=(len(items), len(order)),
        )
        self.ancestors.sort_indices()

    @property
    def n_nodes(self) -> int:
        """The number of taxonomy nodes indexed."""
        return len(self.nodes)

    def counts(self, matrix) -> sp.csr_array:
        """``a_r(x)``: per record, the number of its items under each node (int32 CSR, sorted)."""
        X = sp.csr_array(matrix, dtype=np.int32)
        A = sp.csr_array(X @ self.ancestors)
        A.sort_indices()
        return A


def lcg(index: NodeIndex, counts) -> np.ndarray:
    """Copies of each node in the LCG of a group, from the group's count rows.

    Parameters
    ----------
    index : NodeIndex
    counts : array-like, shape (|S|, n_nodes)
        ``a_r(x)`` of each record of the group (see :meth:`NodeIndex.counts`).

    Returns
    -------
    ndarray of int64, shape (n_nodes,)
        ``n(x) = c(x) - sum_{children z} c(z)`` with ``c`` the column minima.

    Notes
    -----
    Complexity: O(|S| * n_nodes) (dense); the clustering uses the sparse closed form instead.
    """
    c = np.asarray(counts.min(axis=0).todense() if sp.issparse(counts) else np.min(counts, axis=0)).ravel()
    c = c.astype(np.int64)
    child_sum = np.zeros_like(c)
    has_parent = index.parent >= 0
    np.add.at(child_sum, index.parent[has_parent], c[has_parent])
    return c - child_sum


def ggd(index: NodeIndex, counts, lengths) -> float:
    """``GGD(S, LCG(S)) = N_S - |S| * sum_y d(y) c(y)`` (see the module notes).

    Parameters
    ----------
    counts : array-like, shape (|S|, n_nodes)
    lengths : array-like
        Number of items of each record of the group.
    """
    c = np.asarray(counts.min(axis=0).todense() if sp.issparse(counts) else np.min(counts, axis=0)).ravel()
    size = counts.shape[0]
    return float(np.sum(lengths) - size * float(index.delta @ c))


def _group_counts(index: NodeIndex, data, rows):
    rows = np.asarray(rows, dtype=np.int64)
    return np.asarray(index.counts(data.matrix[rows]).todense()), np.diff(data.matrix.indptr)[rows]


def lcg_labels(index: NodeIndex, data, rows) -> list:
    """Labels of the LCG of ``data``'s records ``rows``, in preorder (with repeats)."""
    counts, _ = _group_counts(index, data, rows)
    n = lcg(index, counts)
    return [index.nodes[x] for x in np.flatnonzero(n) for _ in range(int(n[x]))]


def ggd_fraction(index: NodeIndex, data, rows) -> Fraction:
    """Exact ``GGD(S, LCG(S))`` as a fraction (for worked examples and tests)."""
    counts, lengths = _group_counts(index, data, rows)
    n = lcg(index, counts)
    m = index.universe
    gen: Fraction = sum((Fraction(int(n[x]) * int(index.leaves[x] - 1), m - 1) for x in np.flatnonzero(n)), Fraction(0)) if m > 1 else Fraction(0)
    suppressed = int(lengths.sum()) - len(rows) * int(n.sum())
    return len(rows) * gen + suppressed


def groups_to_lcg(index: NodeIndex, counts: sp.csr_array, group: np.ndarray) -> tuple[sp.csr_array, np.ndarray]:
    """Per record the LCG of its group (copies per node), and the GGD of each group.

    Parameters
    ----------
    index : NodeIndex
    counts : csr_array, shape (n, n_nodes)
        Node counts ``a_r(x)`` of the records.
    group : ndarray of int, shape (n,)
        Group of each record, numbered ``0 .. G-1``.

    Returns
    -------
    lcg_rows : csr_array, shape (n, n_nodes)
        Row ``r``: copies of each node in ``LCG(group of r)``.
    ggd : ndarray, shape (G,)
        ``GGD(S, LCG(S))`` per group.

    Notes
    -----
    Complexity: O(nnz(counts) log nnz) for the column minima (one sort of packed keys).
    """
    n_groups = int(group.max()) + 1 if len(group) else 0
    size = np.bincount(group, minlength=n_groups)
    # c_S(x) = min over members; nodes some member lacks have minimum 0. One sort of (group, node, count)
    # packed into one int64 (counts are >= 0): the first entry of a (group, node) run holds its minimum.
    # Built in place from the CSR arrays (no COO copy, one temporary of nnz int64)
    width = int(counts.data.max()) + 1 if counts.nnz else 1
    packed = np.repeat(group.astype(np.int64), np.diff(counts.indptr))
    packed *= index.n_nodes
    packed += counts.indices
    packed *= width
    packed += counts.data
    packed.sort()
    key_s = packed // width
    starts = np.flatnonzero(np.r_[True, key_s[1:] != key_s[:-1]]) if len(key_s) else np.zeros(0, dtype=np.int64)
    uk, held = key_s[starts], np.diff(np.r_[starts, len(key_s)])
    del key_s
    cmin = packed[starts] % width
    del packed
    gk, xk = uk // index.n_nodes, uk % index.n_nodes
    full = held == size[gk]
    C = sp.csr_array((cmin[full], (gk[full], xk[full])), shape=(n_groups, index.n_nodes))
    has_parent = index.parent >= 0
    up = sp.csr_array(
        (np.ones(has_parent.sum(), np.int64), (np.flatnonzero(has_parent), index.parent[has_parent])),
        shape=(index.n_nodes, index.n_nodes),
    )
    lcg_groups = sp.csr_array(C - C @ up)
    lcg_groups.eliminate_zeros()
    # the root column counts each record's items
    n_items = np.bincount(group, weights=np.asarray(counts[:, [0]].todense()).ravel(), minlength=n_groups)
    ggd = n_items - size * (C @ index.delta)
    return sp.csr_array(lcg_groups[group]), ggd
