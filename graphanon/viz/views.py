"""Interactive views of graphanon's graphs: standalone HTML files and notebook widgets.

A :class:`GraphView` holds a graph as plain arrays (positions, labels, a
category per node and per edge, a detail table per node) and renders it with
one small canvas renderer written for graphanon (``_graphview.js``, shipped
in the package). :meth:`GraphView.save` writes a self-contained HTML file --
the script is inlined, nothing is fetched, so the file opens offline from
disk -- and :meth:`GraphView.widget` returns a notebook widget
(:class:`anywidget.AnyWidget`, the ``views`` extra) running the same script
in JupyterLab, Notebook 7 and VS Code.

Why a canvas renderer of our own: the views need tree expand/collapse, a
step-through of a search path and "edges shown only around the selected
node" (the candidate rows of a record), which generic graph widgets do not
offer, and the HTML must open offline (no CDN). A 2-D canvas with one batched
path per colour, a uniform picking grid and edges dropped while dragging keeps
10^5 nodes responsive (see ``benchmarks/views.py``).

The builders take what a method made and lay it out in numpy:
:func:`taxonomy_view` (a taxonomy with a published cut, suppressed nodes
crossed, LM/NCP per node), :func:`search_view` (the HgHs/mHgHs walk through
the cut lattice, one step at a time), :func:`generalization_view` (the
k-regular generalization graph: a record's k candidate rows, the chosen row
only when the private link is passed), :func:`similarity_view` (the record
similarity graph coloured by group) and :func:`constraint_view` (COAT's
constraint graph).

Privacy: a view contains what its builder is given. The private link (which
row is a record's) is drawn only when passed explicitly; a view made from a
release alone holds nothing the release does not publish.
"""

from __future__ import annotations

import base64
import html
import json
import random
from collections.abc import Hashable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.spatial import cKDTree

from graphanon.errors import ParameterError
from graphanon.readwrite.files import atomic_write, check_output
from graphanon.utils.labels import lookup_key
from graphanon.viz._layout import separate_discs

__all__ = [
    "HTML_SUFFIXES",
    "GraphView",
    "classify_cut",
    "constraint_view",
    "cut_of_release",
    "generalization_view",
    "search_view",
    "similarity_layout",
    "similarity_view",
    "taxonomy_view",
]

HTML_SUFFIXES = (".html", ".htm")

_PALETTE = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c",
            "#ccb974", "#64b5cd"]


def _script() -> str:
    return resources.files("graphanon.viz").joinpath("_graphview.js").read_text(encoding="utf-8")


def _rounded(value, digits: int) -> float:
    return float(np.round(float(value), digits))


def _plain(value):
    """A JSON-safe version of a label or value (numpy scalars, tuples, other hashables)."""
    if isinstance(value, (str, bool)) or value is None:
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else str(value)
    return str(value)


