"""holdout_label_inference: the majority label adversary on members against non-members (issue 30, item 1)."""

from __future__ import annotations

import numpy as np
import pytest

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.attacks import holdout_label_inference, label_inference
from graphanon.data import from_iterable
from graphanon.errors import ParameterError
from graphanon.release import GlobalRecoding, NonreciprocalRelease
from tests.patients import patients


@pytest.fixture(scope="module")
def population():
    everyone = patients(500, seed=0)  # the model first, then i.i.d. records
    data, others = everyone.subset(np.arange(400)), everyone.subset(np.arange(400, 500))
    rel = anonymize_nonreciprocal(data, k=3, l=3, rng=1, unsafe_secret_seed=0)
    return data, others, rel


def test_member_side_is_label_inference_majority(population):
    data, others, rel = population
    res = holdout_label_inference(data, rel, others)
    assert res.success == pytest.approx(label_inference(data, rel).details["majority_success"])
    assert res.details["k"] == 3 and res.n_targets == data.n_records
    assert res.bound == pytest.approx(res.details["nonmember_nearest"])
    lo, hi = res.details["ci95"]
    assert lo <= res.details["difference"] <= hi


def test_members_as_their_own_holdout_differ_by_nothing(population):
    # identical people on both sides get identical k-nearest votes: the comparison itself adds no gap
    data, _, rel = population
    res = holdout_label_inference(data, rel, data.subset(np.arange(data.n_records)))
    assert res.details["member_nearest"] == res.details["nonmember_nearest"]
    assert res.details["nearest_difference"] == 0.0
    # matched as candidates would be, the members are their own candidate sets: every one matches its own row
    assert res.details["nonmembers_matching_a_row"] == 1.0
    assert res.details["nonmember_candidates_like"] == pytest.approx(res.details["member_candidates"])
    assert res.details["like_difference"] == pytest.approx(0.0, abs=1e-12)


def test_several_draws_are_pooled_per_person(population):
    # a list of releases of the same data: each person's success averaged over them (draw i: seed + i)
    data, others, rel = population
    other = anonymize_nonreciprocal(data, k=3, l=3, rng=1, unsafe_secret_seed=1)
    pooled = holdout_label_inference(data, [rel, other], others, seed=5)
    one, two = holdout_label_inference(data, rel, others, seed=5), holdout_label_inference(data, other, others, seed=6)
    assert pooled.details["draws"] == 2 and pooled.n_targets == data.n_records
    for key in ("member_candidates", "member_nearest", "nonmember_nearest", "nonmember_candidates_like",
                "nonmembers_matching_a_row", "raw_difference", "nearest_raw_difference", "like_difference"):
        assert pooled.details[key] == pytest.approx((one.details[key] + two.details[key]) / 2), key
    assert pooled.success == pytest.approx((one.success + two.success) / 2)
    lo, hi = pooled.details["raw_ci95"]
    assert lo < pooled.details["raw_difference"] < hi


def test_planted_release_that_names_its_members_is_caught(population):
    # every row is its record, in clear, with its own label: members are read, non-members are not
    data, others, _ = population
    X = data.matrix.toarray() if hasattr(data.matrix, "toarray") else np.asarray(data.matrix)
    X = (X != 0).astype(int)
    leaky = NonreciprocalRelease(list(data.items), X, np.zeros_like(X), np.zeros(data.n_records, dtype=int),
                                 labels=list(data.labels), algorithm="nr", params={"k": 1})
    res = holdout_label_inference(data, leaky, others, k=1)
    assert res.success > 0.9
    assert res.details["ci95"][0] > 0.3
    assert not res.within_bound()


def test_refusals(population):
    data, others, rel = population
    with pytest.raises(ParameterError, match="non-members"):
        holdout_label_inference(data, rel, others.with_labels(None))
    plain = from_iterable([["a"], ["b"]] * 4, labels=["x", "y"] * 4)
    with pytest.raises(ParameterError, match="bit-voting"):
        holdout_label_inference(plain, GlobalRecoding.from_mapping(plain, {"a": "(a,b)", "b": "(a,b)"}), plain)
    with pytest.raises(ParameterError, match="between 1"):
        holdout_label_inference(data, rel, others, k=10_000)
    with pytest.raises(ParameterError, match="at least one release"):
        holdout_label_inference(data, [], others)
