"""Entropy l-diversity and recursive (c,l)-diversity: audits against brute force, CAHD releases, the
correlated-label attack."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.attacks import label_inference
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.privacy import EntropyLDiversity, LDiversity, RecursiveLDiversity
from graphanon.privacy.diversity import diversity_model
from graphanon.privacy.registry import build_model
from graphanon.release import NonreciprocalRelease
from tests.conftest import cli
from tests.ebook_sessions import ebook_sessions


# ---------------------------------------------------------------------- brute force
def brute_distributions(data, release):
    """Per record: the label Counter of its candidate rows and of its viable rows, by enumerating
    every permutation of rows (possible worlds read off the release's own matcher)."""
    n = data.n_records
    eo, ep = release.match_arrays(data)
    match = np.zeros((n, n), dtype=bool)
    match[eo, ep] = True
    viable = np.zeros((n, n), dtype=bool)
    for perm in itertools.permutations(range(n)):
        if all(match[i, perm[i]] for i in range(n)):
            viable[np.arange(n), list(perm)] = True
    labels = [str(x) for x in release.labels]
    every = [Counter(labels[j] for j in np.flatnonzero(match[i])) for i in range(n)]
    viab = [Counter(labels[j] for j in np.flatnonzero(viable[i])) for i in range(n)]
    return every, viab


def entropy_ok(counter, l):  # noqa: E741
    total = sum(counter.values())
    if total == 0:
        return False
    h = -sum(v / total * math.log(v / total) for v in counter.values())
    return h >= math.log(l) - 1e-9


def recursive_ok(counter, c, l):  # noqa: E741
    r = sorted(counter.values(), reverse=True)
    if not r:
        return False
    return r[0] < c * sum(r[l - 1 :])


def random_release(draw, n, d):
    """An arbitrary small bit-voting release with labels (not made by an anonymizer)."""
    items = [f"i{j}" for j in range(d)]
    rows = [draw(st.lists(st.integers(0, d - 1), max_size=d, unique=True)) for _ in range(n)]
    data = from_iterable([[items[j] for j in r] for r in rows], items=items,
                         labels=draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n)))
    base = np.zeros((n, d), dtype=bool)
    dist = np.zeros((n, d), dtype=bool)
    thr = np.zeros(n, dtype=np.int64)
    for i in range(n):
        base[i] = draw(st.lists(st.booleans(), min_size=d, max_size=d))
        dist[i] = draw(st.lists(st.booleans(), min_size=d, max_size=d))
        thr[i] = draw(st.integers(0, int(dist[i].sum())))
    # publish the original label multiset, in a drawn order, so that the distinct part can pass
    labels = list(data.labels)
    order = draw(st.permutations(range(n)))
    release = NonreciprocalRelease(items, base, dist, thr, [labels[p] for p in order], algorithm="hand")
    return data, release


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(2, 6), d=st.integers(1, 4), l=st.integers(1, 3),
       c=st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]))
def test_audits_match_brute_force(data, n, d, l, c):  # noqa: E741
    original, release = random_release(data.draw, n, d)
    every, viab = brute_distributions(original, release)
    distinct = LDiversity(l).audit(original, release)
    ent = EntropyLDiversity(l).audit(original, release)
    rec = RecursiveLDiversity(c, l).audit(original, release)
    bad_e = sum(not (entropy_ok(a, l) and entropy_ok(b, l)) for a, b in zip(every, viab, strict=True))
    bad_r = sum(not (recursive_ok(a, c, l) and recursive_ok(b, c, l)) for a, b in zip(every, viab, strict=True))
    assert ent.details["distribution_violations"] == bad_e
    assert rec.details["distribution_violations"] == bad_r
    assert ent.satisfied == (distinct.satisfied and bad_e == 0)
    assert rec.satisfied == (distinct.satisfied and bad_r == 0)
    assert ent.violations == distinct.violations + bad_e


def _first_release_where(predicate, seeds=range(5000)):  # the label-preserving matching made such releases rarer
    for seed in seeds:
        rng = np.random.default_rng(seed)
        n, d = 6, 3
        X = rng.random((n, d)) < 0.5
        items = [f"i{j}" for j in range(d)]
        labels = list(rng.choice(list("abc"), size=n))
        data = from_iterable([[items[j] for j in np.flatnonzero(r)] for r in X], items=items, labels=labels)
        base, dist = rng.random((n, d)) < 0.5, rng.random((n, d)) < 0.6
        thr = np.array([rng.integers(0, int(dist[i].sum()) + 1) for i in range(n)])
        rel = NonreciprocalRelease(items, base, dist, thr, list(rng.permutation(labels)), algorithm="hand")
        if predicate(data, rel):
            return data, rel
    raise AssertionError("no such release among the seeds")


