"""MEPS-like golden test: diagnosis codes with leading zeros stay text end to end.

Thirteen patients' three-digit diagnosis codes (``001``, ``010``, ``250``, and
``-1`` for "unknown", as in MEPS) with an ICD-9-like taxonomy. The same data
and taxonomy are given three ways -- long CSV + path file, long CSV + level
table, space-separated basket + level table -- and each runs through the
command line for ``aa``, ``mhghs``, ``coat`` and ``cut``, then through
``audit``. Every way must give the same release (labels match across
formats), every label in the release must be the code as written, and the
drawings must show ``001``, not ``1``.
"""

from __future__ import annotations

import json
import re

import matplotlib
import pytest

from graphanon.readwrite.formats import read_any
from graphanon.release import load_release
from graphanon.taxonomy import read_taxonomy
from tests.conftest import cli

RECORDS = [
    ["001", "250", "401"],
    ["003", "250", "402"],
    ["010", "251"],
    ["011", "251", "-1"],
    ["001", "010"],
    ["003", "011"],
    ["250", "401", "-1"],
    ["251", "402", "-1"],
    ["001", "401"],
    ["010", "402"],
    ["-1"],
    ["250", "251"],
    ["-1", "003"],
]
# leaf, block, chapter (ICD-9-like ranges); -1 is MEPS's "unknown"
TAXONOMY = [
    ("001", "001-009", "001-139"),
    ("003", "001-009", "001-139"),
    ("010", "010-018", "001-139"),
    ("011", "010-018", "001-139"),
    ("250", "249-259", "240-279"),
    ("251", "249-259", "240-279"),
    ("401", "401-405", "390-459"),
    ("402", "401-405", "390-459"),
    ("-1", "unknown code", "unknown"),
]
CODES = {leaf for leaf, _, _ in TAXONOMY}
NODES = CODES | {b for _, b, _ in TAXONOMY} | {c for _, _, c in TAXONOMY} | {"ALL"}
CONSTRAINTS = "# privacy constraints: code sets an attacker may know\n001,250\n-1,401\n010,402\n"

RUNS = {
    "aa": (["-k", "2", "-m", "2"], ["--model", "km", "-k", "2", "-m", "2"]),
    "mhghs": (["-k", "2", "-m", "2"], ["--model", "km", "-k", "2", "-m", "2"]),
    "coat": (["-k", "2", "--param", "privacy=constraints.txt", "--param", "s=50%"],
             ["--model", "constraints", "-k", "2", "--param", "privacy=constraints.txt"]),
    "cut": (["--param", "cut=001-009,010-018,240-279,390-459,-1", "--param", "suppress=-1"],
            ["--model", "km", "-k", "2", "-m", "1"]),
}
# one published item each run must show, codes exactly as written
EXPECTED = {
    "aa": ("-1", ("-1",)),  # -1 is safe as it is: published as the text "-1"
    "mhghs": ("001-139", ("001", "003", "010", "011")),
    "coat": ("(-1,003,011)", ("-1", "003", "011")),
    "cut": ("001-009", ("001", "003")),
}


@pytest.fixture
def meps(tmp_path, monkeypatch):
    """The three encodings of the same data and taxonomy, written to tmp_path."""
    monkeypatch.chdir(tmp_path)
    csv_lines = ["tid,item"] + [f"p{i:02d},{code}" for i, rec in enumerate(RECORDS, 1) for code in rec]
    (tmp_path / "codes.csv").write_text("\n".join(csv_lines) + "\n", encoding="utf-8")
    (tmp_path / "codes.txt").write_text("\n".join(" ".join(r) for r in RECORDS) + "\n", encoding="utf-8")
    (tmp_path / "icd.txt").write_text(
        "\n".join(f"{leaf};{block};{chapter};ALL" for leaf, block, chapter in TAXONOMY) + "\n", encoding="utf-8"
    )
    (tmp_path / "icd.csv").write_text(
        "item,block,chapter\n" + "\n".join(",".join(row) for row in TAXONOMY) + "\n", encoding="utf-8"
    )
    (tmp_path / "constraints.txt").write_text(CONSTRAINTS, encoding="utf-8")
    return tmp_path


VARIANTS = {
    "csv+paths": ("codes.csv", [], "icd.txt"),
    "csv+levels": ("codes.csv", [], "icd.csv"),
    "basket+levels": ("codes.txt", ["--format", "basket", "--delimiter", " "], "icd.csv"),
}


def _cli(*args):
    res = cli(*args)
    return res.exit_code, res.output


def _content(rel) -> tuple:
    """What a release says, independent of row order: published items and the multiset of rows."""
    items = sorted((pi.label, tuple(sorted(pi.members)), pi.leaves) for pi in rel.published_items)
    return items, sorted(rel.render_record(i) for i in range(rel.n_records))


