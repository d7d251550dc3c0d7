"""Audit bugs the rest of the suite once let through (issue 20, item 7).

Each test here fails with one planted bug and passes without it; the bug is
named in the test's docstring and planted by ``tools/mutation.py`` (the
``named`` mutants), which records that the test kills it:

* ``KmAnonymity`` with bounded ``m`` judging only the itemset search and not
  the recoding check (``privacy/km.py``);
* the nonreciprocal candidate matcher accepting a record whose item lies
  outside the row when its 64-bit signature bit collides with an item of the
  row (``privacy/_match_candidates.py``);
* the "some"-reading coverage check of local recodings deleted
  (``privacy/local.py``), with and without the private link;
* the HKP audit reading a generalized item of private and public members as
  public (``privacy/hkp.py``);
* the data fingerprint skipping the last record's items
  (``release/fingerprint.py``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.data import from_iterable
from graphanon.privacy import (
    HKPCoherence,
    KmAnonymity,
    NonreciprocalKAnonymity,
    TransactionalKAnonymity,
)
from graphanon.privacy.match_graph import nonreciprocal_matches
from graphanon.release import GlobalRecoding, LocalRecoding, NonreciprocalRelease
from graphanon.release.fingerprint import data_fingerprint
from graphanon.release.link import ReleaseLink
from graphanon.release.local_recoding import PublishedNode

# ----------------------------------------------------------------------------- k^m, bounded m


def _forged_global(data, mapping, moved: dict[int, int]) -> GlobalRecoding:
    """The recoding of ``data`` with published row ``i`` replaced by row ``moved[i]``."""
    honest = GlobalRecoding.from_mapping(data, mapping)
    rows = np.arange(data.n_records)
    for i, j in moved.items():
        rows[i] = j
    return GlobalRecoding(published_items=honest.published_items, records=honest.records[rows],
                          universe=honest.universe)


@pytest.mark.parametrize("m", [1, 2])
def test_km_bounded_m_rejects_forged_rows(m):
    """Planted bug: ``satisfied=(n_viol == 0)`` in the bounded-m branch of KmAnonymity.

    Four records {a, b} and four {c, d, e}; the forgery publishes two of the
    {a, b} records as {c, d, e}. Every published itemset of at most m items then
    has support 2 or 6 (k^m-anonymous for k = 2), but two rows are no record's
    recoding: the audit must say so in its verdict, not only in its details.
    """
    data = from_iterable([["a", "b"]] * 4 + [["c", "d", "e"]] * 4)
    identity = {x: x for x in data.items}
    honest = GlobalRecoding.from_mapping(data, identity)
    assert KmAnonymity(2, m).audit(data, honest).satisfied
    forged = _forged_global(data, identity, {0: 4, 1: 4})
    report = KmAnonymity(2, m).audit(data, forged)
    assert report.details["recoding_mismatches"] == 2
    assert sum(report.details["violations_by_size"].values()) == 0
    assert report.satisfied is False
    assert report.violations == 2


def test_km_unbounded_rejects_forged_rows():
    """The same forgery audited with m = None (the containment branch) is rejected too."""
    data = from_iterable([["a", "b"]] * 4 + [["c", "d", "e"]] * 4)
    identity = {x: x for x in data.items}
    report = KmAnonymity(2, None).audit(data, _forged_global(data, identity, {0: 4, 1: 4}))
    assert (report.satisfied, report.violations, report.details["recoding_mismatches"]) == (False, 2, 2)


# ----------------------------------------------------------------------------- nonreciprocal matcher

N_ITEMS = 100
ITEMS = [f"i{j:03d}" for j in range(N_ITEMS)]


def _signature_bit(j: int) -> int:
    """The candidate index's hashed bit of item column ``j`` (Fibonacci hashing, as documented)."""
    return ((j * 0x9E3779B97F4A7C15) % 2**64) >> 58


def _colliding_pairs() -> list[tuple[int, int]]:
    by_bit: dict[int, list[int]] = {}
    for j in range(N_ITEMS):
        by_bit.setdefault(_signature_bit(j), []).append(j)
    return [(v[0], v[1]) for v in by_bit.values() if len(v) > 1]


PAIRS = _colliding_pairs()
POOL = sorted({j for pair in PAIRS[:4] for j in pair})  # 8 items, in 4 pairs that share a bit


