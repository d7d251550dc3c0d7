"""Tree builders behind :meth:`graphanon.taxonomy.Taxonomy.from_level_table` and :meth:`~graphanon.taxonomy.Taxonomy.balanced`: each returns the rooted :class:`networkx.DiGraph` (parent -> child) that ``Taxonomy`` then checks.

Examples
--------
>>> g = balanced_graph(range(4), 2)
>>> sorted(g.successors("ROOT"))
['G1_0', 'G1_1']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from graphanon.errors import DataFormatError, ParameterError, TaxonomyError
from graphanon.utils.labels import as_label, natural_key

if TYPE_CHECKING:  # networkx: imported where a graph is built (a balanced Taxonomy needs none)
    import networkx as nx

__all__ = ["balanced_edges", "parse_balanced", "balanced_graph", "checked_preorder", "edge_graph", "edge_preorder", "level_table_graph",
           "parent_map_tree", "text_nodes"]


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
    return edge_graph(*balanced_edges(items, fanout, order=order, rng=rng, prefix=prefix))


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


def text_nodes(graph: nx.DiGraph) -> nx.DiGraph:
    """``graph`` with every node turned into its text label (the same graph when all are text)."""
    import networkx as nx

    if all(type(v) is str for v in graph):
        return graph
    try:
        mapping = {v: as_label(v, "taxonomy node") for v in graph}
    except DataFormatError as exc:
        raise TaxonomyError(str(exc)) from None
    if len(set(mapping.values())) != len(mapping):
        seen: dict = {}
        a, b = next((seen[t], v) for v, t in mapping.items() if t in seen or seen.setdefault(t, v) is None)
        raise TaxonomyError(
            f"taxonomy nodes {a!r} and {b!r} are the same label {mapping[a]!r} (labels are text); rename one"
        )
    return nx.relabel_nodes(graph, mapping, copy=True)


def checked_preorder(graph: nx.DiGraph) -> tuple[nx.DiGraph, list]:
    """``graph`` with text nodes and its depth-first preorder from the root (``Taxonomy(graph)``'s check).

    Raises :class:`~graphanon.errors.TaxonomyError` saying why ``graph`` is not a rooted tree.
    """
    import networkx as nx

    if not isinstance(graph, nx.DiGraph):
        raise TaxonomyError("a taxonomy needs a networkx.DiGraph with edges parent -> child")
    if graph.number_of_nodes() == 0:
        raise TaxonomyError("the taxonomy is empty")
    graph = text_nodes(graph)
    two_parents = [v for v in graph if graph.in_degree(v) > 1]
    if two_parents:
        v = two_parents[0]
        raise TaxonomyError(
            f"node {v!r} has {graph.in_degree(v)} parents ({sorted(map(repr, graph.predecessors(v)))}); "
            f"a taxonomy is a tree: give each node one parent"
        )
    roots = [v for v in graph if graph.in_degree(v) == 0]
    if not roots:
        cycle = nx.find_cycle(graph)
        raise TaxonomyError(f"the taxonomy has a cycle {[u for u, _ in cycle]} and no root")
    if len(roots) > 1:
        raise TaxonomyError(
            f"the taxonomy has {len(roots)} roots ({', '.join(map(repr, roots[:5]))}"
            f"{', ...' if len(roots) > 5 else ''}); join them under one root node"
        )
    root = roots[0]
    order = list(nx.dfs_preorder_nodes(graph, root))
    if len(order) != graph.number_of_nodes():
        unreached = [v for v in graph if v not in set(order)]
        try:
            cycle = nx.find_cycle(graph.subgraph(unreached))
            raise TaxonomyError(f"the taxonomy has a cycle {[u for u, _ in cycle]}")
        except nx.NetworkXNoCycle:
            raise TaxonomyError(f"nodes {unreached[:5]} are not reachable from the root {root!r}") from None
    return graph, order


def edge_preorder(root: str, edges: Sequence[tuple[str, str]]) -> tuple[list[str], Callable[[str], str]]:
    """Depth-first preorder of the tree of ``(parent, child)`` edges, and the parent lookup.

    Children come in edge order, as ``networkx.dfs_preorder_nodes`` visits successors.

    Examples
    --------
    >>> edge_preorder("r", [("a", "x"), ("r", "a"), ("r", "b")])[0]
    ['r', 'a', 'x', 'b']
    """
    children: dict[str, list[str]] = {}
    parent_of: dict[str, str] = {}
    for parent, child in edges:
        children.setdefault(parent, []).append(child)
        parent_of[child] = parent
    order, stack = [], [root]
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(reversed(children.get(v, ())))
    return order, parent_of.__getitem__


def parent_map_tree(parent_of: Mapping[str, str]) -> tuple[list[str], Callable[[str], str], list[str], list] | None:
    """The tree of a child -> parent map, checked without networkx: ``(preorder, parent lookup, nodes, edges)``.

    ``None`` when the map is no rooted tree (no root or several, a cycle apart from the root), so
    that the caller can let :func:`checked_preorder` say why. The preorder, the children's order and
    ``nodes`` (first appearance in the ``(parent, child)`` edges, in the map's order) are those of the
    :class:`networkx.DiGraph` that ``Taxonomy.from_parent_map`` builds from the same map.

    Complexity: O(nodes).

    Examples
    --------
    >>> parent_map_tree({"a": "r", "x": "a", "b": "r"})[0]
    ['r', 'a', 'x', 'b']
    >>> parent_map_tree({"a": "b", "b": "a", "c": "r"}) is None  # a cycle the root does not reach
    True
    """
    edges = [(parent, child) for child, parent in parent_of.items()]
    roots = [v for v in dict.fromkeys(p for p, _ in edges) if v not in parent_of]
    if len(roots) != 1:
        return None
    order, parent = edge_preorder(roots[0], edges)
    if len(order) != len(parent_of) + 1:  # a node the root does not reach lies on a cycle
        return None
    return order, parent, list(dict.fromkeys(v for edge in edges for v in edge)), edges


def edge_graph(nodes: Iterable[str], edges: Iterable[tuple[str, str]], *, frozen: bool = False) -> nx.DiGraph:
    """The :class:`networkx.DiGraph` with ``nodes`` first, then ``edges`` in order (frozen when asked)."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    return nx.freeze(g) if frozen else g


def parse_balanced(spec: str) -> tuple[int, int | None] | None:
    """The fan-out and seed of a ``balanced:FANOUT[:SEED]`` taxonomy spec; None for any other spec.

    The one parser of the text every door takes (``anonymize``, ``audit`` and
    ``compare --taxonomy``, a study's ``taxonomy=``). Without a seed the items
    are placed in sorted order; with one, in a random order drawn from it.

    Parameters
    ----------
    spec : str
        ``balanced``, ``balanced:FANOUT`` or ``balanced:FANOUT:SEED`` (fan-out 5 by default).

    Returns
    -------
    (int, int or None) or None

    Raises
    ------
    ParameterError
        A ``balanced`` spec whose fan-out or seed is not a whole number.

    Examples
    --------
    >>> parse_balanced("balanced:4:7"), parse_balanced("balanced"), parse_balanced("tree.csv")
    ((4, 7), (5, None), None)
    >>> parse_balanced("balanced:four")
    Traceback (most recent call last):
    ...
    graphanon.errors.ParameterError: --taxonomy 'balanced:four': use balanced:FANOUT or balanced:FANOUT:SEED
    """
    if not spec.startswith("balanced"):
        return None
    parts = spec.split(":")
    try:
        fanout = int(parts[1]) if len(parts) > 1 else 5
        seed = int(parts[2]) if len(parts) > 2 else None
    except ValueError:
        raise ParameterError(f"--taxonomy {spec!r}: use balanced:FANOUT or balanced:FANOUT:SEED") from None
    return fanout, seed
