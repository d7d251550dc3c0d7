"""Fingerprint of the data a release was made from, and the one check that uses it.

A release records a **keyed digest** of its original data so that ``audit``,
``evaluate``, the joint audit and ``--prior`` can refuse to compare it with
other data (a shuffled copy is the same data; another dataset of the same
size, or one changed record, is not). The digest (scheme ``mset-blake2b``,
:mod:`graphanon.release.multiset_hash`) is HMAC-SHA256 of the counts, the
item vocabulary and a keyed multiset hash of the records -- each record as
the set of its item labels (as text) -- under a 256-bit key drawn for each
release. The multiset hash is a sum of one keyed hash per record, so it is
computed without sorting the records, and where they are (Dask workers sum
their blocks; :func:`fingerprint_from_sums` adds the sums).

Only ``{"scheme", "digest"}`` is published. The **key** and the **counts**
(records, items, occurrences) live on the private side: the private link
(``release.link``, ``anonymize --link-out``). Without the key the digest is
a pseudorandom string: an adversary who knows every record but the target's
cannot test a guess of the data against it (docs/privacy.md, "The data
fingerprint"). With the link, :func:`check_same_data` verifies the data.

Releases written before 2026-11-28 carry scheme ``hmac-sha256``: HMAC-SHA256
over the canonical records in one sorted stream (:func:`fingerprint_from_parts`).
They load and are verified under that scheme (``data_fingerprint(...,
scheme="hmac-sha256")``); it is never written any more.

Releases of format ``graphanon-release/2`` published a *salted* digest with
its salt and the counts in clear -- an oracle for exactly that adversary
(:func:`graphanon.attacks.completion_attack`). They still load, with a
:class:`~graphanon.errors.LegacyFingerprintWarning`, and are still checked
(:func:`legacy_fingerprint`).

Examples
--------
>>> from graphanon.data import from_iterable
>>> a = from_iterable([["x", "y"], ["y"]])
>>> b = from_iterable([["y"], ["y", "x"]])          # the same records, shuffled
>>> key = "00" * 32
>>> data_fingerprint(a, key=key) == data_fingerprint(b, key=key)
True
>>> data_fingerprint(a, key=key) == data_fingerprint(a, key="01" * 32)
False
>>> sorted(data_fingerprint(a, key=key).items())[1]  # no counts, no key
('scheme', 'mset-blake2b')
"""

from __future__ import annotations

import hashlib
import hmac
import json

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import canonical_row_order, row_hashes
from graphanon.errors import DataMismatchError, ReleaseFormatError
from graphanon.release.canonical import (
    COUNT_KEYS,
    canonical_rows,
    canonical_vocabulary,
    count_dict,
    data_counts,
    json_strings,
)
from graphanon.release.multiset_hash import MSET_SCHEME, finish, multiset_sum, record_key

__all__ = [
    "COUNT_KEYS", "FINGERPRINT_KEYS", "FINGERPRINT_SCHEME", "HMAC_SCHEME", "KEYED_SCHEMES",
    "LEGACY_FINGERPRINT_KEYS", "UNVERIFIED_NOTE", "canonical_rows", "canonical_vocabulary", "check_same_data",
    "data_counts", "data_fingerprint", "fingerprint_from_parts", "fingerprint_from_sums", "is_legacy", "json_strings", "legacy_fingerprint", "new_data_key",
    "ordered_digest", "ordered_digest_from_parts", "same_fingerprint",
]

#: The published fingerprint: the scheme and the keyed digest, nothing else.
FINGERPRINT_KEYS = ("scheme", "digest")
#: The scheme every new release writes: the keyed multiset hash (:mod:`graphanon.release.multiset_hash`).
FINGERPRINT_SCHEME = MSET_SCHEME
#: The scheme of releases written before 2026-11-28 (HMAC-SHA256 of the sorted records): read and verified.
HMAC_SCHEME = "hmac-sha256"
#: The keyed schemes a ``graphanon-release/3`` file may carry.
KEYED_SCHEMES = (FINGERPRINT_SCHEME, HMAC_SCHEME)
#: What ``graphanon-release/2`` files published: the salt and the counts in clear.
LEGACY_FINGERPRINT_KEYS = ("salt", "digest", "records", "items", "occurrences")
#: One line a check prints when a release's data could not be verified (no key at hand).
UNVERIFIED_NOTE = "data not verified: the key is in the release's private link (--link)"
_DOMAIN = b"graphanon-data-fingerprint/1\0"
_KEYED_DOMAIN = b"graphanon-data-fingerprint/2\0"
_ORDERED_DOMAIN = b"graphanon-ordered-data/1\0"
_KEYED_ORDERED_DOMAIN = b"graphanon-ordered-data/2\0"
_CHUNK_ROWS = 1 << 16  # rows hashed at a time (the digest does not depend on it)
_KEY_BYTES = 32