def test_colliding_pairs_exist():
    """The pool really holds items whose signature bits collide (else the tests below prove nothing)."""
    assert len(PAIRS) >= 4
    for a, b in PAIRS[:4]:
        assert _signature_bit(a) == _signature_bit(b)


def _brute_matches(records: list[set], base: list[set], distance: list[set], threshold: list[int]) -> set:
    """(record, row) pairs with the record among the row's possible worlds, by enumeration:
    a world is the base with at most ``threshold`` of the distance positions flipped."""
    found = set()
    for j, (b, d, t) in enumerate(zip(base, distance, threshold, strict=True)):
        worlds = set()
        for size in range(t + 1):
            for flips in itertools.combinations(sorted(d), size):
                worlds.add(frozenset(b ^ set(flips)))
        for i, r in enumerate(records):
            if frozenset(r) in worlds:
                found.add((i, j))
    return found


def _nr_release(base, distance, threshold) -> NonreciprocalRelease:
    n = len(threshold)
    B = np.zeros((n, N_ITEMS), dtype=bool)
    D = np.zeros((n, N_ITEMS), dtype=bool)
    for j in range(n):
        B[j, sorted(base[j])] = True
        D[j, sorted(distance[j])] = True
    return NonreciprocalRelease(ITEMS, B, D, threshold)


def _data(records) -> object:
    return from_iterable([[ITEMS[j] for j in sorted(r)] for r in records], items=ITEMS)


def test_colliding_signature_bit_is_no_match():
    """Planted bug: ``return False`` -> ``continue`` for an item outside the row in ``_check``.

    A 100-item vocabulary; items ``a`` and ``x`` share a signature bit. Two
    records {a, x}, two rows with base {a} and nothing to flip: the rows'
    only world is {a}, so no record matches any row and the release is not
    2-anonymous (the bug would see two matches per record and pass it).
    """
    a, x = PAIRS[0]
    data = _data([{a, x}, {a, x}])
    release = _nr_release([{a}, {a}], [set(), set()], [0, 0])
    orig, pub, unknown = nonreciprocal_matches(data, release)
    assert len(orig) == 0 and not unknown.any()
    report = NonreciprocalKAnonymity(2).audit(data, release)
    assert report.satisfied is False
    # the honest release of the same data (base {a, x}) is 2-anonymous
    honest = _nr_release([{a, x}, {a, x}], [set(), set()], [0, 0])
    assert NonreciprocalKAnonymity(2).audit(data, honest).satisfied


@st.composite
def _match_case(draw):
    subset = st.sets(st.sampled_from(POOL), max_size=5)
    records = draw(st.lists(subset, min_size=1, max_size=6))
    n_rows = draw(st.integers(1, 6))
    base = [draw(subset) for _ in range(n_rows)]
    distance = [draw(subset) for _ in range(n_rows)]
    threshold = [draw(st.integers(0, len(d))) for d in distance]
    return records, base, distance, threshold


@settings(max_examples=150, deadline=None)
@given(_match_case())
def test_matches_equal_brute_force_with_colliding_bits(case):
    """Every (record, row) match of the audit's matcher is a possible-world match and vice versa,
    over 100-item vocabularies whose records and rows use items that share signature bits."""
    records, base, distance, threshold = case
    orig, pub, unknown = nonreciprocal_matches(_data(records), _nr_release(base, distance, threshold))
    assert not unknown.any()
    got = set(zip(orig.tolist(), pub.tolist(), strict=True))
    assert got == _brute_matches(records, base, distance, threshold)


# ----------------------------------------------------------------------------- local recodings, "some"

NODES = [PublishedNode("A", ("a1", "a2"), 2), PublishedNode("B", ("b1", "b2"), 2)]


def _local(rows, link_rows=None) -> LocalRecoding:
    rel = LocalRecoding(nodes=NODES, records=rows, universe=4, reading="some")
    if link_rows is not None:
        rel.link = ReleaseLink(link_rows)
    return rel


# records 0, 1 hold a1 and b1; records 2, 3 hold a1 only
LOCAL_DATA = [["a1", "b1"], ["a1", "b1"], ["a1"], ["a1"]]