def test_planted_release_distinct_but_not_entropy():
    """A release that distinct l-diversity accepts and entropy l-diversity must reject."""
    # seed 1378 is the first of range(5000) that gives one (searching there costs 1,378 x 2 audits, 6.5 s of CPU);
    # should a change of the audits or the matching make it fail, search range(5000) again and pin the new first
    data, rel = _first_release_where(
        lambda d, r: LDiversity(2).audit(d, r).satisfied and not EntropyLDiversity(2).audit(d, r).satisfied,
        seeds=[1378],
    )
    every, viab = brute_distributions(data, rel)
    assert any(not (entropy_ok(a, 2) and entropy_ok(b, 2)) for a, b in zip(every, viab, strict=True))
    rep = EntropyLDiversity(2).audit(data, rel)
    assert rep.counterexamples and "candidates_label_counts" in rep.counterexamples[0]


def test_planted_release_entropy_but_not_recursive():
    """CAHD pairs of two labels: entropy log 2 exactly (accepted), but r_1 = 1 is not < 1 * r_2."""
    table = load("nr_table1")
    rel = anonymize_cahd(table, l=2, unsafe_secret_seed=0)
    every, viab = brute_distributions(table, rel)
    assert all(entropy_ok(a, 2) and entropy_ok(b, 2) for a, b in zip(every, viab, strict=True))
    assert EntropyLDiversity(2).audit(table, rel).satisfied
    rep = RecursiveLDiversity(1.0, 2).audit(table, rel)
    expected = sum(not (recursive_ok(a, 1.0, 2) and recursive_ok(b, 1.0, 2)) for a, b in zip(every, viab, strict=True))
    assert not rep.satisfied and rep.details["distribution_violations"] == expected > 0
    assert RecursiveLDiversity(1.01, 2).audit(table, rel).satisfied == (
        all(recursive_ok(a, 1.01, 2) and recursive_ok(b, 1.01, 2) for a, b in zip(every, viab, strict=True)))


def test_non_viable_candidates_count():
    """nr_table1, CAHD l=3: records 2 and 4 also fit the other group's rows and may trade places,
    so those rows are viable too; their distributions (two of each of three labels) stay uniform."""
    table = load("nr_table1")
    rel = anonymize_cahd(table, l=3, grouping="order")  # the paper's groups (the default draws them in secret)
    every, viab = brute_distributions(table, rel)
    assert [sum(c.values()) for c in every] == [3, 3, 6, 3, 6, 3]
    assert [sum(c.values()) for c in viab] == [3, 3, 6, 3, 6, 3]
    assert sorted(every[2].values()) == [2, 2, 2]
    assert EntropyLDiversity(3).audit(table, rel).satisfied


# ---------------------------------------------------------------------- models by name
def test_registry_names_and_params():
    table = load("nr_table1")
    assert isinstance(build_model("ldiversity", k=None, m=None, params={"l": "2"}, original=table), LDiversity)
    m = build_model("ldiversity", k=None, m=None, params={"l": "2", "diversity": "entropy"}, original=table)
    assert isinstance(m, EntropyLDiversity) and m.l == 2
    m = build_model("recursive-ldiversity", k=3, m=None, params={"c": "1.5"}, original=table)
    assert isinstance(m, RecursiveLDiversity) and (m.c, m.l) == (1.5, 3)
    with pytest.raises(ParameterError, match="needs c"):
        build_model("recursive-ldiversity", k=3, m=None, params={}, original=table)
    with pytest.raises(ParameterError, match="c applies"):
        build_model("entropy-ldiversity", k=3, m=None, params={"c": "2"}, original=table)
    with pytest.raises(ParameterError, match="diversity"):
        diversity_model(2, "weird")
    for bad in ("0", "-1", "nan", "x"):
        with pytest.raises(ParameterError, match="c must be"):
            RecursiveLDiversity(bad, 2)


# ---------------------------------------------------------------------- CAHD
def labelled_ebook(n=600, titles=120, seed=0):
    return ebook_sessions(n, titles, seed=seed)


@pytest.mark.parametrize("variant", [("entropy", None, 3), ("recursive", 2.0, 3), ("recursive", 1.0, 3),
                                     ("entropy", None, 2), ("recursive", 1.0, 2)])
def test_cahd_variants_pass_their_audit(variant):
    diversity, c, l = variant  # noqa: E741
    data = labelled_ebook()
    rel = anonymize_cahd(data, l=l, diversity=diversity, c=c, unsafe_secret_seed=0)
    assert rel.params["diversity"] == diversity
    rep = diversity_model(l, diversity, c).audit(data, rel)
    assert rep.satisfied, str(rep)
    assert LDiversity(l).audit(data, rel).satisfied


@settings(max_examples=30, deadline=None)
@given(data=st.data(), l=st.integers(2, 3), c=st.sampled_from([0.5, 1.0, 1.5, 3.0]),
       diversity=st.sampled_from(["entropy", "recursive"]))
