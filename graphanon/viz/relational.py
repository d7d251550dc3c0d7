"""Drawings of relational-transaction data: attribute hierarchies and the classes of a relational release.

* :func:`draw_hierarchies` (PNG/SVG/PDF) and :func:`hierarchy_view` (HTML):
  the generalization hierarchies of the quasi-identifier columns
  (:class:`~graphanon.relational.AttributeHierarchy`: numeric intervals level
  by level, categorical trees from a file), one tree per column, drawn by the
  item taxonomies' code (:func:`~graphanon.viz.taxonomy.draw_taxonomy`, and the
  tree layout of the HTML renderer); the values a release publishes are
  highlighted.
* :func:`draw_classes` (PNG/SVG/PDF) and :func:`relational_view` (HTML): the relational classes of a
  :class:`~graphanon.release.RelationalRelease` -- rows with equal published
  QI values -- as an overview of one node per class (its generalized values,
  its size, the items its transaction part publishes), columns by the first
  QI's published value, coloured by the mean number of published items per
  row; a click draws the class's detail as a small graph: its rows grouped
  by their published item set, and the items the class publishes (its cut)
  with their counts in the class.

Privacy: from a release alone the views hold what the release publishes (the
classes, their sizes and item sets are the release's rows regrouped). Which
original records a class holds comes only from the private link
(``release.link``, in memory after anonymizing; never saved), drawn only when
passed as ``link``, and the page then says it is private.

References
----------
Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos. Anonymizing data with
relational and transaction attributes. ECML PKDD 2013, Sec. 3 (the published
relational values and (k, k^m)-anonymity within a class).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError
from graphanon.relational.hierarchy import SUPPRESSED, AttributeHierarchy, parse_interval
from graphanon.viz.views import GraphView

__all__ = ["draw_classes", "draw_hierarchies", "hierarchy_view", "relational_view"]

# six blues for a measure in quantile classes (the palette of the views' other overviews)
_MEASURE_COLORS = ["#deebf7", "#b3d3e8", "#7fb2d8", "#4a8fc4", "#2166ac", "#0b3d75"]
_SHOWN_SETS = 40  # relational_view: item sets drawn in a class's detail (the most frequent)
_SHOWN_ITEMS = 40  # relational_view: published items drawn in a class's detail (the most frequent)


def _as_mapping(hierarchies) -> dict[str, AttributeHierarchy]:
    if isinstance(hierarchies, AttributeHierarchy):
        return {hierarchies.name: hierarchies}
    out = dict(hierarchies)
    if not out or not all(isinstance(h, AttributeHierarchy) for h in out.values()):
        raise ParameterError("give at least one AttributeHierarchy (a mapping column -> hierarchy)")
    return out


def _published_nodes(h: AttributeHierarchy, values) -> list:
    """The taxonomy nodes of ``h`` standing for published texts (``*`` is the root); unknown texts are an error."""
    tax = h.taxonomy
    return [tax.nodes[h.node(str(v))] if str(v) != SUPPRESSED else tax.root for v in values]


def _kind(h: AttributeHierarchy) -> str:
    return "numeric intervals" if h.is_numeric else "categorical"


def draw_hierarchies(hierarchies, *, published: Mapping[str, Sequence[str]] | None = None, fig=None,
                     max_nodes: int = 300):
    """Draw the hierarchies of relational attributes side by side, one tree per column (root on the left).

    Parameters
    ----------
    hierarchies : AttributeHierarchy or mapping of str to AttributeHierarchy
    published : mapping of str to sequence of str, optional
        Per column, the values a release publishes (``[40-49]``, a node name,
        ``*``): highlighted as the column's cut, the subtrees below collapsed
        when the tree is large.
    fig : matplotlib Figure, optional
        Default: a new :class:`matplotlib.figure.Figure` sized so that labels
        do not overlap (:func:`~graphanon.viz.taxonomy.taxonomy_figsize` per tree).
    max_nodes : int
        Per tree, draw at most this many nodes (whole levels, shallowest first).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Each panel is :func:`~graphanon.viz.taxonomy.draw_taxonomy` of the
    column's tree (labels decluttered: none overlaps). Complexity: O(drawn
    nodes) artists.

    Examples
    --------
    >>> from graphanon.relational import AttributeHierarchy
    >>> age = AttributeHierarchy.numeric("age", [23, 37, 41, 45, 68])
    >>> fig = draw_hierarchies(age, published={"age": ["[20-39]", "[40-59]", "[60-79]"]})
    >>> fig.axes[0].get_title().splitlines()[0]
    'age: numeric intervals, 5 values, height 5'
    """
    from matplotlib.figure import Figure

    from graphanon.viz.taxonomy import draw_taxonomy, taxonomy_figsize

    hs = _as_mapping(hierarchies)
    published = dict(published or {})
    unknown = sorted(set(published) - set(hs))
    if unknown:
        raise ParameterError(f"published values given for {unknown[0]!r}, which has no hierarchy here ({', '.join(hs)})")
    cuts = {c: _published_nodes(h, published.get(c, ())) for c, h in hs.items()}
    # published values of a relational release may nest ([0-39] and [0-79] in two classes): no collapsing below them
    rows = {c: max(h.n_leaves, 1) for c, h in hs.items()}
    sizes = [taxonomy_figsize(h.taxonomy, highlight=cuts[c], max_nodes=max_nodes, max_rows=rows[c])
             for c, h in hs.items()]
    if fig is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig = Figure(figsize=(sum(w for w, _ in sizes), max(h for _, h in sizes) + 0.6))
        FigureCanvasAgg(fig)  # drawn by Agg without selecting a backend
    axes = fig.subplots(1, len(hs), squeeze=False, gridspec_kw={"width_ratios": [w for w, _ in sizes]})[0]
    for ax, (c, h) in zip(axes, hs.items()):
        title = f"{c}: {_kind(h)}, {h.n_leaves} values, height {h.height}"
        if cuts[c]:
            title += f"\n{len(cuts[c])} published values highlighted"
        draw_taxonomy(h.taxonomy, highlight=cuts[c], max_nodes=max_nodes, max_rows=rows[c], ax=ax, title=title)
    return fig


def _subtree_end(parent: np.ndarray) -> np.ndarray:
    """Per node in preorder, one past the last node of its subtree (subtrees are contiguous in preorder)."""
    end = np.arange(1, len(parent) + 1)
    for i in range(len(parent) - 1, 0, -1):
        end[parent[i]] = max(end[parent[i]], end[i])
    return end


def hierarchy_view(hierarchies, *, table=None, published: Mapping[str, Sequence[str]] | None = None,
                   title: str | None = None) -> GraphView:
    """An interactive view of relational hierarchies: one tree per column, expand and collapse in the browser.

    Each node's detail gives its column, its published text, its NCP, the
    values under it and, with ``table``, how many records have a value under
    it. Trees start collapsed at the lowest published values when given
    (nesting values all stay visible), else below the second level when a
    tree has more than 60 values.

    Parameters
    ----------
    hierarchies : AttributeHierarchy or mapping of str to AttributeHierarchy
    table : RelationalTable, optional
        The records' values, for the counts per node.
    published : mapping of str to sequence of str, optional
        Per column, the values a release publishes (highlighted).
    title : str, optional

    Returns
    -------
    GraphView

    Notes
    -----
    Complexity: O(nodes + records) in numpy (records counted per leaf, then
    summed over each node's contiguous preorder range).

    Examples
    --------
    >>> from graphanon.relational import AttributeHierarchy
    >>> v = hierarchy_view({"age": AttributeHierarchy.numeric("age", [23, 37, 41]),
    ...                     "sex": AttributeHierarchy.categorical("sex", ["F", "M"])})
    >>> v.data["nodes"]["label"][0], v.data["nodes"]["label"][-3:]
    ('age: *', ['sex: *', 'F', 'M'])
    """
    hs = _as_mapping(hierarchies)
    published = dict(published or {})
    labels: list[str] = []
    parents, cats, info, collapsed = [], [], [], []
    for c, h in hs.items():
        offset = len(labels)
        tax = h.taxonomy
        index = {v: i for i, v in enumerate(tax.nodes)}
        parent = np.array([-1] + [index[tax.parent(v)] for v in tax.nodes[1:]], dtype=np.int64)
        end = _subtree_end(parent)
        leaf = end == np.arange(1, len(parent) + 1)
        cut = {h.node(str(v)) for v in published.get(c, ())}
        count = None
        if table is not None:
            per_leaf = np.bincount(h.leaf_codes(table.column(c)), minlength=len(parent))
            total = np.r_[0, np.cumsum(per_leaf)]
            count = total[end] - total[np.arange(len(parent))]
        leaves_under = np.r_[0, np.cumsum(leaf)][end] - np.r_[0, np.cumsum(leaf)][np.arange(len(parent))]
        ncp = h.ncp_of(np.arange(len(parent)))
        for i, text in enumerate(h.labels):
            labels.append(f"{c}: {SUPPRESSED}" if i == 0 else text)
            parents.append(-1 if parent[i] < 0 else offset + int(parent[i]))
            cats.append(2 if i in cut else 1 if leaf[i] else 0)
            d: dict[str, Any] = {"column": c, "published text": text, "NCP": round(float(ncp[i]), 4),
                                 "values under it": int(leaves_under[i])}
            if count is not None:
                d["records under it"] = int(count[i])
            info.append(d)
        if cut:  # collapsed at the lowest published values: values that nest ([0-39] in [0-79]) all stay visible
            collapsed += [offset + i for i in sorted(cut) if not leaf[i] and not any(i < j < end[i] for j in cut)]
        elif h.n_leaves > 60:
            depth = np.zeros(len(parent), dtype=np.int64)
            for i in range(1, len(parent)):
                depth[i] = depth[parent[i]] + 1
            collapsed += [offset + int(i) for i in np.flatnonzero((depth == 2) & ~leaf)]
    parent_arr = np.asarray(parents, dtype=np.int64)
    child = np.flatnonzero(parent_arr >= 0)
    names = ", ".join(f"{c} ({_kind(h)}, {h.n_leaves} values, height {h.height})" for c, h in hs.items())
    return GraphView(
        labels, [("generalization", "#9db4d6"), ("value", "#4c72b0"), ("published value", "#2a7f3f")], cats,
        parent=parent_arr, edges=(parent_arr[child], child, np.zeros(len(child))),
        edge_categories=[{"name": "parent / child", "color": "#aaaaaa"}], info=info, collapsed=collapsed,
        title=title or "Hierarchies of the quasi-identifiers", subtitle=f"{names}. Double-click a node to expand "
                                                                        "or collapse it.")


def _value_order(values: Sequence[str]) -> np.ndarray:
    """Rank of each published text: intervals and numbers by their bounds, other text alphabetically, ``*`` last."""
    def key(text: str):
        if text == SUPPRESSED:
            return (2, 0, 0, "")
        bounds = parse_interval(text)
        if bounds is not None:
            return (0, bounds[0], bounds[1], "")
        try:
            return (0, int(text), int(text), "")
        except ValueError:
            return (1, 0, 0, text)
    order = sorted(range(len(values)), key=lambda j: key(values[j]))
    rank = np.empty(len(values), dtype=np.int64)
    rank[order] = np.arange(len(values))
    return rank


def _b64(values, dtype: str = "<i4") -> str:
    """A numeric array as base64 of its little-endian bytes (what the renderer decodes into a typed array)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype=dtype).tobytes()).decode("ascii")


