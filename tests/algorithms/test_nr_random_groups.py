"""Label groups drawn in secret (issue 30, group skips; nr's default grouping="random").

Checked: the grouping's likelihood against brute force -- every outcome of the selection procedure
enumerated with exact fractions, for every labelling of a tiny set -- is the same for all labellings
that give each group its published multiset (so the posterior of a record's label is its group's
share), and the closed form agrees; the implementation draws from that distribution (frequencies);
the order grouping fails the check on a planted example; the histogram invariant on hypothesis
inputs; the rows equal those of nr with k alone and the same seed; the CLI option and its refusals.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.label_groups import label_groups
from graphanon.algorithms.nonreciprocal.random_groups import (
    group_label_sets,
    grouping_probability,
    label_order,
    random_label_groups,
)
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.privacy.diversity import diversity_model
from tests.algorithms.test_nonreciprocal_ldiversity import feasible_labels
from tests.patients import patients


def partition(groups) -> frozenset:
    g = np.asarray(groups)
    return frozenset(frozenset(np.flatnonzero(g == x).tolist()) for x in np.unique(g))


def published(blocks, labels) -> frozenset:
    """What the release shows of a grouping: each group's rows and its label multiset."""
    return frozenset((block, tuple(sorted(labels[i] for i in block))) for block in blocks)


def enumerate_procedure(labels, p: int) -> dict:
    """Every outcome of the selection, step by step: the labels of the next group from the counts, then
    one row of each chosen label, each of its rows left equally likely.

    Returns {published grouping (rows and label multiset of each group): exact probability}."""
    names, codes = label_order(labels)
    sets = group_label_sets(np.bincount(codes, minlength=len(names)), p)
    dist: dict = defaultdict(Fraction)

    def step(t, left, blocks, prob):
        if t == len(sets):
            dist[published(blocks, labels)] += prob
            return
        share = prob
        for s in sets[t]:
            share /= len(left[s])
        for pick in itertools.product(*(left[s] for s in sets[t])):
            rest = {s: [r for r in rows if r not in pick] for s, rows in left.items()}
            step(t + 1, rest, [*blocks, frozenset(pick)], share)

    step(0, {s: np.flatnonzero(codes == s).tolist() for s in range(len(names))}, [], Fraction(1))
    return dict(dist)


def labellings(labels):
    """Every distinct arrangement of the label multiset over the records."""
    return sorted(set(itertools.permutations(labels)))


@pytest.mark.parametrize("labels,p", [(list("aabbcd"), 2), (list("aabbccd"), 3), (list("aaabbbcc"), 2)])
def test_the_grouping_says_nothing_beyond_the_multisets_brute_force(labels, p):
    """P(grouping | labelling) is the same for every labelling giving each group its multiset, 0 for the others;
    so with no prior knowledge tying records to labels, a record's posterior is its group's label shares."""
    dist = enumerate_procedure(labels, p)
    assert sum(dist.values()) == 1
    for shown, prob in dist.items():  # the closed form (prod 1/n_s! x orderings of equal sets) agrees
        groups = np.empty(len(labels), dtype=np.int64)
        for g, (block, _) in enumerate(shown):
            groups[list(block)] = g
        assert grouping_probability(labels, groups, p) == prob
    blocks = partition(random_label_groups(labels, p, np.random.default_rng(3)))
    observed = published(blocks, labels)
    assert observed in dist
    multisets = {block: Counter(labels[i] for i in block) for block in blocks}
    likelihood = {}
    for lam in labellings(labels):
        consistent = all(Counter(lam[i] for i in block) == m for block, m in multisets.items())
        prob = enumerate_procedure(list(lam), p).get(observed, Fraction(0))
        assert (prob > 0) == consistent, (lam, prob)
        if consistent:
            likelihood[lam] = prob
            groups = np.empty(len(labels), dtype=np.int64)
            for g, block in enumerate(blocks):
                groups[list(block)] = g
            assert grouping_probability(list(lam), groups, p) == prob
    assert len(set(likelihood.values())) == 1 and len(likelihood) > 1  # flat over the consistent labellings
    for block, m in multisets.items():  # the posterior (uniform prior over arrangements): the group's shares
        for i in block:
            reads = Counter(lam[i] for lam in likelihood)
            assert {a: Fraction(c, len(likelihood)) for a, c in reads.items()} == {
                a: Fraction(c, len(block)) for a, c in m.items()}
            assert max(reads.values()) * p <= len(likelihood)


