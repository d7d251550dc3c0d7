"""Drawings for hierarchy-based recoding: taxonomy with a cut, cut-lattice path, enumeration tree.

All functions draw on a matplotlib ``Axes`` (a new figure when ``ax`` is
None) and return the axes. Layouts are computed here (a tidy tree layout and
a layered lattice layout), so no graphviz is needed.

References
----------
Liu, Wang. Anonymizing transaction data by integrating suppression and
generalization. PAKDD 2010, Fig. 1 (taxonomy and cut), Fig. 2 (lattice
search and suppression scenario enumeration tree).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import matplotlib.pyplot as plt
import networkx as nx

from graphanon.labels import lookup_key
from graphanon.viz.taxonomy import tree_layout

__all__ = ["draw_cut_lattice", "draw_enumeration_tree", "draw_taxonomy_cut"]

_CUT = "#1f77b4"
_SUPP = "#d62728"
_PATH = "#ff7f0e"
_FADED = "#cccccc"


def _ax(ax, size=(8, 5)):
    if ax is None:
        _, ax = plt.subplots(figsize=size)
    ax.set_axis_off()
    return ax


def draw_taxonomy_cut(
    taxonomy,
    cut: Iterable[Hashable] = (),
    suppressed: Iterable[Hashable] = (),
    *,
    ax=None,
    labels: bool | None = None,
    title: str | None = None,
):
    """Draw a taxonomy with the chosen cut highlighted.

    Cut nodes are blue, suppressed cut nodes red, nodes below the cut
    faded; edges above the cut are dark.

    Parameters
    ----------
    taxonomy : Taxonomy
    cut, suppressed : iterable of nodes
        For instance ``release.details["cut"]`` and ``release.details["suppress"]``.
    ax : matplotlib Axes, optional
    labels : bool, optional
        Node labels (default: when the taxonomy has at most 80 nodes).
    title : str, optional

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> ax = draw_taxonomy_cut(load_taxonomy("liuwang_fig1"), ["P", "f", "g", "M", "e", "i"], ["i"])
    """
    g = taxonomy.graph
    cut = {lookup_key(v) for v in cut}
    suppressed = {lookup_key(v) for v in suppressed}
    ax = _ax(ax, (max(6, min(20, len(taxonomy.leaves) * 0.5)), 4))
    pos = tree_layout(g, taxonomy.root)
    below = set()
    for v in cut:
        below.update(nx.descendants(g, v))
    colors = [
        _SUPP if v in suppressed else _CUT if v in cut else _FADED if v in below else "#555555" for v in g.nodes
    ]
    edge_colors = [_FADED if (u in below or u in cut) else "#333333" for u, _ in g.edges]
    n = g.number_of_nodes()
    size = 300 if n <= 80 else max(10, 6000 // n)
    nx.draw_networkx_edges(g, pos, ax=ax, edge_color=edge_colors, arrows=False, width=1.0)
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=size)
    if labels if labels is not None else n <= 80:
        nx.draw_networkx_labels(g, pos, ax=ax, font_size=8, font_color="white" if n <= 80 else "black")
    ax.set_title(title or f"cut of {len(cut)} nodes ({len(suppressed)} suppressed in red)")
    return ax


def draw_cut_lattice(lattice, *, ax=None, radius: int = 1, max_nodes: int = 40, title: str | None = None):
    """Draw the neighbourhood of a search path in the cut lattice.

    Cuts are placed in layers by their rank (internal nodes above the cut,
    the top cut first); the path the search took is drawn in orange, each
    cut labelled with its nodes and, when known, its anonymization cost.

    Parameters
    ----------
    lattice : CutLattice
        For instance ``release.search.lattice()``.
    radius, max_nodes :
        Passed to :meth:`CutLattice.to_networkx`.
    """
    g = lattice.to_networkx(radius=radius, max_nodes=max_nodes)
    ax = _ax(ax, (10, 6))
    layers: dict = {}
    for v, d in g.nodes(data=True):
        layers.setdefault(d["rank"], []).append(v)
    pos = {}
    for r, vs in layers.items():
        vs.sort(key=lambda v: (g.nodes[v]["on_path"] is None, g.nodes[v]["label"]))
        for i, v in enumerate(vs):
            pos[v] = (i - (len(vs) - 1) / 2.0, -float(r))
    path_edges = [(a, b) for a, b, d in g.edges(data=True) if d.get("on_path")]
    other = [(a, b) for a, b, d in g.edges(data=True) if not d.get("on_path")]
    nx.draw_networkx_edges(g, pos, edgelist=other, ax=ax, edge_color=_FADED, arrows=False)
    nx.draw_networkx_edges(g, pos, edgelist=path_edges, ax=ax, edge_color=_PATH, width=2.5, arrows=True)
    colors = [_PATH if d["on_path"] is not None else "#dddddd" for _, d in g.nodes(data=True)]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=120)
    small = g.number_of_nodes() <= 30
    for v, d in g.nodes(data=True):
        text = d["label"] if small and len(v) <= 12 else f"{len(v)} nodes"
        if d["cost"] is not None:
            text += f"\ncost {d['cost']:.4g}"
        ax.annotate(text, pos[v], fontsize=7, ha="center", va="bottom", xytext=(0, 6), textcoords="offset points")
    ax.set_title(title or f"cut lattice: search path of {len(lattice.path)} cuts (orange)")
    return ax


def draw_enumeration_tree(tree, *, ax=None, max_nodes: int = 30, title: str | None = None):
    """Draw a suppression scenario enumeration tree with the greedy path.

    Each node shows its headlist (kept) and taillist; invalid nodes (their
    headlist holds a threat) are grey, the greedy path orange.

    Parameters
    ----------
    tree : SuppressionEnumerationTree
        For instance ``release.search.enumeration_tree()``.
    max_nodes : int
        Passed to :meth:`SuppressionEnumerationTree.to_networkx`.
    """
    g = tree.to_networkx(max_nodes=max_nodes)
    ax = _ax(ax, (12, 6))
    pos = tree_layout(g, tree.root())
    colors = [
        _PATH if d["on_path"] else ("#eeeeee" if not d["valid"] else "#9ecae1") for _, d in g.nodes(data=True)
    ]
    path_edges = [(a, b) for a, b, d in g.edges(data=True) if d.get("on_path")]
    other = [(a, b) for a, b, d in g.edges(data=True) if not d.get("on_path")]
    nx.draw_networkx_edges(g, pos, edgelist=other, ax=ax, edge_color=_FADED, arrows=False)
    nx.draw_networkx_edges(g, pos, edgelist=path_edges, ax=ax, edge_color=_PATH, width=2.5, arrows=False)
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=200)
    short = len(tree.order) <= 12
    for v, d in g.nodes(data=True):
        head = ",".join(map(str, d["head"])) if short else f"{len(d['head'])} kept"
        tail = ",".join(map(str, d["tail"])) if short else f"{len(d['tail'])} left"
        ax.annotate(f"{{{head}}}\n{{{tail}}}", pos[v], fontsize=6, ha="center", va="top", xytext=(0, -7),
                    textcoords="offset points")
    last = tree.greedy_path()[-1]
    ax.set_title(title or f"suppression enumeration tree: greedy path (orange) suppresses {tree.suppressed(last)}")
    return ax
