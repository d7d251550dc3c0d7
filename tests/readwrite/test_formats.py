"""Readers and the label rule: text labels, explicit formats, delimiters, BOM, RFC 4180, CLI-worded errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.data import TransactionData, from_dataframe, from_iterable
from graphanon.errors import DataFormatError, ParameterError, TaxonomyError
from graphanon.readwrite.formats import read_any, read_basket, read_fimi, read_long_csv, write_fimi
from graphanon.taxonomy import ItemGroups, Taxonomy, read_taxonomy
from graphanon.utils.labels import as_label, natural_key, parse_name_list, sorted_labels
from tests.conftest import cli


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def invoke(*args):
        res = cli(*args)
        return res.exit_code, res.output

    return invoke


def one_line_error(code, out, *parts):
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("graphanon: error:"), out
    for part in parts:
        assert part in lines[0], (part, lines[0])


# ---------------------------------------------------------------------- the label rule
def test_labels_are_text_and_ints_stand_for_their_text():
    data = from_iterable([[1, "1", 10], ["001", np.int64(2)]])
    assert data.items == ("001", "1", "2", "10")
    assert data.record(0) == {"1", "10"}  # 1 and "1" are one label; "001" is another
    assert data.item_id(1) == data.item_id("1") == 1 and not data.has_item(1.0)
    with pytest.raises(DataFormatError, match="item label '1' appears twice"):
        TransactionData(np.eye(2), [1, "1"])
    with pytest.raises(DataFormatError, match=r"record 0: item 2.5 is a float; labels are text"):
        from_iterable([[2.5]])
    with pytest.raises(DataFormatError, match="empty string"):
        from_iterable([[""]])
    with pytest.raises(DataFormatError, match="is a bool"):
        as_label(True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(-50, 500).map(str), st.text("ab0-", min_size=1, max_size=4)), max_size=30))
def test_natural_order_puts_whole_numbers_first_by_value(labels):
    out = sorted_labels(labels)
    assert out == sorted(set(labels), key=natural_key)
    numbers = [x for x in out if natural_key(x)[0] == 0]
    assert out[: len(numbers)] == numbers
    assert [int(x) for x in numbers] == sorted(int(x) for x in numbers)


def test_param_name_lists_are_text():
    assert parse_name_list(" 001 ,,-1, whole milk") == ["001", "-1", "whole milk"]


def test_taxonomy_nodes_are_text_and_int_lookups_find_them():
    tax = Taxonomy.from_parent_map({1: "A", 2: "A", "A": "R", "003": "R"})
    assert set(tax.leaves) == {"1", "2", "003"} and tax.parent(1) == "A" and 2 in tax and 3 not in tax
    with pytest.raises(TaxonomyError, match="same label '1'"):
        Taxonomy.from_edges([("R", 1), ("R", "1")])
    with pytest.raises(TaxonomyError, match=r"the data's '1' is not the taxonomy's '001'"):
        Taxonomy.from_parent_map({"001": "R", "002": "R"}).check_covers(["1", "002"])
    groups = ItemGroups({"g": [1, "2"]})
    assert groups.group_of("1") == groups.group_of(2) == "g"


def test_balanced_taxonomy_orders_numbers_by_value_and_refuses_clashing_names():
    tax = Taxonomy.balanced(["10", "9", "1", "2"], fanout=2)
    assert tax.leaves_under("G1_0") == ["1", "2"] and tax.leaves_under("G1_1") == ["9", "10"]
    with pytest.raises(TaxonomyError, match="prefix"):
        Taxonomy.balanced(["a", "G1_0", "b"], fanout=2)


def test_pandas_columns_follow_the_label_rule():
    df = pd.DataFrame({"tid": [1, 1, 2], "item": [1, 250, 1]})
    assert from_dataframe(df).items == ("1", "250")
    df = pd.DataFrame({"tid": [1, 1, 2], "item": [1.0, np.nan, 250.0]})
    with pytest.raises(DataFormatError, match="float.*convert the values to str"):
        from_dataframe(df)


# ---------------------------------------------------------------------- readers
def test_fimi_tokens_keep_their_text_and_numeric_order(tmp_path):
    p = tmp_path / "d.dat"
    p.write_text("10 2 1\n007 2 2\n")
    data = read_fimi(p)
    assert data.items == ("1", "2", "007", "10") and data.record(1) == {"007", "2"}
    with pytest.raises(DataFormatError, match="not a non-negative integer; FIMI holds integer items"):
        write_fimi(from_iterable([["a"]]), tmp_path / "x.dat")


def test_csv_bom_delimiter_and_rfc4180_quoting(tmp_path):
    p = tmp_path / "d.csv"
    p.write_bytes("\ufefftid;item\r\n1;\"a; with \"\"quotes\"\"\"\r\n1;001\r\n2;-1\r\n".encode())
    data = read_long_csv(p, delimiter=";")
    assert data.items == ("-1", "001", 'a; with "quotes"') and data.record_ids == ("1", "2")
    with pytest.raises(DataFormatError, match=r"line 1: no column 'tid'.*looks ';'-separated: pass delimiter=';'"):
        read_long_csv(p)
    (tmp_path / "t.tsv").write_text("tid\titem\n1\t001\n")
    assert read_any(tmp_path / "t.tsv").items == ("001",)


def test_basket_sniffing_is_never_silently_wrong(tmp_path):
    p = tmp_path / "b.txt"
    p.write_text("1 2 3\n2 3\n")
    with pytest.raises(DataFormatError, match=r"line 1: cannot tell how items are separated.*fmt='fimi'"):
        read_basket(p)
    assert read_any(p, "fimi").items == read_any(p, delimiter=" ").items == ("1", "2", "3")
    p.write_text("whole milk,rolls/buns\nsoda\n")
    assert read_any(p).record(0) == {"whole milk", "rolls/buns"}  # a comma decides
    p.write_text("a\tb c\n")
    assert read_basket(p, delimiter="tab").record(0) == {"a", "b c"}
    with pytest.raises(ParameterError, match="one character"):
        read_basket(p, delimiter=";;")


def test_taxonomy_files_keep_codes_as_written(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes("\ufeff001;A;R\n-1;B;R\n".encode())
    assert read_taxonomy(p).leaves == ("001", "-1")
    p = tmp_path / "t.csv"
    p.write_text("item,cat\n1,odd\n2,even\n3,odd\n")
    tax = read_taxonomy(p)
    tax.check_covers(read_any(_write(tmp_path / "d.dat", "1 2\n3\n")).items)  # FIMI + level table


def _write(path, text):
    path.write_text(text)
    return path


# ---------------------------------------------------------------------- command line
def test_cli_reads_fimi_with_a_level_table(run, tmp_path):
    _write(tmp_path / "d.dat", "1 2\n1 3\n2 3\n1 2 3\n")
    _write(tmp_path / "t.csv", "item,cat\n1,odd\n2,even\n3,odd\n")
    code, out = run("anonymize", "d.dat", "-a", "cut", "--taxonomy", "t.csv", "--param", "level=1", "-o", "r.json")
    assert code == 0, out


def test_cli_errors_name_options_not_python_arguments(run, tmp_path):
    _write(tmp_path / "d.csv", "id;code\n1;001\n")
    code, out = run("anonymize", "d.csv", "-a", "cut", "--taxonomy", "balanced:2", "-o", "r.json")
    one_line_error(code, out, "d.csv, line 1: no column 'tid'", "pass --delimiter ';'")
    code, out = run("anonymize", "d.csv", "--delimiter", ";", "-a", "cut", "--taxonomy", "balanced:2", "-o", "r.json")
    one_line_error(code, out, "no column 'tid'", "--tid COLUMN")
    assert "tid=" not in out
    code, out = run("anonymize", "d.csv", "--delimiter", ";", "--tid", "id", "--item", "code", "-a", "cut",
                    "--taxonomy", "balanced:2", "--param", "level=0", "-o", "r.json")
    assert code == 0, out
    _write(tmp_path / "s.txt", "1 2\n2\n")
    code, out = run("anonymize", "s.txt", "-a", "cut", "--taxonomy", "balanced:2", "-o", "r2.json")
    one_line_error(code, out, "s.txt, line 1", "--format fimi", "--delimiter ' '")
    assert not (tmp_path / "r2.json").exists()
    code, out = run("anonymize", "s.txt", "--format", "fimi", "--delimiter", ",", "-a", "cut", "--taxonomy",
                    "balanced:2", "-o", "r2.json")
    one_line_error(code, out, "FIMI items are separated by white space")


def test_cli_cut_names_codes_as_written(run, tmp_path):
    _write(tmp_path / "d.csv", "tid,item\n1,001\n1,01\n2,001\n2,01\n")
    _write(tmp_path / "t.txt", "001;A;R\n01;A;R\n")
    code, out = run("anonymize", "d.csv", "-a", "cut", "--taxonomy", "t.txt", "--param", "cut=001,01",
                    "--param", "suppress=01", "-o", "r.json")
    assert code == 0, out
    from graphanon.release import load_release

    rel = load_release(tmp_path / "r.json")
    assert [(pi.label, pi.members) for pi in rel.published_items] == [("001", ("001",))]


codes = st.one_of(
    st.from_regex(r"-?[0-9]{1,3}", fullmatch=True),  # 001, -1, 250, 0
    st.sampled_from(["whole milk", "a,b", 'say "hi"', "V01"]),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(codes, min_size=1, max_size=4), min_size=1, max_size=8))
def test_every_format_reads_the_same_labels(tmp_path_factory, records):
    from graphanon.readwrite.formats import write_basket, write_long_csv

    data = from_iterable(records, record_ids=[f"r{i}" for i in range(len(records))])
    folder = tmp_path_factory.mktemp("same")
    write_long_csv(data, folder / "d.csv")
    write_basket(data, folder / "d.txt", delimiter=",")
    reads = [read_any(folder / "d.csv"), read_any(folder / "d.txt", "basket", delimiter=",")]
    if all(x.isdigit() for x in data.items):
        write_fimi(data, folder / "d.dat")
        reads.append(read_any(folder / "d.dat"))
    for back in reads:
        assert back.items == data.items  # same text, same natural order
        assert [back.record(i) for i in range(len(back))] == [{str(x) for x in r} for r in records]
