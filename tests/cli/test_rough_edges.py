"""Rough edges a new user hit (issue 21): each is fixed here and stays fixed.

- ``--param private=<423 item names>`` failed with ``OSError: File name too long``;
- a release JSON given as INPUT was read as one basket;
- published labels holding commas or spaces were ambiguous in ``to_text()``;
- ``from_dataframe`` refused an empty item that ``read_long_csv`` reads as an empty basket;
- ``--link-out X`` equal to the input was reported as ``-o X is an input``;
- ``-a nr --param l=2`` on unlabelled data said "give labels=..." instead of ``--label``;
- ``graphanon draw taxonomy --help`` showed the generic help.
"""

import json
import re

import pandas as pd
import pytest

from graphanon.algorithms import (
    anonymize_clump,
    anonymize_coat,
    anonymize_nonreciprocal,
    anonymize_randswap,
)
from graphanon.data import from_dataframe, from_iterable
from graphanon.datasets import load, load_constraints, load_taxonomy
from graphanon.errors import DataFormatError, OutputError
from graphanon.privacy import NonreciprocalKAnonymity, PrivacyConstraints, TransactionalKAnonymity
from graphanon.readwrite.files import check_output
from graphanon.readwrite.formats import read_any
from graphanon.readwrite.long_csv import read_long_csv
from graphanon.taxonomy import Taxonomy
from graphanon.utils.labels import display_label, display_published


def one_error_line(result) -> str:
    """The CLI's answer to bad input: exit 2 and one line ``graphanon: error: ...``."""
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphanon: error: "), result.output
    return lines[0]


# ------------------------------------------------------------ --param values are not paths
def test_a_long_param_value_is_not_checked_as_a_file(run, tmp_path):
    data = load("bms1")
    private = ",".join(data.items[:423])
    assert len(private) > 255  # longer than any file name: Path(private).exists() raises OSError
    res = run("anonymize", "bms1", "-a", "mm", "-k", "2", "-m", "1", "--param", f"private={private}",
              "-o", "r.json")
    assert res.exit_code == 0, res.output
    assert "OSError" not in res.output
    # with private items MM promises (h,k,p)-coherence over the public items (the audit takes the long value too)
    res = run("audit", "bms1", "r.json", "--model", "hkp", "-k", "2", "-m", "1", "--param", f"private={private}",
              "--json")
    assert res.exit_code == 0 and json.loads(res.output)["satisfied"] is True


def test_check_output_ignores_texts_no_file_can_have(tmp_path):
    out = tmp_path / "r.json"
    assert check_output(out, inputs=["x" * 5000, "a\0b"]) == out
    # an existing input is still caught
    (tmp_path / "data.dat").write_text("1 2\n")
    with pytest.raises(OutputError, match="is an input"):
        check_output(tmp_path / "data.dat", inputs=["x" * 5000, tmp_path / "data.dat"])


# ------------------------------------------------------------ a release is no input
@pytest.mark.parametrize("name", ["r.json", "r.json.gz", "r.txt"])
def test_a_release_given_as_input_is_refused_in_one_line(run, tmp_path, name):
    res = run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "cut=P,f,g,M,e,i", "-o", "r.json",
              "--link-out", "link.json")
    assert res.exit_code == 0, res.output
    if name != "r.json":
        import gzip
        blob = (tmp_path / "r.json").read_bytes()
        (tmp_path / name).write_bytes(gzip.compress(blob) if name.endswith(".gz") else blob)
    for algorithm in ("mm", "nr"):
        line = one_error_line(run("anonymize", name, "-a", algorithm, "-k", "1", "-o", "again.json"))
        assert "is a graphanon release file (graphanon-release/3), not data" in line and "GB" not in line
    line = one_error_line(run("anonymize", "link.json", "-a", "nr", "-k", "1", "-o", "again.json"))
    assert "private link file" in line
    with pytest.raises(DataFormatError, match="release file"):
        read_any(tmp_path / name)
    with pytest.raises(DataFormatError, match="release file"):
        read_any(tmp_path / name, fmt="basket", delimiter=",")


def test_data_that_merely_mentions_the_tag_is_still_data(tmp_path):
    path = tmp_path / "items.txt"
    path.write_text('"format": "graphanon-release/2"\nmilk\n')
    assert read_any(path, fmt="basket", delimiter=",").n_records == 2


