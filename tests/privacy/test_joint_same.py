"""Releases that are one release to the adversary (graphanon.privacy.joint_same) in the joint audit.

A release made with ``--prior`` on identical data (or published twice) has the
prior's rows, labels and label groups in a fresh order: the joint audit reads
it once and answers exactly from the propagation on one release. Checked
against brute force (every matching x every deal, :mod:`.test_joint_groups`)
on small data, with planted pairs that differ in one group or one row and
must not be collapsed; and on generated patients, where the composed release
is audited exactly while the independent pair is not collapsed.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.algorithms.prior import Prior
from graphanon.privacy import LDiversity, NonreciprocalKAnonymity
from graphanon.privacy.joint import JointAudit, joint_label_sets
from graphanon.privacy.joint_same import alike_releases, releases_alike
from graphanon.release import NonreciprocalRelease, ReleaseLink

from ..patients import patients
from .test_joint import labelled_data, random_release
from .test_joint_groups import brute_joint, grouped_release


def _shuffled(release, rng) -> NonreciprocalRelease:
    """The same rows, printed labels and groups in another order, items in another column order, groups renumbered."""
    perm = rng.permutation(release.n_records)
    cols = rng.permutation(len(release.items))
    groups = None
    if release.label_groups is not None:
        g = np.asarray(release.label_groups)[perm]
        renumber = rng.permutation(int(g.max()) + 1)
        groups = renumber[g].tolist()
    return NonreciprocalRelease([release.items[c] for c in cols], release.base[perm][:, cols],
                                release.distance[perm][:, cols], np.asarray(release.threshold)[perm],
                                [release.labels[j] for j in perm], label_groups=groups)


def brute_alike(a, b) -> bool:
    """Whether some bijection of the rows keeps contents (items by name) and labels, or maps groups onto
    groups of equal label multisets -- by trying every permutation."""
    import itertools
    from collections import Counter

    if a.n_records != b.n_records or set(a.items) != set(b.items):
        return False

    def content(r, j):
        base, dist = r.base.toarray()[j], r.distance.toarray()[j]
        return (frozenset(x for x, v in zip(r.items, base, strict=True) if v),
                frozenset(x for x, v in zip(r.items, dist, strict=True) if v), int(r.threshold[j]))

    ca = [content(a, j) for j in range(a.n_records)]
    cb = [content(b, j) for j in range(b.n_records)]
    for p in itertools.permutations(range(a.n_records)):
        if any(ca[j] != cb[p[j]] for j in range(a.n_records)):
            continue
        if a.label_groups is None:
            if all(a.labels[j] == b.labels[p[j]] for j in range(a.n_records)):
                return True
            continue
        to = {}
        if not all(to.setdefault(a.label_groups[j], b.label_groups[p[j]]) == b.label_groups[p[j]]
                   for j in range(a.n_records)) or len(set(to.values())) != len(to):
            continue

        def counts(r, g):
            return Counter(r.labels[j] for j in range(r.n_records) if r.label_groups[j] == g)

        if all(counts(a, g) == counts(b, h) for g, h in to.items()):
            return True
    return False


def _sets(state, n):
    return [set(state.record_labels(i)) for i in range(n)]


# ---------------------------------------------------------------------- alike: collapsed, and exact


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=labelled_data(min_records=2, max_records=5), grouped=st.booleans(), seed=st.integers(0, 10_000))
def test_alike_releases_are_audited_as_one_and_equal_brute_force(data, grouped, seed):
    rng = np.random.default_rng(seed)
    first = grouped_release(data, rng) if grouped else random_release(data, rng)
    again = _shuffled(first, rng)
    assert releases_alike(first, again) and brute_alike(first, again)
    assert alike_releases([first, again]).tolist() == [0, 0]
    brute = brute_joint(data, [first, again])
    assert brute == brute_joint(data, [first])  # the lemma, by enumeration
    for exact in (True, False):  # exact either way: one labelled release left
        state = joint_label_sets(data, [first, again], exact=exact)
        assert state.exact and _sets(state, data.n_records) == brute
        assert state.candidates.shape[0] == 2 and (state.candidates[0] == state.candidates[1]).all()
    rep = JointAudit(LDiversity(2)).audit(data, [first, again], check_data=False)
    assert rep.details["distinct_releases"] == 1 and rep.details["alike_releases"] == [1, 1]
    assert rep.details["pinned_records"] == sum(len(s) == 1 for s in brute)


def _planted_pairs(data, rng):
    """A grouped release and variants that differ from it in one group only, or in one row."""
    first = grouped_release(data, rng, n_groups=2)
    groups = np.asarray(first.label_groups)
    labels = list(first.labels)
    out = []
    # one group's labels: a label of group 0 swapped with a different one of group 1 (rows and groups kept)
    a, b = np.flatnonzero(groups == 0), np.flatnonzero(groups == 1)
    pair = next(((i, j) for i in a for j in b if labels[i] != labels[j]), None)
    if pair is not None:
        swapped = list(labels)
        swapped[pair[0]], swapped[pair[1]] = labels[pair[1]], labels[pair[0]]
        out.append(NonreciprocalRelease(first.items, first.base, first.distance, first.threshold, swapped,
                                        label_groups=groups.tolist()))
    # one group's membership: a row moved from group 0 into group 1 with its label (counts of both change)
    if len(a) > 1:
        moved = groups.copy()
        moved[a[0]] = 1
        out.append(NonreciprocalRelease(first.items, first.base, first.distance, first.threshold, labels,
                                        label_groups=moved.tolist()))
    # one row changed: its threshold moved by one, or (none possible) a distance item added
    thr = np.asarray(first.threshold).copy()
    dist = first.distance.toarray()
    if thr[0] < dist[0].sum() or thr[0] > 0:
        thr[0] += 1 if thr[0] < dist[0].sum() else -1
    else:
        dist[0, 0] = True
    out.append(NonreciprocalRelease(first.items, first.base, dist, thr, labels, label_groups=groups.tolist()))
    return first, out


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=labelled_data(min_records=3, max_records=5), seed=st.integers(0, 10_000))
def test_releases_that_differ_in_one_group_or_row_are_not_collapsed(data, seed):
    rng = np.random.default_rng(seed)
    first, variants = _planted_pairs(data, rng)
    for t, other in enumerate(variants):
        other = _shuffled(other, rng)
        alike = releases_alike(first, other)
        assert alike == brute_alike(first, other)  # a label swapped between two groups of equal rows is alike
        if t == len(variants) - 1:  # a changed row: never alike
            assert not alike
        assert alike_releases([first, other]).tolist() == ([0, 0] if alike else [0, 1])
        brute = brute_joint(data, [first, other])
        state = joint_label_sets(data, [first, other], exact=True)
        if not state.consistent:  # a planted variant no world of the data fits: brute force finds none either
            assert all(not s for s in brute)
            continue
        assert state.exact and _sets(state, data.n_records) == brute


def test_planted_group_change_pins_what_the_collapse_would_miss():
    """A release and one with a label swapped between its two groups (rows and groups kept): each alone keeps
    every person at two labels or more, together they pin one -- which reading one of them (a wrong collapse)
    would miss. (Found by a search over small random cases; the numbers are brute force's.)"""
    from graphanon.data import from_iterable

    data = from_iterable([["c"], ["a", "b"], ["b"], ["c"], ["a", "c"]], labels=list("zxyyx"))
    first, (swapped, *_) = _planted_pairs(data, np.random.default_rng(927399))
    assert not releases_alike(first, swapped)
    for alone in (first, swapped):
        assert min(map(len, brute_joint(data, [alone]))) >= 2
    brute = brute_joint(data, [first, swapped])
    assert sum(len(s) == 1 for s in brute) == 1
    rep = JointAudit(LDiversity(2)).audit(data, [first, swapped], check_data=False)
    assert rep.details["distinct_releases"] == 2 and rep.details["exact"]
    assert rep.details["pinned_records"] == 1 and not rep.satisfied


def test_changing_data_collapses_only_releases_of_the_same_records():
    data = patients(30, 40, seed=3)
    first = grouped_release(data, np.random.default_rng(0))
    again = _shuffled(first, np.random.default_rng(1))
    ids = list(data.record_ids)
    every = ReleaseLink(np.arange(30), record_ids=ids)
    assert alike_releases([first, again], [np.arange(30), np.arange(30)]).tolist() == [0, 0]
    rep = JointAudit(LDiversity(2)).audit(data, [first, again], links=[every, every], check_data=False)
    assert rep.details["distinct_releases"] == 1 and rep.details["exact"]
    # the same rows, said to hold other records: not one release (its records differ)
    assert alike_releases([first, again], [np.arange(30), np.r_[1:30, 0][::-1]]).tolist() == [0, 0]
    assert alike_releases([first, again], [np.arange(30), np.arange(1, 31)]).tolist() == [0, 1]


# ---------------------------------------------------------------------- real releases with --prior


@pytest.fixture(scope="module")
def people():
    return patients(200, 80, seed=1)


@pytest.mark.parametrize("how", ["random", "order", "cahd"])
def test_prior_on_identical_data_is_audited_exactly_as_one_release(people, how):
    if how == "cahd":
        first = anonymize_cahd(people, l=3)
    else:
        first = anonymize_nonreciprocal(people, k=3, l=3, grouping=how, rng=1)
    again = (anonymize_cahd if how == "cahd" else anonymize_nonreciprocal)(
        people, **({"l": 3} if how == "cahd" else {"k": 3, "l": 3}), priors=[Prior(first, first.link)])
    assert releases_alike(first, again)
    for model in (LDiversity(3), NonreciprocalKAnonymity(3)):
        rep = JointAudit(model).audit(people, [first, again])
        assert rep.satisfied, rep
        assert rep.details["exact"] and rep.details["distinct_releases"] == 1
        assert rep.details["pinned_records"] == 0 and rep.details["records_not_proven"] == 0
    alone = joint_label_sets(people, [first], exact=False)
    both = joint_label_sets(people, [first, again], exact=False)
    assert (alone.labels_per_record() == both.labels_per_record()).all()


def test_independent_secret_groups_are_not_collapsed(people):
    """Two nr l=3 releases with secret groups drawn anew: the same rows (same structure seed), other groups."""
    first = anonymize_nonreciprocal(people, k=3, l=3, rng=1)
    second = anonymize_nonreciprocal(people, k=3, l=3, rng=1)
    assert not releases_alike(first, second)
    state = joint_label_sets(people, [first, second], exact=False)  # the propagation: a lower bound of the pinned
    assert state.alike.tolist() == [0, 1] and not state.exact
