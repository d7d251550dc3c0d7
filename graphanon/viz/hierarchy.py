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

from graphanon.utils.labels import lookup_key
from graphanon.viz.taxonomy import draw_taxonomy, taxonomy_figsize, tree_layout

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
            ax.annotate(text, pos[v], fontsize=6.5, ha="right", va="center", xytext=(-7, 0),
                        textcoords="offset points", bbox=backing, zorder=4)
        else:  # the other cuts of a rank alternate above and below their row, so neighbours do not collide
            up = pos[v][0] % 2 == 1
            ax.annotate(text, pos[v], fontsize=6, ha="center", va="bottom" if up else "top",
                        xytext=(0, 4 if up else -4), textcoords="offset points", color="0.3", bbox=backing, zorder=4)
    ax.margins(x=0.2, y=0.08)
    shown = f"{g.number_of_nodes()} cuts shown (max_nodes={max_nodes})"
    ax.set_title(title or f"cut lattice: search path of {len(lattice.path)} cuts (orange)\n{shown}; "
                 "each cut: +node expanded to reach it (cost)", fontsize=9)
    return ax


def draw_enumeration_tree(tree, *, ax=None, max_nodes: int = 30, title: str | None = None):
    """Draw a suppression scenario enumeration tree with the greedy path.

    Each node shows its headlist (kept) and taillist; invalid nodes (their
    headlist holds a threat) are grey, the greedy path orange.

    Parameters
    ----------
    tree : SuppressionEnumerationTree
        For instance ``release.trace.search.enumeration_tree()``.
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
    depth = 1 + max(-y for _, y in pos.values())
    row_points = ax.get_position().height * ax.figure.get_figheight() * 72 / depth
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=min(120.0, 0.2 * row_points**2))
    every = max(1, int(-(-22 // row_points)))  # label every n-th level so that two 6-point lines fit
    last_depth = depth - 1
    short = len(tree.order) <= 12
    per_level: dict = {}
    for v in g.nodes:
        per_level[int(-pos[v][1])] = per_level.get(int(-pos[v][1]), 0) + 1
    for v, d in g.nodes(data=True):
        level = int(-pos[v][1])
        if level % every and level != last_depth:
            continue
        head = ",".join(map(str, d["head"])) if short else f"{len(d['head'])} kept"
        tail = ",".join(map(str, d["tail"])) if short else f"{len(d['tail'])} left"
        if per_level[level] == 1:  # beside the dot: one line per level, nothing stacked
            ax.annotate(f"{{{head}}} | {{{tail}}}", pos[v], fontsize=6, ha="left", va="center", xytext=(6, 0),
                        textcoords="offset points")
        else:  # several nodes side by side: slanted down, so neighbours never collide
            ax.annotate(f"{{{head}}} | {{{tail}}}", pos[v], fontsize=6, ha="left", va="top", rotation=-35,
                        rotation_mode="anchor", xytext=(2, -4), textcoords="offset points")
    if every > 1:
        ax.text(0.0, 1.0, f"labels every {every} levels", transform=ax.transAxes, fontsize=7, color="0.4",
                va="top")
    last = tree.greedy_path()[-1]
    gone = list(tree.suppressed(last))
    names = ", ".join(map(str, gone)) if len(", ".join(map(str, gone))) <= 60 else f"{len(gone)} nodes"
    ax.set_title(title or f"suppression enumeration tree (kept | left)\ngreedy path (orange) suppresses {names}",
                 fontsize=9)
    from matplotlib.patches import Patch

    kinds = [(_PATH, "greedy path", any(d["on_path"] for _, d in g.nodes(data=True))),
             ("#9ecae1", "valid scenario", any(d["valid"] and not d["on_path"] for _, d in g.nodes(data=True))),
             ("#eeeeee", "invalid (a threat is kept)", any(not d["valid"] for _, d in g.nodes(data=True)))]
    ax.legend(handles=[Patch(facecolor=c, edgecolor="0.5", label=name) for c, name, used in kinds if used],
              loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=7, frameon=False)
    return ax
