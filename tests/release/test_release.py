import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms import anonymize_cut
from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.release import GlobalRecoding, load_release

from ..conftest import random_recoding, rows_by_record, small_records


def nonempty_subsets(members):
    for size in range(1, len(members) + 1):
        yield from itertools.combinations(members, size)


def brute_estimate(rel, include, exclude):
    """Expectation over possible worlds by explicit enumeration."""
    total = 0.0
    for i in range(rel.n_records):
        present = [rel.published_items[g] for g in rel.records.indices[rel.records.indptr[i]:rel.records.indptr[i + 1]]]
        choices = [list(nonempty_subsets(pi.members)) for pi in present]
        worlds = list(itertools.product(*choices)) if choices else [()]
        hits = 0
        for world in worlds:
            items = set().union(*map(set, world)) if world else set()
            hits += set(include) <= items and not (set(exclude) & items)
        total += hits / len(worlds)
    return total


@pytest.fixture
def golden():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    return data, anonymize_cut(data, taxonomy=tax, cut=["P", "f", "g", "M", "e", "i"], suppress=["i"])


def test_golden_text(golden):
    _, rel = golden
    assert rows_by_record(rel) == ["P", "P f g", "P f M", "P f M", "P f g", "e", "e", ""]
    lines = rel.to_text().splitlines()
    assert [line.split(":")[0] for line in lines] == [f"p{i}" for i in range(1, 9)]  # pseudonyms, not ids
    assert sorted(line.split(": ")[1] if ": " in line else "" for line in lines) == sorted(rows_by_record(rel))
    assert rel.n_suppressed == 1 and rel.mapping["a"] == "P" and "i" not in rel.mapping


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_save_load_round_trip(golden, tmp_path, suffix):
    data, rel = golden
    path = tmp_path / f"r{suffix}"
    rel.save(path)
    back = load_release(path)
    assert isinstance(back, GlobalRecoding)
    assert back.to_text() == rel.to_text() and back.params == rel.params and back.algorithm == "cut"
    assert back.published_items == rel.published_items and back.universe == 11
    assert back.suppressed_items(data) == ["i"]
    doc = back.to_dict()
    assert all("i" not in item["members"] for item in doc["published_items"])  # suppressed: not published


def test_load_errors(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"format": "other"}')
    with pytest.raises(ReleaseFormatError, match="not a graphanon-release/3 document"):
        load_release(p)
    p.write_text("{nope")
    with pytest.raises(ReleaseFormatError, match="not a readable release file"):
        load_release(p)
    with pytest.raises(ReleaseFormatError, match="no such release file"):
        load_release(tmp_path / "missing.json")


@settings(max_examples=40, deadline=None)
@given(small_records(max_records=10, max_items=6), st.data())
def test_estimate_count_equals_possible_world_expectation(records, data):
    _d, mapping, rel = random_recoding(records, data, 6)
    include = data.draw(st.sets(st.integers(0, 5), max_size=3))
    exclude = data.draw(st.sets(st.integers(0, 5), max_size=2)) - include
    suppressed_in_include = any(mapping[i] is None for i in include)
    include, exclude = {str(i) for i in include}, {str(i) for i in exclude}  # labels are text
    expected = 0.0 if suppressed_in_include else brute_estimate(rel, include, exclude)
    assert rel.estimate_count(include, exclude) == pytest.approx(expected)


def test_identity_release_answers_exactly():
    d = load("swap_table1")
    rel = GlobalRecoding.from_mapping(d, {x: x for x in d.items})
    assert rel.estimate_count([2, 8]) == 3
    assert rel.estimate_count([2], [9]) == 2


def test_match_graph_and_counts(golden):
    data, rel = golden
    counts = rel.match_counts(data)
    assert counts.tolist() == [1, 2, 2, 2, 2, 2, 2, 1]
    g = rel.match_graph(data)
    own = rel.link.row_of_record
    assert g.out_degree(("orig", 2)) == 2 and g.has_edge(("orig", 2), ("pub", int(own[3])))
    assert all(g.has_edge(("orig", i), ("pub", int(own[i]))) for i in range(8))
    with pytest.raises(ParameterError, match="max_edges"):
        rel.match_graph(data, max_edges=3)


def test_from_mapping_requires_every_item():
    d = from_iterable([["a", "b"]])
    with pytest.raises(ParameterError, match="says nothing of 1 item"):
        GlobalRecoding.from_mapping(d, {"a": "a"})


def test_member_of_two_published_items_rejected():
    from graphanon.release import PublishedItem

    with pytest.raises(ParameterError, match="member of two published items"):
        GlobalRecoding(published_items=[PublishedItem("x", ("a",), 1), PublishedItem("y", ("a",), 1)],
                       records=np.zeros((1, 2), bool), universe=1)
