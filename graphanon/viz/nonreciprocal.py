"""Drawings of nonreciprocal recoding: ring graphs, extracted assignments, closed walks.

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Fig. 1 (generalization graph views),
Fig. 3 (closed walk vs backtracking), Fig. 5 (extracted assignments).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import FancyArrowPatch

__all__ = ["draw_assignments", "draw_closed_walk", "draw_generalization_graph", "ring_label_font"]

_TAB10 = plt.get_cmap("tab10")
assert isinstance(_TAB10, ListedColormap)  # a qualitative map: a list of 10 colours
_COLORS = _TAB10.colors


def _circle_positions(order) -> dict:
    order = list(order)
    n = len(order)
    ang = np.pi / 2 - 2 * np.pi * np.arange(n) / max(n, 1)
    return {int(v): (float(np.cos(a)), float(np.sin(a))) for v, a in zip(order, ang, strict=True)}


def _axis_points(ax, which: str) -> float:
    """Width or height of ``ax`` in points (text and marker sizes are in points)."""
    box = ax.get_position()
    fig = ax.figure
    return 72.0 * (box.width * fig.get_figwidth() if which == "width" else box.height * fig.get_figheight())


def _ring_spacing(ax, n: int) -> float:
    """Distance in points between neighbours on the unit circle drawn in a 2.8-unit square."""
    side = min(_axis_points(ax, "width"), _axis_points(ax, "height"))
    return side / 2.8 * 2 * np.pi / max(n, 1)


def _arrow(ax, p, q, color, rad=0.15, lw=1.4, alpha=1.0, style="-|>", node_points=22.0):
    if p == q:  # a self-loop: a small circle just outside the node
        r = 0.12 * min(1.0, node_points / 22.0)
        ax.add_patch(plt.Circle((p[0] * (1 + r), p[1] * (1 + r)), r * 0.8, fill=False, color=color, lw=lw,
                                alpha=alpha))
        return
    ax.add_patch(
        FancyArrowPatch(
            p, q, arrowstyle=style, mutation_scale=min(12.0, 0.6 * node_points), color=color, lw=lw, alpha=alpha,
            connectionstyle=f"arc3,rad={rad}", shrinkA=node_points / 2, shrinkB=node_points / 2,
        )
    )


def _node_points(ax, n: int) -> float:
    """Node diameter in points: 22 for small rings, less so that neighbours do not overlap."""
    return float(min(22.0, 0.8 * _ring_spacing(ax, n)))


def _label_em(labels) -> float:
    """Width of the widest of ``labels`` in ems (points per point of font size), as drawn in the default font."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    prop = FontProperties(size=1.0)
    measure = TextToPath()
    return max((measure.get_text_width_height_descent(str(s), prop, ismath=False)[0] for s in labels), default=0.0)


#: Share of the distance between ring neighbours a node's label may take (the rest keeps labels apart).
_LABEL_SHARE = 0.85


def ring_label_font(side_points: float, n: int, labels) -> float:
    """Font size at which the ids of a ring never overlap.

    Parameters
    ----------
    side_points : float
        Side of the square (in points) the ring is drawn in (its limits are -1.4..1.4).
    n : int
        Number of records on the ring.
    labels : sequence
        The ids written on the nodes.

    Returns
    -------
    float
        Font size in points: the size the node allows (at most 9), smaller when the widest id would take
        more than 85% of the chord between two neighbours.

    Notes
    -----
    Two neighbours on the ring are a chord ``c`` apart; labels of width ``w <= 0.85 c`` and height
    ``h`` (about 1.2 font sizes, far below ``c``) cannot have overlapping boxes at any angle θ of the chord:
    that would need ``c |cos θ| < w`` and ``c |sin θ| < h`` at once. O(n) to measure the labels.

    Examples
    --------
    >>> ring_label_font(400.0, 40, ["7"]) > ring_label_font(400.0, 40, ["10000000"])
    True
    """
    chord = side_points / 2.8 * 2 * np.sin(np.pi / max(n, 2))
    em = _label_em(labels)
    fit = _LABEL_SHARE * chord / em if em > 0 else 9.0
    return float(min(9.0, 0.42 * min(22.0, 0.8 * side_points / 2.8 * 2 * np.pi / max(n, 1)), fit))


