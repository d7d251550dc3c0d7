"""Missing sensitive labels (issue 32): refused by default with their count, dropped or kept only on request."""

from __future__ import annotations

import json

import pytest

from graphanon.data import from_iterable
from graphanon.errors import DataFormatError, ParameterError
from graphanon.readwrite.formats import read_any
from graphanon.readwrite.long_csv import read_long_csv
from graphanon.readwrite.missing import missing_label_mask, resolve_missing_labels
from graphanon.readwrite.parquet import write_parquet
from graphanon.release import load_release
from tests.conftest import cli

LABELS = ("flu", "cold", "hiv")


@pytest.fixture
def labelled(tmp_path):
    """789 records, every fifth (158) with an empty label; record r0 alone holds item 'z'."""
    lines = ["tid,item,label"]
    for i in range(789):
        label = "" if i % 5 == 0 else LABELS[i % 3]
        items = ["z"] if i == 0 else [f"i{i % 7}", f"i{(i * 3) % 11}"]
        lines += [f"r{i},{item},{label}" for item in items]
    path = tmp_path / "labelled.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _cli(*args):
    res = cli(*args)
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize("method", [["-a", "cahd", "-k", "2"], ["-a", "nr", "-k", "2", "--param", "l=2"]])
def test_missing_labels_are_refused_with_their_count(labelled, tmp_path, method):
    code, _out, err = _cli("anonymize", labelled, "--label", "label", *method, "-o", tmp_path / "r.json")
    assert code == 2
    assert err.count("\n") == 1 and "158 of 789 records have no sensitive label in column 'label'" in err
    assert "'r0', 'r5', 'r10'" in err and "--missing-label drop" in err
    assert not (tmp_path / "r.json").exists()


def test_drop_reports_what_it_dropped(labelled, tmp_path):
    code, out, err = _cli("anonymize", labelled, "--label", "label", "-a", "cahd", "-k", "2", "--missing-label", "drop",
                          "-o", tmp_path / "r.json", "--json")
    assert code == 0, err
    assert "dropped 158 of 789 records" in err and "631 records are used" in err
    summary = json.loads(out)
    assert summary["dropped_missing_label"] == 158 and summary["records"] == 631
    release = load_release(tmp_path / "r.json")
    assert set(release.labels) == set(LABELS)
    assert "z" not in release.items  # the item only a dropped record held is gone with it
    code, _out, err = _cli("audit", labelled, tmp_path / "r.json", "--label", "label", "--missing-label", "drop",
                           "--model", "ldiversity", "--param", "l=2")
    assert code == 0, err


def test_as_value_keeps_the_old_reading(labelled, tmp_path):
    code, _out, err = _cli("anonymize", labelled, "--label", "label", "-a", "cahd", "-k", "2",
                           "--missing-label", "as-value", "-o", tmp_path / "r.json")
    assert code == 0, err
    assert "" in set(load_release(tmp_path / "r.json").labels)


def test_python_readers_refuse_by_default(labelled, tmp_path):
    with pytest.raises(DataFormatError, match="158 of 789 records have no sensitive label"):
        read_long_csv(labelled, label="label")
    assert read_long_csv(labelled, label="label", missing_label="drop").n_records == 631
    assert read_long_csv(labelled, label="label", missing_label="as-value").n_records == 789
    with pytest.raises(ParameterError, match="missing_label='skip'"):
        read_any(labelled, label="label", missing_label="skip")
    data = from_iterable([["a"], ["b"], ["c"]], labels=["x", None, "y"])
    parquet = tmp_path / "l.parquet"
    write_parquet(data.with_labels(["x", "", "y"]), parquet)
    with pytest.raises(DataFormatError, match="1 of 3 records"):
        read_any(parquet, label="label")
    assert read_any(parquet, label="label", missing_label="drop").items == ("a", "c")


def test_na_spellings_are_missing():
    texts = ["", "  ", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "None", "<NA>", "#N/A", None]
    assert missing_label_mask(texts).all()
    assert not missing_label_mask(["0", "no", "NAB", "none of these", "-"]).any()
    data = from_iterable([["a"], ["b"]], labels=["NA", "flu"])
    kept, dropped = resolve_missing_labels(data, "drop")
    assert (kept.labels, dropped) == (("flu",), 1)
    with pytest.raises(DataFormatError, match="none of the 1 records"):
        resolve_missing_labels(from_iterable([["a"]], labels=[""]), "drop")
    unlabelled = from_iterable([["a"]])
    assert resolve_missing_labels(unlabelled, "error") == (unlabelled, 0)


def test_dataframes_follow_the_same_rule():
    import numpy as np
    import pandas as pd

    from graphanon.data import from_dataframe

    df = pd.DataFrame({"tid": [1, 1, 2, 3], "item": ["a", "b", "a", "c"], "dx": [np.nan, np.nan, "flu", "NA"]})
    with pytest.raises(DataFormatError, match="the DataFrame: 2 of 3 records have no sensitive label in column 'dx'"):
        from_dataframe(df, label="dx")
    kept = from_dataframe(df, label="dx", missing_label="drop")
    assert (kept.labels, kept.items) == (("flu",), ("a",))
    listed = pd.DataFrame({"items": [["a"], ["b"]], "dx": ["", "flu"]})
    assert from_dataframe(listed, items_column="items", label="dx", missing_label="drop").n_records == 1
