"""Release building a run of rows at a time: fingerprint, ordered digest, row hashes, generalized matrix.

Their results must not depend on the run length: each is checked against the
whole-array formula it replaced (written out here independently), on random
data with run lengths from 1 row up to more than all rows.
"""

from __future__ import annotations

import hashlib
import hmac
import json

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import graphanon.release.fingerprint as fingerprint
import graphanon.release.multiset_hash as multiset_hash
from graphanon.counting.rows import _weights, canonical_row_order, row_hashes
from graphanon.counting.support import generalize_matrix
from graphanon.data import from_iterable
from graphanon.datasets import load


def _whole_canonical(data):
    X = sp.csr_array(data.matrix)
    text = np.array([str(x) for x in data.items], dtype=object)
    by_text = np.argsort(text, kind="stable")
    rank = np.empty(len(text), dtype=np.int64)
    rank[by_text] = np.arange(len(text))
    canon = sp.csr_array((np.ones(X.nnz, dtype=bool), rank[X.indices], X.indptr.copy()), shape=X.shape)
    canon.sort_indices()
    return canon, [str(t) for t in text[by_text]]


def _whole_hash(domain, secret, canon, vocabulary, keyed):
    if keyed:  # HMAC-SHA256 under the private key
        h = hmac.new(bytes.fromhex(secret), domain, hashlib.sha256)
    else:  # graphanon-release/2: SHA-256 of the domain and the public salt
        h = hashlib.sha256(domain)
        h.update(bytes.fromhex(secret))
    h.update(np.array([canon.shape[0], canon.shape[1], canon.nnz], dtype="<i8").tobytes())
    h.update(json.dumps(vocabulary, ensure_ascii=False).encode("utf-8"))
    h.update(np.diff(canon.indptr).astype("<i8").tobytes())
    h.update(canon.indices.astype("<i8").tobytes())
    return h


def _whole_row_hashes(M):
    w = _weights(M.shape[1])
    out = np.empty((M.shape[0], 2), dtype=np.uint64)
    for lane in range(2):
        c = np.zeros(M.nnz + 1, dtype=np.uint64)
        np.cumsum(w[lane][M.indices], dtype=np.uint64, out=c[1:])
        out[:, lane] = c[M.indptr[1:]] - c[M.indptr[:-1]]
    return out


def _whole_digests(data, secret, keyed=True):
    canon, vocab = _whole_canonical(data)
    ordered = canon[canonical_row_order(canon)] if canon.shape[0] else canon
    version = b"2" if keyed else b"1"
    fp = _whole_hash(b"graphanon-data-fingerprint/" + version + b"\0", secret, sp.csr_array(ordered), vocab,
                     keyed).hexdigest()
    h = _whole_hash(b"graphanon-ordered-data/" + version + b"\0", secret, canon, vocab, keyed)
    h.update(json.dumps([str(r) for r in data.record_ids], ensure_ascii=False).encode("utf-8"))
    return fp, h.hexdigest()


records = st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "é", "10", "9"]), max_size=5), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(records=records, chunk=st.integers(1, 40), ids=st.booleans())
def test_digests_do_not_depend_on_the_run_length(records, chunk, ids):
    rid = [f"r\u00e9{i}\"x" for i in range(len(records))] if ids else None
    data = from_iterable(records, record_ids=rid)
    key = "ab12" * 8
    want, old_want = _whole_digests(data, key), _whole_digests(data, "ab12", keyed=False)
    mset_want = fingerprint.data_fingerprint(data, key=key)
    old, old_mset = fingerprint._CHUNK_ROWS, multiset_hash._CHUNK_ROWS
    fingerprint._CHUNK_ROWS = multiset_hash._CHUNK_ROWS = chunk
    try:
        got = (fingerprint.data_fingerprint(data, key=key, scheme="hmac-sha256")["digest"],
               fingerprint.ordered_digest(data, key=key))
        old_got = (fingerprint.legacy_fingerprint(data, salt="ab12")["digest"],
                   fingerprint.ordered_digest(data, key="ab12", legacy=True))
        mset_got = fingerprint.data_fingerprint(data, key=key)
    finally:
        fingerprint._CHUNK_ROWS, multiset_hash._CHUNK_ROWS = old, old_mset
    assert got == want and old_got == old_want and mset_got == mset_want


@settings(max_examples=60, deadline=None)
@given(records=records, chunk=st.integers(1, 40))
def test_row_hashes_do_not_depend_on_the_run_length(records, chunk):
    M = from_iterable(records).matrix
    assert np.array_equal(row_hashes(M, chunk_rows=chunk), _whole_row_hashes(sp.csr_array(M)))


