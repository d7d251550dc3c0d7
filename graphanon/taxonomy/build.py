"""Tree builders behind :meth:`graphanon.taxonomy.Taxonomy.from_level_table` and :meth:`~graphanon.taxonomy.Taxonomy.balanced`: each returns the rooted :class:`networkx.DiGraph` (parent -> child) that ``Taxonomy`` then checks.

Examples
--------
>>> g = balanced_graph(range(4), 2)
>>> sorted(g.successors("ROOT"))
['G1_0', 'G1_1']
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphanon.errors import DataFormatError, ParameterError, TaxonomyError
from graphanon.utils.labels import as_label, natural_key

if TYPE_CHECKING:  # networkx: imported where a graph is built (a balanced Taxonomy needs none)
    import networkx as nx

__all__ = ["balanced_edges", "balanced_graph", "level_table_graph"]


def level_table_graph(rows: Iterable[Sequence[Hashable]], *, root: Hashable = "ALL",
                      source: str = "<table>") -> nx.DiGraph:
    """The tree of rows ``(item, level_d, ..., level_1)`` (see ``Taxonomy.from_level_table``)."""
    import networkx as nx

    table: list[list[Hashable]] = [[c.strip() if isinstance(c, str) else c for c in r] for r in rows]
    root = as_label(root, "taxonomy root")
    if not table:
        raise TaxonomyError(f"{source}: no rows (the taxonomy table is empty)")
    width = len(table[0])
    if width < 2:
        raise TaxonomyError(f"{source}: a level table needs columns item,level_d,...,level_1")
    items = set()
    for lineno, r in enumerate(table, start=1):
        if len(r) != width:
            raise TaxonomyError(f"{source}, row {lineno}: {len(r)} columns, expected {width}")
        if any(c == "" for c in r):
            raise TaxonomyError(f"{source}, row {lineno}: an empty cell; every level needs a name")
        try:
            r[:] = [as_label(c, "taxonomy cell") for c in r]
        except DataFormatError as exc:
            raise TaxonomyError(f"{source}, row {lineno}: {exc}") from None
        items.add(r[0])
    names_at: list[set] = [set(r[j] for r in table) for j in range(width)]

    def node(j: int, name):
        if j == 0:
            return name
        clash = name in items or any(name in names_at[i] for i in range(1, width) if i != j)
        return f"{name} [level {width - j}]" if clash else name

    edges = set()
    for r in table:
        chain = [node(j, r[j]) for j in range(width)] + [root]
        for child, parent in zip(chain, chain[1:]):
            edges.add((parent, child))
    g = nx.DiGraph()
    parent_of: dict = {}
    for parent, child in sorted(edges, key=repr):
        if parent_of.setdefault(child, parent) != parent:
            raise TaxonomyError(
                f"{source}: {child!r} sits under both {parent_of[child]!r} and {parent!r}; "
                f"a taxonomy is a tree"
            )
        g.add_edge(parent, child)
    return g


def balanced_graph(items: Iterable[Hashable], fanout: int = 5, *, order: str = "sorted", rng=None,
                   prefix: str = "G") -> nx.DiGraph:
    """Groups of ``fanout`` nodes per level up to ``"ROOT"`` (see ``Taxonomy.balanced``)."""
    import networkx as nx

    leaves, edges = balanced_edges(items, fanout, order=order, rng=rng, prefix=prefix)
    g = nx.DiGraph()
    g.add_nodes_from(leaves)
    g.add_edges_from(edges)
    return g


def balanced_edges(items: Iterable[Hashable], fanout: int = 5, *, order: str = "sorted", rng=None,
                   prefix: str = "G") -> tuple[list[str], list[tuple[str, str]]]:
    """The leaves (in grouping order) and the edges (parent, child) of :func:`balanced_graph`, in its order.

    Without networkx: ``Taxonomy.balanced`` builds its arrays from these and the graph only when asked.

    Examples
    --------
    >>> balanced_edges(range(3), 2)
    (['0', '1', '2'], [('G1_0', '0'), ('G1_0', '1'), ('G1_1', '2'), ('ROOT', 'G1_0'), ('ROOT', 'G1_1')])
    """
    if fanout < 2:
        raise ParameterError(f"fanout must be at least 2, got {fanout}")
    try:
        level = list(dict.fromkeys(as_label(x) for x in items))
    except DataFormatError as exc:
        raise TaxonomyError(str(exc)) from None
    if not level:
        raise TaxonomyError("a balanced taxonomy needs at least one item")
    if order == "sorted":
        level.sort(key=natural_key)
    elif order == "random":
        perm = np.random.default_rng(rng).permutation(len(level))
        level = [level[i] for i in perm]
    else:
        raise ParameterError(f"order must be 'sorted' or 'random', got {order!r}")
    leaves = list(level)
    edges: list[tuple[str, str]] = []
    internal = re.compile(rf"ROOT\Z|{re.escape(prefix)}[0-9]+_[0-9]+\Z")
    clash = next((x for x in level if internal.match(x)), None)
    if clash is not None:
        raise TaxonomyError(
            f"item {clash!r} has the name of an internal node of the balanced taxonomy; "
            f"pass another prefix (prefix='...')"
        )
    depth = 1
    while len(level) > fanout:
        groups = [level[i : i + fanout] for i in range(0, len(level), fanout)]
        nxt = []
        for gi, grp in enumerate(groups):
            name = f"{prefix}{depth}_{gi}"
            edges.extend((name, c) for c in grp)
            nxt.append(name)
        level = nxt
        depth += 1
    edges.extend(("ROOT", c) for c in level)
    return leaves, edges
