"""Every privacy parameter is honoured or refused with a one-line error (issue 10, finding 4)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphanon.algorithms.hierarchy.cut import anonymize_cut
from graphanon.algorithms.nonreciprocal import LOCAL_STEP_LIMIT
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.cli.registry import RunOptions, get_algorithm, registered
from graphanon.data import TransactionData
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ParameterError
from graphanon.privacy import KmAnonymity, LDiversity, NonreciprocalKAnonymity


def one_error_line(res) -> str:
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("graphanon: error:"), res.output
    return lines[0]


def skewed(data, seed=0):
    p = 0.95 ** np.arange(30)
    labels = [f"s{int(v)}" for v in np.random.default_rng(seed).choice(30, size=data.n_records, p=p / p.sum())]
    return TransactionData(data.matrix.copy(), data.items, data.record_ids, labels, data.name)


# ------------------------------------------------------------------ cahd -k with l


def test_cahd_honours_k_above_l():
    data = skewed(load("chess").subset(np.arange(0, 3196, 2)))
    # what cahd published before: groups of l = 3, far from 7-anonymous
    assert not NonreciprocalKAnonymity(7).audit(data, anonymize_cahd(data, l=3)).satisfied
    rel = get_algorithm("cahd").run(data, RunOptions(k=7, params={"l": "3"}))
    assert rel.params == {"k": 7, "l": 3, "alpha": 3, "group_size": 7, "grouping": "random"}
    assert NonreciprocalKAnonymity(7).audit(data, rel).satisfied
    assert LDiversity(3).audit(data, rel).satisfied


def test_cahd_refuses_k_its_labels_cannot_carry():
    data = load("nr_table1")  # 3 labels: groups of at most 3 distinct labels
    # and does not send the user to nr for k > l: nr's l-diverse graph is l-regular (Xue et al., Sec. 4)
    with pytest.raises(ParameterError, match=r"lower k to 3 \(k=4, l=2\); nr does not give k > l either"):
        anonymize_cahd(data, l=2, k=4)
    assert anonymize_cahd(data, l=2, k=3).params["group_size"] == 3


def test_cahd_k_through_cli(run):
    assert run("anonymize", "nr_table1", "-a", "cahd", "-k", "3", "--param", "l=2", "-o", "c.json").exit_code == 0
    res = run("audit", "nr_table1", "c.json", "--model", "nonreciprocal", "-k", "3", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["satisfied"] is True
    assert "lower k to 3" in one_error_line(run("anonymize", "nr_table1", "-a", "cahd", "-k", "4", "--param", "l=2",
                                                "-o", "d.json"))


# ------------------------------------------------------------------ cut audits its claim


def test_cut_refuses_a_release_that_fails_its_km_claim(run, tmp_path):
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    expected = KmAnonymity(3, 2).audit(data, anonymize_cut(data, taxonomy=tax, level=2))
    assert not expected.satisfied
    line = one_error_line(run("anonymize", "liuwang_fig1", "-a", "cut", "-k", "3", "-m", "2", "--param", "level=2",
                              "-o", "r.json"))
    assert f"{expected.violations} violation(s)" in line and "e.g." in line and "force=true" in line
    assert json.dumps(expected.worst["itemset"]) in line
    assert not (tmp_path / "r.json").exists()


def test_cut_force_publishes_with_a_loud_warning(run, tmp_path):
    res = run("anonymize", "liuwang_fig1", "-a", "cut", "-k", "3", "-m", "2", "--param", "level=2",
              "--param", "force=true", "-o", "r.json")
    assert res.exit_code == 0 and "WARNING" in res.output and "violation(s)" in res.output
    params = json.loads((tmp_path / "r.json").read_text())["params"]
    assert params["k"] == 3 and params["m"] == 2 and params["audit"]["satisfied"] is False


def test_cut_claims_only_what_its_audit_passed(run, tmp_path):
    res = run("anonymize", "liuwang_fig1", "-a", "cut", "-k", "2", "--param", "cut=P,f,g,M,e,i",
              "--param", "suppress=i", "-o", "ok.json")
    assert res.exit_code == 0 and "WARNING" not in res.output
    assert json.loads((tmp_path / "ok.json").read_text())["params"]["k"] == 2
    assert run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", "-o", "none.json").exit_code == 0
    params = json.loads((tmp_path / "none.json").read_text())["params"]
    assert "k" not in params and "m" not in params


@pytest.mark.parametrize(
    "args, message",
    [
        (["-m", "2"], "-m: algorithm 'cut' claims k^m-anonymity only with -k"),
        (["--param", "force=true"], "--param force only applies with -k"),
        (["-k", "2", "--param", "force=maybe"], "--param force='maybe'"),
    ],
)
def test_cut_options_without_a_claim(run, args, message):
    assert message in one_error_line(run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", *args,
                                         "-o", "r.json"))


# ------------------------------------------------------------------ --label without labels


@pytest.mark.parametrize("name, text, fmt", [("d.dat", "1 2\n2 3\n", "fimi"), ("d.txt", "a,b\nb,c\n", "basket")])
def test_label_on_a_format_without_labels(run, tmp_path, name, text, fmt):
    (tmp_path / name).write_text(text)
    line = one_error_line(run("anonymize", name, "-a", "nr", "-k", "2", "--label", "diagnosis", "-o", "r.json"))
    assert "--label" in line and fmt in line
    line = one_error_line(run("audit", name, "r.json", "--model", "nonreciprocal", "-k", "2", "--label", "x"))
    assert "--label" in line


def test_label_on_a_bundled_dataset(run):
    assert "--label" in one_error_line(run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "--label", "x",
                                           "-o", "r.json"))


# ------------------------------------------------------------------ options an algorithm would ignore

_GENERAL = {"m": ["-m", "2"], "taxonomy": ["--taxonomy", "balanced:2"], "seed": ["--seed", "1"]}
_BASE = {  # a working command per algorithm, without the general options under test
    "aa": ["liuwang_fig1", "-k", "2"],
    "hghs": ["liuwang_fig1", "-k", "2"],
    "mhghs": ["liuwang_fig1", "-k", "2"],
    "mm": ["liuwang_fig1", "-k", "2"],
    "cut": ["liuwang_fig1", "-k", "2", "--param", "level=1", "--param", "force=true"],
    "coat": ["coat_fig1", "-k", "2"],
    "cahd": ["nr_table1", "-k", "2"],
    "nr": ["liuwang_fig1", "-k", "2", "--param", "order=gray"],  # no labels: order=gray with labels is refused
    "clump": ["clump_food", "-k", "2"],
    "partition": ["clump_food", "-k", "2"],
    **{name: ["swap_table1", "--param", "categories=random:3"]
       for name in ("partswap", "fullswap", "partsupp", "splitperson")},
    "randswap": ["swap_table1"],
    "diffpart": ["liuwang_fig1", "--epsilon", "1"],  # DP: the bundled taxonomy stands for the public universe
    "privbasis": ["liuwang_fig1", "--epsilon", "1", "--param", "k=5"],
}


@pytest.mark.parametrize("name", sorted(registered()))
def test_every_general_option_is_used_or_refused(run, name):
    spec = registered()[name]
    if spec.privacy_model == "rt":
        pytest.skip("relational-transaction methods read --relational FILE --qi COLUMNS: their command lines are "
                    "tested in tests/release/test_rt_release.py")
    assert name in _BASE, f"add a working command for {name!r} to _BASE"
    # every method reads -k, except tendency hiding (it protects a category, not a record count)
    # (and DP methods: they count nothing exactly)
    assert "k" in spec.options or spec.privacy_model in ("tendency", "dp")
    assert run("anonymize", *_BASE[name], "-a", name, "-o", "base.json").exit_code == 0
    for option, flag in _GENERAL.items():
        res = run("anonymize", *_BASE[name], "-a", name, *flag, "-o", "r.json")
        if option in spec.options:
            assert res.exit_code == 0 or "does not use" not in res.output, res.output
        elif option == "seed" and spec.privacy_model == "dp":
            assert "--seed would make its noise reproducible" in one_error_line(res)
        else:
            line = one_error_line(res)
            assert f"algorithm '{name}' does not use {flag[0]}" in line


def test_only_options_typed_on_the_command_line_are_refused():
    spec = get_algorithm("nr")
    spec.check_options(RunOptions(k=2, m=2))  # API callers: nothing to refuse
    spec.check_options(RunOptions(k=2, seed=1, given=frozenset({"k", "seed"})))
    with pytest.raises(ParameterError, match="algorithm 'nr' does not use -m, --taxonomy; drop them"):
        spec.check_options(RunOptions(k=2, given=frozenset({"k", "m", "taxonomy"})))
    with pytest.raises(ParameterError, match="no structure randomness"):
        get_algorithm("cahd").check_options(RunOptions(seed=1, given=frozenset({"seed"})))


def test_nonreciprocal_params_that_would_be_ignored(run):
    line = one_error_line(run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "--param", "order=gray",
                              "--param", "tsp_time_limit=1", "-o", "r.json"))
    assert "tsp_time_limit" in line and "order=gray" in line
    line = one_error_line(run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "--param", "l_method=flow",
                              "-o", "r.json"))
    assert "l_method only applies with --param l=L" in line
    line = one_error_line(run("anonymize", "liuwang_fig1", "-a", "nr", "-k", "2", "--seed", "1",
                              "--param", "tsp_time_limit=1", "-o", "r.json"))
    assert "tsp_step_limit" in line
    res = run("anonymize", "liuwang_fig1", "-a", "nr", "-k", "2", "--seed", "1", "--param", "tsp_step_limit=3000",
              "-o", "r.json")
    assert res.exit_code == 0, res.output


def test_nr_refuses_seed_with_labels_for_k_only(run):
    """Issue 30, item 4: with labels and k only, the seed would rebuild the ring; refused in one line."""
    line = one_error_line(run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "--seed", "1", "-o", "r.json"))
    assert "--seed with sensitive labels and -k only" in line and "unseeded gray-tsp" in line
    for order in ("gray", "identity"):  # deterministic orders: the ring follows from the data, seed or not
        line = one_error_line(run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "--param", f"order={order}",
                                  "-o", "r.json"))
        assert f"--param order={order} with sensitive labels" in line
    assert run("anonymize", "liuwang_fig1", "-a", "nr", "-k", "2", "--param", "order=gray", "-o", "r.json").exit_code == 0
    assert run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "-o", "r.json").exit_code == 0
    assert run("anonymize", "liuwang_fig1", "-a", "nr", "-k", "2", "--seed", "1", "-o", "r.json").exit_code == 0
    res = run("anonymize", "nr_table1", "-a", "nr", "--param", "l=2", "--seed", "1", "-o", "r.json")
    assert res.exit_code == 0, res.output


def test_coat_options_that_would_be_ignored(run):
    line = one_error_line(run("anonymize", "coat_fig1", "-a", "coat", "-k", "2", "-m", "2", "--param", "privacy=pgen",
                              "-o", "r.json"))
    assert "-m" in line and "privacy=km:M" in line
    assert "whole number m" in one_error_line(run("anonymize", "coat_fig1", "-a", "coat", "-k", "2", "-m", "inf",
                                                  "-o", "r.json"))
    line = one_error_line(run("anonymize", "groceries", "-a", "coat", "-k", "2", "--taxonomy", "groceries",
                              "-o", "r.json"))
    assert "--taxonomy" in line


def test_mm_confidence_without_private_items(run):
    line = one_error_line(run("anonymize", "liuwang_fig1", "-a", "mm", "-k", "2", "--param", "h=0.5", "-o", "r.json"))
    assert "--param h" in line and "private" in line
    res = run("anonymize", "liuwang_fig1", "-a", "mm", "-k", "2", "--param", "h=0.5,private=a", "-o", "r.json")
    assert res.exit_code == 0, res.output


# ------------------------------------------------------------------ bench reports what was used


def test_bench_reports_the_parameters_used(run):
    out = json.loads(run("bench", "nr_table1", "-a", "cahd", "-k", "3", "--param", "l=2", "--queries", "10",
                         "--json").output)
    assert out["k"] == 3 and out["params"] == {"k": 3, "l": 2, "alpha": 3, "group_size": 3, "grouping": "random"}
    assert out["audit"]["satisfied"] and out["audit"]["model"].endswith("(l=2)")
    assert out["audit_k"]["satisfied"] and out["audit_k"]["model"].endswith("(k=3)")
    out = json.loads(run("bench", "liuwang_fig1", "-a", "nr", "-k", "2", "--seed", "4", "--queries", "10",
                         "--json").output)
    assert out["params"]["tsp_step_limit"] == LOCAL_STEP_LIMIT and out["params"]["order"] == "gray-tsp"
    assert out["params"]["tsp_solver"] == "local-length"
    # a deterministic method takes --seed in bench: it seeds the query workload
    res = run("bench", "liuwang_fig1", "-a", "hghs", "-k", "2", "--seed", "4", "--queries", "10", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["params"]


def test_adapters_read_declared_params_only():
    # every adapter reads --param through its Param declarations: RunOptions has no untyped reader
    assert not hasattr(RunOptions, "param")
    data = load("liuwang_fig1")
    mm = get_algorithm("mm")
    assert mm.combined_params and mm.parse_params({"h": "0.5,private=a"}) == {"h": 0.5, "private": ["a"]}
    with pytest.raises(ParameterError, match=r"--param h='half'"):
        mm.run(data, RunOptions(k=2, params={"h": "half", "private": "a"}))
    with pytest.raises(ParameterError, match="without --param private"):
        mm.run(data, RunOptions(k=2, params={"h": "1"}))  # given, even at its default value
    with pytest.raises(ParameterError, match="unknown --param p for algorithm 'mm'; it takes: h, private"):
        mm.run(data, RunOptions(k=2, params={"p": "2", "private": "a"}))
    with pytest.raises(ParameterError, match="--param h='0.5,p=2'"):  # p is not mm's: the text stays h's
        mm.run(data, RunOptions(k=2, params={"h": "0.5,p=2,private=a"}))
    with pytest.raises(ParameterError, match="--param visit='sorted': expected one of random, input"):
        get_algorithm("partswap").run(data, RunOptions(params={"categories": "random:2", "visit": "sorted"}))
    tax = load_taxonomy("liuwang_fig1")
    with pytest.raises(ParameterError, match="--param level='top'"):
        get_algorithm("cut").run(data, RunOptions(taxonomy=tax, params={"level": "top"}))
    rel = get_algorithm("cut").run(data, RunOptions(taxonomy=tax, params={"level": "1"}))
    assert rel.params["level"] == 1
