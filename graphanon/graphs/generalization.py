"""Generalization graphs of nonreciprocal recoding.

A generalization graph has a directed edge ``i -> j`` when published record
``r'_j`` may stand for original record ``r_i`` (``r_i`` is a *preimage* of
``r'_j``, ``r'_j`` a *postimage* of ``r_i``). In the *unified view* a record
and its published form share one vertex; in the *bipartite view* they are
separate vertices ``("orig", i)`` and ``("pub", j)``. A graph in which every
vertex has ``k`` outgoing and ``k`` incoming edges (k-regular) is the union of
``k`` disjoint assignments (perfect matchings), and publishing one of them,
chosen uniformly, makes every record k-anonymous.

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (generalization graphs, unified and
bipartite views) and Sec. 4.1 (ring graph over the Gray-TSP order).
Wong, Liu, Fu, Wang, Wang. Non-homogeneous generalization in privacy
preserving data publishing. SIGMOD 2010 (k-regular generalization graphs).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from graphanon.errors import ParameterError
from graphanon.utils.validation import check_order

__all__ = ["GeneralizationGraph", "check_order", "ring_graph"]


class GeneralizationGraph:
    """A directed generalization graph with ``k`` out-edges per record.

    Parameters
    ----------
    successors : array of int, shape (n, k)
        ``successors[i]`` lists the published records ``j`` with an edge
        ``i -> j`` (distinct within a row).
    record_ids : sequence, optional
        Names of the records (for drawing); default ``0..n-1``.

    Attributes
    ----------
    n : int
        Number of records (vertices in the unified view).
    k : int
        Out-degree of every vertex.

    Examples
    --------
    >>> g = GeneralizationGraph.ring([1, 3, 2, 0, 4, 5], 3)
    >>> g.is_k_regular(3)
    True
    >>> sorted(g.preimages(1).tolist())   # r'_2 stands for r2, r6, r5 (0-based: 1, 5, 4)
    [1, 4, 5]
    """

    def __init__(self, successors, record_ids: Sequence[Hashable] | None = None) -> None:
        succ = np.asarray(successors, dtype=np.int64)
        if succ.ndim != 2:
            raise ParameterError(f"successors must be an (n, k) array, got shape {succ.shape}")
        n, k = succ.shape
        if n and (succ.min() < 0 or succ.max() >= n):
            raise ParameterError(f"successors hold an index outside 0..{n - 1}")
        if k > 1:
            s = np.sort(succ, axis=1)
            dup = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
            if len(dup):
                raise ParameterError(f"record {int(dup[0])} has a repeated successor: {succ[dup[0]].tolist()}")
        self.successors = succ
        self.successors.flags.writeable = False
        self.record_ids = tuple(range(n)) if record_ids is None else tuple(record_ids)
        if len(self.record_ids) != n:
            raise ParameterError(f"{len(self.record_ids)} record ids for {n} records")

    # ------------------------------------------------------------------ builders
    @classmethod
    def ring(cls, order, k: int, record_ids: Sequence[Hashable] | None = None) -> GeneralizationGraph:
        """The k-regular ring over a cyclic ``order``.

        Each record to itself and its ``k - 1`` successors in the order (see
        :func:`ring_graph`).
        """
        order = check_order(order, len(order))
        n = len(order)
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= max(n, 1):
            raise ParameterError(f"k must be a whole number in 1..{n} (the number of records), got {k!r}")
        pos = np.arange(n)
        cols = (pos[:, None] + np.arange(k)[None, :]) % n
        succ = np.empty((n, k), dtype=np.int64)
        succ[order] = order[cols]
        return cls(succ, record_ids)

    @classmethod
    def from_assignments(cls, assignments, record_ids: Sequence[Hashable] | None = None) -> GeneralizationGraph:
        """The union of assignments (rows of a ``(k, n)`` array, ``a[i]`` = postimage of ``i``)."""
        a = np.atleast_2d(np.asarray(assignments, dtype=np.int64))
        return cls(a.T.copy(), record_ids)

    # ------------------------------------------------------------------ structure
    @property
    def n(self) -> int:
        """The number of records (nodes)."""
        return int(self.successors.shape[0])

    @property
    def k(self) -> int:
        """The out-degree of every record."""
        return int(self.successors.shape[1])

    @property
    def n_edges(self) -> int:
        """The number of edges, ``n * k``."""
        return self.n * self.k

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """All edges as ``(sources, targets)`` arrays (row-major over ``successors``)."""
        src = np.repeat(np.arange(self.n, dtype=np.int64), self.k)
        return src, self.successors.ravel().copy()

    def out_degrees(self) -> np.ndarray:
        """The out-degree of each record (``k`` for all)."""
        return np.full(self.n, self.k, dtype=np.int64)

    def in_degrees(self) -> np.ndarray:
        """The in-degree of each record."""
        return np.bincount(self.successors.ravel(), minlength=self.n).astype(np.int64)

    def is_k_regular(self, k: int | None = None) -> bool:
        """True when every vertex has exactly ``k`` (default: :attr:`k`) out- and in-edges."""
        k = self.k if k is None else k
        return self.k == k and bool((self.in_degrees() == k).all())

    def has_edge(self, i: int, j: int) -> bool:
        """Whether record ``i`` generalizes to record ``j``."""
        return bool((self.successors[i] == j).any())

    def preimages(self, j: int | None = None):
        """Preimages of published record ``j`` (array), or of all records as an ``(n, k)`` array when ``j`` is None (requires a k-regular graph)."""
        src, dst = self.edges()
        if j is not None:
            return np.sort(src[dst == j])
        if not self.is_k_regular():
            raise ParameterError("preimages of all records need a k-regular graph")
        idx = np.argsort(dst, kind="stable")
        return src[idx].reshape(self.n, self.k)

    def contains_assignment(self, assignment) -> bool:
        """True when every edge ``i -> assignment[i]`` is in the graph."""
        a = np.asarray(assignment, dtype=np.int64)
        return len(a) == self.n and bool((self.successors == a[:, None]).any(axis=1).all())

    # ------------------------------------------------------------------ exports
    def to_networkx(self, view: str = "unified"):
        """The graph as a :class:`networkx.DiGraph`.

        Parameters
        ----------
        view : {"unified", "bipartite"}
            ``unified``: one vertex per record (``record_ids``), self-loops
            allowed. ``bipartite``: vertices ``("orig", id)`` (attribute
            ``bipartite=0``) and ``("pub", id)`` (``bipartite=1``).
        """
        import networkx as nx

        g = nx.DiGraph()
        ids = self.record_ids
        src, dst = self.edges()
        if view == "unified":
            g.add_nodes_from(ids)
            g.add_edges_from((ids[a], ids[b]) for a, b in zip(src.tolist(), dst.tolist(), strict=True))
        elif view == "bipartite":
            g.add_nodes_from((("orig", r) for r in ids), bipartite=0)
            g.add_nodes_from((("pub", r) for r in ids), bipartite=1)
            g.add_edges_from((("orig", ids[a]), ("pub", ids[b])) for a, b in zip(src.tolist(), dst.tolist(), strict=True))
        else:
            raise ParameterError(f"view must be 'unified' or 'bipartite', got {view!r}")
        return g

    def to_igraph(self):
        """The unified view as a directed :class:`igraph.Graph` (vertex attribute ``name``)."""
        import igraph as ig

        src, dst = self.edges()
        g = ig.Graph(n=self.n, edges=np.column_stack([src, dst]).tolist(), directed=True)
        g.vs["name"] = [str(r) for r in self.record_ids]
        return g

    def __repr__(self) -> str:
        """A short summary: records and edges per record."""
        return f"<GeneralizationGraph: {self.n} records, {self.k} edges per record>"


def ring_graph(order, k: int, record_ids: Sequence[Hashable] | None = None) -> GeneralizationGraph:
    """The k-regular ring generalization graph over a cyclic order.

    Each record gets an edge to itself and to its ``k - 1`` successors in
    ``order`` (cyclically), so the preimages of ``r'_x`` are ``x`` and its
    ``k - 1`` predecessors.

    Parameters
    ----------
    order : permutation of ``0..n-1``
        The cyclic record order (for example the Gray-TSP order).
    k : int
        Privacy level, ``1 <= k <= n``.

    Returns
    -------
    GeneralizationGraph

    Notes
    -----
    Complexity: O(n k).

    Examples
    --------
    >>> g = ring_graph([0, 1, 2, 3], 2)
    >>> g.successors.tolist()
    [[0, 1], [1, 2], [2, 3], [3, 0]]

    References
    ----------
    Xue et al., nonreciprocal recoding, Sec. 4.1 (ring generalization graph).
    """
    return GeneralizationGraph.ring(order, k, record_ids)
