r"""The keyed multiset hash of records behind the data fingerprint (scheme ``mset-blake2b``).

The fingerprint must not depend on the record order, and a cluster that
holds the records in blocks should not have to bring them to one place in a
canonical order to compute it. A **keyed multiset hash** gives both: each
record is hashed alone under a secret key, and the hashes are *added*
(MSet-Add-Hash of Clarke et al.). Each block sums its own records' terms
where it lives; the sums of the blocks add up to the sum of the data.

The construction, under the release's 256-bit key ``K`` (hexadecimal,
:func:`~graphanon.release.fingerprint.new_data_key`):

1. ``K_r = HMAC-SHA256(K, "graphanon-data-fingerprint/3 record\0")``, the
   record key (:func:`record_key`);
2. a record (item set) is encoded as the ranks of its item labels in text
   order (:func:`~graphanon.release.fingerprint.canonical_vocabulary`),
   ascending, each a little-endian 32-bit number; the empty record is the
   empty string;
3. ``S = sum over records r of BLAKE2b-256(key=K_r, enc(r)) mod 2^256``,
   each hash read as a little-endian number (:func:`multiset_sum`);
4. ``digest = HMAC-SHA256(K, "graphanon-data-fingerprint/3\0" || n, d, nnz
   as three little-endian int64 || S as 32 little-endian bytes || the
   vocabulary as JSON text)`` (:func:`finish`).

**Security.** Keyed BLAKE2b is a pseudorandom function (PRF) of the message
under its key (RFC 7693: the keyed mode is a MAC and PRF), so for anyone
without ``K_r`` the terms are independent uniform 256-bit numbers, one per
distinct record, and ``S`` is the MSet-Add-Hash of the multiset of records:
two different multisets give the same ``S`` with probability at most
``2^-(256 - t)`` where ``2^t`` divides every difference of multiplicities
(for a random function: the term of a record whose multiplicity differs
by ``2^t * odd`` is then fixed modulo ``2^(256-t)``). The published digest is a PRF (HMAC-SHA256 under
``K``) of the counts, the vocabulary and ``S``: for the adversary of
``docs/privacy.md`` (every record but the target's, the whole file, the
package) it is a pseudorandom string, and a guess of the data can be tested
against it only with the key, which is in the private link alone. Without
the final HMAC the sum would leak structure (its lowest bit is the parity
of the number of records that occur an odd number of times); through it,
nothing. The workers that sum their blocks receive ``K_r``, never ``K``:
they hold the records already, and with ``K_r`` they can compute ``S`` but
not the digest.

References
----------
Clarke, Devadas, van Dijk, Gassend, Suh. Incremental multiset hash
functions and their application to memory integrity checking.
ASIACRYPT 2003 (the MSet-Add-Hash construction: a keyed PRF of each element,
summed modulo 2^m; its nonce term is replaced here by the final keyed HMAC).
Saarinen, Aumasson. The BLAKE2 cryptographic hash and message
authentication code (MAC). RFC 7693, 2015 (keyed hashing).
Bellare, Canetti, Krawczyk. Keying hash functions for message
authentication. CRYPTO 1996 (HMAC).

Examples
--------
>>> import scipy.sparse as sp
>>> rank = np.array([0, 1, 2])
>>> rk = record_key("00" * 32)
>>> a = sp.csr_array(np.array([[1, 1, 0], [0, 0, 1]], dtype=bool))
>>> b = sp.csr_array(np.array([[0, 0, 1], [1, 1, 0]], dtype=bool))   # the same records, the other order
>>> multiset_sum(a, rank, rk) == multiset_sum(b, rank, rk)
True
>>> (multiset_sum(a[[0]], rank, rk) + multiset_sum(a[[1]], rank, rk)) % MODULUS == multiset_sum(a, rank, rk)
True
"""

from __future__ import annotations

import hashlib
import hmac
import json

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ReleaseFormatError

__all__ = ["MODULUS", "MSET_SCHEME", "finish", "multiset_sum", "record_key"]

#: The scheme name a fingerprint of this construction carries.
MSET_SCHEME = "mset-blake2b"
#: The sums are taken modulo 2^256 (one BLAKE2b-256 output).
MODULUS = 1 << 256
_RECORD_DOMAIN = b"graphanon-data-fingerprint/3 record\0"
_DOMAIN = b"graphanon-data-fingerprint/3\0"
_TERM_BYTES = 32
_CHUNK_ROWS = 1 << 16  # rows hashed at a time (the sum does not depend on it)


def _key_bytes(key: str) -> bytes:
    try:
        key_bytes = bytes.fromhex(key)
    except (TypeError, ValueError):
        raise ReleaseFormatError(f"fingerprint key must be hexadecimal text, got {key!r}") from None
    if len(key_bytes) < 16:
        raise ReleaseFormatError(f"a fingerprint key must hold at least 16 bytes, got {len(key_bytes)}")
    return key_bytes