def new_data_key(gen) -> str:
    """A fresh fingerprint key: 32 bytes from the secret generator ``gen``, as 64 hexadecimal digits.

    Examples
    --------
    >>> from graphanon.utils.randomness import secret_generator
    >>> len(new_data_key(secret_generator(0)))
    64
    """
    return gen.bytes(_KEY_BYTES).hex()


def data_fingerprint(data, *, key: str, scheme: str = FINGERPRINT_SCHEME) -> dict:
    """The keyed, order-independent fingerprint of ``data`` (what a release publishes).

    Parameters
    ----------
    data : TransactionData
    key : str
        Hexadecimal key (:func:`new_data_key`); private, kept in the release's link.
    scheme : str
        :data:`FINGERPRINT_SCHEME` (what releases write), or :data:`HMAC_SCHEME`
        to verify a release written before it.

    Returns
    -------
    dict
        ``{"scheme": scheme, "digest": hex}``.

    Notes
    -----
    Complexity: O(occurrences + n log n + d log d). ``mset-blake2b``: canonical
    item ranks, one keyed BLAKE2b per record summed modulo 2^256
    (:func:`graphanon.release.multiset_hash.multiset_sum`), one HMAC-SHA256
    of the counts, the sum and the vocabulary. ``hmac-sha256``: rows sorted
    by a vectorized set hash, one HMAC-SHA256 pass over the canonical arrays.

    References
    ----------
    Clarke, Devadas, van Dijk, Gassend, Suh. Incremental multiset hash
    functions. ASIACRYPT 2003 (MSet-Add-Hash).
    Bellare, Canetti, Krawczyk. Keying hash functions for message authentication.
    CRYPTO 1996 (HMAC; a pseudorandom function under a secret key).
    """
    if scheme == HMAC_SCHEME:
        fp, _ = fingerprint_from_parts(key=key, **_parts(data))
        return fp
    if scheme != FINGERPRINT_SCHEME:
        raise ReleaseFormatError(f"data_fingerprint scheme {scheme!r} is unknown; one of {list(KEYED_SCHEMES)} expected")
    rank, vocabulary = canonical_vocabulary(data.items)
    X = sp.csr_array(data.matrix)
    fp, _ = fingerprint_from_sums(key=key, shape=X.shape, vocabulary=vocabulary, nnz=int(X.indptr[-1]),
                                  sums=[multiset_sum(X, rank, record_key(key))])
    return fp


def fingerprint_from_sums(*, key: str, shape: tuple[int, int], vocabulary: list[str], nnz: int, sums
                          ) -> tuple[dict, dict]:
    """:func:`data_fingerprint` and :func:`data_counts` of records summed in blocks where they are.

    Parameters
    ----------
    key : str
        Hexadecimal key.
    shape : (int, int)
        Records and items.
    vocabulary : list of str
        The item labels as text, sorted (:func:`canonical_vocabulary`).
    nnz : int
        Item occurrences.
    sums : iterable of int
        :func:`graphanon.release.multiset_hash.multiset_sum` of each block of
        records (any partition of the records, in any order), under
        ``record_key(key)`` and the ranks of :func:`canonical_vocabulary`.

    Returns
    -------
    fingerprint : dict
        As :func:`data_fingerprint`; equal to it for the same records.
    counts : dict
        As :func:`data_counts` (private).

    Notes
    -----
    What a writer uses when the records are on Dask workers: each worker
    sums its block's record hashes, and the client adds one number per
    block -- its work does not depend on the number of records.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release.multiset_hash import multiset_sum, record_key
    >>> data, key = from_iterable([["a"], ["a", "b"], ["c"]]), "5a" * 32
    >>> rank, vocabulary = canonical_vocabulary(data.items)
    >>> sums = [multiset_sum(data.matrix[rows], rank, record_key(key)) for rows in ([0, 2], [1])]
    >>> fp, counts = fingerprint_from_sums(key=key, shape=(3, 3), vocabulary=vocabulary, nnz=4, sums=sums)
    >>> fp == data_fingerprint(data, key=key), counts["occurrences"]
    (True, 4)
    """
    digest = finish(key, shape, nnz, vocabulary, sum(int(s) for s in sums))
    return {"scheme": FINGERPRINT_SCHEME, "digest": digest}, count_dict(shape, nnz)