def _nodes(ax, pos, names, color="#f4f4f4"):
    d = _node_points(ax, len(pos))
    side = min(_axis_points(ax, "width"), _axis_points(ax, "height"))
    font = ring_label_font(side, len(pos), [names[v] for v in pos])
    # An id wider than its node is written on a white card so the node's outline and the arrows don't cross it.
    card = ({"boxstyle": "square,pad=0.05", "facecolor": "white", "edgecolor": "none", "alpha": 0.9}
            if font * _label_em([names[v] for v in pos]) > d else None)
    for v, (x, y) in pos.items():
        ax.scatter([x], [y], s=d**2, color=color, edgecolors="black", linewidths=0.6 if d < 15 else 1.0, zorder=3)
        ax.text(x, y, str(names[v]), ha="center", va="center", fontsize=font, zorder=4, bbox=card)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_xlim(-1.4, 1.4)
    ax.set_ylim(-1.4, 1.4)


def draw_generalization_graph(graph, order=None, *, ax=None, title=None):
    """Unified view of a generalization graph, records on a circle in ``order``.

    Parameters
    ----------
    graph : GeneralizationGraph
    order : permutation, optional
        Placement around the circle (the ring's order); default ``0..n-1``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = ax or plt.subplots(figsize=(5, 5))[1]
    order = np.arange(graph.n) if order is None else np.asarray(order)
    pos = _circle_positions(order)
    src, dst = graph.edges()
    d = _node_points(ax, graph.n)
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        _arrow(ax, pos[a], pos[b], "#555555", lw=1.4 if d >= 15 else 0.6, node_points=d)
    _nodes(ax, pos, graph.record_ids)
    ax.set_title(title or f"{graph.k}-regular generalization graph (unified view)")
    return ax


def draw_assignments(graph, assignments, order=None, *, view="bipartite", ax=None, title=None):
    """Extracted assignments, one colour each, in the bipartite or unified view.

    Parameters
    ----------
    graph : GeneralizationGraph
    assignments : array (k, n)
        From :func:`~graphanon.algorithms.nonreciprocal.extract_assignments`.
    order : permutation, optional
        Vertical (bipartite) or circular (unified) placement of the records.
    view : {"bipartite", "unified"}
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    A = np.atleast_2d(np.asarray(assignments))
    order = np.arange(graph.n) if order is None else np.asarray(order)
    names = graph.record_ids
    if view == "unified":
        ax = ax or plt.subplots(figsize=(5, 5))[1]
        pos = _circle_positions(order)
        d = _node_points(ax, graph.n)
        for r, a in enumerate(A):
            for i, j in enumerate(a.tolist()):
                _arrow(ax, pos[i], pos[j], _COLORS[r % 10], rad=0.1 + 0.08 * r, lw=1.4 if d >= 15 else 0.7,
                       node_points=d)
        _nodes(ax, pos, names)
    elif view == "bipartite":
        ax = ax or plt.subplots(figsize=(4, 0.45 * graph.n + 1))[1]
        y = {int(v): -p for p, v in enumerate(order)}
        ax.set_xlim(-0.4, 1.4)
        ax.set_ylim(-graph.n + 0.4, 0.6)
        d = float(min(19.0, 0.85 * _axis_points(ax, "height") / max(graph.n, 1)))  # node diameter, points
        for r, a in enumerate(A):
            for i, j in enumerate(a.tolist()):
                ax.annotate(
                    "", xy=(1, y[j]), xytext=(0, y[i]),
                    arrowprops={"arrowstyle": "-|>", "color": _COLORS[r % 10], "lw": 1.4 if d >= 15 else 0.7,
                                "shrinkA": d / 2, "shrinkB": d / 2, "mutation_scale": min(10.0, 0.6 * d)},
                )
        font = max(4.0, min(8.0, 0.42 * d))
        for v in order.tolist():
            ax.scatter([0], [y[v]], s=d**2, color="#f4f4f4", edgecolors="black", linewidths=0.6, zorder=3)
            ax.scatter([1], [y[v]], s=d**2, color="#dde8f6", edgecolors="black", linewidths=0.6, zorder=3)
            ax.text(0, y[v], str(names[v]), ha="center", va="center", fontsize=font, zorder=4)
            ax.text(1, y[v], f"{names[v]}'", ha="center", va="center", fontsize=font, zorder=4)
        ax.axis("off")
    else:
        raise ValueError(f"view must be 'bipartite' or 'unified', got {view!r}")
    ax.set_title(title or f"{len(A)} extracted assignment(s), {view} view")
    _assignment_legend(ax, len(A))
    return ax


