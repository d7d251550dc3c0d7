"""benchmarks/peers.py and benchmarks/job_floor.py without the public implementations.

The input writers must write exactly the data (and taxonomy) graphanon
reads, so the two sides of a pair see the same input; the checks of a peer's
result must catch a planted violation; job_floor's bound arithmetic must be
the issue's (1.5 x floor + algorithm, inclusive).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.readwrite.formats import read_fimi
from graphanon.readwrite.long_csv import read_long_csv
from graphanon.taxonomy import Taxonomy, read_taxonomy

ROOT = Path(__file__).resolve().parents[2]


def _module(name):
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


peers = _module("peers")
job_floor = _module("job_floor")


@pytest.fixture(scope="module")
def bms1_head():
    data = load("bms1")
    return data, peers.record_lists(data)[:700]


def _as_sets(records):
    return sorted(tuple(sorted(r)) for r in records)


def test_fimi_writer_round_trips(tmp_path, bms1_head):
    _, records = bms1_head
    path = tmp_path / "x.dat"
    peers.write_fimi_text(records, path)
    back = read_fimi(path)
    assert back.n_records == len(records)
    assert _as_sets(peers.record_lists(back)) == _as_sets(records)
    # row order is kept too: record i of the file is record i of the data
    assert [sorted(r) for r in peers.record_lists(back)] == [sorted(r) for r in records]


def test_tab_long_writer_groups_by_tid(tmp_path, bms1_head):
    _, records = bms1_head
    path = tmp_path / "BMS-WebView-2.dat"
    peers.write_tab_long(records, path)
    by_tid: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        tid, item = line.split("\t")
        by_tid.setdefault(tid, []).append(item)
    assert [sorted(by_tid[str(t)]) for t in range(1, len(records) + 1)] == [sorted(r) for r in records]


def test_taxonomy_path_file_is_the_balanced_taxonomy_with_root_star(tmp_path):
    data = load("bms1")
    tax = Taxonomy.balanced(data.items, 5)
    path = tmp_path / "treefile_BMS.txt"
    peers.write_taxonomy_paths(tax, path)
    lines = path.read_text().splitlines()
    assert len(lines) == data.n_items and all(line.endswith(";*") for line in lines)
    back = read_taxonomy(path)
    assert back.root == "*"
    assert set(back.leaves_under(back.root)) == set(data.items)
    for leaf in data.items:
        assert back.ancestors(leaf)[:-1] == tax.ancestors(leaf)[:-1]


def test_labelled_writers_round_trip(tmp_path, bms1_head):
    _, records = bms1_head
    labels = peers.sensitive_labels(len(records))
    assert labels[:3] == ["S0", "S1", "S2"] and labels[10] == "S0"
    long_csv = tmp_path / "l.csv"
    peers.write_labelled_long_csv(records, labels, long_csv)
    back = read_long_csv(long_csv, label="label")
    assert [sorted(r) for r in peers.record_lists(back)] == [sorted(r) for r in records]
    assert list(back.labels) == labels
    inv = tmp_path / "inv.csv"
    peers.write_invoice_csv(records, labels, inv)
    rows = inv.read_text().splitlines()
    assert rows[0] == "InvoiceNo,StockCode"
    per: dict[str, list[str]] = {}
    for row in rows[1:]:
        t, x = row.split(",")
        per.setdefault(t, []).append(x)
    assert [sorted(per[str(t)]) for t in range(1, len(records) + 1)] == [
        sorted([*r, lab]) for r, lab in zip(records, labels)
    ]


def test_dense_writer(tmp_path, bms1_head):
    data, records = bms1_head
    records = records[:50]
    labels = peers.sensitive_labels(50)
    path = tmp_path / "d.csv"
    columns = peers.write_dense_csv(records, labels, list(data.items), path)
    dense = np.loadtxt(path, delimiter=",", dtype=int)
    assert dense.shape == (50, data.n_items + peers.N_LABELS)
    for i, (r, lab) in enumerate(zip(records, labels)):
        assert {columns[j] for j in np.flatnonzero(dense[i])} == {*r, lab}


def _small():
    tax = Taxonomy.from_paths([["a", "AB", "R"], ["b", "AB", "R"], ["c", "CD", "R"], ["d", "CD", "R"]])
    data = from_iterable([["a"], ["b"], ["c"], ["d"], ["a", "c"], ["b", "d"]])
    return data, tax


def test_partition_check_accepts_k_groups_and_catches_a_small_one():
    data, tax = _small()
    good = [[["AB"], [["a"], ["b"]]], [["CD"], [["c"], ["d"]]], [["AB", "CD"], [["a", "c"], ["b", "d"]]]]
    res = peers.check_partition_groups(data, tax, good, 2)
    assert res["satisfied"] and res["records_match_input"] and res["groups"] == 3 and res["smallest_group"] == 2
    # "a" alone is published as itself: a group of one, and no other record can look like it
    bad = [[["a"], [["a"]]], [["b"], [["b"]]], [["CD"], [["c"], ["d"]]], [["AB", "CD"], [["a", "c"], ["b", "d"]]]]
    res = peers.check_partition_groups(data, tax, bad, 2)
    assert not res["satisfied"] and res["smallest_group"] == 1
    # a group that loses a record is reported
    lost = [[["AB"], [["a"], ["b"]]], [["CD"], [["c"], ["d"]]], [["AB", "CD"], [["a", "c"]]]]
    assert not peers.check_partition_groups(data, tax, lost, 1)["records_match_input"]


def test_aa_check_audits_the_cut():
    data, tax = _small()
    # everything to the top level: each generalized pair {AB, CD} and singletons show >= 2 records
    top = {"a": "AB", "b": "AB", "c": "CD", "d": "CD"}
    assert peers.check_aa_cut(data, tax, top, 2, 2)["satisfied"]
    # no generalization: "a" with "c" is unique
    assert not peers.check_aa_cut(data, tax, {}, 2, 2)["satisfied"]


def test_mm_check_audits_the_suppression():
    data = from_iterable([["a", "x"], ["a", "x"], ["a"], ["b", "y"], ["b"], ["b"]])
    # public a, b; private x, y: {a} -> x with confidence 2/3 > 0.5
    assert not peers.check_mm_suppression(data, ["x", "y"], [], 0.5, 2, 1)["satisfied"]
    assert peers.check_mm_suppression(data, ["x", "y"], ["a"], 0.5, 2, 1)["satisfied"]


def test_cahd_output_check(tmp_path):
    labels = ["S0", "S1", "S0", "S1"]
    ok = tmp_path / "ok.csv"
    ok.write_text("InvoiceNo,StockCode\n1,10\n1,S0\n1,S1\n2,11\n2,S0\n2,S1\n3,S0\n3,S1\n4,12\n4,S0\n4,S1\n")
    res = peers.check_cahd_cpp_output(ok, labels, 2)
    assert res["satisfied"] and res["published_records"] == 4 and res["groups"] == 1
    # records 1 and 3 (both S0) alone in a group: S0 on 2/2 > 1/2
    bad = tmp_path / "bad.csv"
    bad.write_text("InvoiceNo,StockCode\n1,S0\n3,S0\n2,S1\n2,S0\n4,S1\n4,S0\n")
    res = peers.check_cahd_cpp_output(bad, labels, 2)
    assert res["groups"] == 2 and not res["satisfied"]


def test_floor_bounds_arithmetic():
    b = job_floor.floor_bounds(1.0, 150.0, 0.3, 100.0, 0.5, 20.0)
    assert b["wall_bound_s"] == pytest.approx(0.95) and not b["wall_ok"]
    assert b["peak_bound_mib"] == pytest.approx(170.0) and b["peak_ok"]
    # inclusive at the bound, and the factor is the 1.5
    edge = job_floor.floor_bounds(0.95, 170.0, 0.3, 100.0, 0.5, 20.0)
    assert edge["wall_ok"] and edge["peak_ok"]
    assert job_floor.FACTOR == 1.5
    assert job_floor.floor_bounds(1.0, 1.0, 1.0, 1.0, 0.0, 0.0, factor=2.0)["wall_bound_s"] == 2.0
    assert b["wall_of_bound"] == pytest.approx(1.0 / 0.95, abs=1e-3)


def test_jobs_are_cli_commands():
    from graphanon.cli.registry import registered

    methods = [job[0] for job in job_floor.JOBS]
    assert set(methods) <= set(registered())
    # every registered method runs on bms1 except the label-only one, the DP methods (it needs a public
    # universe file, not the data's items; docs/dp.md has its bms1 numbers) and the relational-transaction
    # methods (they need a relational table: benchmarks/relational.py)
    assert set(registered()) - set(methods) == {"cahd", "diffpart", "privbasis", "rt", "rt-naive"}
    argv = job_floor.job_argv("aa", 5, 2, 5, {}, "r.json")
    assert argv[3:] == ["anonymize", "bms1", "-a", "aa", "-k", "5", "-m", "2", "--taxonomy", "balanced:5", "-o", "r.json"]


def test_alternate_measures_both_sides_and_reports_a_peer_that_does_not_finish(tmp_path):
    import sys

    fast = [sys.executable, "-c", "pass"]
    big = [sys.executable, "-c", "b = bytearray(80 * 2**20); b[::4096] = b'x' * len(b[::4096])"]
    res = peers.alternate(fast, big, 2, ours_env=None, theirs_env=None, theirs_cwd=tmp_path, tmp=str(tmp_path),
                          warmup=0)
    assert len(res["ours"]["walls_s"]) == len(res["theirs"]["walls_s"]) == 2
    # each child's own peak, not the (larger) test process's
    assert res["ours"]["peak_best_mib"] < 60 < 80 < res["theirs"]["peak_best_mib"]
    assert res["ratio"]["peak_best"] < 1
    slow = [sys.executable, "-c", "import time; time.sleep(20)"]
    dnf = peers.alternate(fast, slow, 1, ours_env=None, theirs_env=None, theirs_cwd=tmp_path, tmp=str(tmp_path),
                          timeout=0.5)
    assert dnf["ratio"] is None and dnf["theirs"]["did_not_finish_s"] == 0.5
    assert 0 <= dnf["theirs"]["cpu_s_when_killed"] < 0.5
    table = peers.markdown_table({"pairs": [
        {**res, "pair": "P", "ours_check": {"audit": "a", "satisfied": True, "groups": 3},
         "theirs_check": {"audit": "b", "satisfied": False}},
        {**dnf, "pair": "Q", "ours_check": {"audit": "a", "satisfied": True},
         "theirs_check": {"audit": "none: did not finish", "satisfied": None}},
    ]})
    lines = table.splitlines()
    assert len(lines) == 4 and all(line.count("|") == 12 for line in lines)
    assert "ok (groups 3)" in lines[2] and "VIOLATED" in lines[2] and "did not finish in 0.5 s" in lines[3]


def test_jobs_use_only_options_their_method_reads():
    from graphanon.cli.registry import get_algorithm

    for method, k, m, fanout, params in job_floor.JOBS:
        spec = get_algorithm(method)
        assert set(params) <= {p.name for p in spec.params}, method
        given = {name for name, value in (("k", k), ("m", m), ("taxonomy", fanout)) if value is not None}
        assert given <= set(spec.options), method
