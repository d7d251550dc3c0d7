"""Golden examples of Liu & Wang (PAKDD 2010), Fig. 1-2 (SPEC section 2)."""

import pytest

from graphanon.algorithms import anonymize_aa, anonymize_hghs, anonymize_mhghs, anonymize_mm
from graphanon.algorithms.hierarchy._index import HierarchyIndex
from graphanon.algorithms.hierarchy.hghs import best_suppression
from graphanon.datasets import load, load_taxonomy
from graphanon.graphs import CutLattice, SuppressionEnumerationTree
from graphanon.metrics import recoding_loss
from graphanon.privacy import HKPCoherence, KmAnonymity

from ..conftest import rows_by_record


@pytest.fixture(scope="module")
def fig1():
    return load("liuwang_fig1"), load_taxonomy("liuwang_fig1")


def test_hghs_final_cut_cost_and_records(fig1):
    data, tax = fig1
    rel = anonymize_hghs(data, taxonomy=tax, k=2, m=None)
    assert rel.trace.cut == ("P", "f", "g", "M", "e", "i")
    assert rel.trace.suppressed == ("i",)
    assert rel.params["cost"] == pytest.approx(5.6)
    assert rel.params["cost_generalization"] == pytest.approx(3.6)
    assert rel.params["cost_suppression"] == pytest.approx(2.0)
    assert rel.trace.search.cost == pytest.approx(5.6)
    assert rows_by_record(rel) == ["P", "P f g", "P f M", "P f M", "P f g", "e", "e", ""]
    assert KmAnonymity(2, None).audit(data, rel).satisfied
    # the metric module's independent LM cost agrees (suppressed occurrences cost 1 each)
    assert recoding_loss(data, rel).total == pytest.approx(5.6)


def test_hghs_trace_intermediate_costs(fig1):
    data, tax = fig1
    rnd = anonymize_hghs(data, taxonomy=tax, k=2).trace.search.rounds[0]
    assert rnd.start == ["T"] and rnd.start_cost[0] == pytest.approx(23.0)
    assert [st["expanded"] for st in rnd.steps] == ["T", "Q", "N"]
    assert [st["cost"] for st in rnd.steps] == pytest.approx([8.6, 6.2, 5.6])
    assert rnd.steps[0]["cut"] == ["P", "Q", "e", "i"] and rnd.steps[0]["suppressed"] == ["i"]
    assert rnd.steps[1]["cut"] == ["P", "N", "M", "e", "i"] and rnd.steps[1]["suppressed"] == ["i"]
    # cut_3 = {H,K,Q,e,i} was evaluated at cost 10.2 and lost to cut_4 (6.2)
    cands = dict((node, cost) for node, cost, _ in rnd.steps[1]["candidates"])
    assert cands == pytest.approx({"P": 10.2, "Q": 6.2})
    # stopping: every child of the final cut is more expensive
    assert all(cost > 5.6 for _, cost, _ in rnd.final_candidates)


@pytest.mark.parametrize(
    "cut, suppressed, gen, sup",
    [
        (["T"], [], 23.0, 0.0),
        (["P", "Q", "e", "i"], ["i"], 6.6, 2.0),
        (["H", "K", "Q", "e", "i"], ["H", "i"], 4.6, 5.6),
        (["P", "N", "M", "e", "i"], ["i"], 4.2, 2.0),
        (["P", "f", "g", "M", "e", "i"], ["i"], 3.6, 2.0),
    ],
)
def test_suppression_scenarios_of_spec_cuts(fig1, cut, suppressed, gen, sup):
    data, tax = fig1
    r = best_suppression(data, taxonomy=tax, cut=cut, k=2)
    assert r["suppressed"] == suppressed
    assert r["cost_generalization"] == pytest.approx(gen)
    assert r["cost_suppression"] == pytest.approx(sup)


def test_threats_of_cut3_and_count_of_all_cuts(fig1):
    data, tax = fig1
    r = best_suppression(data, taxonomy=tax, cut=["H", "K", "Q", "e", "i"], k=2)
    assert sorted(map(sorted, r["threats"])) == [["H", "K", "Q"], ["e", "i"]]
    # the paper: "there are 25 threats in the set of the minimal privacy threats"
    assert len(HierarchyIndex(data, tax).threats(2, None)) == 25