def _assignment_legend(ax, k: int) -> None:
    """Name each assignment's colour below ``ax`` (colours repeat after ten assignments)."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=_TAB10(r % 10), lw=2, label=f"assignment {r + 1}") for r in range(min(k, 10))]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(k, 5), fontsize=7,
              frameon=False, title="arrow colour" + (" (repeats every 10)" if k > 10 else ""), title_fontsize=7)


def draw_closed_walk(graph, events, order=None, *, max_panels=12, ncols=4):
    """The closed walk step by step: one panel per step of the first walks.

    Parameters
    ----------
    graph : GeneralizationGraph
    events : list
        From :func:`~graphanon.algorithms.nonreciprocal.closed_walk_trace`.
    order : permutation, optional
        Circular placement.
    max_panels : int
        Number of panels (steps) drawn.

    Returns
    -------
    matplotlib Figure
        Grey: the graph; colour: the current walk's edges (x -> y, from a
        record to the published record it takes); a red title marks a
        dropped deviant cycle, a green one a closed cycle.
    """
    order = np.arange(graph.n) if order is None else np.asarray(order)
    pos = _circle_positions(order)
    src, dst = graph.edges()
    panels = []
    walk_edges: list = []
    current = None
    for ev in events:
        if ev[0] == "step":
            if ev[1] != current:
                current, walk_edges = ev[1], []
            walk_edges = walk_edges + [(ev[2], ev[3])]
            panels.append((f"walk {ev[1]}: {graph.record_ids[ev[2]]} -> {graph.record_ids[ev[3]]}'", list(walk_edges), "black"))
        elif ev[0] == "drop":
            panels.append((f"walk {ev[1]}: deviant cycle at {graph.record_ids[ev[2]]} dropped", list(walk_edges), "red"))
        else:
            panels.append((f"walk {ev[1]}: cycle closed ({ev[3]} matching{'' if ev[3] == 1 else 's'})",
                           list(walk_edges), "green"))
        if len(panels) >= max_panels:
            break
    nrows = max(1, int(np.ceil(len(panels) / ncols)))
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.2 * ncols, 3.2 * nrows))
    axes = np.atleast_1d(axes).ravel()
    for ax, (title, edges, color) in zip(axes, panels, strict=False):
        for a, b in zip(src.tolist(), dst.tolist(), strict=True):
            _arrow(ax, pos[a], pos[b], "#cccccc", lw=0.8, node_points=_node_points(ax, graph.n))
        for s, (a, b) in enumerate(edges):
            _arrow(ax, pos[a], pos[b], _COLORS[s % 10], lw=2.2, node_points=_node_points(ax, graph.n))
        _nodes(ax, pos, graph.record_ids)
        ax.set_title(title, fontsize=8, color=color)
    for ax in axes[len(panels):]:
        ax.axis("off")
    from matplotlib.lines import Line2D

    steps = min(10, max((len(edges) for _, edges, _ in panels), default=0))
    fig.tight_layout()
    if steps:
        handles = [Line2D([], [], color=_COLORS[s], lw=2.2, label=f"step {s + 1}") for s in range(steps)]
        fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(steps, 10), fontsize=7,
                   frameon=False, title="walk edge colour = its step in the walk"
                   + (" (repeats every 10)" if any(len(e) > 10 for _, e, _ in panels) else ""), title_fontsize=7)
        fig.subplots_adjust(bottom=max(fig.subplotpars.bottom, 0.9 / fig.get_figheight()))
        fig.legends[-1].set_bbox_to_anchor((0.5, 0.85 / fig.get_figheight()), transform=fig.transFigure)
    return fig
