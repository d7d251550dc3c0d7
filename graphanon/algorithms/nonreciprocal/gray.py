"""The Gray order and Hamming lengths of record orders.

The Gray rank of a bitmap is never materialized as an integer (a bitmap of
``b`` items has ``2**b`` possible ranks): the Gray-to-binary conversion is a
prefix XOR along the bits, computed on packed bytes (a 256-entry table for
the prefix XOR inside a byte and the running parity of the preceding
bytes), and ranks are compared by a stable lexicographic sort.

References
----------
Xue et al. KDD 2012, Sec. 4.1 and Table 5. F. Gray, US Patent 2632058, 1953.
"""

from __future__ import annotations

import numpy as np

from graphanon.counting.bitset import bytes_to_words, pack_bytes
from graphanon.errors import ParameterError
from graphanon.utils.validation import check_order

__all__ = ["consecutive_hamming", "gray_order", "hamming_cycle_length", "hamming_matrix"]


def _prefix_xor_table() -> np.ndarray:
    """``T[v]``: prefix XOR of the bits of byte ``v``, most significant bit first."""
    v = np.arange(256, dtype=np.uint8)
    bits = np.unpackbits(v[:, None], axis=1)  # MSB first
    pref = np.bitwise_xor.accumulate(bits, axis=1)
    return np.packbits(pref, axis=1)[:, 0]


_PREFIX_XOR = _prefix_xor_table()


def _binary_rank_bits(packed: np.ndarray, b: int) -> np.ndarray:
    """Binary digits of the Gray rank of each packed row (prefix XOR along the bits)."""
    if packed.shape[1] == 0:
        return packed.copy()
    parity = np.bitwise_count(packed) & np.uint8(1)
    carry = np.bitwise_xor.accumulate(parity, axis=1) ^ parity  # parity of the preceding bytes (uint8, no int64 sums)
    out = _PREFIX_XOR[packed] ^ (carry * np.uint8(0xFF))
    rem = b % 8
    if rem:
        out[:, -1] &= np.uint8((0xFF << (8 - rem)) & 0xFF)
    return out


def gray_order_packed(packed: np.ndarray, b: int) -> np.ndarray:
    n = packed.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    words = bytes_to_words(_binary_rank_bits(packed, b))
    # np.lexsort sorts by the LAST key first and is stable: ties keep input order.
    return np.lexsort(words.T[::-1]).astype(np.int64)


def gray_order(X) -> np.ndarray:
    """Order the records by the Gray rank of their bitmaps.

    The Gray rank of a bitmap ``g`` (item 0 = most significant bit) is the
    integer ``r`` whose reflected-binary Gray code ``r ^ (r >> 1)`` equals
    ``g``. Its binary digits are prefix XORs of the bitmap,
    ``r_j = g_0 ^ g_1 ^ ... ^ g_j``; records are sorted lexicographically by
    those digits, computed on packed bytes, so no ``2**b`` integer is formed.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
        Records x items.

    Returns
    -------
    order : ndarray of int64, shape (n,)
        A permutation of ``range(n)``: ``order[p]`` is the record at position
        ``p``. Records with equal bitmaps keep their input order (stable).

    Notes
    -----
    Complexity: O(n * b / 8) to convert and O(n log n * b / 64) to sort.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> [data.record_ids[i] for i in gray_order(data)]
    ['r2', 'r4', 'r1', 'r3', 'r5', 'r6']

    References
    ----------
    Xue et al., Anonymizing set-valued data by nonreciprocal recoding, KDD 2012,
    Sec. 4.1 and Table 5.
    """
    packed, b = pack_bytes(X)
    return gray_order_packed(packed, b)


def consecutive_packed(words: np.ndarray, order: np.ndarray, cyclic: bool) -> np.ndarray:
    if order.size == 0:
        return np.zeros(0, dtype=np.int64)
    nxt = np.roll(order, -1) if cyclic else order[1:]
    cur = order if cyclic else order[:-1]
    return np.bitwise_count(words[cur] ^ words[nxt]).sum(axis=1, dtype=np.int64)


def consecutive_hamming(X, order, *, cyclic: bool = True) -> np.ndarray:
    """Hamming distances between consecutive records of ``order``.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    order : array-like of int
        A permutation of the record indices.
    cyclic : bool, default True
        Include the closing distance from the last record back to the first.

    Returns
    -------
    ndarray of int64
        ``d[p] = H(X[order[p]], X[order[p + 1]])`` (indices modulo ``n`` when
        ``cyclic``); length ``n`` if cyclic, else ``n - 1``.

    Examples
    --------
    >>> consecutive_hamming([[1, 0], [0, 1], [1, 1]], [0, 2, 1]).tolist()
    [1, 1, 2]
    """
    packed, _ = pack_bytes(X)
    order = check_order(order, packed.shape[0])
    return consecutive_packed(bytes_to_words(packed), order, cyclic)


def hamming_cycle_length(X, order) -> int:
    """Total cyclic Hamming length of ``order``.

    The sum of ``H(r_{order[p]}, r_{order[p+1]})`` over consecutive positions,
    including the closing pair (last record, first record).

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    order : array-like of int
        A permutation of the record indices.

    Returns
    -------
    int

    Notes
    -----
    Complexity: O(n * b / 64).

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> hamming_cycle_length(data, range(6)), hamming_cycle_length(data, gray_order(data))
    (14, 12)
    """
    return int(consecutive_hamming(X, order, cyclic=True).sum())


def hamming_matrix_words(words: np.ndarray) -> np.ndarray:
    return np.bitwise_count(words[:, None, :] ^ words[None, :, :]).sum(axis=2, dtype=np.int64)


def hamming_matrix(X, rows=None) -> np.ndarray:
    """Pairwise Hamming distances between records (popcount of XOR of packed rows).

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    rows : array-like of int, optional
        Records to compare (default: all). Memory is O(len(rows)**2 * b / 64).

    Returns
    -------
    ndarray of int64, shape (s, s)

    Examples
    --------
    >>> hamming_matrix([[1, 0, 1], [0, 0, 1]]).tolist()
    [[0, 1], [1, 0]]
    """
    packed, _ = pack_bytes(X)
    words = bytes_to_words(packed)
    if rows is not None:
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size and (rows.min() < 0 or rows.max() >= packed.shape[0]):
            raise ParameterError(f"rows must be record indices in [0, {packed.shape[0]})")
        words = words[rows]
    return hamming_matrix_words(words)