def test_mhghs_round1_and_final_audit(fig1):
    data, tax = fig1
    rel = anonymize_mhghs(data, taxonomy=tax, k=2, m=None)
    first = rel.trace.search.rounds[0]
    assert first.cut == ["a", "b", "c", "d", "f", "g", "M", "e", "i"]
    assert first.suppressed == []
    assert first.cost == pytest.approx(0.6)
    # later rounds only move the cut up (reduced taxonomies)
    for prev, nxt in zip(rel.trace.search.rounds, rel.trace.search.rounds[1:], strict=False):
        assert all(any(tax.is_ancestor(c, p) for c in nxt.cut) for p in prev.cut)
    assert KmAnonymity(2, None).audit(data, rel).satisfied
    one = anonymize_mhghs(data, taxonomy=tax, k=2, m=1)
    assert one.trace.cut == ("a", "b", "c", "d", "f", "g", "M", "e", "i") and one.trace.suppressed == ()


def test_aa_golden(fig1):
    data, tax = fig1
    # k^1: only x, y, z are rare; the cheapest fix is M
    rel = anonymize_aa(data, taxonomy=tax, k=2, m=1)
    assert rel.trace.cut == ("a", "b", "c", "d", "f", "g", "M", "e", "i")
    # k^2: {e,i} has support 1 and e, i hang under the root: AA must generalize everything to T
    rel2 = anonymize_aa(data, taxonomy=tax, k=2, m=2)
    assert rel2.trace.cut == ("T",) and rel2.params["cost"] == pytest.approx(23.0)
    for m, r in [(1, rel), (2, rel2)]:
        assert KmAnonymity(2, m).audit(data, r).satisfied


def test_mm_golden(fig1):
    data, _ = fig1
    rel = anonymize_mm(data, k=2, m=2)
    assert sorted(rel.trace.suppressed) == ["b", "c", "e", "x", "y", "z"]
    assert rel.params["cost_suppression"] == pytest.approx(10.0)
    assert KmAnonymity(2, 2).audit(data, rel).satisfied
    assert HKPCoherence(1.0, 2, 2).audit(data, rel).satisfied


def test_enumeration_tree_of_cut3_as_in_fig2b():
    # taillist order of the paper's Fig. 2 (b): Q, K, H, e, i
    t = SuppressionEnumerationTree(["Q", "K", "H", "e", "i"], [["H", "K", "Q"], ["e", "i"]])
    path = t.greedy_path()
    assert [h for h, _ in path] == [(), ("Q",), ("Q", "K"), ("Q", "K", "e")]
    assert t.suppressed(path[-1]) == ["H", "i"]
    assert not t.is_valid((("Q", "K", "H"), ("e", "i")))  # N_4 of the paper is invalid
    g = t.to_networkx(max_nodes=10)
    assert g.nodes[(("Q", "K", "H"), ("e", "i"))]["valid"] is False
    assert sum(1 for _, d in g.nodes(data=True) if d["on_path"]) == 4


def test_search_enumeration_tree_and_lattice(fig1):
    data, tax = fig1
    rel = anonymize_hghs(data, taxonomy=tax, k=2)
    tree = rel.trace.search.enumeration_tree()
    assert set(tree.order) == {"P", "f", "g", "M", "e", "i"}
    assert tree.suppressed(tree.greedy_path()[-1]) == ["i"]
    lat = rel.trace.search.lattice()
    assert lat.path[0] == ("T",) and lat.path[-1] == ("P", "f", "g", "M", "e", "i")
    assert lat.costs[("H", "K", "Q", "e", "i")] == pytest.approx(10.2)
    g = lat.to_networkx(radius=1, max_nodes=100)
    assert all(c in g for c in lat.path)
    assert [g.edges[a, b]["on_path"] for a, b in zip(lat.path, lat.path[1:], strict=False)] == [True] * 3


def test_cut_lattice_neighbours(fig1):
    _, tax = fig1
    lat = CutLattice(tax)
    assert lat.top() == ("T",)
    assert set(lat.bottom()) == set(tax.leaves)
    kids = lat.children(("T",))
    assert kids == [("T", ("P", "Q", "e", "i"))]
    for node, child in lat.children(("P", "N", "M", "e", "i")):
        assert tax.is_cut(child)
        assert (node, ("P", "N", "M", "e", "i")) in lat.parents(child)
    assert lat.children(lat.bottom()) == []
    reduced = CutLattice(tax, frontier=["a", "b", "c", "d", "N", "M", "e", "i"])
    assert [n for n, _ in reduced.children(("P", "N", "M", "e", "i"))] == ["P"]
