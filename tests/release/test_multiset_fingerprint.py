"""The ``mset-blake2b`` data fingerprint: a keyed multiset hash, the same from blocks on Dask workers as in memory.

Checked against a second, record-by-record computation of the documented
construction (plain ``hashlib``/``hmac``, Python integers); order
independence and one-item changes; block sums on a Dask cluster (1-5
blocks) against the in-memory digest; and a release written before the
scheme (``hmac-sha256``, its digest computed by the code of that time and
pinned here) still loads and is verified.
"""

from __future__ import annotations

import hashlib
import hmac
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.data import from_iterable
from graphanon.errors import DataMismatchError, ReleaseFormatError
from graphanon.release import GlobalRecoding, check_same_data, load_release, publish
from graphanon.release.fingerprint import (
    FINGERPRINT_SCHEME,
    HMAC_SCHEME,
    canonical_vocabulary,
    data_fingerprint,
    fingerprint_from_sums,
)
from graphanon.release.multiset_hash import MODULUS, multiset_sum, record_key
from graphanon.release.private_link import attach_link, load_private_link

from ..conftest import small_records


def _by_hand(records: list, items: list, key: str) -> str:
    """The construction of ``graphanon.release.multiset_hash``, one record at a time with Python integers."""
    k = bytes.fromhex(key)
    vocabulary = sorted(str(x) for x in items)
    rank = {x: vocabulary.index(str(x)) for x in items}
    kr = hmac.new(k, b"graphanon-data-fingerprint/3 record\0", hashlib.sha256).digest()
    total = 0
    for r in records:
        message = b"".join(v.to_bytes(4, "little") for v in sorted(rank[x] for x in set(r)))
        total += int.from_bytes(hashlib.blake2b(message, key=kr, digest_size=32).digest(), "little")
    nnz = sum(len(set(r)) for r in records)
    mac = hmac.new(k, b"graphanon-data-fingerprint/3\0", hashlib.sha256)
    for v in (len(records), len(items), nnz):
        mac.update(v.to_bytes(8, "little", signed=True))
    mac.update((total % 2**256).to_bytes(32, "little"))
    mac.update(json.dumps(vocabulary, ensure_ascii=False).encode("utf-8"))
    return mac.hexdigest()


@settings(max_examples=40, deadline=None)
@given(small_records(max_records=30, max_items=12, min_records=0), st.binary(min_size=16, max_size=32))
def test_digest_equals_the_construction_computed_record_by_record(records, key_bytes):
    items = list(range(12))  # labels 10, 11 sort before 2 as text
    data = from_iterable(records, items=items)
    fp = data_fingerprint(data, key=key_bytes.hex())
    assert fp == {"scheme": FINGERPRINT_SCHEME, "digest": _by_hand(records, items, key_bytes.hex())}


@settings(max_examples=40, deadline=None)
@given(small_records(max_records=30, max_items=8, min_records=1), st.integers(0, 2**32 - 1), st.data())
def test_a_permuted_copy_matches_and_a_one_item_change_does_not(records, seed, draw):
    items = list(range(8))
    key = np.random.default_rng(seed).bytes(32).hex()
    digest = data_fingerprint(from_iterable(records, items=items), key=key)["digest"]
    rng = np.random.default_rng(seed)
    shuffled = [list(rng.permutation(records[i])) for i in rng.permutation(len(records))]
    assert data_fingerprint(from_iterable(shuffled, items=items), key=key)["digest"] == digest
    i, x = draw.draw(st.integers(0, len(records) - 1)), draw.draw(st.sampled_from(items))
    changed = [list(r) for r in records]
    changed[i] = sorted(set(changed[i]) ^ {x})  # one item added or removed in one record
    assert data_fingerprint(from_iterable(changed, items=items), key=key)["digest"] != digest
    moved = [list(r) for r in records]  # one item replaced by another (same counts, when it can be)
    y = next((y for y in items if y not in moved[i]), None)
    if moved[i] and y is not None:
        moved[i] = sorted(set(moved[i]) - {moved[i][0]} | {y})
        assert data_fingerprint(from_iterable(moved, items=items), key=key)["digest"] != digest


def test_duplicates_and_empty_records_count():
    """A multiset, not a set: a record twice differs from once; an empty record is a record."""
    key = "33" * 32
    digests = {data_fingerprint(from_iterable(r, items=["a", "b"]), key=key)["digest"]
               for r in ([["a"]], [["a"], ["a"]], [["a"], []], [["a"], [], []], [["a", "b"]], [])}
    assert len(digests) == 6