class GraphView:
    """A graph ready to be viewed interactively (HTML file or notebook widget).

    Parameters
    ----------
    labels : sequence
        One label per node (shown, searchable).
    categories : sequence of (name, colour) pairs
        Node categories; the legend lists each with its count.
    node_category : array of int
        Category index per node.
    x, y : array of float, optional
        Positions (ignored with ``parent``: a tree is laid out in the browser).
    edges : (src, dst, category) arrays, optional
    edge_categories : sequence of dict, optional
        ``{"name", "color"}``; ``"on_select": True`` draws the category only
        around the selected node.
    info : sequence of dict, optional
        Per node, the rows of its detail panel (also shown on hover).
    parent : array of int, optional
        Tree views: parent per node (-1 for a root); nodes in ``collapsed``
        start collapsed and the browser toggles them.
    step, steps : optional
        Step-through views: the first step at which each node appears, and
        one caption per step.
    title, subtitle, note : str
    compact : bool
        Write the arrays (positions, categories, edges, whole-number labels)
        as base64 typed arrays, each in its narrowest type, instead of JSON
        lists: a 10^5-node view then takes about a third of the bytes. The
        view's ``data`` keeps them as numpy arrays.
    columns : sequence of (name, values) or (name, values, "group"), optional
        Compact detail rows: one number per node (or, with ``"group"``, per
        group of ``nodes.group``), written as typed arrays; the renderer
        builds the detail panel from them (instead of ``info``).
    lists : sequence of (name, indptr, indices, labels), optional
        Compact detail rows of labels: node ``i`` shows
        ``labels[indices[indptr[i]:indptr[i + 1]]]`` joined by spaces (the
        CSR arrays of a record's items and one item-label list).

    Examples
    --------
    >>> v = GraphView(["a", "b"], [("item", "#4c72b0")], [0, 0], x=[0, 1], y=[0, 0],
    ...               edges=([0], [1], [0]), title="two items")
    >>> v.n_nodes, v.n_edges
    (2, 1)
    >>> "<script>" in v.to_html() and "cdn" not in v.to_html().lower()
    True
    >>> c = GraphView([7, 8], [("item", "#4c72b0")], [0, 0], x=[0, 1], y=[0, 0], compact=True,
    ...               columns=[("size", [3, 4])], lists=[("items", [0, 1, 3], [0, 1, 0], ["a", "b"])])
    >>> c.to_json_data()["nodes"]["label"], c.to_json_data()["nodes"]["lists"][0]["labels"]
    ({'u8': 'Bwg='}, ['a', 'b'])
    """

    def __init__(self, labels, categories, node_category, *, x=None, y=None, edges=None,
                 edge_categories=None, info=None, parent=None, collapsed=(), step=None, steps=None,
                 title: str = "", subtitle: str = "", note: str = "", compact: bool = False, columns=None,
                 lists=None) -> None:
        n = len(labels)
        cat = np.asarray(node_category, dtype=np.int64).reshape(-1)
        if cat.shape != (n,) or (n and (cat.min() < 0 or cat.max() >= len(categories))):
            raise ParameterError("node_category must give one category index per node")
        self.compact = bool(compact)
        listed = (lambda a: a) if self.compact else (lambda a: a.tolist())
        nodes: dict = {"label": [_plain(v) for v in labels], "cat": listed(cat)}
        if parent is None:
            if x is None or y is None or len(x) != n or len(y) != n:
                raise ParameterError("a view without parent needs x and y, one per node")
            nodes["x"] = listed(np.round(np.asarray(x, dtype=float), 3))
            nodes["y"] = listed(np.round(np.asarray(y, dtype=float), 3))
        else:
            nodes["parent"] = np.asarray(parent, dtype=np.int64).tolist()
        if info is not None:
            nodes["info"] = [{str(k): _plain(v) for k, v in d.items()} for d in info]
        if step is not None:
            nodes["step"] = np.asarray(step, dtype=np.int64).tolist()
        if columns:
            nodes["columns"] = [{"name": str(c[0]), "values": np.asarray(c[1]), **({"per": c[2]} if len(c) > 2 else {})}
                                for c in columns]
        if lists:
            nodes["lists"] = [{"name": str(name), "start": np.asarray(indptr, dtype=np.int64),
                               "index": np.asarray(indices, dtype=np.int64), "labels": [str(v) for v in vocab]}
                              for name, indptr, indices, vocab in lists]
        edge_arrays: tuple = edges or ((), (), ())
        src, dst, ecat = (np.asarray(e, dtype=np.int64).reshape(-1) for e in edge_arrays)
        ecats = list(edge_categories or [{"name": "edge", "color": "#999999"}])
        if not (len(src) == len(dst) == len(ecat)) or (len(src) and (
                min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n
                or ecat.min() < 0 or ecat.max() >= len(ecats))):
            raise ParameterError("edges must be (src, dst, category) arrays of node and category indices")
        self.data: dict[str, Any] = {
            "title": title, "subtitle": subtitle, "note": note, "nodes": nodes,
            "categories": [dict(c) if isinstance(c, dict) else {"name": str(c[0]), "color": c[1]}
                           for c in categories],
            "edges": {"src": listed(src), "dst": listed(dst), "cat": listed(ecat)},
            "edge_categories": ecats,
            "collapsed": [int(i) for i in collapsed],
        }
        if steps is not None:
            self.data["steps"] = [str(s) for s in steps]

    @property
    def n_nodes(self) -> int:
        """Number of nodes in the view."""
        return len(self.data["nodes"]["label"])

    @property
    def n_edges(self) -> int:
        """Number of edges in the view."""
        return len(self.data["edges"]["src"])

    def to_json_data(self) -> dict:
        """The view's data as the script reads it: numpy arrays written as base64 typed arrays (``_typed``)."""
        nodes, edges = dict(self.data["nodes"]), dict(self.data["edges"])
        for key in ("cat", "x", "y", "group"):
            if isinstance(nodes.get(key), np.ndarray):
                nodes[key] = _packed(nodes[key])
        if self.compact:
            nodes["label"] = _compact_labels(nodes["label"])
        for key in ("src", "dst", "cat"):
            if isinstance(edges[key], np.ndarray):
                edges[key] = _packed(edges[key])
        if "columns" in nodes:
            nodes["columns"] = [c | {"values": _packed(c["values"])} for c in nodes["columns"]]
        if "lists" in nodes:
            nodes["lists"] = [d | {"start": _packed(d["start"]), "index": _packed(d["index"])}
                              for d in nodes["lists"]]
        return self.data | {"nodes": nodes, "edges": edges}

    def to_json(self) -> str:
        """The view's data as JSON (what the script reads)."""
        return json.dumps(self.to_json_data(), separators=(",", ":"), allow_nan=False)

    def to_html(self) -> str:
        """A self-contained HTML page: the data and the renderer inlined, nothing loaded from the network."""
        payload = self.to_json().replace("<", "\\u003c")  # no "<" at all: a label "</script>" stays data
        script = _script().replace("</", "<\\/")
        return (
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<title>{html.escape(self.data['title'] or 'graphanon view')}</title>\n"
            "<style>html,body{margin:0;height:100%}#view{height:100vh}</style></head>\n"
            "<body><div id=\"view\"></div>\n"
            f"<script type=\"application/json\" id=\"graphanon-data\">{payload}</script>\n"
            f"<script>\n{script}\n"
            "graphanonView(document.getElementById('view'),"
            " JSON.parse(document.getElementById('graphanon-data').textContent));\n"
            "</script></body></html>\n"
        )

    def save(self, path) -> Path:
        """Write the standalone HTML file (atomically); the ending must be .html or .htm.

        Raises
        ------
        graphanon.errors.OutputError
            When the ending is not ``.html``/``.htm`` or the folder does not exist.
        """
        path = Path(check_output(path, suffixes=HTML_SUFFIXES))
        atomic_write(path, self.to_html().encode("utf-8"))
        return path

    def widget(self, height: int = 560):
        """A notebook widget showing this view (needs the ``views`` extra: anywidget)."""
        return _widget_class()(data=self.to_json(), height=height)

    def __repr__(self) -> str:
        """The title and the size."""
        return f"<GraphView {self.data['title']!r}: {self.n_nodes} nodes, {self.n_edges} edges>"


