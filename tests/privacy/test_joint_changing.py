"""The joint audit over releases of changing data, and its exact step on CP-SAT.

Releases made from overlapping datasets (records added, removed, sampled),
each identified by its private link's record ids: the joint candidate label
sets are checked against brute force on small data (every label assignment
of the union that each release serves by a perfect matching of its own
records), with both exact solvers; planted cases pin a removed record and an
added one.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
from graphanon.data import from_iterable
from graphanon.errors import DataMismatchError, ParameterError
from graphanon.privacy import KmAnonymity, LDiversity, NonreciprocalKAnonymity
from graphanon.privacy.joint import JointAudit, joint_label_sets
from graphanon.release import NonreciprocalRelease, ReleaseLink
from graphanon.release.private_link import release_members

from .test_joint import _matches, group_release, labelled_data, random_release


def _perfect(match: np.ndarray, ok) -> bool:
    n = match.shape[0]
    return any(all(match[i, p[i]] and ok(i, p[i]) for i in range(n)) for p in itertools.permutations(range(n)))


def brute_changing(data, releases, members) -> tuple[list[set], list[np.ndarray]]:
    """Per record of the union, the labels it takes in some joint world, and per release the rows each of
    its records gets in some joint world (written from the definition, by enumeration)."""
    n = data.n_records
    subs = [data.subset(m) for m in members]
    matches = [_matches(s, r) for s, r in zip(subs, releases, strict=True)]
    values = sorted(set(data.labels))
    labels = [set() for _ in range(n)]
    rows = [np.zeros((len(m), r.n_records), dtype=bool) for m, r in zip(members, releases, strict=True)]
    for lam in itertools.product(values, repeat=n):
        worlds = []
        for m, match, r in zip(members, matches, releases, strict=True):
            perms = [p for p in itertools.permutations(range(len(m)))
                     if all(match[i, p[i]] and r.labels[p[i]] == lam[m[i]] for i in range(len(m)))]
            if not perms:
                break
            worlds.append(perms)
        else:
            for i in range(n):
                labels[i].add(lam[i])
            for r, perms in enumerate(worlds):
                for p in perms:
                    rows[r][np.arange(len(p)), list(p)] = True
    return labels, [x.sum(axis=1) for x in rows]


@st.composite
def changing(draw):
    """Labelled data (the union) and 2-3 overlapping record subsets of at least 2 records each."""
    data = draw(labelled_data(min_records=3, max_records=5))
    n = data.n_records
    subsets = draw(st.lists(st.lists(st.sampled_from(range(n)), min_size=2, max_size=n, unique=True),
                            min_size=2, max_size=3))
    return data, [np.array(sorted(s)) for s in subsets]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=changing(), seed=st.integers(0, 10_000), grouped=st.booleans())
def test_changing_data_equals_brute_force(case, seed, grouped):
    data, members = case
    rng = np.random.default_rng(seed)
    releases = []
    for m in members:
        sub = data.subset(m)
        if grouped:
            perm = rng.permutation(len(m))
            releases.append(group_release(sub, np.array_split(perm, rng.integers(1, len(m) + 1)), seed))
        else:
            releases.append(random_release(sub, rng))
    brute, brute_rows = brute_changing(data, releases, members)
    in_some = np.zeros(data.n_records, dtype=bool)
    in_some[np.concatenate(members)] = True
    for solver in ("cp-sat", "search"):
        exact = joint_label_sets(data, releases, exact=True, members=members, solver=solver)
        assert exact.consistent
        got = [set(exact.record_labels(i)) for i in range(data.n_records)]
        assert [g for g, s in zip(got, in_some, strict=True) if s] == [b for b, s in zip(brute, in_some, strict=True)
                                                                        if s]
        for r, m in enumerate(members):  # joint candidate rows: counted from the label sets, an upper bound
            assert (exact.candidates[r][exact.record_class[m]] >= brute_rows[r]).all()
    fast = joint_label_sets(data, releases, exact=False, members=members)
    for i in np.flatnonzero(in_some):
        assert brute[i] <= set(fast.record_labels(i)) and data.labels[i] in brute[i]
    # the audit: records below l are counted exactly over the union of the releases' records
    ids = list(data.record_ids)
    links = [ReleaseLink(np.arange(len(m)), record_ids=[ids[i] for i in m]) for m in members]
    rep = JointAudit(LDiversity(2), exact=True).audit(data, releases, links=links, check_data=False)
    assert rep.details["records"] == int(in_some.sum())
    assert rep.details["records_below_level"] == sum(len(brute[i]) < 2 for i in np.flatnonzero(in_some))
    assert rep.details["pinned_records"] == sum(len(brute[i]) == 1 for i in np.flatnonzero(in_some))


def _people():
    return from_iterable([["a"], ["b"], ["c"], ["d"]], labels=list("xyyx"), record_ids=["p0", "p1", "p2", "p3"])


def _release(data, ids):
    return anonymize_cahd(data.subset([list(data.record_ids).index(i) for i in ids]).drop_unused_items(), l=2,
                          unsafe_secret_seed=0)


def test_a_removed_record_is_pinned_by_the_labels_left():
    """R1 holds p0 (x), p1 (y), p2 (y) in one group; R2, after p2 left, p0 and p1. Every record has
    rows of two labels in each release, but R1's labels less R2's are p2's: p2 is pinned to y."""
    data = _people()
    items = ["a", "b", "c"]
    r1 = NonreciprocalRelease(items, [[0, 0, 0]] * 3, [[1, 1, 1]] * 3, [1, 1, 1], ["x", "y", "y"])
    r2 = NonreciprocalRelease(items[:2], [[0, 0]] * 2, [[1, 1]] * 2, [1, 1], ["y", "x"])
    links = [ReleaseLink([0, 1, 2], record_ids=["p0", "p1", "p2"]), ReleaseLink([1, 0], record_ids=["p0", "p1"])]
    rep = JointAudit(LDiversity(2), exact=True).audit(data, [r1, r2], links=links, check_data=False)
    assert not rep.satisfied and rep.details["pinned_records"] == 1 and rep.details["records"] == 3
    assert rep.worst["record"] == 2 and rep.worst["joint_candidate_labels"] == ["y"]
    # the propagation on classes of alike records (p0, p1 share one) cannot see it: a superset, said so
    rep = JointAudit(LDiversity(2), exact=False).audit(data, [r1, r2], links=links, check_data=False)
    assert rep.details["pinned_records"] == 0 and not rep.details["exact"]


