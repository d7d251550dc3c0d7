"""The joint audit of releases whose labels are published in label groups (graphanon.privacy.joint_groups).

A grouped release's possible worlds are a perfect matching of its records to
its rows and a *deal* -- a permutation of each group's published labels over
the group's rows. The brute force below enumerates exactly that (every
matching x every deal, the labels then read off), never the counting lemma
the audit is built on, and is compared with the exact joint label sets on
small data, for releases of one dataset and of changing data; planted pairs
show a record pinned through the group counts that reading the printed
labels row by row gets wrong; the exact step's time budget reports "not
proven", never "satisfied".
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.privacy import LDiversity, NonreciprocalKAnonymity
from graphanon.privacy.joint import JointAudit, joint_label_sets
from graphanon.release import NonreciprocalRelease, ReleaseLink

from ..patients import patients
from .test_joint import _matches, labelled_data, random_release

# ---------------------------------------------------------------------- brute force: matchings x deals


def release_worlds(data, release) -> set[tuple]:
    """The label vectors (one per record of ``data``) of the release's possible worlds, by enumeration.

    A world is a perfect matching ``p`` (record ``i`` on row ``p[i]``, in the match graph) and, for a grouped
    release, a deal: per group a permutation ``s`` of its rows, the label printed on row ``s(j)`` being that of
    the record on row ``j``. Without groups the record on row ``j`` has the label printed on ``j``.
    """
    n = data.n_records
    match = _matches(data, release)
    labels = list(release.labels)
    if release.label_groups is None:
        deals = [list(range(n))]  # the identity: each row shows its own record's label
    else:
        groups = [np.flatnonzero(np.asarray(release.label_groups) == g).tolist()
                  for g in range(int(max(release.label_groups)) + 1)]
        deals = []
        for perms in itertools.product(*(itertools.permutations(rows) for rows in groups)):
            deal = [0] * n
            for rows, perm in zip(groups, perms, strict=True):
                for j, s in zip(rows, perm, strict=True):
                    deal[j] = s
            deals.append(deal)
    out = set()
    for p in itertools.permutations(range(n)):
        if all(match[i, p[i]] for i in range(n)):
            for deal in deals:
                out.add(tuple(labels[deal[p[i]]] for i in range(n)))
    return out


def brute_joint(data, releases, members=None) -> list[set]:
    """Per record of ``data``, the labels it takes in some joint world (one label per person, a world of
    every release on its own records)."""
    members = [np.arange(data.n_records)] * len(releases) if members is None else members
    worlds = [release_worlds(data.subset(m), r) for m, r in zip(members, releases, strict=True)]
    values = sorted({x for r in releases for x in r.labels})
    out = [set() for _ in range(data.n_records)]
    for lam in itertools.product(values, repeat=data.n_records):
        if all(tuple(lam[i] for i in m) in w for m, w in zip(members, worlds, strict=True)):
            for i, x in enumerate(lam):
                out[i].add(x)
    return out


def grouped_release(data, rng, n_groups=None) -> NonreciprocalRelease:
    """A genuine grouped release: each record's own row (random distance and threshold), rows split into
    random groups, each group's labels (those of the records on its rows) dealt by a random shuffle."""
    r = random_release(data, rng)  # rows shuffled; row j stands for a record of label r.labels[j]
    n = data.n_records
    k = int(rng.integers(1, n + 1)) if n_groups is None else n_groups
    groups = np.zeros(n, dtype=np.int64)
    groups[rng.permutation(n)] = np.arange(n) % k
    _, groups = np.unique(groups, return_inverse=True)
    dealt = list(r.labels)
    for g in range(int(groups.max()) + 1):
        rows = np.flatnonzero(groups == g)
        for j, s in zip(rows, rng.permutation(rows), strict=True):
            dealt[j] = r.labels[s]
    return NonreciprocalRelease(r.items, r.base, r.distance, r.threshold, dealt, label_groups=groups.tolist())


def _label_sets(sets, n):
    return [set(sets.record_labels(i)) for i in range(n)]


# ---------------------------------------------------------------------- against brute force


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=labelled_data(min_records=2, max_records=5), kinds=st.lists(st.sampled_from(["groups", "rows"]),
       min_size=2, max_size=3), seed=st.integers(0, 10_000))  # fmt: skip
def test_grouped_joint_label_sets_equal_brute_force(data, kinds, seed):
    rng = np.random.default_rng(seed)
    releases = [grouped_release(data, rng) if kind == "groups" else random_release(data, rng) for kind in kinds]
    brute = brute_joint(data, releases)
    exact = joint_label_sets(data, releases, exact=True)
    assert exact.consistent and exact.exact
    assert _label_sets(exact, data.n_records) == brute
    fast = joint_label_sets(data, releases, exact=False)  # the propagation keeps every possible label
    for i in range(data.n_records):
        assert brute[i] <= set(fast.record_labels(i)) and data.labels[i] in brute[i]
    rep = JointAudit(LDiversity(2), exact=True).audit(data, releases, check_data=False)
    assert rep.details["pinned_records"] == sum(len(s) == 1 for s in brute)
    assert rep.details["records_below_level"] == sum(len(s) < 2 for s in brute)


