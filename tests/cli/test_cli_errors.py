"""Issue 11's reproductions: each is now a one-line error (exit 2) or a correct result."""

from __future__ import annotations

import json
import os

import pytest

import graphanon.cli.anonymize as cli_anonymize
import graphanon.cli.draw as cli_draw
from graphanon.readwrite.files import dumps_json


def one_line_error(res, *fragments):
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.exit_code == 2, res.output
    assert len(lines) == 1 and lines[0].startswith("graphanon: error:"), res.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_nr_k1_on_a_one_record_dataset_is_a_correct_release(run, tmp_path):
    (tmp_path / "one.dat").write_text("1 2 3\n")
    res = run("anonymize", "one.dat", "-a", "nr", "-k", "1", "-o", "r.json")
    assert res.exit_code == 0, res.output
    res = run("audit", "one.dat", "r.json", "--model", "nonreciprocal", "-k", "1", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["satisfied"] is True


def test_draw_constraints_of_a_large_dataset(run, tmp_path):
    # was a traceback; now the drawing is capped at max_nodes and says what it left out
    res = run("draw", "constraints", "chess", "-k", "5", "-o", "c.png")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "c.png").stat().st_size > 0


def test_draw_to_an_unknown_format_fails_before_drawing(run, tmp_path, monkeypatch):
    def boom(*args):
        raise AssertionError("drew before checking -o")

    monkeypatch.setattr(cli_draw, "_draw_taxonomy", boom)
    one_line_error(run("draw", "taxonomy", "liuwang_fig1", "-o", "x.xyz"), "-o x.xyz", ".png")
    one_line_error(run("draw", "taxonomy", "liuwang_fig1", "-o", "nodir/x.png"), "folder nodir does not exist")
    assert not (tmp_path / "x.xyz").exists()


@pytest.mark.parametrize("value", ["0", "-3"])
def test_max_nodes_must_be_positive(run, value):
    one_line_error(run("draw", "taxonomy", "liuwang_fig1", "--max-nodes", value, "-o", "t.png"), "--max-nodes")


def test_draw_taxonomy_writes_the_figure(run, tmp_path):
    res = run("draw", "taxonomy", "liuwang_fig1", "--max-nodes", "1", "-o", "t.svg")
    assert res.exit_code == 0 and (tmp_path / "t.svg").read_text().lstrip().startswith("<?xml")


def test_release_with_a_string_for_records(run, tmp_path):
    assert run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", "-o", "r.json").exit_code == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    doc["records"] = "abc"
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    one_line_error(run("audit", "liuwang_fig1", "bad.json", "--model", "km", "-k", "2"), "bad.json")
    one_line_error(run("evaluate", "liuwang_fig1", "bad.json"), "bad.json")


def test_anonymize_never_writes_over_its_input(run, tmp_path):
    (tmp_path / "small.dat").write_text("1 2\n2 3\n1 3\n")
    before = (tmp_path / "small.dat").read_bytes()
    for out in ("small.dat", "./small.dat", str(tmp_path / "small.dat")):
        one_line_error(run("anonymize", "small.dat", "-a", "nr", "-k", "2", "-o", out), "input of this command")
    os.symlink("small.dat", tmp_path / "alias.json")
    one_line_error(run("anonymize", "small.dat", "-a", "nr", "-k", "2", "-o", "alias.json"), "input of this command")
    assert (tmp_path / "small.dat").read_bytes() == before


def test_output_checked_before_reading_or_computing(run, monkeypatch):
    def boom(*args):
        raise AssertionError("read the input before checking -o")

    monkeypatch.setattr(cli_anonymize, "read_input", boom)
    one_line_error(run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", "-o", "nodir/r.json"),
                   "nodir does not exist")
    one_line_error(run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", "-o", "r.txt"),
                   ".json, .json.gz")


def test_read_only_folder(run, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o500)
    try:
        one_line_error(run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", "-o", "ro/r.json"),
                       "not writable")
    finally:
        (tmp_path / "ro").chmod(0o700)


def test_rerun_to_the_same_output_replaces_it(run, tmp_path):
    for level in ("1", "2"):
        assert run("anonymize", "liuwang_fig1", "-a", "cut", "--param", f"level={level}", "-o", "r.json").exit_code == 0
    assert json.loads((tmp_path / "r.json").read_text())["params"]["level"] == 2
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_usage_errors_are_one_line(run):
    one_line_error(run("anonymize", "liuwang_fig1", "-a", "cut", "-k", "abc", "-o", "r.json"), "'-k'", "--help")
    one_line_error(run("anonymize", "-a", "cut", "-o", "r.json"), "Missing argument 'INPUT'")
    one_line_error(run("frobnicate"), "No such command")
    one_line_error(run("--frobnicate"), "No such option")
    one_line_error(run("evaluate", "liuwang_fig1", "r.json", "--seed", "-1"), "--seed")


