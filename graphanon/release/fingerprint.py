"""Fingerprint of the data a release was made from, and the check that uses it.

A release records a *salted digest* of its original data so that ``audit``
and ``evaluate`` can refuse to compare it with other data (a shuffled copy
is the same data; another dataset of the same size, or one changed record,
is not). The digest is SHA-256 over the canonical multiset of records -- each
record as the sorted list of its item labels (as text), the records sorted --
together with the item vocabulary and the counts, keyed by a random salt
drawn for each release.

What it reveals: the counts (records, items, occurrences) in clear, which
the release shows anyway. The digest lets someone who already holds the
exact full dataset confirm that it is the source; the salt stops anyone from
precomputing or comparing digests across releases. It does not help with
anything else -- but note that an adversary who knows every record but one
can test guesses of the last one against it (that adversary already learns
much more from the release itself). See ``docs/privacy.md``.

Examples
--------
>>> from graphanon.data import from_iterable
>>> a = from_iterable([["x", "y"], ["y"]])
>>> b = from_iterable([["y"], ["y", "x"]])          # the same records, shuffled
>>> data_fingerprint(a, salt="00")["digest"] == data_fingerprint(b, salt="00")["digest"]
True
>>> data_fingerprint(a, salt="00")["digest"] == data_fingerprint(a, salt="01")["digest"]
False
"""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import canonical_row_order, row_hashes
from graphanon.errors import DataMismatchError, ReleaseFormatError

__all__ = ["FINGERPRINT_KEYS", "check_same_data", "data_fingerprint", "ordered_digest", "same_fingerprint"]

FINGERPRINT_KEYS = ("salt", "digest", "records", "items", "occurrences")
_DOMAIN = b"graphanon-data-fingerprint/1\0"
_CHUNK_ROWS = 1 << 16  # rows hashed at a time (the digest does not depend on it)


def data_fingerprint(data, *, salt: str) -> dict:
    """The salted, order-independent fingerprint of ``data``.

    Parameters
    ----------
    data : TransactionData
    salt : str
        Hexadecimal salt (a release draws 16 random bytes).

    Returns
    -------
    dict
        ``{"salt", "digest", "records", "items", "occurrences"}``.

    Notes
    -----
    Complexity: O(occurrences + n log n + d log d): canonical item ranks, rows sorted by
    a vectorized set hash, one SHA-256 pass over the canonical arrays.
    """
    X, rank, vocabulary = _canonical(data)
    order = canonical_row_order(X, row_hashes(X, relabel=rank)) if X.shape[0] else None
    h = _hasher(_DOMAIN, salt, X, rank, vocabulary, order)
    n, d = X.shape
    return {"salt": salt, "digest": h.hexdigest(), "records": int(n), "items": int(d), "occurrences": int(X.nnz)}


def ordered_digest(data, *, salt: str) -> str:
    """Salted SHA-256 of ``data`` *in its order*, record ids included.

    The private link stores it to tell whether data given back to it holds
    the same records under the same ids (a re-read file whose lines were
    shuffled keeps positional ids but not their records).
    """
    X, rank, vocabulary = _canonical(data)
    h = _hasher(b"graphanon-ordered-data/1\0", salt, X, rank, vocabulary)
    ids = data.record_ids
    # json.dumps(list_of_ids) fed to the hash a run of ids at a time: the same bytes, no list of all of them
    h.update(b"[")
    for a in range(0, len(ids), _CHUNK_ROWS):
        h.update(((", " if a else "") + _json_strings(ids[a : a + _CHUNK_ROWS])).encode("utf-8"))
    h.update(b"]")
    return h.hexdigest()


#: the characters ``json.dumps(text, ensure_ascii=False)`` escapes (``json.encoder.ESCAPE``)
_JSON_ESCAPED = re.compile(r'[\x00-\x1f\\"]')


def _json_strings(values) -> str:
    """``", ".join(json.dumps(str(v), ensure_ascii=False) for v in values)``, without a call per value.

    When no text needs escaping (ids are usually numbers or plain names), every value's JSON is
    its text in quotes, so one join makes the whole run; otherwise each value goes through
    ``json.dumps``.

    Examples
    --------
    >>> _json_strings([0, "a b", "é"])
    '"0", "a b", "é"'
    >>> _json_strings(['say "hi"', 7]) == ", ".join(json.dumps(str(v), ensure_ascii=False) for v in ['say "hi"', 7])
    True
    """
    texts = list(map(str, values))
    if _JSON_ESCAPED.search("".join(texts)) is None:
        return '"' + '", "'.join(texts) + '"' if texts else ""
    return ", ".join(json.dumps(t, ensure_ascii=False) for t in texts)


