"""AA and Partition with ``client=`` publish the one-process release (2-worker LocalCluster)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.distributed")

from graphanon.algorithms import anonymize_aa  # noqa: E402
from graphanon.datasets import load, load_taxonomy  # noqa: E402
from graphanon.datasets.synthetic import quest, quest_taxonomy  # noqa: E402
from graphanon.privacy import KmAnonymity  # noqa: E402

_SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _same_global(got, ref):
    assert got.trace.cut == ref.trace.cut
    assert got.params == ref.params
    assert got.published_items == ref.published_items
    assert (got.records != ref.records).nnz == 0
    np.testing.assert_array_equal(got.link.row_of_record, ref.link.row_of_record)


@_SETTINGS
@given(st.integers(0, 10**6), st.integers(2, 8), st.integers(1, 3), st.integers(1, 5), st.integers(2, 5))
def test_aa_on_client_equals_single_process(dask_client, seed, k, m, parts, fanout):
    data = quest(400, n_items=60, avg_record_length=5, rng=seed)
    tax = quest_taxonomy(data, fanout=fanout, rng=seed)
    ref = anonymize_aa(data, taxonomy=tax, k=k, m=m, unsafe_secret_seed=0)
    got = anonymize_aa(data, taxonomy=tax, k=k, m=m, unsafe_secret_seed=0, client=dask_client, n_partitions=parts)
    _same_global(got, ref)


def test_aa_on_client_bundled_data_reports_progress(dask_client):
    data, tax = load("groceries"), load_taxonomy("groceries")
    ref = anonymize_aa(data, taxonomy=tax, k=10, m=2, unsafe_secret_seed=3)
    seen = []
    got = anonymize_aa(data, taxonomy=tax, k=10, m=2, unsafe_secret_seed=3, client=dask_client,
                       progress=lambda *a: seen.append(a))
    _same_global(got, ref)
    assert sum(ref.params["steps_per_pass"]) > 0  # the run generalized something
    assert any("AA pass 2" in msg for _, _, msg in seen)
    assert any("counting" in msg for _, _, msg in seen)  # the blocks' counts, as they finish
    assert KmAnonymity(10, 2).audit(data, got, client=dask_client).satisfied


def test_cli_anonymize_aa_on_dask_gives_the_one_process_release(cli_on_test_cluster, monkeypatch, tmp_path):
    from click.testing import CliRunner

    from graphanon.cli import main
    from graphanon.release import load_release

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    args = ["anonymize", "groceries", "-a", "aa", "-k", "10", "-m", "2"]
    assert runner.invoke(main, [*args, "-o", "one.json"]).exit_code == 0
    result = runner.invoke(main, [*args, "-o", "dask.json", "--scheduler", "local:2"])
    assert result.exit_code == 0, result.output
    assert cli_on_test_cluster == ["local:2"]
    one, dist = load_release("one.json"), load_release("dask.json")
    assert one.mapping == dist.mapping
    rows = [sorted(r.render_record(i) for i in range(r.n_records)) for r in (one, dist)]
    assert rows[0] == rows[1]