def test_json_output_is_strict(run):
    # all items suppressed: the generalization part of log UL is log(0) = -inf
    assert run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "cut=P,Q,e,i", "--param", "suppress=P,Q,e,i",
               "-o", "s.json").exit_code == 0
    res = run("evaluate", "liuwang_fig1", "s.json", "--queries", "5", "--json")
    assert res.exit_code == 0 and "Infinity" not in res.stdout and "NaN" not in res.stdout

    def reject(constant):
        raise AssertionError(constant)

    out = json.loads(res.stdout, parse_constant=reject)
    assert out["log_ul_generalization"] is None and out["suppression_ratio"] == 1.0


def test_release_files_are_strict_json(tmp_path):
    from graphanon.datasets import load
    from graphanon.release import GlobalRecoding

    data = load("liuwang_fig1")
    rel = GlobalRecoding.from_mapping(data, {x: x for x in data.items}, algorithm="test",
                                      params={"k": float("nan"), "m": [float("-inf"), 1.5]})
    rel.save(tmp_path / "r.json")
    text = (tmp_path / "r.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text)["params"]["m"] == [None, 1.5]


def test_dumps_json_converts_non_finite_numbers_once():
    import numpy as np

    text = dumps_json({"a": np.float32("nan"), "b": (np.inf, 2), 3: np.arange(2)})
    assert json.loads(text) == {"a": None, "b": [None, 2], "3": [0, 1]}


# Found by the fuzz suite (tests/cli/test_cli_fuzz.py); kept as plain regressions.
@pytest.mark.parametrize("content", [b"\r\x00", b"tid,item\r1,a\r2,b\r", b"tid,item\n1," + b"x" * 200_000 + b"\n"])
def test_csv_with_lone_carriage_returns_or_huge_fields(run, tmp_path, content):
    (tmp_path / "d.csv").write_bytes(content)
    res = run("anonymize", "d.csv", "-a", "cut", "--taxonomy", "balanced:2", "--param", "level=1", "-o", "r.json",
              catch_exceptions=True)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exc_info
    if res.exit_code == 2:
        one_line_error(res, "d.csv")
    else:  # old-Mac line endings are line endings
        assert res.exit_code == 0 and content.startswith(b"tid,item\r1")


@pytest.mark.parametrize("content", [b"\r,", b"item,level1\rx,A\r", b"item,l1\n" + b"y" * 200_000 + b",A\n"])
def test_taxonomy_csv_with_lone_carriage_returns_or_huge_fields(run, tmp_path, content):
    (tmp_path / "t.csv").write_bytes(content)
    res = run("taxonomy", "t.csv", "--json", catch_exceptions=True)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exc_info
    if res.exit_code == 2:
        one_line_error(res, "t.csv")
    else:
        assert json.loads(res.stdout)["leaves"] == 1


def test_release_with_a_number_too_large(run, tmp_path):
    assert run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "-o", "r.json").exit_code == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    doc["threshold"] = 9.3e18
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    one_line_error(run("audit", "nr_table1", "bad.json", "--model", "nonreciprocal", "-k", "2"), "bad.json")


@pytest.mark.parametrize("algorithm", ["aa", "mhghs"])
def test_huge_m_is_the_longest_record(run, tmp_path, algorithm):
    # found by the fuzz suite: both looped once per m (here 10**20 times)
    for m in ("99999999999999999999", "3"):  # liuwang_fig1's longest record has 3 items
        res = run("anonymize", "liuwang_fig1", "-a", algorithm, "-k", "2", "-m", m, "-o", f"r{len(m)}.json")
        assert res.exit_code == 0, res.output
    from graphanon.release import load_release

    big, small = (load_release(tmp_path / f"r{n}.json") for n in (20, 1))
    assert sorted(map(big.render_record, range(8))) == sorted(map(small.render_record, range(8)))


def test_basket_line_with_a_carriage_return_inside_quotes(run, tmp_path):
    (tmp_path / "b.txt").write_bytes(b'\r""\n')
    res = run("anonymize", "b.txt", "-a", "cut", "--taxonomy", "balanced:2", "--param", "level=1", "-o", "r.json",
              catch_exceptions=True)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exc_info
    one_line_error(res)  # a malformed line, or (where a lone CR ends a line) no items at all