_WIDGET = None


def _widget_class():
    global _WIDGET
    if _WIDGET is None:
        try:
            import anywidget
            import traitlets
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("notebook views need anywidget: pip install 'graphanon[views]'") from exc

        class GraphWidget(anywidget.AnyWidget):
            """The notebook widget of a :class:`GraphView` (same renderer as the HTML file)."""

            _esm = _script() + (
                "\nexport default { render({ model, el }) {\n"
                "  const box = document.createElement('div');\n"
                "  box.style.height = model.get('height') + 'px'; el.appendChild(box);\n"
                "  const view = graphanonView(box, JSON.parse(model.get('data')));\n"
                "  box.addEventListener('click', () => model.set('selected', view.selected) || model.save_changes());\n"
                "} };\n"
            )
            data = traitlets.Unicode("{}").tag(sync=True)
            height = traitlets.Int(560).tag(sync=True)
            selected = traitlets.Int(-1).tag(sync=True)

        _WIDGET = GraphWidget
    return _WIDGET


# ---------------------------------------------------------------------------------------------
# builders


def _label_index(taxonomy, nodes: Iterable[Hashable], what: str) -> np.ndarray:
    pos = {v: i for i, v in enumerate(taxonomy.nodes)}
    missing = [v for v in nodes if v not in pos]
    if missing:
        raise ParameterError(f"{what}: {missing[0]!r} is not a node of the taxonomy")
    return np.asarray([pos[v] for v in nodes], dtype=np.int64)