def _canonical(data) -> tuple[sp.csr_array, np.ndarray, list[str]]:
    """The records, each item's rank in label text order, and the sorted labels.

    The canonical records are the records with item ``j`` renamed ``rank[j]``
    and each row sorted; :func:`_hasher` builds them a run of rows at a time.
    """
    X = sp.csr_array(data.matrix)
    d = X.shape[1]
    text = np.array([str(x) for x in data.items], dtype=object)
    by_text = np.argsort(text, kind="stable") if d else np.zeros(0, dtype=np.int64)
    rank = np.empty(d, dtype=np.int64)
    rank[by_text] = np.arange(d)
    return X, rank, [str(t) for t in text[by_text]]


def _hasher(domain: bytes, salt: str, X: sp.csr_array, rank: np.ndarray, vocabulary: list[str],
            order: np.ndarray | None = None):
    """SHA-256 of the domain, salt, counts, vocabulary, row lengths and ranks of the canonical records in ``order``.

    The canonical records (:func:`_canonical`) are built and fed
    ``_CHUNK_ROWS`` rows at a time as little-endian int64 (SHA-256 of a
    concatenation equals the hash fed piece by piece), so the memory is one
    run's copy, not a renamed copy of every occurrence.
    """
    try:
        salt_bytes = bytes.fromhex(salt)
    except (TypeError, ValueError):
        raise ReleaseFormatError(f"fingerprint salt must be hexadecimal text, got {salt!r}") from None
    h = hashlib.sha256(domain)
    h.update(salt_bytes)
    h.update(np.array([X.shape[0], X.shape[1], X.nnz], dtype="<i8").tobytes())
    h.update(json.dumps(vocabulary, ensure_ascii=False).encode("utf-8"))
    n = X.shape[0]
    lengths = np.diff(X.indptr)
    if order is not None:
        lengths = lengths[order]
    for a in range(0, n, _CHUNK_ROWS):
        h.update(lengths[a : a + _CHUNK_ROWS].astype("<i8").tobytes())
    ptr = X.indptr
    for a in range(0, n, _CHUNK_ROWS):
        if order is None:
            b = min(n, a + _CHUNK_ROWS)
            cols, part_ptr = X.indices[int(ptr[a]) : int(ptr[b])], ptr[a : b + 1] - ptr[a]
        else:
            part = sp.csr_array(X[order[a : a + _CHUNK_ROWS]])
            cols, part_ptr = part.indices, part.indptr
        canon = sp.csr_array((np.ones(len(cols), dtype=bool), rank[cols], part_ptr), shape=(len(part_ptr) - 1, X.shape[1]))
        canon.sort_indices()  # each record: its labels in text order
        h.update(canon.indices.astype("<i8").tobytes())
    return h


def same_fingerprint(a: dict | None, b: dict | None) -> bool:
    """Whether two recorded fingerprints are the same one (same salt and digest)."""
    return a is not None and b is not None and a.get("salt") == b.get("salt") and a.get("digest") == b.get("digest")


def _counts(fp: dict) -> str:
    return f"{fp['records']} records, {fp['items']} items, {fp['occurrences']} item occurrences"


def check_same_data(original, release) -> bool:
    """Raise :class:`~graphanon.errors.DataMismatchError` unless ``release`` was made from ``original``.

    The comparison is order-independent: the same records in another order
    match; another dataset of the same size, or one changed record, do not.

    Parameters
    ----------
    original : TransactionData
    release : Release or dict
        A release (its ``fingerprint``) or a fingerprint dict.

    Returns
    -------
    bool
        True when the fingerprint matched; False when the release carries
        none (a hand-made release), so there is nothing to check.

    Raises
    ------
    DataMismatchError
        When the counts or the digest differ.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> fp = data_fingerprint(from_iterable([["a"], ["a", "b"]]), salt="ab")
    >>> check_same_data(from_iterable([["b", "a"], ["a"]]), fp)
    True
    >>> check_same_data(from_iterable([["b"], ["a", "b"]]), fp)
    Traceback (most recent call last):
    ...
    graphanon.errors.DataMismatchError: the release was not made from this data: same counts (2 records, 2 items, 3 item occurrences) but different records; ...
    """
    fp = release if isinstance(release, dict) or release is None else release.fingerprint
    if fp is None:
        return False
    missing = [key for key in FINGERPRINT_KEYS if key not in fp]
    if missing:
        raise ReleaseFormatError(f"the release's data fingerprint has no {missing[0]!r} field")
    mine = data_fingerprint(original, salt=fp["salt"])
    advice = "audit or evaluate a release against the data it was made from (or pass --allow-mismatch)"
    if any(mine[key] != fp[key] for key in ("records", "items", "occurrences")):
        raise DataMismatchError(
            f"the release was not made from this data: it was made from {_counts(fp)}, the data has "
            f"{_counts(mine)}; {advice}"
        )
    if mine["digest"] != fp["digest"]:
        raise DataMismatchError(
            f"the release was not made from this data: same counts ({_counts(mine)}) but different records; {advice}"
        )
    return True