def test_the_order_grouping_fails_that_check():
    """Groups formed along the order are a function of (order, labels): some labellings with the published
    multisets reproduce them (probability 1), others do not (0) -- which records a group skipped tells."""
    labels = list("aabbcc")
    observed = partition(label_groups(labels, 3, np.arange(6)))
    assert observed == partition([0, 1, 0, 1, 0, 1])
    multisets = {block: Counter(labels[i] for i in block) for block in observed}
    reproduce = Counter()
    for lam in labellings(labels):
        if all(Counter(lam[i] for i in block) == m for block, m in multisets.items()):
            reproduce[partition(label_groups(list(lam), 3, np.arange(6))) == observed] += 1
    assert reproduce[True] and reproduce[False]  # e.g. b a a b c c gives {0, 1, 4}: record 0's label shows
    # the secret selection on the same labels: the same likelihood for all of them
    groups = np.array([0, 1, 0, 1, 0, 1])
    assert len({grouping_probability(list(lam), groups, 3) for lam in labellings(labels)
                if all(Counter(lam[i] for i in block) == m for block, m in multisets.items())}) == 1


def test_the_implementation_draws_from_that_distribution():
    """Frequencies of random_label_groups over 3,000 secret draws against the enumerated probabilities."""
    labels, p = list("aabbcd"), 2
    dist = enumerate_procedure(labels, p)
    runs = 3000
    seen = Counter(published(partition(random_label_groups(labels, p, np.random.default_rng(s))), labels)
                   for s in range(runs))
    assert set(seen) <= set(dist)
    for part, prob in dist.items():  # each within 4.5 binomial standard deviations
        assert abs(seen[part] / runs - float(prob)) <= 4.5 * (float(prob) * (1 - float(prob)) / runs) ** 0.5


@settings(max_examples=150, deadline=None)
@given(data=st.data(), p=st.integers(2, 5), n=st.integers(2, 40))
def test_random_groups_partition_whenever_the_histogram_allows(data, p, n):
    labels = data.draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    counts = Counter(labels)
    secret = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    if len(counts) < p or max(counts.values()) * p > n:
        with pytest.raises(ParameterError):
            random_label_groups(labels, p, secret)
        return
    g = random_label_groups(labels, p, secret)
    assert sorted(set(g.tolist())) == list(range(int(g.max()) + 1))
    names, codes = label_order(labels)
    sets = group_label_sets(np.bincount(codes), p)
    for t in range(int(g.max()) + 1):  # group t holds the label set the counts chose for it
        members = [labels[i] for i in np.flatnonzero(g == t)]
        assert len(members) >= p and len(set(members)) == len(members)
        assert sorted(codes[g == t].tolist()) == sets[t]


