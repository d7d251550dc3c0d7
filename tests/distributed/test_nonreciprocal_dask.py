"""Nonreciprocal recoding on Dask: the Gray-TSP segments on a 2-worker LocalCluster give the
single-process structure and release exactly; the task helper keeps order and reports progress."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.distributed")

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal, gray_tsp_details  # noqa: E402
from graphanon.data import TransactionData  # noqa: E402
from graphanon.datasets import load  # noqa: E402
from graphanon.datasets.synthetic import quest  # noqa: E402
from graphanon.distributed.tasks import map_ordered  # noqa: E402
from graphanon.errors import ParameterError  # noqa: E402
from graphanon.privacy import LDiversity, NonreciprocalKAnonymity  # noqa: E402
from tests.conftest import cli  # noqa: E402


def _slow_square(x):
    import time

    time.sleep(0.002 * (x % 3))  # later tasks may finish first
    return x * x


def _squares_in_order(**where):
    seen = []
    out = list(map_ordered(_slow_square, iter(range(20)), total=20, in_flight=3,
                           progress=lambda d, t, m: seen.append((d, t, m)), message="squares", **where))
    assert out == [x * x for x in range(20)]
    assert seen == [(d, 20, "squares") for d in range(1, 21)]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_map_ordered_here_and_in_a_pool_keeps_order_and_reports_progress(n_jobs):
    _squares_in_order(n_jobs=n_jobs)


def test_map_ordered_on_a_client_keeps_order_and_reports_progress(dask_client):
    _squares_in_order(client=dask_client)


def test_map_ordered_refuses_bad_worker_counts():
    with pytest.raises(ParameterError, match="n_jobs"):
        list(map_ordered(abs, [1], n_jobs=0))
    with pytest.raises(ParameterError, match="in_flight"):
        list(map_ordered(abs, [1], in_flight=0))


@pytest.mark.parametrize("solver", ["ortools", "local"])
def test_gray_tsp_on_client_equals_single_process(dask_client, solver):
    X = quest(1500, n_items=120, rng=5).matrix
    options = {"min_segment": 40, "max_segment": 60, "time_limit": None, "step_limit": 3000, "rng": 7,
               "solver": solver}
    ref = gray_tsp_details(X, **options)
    got = gray_tsp_details(X, client=dask_client, **options)
    assert len(ref.bounds) > 20  # many segments, spread over both workers
    assert ref.solved.any() and (ref.tsp_costs < ref.gray_costs).any()  # the search did change segments
    for name in ("order", "gray", "bounds", "gray_costs", "tsp_costs", "solved"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name), err_msg=name)


def _same_release(a, b):
    np.testing.assert_array_equal(a.trace.order, b.trace.order)
    np.testing.assert_array_equal(a.trace.assignments, b.trace.assignments)
    np.testing.assert_array_equal(a.link.row_of_record, b.link.row_of_record)
    assert (a.base != b.base).nnz == 0 and (a.distance != b.distance).nnz == 0
    np.testing.assert_array_equal(a.threshold, b.threshold)


def test_anonymize_on_client_equals_single_process_and_passes_audit(dask_client):
    data = load("chess")
    ref = anonymize_nonreciprocal(data, k=5, rng=3, unsafe_secret_seed=1, tsp_step_limit=4000)
    got = anonymize_nonreciprocal(data, k=5, rng=3, unsafe_secret_seed=1, tsp_step_limit=4000, client=dask_client)
    _same_release(got, ref)
    assert not np.array_equal(ref.trace.order, np.sort(ref.trace.order))  # a real (non-identity) order
    assert NonreciprocalKAnonymity(5).audit(data, got).satisfied


def test_ldiverse_on_client_equals_single_process(dask_client):
    X = quest(1200, n_items=150, rng=2)
    labels = [f"s{v}" for v in np.random.default_rng(0).integers(0, 6, size=X.n_records)]
    data = TransactionData(X.matrix.copy(), X.items, labels=labels)  # with_labels trips on read-only arrays
    ref = anonymize_nonreciprocal(data, l=3, rng=2, unsafe_secret_seed=0, tsp_step_limit=3000)
    got = anonymize_nonreciprocal(data, l=3, rng=2, unsafe_secret_seed=0, tsp_step_limit=3000, client=dask_client)
    _same_release(got, ref)
    assert list(got.labels) == list(ref.labels)
    assert LDiversity(3).audit(data, got).satisfied



def test_cli_anonymize_scheduler_gives_the_one_process_release(cli_on_test_cluster, monkeypatch, tmp_path):
    """``anonymize -a nr --scheduler`` solves the Gray-TSP segments on Dask and publishes the same rows
    (as a multiset: the row order is the secret shuffle); a method without a distributed part refuses it."""

    from graphanon.release import load_release

    used = cli_on_test_cluster
    monkeypatch.chdir(tmp_path)
    args = ["anonymize", "chess", "-a", "nr", "-k", "5", "--seed", "3", "--param", "tsp_step_limit=4000"]
    assert cli(*args, "-o", "one.json").exit_code == 0
    result = cli(*args, "-o", "dask.json", "--scheduler", "local:2")
    assert result.exit_code == 0, result.output
    assert used == ["local:2"]
    one, dist = load_release("one.json"), load_release("dask.json")
    rows = [sorted(r.render_record(i) for i in range(r.n_records)) for r in (one, dist)]
    assert rows[0] == rows[1]
    refused = cli("anonymize", "groceries", "-a", "mm", "-k", "5", "-m", "2", "-o", "mm.json", "--scheduler",
                  "local:2")
    assert refused.exit_code == 2 and "does not use --scheduler" in refused.output
    assert used == ["local:2"] and not (tmp_path / "mm.json").exists()