def test_every_encoding_reads_the_same_text_labels(meps):
    datas = [read_any(meps / "codes.csv"), read_any(meps / "codes.txt", "basket", delimiter=" ")]
    for data in datas:
        assert data.items == ("-1", "001", "003", "010", "011", "250", "251", "401", "402")
        assert [sorted(data.record(i)) for i in range(data.n_records)] == [sorted(r) for r in RECORDS]
    paths, levels = read_taxonomy(meps / "icd.txt"), read_taxonomy(meps / "icd.csv")
    assert set(paths.nodes) == set(levels.nodes) == NODES
    assert set(paths.graph.edges) == set(levels.graph.edges)
    assert paths.parent("001") == "001-009" and paths.parent("-1") == "unknown code"
    assert "1" not in paths and "10" not in paths


def test_ambiguous_space_separated_file_asks_for_format(meps):
    code, out = _cli("anonymize", "codes.txt", "-a", "aa", "-k", "2", "--taxonomy", "icd.txt", "-o", "r.json")
    assert code == 2 and len(out.strip().splitlines()) == 1
    assert "codes.txt, line 1" in out and "--delimiter ' '" in out
    assert not (meps / "r.json").exists()


@pytest.mark.parametrize("algorithm", sorted(RUNS))
def test_meps_like_codes_end_to_end(meps, algorithm):
    anon_args, audit_args = RUNS[algorithm]
    contents = {}
    for variant, (data_file, fmt, tax_file) in VARIANTS.items():
        out = f"{algorithm}-{variant}.json"
        # COAT is hierarchy-free: it refuses a taxonomy it would not read
        tax_args = [] if algorithm == "coat" else ["--taxonomy", tax_file]
        code, text = _cli("anonymize", data_file, *fmt, "-a", algorithm, *tax_args, *anon_args, "-o", out)
        assert code == 0, f"{variant}: {text}"
        code, text = _cli("audit", data_file, out, *fmt, *audit_args, "--json")
        report = json.loads(text)
        assert code == 0 and report["satisfied"] is True, f"{variant}: {text}"
        rel = load_release(meps / out)
        contents[variant] = _content(rel)
        members = {m for pi in rel.published_items for m in pi.members}
        assert members <= CODES  # every member is a code exactly as written
        for pi in rel.published_items:  # a taxonomy node, or COAT's "(a,b)" set of codes as written
            assert pi.label in NODES or pi.label == "(" + ",".join(pi.members) + ")", pi
        published = {pi.label: pi.members for pi in rel.published_items}
        label, members = EXPECTED[algorithm]
        assert published[label] == members, published
    first = next(iter(contents.values()))
    assert all(c == first for c in contents.values()), contents


def test_cut_release_keeps_minus_one_and_leading_zeros(meps):
    _cli("anonymize", "codes.csv", "-a", "cut", "--taxonomy", "icd.txt",
         "--param", "cut=001-009,010-018,240-279,390-459,-1", "-o", "cut.json")
    rel = load_release(meps / "cut.json")
    by_label = {pi.label: pi.members for pi in rel.published_items}
    assert by_label["001-009"] == ("001", "003") and by_label["010-018"] == ("010", "011")
    assert by_label["-1"] == ("-1",)
    rows = sorted(rel.render_record(i) for i in range(rel.n_records))
    assert "-1" in rows and "001-009 240-279 390-459" in rows


def test_coat_constraints_match_codes_as_text(meps):
    (meps / "bad.txt").write_text("1,250\n", encoding="utf-8")
    code, out = _cli("anonymize", "codes.csv", "-a", "coat", "-k", "2", "--param", "privacy=bad.txt", "-o", "r.json")
    assert code == 2 and "bad.txt, line 1: item '1' is not in the data" in out


def test_drawings_show_codes_as_written(meps):
    _cli("anonymize", "codes.csv", "-a", "mhghs", "-k", "2", "-m", "2", "--taxonomy", "icd.txt", "-o", "r.json")
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        code, out = _cli("draw", "taxonomy", "icd.txt", "--release", "r.json", "-o", "tax.svg")
        assert code == 0, out
        code, out = _cli("draw", "search", "codes.csv", "--taxonomy", "icd.csv", "-k", "2", "-m", "2",
                         "-o", "search.svg")
        assert code == 0, out
        code, out = _cli("draw", "search", "codes.txt", "--format", "basket", "--delimiter", " ",
                         "--taxonomy", "icd.txt", "-k", "2", "-m", "2", "-o", "basket.svg")
        assert code == 0, out
    for name in ("tax.svg", "search.svg", "basket.svg"):
        texts = set(re.findall(r"<text[^>]*>([^<]*)</text>", (meps / name).read_text(encoding="utf-8")))
        texts = {t.strip() for t in texts}
        assert {"001", "010", "-1"} <= texts, (name, sorted(texts))
        assert not {"1", "10", "3", "11"} & texts, (name, sorted(texts))
