"""A study refuses, before anything runs, a method that lacks a required ``--param`` (``-a all`` skips it and says
so), and reports the majority-label adversary on every l-diverse release.

The required parameters are declared once (``MethodDeclaration.required``): ``cut`` needs ``cut`` or ``level``, the
swaps ``categories``. The label check is :func:`graphanon.attacks.label_majority_check`, the one ``anonymize`` warns
with (docs/attacks.md, (j)).
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from graphanon.data import from_iterable
from graphanon.errors import ParameterError
from graphanon.study import execute, expand_grid, headline, run_study, tidy_table
from graphanon.study import grid as grid_module
from graphanon.study._run import run_options

REQUIRED_CUT = "needs --param cut or --param level (the cut's nodes, or its depth); for example --param cut.level=1"


def test_a_named_method_without_its_required_param_is_refused_before_anything_runs():
    with pytest.raises(ParameterError) as caught:
        expand_grid(["cut"], ["groceries"], k=2, m=1)
    assert str(caught.value) == f"-a cut: algorithm 'cut' {REQUIRED_CUT}"
    plan = expand_grid(["cut"], ["groceries"], k=2, m=1, params={"level": ["1"]})  # given: planned
    assert [(r.method, r.params) for r in plan.runs] == [("cut", (("level", "1"),))]


def test_every_named_method_that_cannot_run_is_named_in_one_error():
    with pytest.raises(ParameterError) as caught:
        expand_grid(["cut", "mhghs", "partswap"], ["groceries"], k=2, m=1)
    clauses = str(caught.value).split(" | ")
    assert len(clauses) == 2 and clauses[0].startswith("-a cut:")
    assert clauses[1].startswith("-a partswap: algorithm 'partswap' needs --param categories")
    assert clauses[1].endswith("for example --param partswap.categories=random:3")


def test_other_params_do_not_stand_in_for_a_required_one():
    with pytest.raises(ParameterError, match="cut.level=1"):
        expand_grid(["cut"], ["groceries"], k=2, m=1, params={"suppress": ["a"]})


def test_a_dp_method_without_its_required_param_is_refused_in_this_commands_words(tmp_path):
    """privbasis needs --param k (its number of itemsets): refused as compare writes it, and skipped by -a all."""
    universe = tmp_path / "universe.txt"
    universe.write_text("a\nb\nc\nd\n")
    with pytest.raises(ParameterError) as caught:
        expand_grid(["privbasis"], ["nr_table1"], epsilon=[1.0], universe=str(universe))
    assert str(caught.value) == ("-a privbasis: algorithm 'privbasis' needs --param k (the number of itemsets to "
                                 "release); for example --param privbasis.k=100")
    plan = expand_grid(["privbasis"], ["nr_table1"], epsilon=[1.0], universe=str(universe),
                       params={"privbasis.k": ["3"]})
    assert [(r.method, r.params) for r in plan.runs] == [("privbasis", (("k", "3"),))]
    plan = expand_grid("all", ["nr_table1"], k=2, epsilon=[1.0], universe=str(universe))
    skipped = dict(line.split(": ", 1) for line in plan.skipped)
    assert skipped["privbasis"] == "needs --param k (the number of itemsets to release); for example --param privbasis.k=100"
    assert "diffpart" in {run.method for run in plan.runs}


def test_all_skips_what_cannot_run_and_says_why():
    plan = expand_grid("all", ["nr_table1"], k=2)
    skipped = dict(line.split(": ", 1) for line in plan.skipped)
    ran = {run.method for run in plan.runs}
    assert ran and not ran & set(skipped)
    assert skipped["partswap"].startswith("needs --param categories (random:N[:SEED]")
    assert skipped["cut"].startswith("needs a taxonomy")  # nr_table1 has none: the first thing cut lacks
    assert skipped["diffpart"].startswith("differentially private: needs --epsilon")
    from graphanon.algorithms.registry import method_names

    assert ran | set(skipped) == set(method_names())  # every method either runs or is named with its reason
    with pytest.raises(ParameterError, match="^cut needs a taxonomy and nr_table1"):  # the same reason, by name
        expand_grid(["cut"], ["nr_table1"], k=2)


def test_all_with_nothing_runnable_is_refused(monkeypatch):
    monkeypatch.setattr(grid_module, "method_names", lambda: ["cut", "partswap"])
    with pytest.raises(ParameterError, match="no method can run with these options: cut: needs"):
        expand_grid("all", ["groceries"], k=2)


def test_a_method_that_needs_k_is_refused_without_it_up_front():
    with pytest.raises(ParameterError, match="-a mm: algorithm 'mm' needs -k K"):
        expand_grid(["mm"], ["nr_table1"])
    plan = expand_grid("all", ["nr_table1"], params={"l": ["2"]})  # cahd and nr run with l alone
    assert "mm: needs -k K" in plan.skipped
    with pytest.raises(ParameterError, match="-a nr: algorithm 'nr' needs -k or --param l"):
        expand_grid(["nr"], ["nr_table1"])


def test_a_plan_runs_nr_unseeded_on_labelled_data_without_l():
    """A seed would let anyone holding the data rebuild nr's ring, which its labels then give away (issue 30)."""
    plan = expand_grid(["nr"], ["nr_table1"], k=[2], seed=0)
    assert [run.seed for run in plan.runs] == [None]
    assert any("nr: runs without --seed on labelled nr_table1" in note for note in plan.notes)
    assert [run.seed for run in expand_grid(["nr"], ["nr_table1"], k=[2], params={"l": ["2"]}, seed=0).runs] == [0]