def taxonomy_view(taxonomy, cut: Iterable[Hashable] = (), suppressed: Iterable[Hashable] = (), *,
                  data=None, title: str | None = None, absent: Iterable[Hashable] = ()) -> GraphView:
    """A taxonomy with a cut: cut nodes highlighted, suppressed ones crossed, absent ones apart, LM (and NCP) per node.

    The tree starts collapsed at the cut (what is published); the browser
    expands and collapses nodes (double-click, or the button in the detail
    panel). Each node's detail lists its leaves and its LM ``(leaves - 1) /
    (N - 1)`` (N = the taxonomy's leaves); with ``data``, also the original
    occurrences under it and, for cut nodes, their share of the recoding's
    NCP (a suppressed node costs 1 per occurrence).

    Parameters
    ----------
    taxonomy : Taxonomy
    cut, suppressed : iterables of nodes
        The full cut (suppressed and absent nodes included) and the suppressed cut nodes.
    data : TransactionData, optional
        Original data, for occurrence counts and NCP shares.
    title : str, optional
    absent : iterable of nodes
        Cut nodes with no occurrence in the data (nothing was published or
        suppressed there; :func:`classify_cut`), drawn and counted apart.

    Returns
    -------
    GraphView

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> v = taxonomy_view(load_taxonomy("liuwang_fig1"), cut=["P", "Q", "e", "i"], suppressed=["i"])
    >>> v.n_nodes, v.data["collapsed"][:2]
    (18, [1, 8])

    References
    ----------
    Liu, Wang, PAKDD 2010, Sec. 2 (cuts, IL_G / IL_S); Terrovitis et al., PVLDB 2008 (NCP).
    """
    nodes = list(taxonomy.nodes)
    pos = {v: i for i, v in enumerate(nodes)}
    cut_idx, supp_idx = _label_index(taxonomy, cut, "cut"), _label_index(taxonomy, suppressed, "suppressed")
    absent_idx = _label_index(taxonomy, absent, "absent")
    if not np.isin(supp_idx, cut_idx).all() or not np.isin(absent_idx, cut_idx).all():
        raise ParameterError("every suppressed and absent node must be a node of the cut")
    if np.isin(absent_idx, supp_idx).any():
        raise ParameterError("a node is either suppressed or absent from the data, not both")
    parent = np.array([pos[taxonomy.parent(v)] if taxonomy.parent(v) is not None else -1 for v in nodes])
    leaves = np.array([taxonomy.leaf_count(v) for v in nodes], dtype=np.int64)
    n_leaves = int(leaves[parent == -1].sum())
    lm = (leaves - 1) / max(n_leaves - 1, 1)
    category = np.zeros(len(nodes), dtype=np.int64)  # 0 above the cut
    below = np.zeros(len(nodes), dtype=bool)
    for c in cut_idx:  # preorder: a subtree is a contiguous block
        below[c + 1: c + 1 + _subtree_size(parent, c)] = True
    category[below] = 2
    category[cut_idx] = 1
    category[supp_idx] = 3
    category[absent_idx] = 4
    occurrences = None
    if data is not None:
        leaf_pos = {v: pos[v] for v in nodes if taxonomy.leaf_count(v) == 1 and not taxonomy.children(v)}
        item_support = np.asarray(data.matrix.sum(axis=0)).reshape(-1)
        occ = np.zeros(len(nodes), dtype=np.int64)
        for item, s in zip(data.items, item_support):
            p = leaf_pos.get(item)
            while p is not None and p >= 0:
                occ[p] += int(s)
                p = int(parent[p]) if parent[p] >= 0 else None
        occurrences = occ
    total_occ = int(occurrences[parent == -1].sum()) if occurrences is not None else 0
    info = []
    for i, v in enumerate(nodes):
        d = {"leaves": int(leaves[i]), "depth": taxonomy.depth(v), "LM": _rounded(lm[i], 4)}
        if occurrences is not None:
            d["occurrences"] = int(occurrences[i])
            if category[i] in (1, 3) and total_occ:
                cost = occurrences[i] * (1.0 if category[i] == 3 else lm[i])
                d["NCP share"] = _rounded(cost / total_occ, 5)
        info.append(d)
    cats = [("above the cut", "#9db4d6"), ("published cut node", "#2a7f3f"),
            ("below the cut (generalized away)", "#c8c8c8"), ("suppressed cut node", "#d62728")]
    if len(absent_idx):
        cats.append(("absent from the data (nothing to publish)", "#f2e6c9"))
    cut_set = set(cut_idx.tolist())
    n_supp = len(supp_idx)
    n_absent = f", {len(absent_idx)} absent from the data" if len(absent_idx) else ""
    sub = (f"{len(cut_idx)} cut nodes, {n_supp} suppressed{n_absent}; {len(nodes)} taxonomy nodes, "
           f"{n_leaves} leaves. Double-click a node to expand or collapse it.")
    view = GraphView(nodes, cats, category, parent=parent,
                     edges=(parent[parent >= 0], np.flatnonzero(parent >= 0), np.zeros(int((parent >= 0).sum()))),
                     edge_categories=[{"name": "parent / child", "color": "#aaaaaa"}], info=info,
                     collapsed=sorted(cut_set), title=title or "Taxonomy with its published cut", subtitle=sub)
    view.data["categories"][3]["cross"] = True
    return view


