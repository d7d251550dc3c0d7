"""``compare --epsilon``: DP methods as a grid axis beside k, their repeated runs, the shared utility and the report."""

from __future__ import annotations

import json

import pytest

from graphanon.errors import ParameterError
from graphanon.study import execute_run, expand_grid, tidy_table
from graphanon.study.grid import StudyRun
from graphanon.study.report import dp_summary_html, headline, study_figures
from tests.conftest import cli

RECORDS = [["a", "b"]] * 120 + [["c"]] * 60 + [["a", "c", "d"]] * 40 + [["e"]] * 20 + [["b", "f"]] * 10


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "d.txt"
    data.write_text("\n".join(",".join(r) for r in RECORDS) + "\n")
    universe = tmp_path / "u.txt"
    universe.write_text("\n".join("abcdefgh") + "\n")
    return data, universe


def test_grid_runs_dp_methods_per_epsilon_and_repetition_beside_k(files):
    data, universe = files
    plan = expand_grid(["aa", "diffpart"], [str(data)], k=[2, 4], m=2, taxonomy="balanced:2", epsilon=[0.5, 2],
                       universe=str(universe), repeat=3, params={"diffpart.fanout": ["2"]})
    dp = [r for r in plan.runs if r.method == "diffpart"]
    assert [(r.epsilon, r.repeat) for r in dp] == [(0.5, 0), (0.5, 1), (0.5, 2), (2.0, 0), (2.0, 1), (2.0, 2)]
    assert all(r.k is None and r.m is None and r.taxonomy is None and r.universe == str(universe) for r in dp)
    assert [(r.k, r.epsilon) for r in plan.runs if r.method == "aa"] == [(2, None), (4, None)]
    assert len({r.key() for r in plan.runs}) == len(plan.runs)  # every repetition is its own stored run
    assert any("balanced:2 is built over the data's items" in n for n in plan.notes)
    assert "diffpart: takes no -k or -m; runs once per --epsilon instead" in plan.notes
    # a syntactic run's configuration (and so its stored key) does not name the DP fields
    assert {"epsilon", "universe", "repeat"}.isdisjoint(plan.runs[0].config())
    assert dp[0].label() == f"diffpart epsilon=0.5 fanout=2 run 1 on {data}"


@pytest.mark.parametrize("kwargs, message", [
    ({"methods": ["diffpart"]}, "needs --epsilon E1,E2"),
    ({"methods": ["aa"], "epsilon": [1]}, "--epsilon: none of aa is differentially private"),
    ({"methods": ["diffpart"], "epsilon": [0]}, "--epsilon must be > 0"),
    ({"methods": ["diffpart"], "epsilon": [1], "repeat": 0}, "--repeat must be a whole number >= 1"),
    ({"methods": ["diffpart"], "epsilon": [1], "taxonomy": "balanced:2"}, "needs the public item universe"),
    ({"methods": ["aa"], "universe": "u.txt", "taxonomy": "balanced:2"}, "--universe: none of aa"),
])
def test_grid_refuses_what_cannot_apply(files, kwargs, message):
    data, _ = files
    methods = kwargs.pop("methods")
    with pytest.raises(ParameterError, match=message.replace("(", r"\(")):
        expand_grid(methods, [str(data)], **kwargs)


def test_a_dp_run_is_measured_on_the_shared_utility_and_not_audited(files):
    data, universe = files
    run = StudyRun(str(data), "diffpart", epsilon=4.0, universe=str(universe), repeat=0, params=(("fanout", "2"),),
                   attack_targets=0)
    row = execute_run(run)
    assert row["status"] == "ok", row["error"]
    assert row["kind"] == "synthetic" and row["audit_model"] == "dp" and row["audit_satisfied"] is None
    assert row["epsilon"] == 4.0 and row["repeat"] == 0
    for name in ("avg_relative_error", "topk_precision", "topk_recall", "topk_f"):
        assert 0 <= row[name] <= 1 or name == "avg_relative_error", (name, row[name])
    # at epsilon 4 on 250 records the frequent itemsets survive: top-k F well above 0
    assert row["topk_f"] > 0.3
    aa = execute_run(StudyRun(str(data), "aa", k=2, m=2, taxonomy="balanced:2", attack_targets=0))
    assert aa["audit_satisfied"] is True and 0 <= aa["topk_f"] <= 1