def _narrow(values) -> dict:
    """Whole numbers >= 0 as base64 of the narrowest little-endian type holding them: ``{"u8" | "u16" | "i32": text}``."""
    a = np.asarray(values, dtype=np.int64)
    top = int(a.max()) if a.size else 0
    kind, dtype = ("u8", "<u1") if top < 2**8 else ("u16", "<u2") if top < 2**16 else ("i32", "<i4")
    return {kind: _b64(a, dtype)}


def _check_release(release) -> None:
    if getattr(release, "kind", None) != "relational":
        raise ParameterError(f"expected a relational release, got a {getattr(release, 'kind', '?')} one")
    if release.n_records == 0:
        raise ParameterError("the release has no rows to draw")


def _classes(release):
    """The relational classes: (sorted value ranks per class, class per row, a row of each, sizes, class x item counts).

    Classes are sorted by the values' natural order column by column (:func:`_value_order`).
    """
    n, q, rel = release.n_records, len(release.qi), release.relational
    ranks = np.stack([_value_order(release.values[c])[rel[:, c]] for c in range(q)], axis=1)
    radix = [max(len(v), 1) for v in release.values]
    if float(np.prod(radix, dtype=np.float64)) < 2.0**62:  # one whole number per tuple, in the tuples' order
        code = np.zeros(n, dtype=np.int64)
        for c in range(q):
            code = code * radix[c] + ranks[:, c]
        _, first, cls = np.unique(code, return_index=True, return_inverse=True)
        keys = ranks[first]
    else:
        keys, cls = np.unique(ranks, axis=0, return_inverse=True)
    cls = cls.ravel()
    first_row = np.full(len(keys), n, dtype=np.int64)
    np.minimum.at(first_row, cls, np.arange(n))
    size = np.bincount(cls, minlength=len(keys))
    member = sp.csr_array((np.ones(n, dtype=np.int64), (cls, np.arange(n))), shape=(len(keys), n))
    counts = (member @ sp.csr_array(release.records, dtype=np.int64)).tocsr()
    counts.sort_indices()
    return keys, cls, first_row, size, counts


