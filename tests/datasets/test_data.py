import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.data import (
    TransactionData,
    from_dataframe,
    from_iterable,
    read_any,
    read_basket,
    read_fimi,
    read_long_csv,
    to_dataframe,
    write_basket,
    write_fimi,
    write_long_csv,
)
from graphanon.errors import DataFormatError

from ..conftest import small_records

label_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=8
).filter(lambda s: s.strip() == s and s != "")


def test_basic_views(tiny):
    assert tiny.n_records == 4 and tiny.n_items == 4
    assert tiny.items == ("a", "b", "c", "d")
    assert tiny.record(2) == frozenset("abc")
    assert tiny.supports().tolist() == [3, 2, 2, 1]
    s = tiny.summary()
    assert s["occurrences"] == 8 and s["max_length"] == 3 and s["mean_length"] == 2.0
    assert s["density"] == pytest.approx(8 / 16)


def test_matrix_is_read_only(tiny):
    with pytest.raises(ValueError):
        tiny.matrix.indices[0] = 3


def test_duplicates_inside_record_count_once():
    d = from_iterable([["a", "a", "b"]])
    assert d.record(0) == frozenset("ab") and d.matrix.nnz == 2


def test_string_record_rejected():
    with pytest.raises(DataFormatError, match="record 1 is the string 'abc'"):
        from_iterable([["a"], "abc"])


def test_duplicate_ids_and_label_count_rejected():
    with pytest.raises(DataFormatError, match="record id 'x' appears twice"):
        from_iterable([["a"], ["b"]], record_ids=["x", "x"])
    with pytest.raises(DataFormatError, match="1 sensitive labels given for 2 records"):
        from_iterable([["a"], ["b"]], labels=["l"])


@settings(max_examples=40, deadline=None)
@given(small_records(max_items=12))
def test_fimi_round_trip(tmp_path_factory, records):
    if not any(records):
        return  # a file of blank lines only is rejected as empty (tested below)
    data = from_iterable(records, items=list(range(12)))
    path = tmp_path_factory.mktemp("fimi") / "d.dat"
    write_fimi(data, path)
    back = read_fimi(path)
    # the FIMI vocabulary holds only items that occur; compare as label sets per record
    assert [set(back.record(i)) for i in range(back.n_records)] == [{str(x) for x in r} for r in records]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(label_text, max_size=5), min_size=1, max_size=12))
def test_csv_and_basket_round_trip(tmp_path_factory, records):
    if not any(records):
        return
    data = from_iterable(records, record_ids=[f"t{i}" for i in range(len(records))])
    folder = tmp_path_factory.mktemp("rt")
    write_long_csv(data, folder / "d.csv")
    back = read_long_csv(folder / "d.csv")
    assert back.record_ids == data.record_ids
    assert [back.record(i) for i in range(len(back))] == [data.record(i) for i in range(len(data))]
    write_basket(data, folder / "d.txt", delimiter=",")
    back2 = read_basket(folder / "d.txt", delimiter=",")
    assert [back2.record(i) for i in range(len(back2))] == [data.record(i) for i in range(len(data))]


def test_dataframe_round_trip(tiny):
    df = to_dataframe(tiny)
    back = from_dataframe(df)
    assert back == tiny
    lists = pd.DataFrame({"items": [["a", "b"], [], ["c"]]}, index=["x", "y", "z"])
    d = from_dataframe(lists, items_column="items")
    assert d.record_ids == ("x", "y", "z") and d.record(1) == frozenset()


def test_fimi_errors_name_line_and_token(tmp_path):
    p = tmp_path / "bad.dat"
    p.write_text("1 2\n3 x4\n")
    with pytest.raises(DataFormatError, match=r"bad.dat, line 2: item 'x4' is not a non-negative integer"):
        read_fimi(p)
    p.write_text("1 2\n-3\n")
    with pytest.raises(DataFormatError, match="line 2: item '-3' is not a non-negative integer"):
        read_fimi(p)
    p.write_text("\n\n")
    with pytest.raises(DataFormatError, match="empty"):
        read_fimi(p)
    with pytest.raises(DataFormatError, match="no such file"):
        read_fimi(tmp_path / "missing.dat")


def test_fimi_keeps_inner_blank_lines_as_empty_records(tmp_path):
    p = tmp_path / "d.dat"
    p.write_text("1 2\n\n2 3\n\n")
    d = read_fimi(p)
    assert d.n_records == 4 and d.record(1) == frozenset() and d.record(3) == frozenset()


def test_csv_errors(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("tid,item\n1,a\n2\n")
    with pytest.raises(DataFormatError, match=r"line 3: 1 field\(s\) but the header has 2; column 'item' is missing"):
        read_long_csv(p)
    p.write_text("id,thing\n1,a\n")
    with pytest.raises(DataFormatError, match="no column 'tid'"):
        read_long_csv(p)
    assert read_long_csv(p, tid="id", item="thing").n_records == 1
    p.write_text("")
    with pytest.raises(DataFormatError, match="empty file"):
        read_long_csv(p)
    p.write_text("tid,item,label\n1,a,x\n1,b,y\n")
    with pytest.raises(DataFormatError, match="two sensitive labels"):
        read_long_csv(p, label="label")


def test_basket_quotes(tmp_path):
    p = tmp_path / "b.txt"
    p.write_text('"a, with comma",b\nc\n')
    d = read_basket(p)
    assert d.record(0) == frozenset({"a, with comma", "b"})
    p.write_text('"open,b\n')
    with pytest.raises(DataFormatError, match="line 1: unterminated quote"):
        read_basket(p)


def test_read_any_dispatch(tmp_path):
    p = tmp_path / "x.dat"
    p.write_text("1 2\n")
    assert read_any(p).items == ("1", "2")
    with pytest.raises(DataFormatError):
        read_any(tmp_path / "y.dat")


def test_subset_and_drop_unused(tiny):
    s = tiny.subset([0, 3])
    assert s.record_ids == (0, 3)
    assert s.drop_unused_items().items == ("a", "b", "d")


def test_equality_and_constructor_validation():
    m = np.array([[1, 0], [0, 1]], dtype=bool)
    a = TransactionData(m, ["x", "y"])
    b = TransactionData(m, ["x", "y"])
    assert a == b
    with pytest.raises(DataFormatError, match="vocabulary has 1 labels but the matrix has 2"):
        TransactionData(m, ["x"])
    with pytest.raises(DataFormatError, match="appears twice in the vocabulary"):
        TransactionData(m, ["x", "x"])


def test_with_labels_on_loaded_data_keeps_the_original_frozen():
    """A bundled dataset's matrix is read-only; labelling it builds a new TransactionData from it
    (the constructor once normalized the frozen arrays in place: 'WRITEBACKIFCOPY base is read-only')."""
    from graphanon.datasets import load

    data = load("groceries")
    labelled = data.with_labels([str(n % 3) for n in data.record_lengths()])
    assert labelled.labels[:3] == tuple(str(n % 3) for n in data.record_lengths()[:3])
    assert (labelled.matrix != data.matrix).nnz == 0
    assert not data.matrix.indices.flags.writeable and not labelled.matrix.indices.flags.writeable