def legacy_fingerprint(data, *, salt: str) -> dict:
    """The salted fingerprint ``graphanon-release/2`` files published (salt and counts in clear).

    Kept to check old files and to show their leak (the completion attack,
    :func:`graphanon.attacks.completion_attack`); never written by a new release.

    Returns
    -------
    dict
        ``{"salt", "digest", "records", "items", "occurrences"}``.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> legacy_fingerprint(from_iterable([["a"], ["a", "b"]]), salt="ab")["occurrences"]
    3
    """
    parts = _parts(data)
    h, nnz = _hasher(_DOMAIN, _salted(salt), parts["shape"], parts["vocabulary"], parts["lengths"], parts["rows"])
    return {"salt": salt, "digest": h.hexdigest(), **count_dict(parts["shape"], nnz)}


def _parts(data) -> dict:
    X, rank, vocabulary = _canonical(data)
    order = canonical_row_order(X, row_hashes(X, relabel=rank)) if X.shape[0] else None
    lengths, rows = _pieces(X, rank, order)
    return {"shape": X.shape, "vocabulary": vocabulary, "lengths": lengths, "rows": rows}


def fingerprint_from_parts(*, key: str, shape: tuple[int, int], vocabulary: list[str], lengths, rows
                           ) -> tuple[dict, dict]:
    """The ``hmac-sha256`` fingerprint (releases before 2026-11-28) and the counts of records given in pieces.

    Parameters
    ----------
    key, shape, vocabulary :
        As for :func:`fingerprint_from_sums`.
    lengths : iterable of int arrays
        The record lengths in canonical order (rows sorted by
        :func:`graphanon.counting.rows.row_hashes` of the records renamed
        by label rank, then length, then position), in consecutive runs.
    rows : iterable of int arrays
        The records' :func:`canonical_rows` in the same order, concatenated
        in consecutive runs (any cut).

    Returns
    -------
    fingerprint, counts : dict
        As for :func:`fingerprint_from_sums`, under this scheme.

    Notes
    -----
    Kept to verify releases written under that scheme (the records in one
    sorted stream; HMAC-SHA256 fed in pieces equals HMAC-SHA256 of their
    concatenation); new releases use :func:`fingerprint_from_sums`.
    """
    h, nnz = _hasher(_KEYED_DOMAIN, _keyed(key), shape, vocabulary, lengths, rows)
    return {"scheme": HMAC_SCHEME, "digest": h.hexdigest()}, count_dict(shape, nnz)


def ordered_digest(data, *, key: str, legacy: bool = False) -> str:
    """Keyed SHA-256 of ``data`` *in its order*, record ids included (private: the link keeps it).

    The private link stores it to tell whether data given back to it holds
    the same records under the same ids (a re-read file whose lines were
    shuffled keeps positional ids but not their records). ``legacy=True``:
    ``key`` is the salt of a ``graphanon-release/2`` link (salted SHA-256).
    """
    X, rank, vocabulary = _canonical(data)
    ids = data.record_ids
    lengths, rows = _pieces(X, rank)
    # json.dumps(list_of_ids) fed to the hash a run of ids at a time: the same bytes, no list of all of them
    id_runs = (json_strings(ids[a : a + _CHUNK_ROWS]) for a in range(0, len(ids), _CHUNK_ROWS))
    return ordered_digest_from_parts(key=key, shape=X.shape, vocabulary=vocabulary, lengths=lengths, rows=rows,
                                     id_runs=id_runs, legacy=legacy)


