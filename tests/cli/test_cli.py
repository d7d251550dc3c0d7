import json

import pytest


def test_datasets(run):
    res = run("datasets", "--json")
    assert res.exit_code == 0
    rows = json.loads(res.output)
    assert {"bms1", "groceries", "coat_fig1"} <= {r["name"] for r in rows}


def test_anonymize_audit_evaluate_golden(run, tmp_path):
    res = run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "cut=P,f,g,M,e,i", "--param", "suppress=i",
              "-o", "r.json")
    assert res.exit_code == 0, res.output
    res = run("audit", "liuwang_fig1", "r.json", "--model", "km", "-k", "2", "--json")
    assert res.exit_code == 0
    rep = json.loads(res.output)
    assert rep["satisfied"] is True and rep["violations"] == 0
    res = run("audit", "liuwang_fig1", "r.json", "--model", "km", "-k", "3", "-m", "1", "--json")
    assert res.exit_code == 1 and json.loads(res.output)["satisfied"] is False
    res = run("evaluate", "liuwang_fig1", "r.json", "--queries", "50", "--json")
    out = json.loads(res.output)
    assert res.exit_code == 0 and out["ncp"] == pytest.approx(5.6 / 23) and out["queries"] == 50


def test_anonymize_file_input_with_taxonomy_file(run, tmp_path):
    (tmp_path / "d.dat").write_text("1 2\n1\n3 4\n3\n")
    (tmp_path / "t.txt").write_text("1;A;R\n2;A;R\n3;B;R\n4;B;R\n")
    res = run("anonymize", "d.dat", "-a", "cut", "--taxonomy", "t.txt", "--param", "level=1", "-o", "r.json.gz")
    assert res.exit_code == 0, res.output
    res = run("audit", "d.dat", "r.json.gz", "--model", "transactional", "-k", "2", "--json")
    assert json.loads(res.output)["satisfied"] is True


@pytest.mark.parametrize(
    "args, message",
    [
        (["anonymize", "nope.dat", "-a", "cut", "-o", "x.json"], "not a bundled dataset"),
        (["anonymize", "liuwang_fig1", "-a", "zzz", "-o", "x.json"], "unknown algorithm 'zzz'"),
        (["anonymize", "bms1", "-a", "cut", "--param", "level=1", "-o", "x.json"], "needs a taxonomy"),
        (["anonymize", "liuwang_fig1", "-a", "cut", "--param", "cut=P,Q", "-o", "x.json"], "not a cut"),
        (["anonymize", "liuwang_fig1", "-a", "cut", "-k", "0", "--param", "level=1", "-o", "x.json"], "k must be a whole number >= 1"),
        (["anonymize", "liuwang_fig1", "-a", "cut", "-k", "9", "--param", "level=1", "-o", "x.json"], "exceeds the number of records"),
        (["anonymize", "liuwang_fig1", "-a", "cut", "-m", "0", "--param", "level=1", "-o", "x.json"], "-m must be at least 1"),
        (["anonymize", "liuwang_fig1", "-a", "cut", "--param", "bogus=1", "-o", "x.json"], "unknown --param bogus"),
        (["audit", "liuwang_fig1", "missing.json", "--model", "km", "-k", "2"], "no such release file"),
        (["audit", "liuwang_fig1", "missing.json", "--model", "zz", "-k", "2"], "no such release file"),
        (["taxonomy", "bms1"], "no bundled taxonomy"),
    ],
)
def test_bad_input_gives_one_line_and_exit_2(run, args, message):
    res = run(*args)
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("graphanon: error:") and message in lines[0]


def test_malformed_input_file(run, tmp_path):
    (tmp_path / "bad.dat").write_text("1 2\nfoo\n")
    res = run("anonymize", "bad.dat", "-a", "cut", "--taxonomy", "balanced:2", "--param", "level=1", "-o", "x.json")
    assert res.exit_code == 2 and "line 2: item 'foo' is not a non-negative integer" in res.output
    assert "--format basket" in res.output


def test_taxonomy_and_draw(run, tmp_path):
    res = run("taxonomy", "groceries", "--json")
    assert json.loads(res.output)["levels"] == [1, 10, 55, 169]
    res = run("draw", "taxonomy", "liuwang_fig1", "-o", "t.png")
    assert res.exit_code == 0 and (tmp_path / "t.png").stat().st_size > 1000