def test_randswap_is_refused_by_the_doors_that_audit_without_its_audit_categories():
    """RandSwap ignores categories, but its tendency audit reads them: anonymize makes the release, the doors that
    audit every release (bench, compare) refuse before anything runs (bench: tests/cli/test_swapping_cli.py)."""
    with pytest.raises(ParameterError, match="randswap.categories=random:3"):
        expand_grid(["randswap"], ["swap_table1"])
    assert "randswap: needs --param categories" in " ".join(expand_grid("all", ["swap_table1"], k=[2]).skipped)


def test_the_headline_never_says_every_release_when_a_method_was_skipped():
    table = tidy_table([{"method": "aa", "k": 2, "dataset": "d", "status": "ok", "audit_satisfied": True}])
    assert headline(table) == "1 run, none failed; every release meets its model."
    line = headline(table, skipped=["cut: needs --param cut or --param level", "partswap: needs --param categories"])
    assert "every release" not in line
    assert line == ("1 run, none failed; 2 methods skipped (cut, partswap: why in the report); the 1 release made "
                    "meets its model.")


def test_compare_refuses_cut_without_level_and_writes_nothing(run, tmp_path):
    res = run("compare", "groceries", "-a", "cut,mhghs", "-k", "2", "-m", "1", "-o", "out")
    assert res.exit_code == 2, res.output
    assert res.stderr.strip() == f"graphanon: error: -a cut: algorithm 'cut' {REQUIRED_CUT}"
    assert not (tmp_path / "out").exists()


def test_compare_all_states_what_it_skipped(run, tmp_path, monkeypatch):
    monkeypatch.setattr(grid_module, "method_names", lambda: ["cut", "mhghs", "partswap"])  # a small "all"
    res = run("compare", "liuwang_fig1", "-a", "all", "-k", "2", "-m", "1", "--queries", "0", "--attack-targets",
              "0", "-j", "1", "--json", "-o", "out")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert [line.split(":")[0] for line in summary["skipped"]] == ["cut", "partswap"]
    assert summary["runs"] == 1 and "every release" not in summary["headline"]
    assert "2 methods skipped (cut, partswap: why in the report)" in summary["headline"]
    page = (tmp_path / "out" / "report.html").read_text()
    assert "Skipped methods (2)" in page and "for example --param partswap.categories=random:3" in page
    assert "2 methods skipped" in page


def topics(follow: bool, n: int = 600, seed: int = 0):
    """``n`` records of one topic item (of 8) and two noise items; the label (of 4) is the topic's with
    probability 0.9 when ``follow``, else uniform (as tests/cli/test_label_majority.py)."""
    rng = np.random.default_rng(seed)
    records, labels = [], []
    for _ in range(n):
        t = int(rng.integers(8))
        records.append([f"t{t}"] + [f"x{j}" for j in rng.choice(30, 2, replace=False)])
        labels.append(f"L{t % 4}" if follow and rng.random() < 0.9 else f"L{int(rng.integers(4))}")
    return from_iterable(records, labels=labels)


@pytest.fixture
def labelled(monkeypatch):
    """Two labelled datasets by name (``follow``, ``independent``) and fixed secret choices, in this process."""
    data = {"follow": topics(True), "independent": topics(False)}
    original = execute.load_dataset
    monkeypatch.setattr(execute, "load_dataset", lambda name: data[name] if name in data else original(name))
    monkeypatch.setattr(execute, "run_options", functools.partial(run_options, unsafe_secret_seed=0))
    return data


def test_labels_that_follow_the_items_are_flagged_in_the_table(labelled):
    plan = expand_grid(["nr"], ["follow", "independent"], k=3, params={"l": ["3"]}, attack_targets=0, seed=None)
    table = run_study(plan.runs)
    assert (table["status"] == "ok").all() and table["audit_satisfied"].all()
    follow, independent = (table[table["dataset"] == name].iloc[0] for name in ("follow", "independent"))
    assert follow["label_bound"] == pytest.approx(1 / 3) and not follow["label_within_bound"]
    assert follow["label_success"] > follow["label_bound"] + follow["label_margin"]
    assert independent["label_within_bound"]
    line = headline(table)
    assert line.startswith("2 runs, none failed; every release meets its model; the majority-label adversary "
                           "reads labels above 1/l + margin on 1 of the 2 l-diverse releases (nr k=3 l=3 on follow:")


def test_a_k_only_release_has_no_label_columns_and_no_label_clause(labelled):
    plan = expand_grid(["nr"], ["independent"], k=3, attack_targets=0, seed=None)
    table = run_study(plan.runs)
    assert table["label_success"].isna().all() and "majority-label" not in headline(table)


def test_independent_labels_are_stated_within_the_bound(labelled):
    table = run_study(expand_grid(["nr"], ["independent"], k=3, params={"l": ["3"]}, attack_targets=0,
                                  seed=None).runs)
    assert headline(table) == ("1 run, none failed; every release meets its model; the majority-label adversary "
                               "stays within 1/l + margin on the l-diverse release.")


def test_compare_reports_the_label_check(run, tmp_path, labelled):
    res = run("compare", "follow", "-a", "nr", "-k", "3", "--param", "l=3", "--queries", "0", "--attack-targets",
              "0", "-j", "1", "--json", "-o", "out")
    assert res.exit_code == 0, res.output  # the release meets its model; the adversary is stated, not hidden
    summary = json.loads(res.stdout)
    assert summary["label_majority"] == {"checked": 1, "above_bound": ["nr k=3 l=3 on follow"]}
    assert "reads labels above 1/l + margin on 1 of the 1 l-diverse release" in summary["headline"]
    page = (tmp_path / "out" / "report.html").read_text()
    assert "label_within_bound" in page and "reads labels above 1/l" in page
