"""Item taxonomies (rooted trees whose leaves are items) and item partitions.

A :class:`Taxonomy` is a rooted tree on a :class:`networkx.DiGraph` with edges
parent -> child; its leaves are the data's items, its internal nodes are
generalized items. It knows leaf counts, depths, lowest common ancestors, the
LM/NCP cost of a node, and *cuts*: node sets with exactly one node on every
root-to-leaf path, which define global recodings.

An :class:`~graphanon.taxonomy.itemgroups.ItemGroups` (defined in
:mod:`graphanon.taxonomy.itemgroups`, importable from here) is a partition of items
into named blocks (COAT utility constraints, swapping categories); every
taxonomy level is one.

Nodes and items are text (:mod:`graphanon.utils.labels`): a taxonomy built from
Python integers names its nodes by their decimal text, a file's ``001``
stays ``001``, and lookups given an int look up its text. So a taxonomy read
from any file matches data read from any format.

References
----------
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 2 (cuts, full-subtree generalization).
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Sec. 2-3 (cuts, LM cost).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphanon.errors import DataFormatError, ParameterError, TaxonomyError
from graphanon.readwrite.formats import read_all
from graphanon.taxonomy.build import (
    balanced_edges,
    checked_preorder,
    edge_graph,
    edge_preorder,
    level_table_graph,
    parent_map_tree,
)
from graphanon.taxonomy.build import text_nodes as _text_nodes  # noqa: F401 (its former home)
from graphanon.taxonomy.itemgroups import ItemGroups
from graphanon.utils.labels import as_label, lookup_key, natural_key

if TYPE_CHECKING:  # networkx: imported where a graph is read, checked or built (Taxonomy.graph)
    import networkx as nx

__all__ = ["ItemGroups", "Taxonomy", "read_taxonomy"]


class Taxonomy:
    """A rooted item hierarchy.

    Parameters
    ----------
    graph : networkx.DiGraph
        Edges parent -> child. Must be a tree: one root (no parent), every
        other node exactly one parent, no cycle, connected. Nodes are turned
        into text (:func:`graphanon.utils.labels.as_label`).

    Attributes
    ----------
    root : hashable
        The root node.
    leaves : tuple
        Leaves in depth-first order (the items).

    Notes
    -----
    Construction precomputes, in O(number of nodes): a depth-first order,
    per-node parent, depth, number of leaves and Euler interval, so that
    ancestor tests and LCA are O(depth) and leaf counts O(1).

    Examples
    --------
    >>> tax = Taxonomy.from_parent_map({"a": "H", "b": "H", "c": "T", "H": "T"})
    >>> tax.root, tax.leaf_count("H"), tax.lm("H")
    ('T', 2, 0.5)
    >>> tax.is_cut(["H", "c"]), tax.is_cut(["a", "c"])
    (True, False)
    """

    _frozen_graph: nx.DiGraph | None
    _graph_parts: tuple  # (nodes, edges) of a taxonomy built without a graph (``balanced``, a path file)

    def __init__(self, graph: nx.DiGraph) -> None:
        import networkx as nx

        graph, order = checked_preorder(graph)
        self._frozen_graph = nx.freeze(graph.copy())
        self._set_tree(order, lambda v: next(iter(graph.predecessors(v))))

    def _set_tree(self, order: list, parent_of) -> None:
        """The arrays behind every query, from the preorder ``order`` (root first) and ``parent_of(node)``.

        A node's children, in preorder, are in the graph's successor order (the preorder visits
        successors in that order), so :meth:`children` reads them from here, not from the graph.
        """
        self.root = order[0]
        self._order = order
        self._pos = {v: i for i, v in enumerate(order)}
        n = len(order)
        parent = np.full(n, -1, dtype=np.int64)
        depth = np.zeros(n, dtype=np.int64)
        for v in order[1:]:
            p = parent_of(v)
            parent[self._pos[v]] = self._pos[p]
            depth[self._pos[v]] = depth[self._pos[p]] + 1
        is_leaf = np.bincount(parent[1:], minlength=n) == 0
        by_parent = np.argsort(parent[1:], kind="stable") + 1  # children grouped by parent, in preorder
        self._children_ptr = np.concatenate([[0], np.cumsum(np.bincount(parent[1:], minlength=n))])
        self._children_idx = by_parent
        # Euler interval: subtree of node i is the preorder range [i, end[i]).
        end = np.arange(1, n + 1, dtype=np.int64)
        for i in range(n - 1, 0, -1):
            end[parent[i]] = max(end[parent[i]], end[i])
        leaf_prefix = np.concatenate([[0], np.cumsum(is_leaf)])
        self._parent = parent
        self._depth = depth
        self._is_leaf = is_leaf
        self._end = end
        self._leaf_count = leaf_prefix[end] - leaf_prefix[np.arange(n)]
        self.leaves = tuple(v for v, leaf in zip(order, is_leaf) if leaf)
        self._leaf_set = frozenset(self.leaves)

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_parent_map(cls, parent_of: Mapping[Hashable, Hashable]) -> Taxonomy:
        """Build from a mapping child -> parent (the root is the node with no parent)."""
        import networkx as nx

        g = nx.DiGraph()
        for child, parent in parent_of.items():
            if child == parent:
                raise TaxonomyError(f"node {child!r} is its own parent (a cycle)")
            g.add_edge(parent, child)
        return cls(g)

    @classmethod
    def from_edges(cls, edges: Iterable[tuple[Hashable, Hashable]]) -> Taxonomy:
        """Build from (parent, child) pairs; a child given two parents is an error."""
        import networkx as nx

        g = nx.DiGraph()
        for parent, child in edges:
            if g.has_node(child) and g.in_degree(child) and next(iter(g.predecessors(child))) != parent:
                raise TaxonomyError(
                    f"node {child!r} has two parents ({next(iter(g.predecessors(child)))!r} and "
                    f"{parent!r}); a taxonomy is a tree"
                )
            if child == parent:
                raise TaxonomyError(f"node {child!r} is its own parent (a cycle)")
            g.add_edge(parent, child)
        return cls(g)

    @classmethod
    def from_paths(cls, paths: Iterable[Sequence[Hashable]], *, source: str = "<paths>") -> Taxonomy:
        """Build from root-ward paths ``[leaf, parent, ..., root]``, one per leaf."""
        parent_of: dict = {}
        for lineno, path in enumerate(paths, start=1):
            try:
                path = [as_label(v, "taxonomy node") for v in path]
            except DataFormatError as exc:
                raise TaxonomyError(f"{source}, line {lineno}: {exc} ('leaf;parent;...;root')") from None
            if len(path) < 2:
                raise TaxonomyError(
                    f"{source}, line {lineno}: a path needs a leaf and at least its root "
                    f"('leaf;parent;...;root'), got {path!r}"
                )
            for child, parent in zip(path, path[1:]):
                old = parent_of.setdefault(child, parent)
                if old != parent:
                    raise TaxonomyError(
                        f"{source}, line {lineno}: node {child!r} has parent {parent!r} here but "
                        f"{old!r} on an earlier line; a taxonomy is a tree"
                    )
        if not parent_of:
            raise TaxonomyError(f"{source}: no paths (the taxonomy file is empty)")
        tree = parent_map_tree(parent_of)  # checked without networkx; None when no tree, and then:
        return cls.from_parent_map(parent_of) if tree is None else cls._built(*tree)

    @classmethod
    def _built(cls, order: list, parent_of, nodes: list, edges: list) -> Taxonomy:
        """A tree by construction (no networkx checks): its arrays now, its graph on first use (:attr:`_graph`)."""
        tax = cls.__new__(cls)
        tax._frozen_graph, tax._graph_parts = None, (nodes, edges)
        tax._set_tree(order, parent_of)
        return tax

    @classmethod
    def from_level_table(
        cls,
        rows: Iterable[Sequence[Hashable]],
        *,
        root: Hashable = "ALL",
        source: str = "<table>",
    ) -> Taxonomy:
        """Build from rows ``(item, level_d, ..., level_1)``, most specific first.

        Every row has the same number of columns; ``level_1`` categories hang
        under ``root``. A category name that equals an item label or a name at
        another level is qualified as ``"<name> [level j]"`` so that nodes stay
        distinct (groceries has an item *sausage* in category *sausage*).
        """
        return cls(level_table_graph(rows, root=root, source=source))

    @classmethod
    def balanced(
        cls,
        items: Iterable[Hashable],
        fanout: int = 5,
        *,
        order: str = "sorted",
        rng=None,
        prefix: str = "G",
    ) -> Taxonomy:
        """A balanced taxonomy over ``items``: groups of ``fanout`` nodes per level.

        Parameters
        ----------
        items : iterable of str (or int)
            The leaves (turned into text, :func:`graphanon.utils.labels.as_label`).
        fanout : int
            Children per internal node (the last group of a level may be smaller).
        order : {"sorted", "random"}
            Leaf order before grouping: labels in natural order
            (:func:`graphanon.utils.labels.natural_key`: whole numbers by value, so FIMI
            items ``1, 2, ..., 10`` group as numbers), or a random permutation
            drawn from ``rng``.
        rng : numpy Generator or int, optional
            Seed for ``order="random"``.
        prefix : str
            Internal nodes are named ``f"{prefix}{level}_{index}"``; the root
            is ``"ROOT"``.

        Examples
        --------
        >>> t = Taxonomy.balanced(range(25), fanout=5)
        >>> t.height, len(t.leaves), t.leaf_count("G1_0")
        (2, 25, 5)
        >>> t.leaves_under("G1_1")
        ['5', '6', '7', '8', '9']
        """
        leaves, edges = balanced_edges(items, fanout, order=order, rng=rng, prefix=prefix)
        return cls._built(*edge_preorder("ROOT", edges), leaves, edges)

    @classmethod
    def from_groups(cls, groups: ItemGroups, *, root: Hashable = "ALL") -> Taxonomy:
        """A two-level taxonomy: root -> one node per block -> its items."""
        import networkx as nx

        g = nx.DiGraph()
        for name, block in groups.blocks.items():
            name = as_label(name, "group name")
            node = name if name not in groups.item_set else f"{name} [group]"
            for it in block:
                g.add_edge(node, it)
            g.add_edge(root, node)
        return cls(g)

    # ------------------------------------------------------------------ structure
    @property
    def _graph(self) -> nx.DiGraph:
        """The frozen networkx tree, built on first use for a taxonomy made without one (``balanced``)."""
        if self._frozen_graph is None:
            self._frozen_graph = edge_graph(*self._graph_parts, frozen=True)
        return self._frozen_graph

    @property
    def graph(self) -> nx.DiGraph:
        """The frozen tree (edges parent -> child)."""
        return self._graph

    def to_networkx(self) -> nx.DiGraph:
        """A mutable copy of the tree with ``leaves``/``depth`` node attributes."""
        import networkx as nx

        g = nx.DiGraph(self._graph)
        for v in g:
            i = self._pos[v]
            g.nodes[v]["depth"] = int(self._depth[i])
            g.nodes[v]["leaves"] = int(self._leaf_count[i])
        return g

    @property
    def nodes(self) -> tuple:
        """All nodes in depth-first preorder (root first)."""
        return tuple(self._order)

    @property
    def height(self) -> int:
        """The depth of the deepest leaf (the root has depth 0)."""
        return int(self._depth.max())

    def __contains__(self, node) -> bool:
        """Whether ``node`` is a node of the taxonomy."""
        return self._key(node) in self._pos

    _key = staticmethod(lookup_key)

    def __len__(self) -> int:
        """The number of nodes."""
        return len(self._order)

    def _i(self, node) -> int:
        try:
            return self._pos[self._key(node)]
        except (KeyError, TypeError):
            raise TaxonomyError(f"{node!r} is not a node of the taxonomy") from None

    def is_leaf(self, node) -> bool:
        """Whether ``node`` is a leaf."""
        return bool(self._is_leaf[self._i(node)])

    def parent(self, node):
        """Parent of ``node`` (None for the root)."""
        p = self._parent[self._i(node)]
        return None if p < 0 else self._order[p]

    def children(self, node) -> list:
        """The children of ``node``."""
        i = self._i(node)
        return [self._order[j] for j in self._children_idx[self._children_ptr[i] : self._children_ptr[i + 1]]]

    def ancestors(self, node) -> list:
        """Proper ancestors of ``node``, nearest first (the root last)."""
        out = []
        p = self._parent[self._i(node)]
        while p >= 0:
            out.append(self._order[p])
            p = self._parent[p]
        return out

    def depth(self, node) -> int:
        """The depth of ``node`` (the root has depth 0)."""
        return int(self._depth[self._i(node)])

    def leaf_count(self, node) -> int:
        """Number of leaves under ``node`` (1 for a leaf)."""
        return int(self._leaf_count[self._i(node)])

    def leaves_under(self, node) -> list:
        """The leaves of the subtree rooted at ``node``."""
        i = self._i(node)
        return [self._order[j] for j in range(i, self._end[i]) if self._is_leaf[j]]

    def is_ancestor(self, a, b) -> bool:
        """True when ``a`` is ``b`` or a proper ancestor of ``b``."""
        i, j = self._i(a), self._i(b)
        return bool(i <= j < self._end[i])

    def lca(self, *nodes):
        """Lowest common ancestor of one or more nodes."""
        if not nodes:
            raise TaxonomyError("lca needs at least one node")
        idx = [self._i(v) for v in nodes]
        lo, hi = min(idx), max(idx)
        a = lo
        while not (a <= hi < self._end[a] and all(a <= j < self._end[a] for j in idx)):
            a = self._parent[a]
        return self._order[a]

    def lm(self, node) -> float:
        """Loss Metric of generalizing to ``node``: (leaves(node) - 1) / (leaves(root) - 1).

        This is the NCP of a node as in Liu & Wang (PAKDD 2010), Sec. 2. A
        one-leaf taxonomy has LM 0 everywhere.
        """
        total = self._leaf_count[0]
        if total <= 1:
            return 0.0
        return float((self._leaf_count[self._i(node)] - 1) / (total - 1))

    ncp = lm

    def level(self, depth: int) -> list:
        """Nodes at ``depth`` plus leaves shallower than it: always a cut."""
        if depth < 0:
            raise ParameterError(f"depth must be >= 0, got {depth}")
        return [
            v
            for i, v in enumerate(self._order)
            if self._depth[i] == depth or (self._is_leaf[i] and self._depth[i] < depth)
        ]

    def groups_at(self, depth: int) -> ItemGroups:
        """The partition of leaves induced by the cut :meth:`level` ``(depth)``."""
        return ItemGroups({v: self.leaves_under(v) for v in self.level(depth)})

    # ------------------------------------------------------------------ cuts
    def cut_problem(self, nodes: Iterable) -> str | None:
        """Why ``nodes`` is not a cut, or None when it is one."""
        nodes = [self._key(v) for v in nodes]
        unknown = [v for v in nodes if v not in self._pos]
        if unknown:
            return f"{unknown[0]!r} is not a node of the taxonomy"
        if len(set(nodes)) != len(nodes):
            return "a node is listed twice"
        idx = sorted(self._pos[v] for v in nodes)
        covered = 0
        next_pos = 0
        for i in idx:
            if i < next_pos:
                outer = next(j for j in idx if j < i and i < self._end[j])
                return f"{self._order[i]!r} lies under {self._order[outer]!r}; a cut holds one node per root-to-leaf path"
            next_pos = self._end[i]
            covered += self._leaf_count[i]
        if covered != len(self.leaves):
            cov: set[int] = set()
            for i in idx:
                cov.update(j for j in range(i, self._end[i]) if self._is_leaf[j])
            miss = next(self._order[j] for j in range(len(self._order)) if self._is_leaf[j] and j not in cov)
            return f"leaf {miss!r} is under none of the given nodes; a cut covers every leaf"
        return None

    def is_cut(self, nodes: Iterable) -> bool:
        """Whether ``nodes`` is a cut (see :meth:`cut_problem`)."""
        return self.cut_problem(nodes) is None

    def validate_cut(self, nodes: Iterable) -> list:
        """Return ``nodes`` as a list, or raise :class:`TaxonomyError` saying why it is no cut."""
        nodes = [self._key(v) for v in nodes]
        problem = self.cut_problem(nodes)
        if problem:
            raise TaxonomyError(f"not a cut: {problem}")
        return nodes

    def cut_map(self, nodes: Iterable) -> dict:
        """Map every leaf to its node in the cut ``nodes`` (validated)."""
        out = {}
        for v in self.validate_cut(nodes):
            for leaf in self.leaves_under(v):
                out[leaf] = v
        return out

    def check_covers(self, items: Iterable, *, what: str = "the data") -> None:
        """Raise a clear error when some items are not leaves of the taxonomy."""
        missing = [x for x in items if self._key(x) not in self._leaf_set]
        if missing:
            internal = [x for x in missing if self._key(x) in self._pos]
            hint = f" ({internal[0]!r} is an internal node, not a leaf)" if internal else ""
            if not hint:
                by_value = {natural_key(v)[:2]: v for v in self.leaves if natural_key(v)[0] == 0}
                twin = next(((x, by_value[k]) for x in missing if (k := natural_key(str(x))[:2]) in by_value), None)
                if twin:
                    hint = (f" (labels are compared as text: the data's {twin[0]!r} is not the "
                            f"taxonomy's {twin[1]!r}; write both files with the same codes)")
            raise TaxonomyError(
                f"{len(missing)} item(s) of {what} are not leaves of the taxonomy, e.g. "
                f"{', '.join(map(repr, missing[:5]))}{hint}; add them to the taxonomy file"
            )

    def restrict(self, items: Iterable) -> Taxonomy:
        """The taxonomy pruned to the leaves in ``items`` (internal nodes left without leaves are dropped; the root is kept)."""
        keep_leaves = {self._key(x) for x in items} & self._leaf_set
        keep = set()
        for leaf in keep_leaves:
            keep.add(leaf)
            keep.update(self.ancestors(leaf))
        if not keep:
            raise TaxonomyError("none of the given items is a leaf of the taxonomy")
        return Taxonomy(self._graph.subgraph(keep).copy())

    def __repr__(self) -> str:
        """A short summary: root, nodes, leaves, height."""
        return (
            f"<Taxonomy: root {self.root!r}, {len(self._order)} nodes, {len(self.leaves)} leaves, "
            f"height {self.height}>"
        )


def read_taxonomy(path: str | os.PathLike, *, root: Hashable = "ALL") -> Taxonomy:
    r"""Read a taxonomy file, telling the two formats apart by content.

    * **Path file**: one line per leaf, ``leaf;parent;...;root``.
    * **Level table CSV**: a header ``item,level_d,...,level_1`` and one row
      per item (for example ``groceries_taxonomy.csv``).

    A file whose first non-blank line holds ``;`` is a path file; one with
    ``,`` is a level table. Every node is the stripped text of its cell
    (``001`` stays ``001``), as items are in every data format, so a
    taxonomy of either kind matches data of any format. UTF-8 with or
    without a byte order mark; ``.gz`` is read transparently.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "icd.txt"
    >>> _ = p.write_text("001;001-009;ALL\n010;010-018;ALL\n-1;unknown;ALL\n")
    >>> read_taxonomy(p).leaves
    ('001', '010', '-1')
    """
    text = read_all(path)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise TaxonomyError(f"{path}: empty taxonomy file")
    first = lines[0]
    if ";" in first:
        return Taxonomy.from_paths(([t.strip() for t in ln.split(";")] for ln in lines), source=str(path))
    if "," in first:
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            header = next(reader)
            rows = [[c.strip() for c in r] for r in reader if r and any(c.strip() for c in r)]
        except csv.Error as exc:
            raise TaxonomyError(f"{path}, line {reader.line_num}: not valid CSV ({exc})") from None
        if len(header) < 2:
            raise TaxonomyError(f"{path}, line 1: a level table needs item,level_d,...,level_1 columns")
        return Taxonomy.from_level_table(rows, root=root, source=str(path))
    raise TaxonomyError(
        f"{path}, line 1: neither a path file ('leaf;parent;...;root') nor a level table "
        f"('item,level2,level1' CSV)"
    )
