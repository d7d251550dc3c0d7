"""Missing sensitive labels: an error by default, never silently a label of their own.

A labelled file in which some records have an empty or NA sensitive value
used to be read with ``''`` as one more label: it then counted as one of the
``l`` distinct labels of an l-diverse release, which promises a diversity the
data does not have. :func:`resolve_missing_labels` applies one of three
policies (``missing_label=`` of the readers, ``--missing-label`` on the
command line):

``"error"`` (the default)
    Refuse the data, naming how many records lack a label and the first ones.
``"drop"``
    Leave those records out (and the items only they held); the caller
    reports how many were dropped.
``"as-value"``
    Keep the text as it is: an empty or NA label is a label like any other
    (the old behaviour, for data where ``NA`` is a real value).

A label is missing when it is empty or one of :data:`NA_LABELS` (the NA
spellings pandas and R read as missing), after trimming white space.

Examples
--------
>>> from graphanon.data import from_iterable
>>> data = from_iterable([["a"], ["b"], ["a", "b"]], labels=["flu", "", "NA"])
>>> kept, dropped = resolve_missing_labels(data, "drop")
>>> kept.labels, dropped
(('flu',), 2)
>>> resolve_missing_labels(data, "error", source="x.csv", column="dx")
Traceback (most recent call last):
...
graphanon.errors.DataFormatError: x.csv: 2 of 3 records have no sensitive label in column 'dx' (empty or NA), e.g. records '1', '2'; fill them in, or pass missing_label='drop' to leave them out or missing_label='as-value' to keep the text as a label
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from graphanon.errors import DataFormatError, ParameterError
from graphanon.readwrite.text import say_option

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["MISSING_LABEL_POLICIES", "NA_LABELS", "missing_label_mask", "resolve_missing_labels"]

#: What ``missing_label=`` accepts.
MISSING_LABEL_POLICIES = ("error", "drop", "as-value")
#: Label texts read as missing (with the empty text), as pandas' and R's CSV readers do.
NA_LABELS = ("NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "None", "<NA>", "#N/A")


def missing_label_mask(labels) -> np.ndarray:
    """True where a label is missing: None, empty or NA text (:data:`NA_LABELS`) after trimming.

    Complexity: O(records), vectorized over the labels as text.

    Examples
    --------
    >>> missing_label_mask(["a", " ", "NA", None, "n/a ", "0"]).tolist()
    [False, True, True, True, True, False]
    """
    text = np.array(["" if x is None else str(x) for x in labels], dtype=str)
    text = np.char.strip(text) if text.size else text
    return (text == "") | np.isin(text, NA_LABELS)


def resolve_missing_labels(data: TransactionData, policy: str = "error", *, source: str = "<data>",
                           column: str | None = "label",
                           option_names: Mapping[str, str] | None = None) -> tuple[TransactionData, int]:
    """Apply a missing-label policy to labelled data (module docstring).

    Parameters
    ----------
    data : TransactionData
        Data with or without labels (without: returned as is).
    policy : {"error", "drop", "as-value"}
    source, column : str
        The file and label column, for the message.
    option_names : mapping, optional
        How the message names ``missing_label`` (the command line passes
        ``{"missing_label": "--missing-label"}``).

    Returns
    -------
    (TransactionData, int)
        The data to use and the number of records dropped (0 unless ``"drop"``).

    Raises
    ------
    DataFormatError
        With ``"error"``: the count of records without a label and the first
        five record ids.
    ParameterError
        An unknown policy.

    Notes
    -----
    Complexity: O(records + occurrences).
    """
    if policy not in MISSING_LABEL_POLICIES:
        raise ParameterError(f"{say_option(option_names, 'missing_label', str(policy))}: use one of "
                             f"{', '.join(MISSING_LABEL_POLICIES)}")
    if data.labels is None or policy == "as-value":
        return data, 0
    missing = missing_label_mask(data.labels)
    n_missing = int(missing.sum())
    if not n_missing:
        return data, 0
    if policy == "error":
        first = ", ".join(repr(str(data.record_ids[i])) for i in np.flatnonzero(missing)[:5])
        where = f" in column {column!r}" if column else ""
        raise DataFormatError(
            f"{source}: {n_missing} of {data.n_records} records have no sensitive label{where} (empty or NA), "
            f"e.g. records {first}; fill them in, or pass {say_option(option_names, 'missing_label', 'drop')} to "
            f"leave them out or {say_option(option_names, 'missing_label', 'as-value')} to keep the text as a label"
        )
    if n_missing == data.n_records:
        raise DataFormatError(f"{source}: none of the {data.n_records} records has a sensitive label; nothing is "
                              "left after dropping them")
    # an item only dropped records held leaves the vocabulary: it would otherwise name a dropped person's item
    return data.subset(np.flatnonzero(~missing)).drop_unused_items(), n_missing