def record_key(key: str) -> bytes:
    """The record key ``K_r`` derived from the release's key: what the workers that sum their blocks get.

    Examples
    --------
    >>> len(record_key("ab" * 32))
    32
    """
    return hmac.digest(_key_bytes(key), _RECORD_DOMAIN, "sha256")


def multiset_sum(X, rank: np.ndarray, rkey: bytes) -> int:
    """Sum modulo 2^256 of the keyed BLAKE2b-256 hashes of the records of ``X`` (step 3 above).

    Parameters
    ----------
    X : sparse matrix (CSR)
        Records as rows, items as columns (a block of the data, or all of it).
    rank : ndarray of int
        Each column's rank in label text order (:func:`~graphanon.release.fingerprint.canonical_vocabulary`).
    rkey : bytes
        :func:`record_key` of the release's key.

    Returns
    -------
    int
        In ``[0, 2^256)``; the sums of disjoint blocks add up (modulo 2^256) to the sum of their union.

    Notes
    -----
    Complexity: O(occurrences + n log n), with one keyed BLAKE2b call per
    record. The records are grouped by length (a stable sort), so each
    group's encodings are cut from one ``(records, length)`` array of 32-bit
    ranks by numpy (``view`` as fixed-size byte strings); the hashing maps one
    small function over them (copy the keyed BLAKE2b state, update, digest:
    about 1 microsecond a record, the cost that remains). The 256-bit sums are
    exact: each hash is read as eight 32-bit limbs, summed per limb in
    uint64 (no overflow below 2^32 records a run), then carried in Python
    integers.
    """
    X = sp.csr_array(X)
    if X.shape[1] > 1 << 32:
        raise ReleaseFormatError(f"the fingerprint encodes item ranks in 32 bits; the data has {X.shape[1]} items")
    copy = hashlib.blake2b(key=rkey, digest_size=_TERM_BYTES).copy  # the keyed state, copied per record

    def term(message: bytes) -> bytes:  # a copy of the keyed state is cheaper than a new keyed object
        h = copy()
        h.update(message)
        return h.digest()

    rank32 = np.asarray(rank).astype("<u4")
    total = 0
    for a in range(0, X.shape[0], _CHUNK_ROWS):
        b = min(X.shape[0], a + _CHUNK_ROWS)
        ptr = X.indptr[a : b + 1]
        cols = X.indices[int(ptr[0]) : int(ptr[-1])]
        part = sp.csr_array((np.ones(len(cols), dtype=bool), rank32[cols], ptr - ptr[0]), shape=(b - a, X.shape[1]))
        part.sort_indices()  # each record: its ranks ascending
        total += _chunk_sum(part.indptr, part.indices.astype("<u4", copy=False), term)
    return total % MODULUS


def _chunk_sum(ptr: np.ndarray, ranks: np.ndarray, term) -> int:
    """The sum (not reduced) of ``term`` over the records ``ranks[ptr[i]:ptr[i+1]]``."""
    lengths = np.diff(ptr)
    by_length = np.argsort(lengths, kind="stable")
    sorted_lengths = lengths[by_length]
    bounds = np.r_[0, np.flatnonzero(np.diff(sorted_lengths)) + 1, len(lengths)]
    total = 0
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):  # one step per distinct length
        if a == b:
            continue
        length = int(sorted_lengths[a])
        if length == 0:
            total += (b - a) * int.from_bytes(term(b""), "little")
            continue
        rows = ranks[ptr[by_length[a:b]][:, None] + np.arange(length)]
        messages = np.ascontiguousarray(rows).view(f"V{4 * length}").ravel().tolist()
        total += _limb_sum(b"".join(map(term, messages)))
    return total


def _limb_sum(digests: bytes) -> int:
    """The sum of the 256-bit little-endian numbers concatenated in ``digests`` (exact, not reduced)."""
    limbs = np.frombuffer(digests, dtype="<u4").reshape(-1, _TERM_BYTES // 4).sum(axis=0, dtype=np.uint64)
    return sum(int(v) << (32 * i) for i, v in enumerate(limbs.tolist()))


def finish(key: str, shape: tuple[int, int], nnz: int, vocabulary: list[str], total: int) -> str:
    """The published digest (step 4 above): HMAC-SHA256 under ``key`` of the counts, the sum and the vocabulary.

    Parameters
    ----------
    key : str
        The release's key (hexadecimal).
    shape : (int, int)
        Records and items.
    nnz : int
        Item occurrences.
    vocabulary : list of str
        The item labels as text, sorted.
    total : int
        The sum of :func:`multiset_sum` over every block of the data (any modulus multiple).

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    mac = hmac.new(_key_bytes(key), _DOMAIN, hashlib.sha256)
    mac.update(np.array([shape[0], shape[1], nnz], dtype="<i8").tobytes())
    mac.update((int(total) % MODULUS).to_bytes(_TERM_BYTES, "little"))
    mac.update(json.dumps(vocabulary, ensure_ascii=False).encode("utf-8"))
    return mac.hexdigest()