def ordered_digest_from_parts(*, key: str, shape: tuple[int, int], vocabulary: list[str], lengths, rows,
                              id_runs, legacy: bool = False) -> str:
    """:func:`ordered_digest` of records given in pieces, in their order.

    ``lengths`` and ``rows`` as for :func:`fingerprint_from_parts` but in
    the data's order; ``id_runs`` the record ids as consecutive non-empty
    runs of :func:`json_strings` text.
    """
    if legacy:
        h, _ = _hasher(_ORDERED_DOMAIN, _salted(key), shape, vocabulary, lengths, rows)
    else:
        h, _ = _hasher(_KEYED_ORDERED_DOMAIN, _keyed(key), shape, vocabulary, lengths, rows)
    h.update(b"[")
    for i, run in enumerate(id_runs):
        h.update(((", " if i else "") + run).encode("utf-8"))
    h.update(b"]")
    return h.hexdigest()


def _canonical(data) -> tuple[sp.csr_array, np.ndarray, list[str]]:
    """The records, each item's rank in label text order, and the sorted labels.

    The canonical records are the records with item ``j`` renamed ``rank[j]``
    and each row sorted; :func:`_hasher` builds them a run of rows at a time.
    """
    rank, vocabulary = canonical_vocabulary(data.items)
    return sp.csr_array(data.matrix), rank, vocabulary


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