# ------------------------------------------------------------ quoted labels in to_text
TOKEN = re.compile(r'"((?:[^"]|"")*)"|([^\s"(),]+)')


def parse_row(text: str) -> list[frozenset]:
    """Read a printed record back: space-separated labels, ``(a,b)`` sets, CSV-style quotes."""
    items, pos = [], 0
    while pos < len(text):
        if text[pos] == " ":
            pos += 1
            continue
        if text[pos] == "(":
            members, pos = [], pos + 1
            while True:
                match = TOKEN.match(text, pos)
                assert match, text[pos:]
                members.append(match.group(2) or match.group(1).replace('""', '"'))
                pos = match.end()
                if text[pos] == ")":
                    pos += 1
                    break
                assert text[pos] == ",", text[pos:]
                pos += 1
            items.append(frozenset(members))
        else:
            match = TOKEN.match(text, pos)
            assert match, text[pos:]
            items.append(frozenset([match.group(2) or match.group(1).replace('""', '"')]))
            pos = match.end()
    return items


AWKWARD = {"a": "007", "b": "bread, white", "c": 'a 12" pizza', "d": "(d)", "e": "eggs", "f": "f,g",
           "g": "g h", "h": "h"}


def test_display_label_quotes_like_csv():
    assert display_label("milk") == "milk"
    assert display_label("whole milk") == '"whole milk"'
    assert display_label('12" pizza') == '"12"" pizza"'
    assert display_label("a,b") == '"a,b"'
    assert display_published("(a,b)", ["a", "b"]) == "(a,b)"
    assert display_published("(a,b, c)", ["a", "b, c"]) == '(a,"b, c")'
    assert parse_row('(a,"b, c") "x y" z') == [frozenset({"a", "b, c"}), frozenset({"x y"}), frozenset({"z"})]


def test_coat_rows_with_commas_and_spaces_read_back_unambiguously():
    data = load("coat_fig1")
    awkward = from_iterable([[AWKWARD[x] for x in sorted(data.record(i))] for i in range(data.n_records)])
    c = load_constraints("coat_fig1")
    privacy = [[AWKWARD[x] for x in s] for s in c["privacy"]]
    utility = [[AWKWARD[x] for x in s] for s in c["utility"]]
    release = anonymize_coat(awkward, privacy=privacy, utility=utility, k=c["k"], s=c["s"], unsafe_secret_seed=4)
    assert PrivacyConstraints(privacy, c["k"]).audit(awkward, release).satisfied
    merged = [pi for pi in release.published_items if len(pi.members) > 1]
    assert any("," in m for pi in merged for m in pi.members)  # the case the issue met
    for row, line in enumerate(release.to_text().splitlines()):
        got = parse_row(line.split(": ", 1)[1])
        r = release.records
        expected = [frozenset(release.published_items[g].members) for g in r.indices[r.indptr[row]:r.indptr[row + 1]]]
        assert got == expected, line


def test_clump_rows_with_spaced_node_names_read_back_unambiguously():
    rename = {"Banana": "bananas, organic", "Orange": 'navel "orange"', "Milk": "whole milk",
              "Fruit": "fresh fruit"}
    tax = load_taxonomy("clump_food")
    parents = {rename.get(n, n): rename.get(tax.parent(n), tax.parent(n)) for n in tax.nodes if tax.parent(n)}
    awkward_tax = Taxonomy.from_parent_map(parents)
    data = load("clump_food")
    awkward = from_iterable([[rename.get(data.items[j], data.items[j]) for j in range(len(data.items))
                              if data.matrix[i, j]] for i in range(data.n_records)])
    release = anonymize_clump(awkward, taxonomy=awkward_tax, k=3, unsafe_secret_seed=0)
    assert TransactionalKAnonymity(3).audit(awkward, release).satisfied
    text = release.to_text()
    assert '"bananas, organic"' in text or '"fresh fruit"' in text
    r = release.records
    for row, line in enumerate(text.splitlines()):
        lo, hi = r.indptr[row], r.indptr[row + 1]
        expected = [frozenset([str(release.nodes[x].label)]) for x, c in zip(r.indices[lo:hi], r.data[lo:hi])
                    for _ in range(int(c))]
        assert parse_row(line.split(": ", 1)[1]) == expected, line


