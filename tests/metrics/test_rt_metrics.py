"""Relational NCP / GCP and the combined relational-and-item COUNT queries (graphanon.metrics.relational)."""

from __future__ import annotations

from itertools import chain, combinations, product

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.errors import ParameterError
from graphanon.metrics.relational import (
    RTQuery,
    attribute_domains,
    relational_loss,
    rt_count_error,
    rt_estimated_counts,
    rt_true_counts,
    rt_workload,
)

REGION = {"France": ["Europe", "*"], "Spain": ["Europe", "*"], "Japan": ["Asia", "*"], "Europe": ["*"],
          "Asia": ["*"]}


def test_ncp_of_intervals_nodes_and_suppression():
    doms = attribute_domains([(20, "France"), (70, "Japan")], hierarchies={1: REGION}, names=["age", "region"])
    age, region = doms
    assert age.numeric and (age.lo, age.hi) == (20.0, 70.0)
    assert age.ncp("[20-29]") == pytest.approx(9 / 50) and age.ncp("33") == 0 and age.ncp("*") == 1
    assert region.ncp("France") == 0 and region.ncp("Europe") == pytest.approx(1 / 2) and region.ncp("*") == 1
    with pytest.raises(ParameterError, match="attribute region: published value 'Mars'"):
        region.ncp("Mars")
    with pytest.raises(ParameterError, match="attribute age: published value 'old'"):
        age.ncp("old")
    with pytest.raises(ParameterError, match="'Peru' is not a leaf"):
        attribute_domains([("Peru",)], hierarchies={0: REGION})


def test_gcp_is_the_mean_over_cells():
    orig = [(20, "France"), (25, "Spain"), (60, "Japan"), (70, "Japan")]
    doms = attribute_domains(orig, hierarchies={1: REGION})
    pub = [("[20-29]", "Europe")] * 2 + [("[60-70]", "Japan")] * 2
    loss = relational_loss(pub, doms)
    cells = np.array([[9 / 50, 1 / 2]] * 2 + [[10 / 50, 0]] * 2)
    assert loss.gcp == pytest.approx(cells.mean())
    assert loss.per_attribute == pytest.approx(cells.mean(axis=0))
    assert loss.per_row == pytest.approx(cells.mean(axis=1))
    assert relational_loss([tuple(map(str, r)) for r in orig], doms).gcp == 0
    assert relational_loss([("*", "*")] * 4, doms).gcp == 1


def worlds(pub, items, doms, members):
    """Every possible world of a tiny release: per row, a value per attribute and a non-empty subset per label."""
    per_row = []
    for t, its in zip(pub, items, strict=True):
        choices = []
        for v, dom in zip(t, doms, strict=True):
            if dom.numeric:
                a, b = dom.interval(v)
                choices.append(list(range(int(a), int(b) + 1)))
            else:
                choices.append(sorted(dom.members(v)))
        subsets = []
        for lab in sorted(its):
            mem = sorted(members.get(lab, [lab]))
            subsets.append([set(s) for s in chain.from_iterable(combinations(mem, r) for r in range(1, len(mem) + 1))])
        per_row.append([(vals, set().union(*subs) if subs else set())
                        for vals in product(*choices) for subs in product(*subsets)])
    return per_row


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_estimate_is_the_mean_over_possible_worlds(data):
    n = data.draw(st.integers(1, 3))
    members = {"(a,b)": ["a", "b"], "(b,c,d)": ["b", "c", "d"], "a": ["a"], "c": ["c"]}
    pub = [(data.draw(st.sampled_from(["[1-3]", "2", "[0-1]"])), data.draw(st.sampled_from(["France", "Europe", "*"])))
           for _ in range(n)]
    # the labels of one row stand for disjoint items (a global recoding within the row's class)
    recodings = [set(), {"a"}, {"c"}, {"(a,b)"}, {"(b,c,d)"}, {"a", "c"}, {"(a,b)", "c"}, {"a", "(b,c,d)"}]
    items = [data.draw(st.sampled_from(recodings)) for _ in range(n)]
    orig = [(0, "France"), (3, "Japan")]
    doms = attribute_domains(orig, hierarchies={1: REGION})
    query = RTQuery({0: (data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))),
                     1: frozenset(data.draw(st.sets(st.sampled_from(["France", "Spain", "Japan"]))))},
                    tuple(data.draw(st.sets(st.sampled_from("abcd"), max_size=2))))
    est = rt_estimated_counts(pub, items, [query], doms, members=members)[0]
    expected = 0.0
    for row in worlds(pub, items, doms, members):  # rows are independent: the mean count is the sum of row means
        hits = rt_true_counts([vals for vals, _ in row], [its for _, its in row], [query])[0]
        expected += hits / len(row)
    assert est == pytest.approx(expected)


def test_ungeneralized_release_answers_exactly():
    rng = np.random.default_rng(3)
    orig = [(int(a), str(g)) for a, g in zip(rng.integers(20, 70, 60), rng.choice(["F", "M"], 60), strict=True)]
    items = [set(rng.choice(list("abcdef"), size=rng.integers(0, 4), replace=False).tolist()) for _ in range(60)]
    doms = attribute_domains(orig)
    queries = rt_workload(orig, items, doms, n_queries=50, q=2, rng=0)
    assert min(rt_true_counts(orig, items, queries)) >= 1
    err, per = rt_count_error(orig, items, [tuple(map(str, r)) for r in orig], items, queries, doms)
    assert err == 0 and len(per) == 50
    coarse = [("*", "*")] * 60
    err_coarse, _ = rt_count_error(orig, items, coarse, items, queries, doms)
    assert err_coarse > 0.1


def test_suppressed_item_is_absent_and_workload_width_is_checked():
    doms = attribute_domains([(1, "F")])
    q = RTQuery({}, ("a",))
    assert rt_estimated_counts([("1", "F")], [set()], [q], doms).tolist() == [0.0]
    with pytest.raises(ParameterError, match="width"):
        rt_workload([(1, "F")], [{"a"}], doms, width=0)


def test_workload_constrains_the_asked_number_of_attributes():
    orig = [(20, "F", "x"), (30, "M", "y"), (40, "F", "z")]
    items = [{"a"}, {"b"}, {"a", "b"}]
    doms = attribute_domains(orig)
    queries = rt_workload(orig, items, doms, n_queries=20, attributes=2, rng=0)
    assert all(len(q.ranges) == 2 for q in queries)
    assert min(rt_true_counts(orig, items, queries)) >= 1
    with pytest.raises(ParameterError, match="attributes must lie in 0..3"):
        rt_workload(orig, items, doms, attributes=4)
