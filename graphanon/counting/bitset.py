"""Packed record bitmaps (bottom layer; their numba kernels are in :mod:`graphanon.counting._bitset_kernels`).

Two layouts, named for what they are:

* :func:`pack_bytes` -- ``uint8`` rows, item 0 the most significant bit of
  byte 0 (``numpy.packbits`` big-endian), so byte-wise lexicographic order
  is bit-wise lexicographic order: what the Gray rank sorts on;
  :func:`bytes_to_words` views them as big-endian-valued ``uint64`` words.
* :func:`pack_words` -- ``uint64`` rows, item ``j`` bit ``j % 64`` of word
  ``j // 64`` (little-endian): what the numba Hamming / vote kernels of
  :mod:`graphanon.counting._bitset_kernels` read.

:func:`vote_words` is the one implementation of the bit-vote majority rule
(a published bit is 1 when more than half of the preimages have it; a tie
gives 0): the nonreciprocal kernels call it on packed rows and
:func:`graphanon.release.bit_voting.bit_vote` calls it too, converting
its CSR matrices with :func:`pack_words` / :func:`words_to_csr`.
"""

from __future__ import annotations

import importlib

import numpy as np
import scipy.sparse as sp

from graphanon.errors import DataFormatError

__all__ = ["bytes_to_words", "pack_bytes", "pack_words", "words_to_csr"]

#: The numba kernels live in :mod:`graphanon.counting._bitset_kernels` (importing them imports numba);
#: these names stay importable from here, resolved on first use (PEP 562).
_KERNELS = ("hamming_words", "popcount64", "vote_words")


def __getattr__(name: str):
    if name in _KERNELS:
        return getattr(importlib.import_module("graphanon.counting._bitset_kernels"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pack_words(X) -> np.ndarray:
    """Rows of a boolean sparse/dense matrix packed into ``uint64`` words, shape (n, ceil(d/64))."""
    if sp.issparse(X):
        X = sp.csr_array(X)
        n, d = X.shape
        W = max(1, (d + 63) // 64)
        out = np.zeros((n, W), dtype=np.uint64)
        rows = np.repeat(np.arange(n), np.diff(X.indptr))
        cols = X.indices.astype(np.int64)
        np.bitwise_or.at(out, (rows, cols >> 6), np.left_shift(np.uint64(1), (cols & 63).astype(np.uint64)))
        return out
    X = np.asarray(X, dtype=bool)
    n, d = X.shape
    W = max(1, (d + 63) // 64)
    pad = np.zeros((n, W * 64), dtype=bool)
    pad[:, :d] = X
    bits = np.packbits(pad.reshape(n, W, 64), axis=2, bitorder="little")
    return bits.view(np.uint64).reshape(n, W)


def words_to_csr(B: np.ndarray, d: int, block: int = 1 << 15) -> sp.csr_array:
    """Boolean CSR matrix (n, d) of rows packed by :func:`pack_words` (its inverse).

    Rows are unpacked in blocks of ``block`` rows, so the dense scratch is
    ``block * W * 64`` bytes whatever ``n``.

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1, 0, 1], [0, 0, 0]], dtype=bool))
    >>> (words_to_csr(pack_words(X), 3) != X).nnz
    0
    """
    B = np.ascontiguousarray(B, dtype="<u8")
    n = B.shape[0]
    parts = [sp.csr_array((0, d), dtype=bool)]
    for a in range(0, n, block):
        bits = np.unpackbits(B[a : a + block].view(np.uint8), axis=1, bitorder="little")[:, :d]
        parts.append(sp.csr_array(bits.astype(bool)))
    return sp.csr_array(sp.vstack(parts, format="csr"))


def pack_bytes(X) -> tuple[np.ndarray, int]:
    """Pack the record bitmaps of ``X`` into bytes, item 0 as the most significant bit.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix/array, or 2-D array-like of 0/1 or bool
        Records x items. Sparse inputs are packed without densifying.

    Returns
    -------
    packed : ndarray of uint8, shape (n, ceil(b / 8))
        Row ``i`` holds record ``i``'s bitmap; bit ``j`` of the record is bit
        ``7 - j % 8`` of byte ``j // 8`` (the ``numpy.packbits`` big-endian
        layout), so byte-wise lexicographic order is bit-wise lexicographic
        order. Padding bits are 0.
    b : int
        Number of items (bits per record).

    Raises
    ------
    DataFormatError
        If ``X`` is not two-dimensional or holds values other than 0/1.

    Notes
    -----
    Complexity: O(n * b / 8 + occurrences).

    Examples
    --------
    >>> packed, b = pack_bytes([[1, 1, 0, 0], [0, 1, 1, 0]])
    >>> packed[:, 0].tolist(), b
    ([192, 96], 4)
    """
    matrix = getattr(X, "matrix", X)  # TransactionData -> its CSR matrix
    if sp.issparse(matrix):
        csr = sp.csr_array(matrix)
        if csr.ndim != 2:
            raise DataFormatError(
                f"expected a 2-D records x items matrix, got {csr.ndim} dimensions"
            )
        n, b = csr.shape
        csr.sum_duplicates()
        data = csr.data
        if data.size and not np.all((data == 0) | (data == 1)):
            bad = np.flatnonzero((data != 0) & (data != 1))[0]
            row = int(np.searchsorted(csr.indptr, bad, side="right") - 1)
            raise DataFormatError(
                f"record {row} item {int(csr.indices[bad])} has value {data[bad].item()!r}; bitmaps must be 0/1 "
                "(binarize the matrix first, e.g. X != 0)"
            )
        nb = (b + 7) // 8
        nz = np.asarray(data != 0)
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(csr.indptr))[nz]
        cols = csr.indices[nz].astype(np.int64)
        flat = np.zeros(n * nb, dtype=np.uint8)  # uint8 throughout: no float64 array of n * nb counts
        np.bitwise_or.at(flat, rows * nb + (cols >> 3), np.left_shift(1, 7 - (cols & 7)).astype(np.uint8))
        return flat.reshape(n, nb), int(b)
    arr = np.asarray(matrix)
    if arr.ndim != 2:
        raise DataFormatError(
            f"expected a 2-D records x items matrix, got an array of shape {arr.shape}"
        )
    if arr.dtype != np.bool_:
        if arr.size and not np.all((arr == 0) | (arr == 1)):
            row, col = np.argwhere((arr != 0) & (arr != 1))[0]
            raise DataFormatError(
                f"record {int(row)} item {int(col)} has value {arr[row, col].item()!r}; bitmaps must be 0/1 "
                "(binarize the matrix first, e.g. X != 0)"
            )
        arr = arr != 0
    return np.packbits(arr, axis=1, bitorder="big"), int(arr.shape[1])


def bytes_to_words(packed: np.ndarray) -> np.ndarray:
    """View packed rows as native uint64 words (big-endian value order), zero padded."""
    n, nb = packed.shape
    nw = max(1, (nb + 7) // 8)
    buf = np.zeros((n, nw * 8), dtype=np.uint8)
    buf[:, :nb] = packed
    return buf.view(">u8").astype(np.uint64)
