"""The RT method and the naive baseline (issue 34), checked by a brute-force (k, k^m) adversary written here.

The brute force reads the original data and the release only: for every record
and every set of at most ``m`` of its items, the rows an adversary who knows
the record's QI values and those items cannot rule out are counted -- a row
whose relational values cover the record's, and in which each known item is
either inside one of the row's published items or published by no row of the
row's relational group (then it may have been suppressed there). The record's
own row must be among them, and there must be at least ``k``.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from graphanon.algorithms.relational.rt import anonymize_rt, anonymize_rt_naive
from graphanon.data import from_iterable
from graphanon.datasets.synthetic import patients_with_demographics
from graphanon.errors import InfeasibleError, ParameterError
from graphanon.relational import RelationalTable, RTData
from graphanon.taxonomy.tree import Taxonomy

TAX = Taxonomy.from_parent_map({"a1": "A", "a2": "A", "b1": "B", "b2": "B", "c1": "C", "c2": "C",
                                "A": "ROOT", "B": "ROOT", "C": "ROOT"})


def golden_data() -> RTData:
    """Eight patients, two QIs, items under A and B (worked by hand in the tests below)."""
    tx = from_iterable([["a1", "b1"], ["a1"], ["a2", "b1"], ["a2"], ["b2"], ["b2", "a1"], ["b1"], ["b2"]],
                       record_ids=[f"r{i}" for i in range(8)])
    table = RelationalTable([f"r{i}" for i in range(8)],
                            {"age": [21, 23, 25, 27, 61, 63, 65, 67], "gender": ["F", "F", "M", "M"] * 2})
    return RTData(tx, table)


def rows_of(rel, rt: RTData) -> list[tuple]:
    """Per original record (input order): its published row as (relational values, sorted item labels)."""
    rrows, irows = rel.relational_rows(), rel.item_rows()
    return [(rrows[j], sorted(irows[j])) for j in rel.link.row_of_record.tolist()]


def brute_force_violations(rt: RTData, rel, k: int, m: int) -> list[tuple]:
    """(record, known items, candidates) for every adversary who finds fewer than k rows or misses the record."""
    rrows, irows = rel.relational_rows(), rel.item_rows()
    members = {str(pi.label): {str(x) for x in pi.members} for pi in rel.published_items}
    by_tuple: dict[tuple, set] = {}
    for rr, ir in zip(rrows, irows):
        by_tuple.setdefault(rr, set()).update(ir)
    hs = [rt.hierarchies[c] for c in rt.qi]
    out = []
    for i in range(rt.n_records):
        qi = rt.qi_values(i)
        rel_ok = [j for j, rr in enumerate(rrows) if all(h.covers(v, x) for h, v, x in zip(hs, rr, qi))]
        items = sorted(rt.transactions.record(i))
        own = int(rel.link.row_of_record[i])
        for size in range(0, min(m, len(items)) + 1):
            for known in itertools.combinations(items, size):
                cands = []
                for j in rel_ok:
                    vocab = by_tuple[rrows[j]]
                    if all(any(x in members[lab] for lab in irows[j]) or
                           not any(x in members[lab] for lab in vocab) for x in known):
                        cands.append(j)
                if len(cands) < k or own not in cands:
                    out.append((i, known, len(cands)))
    return out


def published_violations(rel, k: int, m: int) -> list[tuple]:
    """The (k, k^m) check on the published rows alone: groups by relational values, each >= k and k^m inside."""
    groups: dict[tuple, list[set]] = {}
    for rr, ir in zip(rel.relational_rows(), rel.item_rows()):
        groups.setdefault(rr, []).append(ir)
    out = []
    for key, rows in groups.items():
        if len(rows) < k:
            out.append((key, (), len(rows)))
        labels = sorted(set().union(*rows))
        for size in range(1, m + 1):
            for its in itertools.combinations(labels, size):
                sup = sum(1 for r in rows if set(its) <= r)
                if 0 < sup < k:
                    out.append((key, its, sup))
    return out


# ---------------------------------------------------------------------- golden, by hand
def test_golden_without_merging():
    # Mondrian (k=2): age first (both QIs would lose NCP 1), median cut 61 | then gender in each half:
    # {r0,r1} [20-24] F, {r2,r3} [25-29] M, {r4,r5} [60-64] F, {r6,r7} [65-69] M.
    # AA (k=2, m=1) per cluster: b1 (once in {r0,r1}) lifts to ROOT (B still once), so does b1 in {r2,r3}
    # and a1 in {r4,r5}; {b1}, {b2} in {r6,r7} meet at B.
    rt = golden_data()
    rel = anonymize_rt(rt, k=2, m=1, taxonomy=TAX, transaction="aa", merge="none", unsafe_secret_seed=1)
    assert rows_of(rel, rt) == [
        (("[20-24]", "F"), ["ROOT"]), (("[20-24]", "F"), ["ROOT"]),
        (("[25-29]", "M"), ["ROOT"]), (("[25-29]", "M"), ["ROOT"]),
        (("[60-64]", "F"), ["ROOT"]), (("[60-64]", "F"), ["ROOT"]),
        (("[65-69]", "M"), ["B"]), (("[65-69]", "M"), ["B"]),
    ]
    assert rel.params["groups"] == 4 and rel.params["ril"] == pytest.approx(2 / 79)
    assert not brute_force_violations(rt, rel, 2, 1) and not published_violations(rel, 2, 1)


def test_golden_with_rmerge_r():
    # TL (share of occurrences of items seen < k times): 1/3, 1/3, 1/3 and 1 for {r6,r7}: the seed.
    # Its relational increases: with {r2,r3} -> (*, M): 4 - 16/79; with {r4,r5} -> ([60-69], *): 4(9/79 + 1) - 16/79.
    # delta=0.3 leaves 16 * 0.3 - 32/79 for merging: {r2,r3,r6,r7} become (*, M); no other merge fits.
    # AA there (a2, b1 twice, b2 once): b2 -> B takes b1 along.
    rt = golden_data()
    rel = anonymize_rt(rt, k=2, m=1, taxonomy=TAX, transaction="aa", delta=0.3, merge="rmerge_r",
                       unsafe_secret_seed=1)
    assert rows_of(rel, rt) == [
        (("[20-24]", "F"), ["ROOT"]), (("[20-24]", "F"), ["ROOT"]),
        (("*", "M"), ["B", "a2"]), (("*", "M"), ["a2"]),
        (("[60-64]", "F"), ["ROOT"]), (("[60-64]", "F"), ["ROOT"]),
        (("*", "M"), ["B"]), (("*", "M"), ["B"]),
    ]
    assert rel.params["groups"] == 3 and rel.params["ril"] == pytest.approx((16 / 79 + 4) / 16)
    assert rel.trace.stats["merges"] == 1


def test_golden_delta_too_small_is_refused():
    with pytest.raises(InfeasibleError, match=r"already lose 0.025 \(mean NCP\) > delta=0.01"):
        anonymize_rt(golden_data(), k=2, m=1, taxonomy=TAX, delta=0.01)


def test_bad_input():
    rt = golden_data()
    with pytest.raises(ParameterError, match="pass graphanon.relational.RTData"):
        anonymize_rt(rt.transactions, k=2, taxonomy=TAX)
    with pytest.raises(ParameterError, match="transaction='mhghs' generalizes over an item taxonomy"):
        anonymize_rt(rt, k=2)  # the default
    with pytest.raises(ParameterError, match="transaction='aa' generalizes over an item taxonomy"):
        anonymize_rt(rt, k=2, transaction="aa")
    with pytest.raises(ParameterError, match="k"):
        anonymize_rt(rt, k=9, taxonomy=TAX)
    with pytest.raises(ParameterError, match="merge"):
        anonymize_rt(rt, k=2, taxonomy=TAX, merge="rmerge_x")
    with pytest.raises(ParameterError, match="delta"):
        anonymize_rt(rt, k=2, taxonomy=TAX, delta=1.5)


# ---------------------------------------------------------------------- brute force on random data
@st.composite
def rt_data(draw):
    n = draw(st.integers(4, 16))
    leaves = list(TAX.leaves)
    records = [draw(st.lists(st.sampled_from(leaves), max_size=3, unique=True)) for _ in range(n)]
    ages = draw(st.lists(st.integers(18, 80), min_size=n, max_size=n))
    genders = draw(st.lists(st.sampled_from(["F", "M"]), min_size=n, max_size=n))
    ids = [f"p{i}" for i in range(n)]
    tx = from_iterable(records, record_ids=ids, items=leaves)
    return RTData(tx, RelationalTable(ids, {"age": ages, "gender": genders}))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rt_data(), st.integers(2, 3), st.integers(1, 2), st.sampled_from(["aa", "mhghs", "coat"]),
       st.sampled_from(["rmerge_r", "rmerge_t", "rtmerge", "none"]), st.floats(0.3, 1.0))
def test_rt_meets_k_km_by_brute_force(rt, k, m, transaction, merge, delta):
    assume(rt.n_records >= k)
    try:
        rel = anonymize_rt(rt, k=k, m=m, taxonomy=TAX, transaction=transaction, merge=merge, delta=delta)
    except InfeasibleError:
        assume(False)
    assert rel.params["ril"] <= delta + 1e-9
    assert brute_force_violations(rt, rel, k, m) == []
    assert published_violations(rel, k, m) == []
    assert (rel.match_counts(rt) >= 1).all()  # every record is matched by its own row at least


def _edited(rel, relational=None, items=None):
    """The release with some rows' relational values or item labels replaced (same row order and link)."""
    from graphanon.release.relational import RelationalRelease

    rrows, irows = rel.relational_rows(), rel.item_rows()
    for j, v in (relational or {}).items():
        rrows[j] = v
    for j, v in (items or {}).items():
        irows[j] = v
    labels = [str(pi.label) for pi in rel.published_items]
    out = RelationalRelease(qi=rel.qi, relational=rrows, published_items=rel.published_items,
                            records=[sorted(labels.index(x) for x in r) for r in irows], universe=rel.universe,
                            algorithm=rel.algorithm, params=rel.params)
    out.link = rel.link
    return out