@pytest.mark.parametrize("with_link", [True, False])
def test_local_some_reading_needs_every_item_covered(with_link):
    """Planted bug: the "some"-reading coverage check deleted (``privacy/local.py``).

    Published {A} stands for a record whose items all lie under A. Records
    {a1, b1} published as {A} lose b1 (no node of the row covers it), so the
    forgery below, four rows {A} (4-anonymous by shape), is no recoding of the
    data; the honest release ({A, B} twice, {A} twice) is.
    """
    data = from_iterable(LOCAL_DATA, items=["a1", "a2", "b1", "b2"])
    link = [0, 1, 2, 3] if with_link else None
    honest = _local([[1, 1], [1, 1], [1, 0], [1, 0]], link)
    assert TransactionalKAnonymity(2).audit(data, honest).satisfied
    forged = _local([[1, 0]] * 4, link)
    report = TransactionalKAnonymity(4).audit(data, forged)
    assert report.satisfied is False
    assert report.details["recoding_mismatches"] >= 2
    if with_link:  # rows 0 and 1 are linked to the records they cannot stand for
        assert report.details["recoding_mismatches"] == 2
    assert KmAnonymity(2, 1).audit(data, forged).satisfied is False


def test_local_some_reading_link_checks_each_row_against_its_record():
    """With the link, a row must fit *its* record: the honest rows under a swapped link fail."""
    data = from_iterable(LOCAL_DATA, items=["a1", "a2", "b1", "b2"])
    swapped = _local([[1, 1], [1, 1], [1, 0], [1, 0]], [2, 3, 0, 1])
    report = TransactionalKAnonymity(2).audit(data, swapped)
    assert report.satisfied is False
    # rows 0, 1 ({A, B}) stand for records {a1} (nothing under B); rows 2, 3 ({A}) for {a1, b1} (b1 uncovered)
    assert report.details["recoding_mismatches"] == 4


# ----------------------------------------------------------------------------- HKP, mixed generalized items


def _mixed_release():
    """``s`` private, ``a`` public, both published as one item "(a,s)" (it stands for a private item)."""
    data = from_iterable([["a", "s", "b"], ["b"], ["b"]])
    return data, GlobalRecoding.from_mapping(data, {"a": "(a,s)", "s": "(a,s)", "b": "b"})


def test_hkp_mixed_generalized_item_is_private():
    """Planted bug: ``any`` -> ``all`` when deciding whether a published item is private (``privacy/hkp.py``).

    "(a,s)" has support 1 < k = 2. Read as private (it may stand for s), it is
    no public itemset, so with h = 1 the release is (1, 2, 1)-coherent; read
    as public it would be a support violation.
    """
    data, rel = _mixed_release()
    report = HKPCoherence(1.0, 2, 1, ["s"]).audit(data, rel)
    assert (report.satisfied, report.details["support_violations"]) == (True, 0)


def test_hkp_mixed_generalized_item_is_inferred_with_confidence():
    """With h = 0.3 the public itemset {b} (support 3) infers the private "(a,s)" with confidence 1/3:
    exactly one confidence violation and no support violation."""
    data, rel = _mixed_release()
    report = HKPCoherence(0.3, 2, 1, ["s"]).audit(data, rel)
    assert report.details["support_violations"] == 0
    assert report.details["confidence_violations"] == 1
    assert report.satisfied is False
    assert report.worst["itemset"] == ["b"] and report.worst["confidence"] == pytest.approx(1 / 3)
    # h = 0.34 > 1/3: nothing left
    assert HKPCoherence(0.34, 2, 1, ["s"]).audit(data, rel).satisfied


# ----------------------------------------------------------------------------- fingerprint


FP_RECORDS = [["a", "b"], ["b", "c"], ["a", "c", "d"], ["d"]]
FP_ITEMS = ["a", "b", "c", "d"]


def _single_record_changes(records, items):
    """Every record with one item added, removed or replaced (the vocabulary unchanged)."""
    for i, rec in enumerate(records):
        for x in items:
            if x not in rec:
                yield f"add {x} to record {i}", i, sorted([*rec, x])
        for x in rec:
            yield f"remove {x} from record {i}", i, [y for y in rec if y != x]
            for y in items:
                if y not in rec:
                    yield f"replace {x} by {y} in record {i}", i, sorted([*(z for z in rec if z != x), y])


