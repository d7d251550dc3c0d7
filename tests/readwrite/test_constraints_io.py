"""Constraint files: items with spaces, commas and quotes; errors naming file, line and item."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.data import from_iterable
from graphanon.errors import DataFormatError
from graphanon.readwrite.constraints import parse_constraints, read_constraints, write_constraints


def test_items_with_spaces_quotes_comments_and_bom(tmp_path):
    text = '\ufeff# privacy constraints\n\n  whole milk , yogurt\n"cheese, hard","say ""hi""",#tag\nyogurt,yogurt\n'
    assert parse_constraints(text) == [["whole milk", "yogurt"], ["cheese, hard", 'say "hi"', "#tag"], ["yogurt"]]
    tsv = tmp_path / "c.tsv"
    tsv.write_text("whole milk\tyogurt, plain\n", encoding="utf-8")
    assert read_constraints(tsv) == [["whole milk", "yogurt, plain"]]


def test_items_are_matched_to_the_data_and_errors_name_line_and_item(tmp_path):
    data = from_iterable([["whole milk", "yogurt"], ["butter"]])
    assert parse_constraints("whole milk,butter\n", data=data) == [["whole milk", "butter"]]
    with pytest.raises(DataFormatError, match=r"p.csv, line 2: item 'milk' is not in the data$"):
        parse_constraints("butter\nmilk\n", "p.csv", data)
    # the former space-separated format gets a hint
    data2 = from_iterable([["a", "b"]])
    with pytest.raises(DataFormatError, match=r"line 1: item 'a b' .* separated by commas .* e.g. 'a,b'"):
        parse_constraints("a b\n", "p.csv", data2)
    with pytest.raises(DataFormatError, match="line 1: empty item"):
        parse_constraints("a,,b\n")
    with pytest.raises(DataFormatError, match="line 1: .*quote an item"):
        parse_constraints('"a"b,c\n')
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(DataFormatError, match="latin1.csv: not UTF-8"):
        read_constraints(bad)
    with pytest.raises(DataFormatError, match="is a folder"):
        read_constraints(tmp_path)
    with pytest.raises(DataFormatError, match="cannot read constraint file"):
        read_constraints(tmp_path / "missing.csv")


def test_items_are_returned_as_the_data_labels_them():
    data = from_iterable([[1, 2], [3]])
    one, three = (next(x for x in data.items if str(x) == s) for s in ("1", "3"))
    assert parse_constraints("1,3\n", data=data) == [[one, three]]


_item = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=8).map(
    str.strip).filter(bool)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_item, min_size=1, max_size=4, unique=True), max_size=5), st.sampled_from([".csv", ".tsv"]))
def test_write_read_round_trip(tmp_path_factory, constraints, suffix):
    path = tmp_path_factory.mktemp("rt") / f"c{suffix}"
    write_constraints(constraints, path)
    assert read_constraints(path) == constraints


def test_write_refuses_what_cannot_be_read_back(tmp_path):
    for bad in ([[" padded"]], [[]], [["two\nlines"]]):
        with pytest.raises(DataFormatError):
            write_constraints(bad, tmp_path / "c.csv")
    assert not (tmp_path / "c.csv").exists()


def test_cli_coat_on_groceries_with_item_names_holding_spaces(tmp_path, run):
    (tmp_path / "p.csv").write_text("# attacker knowledge\nwhole milk, yogurt\nother vegetables,rolls/buns,soda\n")
    res = run("anonymize", "groceries", "-a", "coat", "-k", "5", "--param", "privacy=p.csv", "-o", "g.json")
    assert res.exit_code == 0, res.output
    res = run("audit", "groceries", "g.json", "--model", "constraints", "-k", "5", "--param", "privacy=p.csv",
              "--json")
    assert res.exit_code == 0 and '"satisfied": true' in res.output
    assert "2 constraints" in res.output
    # a constraint file is an input too: -o may not overwrite it
    res = run("anonymize", "groceries", "-a", "coat", "-k", "5", "--param", "privacy=p.csv", "-o", "p.csv")
    assert res.exit_code == 2 and "input of this command" in res.output