def test_the_checks_catch_planted_broken_releases():
    rt = golden_data()
    rel = anonymize_rt(rt, k=2, m=1, taxonomy=TAX, merge="none", unsafe_secret_seed=1)
    row = rel.link.row_of_record.tolist()
    # relational values edited: r0's row moved into another class; r0 no longer finds its own row, and the
    # class of [20-24] F keeps k - 1 = 1 row
    moved = _edited(rel, relational={row[0]: ("[60-64]", "F")})
    assert (0, (), 1) in brute_force_violations(rt, moved, 2, 1)
    assert (("[20-24]", "F"), (), 1) in published_violations(moved, 2, 1)
    # an item supported k - 1 = 1 times inside a class: r7's B dropped, r6's B stays alone
    moved = _edited(rel, items={row[7]: set()})
    assert any(i == 6 for i, _, _ in brute_force_violations(rt, moved, 2, 1))
    assert (("[65-69]", "M"), ("B",), 1) in published_violations(moved, 2, 1)
    # a weaker check passes it: each class alone has >= k rows
    assert all(len(g) >= 2 for g in moved.groups())


def test_naive_baseline_leaves_records_below_k():
    rt, tax = patients_with_demographics(400, seed=2)
    naive = anonymize_rt_naive(rt, k=5, m=2, taxonomy=tax, transaction="mhghs")
    assert naive.algorithm == "rt-naive" and naive.privacy_model == "rt"
    bad = published_violations(naive, 5, 2)
    assert bad, "the naive baseline was expected to break (k, k^m) on demographic-correlated data"
    rel = anonymize_rt(rt, k=5, m=2, taxonomy=tax, transaction="mhghs", delta=0.5)
    assert published_violations(rel, 5, 2) == []


