"""The numba kernels on packed record words (bottom layer; layouts in :mod:`graphanon.counting.bitset`).

:func:`vote_words` is the one implementation of the bit-vote majority rule
(a published bit is 1 when more than half of the preimages have it; a tie
gives 0): the nonreciprocal kernels call it on packed rows and
:func:`graphanon.release.nonreciprocal.bit_vote` calls it too. Apart from
:mod:`graphanon.counting.bitset` so that packing records (CAHD, the Gray order) does
not import numba.
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)

__all__ = ["hamming_words", "popcount64", "vote_words"]


@numba.njit(cache=True)
def popcount64(v):
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (v * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(cache=True)
def hamming_words(P, a, b):
    h = 0
    for w in range(P.shape[1]):
        h += popcount64(P[a, w] ^ P[b, w])
    return h


@numba.njit(cache=True)
def vote_words(P, pre_ptr, pre_idx):
    """Packed base bitmaps by bit voting.

    Published record ``v``'s bit is 1 when more than half of its preimages
    ``pre_idx[pre_ptr[v]:pre_ptr[v + 1]]`` have it (a tie gives 0).

    A preimage listed twice counts twice, in the votes and in the size.
    """
    n = pre_ptr.shape[0] - 1
    W = P.shape[1]
    counts = np.zeros(W * 64, dtype=np.int64)
    B = np.zeros((n, W), dtype=np.uint64)
    for v in range(n):
        counts[:] = 0
        size = pre_ptr[v + 1] - pre_ptr[v]
        for e in range(pre_ptr[v], pre_ptr[v + 1]):
            x = pre_idx[e]
            for w in range(W):
                word = P[x, w]
                while word:
                    low = word & (~word + np.uint64(1))
                    counts[w * 64 + int(popcount64(low - np.uint64(1)))] += 1
                    word ^= low
        for w in range(W):
            word = np.uint64(0)
            for b in range(64):
                if 2 * counts[w * 64 + b] > size:
                    word |= np.uint64(1) << np.uint64(b)
            B[v, w] = word
    return B
