"""NonreciprocalRelease: golden bit voting, possible-world COUNT estimates, save/load, matches."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal, members_matrix
from graphanon.data import from_iterable
from graphanon.datasets import load
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.graphs.generalization import ring_graph
from graphanon.privacy import nonreciprocal_matches
from graphanon.release import NonreciprocalRelease, load_release
from graphanon.release.bit_voting import bit_vote, possible_world_counts

GOLD_ORDER = [1, 3, 2, 0, 4, 5]  # r2 r4 r3 r1 r5 r6
# SPEC 5: base / distance / threshold of r'_x for ring k=3 on the order above
GOLDEN = {
    "r2": ("1110", "1101", 2),
    "r4": ("0111", "1101", 2),
    "r3": ("0111", "1011", 2),
    "r1": ("1101", "1011", 2),
    "r5": ("1100", "0011", 1),
    "r6": ("1110", "0111", 2),
}


def _bits(M, i, d):
    v = np.zeros(d, dtype=int)
    v[M.indices[M.indptr[i] : M.indptr[i + 1]]] = 1
    return "".join(map(str, v))


def test_golden_bit_voting():
    data = load("nr_table1")
    assert data.items == ("Jogging", "Swimming", "Tennis", "Soccer")
    g = ring_graph(GOLD_ORDER, 3)
    base, dist, thr = bit_vote(data.matrix, members_matrix(g.successors.T, 6))
    for j, rid in enumerate(data.record_ids):
        assert (_bits(base, j, 4), _bits(dist, j, 4), int(thr[j])) == GOLDEN[rid], rid


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_golden_release_rows(seed):
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, k=3, order=GOLD_ORDER, rng=seed)
    own = rel.link.row_of_record  # private: record i's true published row
    rows = [(*rel.bitmap_strings(int(own[i])), int(rel.threshold[own[i]])) for i in range(6)]
    # the published assignment is one of the trace's k (which one is the secret, not in the trace)
    hits = [a for a in rel.trace.assignments if rows == [GOLDEN[data.record_ids[int(j)]] for j in a]]
    assert hits
    assert [rel.labels[p] for p in own] == list(data.labels)  # labels travel with the chosen assignment
    assert rel.pseudonyms == ("p1", "p2", "p3", "p4", "p5", "p6") and not hasattr(rel, "record_ids")


def _brute_count(rel, include, exclude):
    items = rel.items
    inc = [items.index(x) for x in include]
    exc = [items.index(x) for x in exclude]
    total = 0.0
    for p in range(rel.n_records):
        b, d = rel.bitmap_strings(p)
        b = np.array(list(b), int)
        dpos = [j for j, c in enumerate(d) if c == "1"]
        worlds = good = 0
        for r in range(int(rel.threshold[p]) + 1):
            for flips in itertools.combinations(dpos, r):
                w = b.copy()
                w[list(flips)] ^= 1
                worlds += 1
                good += all(w[j] for j in inc) and not any(w[j] for j in exc)
        total += good / worlds
    return total


def test_golden_possible_worlds_r5():
    # paper: r'5 = 1100, distance 0011, threshold 1 -> worlds 1100, 1110, 1101
    rel = NonreciprocalRelease(["J", "S", "T", "So"], [[1, 1, 0, 0]], [[0, 0, 1, 1]], [1])
    assert possible_world_counts([2], [1]) == pytest.approx([3.0])
    assert rel.estimate_count(["T"]) == pytest.approx(1 / 3)
    assert rel.estimate_count(["J"], ["T", "So"]) == pytest.approx(1 / 3)
    assert rel.estimate_count(["T", "So"]) == 0.0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(3, 12), k=st.integers(1, 3), q_in=st.integers(0, 2), q_ex=st.integers(0, 2))
def test_estimate_count_matches_enumeration(seed, n, k, q_in, q_ex):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 6)) < 0.5
    data = from_iterable([[f"i{j}" for j in np.flatnonzero(row)] for row in X], items=[f"i{j}" for j in range(6)])
    rel = anonymize_nonreciprocal(data, k=min(k, n), order="identity", rng=seed)
    chosen = rng.choice(6, size=q_in + q_ex, replace=False)
    inc = [f"i{j}" for j in chosen[:q_in]]
    exc = [f"i{j}" for j in chosen[q_in:]]
    assert rel.estimate_count(inc, exc) == pytest.approx(_brute_count(rel, inc, exc))


def test_save_load_roundtrip(tmp_path):
    data = load("nr_table1")
    rel = anonymize_nonreciprocal(data, k=3, order=GOLD_ORDER, rng=5)
    for name in ("r.json", "r.json.gz"):
        rel.save(tmp_path / name)
        back = load_release(tmp_path / name)
        assert isinstance(back, NonreciprocalRelease)
        assert back.pseudonyms == rel.pseudonyms and back.labels == rel.labels and back.items == rel.items
        assert back.fingerprint == rel.fingerprint and back.link is None  # the link is never saved
        assert (back.base != rel.base).nnz == 0 and (back.distance != rel.distance).nnz == 0
        assert back.threshold.tolist() == rel.threshold.tolist()
        assert back.params["k"] == 3 and back.algorithm == "nr"
    assert "seed" not in rel.params


def test_render_and_bad_release():
    rel = NonreciprocalRelease(["a", "b", "c"], [[1, 1, 0]], [[0, 1, 1]], [1], ["x"])
    assert rel.render_record(0) == "a b | distance: b c | threshold 1 | label x"
    with pytest.raises(ReleaseFormatError, match="threshold 3 outside 0..2"):
        NonreciprocalRelease(["a", "b", "c"], [[1, 1, 0]], [[0, 1, 1]], [3])
    with pytest.raises(ParameterError, match="not in the release's vocabulary"):
        rel.estimate_count(["zzz"])
    doc = rel.to_dict()
    doc["base"] = [[0, 7]]
    with pytest.raises(ReleaseFormatError, match="item index outside"):
        NonreciprocalRelease.from_dict(doc)


def test_release_matcher_agrees_with_audit_matcher():
    data = load("chess").subset(np.arange(400))
    rel = anonymize_nonreciprocal(data, k=5, order="gray", rng=1)
    eo, ep = rel.match_arrays(data)
    ao, ap, _ = nonreciprocal_matches(data, rel)
    assert sorted(zip(eo.tolist(), ep.tolist(), strict=True)) == sorted(zip(ao.tolist(), ap.tolist(), strict=True))
    g = load("nr_table1")
    r = anonymize_nonreciprocal(g, k=3, order=GOLD_ORDER, rng=0)
    mg = r.match_graph(g)
    assert all(mg.out_degree(("orig", i)) >= 3 for i in range(6))
    assert r.match_counts(g).tolist() == [mg.out_degree(("orig", i)) for i in range(6)]


def test_empty_records_and_unknown_items():
    data = from_iterable([[], ["a"], ["a", "b"], []])
    rel = anonymize_nonreciprocal(data, k=2, order="identity", rng=0)
    assert (rel.match_counts(data) >= 2).all()
    other = from_iterable([["zzz"], [], ["a"], ["a", "b"]])
    assert rel.match_counts(other)[0] == 0
    # match kernel against brute force on a sparse example
    eo, ep = rel.match_arrays(data)
    ao, ap, _ = nonreciprocal_matches(data, rel)
    assert sorted(zip(eo.tolist(), ep.tolist(), strict=True)) == sorted(zip(ao.tolist(), ap.tolist(), strict=True))
    assert sp.issparse(rel.base)


def test_split_modules_keep_their_old_import_paths():
    # issue 12 split release/nonreciprocal.py and graphs/similarity.py; the old paths still work
    import graphanon.graphs.least_similar as least_similar
    import graphanon.graphs.similarity as similarity
    import graphanon.release.bit_voting as bit_voting
    import graphanon.release.nonreciprocal as nr_release

    assert nr_release.bit_vote is bit_voting.bit_vote
    assert nr_release.possible_world_counts is bit_voting.possible_world_counts
    assert similarity.least_similar_matching is least_similar.least_similar_matching


def test_match_edges_beyond_max_edges_are_counted_not_stored():
    import scipy.sparse as sp

    from graphanon.release.bit_voting import match_possible_worlds

    base = sp.csr_array(np.array([[1, 0, 0], [1, 0, 0]], dtype=bool))
    dist = sp.csr_array(np.array([[0, 1, 1], [0, 1, 0]], dtype=bool))
    Y = sp.csr_array(np.array([[1, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 0]], dtype=bool))
    po, pp, eo, ep, over = match_possible_worlds(base, dist, [2, 1], Y, 100)
    assert po.tolist() == [2, 2, 1, 0] and pp.tolist() == [3, 2] and not over  # record 3 lacks the base item
    po2, pp2, eo2, ep2, over2 = match_possible_worlds(base, dist, [2, 1], Y, 2)
    assert over2 and len(eo2) == 2 and po2.tolist() == po.tolist() and pp2.tolist() == pp.tolist()
    assert set(zip(eo2.tolist(), ep2.tolist())) <= set(zip(eo.tolist(), ep.tolist()))
