"""What the release kinds share besides :class:`~graphanon.release.base.Release`.

The JSON forms of labels, published items and parameters a release file
stores, the reader of a (plain or gzip-compressed) JSON file, the row
permutation a publication applies, and the match graph every kind builds
against the original data.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from graphanon.errors import (
    ParameterError,
    ReleaseFormatError,
)

if TYPE_CHECKING:
    pass
__all__ = ["json_items", "json_label", "json_labels", "json_params", "match_digraph", "permute_rows", "read_json_file"]


def json_label(label: Hashable, what: str = "label") -> Any:
    """A label as a JSON value (str or int); raises for anything else."""
    if isinstance(label, (bool, np.bool_)):
        raise ReleaseFormatError(f"{what} {label!r} is a bool; releases store str or int labels")
    if isinstance(label, (int, np.integer)):
        return int(label)
    if isinstance(label, str):
        return label
    raise ReleaseFormatError(f"{what} {label!r} is a {type(label).__name__}; releases store str or int labels")


def json_items(items, what: str) -> list[dict]:
    """Published items (or nodes) with ``label``, ``members`` and ``leaves`` as JSON objects."""
    return [
        {
            "label": json_label(it.label, what),
            "members": [json_label(m, "item") for m in it.members],
            "leaves": it.leaves,
        }
        for it in items
    ]


def json_labels(labels) -> list | None:
    """Per-row sensitive labels as JSON values (None when the release has none)."""
    return None if labels is None else [json_label(x, "sensitive label") for x in labels]


def permute_rows(records, labels, order: np.ndarray):
    """``records`` (sparse, rows) and ``labels`` (or None) in the row order ``order``."""
    order = np.asarray(order, dtype=np.int64)
    out = sp.csr_array(records[order])
    out.sort_indices()
    return out, (None if labels is None else tuple(labels[int(i)] for i in order))


def match_digraph(n_original: int, n_published: int, edges, *, n_edges: int, max_edges: int, note: str = ""):
    """The match graph: a bipartite :class:`networkx.DiGraph` ``("orig", i) -> ("pub", j)``.

    Parameters
    ----------
    n_original, n_published : int
        Node counts of the two sides (every node is present, matched or not).
    edges : iterable of (int, int)
        The pairs ``(i, j)``.
    n_edges : int
        Their number, known before they are listed (an iterable is not consumed to count it).
    max_edges, note :
        More than ``max_edges`` edges raise a :class:`~graphanon.errors.ParameterError`
        (``note`` says why the graph is large).
    """
    import networkx as nx

    if n_edges > max_edges:
        raise ParameterError(
            f"the match graph would have {n_edges} edges{note} (> max_edges={max_edges}); "
            "use match_counts() or raise max_edges"
        )
    g = nx.DiGraph()
    g.add_nodes_from((("orig", i) for i in range(n_original)), bipartite=0)
    g.add_nodes_from((("pub", j) for j in range(n_published)), bipartite=1)
    g.add_edges_from((("orig", int(i)), ("pub", int(j))) for i, j in edges)
    return g


def json_params(params: dict) -> dict:
    """Parameters reduced to JSON-safe values (numbers, strings, lists)."""
    out = {}
    for key, value in params.items():
        if isinstance(value, (np.integer,)):
            value = int(value)
        elif isinstance(value, (np.floating,)):
            value = float(value)
        elif isinstance(value, (set, frozenset, tuple)):
            value = [json_params({"v": v})["v"] for v in value]
        elif isinstance(value, list):
            value = [json_params({"v": v})["v"] for v in value]
        elif isinstance(value, dict):
            value = json_params(value)
        elif value is not None and not isinstance(value, (int, float, str, bool)):
            value = repr(value)
        out[str(key)] = value
    return out


def read_json_file(path: Path, what: str):
    """The JSON document in ``path`` (plain or gzip-compressed); ``what`` names the file kind in errors."""
    if not path.exists():
        raise ReleaseFormatError(f"{path}: no such {what} file")
    try:
        raw = path.read_bytes()
        return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw.decode("utf-8"))
    except (OSError, ValueError, EOFError) as exc:
        raise ReleaseFormatError(f"{path}: not a readable {what} file ({exc})") from None
