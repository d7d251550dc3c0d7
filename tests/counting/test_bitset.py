"""graphanon.counting.bitset: the two packed layouts and the bit-vote kernel against the sparse bit_vote."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphanon.counting.bitset import bytes_to_words, pack_bytes, pack_words, vote_words
from graphanon.counting.support import VerticalBitmaps, bitmap_supports
from graphanon.release.bit_voting import bit_vote


def _random_matrix(seed, n=40, d=130, p=0.2):
    return np.random.default_rng(seed).random((n, d)) < p


@pytest.mark.parametrize("seed", range(4))
def test_layouts_hold_the_same_bits(seed):
    X = _random_matrix(seed)
    words = pack_words(sp.csr_array(X))
    assert np.array_equal(words, pack_words(X))
    lsb = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")[:, : X.shape[1]]
    assert np.array_equal(lsb.astype(bool), X)
    packed, b = pack_bytes(X)
    assert b == X.shape[1]
    assert np.array_equal(np.unpackbits(packed, axis=1)[:, :b].astype(bool), X)
    # bytes_to_words keeps the big-endian value order: sorting words sorts bitmaps lexicographically
    w = bytes_to_words(packed)
    order = np.lexsort(w.T[::-1])
    as_str = ["".join("1" if v else "0" for v in row) for row in X]
    assert [as_str[i] for i in order] == sorted(as_str)


@pytest.mark.parametrize("seed", range(4))
def test_vote_words_is_the_base_of_bit_vote(seed):
    rng = np.random.default_rng(seed)
    X = _random_matrix(seed)
    n = X.shape[0]
    k = int(rng.integers(1, 6))
    order = rng.permutation(n)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    succ = order[(pos[:, None] + np.arange(k)[None, :]) % n]  # the k-regular ring: k distinct preimages each
    members = sp.csr_array((np.ones(n * k, dtype=np.int8), (succ.ravel(), np.repeat(np.arange(n), k))), shape=(n, n))
    base, _, _ = bit_vote(sp.csr_array(X), members)
    flat = succ.ravel()
    pre_idx = (np.argsort(flat, kind="stable") // k).astype(np.int64)
    pre_ptr = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=n))]).astype(np.int64)
    B = vote_words(pack_words(X), pre_ptr, pre_idx)
    assert np.array_equal(B, pack_words(base.toarray()))


def test_bitmap_supports_counts_by_definition():
    X = _random_matrix(7, n=70, d=12, p=0.5)
    rng = np.random.default_rng(1)
    sets = [rng.choice(12, size=int(s), replace=False) for s in rng.integers(0, 5, size=60)]
    got = bitmap_supports(VerticalBitmaps(X).bits, sets, X.shape[0], block=7)
    want = [int(X[:, list(s)].all(axis=1).sum()) for s in sets]  # empty set: all records
    assert got.tolist() == want
