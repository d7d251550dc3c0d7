"""The joint audit of several releases of one dataset (graphanon.privacy.joint, `audit DATA R1 R2 ...`).

The joint adversary's candidate label sets are checked against brute force
on small data: every label assignment that every release can serve by a
perfect matching of its match graph, enumerated.
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
from graphanon.errors import DataMismatchError, ParameterError
from graphanon.privacy import (
    KmAnonymity,
    LDiversity,
    NonreciprocalKAnonymity,
    TransactionalKAnonymity,
)
from graphanon.privacy.joint import JointAudit, audit_joint, joint_label_sets
from graphanon.release import GlobalRecoding, NonreciprocalRelease
from graphanon.release.global_recoding import PublishedItem
from graphanon.release.publish import publish

from ..ebook_sessions import ebook_sessions

# ---------------------------------------------------------------------- brute force


def _matches(data, release) -> np.ndarray:
    """match[i, j]: record i lies in the possible worlds of row j (written from the definition)."""
    index = {x: c for c, x in enumerate(release.items)}
    base, dist = release.base.toarray(), release.distance.toarray()
    out = np.zeros((data.n_records, release.n_records), dtype=bool)
    for i in range(data.n_records):
        items = [data.items[j] for j in data.record_items(i)]
        if any(x not in index for x in items):
            continue
        x = np.zeros(len(release.items), dtype=bool)
        x[[index[v] for v in items]] = True
        for j in range(release.n_records):
            differ = x != base[j]
            out[i, j] = not (differ & ~dist[j]).any() and int(differ.sum()) <= int(release.threshold[j])
    return out


def _has_matching(match: np.ndarray, ok_row) -> bool:
    n = match.shape[0]
    return any(all(match[i, p[i]] and ok_row(i, p[i]) for i in range(n)) for p in itertools.permutations(range(n)))


def brute_label_sets(data, releases) -> list[set]:
    """Per record, the labels it takes in some joint world (one label per record, a perfect
    matching respecting it in every release)."""
    n = data.n_records
    matches = [_matches(data, r) for r in releases]
    out = [set() for _ in range(n)]
    for lam in set(itertools.permutations(releases[0].labels)):
        if all(_has_matching(m, lambda i, j, r=r, lam=lam: r.labels[j] == lam[i])
               for m, r in zip(matches, releases, strict=True)):
            for i in range(n):
                out[i].add(lam[i])
    return out


def brute_candidate_rows(data, release) -> np.ndarray:
    """Per record, the rows some perfect matching gives it (no labels: releases are independent)."""
    m = _matches(data, release)
    n = data.n_records
    used = np.zeros_like(m)
    for p in itertools.permutations(range(n)):
        if all(m[i, p[i]] for i in range(n)):
            used[np.arange(n), list(p)] = True
    return used.sum(axis=1)


# ---------------------------------------------------------------------- small labelled data and releases

ITEMS = ("a", "b", "c", "d")


@st.composite
def labelled_data(draw, min_records=2, max_records=5):
    n = draw(st.integers(min_records, max_records))
    records = [draw(st.sets(st.sampled_from(ITEMS), min_size=1, max_size=3)) for _ in range(n)]
    labels = [draw(st.sampled_from(["x", "y", "z"])) for _ in range(n)]
    return from_iterable([sorted(r) for r in records], labels=labels)


def random_release(data, rng) -> NonreciprocalRelease:
    """A genuine nonreciprocal release: each record's row has its own bitmap as base, a random
    distance set and threshold, its label; rows shuffled (the true world always exists)."""
    items = list(data.items)
    X = data.matrix.toarray().astype(bool)
    D = rng.random(X.shape) < 0.4
    thr = np.array([rng.integers(0, int(d.sum()) + 1) for d in D])
    perm = rng.permutation(data.n_records)
    return NonreciprocalRelease(items, X[perm], D[perm], thr[perm], [data.labels[i] for i in perm])


def made_release(data, how: str, seed: int):
    rng = np.random.default_rng(seed)
    if how == "random":
        return random_release(data, rng)
    if how == "groups":
        perm = rng.permutation(data.n_records)
        return group_release(data, np.array_split(perm, rng.integers(1, data.n_records + 1)), seed)
    if how == "cahd":
        return anonymize_cahd(data, l=2, unsafe_secret_seed=seed)
    return anonymize_nonreciprocal(data, k=2, order="identity", rng=seed % 3, unsafe_secret_seed=seed)


def _diverse_enough(data, level=2) -> bool:
    return len(set(data.labels)) >= level


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=labelled_data(),
    hows=st.lists(st.sampled_from(["random", "groups", "nr", "cahd"]), min_size=2, max_size=3),
    seed=st.integers(0, 10_000),
)
def test_joint_label_sets_equal_brute_force(data, hows, seed):
    releases = []
    for t, how in enumerate(hows):
        if how != "random" and (data.n_records < 2 or not _diverse_enough(data)):
            how = "random"
        try:
            releases.append(made_release(data, how, seed + t))
        except Exception as exc:  # an anonymizer refusing tiny data is not what is tested here
            if not isinstance(exc, (ParameterError,)) and "Infeasible" not in type(exc).__name__:
                raise
            releases.append(made_release(data, "random", seed + t))
    brute = brute_label_sets(data, releases)
    exact = joint_label_sets(data, releases, exact=True)
    assert exact.consistent and exact.exact
    assert [set(exact.record_labels(i)) for i in range(data.n_records)] == brute
    # the propagation alone only over-states what the adversary keeps, and always keeps the truth
    fast = joint_label_sets(data, releases, exact=False)
    for i in range(data.n_records):
        assert brute[i] <= set(fast.record_labels(i))
        assert data.labels[i] in brute[i]
    # the verdict counts exactly the records below l
    rep = JointAudit(LDiversity(2), exact=True).audit(data, releases, check_data=False)
    below = sum(len(s) < 2 for s in brute)
    assert rep.details["records_below_level"] == below
    assert rep.details["pinned_records"] == sum(len(s) == 1 for s in brute)
    if below:
        assert not rep.satisfied


@settings(max_examples=30, deadline=None)
@given(data=labelled_data(), seed=st.integers(0, 10_000))
def test_joint_candidate_rows_without_labels_equal_brute_force(data, seed):
    """Without labels nothing couples the releases: each release keeps its own viable rows."""
    bare = from_iterable([sorted(r) for r in data.records()])
    rng = np.random.default_rng(seed)
    releases = []
    for _ in range(2):
        r = random_release(data, rng)
        releases.append(NonreciprocalRelease(r.items, r.base, r.distance, r.threshold, None))
    sets = joint_label_sets(bare, releases, exact=True)
    for r, release in enumerate(releases):
        assert sets.candidates[r][sets.record_class].tolist() == brute_candidate_rows(bare, release).tolist()


def test_planted_pinning_is_found_and_the_intersection_check_alone_misses_it():
    """Record 0 matches rows of labels {x, y} in both releases, so intersecting the labels of the
    rows it matches keeps two labels; but in release 1 record 1 can only be row 1 (label y), so
    every perfect matching gives record 0 a row labelled x: it is pinned."""
    data = from_iterable([["a"], ["b"], ["c"]], labels=["x", "y", "x"])
    items = ["a", "b", "c"]
    full = [[1, 1, 1]] * 3
    # release 1: rows with labels x, y, x; record 1 (b) can only be row 1 (label y) -> a, c share x, x
    r1 = NonreciprocalRelease(items, [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[1, 0, 1], [1, 1, 0], [1, 0, 1]],
                              [2, 2, 2], ["x", "y", "x"])
    r2 = NonreciprocalRelease(items, [[1, 0, 0], [0, 1, 0], [0, 0, 1]], full, [2, 2, 2], ["x", "y", "x"])
    brute = brute_label_sets(data, [r1, r2])
    assert brute[0] == {"x"}
    # the plain intersection of match-label sets keeps y for record 0 (row 1 of r1 matches it)
    m = _matches(data, r1)
    assert m[0, 1] and r1.labels[1] == "y"
    rep = JointAudit(LDiversity(2), exact=False).audit(data, [r1, r2], check_data=False)
    assert rep.details["pinned_records"] == 3 and not rep.satisfied
    # release 1 fails alone too; with one example the worst case is still the pinned record
    rep = JointAudit(LDiversity(2), exact=False).audit(data, [r1, r2], check_data=False, max_examples=1)
    assert len(rep.counterexamples) == 1 and rep.counterexamples[0]["problem"].startswith("release 1 fails")
    failing_alone = sum(not r["satisfied"] for r in rep.details["per_release"])
    assert len(rep.worst["joint_candidate_labels"]) == 1 and failing_alone >= 1
    assert rep.violations == 3 + failing_alone


def group_release(data, groups, seed=0) -> NonreciprocalRelease:
    """A CAHD-like release: every record of a group matches every row of the group (base = the
    group's common items, distance = the rest of its items, full threshold); rows shuffled."""
    X = data.matrix.toarray().astype(bool)
    base, dist = np.zeros_like(X), np.zeros_like(X)
    thr = np.zeros(len(X), dtype=np.int64)
    for g in groups:
        common, spread = X[g].all(axis=0), X[g].any(axis=0) & ~X[g].all(axis=0)
        base[g], dist[g], thr[g] = common, spread, int(spread.sum())
    perm = np.random.default_rng(seed).permutation(len(X))
    return NonreciprocalRelease(list(data.items), base[perm], dist[perm], thr[perm], [data.labels[i] for i in perm])


def test_exact_search_removes_labels_the_propagation_keeps():
    """Group releases whose groups overlap: each group alone lets records 3 and 4 take y, but the
    two y labels must sit in {1, 2} (release 1) and in {0, 5} (release 3) at once, so 3 and 4 are x
    in every joint world. The propagation (one release at a time) cannot see it; the search does."""
    data = from_iterable([[f"i{j}"] for j in range(6)], labels=list("xxyxxy"))
    releases = [group_release(data, [[1, 2], [0, 3, 4, 5]]), group_release(data, [[1, 2, 3], [0, 4, 5]], 1),
                group_release(data, [[1, 2, 3, 4], [0, 5]], 2)]
    brute = brute_label_sets(data, releases)
    assert brute[3] == brute[4] == {"x"} and brute[0] == {"x", "y"}
    fast = joint_label_sets(data, releases, exact=False)
    assert fast.labels_per_record().tolist() == [2] * 6
    exact = joint_label_sets(data, releases, exact=True)
    assert [set(exact.record_labels(i)) for i in range(6)] == brute
    rep = JointAudit(LDiversity(2)).audit(data, releases, check_data=False)  # "auto": exact on 6 records
    assert rep.details["exact"] and rep.details["pinned_records"] == 2 and rep.details["records_below_level"] == 2
    failing_alone = sum(not r["satisfied"] for r in rep.details["per_release"])
    assert rep.violations == 2 + failing_alone
    assert not JointAudit(LDiversity(2), exact=False).audit(data, releases, check_data=False).details["exact"]


# ---------------------------------------------------------------------- the measured case


@pytest.fixture(scope="module")
def sessions():
    return ebook_sessions(1500, seed=3)


def test_two_unseeded_nr_l3_releases_pin_records(sessions):
    releases = [anonymize_nonreciprocal(sessions, k=3, l=3, l_method="flow") for _ in range(2)]
    for r in releases:
        assert LDiversity(3).audit(sessions, r).satisfied
    rep = audit_joint(LDiversity(3), sessions, releases)
    assert not rep.satisfied
    pinned = rep.details["pinned_records"]
    assert pinned > 0 and rep.details["records_below_level"] >= pinned
    assert rep.violations == rep.details["records_below_level"]
    ex = rep.counterexamples[0]
    assert len(ex["joint_candidate_labels"]) == 1
    # sound: no true label is ever ruled out; a pinned record is pinned to its own label
    sets = joint_label_sets(sessions, releases)
    for i in range(sessions.n_records):
        assert sessions.labels[i] in sets.record_labels(i)
    assert ex["joint_candidate_labels"] == [sessions.labels[ex["record"]]]
    # at least every record the intersection attack pins
    code = {x: c for c, x in enumerate(sets.labels)}
    from graphanon.privacy.match_graph import nonreciprocal_matches

    inter = np.ones((sessions.n_records, len(code)), dtype=bool)
    for r in releases:
        o, p, _ = nonreciprocal_matches(sessions, r)
        seen = np.zeros_like(inter)
        seen[o, [code[r.labels[j]] for j in p]] = True
        inter &= seen
    assert ((inter.sum(axis=1) == 1) <= (sets.labels_per_record() == 1)).all()


def test_k_only_nr_with_labels_is_coupled_by_its_labels(sessions):
    """k-only nr releases with labels: the labels couple the releases; without them each keeps k."""
    releases = [anonymize_nonreciprocal(sessions, k=3) for _ in range(2)]
    for r in releases:
        assert NonreciprocalKAnonymity(3).audit(sessions, r).satisfied
    rep = audit_joint(NonreciprocalKAnonymity(3), sessions, releases)
    assert rep.details["labels_couple_releases"] and not rep.satisfied
    assert rep.details["min_joint_candidate_rows"] < 3 and rep.details["records_below_level"] > 0
    # the same rows without their labels: nothing couples the releases, each keeps its k candidates
    bare = [NonreciprocalRelease(r.items, r.base, r.distance, r.threshold, None) for r in releases]
    rep = audit_joint(NonreciprocalKAnonymity(3), sessions, bare, check_data=False)
    assert rep.satisfied and not rep.details["labels_couple_releases"]
    assert rep.details["min_joint_candidate_rows"] >= 3


# ---------------------------------------------------------------------- global recodings

def _grid():
    return from_iterable([["a", "c"], ["b", "c"], ["a", "d"], ["b", "d"]] * 1)


def test_common_refinement_of_two_global_recodings():
    data = _grid()
    r1 = publish(data, GlobalRecoding.from_mapping(data, {"a": "ab", "b": "ab", "c": "c", "d": "d"}))
    r2 = publish(data, GlobalRecoding.from_mapping(data, {"a": "a", "b": "b", "c": "cd", "d": "cd"}))
    for model in (KmAnonymity(2, None), TransactionalKAnonymity(2)):
        assert model.audit(data, r1).satisfied and model.audit(data, r2).satisfied
        rep = audit_joint(model, data, [r1, r2])
        assert not rep.satisfied and rep.violations == 4 and rep.details["joint_published_items"] == 4
    # a coarser second release teaches nothing: the refinement is the first release
    r3 = publish(data, GlobalRecoding.from_mapping(data, {"a": "*", "b": "*", "c": "*", "d": "*"}))
    rep = audit_joint(KmAnonymity(2, None), data, [r1, r3])
    assert rep.satisfied and rep.details["joint_published_items"] == 3


def test_release_failing_alone_fails_jointly():
    """A forged release (one record's row emptied) fails alone; the joint audit, which builds the
    refinement from the mappings, must still fail it."""
    data = _grid()
    coarse = publish(data, GlobalRecoding.from_mapping(data, {x: "*" for x in data.items}))
    forged = GlobalRecoding(published_items=[PublishedItem("*", tuple(data.items), 4)],
                            records=np.array([[1], [1], [1], [0]], dtype=bool), universe=4)
    assert audit_joint(KmAnonymity(2, None), data, [coarse, coarse]).satisfied
    rep = audit_joint(KmAnonymity(2, None), data, [coarse, forged])
    assert not rep.satisfied
    assert rep.details["per_release"][1]["satisfied"] is False
    assert any("release 2 fails" in str(ex.get("problem", "")) for ex in rep.counterexamples)


def _brute_joint_km(data, mappings, k, m) -> bool:
    """k^m of the common refinement by enumeration: every itemset of <= m joint items has support 0 or >= k."""
    joint_sets = []
    for i in range(data.n_records):
        items = {tuple(mp[data.items[j]] for mp in mappings) for j in data.record_items(i)}
        joint_sets.append({t for t in items if any(v is not None for v in t)})
    universe = sorted(set().union(*joint_sets), key=str)
    for size in range(1, (m or len(universe)) + 1):
        for combo in itertools.combinations(universe, size):
            support = sum(set(combo) <= rec for rec in joint_sets)
            if 0 < support < k:
                return False
    return True


@settings(max_examples=60, deadline=None)
@given(data=labelled_data(min_records=3, max_records=6), seed=st.integers(0, 10_000),
       k=st.integers(2, 3), m=st.sampled_from([1, 2, None]), n_releases=st.integers(2, 3))
def test_joint_km_equals_brute_force(data, seed, k, m, n_releases):
    """Random global recodings (random partitions of the items, random suppression): the joint k^m
    verdict is the brute-force verdict on the common refinement."""
    rng = np.random.default_rng(seed)
    mappings = []
    for _ in range(n_releases):
        groups = rng.integers(0, 3, size=data.n_items)
        mp = {x: (None if rng.random() < 0.15 else f"g{groups[j]}") for j, x in enumerate(data.items)}
        mappings.append(mp)
    releases = [publish(data, GlobalRecoding.from_mapping(data, mp)) for mp in mappings]
    if k > data.n_records:
        return
    rep = audit_joint(KmAnonymity(k, m), data, releases)
    alone = [KmAnonymity(k, m).audit(data, r).satisfied for r in releases]
    assert rep.satisfied == (_brute_joint_km(data, mappings, k, m) and all(alone))
    assert rep.details["per_release"] == [
        {"release": i + 1, "satisfied": ok, "violations": rep.details["per_release"][i]["violations"]}
        for i, ok in enumerate(alone)
    ]


# ---------------------------------------------------------------------- refusals and data checks


def test_refusals_and_mismatch():
    table = load("nr_table1")
    r1 = anonymize_cahd(table, l=2)
    with pytest.raises(ParameterError, match="covers nonreciprocal releases"):
        audit_joint(KmAnonymity(2, None), table, [r1, r1])
    other = from_iterable([["a"], ["b"], ["a"], ["b"], ["a"], ["b"]], labels=list("xyxyxy"))
    r_other = anonymize_cahd(other, l=2)
    with pytest.raises(DataMismatchError, match="release 2"):
        audit_joint(LDiversity(2), table, [r1, r_other])
    with pytest.raises(ParameterError, match="needs at least one release"):
        audit_joint(LDiversity(2), table, [])
    # one release: the model's own report
    assert audit_joint(LDiversity(2), table, [r1]).model == LDiversity(2).name


# ---------------------------------------------------------------------- command line


def _one_line(res) -> str:
    assert res.exit_code == 2, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("graphanon: error: "), res.output
    return lines[0]


def test_cli_several_releases(run):
    # the paper's deterministic scan: two releases of the same data publish the same groups (cahd's default draws
    # them anew each run, and the joint audit then counts the records the two draws pin: docs/attacks.md (j))
    for name in ("r1", "r2"):
        assert run("anonymize", "nr_table1", "-a", "cahd", "--param", "l=2", "--param", "grouping=order",
                   "-o", f"{name}.json").exit_code == 0
    res = run("audit", "nr_table1", "r1.json", "r2.json", "--model", "ldiversity", "--param", "l=2", "--json")
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["satisfied"] and rep["details"]["releases"] == 2 and rep["details"]["pinned_records"] == 0
    single = run("audit", "nr_table1", "r1.json", "--model", "ldiversity", "--param", "l=2", "--json")
    assert json.loads(single.output)["model"] == "nonreciprocal l-diversity (l=2)"


def test_cli_mismatch_and_unsupported(run):
    assert run("anonymize", "nr_table1", "-a", "cahd", "--param", "l=2", "-o", "r1.json",
               "--link-out", "l1.json").exit_code == 0
    assert run("anonymize", "liuwang_fig1", "-a", "cut", "--param", "level=1", "-o", "g.json",
               "--link-out", "lg.json").exit_code == 0
    # the keyed fingerprints are verified with each release's private link
    line = _one_line(run("audit", "nr_table1", "r1.json", "g.json", "--model", "ldiversity", "--param", "l=2",
                         "--link", "l1.json", "--link", "lg.json"))
    assert "g.json" in line and "not made from this data" in line
    line = _one_line(run("audit", "nr_table1", "r1.json", "g.json", "--model", "ldiversity", "--param", "l=2",
                         "--link", "l1.json"))
    assert "one --link per RELEASE" in line
    line = _one_line(run("audit", "liuwang_fig1", "g.json", "g.json", "--model", "hkp", "-k", "2"))
    assert "joint audit" in line and "km and transactional" in line
    line = _one_line(run("audit", "nr_table1", "r1.json", "r1.json", "--model", "km", "-k", "2"))
    assert "nonreciprocal" in line
    line = _one_line(run("audit", "liuwang_fig1", "g.json", "g.json", "--model", "km", "-k", "2",
                         "--scheduler", "local:1"))
    assert "--scheduler" in line
    assert run("anonymize", "liuwang_fig1", "-a", "clump", "-k", "2", "-o", "c.json").exit_code == 0
    line = _one_line(run("audit", "liuwang_fig1", "c.json", "c.json", "--model", "transactional", "-k", "2"))
    assert "local_recoding" in line and "covers nonreciprocal releases" in line
