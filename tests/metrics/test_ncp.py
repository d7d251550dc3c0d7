"""NCP means one thing: the original data's items are the universe, whatever the method."""

import pytest

from graphanon.algorithms import anonymize_aa, anonymize_cut, anonymize_hghs, anonymize_mm
from graphanon.data import from_iterable
from graphanon.metrics import ncp, ncp_taxonomy, recoding_loss
from graphanon.metrics.evaluate import evaluate_release
from graphanon.release import GlobalRecoding
from graphanon.taxonomy import Taxonomy


# A taxonomy with 8 leaves of which the data uses 5 (like ICD-9 codes a dataset never sees).
def _taxonomy():
    return Taxonomy.from_parent_map({"A": "T", "B": "T", "a1": "A", "a2": "A", "a3": "A", "a4": "A",
                                     "b1": "B", "b2": "B", "b3": "B", "b4": "B"})


DATA = from_iterable([["a1", "a2", "b1"], ["a1", "b1"], ["a3", "b2"], ["a1", "a3"]] * 2)


def test_cut_and_set_recoding_of_the_same_partition_agree():
    tax = _taxonomy()
    cut = anonymize_cut(DATA, taxonomy=tax, cut=["A", "B"])
    sets = GlobalRecoding.from_mapping(DATA, {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B"})
    assert ncp(DATA, cut) == pytest.approx(ncp(DATA, sets))
    # by hand: N = 5 data items; A stands for 3 of them, B for 2
    occ = {"a1": 6, "a2": 2, "a3": 4, "b1": 4, "b2": 2}
    expected = (sum(occ[x] for x in ("a1", "a2", "a3")) * 2 / 4 + (occ["b1"] + occ["b2"]) * 1 / 4) / 18
    assert ncp(DATA, cut) == pytest.approx(expected)
    # the taxonomy convention counts the 8 leaves: (4-1)/(8-1) per occurrence of every item
    assert ncp_taxonomy(DATA, cut) == pytest.approx(3 / 7)
    assert ncp_taxonomy(DATA, sets) == pytest.approx(ncp(DATA, sets))
    out = evaluate_release(DATA, cut, queries=0)
    assert out["ncp"] == pytest.approx(expected) and out["ncp_taxonomy"] == pytest.approx(3 / 7)


def test_every_method_reports_the_canonical_ncp():
    tax = _taxonomy()
    for rel in (anonymize_hghs(DATA, taxonomy=tax, k=3, m=2), anonymize_aa(DATA, taxonomy=tax, k=3, m=2),
                anonymize_mm(DATA, k=3, m=2)):
        assert rel.params["ncp"] == pytest.approx(ncp(DATA, rel)), rel.algorithm
        assert 0 <= rel.params["ncp"] <= 1
    hg = anonymize_hghs(DATA, taxonomy=tax, k=3, m=2)
    assert hg.params["ncp_taxonomy"] == pytest.approx(hg.params["cost"] / DATA.matrix.nnz)
    assert hg.params["ncp_taxonomy"] == pytest.approx(ncp_taxonomy(DATA, hg))


def test_suppression_costs_one_per_occurrence():
    rel = GlobalRecoding.from_mapping(DATA, {"a1": "a1", "a2": None, "a3": "a3", "b1": "b1", "b2": None})
    loss = recoding_loss(DATA, rel)
    assert loss.generalization == 0 and loss.suppression == 4 and loss.universe == 5
    assert loss.ncp == pytest.approx(4 / 18)
