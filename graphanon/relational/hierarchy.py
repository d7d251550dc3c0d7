"""Generalization hierarchies of relational attributes: numeric intervals and categorical trees.

Every quasi-identifier column of a :class:`~graphanon.relational.RelationalTable`
gets an :class:`AttributeHierarchy`: a rooted tree whose leaves are the
column's values and whose inner nodes are their generalizations. Both kinds
share one representation (a :class:`~graphanon.taxonomy.Taxonomy` plus arrays), so
the methods generalize a group of records the same way for every column: to the
lowest node that covers all of the group's values.

The published text of a generalized value (what a relational release writes,
and what the audit ``audit_rt`` reads) is:

* a value itself for a leaf (``42``, ``F``);
* ``[lo-hi]`` for a numeric interval: the whole numbers ``lo <= v <= hi``
  (negative bounds print with their sign: ``[-10--1]``);
* the node's name for an inner node of a categorical tree;
* ``*`` for the root (the value fully suppressed), whatever the root is called
  in a hierarchy file.

Numeric hierarchies are built automatically (:meth:`AttributeHierarchy.numeric`:
aligned bins of width ``w, 2w, 4w, ...`` with ``w`` the smallest of 1, 2, 5, 10,
20, 50, ... that cuts the column's range into at most 20 bins) or from cut points
the user gives per level (``cuts=[[0, 18, 40, 65, 120], [0, 40, 120]]``: each
level's boundaries include the outer bounds and contain the next level's). The
bins are fixed by the width or the cut points, never by the data's smallest or
largest value, so a published interval does not reveal an extreme record.

Categorical hierarchies are flat by default (every value a child of ``*``), or
read from a file in the package's taxonomy format -- ``value;parent;...;root``
per line, which is also ARX's hierarchy format (one row per value, its
generalization at each level, semicolon-separated) -- or from a level table
CSV (:func:`graphanon.taxonomy.read_taxonomy`).

NCP (normalized certainty penalty, Xu et al. KDD 2006, Sec. 3) of a published
value: 0 for a leaf; ``(hi - lo) / (top - bottom)`` for an interval, where
``[bottom, top]`` is the span of the hierarchy's coarsest bins (public, not the
data's range); ``leaves(node) / leaves(root)`` for a categorical inner node;
1 for ``*``.

Examples
--------
>>> h = AttributeHierarchy.numeric("age", [23, 37, 41, 45, 68])
>>> h.generalize(41, 1), h.generalize(41, 2), h.generalize(41, 99)
('[40-44]', '[40-49]', '*')
>>> h.span, round(h.ncp("[40-49]"), 3), h.ncp("41"), h.ncp("*")
((0, 79), 0.114, 0.0, 1.0)
>>> h.covers("[40-49]", 45), h.covers("[40-44]", 45)
(True, False)
>>> g = AttributeHierarchy.categorical("gender", ["F", "M", "F"])
>>> g.generalize("F", 1), g.ncp("F"), g.ncp("*")
('*', 0.0, 1.0)
"""

from __future__ import annotations

import os
import re
from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from graphanon.errors import DataFormatError, ParameterError, TaxonomyError
from graphanon.taxonomy.tree import Taxonomy, read_taxonomy

__all__ = ["SUPPRESSED", "AttributeHierarchy", "interval_label", "parse_interval"]

#: The published text of a fully suppressed value (the root of every hierarchy).
SUPPRESSED = "*"
_INTERVAL = re.compile(r"^\[(-?\d+)-(-?\d+)\]$")
_NICE = (1, 2, 5)
_TABLE_MAX = 4096  # the largest hierarchy whose pairwise LCA table is kept


def interval_label(lo: int, hi: int) -> str:
    """The published text ``[lo-hi]`` of the whole numbers ``lo <= v <= hi``.

    Examples
    --------
    >>> interval_label(40, 49), interval_label(-10, -1)
    ('[40-49]', '[-10--1]')
    """
    return f"[{int(lo)}-{int(hi)}]"


def parse_interval(text: str) -> tuple[int, int] | None:
    """``(lo, hi)`` of an interval's text ``[lo-hi]``, or None for any other text.

    Examples
    --------
    >>> parse_interval("[40-49]"), parse_interval("[-10--1]"), parse_interval("F")
    ((40, 49), (-10, -1), None)
    """
    found = _INTERVAL.match(text)
    return None if found is None else (int(found.group(1)), int(found.group(2)))