def _class_values(release, first_row: np.ndarray) -> list[list[str]]:
    return [[release.values[c][release.relational[r, c]] for c in range(len(release.qi))] for r in first_row.tolist()]


def draw_classes(release, *, max_classes: int = 60, top_items: int = 4, fig=None):
    """A figure of the relational classes of a relational release: one bar per class, its size and top items.

    Each row is a class (rows with equal published QI values): its values on
    the left, a bar of its size, and its most frequent published items with
    their counts in the class. Above ``max_classes`` classes the largest are
    drawn (in the classes' order) and the title says how many.

    Parameters
    ----------
    release : RelationalRelease
    max_classes : int
        Draw at most this many classes (the largest).
    top_items : int
        Published items written per class (the most frequent).
    fig : matplotlib Figure, optional
        Default: a new :class:`matplotlib.figure.Figure`, 0.26 inch per class (labels never overlap).

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Complexity: as :func:`relational_view`'s classes, plus O(drawn classes) artists.

    Examples
    --------
    >>> from graphanon.release import PublishedItem, RelationalRelease
    >>> rel = RelationalRelease(qi=("age",), relational=[["[40-49]"]] * 3 + [["[50-59]"]] * 2,
    ...     published_items=[PublishedItem("Diabetes", ("250.0",), 1)], records=[[0], [0], [], [], [0]], universe=2)
    >>> draw_classes(rel).axes[0].get_title()
    '2 relational classes (5 rows; QIs age)'
    """
    from matplotlib.figure import Figure

    _check_release(release)
    if max_classes < 1:
        raise ParameterError(f"max_classes must be >= 1, got {max_classes}")
    keys, _, first_row, size, counts = _classes(release)
    n_cls = len(keys)
    shown = np.sort(np.argsort(-size, kind="stable")[:max_classes])
    values = _class_values(release, first_row[shown])
    texts = []
    for j in shown.tolist():
        its, cnt = counts.indices[counts.indptr[j]:counts.indptr[j + 1]], counts.data[counts.indptr[j]:counts.indptr[j + 1]]
        first = np.argsort(-cnt, kind="stable")[:top_items]
        words = ", ".join(f"{release.published_items[its[t]].label} ({cnt[t]})" for t in first)
        more = len(its) - len(first)
        texts.append((words + (f", +{more} more" if more > 0 else "")) or "(no item published)")
    if fig is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig = Figure(figsize=(13.0, 1.6 + 0.26 * len(shown)))
        FigureCanvasAgg(fig)  # drawn by Agg without selecting a backend
    ax = fig.subplots()
    y = np.arange(len(shown))[::-1]
    ax.barh(y, size[shown], color="#4a8fc4", height=0.7)
    ax.set_yticks(y, [" · ".join(v) for v in values], fontsize=8)
    top = float(size[shown].max())
    for yy, rows_in, t in zip(y.tolist(), size[shown].tolist(), texts):
        ax.text(rows_in + 0.01 * top, yy, t[:90] + ("…" if len(t) > 90 else ""), va="center", fontsize=7)
    ax.set_xlim(0, top * 2.6)  # room for the item text right of the longest bar
    ax.set_ylim(-0.6, len(shown) - 0.4)
    ax.set_xlabel("rows in the class (text: its most frequent published items, with their counts)")
    ax.spines[["top", "right"]].set_visible(False)
    title = f"{n_cls:,} relational classes ({release.n_records:,} rows; QIs {', '.join(release.qi)})"
    if len(shown) < n_cls:
        title += f"\nthe {len(shown)} largest drawn"
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def relational_view(release, *, link=None, record_ids: Sequence | None = None, title: str | None = None) -> GraphView:
    """The relational classes of a relational release: one node per class, its rows and cut on click.

    A *class* is the set of rows with equal published QI values (what an
    adversary who knows a record's QI values cannot tell apart). The overview
    puts one node per class in columns by the first QI's published value
    (intervals by their bounds, ``*`` last), the classes of a column sorted by
    the other values, coloured by the mean number of published items per row
    (six quantile classes). Clicking a class (or finding it by its values)
    lists its published items with their counts in the class and draws a
    small graph: its rows grouped by their published item set (the
    ``40`` most frequent sets) joined to the items the class publishes (the
    ``40`` most frequent), which are the class's cut of the item taxonomy.

    Parameters
    ----------
    release : RelationalRelease
    link : ReleaseLink, optional
        PRIVATE: ``release.link`` (in memory after anonymizing). With it the
        class's detail lists the original records it holds.
    record_ids : sequence, optional
        The original records' ids (the data's ``record_ids``), for ``link``;
        default: record numbers.
    title : str, optional

    Returns
    -------
    GraphView

    Raises
    ------
    graphanon.errors.ParameterError
        For a release that is not relational, or ``record_ids`` of another length.

    Notes
    -----
    Complexity: O(n log n) for the classes (a row sort) and O(nnz) for the
    counts (sparse products); the page holds one node per class and, as
    base64 int32 arrays, the classes' item counts and distinct item sets (at
    most 40 per class), so its size grows with the classes, not the rows.

    Examples
    --------
    >>> from graphanon.release import PublishedItem, RelationalRelease
    >>> rel = RelationalRelease(qi=("age", "sex"), relational=[["[40-49]", "*"]] * 3 + [["[50-59]", "F"]] * 2,
    ...     published_items=[PublishedItem("Diabetes", ("250.0", "250.1"), 2)],
    ...     records=[[0], [0], [], [], [0]], universe=10)
    >>> v = relational_view(rel)
    >>> v.data["nodes"]["label"], [d["rows"] for d in v.data["nodes"]["info"]]
    (['[40-49] · *', '[50-59] · F'], [3, 2])

    References
    ----------
    Poulis et al., ECML PKDD 2013, Sec. 3.
    """
    _check_release(release)
    n = release.n_records
    keys, cls, first_row, size, counts = _classes(release)
    n_cls = len(keys)
    records = sp.csr_array(release.records, dtype=np.int64)
    items_per_row = np.diff(records.indptr)
    mean_items = np.bincount(cls, weights=items_per_row, minlength=n_cls) / size
    # distinct item sets per class, with their row counts: rows as padded sorted item lists, made unique with their class
    nnz = records.nnz
    pad = np.full((n, max(int(items_per_row.max()), 1)), -1, dtype=np.int64)
    pad[np.repeat(np.arange(n), items_per_row), np.arange(nnz) - np.repeat(records.indptr[:-1], items_per_row)] = \
        records.indices
    uniq, pair_rows = np.unique(np.c_[cls, pad], axis=0, return_counts=True)
    set_total = np.bincount(uniq[:, 0], minlength=n_cls)
    order = np.lexsort((-pair_rows, uniq[:, 0]))  # per class, the most frequent set first
    uniq, pair_rows = uniq[order], pair_rows[order]
    rank_in = np.arange(len(uniq)) - np.repeat(np.r_[0, np.cumsum(set_total)[:-1]], set_total)
    keep = rank_in < _SHOWN_SETS
    uniq, pair_rows = uniq[keep], pair_rows[keep]
    sets = uniq[:, 1:]
    set_len = (sets >= 0).sum(axis=1)
    set_items = sets[sets >= 0]  # row-major: each set's items in order
    # layout: columns by the first QI's value, classes stacked in their sorted order
    column = keys[:, 0]
    _, col_index, col_count = np.unique(column, return_inverse=True, return_counts=True)
    col_index = col_index.ravel()
    row_in_col = np.arange(n_cls) - np.repeat(np.r_[0, np.cumsum(col_count)[:-1]], col_count)
    gap = max(60.0, 1.25 * 24.0 * col_count.max() / max(len(col_count), 1))  # about 1.25:1, dots apart at fit
    x, y = col_index * gap, row_in_col * 24.0
    values = _class_values(release, first_row)
    labels = [" · ".join(v) for v in values]
    info = [{**dict(zip(release.qi, v)), "rows": int(size[j]), "published items": int(np.diff(counts.indptr)[j]),
             "mean published items per row": round(float(mean_items[j]), 2), "distinct item sets": int(set_total[j])}
            for j, v in enumerate(values)]
    edges_q = np.unique(np.quantile(mean_items, np.linspace(0, 1, len(_MEASURE_COLORS) + 1)))
    if len(edges_q) == 1:
        colour = np.zeros(n_cls, dtype=np.int64)
        cats = [(f"classes with {edges_q[0]:.3g} published items per row", _MEASURE_COLORS[3])]
    else:
        colour = np.clip(np.searchsorted(edges_q, mean_items, side="right") - 1, 0, len(edges_q) - 2)
        step = max(1, (len(_MEASURE_COLORS) - 1) // max(len(edges_q) - 2, 1))
        cats = [(f"classes with {edges_q[c]:.3g}–{edges_q[c + 1]:.3g} published items per row",
                 _MEASURE_COLORS[min(c * step, len(_MEASURE_COLORS) - 1)]) for c in range(len(edges_q) - 1)]
    items = release.published_items
    text = [str(pi.label) for pi in items]
    members = [", ".join(map(str, pi.members[:20])) + (f", … ({len(pi.members)})" if len(pi.members) > 20 else "")
               for pi in items]
    if any("\n" in t for t in text + members):
        raise ParameterError("published item labels must not contain a line break")
    focus: dict[str, Any] = {
        "kind": "classes", "max_items": _SHOWN_ITEMS, "items": "\n".join(text), "members": "\n".join(members),
        "class_start": _b64(counts.indptr), "class_item": _narrow(counts.indices), "class_count": _narrow(counts.data),
        "set_start": _b64(np.r_[0, np.cumsum(np.bincount(uniq[:, 0], minlength=n_cls))]),
        "set_rows": _narrow(pair_rows), "set_lengths": _narrow(set_len), "set_items": _narrow(set_items),
        "set_total": set_total.tolist(),
    }
    note = "No private link given: the view holds only what the release publishes."
    if link is not None:
        row_of_record = np.asarray(link.row_of_record, dtype=np.int64)
        if len(row_of_record) != n:
            raise ParameterError(f"the link maps {len(row_of_record)} records and the release has {n} rows")
        ids = list(range(n)) if record_ids is None else list(record_ids)
        if len(ids) != n:
            raise ParameterError(f"{len(ids)} record ids for {n} records")
        by_class = np.argsort(cls[row_of_record], kind="stable")
        focus |= {"record_start": _b64(np.r_[0, np.cumsum(size)]), "record_list": _b64(by_class),
                  "record_ids": "\n".join(str(r) for r in ids), "record_name": "records (PRIVATE link)",
                  "record_note": "PRIVATE: the class's original records come from the release's private link."}
        note = "PRIVATE: this view holds which original records each class holds. Do not publish it."
    view = GraphView(
        labels, cats, colour, x=x, y=y, info=info, note=note,
        title=title or (f"{n_cls:,} relational classes of a relational release ({n:,} rows, "
                        f"QIs {', '.join(release.qi)})"),
        subtitle=(f"One node per class (rows with equal published QI values), in columns by {release.qi[0]}. "
                  "Click a class (or find it by its values): its rows grouped by item set and the items it publishes."),
    )
    view.data["focus"] = focus
    view.data["label_room"] = 180
    return view
