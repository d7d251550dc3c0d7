import numpy as np
import pytest

from graphanon.algorithms import anonymize_cut
from graphanon.data import from_iterable
from graphanon.datasets import load, load_taxonomy
from graphanon.errors import DataMismatchError, ParameterError
from graphanon.metrics import (
    CountQuery,
    average_relative_error,
    generate_workload,
    ncp,
    recoding_loss,
    suppression_ratio,
    true_counts,
)
from graphanon.metrics.evaluate import evaluate_release
from graphanon.release import GlobalRecoding


def test_golden_lm_costs():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    final = anonymize_cut(data, taxonomy=tax, cut=["P", "f", "g", "M", "e", "i"], suppress=["i"])
    loss = recoding_loss(data, final)
    assert loss.generalization == pytest.approx(3.6) and loss.suppression == 2 and loss.total == pytest.approx(5.6)
    assert ncp(data, final) == pytest.approx(5.6 / 23)
    assert suppression_ratio(data, final) == pytest.approx(2 / 23)
    assert recoding_loss(data, anonymize_cut(data, taxonomy=tax, cut=["T"])).total == pytest.approx(23)
    # SPEC: {P,Q,e,i} with {i} suppressed costs 6.6 + 2; {P,N,M,e,i} with {i} costs 6.2
    assert recoding_loss(data, anonymize_cut(data, taxonomy=tax, cut=["P", "Q", "e", "i"], suppress=["i"])).total == pytest.approx(8.6)
    assert recoding_loss(data, anonymize_cut(data, taxonomy=tax, cut=["P", "N", "M", "e", "i"], suppress=["i"])).total == pytest.approx(6.2)
    assert recoding_loss(data, anonymize_cut(data, taxonomy=tax, cut=["H", "K", "Q", "e", "i"], suppress=["H", "i"])).total == pytest.approx(10.2)


def test_workload_is_reproducible_and_answers_are_true():
    data = load("swap_table1")
    w1 = generate_workload(data, 50, 2, rng=3)
    w2 = generate_workload(data, 50, 2, rng=3)
    assert w1.queries == w2.queries and np.array_equal(w1.answers, w2.answers)
    assert (w1.answers > 0).all()
    for query, answer in zip(w1.queries, w1.answers):
        assert answer == sum(1 for r in data.records() if set(query.include) <= r)
    assert generate_workload(data, 50, 2, rng=4).queries != w1.queries
    w3 = generate_workload(data, 20, 3, rng=1, n_exclude=1)
    for query, answer in zip(w3.queries, w3.answers):
        assert answer == sum(1 for r in data.records() if set(query.include) <= r and not set(query.exclude) & r)
    assert true_counts(data, [CountQuery((2, 8))]).tolist() == [3]


def test_are_zero_for_identity_and_positive_for_generalization():
    data = load("liuwang_fig1")
    w = generate_workload(data, 100, 2, rng=0)
    identity = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    assert average_relative_error(identity, w) == pytest.approx(0)
    tax = load_taxonomy("liuwang_fig1")
    coarse = anonymize_cut(data, taxonomy=tax, cut=["T"])
    fine = anonymize_cut(data, taxonomy=tax, cut=["P", "f", "g", "M", "e", "i"])
    assert average_relative_error(coarse, w) > average_relative_error(fine, w) > 0


def test_workload_errors():
    data = from_iterable([["a"]])
    with pytest.raises(ParameterError, match="only 1 candidate items"):
        generate_workload(data, 5, 2)
    with pytest.raises(ParameterError, match="need q >= 1"):
        generate_workload(data, 5, 1, n_exclude=1)


def test_evaluate_release_keys():
    data, tax = load("liuwang_fig1"), load_taxonomy("liuwang_fig1")
    rel = anonymize_cut(data, taxonomy=tax, cut=["P", "f", "g", "M", "e", "i"], suppress=["i"])
    out = evaluate_release(data, rel, queries=30, q=2, rng=1)
    assert out["ncp"] == pytest.approx(5.6 / 23) and out["queries"] == 30 and "avg_relative_error" in out
    with pytest.raises(DataMismatchError, match="not made from this data"):
        evaluate_release(load("swap_table1"), rel)
    with pytest.raises(ParameterError, match="evaluate a release against the data it was made from"):
        evaluate_release(load("swap_table1"), rel, allow_mismatch=True)
