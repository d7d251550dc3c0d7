"""COAT's constraint graph as an interactive view (:func:`constraint_view`): every constraint, or blocks at scale."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphanon.viz.views.core import (
    _PALETTE,
    GraphView,
    _b64,
    _plain,
)

__all__ = ["BLOCK_DETAIL", "CONSTRAINT_OVERVIEW_FROM", "constraint_view"]


CONSTRAINT_OVERVIEW_FROM = 2000  # constraint_view: more privacy constraints than this are drawn in blocks


def constraint_view(graph, *, overview: bool | None = None, title: str | None = None) -> GraphView:
    """COAT's constraint graph: items and constraints as a bipartite graph (item - constraint it is in).

    Above ``CONSTRAINT_OVERVIEW_FROM`` privacy constraints (or with ``overview=True``) the constraints
    are drawn in blocks: one node per item that is the rarest item of some constraints (ties: the
    item listed first in the data), standing for all of them, joined to every item of its
    constraints. Clicking a block rings its items, lists its constraints and draws its detail as a
    small graph (its first ``BLOCK_DETAIL`` constraints and their items; the page carries every
    constraint as base64 item indices); clicking an item rings the blocks whose constraints hold it.
    The title and the legend count the same blocks.

    Parameters
    ----------
    graph : ConstraintGraph
    overview : bool, optional
        Force the blocks (True) or every constraint (False); default: blocks above
        ``CONSTRAINT_OVERVIEW_FROM`` privacy constraints.
    title : str, optional

    Returns
    -------
    GraphView

    Notes
    -----
    Complexity of the blocks: O(total size of the constraints) to read them, then numpy sorts; the
    page holds at most one block per item.

    Examples
    --------
    >>> from graphanon import datasets as ds
    >>> from graphanon.graphs.constraints import ConstraintGraph
    >>> c = ds.load_constraints("coat_fig1")
    >>> v = constraint_view(ConstraintGraph(ds.load("coat_fig1"), c["privacy"], c["utility"]))
    >>> v.data["categories"][0]["name"]
    'item'

    References
    ----------
    Loukides, Gkoulalas-Divanis, Malin. COAT (KAIS 2011), Sec. 3 (privacy and utility constraints).
    """
    if overview is None:
        overview = len(graph.privacy) > CONSTRAINT_OVERVIEW_FROM
    if overview:
        return _constraint_blocks(graph, title)
    g = graph.to_networkx()
    nodes = list(g.nodes)
    pos = {v: i for i, v in enumerate(nodes)}
    kinds = [g.nodes[v].get("kind", "item") for v in nodes]
    names = sorted(set(kinds), key=lambda s: (s != "item", s))
    cat = [names.index(s) for s in kinds]
    n = len(nodes)
    # items on a circle, constraints on an inner circle, each near the mean angle of its items
    item_idx = [i for i in range(n) if kinds[i] == "item"]
    angle = np.zeros(n)
    angle[item_idx] = 2 * np.pi * np.arange(len(item_idx)) / max(len(item_idx), 1)
    radius = np.where(np.array(kinds) == "item", 300.0, 180.0)
    for i in range(n):
        if kinds[i] != "item":
            nb = [pos[u] for u in g.neighbors(nodes[i])]
            if nb:
                angle[i] = np.angle(np.exp(1j * angle[nb]).mean())
    jitter = np.where(np.array(kinds) == "item", 0.0, 40.0 * ((np.arange(n) * 0.618) % 1.0))
    x, y = (radius - jitter) * np.cos(angle), (radius - jitter) * np.sin(angle)
    edge_kinds = ["privacy", "utility"]
    edges = [(pos[u], pos[v], edge_kinds.index(d.get("kind", "privacy"))) for u, v, d in g.edges(data=True)]
    src = [a for a, _, _ in edges]
    dst = [b for _, b, _ in edges]
    info = [{k: _plain(v) for k, v in g.nodes[node].items()} | {"degree": g.degree(node)} for node in nodes]
    # the title counts what the legend counts: privacy constraints and utility blocks apart
    legend = {"item": "item", "constraint": "privacy constraint", "block": "utility block (partition)"}
    counts = {s: kinds.count(s) for s in names}
    parts = [f"{counts.get('item', 0):,} items", f"{counts.get('constraint', 0):,} privacy constraints"]
    if counts.get("block"):
        parts.append(f"{counts['block']:,} utility block{'s' if counts['block'] != 1 else ''}")
    return GraphView(
        [str(v) for v in nodes], [(legend.get(s, s), _PALETTE[j % len(_PALETTE)]) for j, s in enumerate(names)], cat,
        x=x, y=y, edges=(src, dst, [e for _, _, e in edges]),
        edge_categories=[{"name": "item in a privacy constraint", "color": "#999999"},
                         {"name": "item in a utility block", "color": "#55a868"}],
        info=info, title=title or "COAT constraint graph: " + ", ".join(parts),
        subtitle="click an item, a constraint or a block: its neighbours",
    )


def _constraint_blocks(graph, title) -> GraphView:
    """The overview of :func:`constraint_view`: privacy constraints in blocks by their rarest item."""
    items = list(graph.items)
    n_items = len(items)
    where = {x: i for i, x in enumerate(items)}
    support = np.array([graph.supports[x] for x in items], dtype=np.int64)
    privacy = [p for p in graph.privacy if len(p)]
    lengths = np.array([len(p) for p in privacy], dtype=np.int64)
    flat = np.fromiter((where[x] for p in privacy for x in p), dtype=np.int64, count=int(lengths.sum()))
    starts = np.r_[0, np.cumsum(lengths)[:-1]].astype(np.int64)
    # the rarest item of each constraint (ties: the first in the data's item order)
    key = support[flat] * n_items + flat
    anchor = (np.minimum.reduceat(key, starts) % n_items) if len(privacy) else np.empty(0, dtype=np.int64)
    anchors, block_of, per_block = np.unique(anchor, return_inverse=True, return_counts=True)
    n_blocks = len(anchors)
    # block - item edges: every item of the block's constraints, once
    pair = np.unique(np.repeat(block_of, lengths) * n_items + flat)
    e_block, e_item = pair // n_items, pair % n_items
    size_lo = np.full(n_blocks, lengths.max() if len(lengths) else 0)
    size_hi = np.zeros(n_blocks, dtype=np.int64)
    np.minimum.at(size_lo, block_of, lengths)
    np.maximum.at(size_hi, block_of, lengths)
    n_block_items = np.bincount(e_block, minlength=n_blocks)
    shown = 20  # constraints listed in a block's detail
    by_block = np.argsort(block_of, kind="stable")
    rank = np.arange(len(by_block)) - np.repeat(np.r_[0, np.cumsum(per_block)[:-1]], per_block)
    listed: list[list[str]] = [[] for _ in range(n_blocks)]
    for c in by_block[rank < shown].tolist():  # the first constraints of each block, in the given order
        listed[block_of[c]].append(",".join(map(str, privacy[c])))
    utility = [tuple(m) for m in graph.blocks]
    angle_items = 2 * np.pi * np.arange(n_items) / max(n_items, 1)
    jitter = 40.0 * ((np.arange(n_blocks) * 0.618) % 1.0)
    bx, by = (180.0 - jitter) * np.cos(angle_items[anchors]), (180.0 - jitter) * np.sin(angle_items[anchors])
    u_angle = np.array([np.angle(np.exp(1j * angle_items[[where[x] for x in m]]).mean()) if m else 0.0
                        for m in utility])
    labels = [str(x) for x in items] + [f"rarest {items[a]}" for a in anchors] + [f"u{b + 1}" for b in range(len(utility))]
    info: list[dict[str, Any]] = [{"support": int(support[i]), "utility block": int(graph.block_of[x]) + 1}
                                  for i, x in enumerate(items)]
    info += [{"rarest item": str(items[a]), "its support": int(support[a]), "privacy constraints": int(c),
              "constraint sizes": f"{lo}" if lo == hi else f"{lo}-{hi}", "items in its constraints": int(m),
              "constraints": "; ".join(lst) + (f"; and {int(c) - len(lst):,} more" if c > len(lst) else "")}
             for a, c, lo, hi, m, lst in zip(anchors, per_block, size_lo, size_hi, n_block_items, listed)]
    info += [{"items": len(m)} for m in utility]
    u_src = np.array([where[x] for m in utility for x in m], dtype=np.int64)
    u_dst = np.repeat(n_items + n_blocks + np.arange(len(utility)), [len(m) for m in utility]).astype(np.int64)
    n_u = len(utility)
    parts = [f"{n_items:,} items", f"{len(privacy):,} privacy constraints in {n_blocks:,} blocks (by their rarest item)"]
    if n_u:
        parts.append(f"{n_u:,} utility block{'s' if n_u != 1 else ''}")
    cats = [("item", _PALETTE[0]), ("block of privacy constraints (one rarest item)", _PALETTE[1])]
    cats += [("utility block (partition)", _PALETTE[2])] if n_u else []
    view = GraphView(
        labels, cats, np.r_[np.zeros(n_items, dtype=np.int64), np.ones(n_blocks, dtype=np.int64),
                            np.full(n_u, 2, dtype=np.int64)],
        x=np.r_[300.0 * np.cos(angle_items), bx, 120.0 * np.cos(u_angle)],
        y=np.r_[300.0 * np.sin(angle_items), by, 120.0 * np.sin(u_angle)],
        edges=(np.r_[n_items + e_block, u_src], np.r_[e_item, u_dst],
               np.r_[np.zeros(len(e_block), dtype=np.int64), np.ones(len(u_src), dtype=np.int64)]),
        edge_categories=[{"name": "item in a block's constraints", "color": "#999999", "on_select": True},
                         {"name": "item in a utility block", "color": "#55a868", "on_select": True}],
        info=info, title=title or "COAT constraint graph: " + ", ".join(parts),
        subtitle="click a block: its constraints and their items drawn as a small graph (its items ringed here); "
                 "click an item: the blocks that hold it",
    )
    # a block's detail, drawn in the browser on click: its first BLOCK_DETAIL constraints (given order) and their items
    view.data["focus"] = {"kind": "blocks", "first_block": n_items, "shown": BLOCK_DETAIL, "anchors": _b64(anchors),
                          "flat": _b64(flat), "lengths": _b64(lengths), "block_list": _b64(by_block),
                          "block_start": _b64(np.r_[0, np.cumsum(per_block)])}
    return view


BLOCK_DETAIL = 30  # constraint_view's blocks: constraints drawn in a block's detail graph
