"""The canonical form of transaction data that fingerprints and ledgers hash: labels as text, in text order.

:func:`canonical_vocabulary` ranks the item labels in text order;
:func:`canonical_rows` renames each record's items by that rank and sorts
them, so that two copies of the same data, read with their items in any
order, give the same rows. :func:`json_strings` writes runs of record ids as
JSON text, as the ordered digest hashes them
(:mod:`graphanon.release.fingerprint`). :func:`data_counts` are the counts
of the data a private link keeps (never published).
"""

from __future__ import annotations

import json
import re

import numpy as np
import scipy.sparse as sp

__all__ = ["COUNT_KEYS", "canonical_rows", "canonical_vocabulary", "count_dict", "data_counts", "json_strings"]

#: The private counts the link keeps beside the key (for a mismatch message that says what differs).
COUNT_KEYS = ("records", "items", "occurrences")


#: the characters ``json.dumps(text, ensure_ascii=False)`` escapes (``json.encoder.ESCAPE``)
_JSON_ESCAPED = re.compile(r'[\x00-\x1f\\"]')


def json_strings(values, sep: str = ", ") -> str:
    """``sep.join(json.dumps(str(v), ensure_ascii=False) for v in values)``, without a call per value.

    When no text needs escaping (ids are usually numbers or plain names), every value's JSON is
    its text in quotes, so one join makes the whole run; otherwise each value goes through
    ``json.dumps``.

    Examples
    --------
    >>> json_strings([0, "a b", "é"])
    '"0", "a b", "é"'
    >>> json_strings(['say "hi"', 7]) == ", ".join(json.dumps(str(v), ensure_ascii=False) for v in ['say "hi"', 7])
    True
    """
    texts = list(map(str, values))
    if _JSON_ESCAPED.search("".join(texts)) is None:
        return '"' + f'"{sep}"'.join(texts) + '"' if texts else ""
    return sep.join(json.dumps(t, ensure_ascii=False) for t in texts)


def canonical_vocabulary(items) -> tuple[np.ndarray, list[str]]:
    """Each item's rank in label text order, and the labels as text in that order.

    Examples
    --------
    >>> rank, vocabulary = canonical_vocabulary(["b", 10, "a"])
    >>> rank.tolist(), vocabulary
    ([2, 0, 1], ['10', 'a', 'b'])
    """
    text = np.array([str(x) for x in items], dtype=object)
    d = len(text)
    by_text = np.argsort(text, kind="stable") if d else np.zeros(0, dtype=np.int64)
    rank = np.empty(d, dtype=np.int64)
    rank[by_text] = np.arange(d)
    return rank, [str(t) for t in text[by_text]]


def canonical_rows(part, rank: np.ndarray) -> sp.csr_array:
    """The records ``part`` with item ``j`` renamed ``rank[j]``, each row's items sorted (int64 indices).

    What the fingerprint hashes, a run of records at a time (also run by
    Dask workers on their blocks).
    """
    part = sp.csr_array(part)
    cols, ptr = part.indices, part.indptr
    canon = sp.csr_array((np.ones(len(cols), dtype=bool), rank[cols], ptr - ptr[0]), shape=part.shape)
    canon.sort_indices()  # each record: its labels in text order
    return canon


def count_dict(shape: tuple[int, int], nnz: int) -> dict:
    """The private counts (:data:`COUNT_KEYS`) of records of ``shape`` holding ``nnz`` item occurrences."""
    return {"records": int(shape[0]), "items": int(shape[1]), "occurrences": int(nnz)}


def data_counts(data) -> dict:
    """``{"records", "items", "occurrences"}`` of ``data``: private, kept in the link, never published.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> data_counts(from_iterable([["a"], ["a", "b"]]))
    {'records': 2, 'items': 2, 'occurrences': 3}
    """
    return count_dict((data.n_records, len(data.items)), data.matrix.nnz)
