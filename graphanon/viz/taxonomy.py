"""Drawing of taxonomy trees (optionally with a cut highlighted)."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable

import matplotlib

matplotlib.use("Agg", force=False)
import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402

from graphanon.errors import ParameterError  # noqa: E402
from graphanon.labels import lookup_key  # noqa: E402

__all__ = ["draw_taxonomy", "tree_layout"]


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

    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10 * graph.number_of_nodes() + 100))
    try:
        place(root, 0)
    finally:
        sys.setrecursionlimit(old)
    return pos


def draw_taxonomy(taxonomy, *, highlight: Iterable = (), suppressed: Iterable = (), max_nodes: int = 300,
                  ax=None, label_leaves: bool | None = None):
    """Draw a taxonomy as a top-down tree; ``highlight`` nodes (a cut) in orange,
    ``suppressed`` nodes crossed in red.

    Parameters
    ----------
    taxonomy : Taxonomy
    highlight : iterable of nodes
        Nodes to emphasize, for example the cut a method chose (labels are
        text; an int stands for its text, see :mod:`graphanon.labels`).
    suppressed : iterable of nodes
        Nodes drawn as suppressed.
    max_nodes : int
        Draw at most this many nodes, shallowest first (deep levels of large
        taxonomies are cut off and the title says so).
    ax : matplotlib Axes, optional
    label_leaves : bool, optional
        Print leaf names (default: when there are at most 60 leaves drawn).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, numbers.Integral) or max_nodes < 1:
        raise ParameterError(f"max_nodes must be a whole number >= 1 (the root at least), got {max_nodes!r}")
    order = sorted(taxonomy.nodes, key=lambda v: taxonomy.depth(v))
    shown = order[:max_nodes]
    # keep the drawn set closed under parents
    shown_set = set(shown)
    pos = tree_layout(taxonomy.graph.subgraph(shown_set), taxonomy.root)
    highlight, suppressed = {lookup_key(v) for v in highlight}, {lookup_key(v) for v in suppressed}
    if ax is None:
        width = min(24, max(6, 0.25 * sum(1 for v in shown if not any(c in shown_set for c in taxonomy.children(v)))))
        fig, ax = plt.subplots(figsize=(width, 1.4 * (taxonomy.height + 1) + 1))
    else:
        fig = ax.figure
    for v in shown:
        p = taxonomy.parent(v)
        if p is not None and p in shown_set:
            (x0, y0), (x1, y1) = pos[p], pos[v]
            ax.plot([x0, x1], [y0, y1], color="0.75", lw=0.8, zorder=1)
    n_leaves_drawn = sum(1 for v in shown if not any(c in shown_set for c in taxonomy.children(v)))
    if label_leaves is None:
        label_leaves = n_leaves_drawn <= 60
    for v in shown:
        x, y = pos[v]
        color = "tab:red" if v in suppressed else "tab:orange" if v in highlight else "tab:blue"
        size = 90 if v in highlight or v in suppressed else 30
        ax.scatter([x], [y], s=size, color=color, zorder=2, marker="X" if v in suppressed else "o")
        is_leaf_drawn = not any(c in shown_set for c in taxonomy.children(v))
        if not is_leaf_drawn or label_leaves or v in highlight:
            ax.annotate(str(v), (x, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    title = f"taxonomy: {len(taxonomy.leaves)} leaves, height {taxonomy.height}"
    if len(shown) < len(taxonomy.nodes):
        title += f" (first {len(shown)} of {len(taxonomy.nodes)} nodes)"
    ax.set_title(title)
    ax.axis("off")
    return fig