def test_fingerprint_breaks_on_every_single_record_change():
    """Planted bug: the digest skipping the last (canonical) record's items (``release/fingerprint.py``).

    On a small dataset, every one-record change (each record: add, remove or
    replace one item) gives another digest, and so does every change in the
    shuffled copy; the shuffled copy itself gives the same digest.
    """
    data = from_iterable(FP_RECORDS, items=FP_ITEMS)
    digest = data_fingerprint(data, key="5a" * 16)["digest"]
    shuffled = from_iterable(FP_RECORDS[::-1], items=FP_ITEMS)
    assert data_fingerprint(shuffled, key="5a" * 16)["digest"] == digest
    n_changes = 0
    for what, i, new in _single_record_changes(FP_RECORDS, FP_ITEMS):
        for order in (FP_RECORDS, FP_RECORDS[::-1]):
            changed = [list(r) for r in order]
            changed[order.index(FP_RECORDS[i])] = new
            other = data_fingerprint(from_iterable(changed, items=FP_ITEMS), key="5a" * 16)["digest"]
            assert other != digest, what
        n_changes += 1
    assert n_changes == sum(len(FP_ITEMS) - len(r) + len(r) + len(r) * (len(FP_ITEMS) - len(r)) for r in FP_RECORDS)


# ----------------------------------------------------------------------------- gaps found by the mutation run
# (benchmarks/mutation.py: generated mutants that survived the suite; each test names the one it kills)


@settings(max_examples=60, deadline=None)
@given(_match_case())
def test_match_blocks_and_release_matcher_equal_brute_force(case):
    """The audit's matcher in the smallest edge blocks (its capacity guard ``ne + n_a > cap`` in
    use), and the release's own matcher (``match_counts``, which marks records holding unknown items),
    both equal the possible-world enumeration."""
    from graphanon.privacy.match_graph import expand_edges, match_classes

    records, base, distance, threshold = case
    data, release = _data(records), _nr_release(base, distance, threshold)
    brute = _brute_matches(records, base, distance, threshold)
    orig, pub = expand_edges(match_classes(data, release, block_edges=1), max_edges=10**6)
    assert set(zip(orig.tolist(), pub.tolist(), strict=True)) == brute
    if len(records) == len(threshold):
        expected = np.bincount([i for i, _ in brute], minlength=len(records))
        assert release.match_counts(data).tolist() == expected.tolist()


def test_match_blocks_overflow_guard():
    """256 record classes (every subset of 8 items) and 256 row classes (base: each subset;
    distance: all 8 items, threshold 8), so every record matches every row: 65,536 edges, far more
    than one block of ``classes + 1`` when one-edge blocks are asked for."""
    from graphanon.privacy.match_graph import expand_edges, match_classes

    subsets = [{POOL[j] for j in range(8) if mask >> j & 1} for mask in range(256)]
    data = _data(subsets)
    release = _nr_release(subsets, [set(POOL)] * 256, [8] * 256)
    for block_edges in (1, 4_000_000):
        orig, pub = expand_edges(match_classes(data, release, block_edges=block_edges), max_edges=10**6)
        assert len(orig) == 256 * 256
        assert len(set(zip(orig.tolist(), pub.tolist(), strict=True))) == 256 * 256


def test_release_matcher_counts_an_honest_release():
    """Rows whose bases are the records themselves: each record matches its own row and every
    row it lies within (the release's own matcher against the possible-world enumeration)."""
    a, x = PAIRS[0]
    b, y = PAIRS[1]
    records = [{a, x}, {a}, {b, y}, {a, b}]
    base, distance, threshold = records, [{x}, {x}, {y}, set()], [1, 1, 1, 0]
    release = _nr_release(base, distance, threshold)
    expected = np.bincount([i for i, _ in _brute_matches(records, base, distance, threshold)], minlength=4)
    assert expected.tolist() == [2, 2, 1, 1]
    assert release.match_counts(_data(records)).tolist() == expected.tolist()


def test_km_mismatch_examples_count_the_right_records():
    """The recoding check's examples: 3 records {a, b} but 1 published row of them; 5 records
    {c, d, e} but 7 rows (two forged)."""
    data = from_iterable([["a", "b"]] * 3 + [["c", "d", "e"]] * 5)
    identity = {x: x for x in data.items}
    report = KmAnonymity(1, 1).audit(data, _forged_global(data, identity, {0: 3, 1: 3}))
    fewer, more = report.counterexamples[:2]
    assert fewer["problem"].startswith("fewer") and more["problem"].startswith("more")
    assert (fewer["expected"], fewer["original_count"], fewer["published_count"], fewer["records"]) == (
        "a b", 3, 1, [0, 1, 2])
    assert (more["published"], more["original_count"], more["published_count"]) == ("c d e", 5, 7)
    assert report.details["recoding_mismatches"] == 2


