"""The (k, k^m) audit of relational-transaction releases against brute force and planted broken releases."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.counting.support import minimal_infrequent_itemsets
from graphanon.errors import ParameterError
from graphanon.privacy.registry import build_model, model_names
from graphanon.privacy.rt import (
    RTAnonymity,
    audit_rt,
    audit_rt_release,
    parse_interval,
    value_overlaps,
)

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ITEMS = ["a", "b", "c", "d", "e"]


# ---------------------------------------------------------------- brute force


def covers(published: str, original) -> bool:
    """Whether a published relational value contains an original value."""
    if published == "*":
        return True
    rng = parse_interval(published)
    if rng is not None:
        return isinstance(original, int) and rng[0] <= original <= rng[1]
    return published == str(original)


def brute_covering(qi, records, rel, items, mapping, k, m) -> tuple[bool, int]:
    """Every adversary (a real record's QI values, <= m of its items): smallest candidate count."""
    worst = len(rel)
    for q, rec in zip(qi, records, strict=True):
        rows = [j for j, t in enumerate(rel) if all(covers(v, x) for v, x in zip(t, q, strict=True))]
        for size in range(0, min(m, len(rec)) + 1):
            for known in combinations(sorted(rec), size):
                pub = {mapping[x] for x in known if mapping[x] is not None}
                worst = min(worst, sum(pub <= items[j] for j in rows))
    return worst >= k, worst


def brute_class(rel, items, k, m) -> tuple[bool, int, int]:
    """The model by definition: each row's class, every published itemset of <= m labels of the row.

    Also the number of small classes and of minimal violating itemsets within the other classes.
    """
    ok = True
    classes: dict[tuple, list[int]] = {}
    for j, t in enumerate(rel):
        classes.setdefault(t, []).append(j)
    for j, t in enumerate(rel):
        members = classes[t]
        for size in range(0, min(m, len(items[j])) + 1):
            for itemset in combinations(sorted(items[j]), size):
                if sum(set(itemset) <= items[i] for i in members) < k:
                    ok = False
    small = sum(len(v) < k for v in classes.values())
    minimal = 0
    for members in classes.values():
        if len(members) < k:
            continue
        labels = sorted(set().union(*(items[i] for i in members)))
        for size in range(1, m + 1):
            for itemset in combinations(labels, size):
                sup = sum(set(itemset) <= items[i] for i in members)
                if 0 < sup < k and all(sum(set(sub) <= items[i] for i in members) >= k
                                       for sub in combinations(itemset, size - 1)):
                    minimal += 1
    return ok, small, minimal


# ---------------------------------------------------------------- random releases


def age_value(age: int, width: int) -> str:
    if width == 0:
        return "*"
    if width == 1:
        return str(age)
    lo = age // width * width
    return f"[{lo}-{lo + width - 1}]"


@st.composite
def rt_case(draw, overlapping: bool):
    n = draw(st.integers(1, 10))
    ages = [draw(st.integers(20, 69)) for _ in range(n)]
    genders = [draw(st.sampled_from(["F", "M"])) for _ in range(n)]
    records = [draw(st.sets(st.sampled_from(ITEMS), max_size=4)) for _ in range(n)]
    mapping = {x: draw(st.sampled_from(["G1", "G2", x, x, None])) for x in ITEMS}
    widths = [0, 1, 5, 10, 50]
    if overlapping:  # each row its own generalization level
        rel = [(age_value(a, draw(st.sampled_from(widths))), draw(st.sampled_from([g, "*"])))
               for a, g in zip(ages, genders, strict=True)]
    else:  # one level per attribute: the published values of an attribute are disjoint
        w = draw(st.sampled_from(widths))
        hide = draw(st.booleans())
        rel = [(age_value(a, w), "*" if hide else g) for a, g in zip(ages, genders, strict=True)]
    items = [{mapping[x] for x in r if mapping[x] is not None} for r in records]
    k = draw(st.integers(1, 4))
    m = draw(st.integers(1, 3))
    return list(zip(ages, genders, strict=True)), records, rel, items, mapping, k, m


@SETTINGS
@given(rt_case(overlapping=False))
def test_audit_equals_brute_force_adversary_on_non_overlapping_releases(case):
    qi, records, rel, items, mapping, k, m = case
    report = audit_rt(rel, items, k=k, m=m)
    expected, _ = brute_covering(qi, records, rel, items, mapping, k, m)
    assert report.satisfied == expected
    assert report.details["exact_for_covering_adversary"]
    ok, small, minimal = brute_class(rel, items, k, m)
    assert ok == expected
    assert report.details["small_classes"] == small
    if "minimal itemsets" in report.details["unit"]:
        assert report.details["item_violations"] == minimal


@SETTINGS
@given(rt_case(overlapping=True))
def test_audit_equals_model_and_is_sound_on_overlapping_releases(case):
    qi, records, rel, items, mapping, k, m = case
    report = audit_rt(rel, items, k=k, m=m)
    ok, small, minimal = brute_class(rel, items, k, m)
    assert report.satisfied == ok
    assert report.details["small_classes"] == small
    if "minimal itemsets" in report.details["unit"]:
        assert report.details["item_violations"] == minimal
    if report.satisfied:  # Claim A: never satisfied when some adversary finds fewer than k rows
        assert brute_covering(qi, records, rel, items, mapping, k, m)[0]


@settings(SETTINGS, max_examples=40)
@given(rt_case(overlapping=False))
def test_unbounded_m_equals_brute_force(case):
    qi, records, rel, items, mapping, k, _ = case
    report = audit_rt(rel, items, k=k, m=None)
    assert report.satisfied == brute_covering(qi, records, rel, items, mapping, k, len(ITEMS))[0]


def test_overlapping_release_is_stricter_than_the_covering_adversary():
    # [40-44] holds 1 row; [40-49] covers its owner's age 42 too: 3 candidates, but the class has 1 row.
    qi = [(42, "F"), (41, "F"), (47, "F")]
    records = [{"a"}, {"a"}, {"a"}]
    rel = [("[40-44]", "F"), ("[40-49]", "F"), ("[40-49]", "F")]
    mapping = {x: x for x in ITEMS}
    report = audit_rt(rel, records, k=2, m=1)
    assert not report.satisfied
    assert report.worst == {"relational": "([40-44], F)", "class_size": 1}
    assert not report.details["exact_for_covering_adversary"]
    assert report.details["overlaps"] == {"0": [["[40-44]", "[40-49]"]]}
    # the adversary who only knows the age has 3 candidates for the first record, 2 for the others
    assert brute_covering(qi, records, rel, records, mapping, 2, 1) == (True, 2)


# ---------------------------------------------------------------- planted broken releases


def plain_km_ok(items, k, m) -> bool:
    labels = sorted(set().union(*items))
    X = sp.csr_array(np.array([[x in r for x in labels] for r in items], dtype=bool))
    violations, _ = minimal_infrequent_itemsets(X, k, m)
    return not any(len(level) for level in violations)


def relational_k_ok(rel, k) -> bool:
    _, counts = np.unique(np.array(rel), axis=0, return_counts=True)
    return bool(counts.min() >= k)


def good_release():
    rel = [("[40-49]", "F")] * 3 + [("[50-59]", "M")] * 3
    items = [{"a", "b"}] * 3 + [{"a", "c"}] * 3
    return rel, items


def test_good_release_passes():
    rel, items = good_release()
    report = audit_rt(rel, items, k=3, m=2)
    assert report.satisfied, str(report)
    assert report.violations == 0
    assert report.details["classes"] == 2


def test_planted_class_of_k_minus_1_rows():
    rel, items = good_release()
    rel, items = rel[:-1], items[:-1]  # the second class keeps 2 rows
    items[3], items[4] = {"a"}, {"a"}
    items[0], items[1], items[2] = {"a"}, {"a"}, {"a"}
    assert plain_km_ok(items, 3, 2)  # the items alone are 3^2-anonymous
    report = audit_rt(rel, items, k=3, m=2)
    assert not report.satisfied
    assert report.worst == {"relational": "([50-59], M)", "class_size": 2}
    assert report.counterexamples[0]["published_records"] == [3, 4]
    assert "1 below k=3" in report.details["checked"]


def test_planted_itemset_rare_inside_a_class_but_frequent_overall():
    rel = [("[40-49]", "F")] * 3 + [("[50-59]", "M")] * 3
    items = [{"a", "b"}, {"a", "b"}, {"a"}, {"a", "b"}, {"a", "b"}, {"a", "b"}]
    # {b} (and {a, b}) have support 5 >= 3 in the whole release but 2 in the first class
    assert plain_km_ok(items, 3, 2)
    assert relational_k_ok(rel, 3)
    report = audit_rt(rel, items, k=3, m=2)
    assert not report.satisfied
    assert report.worst == {"relational": "([40-49], F)", "itemset": ["b"], "support_in_class": 2,
                            "class_size": 3}
    assert report.counterexamples[0]["published_records"] == [0, 1]


def test_planted_m_itemset_rare_inside_a_class():
    rel = [("[40-49]", "F")] * 4 + [("[50-59]", "M")] * 2
    items = [{"a", "b"}, {"a", "c"}, {"b", "c"}, {"a", "b", "c"}] + [{"a", "b", "c"}] * 2
    # every single item has support >= 3 in the class; the pairs have support 2 inside it, 4 overall
    assert plain_km_ok(items, 3, 2)
    report = audit_rt(rel, items, k=2, m=2)  # k=2: class 2 fine, pairs in class 1 have support 2
    assert report.satisfied
    report = audit_rt(rel[:4], items[:4], k=3, m=2)
    assert not report.satisfied and report.worst["itemset"] in (["a", "b"], ["a", "c"], ["b", "c"])
    assert audit_rt(rel[:4], items[:4], k=3, m=1).satisfied


def test_planted_relational_values_edited_in_one_row():
    rel, items = good_release()
    items = [{"a"}] * 6
    assert audit_rt(rel, items, k=3, m=2).satisfied
    edited = list(rel)
    edited[4] = ("[50-54]", "M")  # still covers nothing of the others: a class of its own
    report = audit_rt(edited, items, k=3, m=2)
    assert plain_km_ok(items, 3, 2)
    assert not report.satisfied
    assert report.details["small_classes"] == 2  # the edited row, and the two rows left behind
    assert report.worst["class_size"] == 1 and report.worst["relational"] == "([50-54], M)"


# ---------------------------------------------------------------- the release adapter and the registry


class StandIn:
    """A release that publishes relational values and items (the interface of the rt release)."""

    privacy_model = "rt"

    def __init__(self, rel, items, pseudonyms=None):
        self._rel, self._items = rel, items
        if pseudonyms is not None:
            self.pseudonyms = pseudonyms

    def relational_rows(self):
        return list(self._rel)

    def item_rows(self):
        return [set(r) for r in self._items]


def test_release_adapter_reads_rows_and_names():
    rel, items = good_release()
    names = [f"r{i}" for i in range(6)]
    assert audit_rt_release(StandIn(rel, items, names), k=3, m=2).satisfied
    report = audit_rt_release(StandIn(rel, items, names), k=4, m=1)
    assert not report.satisfied
    assert report.counterexamples[0]["published_records"] == ["r0", "r1", "r2"]


def test_release_adapter_refuses_other_releases():
    with pytest.raises(ParameterError, match="relational values and items"):
        audit_rt_release(object(), k=2, m=1)


def test_registry_builds_the_rt_model():
    assert "rt" in model_names()
    model = build_model("rt", k=3, m=2, params={}, original=None)
    assert isinstance(model, RTAnonymity)
    rel, items = good_release()
    assert model.audit(None, StandIn(rel, items)).satisfied
    assert not build_model("rt", k=4, m=2, params={}, original=None).audit(None, StandIn(rel, items)).satisfied
    with pytest.raises(ParameterError, match="needs -k"):
        build_model("rt", k=None, m=2, params={}, original=None)
    with pytest.raises(ParameterError, match="unknown --param x for audit model .rt.; it takes: none"):
        build_model("rt", k=2, m=2, params={"x": "1"}, original=None)


def test_bad_rows_get_one_line_errors():
    with pytest.raises(ParameterError, match="3 relational rows and 2 item rows"):
        audit_rt([("F",)] * 3, [{"a"}] * 2, k=1, m=1)
    with pytest.raises(ParameterError, match="row 1 has 2 relational values"):
        audit_rt([("F",), ("F", "x")], [{"a"}] * 2, k=1, m=1)
    with pytest.raises(ParameterError, match="lower bound above"):
        value_overlaps(["[50-40]"])


def test_item_taxonomy_overlaps_are_reported():
    rel = [("F",)] * 4
    items = [{"a"}, {"a"}, {"A"}, {"A"}]
    report = audit_rt(rel, items, k=2, m=1, taxonomy={"a": ["A", "*"], "A": ["*"]})
    assert report.satisfied
    assert report.details["item_overlaps"] == [["A", "a"]]
    assert not report.details["exact_for_covering_adversary"]
    from graphanon.taxonomy import Taxonomy

    tax = Taxonomy.from_parent_map({"a": "A", "b": "A", "A": "ALL"})
    assert audit_rt(rel, items, k=2, m=1, taxonomy=tax).details["item_overlaps"] == [["A", "a"]]
    assert build_model("rt", k=2, m=1, params={}, original=None, taxonomy=tax).audit(
        None, StandIn(rel, items)).details["item_overlaps"] == [["A", "a"]]


def test_empty_rows_and_empty_release():
    assert audit_rt([("F",)] * 2, [set(), set()], k=2, m=1).satisfied
    assert not audit_rt([("F",)] * 2, [set(), set()], k=3, m=1).satisfied
    report = audit_rt([], [], k=2, m=1)
    assert report.satisfied and report.details["classes"] == 0


def test_cli_audit_rt_of_an_items_only_release_is_a_one_line_error(run, tmp_path):
    (tmp_path / "d.dat").write_text("1 2\n1 2\n1 3\n1 3\n")
    assert run("anonymize", "d.dat", "-a", "aa", "-k", "2", "-m", "1", "--taxonomy", "balanced:2", "-o", "r.json").exit_code == 0
    res = run("audit", "d.dat", "r.json", "--model", "rt", "-k", "2", "-m", "1")
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert "relational values and items" in lines[0] and "--model km" in lines[0]


def test_cli_lists_the_rt_model(run):
    res = run("audit", "--help")
    assert res.exit_code == 0 and "rt" in res.output


# ---------------------------------------------------------------- the release against its records (with the link)


def brute_mismatches(qi, records, rel, items, truth, members, taxonomy) -> set[int]:
    def covers_value(v, x):
        return covers(v, x)

    def covers_item(lab, x):
        return lab == x or x in members.get(lab, []) or lab in taxonomy.get(x, [])

    bad = set()
    for i, r in enumerate(truth):
        if not all(covers_value(v, x) for v, x in zip(rel[r], qi[i], strict=True)):
            bad.add(i)
        if not all(any(covers_item(lab, x) for x in records[i]) for lab in items[r]):
            bad.add(i)
        klass = [truth[j] for j in range(len(truth)) if rel[truth[j]] == rel[r]]
        for x in records[i]:
            if any(covers_item(lab, x) for s in klass for lab in items[s]) and not any(
                    covers_item(lab, x) for lab in items[r]):
                bad.add(i)
    return bad


MEMBERS = {"G1": ["a", "b"], "G2": ["c", "d", "e"]}
TAXONOMY = {"a": ["A"], "b": ["A"], "c": ["C"], "d": ["C"], "e": ["C"]}


@settings(SETTINGS, max_examples=50)
@given(rt_case(overlapping=True), st.data())
def test_recoding_check_equals_brute_force(case, data):
    qi, records, rel, items, mapping, k, m = case
    n = len(qi)
    truth = data.draw(st.permutations(range(n)))
    rel = [rel[truth.index(r)] for r in range(n)]  # row truth[i] holds record i's values
    items = [items[truth.index(r)] for r in range(n)]
    # forgeries: a row's values or items replaced by those of another row or by a random label
    for _ in range(data.draw(st.integers(0, 2))):
        r, s = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
        if data.draw(st.booleans()):
            rel[r] = rel[s]
        else:
            items[r] = set(items[s]) | set(data.draw(st.sets(st.sampled_from(["a", "A", "G1", "C", "z"]),
                                                             max_size=1)))
    expected = brute_mismatches(qi, records, rel, items, truth, MEMBERS, TAXONOMY)
    from graphanon.privacy.rt import rt_recoding_mismatches

    n_bad, examples = rt_recoding_mismatches(qi, records, rel, items, truth, members=MEMBERS, taxonomy=TAXONOMY,
                                             max_examples=n)
    assert n_bad == len(expected)
    assert {e["record"] for e in examples} == expected
    report = audit_rt(rel, items, k=1, m=m, original_rows=qi, original_items=records, truth=truth,
                      members=MEMBERS, taxonomy=TAXONOMY)
    assert report.details["recoding_mismatches"] == len(expected)
    assert report.satisfied == (not expected)


def test_planted_relational_swap_keeps_class_sizes_but_fails_the_recoding_check():
    qi = [(41, "F"), (43, "F"), (45, "F"), (52, "M"), (55, "M"), (57, "M")]
    rel = [("[40-49]", "F")] * 3 + [("[50-59]", "M")] * 3
    items = [{"a"}] * 6
    truth = list(range(6))
    swapped = list(rel)
    swapped[0], swapped[3] = rel[3], rel[0]  # two rows trade their values: classes keep 3 rows each
    assert audit_rt(swapped, items, k=3, m=1).satisfied  # the release alone cannot tell
    report = audit_rt(swapped, items, k=3, m=1, original_rows=qi, original_items=[{"a"}] * 6, truth=truth)
    assert not report.satisfied and report.violations == 2
    assert report.worst == {"record": 0, "row": 0, "problem": "QI 0: [50-59] does not cover 41"}
    assert audit_rt(rel, items, k=3, m=1, original_rows=qi, original_items=[{"a"}] * 6, truth=truth).satisfied
    with pytest.raises(ParameterError, match="needs original_rows, original_items and truth"):
        audit_rt(rel, items, k=3, m=1, original_rows=qi)
    with pytest.raises(ParameterError, match="permutation"):
        audit_rt(rel, items, k=3, m=1, original_rows=qi, original_items=[{"a"}] * 6, truth=[0] * 6)