def test_cahd_variants_hold_on_arbitrary_data(data, l, c, diversity):  # noqa: E741
    """Whatever the records (extra matches included), CAHD's distinct-label groups of the variant's size
    pass the variant's audit; checked by brute force on small data too."""
    n = data.draw(st.integers(2 * l, 7))
    n_labels = data.draw(st.integers(l + 1, 5))
    labels = [f"s{j % n_labels}" for j in range(n)]
    labels = [labels[p] for p in data.draw(st.permutations(range(n)))]
    rows = [data.draw(st.lists(st.sampled_from("abcd"), max_size=4, unique=True)) for _ in range(n)]
    d = from_iterable(rows, items=list("abcd"), labels=labels)
    c = c if diversity == "recursive" else None
    try:
        rel = anonymize_cahd(d, l=l, diversity=diversity, c=c, unsafe_secret_seed=0)
    except ParameterError as err:  # the labels cannot fill groups of the size the variant needs
        assert "groups of at most" in str(err) or "whole table" in str(err) or "at most" in str(err)
        return
    assert diversity_model(l, diversity, c).audit(d, rel).satisfied
    every, viab = brute_distributions(d, rel)
    check = (lambda x: entropy_ok(x, l)) if diversity == "entropy" else (lambda x: recursive_ok(x, c, l))
    assert all(check(a) and check(b) for a, b in zip(every, viab, strict=True))


def test_cahd_variant_errors():
    data = labelled_ebook(200, 60)
    with pytest.raises(ParameterError, match="needs c"):
        anonymize_cahd(data, l=3, diversity="recursive")
    with pytest.raises(ParameterError, match="c applies"):
        anonymize_cahd(data, l=3, diversity="entropy", c=1.0)
    with pytest.raises(ParameterError, match="diversity must be"):
        anonymize_cahd(data, l=3, diversity="max")
    with pytest.raises(ParameterError, match="c must be"):
        anonymize_cahd(data, l=3, diversity="recursive", c=0)
    table = from_iterable([["a"]] * 9, labels=list("xxxyyyzzw"))  # r_1 = 3, r_3 + r_4 = 3
    with pytest.raises(ParameterError, match="whole table has r_1 = 3"):
        anonymize_cahd(table, l=3, diversity="recursive", c=1.0)
    assert RecursiveLDiversity(1.01, 3).audit(table, anonymize_cahd(table, l=3, diversity="recursive", c=1.01)).satisfied
    with pytest.raises(ParameterError, match="whole table"):
        anonymize_cahd(data, l=3, diversity="recursive", c=0.2)
    six = from_iterable([["a"]] * 12, labels=list("uvwxyz") * 2)  # c=0.3: 1 < 0.3 (p - 2) needs p = 6
    assert anonymize_cahd(six, l=3, diversity="recursive", c=0.3).params["group_size"] == 6


def test_cahd_cli_param_and_audit(tmp_path):

    data = labelled_ebook(300, 80)
    src = tmp_path / "d.csv"
    with open(src, "w") as fh:
        fh.write("tid,item,label\n")
        for i in range(data.n_records):
            for j in data.record_items(i):
                fh.write(f"t{i},{data.items[j]},{data.labels[i]}\n")
    out = tmp_path / "r.json"
    res = cli("anonymize", src, "-a", "cahd", "--label", "label", "--param", "l=3", "--param", "diversity=recursive",
              "--param", "c=1", "-o", out, "--json")
    assert res.exit_code == 0, res.output
    assert "\"diversity\": \"recursive\"" in out.read_text().replace("\"diversity\":\"recursive\"", "\"diversity\": \"recursive\"")
    res = cli("audit", src, out, "--label", "label", "--model", "recursive-ldiversity", "--param", "l=3", "--param",
              "c=1")
    assert res.exit_code == 0, res.output


# ---------------------------------------------------------------------- the correlated-label attack
def test_correlated_labels_fall_below_one_over_l_with_margin():
    """E-book sessions (labels follow the reading genre): the majority-label adversary scores above
    1/3 on distinct l=3 with the paper's groups (grouping=order: each group's records are the nearest of
    their labels; and on entropy l=3, which these distributions already meet), and below 1/3 by more
    than the margin on recursive (1,3)-diversity."""
    data = ebook_sessions(3000, 300, seed=0)
    distinct = label_inference(data, anonymize_cahd(data, l=3, grouping="order"), strategy="candidates")
    assert distinct.success > 1 / 3
    rel = anonymize_cahd(data, l=3, diversity="recursive", c=1.0)
    assert RecursiveLDiversity(1.0, 3).audit(data, rel).satisfied
    res = label_inference(data, rel, strategy="candidates")
    assert res.bound == pytest.approx(1 / 3)
    assert res.success + res.margin < res.bound, str(res)


def test_nr_refuses_variants_it_cannot_promise():
    from graphanon.cli.registry import RunOptions, get_algorithm

    data = labelled_ebook(60, 30)
    spec = get_algorithm("nr")
    with pytest.raises(ParameterError, match="l_method=flow promises distinct l-diversity only"):
        spec.run(data, RunOptions(k=None, m=None, taxonomy=None, seed=0,
                                  params={"l": "2", "diversity": "entropy", "order": "gray", "l_method": "flow"}))
    # label groups (the default) promise the variants
    rel = spec.run(data, RunOptions(k=None, m=None, taxonomy=None, seed=0,
                                    params={"l": "2", "diversity": "entropy", "order": "gray"}))
    assert rel.params["diversity"] == "entropy" and rel.label_groups is not None