@pytest.mark.parametrize("chunk", [1, 7, 1 << 16])
def test_bundled_digests_equal_the_whole_array_formula(chunk):
    data = load("groceries")
    key = "00ff" * 8
    want = _whole_digests(data, key)
    old = fingerprint._CHUNK_ROWS
    fingerprint._CHUNK_ROWS = chunk
    try:
        got = (fingerprint.data_fingerprint(data, key=key, scheme="hmac-sha256")["digest"],
               fingerprint.ordered_digest(data, key=key))
    finally:
        fingerprint._CHUNK_ROWS = old
    assert got == want
    assert np.array_equal(row_hashes(data.matrix, chunk_rows=chunk), _whole_row_hashes(sp.csr_array(data.matrix)))


def _whole_generalized(X, mapping, n_published):
    keep = mapping >= 0
    R = sp.csr_array((np.ones(int(keep.sum()), dtype=np.int32), (np.flatnonzero(keep), mapping[keep])),
                     shape=(X.shape[1], n_published))
    G = (sp.csr_array((np.ones(X.nnz, dtype=np.int32), X.indices, X.indptr), shape=X.shape) @ R).tocsr()
    G.sort_indices()
    return G


@settings(max_examples=60, deadline=None)
@given(records=records, chunk=st.integers(1, 40), data=st.data())
def test_generalize_matrix_does_not_depend_on_the_run_length(records, chunk, data):
    X = from_iterable(records).matrix
    n_pub = data.draw(st.integers(1, 4))
    mapping = np.array(data.draw(st.lists(st.integers(-1, n_pub - 1), min_size=X.shape[1], max_size=X.shape[1])),
                       dtype=np.int64)
    got = generalize_matrix(X, mapping, n_pub, chunk_rows=chunk)
    want = _whole_generalized(sp.csr_array(X), mapping, n_pub)
    assert got.shape == want.shape and got.dtype == bool
    assert np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices)


@settings(max_examples=40, deadline=None)
@given(records=records, chunk=st.integers(1, 40))
def test_supports_do_not_depend_on_the_run_length(records, chunk):
    import graphanon.data as data_module

    data = from_iterable(records)
    old = data_module._SUPPORT_CHUNK
    data_module._SUPPORT_CHUNK = chunk
    try:
        got = data.supports()
    finally:
        data_module._SUPPORT_CHUNK = old
    assert got.dtype == np.int64
    assert np.array_equal(got, np.asarray(data.matrix.sum(axis=0)).ravel())


@settings(max_examples=40, deadline=None)
@given(records=records, chunk=st.integers(1, 40), data=st.data())
def test_relabelled_row_hashes_equal_the_hashes_of_the_renamed_matrix(records, chunk, data):
    X = sp.csr_array(from_iterable(records).matrix)
    relabel = np.array(data.draw(st.permutations(range(X.shape[1]))), dtype=np.int64)
    renamed = sp.csr_array((np.ones(X.nnz, dtype=bool), relabel[X.indices], X.indptr), shape=X.shape)
    renamed.sort_indices()
    assert np.array_equal(row_hashes(X, chunk_rows=chunk, relabel=relabel), _whole_row_hashes(renamed))


# --- the JSON writer of a release's record lists, a block of rows at a time ---

int_rows = st.lists(st.lists(st.integers(0, 2**63 - 1) | st.integers(0, 12), max_size=6), min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(rows=int_rows, block=st.integers(1, 40))
def test_int_rows_json_does_not_depend_on_the_block(rows, block):
    from graphanon.readwrite.files import IntList, IntRows

    indptr = np.r_[0, np.cumsum([len(r) for r in rows], dtype=np.int64)]
    values = np.array([x for r in rows for x in r], dtype=np.int64)
    whole = json.dumps(rows, separators=(",", ":"))
    assert IntRows(indptr, values).to_json(block=block) == whole == IntRows(indptr, values).to_json()
    assert IntList(values).to_json(block=block) == json.dumps(values.tolist(), separators=(",", ":"))


def test_nonreciprocal_thresholds_are_written_as_the_plain_json_list(tmp_path):
    from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal

    rel = anonymize_nonreciprocal(load("chess"), k=5, order="gray", unsafe_secret_seed=0)
    rel.save(tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["threshold"] == rel.threshold.tolist() == rel.to_dict()["threshold"]
    assert max(doc["threshold"]) > 0
