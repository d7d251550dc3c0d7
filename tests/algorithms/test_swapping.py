"""Swapping to hide personal tendency (issue 13): golden Table 1, rules, properties, audit, metrics."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphanon.algorithms import (
    anonymize_fullswap,
    anonymize_partsupp,
    anonymize_partswap,
    anonymize_randswap,
    anonymize_splitperson,
)
from graphanon.algorithms.swapping import tendencies
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import DataFormatError, ParameterError, ReleaseFormatError
from graphanon.metrics.itemsets import dif, fi_similarity, frequent_itemsets, itemset_metrics
from graphanon.privacy import TendencyHiding
from graphanon.privacy.tendency import heaviest_categories
from graphanon.release import PerturbedRelease, load_release
from graphanon.taxonomy import ItemGroups
from graphanon.taxonomy.categories import parse_categories, random_categories, read_categories

# Categories of the test (the paper's Figure 1 is lost; SPEC §4):
# A = {1,2,3,8}, B = {6,7}, C = {4,9,12}, D = {5,10,11}.
CATS = {"A": ["1", "2", "3", "8"], "B": ["6", "7"], "C": ["4", "9", "12"], "D": ["5", "10", "11"]}


def _table1():
    data = load("swap_table1")
    by_text = {str(x): x for x in data.items}
    groups = ItemGroups({name: [by_text[x] for x in items] for name, items in CATS.items()})
    return data, groups


def _row_of(rel, i: int) -> set[str]:
    return set(rel.render_record(int(rel.link.row_of_record[i])).split())


def _records(data) -> list[set[str]]:
    return [{str(x) for x in r} for r in data.records()]


def test_table1_weights_and_heaviest():
    data, groups = _table1()
    tend = tendencies(data, groups)
    # ties: 003 has B and D at weight 2 -> B (first); 010 has A and D at 2 -> A
    assert [groups.names[h] for h in tend.heaviest] == ["A", "A", "B", "C", "A", "A", "C", "A", "C", "A"]
    # the audit's independent computation agrees
    codes = np.array([groups.names.index(groups.group_of(x)) for x in data.items])
    assert heaviest_categories(data.matrix, codes, 4).tolist() == tend.heaviest.tolist()


def test_table1_partswap_golden():
    data, groups = _table1()
    rel = anonymize_partswap(data, categories=groups, unpaired="keep", visit="input", unsafe_secret_seed=3)
    ids = data.record_ids
    pairs = {(ids[a], ids[b]) for a, b in rel.trace.pairs}
    # 001 -> 007 (first similarity-0 candidate; 009 collides on 2); 002 -> 004 (J = 1/4; 003 collides:
    # 002 holds 7; 009 holds 2); 003 -> 006 (J = 0); 005 -> 009 (J = 0); 008 and 010 find no partner.
    assert pairs == {("001", "007"), ("002", "004"), ("003", "006"), ("005", "009")}
    expected = {
        0: {"4", "9", "10", "11", "12"}, 6: {"1", "2", "3", "6", "7", "8"},
        1: {"4", "7", "9", "10", "12"}, 3: {"2", "6", "7", "8", "10"},
        2: {"2", "3", "5", "8", "10", "12"}, 5: {"6", "7", "9"},
        4: {"5", "9", "11", "12"}, 8: {"1", "2", "3", "6", "8"},
    }
    original = _records(data)
    for i in range(10):
        assert _row_of(rel, i) == expected.get(i, original[i]), ids[i]
    sims = rel.trace.pair_similarity
    assert sims[1] == pytest.approx(0.25) and sims[0] == 0.0
    # conservation and the audit: 008 and 010 keep their tendency (A)
    rep = TendencyHiding(groups).audit(data, rel)
    assert rep.details["items_conserved"] and rep.details["kept_tendency"] == 2
    assert {ex["record"] for ex in rep.counterexamples} == {"008", "010"}
    assert not rep.satisfied and rep.details["share"] == pytest.approx(0.2)
    assert TendencyHiding(groups, max_share=0.2).audit(data, rel).satisfied
    # unpaired="suppress": 008 and 010 lose their heaviest category's items, the release says so and meets the model
    safe = anonymize_partswap(data, categories=groups, unpaired="suppress", visit="input", unsafe_secret_seed=3)
    assert safe.trace.pairs == rel.trace.pairs and safe.moves == "swap-suppress" and rel.moves == "swap"
    assert safe.params["unpaired"] == "suppress" and rel.params["unpaired"] == "keep"
    for i in range(10):
        if ids[i] in ("008", "010"):
            assert _row_of(safe, i) < original[i]
        else:
            assert _row_of(safe, i) == _row_of(rel, i), ids[i]
    assert TendencyHiding(groups).audit(data, safe).satisfied
    # the default, unpaired="splice" (issue 30): every pair holds an A record, so no exchange A -> B avoids
    # category A; 010 (source 1, 3) joins the pair 002 (A) - 004 (C) instead: 004 deals its source
    # {4, 9, 12} between 002 ({9, 12}) and 010 ({4}) and receives {2, 8} and {1, 3}, all of category A.
    # 008 (source 3, 8) collides with every host (008 holds 4 and 7; the hosts' partners give 3 or 8), and
    # every record of another category holds 3 or 8 after the swaps: no receiver, so {3, 8} are removed. But
    # 008 does not end as "its record minus A": it receives a gift, one of the items another row received
    # and 008 lacks -- 006's {6} (006 keeps 7) or one of 002's {9, 12} -- so its row looks swapped.
    # Which of 004's items 010 gets is drawn (010 holds 9: 4 or 12), and so is the donor.
    donors = set()
    for seed in range(4):
        spliced = anonymize_partswap(data, categories=groups, visit="input", rng=seed, unsafe_secret_seed=3)
        assert spliced.params["unpaired"] == "splice" and spliced.moves == "swap-suppress"
        assert spliced.trace.spliced == () and spliced.trace.hosted == ((9, 3),)
        assert spliced.trace.suppressed_occurrences == 2 and spliced.trace.suppressed_records == (7,)
        assert spliced.trace.rehomed == ()
        (x,) = _row_of(spliced, 9) - {"5", "9", "10"}
        assert x in {"4", "12"} and _row_of(spliced, 9) == {"5", "9", "10", x}
        want = {1: {"10", "7"} | ({"4", "9", "12"} - {x}), 3: {"1", "2", "3", "6", "7", "8", "10"},
                7: {"4", "7", "11"}}
        ((L, R),) = spliced.trace.gifted
        assert L == 7 and R in (1, 5)
        donors.add(R)
        (y,) = _row_of(spliced, 7) - want[7]
        assert y in want.get(R, _row_of(rel, R)) - original[R] - original[7]
        want[7] = want[7] | {y}
        want[R] = want.get(R, _row_of(rel, R)) - {y}
        for i in range(9):
            assert _row_of(spliced, i) == want.get(i, _row_of(rel, i)), ids[i]
        assert TendencyHiding(groups).audit(data, spliced).satisfied
    assert donors == {1, 5}


def test_table1_rules_random_visit():
    """Each pair obeys the rules whatever the visiting order: true swap, no collision, least similarity."""
    data, groups = _table1()
    original = _records(data)
    tend = tendencies(data, groups)
    src = [{str(data.items[j]) for j in data.record_items(i) if groups.group_of(data.items[j]) ==
            groups.names[tend.heaviest[i]]} for i in range(10)]
    for seed in range(20):
        rel = anonymize_partswap(data, categories=groups, unpaired="keep", rng=seed, unsafe_secret_seed=seed)
        seen = set()
        for a, b in rel.trace.pairs:
            assert a not in seen and b not in seen  # one pair per record
            seen |= {a, b}
            assert tend.heaviest[a] != tend.heaviest[b]
            assert not (original[b] & src[a]) and not (original[a] & src[b])
            assert _row_of(rel, a) == (original[a] - src[a]) | src[b]
            assert _row_of(rel, b) == (original[b] - src[b]) | src[a]
        for i in set(range(10)) - seen:
            assert _row_of(rel, i) == original[i]
        rep = TendencyHiding(groups).audit(data, rel)
        assert rep.details["items_conserved"]
        assert rep.details["kept_tendency"] == 10 - len(seen)
    # same rng, same pairs
    a = anonymize_partswap(data, categories=groups, unpaired="keep", rng=7).trace.pairs
    assert a == anonymize_partswap(data, categories=groups, unpaired="keep", rng=7).trace.pairs


def test_fullswap_exchanges_single_category_records():
    data = from_iterable([["a1", "a2"], ["b1", "b2", "b3"], ["a3", "a4"], ["c1", "c2"], ["a1", "b1", "b2"]])
    groups = ItemGroups({"A": ["a1", "a2", "a3", "a4"], "B": ["b1", "b2", "b3"], "C": ["c1", "c2"]})
    rel = anonymize_fullswap(data, categories=groups, unpaired="keep", visit="input", unsafe_secret_seed=0)
    # single-category records 0 (A), 1 (B), 2 (A), 3 (C): 0 <-> 1, 2 <-> 3 (first in priority order)
    assert sorted(rel.trace.full_pairs) == [(0, 1), (2, 3)]
    assert _row_of(rel, 0) == {"b1", "b2", "b3"} and _row_of(rel, 3) == {"a3", "a4"}
    assert _row_of(rel, 4) == {"a1", "b1", "b2"}  # no partner with another heaviest category
    assert anonymize_partswap(data, categories=groups, unpaired="keep", unsafe_secret_seed=0).trace.pairs == ()


def test_baselines_on_table1():
    data, groups = _table1()
    supp = anonymize_partsupp(data, categories=groups, unsafe_secret_seed=1)
    assert _row_of(supp, 0) == {"10", "11"} and _row_of(supp, 2) == {"5", "10", "12"}
    assert TendencyHiding(groups).audit(data, supp).satisfied
    split = anonymize_splitperson(data, categories=groups, unsafe_secret_seed=1)
    rows = [set(split.render_record(j).split()) for j in split.link.rows_of(0)]
    assert sorted(map(sorted, rows)) == [["10", "11"], ["2", "3", "8"]]
    assert split.n_records == sum(len({groups.group_of(x) for x in r}) for r in data.records())
    assert dif(data, split) == 0.0
    rep = TendencyHiding(groups).audit(data, split)
    assert rep.satisfied and rep.details["items_conserved"]
    rnd = anonymize_randswap(data, unsafe_secret_seed=0)
    assert rnd.n_records == 10 and len(rnd.trace.pairs) == 5


@st.composite
def _data_and_groups(draw):
    n_items = draw(st.integers(2, 12))
    items = [f"i{j}" for j in range(n_items)]
    n_cat = draw(st.integers(1, n_items))
    cat = draw(st.lists(st.integers(0, n_cat - 1), min_size=n_items, max_size=n_items))
    blocks: dict = {}
    for it, c in zip(items, cat):
        blocks.setdefault(f"g{c}", []).append(it)
    recs = draw(st.lists(st.sets(st.sampled_from(items), min_size=1, max_size=n_items), min_size=1, max_size=25))
    return from_iterable([sorted(r) for r in recs]), ItemGroups(blocks)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_data_and_groups(), st.integers(0, 2**16), st.booleans())
def test_property_swaps_conserve_items_and_pair_once(dg, seed, full):
    data, groups = dg
    method = anonymize_fullswap if full else anonymize_partswap
    rel = method(data, categories=groups, unpaired="keep", rng=seed, unsafe_secret_seed=seed)
    assert dif(data, rel) == 0.0  # every item keeps its occurrences: no collision
    flat = [r for pair in rel.trace.pairs for r in pair]
    assert len(flat) == len(set(flat))
    rep = TendencyHiding(groups).audit(data, rel)
    assert rep.details["broken_invariants"] == 0
    # every record left with its tendency had no admissible partner among the unpaired ones
    tend = tendencies(data, groups)
    paired = set(flat)
    lonely = [i for i in range(data.n_records) if tend.heaviest[i] >= 0 and i not in paired]
    for a, b in itertools.combinations(lonely, 2):
        ra, rb = data.record(a), data.record(b)
        sa = {x for x in ra if groups.group_of(x) == groups.names[tend.heaviest[a]]}
        sb = {x for x in rb if groups.group_of(x) == groups.names[tend.heaviest[b]]}
        assert tend.heaviest[a] == tend.heaviest[b] or (rb & sa) or (ra & sb)
    assert rep.details["kept_tendency"] == len(lonely)


@settings(max_examples=40, deadline=None)
@given(_data_and_groups(), st.integers(0, 2**16))
def test_property_audit_finds_planted_failures(dg, seed):
    data, groups = dg
    rel = anonymize_partswap(data, categories=groups, rng=seed, unsafe_secret_seed=seed)
    had = int((tendencies(data, groups).heaviest >= 0).sum())
    # plant: publish the original rows under the same link (nothing hidden)
    planted = PerturbedRelease.from_matrix(data, data.matrix, moves="swap")
    planted.link = rel.link
    planted._permute_rows(rel.link.record_of_row)
    rep = TendencyHiding(groups).audit(data, planted)
    assert rep.details["kept_tendency"] == had
    assert rep.satisfied == (had == 0)
    # plant a lost item occurrence: conservation breaks
    X = data.matrix.tolil()
    r, c = data.matrix.nonzero()
    X[r[0], c[0]] = False
    lost = PerturbedRelease.from_matrix(data, X.tocsr(), moves="swap")
    rep = TendencyHiding(groups).audit(data, lost)
    assert not rep.satisfied and rep.details["broken_invariants"] >= 1


def test_audit_without_link_counts_verbatim_records():
    data, groups = _table1()
    rel = anonymize_partswap(data, categories=groups, unpaired="keep", visit="input", unsafe_secret_seed=3)
    rel.link = None
    rep = TendencyHiding(groups).audit(data, rel)
    assert rep.details["mode"] == "without link" and rep.details["exposed"] == 2  # 008, 010 unchanged


def test_release_roundtrip_and_publication(tmp_path):
    data, groups = _table1()
    rel = anonymize_partswap(data, categories=groups, unpaired="keep", rng=0, unsafe_secret_seed=5)
    path = tmp_path / "r.json"
    rel.save(path)
    text = path.read_text()
    for rid in data.record_ids:
        assert f'"{rid}"' not in text
    doc = json.loads(text)
    assert doc["kind"] == "perturbed" and "pairs" not in text and "seed" not in doc["params"]
    back = load_release(path)
    assert [back.render_record(i) for i in range(10)] == [rel.render_record(i) for i in range(10)]
    assert back.fingerprint == rel.fingerprint and back.moves == "swap"
    assert back.estimate_count([data.items[1]]) == rel.estimate_count([data.items[1]])
    assert TendencyHiding(groups).audit(data, back).details["mode"] == "without link"
    # the secret shuffle: another secret seed gives another row order of the same rows
    other = anonymize_partswap(data, categories=groups, unpaired="keep", rng=0, unsafe_secret_seed=6)
    assert sorted(other.render_record(i) for i in range(10)) == sorted(rel.render_record(i) for i in range(10))
    doc["records"][0] = [99]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(ReleaseFormatError):
        load_release(bad)


def test_partsupp_release_does_not_name_fully_removed_items():
    data = from_iterable([["a1", "a2", "b1"], ["b1", "b2", "b3"]])
    groups = ItemGroups({"A": ["a1", "a2"], "B": ["b1", "b2", "b3"]})
    rel = anonymize_partsupp(data, categories=groups, unsafe_secret_seed=0)
    assert set(rel.items) == {"b1", "b2", "b3"}  # a1, a2 lost every occurrence: not named
    assert rel.estimate_count(["a1"]) == 0.0


def test_estimate_count_and_match():
    data = from_iterable([["a", "b"], ["a"], ["c"]])
    rel = PerturbedRelease.from_matrix(data, data.matrix, moves="swap")
    assert rel.estimate_count(["a"]) == 2 and rel.estimate_count(["a"], ["b"]) == 1
    assert rel.match_counts(data).tolist() == [3, 3, 3]
    assert rel.match_graph(data).number_of_edges() == 9
    with pytest.raises(ParameterError):
        rel.match_graph(data, max_edges=4)


def _brute_frequent(records, k):
    items = sorted(set().union(*records)) if records else []
    out = {}
    for size in range(1, len(items) + 1):
        found = False
        for combo in itertools.combinations(items, size):
            s = sum(1 for r in records if set(combo) <= r)
            if s >= k:
                out[frozenset(combo)] = s
                found = True
        if not found:
            break
    return out


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sets(st.sampled_from("abcdefg"), min_size=1), min_size=1, max_size=20), st.integers(1, 6))
def test_frequent_itemsets_against_brute_force(recs, k):
    data = from_iterable([sorted(r) for r in recs])
    assert frequent_itemsets(data, k) == _brute_frequent([set(r) for r in recs], k)


def test_frequent_itemsets_keep_support_n():
    """SPEC §6: an itemset in every record is frequent (pyfim drops it)."""
    data = from_iterable([[1, 2], [1, 2, 3], [2, 3]])
    fi = frequent_itemsets(data, 1.0)
    assert list(fi.values()) == [3] and len(fi) == 1


def test_dif_and_fi_similarity_definitions():
    d = from_iterable([["a", "b"], ["a", "b"], ["a", "c"]])
    e = from_iterable([["a"], ["a", "b"], ["b", "d"]])
    # f_D = a3 b2 c1; f_E = a2 b2 d1: |3-2| + 0 + |1-0| + |0-1| = 3 over 6
    assert dif(d, e) == pytest.approx(0.5)
    # count 2: F_D = {a, b, ab}, F_E = {a, b}
    assert fi_similarity(d, e, 2) == pytest.approx(2 / 3)
    m = itemset_metrics(d, e, supports=(0.6,))
    assert m["fi"][0]["original"] == 3 and m["fi"][0]["common"] == 2
    with pytest.raises(ParameterError):
        frequent_itemsets(d, 0.0)


def test_categories_builders(tmp_path):
    items = [f"x{j}" for j in range(103)]
    g = random_categories(items, 10, rng=4)
    sizes = sorted(len(b) for b in g)
    assert sizes[0] >= 10 and sizes[-1] <= 11 and sum(sizes) == 103
    assert g.blocks == random_categories(items, 10, rng=4).blocks
    with pytest.raises(ParameterError):
        random_categories(items, 0)
    data = from_iterable([["a", "b"], ["c"]])
    f = tmp_path / "cats.csv"
    f.write_text("item,category\na,X\nb,X\nc,Y\n")
    assert read_categories(f).blocks == {"X": ("a", "b"), "Y": ("c",)}
    assert parse_categories(str(f), data).group_of("c") == "Y"
    assert len(parse_categories("random:2:1", data)) == 2
    f.write_text("a,X\na,Y\n")
    with pytest.raises(DataFormatError, match="line 2"):
        read_categories(f)
    with pytest.raises(ParameterError, match="taxonomy"):
        parse_categories("taxonomy-level:1", data)
    with pytest.raises(ParameterError):
        parse_categories("nonsense", data)
    f.write_text("a,X\n")
    with pytest.raises(ParameterError, match="no group"):
        parse_categories(str(f), data)


def _check_paper_orderings(data):
    """SPEC §4 / the paper's Figs. 4-5 with 50 random categories: Dif SplitPerson = PartSwap = 0 <
    RandSwap < PartSupp; PartSwap has the highest FI similarity at every support 0.2%-0.5%."""
    cats = random_categories(data.items, 50, rng=0)
    rels = {
        "partswap": anonymize_partswap(data, categories=cats, rng=0),
        "randswap": anonymize_randswap(data),
        "partsupp": anonymize_partsupp(data, categories=cats),
        "splitperson": anonymize_splitperson(data, categories=cats),
    }
    d = {k: dif(data, r) for k, r in rels.items()}
    assert d["splitperson"] == 0.0 == d["partswap"] < d["randswap"] < d["partsupp"]
    for s in (0.002, 0.003, 0.004, 0.005):
        sim = {k: fi_similarity(data, r, s) for k, r in rels.items()}
        assert sim["partswap"] == max(sim.values()), (s, sim)
    return TendencyHiding(cats).audit(data, rels["partswap"])


def test_bms1_sample_orderings():
    data = load("bms1")
    sample = data.subset(np.random.default_rng(0).choice(data.n_records, 5000, replace=False))
    assert _check_paper_orderings(sample).details["items_conserved"]


def _brute_greedy(records, order, group, give):
    """The partner rule, written out plainly: visit in order, least Jaccard, ties to the earlier record."""
    partner = {}
    for pos, t in enumerate(order):
        if t in partner:
            continue
        best, best_sim = None, 2.0
        for qpos, u in enumerate(order):
            if u == t or u in partner or group[qpos] == group[pos]:
                continue
            if records[u] & give[t] or records[t] & give[u]:
                continue
            sim = len(records[t] & records[u]) / len(records[t] | records[u])
            if sim < best_sim:
                best, best_sim = u, sim
        if best is not None:
            partner[t], partner[best] = best, t
    return partner


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sets(st.integers(0, 9), min_size=1, max_size=6), min_size=2, max_size=18), st.data())
def test_least_similar_matching_against_plain_rule(recs, draw):
    from graphanon.graphs.similarity import least_similar_matching

    data = from_iterable([sorted(r) for r in recs])
    X = data.matrix
    records = [set(data.record_items(i).tolist()) for i in range(data.n_records)]
    order = draw.draw(st.permutations(range(data.n_records)))
    order = order[: draw.draw(st.integers(0, len(order)))]
    group = draw.draw(st.lists(st.integers(0, 2), min_size=len(order), max_size=len(order)))
    flags = draw.draw(st.lists(st.booleans(), min_size=X.nnz, max_size=X.nnz))
    give = [set() for _ in records]
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    for q, f in enumerate(flags):
        if f:
            give[rows[q]].add(int(X.indices[q]))
    partner, sim = least_similar_matching(X, order, group, np.array(flags, dtype=bool))
    expected = _brute_greedy(records, list(order), group, give)
    assert {i: int(p) for i, p in enumerate(partner) if p >= 0} == expected
    for i, p in expected.items():
        assert sim[i] == pytest.approx(len(records[i] & records[p]) / len(records[i] | records[p]))


def test_bms1_full_orderings():
    rep = _check_paper_orderings(load("bms1"))
    assert rep.satisfied and rep.details["records_with_tendency"] > 3000


@pytest.mark.parametrize("method", ["partswap", "fullswap"])
def test_a_record_left_unpaired_does_not_keep_its_tendency(method):
    """bms1, 50 random categories, visiting order of seed 1: two records are left unpaired (one's items
    are a subset of the other's, so every exchange would collide). With unpaired="suppress" they lose
    their heaviest category's items, the release says so (moves "swap-suppress") and passes its own
    audit; with unpaired="keep" (the paper's rule) the audit reports the two; by default they are
    spliced into exchanges and no item is lost. Seed 0 pairs every record."""
    from graphanon.datasets import load
    from graphanon.taxonomy.categories import parse_categories

    func = {"partswap": anonymize_partswap, "fullswap": anonymize_fullswap}[method]
    data = load("bms1")
    cats = parse_categories("random:50", data, None)
    left = func(data, categories=cats, rng=1, unpaired="suppress", unsafe_secret_seed=0)
    assert left.trace.suppressed_occurrences == 4 and left.moves == "swap-suppress"
    assert not left.conserves_items and left.matrix_over(data.items).nnz == data.matrix.nnz - 4
    report = TendencyHiding(cats).audit(data, left)
    assert report.satisfied, report.counterexamples
    kept = TendencyHiding(cats).audit(data, func(data, categories=cats, rng=1, unpaired="keep", unsafe_secret_seed=0))
    assert not kept.satisfied and kept.details["kept_tendency"] == 2
    paired = func(data, categories=cats, rng=0, unsafe_secret_seed=0)
    assert paired.trace.suppressed_occurrences == 0 and paired.moves == "swap" and paired.conserves_items
    assert TendencyHiding(cats).audit(data, paired).satisfied
    # the default (unpaired="splice"): the two are spliced into two exchanges A -> L -> B; nothing is lost
    spliced = func(data, categories=cats, rng=1, unsafe_secret_seed=0)
    assert len(spliced.trace.spliced) == 2 and spliced.trace.suppressed_occurrences == 0
    assert spliced.moves == "swap" and spliced.conserves_items
    report = TendencyHiding(cats).audit(data, spliced)
    assert report.satisfied and report.details["items_conserved"]