def test_an_added_record_is_pinned_and_rows_count_too():
    """R1: p0 (x), p1 (y) in one group; R2 adds p3 (x) and p0 moves to a group with p3 whose rows
    are x, x: p0 is x in R2, so p1 is y in R1 -- all three pinned although R1 alone is 2-diverse. The
    labels couple the rows too (the k model)."""
    data = _people()
    items = ["a", "b", "d"]
    r1 = NonreciprocalRelease(items[:2], [[0, 0]] * 2, [[1, 1]] * 2, [1, 1], ["x", "y"])
    r2 = NonreciprocalRelease(items, [[0, 0, 0]] * 2 + [[0, 1, 0]], [[1, 0, 1]] * 2 + [[0, 0, 0]], [1, 1, 0],
                              ["x", "x", "y"])
    links = [ReleaseLink([0, 1], record_ids=["p0", "p1"]), ReleaseLink([0, 2, 1], record_ids=["p0", "p1", "p3"])]
    rep = JointAudit(LDiversity(2)).audit(data, [r1, r2], links=links, check_data=False)
    assert rep.details["pinned_records"] == 3 and rep.details["records_in_every_release"] == 2
    rep = JointAudit(NonreciprocalKAnonymity(2)).audit(data, [r1, r2], links=links, check_data=False)
    # p1 has one row in R2 (row 2, the only one it matches), so it is y, so in R1 it takes the y row and
    # p0 the x row: both have one joint candidate row; p3 keeps two (rows 0, 1 of R2)
    assert rep.details["records_below_level"] == 2 and rep.details["min_joint_candidate_rows"] == 1