@pytest.mark.parametrize("k,l", [(2, 2), (4, 3), (3, 5)])
def test_rows_are_those_of_k_alone_with_the_same_seed(k, l):  # noqa: E741
    """The k-anonymous ring over the whole order: the published rows (a multiset) do not depend on l."""
    data = patients(150, 60, seed=1)
    if l == 5:
        data = from_iterable([[data.items[j] for j in data.record_items(i)] for i in range(data.n_records)],
                             labels=[f"s{i % 5}" for i in range(data.n_records)])

    def rows(rel):
        B, D = rel.base.toarray(), rel.distance.toarray()
        return sorted((tuple(B[i]), tuple(D[i]), int(rel.threshold[i])) for i in range(rel.n_records))

    grouped = anonymize_nonreciprocal(data, k=k, l=l, rng=7)
    alone = anonymize_nonreciprocal(data, k=k, rng=7)
    assert grouped.items == alone.items and rows(grouped) == rows(alone)
    assert grouped.trace.graph.successors.tolist() == alone.trace.graph.successors.tolist()
    rep = diversity_model(l).audit(data, grouped)
    assert rep.satisfied and rep.details["audited_with_link"], str(rep)
    # the ordered grouping with k > p merges groups to k rows: other rows
    if k > l:
        assert rows(anonymize_nonreciprocal(data, k=k, l=l, rng=7, grouping="order")) != rows(alone)


@settings(max_examples=20, deadline=None)
@given(data=st.data(), l=st.integers(2, 4), m=st.integers(2, 6))
def test_each_records_own_group_and_candidates_stay_diverse(data, l, m):  # noqa: E741
    """Candidates now span several groups: every mixture still meets the variant (the audit's check 2)."""
    n = l * m + data.draw(st.integers(0, l - 1))
    labels = feasible_labels(data.draw, n, l)
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    X = rng.random((n, 6)) < 0.4
    d = from_iterable([[f"i{j}" for j in np.flatnonzero(r)] for r in X], items=[f"i{j}" for j in range(6)],
                      labels=labels)
    rel = anonymize_nonreciprocal(d, l=l, k=data.draw(st.integers(2, n)), order="gray", rng=1)
    assert diversity_model(l).audit(d, rel).satisfied


def test_cli_grouping(run):
    res = run("anonymize", "nr_table1", "-a", "nr", "--param", "l=2", "--param", "grouping=order", "-o", "r.json",
              "--json")
    assert res.exit_code == 0, res.output
    res = run("anonymize", "nr_table1", "-a", "nr", "-k", "2", "--param", "grouping=order", "-o", "r.json")
    assert res.exit_code != 0 and "--param grouping only applies to label groups" in res.output
    res = run("anonymize", "nr_table1", "-a", "nr", "--param", "l=2", "--param", "l_method=flow",
              "--param", "grouping=random", "-o", "r.json")
    assert res.exit_code != 0 and "--param grouping only applies to label groups" in res.output
    res = run("anonymize", "nr_table1", "-a", "nr", "--param", "l=2", "--param", "grouping=aisle", "-o", "r.json")
    assert res.exit_code != 0 and "grouping" in res.output


def test_golden_release_records_its_grouping():
    data = load("nr_table1")
    assert anonymize_nonreciprocal(data, l=2).params["grouping"] == "random"
    assert "grouping" not in anonymize_nonreciprocal(data, k=2).params


@pytest.mark.parametrize("grouping", ["random", "order"])
def test_added_records_of_grown_data_are_grouped_as_the_prior(grouping, monkeypatch):
    """``priors=`` on grown data: the added records' groups are made the way the prior's were (its ``grouping``)."""
    from graphanon.algorithms.nonreciprocal import anonymize as module
    from tests.ebook_sessions import ebook_sessions

    full = ebook_sessions(84, 30, seed=5).drop_unused_items()
    old = full.subset(np.arange(60)).drop_unused_items()
    first = anonymize_nonreciprocal(old, k=3, l=3, order="identity", grouping=grouping, unsafe_secret_seed=1)
    calls = []
    drawn = module.random_label_groups
    monkeypatch.setattr(module, "random_label_groups", lambda *a: calls.append(1) or drawn(*a))
    again = anonymize_nonreciprocal(full, k=3, l=3, priors=first, unsafe_secret_seed=3)
    assert again.params["grouping"] == grouping and bool(calls) == (grouping == "random")
    assert diversity_model(3).audit(full, again).satisfied
