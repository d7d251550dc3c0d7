"""Drawings of relational-transaction data (issue 34): attribute hierarchies and a relational release's classes.

The views are checked against what they summarize, recomputed by brute force from the release's rows; the
figures pass the package's legibility checks; the private link is in a page only when it is passed.
"""

import base64

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from graphanon.algorithms.relational.rt import anonymize_rt  # noqa: E402
from graphanon.datasets.synthetic import patients_with_demographics, write_patients_files  # noqa: E402
from graphanon.errors import ParameterError  # noqa: E402
from graphanon.relational import AttributeHierarchy  # noqa: E402
from graphanon.release import PublishedItem, RelationalRelease  # noqa: E402
from graphanon.viz.relational import draw_classes, draw_hierarchies, hierarchy_view, relational_view  # noqa: E402
from tests.drawing_checks import figure_problems  # noqa: E402


def _decode(text):
    if isinstance(text, dict):  # {u8 | u16 | i32: base64}
        (kind, text), = text.items()
        return np.frombuffer(base64.b64decode(text), dtype={"u8": "<u1", "u16": "<u2", "i32": "<i4"}[kind])
    return np.frombuffer(base64.b64decode(text), dtype="<i4")


@pytest.fixture(scope="module")
def patients():
    data, tax = patients_with_demographics(400, seed=3)
    rel = anonymize_rt(data, k=4, m=2, taxonomy=tax, merge="none")  # many classes, varied items
    return data, rel


def test_hierarchy_drawing_is_legible_with_and_without_published_values(patients):
    data, rel = patients
    hs = {c: data.hierarchies[c] for c in ("age", "race")}
    fig = draw_hierarchies(hs, published={c: rel.values[rel.qi.index(c)] for c in hs})  # nested values: [0-39], *
    assert figure_problems(fig) == []
    assert [ax.get_title().split(":")[0] for ax in fig.axes] == ["age", "race"]
    assert "published values highlighted" in fig.axes[0].get_title()
    fig = draw_hierarchies(data.hierarchies["region"])
    assert figure_problems(fig) == [] and "published" not in fig.axes[0].get_title()


def test_hierarchy_drawing_refuses_unknown_values():
    age = AttributeHierarchy.numeric("age", [23, 37, 41])
    with pytest.raises(ParameterError, match="not a value or generalization of column 'age'"):
        draw_hierarchies(age, published={"age": ["[41-43]"]})
    with pytest.raises(ParameterError, match="'sex', which has no hierarchy"):
        draw_hierarchies(age, published={"sex": ["F"]})


def test_hierarchy_view_counts_records_under_each_node(patients):
    data, rel = patients
    hs = {c: data.hierarchies[c] for c in ("age", "race")}
    published = {"age": rel.values[rel.qi.index("age")]}
    view = hierarchy_view(hs, table=data.table, published=published)
    nodes = view.data["nodes"]
    ages = np.asarray(data.table.column("age"))
    for i, (label, d) in enumerate(zip(nodes["label"], nodes["info"])):
        if d["column"] != "age":
            continue
        h = hs["age"]
        text = d["published text"]
        expected = sum(h.covers(text, a) for a in ages) if text != "*" else len(ages)
        assert d["records under it"] == expected, label
        assert (nodes["cat"][i] == 2) == (text in published["age"])
    roots = [label for label, p in zip(nodes["label"], nodes["parent"]) if p == -1]
    assert roots == ["age: *", "race: *"]


def _brute_classes(rel):
    rows = rel.relational_rows()
    items = rel.item_rows()
    classes: dict = {}
    for i, key in enumerate(rows):
        classes.setdefault(" · ".join(key), []).append(i)
    return classes, items


def test_relational_view_summarizes_each_class_like_brute_force(patients):
    _, rel = patients
    view = relational_view(rel)
    classes, items = _brute_classes(rel)
    nodes, focus = view.data["nodes"], view.data["focus"]
    assert sorted(nodes["label"]) == sorted(classes)
    labels = focus["items"].split("\n")
    cs, ci, cc = _decode(focus["class_start"]), _decode(focus["class_item"]), _decode(focus["class_count"])
    ss, sr = _decode(focus["set_start"]), _decode(focus["set_rows"])
    sis, sit = np.r_[0, np.cumsum(_decode(focus["set_lengths"]))], _decode(focus["set_items"])
    for j, label in enumerate(nodes["label"]):
        rows = classes[label]
        assert nodes["info"][j]["rows"] == len(rows)
        counts: dict = {}
        for i in rows:
            for x in items[i]:
                counts[x] = counts.get(x, 0) + 1
        assert {labels[g]: int(c) for g, c in zip(ci[cs[j]:cs[j + 1]], cc[cs[j]:cs[j + 1]])} == counts
        sets: dict = {}
        for i in rows:
            key = frozenset(items[i])
            sets[key] = sets.get(key, 0) + 1
        got = {frozenset(labels[g] for g in sit[sis[s]:sis[s + 1]]): int(sr[s]) for s in range(ss[j], ss[j + 1])}
        assert focus["set_total"][j] == len(sets)
        assert got == sets  # fewer than 40 distinct sets per class here: all drawn
    assert "record_ids" not in focus and "PRIVATE" not in view.to_html()


