"""Known-label row linkage against a direct count of label-carrying candidate rows."""

from __future__ import annotations

import numpy as np
import pytest

from graphanon.algorithms import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.attacks.label_linkage import known_label_linkage
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.release import GlobalRecoding
from tests.ebook_sessions import ebook_sessions


def brute(data, release, truth):
    eo, ep = release.match_arrays(data)
    labels = [str(x) for x in release.labels]
    per = []
    for i in range(data.n_records):
        rows = {int(p) for o, p in zip(eo, ep, strict=True) if o == i and labels[p] == str(data.labels[i])}
        per.append(1 / len(rows) if int(truth[i]) in rows else 0.0)
    return float(np.mean(per))


@pytest.mark.parametrize("make", [
    lambda d: anonymize_cahd(d, l=3, unsafe_secret_seed=1),
    lambda d: anonymize_nonreciprocal(d, k=3, order="gray", rng=0, unsafe_secret_seed=1),
])
def test_against_brute_force(make):
    data = ebook_sessions(200, 60, seed=3)
    rel = make(data)
    truth = rel.link.row_of_record
    res = known_label_linkage(data, rel, truth=rel.link)
    assert res.success == pytest.approx(brute(data, rel, truth))
    assert res.details["promised"] is False


def test_moved_label_scores_zero_and_global_recoding():
    data = from_iterable([["a"], ["b"]] * 5, labels=list("xyxyxyxyxy"))
    rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)"})
    res = known_label_linkage(data, rel, truth=np.arange(10))
    assert res.success == pytest.approx(1 / 5)  # one group of 10 rows, 5 with the known label
    shifted = known_label_linkage(data, rel, truth=np.roll(np.arange(10), 1))  # true rows carry the other label
    assert shifted.success == 0.0 and shifted.details["truth_outside"] == 1.0


def test_errors():
    table = load("nr_table1")
    rel = anonymize_nonreciprocal(table, k=2, order="gray", rng=0)
    plain = from_iterable([[table.items[j] for j in table.record_items(i)] for i in range(6)], items=list(table.items))
    with pytest.raises(ParameterError, match="the data has none"):
        known_label_linkage(plain, rel, truth=rel.link)
    unlabelled = anonymize_nonreciprocal(plain, k=2, order="gray", rng=0)
    with pytest.raises(ParameterError, match="publishes no sensitive labels"):
        known_label_linkage(table, unlabelled, truth=unlabelled.link)
