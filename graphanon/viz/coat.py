"""Drawings for COAT: the constraint graph and the merge forest (matplotlib).

References
----------
Loukides, Gkoulalas-Divanis, Malin. COAT: COnstraint-based anonymization of
transactions. KAIS 2011, Figs. 1, 4 and 5.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from graphanon.errors import ParameterError

__all__ = ["draw_constraint_graph", "draw_constraint_summary", "draw_merge_forest"]


def _capped(g, max_nodes: int):
    """The first privacy constraints (in order) whose items and blocks fit in ``max_nodes`` nodes."""
    if g.number_of_nodes() <= max_nodes:
        return g, ""
    kinds = nx.get_node_attributes(g, "kind")
    keep: set = set()
    n_constraints = sum(1 for k in kinds.values() if k == "constraint")
    kept, new = 0, set(g)
    for c in (n for n, k in kinds.items() if k == "constraint"):
        new = {c}
        for item in g.neighbors(c):
            new.add(item)
            new.update(b for b in g.neighbors(item) if kinds[b] == "block")
        if len(keep | new) > max_nodes:
            break
        keep |= new
        kept += 1
    if not kept:
        raise ParameterError(
            f"max_nodes={max_nodes} cannot hold the first privacy constraint with its items and blocks "
            f"({len(new)} nodes; {g.number_of_nodes()} in all); raise max_nodes"
        )
    count = {k: sum(1 for v in keep if kinds[v] == k) for k in ("item", "block")}
    total = {k: sum(1 for v in kinds.values() if v == k) for k in ("item", "block")}
    note = (f"showing the first {kept} of {n_constraints} privacy constraints, their {count['item']} of "
            f"{total['item']} items and {count['block']} of {total['block']} utility constraints (max_nodes={max_nodes})")
    return g.subgraph(keep), note


def draw_constraint_graph(graph, ax=None, *, max_nodes: int = 80):
    """Draw a :class:`~graphanon.graphs.constraints.ConstraintGraph` in three rows.

    Privacy constraints on top, items in the middle (labelled with their
    support), utility constraints (blocks) at the bottom. Beyond ``max_nodes``
    nodes only the first privacy constraints are drawn, with their items and
    blocks, and the title says how many of each are shown. Node and label
    sizes shrink with the widest row so that neighbours do not overlap.

    Parameters
    ----------
    graph : ConstraintGraph or networkx.Graph
    ax : matplotlib Axes, optional
        Default: a new pyplot figure, wider for wider rows.
    max_nodes : int

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.coat import pgen
    >>> from graphanon.graphs.constraints import ConstraintGraph
    >>> data = load("groceries")
    >>> ax = draw_constraint_graph(ConstraintGraph(data, pgen(data, 5)), max_nodes=40)
    >>> ax.get_title().splitlines()[1].startswith("showing the first ")
    True
    """
    full = graph.to_networkx() if hasattr(graph, "to_networkx") else graph
    g, note = _capped(full, max_nodes)
    rows = {"constraint": 2.0, "item": 1.0, "block": 0.0}
    members = {kind: [n for n in full if n in g and g.nodes[n]["kind"] == kind] for kind in rows}  # input order
    widest = max(len(v) for v in members.values())
    if ax is None:
        _, ax = plt.subplots(figsize=(min(40.0, max(8.0, 0.45 * widest)), 4))
    box = ax.get_position()
    slot = 72.0 * box.width * ax.figure.get_figwidth() / max(widest, 1)  # points per node of the widest row
    diameter = min(24.0, 0.85 * slot)
    font = max(4.0, min(8.0, 0.3 * diameter))
    pos = {}
    for kind, y in rows.items():
        for i, n in enumerate(members[kind]):
            pos[n] = ((i + 0.5) / max(len(members[kind]), 1), y)
    colors = {"constraint": "#d95f02", "item": "#7570b3", "block": "#1b9e77"}
    legend_names = {"constraint": "privacy constraint", "item": "item (support)", "block": "utility constraint"}
    for kind in rows:
        if members[kind]:
            nx.draw_networkx_nodes(g, pos, nodelist=members[kind], node_color=colors[kind], node_size=diameter**2,
                                   ax=ax, node_shape="s" if kind != "item" else "o", label=legend_names[kind])
    for kind, style in (("privacy", "solid"), ("utility", "dashed")):
        edges = [(u, v) for u, v, d in g.edges(data=True) if d["kind"] == kind]
        nx.draw_networkx_edges(g, pos, edgelist=edges, style=style, ax=ax, alpha=0.6, width=1.0 if slot > 15 else 0.5)
    fits = slot / (0.6 * font)  # characters that fit in one node's slot
    vertical = any(len(g.nodes[n]["label"]) > fits for n in members["item"])
    for n, d in g.nodes(data=True):
        white = "white" if d["kind"] != "item" else "black"
        if d["kind"] == "constraint":
            text = d["label"] if len(d["label"]) <= fits else f"p{n[1] + 1}"  # its items are drawn below it
            ax.annotate(text, pos[n], fontsize=font, ha="center", va="center", color=white)
        elif d["kind"] == "block":
            ax.annotate(d["label"], pos[n], fontsize=font, ha="center", va="center", color=white)
        elif not vertical:
            ax.annotate(f"{d['label']}\n{d['support']}", pos[n], fontsize=font, ha="center", va="center")
        else:  # long item names: support in the node, every name turned vertical under it
            ax.annotate(str(d["support"]), pos[n], fontsize=font * 0.8, ha="center", va="center")
            ax.annotate(d["label"], pos[n], fontsize=font, ha="center", va="top", rotation=90, xytext=(0, -diameter / 2),
                        textcoords="offset points", bbox={"boxstyle": "square,pad=0.05", "fc": "white", "ec": "none",
                                                          "alpha": 0.8})
    ax.set_title("privacy constraints (top) - items (support) - utility constraints (bottom)"
                 + (f"\n{note}" if note else ""), fontsize=9)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=7, frameon=False, markerscale=0.5)
    ax.set_axis_off()
    return ax


def draw_merge_forest(forest, ax=None, *, max_nodes: int = 120):
    """Draw a :class:`~graphanon.graphs.constraints.MergeForest`: roots on top, original items below.

    Each merge is one level up (a node's height is its number of merges).
    Suppressed sets are drawn in grey with a cross. Merged sets are
    labelled with their members when that fits, else with their size; item
    names turn vertical when they do not fit their slot. Beyond
    ``max_nodes`` nodes the largest merge trees are drawn first, as many as
    fit, and the title says how many published sets and nodes are shown.

    Parameters
    ----------
    forest : MergeForest or networkx.DiGraph
    ax : matplotlib Axes, optional
    max_nodes : int

    Returns
    -------
    matplotlib Axes
    """
    full = forest.to_networkx() if hasattr(forest, "to_networkx") else forest
    roots = [n for n in full if full.in_degree(n) == 0]
    trees = {r: [r, *nx.descendants(full, r)] for r in roots}
    keep: list = []
    drawn_roots = []
    for r in sorted(roots, key=lambda r: -len(trees[r])):  # the largest merges first: they are the story
        if len(keep) + len(trees[r]) <= max_nodes:
            keep.extend(trees[r])
            drawn_roots.append(r)
    if not drawn_roots:
        raise ParameterError(f"max_nodes={max_nodes} cannot hold the smallest merge tree; raise max_nodes")
    g = full.subgraph(keep)
    note = "" if len(keep) == len(full) else (
        f"\nshowing {len(drawn_roots)} of {len(roots)} published or suppressed sets, the largest first "
        f"({len(keep)} of {full.number_of_nodes()} nodes, max_nodes={max_nodes})")
    height: dict = {}
    leaves: list = []
    for r in sorted(drawn_roots, key=str):  # leaves left to right tree by tree; heights bottom-up
        for n in nx.dfs_postorder_nodes(g, r):
            kids = list(g.successors(n))
            height[n] = 0 if not kids else 1 + max(height[c] for c in kids)
            if not kids:
                leaves.append(n)
    top = max(height.values())
    if ax is None:
        _, ax = plt.subplots(figsize=(min(40.0, max(8.0, 0.3 * len(leaves))), min(20.0, max(3.0, 0.3 * top + 2))))
    pos = {n: (float(i), 0.0) for i, n in enumerate(leaves)}
    for r in drawn_roots:
        for n in nx.dfs_postorder_nodes(g, r):
            if n not in pos:
                xs = [pos[c][0] for c in g.successors(n)]
                pos[n] = (sum(xs) / len(xs), float(height[n]))
    box = ax.get_position()
    slot = 72.0 * box.width * ax.figure.get_figwidth() / max(len(leaves), 1)
    level = 72.0 * box.height * ax.figure.get_figheight() / (top + 1.5)
    diameter = min(24.0, 0.85 * slot, 0.85 * level)
    font = max(4.0, min(8.0, 0.35 * max(diameter, slot)))
    sup = [n for n, d in g.nodes(data=True) if d.get("suppressed")]
    rest = [n for n in g if n not in set(sup)]
    nx.draw_networkx_nodes(g, pos, nodelist=rest, node_color="#7570b3", node_size=diameter**2, ax=ax)
    nx.draw_networkx_nodes(g, pos, nodelist=sup, node_color="#bbbbbb", node_size=diameter**2, node_shape="X", ax=ax)
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=False, width=1.0 if slot > 15 else 0.5)
    fits = slot / (0.6 * font)
    vertical = any(len(str(n)) > fits for n in leaves)
    for n in g:
        kids = list(g.successors(n))
        if not kids:
            ax.annotate(str(n), pos[n], fontsize=font, ha="center", va="top" if vertical else "center",
                        rotation=90 if vertical else 0, xytext=(0, -diameter / 2 - 1 if vertical else 0),
                        textcoords="offset points")
        else:
            members = g.nodes[n].get("members") or ()
            text = str(n) if len(str(n)) <= 3 * fits else f"{len(members)} items"
            ax.annotate(text, pos[n], fontsize=font, ha="left", va="bottom", xytext=(diameter / 2, 1),
                        textcoords="offset points")
    ax.margins(x=0.05, y=0.08)
    ax.set_title("merge history (roots are published items; grey = suppressed)" + note, fontsize=9)
    ax.set_axis_off()
    return ax


def draw_constraint_summary(graph, axes=None, *, top: int = 40):
    """A large constraint set summarized: the items in the most privacy constraints, and constraint sizes.

    Where :func:`draw_constraint_graph` would show only the first few of
    thousands of constraints as a hairball, this draws (left) the ``top``
    items ranked by the number of privacy constraints holding them, each bar
    labelled with the item's support, and (right) how many constraints have
    each size. The titles say how many items are shown of how many. Counts get
    whole-number ticks, and each legend stands between its panel and its title,
    so it never covers a bar (tiny data included).

    Parameters
    ----------
    graph : ConstraintGraph
    axes : pair of matplotlib Axes, optional
        Default: a new pyplot figure with two panels.
    top : int
        Items shown (the rest are counted in the title).

    Returns
    -------
    pair of matplotlib Axes

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.coat import pgen
    >>> from graphanon.graphs.constraints import ConstraintGraph
    >>> data = load("groceries")
    >>> left, right = draw_constraint_summary(ConstraintGraph(data, pgen(data, 5)), top=20)
    >>> left.get_title().splitlines()[1]
    'the 20 of 169 items in the most constraints (bar: constraints holding it; label: support)'
    """
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ParameterError(f"top must be a whole number >= 1, got {top!r}")
    items = list(graph.items)
    pos = {x: i for i, x in enumerate(items)}
    flat = np.fromiter((pos[x] for p in graph.privacy for x in p), dtype=np.int64)
    per_item = np.bincount(flat, minlength=len(items))
    sizes = np.fromiter((len(p) for p in graph.privacy), dtype=np.int64)
    order = np.lexsort((np.arange(len(items)), -per_item))[:top]
    order = order[per_item[order] > 0]
    if axes is None:
        fig, axes = plt.subplots(1, 2, figsize=(12, max(4.0, 0.22 * len(order) + 1.5)),
                                 gridspec_kw={"width_ratios": [2, 1]}, layout="constrained")
    left, right = axes
    y = np.arange(len(order))[::-1]
    left.barh(y, per_item[order], color="#d95f02", label="privacy constraints holding the item")
    left.set_yticks(y, [str(items[i]) for i in order], fontsize=8)
    for yy, i in zip(y, order):
        left.annotate(f"support {graph.supports[items[i]]}", (per_item[i], yy), xytext=(3, 0),
                      textcoords="offset points", va="center", fontsize=7, color="0.3")
    from matplotlib.ticker import MaxNLocator

    left.set_xlim(0, per_item[order].max() * 1.3 if len(order) else 1)
    left.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts: whole ticks even for tiny data
    left.set_xlabel("privacy constraints holding the item")
    # each legend stands above its panel, between the panel and its title: never over a bar
    left.legend(fontsize=8, frameon=False, loc="lower left", bbox_to_anchor=(0.0, 1.0), borderaxespad=0.2)
    left.set_title(f"{len(graph.privacy):,} privacy constraints over {len(items)} items\n"
                   f"the {len(order)} of {len(items)} items in the most constraints "
                   "(bar: constraints holding it; label: support)", fontsize=9, pad=20)
    vals, counts = np.unique(sizes, return_counts=True)
    right.bar(vals, counts, color="#7570b3", label="privacy constraints of this size")
    right.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=8))  # a few whole sizes, never crowded
    right.yaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_xlabel("items in the constraint")
    right.set_ylabel("constraints")
    right.legend(fontsize=8, frameon=False, loc="lower left", bbox_to_anchor=(0.0, 1.0), borderaxespad=0.2)
    right.set_title(f"constraint sizes ({len(graph.blocks)} utility constraint"
                    f"{'' if len(graph.blocks) == 1 else 's'})", fontsize=9, pad=20)
    return left, right
