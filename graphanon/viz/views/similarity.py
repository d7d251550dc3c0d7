"""The record-similarity graph as an interactive view (:func:`similarity_view`, :func:`similarity_layout`)."""

from __future__ import annotations

import random

import numpy as np
import scipy.sparse as sp
from scipy.spatial import cKDTree

from graphanon.errors import ParameterError
from graphanon.viz._layout import separate_discs
from graphanon.viz.views.core import (
    _MEASURE_COLORS,
    _PALETTE,
    GraphView,
    _plain,
)

__all__ = ["similarity_layout", "similarity_view"]


def _sunflower(count: int) -> np.ndarray:
    """``count`` points of a sunflower (Vogel's spiral), unit spacing, in rank order from the middle."""
    rank = np.arange(count)
    angle = rank * np.pi * (3 - np.sqrt(5))
    return np.c_[np.sqrt(rank + 0.5) * np.cos(angle), np.sqrt(rank + 0.5) * np.sin(angle)]


def _fr_steps(groups: int) -> int:
    """Fruchterman-Reingold iterations for a component of ``groups`` groups: igraph's 500, 200 above 2,000 groups.

    Measured on 10^5 ICD-9-like records in Clump's groups (largest component 8,762 groups): 500, 200 and 100
    iterations took 5.4, 3.8 and 3.1 s of the view's CPU and drew similar records about as close (median drawn
    edge between groups over the median distance of random linked records: 0.44, 0.45 and 0.47).
    """
    return 500 if groups <= 2000 else 200


