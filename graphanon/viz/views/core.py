"""The interactive view (:class:`GraphView`), its HTML file and notebook widget, and the compact array encodings.

:mod:`graphanon.viz.views` exports every public name; the builders of each view live beside this module in
``taxonomy`` (taxonomy and search), ``generalization``, ``similarity`` and ``constraints``.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Hashable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from graphanon.errors import ParameterError
from graphanon.readwrite.files import atomic_write, check_output

__all__ = ["HTML_SUFFIXES", "GraphView"]

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
