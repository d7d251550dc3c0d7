"""The publication model: what a saved release may (not) contain, secret shuffles,
the private link, the data fingerprint, and the CLI's refusal of mismatched pairs."""

from __future__ import annotations

import collections
import json
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.cli.registry import RunOptions, get_algorithm
from graphanon.data import TransactionData, from_iterable
from graphanon.errors import DataMismatchError, ParameterError, ReleaseFormatError
from graphanon.metrics.evaluate import evaluate_release
from graphanon.metrics.nonreciprocal import error_rate
from graphanon.privacy.consistency import recoding_mismatches
from graphanon.privacy.registry import build_model
from graphanon.release import (
    GlobalRecoding,
    ReleaseLink,
    check_same_data,
    data_fingerprint,
    load_link,
    load_release,
)
from graphanon.release.fingerprint import data_counts, legacy_fingerprint
from graphanon.taxonomy import Taxonomy

from ..conftest import random_recoding, small_records

RARE = "ITEM-RARE-QQ7"


def _data(n: int = 40, seed: int = 0) -> TransactionData:
    """Distinct records with distinctive ids, a rare item, and four balanced labels."""
    rng = np.random.default_rng(seed)
    items = [f"ITEM-{j:02d}" for j in range(10)]
    seen, records = set(), []
    while len(records) < n:
        rec = frozenset(x for x in items if rng.random() < 0.35)
        if rec and rec not in seen:
            seen.add(rec)
            records.append(sorted(rec))
    records[5] = sorted(set(records[5]) | {RARE})
    labels = [f"diag-{i % 4}" for i in range(n)]
    return from_iterable(records, record_ids=[f"PERSON-{i:03d}-XQ" for i in range(n)], labels=labels)


@pytest.fixture(scope="module")
def data():
    return _data()


@pytest.fixture(scope="module")
def tax(data):
    return Taxonomy.balanced(data.items, 3, prefix="NODEQ")


# method -> (k, m, --param, audit --param); every registered anonymizer is listed
METHODS = {
    "cut": (1, None, {"level": "2", "suppress": "NODEQ1_0"}, {}),
    "aa": (2, 2, {}, {}),
    "hghs": (3, 2, {}, {}),
    "mhghs": (3, 2, {}, {}),
    "mm": (3, 2, {}, {}),
    "coat": (2, None, {"privacy": "km:2", "s": "100%"}, {"privacy": "km:2", "s": "100%"}),
    "nr": (3, None, {"order": "gray"}, {}),
    "cahd": (None, None, {"l": "3"}, {"l": "3"}),
    "clump": (3, None, {}, {}),
    "partition": (3, None, {}, {}),
}


def test_every_registered_anonymizer_is_covered():
    from graphanon.cli.registry import registered

    # the tendency-hiding methods publish perturbed rows (no labels; SplitPerson has more rows than
    # records): their publication checks live in tests/release/test_swapping_publication.py
    swapping = {"partswap", "fullswap", "randswap", "partsupp", "splitperson"}
    # a DP method publishes a synthetic dataset: no row stands for a record, so no shuffle, link or
    # fingerprint to check; its publication checks live in tests/algorithms/test_dp.py
    dp = {"diffpart", "privbasis"}
    # relational-transaction methods read a relational table too: their publication checks live in
    # tests/release/test_rt_release.py
    relational = {"rt", "rt-naive"}
    assert set(registered()) == set(METHODS) | swapping | dp | relational


def _run(name, data, tax, *, seed=None, unsafe_secret_seed=None):
    k, m, params, _ = METHODS[name]
    opts = RunOptions(k=k, m=m, taxonomy=tax, seed=seed, params=dict(params), unsafe_secret_seed=unsafe_secret_seed)
    return get_algorithm(name).run(data, opts)


