"""PrivBasis (issue 33): the mechanism's parts against brute force, the itemset release, the refusals.

The guarantee itself is tested empirically in tests/algorithms/test_privbasis_empirical.py.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import graphanon.algorithms.dp.privbasis as pb
from graphanon.algorithms.dp.noise import noisy_max, noisy_top_k
from graphanon.data import from_iterable
from graphanon.errors import ParameterError, ReleaseFormatError
from graphanon.metrics.itemsets import top_k_itemsets, top_k_metrics
from graphanon.release.itemsets import ItemsetRelease
from graphanon.taxonomy import Taxonomy

UNIVERSE = ["a", "b", "c", "d", "e", "f"]
DATA = from_iterable([["a", "b", "c"]] * 50 + [["a", "b"]] * 30 + [["c", "d"]] * 25 + [["e"]] * 12 + [["a"]] * 8)


def _brute_supports(data) -> dict[frozenset, int]:
    rows = [frozenset(data.items[j] for j in data.matrix[[i]].indices) for i in range(data.n_records)]
    out: dict[frozenset, int] = {}
    for r in rows:
        for size in range(1, len(r) + 1):
            for sub in itertools.combinations(sorted(r), size):
                out[frozenset(sub)] = out.get(frozenset(sub), 0) + 1
    return out


def test_superset_sums_match_brute_force():
    rng = np.random.default_rng(1)
    for length in (1, 3, 5):
        values = rng.integers(-5, 20, 1 << length).astype(float)
        got = pb._superset_sums(values, length)
        want = [sum(values[s] for s in range(1 << length) if s & t == t) for t in range(1 << length)]
        assert np.allclose(got, want)


def test_kth_support_matches_brute_force():
    X = pb._records_over_universe(DATA, UNIVERSE)
    counts = np.bincount(X.indices, minlength=len(UNIVERSE))
    sups = sorted(_brute_supports(DATA).values(), reverse=True)
    for k1 in (1, 2, 5, 8, len(sups)):
        assert pb._kth_support(X, counts, k1) == sups[k1 - 1]
    assert pb._kth_support(X, counts, len(sups) + 1) == 0  # fewer itemsets than k1 in the data


def test_top_k_itemsets_match_brute_force_with_ties():
    sups = _brute_supports(DATA)
    for k in (1, 3, 6, 9):
        cut = sorted(sups.values(), reverse=True)[k - 1]
        assert top_k_itemsets(DATA, k) == {s: n for s, n in sups.items() if n >= cut}


def test_bases_from_the_cliques_of_the_pair_graph():
    # pairs: a triangle 0-1-2 and an edge 2-3; item 4 and 5 in no pair
    bases = pb._bases([0, 1, 2, 3, 4, 5], [(0, 1), (1, 2), (0, 2), (2, 3)], max_basis=12)
    # cliques {0,1,2} and {2,3} merge (union of 4 > L = 3? no: L is the largest clique, 3) -> they stay apart;
    # the orphans 4, 5 fill {2,3} up to 3 items, then what is left forms a basis of its own
    assert bases == [[0, 1, 2], [2, 3, 4], [5]]
    # a clique longer than max_basis is cut into pieces; every frequent item is in some basis
    bases = pb._bases(list(range(5)), list(itertools.combinations(range(5), 2)), max_basis=2)
    assert bases == [[0, 1], [2, 3], [4]]
    assert pb._merge([[0, 1], [1, 2], [5]], 3) == [[0, 1, 2], [5]]


def test_selections_spend_their_budget_by_opendps_map():
    assert noisy_max([5, 0, 0], 1e3) == 0
    assert sorted(noisy_top_k([9, 0, 8, 1], 2, 1e3)) == [0, 2]
    assert sorted(noisy_top_k([1, 2], 5, 1.0)) == [0, 1]  # k larger than the candidates takes them all
    with pytest.raises(ParameterError, match="at least one candidate"):
        noisy_max([], 1.0)


def test_large_epsilon_releases_the_exact_top_k():
    # with a huge budget every draw is (almost surely) exact: the release is the true top-k with true supports
    rel = pb.anonymize_privbasis(DATA, k=5, epsilon=1e4, universe=UNIVERSE)
    truth = _brute_supports(DATA)
    got = rel.itemset_supports()
    assert len(got) == 5 and all(truth[s] == pytest.approx(v) for s, v in got.items())
    m = top_k_metrics(DATA, rel)
    assert m["topk_precision"] == m["topk_recall"] == m["topk_f"] == 1.0 and m["support_relative_error"] == 0.0


def test_the_pair_path_and_its_trace():
    # lambda > max_basis: frequent items, then pairs, then bases from the pair graph's cliques
    rel = pb.anonymize_privbasis(DATA, k=9, epsilon=1e4, universe=UNIVERSE, max_basis=2)
    tr = rel.trace
    assert tr.lam >= 3 and all(len(b) <= 2 for b in tr.bases) and set(tr.items) <= {x for b in tr.bases for x in b}
    truth = _brute_supports(DATA)
    assert all(truth.get(s, 0) == pytest.approx(v) for s, v in rel.itemset_supports().items())


def test_refusals():
    with pytest.raises(ParameterError, match="needs the public item universe"):
        pb.anonymize_privbasis(DATA, k=3, epsilon=1.0)
    with pytest.raises(ParameterError, match="record 106 holds item 'e', which is not in the public universe"):
        pb.anonymize_privbasis(DATA, k=3, epsilon=1.0, universe=["a", "b", "c", "d"])
    with pytest.raises(ParameterError, match="alpha1 \\+ alpha2"):
        pb.anonymize_privbasis(DATA, k=3, epsilon=1.0, universe=UNIVERSE, alpha1=0.5, alpha2=0.5)
    with pytest.raises(ParameterError, match="epsilon"):
        pb.anonymize_privbasis(DATA, k=3, epsilon=0, universe=UNIVERSE)
    with pytest.raises(ParameterError, match="differ"):
        pb.anonymize_privbasis(DATA, k=3, epsilon=1.0, universe=UNIVERSE, taxonomy=Taxonomy.balanced(["a"], fanout=2))
    with pytest.raises(TypeError):
        pb.anonymize_privbasis(DATA, k=3, epsilon=1.0, universe=UNIVERSE, rng=0)  # no seed, ever
    # the taxonomy's leaves are a universe
    rel = pb.anonymize_privbasis(DATA, k=3, epsilon=1.0, taxonomy=Taxonomy.balanced(UNIVERSE, fanout=3))
    assert rel.items == tuple(Taxonomy.balanced(UNIVERSE, fanout=3).leaves)


def test_itemset_release_queries_and_format_errors():
    rel = ItemsetRelease(items=["a", "b", "c"], itemsets=sp.csr_array([[1, 1, 0], [1, 0, 0], [0, 1, 0]]),
                         supports=[40.0, 97.0, 60.0])
    assert [rel.render_record(i) for i in range(3)][0].startswith("a ")  # ranked by noisy support
    assert rel.estimate_count(["b"], ["a"]) == 20.0 and rel.estimate_count(["z"]) == 0.0
    with pytest.raises(ParameterError, match="no noisy support for \\{c\\}"):
        rel.estimate_count(["c"])
    assert rel.match_counts(DATA).sum() == 0 and rel.match_graph(DATA).number_of_edges() == 0
    with pytest.raises(ParameterError, match="released twice"):
        ItemsetRelease(items=["a"], itemsets=sp.csr_array([[1], [1]]), supports=[1.0, 2.0])
    doc = rel.to_dict()
    for key, value, msg in (("supports", [1.0, "x", 2.0], "finite numbers"), ("itemsets", [[0], [], [1]], "non-empty"),
                            ("itemsets", [[0], [7], [1]], "outside"), ("n_records", 2, "holds 3 itemsets")):
        with pytest.raises(ReleaseFormatError, match=msg):
            ItemsetRelease.from_dict({**doc, key: value})