def cut_of_release(taxonomy, published: Iterable[Hashable]) -> tuple[list, list]:
    """The cut a global-recoding release shows: its published nodes, plus the unpublished parts as suppressed.

    A release names only what it publishes. Every leaf under no published
    node was suppressed -- or never occurred in the data: without the data
    the two look alike (:func:`classify_cut` tells them apart); the largest
    subtrees holding no published node are returned as the suppressed cut
    nodes (a release that suppressed two siblings separately and one that
    suppressed their parent publish the same data, and are drawn alike).

    Parameters
    ----------
    taxonomy : Taxonomy
    published : iterable of nodes
        ``[pi.label for pi in release.published_items]``.

    Returns
    -------
    cut, suppressed : list, list

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> tax = load_taxonomy("liuwang_fig1")
    >>> cut_of_release(tax, ["P", "Q", "e"])
    (['P', 'Q', 'e', 'i'], ['i'])
    """
    cut, suppressed, absent = classify_cut(taxonomy, published)
    return cut, suppressed


def classify_cut(taxonomy, published: Iterable[Hashable], present: Iterable[Hashable] | None = None
                 ) -> tuple[list, list, list]:
    """A release's cut with its unpublished nodes split: suppressed, or absent from the data.

    The unpublished part of the taxonomy (no published node at, above or
    below) falls into its largest subtrees. With ``present`` -- the items
    that occur in the data the release was made from -- a subtree holding
    one of them is *suppressed* (the release hid occurrences), one holding
    none is *absent* (there was nothing to publish); without it every such
    subtree counts as suppressed, as :func:`cut_of_release` does.

    Parameters
    ----------
    taxonomy : Taxonomy
    published : iterable of nodes
        ``[pi.label for pi in release.published_items]``.
    present : iterable of items, optional
        The data's items (``data.items``); taxonomy leaves not among them
        never occur.

    Returns
    -------
    cut, suppressed, absent : list, list, list
        The full cut (published, suppressed and absent nodes, in taxonomy
        order), the suppressed cut nodes and the absent ones.

    Notes
    -----
    Complexity: O(nodes x depth) (each published node marks its ancestors).

    Examples
    --------
    >>> from graphanon.datasets import load_taxonomy
    >>> tax = load_taxonomy("liuwang_fig1")
    >>> classify_cut(tax, ["P", "Q", "e"], present=["a", "b", "c", "d", "e", "f", "g", "h", "i"])
    (['P', 'Q', 'e', 'i'], ['i'], [])
    >>> classify_cut(tax, ["P", "Q", "e"], present=["a", "b", "c", "d", "e", "f", "g", "h"])
    (['P', 'Q', 'e', 'i'], [], ['i'])
    """
    nodes = list(taxonomy.nodes)
    pos = {v: i for i, v in enumerate(nodes)}
    pub = _label_index(taxonomy, list(published), "published")
    parent = np.array([pos[taxonomy.parent(v)] if taxonomy.parent(v) is not None else -1 for v in nodes])
    has_pub = np.zeros(len(nodes), dtype=bool)  # a published node at or below
    covered = np.zeros(len(nodes), dtype=bool)  # at or below a published node
    for c in pub:
        covered[c: c + 1 + _subtree_size(parent, c)] = True
        p = c
        while p >= 0:
            has_pub[p] = True
            p = parent[p]
    free = ~has_pub & ~covered
    roots = [i for i in range(len(nodes)) if free[i] and (parent[i] < 0 or not free[parent[i]])]
    if present is None:
        occurs = np.ones(len(nodes), dtype=bool)
    else:
        keys = {lookup_key(x) for x in present}
        occurs = np.array([bool(taxonomy.is_leaf(v)) and lookup_key(v) in keys for v in nodes])
        for i in range(len(nodes) - 1, 0, -1):  # preorder: children after their parent
            if occurs[i] and parent[i] >= 0:
                occurs[parent[i]] = True
    suppressed = [i for i in roots if occurs[i]]
    absent = [i for i in roots if not occurs[i]]
    cut = sorted(set(pub.tolist()) | set(roots))
    return [nodes[i] for i in cut], [nodes[i] for i in suppressed], [nodes[i] for i in absent]