def test_relational_view_lists_records_only_with_the_private_link(patients):
    data, rel = patients
    ids = data.transactions.record_ids
    view = relational_view(rel, link=rel.link, record_ids=ids)
    focus = view.data["focus"]
    assert "PRIVATE" in view.data["note"] and "PRIVATE" in focus["record_note"]
    start, listed = _decode(focus["record_start"]), _decode(focus["record_list"])
    rows = rel.link.row_of_record
    relational = rel.relational_rows()
    for j, label in enumerate(view.data["nodes"]["label"]):
        records = listed[start[j]:start[j + 1]]
        assert all(" · ".join(relational[rows[r]]) == label for r in records)
        assert len(records) == view.data["nodes"]["info"][j]["rows"]
    assert focus["record_ids"].split("\n") == [str(r) for r in ids]


def test_relational_view_keeps_the_most_frequent_sets_of_a_big_class():
    """A class with more than 40 distinct item sets: the 40 most frequent are carried, the total is said."""
    items = [PublishedItem(f"i{j}", (f"i{j}",), 1) for j in range(60)]
    records = [[j] for j in range(60)] + [[0]] * 5
    rel = RelationalRelease(qi=("age",), relational=[["[40-49]"]] * 65, published_items=items, records=records,
                            universe=61)
    focus = relational_view(rel).data["focus"]
    assert focus["set_total"] == [60]
    sr = _decode(focus["set_rows"])
    assert len(sr) == 40 and sr[0] == 6 and (sr[1:] == 1).all()


def test_class_figure_is_legible_and_draws_the_largest(patients):
    _, rel = patients
    classes, _ = _brute_classes(rel)
    fig = draw_classes(rel, max_classes=25)
    assert figure_problems(fig) == []
    assert len(fig.axes[0].get_yticklabels()) == min(25, len(classes))
    small = draw_classes(rel, max_classes=5)
    assert "the 5 largest drawn" in small.axes[0].get_title()
    biggest = sorted(len(v) for v in classes.values())[-5:]
    assert sorted(p.get_width() for p in small.axes[0].patches) == biggest


def test_views_refuse_other_releases():
    from graphanon.release import GlobalRecoding

    rel = GlobalRecoding(published_items=[PublishedItem("a", ("a",), 1)], records=[[0]], universe=2)
    for draw in (relational_view, draw_classes):
        with pytest.raises(ParameterError, match="expected a relational release"):
            draw(rel)


def test_draw_commands(run, tmp_path):
    write_patients_files(tmp_path, 200, seed=2)
    assert run("anonymize", "patients.csv", "--relational", "demographics.csv", "--qi", "age,gender,race", "-a",
               "r" + "t", "-k", 4, "-m", 2, "--taxonomy", "icd9.txt", "--qi-hierarchy", "race=race.txt",
               "-o", "r.json").exit_code == 0
    for out in ("h.png", "h.html"):
        result = run("draw", "hierarchy", "demographics.csv", "--qi", "age,race", "--qi-hierarchy", "race=race.txt",
                     "--release", "r.json", "-o", out)
        assert result.exit_code == 0, result.output
        assert "age" in result.output and (tmp_path / out).stat().st_size > 0
    for out in ("c.png", "c.html"):
        result = run("draw", "relational", "r.json", "-o", out)
        assert result.exit_code == 0, result.output
    html = (tmp_path / "c.html").read_text()
    assert '"kind":"classes"' in html and "PRIVATE" not in html
    result = run("draw", "hierarchy", "demographics.csv", "-o", "x.png")
    assert result.exit_code != 0 and "needs --qi" in result.output
    result = run("draw", "relational", "r.json", "--qi", "age", "-o", "x.png")
    assert result.exit_code != 0 and "go with draw hierarchy" in result.output
    result = run("draw", "hierarchy", "demographics.csv", "--qi", "age,marital", "--release", "r.json", "-o", "x.png")
    assert result.exit_code != 0 and "no column 'marital'" in result.output
