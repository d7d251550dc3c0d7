"""Order-free handling of sparse rows: a 128-bit set hash per row.

Two places compare *multisets* of sparse boolean rows without caring about
their order: the data fingerprint of a release (canonical order of the
records) and the global-recoding consistency audit (published rows against
the expected recodings). Both sort rows by :func:`row_hashes` -- a sum of
fixed pseudo-random 64-bit column weights, in two independent lanes -- and
then compare the sorted rows exactly, so a hash collision can only reorder
rows, never make different rows look equal.

Examples
--------
>>> import scipy.sparse as sp
>>> M = sp.csr_array(([True] * 4, [0, 2, 2, 0], [0, 2, 2, 4]), shape=(3, 3))
>>> h = row_hashes(M)
>>> bool((h[0] == h[2]).all()), bool((h[1] == 0).all())   # same set, empty row
(True, True)
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["canonical_row_order", "row_hashes"]

_WEIGHT_SEED = 0x6A09E667F3BCC908  # fixed: the hash must be the same in every process


def _weights(n_columns: int) -> np.ndarray:
    gen = np.random.default_rng(_WEIGHT_SEED)
    return gen.integers(0, np.iinfo(np.uint64).max, size=(2, max(n_columns, 1)), dtype=np.uint64, endpoint=True)


def row_hashes(M) -> np.ndarray:
    """Per row, two 64-bit sums of column weights (an order-free set hash).

    Parameters
    ----------
    M : sparse matrix, shape (n, d)
        Rows are read as sets of column indices (duplicates must be summed first).

    Returns
    -------
    ndarray of uint64, shape (n, 2)
        Equal for rows holding the same columns; 0 for empty rows.

    Complexity
    ----------
    O(nnz + d).
    """
    M = sp.csr_array(M)
    w = _weights(M.shape[1])
    out = np.empty((M.shape[0], 2), dtype=np.uint64)
    ptr = M.indptr
    for lane in range(2):
        # cumulative sums wrap modulo 2^64, and so do their differences: exact per-row sums mod 2^64
        c = np.zeros(M.nnz + 1, dtype=np.uint64)
        np.cumsum(w[lane][M.indices], dtype=np.uint64, out=c[1:])
        out[:, lane] = c[ptr[1:]] - c[ptr[:-1]]
    return out


def canonical_row_order(M, hashes: np.ndarray | None = None) -> np.ndarray:
    """A permutation that sorts the rows of ``M`` by :func:`row_hashes` (then length).

    Equal rows end up next to each other; two matrices holding the same
    multiset of rows have equal rows after sorting (unless two *different*
    rows collide in both 64-bit lanes, which reorders them -- callers compare
    the sorted rows exactly).
    """
    M = sp.csr_array(M)
    h = row_hashes(M) if hashes is None else hashes
    return np.lexsort((np.diff(M.indptr), h[:, 1], h[:, 0]))
