"""The lattice of taxonomy cuts, built lazily.

A *cut* of a taxonomy holds exactly one node on every root-to-leaf path. Cuts
form a lattice: a *child* of a cut replaces one of its internal nodes by that
node's children (one step more specific); a *parent* replaces all children
of some node, when they are all in the cut, by that node. The top is
``{root}``, the bottom the set of leaves. The number of cuts is exponential
in the number of leaves, so :class:`CutLattice` never enumerates it: it
answers ``children``/``parents`` of a given cut on demand and builds a bounded
neighbourhood for drawing.

References
----------
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Sec. 3.1 (top-down greedy search of the lattice
of cuts). Terrovitis et al. PVLDB 2008, Sec. 4 (cuts, full-subtree
generalization).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable

import networkx as nx

from graphanon.errors import TaxonomyError
from graphanon.taxonomy.tree import Taxonomy

__all__ = ["CutLattice"]


class CutLattice:
    """Lazy lattice of the cuts of a taxonomy.

    Parameters
    ----------
    taxonomy : Taxonomy
    frontier : iterable of nodes, optional
        A cut whose nodes act as leaves (the *reduced taxonomy* of an mHgHs
        round): cuts never go below it. Default: the taxonomy's leaves.

    Attributes
    ----------
    path : list of tuple
        The cuts a search visited, in order (set by
        :meth:`graphanon.algorithms.hierarchy.hghs.HierarchySearch.lattice`).
    costs : dict
        Cut (tuple) -> anonymization cost, for the cuts a search evaluated.

    Notes
    -----
    Complexity: ``children(cut)`` and ``parents(cut)`` are O(|cut| * fan-out);
    ``to_networkx`` is bounded by ``max_nodes``.

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> lat = CutLattice(load_taxonomy("liuwang_fig1"))
    >>> lat.top()
    ('T',)
    >>> [c for _, c in lat.children(("P", "Q", "e", "i"))]
    [('H', 'K', 'Q', 'e', 'i'), ('P', 'N', 'M', 'e', 'i')]
    >>> [c for _, c in lat.parents(("P", "N", "M", "e", "i"))]
    [('P', 'Q', 'e', 'i')]
    """

    def __init__(self, taxonomy: Taxonomy, frontier: Iterable[Hashable] | None = None) -> None:
        self.taxonomy = taxonomy
        self._pos = {v: i for i, v in enumerate(taxonomy.nodes)}
        if frontier is None:
            self.frontier = frozenset(taxonomy.leaves)
        else:
            self.frontier = frozenset(taxonomy.validate_cut(frontier))
        self.path: list[tuple] = []
        self.costs: dict[tuple, float] = {}

    def key(self, cut: Iterable[Hashable]) -> tuple:
        """The canonical form of a cut: its nodes in taxonomy preorder."""
        try:
            return tuple(sorted(cut, key=self._pos.__getitem__))
        except KeyError as exc:
            raise TaxonomyError(f"{exc.args[0]!r} is not a node of the taxonomy") from None

    def top(self) -> tuple:
        """The top of the lattice: the cut holding only the root."""
        return (self.taxonomy.root,)

    def bottom(self) -> tuple:
        """The bottom of the lattice: the frontier cut."""
        return self.key(self.frontier)

    def is_expandable(self, node) -> bool:
        """Whether ``node`` may be replaced by its children (not on the frontier, not a leaf)."""
        return node not in self.frontier and not self.taxonomy.is_leaf(node)

    def children(self, cut: Iterable[Hashable]) -> list[tuple]:
        """``(expanded node, child cut)`` for every internal node of ``cut`` above the frontier."""
        cut = self.key(cut)
        out = []
        for v in cut:
            if self.is_expandable(v):
                child = [u for u in cut if u != v] + self.taxonomy.children(v)
                out.append((v, self.key(child)))
        return out

    def parents(self, cut: Iterable[Hashable]) -> list[tuple]:
        """``(generalized node, parent cut)`` for every node whose children are all in ``cut``."""
        cut = self.key(cut)
        members = set(cut)
        seen = set()
        out = []
        for v in cut:
            p = self.taxonomy.parent(v)
            if p is None or p in seen:
                continue
            seen.add(p)
            kids = self.taxonomy.children(p)
            if all(c in members for c in kids):
                parent = [u for u in cut if u not in set(kids)] + [p]
                out.append((p, self.key(parent)))
        return out

    def rank(self, cut: Iterable[Hashable]) -> int:
        """Distance from the top: the number of internal nodes above the cut."""
        above = set()
        for v in cut:
            above.update(self.taxonomy.ancestors(v))
        return len(above)

    @staticmethod
    def label(cut: tuple) -> str:
        """The text of a cut, ``{a,b,c}``."""
        return "{" + ",".join(map(str, cut)) + "}"

    def to_networkx(self, start: Iterable[tuple] | None = None, *, radius: int = 1, max_nodes: int = 60) -> nx.DiGraph:
        """A bounded neighbourhood of the lattice as a DiGraph (edges general -> specific).

        Parameters
        ----------
        start : iterable of cuts, optional
            Seeds (default: the search path, or the top cut).
        radius : int
            Lattice steps (children and parents) explored around the seeds.
        max_nodes : int
            Stop adding cuts beyond this many (the seeds always stay).

        Returns
        -------
        networkx.DiGraph
            Nodes are cuts (tuples) with attributes ``label``, ``rank``,
            ``on_path`` (step index or None) and ``cost`` (when known); edges
            carry ``expanded`` (the node replaced by its children) and
            ``on_path``.
        """
        seeds = [self.key(c) for c in (start if start is not None else (self.path or [self.top()]))]
        g = nx.DiGraph()
        path_index = {c: i for i, c in enumerate(self.path)}

        def add(c):
            if c not in g:
                g.add_node(c, label=self.label(c), rank=self.rank(c), on_path=path_index.get(c),
                           cost=self.costs.get(c))

        for c in seeds:
            add(c)
        queue = deque((c, 0) for c in seeds)
        while queue:
            c, d = queue.popleft()
            if d >= radius:
                continue
            for node, child in self.children(c):
                if child not in g and g.number_of_nodes() >= max_nodes:
                    continue
                add(child)
                g.add_edge(c, child, expanded=node)
                queue.append((child, d + 1))
            for node, parent in self.parents(c):
                if parent not in g and g.number_of_nodes() >= max_nodes:
                    continue
                add(parent)
                g.add_edge(parent, c, expanded=node)
                queue.append((parent, d + 1))
        for a, b in zip(self.path, self.path[1:], strict=False):
            if a in g and b in g:
                g.add_edge(a, b, expanded=next((v for v in a if v not in b), None))
        for a, b in g.edges:
            g.edges[a, b]["on_path"] = a in path_index and b in path_index and path_index[b] == path_index[a] + 1
        return g

    def __repr__(self) -> str:
        """A short summary: taxonomy, frontier and path sizes."""
        return f"<CutLattice over {self.taxonomy!r}, frontier of {len(self.frontier)} nodes, path of {len(self.path)}>"
