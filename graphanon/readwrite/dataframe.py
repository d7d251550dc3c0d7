"""pandas DataFrames to and from transaction data: long format (``tid``, ``item``) or a list column.

:func:`from_dataframe` reads records as :func:`graphanon.data.from_iterable`
does (item labels are text), with the item-cell rule of the long CSV reader
and the missing-label policy of :mod:`graphanon.readwrite.missing`;
:func:`to_dataframe` writes the long format. Both are importable from
:mod:`graphanon.data`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from graphanon.errors import DataFormatError
from graphanon.readwrite.missing import resolve_missing_labels

if TYPE_CHECKING:
    from graphanon.data import (
        TransactionData,  # data imports these converters: for the checker only
    )

__all__ = ["from_dataframe", "to_dataframe"]


def from_dataframe(
    df,
    *,
    tid: str | None = "tid",
    item: str | None = "item",
    items_column: str | None = None,
    label: str | None = None,
    name: str | None = None,
    missing_label: str = "error",
) -> TransactionData:
    """Build data from a pandas DataFrame, long format or list-column format.

    Long format (default): one row per ``(tid, item)`` pair. List-column
    format (``items_column=...``): one row per record, the column holding a
    list/set of items; the index gives the record ids. Items follow
    :func:`from_iterable`: text, or integers standing for their text; a float
    column (pandas turns integers with missing values into floats) is an
    error, because ``250.0`` has no obvious text form: convert the column to
    ``str`` first (missing values are skipped).

    In long format the item cells follow the rule of
    :func:`graphanon.readwrite.long_csv.read_long_csv`: text is stripped of
    surrounding white space, and a missing (None, NaN) or blank cell adds no
    item, so a record with only such rows is an empty record (a CSV row
    ``tid,`` is the same record).

    A ``label`` cell that is missing (None, NaN, blank or NA text) follows
    ``missing_label``: ``"error"`` (the default) refuses the frame with the
    count, ``"drop"`` leaves those records out, ``"as-value"`` keeps the text
    (:mod:`graphanon.readwrite.missing`).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"tid": [1, 1, 2], "item": ["a", "b", "a"]})
    >>> from_dataframe(df).n_records
    2
    >>> data = from_dataframe(pd.DataFrame({"tid": [1, 1, 2], "item": [" a ", "b", ""]}))
    >>> data.items, data.n_records, sorted(data.record(1))
    (('a', 'b'), 2, [])
    """
    from graphanon.data import from_iterable

    if items_column is not None:
        if items_column not in df.columns:
            raise DataFormatError(f"no column {items_column!r} in the DataFrame ({list(df.columns)})")
        recs: list[list] = []
        for pos, value in enumerate(df[items_column]):
            if value is None or (isinstance(value, float) and np.isnan(value)):
                recs.append([])
            elif isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise DataFormatError(
                    f"row {pos} of column {items_column!r} is {value!r}, not a list of items"
                )
            else:
                recs.append(list(value))
        labelled = [_label_cell(x) for x in df[label]] if label else None
        return _missing(from_iterable(recs, record_ids=list(df.index), labels=labelled, name=name), missing_label, label)
    for col in (tid, item) + ((label,) if label else ()):
        if col not in df.columns:
            raise DataFormatError(
                f"no column {col!r} in the DataFrame ({list(df.columns)}); pass tid=, item= "
                f"or items_column= for list-column data"
            )
    records: dict = {}
    labels: dict = {}
    for pos, (t, it) in enumerate(zip(df[tid], df[item])):
        rec = records.setdefault(t, [])
        if isinstance(it, str):
            it = it.strip()
        if it is not None and it != "" and not (isinstance(it, float) and np.isnan(it)):
            rec.append(it)
        if label:
            lab = _label_cell(df[label].iloc[pos])
            if labels.setdefault(t, lab) != lab:
                raise DataFormatError(f"record {t!r} has two sensitive labels ({labels[t]!r}, {lab!r})")
    ids = list(records)
    data = from_iterable(
        (records[t] for t in ids),
        record_ids=ids,
        labels=[labels[t] for t in ids] if label else None,
        name=name,
    )
    return _missing(data, missing_label, label)


def _label_cell(value):
    """A DataFrame label cell, NaN (pandas' missing value) read as None so that two missing cells are equal."""
    return None if isinstance(value, float) and np.isnan(value) else value


def _missing(data: TransactionData, policy: str, column: str | None) -> TransactionData:
    return resolve_missing_labels(data, policy, source="the DataFrame", column=column)[0]


def to_dataframe(data: TransactionData):
    """Long-format DataFrame (``tid``, ``item``) of the data."""
    import pandas as pd

    m = data.matrix
    rows = np.repeat(np.arange(data.n_records), np.diff(m.indptr))
    return pd.DataFrame(
        {
            "tid": [data.record_ids[r] for r in rows],
            "item": [data.items[j] for j in m.indices],
        }
    )
