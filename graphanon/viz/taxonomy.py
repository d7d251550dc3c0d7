"""Drawing of taxonomy trees (optionally with a cut highlighted).

Trees are drawn left to right (root on the left, one row per drawn leaf), so
long item names stay readable: a row is 0.18 inch at the default size. Large
taxonomies are trimmed so that every drawn node gets a row: the subtrees
below a highlighted cut are collapsed into their cut node (labelled with the
number of leaves it stands for), and when that is still too many, the deepest
levels are dropped; the title says how many nodes are shown.

This module never selects a matplotlib backend: a new figure comes from
pyplot (so notebooks show it inline), or pass ``ax`` of a figure you made.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Hashable, Iterable

import matplotlib.pyplot as plt
import networkx as nx

from graphanon.errors import ParameterError
from graphanon.utils.labels import lookup_key
from graphanon.viz._layout import declutter_labels

__all__ = ["draw_taxonomy", "taxonomy_figsize", "tree_layout"]

_ROW_INCH = 0.18  # vertical room of one drawn leaf at the default font size
_LEVEL_INCH = 2.4  # horizontal room of one level (node plus its label)


def tree_layout(graph: nx.DiGraph, root: Hashable) -> dict:
    """Positions for a rooted tree: leaves evenly spaced in DFS order, parents centred, y = -depth."""
    pos: dict = {}
    counter = [0]

    def place(v, depth):
        kids = list(graph.successors(v))
        if not kids:
            pos[v] = (float(counter[0]), -float(depth))
            counter[0] += 1
        else:
            for c in kids:
                place(c, depth + 1)
            xs = [pos[c][0] for c in kids]
            pos[v] = ((min(xs) + max(xs)) / 2.0, -float(depth))

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10 * graph.number_of_nodes() + 100))
    try:
        place(root, 0)
    finally:
        sys.setrecursionlimit(old)
    return pos


def _shown(taxonomy, collapse: set, max_nodes: int) -> tuple[list, str]:
    """Nodes to draw (closed under parents) and a note on what was left out."""
    below = set()
    for v in collapse:
        below.update(nx.descendants(taxonomy.graph, v))
    by_depth: dict = {}
    for v in taxonomy.nodes:
        if v not in below:
            by_depth.setdefault(taxonomy.depth(v), []).append(v)
    shown: list = []
    for d in sorted(by_depth):
        if shown and len(shown) + len(by_depth[d]) > max_nodes:
            break
        shown.extend(by_depth[d])
    notes = []
    if below:
        notes.append("subtrees below the cut collapsed")
    if len(shown) < len(taxonomy.nodes) - len(below):
        notes.append(f"levels deeper than {max(taxonomy.depth(v) for v in shown)} dropped")
    note = ""
    if len(shown) < len(taxonomy.nodes):
        note = f"showing {len(shown)} of {len(taxonomy.nodes)} nodes: " + ", ".join(notes)
    return shown, note


def _plan(taxonomy, highlight, max_nodes: int, max_rows: int):
    """Shown nodes, their layout (x = depth, y = -row), hidden-leaf counts and the note."""
    shown, note = _shown(taxonomy, set(), max_nodes)
    drawn = set(shown)
    rows = sum(1 for v in shown if not any(c in drawn for c in taxonomy.children(v)))
    if (rows > max_rows or len(shown) < len(taxonomy.nodes)) and highlight:
        shown, note = _shown(taxonomy, set(highlight), max_nodes)
        drawn = set(shown)
    tree = tree_layout(taxonomy.graph.subgraph(drawn), taxonomy.root)
    pos = {v: (-y, -x) for v, (x, y) in tree.items()}
    hidden = {
        v: taxonomy.leaf_count(v)
        for v in shown
        if taxonomy.children(v) and not any(c in drawn for c in taxonomy.children(v))
    }
    return shown, pos, hidden, note


def taxonomy_figsize(taxonomy, *, highlight: Iterable = (), max_nodes: int = 300, max_rows: int = 60):
    """The (width, height) in inches :func:`draw_taxonomy` uses for a new figure.

    One row of ``0.18`` inch per drawn leaf and ``2.4`` inches per level, so
    that labels at 8 points do not overlap. Use it to size a figure you
    create yourself (for instance a :class:`matplotlib.figure.Figure`).

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> taxonomy_figsize(load_taxonomy("liuwang_fig1"))  # 4 levels, 11 leaves
    (11.6, 3.18)
    """
    highlight = {lookup_key(v) for v in highlight}
    shown, pos, _, _ = _plan(taxonomy, highlight, max_nodes, max_rows)
    n_rows = 1 + max(-y for _, y in pos.values())
    depth = max(x for x, _ in pos.values())
    return (round(_LEVEL_INCH * (depth + 1) + 2, 2), round(max(3.0, _ROW_INCH * n_rows + 1.2), 2))


def draw_taxonomy(taxonomy, *, highlight: Iterable = (), suppressed: Iterable = (), max_nodes: int = 300,
                  max_rows: int = 60, ax=None, label_leaves: bool | None = None, colors: dict | None = None,
                  title: str | None = None, absent: Iterable = ()):
    """Draw a taxonomy as a tree from left (root) to right (leaves).

    ``highlight`` nodes (a cut) are orange, ``suppressed`` nodes red crosses,
    ``absent`` nodes (no occurrence in the data) hollow grey circles.
    When the whole tree has more than ``max_rows`` leaves and a cut is given,
    the subtrees below the cut are collapsed (each cut node is labelled with
    the number of leaves it stands for, ``(12 leaves)``); beyond ``max_nodes`` nodes
    the deepest levels are dropped. The title says what is not shown.

    Parameters
    ----------
    taxonomy : Taxonomy
    highlight : iterable of nodes
        Nodes to emphasize, for example the cut a method chose (labels are
        text; an int stands for its text, see :mod:`graphanon.utils.labels`).
    suppressed : iterable of nodes
        Nodes drawn as suppressed.
    max_nodes : int
        Draw at most this many nodes, whole levels shallowest first.
    max_rows : int
        Collapse below the highlighted cut when the full tree has more leaves.
    ax : matplotlib Axes, optional
        Default: a new pyplot figure of :func:`taxonomy_figsize`.
    label_leaves : bool, optional
        Print leaf names (default: when the rows leave room for 5-point text).
    colors : dict, optional
        Node -> colour, overriding the highlight colours (used by
        :func:`~graphanon.viz.draw_taxonomy_cut`).
    title : str, optional
    absent : iterable of nodes
        Cut nodes with no occurrence in the data: nothing was published or
        suppressed there (:func:`graphanon.viz.views.classify_cut`); drawn and
        counted apart from the suppressed ones.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Complexity: O(number of nodes) matplotlib artists at most; one line collection for the edges.

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> fig = draw_taxonomy(load_taxonomy("groceries"), highlight=load_taxonomy("groceries").level(2))
    >>> fig.axes[0].get_title().splitlines()[1]
    'showing 66 of 235 nodes: subtrees below the cut collapsed'
    """
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, numbers.Integral) or max_nodes < 1:
        raise ParameterError(f"max_nodes must be a whole number >= 1 (the root at least), got {max_nodes!r}")
    from matplotlib.collections import LineCollection

    highlight, suppressed = {lookup_key(v) for v in highlight}, {lookup_key(v) for v in suppressed}
    absent = {lookup_key(v) for v in absent} - suppressed
    highlight |= absent
    shown, pos, hidden, note = _plan(taxonomy, highlight, max_nodes, max_rows)
    if ax is None:
        w, h = taxonomy_figsize(taxonomy, highlight=highlight, max_nodes=max_nodes, max_rows=max_rows)
        _, ax = plt.subplots(figsize=(w, h))
    fig = ax.figure
    n_rows = 1 + max(-y for _, y in pos.values())
    bbox = ax.get_position()
    row_points = bbox.height * fig.get_figheight() * 72 / max(n_rows, 1)
    fontsize = max(3.0, min(8.0, 0.75 * row_points))
    if label_leaves is None:
        label_leaves = fontsize >= 5
    drawn = set(shown)
    labels: list = []
    segments = [(pos[taxonomy.parent(v)], pos[v]) for v in shown if taxonomy.parent(v) in drawn]
    ax.add_collection(LineCollection(segments, colors="0.7", linewidths=0.8, zorder=1))
    colors = colors or {}
    for v in shown:
        x, y = pos[v]
        color = colors.get(v, "tab:red" if v in suppressed else "0.55" if v in absent
                           else "tab:orange" if v in highlight else "tab:blue")
        big = v in highlight or v in suppressed
        # a suppressed node's cross sits above every label box, so a parent's label never hides it
        if v in absent and v not in colors:
            ax.scatter([x], [y], s=40, facecolors="white", edgecolors=color, linewidths=1.2, zorder=4, marker="o")
        else:
            ax.scatter([x], [y], s=40 if big else 14, color=color, zorder=4 if v in suppressed else 2,
                       marker="X" if v in suppressed else "o")
        leaf = not any(c in drawn for c in taxonomy.children(v))
        if leaf and not (label_leaves or big):
            continue
        text = str(v) + (f" ({hidden[v]} {'leaf' if hidden[v] == 1 else 'leaves'})" if v in hidden else "")
        labels.append((0 if big else 1 if not leaf else 2, ax.annotate(
            text, (x, y), textcoords="offset points", xytext=(5, 0), ha="left", va="center", fontsize=fontsize,
            zorder=3, bbox=None if leaf else {"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})))
    depth = max(x for x, _ in pos.values())
    ax.set_xlim(-0.2, depth + 0.95)
    ax.set_ylim(-n_rows + 0.5, 0.5)
    # a label that would overlap another moves up or down, else is hidden: cut and suppressed nodes'
    # labels first, then inner nodes', then the other leaves'
    labels.sort(key=lambda t: t[0])
    n_hidden = declutter_labels(ax, [t[1] for t in labels], alternatives=((0, 0.8), (0, -0.8)))
    if n_hidden:
        note = (f"{note}; " if note else "") + f"{n_hidden} label{'s' if n_hidden != 1 else ''} hidden"
    head = title or f"taxonomy: {len(taxonomy.leaves)} leaves, height {taxonomy.height}"
    ax.set_title(head + (f"\n{note}" if note else ""), fontsize=10)
    ax.axis("off")
    if (highlight or suppressed) and not colors:  # every colour in a legend, below the tree
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], marker="o", ls="", color="tab:blue", markersize=5, label="other node")]
        if highlight - suppressed - absent:
            handles.append(Line2D([], [], marker="o", ls="", color="tab:orange", markersize=7,
                                  label=f"cut node ({len(highlight - suppressed - absent)})"))
        if suppressed:
            handles.append(Line2D([], [], marker="X", ls="", color="tab:red", markersize=7,
                                  label=f"suppressed ({len(suppressed)})"))
        if absent:
            handles.append(Line2D([], [], marker="o", ls="", markerfacecolor="white", markeredgecolor="0.55",
                                  markersize=7, label=f"absent from the data ({len(absent)})"))
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(handles),
                  fontsize=8, frameon=False)
    return fig
