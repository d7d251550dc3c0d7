"""No oracle in the public file (issue 30, item 2).

A ``graphanon-release/2`` file published its data's counts and a salted
digest with its salt: the completion adversary (every record but the
target's) tested guesses of the missing record against them and recovered
it. A ``graphanon-release/3`` file publishes a keyed digest whose key lives
in the private link: these tests re-run the attack and check that it
recovers records from an old file, gains nothing beyond the rows on a new
one, that nothing in a new file but the keyed digest depends on a record the
rows hide, and that old files still load (with a warning) and are checked.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

from graphanon.algorithms import anonymize_hghs
from graphanon.attacks import completion_attack, completion_guesses, file_oracle
from graphanon.data import TransactionData, from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import DataMismatchError, LegacyFingerprintWarning, ReleaseFormatError
from graphanon.release import GlobalRecoding, check_same_data, load_release, publish
from graphanon.release.fingerprint import data_fingerprint, legacy_fingerprint
from graphanon.release.private_link import attach_link, load_private_link


def _used(data: TransactionData) -> TransactionData:
    """``data`` over the items its records hold (what a file read gives)."""
    used = np.flatnonzero(np.asarray(sp.csr_array(data.matrix).sum(axis=0)).ravel() > 0)
    return TransactionData(sp.csr_array(data.matrix)[:, used], [data.items[j] for j in used], data.record_ids)


@pytest.fixture(scope="module")
def hghs_case(tmp_path_factory):
    """300 grocery baskets, HgHs k=5, m=2 on the bundled taxonomy; saved as a new and as an old file."""
    rng = np.random.default_rng(3)
    full = load("groceries")
    data = _used(full.subset(np.sort(rng.choice(full.n_records, 300, replace=False))))
    rel = anonymize_hghs(data, taxonomy=load_taxonomy("groceries"), k=5, m=2)
    tmp = tmp_path_factory.mktemp("oracle")
    rel.save(tmp / "new.json")
    rel.link.save(tmp / "link.json")
    old = anonymize_hghs(data, taxonomy=load_taxonomy("groceries"), k=5, m=2)
    old.fingerprint = legacy_fingerprint(data, salt="5e" * 16)  # what graphanon-release/2 published
    old.save(tmp / "old.json")
    lengths = np.diff(sp.csr_array(data.matrix).indptr)
    targets = np.flatnonzero((lengths >= 1) & (lengths <= 3))[:12]
    return data, tmp, targets


def test_completion_attack_recovers_exact_records_from_an_old_file(hghs_case):
    data, tmp, targets = hghs_case
    assert json.loads((tmp / "old.json").read_text())["format"] == "graphanon-release/2"
    with pytest.warns(LegacyFingerprintWarning, match="test guesses"):
        old = load_release(tmp / "old.json")
    result = completion_attack(data, old, targets=targets)
    d = result.details
    assert d["file_test"] and d["length_learnt"] == len(targets)
    # every target whose record the rows allow is recovered exactly, ungeneralized
    assert d["recovered"] == d["truth_allowed"] >= len(targets) - 2
    assert d["rows_only_recovered"] < d["recovered"]
    assert not result.within_bound()


def test_completion_attack_gains_nothing_beyond_the_rows_on_a_new_file(hghs_case):
    data, tmp, targets = hghs_case
    new = load_release(tmp / "new.json")
    assert file_oracle(data, new) is None  # nothing in the file to recompute
    result = completion_attack(data, new, targets=targets)
    d = result.details
    assert not d["file_test"] and d["length_learnt"] == 0 and d["median_tested"] == 0
    assert d["recovered"] == d["rows_only_recovered"]
    assert result.success == pytest.approx(result.bound) and result.within_bound()
    # the custodian still verifies the data with the private link
    attach_link(new, load_private_link(tmp / "link.json"))
    assert check_same_data(data, new) is True


def test_fast_oracle_agrees_with_the_fingerprint_recomputed():
    """The attack's incremental digest equals legacy_fingerprint of known + guess, guess by guess (brute force)."""
    records = [["a", "c"], ["b"], ["a", "b"], ["c", "d"], ["b", "d"], ["a"], ["d"]]
    data = from_iterable(records)
    recode = {"a": "(a,b)", "b": "(a,b)", "c": "(c,d)", "d": "(c,d)"}
    rel = publish(data, GlobalRecoding.from_mapping(data, recode), unsafe_secret_seed=2)
    for t in range(len(records)):
        rel.fingerprint = legacy_fingerprint(data, salt="0a" * 16)
        known = data.subset([i for i in range(len(records)) if i != t])
        oracle = file_oracle(known, rel)
        guesses = completion_guesses(known, rel)
        assert frozenset(records[t]) in guesses
        for g in guesses:
            full = from_iterable([*(sorted(r) for i, r in enumerate(records) if i != t), sorted(g)], items=data.items)
            want = legacy_fingerprint(full, salt="0a" * 16) == rel.fingerprint
            assert oracle(g) is want, (t, sorted(g))
        assert [g for g in guesses if oracle(g)] == [frozenset(records[t])]


def test_new_file_depends_on_a_hidden_record_only_through_the_keyed_digest(tmp_path):
    """Two datasets that differ in one record inside a published item: same secret draws, same file but the digest."""
    d1 = from_iterable([["a", "c"], ["b"], ["a", "b", "c"], ["c"]], record_ids=["w", "x", "y", "z"])
    d2 = from_iterable([["b", "c"], ["b"], ["a", "b", "c"], ["c"]], record_ids=["w", "x", "y", "z"])
    recode = {"a": "(a,b)", "b": "(a,b)", "c": "c"}
    docs = []
    for i, d in enumerate((d1, d2)):
        rel = publish(d, GlobalRecoding.from_mapping(d, recode), unsafe_secret_seed=9)
        rel.save(tmp_path / f"{i}.json")
        docs.append(json.loads((tmp_path / f"{i}.json").read_text()))
    fp1, fp2 = docs[0].pop("data_fingerprint"), docs[1].pop("data_fingerprint")
    assert docs[0] == docs[1] and fp1["scheme"] == fp2["scheme"] == "mset-blake2b" and fp1 != fp2
    # without the key the digest cannot be recomputed: another key gives another digest for the true data
    assert data_fingerprint(d1, key="00" * 32) != fp1


def test_old_file_loads_with_a_warning_and_is_still_checked(hghs_case):
    data, tmp, _ = hghs_case
    with pytest.warns(LegacyFingerprintWarning, match="counts and a salted digest"):
        old = load_release(tmp / "old.json")
    assert check_same_data(data, old) is True  # the clear salt still checks it, no link needed
    with pytest.raises(DataMismatchError, match="it was made from 300 records"):
        check_same_data(data.subset(np.arange(299)), old)
    doc = json.loads((tmp / "old.json").read_text())
    doc["data_fingerprint"] = {"scheme": "hmac-sha256", "digest": "ab"}  # a new fingerprint under the old tag
    (tmp / "mixed.json").write_text(json.dumps(doc))
    with pytest.warns(LegacyFingerprintWarning), pytest.raises(ReleaseFormatError, match="salt, digest"):
        load_release(tmp / "mixed.json")
    doc = json.loads((tmp / "new.json").read_text())
    doc["data_fingerprint"]["records"] = 300  # a count in clear under the new tag is refused
    (tmp / "counted.json").write_text(json.dumps(doc))
    with pytest.raises(ReleaseFormatError, match="scheme, digest only"):
        load_release(tmp / "counted.json")