def test_made_releases_are_checked_against_their_records():
    data = from_iterable([["a", "b"], ["a"], ["b", "c"], ["c"], ["a", "c"], ["b"], ["a", "b"], ["c", "d"]],
                         labels=list("xyxyxyxy"), record_ids=[f"p{i}" for i in range(8)])
    first = _release(data, [f"p{i}" for i in range(6)])
    second = _release(data, [f"p{i}" for i in range(2, 8)])
    rep = JointAudit(LDiversity(2)).audit(data, [first, second], links=[first.link, second.link])
    # each release is audited alone on its own records (item "d" of p7 is not in the first's data)
    assert [r["satisfied"] for r in rep.details["per_release"]] == [True, True]
    assert rep.details["records"] == 8 and rep.details["records_in_every_release"] == 4 and rep.details["exact"]
    # a link naming a record the data lacks, and a release whose records changed, are refused
    with pytest.raises(DataMismatchError, match="release 2: not made from this data: record 'p7'"):
        JointAudit(LDiversity(2)).audit(data.subset(range(7)), [first, second], links=[first.link, second.link])
    changed = from_iterable([["a", "b"], ["a"], ["b", "c"], ["c"], ["a", "c"], ["b"], ["a", "b"], ["a"]],
                            labels=list("xyxyxyxy"), record_ids=[f"p{i}" for i in range(8)])
    with pytest.raises(DataMismatchError, match="release 2"):
        JointAudit(LDiversity(2)).audit(changed, [first, second], links=[first.link, second.link])
    with pytest.raises(ParameterError, match="one private link per release"):
        JointAudit(LDiversity(2)).audit(data, [first, second], links=[first.link])
    with pytest.raises(ParameterError, match="nonreciprocal"):
        JointAudit(KmAnonymity(2, 2)).audit(data, [first, second], links=[first.link, second.link])
    with pytest.raises(DataMismatchError, match="release 1: not made from this data: record 'p0'"):
        release_members(data.subset(range(1, 8)), first.link, what="release 1")


def test_cpsat_and_search_agree_on_the_planted_overlap():
    """Overlapping group releases of one dataset (test_joint): the propagation keeps labels no joint
    world gives; both exact solvers remove them."""
    data = from_iterable([[f"i{j}"] for j in range(6)], labels=list("xxyxxy"))
    releases = [group_release(data, [[1, 2], [0, 3, 4, 5]]), group_release(data, [[1, 2, 3], [0, 4, 5]], 1),
                group_release(data, [[1, 2, 3, 4], [0, 5]], 2)]
    want = [{"x", "y"}, {"x", "y"}, {"x", "y"}, {"x"}, {"x"}, {"x", "y"}]
    for solver in ("cp-sat", "search"):
        sets = joint_label_sets(data, releases, exact=True, solver=solver)
        assert [set(sets.record_labels(i)) for i in range(6)] == want
    with pytest.raises(ParameterError, match="solver"):
        joint_label_sets(data, releases, exact=True, solver="milp")


# ---------------------------------------------------------------------- command line


def _write(path, rows):
    path.write_text("tid,item,label\n" + "".join(f"{rid},{item},{lab}\n" for rid, items, lab in rows for item in items))


def test_cli_audit_of_changing_data(run, tmp_path):
    people = [(f"p{i}", items, lab) for i, (items, lab) in enumerate(
        [(["a", "b"], "x"), (["a"], "y"), (["b", "c"], "x"), (["c"], "y"), (["a", "c"], "x"), (["b"], "y"),
         (["a", "b"], "x"), (["c"], "y")])]
    _write(tmp_path / "d1.csv", people[:6])
    _write(tmp_path / "d2.csv", people[2:])
    _write(tmp_path / "all.csv", people)
    opts = ["--label", "label"]
    for name in ("d1", "d2"):
        res = run("anonymize", f"{name}.csv", *opts, "-a", "cahd", "--param", "l=2", "-o", f"{name}.json",
                  "--link-out", f"{name}-link.json")
        assert res.exit_code == 0, res.output
    base = ["audit", "all.csv", *opts, "d1.json", "d2.json", "--model", "ldiversity", "--param", "l=2"]
    res = run(*base, "--link", "d1-link.json", "--link", "d2-link.json", "--json")
    assert res.exit_code in (0, 1), res.output
    rep = json.loads(res.output)
    assert rep["details"]["records"] == 8 and rep["details"]["records_in_every_release"] == 4
    line = _lines(run(*base))
    assert "not made from this data" in line
    line = _lines(run(*base, "--link", "d1-link.json"))
    assert "one private link per RELEASE" in line
    line = _lines(run(*base, "--link", "d2-link.json", "--link", "d1-link.json"))
    assert "d2-link.json" in line and "not made with this release" in line


def _lines(res) -> str:
    assert res.exit_code == 2, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("graphanon: error: "), res.output
    return lines[0]