def named_but_not_shown(rt: RTData, rel) -> tuple[list[str], list[str]]:
    """Labels no row holds, and items a label names that no record whose row holds that label holds.

    What an attacker reads off the release file: a name that no row shows can only come from the data's
    vocabulary, so it names an item that was suppressed wherever it occurs (issue 30, item 4's pattern).
    """
    r, items = rel.records, rel.published_items
    held = set(r.indices.tolist())
    unused = [str(items[g].label) for g in range(len(items)) if g not in held]
    shown: set[tuple[int, str]] = set()
    X = rt.transactions.matrix
    for i, j in enumerate(rel.link.row_of_record.tolist()):
        record = {str(rt.transactions.items[c]) for c in X.indices[X.indptr[i]: X.indptr[i + 1]]}
        for g in r.indices[r.indptr[j]: r.indptr[j + 1]].tolist():
            shown |= {(g, x) for x in record & set(items[g].members)}
    hidden = sorted({x for g, pi in enumerate(items) for x in pi.members if (g, x) not in shown})
    return unused, hidden


@pytest.mark.parametrize("transaction", ["aa", "mhghs", "coat"])
@pytest.mark.parametrize("naive", [False, True])
def test_release_names_only_items_its_rows_show(transaction, naive):
    """A group's recoding maps items the group does not hold: the release must not name them (mHgHs did)."""
    rt, tax = patients_with_demographics(300, seed=1)
    method = anonymize_rt_naive if naive else anonymize_rt
    rel = method(rt, k=5, m=2, taxonomy=tax, transaction=transaction)
    assert named_but_not_shown(rt, rel) == ([], [])
    assert rel.universe == len(tax.leaves)  # the public taxonomy's leaves, not the data's vocabulary
    # n_suppressed counts the items some record holds that its row does not show (not items a group lacks)
    r, X, items = rel.records, rt.transactions.matrix, rel.published_items
    lost = set()
    for i, j in enumerate(rel.link.row_of_record.tolist()):
        shown = {x for g in r.indices[r.indptr[j]: r.indptr[j + 1]].tolist() for x in items[g].members}
        lost |= {str(rt.transactions.items[c]) for c in X.indices[X.indptr[i]: X.indptr[i + 1]]} - shown
    assert rel.n_suppressed == len(lost)


