"""The demographics-plus-items linking attack (graphanon.attacks.rtlink) against brute force and the audit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.attacks.rtlink import rt_candidates, rt_linkage
from graphanon.errors import ParameterError
from graphanon.metrics.relational import attribute_domains
from graphanon.privacy.rt import audit_rt

ITEMS = ["a", "b", "c", "d"]
RECODINGS = [  # per class: original item -> published label (None: suppressed)
    {"a": "a", "b": "b", "c": "c", "d": "d"},
    {"a": "(a,b)", "b": "(a,b)", "c": "c", "d": None},
    {"a": "A", "b": "A", "c": "B", "d": "B"},
    {"a": None, "b": "(b,c,d)", "c": "(b,c,d)", "d": "(b,c,d)"},
]
MEMBERS = {"(a,b)": ["a", "b"], "(b,c,d)": ["b", "c", "d"]}
TAXONOMY = {"a": ["A", "*"], "b": ["A", "*"], "c": ["B", "*"], "d": ["B", "*"], "A": ["*"], "B": ["*"]}


def age_value(age: int, width: int) -> str:
    if width == 0:
        return "*"
    lo = age // width * width
    return str(age) if width == 1 else f"[{lo}-{lo + width - 1}]"


@st.composite
def rt_release(draw):
    n = draw(st.integers(1, 9))
    qi = [(draw(st.integers(20, 59)), draw(st.sampled_from(["F", "M"]))) for _ in range(n)]
    records = [draw(st.sets(st.sampled_from(ITEMS), max_size=3)) for _ in range(n)]
    rel = [(age_value(a, draw(st.sampled_from([0, 1, 10, 20]))), draw(st.sampled_from([g, "*"]))) for a, g in qi]
    classes = sorted(set(rel))
    recode = {c: RECODINGS[draw(st.integers(0, len(RECODINGS) - 1))] for c in classes}
    items = [{recode[t][x] for x in r if recode[t][x] is not None} for t, r in zip(rel, records, strict=True)]
    known = [set(draw(st.sets(st.sampled_from(sorted(r)), max_size=2))) if r else set() for r in records]
    return qi, records, rel, items, known


def covers_label(label: str, x: str) -> bool:
    return label == x or x in MEMBERS.get(label, []) or label in TAXONOMY.get(x, [])


def brute_candidates(qi, rel, items, known, target) -> list[int]:
    doms = attribute_domains(qi)
    out = []
    for r, t in enumerate(rel):
        age = doms[0].interval(t[0]) if t[0] != "*" else (-np.inf, np.inf)
        if not age[0] <= qi[target][0] <= age[1] or t[1] not in ("*", qi[target][1]):
            continue
        klass = [j for j, u in enumerate(rel) if u == t]
        if all(any(covers_label(lab, x) for lab in items[r])
               or not any(covers_label(lab, x) for j in klass for lab in items[j]) for x in known[target]):
            out.append(r)
    return out


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rt_release())
def test_candidates_equal_brute_force_and_keep_the_truth(case):
    qi, records, rel, items, known = case
    n = len(qi)
    cand = rt_candidates(qi, known, rel, items, np.arange(n), taxonomy=TAXONOMY, members=MEMBERS)
    for i in range(n):
        assert np.flatnonzero(cand[i]).tolist() == brute_candidates(qi, rel, items, known, i)
        assert cand[i, i]  # the target's own row is never ruled out
    res = rt_linkage(qi, records, rel, items, k=2, m=2, truth=np.arange(n), taxonomy=TAXONOMY, members=MEMBERS,
                     rng=0)
    assert res.details["truth_outside"] == 0


def tiny():
    qi = [(41, "F"), (43, "F"), (52, "M"), (55, "M"), (47, "F"), (58, "M")]
    records = [{"a"}, {"b"}, {"a"}, {"b"}, {"a", "b"}, {"a", "b"}]
    return qi, records


def test_naive_release_leaves_records_below_k_and_the_audit_agrees():
    qi, records = tiny()
    # relational 2-anonymity and items 2^1-anonymous, each on its own
    rel = [("[40-49]", "F"), ("[40-49]", "F"), ("[50-59]", "M"), ("[50-59]", "M"), ("[40-49]", "F"), ("[50-59]", "M")]
    items = [set(r) for r in records]
    assert audit_rt([("*", "*")] * 6, items, k=2, m=1).satisfied  # the items alone pass k^m
    report = audit_rt(rel, items, k=3, m=1)
    assert not report.satisfied
    res = rt_linkage(qi, records, rel, items, k=3, m=1, truth=np.arange(6), rng=0)
    assert res.details["records_below_k"] == 6 and res.details["min_candidates"] == 2
    assert res.success == pytest.approx(1 / 2)  # above 1/3; with 6 targets the sampling margin still covers it


def test_correct_release_leaves_no_record_below_k():
    qi, records = tiny()
    rel = [("[40-49]", "F"), ("[40-49]", "F"), ("[50-59]", "M"), ("[50-59]", "M"), ("[40-49]", "F"), ("[50-59]", "M")]
    items = [{"(a,b)"}] * 6
    assert audit_rt(rel, items, k=3, m=1).satisfied
    for seed in range(5):
        res = rt_linkage(qi, records, rel, items, k=3, m=1, truth=np.arange(6), members={"(a,b)": ["a", "b"]},
                         rng=seed)
        assert res.details["records_below_k"] == 0 and res.details["min_candidates"] == 3
        assert res.success == pytest.approx(1 / 3)


def test_random_naive_releases_are_caught_by_attack_and_audit():
    rng = np.random.default_rng(7)
    n = 400
    ages = rng.integers(20, 80, n)
    gender = rng.choice(["F", "M"], n)
    qi = [(int(a), str(g)) for a, g in zip(ages, gender, strict=True)]
    # items correlated with age: older records hold later codes
    records = [set(rng.choice(20, size=3, replace=False) // 2 + (int(a) - 20) // 15 * 5) for a in ages]
    records = [{f"i{x}" for x in r} for r in records]
    rel = [(f"[{a // 20 * 20}-{a // 20 * 20 + 19}]", "*") for a in ages]  # 3 bands, gender suppressed
    _, sizes = np.unique(np.array(rel), axis=0, return_counts=True)
    assert sizes.min() >= 5  # relational 5-anonymity
    items = [set(r) for r in records]
    report = audit_rt(rel, items, k=5, m=2)
    res = rt_linkage(qi, records, rel, items, k=5, m=2, truth=np.arange(n), rng=1)
    assert not report.satisfied and res.details["records_below_k"] > 0
    # Claim A: a record narrowed below k lies in a class that violates the model on its own
    cand = rt_candidates(qi, [set(sorted(r)[:2]) for r in records], rel, items, np.arange(n))
    for i in np.flatnonzero(cand.sum(axis=1) < 5).tolist():
        members = [j for j in range(n) if rel[j] == rel[i]]
        assert not audit_rt([rel[j] for j in members], [items[j] for j in members], k=5, m=2).satisfied


def test_bad_arguments_are_one_line_errors():
    qi, records = tiny()
    with pytest.raises(ParameterError, match="m \\(items"):
        rt_linkage(qi, records, [("*", "*")] * 6, records, k=2, m=0)
    with pytest.raises(ParameterError, match="6 records but the release 5 rows"):
        rt_linkage(qi, records, [("*", "*")] * 5, records[:5], k=2)
    with pytest.raises(ParameterError, match="2 sets of known items for 1 targets"):
        rt_candidates(qi, [{"a"}, {"b"}], [("*", "*")] * 6, records, [0])