def _subtree_size(parent: np.ndarray, v: int) -> int:
    """Descendants of ``v`` when nodes are in preorder (they follow ``v`` contiguously)."""
    size, i, n = 0, v + 1, len(parent)
    depth_ok = {v}
    while i < n and parent[i] in depth_ok:
        depth_ok.add(i)
        size += 1
        i += 1
    return size


def search_view(search, round: int = -1, *, title: str | None = None) -> GraphView:
    """The HgHs/mHgHs walk through the cut lattice, one step at a time.

    Column ``s`` holds the cut reached after ``s`` moves and, above and below
    it, the child cuts evaluated from the previous cut (sorted by cost; the
    cheapest is the one moved to). The step control replays the walk; a node's
    detail gives its cut, cost and the node it expanded.

    Parameters
    ----------
    search : HierarchySearch
        ``release.trace.search`` of :func:`~graphanon.algorithms.hierarchy.hghs.anonymize_hghs`
        or ``anonymize_mhghs``.
    round : int
        Which mHgHs round (default: the last).

    Returns
    -------
    GraphView

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> from graphanon.algorithms.hierarchy.hghs import anonymize_hghs
    >>> rel = anonymize_hghs(load("liuwang_fig1"), taxonomy=load_taxonomy("liuwang_fig1"), k=2, m=2)
    >>> v = search_view(rel.trace.search)
    >>> v.data["steps"][0]
    'start: T'

    References
    ----------
    Liu, Wang, PAKDD 2010, Sec. 4 (the greedy top-down search, Algorithm 1).
    """
    rnd = search.rounds[round]
    lattice = search.lattice(round)
    cuts = [lattice.key(c) for c in rnd.cuts()]
    labels: list = []
    category: list = []
    xs: list = []
    ys: list = []
    steps_of: list = []
    info: list = []
    src, dst, ecat = [], [], []
    path_index = []
    costs = [rnd.start_cost[0]] + [st["cost"] for st in rnd.steps]
    candidates = [st["candidates"] for st in rnd.steps] + [rnd.final_candidates]
    captions = [f"start: {CutLabel.of(cuts[0])}"]
    for st in rnd.steps:
        captions.append(f"expand {st['expanded']} -> cost {st['cost']:.4g}")
    for s, cut in enumerate(cuts):
        me = len(labels)
        path_index.append(me)
        labels.append(CutLabel.of(cut))
        category.append(2 if s == len(cuts) - 1 else 0)
        xs.append(s * 100.0)
        ys.append(0.0)
        steps_of.append(s)
        d = {"step": s, "cost": _rounded(costs[s], 6), "cut size": len(cut), "cut": " ".join(map(str, cut))}
        if s:
            d["expanded"] = str(rnd.steps[s - 1]["expanded"])
            d["suppressed"] = " ".join(map(str, rnd.steps[s - 1]["suppressed"])) or "none"
        info.append(d)
        if s:
            src.append(path_index[s - 1])
            dst.append(me)
            ecat.append(0)
    for s, cands in enumerate(candidates):
        if not cands:
            continue
        children = dict(lattice.children(cuts[s]))
        moved_to = cuts[s + 1] if s + 1 < len(cuts) else None
        ranked = sorted(cands, key=lambda c: c[1])
        offset = 0
        for node, cost, n_supp in ranked:
            child = children[node]
            if child == moved_to:
                continue
            offset += 1
            me = len(labels)
            labels.append(f"+{node}")
            category.append(1)
            xs.append((s + 1) * 100.0 - 30)
            ys.append(offset * 14.0 * (1 if offset % 2 else -1) + (14.0 if offset % 2 else 0))
            steps_of.append(s + 1 if s + 1 < len(cuts) else s)
            info.append({"evaluated at step": s, "expand": str(node), "cost": _rounded(cost, 6),
                         "suppressed nodes": int(n_supp), "cut": " ".join(map(str, child))})
            src.append(path_index[s])
            dst.append(me)
            ecat.append(1)
    n_cand = sum(len(c) for c in candidates if c)
    view = GraphView(
        labels, [("cut on the search path", "#4c72b0"), ("evaluated child cut (not taken)", "#c8c8c8"),
                 ("chosen cut", "#2a7f3f")],
        category, x=xs, y=ys, edges=(src, dst, ecat),
        edge_categories=[{"name": "move", "color": "#4c72b0"}, {"name": "evaluated", "color": "#dddddd"}],
        info=info, step=steps_of, steps=captions,
        title=title or f"Greedy search through the cut lattice (k={rnd.k}, m={rnd.m})",
        subtitle=(f"{len(cuts) - 1} moves, {n_cand} child cuts evaluated; final cost {costs[-1]:.4g}. "
                  "Use the step control to replay the walk."),
    )
    view.data["label_room"] = 160  # pixels right of the last column, for its labels (the renderer cuts longer ones)
    return view