def test_named_but_not_shown_catches_a_planted_name():
    rt = golden_data()
    rel = anonymize_rt(rt, k=2, m=1, taxonomy=TAX, transaction="aa")
    from graphanon.release.global_recoding import PublishedItem

    first = rel.published_items[0]
    rel.published_items = (PublishedItem(first.label, (*first.members, "c1"), first.leaves), *rel.published_items[1:],
                           PublishedItem("c2", ("c2",), 1))
    unused, hidden = named_but_not_shown(rt, rel)
    assert unused == ["c2"] and "c1" in hidden


# ---------------------------------------------------------------------- public_taxonomy (issue 30 item 4 for rt)
def planted_data() -> RTData:
    """The golden patients, r0 also holding c1: the only C code of the data, once (support 1 < k = 2)."""
    tx = from_iterable([["a1", "b1", "c1"], ["a1"], ["a2", "b1"], ["a2"], ["b2"], ["b2", "a1"], ["b1"], ["b2"]],
                       record_ids=[f"r{i}" for i in range(8)])
    return RTData(tx, golden_data().table)


def test_public_taxonomy_names_no_suppressed_code():
    """Without ``public_taxonomy`` the planted c1 is suppressed and the file lists the codes it kept, so a holder
    of the taxonomy reads c1 (with c2: the unlisted leaves); with it every label lists all its taxonomy leaves,
    nothing is suppressed, and the release still meets (k, k^m) by brute force."""
    from graphanon.attacks.leafnames import release_candidates
    from graphanon.privacy.consistency import public_taxonomy_problems

    rt = planted_data()
    plain = anonymize_rt(rt, k=2, m=1, taxonomy=TAX, merge="none", unsafe_secret_seed=1)
    listed = {str(x) for pi in plain.published_items for x in pi.members}
    assert plain.n_suppressed >= 1 and "c1" not in listed and "public_taxonomy" not in plain.params
    assert [x for x, c in zip(TAX.leaves, release_candidates(plain, TAX)) if c] == ["c1", "c2"]
    public = anonymize_rt(rt, k=2, m=1, taxonomy=TAX, merge="none", public_taxonomy=True, unsafe_secret_seed=1)
    assert public.params["public_taxonomy"] is True and public.n_suppressed == 0
    listed = {str(x) for pi in public.published_items for x in pi.members}
    assert listed == set(TAX.leaves)  # c1 listed with c2 (its node C, or a pool holding it): absent or present alike
    for pi in public.published_items:  # a label names all its leaves, never only the present ones
        nodes = str(pi.label).strip("()").split(",")
        assert set(pi.members) == {leaf for v in nodes for leaf in TAX.leaves_under(v)}, pi
    assert public_taxonomy_problems(rt.transactions, public) == []
    assert not brute_force_violations(rt, public, 2, 1) and not published_violations(public, 2, 1)


def test_public_taxonomy_refuses_coat():
    with pytest.raises(ParameterError, match="public_taxonomy=True generalizes over the taxonomy: it takes "
                                             "transaction='mhghs' or 'aa', not 'coat'"):
        anonymize_rt(golden_data(), k=2, m=1, taxonomy=TAX, transaction="coat", public_taxonomy=True)
