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

import textwrap
from collections.abc import Hashable, Iterable

import matplotlib.pyplot as plt
import networkx as nx

from graphanon.utils.labels import display_items, lookup_key
from graphanon.viz._layout import declutter_labels
from graphanon.viz.taxonomy import draw_taxonomy, taxonomy_figsize

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
    faded (or collapsed into their cut node when the tree is large, see
    :func:`~graphanon.viz.draw_taxonomy`).

    Parameters
    ----------
    taxonomy : Taxonomy
    cut, suppressed : iterable of nodes
        For instance ``release.trace.cut`` and ``release.trace.suppressed``.
    ax : matplotlib Axes, optional
    labels : bool, optional
        Leaf labels (default: when the rows leave room for readable text).
    title : str, optional

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> ax = draw_taxonomy_cut(load_taxonomy("liuwang_fig1"), ["P", "f", "g", "M", "e", "i"], ["i"])
    """
    cut = {lookup_key(v) for v in cut}
    suppressed = {lookup_key(v) for v in suppressed}
    below = set()
    for v in cut:
        below.update(nx.descendants(taxonomy.graph, v))
    colors = {v: _SUPP if v in suppressed else _CUT if v in cut else _FADED if v in below else "#555555"
              for v in taxonomy.nodes}
    if ax is None:
        _, ax = plt.subplots(figsize=taxonomy_figsize(taxonomy, highlight=cut))
    draw_taxonomy(taxonomy, highlight=cut, suppressed=suppressed, ax=ax, label_leaves=labels, colors=colors,
                  title=title or f"cut of {len(cut)} nodes ({len(suppressed)} suppressed in red)")
    from matplotlib.patches import Patch

    shown = [(_CUT, "cut node", bool(cut - suppressed)), (_SUPP, "suppressed cut node", bool(suppressed)),
             (_FADED, "below the cut", bool(below))]
    ax.legend(handles=[Patch(facecolor=c, edgecolor="black", label=name) for c, name, used in shown if used],
              loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=7, frameon=False)
    return ax


def draw_cut_lattice(lattice, *, ax=None, radius: int = 1, max_nodes: int = 40, title: str | None = None):
    """Draw the neighbourhood of a search path in the cut lattice.

    Cuts are placed in layers by their rank (internal nodes above the cut,
    the top cut first); the path the search took is drawn in orange, each
    cut labelled with its nodes and, when known, its anonymization cost.

    Parameters
    ----------
    lattice : CutLattice
        For instance ``release.trace.search.lattice()``.
    radius, max_nodes :
        Passed to :meth:`CutLattice.to_networkx`.
    """
    g = lattice.to_networkx(radius=radius, max_nodes=max_nodes)
    ax = _ax(ax, (10, 6))
    came_by = {}  # the node expanded to enter each cut, the search path's edge first
    for _, b, d in sorted(g.edges(data=True), key=lambda e: bool(e[2].get("on_path"))):
        came_by[b] = d.get("expanded")
    layers: dict = {}
    for v, d in g.nodes(data=True):
        layers.setdefault(d["rank"], []).append(v)
    pos = {}
    for r, vs in layers.items():  # the path in column 0, the other cuts of its rank to the right, cheapest first
        vs.sort(key=lambda v: (g.nodes[v]["on_path"] is None, g.nodes[v]["cost"] is None, g.nodes[v]["cost"] or 0))
        for i, v in enumerate(vs):
            pos[v] = (float(i), -float(r))
    path_edges = [(a, b) for a, b, d in g.edges(data=True) if d.get("on_path")]
    other = [(a, b) for a, b, d in g.edges(data=True) if not d.get("on_path")]
    if other:  # networkx returns [] for no edges
        nx.draw_networkx_edges(g, pos, edgelist=other, ax=ax, edge_color=_FADED, arrows=False).set_zorder(1)
    for arrow in (nx.draw_networkx_edges(g, pos, edgelist=path_edges, ax=ax, edge_color=_PATH, width=2.5,
                                         arrows=True) if path_edges else []):
        arrow.set_zorder(1)
    colors = [_PATH if d["on_path"] is not None else "#dddddd" for _, d in g.nodes(data=True)]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=60)
    path_labels: list = []
    other_labels: list = []
    for v, d in g.nodes(data=True):
        if len(v) <= 4:
            text = d["label"]
        elif came_by.get(v) is not None:
            text = "+" + str(came_by[v])  # the node expanded to reach this cut, never shortened
        else:
            text = f"{len(v)} nodes"
        if d["on_path"] is None and len(text) > 12:  # other cuts: long names wrap, never cut off
            text = textwrap.fill(text, 12, break_long_words=True)
        if d["cost"] is not None:
            text += f"\n{d['cost']:.3g}"
        # labels sit on a white box above the edges: the fan of edges to the next rank runs under them
        backing = {"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.9}
        if d["on_path"] is not None:  # the path's column: to the left of its dots, level
            path_labels.append(ax.annotate(text, pos[v], fontsize=6.5, ha="right", va="center", xytext=(-7, 0),
                                           textcoords="offset points", bbox=backing, zorder=4))
        else:  # the other cuts of a rank alternate above and below their row, so neighbours do not collide
            up = pos[v][0] % 2 == 1
            other_labels.append((d["cost"] is None, d["cost"] or 0, ax.annotate(
                text, pos[v], fontsize=6, ha="center", va="bottom" if up else "top", xytext=(0, 4 if up else -4),
                textcoords="offset points", color="0.3", bbox=backing, zorder=4)))
    ax.margins(x=0.2, y=0.08)
    # a label that would still overlap another is moved, else hidden (the path's first, then the cheapest)
    other_labels.sort(key=lambda t: t[:2])
    hidden = declutter_labels(ax, path_labels + [t[2] for t in other_labels],
                              alternatives=((0, 1.5), (0, -1.5), (0, 3), (0, -3)))
    shown = f"{g.number_of_nodes()} cuts shown (max_nodes={max_nodes})"
    if hidden:
        shown += f", {hidden} label{'s' if hidden != 1 else ''} hidden"
    ax.set_title(title or f"cut lattice: search path of {len(lattice.path)} cuts (orange)\n{shown}; "
                 "each cut: +node expanded to reach it (cost)", fontsize=9)
    return ax


def _outline_rows(graph: nx.DiGraph, root: Hashable) -> list[tuple[Hashable, int]]:
    """Nodes of a rooted tree in depth-first order with their depth: one row per node.

    Siblings keep the enumeration order (the child keeping an earlier item of the order, whose
    taillist is longer, comes first).
    """
    rows, stack = [], [(root, 0)]
    while stack:
        v, depth = stack.pop()
        rows.append((v, depth))
        kids = sorted(graph.successors(v), key=lambda c: len(c[1]), reverse=True)
        stack.extend((c, depth + 1) for c in reversed(kids))
    return rows


def _text_width_points(text: str, fontsize: float) -> float:
    """Rendered width of ``text`` in points (no renderer needed)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    return TextToPath().get_text_width_height_descent(text, FontProperties(size=fontsize), ismath=False)[0]