@pytest.mark.parametrize("max_examples", [1, 2, 3])
def test_km_unbounded_respects_max_examples(max_examples):
    """Five distinct singleton records, k = 2, m = None: five violating records, at most
    ``max_examples`` counter-examples listed."""
    data = from_iterable([["a"], ["b"], ["c"], ["d"], ["e"]])
    rel = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    report = KmAnonymity(2, None).audit(data, rel, max_examples=max_examples)
    assert report.violations == 5
    assert len(report.counterexamples) == max_examples
    # with recoding problems listed first: still at most max_examples in all
    forged = _forged_global(data, {x: x for x in data.items}, {0: 1})
    report = KmAnonymity(2, None).audit(data, forged, max_examples=max_examples)
    assert report.details["recoding_mismatches"] == 1
    assert len(report.counterexamples) == max_examples


def test_local_some_reading_ignores_copy_counts():
    """"some" reading: a row with two copies of A (over a1, a2) stands for any record with an item
    under A and none elsewhere, e.g. {a1}. The "one" reading's requirement (two items under A)
    must not be applied -- neither by the audit's recoding check nor by the release's own matcher;
    under the "one" reading the same rows fit no record."""
    nodes = [PublishedNode("A", ("a1", "a2"), 2)]
    data = from_iterable([["a1"], ["a2"]], items=["a1", "a2"])
    rel = LocalRecoding(nodes=nodes, records=[[2], [2]], universe=2, reading="some")
    report = TransactionalKAnonymity(2).audit(data, rel)
    assert (report.satisfied, report.details["recoding_mismatches"]) == (True, 0)
    assert rel.match_counts(data).tolist() == [2, 2]
    one = LocalRecoding(nodes=nodes, records=[[2], [2]], universe=2, reading="one")
    assert TransactionalKAnonymity(2).audit(data, one).satisfied is False
    assert one.match_counts(data).tolist() == [0, 0]


@pytest.mark.parametrize("p", [0, -1, 1.5, True])
def test_hkp_rejects_bad_p(p):
    from graphanon.errors import ParameterError

    with pytest.raises(ParameterError, match="p must be"):
        HKPCoherence(0.5, 2, p, ["a"])


def test_release_loader_rejects_unknown_kind_and_reads_empty_release():
    from graphanon.errors import ReleaseFormatError
    from graphanon.release.base import Release

    data = from_iterable([], items=["a"])
    empty = GlobalRecoding.from_mapping(data, {"a": "a"})
    doc = empty.to_dict()
    assert Release.from_dict(doc).n_records == 0
    with pytest.raises(ReleaseFormatError, match="unknown release kind"):
        Release.from_dict({**doc, "kind": "no_such_kind"})


def test_bit_vote_names_the_record_without_preimage():
    import scipy.sparse as sp

    from graphanon.errors import ParameterError
    from graphanon.release.bit_voting import bit_vote

    X = sp.csr_array(np.eye(3, dtype=bool))
    members = sp.csr_array(np.array([[1, 0, 0], [0, 0, 0], [0, 1, 1]], dtype=bool))
    with pytest.raises(ParameterError, match="published record 1 has no preimage"):
        bit_vote(X, members)


def test_local_match_counts_refuses_other_data():
    from graphanon.errors import ParameterError

    data = from_iterable(LOCAL_DATA, items=["a1", "a2", "b1", "b2"])
    rel = _local([[1, 1], [1, 1], [1, 0], [1, 0]])
    assert rel.match_counts(data).tolist() == [2, 2, 2, 2]  # {a1, b1}: the {A, B} rows; {a1}: the {A} rows
    with pytest.raises(ParameterError, match="records but the release"):
        rel.match_counts(from_iterable(LOCAL_DATA[:3], items=["a1", "a2", "b1", "b2"]))


def test_nonreciprocal_estimate_of_an_item_both_in_and_out_is_zero():
    """A row with a in its base and on its distance positions (threshold 1): worlds {a} and {}; no
    world holds a and lacks a."""
    rel = NonreciprocalRelease(["a", "b"], [[1, 0]], [[1, 0]], [1])
    assert rel.estimate_count(["a"]) == pytest.approx(0.5)
    assert rel.estimate_count(["a"], ["a"]) == 0


