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

__all__ = [
    "FINGERPRINT_KEYS", "canonical_rows", "canonical_vocabulary", "check_same_data", "data_fingerprint",
    "fingerprint_from_parts", "json_strings", "ordered_digest", "ordered_digest_from_parts", "same_fingerprint",
]

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
    lengths, rows = _pieces(X, rank, order)
    return fingerprint_from_parts(salt=salt, shape=X.shape, vocabulary=vocabulary, lengths=lengths, rows=rows)


def fingerprint_from_parts(*, salt: str, shape: tuple[int, int], vocabulary: list[str], lengths, rows) -> dict:
    """:func:`data_fingerprint` of records given in pieces, in their canonical order.

    Parameters
    ----------
    salt : str
        Hexadecimal salt.
    shape : (int, int)
        Records and items.
    vocabulary : list of str
        The item labels as text, sorted (:func:`canonical_vocabulary`).
    lengths : iterable of int arrays
        The record lengths in canonical order (rows sorted by
        :func:`graphanon.counting.rows.row_hashes` of the records renamed
        by label rank, then length, then position), in consecutive runs.
    rows : iterable of int arrays
        The records' :func:`canonical_rows` in the same order, concatenated
        in consecutive runs (any cut).

    Returns
    -------
    dict
        As :func:`data_fingerprint`; equal to it for the same records.

    Notes
    -----
    What a writer uses when the records are on Dask workers: it gathers
    the per-row hashes (16 bytes a record), sorts them, and streams the
    records in that order; SHA-256 fed in pieces equals SHA-256 of their
    concatenation.
    """
    h, nnz = _hasher(_DOMAIN, salt, shape, vocabulary, lengths, rows)
    return {"salt": salt, "digest": h.hexdigest(), "records": int(shape[0]), "items": int(shape[1]),
            "occurrences": nnz}


def ordered_digest(data, *, salt: str) -> str:
    """Salted SHA-256 of ``data`` *in its order*, record ids included.

    The private link stores it to tell whether data given back to it holds
    the same records under the same ids (a re-read file whose lines were
    shuffled keeps positional ids but not their records).
    """
    X, rank, vocabulary = _canonical(data)
    ids = data.record_ids
    lengths, rows = _pieces(X, rank)
    # json.dumps(list_of_ids) fed to the hash a run of ids at a time: the same bytes, no list of all of them
    id_runs = (json_strings(ids[a : a + _CHUNK_ROWS]) for a in range(0, len(ids), _CHUNK_ROWS))
    return ordered_digest_from_parts(salt=salt, shape=X.shape, vocabulary=vocabulary, lengths=lengths, rows=rows,
                                     id_runs=id_runs)


def ordered_digest_from_parts(*, salt: str, shape: tuple[int, int], vocabulary: list[str], lengths, rows,
                              id_runs) -> str:
    """:func:`ordered_digest` of records given in pieces, in their order.

    ``lengths`` and ``rows`` as for :func:`fingerprint_from_parts` but in
    the data's order; ``id_runs`` the record ids as consecutive non-empty
    runs of :func:`json_strings` text.
    """
    h, _ = _hasher(b"graphanon-ordered-data/1\0", salt, shape, vocabulary, lengths, rows)
    h.update(b"[")
    for i, run in enumerate(id_runs):
        h.update(((", " if i else "") + run).encode("utf-8"))
    h.update(b"]")
    return h.hexdigest()


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


def _canonical(data) -> tuple[sp.csr_array, np.ndarray, list[str]]:
    """The records, each item's rank in label text order, and the sorted labels.

    The canonical records are the records with item ``j`` renamed ``rank[j]``
    and each row sorted; :func:`_hasher` builds them a run of rows at a time.
    """
    rank, vocabulary = canonical_vocabulary(data.items)
    return sp.csr_array(data.matrix), rank, vocabulary


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


def _pieces(X: sp.csr_array, rank: np.ndarray, order: np.ndarray | None = None):
    """The record lengths and :func:`canonical_rows` of ``X`` in ``order`` (default: as stored), ``_CHUNK_ROWS`` at a time."""
    n = X.shape[0]
    lengths = np.diff(X.indptr)
    if order is not None:
        lengths = lengths[order]
    ptr = X.indptr

    def rows():
        for a in range(0, n, _CHUNK_ROWS):
            if order is None:
                b = min(n, a + _CHUNK_ROWS)
                cols, part_ptr = X.indices[int(ptr[a]) : int(ptr[b])], ptr[a : b + 1] - ptr[a]
                part = sp.csr_array((np.ones(len(cols), dtype=bool), cols, part_ptr), shape=(b - a, X.shape[1]))
            else:
                part = sp.csr_array(X[order[a : a + _CHUNK_ROWS]])
            yield canonical_rows(part, rank).indices

    return (lengths[a : a + _CHUNK_ROWS] for a in range(0, n, _CHUNK_ROWS)), rows()


def _hasher(domain: bytes, salt: str, shape: tuple[int, int], vocabulary: list[str], lengths, rows):
    """SHA-256 of the domain, salt, counts, vocabulary, row lengths and ranks of the canonical records, and the occurrences.

    ``lengths`` and ``rows`` come in runs (:func:`_pieces`: ``_CHUNK_ROWS``
    rows at a time, or gathered from Dask workers), fed as little-endian
    int64 (SHA-256 of a concatenation equals the hash fed piece by piece),
    so the memory is one run's copy, not a renamed copy of every
    occurrence. The lengths come first, so they are held until the
    occurrence count (their sum) is known.
    """
    try:
        salt_bytes = bytes.fromhex(salt)
    except (TypeError, ValueError):
        raise ReleaseFormatError(f"fingerprint salt must be hexadecimal text, got {salt!r}") from None
    runs = [np.asarray(run).astype("<i8") for run in lengths]
    nnz = int(sum(int(run.sum()) for run in runs))
    h = hashlib.sha256(domain)
    h.update(salt_bytes)
    h.update(np.array([shape[0], shape[1], nnz], dtype="<i8").tobytes())
    h.update(json.dumps(vocabulary, ensure_ascii=False).encode("utf-8"))
    for run in runs:
        h.update(run.tobytes())
    del runs
    for run in rows:
        h.update(np.asarray(run).astype("<i8").tobytes())
    return h, nnz


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