def test_bench(run):
    res = run("bench", "liuwang_fig1", "-a", "cut", "-k", "2", "--param", "cut=P,f,g,M,e,i",
              "--param", "suppress=i", "--queries", "20", "--json")
    out = json.loads(res.output)
    assert out["audit"]["satisfied"] is True and out["metrics"]["ncp"] == pytest.approx(5.6 / 23)


def test_bench_forwards_audit_params_only(run):
    # COAT's `weights` configures the anonymizer, not the constraints audit;
    # `privacy` configures both, and bench must audit what the method promised.
    res = run("bench", "coat_fig1", "-a", "coat", "-k", "2", "--param", "privacy=km:2",
              "--param", "weights=one", "--queries", "20", "--json")
    out = json.loads(res.output)
    assert out["audit"]["satisfied"] is True
    assert {"ul", "ncp", "avg_relative_error"} <= set(out["metrics"])


def test_algorithms_lists_every_method_and_model(run):
    out = json.loads(run("algorithms", "--json").output)
    names = {a["name"]: a for a in out["algorithms"]}
    assert {"cut", "aa", "hghs", "mhghs", "mm", "coat", "nr", "cahd"} <= set(names)
    # every method's model is an audit model, except differential privacy: tested, never audited (docs/dp.md);
    # the relational-transaction model "rt" (issue 34) comes with its audit from the rtaudit branch: until that
    # merge it may be absent, after it the check below holds for rt too
    pending = {"dp"} | ({"rt"} - set(out["models"]))
    assert all(a["model"] in out["models"] for a in names.values() if a["model"] not in pending)
    assert "dp" not in out["models"] and names["diffpart"]["model"] == "dp"
    assert {"km", "transactional", "constraints", "hkp", "nonreciprocal", "ldiversity"} <= set(out["models"])


def test_nonreciprocal_round_trip_through_cli(run):
    res = run("anonymize", "nr_table1", "-a", "nr", "-k", "3", "-o", "nr.json", "--link-out", "nr.link")
    assert res.exit_code == 0 and "never publish" in res.output
    res = run("audit", "nr_table1", "nr.json", "--model", "nonreciprocal", "-k", "3", "--json")
    assert json.loads(res.output)["satisfied"] is True
    res = run("audit", "nr_table1", "nr.json", "--model", "nonreciprocal", "-k", "4", "--json")
    assert res.exit_code == 1 and json.loads(res.output)["violations"] > 0
    metrics = json.loads(run("evaluate", "nr_table1", "nr.json", "--queries", "20", "--json").output)
    assert "error_rate" not in metrics and metrics["needs_link"] == ["error_rate"] and "query_error" in metrics
    res = run("evaluate", "nr_table1", "nr.json", "--queries", "20")
    assert res.exit_code == 0 and "error_rate: needs the private link" in res.output
    metrics = json.loads(run("evaluate", "nr_table1", "nr.json", "--link", "nr.link", "--queries", "20", "--json").output)
    assert 0 <= metrics["error_rate"] <= 1 and "query_error" in metrics


@pytest.mark.parametrize(
    "args",
    [
        ("search", "liuwang_fig1", "-k", "2", "-m", "2"),
        ("constraints", "coat_fig1"),
        ("constraints", "liuwang_fig1", "-k", "2"),
        ("generalization", "nr_table1", "-k", "3"),
    ],
)
def test_draw_the_graphs_algorithms_build(run, tmp_path, args):
    res = run("draw", *args, "-o", "g.png")
    assert res.exit_code == 0 and (tmp_path / "g.png").stat().st_size > 10_000


def test_draw_refuses_what_it_cannot_show(run):
    res = run("draw", "generalization", "chess", "-k", "3", "-o", "g.png")
    assert res.exit_code == 2 and "at most 60 records" in res.output
    res = run("draw", "search", "liuwang_fig1", "-o", "g.png")
    assert res.exit_code == 2 and "needs -k" in res.output


def test_bundled_dataset_lookup_one_helper(tmp_path, monkeypatch):
    """Every command resolves a dataset name the same way: a bundled name, unless a file of that name exists."""
    from graphanon.cli._app import bundled_names, is_bundled

    assert "groceries" in bundled_names()
    assert is_bundled("groceries") and not is_bundled("no-such-dataset")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "groceries").write_text("1 2\n", encoding="utf-8")
    assert not is_bundled("groceries")