class CutLabel:
    """Short label of a cut: its nodes joined by spaces, cut to 60 characters."""

    @staticmethod
    def of(cut: Sequence[Hashable]) -> str:
        text = " ".join(map(str, cut))
        return text if len(text) <= 60 else text[:57] + "..."


def _b64(values, dtype: str = "<i4") -> str:
    """A numeric array as base64 of its little-endian bytes (what the renderer decodes into a typed array)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype=dtype).tobytes()).decode("ascii")


def _compact_ids(ids: Sequence[Hashable]) -> dict:
    """Record ids, compactly: whole numbers as a base64 int32 array, anything else as one newline-joined string."""
    if all(isinstance(r, (int, np.integer)) and not isinstance(r, bool) for r in ids):
        a = np.asarray(ids, dtype=np.int64)
        if not len(a) or (a.min() >= -(2**31) and a.max() < 2**31):
            return {"i32": _b64(a)}
    text = [str(r) for r in ids]
    if any("\n" in t for t in text):
        raise ParameterError("record ids must not contain a line break")
    return {"text": "\n".join(text)}


_TYPE_NAMES = {"u1": "u8", "i1": "i8", "<u2": "u16", "<i2": "i16", "u24": "u24", "<i4": "i32", "<f4": "f32",
               "<f8": "f64"}


def _typed(values, dtype: str | None = None) -> dict:
    """A numeric array as ``{type: base64}``: whole numbers in the narrowest of u8, i8, u16, i16, u24, i32.

    Other numbers are written as f32 (f64 for whole numbers beyond int32). The renderer decodes it into
    the typed array of that name (``decodeTyped`` in ``_graphview.js``; u24: three little-endian bytes).
    """
    a = np.asarray(values)
    if dtype is None:
        lo, hi = (int(a.min()), int(a.max())) if len(a) and a.dtype.kind in "iub" else (0, 0)
        if a.dtype.kind not in "iub":
            dtype = "<f4"
        else:
            dtype = next((t for t, a0, a1 in (("u1", 0, 256), ("i1", -128, 128), ("<u2", 0, 2**16),
                                              ("<i2", -(2**15), 2**15), ("u24", 0, 2**24), ("<i4", -(2**31), 2**31))
                          if a0 <= lo and hi < a1), "<f8")
    if dtype == "u24":
        raw = np.ascontiguousarray(a, dtype="<u4").view(np.uint8).reshape(-1, 4)[:, :3]
        return {"u24": base64.b64encode(raw.tobytes()).decode("ascii")}
    return {_TYPE_NAMES[dtype]: _b64(a, dtype)}


def _packed(values, differences: bool = True) -> dict:
    """A numeric array in the shortest of a few encodings the renderer decodes (``decodeTyped``).

    Whole numbers: plain (:func:`_typed`); their differences (``{"d": ...}``: CSR offsets, sorted ids);
    their runs (``{"runs": values, "lengths": ...}``, when runs are few); or, sorted and non-negative,
    how many times each of 0, 1, .. occurs (``{"counts": ...}``: edges' source ends sorted by source).
    Differences and counts are themselves written in the shortest of plain and runs. Other numbers are
    quantized to 16 bits between their extremes (``{"q16", "lo", "step"}``: positions, to 1/65,535 of
    the drawing's width).
    """
    a = np.asarray(values)
    if a.dtype.kind not in "iub":
        a = a.astype(np.float64)
        lo, hi = (float(a.min()), float(a.max())) if len(a) else (0.0, 0.0)
        step = (hi - lo) / 65535 or 1.0
        return {"q16": _b64(np.round((a - lo) / step), "<u2"), "lo": lo, "step": step}
    a = a.astype(np.int64)
    options = [_typed(a)]
    if len(a) > 1 and differences:
        options.append({"d": _packed(np.diff(a, prepend=0), differences=False)})
        if a[0] >= 0 and (np.diff(a) >= 0).all() and a[-1] < 4 * len(a):  # sorted: count each value
            options.append({"counts": _packed(np.bincount(a), differences=False)})
    if len(a) > 1:
        cut = np.flatnonzero(np.diff(a)) + 1
        if len(cut) < len(a) // 8:
            starts = np.r_[0, cut]
            options.append({"runs": _typed(a[starts]), "lengths": _typed(np.diff(np.r_[starts, len(a)]))})
    return min(options, key=lambda o: len(json.dumps(o)))


def _compact_labels(labels: list):
    """Labels that are all whole numbers, or their decimal texts (record ids), as one int32 array; others as they are.

    A text counts only in its canonical form (``"7"``, not ``"07"`` or ``"+7"``): the renderer writes the
    numbers back as ``String(number)``, the same text.
    """
    if not labels:
        return labels
    try:
        a = np.asarray([int(v) for v in labels], dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        return labels
    if (a.min() < -(2**31) or a.max() >= 2**31
            or any(isinstance(v, bool) or str(int(v)) != str(v) for v in labels)):
        return labels
    return _packed(a)


_MEASURE_COLORS = ["#deebf7", "#b3d3e8", "#7fb2d8", "#4a8fc4", "#2166ac", "#0b3d75"]

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