def _keys(doc):
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield key
            yield from _keys(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from _keys(value)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_saved_release_holds_no_id_order_seed_or_suppressed_name(name, data, tax, tmp_path):
    rel = _run(name, data, tax, seed=12345)
    path = tmp_path / "r.json"
    rel.save(path)
    text = path.read_text()
    assert "PERSON-" not in text and "record_id" not in text  # no input id
    assert "row_of_record" not in text and "graphanon-private-link" not in text  # never the link
    assert not {"seed", "rng", "unsafe_secret_seed", "record_ids"} & set(_keys(json.loads(text)))
    assert not re.search(r"[:\[,]12345[,\]}]", text)  # the seed is not a number of the file
    # no oracle: the fingerprint is a keyed digest only -- no salt, no key, no count of the data
    assert set(json.loads(text)["data_fingerprint"]) == {"scheme", "digest"}
    assert rel.link.key is not None and rel.link.key not in text
    assert not {"salt", "occurrences", "data_key", "data_counts"} & set(_keys(json.loads(text)))
    # no input order: record i's row is a secret permutation (identity has probability 1/40!)
    assert rel.pseudonyms == tuple(f"p{i}" for i in range(1, data.n_records + 1))
    assert not (rel.link.row_of_record == np.arange(data.n_records)).all()
    suppressed = set(getattr(rel, "suppressed", None) or ()) | set(getattr(rel.trace, "suppressed", None) or ())
    if name in ("cut", "mm"):
        assert suppressed, "this case must suppress something to test item 6"
    for label in suppressed:
        assert f'"{label}"' not in text, f"{name} names suppressed {label!r}"
    if name == "mm":
        assert RARE in suppressed
    if getattr(rel, "n_suppressed", None) is not None:
        assert json.loads(text)["n_suppressed"] == len(rel.suppressed)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_release_passes_its_audit_and_round_trips(name, data, tax, tmp_path):
    rel = _run(name, data, tax, seed=1)
    k, m, _, audit_params = METHODS[name]
    spec = get_algorithm(name)
    model = build_model(spec.privacy_model, k=k, m=m, params=audit_params, original=data)
    assert model.audit(data, rel).satisfied
    # sensitive labels travel with their rows through the shuffle
    assert [rel.labels[p] for p in rel.link.row_of_record] == list(data.labels)
    assert [int(rel.link.record_of_row[p]) for p in rel.link.row_of_record] == list(range(data.n_records))
    for suffix in (".json", ".json.gz"):
        rel.save(tmp_path / f"r{suffix}")
        back = load_release(tmp_path / f"r{suffix}")
        assert type(back) is type(rel) and back.to_dict() == rel.to_dict() and back.link is None
        assert back.to_text() == rel.to_text()
        assert check_same_data(data, back) is False  # keyed: no key at hand without the private link
        assert check_same_data(data, back, link=rel.link) is True
        assert model.audit(data, back).satisfied
        assert check_same_data(data.subset(np.random.default_rng(2).permutation(data.n_records)), back, link=rel.link)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_unsafe_secret_seed_gives_byte_identical_files(name, data, tax, tmp_path):
    for suffix in (".json", ".json.gz"):
        blobs = []
        for run in range(2):
            rel = _run(name, data, tax, seed=3, unsafe_secret_seed=11)
            rel.save(tmp_path / f"{run}{suffix}")
            blobs.append((tmp_path / f"{run}{suffix}").read_bytes())
        assert blobs[0] == blobs[1]
    other = _run(name, data, tax, seed=3, unsafe_secret_seed=12)
    other.save(tmp_path / "other.json")
    assert (tmp_path / "other.json").read_bytes() != (tmp_path / "0.json").read_bytes()


@pytest.mark.parametrize("name", sorted(METHODS))
def test_unseeded_runs_publish_different_row_orders(name, data, tax):
    a = _run(name, data, tax, seed=5)
    b = _run(name, data, tax, seed=5)  # same structure seed, fresh secret
    assert not np.array_equal(a.link.row_of_record, b.link.row_of_record)
    assert a.link.key != b.link.key and a.fingerprint["digest"] != b.fingerprint["digest"]


def test_nr_assignment_is_secret_not_a_function_of_the_seed(data):
    rels = [anonymize_nonreciprocal(data, k=5, order="gray", rng=7) for _ in range(8)]
    for rel in rels:  # same rng -> same public structure (order, graph); the secret is never in the trace
        assert np.array_equal(rel.trace.order, rels[0].trace.order)
        assert np.array_equal(rel.trace.graph.successors, rels[0].trace.graph.successors)
        assert not hasattr(rel.trace, "chosen")
    # the k assignments themselves are secret: the seed does not reproduce them (issue 20, item 1)
    assert len({rel.trace.assignments.tobytes() for rel in rels}) > 1
    # what each record is published as (its true row's bitmaps) depends on the chosen assignment only
    keys = {tuple(rel.bitmap_strings(int(rel.link.row_of_record[i])) for i in range(rel.n_records)) for rel in rels}
    assert len(keys) > 1  # the same assignment 8 times: probability 5**-7
    r1 = anonymize_nonreciprocal(data, k=5, order="gray", rng=7, unsafe_secret_seed=1)
    r2 = anonymize_nonreciprocal(data, k=5, order="gray", rng=7, unsafe_secret_seed=1)
    assert np.array_equal(r1.link.row_of_record, r2.link.row_of_record)
    assert np.array_equal(r1.trace.assignments, r2.trace.assignments)


def _published_factor(rel, data):
    """The chosen assignment of an nr release, read from its rows: record i's row has the bit vote of
    published record sigma[i]; exactly one of the k extracted assignments fits every record."""
    from graphanon.algorithms.nonreciprocal import members_matrix
    from graphanon.release.bit_voting import bit_vote

    A = rel.trace.assignments
    base, _, thr = bit_vote(data.matrix, members_matrix(A, data.n_records))
    rows = np.asarray(rel.link.row_of_record)
    got = [(rel.base[rows] != base[A[r]]).nnz == 0 and np.array_equal(rel.threshold[rows], thr[A[r]])
           for r in range(A.shape[0])]
    assert sum(got) == 1, "the test data must make the k factors tell apart"
    return A[got.index(True)]


def _distinct_records(n: int) -> TransactionData:
    return from_iterable([[f"i{j}" for j in range(8) if (r * 37 >> j) & 1] + [f"u{r}"] for r in range(n)])


def test_nr_every_edge_is_the_true_link_with_probability_one_over_k():
    """For a seed holder, each edge of the (public) ring is the published link with marginal 1/k: every
    edge lies in exactly one of the k secret factors and the chosen factor is uniform. 400 runs with the
    same seed, 12 records, k=3: every edge's frequency within 5 binomial standard errors of 1/k."""
    small = _distinct_records(12)
    n, k, runs = 12, 3, 400
    counts = collections.Counter()
    pairs = collections.Counter()
    for s in range(runs):
        rel = anonymize_nonreciprocal(small, k=k, order="identity", rng=5, unsafe_secret_seed=1000 + s)
        sigma = _published_factor(rel, small)
        counts.update((i, int(j)) for i, j in enumerate(sigma))
        pairs[(int(sigma[0]), int(sigma[6]))] += 1
    edges = [(i, int(j)) for i in range(n) for j in rel.trace.graph.successors[i]]
    assert len(set(edges)) == n * k and sum(counts[e] for e in edges) == n * runs
    se = (runs * (1 / k) * (1 - 1 / k)) ** 0.5
    worst = max(abs(counts[e] - runs / k) for e in edges)
    assert worst < 5 * se, (worst, se)
    # the seed no longer fixes the factors: with seed-fixed factors, records 0 and 6 (far apart on the
    # ring) could only be linked in k combinations; here all k * k occur
    assert len(pairs) == k * k, pairs


def test_link_round_trip_and_errors(data, tax, tmp_path):
    rel = _run("nr", data, tax, seed=2)
    for suffix in (".json", ".json.gz"):
        rel.link.save(tmp_path / f"l{suffix}")
        back = load_link(tmp_path / f"l{suffix}")
        assert np.array_equal(back.row_of_record, rel.link.row_of_record)
        assert np.array_equal(back.record_of_row[back.row_of_record], np.arange(data.n_records))
        assert back.record_ids == data.record_ids and back.fingerprint == rel.fingerprint
    doc = json.loads((tmp_path / "l.json").read_text())
    assert doc["format"] == "graphanon-private-link/1" and doc["never_publish"] is True
    assert "never publish" in doc["warning"].lower()
    # the link is for metrics only: ER from the saved pair equals ER in memory
    rel.save(tmp_path / "r.json")
    loaded = load_release(tmp_path / "r.json")
    assert error_rate(data, loaded, link=back) == pytest.approx(error_rate(data, rel))
    # records matched by id, so the data may come back in another order
    perm = np.random.default_rng(0).permutation(data.n_records)
    assert error_rate(data.subset(perm), loaded, link=back) == pytest.approx(error_rate(data, rel))
    with pytest.raises(ReleaseFormatError, match="not a graphanon-private-link/1 file"):
        load_link(tmp_path / "r.json")
    with pytest.raises(ReleaseFormatError, match="not a graphanon-release/3 document"):
        load_release(tmp_path / "l.json")
    with pytest.raises(ReleaseFormatError, match="no such private link"):
        load_link(tmp_path / "missing.json")
    bad = dict(doc, row_of_record=[0] * data.n_records)
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(ReleaseFormatError, match="not a permutation"):
        load_link(tmp_path / "bad.json")


def test_metrics_needing_the_link(data, tax, tmp_path):
    rel = _run("nr", data, tax, seed=2)
    rel.save(tmp_path / "r.json")
    loaded = load_release(tmp_path / "r.json")
    with pytest.raises(ParameterError, match="private link"):
        error_rate(data, loaded)
    out = evaluate_release(data, loaded, queries=20, rng=1)
    assert "error_rate" not in out and out["needs_link"] == ["error_rate"] and "query_error" in out
    full = evaluate_release(data, loaded, queries=20, rng=1, link=rel.link)
    assert full["error_rate"] == pytest.approx(error_rate(data, rel))
    assert {k: v for k, v in full.items() if k != "error_rate"} == {
        k: v for k, v in out.items() if k != "needs_link"
    }
    other = _run("nr", data, tax, seed=2)  # another release of the same data: another link
    with pytest.raises(DataMismatchError, match="not made with this release"):
        evaluate_release(data, loaded, queries=0, link=other.link)


def _keyed(data, key="ab" * 32):
    """The published fingerprint of ``data`` under ``key`` and a link holding the key (what the custodian keeps)."""
    fp = data_fingerprint(data, key=key)
    return fp, ReleaseLink(np.arange(data.n_records), fingerprint=fp, key=key, counts=data_counts(data))


@pytest.mark.parametrize("legacy", [False, True])
def test_fingerprint_is_order_free_and_binds_the_exact_data(data, legacy):
    if legacy:  # graphanon-release/2: salted, counts in clear; still checked without a link
        def check(d, fp, link):
            return check_same_data(d, fp)
        fp, link = legacy_fingerprint(data, salt="abcd"), None
        digest = lambda d: legacy_fingerprint(d, salt="abcd")  # noqa: E731
    else:
        def check(d, fp, link):
            return check_same_data(d, _Holder(fp), link=link)
        fp, link = _keyed(data)
        digest = lambda d: data_fingerprint(d, key="ab" * 32)  # noqa: E731
    shuffled = data.subset(np.random.default_rng(1).permutation(data.n_records))
    assert digest(shuffled) == fp
    # the same records over a vocabulary in another column order
    cols = np.random.default_rng(2).permutation(data.n_items)
    reordered = TransactionData(data.matrix[:, cols], [data.items[j] for j in cols], data.record_ids)
    assert digest(reordered) == fp
    # one record changed, with the same counts: item ITEM-00 moved from one record to another
    X = data.matrix.tolil(copy=True)
    j = data.item_id("ITEM-00")
    donor = next(i for i in range(data.n_records) if X[i, j])
    taker = next(i for i in range(data.n_records) if not X[i, j])
    X[donor, j], X[taker, j] = False, True
    changed = TransactionData(sp.csr_array(X), data.items, data.record_ids)
    assert changed.matrix.nnz == data.matrix.nnz
    with pytest.raises(DataMismatchError, match="same counts .* but different records"):
        check(changed, fp, link)
    with pytest.raises(DataMismatchError, match="it was made from 40 records"):
        check(_data(n=39, seed=0), fp, link)
    other = _data(n=40, seed=9)
    with pytest.raises(DataMismatchError):
        check(other, fp, link)
    assert check(shuffled, fp, link) is True
    assert check_same_data(data, None) is False
    if not legacy:
        assert check_same_data(data, fp) is False  # the published fingerprint alone verifies nothing
        _, wrong = _keyed(data, key="cd" * 32)  # a link of another release
        with pytest.raises(DataMismatchError, match="private link was not made with this release"):
            check(data, fp, wrong)


class _Holder:
    """A stand-in release: only its published fingerprint (no link)."""

    def __init__(self, fp):
        self.fingerprint = fp
        self.link = None


def test_release_refuses_secret_params_and_old_format(tmp_path):
    d = from_iterable([["a"], ["b"]])
    for key in ("seed", "rng", "unsafe_secret_seed"):
        with pytest.raises(ReleaseFormatError, match="never records"):
            GlobalRecoding.from_mapping(d, {"a": "a", "b": "b"}, params={key: 1})
    (tmp_path / "old.json").write_text(json.dumps({"format": "graphanon-release/1", "kind": "global_recoding",
                                                   "record_ids": ["x", "y"]}))
    with pytest.raises(ReleaseFormatError, match="published the original record ids.*re-run"):
        load_release(tmp_path / "old.json")


@settings(max_examples=60, deadline=None)
@given(small_records(max_records=15, max_items=5), st.data())
def test_recoding_check_is_order_free_and_counts_like_a_multiset(records, draw):
    d, _mapping, rel = random_recoding(records, draw, 5)
    perm = np.asarray(draw.draw(st.permutations(range(d.n_records))), dtype=np.int64)
    recs = sp.csr_array(rel.records)[perm].toarray()
    shuffled = GlobalRecoding(published_items=rel.published_items, records=recs, universe=rel.universe)
    assert recoding_mismatches(d, shuffled)[0] == 0
    if rel.n_published_items:
        i = draw.draw(st.integers(0, d.n_records - 1))
        g = draw.draw(st.integers(0, rel.n_published_items - 1))
        recs[i, g] = not recs[i, g]
        forged = GlobalRecoding(published_items=rel.published_items, records=recs, universe=rel.universe)
        want = collections.Counter(map(tuple, rel.records.toarray().tolist()))
        got = collections.Counter(map(tuple, recs.tolist()))
        assert recoding_mismatches(d, forged)[0] == sum((want - got).values()) > 0


def _write_basket(path, data):
    path.write_text("\n".join(",".join(sorted(r)) for r in data.records()) + "\n")


def test_cli_refuses_mismatched_pairs_and_link_over_release(run, tmp_path):
    data = _data()
    _write_basket(tmp_path / "a.txt", data)
    shuffled = data.subset(np.random.default_rng(4).permutation(data.n_records))
    _write_basket(tmp_path / "a_shuffled.txt", shuffled)
    _write_basket(tmp_path / "b.txt", _data(n=40, seed=9))
    res = run("anonymize", "a.txt", "-a", "nr", "-k", "3", "--param", "order=gray", "-o", "r.json", "--link-out", "r.json")
    assert res.exit_code == 2 and "needs a file of its own" in res.output and not (tmp_path / "r.json").exists()
    res = run("anonymize", "a.txt", "-a", "nr", "-k", "3", "--param", "order=gray", "-o", "r.json",
              "--link-out", "private.json")
    assert res.exit_code == 0, res.output
    assert run("audit", "a_shuffled.txt", "r.json", "--model", "nonreciprocal", "-k", "3").exit_code == 0
    for cmd in (("audit", "b.txt", "r.json", "--model", "nonreciprocal", "-k", "3"),
                ("evaluate", "b.txt", "r.json", "--queries", "10")):
        # the keyed fingerprint is verified with the private link: other data refused in one line
        res = run(*cmd, "--link", "private.json")
        lines = [line for line in res.output.splitlines() if line.strip()]
        assert res.exit_code == 2 and len(lines) == 1 and "not made from this data" in lines[0], res.output
        # without the key: the command runs and says in one line that it could not verify the data
        res = run(*cmd)
        assert res.output.count("graphanon: note:") == 1, res.output  # one note (wrapped at 80 columns)
        note = res.output.split("graphanon: note:", 1)[1]
        assert "not verified" in note and "--link" in note, res.output
        assert res.exit_code in (0, 1)
        assert "graphanon: note:" not in run(*cmd, "--allow-mismatch").output
    res = run("evaluate", "a.txt", "r.json", "--link", "private.json", "--queries", "10", "--json")
    assert res.exit_code == 0 and 0 <= json.loads(res.output)["error_rate"] <= 1
    # a basket file numbers records by line: shuffled lines keep the ids but not the records
    res = run("evaluate", "a_shuffled.txt", "r.json", "--link", "private.json", "--queries", "10")
    assert res.exit_code == 2 and "not the ones the private link was made with" in res.output
    res = run("evaluate", "a.txt", "r.json", "--link", "r.json")
    assert res.exit_code == 2 and "not a graphanon-private-link/1 file" in res.output