def test_publish_split_refuses_a_published_release():
    from graphanon.algorithms.swapping import anonymize_splitperson
    from graphanon.errors import ParameterError
    from graphanon.release.perturbed import publish_split
    from graphanon.taxonomy.itemgroups import ItemGroups

    data = from_iterable([["a", "b"], ["a"], ["b"]])
    rel = anonymize_splitperson(data, categories=ItemGroups({"A": ["a"], "B": ["b"]}))
    assert rel.link is not None
    with pytest.raises(ParameterError, match="already published"):
        publish_split(data, rel, np.zeros(rel.n_records, dtype=np.int64))


def test_utility_constraints_must_not_overlap():
    from graphanon.errors import ParameterError
    from graphanon.privacy import UtilityConstraints

    data = from_iterable([["a", "b"], ["a"]])
    rel = GlobalRecoding.from_mapping(data, {"a": "a", "b": "b"})
    with pytest.raises(ParameterError, match="in two utility constraints"):
        UtilityConstraints([["a", "b"], ["b"]], 1.0).audit(data, rel)


def test_release_loaders_reject_malformed_payloads():
    """A local recoding row naming node -1, a nonreciprocal release whose base is not a list, and a
    split link naming a record beyond its record ids are refused with ReleaseFormatError."""
    from graphanon.errors import ReleaseFormatError
    from graphanon.release.base import Release
    from graphanon.release.perturbed import SplitLink

    doc = _local([[1, 1], [1, 1], [1, 0], [1, 0]]).to_dict()
    doc["records"][0] = [-1]
    with pytest.raises(ReleaseFormatError, match="does not exist"):
        Release.from_dict(doc)
    doc = _nr_release([{0}], [set()], [0]).to_dict()
    with pytest.raises(ReleaseFormatError, match="no 'base' list"):
        Release.from_dict({**doc, "base": "0"})
    assert SplitLink([0, 1, 1], record_ids=["a", "b"]).n_records == 2
    with pytest.raises(ReleaseFormatError, match=r"outside 0\.\.1"):
        SplitLink([0, 2], record_ids=["a", "b"])


def test_constraints_report_details_and_utility_input():
    """COAT-style audits: a suppressed privacy constraint counts as fully suppressed; the combined
    privacy + utility report shows the utility violation as its worst; a utility spec that is a
    string other than "all" is refused."""
    from graphanon.errors import ParameterError
    from graphanon.privacy import PrivacyConstraints, UtilityConstraints
    from graphanon.privacy.constraints import _PrivacyAndUtility

    data = from_iterable([["a", "b"], ["a", "c"], ["b", "c"]])
    rel = GlobalRecoding.from_mapping(data, {"a": None, "b": "(b,c)", "c": "(b,c)"})
    privacy = PrivacyConstraints([["a"], ["b", "c"], ["b"]], 2)
    report = privacy.audit(data, rel)
    assert (report.satisfied, report.details["fully_suppressed"]) == (True, 1)  # {a}; not the two (b,c)
    utility = UtilityConstraints([["a", "b"], ["c"]], 1.0)  # (b,c) crosses the blocks
    combined = _PrivacyAndUtility(privacy, utility).audit(data, rel)
    assert combined.satisfied is False
    assert combined.worst is not None and combined.worst == utility.audit(data, rel).worst
    with pytest.raises(ParameterError):
        UtilityConstraints("bogus", 1.0).audit(data, rel)


def test_release_matcher_with_items_outside_its_vocabulary():
    """A record holding an item the release does not publish matches no row; the others still do."""
    a = ITEMS[PAIRS[0][0]]
    data = from_iterable([[a], [a, "zzz"]], items=[*ITEMS, "zzz"])
    release = _nr_release([{PAIRS[0][0]}, {PAIRS[0][0]}], [set(), set()], [0, 0])
    assert release.match_counts(data).tolist() == [2, 0]
    orig, pub, unknown = nonreciprocal_matches(data, release)
    assert unknown.tolist() == [False, True]
    assert sorted(zip(orig.tolist(), pub.tolist(), strict=True)) == [(0, 0), (0, 1)]