def test_nonreciprocal_and_perturbed_rows_quote_their_items():
    data = from_iterable([["whole milk", "eggs"], ["whole milk"], ["eggs", "bread, white"], ["bread, white"]],
                         labels=["x y", "z", "x y", "z"])
    release = anonymize_nonreciprocal(data, k=2, order="gray", rng=0, unsafe_secret_seed=0)
    assert NonreciprocalKAnonymity(2).audit(data, release).satisfied
    for line in release.to_text().splitlines():
        base = line.split(": ", 1)[1].split(" | ")[0]
        assert all(len(s) == 1 for s in parse_row(base)) and "whole milk" not in base.replace('"whole milk"', "")
        assert line.endswith(('| label "x y"', "| label z"))
    swapped = anonymize_randswap(data, unsafe_secret_seed=0)
    for line in swapped.to_text().splitlines():
        tokens = parse_row(line.split(": ", 1)[1])
        assert {next(iter(t)) for t in tokens} <= {"whole milk", "eggs", "bread, white"}


# ------------------------------------------------------------ empty items: one rule
def test_from_dataframe_and_read_long_csv_agree_on_blank_and_missing_items(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("tid,item\n1, a \n1,b\n2,\n3,  \n4,a\n")
    from_csv = read_long_csv(path)
    frame = pd.DataFrame({"tid": ["1", "1", "2", "3", "4"], "item": [" a ", "b", "", None, "a"]})
    from_frame = from_dataframe(frame)
    assert from_frame.items == from_csv.items == ("a", "b")
    assert from_frame.record_ids == from_csv.record_ids == ("1", "2", "3", "4")
    assert [sorted(from_frame.record(i)) for i in range(4)] == [sorted(from_csv.record(i)) for i in range(4)]
    assert [sorted(from_frame.record(i)) for i in range(4)] == [["a", "b"], [], [], ["a"]]


# ------------------------------------------------------------ messages name the right option
def test_link_out_equal_to_the_input_names_link_out(run, tmp_path):
    (tmp_path / "data.dat").write_text("1 2\n2 3\n1 3\n1 2 3\n")
    line = one_error_line(run("anonymize", "data.dat", "-a", "nr", "-k", "2", "-o", "r.json",
                              "--link-out", "data.dat"))
    assert "--link-out data.dat is an input" in line and "-o data.dat" not in line
    line = one_error_line(run("anonymize", "data.dat", "-a", "nr", "-k", "2", "-o", "data.dat"))
    assert "-o data.dat" in line  # -o still names itself (the ending or the input)


@pytest.mark.parametrize("args", [("-a", "nr", "-k", "2", "--param", "l=2"), ("-a", "cahd", "-k", "2"),
                                  ("-a", "cahd", "--param", "l=2")])
def test_l_diversity_on_unlabelled_data_says_label(run, tmp_path, args):
    (tmp_path / "data.dat").write_text("1 2\n2 3\n1 3\n1 2 3\n")
    line = one_error_line(run("anonymize", "data.dat", *args, "-o", "r.json"))
    assert "--label COLUMN" in line and "labels=" not in line


def test_draw_kind_help_is_the_kinds_help(run):
    generic = run("draw", "--help")
    assert generic.exit_code == 0 and "draw KIND --help" in generic.output
    # draw taxonomy reads --data (the release's data, to tell suppressed nodes from absent ones) and its input options
    for kind, reads, ignores in [("taxonomy", ["--release", "--max-nodes", "--data", "--tid"], ["--algorithm", "--seed"]),
                                 ("search", ["--algorithm", "-m", "--taxonomy", "--tid"], ["--max-nodes"]),
                                 ("constraints", ["-k", "--format"], ["--release", "--algorithm"]),
                                 ("generalization", ["--seed", "-k"], ["--max-nodes", "--taxonomy"])]:
        for flag in ("--help", "-h"):
            res = run("draw", kind, flag)
            assert res.exit_code == 0, res.output
            assert res.output.startswith(f"Usage: graphanon draw {kind} SOURCE")
            assert res.output != generic.output
            assert all(option in res.output for option in reads), (kind, res.output)
            assert not any(option in res.output for option in ignores), (kind, res.output)
    # a kind without --help still draws (the help path does not swallow normal use)
    assert run("draw", "taxonomy", "clump_food", "-o", "tax.png").exit_code == 0