def _hex_bytes(text: str, what: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except (TypeError, ValueError):
        raise ReleaseFormatError(f"fingerprint {what} must be hexadecimal text, got {text!r}") from None


def _salted(salt: str):
    """The start of a ``graphanon-release/2`` digest: SHA-256 of the domain, then the (public) salt."""
    salt_bytes = _hex_bytes(salt, "salt")

    def start(domain: bytes):
        h = hashlib.sha256(domain)
        h.update(salt_bytes)
        return h

    return start


def _keyed(key: str):
    """The start of a keyed digest: HMAC-SHA256 under the (private) key, fed the domain first."""
    key_bytes = _hex_bytes(key, "key")
    if len(key_bytes) < 16:
        raise ReleaseFormatError(f"a fingerprint key must hold at least 16 bytes, got {len(key_bytes)}")
    return lambda domain: hmac.new(key_bytes, domain, hashlib.sha256)


def _hasher(domain: bytes, start, shape: tuple[int, int], vocabulary: list[str], lengths, rows):
    """The hash (``start(domain)``) fed the counts, vocabulary, row lengths and ranks of the canonical records.

    ``lengths`` and ``rows`` come in runs (:func:`_pieces`: ``_CHUNK_ROWS``
    rows at a time, or gathered from Dask workers), fed as little-endian
    int64 (a hash of a concatenation equals the hash fed piece by piece),
    so the memory is one run's copy, not a renamed copy of every
    occurrence. The lengths come first, so they are held until the
    occurrence count (their sum) is known. Returns the hash object and the
    occurrence count.
    """
    runs = [np.asarray(run).astype("<i8") for run in lengths]
    nnz = int(sum(int(run.sum()) for run in runs))
    h = start(domain)
    h.update(np.array([shape[0], shape[1], nnz], dtype="<i8").tobytes())
    h.update(json.dumps(vocabulary, ensure_ascii=False).encode("utf-8"))
    for run in runs:
        h.update(run.tobytes())
    del runs
    for run in rows:
        h.update(np.asarray(run).astype("<i8").tobytes())
    return h, nnz


def is_legacy(fp: dict | None) -> bool:
    """Whether a recorded fingerprint is of the ``graphanon-release/2`` kind (salt and counts in clear)."""
    return isinstance(fp, dict) and "salt" in fp


def same_fingerprint(a: dict | None, b: dict | None) -> bool:
    """Whether two recorded fingerprints are the same one (same scheme or salt, same digest)."""
    if a is None or b is None:
        return False
    if is_legacy(a) or is_legacy(b):
        return a.get("salt") == b.get("salt") and a.get("digest") == b.get("digest")
    return a.get("scheme") == b.get("scheme") and a.get("digest") == b.get("digest")


def _counts(fp: dict) -> str:
    return f"{fp['records']} records, {fp['items']} items, {fp['occurrences']} item occurrences"


def _mismatch(theirs: dict | None, mine: dict) -> DataMismatchError:
    """The error for data whose digest differs: what the counts say (``theirs``: the release's, None unknown)."""
    if theirs is None:
        said = "other records"
    elif all(theirs[key] == mine[key] for key in COUNT_KEYS):
        said = f"same counts ({_counts(mine)}) but different records"
    else:
        said = f"it was made from {_counts(theirs)}, the data has {_counts(mine)}"
    return DataMismatchError(f"the release was not made from this data: {said}; {_ADVICE}")


_ADVICE = "audit or evaluate a release against the data it was made from (or pass --allow-mismatch)"


def check_same_data(original, release, *, link=None) -> bool:
    """Whether ``release`` was made from ``original``: the one check every consumer calls.

    Raises :class:`~graphanon.errors.DataMismatchError` when it was not;
    returns whether the check could be made. The comparison is
    order-independent: the same records in another order match; another
    dataset of the same size, or one changed record, do not.

    Parameters
    ----------
    original : TransactionData
        The data the custodian holds.
    release : Release or dict
        A release (its ``fingerprint``) or a recorded fingerprint dict.
    link : ReleaseLink or SplitLink, optional
        The release's private link, which holds the fingerprint's key
        (default ``release.link``: set by the anonymizer, by
        :func:`~graphanon.release.private_link.attach_link` or ``--link``).
        Checked to belong to the release (same published digest).

    Returns
    -------
    bool
        True when the data was verified. False when it could not be: the
        release carries no fingerprint (a hand-made release), or its
        fingerprint is keyed and no link with the key is at hand -- callers
        that talk to a user then say :data:`UNVERIFIED_NOTE` in one line.
        A ``graphanon-release/2`` fingerprint (salt in clear) is verified
        without a link.

    Raises
    ------
    DataMismatchError
        When the digest (or, for old files, a count) differs, or ``link``
        belongs to another release.

    Notes
    -----
    Complexity: that of :func:`data_fingerprint`, O(occurrences + n log n).
    An adversary holds no key, so for them the published digest is a
    pseudorandom string; the custodian holds the link. The mismatch message
    names the counts from the link (private side), never from the file.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding, publish
    >>> data = from_iterable([["a"], ["a", "b"]])
    >>> rel = publish(data, GlobalRecoding.from_mapping(data, {"a": "a", "b": "b"}), unsafe_secret_seed=0)
    >>> check_same_data(from_iterable([["b", "a"], ["a"]]), rel)       # the link is in memory
    True
    >>> check_same_data(data, rel.fingerprint)                          # no key at hand
    False
    >>> check_same_data(from_iterable([["b"], ["a", "b"]]), rel)
    Traceback (most recent call last):
    ...
    graphanon.errors.DataMismatchError: the release was not made from this data: same counts (2 records, 2 items, 3 item occurrences) but different records; ...
    """
    if isinstance(release, dict) or release is None:
        fp = release
    else:
        fp = release.fingerprint
        if link is None:
            link = getattr(release, "link", None)
    if fp is None:
        return False
    if is_legacy(fp):
        return _check_legacy(original, fp)
    key = getattr(link, "key", None)
    if key is None:
        _check_public_rows(original, release)
        return False
    if not same_fingerprint(link.fingerprint, fp):
        raise DataMismatchError(
            "the private link was not made with this release (their data fingerprints differ); use the link "
            "file written together with this release"
        )
    if data_fingerprint(original, key=key, scheme=fp["scheme"])["digest"] != fp["digest"]:
        raise _mismatch(getattr(link, "counts", None), data_counts(original))
    return True


def _check_public_rows(original, release) -> None:
    """Without the key, what anyone can check: a release of one row per record has as many rows as records.

    The number of rows is public (the rows are), so comparing it tells an
    adversary nothing; it catches a release given with the wrong data when
    the keyed digest cannot be verified.
    """
    if isinstance(release, dict) or getattr(release, "moves", None) == "split":
        return
    n_rows = getattr(release, "n_records", None)
    if n_rows is not None and n_rows != original.n_records:
        raise DataMismatchError(
            f"the release was not made from this data: it publishes {n_rows} rows, one per record, and the data "
            f"has {original.n_records} records; {_ADVICE}"
        )


def _check_legacy(original, fp: dict) -> bool:
    missing = [key for key in LEGACY_FINGERPRINT_KEYS if key not in fp]
    if missing:
        raise ReleaseFormatError(f"the release's data fingerprint has no {missing[0]!r} field")
    mine = legacy_fingerprint(original, salt=fp["salt"])
    if mine["digest"] != fp["digest"] or any(mine[key] != fp[key] for key in COUNT_KEYS):
        raise _mismatch(fp, mine)
    return True