def test_report_shows_dp_mean_and_spread_and_the_headline_does_not_call_them_violations():
    rows = [{"method": "aa", "k": k, "dataset": "d", "status": "ok", "audit_model": "km", "audit_satisfied": True,
             "audit_violations": 0, "avg_relative_error": 0.1 * k, "topk_f": 0.5, "wall_seconds": 0.1, "ncp": 0.2}
            for k in (2, 5)]
    rows += [{"method": "diffpart", "epsilon": e, "repeat": r, "dataset": "d", "status": "ok", "audit_model": "dp",
              "avg_relative_error": v, "topk_f": 0.2, "wall_seconds": 0.05}
             for e in (0.5, 1.0) for r, v in enumerate((0.3, 0.5, 0.7))]
    table = tidy_table(rows)
    assert headline(table) == ("8 runs, none failed; every syntactic release meets its model; 6 differentially "
                               "private releases are not audited (no output proves DP: the mechanism is tested).")
    page = dp_summary_html(table)
    assert page.count("<tr>") == 3 and "0.5 &plusmn; 0.2<br>(0.3 &ndash; 0.7)" in page  # header + 2 epsilons
    figures = study_figures(table)
    assert list(figures)[:2] == ["utility_vs_k", "utility_vs_epsilon"]
    left, right = figures["utility_vs_epsilon"].axes[:2]
    assert right.get_xlabel().startswith("epsilon") and left.get_xlabel().startswith("k")
    # the DP line goes through the mean of its runs at each epsilon
    (line,) = [ln for ln in right.get_lines() if ln.get_label() == "diffpart (DP)"]
    assert list(line.get_xdata()) == [0.5, 1.0] and list(line.get_ydata()) == pytest.approx([0.5, 0.5])
    # a failed audit of a syntactic run still counts
    rows[0]["audit_satisfied"] = False
    assert "1 of the 8 release(s) made FAIL" in headline(tidy_table(rows))


def test_cli_compare_with_epsilon(files, tmp_path):
    data, universe = files
    out = tmp_path / "study"
    res = cli("compare", data, "-a", "aa,diffpart", "-k", "2", "-m", "2", "--taxonomy", "balanced:2",
               "--epsilon", "1,4", "--universe", universe, "--repeat", "2", "--param", "diffpart.fanout=2",
               "--attack-targets", "0", "--queries", "50", "-j", "1", "-o", out, "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output[res.output.index("{"):])
    assert summary["runs"] == 5 and summary["failed"] == 0
    page = (out / "report.html").read_text()
    assert 'id="fig-utility_vs_epsilon"' in page and "Differentially private runs: mean and spread" in page
    assert "--epsilon 1,4" in page and f"--universe {universe}" in page and "--repeat 2" in page
    # without --epsilon a DP method is refused in one line
    res = cli("compare", data, "-a", "diffpart", "-o", tmp_path / "x")
    assert res.exit_code == 2 and "needs --epsilon" in res.output and len(res.output.strip().splitlines()) == 1


def test_an_itemset_release_is_scored_on_its_own_top_k_and_row_metrics_stay_empty(files):
    """privbasis releases itemsets, not rows: the top-100 scores come from its list, the row measures are NaN."""
    import math

    data, universe = files
    row = execute_run(StudyRun(str(data), "privbasis", epsilon=8.0, universe=str(universe), repeat=0,
                               params=(("k", "5"),), attack_targets=0))
    assert row["status"] == "ok", row["error"]
    assert row["kind"] == "itemsets" and row["audit_model"] == "dp" and row["audit_satisfied"] is None
    for name in ("avg_relative_error", "ncp", "fi_similarity", "error_rate", "dif"):
        assert math.isnan(row[name]), (name, row[name])
    # 5 itemsets released, scored against the true top 100: recall = common / 100, precision = common / 5
    assert 0 < row["topk_precision"] <= 1
    assert row["topk_recall"] == pytest.approx(row["topk_precision"] * 5 / 100)
    assert row["topk_f"] == pytest.approx(2 * row["topk_precision"] * row["topk_recall"]
                                          / (row["topk_precision"] + row["topk_recall"]))
    assert row["support_relative_error"] >= 0
    table = tidy_table([row])
    page = dp_summary_html(table)
    assert "support_relative_error" in page and "a release of itemsets (privbasis) has no rows" in page
    assert "avg_relative_error" not in page  # NaN for every DP row here: no column for it