def _nice_width(span: int, max_bins: int = 20) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that cuts ``span`` values into at most ``max_bins`` bins."""
    scale = 1
    while True:
        for base in _NICE:
            if -(-span // (base * scale)) <= max_bins:
                return base * scale
        scale *= 10


class AttributeHierarchy:
    """The generalization tree of one relational attribute.

    Built by :meth:`numeric`, :meth:`categorical` or :meth:`from_file`; the
    constructor takes a finished tree.

    Parameters
    ----------
    name : str
        The column's name (for error messages).
    taxonomy : Taxonomy
        The tree; its leaves are the column's values as text.
    numeric : bool
        Whether leaves are whole numbers and inner nodes ``[lo-hi]`` intervals
        (kept as :attr:`is_numeric`).
    span : tuple of int, optional
        For a numeric hierarchy: ``(bottom, top)`` of its coarsest bins (the
        denominator of an interval's NCP).

    Attributes
    ----------
    labels : tuple of str
        The published text of every node, in the taxonomy's preorder (the
        root is ``*``).
    """

    def __init__(self, name: str, taxonomy: Taxonomy, *, numeric: bool, span: tuple[int, int] | None = None) -> None:
        self.name = str(name)
        self.taxonomy = taxonomy
        self.is_numeric = bool(numeric)
        nodes = taxonomy.nodes
        labels = [SUPPRESSED if v == taxonomy.root else str(v) for v in nodes]
        if SUPPRESSED in labels[1:]:
            raise TaxonomyError(f"the hierarchy of {self.name!r} has a node {SUPPRESSED!r} below its root; "
                                f"{SUPPRESSED!r} is the published text of the root only")
        self.labels = tuple(labels)
        self._pos = {label: i for i, label in enumerate(labels)}
        self._pos.setdefault(str(taxonomy.root), 0)
        n = len(nodes)
        parent = np.array([-1] + [self._pos_of(taxonomy.parent(v)) for v in nodes[1:]], dtype=np.int64)
        depth = np.array([taxonomy.depth(v) for v in nodes], dtype=np.int64)
        is_leaf = np.array([taxonomy.is_leaf(v) for v in nodes], dtype=bool)
        end = np.arange(1, n + 1, dtype=np.int64)
        for i in range(n - 1, 0, -1):
            end[parent[i]] = max(end[parent[i]], end[i])
        self._parent, self._depth, self._is_leaf, self._end = parent, depth, is_leaf, end
        height = int(depth.max())
        # paths[i, d]: the ancestor of node i at depth d (root-first); the node itself below its depth
        paths = np.empty((n, height + 1), dtype=np.int64)
        paths[0, :] = 0
        for i in range(1, n):
            paths[i] = paths[parent[i]]
            paths[i, depth[i]:] = i
        self._paths = paths
        n_leaves = int(is_leaf.sum())
        leaf_count = np.array([taxonomy.leaf_count(v) for v in nodes], dtype=np.float64)
        if self.is_numeric:
            if span is None:
                raise ParameterError("a numeric hierarchy needs its span (bottom, top)")
            width = max(span[1] - span[0], 1)
            ncp = np.zeros(n)
            for i, label in enumerate(labels):
                bounds = parse_interval(label)
                if bounds is not None:
                    ncp[i] = min((bounds[1] - bounds[0]) / width, 1.0)
        else:
            ncp = np.where(is_leaf, 0.0, leaf_count / max(n_leaves, 1))
        ncp[0] = 1.0
        self._ncp = ncp
        self.span = span
        self._leaf_of = {labels[i]: i for i in np.flatnonzero(is_leaf)}

    def _pos_of(self, node: Hashable) -> int:
        return self._pos[SUPPRESSED if node == self.taxonomy.root else str(node)]

    # ------------------------------------------------------------------ builders
    @classmethod
    def numeric(cls, name: str, values: Iterable[int], *, cuts: Sequence[Sequence[int]] | None = None) -> AttributeHierarchy:
        """Intervals over whole numbers, automatic or from cut points per level.

        Parameters
        ----------
        name : str
            The column's name.
        values : iterable of int
            The column's values (the leaves: each distinct value).
        cuts : list of lists of int, optional
            Per level, finest first, the bin boundaries including both outer
            bounds: ``[0, 18, 40, 65, 120]`` makes ``[0-17]``, ``[18-39]``,
            ``[40-64]``, ``[65-119]``. Each level's boundaries must contain the
            next level's, and every value must lie inside the outer bounds.
            Default: aligned bins of doubling width (module notes).

        Returns
        -------
        AttributeHierarchy

        Raises
        ------
        ParameterError
            For cut points that are not increasing, levels that do not nest,
            or a value outside the bounds (named).

        Notes
        -----
        Complexity: O(distinct values x levels).
        """
        vals = np.unique(np.asarray(list(values), dtype=np.int64))
        if vals.size == 0:
            raise ParameterError(f"column {name!r} has no values to build a hierarchy from")
        levels: list[list[tuple[int, int]]] = []  # per level, finest first: the bins (lo, hi) holding values
        if cuts is None:
            lo, hi = int(vals[0]), int(vals[-1])
            width = _nice_width(hi - lo + 1)
            while True:
                first, last = (lo // width) * width, (hi // width) * width
                if first == last:  # one bin holds every value: the span; above it is the root
                    span = (first, first + width - 1)
                    break
                if width > 1:
                    levels.append([(b, b + width - 1) for b in range(first, last + 1, width)])
                width *= 2
        else:
            prev: set[int] | None = None
            for d, level in enumerate(cuts):
                bounds = [int(b) for b in level]
                if len(bounds) < 2 or any(b >= c for b, c in zip(bounds, bounds[1:])):
                    raise ParameterError(f"column {name!r}: cut points of level {d + 1} must be at least two "
                                         f"increasing whole numbers (outer bounds included), got {list(level)}")
                if prev is not None and not set(bounds) <= prev:
                    raise ParameterError(f"column {name!r}: the cut points of level {d + 1} must be a subset "
                                         f"of those of level {d} (levels nest, finest first)")
                if prev is not None and (bounds[0], bounds[-1]) != (min(prev), max(prev)):
                    raise ParameterError(f"column {name!r}: every level of cut points must have the same outer bounds")
                prev = set(bounds)
                levels.append([(b, c - 1) for b, c in zip(bounds, bounds[1:])])
            if not levels:
                raise ParameterError(f"column {name!r}: give at least one level of cut points")
            bottom, top = levels[0][0][0], levels[0][-1][1]
            outside = vals[(vals < bottom) | (vals > top)]
            if outside.size:
                raise ParameterError(f"column {name!r}: value {int(outside[0])} lies outside the cut points' "
                                     f"bounds [{bottom}, {top + 1}); widen the outer cut points")
            span = (bottom, top)
        parent: dict[Hashable, Hashable] = {}
        for v in vals.tolist():
            node: Hashable = str(v)
            for bins in levels:
                lo_b, hi_b = next((b, c) for b, c in bins if b <= v <= c)
                up = interval_label(lo_b, hi_b)
                if lo_b == hi_b or up == node:
                    continue  # a bin of one value is the value itself; a bin kept from the level below is itself
                parent[node] = up
                node = up
            if node != SUPPRESSED:
                parent[node] = SUPPRESSED
        return cls(name, Taxonomy.from_parent_map(parent), numeric=True, span=(int(span[0]), int(span[1])))

    @classmethod
    def categorical(cls, name: str, values: Iterable[str], *, taxonomy: Taxonomy | None = None,
                    source: str | None = None) -> AttributeHierarchy:
        """A categorical hierarchy: flat (every value under ``*``) or the given tree.

        Parameters
        ----------
        name : str
            The column's name.
        values : iterable of str
            The column's values; each must be a leaf of ``taxonomy``.
        taxonomy : Taxonomy, optional
            The tree (default: flat over the distinct values).
        source : str, optional
            Where the tree came from (a file), for error messages.

        Returns
        -------
        AttributeHierarchy

        Raises
        ------
        TaxonomyError
            Naming a value that is not a leaf of the tree.
        """
        distinct = sorted({str(v) for v in values})
        if taxonomy is None:
            if SUPPRESSED in distinct:
                raise DataFormatError(f"column {name!r} holds the value {SUPPRESSED!r}, which is the published text "
                                      "of a suppressed value; rename it")
            taxonomy = Taxonomy.from_parent_map({v: SUPPRESSED for v in distinct})
        else:
            leaves = set(taxonomy.leaves)
            missing = [v for v in distinct if v not in leaves]
            if missing:
                where = f" ({source})" if source else ""
                raise TaxonomyError(f"value {missing[0]!r} of column {name!r} is not a leaf of its hierarchy{where}; "
                                    f"{len(missing)} value(s) missing; add a line '{missing[0]};...;{taxonomy.root}'")
        return cls(name, taxonomy, numeric=False)

    @classmethod
    def from_file(cls, name: str, path: str | os.PathLike, values: Iterable[str]) -> AttributeHierarchy:
        r"""A categorical hierarchy read from a taxonomy file (``value;parent;...;root``, ARX style, or a level table).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "race.txt"
        >>> _ = p.write_text("white;*\nblack;*\nasian;asian-pi;*\npacific;asian-pi;*\n")
        >>> h = AttributeHierarchy.from_file("race", p, ["asian", "white"])
        >>> h.generalize("asian", 1), h.ncp("asian-pi")
        ('asian-pi', 0.5)
        """
        return cls.categorical(name, values, taxonomy=read_taxonomy(path), source=str(path))

    # ------------------------------------------------------------------ queries
    @property
    def height(self) -> int:
        """The depth of the deepest leaf."""
        return int(self._depth.max())

    @property
    def n_leaves(self) -> int:
        """The number of leaves (values the hierarchy knows)."""
        return int(self._is_leaf.sum())

    def node(self, label: str) -> int:
        """The preorder position of a published value (an error naming the column for unknown text)."""
        try:
            return self._pos[str(label)]
        except KeyError:
            raise ParameterError(f"{label!r} is not a value or generalization of column {self.name!r}") from None

    def leaf_codes(self, values: Sequence | np.ndarray) -> np.ndarray:
        """Preorder positions of the leaves holding ``values`` (as text); an error names the first unknown value."""
        try:
            return np.array([self._leaf_of[str(v)] for v in values], dtype=np.int64)
        except KeyError as exc:
            raise DataFormatError(f"value {exc.args[0]!r} of column {self.name!r} is not a leaf of its hierarchy") from None

    def generalize(self, value, level: int) -> str:
        """The published text of ``value`` generalized ``level`` steps up (the root at most)."""
        i = self.leaf_codes([value])[0]
        for _ in range(max(int(level), 0)):
            if self._parent[i] < 0:
                break
            i = self._parent[i]
        return self.labels[i]

    def ncp(self, label: str) -> float:
        """NCP of a published value (module notes)."""
        return float(self._ncp[self.node(label)])

    def ncp_of(self, nodes: np.ndarray) -> np.ndarray:
        """NCP of nodes given by preorder position (vectorized)."""
        return self._ncp[np.asarray(nodes, dtype=np.int64)]

    def covers(self, label: str, value) -> bool:
        """Whether the published value ``label`` stands for the original ``value``."""
        i, j = self.node(label), self.leaf_codes([value])[0]
        return bool(i <= j < self._end[i])

    def covers_codes(self, node: int, leaves: np.ndarray) -> np.ndarray:
        """For leaves given by position: whether the node at position ``node`` covers each (vectorized)."""
        return (leaves >= node) & (leaves < self._end[node])

    def lca(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Per pair, the lowest node covering the preorder range ``[lo, hi]`` of leaves (vectorized).

        A group's generalization is ``lca(min, max)`` of its leaves' positions:
        the subtree of a node is a contiguous preorder range.
        """
        lo = np.asarray(lo, dtype=np.int64)
        hi = np.asarray(hi, dtype=np.int64)
        path = self._paths[lo]  # (pairs, height + 1)
        ok = self._end[path] > hi[:, None]
        deepest = ok.sum(axis=1) - 1  # ok is a prefix of trues (ancestors nest)
        return path[np.arange(len(lo)), deepest]

    def lca_nodes(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per pair of nodes (positions), their lowest common ancestor (vectorized)."""
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        lo, hi = np.minimum(a, b), np.maximum(self._end[a], self._end[b]) - 1
        return self.lca(lo, hi)

    def lca_table(self) -> np.ndarray | None:
        """The pairwise LCA of all nodes (nodes x nodes, cached), or None above 4,096 nodes (then use :meth:`lca_nodes`)."""
        if getattr(self, "_lca_table", None) is None and len(self.labels) <= _TABLE_MAX:
            n = len(self.labels)
            a, b = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
            self._lca_table = self.lca_nodes(a.ravel(), b.ravel()).reshape(n, n)
        return getattr(self, "_lca_table", None)

    def to_taxonomy(self) -> Taxonomy:
        """The tree as a :class:`~graphanon.taxonomy.Taxonomy` (for drawing: ``graphanon.viz``)."""
        return self.taxonomy

    def __repr__(self) -> str:
        """A short summary: name, kind, leaves, height."""
        kind = "numeric" if self.is_numeric else "categorical"
        return f"<AttributeHierarchy {self.name!r}: {kind}, {self.n_leaves} values, height {self.height}>"