@st.composite
def _changing(draw):
    data = draw(labelled_data(min_records=3, max_records=5))
    n = data.n_records
    subsets = draw(st.lists(st.lists(st.sampled_from(range(n)), min_size=2, max_size=n, unique=True),
                            min_size=2, max_size=3))
    return data, [np.array(sorted(s)) for s in subsets]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=_changing(), seed=st.integers(0, 10_000))
def test_grouped_changing_data_equals_brute_force(case, seed):
    data, members = case
    rng = np.random.default_rng(seed)
    releases = [grouped_release(data.subset(m), rng) if t % 2 == 0 else random_release(data.subset(m), rng)
                for t, m in enumerate(members)]
    brute = brute_joint(data, releases, members)
    exact = joint_label_sets(data, releases, exact=True, members=members)
    in_some = sorted(set(np.concatenate(members).tolist()))
    assert [set(exact.record_labels(i)) for i in in_some] == [brute[i] for i in in_some]
    ids = list(data.record_ids)
    links = [ReleaseLink(np.arange(len(m)), record_ids=[ids[i] for i in m]) for m in members]
    rep = JointAudit(LDiversity(2), exact=True).audit(data, releases, links=links, check_data=False)
    assert rep.details["pinned_records"] == sum(len(brute[i]) == 1 for i in in_some)


def test_real_grouped_nr_releases_equal_brute_force():
    """Two ``nr`` l=2 releases (label groups, the default) of six people against matchings x deals."""
    data = from_iterable([["a", "b"], ["a"], ["b", "c"], ["c"], ["a", "c"], ["b"]], labels=list("xyxyzz"))
    releases = [anonymize_nonreciprocal(data, l=2, order="identity", unsafe_secret_seed=s) for s in (0, 1)]
    assert all(r.label_groups is not None for r in releases)
    brute = brute_joint(data, releases)
    exact = joint_label_sets(data, releases, exact=True)
    assert _label_sets(exact, 6) == brute
    rep = JointAudit(LDiversity(2)).audit(data, releases)
    assert rep.details["records_below_level"] == sum(len(s) < 2 for s in brute)
    assert rep.satisfied == all(len(s) >= 2 for s in brute)


# ---------------------------------------------------------------------- planted pairs


def _row(items, distance, threshold=1):
    """A row with an empty base: it matches the single-item records whose item is in ``distance``."""
    return [0] * len(items), [int(x in distance) for x in items], threshold


def _release(items, rows, labels, groups=None):
    base, dist, thr = zip(*(_row(items, d) for d in rows), strict=True)
    return NonreciprocalRelease(items, list(base), list(dist), list(thr), labels, label_groups=groups)


def test_planted_group_counts_pin_a_record_the_printed_labels_get_wrong():
    """Release 1 (label groups): group 0 is rows 0 and 1, labels {x, y}; record 0 matches only row 0 (on which
    x is printed), record 1 rows 0 and 1. Release 2: record 1 can only be on a row of a group {x, x}: it is x.
    So records 0 and 1 fill group 0 of release 1 and record 0 is y -- pinned, to the label *not* printed on the
    only row it matches. Reading the printed labels row by row gets it wrong: it pins record 0 to x."""
    items = ["a0", "a1", "a2", "a3"]
    r1 = _release(items, [{"a0", "a1"}, {"a1"}, {"a2", "a3"}, {"a2", "a3"}], list("xyxz"), [0, 0, 1, 1])
    r2 = _release(items, [{"a1", "a2"}, {"a1", "a2"}, {"a0", "a3"}, {"a0", "a3"}], list("xxyz"), [0, 0, 1, 1])
    data = from_iterable([["a0"], ["a1"], ["a2"], ["a3"]], labels=list("yxxz"))
    brute = brute_joint(data, [r1, r2])
    assert brute[0] == {"y"} and brute[1] == {"x"}
    exact = joint_label_sets(data, [r1, r2], exact=True)
    assert _label_sets(exact, 4) == brute
    # release 1 alone leaves record 0 both labels of its group
    assert brute_joint(data, [r1])[0] == {"x", "y"}
    # the rows read one by one (label groups dropped) claim the wrong label for record 0
    plain = [NonreciprocalRelease(r.items, r.base, r.distance, r.threshold, r.labels) for r in (r1, r2)]
    read_by_row = joint_label_sets(data, plain, exact=True)
    assert not read_by_row.consistent or set(read_by_row.record_labels(0)) != {"y"}
    rep = JointAudit(LDiversity(2), exact=True).audit(data, [r1, r2], check_data=False)
    assert rep.details["pinned_records"] == sum(len(s) == 1 for s in brute) and not rep.satisfied


