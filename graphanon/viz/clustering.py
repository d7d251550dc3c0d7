"""Drawings for local recoding by clustering: a group's LCG over the taxonomy, a record's neighbourhood.

References
----------
Clump (SECRYPT 2010), Examples 2-3; SPEC §3.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from graphanon.viz._layout import separate_discs
from graphanon.viz.taxonomy import tree_layout

__all__ = ["assign_lcg", "draw_group_lcg", "draw_similarity_neighborhood"]

_SUPP = "#d62728"
_FADED = "#cccccc"


def assign_lcg(taxonomy, lcg: Sequence[Hashable], record: Iterable[Hashable]) -> dict:
    """Which item of ``record`` each LCG copy stands for: ``{item: node}``; the other items are suppressed.

    Copies are served smallest subtree first, each taking any free item under
    it; on laminar subtrees this always succeeds when the LCG is valid.

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> tax = load_taxonomy("clump_food")
    >>> assign_lcg(tax, ["Fruit", "Food"], ["Apple", "Milk"])
    {'Apple': 'Fruit', 'Milk': 'Food'}
    """
    free = set(record)
    out: dict = {}
    for node in sorted(lcg, key=taxonomy.leaf_count):
        pick = sorted((x for x in free if taxonomy.is_ancestor(node, x)), key=str)
        if not pick:
            raise ValueError(f"{node!r} has no free item in {sorted(map(str, record))}: not a common generalization")
        out[pick[0]] = node
        free.discard(pick[0])
    return out


def draw_group_lcg(taxonomy, records: Sequence[Iterable[Hashable]], lcg: Sequence[Hashable], *, ax=None,
                   title: str | None = None):
    """A group of records under the taxonomy, each item coloured by the LCG node standing for it.

    Top: the part of the taxonomy above the group's items, LCG nodes ringed
    (``xn`` when a node has n copies). Bottom: one row per record, a mark
    under each of its items, in the colour of the LCG copy standing for it;
    suppressed items are red crosses.

    Parameters
    ----------
    taxonomy : Taxonomy
    records : sequence of iterables of items
        The group's original records.
    lcg : sequence of nodes
        Its LCG, with repeats (for example ``lcg_labels``).
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> ax = draw_group_lcg(load_taxonomy("clump_food"), [["Orange", "Beef"], ["Apple", "Milk"]], ["Fruit", "Food"])
    >>> ax.get_title()
    'LCG = <Fruit, Food> over 2 records'
    """
    records = [sorted(set(r), key=str) for r in records]
    items = {x for r in records for x in r}
    keep = set(items) | set(lcg)
    for x in list(keep):
        keep.update(taxonomy.ancestors(x))
    tree = taxonomy.graph.subgraph(keep)
    pos = tree_layout(tree, taxonomy.root)
    distinct = list(dict.fromkeys(lcg))
    leaves = [v for v in keep if tree.out_degree(v) == 0]
    label_inches = 0.075 * max((len(str(v)) for v in leaves), default=1) + 0.15  # 8 pt characters
    if ax is None:
        width = max(6.0, max(0.9, label_inches) * len(leaves) + 2)
        legend_rows = 1 + int(np.ceil((len(distinct) + 1) / max(1, int(0.775 * width / 1.3))))  # title + entries
        _, ax = plt.subplots(figsize=(width, 2.2 + 0.5 * (taxonomy.height + len(records)) + 0.25 * legend_rows))
    ax.set_axis_off()
    palette = plt.get_cmap("tab10")
    colour = {v: palette(i % 10) for i, v in enumerate(distinct)}
    for u, v in tree.edges():
        ax.plot([pos[u][0], pos[v][0]], [pos[u][1], pos[v][1]], color=_FADED, lw=1, zorder=1)
    copies = {v: list(lcg).count(v) for v in distinct}
    for v, (x, y) in pos.items():
        in_lcg = v in colour
        ax.scatter([x], [y], s=260 if in_lcg else 60, color=colour.get(v, "white"),
                   edgecolors="black" if in_lcg else "0.6", zorder=2)
        label = f"{v} x{copies[v]}" if in_lcg and copies[v] > 1 else str(v)
        ax.annotate(label, (x, y), xytext=(0, 9), textcoords="offset points", ha="center", fontsize=8,
                    fontweight="bold" if in_lcg else "normal")
    base = -taxonomy.height - 1.0
    x_min = min(p[0] for p in pos.values())
    ax.set_xlim(x_min - 1.0, max(p[0] for p in pos.values()) + 0.5)
    for i, rec in enumerate(records):
        y = base - 0.6 * i
        ax.text(x_min - 0.5, y, f"record {i + 1}", ha="right", va="center", fontsize=8)
        stands = assign_lcg(taxonomy, lcg, rec)
        for item in rec:
            x = pos[item][0]
            if item in stands:
                ax.scatter([x], [y], s=90, color=colour[stands[item]], edgecolors="black", zorder=3)
            else:
                ax.scatter([x], [y], s=90, color=_SUPP, marker="X", zorder=3)
    handles = [plt.Line2D([], [], marker="o", ls="", color=colour[v], markeredgecolor="black", label=f"{v}")
               for v in distinct]
    handles.append(plt.Line2D([], [], marker="X", ls="", color=_SUPP, label="suppressed"))
    columns = max(1, int(ax.get_position().width * ax.figure.get_figwidth() / 1.3))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), fontsize=8, frameon=False,
              ncol=min(columns, len(handles)), title="LCG node (colour repeats after 10)" if len(distinct) > 10
              else "LCG node", title_fontsize=8)
    ax.set_title(title or f"LCG = <{', '.join(map(str, lcg))}> over {len(records)} records")
    return ax


def _spread_nodes(pos: dict, ax, diameter: float, *, gap: float = 2.0) -> dict:
    """Spring-layout positions moved apart so that nodes ``diameter`` points wide never overlap.

    The axes limits are fixed to the layout (plus half a node), so a data unit has a known size
    in points; the discs are pushed apart (:func:`separate_discs`) at that scale, and again at the
    new scale until the limits stop growing (a few rounds).
    """
    keys = list(pos)
    xy = np.array([pos[k] for k in keys], dtype=np.float64).reshape(-1, 2)
    box = ax.get_position()
    width_pt = box.width * ax.figure.get_figwidth() * 72
    height_pt = box.height * ax.figure.get_figheight() * 72
    for _ in range(6):
        span = np.maximum(np.ptp(xy, axis=0), 1e-9)
        # points per data unit, with half a node of margin on each side
        scale = min((width_pt - diameter - gap) / span[0], (height_pt - diameter - gap) / span[1])
        if scale <= 0:
            break
        radius = np.full(len(xy), (diameter + gap) / 2 / scale)
        moved = separate_discs(xy, radius, gap=0.0)
        done = np.allclose(moved, xy)
        xy = moved
        if done:
            break
    span = np.maximum(np.ptp(xy, axis=0), 1e-9)
    scale = min((width_pt - diameter - gap) / span[0], (height_pt - diameter - gap) / span[1])
    half = (diameter + gap) / 2 / scale
    ax.set_xlim(xy[:, 0].min() - half, xy[:, 0].max() + half)
    ax.set_ylim(xy[:, 1].min() - half, xy[:, 1].max() + half)
    ax.autoscale(False)
    return {k: xy[i] for i, k in enumerate(keys)}


def draw_similarity_neighborhood(graph, record: int, group: Iterable[int], *, radius: int = 1, ax=None,
                                 max_nodes: int = 80, labels: Sequence | None = None, seed: int = 0,
                                 title: str | None = None):
    """The similarity graph around ``record``, with its group highlighted.

    Parameters
    ----------
    graph : RecordSimilarityGraph
    record : int
        The centre (drawn red).
    group : iterable of int
        Records of its group (drawn orange; those outside the drawn
        neighbourhood are added).
    radius : int
        Hops of neighbours to draw.
    max_nodes : int
        Cap on the drawn records (nearest hops first).
    labels : sequence, optional
        Text per record (default: the record index).
    seed : int
        Layout seed.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from graphanon.graphs.similarity import RecordSimilarityGraph
    >>> g = RecordSimilarityGraph.knn([[1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]], 2)
    >>> draw_similarity_neighborhood(g, 0, [0, 1]).get_title()
    'record 0: 1-hop neighbourhood, its group of 2 in orange'
    """
    group = {int(g) for g in group}
    nodes = [int(record)]
    seen = {int(record)}
    frontier = [int(record)]
    for _ in range(radius):
        nxt = []
        for u in frontier:
            for v in graph.neighbors(u)[0].tolist():
                if v not in seen and len(nodes) < max_nodes:
                    seen.add(v)
                    nodes.append(v)
                    nxt.append(v)
        frontier = nxt
    for g in sorted(group - seen):
        nodes.append(g)
    sub = graph.matrix[np.array(nodes)][:, np.array(nodes)].tocoo()
    G = nx.Graph()
    G.add_nodes_from(range(len(nodes)))
    for a, b, w in zip(sub.row, sub.col, sub.data):
        if a != b:
            G.add_edge(int(a), int(b), weight=float(w))
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 6))
    ax.set_axis_off()
    text = {i: str(labels[nodes[i]] if labels is not None else nodes[i]) for i in range(len(nodes))}
    font = 7.0
    diameter = max(13.0, 0.62 * font * max(len(t) for t in text.values()) + 5.0)  # points: the widest id fits
    pos = _spread_nodes(nx.spring_layout(G, seed=seed, weight="weight"), ax, diameter)
    widths = [0.5 + 2.5 * G[a][b]["weight"] for a, b in G.edges()]
    in_group = [nodes[a] in group and nodes[b] in group for a, b in G.edges()]
    nx.draw_networkx_edges(G, pos, ax=ax, width=widths,
                           edge_color=["tab:orange" if g else _FADED for g in in_group])
    colours = ["tab:red" if nodes[i] == record else "tab:orange" if nodes[i] in group else "#9ecae1"
               for i in range(len(nodes))]
    nx.draw_networkx_nodes(G, pos, ax=ax, node_color=colours, node_size=diameter**2, edgecolors="black",
                           linewidths=0.5)
    nx.draw_networkx_labels(G, pos, labels=text, ax=ax, font_size=font)
    from matplotlib.lines import Line2D

    def dot(colour: str, name: str) -> Line2D:
        return Line2D([], [], color=colour, label=name, marker="o", ls="", markeredgecolor="black", markersize=8)

    handles = [dot("tab:red", f"record {record}"), dot("tab:orange", "its group"), dot("#9ecae1", "other neighbours"),
               Line2D([], [], color="tab:orange", lw=2, label="similarity inside the group"),
               Line2D([], [], color=_FADED, lw=2, label="similarity (width: weight)")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=7, frameon=False)
    ax.set_title(title or f"record {record}: {radius}-hop neighbourhood, its group of {len(group)} in orange")
    return ax