def draw_enumeration_tree(tree, *, ax=None, max_nodes: int = 30, title: str | None = None):
    """Draw a suppression scenario enumeration tree with the greedy path, as an indented outline.

    One row per node, in depth-first order, indented by depth and joined to its parent by an elbow;
    the node's ``{headlist} | {taillist}`` (kept | still to decide) stands on its own row, so no
    two labels can meet however wide they are. Invalid nodes (their headlist holds a threat) are
    grey, the greedy path orange. The font shrinks to fit the rows; below 5 points only every
    n-th row is labelled (said on the drawing), and when full item lists cannot fit the width the
    labels give counts ("3 kept | 4 left").

    Parameters
    ----------
    tree : SuppressionEnumerationTree
        For instance ``release.trace.search.enumeration_tree()``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure sized for the rows when None.
    max_nodes : int
        Passed to :meth:`SuppressionEnumerationTree.to_networkx` (the greedy path and the children
        it rejected are always drawn).
    title : str, optional
        Replaces the default title (which names what the greedy path suppresses).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from graphanon.algorithms import anonymize_hghs
    >>> from graphanon.datasets import load, load_taxonomy
    >>> rel = anonymize_hghs(load("liuwang_fig1"), taxonomy=load_taxonomy("liuwang_fig1"), k=2, m=2)
    >>> ax = draw_enumeration_tree(rel.trace.search.enumeration_tree())

    References
    ----------
    Liu, Wang. Anonymizing transaction data by integrating suppression and generalization.
    PAKDD 2010, Fig. 2(b) (the suppression scenario enumeration tree).
    """
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch

    g = tree.to_networkx(max_nodes=max_nodes)
    rows = _outline_rows(g, tree.root())
    if ax is None:
        _, ax = plt.subplots(figsize=(8, min(12.0, max(3.5, 1.6 + 0.17 * len(rows)))))
    ax.set_axis_off()
    row_of = {v: i for i, (v, _) in enumerate(rows)}
    depth_of = dict(rows)
    x = {v: float(depth_of[v]) for v in row_of}
    y = {v: -float(row_of[v]) for v in row_of}

    def elbow(a, b):  # down from the parent, then across to the child
        return [(x[a], y[a]), (x[a], y[b]), (x[b], y[b])]

    path_edges = [elbow(a, b) for a, b, d in g.edges(data=True) if d.get("on_path")]
    other = [elbow(a, b) for a, b, d in g.edges(data=True) if not d.get("on_path")]
    ax.add_collection(LineCollection(other, colors=_FADED, linewidths=1.0, zorder=1))
    ax.add_collection(LineCollection(path_edges, colors=_PATH, linewidths=2.5, zorder=2))

    box = ax.get_position()
    height_pt = box.height * ax.figure.get_figheight() * 72
    width_pt = box.width * ax.figure.get_figwidth() * 72
    row_pt = height_pt / (len(rows) + 0.5)
    fontsize = min(8.0, 0.7 * row_pt)
    every = 1
    if fontsize < 5.0:  # too many rows for a legible font: label every n-th row
        fontsize = 5.0
        every = int(-(-(fontsize / 0.7) // row_pt))
    nodes = [v for v, _ in rows]
    colours = [_PATH if g.nodes[v]["on_path"] else ("#eeeeee" if not g.nodes[v]["valid"] else "#9ecae1")
               for v in nodes]
    ax.scatter([x[v] for v in nodes], [y[v] for v in nodes], s=min(60.0, 0.5 * row_pt**2), c=colours,
               edgecolors="0.55", linewidths=0.5, zorder=3)

    def label(v, full):
        d = g.nodes[v]
        if full:
            return f"{{{display_items(d['head'], ',')}}} | {{{display_items(d['tail'], ',')}}}"
        return f"{len(d['head'])} kept | {len(d['tail'])} left"

    labelled = [v for i, v in enumerate(nodes) if i % every == 0 or i == len(nodes) - 1]
    offset_pt = 5.0
    max_depth = max(depth_of.values())
    low = -0.4

    def right_limit(full):
        """The x-limit that lets every label end inside the axes, or None when none does."""
        high = max_depth + 0.4
        for v in labelled:
            free = width_pt - offset_pt - 3.0 - _text_width_points(label(v, full), fontsize)
            if free <= 0.15 * width_pt:
                return None
            high = max(high, low + (x[v] - low) * width_pt / free)
        return high

    full = len(tree.order) <= 12
    high = right_limit(full) if full else None
    if high is None:
        full = False
        high = right_limit(False) or max_depth + 1.0
    for v in labelled:
        ax.annotate(label(v, full), (x[v], y[v]), xytext=(offset_pt, 0), textcoords="offset points",
                    fontsize=fontsize, ha="left", va="center", zorder=4)
    ax.set_xlim(low, high)
    ax.set_ylim(-len(rows) + 0.5, 0.5)
    if every > 1:
        ax.text(1.0, 1.0, f"labels every {every} rows", transform=ax.transAxes, fontsize=7, color="0.4",
                ha="right", va="bottom")
    last = tree.greedy_path()[-1]
    gone = list(tree.suppressed(last))
    listed = display_items(gone)
    names = listed if len(listed) <= 60 else f"{len(gone)} nodes"
    ax.set_title(title or f"suppression enumeration tree (kept | left)\ngreedy path (orange) suppresses "
                 f"{names or 'nothing'}", fontsize=9)
    kinds = [(_PATH, "greedy path", any(d["on_path"] for _, d in g.nodes(data=True))),
             ("#9ecae1", "valid scenario", any(d["valid"] and not d["on_path"] for _, d in g.nodes(data=True))),
             ("#eeeeee", "invalid (a threat is kept)", any(not d["valid"] for _, d in g.nodes(data=True)))]
    ax.legend(handles=[Patch(facecolor=c, edgecolor="0.5", label=name) for c, name, used in kinds if used],
              loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=7, frameon=False)
    return ax