def _component_layout(src: np.ndarray, dst: np.ndarray, weight: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Centres of discs joined by weighted edges, component by component.

    Each connected component is laid out by Fruchterman-Reingold, scaled to hold its discs and
    freed of overlaps; then the components are packed, biggest in the middle.

    igraph's generator is seeded for the call and then set back to its default (Python's ``random``),
    so the same input gives the same centres.
    """
    import igraph as ig

    graph = ig.Graph(n=len(radius), edges=np.c_[src, dst].tolist())
    graph.es["weight"] = list(weight / weight.max())
    centre = np.zeros((len(radius), 2))
    members = graph.connected_components().membership
    order = np.argsort(members, kind="stable")
    bounds = np.flatnonzero(np.diff(np.r_[-1, np.asarray(members)[order], -2]))
    parts = [order[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    extent = np.empty(len(parts))
    ig.set_random_number_generator(random.Random(0))  # igraph's FR draws random numbers: fix them
    try:
        for c, part in enumerate(parts):
            if len(part) == 1:
                laid = np.zeros((1, 2))
            else:
                sub = graph.induced_subgraph(part.tolist())
                laid = np.asarray(sub.layout_fruchterman_reingold(weights="weight", niter=_fr_steps(len(part)),
                                                                  seed=_sunflower(len(part)).tolist()).coords)
                span = np.ptp(laid, axis=0).max() or 1.0  # scale: the discs, as large as their groups, fit
                laid = laid * 1.2 * np.sqrt(np.pi * (radius[part] ** 2).sum()) / span
                # a force layout packs its core densely: spread it until the median disc clears its nearest
                # neighbour (else the push below fights thousands of overlaps and stops with them)
                dist, near = cKDTree(laid).query(laid, k=2)
                clear = (radius[part] + radius[part][near[:, 1]] + 0.5) / np.maximum(dist[:, 1], 1e-9)
                laid = separate_discs(laid * max(1.0, float(np.median(clear))), radius[part])
            laid -= laid.mean(axis=0)
            centre[part] = laid
            extent[c] = (np.hypot(laid[:, 0], laid[:, 1]) + radius[part]).max()
    finally:
        ig.set_random_number_generator(random)  # igraph's default generator again
    biggest_first = np.argsort(-extent, kind="stable")
    place = np.empty((len(parts), 2))
    place[biggest_first] = _sunflower(len(parts)) * 2 * np.median(extent)
    place = separate_discs(place, extent, gap=2.0)
    for c, part in enumerate(parts):
        centre[part] += place[c]
    return centre


def similarity_layout(matrix, groups) -> tuple[np.ndarray, np.ndarray, dict]:
    """Positions of records by similarity: groups by a force layout, records around their group.

    1. The group graph: groups are nodes, an edge's weight is the total similarity between the
       records of two groups (``P.T @ W @ P`` for the membership matrix ``P``).
    2. Groups with an edge are placed by Fruchterman-Reingold on that graph (igraph, started from
       a deterministic sunflower, so the same input gives the same picture); each group is a disc
       of area proportional to its size, and a post-pass pushes overlapping discs apart. igraph's
       generator is seeded for the call and then set back to its default (Python's ``random``).
    3. Groups similar to no record outside themselves are set apart on a grid to the right,
       biggest first (a force layout would scatter them at random).
    4. Within its disc, each record sits on a sunflower slot; the records are matched to the
       slots by angle, so a record faces the groups its own similar records are in.

    Parameters
    ----------
    matrix : scipy sparse array of shape (n, n)
        Record similarities (symmetric, non-negative), e.g. ``RecordSimilarityGraph.matrix``.
    groups : array of int, shape (n,)
        Group per record.

    Returns
    -------
    x, y : ndarray of float, shape (n,)
    summary : dict
        ``groups``, ``linked_groups`` (placed by the force layout) and ``apart_records`` (records
        in groups set apart).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> W = sp.csr_array(([1.0, 1.0], ([0, 1], [1, 0])), shape=(3, 3))
    >>> x, y, summary = similarity_layout(W, [0, 1, 2])
    >>> summary["linked_groups"], summary["apart_records"]
    (2, 1)

    References
    ----------
    Fruchterman, Reingold. Graph drawing by force-directed placement. Software: Practice and
    Experience 21(11), 1991 (the group layout). Vogel. A better way to construct the sunflower
    head. Mathematical Biosciences 44, 1979 (the slots within a group).
    """
    W = sp.csr_array(matrix)
    n = W.shape[0]
    _, inverse, sizes = np.unique(np.asarray(groups), return_inverse=True, return_counts=True)
    n_groups = len(sizes)
    member = sp.csr_array((np.ones(n), (np.arange(n), inverse)), shape=(n, n_groups))
    between = sp.triu(member.T @ W @ member, k=1).tocoo()
    keep = between.data > 0
    ga, gb, weight = between.row[keep], between.col[keep], between.data[keep]
    radius = np.sqrt(sizes)  # disc area proportional to the group size (one unit per record)
    linked = np.zeros(n_groups, dtype=bool)
    linked[ga] = linked[gb] = True
    centre = np.zeros((n_groups, 2))
    index = np.flatnonzero(linked)
    if len(index):
        local = np.full(n_groups, -1)
        local[index] = np.arange(len(index))
        centre[index] = _component_layout(local[ga], local[gb], weight, radius[index])
    apart = np.flatnonzero(~linked)
    if len(apart):  # a grid to the right of the linked groups, biggest first, rows of equal height
        apart = apart[np.argsort(-sizes[apart], kind="stable")]
        cell = 2 * radius[apart] + 1.0
        right = (centre[index, 0] + radius[index]).max() if len(index) else 0.0
        left = right + (max(10.0, 0.1 * (right - (centre[index, 0] - radius[index]).min())) if len(index) else 0.0)
        top = (centre[index, 1] - radius[index]).min() if len(index) else 0.0  # the views draw y downwards
        width = max(np.sqrt((cell**2).sum()), cell[0])
        x0 = np.cumsum(cell) - cell
        row = np.floor(x0 / width).astype(np.int64)
        row_start = np.r_[0, np.flatnonzero(np.diff(row)) + 1]
        row_height = np.maximum.reduceat(cell, row_start)
        row_top = np.r_[0.0, np.cumsum(row_height)[:-1]]
        first_x = np.repeat(x0[row_start], np.diff(np.r_[row_start, len(apart)]))
        centre[apart, 0] = left + x0 - first_x + cell / 2
        centre[apart, 1] = top + np.repeat(row_top + row_height / 2, np.diff(np.r_[row_start, len(apart)]))
    # records: the direction of their similar records in other groups, matched to sunflower slots
    own = centre[inverse]
    pull = W @ centre[inverse] - W.sum(axis=1)[:, None] * own
    facing = np.arctan2(pull[:, 1], pull[:, 0])
    facing = np.where(np.hypot(pull[:, 0], pull[:, 1]) > 0, facing, np.arange(n) * 2.399963)  # no pull: spread
    by_group = np.lexsort((np.mod(facing, 2 * np.pi), inverse))
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    slot = np.arange(n) - np.repeat(starts, sizes)  # slot number within the group, records sorted by angle
    size_of = np.repeat(sizes, sizes)
    golden = np.pi * (3 - np.sqrt(5))
    # the group's sunflower slots, ordered by their own angle, so the k-th record by angle gets the k-th slot
    slot_angle = np.mod(slot * golden, 2 * np.pi)
    slot_order = np.lexsort((slot_angle, np.repeat(np.arange(n_groups), sizes)))
    slot_r = np.sqrt(slot + 0.5) * np.where(size_of > 1, 1.0, 0.0)
    sx, sy = slot_r * np.cos(slot_angle), slot_r * np.sin(slot_angle)
    x, y = np.empty(n), np.empty(n)
    x[by_group] = own[by_group, 0] + sx[slot_order]
    y[by_group] = own[by_group, 1] + sy[slot_order]
    summary = {"groups": n_groups, "linked_groups": int(linked.sum()), "apart_records": int(sizes[~linked].sum())}
    return x, y, summary


def similarity_view(graph, groups=None, *, data=None, neighbors: int = 3, pairs=None,
                    title: str | None = None) -> GraphView:
    """The record-similarity graph, records placed by similarity and coloured by their group or its size.

    Colours: one per group when there are at most 12 groups; beyond that a
    palette cannot tell groups apart, so records are coloured by their
    group's size (at most six sequential classes, each named by the sizes it
    holds) and clicking a record rings every record of its group.
    Each record keeps its ``neighbors`` most similar neighbours (the graph
    may hold dozens per record); the subtitle says how many of the graph's
    edges are shown. Records are placed by similarity (:func:`similarity_layout`): groups by a
    force layout of the group graph, each record on the side of its group that faces its similar
    records elsewhere; groups similar to nothing outside themselves are set apart on the right.

    Parameters
    ----------
    graph : RecordSimilarityGraph
    groups : array of int, optional
        Group per record (e.g. Clump's groups, read through the private link);
        default: one group per record.
    data : TransactionData, optional
        For each record's items in its detail panel.
    neighbors : int
        Strongest neighbours kept per record.
    pairs : array of shape (p, 2), optional
        Swap pairs, drawn as their own edge category.

    Returns
    -------
    GraphView

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from graphanon.graphs.similarity import RecordSimilarityGraph
    >>> g = RecordSimilarityGraph.knn(sp.csr_array([[1, 1, 0], [1, 1, 1], [0, 0, 1]]), 1)
    >>> similarity_view(g, [0, 0, 1]).n_nodes
    3

    References
    ----------
    Clump (SECRYPT 2010), Sec. 3 (groups grown over the similarity graph).
    """
    n = graph.n_records
    if neighbors < 1:
        raise ParameterError(f"neighbors must be >= 1, got {neighbors}")
    groups = np.arange(n) if groups is None else np.asarray(groups, dtype=np.int64).reshape(-1)
    if groups.shape != (n,):
        raise ParameterError(f"groups must give one group per record ({n})")
    W = graph.matrix.tocsr() if hasattr(graph.matrix, "tocsr") else graph.matrix
    indptr, cols, sims = W.indptr, W.indices, W.data
    row = np.repeat(np.arange(n), np.diff(indptr))
    # rank within each row by similarity (descending): keep the first `neighbors`
    order = np.lexsort((-sims, row))
    rank = np.arange(len(order)) - np.repeat(indptr[:-1], np.diff(indptr))
    keep = order[rank < neighbors]
    a, b = row[keep], cols[keep]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    pair_keys = np.unique(lo.astype(np.int64) * n + hi)
    src, dst = pair_keys // n, pair_keys % n
    ecat = np.where(groups[src] == groups[dst], 0, 1)
    ecats = [{"name": "similar, same group", "color": "#4c72b0"}, {"name": "similar, other group", "color": "#bbbbbb"}]
    if pairs is not None:
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        src, dst, ecat = np.r_[src, p[:, 0]], np.r_[dst, p[:, 1]], np.r_[ecat, np.full(len(p), 2)]
        ecats.append({"name": "swap pair", "color": "#e31a1c"})
    kept = sp.csr_array((sims[keep], (a, b)), shape=(n, n))
    x, y, laid = similarity_layout(kept.maximum(kept.T), groups)  # placed by the similarities drawn
    uniq, inverse, sizes = np.unique(groups, return_inverse=True, return_counts=True)
    cats, cat, colour_by = _group_colours(uniq, inverse, sizes)
    # the detail panel, built in the browser: the group and its size per group, a record's items as CSR indices
    columns = [("group", uniq, "group"), ("group size", sizes, "group")]
    lists = None
    if data is not None:
        X = sp.csr_array(data.matrix)
        if not X.has_sorted_indices:  # a copy: the caller's data stays as it is
            X = X.copy()
            X.sort_indices()
        lists = [("items", X.indptr, X.indices, [str(v) for v in data.items])]
    ids = list(data.record_ids) if data is not None and getattr(data, "record_ids", None) is not None else range(n)
    view = GraphView(
        [str(r) for r in ids], cats, cat, x=x, y=y, edges=(src, dst, ecat), edge_categories=ecats,
        compact=True, columns=columns, lists=lists,
        title=title or f"Record-similarity graph: {n:,} records in {len(uniq):,} groups",
        subtitle=(f"showing each record's {neighbors} strongest of {graph.n_edges:,} similarity entries "
                  f"({len(src):,} edges drawn); colour = {colour_by}. Groups placed by these similarities (force "
                  f"layout of the group graph), each record on its group's side facing its similar records"
                  + (f"; {laid['apart_records']:,} records in groups similar to nothing outside them set apart "
                     f"on the right" if laid["apart_records"] else "")),
    )
    view.data["nodes"]["group"] = inverse  # the renderer rings the selected record's group
    return view


_GROUP_PALETTE = _PALETTE + ["#2ca02c", "#17becf"]  # 12 distinguishable colours: one per group up to 12 groups


def _group_colours(uniq: np.ndarray, inverse: np.ndarray, sizes: np.ndarray) -> tuple[list, np.ndarray, str]:
    """Categories of :func:`similarity_view`: one colour per group when there are at most 12, else by group size.

    Many groups cannot be told apart by colour (a palette repeated over 5,000 groups says nothing): they are
    coloured by their size in at most six sequential classes, and the selected record's group is ringed.
    """
    if len(sizes) <= len(_GROUP_PALETTE):
        return ([(f"group {_plain(g)}", _GROUP_PALETTE[j]) for j, g in enumerate(uniq)],
                inverse.copy(), "group")
    values = np.unique(sizes)
    if len(values) <= len(_MEASURE_COLORS):
        bounds = np.r_[values, values[-1] + 1]
    else:
        # quantiles of the distinct sizes, not of the groups: most groups have the smallest size
        bounds = np.unique(np.quantile(values, np.linspace(0, 1, len(_MEASURE_COLORS) + 1)).round().astype(np.int64))
        bounds[-1] = sizes.max() + 1
    present, cls = np.unique(np.clip(np.searchsorted(bounds, sizes, side="right") - 1, 0, len(bounds) - 2),
                             return_inverse=True)  # classes that hold a group, renumbered
    lo = np.full(len(present), sizes.max())
    hi = np.zeros(len(present), dtype=sizes.dtype)
    np.minimum.at(lo, cls, sizes)
    np.maximum.at(hi, cls, sizes)
    palette = _MEASURE_COLORS if len(present) > 5 else _MEASURE_COLORS[1:]  # the lightest only when needed
    cats = [(f"records in a group of {a}" if a == b else f"records in a group of {a}-{b}",
             palette[round(c * (len(palette) - 1) / max(len(present) - 1, 1))]) for c, (a, b) in enumerate(zip(lo, hi))]
    return cats, cls[inverse], "group size (click a record: its group ringed)"
