"""graphanon.study and ``graphanon compare``: grid expansion, resumption, failing runs, schema, report."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from graphanon.errors import ParameterError
from graphanon.privacy import KmAnonymity
from graphanon.study import COLUMNS, StudyRun, WorkloadSpec, expand_grid, run_study, tidy_table
from graphanon.study import runner as study_runner
from graphanon.study._run import run_method
from graphanon.study.execute import PeakMemory, load_dataset, load_taxonomy
from graphanon.study.report import FIGURES
from graphanon.viz.study import pareto_front

TAX = "balanced:5"


# ---------------------------------------------------------------- grid expansion
def test_grid_gives_each_method_only_what_it_declares():
    plan = expand_grid(["aa", "coat", "partition", "clump", "nr"], ["groceries"], k=[2, 5], m=2, taxonomy=TAX,
                       seed=3)
    by = {}
    for r in plan.runs:
        by.setdefault(r.method, []).append(r)
    assert [(r.k, r.m) for r in by["aa"]] == [(2, 2), (5, 2)]
    assert [(r.k, r.m) for r in by["partition"]] == [(2, None), (5, None)]
    assert all(r.taxonomy == TAX for m in ("aa", "partition", "clump", "coat") for r in by[m])
    assert all(r.taxonomy is None for r in by["nr"])   # coat reads one where its --param asks; nr never
    assert all(r.seed == 3 for r in by["clump"] + by["nr"]) and all(r.seed is None for r in by["aa"])
    assert all(r.m is None for r in by["nr"])
    assert "partition: takes no -m; run without it" in plan.notes
    assert "coat: does not need --taxonomy; given, it is read only where its --param asks (see graphanon " \
           "algorithms)" in plan.notes
    assert "nr: reads no taxonomy; run without it" in plan.notes
    assert not any(n.startswith("aa:") for n in plan.notes)
    assert len({r.key() for r in plan.runs}) == len(plan.runs)


def test_grid_routes_params_to_methods_that_declare_them():
    plan = expand_grid(["nr", "cahd"], ["nr_table1"], k=2, params={"l": ["1", "2"], "nr.order": ["gray"]})
    nr = [dict(r.params) for r in plan.runs if r.method == "nr"]
    cahd = [dict(r.params) for r in plan.runs if r.method == "cahd"]
    assert nr == [{"l": "1", "order": "gray"}, {"l": "2", "order": "gray"}]
    assert cahd == [{"l": "1"}, {"l": "2"}]


@pytest.mark.parametrize("kwargs, message", [
    ({"methods": ["partition"], "m": 2, "taxonomy": TAX}, "none of partition takes m"),
    ({"methods": ["aa"], "k": 2, "dataset": "bms1"}, "aa needs a taxonomy and bms1 has no bundled one"),
    ({"methods": ["cahd"], "k": 2, "dataset": "bms1"}, "-a cahd needs sensitive labels .* and bms1 has none"),
    ({"methods": ["nr"], "k": 2, "params": {"l": ["2"]}}, "-a nr --param l needs sensitive labels"),
    ({"methods": ["nr"], "k": 2, "params": {"l": ["two"]}, "dataset": "nr_table1"}, "-a nr: --param l='two'"),
    ({"methods": ["aa", "coat"], "k": 2, "params": {"coat.s": ["lots"]}}, "-a coat: --param s='lots'"),
    ({"methods": ["mm"], "k": 2, "m": 2, "params": {"private_items": ["a"]}}, "no selected method takes 'private_items'"),
    ({"methods": ["aa"], "k": 2, "taxonomy": TAX, "params": {"l": ["2"]}}, "no selected method takes 'l'"),
    ({"methods": ["nr"], "k": 2, "params": {"cahd.l": ["2"]}}, "'cahd' is not among the methods"),
    ({"methods": ["nosuch"], "k": 2}, "unknown algorithm 'nosuch'"),
    ({"methods": [], "k": 2}, "at least one method"),
])
def test_grid_refuses_up_front(kwargs, message):
    methods = kwargs.pop("methods")
    dataset = kwargs.pop("dataset", "groceries")
    with pytest.raises(ParameterError, match=message):
        expand_grid(methods, [dataset], **kwargs)


def test_grid_gives_a_bundled_taxonomy_as_anonymize_does():
    plan = expand_grid(["aa", "coat"], ["groceries", "liuwang_fig1"], k=2, m=2)
    assert [(r.method, r.dataset, r.taxonomy) for r in plan.runs] == [
        ("aa", "groceries", "groceries"), ("aa", "liuwang_fig1", "liuwang_fig1"),
        ("coat", "groceries", "groceries"), ("coat", "liuwang_fig1", "liuwang_fig1")]
    assert plan.notes == []
    # a typed --taxonomy wins over the bundled one; a dataset without one is refused when a method needs it
    assert {r.taxonomy for r in expand_grid(["aa"], ["groceries"], k=2, taxonomy=TAX).runs} == {TAX}
    with pytest.raises(ParameterError, match="aa needs a taxonomy and chess has no bundled one"):
        expand_grid(["aa"], ["groceries", "chess"], k=2)


def test_run_key_covers_the_full_configuration():
    base = StudyRun("groceries", "aa", k=2, m=2, taxonomy=TAX)
    variants = [StudyRun("groceries", "aa", k=2, m=3, taxonomy=TAX), StudyRun("groceries", "aa", k=2, m=2),
                StudyRun("bms1", "aa", k=2, m=2, taxonomy=TAX), StudyRun("groceries", "aa", k=2, m=2,
                                                                         taxonomy=TAX, attack_targets=10)]
    assert len({base.key(), *(v.key() for v in variants)}) == 5
    assert base.key() == StudyRun("groceries", "aa", k=2, m=2, taxonomy=TAX).key()


def test_run_key_changes_when_a_data_file_changes(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("a,b\nb,c\n")
    before = StudyRun(str(path), "nr", k=2).key()
    assert StudyRun(str(path), "nr", k=2).key() == before
    path.write_text("a,b\nb,c\na\n")
    assert StudyRun(str(path), "nr", k=2).key() != before


# ---------------------------------------------------------------- runs, schema, audits
@pytest.fixture(scope="module")
def groceries_1500(tmp_path_factory):
    """The first 1,500 of groceries' 9,835 baskets as a CSV file: the study's table, its audits and the compare
    report do not depend on the size, and the six runs on it cost a quarter of their CPU on all of groceries."""
    from graphanon.datasets import load
    from graphanon.readwrite.long_csv import write_long_csv

    path = tmp_path_factory.mktemp("data") / "groceries.csv"
    write_long_csv(load("groceries").subset(np.arange(1500)).drop_unused_items(), path)
    return str(path)


@pytest.fixture(scope="module")
def small_table(tmp_path_factory, groceries_1500):
    store = tmp_path_factory.mktemp("store")
    plan = expand_grid(["mhghs", "partition", "nr"], [groceries_1500], k=[2, 5], m=1, taxonomy=TAX, seed=0)
    return run_study(plan.runs, store), store, plan


def test_tidy_schema(small_table):
    table, _, plan = small_table
    assert list(table.columns) == list(COLUMNS)
    assert {name: str(dtype) for name, dtype in table.dtypes.items()} == {
        name: ("string" if dtype == "string" else dtype) for name, dtype in COLUMNS.items()}
    assert len(table) == len(plan.runs)
    assert (table["status"] == "ok").all()
    assert (table["wall_seconds"] > 0).all() and (table["cpu_seconds"] >= 0).all()
    assert (table["peak_memory_mb"] >= 0).all() and table["memory_method"].notna().all()


def test_metrics_and_attacks_by_release_kind(small_table):
    table, _, _ = small_table
    glob = table[table["method"] == "mhghs"]
    local = table[table["method"] == "partition"]
    nr = table[table["method"] == "nr"]
    assert glob[["ncp", "ul", "suppression_ratio", "avg_relative_error"]].notna().all().all()
    assert glob["error_rate"].isna().all()
    assert local["ncp"].notna().all() and local["ul"].isna().all()
    assert nr["error_rate"].notna().all() and nr["query_error"].notna().all()
    # the row-linkage attack where it knows the release kind, next to its bound
    assert glob["attack_success"].notna().all() and local["attack_success"].isna().all()
    assert np.allclose(nr["attack_bound"], 1 / nr["k"].astype(float))
    assert nr["attack_within_bound"].all()
    # one shared workload: every run of a dataset is scored on the same queries
    assert table["audit_satisfied"].all()


def test_audit_in_table_matches_an_independent_audit(small_table, groceries_1500):
    table, _, _ = small_table
    data = load_dataset(groceries_1500)
    tax = load_taxonomy(TAX, groceries_1500)
    rel = run_method("mhghs", data, k=5, m=1, taxonomy=tax)
    assert KmAnonymity(5, 1).audit(data, rel).satisfied
    row = table[(table["method"] == "mhghs") & (table["k"] == 5)].iloc[0]
    assert bool(row["audit_satisfied"]) and row["audit_violations"] == 0


def test_a_violating_release_is_reported_not_hidden(groceries_1500):
    # a user-given cut is audited for the k=50 it is run with; a too fine one fails and the audit must say so
    # (the study runs the Python function: nothing refuses to publish, the CLI's force=true has no part)
    plan = expand_grid(["cut"], [groceries_1500], k=50, m=2, taxonomy=TAX, params={"level": ["3", "0"]})
    table = run_study(plan.runs)
    by_level = dict(zip(table["params"], zip(table["audit_satisfied"], table["audit_violations"])))
    assert not bool(by_level["level=3"][0])
    assert by_level["level=3"][1] > 0
    assert bool(by_level["level=0"][0]) and by_level["level=0"][1] == 0


def test_a_failing_run_is_recorded_and_the_rest_go_on(tmp_path):
    plan = expand_grid(["nr"], ["liuwang_fig1"], k=[2, 100, 3], seed=0)  # unlabelled: a seeded k-only nr
    table = run_study(plan.runs, tmp_path, workers=2)
    assert table["status"].tolist() == ["ok", "error", "ok"]
    err = table.loc[1, "error"]
    assert err.startswith("ParameterError:") and "k=100" in err
    assert table.loc[[0, 2], "audit_satisfied"].all()
    assert pd.isna(table.loc[1, "audit_satisfied"])
    # a failed run is not stored as finished: it runs again next time
    assert len(list(tmp_path.glob("*.json"))) == 2


# ---------------------------------------------------------------- resumption
def test_resumption_reuses_finished_runs_and_runs_only_new_ones(tmp_path, monkeypatch):
    calls = []
    real = study_runner.execute_run

    def counting(run):
        calls.append((run.method, run.k))
        return real(run)

    monkeypatch.setattr(study_runner, "execute_run", counting)
    first = run_study(expand_grid(["mhghs"], ["groceries"], k=[2, 5], m=1, taxonomy=TAX).runs, tmp_path)
    assert calls == [("mhghs", 2), ("mhghs", 5)] and not first["reused"].any()
    calls.clear()
    second = run_study(expand_grid(["mhghs"], ["groceries"], k=[2, 5, 10], m=1, taxonomy=TAX).runs, tmp_path)
    assert calls == [("mhghs", 10)]
    assert second["reused"].tolist() == [True, True, False]
    cols = ["k", "ncp", "wall_seconds", "audit_satisfied"]
    pd.testing.assert_frame_equal(second[cols].iloc[:2], first[cols])
    # another m is another configuration: nothing reused
    calls.clear()
    run_study(expand_grid(["mhghs"], ["groceries"], k=[2], m=2, taxonomy=TAX).runs, tmp_path)
    assert calls == [("mhghs", 2)]


# ---------------------------------------------------------------- helpers
def test_pareto_front_against_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(50):
        cost, loss = rng.integers(0, 6, 12).astype(float), rng.integers(0, 6, 12).astype(float)
        front = set(pareto_front(cost, loss).tolist())
        dominated = {i for i in range(12) for j in range(12)
                     if (cost[j] <= cost[i] and loss[j] <= loss[i]) and (cost[j] < cost[i] or loss[j] < loss[i])}
        # the front holds one point per distinct undominated (cost, loss) pair
        undominated = {(cost[i], loss[i]) for i in range(12) if i not in dominated}
        assert {(cost[i], loss[i]) for i in front} == undominated
        assert len(front) == len(undominated)


def test_peak_memory_sees_a_large_allocation():
    with PeakMemory() as small:
        np.ones(1000)
    with PeakMemory() as big:
        block = np.ones(30_000_000)
        block += 1
    assert big.mib > 200 > small.mib


def test_tidy_table_of_no_rows_has_the_schema():
    table = tidy_table([])
    assert list(table.columns) == list(COLUMNS) and len(table) == 0


# ---------------------------------------------------------------- CLI and report


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.urls, self.rows, self._in_runs, self._depth = [], [], 0, False, 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("src", "href"):
            if name in attrs:
                self.urls.append(attrs[name])
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        if tag == "table" and attrs.get("id") == "runs":
            self._in_runs = True
        if tag == "tbody" and self._in_runs:
            self._depth += 1
        if tag == "tr" and self._in_runs and self._depth:
            self.rows += 1

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_runs = False
        if tag == "tbody" and self._in_runs:
            self._depth -= 1


def test_compare_writes_table_figures_and_a_self_contained_report(run, tmp_path, groceries_1500):
    res = run("compare", groceries_1500, "-a", "mhghs,partition", "-a", "nr", "-k", "2,5", "-m", "1",
              "--taxonomy", TAX, "-o", "out", "-j", "1", "--queries", "50", "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)
    assert summary["runs"] == 6 and summary["failed"] == 0 and summary["audits_satisfied"]
    out = tmp_path / "out"
    table = pd.read_csv(out / "results.csv")
    assert len(table) == 6 and list(table.columns) == list(COLUMNS)
    assert len(pd.read_parquet(out / "results.parquet")) == 6
    for stem in FIGURES:
        assert (out / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
    page = _Page()
    page.feed((out / "report.html").read_text(encoding="utf-8"))
    assert len(page.images) == len(FIGURES)
    assert all(src.startswith("data:image/png;base64,") for src in page.images)
    assert all(url.startswith(("data:", "#")) for url in page.urls)   # nothing loaded from elsewhere
    assert page.rows == len(table)
    text = (out / "report.html").read_text(encoding="utf-8")
    assert (f"graphanon compare {groceries_1500} -a mhghs,partition,nr -k 2,5 -m 1 --taxonomy balanced:5 --seed 0 "
            "--queries 50 --attack-targets 2000 -o out") in text   # the command that repeats the study
    assert "partition: takes no -m" in text
    # one more k: the six finished runs are reused
    res = run("compare", groceries_1500, "-a", "mhghs,partition,nr", "-k", "2,5,10", "-m", "1", "--taxonomy", TAX,
              "-o", "out", "-j", "1", "--queries", "50", "--json")
    again = json.loads(res.output)
    assert again["runs"] == 9 and again["reused"] == 6


def test_compare_exit_code_1_when_an_audit_fails(run, groceries_1500):
    res = run("compare", groceries_1500, "-a", "cut", "-k", "50", "-m", "2", "--taxonomy", TAX,
              "--param", "level=3", "-o", "out", "-j", "1", "--queries", "0",
              "--attack-targets", "0")
    assert res.exit_code == 1
    assert "audit FAILED" in res.output


@pytest.mark.parametrize("args, message", [
    (["groceries", "-a", "partition", "-k", "2", "-m", "2", "--taxonomy", TAX], "-m: none of partition takes m"),
    (["bms1", "-a", "aa", "-k", "2"], "aa needs a taxonomy"),
    (["bms1", "-a", "cahd", "-k", "2"], "-a cahd needs sensitive labels (l-diversity) and bms1 has none"),
    (["groceries", "-a", "aa,mm", "-k", "2", "--param", "mm.private_items=a"], "no selected method takes"),
    (["groceries", "-a", "nosuch", "-k", "2"], "unknown algorithm 'nosuch'"),
    (["groceries", "-a", "nr", "-k", "two"], "-k takes whole numbers"),
    (["groceries", "-a", "nr", "-k", "2", "--param", "l"], "--param takes name="),
    (["nosuchdata", "-a", "nr", "-k", "2"], "nosuchdata: no such file"),
    (["groceries", "-a", "nr", "-k", "2", "-j", "2", "--scheduler", "local:1"], "drop one"),
])
def test_compare_bad_input_is_one_line_exit_2(run, args, message, tmp_path):
    res = run("compare", *args, "-o", "out")
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphanon: error: ") and message in lines[0]
    assert not (tmp_path / "out").exists()   # refused before any run: nothing written


def test_compare_with_a_failing_run_exits_3_with_the_failure_in_the_headline(run, tmp_path):
    res = run("compare", "liuwang_fig1", "-a", "nr", "-k", "2,100", "--param", "order=gray", "-o", "out", "-j", "1",
              "--queries", "10", "--attack-targets", "0")
    assert res.exit_code == 3, res.output
    headline = ("1 of 2 runs failed: nr k=100 order=gray on liuwang_fig1 (ParameterError: k=100 exceeds the number "
                "of records (8)")
    assert headline in res.output and "every release meets its model" not in res.output
    assert "the 1 release made meets its model" in res.output
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert headline in page and "every release meets its model" not in page
    assert '<h2 id="failed">Failed runs (1)</h2>' in page
    res = run("compare", "liuwang_fig1", "-a", "nr", "-k", "2,100", "--param", "order=gray", "-o", "out", "-j", "1",
              "--queries", "10", "--attack-targets", "0", "--json")
    summary = json.loads(res.output)
    assert res.exit_code == 3 and summary["failed"] == 1 and summary["headline"].startswith(headline)
    assert summary["errors"][0].startswith("nr k=100 order=gray on liuwang_fig1: ParameterError")


def test_compare_where_every_run_fails_says_so_in_one_line_and_writes_nothing(run, tmp_path):
    # k above the six records on every run: each run fails (the grid itself is valid)
    res = run("compare", "nr_table1", "-a", "nr", "-k", "50,100", "-o", "out", "-j", "1")
    assert res.exit_code == 3
    lines = [line for line in res.output.strip().splitlines() if not line.startswith("note: ")]  # the plan's notes
    assert len(lines) == 1 and lines[0].startswith("graphanon: error: every run failed, nothing written: 2 of 2")
    assert not (tmp_path / "out").exists()
    (tmp_path / "mine").mkdir()   # a folder the user made is left in place, and empty
    assert run("compare", "nr_table1", "-a", "nr", "-k", "100", "-o", "mine", "-j", "1").exit_code == 3
    assert list((tmp_path / "mine").iterdir()) == []


def test_a_taxonomy_is_read_where_a_parameter_asks_for_it():
    # COAT weighs items by the taxonomy only with weights=taxonomy: given --taxonomy, that run uses it
    plan = expand_grid(["coat"], ["groceries"], k=5, m=2, taxonomy=TAX, params={"weights": ["one", "taxonomy"]},
                       attack_targets=0, workload=WorkloadSpec(queries=0))
    table = run_study(plan.runs)
    assert table["status"].tolist() == ["ok", "ok"], table["error"].tolist()
    assert table["audit_satisfied"].all()
    assert table.loc[0, "ncp"] != table.loc[1, "ncp"] or table.loc[0, "ul"] != table.loc[1, "ul"]


def test_figures_of_a_study_where_no_run_finished_are_drawn_empty():
    # draw_privacy_vs_k used to end in a TypeError (float of NA) when no run finished
    from graphanon.study.report import study_figures

    table = tidy_table([{"dataset": "d", "method": "coat", "k": k, "status": "error", "error": "x"} for k in (2, 5)])
    figures = study_figures(table)
    assert sorted(figures) == sorted(FIGURES)


def test_a_study_of_runs_asked_only_for_l_draws_no_empty_figure_against_k():
    from graphanon.study.report import render_report, study_figures

    rows = [{"dataset": "d", "method": m, "k": None, "params": "l=2", "status": "ok", "wall_seconds": t,
             "error_rate": e, "audit_satisfied": True} for m, t, e in (("nr", 1.0, 0.3), ("cahd", 2.0, 0.2))]
    table = tidy_table(rows)
    figures = study_figures(table)
    assert list(figures) == ["pareto"]
    text = render_report(table, {"pareto": b"png"}, command="compare d -a nr,cahd --param l=2", datasets={})
    assert "the figures against <code>k</code> are left out" in text
    with_k = tidy_table([{**rows[0], "k": 2}, rows[1]])
    assert sorted(study_figures(with_k)) == sorted(FIGURES)
    assert "are left out" not in render_report(with_k, {"pareto": b"png", "time_vs_k": b"png"}, command="c",
                                              datasets={})


def test_compare_help_states_the_exit_status(run):
    text = " ".join(run("compare", "--help").output.split())
    assert "0 when every run made a release that meets its model; 1 when a release fails its model's audit; " \
           "3 when a run failed" in text


def test_write_outputs_refuses_a_study_where_no_run_finished(tmp_path):
    from graphanon.study.report import write_outputs

    table = tidy_table([{"dataset": "d", "method": "coat", "k": 2, "status": "error", "error": "TypeError: x"}])
    with pytest.raises(ParameterError, match="no run finished, nothing written: 1 of 1 run failed: coat k=2 on d"):
        write_outputs(table, tmp_path / "out", command="x")
    assert not (tmp_path / "out").exists()


def test_bench_runs_every_algorithm_given(run):
    res = run("bench", "groceries", "-a", "aa", "-a", "mhghs,hghs", "-k", "5", "-m", "2", "--taxonomy", TAX,
              "--queries", "20", "--json")
    assert res.exit_code == 0
    reports = json.loads(res.output)
    assert [r["algorithm"] for r in reports] == ["aa", "mhghs", "hghs"]
    assert all(r["audit"]["satisfied"] for r in reports)


def test_bench_checks_every_algorithm_before_running_any(run):
    res = run("bench", "groceries", "-a", "aa", "-a", "nr", "-k", "5", "-m", "2", "--taxonomy", TAX,
              "--param", "order=nosuch")
    assert res.exit_code == 2
    assert "-a nr" in res.output and "order='nosuch'" in res.output
    res = run("bench", "groceries", "-a", "aa,partition", "-k", "5", "--param", "l=2")
    assert res.exit_code == 2 and "--param l: none of aa, partition takes it" in res.output


def test_bench_takes_the_mix_of_methods_compare_takes(run):
    # -m goes to aa only (partition has no m), as compare gives it; the taxonomy is groceries' bundled one
    res = run("bench", "groceries", "-a", "aa,partition", "-k", "5", "-m", "2", "--queries", "10", "--json")
    assert res.exit_code == 0, res.output
    reports = json.loads(res.output)
    assert [(r["algorithm"], r["m"]) for r in reports] == [("aa", 2), ("partition", None)]
    assert all(r["audit"]["satisfied"] for r in reports)
    # --taxonomy for aa, and coat (which reads one only with weights=taxonomy) runs beside it, as in compare
    res = run("bench", "groceries", "-a", "aa,coat,nr", "-k", "5", "-m", "2", "--taxonomy", TAX, "--queries", "10",
              "--seed", "1", "--param", "order=gray", "--json")
    assert res.exit_code == 0, res.output
    reports = json.loads(res.output)
    assert [r["algorithm"] for r in reports] == ["aa", "coat", "nr"]
    assert all(r["audit"]["satisfied"] for r in reports)
    res = run("bench", "groceries", "-a", "partition", "-k", "5", "-m", "2")   # one method: refused, as anonymize
    assert res.exit_code == 2 and "does not use -m" in res.output


def test_runs_on_dask_match_the_local_runs(tmp_path):
    pytest.importorskip("distributed")
    from graphanon import distributed
    from graphanon.datasets import load
    from graphanon.readwrite.long_csv import write_long_csv

    # the first 1,500 of groceries' 9,835 baskets: what is compared (the same runs on Dask and here) does not
    # depend on the size, and the four runs, twice, cost a sixth
    write_long_csv(load("groceries").subset(np.arange(1500)).drop_unused_items(), tmp_path / "groceries.csv")
    plan = expand_grid(["mhghs", "nr"], [str(tmp_path / "groceries.csv")], k=[2, 5], m=1, taxonomy=TAX, seed=0,
                       attack_targets=200)
    local = run_study(plan.runs)
    with distributed.connect("local:1") as client:
        remote = run_study(plan.runs, tmp_path / "study", client=client)
    assert (remote["status"] == "ok").all() and remote["audit_satisfied"].all()
    # mHgHs is deterministic up to the row shuffle; nr's assignment is a secret draw (OS entropy)
    cols = ["method", "k", "ncp", "suppression_ratio", "avg_relative_error"]
    pd.testing.assert_frame_equal(remote[cols], local[cols])
    assert remote["error_rate"].notna().sum() == 2
    assert len(list((tmp_path / "study").glob("*.json"))) == 4


def test_a_dp_method_is_refused_before_any_run(run, tmp_path):
    """compare has no --epsilon axis yet: a DP method is refused in one line, and nothing is written."""
    res = run("compare", "liuwang_fig1", "-a", "aa,diffpart", "-k", "2", "-o", str(tmp_path / "st"))
    assert res.exit_code == 2
    assert "graphanon: error: -a diffpart: a differentially private method needs --epsilon" in res.output
    assert not (tmp_path / "st").exists()