def test_sums_of_blocks_add_up_in_any_split():
    rng = np.random.default_rng(5)
    records = [sorted(set(rng.choice(20, rng.integers(0, 6)).tolist())) for _ in range(200)]
    data = from_iterable(records, items=list(range(20)))
    key = "c4" * 32
    rank, vocabulary = canonical_vocabulary(data.items)
    rk = record_key(key)
    whole = multiset_sum(data.matrix, rank, rk)
    for cuts in ([100], [1, 2, 199], [50, 50, 120]):
        edges = [0, *cuts, 200]
        sums = [multiset_sum(data.matrix[a:b], rank, rk) for a, b in zip(edges[:-1], edges[1:], strict=True)]
        assert sum(sums) % MODULUS == whole
        fp, counts = fingerprint_from_sums(key=key, shape=data.matrix.shape, vocabulary=vocabulary,
                                           nnz=int(data.matrix.nnz), sums=sums)
        assert fp == data_fingerprint(data, key=key) and counts["records"] == 200


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(small_records(max_records=40, max_items=10, min_records=5), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_dask_block_sums_equal_the_in_memory_digest(dask_client, records, n_blocks, seed):
    """Records scattered in 1-5 blocks, each summed on a worker: the client's digest is the in-memory one."""
    from graphanon.distributed import scatter_blocks

    data = from_iterable(records, items=list(range(10)))
    key = np.random.default_rng(seed).bytes(32).hex()
    rank, vocabulary = canonical_vocabulary(data.items)
    blocks = scatter_blocks(data.matrix, dask_client, n_partitions=n_blocks)
    assert len(blocks.futures) == n_blocks
    rk = record_key(key)
    sums = dask_client.gather([dask_client.submit(multiset_sum, f, rank, rk, pure=False) for f in blocks.futures])
    fp, _ = fingerprint_from_sums(key=key, shape=data.matrix.shape, vocabulary=vocabulary,
                                  nnz=int(data.matrix.nnz), sums=sums)
    assert fp == data_fingerprint(data, key=key)


# A release written before the multiset scheme: publish(DATA, RECODE, unsafe_secret_seed=4) by the code of
# commit 2ccb436 wrote this fingerprint (and its link the same, with the key below).
OLD_RECORDS = [["a", "c"], ["b"], ["a", "b", "c"], ["c"], [], ["10", "2"]]
OLD_RECODE = {"a": "(a,b)", "b": "(a,b)", "c": "c", "10": "10", "2": "2"}
OLD_KEY = "6eabb114b3131a74fbab7b9b063d7b48bf6c61607b0981a0c26549cd0410b694"
OLD_DIGEST = "a8d946529d6850585777e496b8ba451f87580498faf4b82c3e02d55ce1e25db5"


def test_a_release_of_the_hmac_scheme_still_loads_and_is_verified(tmp_path):
    data = from_iterable(OLD_RECORDS, record_ids=list("uvwxyz"))
    rel = publish(data, GlobalRecoding.from_mapping(data, OLD_RECODE), unsafe_secret_seed=4)
    assert rel.link.key == OLD_KEY and rel.fingerprint["scheme"] == FINGERPRINT_SCHEME
    old = {"scheme": HMAC_SCHEME, "digest": OLD_DIGEST}
    assert data_fingerprint(data, key=OLD_KEY, scheme=HMAC_SCHEME) == old  # the old code path kept
    rel.fingerprint = rel.link.fingerprint = old  # the files that code wrote
    rel.save(tmp_path / "old.json")
    rel.link.save(tmp_path / "old-link.json")
    loaded = load_release(tmp_path / "old.json")
    assert loaded.fingerprint == old
    attach_link(loaded, load_private_link(tmp_path / "old-link.json"))
    assert check_same_data(from_iterable(OLD_RECORDS[::-1]), loaded) is True
    with pytest.raises(DataMismatchError, match="same counts"):
        check_same_data(from_iterable([["b", "c"], *OLD_RECORDS[1:]]), loaded)
    doc = json.loads((tmp_path / "old.json").read_text())
    doc["data_fingerprint"]["scheme"] = "sha1"
    (tmp_path / "unknown.json").write_text(json.dumps(doc))
    with pytest.raises(ReleaseFormatError, match="scheme 'sha1' is unknown"):
        load_release(tmp_path / "unknown.json")
