"""The k^m and k^infinity audits on Dask give the single-process report exactly (2-worker LocalCluster)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.distributed")

from graphanon.algorithms import anonymize_partition  # noqa: E402
from graphanon.counting import containment  # noqa: E402
from graphanon.data import from_iterable  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.distributed import connect, equal_row_groups, record_supports, require_dask  # noqa: E402
from graphanon.errors import ParameterError  # noqa: E402
from graphanon.privacy import KmAnonymity, TransactionalKAnonymity  # noqa: E402
from graphanon.release import GlobalRecoding  # noqa: E402
from tests.conftest import cli  # noqa: E402

from ..conftest import small_records  # noqa: E402

_SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _coarsened(data, width: int):
    """A global recoding that merges items ``width`` at a time (``width=1``: the raw data)."""
    items = list(data.items)
    return GlobalRecoding.from_mapping(data, {x: "+".join(items[i - i % width : i - i % width + width])
                                              for i, x in enumerate(items)})


def _same_audit(model, data, release, client, max_examples=10):
    local = model.audit(data, release, max_examples=max_examples).to_dict()
    seen = []
    dist = model.audit(data, release, max_examples=max_examples, client=client,
                       progress=lambda *a: seen.append(a)).to_dict()
    assert dist == local
    return local, seen


@_SETTINGS
@given(small_records(max_records=30, max_items=7), st.integers(1, 4), st.one_of(st.none(), st.integers(1, 4)),
       st.integers(1, 3))
def test_audit_equals_single_process(dask_client, records, k, m, width):
    data = from_iterable(records, items=list(range(7)))
    if k > data.n_records:
        return
    _same_audit(KmAnonymity(k, m), data, _coarsened(data, width), dask_client, max_examples=10_000)


@_SETTINGS
@given(small_records(max_records=40, max_items=6, min_records=0), st.integers(1, 6))
def test_record_supports_equal_for_any_partition(dask_client, records, parts):
    X = from_iterable(records, items=list(range(6))).matrix
    got = record_supports(X, client=dask_client, n_partitions=parts)
    np.testing.assert_array_equal(got, containment.record_supports(X))


def test_record_supports_counts_duplicates_across_blocks(dask_client):
    # the same record in every block: each copy is contained in all of them
    X = sp.csr_array(np.tile([[1, 1, 0], [0, 1, 1], [0, 0, 0]], (5, 1)).astype(bool))
    got = record_supports(X, client=dask_client, n_partitions=4)
    np.testing.assert_array_equal(got, np.tile([5, 5, 15], 5))


@pytest.mark.parametrize("m", [2, None])
def test_bms1_sample_audit_equal(dask_client, m):
    data = load("bms1").subset(np.arange(0, 59602, 8))
    report, seen = _same_audit(KmAnonymity(5, m), data, _coarsened(data, 4), dask_client)
    assert not report["satisfied"] and report["violations"] > 0
    assert seen and seen[-1][0] == seen[-1][1]  # block tasks reported up to completion


def test_local_recoding_audit_equal(dask_client):
    data, tax = load("groceries"), load_taxonomy("groceries")
    data = data.subset(np.arange(0, data.n_records, 4))
    release = anonymize_partition(data, taxonomy=tax, k=5, unsafe_secret_seed=1)
    for m in (2, None):
        _same_audit(KmAnonymity(5, m), data, release, dask_client)


def test_containment_progress_counts_every_block_pair(dask_client):
    X = load("bms1").matrix[:3000]
    seen = []
    record_supports(X, client=dask_client, n_partitions=3, progress=lambda *a: seen.append(a))
    assert seen[0] == (0, 9, "containment counts") and seen[-1] == (9, 9, "containment counts")
    assert [d for d, _, _ in seen] == list(range(10))


def test_unreachable_scheduler_and_bad_local_are_one_line_errors():
    with pytest.raises(ParameterError, match="cannot reach the Dask scheduler at 'tcp://127.0.0.1:1'"):
        with connect("tcp://127.0.0.1:1", timeout=1):
            pass
    for bad in ("local:0", "local:x", "local:"):
        with pytest.raises(ParameterError, match="local:N needs a number of workers"):
            with connect(bad):
                pass


def test_without_dask_the_package_imports_and_says_what_to_install():
    code = (
        "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None\n"
        "import graphanon.distributed as d\n"
        "from graphanon.errors import ParameterError\n"
        "try:\n    d.require_dask()\nexcept ParameterError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 'graphanon[dask]'" in out
    assert require_dask().__name__ == "distributed"  # installed here


def test_cli_audit_on_dask_prints_the_same_report(cli_on_test_cluster, tmp_path, monkeypatch):
    import json


    used = cli_on_test_cluster
    monkeypatch.chdir(tmp_path)
    assert cli("anonymize", "groceries", "-a", "aa", "-k", "5", "-m", "2", "-o", "rel.json").exit_code == 0
    codes = []
    for model in (["km", "-m", "2"], ["km", "-m", "inf"], ["transactional"]):
        args = ["audit", "groceries", "rel.json", "--model", *model, "-k", "10", "--json"]
        local = cli(*args)
        dist = cli(*args, "--scheduler", "local:2")
        assert dist.exit_code == local.exit_code and json.loads(dist.output) == json.loads(local.output)
        codes.append(local.exit_code)
    assert codes[-1] == 1  # transactional k=10 of a k^2 release: real violations, reported alike
    assert used == ["local:2"] * 3
    wrong = cli("audit", "groceries", "rel.json", "--model", "nonreciprocal", "-k", "5", "--scheduler", "local:2")
    assert wrong.exit_code == 2 and "--scheduler runs the km and transactional audits on Dask" in wrong.output
    assert len(wrong.output.strip().splitlines()) == 1


@settings(max_examples=40, deadline=None)
@given(small_records(max_records=15, max_items=5, min_records=0), small_records(max_records=15, max_items=5))
def test_contained_counts_brute_force(queries, records):
    Q = from_iterable(queries, items=list(range(5))).matrix
    X = from_iterable(records, items=list(range(5))).matrix
    want = [sum(set(q) <= set(r) for r in records) for q in queries]
    np.testing.assert_array_equal(containment.contained_counts(Q, X), want)
    np.testing.assert_array_equal(containment.contained_counts(X, X), containment.record_supports(X))


@_SETTINGS
@given(small_records(max_records=40, max_items=6, min_records=0), st.integers(1, 5), st.integers(1, 3),
       st.integers(1, 6))
def test_transactional_audit_equals_single_process(dask_client, records, k, width, parts):
    data = from_iterable(records, items=list(range(6)))
    if not 1 <= k <= data.n_records:
        return
    release = _coarsened(data, width)
    model = TransactionalKAnonymity(k)
    local = model.audit(data, release, max_examples=3).to_dict()
    assert model.audit(data, release, max_examples=3, client=dask_client).to_dict() == local
    groups, smallest, rows, sizes = equal_row_groups(release.records, k, client=dask_client, n_partitions=parts)
    keys = [tuple(r) for r in release.records.tolil().rows]
    assert groups == len(set(keys)) and smallest == min(keys.count(t) for t in keys)
    assert rows.tolist() == [i for i, t in enumerate(keys) if keys.count(t) < k]
    assert sizes.tolist() == [keys.count(keys[i]) for i in rows]


def test_transactional_audit_of_local_recodings_equal(dask_client):
    data, tax = load("groceries"), load_taxonomy("groceries")
    release = anonymize_partition(data, taxonomy=tax, k=3, unsafe_secret_seed=0)
    for k in (3, 4, 12):
        local = TransactionalKAnonymity(k).audit(data, release).to_dict()
        assert TransactionalKAnonymity(k).audit(data, release, client=dask_client).to_dict() == local
    assert local["violations"] > 0  # k=12 > the groups' size 3: the report lists real violations


@pytest.mark.parametrize("parts", [2, 7])
def test_audits_round_trips_do_not_grow_with_blocks(dask_client, parts):
    """The k^m search asks one question for levels 1-2 and one per higher level; the k^infinity and the
    transactional audits one each; a scatter of the blocks before each: the same counts for 2 and 7 blocks."""
    from graphanon.distributed import count_round_trips, minimal_infrequent_itemsets

    data = load("bms1").subset(np.arange(0, 59602, 16))
    X = _coarsened(data, 4).records
    for m, levels in ((1, 1), (2, 1), (3, 2), (4, 3)):
        with count_round_trips() as trips:
            viol, _ = minimal_infrequent_itemsets(X, 5, m, client=dask_client, n_partitions=parts)
        assert dict(trips) == {"scatter": 1, "count": levels}, (m, dict(trips))
        assert len(viol) == m and len(viol[-1]) > 0  # every level was reached and counted
    with count_round_trips() as trips:
        record_supports(X, client=dask_client, n_partitions=parts)
    assert dict(trips) == {"scatter": 1, "count": 1}
    with count_round_trips() as trips:
        equal_row_groups(X, 5, client=dask_client, n_partitions=parts)
    assert dict(trips) == {"scatter": 1, "count": 1}
