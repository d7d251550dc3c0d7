"""UL in log space, policies, constraint graphs and drawings."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from graphanon.algorithms.coat import anonymize_coat  # noqa: E402
from graphanon.algorithms.coat.policies import PP_TABLE2, all_itemsets, pp_policy, up_policy  # noqa: E402
from graphanon.data import from_iterable  # noqa: E402
from graphanon.datasets import load, load_constraints  # noqa: E402
from graphanon.errors import ParameterError  # noqa: E402
from graphanon.graphs import ConstraintGraph, MergeForest  # noqa: E402
from graphanon.metrics import semantic_weight, ul, ul_metrics  # noqa: E402
from graphanon.metrics.utility_loss import ul_item_log  # noqa: E402
from graphanon.release import GlobalRecoding  # noqa: E402
from graphanon.taxonomy import Taxonomy  # noqa: E402
from graphanon.viz import draw_constraint_graph, draw_merge_forest  # noqa: E402


def test_ul_fig1_example():
    data, c = load("coat_fig1"), load_constraints("coat_fig1")
    rel = anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=5, s=0.15)
    r = ul(data, rel, weights={"(a,b)": 0.375})
    expect = (2**2 - 1) / (2**8 - 1) * 0.375 * 7 / 10  # N = 10 (the paper divides by 8)
    assert math.isclose(math.exp(r.per_item["(a,b)"]), expect, rel_tol=1e-12)
    assert r.suppression == 4.0  # d is suppressed, support 4
    gen = sum(math.exp(v) for v in r.per_item.values())
    assert math.isclose(r.value, gen + 4.0, rel_tol=1e-12)
    assert set(ul_metrics(data, rel)) == {"ul", "log_ul", "log_ul_generalization", "ul_suppression"}
    # Example 3.15 with the paper's division by 8
    assert round(float(np.exp(ul_item_log(2, 7, 8, 8, 0.375))), 4) == 0.0039


def test_semantic_weight_example():
    tax = Taxonomy.from_parent_map({"a": "X", "b": "X", "c": "X", "X": "R", **{x: "Y" for x in "defgh"}, "Y": "R"})
    assert semantic_weight(tax)(("a", "b")) == 3 / 8


def test_ul_log_space_large_vocabulary():
    M = 16_470
    rng = np.random.default_rng(0)
    records = [rng.choice(M, size=5, replace=False).tolist() for _ in range(300)]
    data = from_iterable(records, items=list(range(M)))
    ident = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    top = [data.items[j] for j in np.argsort(-data.supports())[:100]]
    small = {x: x for x in data.items}
    small.update({top[0]: "(two)", top[1]: "(two)"})
    big = {x: x for x in data.items}
    big.update({x: "(hundred)" for x in top})
    huge = {x: "(all)" for x in data.items}
    vals = [ul(data, GlobalRecoding.from_mapping(data, m)).log_value for m in (small, big, huge)]
    base = ul(data, ident).log_value
    assert all(math.isfinite(v) for v in [base, *vals])
    assert base < vals[0] < vals[1] < vals[2]
    # Every published item keeps a finite log UL; the all-items set sits near log(1) = 0.
    assert math.isclose(vals[2], 0.0, abs_tol=1e-9)


def test_policies():
    data = load("bms1")
    pp5 = pp_policy(data, 5, rng=0)
    n = round(0.5 * int((data.supports() > 0).sum()))
    assert len(pp5) == n * (n - 1) // 2 and all(len(p) == 2 for p in pp5)
    pp6 = pp_policy(data, 6, rng=0, n_constraints=300)
    sizes = np.bincount([len(p) for p in pp6], minlength=5)[1:]
    assert sizes.sum() == 300
    assert np.allclose(sizes / 300, np.array(PP_TABLE2[6]) / 100, atol=0.02)
    tax = Taxonomy.balanced(data.items, 5)
    up3 = up_policy(tax, 3, data=data)
    assert [len(b) for b in up3][:1] == [250] and sum(len(b) for b in up3) == data.n_items
    with pytest.raises(ParameterError, match="use km_policy"):
        all_itemsets(data, 3)
    assert len(all_itemsets(load("coat_fig1"), 2)) == 28
    with pytest.raises(ParameterError, match="PP1-PP9"):
        pp_policy(data, 10)


def test_constraint_graph_and_merge_forest():
    data, c = load("coat_fig1"), load_constraints("coat_fig1")
    g = ConstraintGraph(data, c["privacy"], c["utility"]).to_networkx()
    assert sorted(n[1] for n in g.neighbors(("constraint", 0))) == ["a", "b", "c"]
    assert [n for n in g.neighbors(("item", "d")) if n[0] == "block"] == [("block", 2)]
    assert g.nodes[("item", "b")]["support"] == 3
    rel = anonymize_coat(data, privacy=c["privacy"], utility=c["utility"], k=5, s=0.15)
    trace = rel.trace
    forest = MergeForest(trace, data.items)
    f = forest.to_networkx()
    assert sorted(f.successors("(g,h)")) == ["g", "h"]
    assert f.nodes["d"]["suppressed"]
    published = {str(pi.label) for pi in rel.published_items}
    assert {str(r) for r in forest.roots() if not f.nodes[r]["suppressed"]} == published
    ax = draw_constraint_graph(ConstraintGraph(data, c["privacy"], c["utility"]))
    assert len(ax.collections) > 0
    ax = draw_merge_forest(forest)
    assert len(ax.collections) > 0
