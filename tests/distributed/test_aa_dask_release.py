"""AA on Dask written from the workers (``write_aa_release``): the file ``anonymize_aa(...).save()`` writes, byte for byte.

Under ``unsafe_secret_seed`` the streamed release and private link equal the
in-memory path's files (random records, taxonomies, k, m, Parquet forms, row
groups and blocks; plain JSON and gzip); through the CLI (``--scheduler`` on a
Parquet input) the release passes ``graphanon audit`` and its private link
maps every record to its own recoding. 2-worker LocalCluster (threads).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("dask.distributed")
pytest.importorskip("pyarrow")

from graphanon.algorithms.hierarchy.aa import anonymize_aa  # noqa: E402
from graphanon.algorithms.hierarchy.aa_dask import write_aa_release  # noqa: E402
from graphanon.data import TransactionData, from_iterable  # noqa: E402
from graphanon.datasets.synthetic import quest, quest_taxonomy  # noqa: E402
from graphanon.distributed import Blocks, scatter_blocks  # noqa: E402
from graphanon.errors import GraphanonError, InfeasibleError, ParameterError  # noqa: E402
from graphanon.readwrite.parquet import read_parquet, write_parquet  # noqa: E402
from graphanon.release import check_same_data, load_release  # noqa: E402
from graphanon.taxonomy.tree import Taxonomy  # noqa: E402
from tests.conftest import cli  # noqa: E402

from ..conftest import rows_by_record, small_records  # noqa: E402
from .test_distributed_parquet import _write_long  # noqa: E402


def _both(data, path, out, client, tax, *, k, m, seed, suffix, **kwargs):
    """(in-memory release and link bytes, streamed ones); the error type instead when the in-memory path raises."""
    try:
        rel = anonymize_aa(data, taxonomy=tax, k=k, m=m, unsafe_secret_seed=seed)
    except InfeasibleError:
        with pytest.raises(InfeasibleError):
            write_aa_release(path, out / f"s{suffix}", taxonomy=tax, k=k, m=m, client=client, unsafe_secret_seed=seed,
                             **kwargs)
        return None
    rel.save(out / f"a{suffix}")
    rel.link.save(out / f"al{suffix}")
    info = write_aa_release(path, out / f"s{suffix}", taxonomy=tax, k=k, m=m, client=client,
                            link_out=out / f"sl{suffix}", unsafe_secret_seed=seed, **kwargs)
    assert info["records"] == rel.n_records and info["params"] == rel.params
    return [(out / f"{a}{suffix}").read_bytes() for a in ("a", "al", "s", "sl")]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(small_records(max_records=24, max_items=10, min_records=1), st.sampled_from(["long", "list", "cut"]),
       st.integers(1, 7), st.integers(1, 3), st.integers(2, 4), st.sampled_from([1, 2, None]),
       st.integers(0, 2**31), st.sampled_from([".json", ".json.gz"]), st.data())
def test_streamed_files_equal_the_in_memory_files(dask_client, tmp_path_factory, records, form, group_rows, parts,
                                                  fanout, m, seed, suffix, draw):
    out = tmp_path_factory.mktemp("aa")
    path = out / "d.parquet"
    data = from_iterable(records, items=list(range(10)), record_ids=[f"r{i}" for i in range(len(records))])
    if form == "cut":  # a record's rows may continue into the next row groups
        _write_long(records, path, group_rows)
    else:
        write_parquet(data, path, form=form, row_group_size=group_rows)
    data = read_parquet(path)
    tax = Taxonomy.balanced(data.items or ("x",), fanout)
    k = draw.draw(st.integers(1, data.n_records))
    files = _both(data, path, out, dask_client, tax, k=k, m=m, seed=seed, suffix=suffix, n_partitions=parts)
    if files is not None:
        mem, mem_link, streamed, streamed_link = files
        assert streamed == mem
        assert streamed_link == mem_link


def test_quest_several_runs_and_blocks(dask_client, tmp_path):
    """Quest data over several runs of rows (the run size lowered), records in 3 blocks: the same files."""
    import graphanon.algorithms.hierarchy.aa_dask as aa_dask

    data = quest(300, n_items=40, rng=2)
    path = tmp_path / "q.parquet"
    write_parquet(data, path, row_group_size=400)
    data = read_parquet(path)
    tax = quest_taxonomy(data, fanout=4, rng=1)
    old = aa_dask.RUN_ROWS
    aa_dask.RUN_ROWS = 64
    try:
        mem, mem_link, streamed, streamed_link = _both(data, path, tmp_path, dask_client, tax, k=4, m=2, seed=5,
                                                       suffix=".json", n_partitions=3)
    finally:
        aa_dask.RUN_ROWS = old
    assert streamed == mem and streamed_link == mem_link


def test_blocks_on_the_workers_number_their_records(dask_client, tmp_path):
    """Blocks given directly (labels set, no ids): the records are 0..n-1 as TransactionData numbers them."""
    data = TransactionData(quest(120, n_items=30, rng=4).matrix, [f"i{j}" for j in range(30)])
    tax = Taxonomy.balanced(data.items, 3)
    X = scatter_blocks(data.matrix, dask_client, 2)
    blocks = Blocks(X.futures, X.n_rows, X.n_items, items=data.items)
    rel = anonymize_aa(data, taxonomy=tax, k=3, m=2, unsafe_secret_seed=9)
    rel.save(tmp_path / "a.json")
    rel.link.save(tmp_path / "al.json")
    write_aa_release(blocks, tmp_path / "s.json", taxonomy=tax, k=3, m=2, client=dask_client,
                     link_out=tmp_path / "sl.json", unsafe_secret_seed=9)
    assert (tmp_path / "s.json").read_bytes() == (tmp_path / "a.json").read_bytes()
    assert (tmp_path / "sl.json").read_bytes() == (tmp_path / "al.json").read_bytes()
    with pytest.raises(ParameterError, match="item labels"):
        write_aa_release(X, tmp_path / "x.json", taxonomy=tax, k=3, client=dask_client)


def test_cli_streams_and_the_release_passes_the_audit(dask_client, cli_on_test_cluster, tmp_path):
    """``anonymize data.parquet -a aa --scheduler``: written from the workers, audited, the link maps each record
    to its own recoding (fresh secret order: compared with the in-memory release by record)."""
    import graphanon.algorithms.hierarchy.aa_dask as aa_dask

    made = quest(300, n_items=40, rng=7)
    data = TransactionData(made.matrix, made.items, record_ids=[f"person-{i}" for i in range(300)])
    write_parquet(data, tmp_path / "d.parquet", row_group_size=500)
    data = read_parquet(tmp_path / "d.parquet")
    calls = []
    real = aa_dask.write_aa_release
    try:
        aa_dask.write_aa_release = lambda *a, **kw: calls.append(a[1]) or real(*a, **kw)
        res = cli("anonymize", tmp_path / "d.parquet", "-a", "aa", "-k", "4", "-m", "2", "--taxonomy", "balanced:4",
                  "--scheduler", "tcp://x:1", "-o", tmp_path / "r.json", "--link-out",
                  tmp_path / "l.json", "--json")
    finally:
        aa_dask.write_aa_release = real
    assert res.exit_code == 0, res.output
    assert calls == [str(tmp_path / "r.json")] and cli_on_test_cluster == ["tcp://x:1"]
    audit = cli("audit", tmp_path / "d.parquet", tmp_path / "r.json", "--model", "km", "-k", "4", "-m", "2", "--link",
                tmp_path / "l.json")
    assert audit.exit_code == 0, audit.output
    assert "satisfied" in audit.output
    from graphanon.release.private_link import attach_link, load_private_link

    streamed = attach_link(load_release(tmp_path / "r.json"), load_private_link(tmp_path / "l.json"))
    mem = anonymize_aa(data, taxonomy=Taxonomy.balanced(data.items, 4), k=4, m=2)
    assert streamed.params == mem.params and streamed.published_items == mem.published_items
    assert rows_by_record(streamed) == rows_by_record(mem)
    assert streamed.link.record_ids == data.record_ids
    assert streamed.link.key != mem.link.key  # fresh secret draws
    assert set(streamed.fingerprint) == {"scheme", "digest"}  # no counts, no key in the file
    assert check_same_data(data, streamed) is True  # the streamed link's key verifies the data
    assert "person-" not in (tmp_path / "r.json").read_text()  # ids only in the private link
    assert "person-" in (tmp_path / "l.json").read_text()


@pytest.mark.parametrize(("args", "message"), [
    (["-k", "999"], "k=999"),
    (["-k", "3", "--seed", "1"], "--seed"),
    (["-k", "3", "--param", "x=1"], "unknown --param x"),
    (["-m", "2"], "needs -k"),
    (["-k", "3", "--param", "public_taxonomy=true"], "public_taxonomy=true is not available"),
])
def test_cli_errors_are_one_line(dask_client, cli_on_test_cluster, tmp_path, args, message):
    write_parquet(quest(50, rng=1), tmp_path / "d.parquet")
    res = cli("anonymize", tmp_path / "d.parquet", "-a", "aa", "--taxonomy", "balanced:4", "--scheduler", "tcp://x:1",
              "-o", tmp_path / "r.json", *args)
    assert res.exit_code == 2, res.output
    line = res.output.strip()
    assert line.startswith("graphanon: error:") and "\n" not in line and message in line
    assert not (tmp_path / "r.json").exists()


def test_scattered_record_is_refused_on_one_line(dask_client, cli_on_test_cluster, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"tid": ["a", "b", "a"], "item": ["x", "y", "z"]}), tmp_path / "d.parquet")
    res = cli("anonymize", tmp_path / "d.parquet", "-a", "aa", "-k", "1", "--taxonomy", "balanced:2", "--scheduler",
              "tcp://x:1", "-o", tmp_path / "r.json")
    assert res.exit_code == 2 and res.output.startswith("graphanon: error:") and "not together" in res.output


def test_streamed_save_checks_its_row_count(tmp_path):
    """``save_rows`` refuses runs holding another number of rows than it announced; nothing is written."""
    from graphanon.readwrite.files import IntRows
    from graphanon.release import GlobalRecoding

    template = GlobalRecoding.from_mapping(from_iterable([], items=["a"]), {"a": "a"}, algorithm="aa")
    with pytest.raises(GraphanonError, match="1 rows written for n_records=2"):
        template.save_rows(tmp_path / "r.json", n_records=2, rows=[IntRows([0, 1], [0])])
    assert not (tmp_path / "r.json").exists()
    template.save_rows(tmp_path / "r.json", n_records=3, rows=[IntRows([0, 1], [0]), IntRows([0, 0, 1], [0])])
    assert [load_release(tmp_path / "r.json").render_record(i) for i in range(3)] == ["a", "", "a"]
    assert np.array_equal(load_release(tmp_path / "r.json").records.indptr, [0, 1, 1, 2])
