"""The k-regular generalization graph of nonreciprocal recoding as an interactive view (:func:`generalization_view`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError
from graphanon.viz.views.core import (
    _MEASURE_COLORS,
    GraphView,
    _b64,
    _compact_ids,
    _rounded,
)

__all__ = ["OVERVIEW_FROM", "generalization_view"]


OVERVIEW_FROM = 2000  # generalization_view: more records than this are drawn as an overview of bins


def generalization_view(graph, order=None, *, chosen=None, data=None, overview: bool | None = None,
                        bins: int = 360, title: str | None = None) -> GraphView:
    """The k-regular generalization graph: every record and row (small graphs) or bins along the order (large).

    Small graphs (at most ``OVERVIEW_FROM`` records, or ``overview=False``):
    records on an inner ring, published records on an outer ring; selecting a
    record shows its ``k`` candidate published records (an edge ``i -> j``:
    published record ``j`` may stand for record ``i``; to anyone without the
    link each is equally likely).

    Large graphs (the overview): ``bins`` bins of consecutive records along
    the cyclic order, on a ring, coloured by a measure (six quantile classes):
    with ``data``, the mean number of items in a row's possible records
    together (the union of the items of the records that may be published as
    the row: what the row must cover); without it, the mean row degree (how
    many records a row may stand for; constant on a k-regular graph). Arcs
    join bins with candidate edges between them. Clicking a bin lists its
    records; clicking one, or typing its id in the search field, shows its
    detail as a small graph: the record, its ``k`` candidate rows and the
    other records that may be published as them. The page carries the graph
    compactly (the order and the record ids as base64 typed arrays, the
    candidate lists only when the graph is not the ring over ``order``), so
    10^5 records stay well under 3 MB.

    The one row really published for a record is drawn only when the private
    chosen assignment is passed.

    Parameters
    ----------
    graph : GeneralizationGraph
        ``release.trace.graph``, or :func:`~graphanon.graphs.generalization.ring_graph`.
    order : array of int, optional
        The cyclic record order (``release.trace.order``); rings and bins follow it.
    chosen : array of int, optional
        PRIVATE: the published assignment (record ``i`` -> published record
        ``chosen[i]``, an edge of the graph). Without it the view holds only
        public structure.
    data : TransactionData, optional
        The records (same order as the graph), for the overview's measure.
    overview : bool, optional
        Force the overview (True) or the full drawing (False); default: the
        overview above ``OVERVIEW_FROM`` records.
    bins : int
        Overview bins (at most one per record).
    title : str, optional

    Returns
    -------
    GraphView

    Raises
    ------
    graphanon.errors.ParameterError
        When ``order`` is not a permutation, ``chosen`` is not an assignment of
        the graph, ``data`` has another number of records or ``bins < 1``.

    Notes
    -----
    Complexity: the overview is O(n k) in numpy (the measure adds one sparse
    product, O(k x the data's non-zeros)); the page holds O(B) drawn nodes
    and O(n) numbers, and a record's detail is built in the browser in O(k^2).

    Examples
    --------
    >>> from graphanon.graphs.generalization import ring_graph
    >>> v = generalization_view(ring_graph([0, 1, 2, 3], 2))
    >>> v.n_nodes, v.n_edges
    (8, 8)
    >>> generalization_view(ring_graph([0, 1, 2, 3], 2), chosen=[1, 2, 3, 0]).n_edges
    12
    >>> big = generalization_view(ring_graph(list(range(5000)), 5), bins=100)
    >>> big.n_nodes, big.data["focus"]["ring"]
    (100, True)

    References
    ----------
    Xue, Karras, Raissi, Vaidya, Tan. Anonymizing set-valued data by nonreciprocal
    recoding. KDD 2012, Sec. 3 (bipartite view) and Sec. 4.1 (ring graph).
    """
    n, k = graph.n, graph.k
    order = np.arange(n) if order is None else np.asarray(order, dtype=np.int64).reshape(-1)
    if order.shape != (n,) or not np.array_equal(np.sort(order), np.arange(n)):
        raise ParameterError("order must be a permutation of the records")
    if chosen is not None:
        chosen = np.asarray(chosen, dtype=np.int64).reshape(-1)
        if (chosen.shape != (n,) or not np.array_equal(np.sort(chosen), np.arange(n))
                or not graph.contains_assignment(chosen)):
            raise ParameterError("chosen must be an assignment of the graph (one out-edge per record, a permutation)")
    if data is not None and data.n_records != n:
        raise ParameterError(f"data has {data.n_records} records and the graph {n}: pass the graph's own data")
    if bins < 1:
        raise ParameterError(f"bins must be >= 1, got {bins}")
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    ids = list(graph.record_ids) if getattr(graph, "record_ids", None) is not None else list(range(n))
    if overview is None:
        overview = n > OVERVIEW_FROM
    if overview:
        return _generalization_overview(graph, order, position, ids, chosen, data, min(bins, n), title)
    angle = 2 * np.pi * position / max(n, 1)
    radius = max(200.0, n * 1.5)
    rx, ry = radius * np.cos(angle), radius * np.sin(angle)
    src, dst = graph.edges()
    labels = [f"record {r}" for r in ids] + [f"published {r}" for r in ids]
    info = [{"candidates": k, "position in the order": int(p)} for p in position]
    info += [{"may stand for": int(d)} for d in graph.in_degrees()]
    e_src, e_dst, e_cat = [src], [n + dst], [np.zeros(len(src), dtype=np.int64)]
    ecats = [{"name": "candidate (may be published as)", "color": "#4c72b0", "on_select": True}]
    note = "No private link given: the view holds only the public structure."
    if chosen is not None:
        e_src.append(np.arange(n))
        e_dst.append(n + chosen)
        e_cat.append(np.ones(n, dtype=np.int64))
        ecats.append({"name": "published as (PRIVATE link)", "color": "#e31a1c", "on_select": True})
        note = "PRIVATE: this view holds the link from records to what is published for them. Do not publish it."
    return GraphView(
        labels, [("record", "#4c72b0"), ("published record", "#dd8452")],
        np.r_[np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64)],
        x=np.r_[rx, 1.2 * rx], y=np.r_[ry, 1.2 * ry],
        edges=(np.concatenate(e_src), np.concatenate(e_dst), np.concatenate(e_cat)),
        edge_categories=ecats, info=info, note=note,
        title=title or f"{k}-regular generalization graph of {n:,} records",
        subtitle="inner ring: records in the cyclic order; outer ring: published records. "
                 "Click a record: its candidates.",
    )


def _generalization_overview(graph, order, position, ids, chosen, data, n_bins, title) -> GraphView:
    """The overview of :func:`generalization_view`: bins along the order, detail of a record on demand."""
    n, k = graph.n, graph.k
    succ = np.asarray(graph.successors, dtype=np.int64)
    is_ring = bool(np.array_equal(succ[order], order[(np.arange(n)[:, None] + np.arange(k)) % n]))
    start = (np.arange(n_bins + 1) * n) // n_bins  # bin b holds positions start[b]:start[b+1]
    bin_of_pos = np.repeat(np.arange(n_bins), np.diff(start))
    src, dst = graph.edges()
    if data is not None:  # per row: items of the records that may be published as it, together
        pre = sp.csr_array((np.ones(len(src)), (dst, src)), shape=(n, n))
        cover = (pre @ sp.csr_array(data.matrix, dtype=np.float64)).tocsr()
        row_measure = np.diff(cover.indptr).astype(float)
        measure_name, short = "items a row must cover (its possible records' items together)", "items to cover"
    else:
        row_measure = graph.in_degrees().astype(float)
        measure_name, short = "row degree (records a row may stand for)", "row degree"
    in_bin = np.bincount(bin_of_pos, minlength=n_bins)
    per_bin = np.bincount(bin_of_pos, weights=row_measure[order], minlength=n_bins) / np.maximum(in_bin, 1)
    lo_bin = np.full(n_bins, np.inf)
    hi_bin = np.full(n_bins, -np.inf)
    np.minimum.at(lo_bin, bin_of_pos, row_measure[order])
    np.maximum.at(hi_bin, bin_of_pos, row_measure[order])
    # six quantile classes of the bins' means (fewer when the means take fewer values)
    edges_q = np.unique(np.quantile(per_bin, np.linspace(0, 1, len(_MEASURE_COLORS) + 1)))
    if len(edges_q) == 1:
        cls = np.zeros(n_bins, dtype=np.int64)
        cats = [(f"{measure_name}: {edges_q[0]:.3g} in every bin", _MEASURE_COLORS[3])]
    else:
        cls = np.clip(np.searchsorted(edges_q, per_bin, side="right") - 1, 0, len(edges_q) - 2)
        step = max(1, (len(_MEASURE_COLORS) - 1) // max(len(edges_q) - 2, 1))
        cats = [(f"bins with mean {short} {edges_q[c]:.3g}–{edges_q[c + 1]:.3g}",
                 _MEASURE_COLORS[min(c * step, len(_MEASURE_COLORS) - 1)]) for c in range(len(edges_q) - 1)]
    # aggregated arcs: candidate edges between different bins
    ba, bb = bin_of_pos[position[src]], bin_of_pos[position[dst]]
    between = ba != bb
    key, weight = np.unique(np.minimum(ba, bb)[between] * n_bins + np.maximum(ba, bb)[between], return_counts=True)
    angle = 2 * np.pi * (np.arange(n_bins) + 0.5) / n_bins
    radius = max(120.0, n_bins * 2.2)
    str_ids = [str(r) for r in ids]
    labels = [f"{str_ids[order[start[b]]]} … {str_ids[order[start[b + 1] - 1]]}" if in_bin[b] > 1
              else str_ids[order[start[b]]] for b in range(n_bins)]
    info = [{"bin": f"{b + 1} of {n_bins}", "records": int(in_bin[b]),
             "positions in the order": f"{start[b]}–{start[b + 1] - 1}",
             f"mean {measure_name}": _rounded(per_bin[b], 3),
             "min / max": f"{lo_bin[b]:.4g} / {hi_bin[b]:.4g}"} for b in range(n_bins)]
    focus: dict[str, Any] = {"kind": "candidates", "n": n, "k": k, "ring": is_ring, "order": _b64(order),
                             "bins": _b64(start), "ids": _compact_ids(ids)}
    if not is_ring:
        focus["succ"] = _b64(succ.reshape(-1))
    note = "No private link given: the view holds only the public structure."
    if chosen is not None:
        focus["chosen"] = _b64(chosen)
        focus["chosen_name"] = "published as (PRIVATE link)"
        focus["chosen_note"] = "PRIVATE: the red edge is the row really published for the record."
        note = "PRIVATE: this view holds the link from records to what is published for them. Do not publish it."
    view = GraphView(
        labels, cats, cls, x=radius * np.cos(angle), y=radius * np.sin(angle),
        edges=(key // n_bins, key % n_bins, np.zeros(len(key))),
        edge_categories=[{"name": "candidate edges between bins", "color": "#9aa7b8"}], info=info, note=note,
        title=title or f"{k}-regular generalization graph of {n:,} records (overview)",
        subtitle=(f"{n_bins} bins of about {n // n_bins} consecutive records along the cyclic order, coloured by the "
                  f"mean {measure_name}; {len(key):,} arcs join bins with candidate edges between them. Click a bin "
                  "for its records, a record (or type its id) for its candidate rows."),
    )
    view.data["focus"] = focus
    return view