def test_planted_groups_keep_labels_the_printed_rows_would_pin():
    """Each record matches only its own row in both releases, but the rows' groups hold {x, y}: a grouped
    release gives the adversary the group's labels, not the printed one -- nobody is pinned, while the rows
    read one by one pin everyone (records 0 and 1 to the wrong label)."""
    items = ["a0", "a1", "a2", "a3"]
    data = from_iterable([["a0"], ["a1"], ["a2"], ["a3"]], labels=list("xyxy"))
    own = [{"a0"}, {"a1"}, {"a2"}, {"a3"}]
    r1 = _release(items, own, list("yxxy"), [0, 0, 1, 1])
    r2 = _release(items, own, list("yxxy"), [0, 0, 1, 1])
    brute = brute_joint(data, [r1, r2])
    assert brute == [{"x", "y"}] * 4
    plain = [NonreciprocalRelease(r.items, r.base, r.distance, r.threshold, r.labels) for r in (r1, r2)]
    assert _label_sets(joint_label_sets(data, plain, exact=True), 4) == [{"y"}, {"x"}, {"x"}, {"y"}]
    rep = JointAudit(LDiversity(2), exact=True).audit(data, [r1, r2], check_data=False)
    assert rep.satisfied and rep.details["pinned_records"] == 0
    assert rep.details["label_groups"] == [True, True]


def _own_rows(items, labels, groups):
    """A grouped release whose rows each match one record only (its own bitmap, no distance)."""
    n = len(items)
    eye = np.eye(n, dtype=bool)
    return NonreciprocalRelease(items, eye, np.zeros_like(eye), [0] * n, labels, label_groups=groups)


@pytest.mark.parametrize("first_pass", [True, False])
def test_exact_step_removes_labels_the_grouped_propagation_keeps(monkeypatch, first_pass):
    """Three grouped releases whose rows each match one record: they publish three partitions of the people
    with their groups' labels. Each group alone lets records 3 and 4 be y, but the two y labels must sit in
    {1, 2} (release 1) and in {0, 5} (release 3) at once, so 3 and 4 are x in every joint world. The
    propagation (one release at a time) keeps y for them; the exact step (CP-SAT with the group counts,
    with and without the matching pass before it) removes it."""
    import graphanon.privacy.joint_exact as joint_exact

    if not first_pass:
        monkeypatch.setattr(joint_exact, "_matching_worlds", lambda allowed, size, graphs, confirmed, **kw: confirmed)
    items = [f"i{j}" for j in range(6)]
    data = from_iterable([[x] for x in items], labels=list("xxyxxy"))

    def groups_of(parts):
        g = [0] * 6
        for number, part in enumerate(parts):
            for i in part:
                g[i] = number
        return g

    partitions = ([[1, 2], [0, 3, 4, 5]], [[1, 2, 3], [0, 4, 5]], [[1, 2, 3, 4], [0, 5]])
    releases = [_own_rows(items, list("xxyxxy"), groups_of(p)) for p in partitions]  # printed: the truth
    brute = brute_joint(data, releases)
    assert brute[3] == brute[4] == {"x"} and brute[0] == {"x", "y"}
    fast = joint_label_sets(data, releases, exact=False)
    assert fast.labels_per_record().tolist() == [2] * 6
    exact = joint_label_sets(data, releases, exact=True)
    assert _label_sets(exact, 6) == brute


def test_search_solver_refuses_label_groups():
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, l=2, unsafe_secret_seed=0)
    with pytest.raises(ParameterError, match="label groups"):
        joint_label_sets(data, [rel, rel], exact=True, solver="search")


# ---------------------------------------------------------------------- the exact step's time budget


def test_budget_reports_not_proven_never_satisfied():
    table = load("nr_table1")
    r1, r2 = anonymize_cahd(table, l=3, unsafe_secret_seed=0), anonymize_cahd(table, l=2, unsafe_secret_seed=1)
    full = JointAudit(LDiversity(2), exact=True, budget=None).audit(table, [r1, r2], check_data=False)
    assert full.satisfied and full.details["records_not_proven"] == 0 and full.details["exact"]
    cut = JointAudit(LDiversity(2), exact=True, budget=1e-9).audit(table, [r1, r2], check_data=False)
    assert not cut.satisfied and not cut.details["exact"] and cut.details["budget_exhausted"]
    assert cut.details["records_not_proven"] > 0
    assert cut.counterexamples[0]["problem"].startswith("not proven within the exact step's time budget")
    assert "not proven" in str(cut)
    # records below l with the upper bound are violations either way; the budget never hides them
    assert cut.details["records_below_level"] == full.details["records_below_level"]
    k = JointAudit(NonreciprocalKAnonymity(2), exact=True, budget=1e-9).audit(table, [r1, r2], check_data=False)
    assert not k.satisfied and k.details["records_not_proven"] > 0
    sets = joint_label_sets(table, [r1, r2], exact=True, budget=1e-9)
    assert sets.lower is not None and not sets.exact and (sets.lower <= sets.allowed).all()
    with pytest.raises(ParameterError, match="budget"):
        JointAudit(LDiversity(2), budget=0)


