"""Drawings for COAT: the constraint graph and the merge forest (matplotlib).

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. KAIS 2011, Figs. 1, 4 and 5.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import networkx as nx

from graphanon.errors import ParameterError

__all__ = ["draw_constraint_graph", "draw_merge_forest"]


def draw_constraint_graph(graph, ax=None, *, max_nodes: int = 400):
    """Draw a :class:`~graphanon.graphs.constraints.ConstraintGraph` in three rows.

    Privacy constraints on top, items in the middle (labelled with their
    support), utility constraints (blocks) at the bottom. Returns the axes.
    """
    g = graph.to_networkx() if hasattr(graph, "to_networkx") else graph
    if g.number_of_nodes() > max_nodes:
        raise ParameterError(
            f"{g.number_of_nodes()} nodes is too many to draw (max_nodes={max_nodes}); "
            "draw a smaller dataset or fewer constraints"
        )
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4))
    rows = {"constraint": 2.0, "item": 1.0, "block": 0.0}
    pos = {}
    for kind, y in rows.items():
        nodes = [n for n, d in g.nodes(data=True) if d["kind"] == kind]
        for i, n in enumerate(nodes):
            pos[n] = ((i + 0.5) / max(len(nodes), 1), y)
    colors = {"constraint": "#d95f02", "item": "#7570b3", "block": "#1b9e77"}
    for kind in rows:
        nodes = [n for n, d in g.nodes(data=True) if d["kind"] == kind]
        nx.draw_networkx_nodes(g, pos, nodelist=nodes, node_color=colors[kind], node_size=500, ax=ax,
                               node_shape="s" if kind != "item" else "o")
    for kind, style in (("privacy", "solid"), ("utility", "dashed")):
        edges = [(u, v) for u, v, d in g.edges(data=True) if d["kind"] == kind]
        nx.draw_networkx_edges(g, pos, edgelist=edges, style=style, ax=ax, alpha=0.6)
    labels = {}
    for n, d in g.nodes(data=True):
        labels[n] = f"{d['label']}\n{d['support']}" if d["kind"] == "item" else d["label"]
    nx.draw_networkx_labels(g, pos, labels, font_size=8, ax=ax)
    ax.set_title("privacy constraints (top) - items (support) - utility constraints (bottom)")
    ax.set_axis_off()
    return ax


def draw_merge_forest(forest, ax=None, *, max_nodes: int = 400):
    """Draw a :class:`~graphanon.graphs.constraints.MergeForest`: roots on top, original items below.

    Suppressed sets are drawn in grey with a cross. Returns the axes.
    """
    g = forest.to_networkx() if hasattr(forest, "to_networkx") else forest
    if g.number_of_nodes() > max_nodes:
        raise ParameterError(
            f"{g.number_of_nodes()} nodes is too many to draw (max_nodes={max_nodes}); "
            "draw a smaller dataset or fewer constraints"
        )
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3))
    height = {}

    def h(n):
        if n not in height:
            kids = list(g.successors(n))
            height[n] = 0 if not kids else 1 + max(h(c) for c in kids)
        return height[n]

    leaves = []

    def collect(n):
        kids = list(g.successors(n))
        if not kids:
            leaves.append(n)
        for c in kids:
            collect(c)

    for r in [n for n in g if g.in_degree(n) == 0]:
        collect(r)
    pos = {n: (i, 0.0) for i, n in enumerate(leaves)}

    def place(n):
        if n in pos:
            return pos[n]
        xs = [place(c)[0] for c in g.successors(n)]
        pos[n] = (sum(xs) / len(xs), float(h(n)))
        return pos[n]

    for n in g:
        place(n)
    sup = [n for n, d in g.nodes(data=True) if d.get("suppressed")]
    rest = [n for n in g if n not in set(sup)]
    nx.draw_networkx_nodes(g, pos, nodelist=rest, node_color="#7570b3", node_size=600, ax=ax)
    nx.draw_networkx_nodes(g, pos, nodelist=sup, node_color="#bbbbbb", node_size=600, node_shape="X", ax=ax)
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=False)
    nx.draw_networkx_labels(g, pos, {n: str(n) for n in g}, font_size=8, ax=ax)
    ax.set_title("merge history (roots are published items; grey = suppressed)")
    ax.set_axis_off()
    return ax
