import pytest

from graphanon.datasets import list_datasets, load, load_constraints, load_taxonomy
from graphanon.errors import ParameterError

EXPECTED = {"bms1": (59602, 497), "chess": (3196, 75), "mushroom": (8124, 119), "groceries": (9835, 169)}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_real_datasets(name):
    d = load(name)
    assert d.n_records == EXPECTED[name][0]
    if name != "mushroom":
        assert d.n_items == EXPECTED[name][1]


def test_examples():
    coat = load("coat_fig1")
    assert coat.record_ids[0] == "Alice" and coat.record(0) == frozenset("abcdefgh")
    c = load_constraints("coat_fig1")
    assert c["k"] == 5 and c["privacy"] == [list("abc"), list("defgh")]
    nr = load("nr_table1")
    assert nr.items == ("Jogging", "Swimming", "Tennis", "Soccer") and nr.labels[0] == "Christian"
    assert load_taxonomy("clump_food").lm("Fruit") == pytest.approx(2 / 7)
    names = {d["name"] for d in list_datasets()}
    assert {"bms1", "coat_fig1", "liuwang_fig1", "nr_table1", "swap_table1", "clump_food"} <= names


def test_unknown_names():
    with pytest.raises(ParameterError, match="no bundled dataset 'nope'; bundled: bms1"):
        load("nope")
    with pytest.raises(ParameterError, match="no bundled taxonomy"):
        load_taxonomy("bms1")
    with pytest.raises(ParameterError, match="no bundled constraints"):
        load_constraints("bms1")
