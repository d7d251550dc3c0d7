"""The rows of a release as plain columns (the table of :func:`graphanon.release.export.export_release`).

:func:`export_columns` gives, per release kind, the columns of the long form
(one line per row and item) or the records form (one line per row, its items
in one list cell); the forms and columns are described in
:mod:`graphanon.release.export`. Only what the release publishes is read.

References
----------
docs/export.md (the recipient's page).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError
from graphanon.release.base import Release
from graphanon.release.global_recoding import GlobalRecoding
from graphanon.release.itemsets import ItemsetRelease
from graphanon.release.local_recoding import LocalRecoding
from graphanon.release.nonreciprocal import NonreciprocalRelease
from graphanon.release.perturbed import PerturbedRelease
from graphanon.release.relational import RelationalRelease
from graphanon.release.synthetic import SyntheticRelease

__all__ = ["EXPORT_FORMS", "export_columns", "synthetic_rows"]

#: The table forms of :func:`export_columns`.
EXPORT_FORMS = ("long", "records")


def _text(values) -> np.ndarray:
    return np.array([str(v) for v in values], dtype=object)


def _long_lines(indptr: np.ndarray, indices: np.ndarray):
    """Per line of the long form: its row, and its entry position (-1 for the one line of an empty row)."""
    lengths = np.diff(indptr).astype(np.int64)
    counts = np.maximum(lengths, 1)
    rec = np.repeat(np.arange(len(lengths)), counts)
    pos = np.full(int(counts.sum()), -1, dtype=np.int64)
    pos[np.repeat(lengths > 0, counts)] = np.arange(len(indices))
    return rec, pos


def _take(names: np.ndarray, indices: np.ndarray, pos: np.ndarray) -> list:
    out = np.full(len(pos), None, dtype=object)
    has = pos >= 0
    out[has] = names[indices[pos[has]]]
    return out.tolist()


def _lists(names: np.ndarray, indptr: np.ndarray, indices: np.ndarray) -> list[list]:
    if len(indptr) <= 1:  # no rows (an empty synthetic dataset): np.split would still give one empty part
        return []
    return [part.tolist() for part in np.split(names[indices], indptr[1:-1])]


def _labels(release: Release):
    labels = getattr(release, "labels", None)
    return None if labels is None else _text(labels)


def export_columns(release: Release, form: str = "long") -> dict[str, list]:
    """The release's rows as named columns (see the module docstring for each kind's columns).

    Parameters
    ----------
    release : Release
        Any release kind.
    form : {"long", "records"}
        One line per (row, item), or one line per row with list cells.

    Returns
    -------
    dict of str to list
        Column name -> values, ready for :func:`graphanon.readwrite.tables.write_table`.

    Notes
    -----
    Complexity: O(rows + published occurrences), numpy throughout.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a", "b"], ["c"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": None})
    >>> export_columns(rel)
    {'row': ['p1', 'p2'], 'item': ['(a,b)', None]}
    >>> export_columns(rel, "records")
    {'row': ['p1', 'p2'], 'items': [['(a,b)'], []]}
    """
    if form not in EXPORT_FORMS:
        raise ParameterError(f"form must be one of {', '.join(EXPORT_FORMS)}, got {form!r}")
    rows = np.array(release.pseudonyms, dtype=object)
    labels = _labels(release)
    if isinstance(release, NonreciprocalRelease):
        return _nonreciprocal_columns(release, form, rows, labels)
    if isinstance(release, (GlobalRecoding, RelationalRelease)):
        names, matrix = _text(pi.label for pi in release.published_items), release.records
    elif isinstance(release, LocalRecoding):
        names, matrix = _text(nd.label for nd in release.nodes), release.records
    elif isinstance(release, PerturbedRelease):
        names, matrix = _text(release.items), release.records
    elif isinstance(release, SyntheticRelease):
        names, matrix = _text(release.items), synthetic_rows(release)
    elif isinstance(release, ItemsetRelease):
        names, matrix = _text(release.items), release.itemsets
    else:
        raise ParameterError(f"cannot export a release of kind {release.kind!r}")
    support = release.supports if isinstance(release, ItemsetRelease) else None
    matrix = sp.csr_array(matrix)
    matrix.sort_indices()
    indptr, indices = matrix.indptr, matrix.indices
    copies = matrix.data.astype(np.int64) if isinstance(release, LocalRecoding) else None
    out: dict[str, list] = {}
    relational = _relational_columns(release) if isinstance(release, RelationalRelease) else {}
    if form == "long":
        rec, pos = _long_lines(indptr, indices)
        out["row"] = rows[rec].tolist()
        out.update({name: values[rec].tolist() for name, values in relational.items()})
        out["item"] = _take(names, indices, pos)
        if copies is not None:
            out["copies"] = np.where(pos >= 0, copies[np.maximum(pos, 0)], 0).tolist()
        if support is not None:
            out["support"] = support[rec].tolist()
        if labels is not None:
            out["label"] = labels[rec].tolist()
        return out
    out["row"] = rows.tolist()
    out.update({name: values.tolist() for name, values in relational.items()})
    if copies is not None:  # a node held c times is listed c times
        indptr = np.concatenate([[0], np.cumsum(copies)])[indptr]
        indices = np.repeat(indices, copies)
    out["items"] = _lists(names, indptr, indices)
    if support is not None:
        out["support"] = support.tolist()
    if labels is not None:
        out["label"] = labels.tolist()
    return out


_RESERVED = frozenset({"row", "item", "items", "copies", "label"})


def _relational_columns(release: RelationalRelease) -> dict[str, np.ndarray]:
    """Per quasi-identifier, the rows' generalized values (``qi_`` before a reserved column name)."""
    return {(f"qi_{name}" if name in _RESERVED else name): np.array(release.values[c], dtype=object)[release.relational[:, c]]
            for c, name in enumerate(release.qi)}


def synthetic_rows(release: SyntheticRelease) -> sp.csr_array:
    """The synthetic dataset's rows: each published itemset repeated by its (noisy) count."""
    return sp.csr_array(release.itemsets[np.repeat(np.arange(len(release.counts)), release.counts)])


def _nonreciprocal_columns(release: NonreciprocalRelease, form: str, rows: np.ndarray, labels) -> dict[str, list]:
    names = _text(release.items)
    base, distance = release.base, release.distance
    threshold = np.asarray(release.threshold, dtype=np.int64)
    out: dict[str, list] = {}
    if form == "records":
        out["row"] = rows.tolist()
        out["base"] = _lists(names, base.indptr, base.indices)
        out["distance"] = _lists(names, distance.indptr, distance.indices)
        out["threshold"] = threshold.tolist()
    else:
        # 1 = in the base, 2 = a distance position, 3 = both
        both = sp.csr_array(base.astype(np.int8) + 2 * distance.astype(np.int8))
        both.sort_indices()
        rec, pos = _long_lines(both.indptr, both.indices)
        code = np.where(pos >= 0, both.data[np.maximum(pos, 0)], 0).astype(np.int64)
        out["row"] = rows[rec].tolist()
        out["item"] = _take(names, both.indices, pos)
        out["base"] = (code & 1).tolist()
        out["distance"] = (code >> 1).tolist()
        out["threshold"] = threshold[rec].tolist()
        labels = None if labels is None else labels[rec]
    if labels is not None:
        out["label"] = labels.tolist()
    return out