def test_cli_exact_seconds(run):
    """``audit --exact-seconds``: a budget too small reports not proven (exit 1), never satisfied."""
    # the paper's scan (grouping=order): two independent secret-group releases may pin records (docs/updates.md)
    for name, how in (("r1", ["-a", "cahd", "--param", "l=3", "--param", "grouping=order"]),
                      ("r2", ["-a", "cahd", "--param", "l=2", "--param", "grouping=order"])):
        assert run("anonymize", "nr_table1", *how, "-o", f"{name}.json").exit_code == 0
    args = ["audit", "nr_table1", "r1.json", "r2.json", "--model", "ldiversity", "--param", "l=2", "--json"]
    res = run(*args)
    assert res.exit_code == 0 and json.loads(res.output)["details"]["exact_budget_seconds"] == 300.0
    res = run(*args, "--exact-seconds", "1e-9")
    assert res.exit_code == 1, res.output
    rep = json.loads(res.output)
    assert not rep["satisfied"] and rep["details"]["records_not_proven"] > 0 and not rep["details"]["exact"]
    res = run(*args[:-1], "--exact-seconds", "1e-9")
    assert "VIOLATED" in res.output and "not proven" in res.output
    res = run("audit", "nr_table1", "r1.json", "--model", "ldiversity", "--param", "l=2", "--exact-seconds", "5")
    assert res.exit_code == 2 and "--exact-seconds" in res.output


# ---------------------------------------------------------------------- the cheap pass's grouped worlds


def _one_release_graph(data, release):
    """The joint graph of one grouped release on single records, and its labels left by the propagation."""
    from graphanon.privacy import joint_propagation as joint
    from graphanon.privacy.joint_groups import grouped_reach

    _, size, graphs, labels = joint.release_graphs(data, [release], by_record=True)
    g = graphs[0]
    allowed = grouped_reach(g.ea, g.group, g.quota, len(size)) | ~g.present[:, None]
    return joint.propagate(allowed, size, graphs)[0], size, g, labels


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=labelled_data(min_records=2, max_records=5), seed=st.integers(0, 10_000))
def test_grouped_world_is_a_world_of_the_release(data, seed):
    """Every labelling :func:`grouped_world` builds is one of the release's worlds (matchings x deals), with a
    record's fixed label kept; on its own (nothing fixed) it always finds one (the true world exists)."""
    from graphanon.privacy.joint_groups import grouped_world

    rng = np.random.default_rng(seed)
    release = grouped_release(data, rng)
    worlds = release_worlds(data, release)
    allowed, size, g, labels = _one_release_graph(data, release)
    confirmed = np.zeros_like(allowed)
    for _ in range(3):
        got = grouped_world(allowed, size, g, np.full(len(size), -1), confirmed, rng)
        assert got is not None and tuple(labels[c] for c in got) in worlds
        confirmed[np.arange(len(size)), got] = True
    pin = int(rng.integers(len(size)))
    fixed = np.full(len(size), -1)
    fixed[pin] = int(rng.choice(np.flatnonzero(allowed[pin])))
    got = grouped_world(allowed, size, g, fixed, confirmed, rng)
    if got is not None:
        assert got[pin] == fixed[pin] and tuple(labels[c] for c in got) in worlds


def test_grouped_world_finds_worlds_of_random_label_groups():
    """Regression: an ``nr`` l=3 release with groups drawn at random (the default). Assigning labels first and
    matching rows within the groups afterwards found no world at all (0 of 20 attempts on 300 people); matching
    first finds one every time, and the worlds found spread over more than one label per record."""
    from graphanon.privacy.joint_groups import grouped_world

    data = patients(120, seed=0)
    release = anonymize_nonreciprocal(data, k=3, l=3, rng=1)
    assert release.label_groups is not None
    allowed, size, g, _ = _one_release_graph(data, release)
    rng = np.random.default_rng(0)
    confirmed = np.zeros_like(allowed)
    for _ in range(5):
        got = grouped_world(allowed, size, g, np.full(len(size), -1), confirmed, rng)
        assert got is not None
        confirmed[np.arange(len(size)), got] = True
    assert confirmed.sum() > 1.5 * len(size) and (confirmed <= allowed).all()
