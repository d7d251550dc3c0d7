"""Record-similarity graphs against brute-force Jaccard."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.datasets import load
from graphanon.errors import ParameterError
from graphanon.graphs import similarity
from graphanon.graphs.similarity import RecordSimilarityGraph, jaccard_to


def brute(X):
    X = np.asarray(X, dtype=bool)
    n = len(X)
    S = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            union = (X[i] | X[j]).sum()
            if i != j and union:
                S[i, j] = (X[i] & X[j]).sum() / union
    return S


matrices = st.integers(1, 12).flatmap(
    lambda n: st.lists(st.lists(st.booleans(), min_size=6, max_size=6), min_size=n, max_size=n)
)


@settings(max_examples=60, deadline=None)
@given(X=matrices, k=st.integers(1, 4), tiny_blocks=st.booleans())
def test_overlap_and_knn_match_brute_force(X, k, tiny_blocks):
    S = brute(X)
    old = similarity._BLOCK_NNZ
    similarity._BLOCK_NNZ = 1 if tiny_blocks else old
    try:
        g = RecordSimilarityGraph.overlap(X)
        knn = RecordSimilarityGraph.knn(X, k)
    finally:
        similarity._BLOCK_NNZ = old
    np.testing.assert_allclose(g.matrix.toarray(), S)
    for i in range(len(X)):
        idx, sim = knn.neighbors(i)
        # expected: positive similarities, highest first, ties by lower index, first k
        cand = [j for j in range(len(X)) if S[i, j] > 0]
        cand.sort(key=lambda j: (-S[i, j], j))
        assert sorted(idx.tolist()) == sorted(cand[:k])
        np.testing.assert_allclose(sim, S[i, idx])


def test_rows_min_similarity_and_jaccard_to():
    X = load("chess").matrix[:200]
    S = brute(X.toarray())
    rows = np.array([5, 3, 150])
    g = RecordSimilarityGraph.overlap(X, rows=rows, min_similarity=0.6)
    M = g.matrix.toarray()
    assert not M[np.setdiff1d(np.arange(200), rows)].any()
    np.testing.assert_allclose(M[rows], np.where(S[rows] > 0.6, S[rows], 0))
    np.testing.assert_allclose(jaccard_to(X, 7, np.arange(200)), np.where(np.arange(200) == 7, 1.0, S[7]))


def test_views_and_errors():
    X = [[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 0, 0]]
    g = RecordSimilarityGraph.overlap(X)
    nxg = g.to_networkx()
    assert nxg.number_of_nodes() == 4 and nxg.number_of_edges() == 1 and nxg[0][1]["weight"] == 0.5
    ig = g.to_igraph()
    assert ig.vcount() == 4 and ig.ecount() == 1 and ig.es["weight"] == [0.5]
    assert g.subgraph([1, 0]).matrix.toarray().tolist() == [[0, 0.5], [0.5, 0]]
    assert g.degrees().tolist() == [1, 1, 0, 0]
    with pytest.raises(ParameterError, match="max_edges"):
        g.to_networkx(max_edges=1)
    with pytest.raises(ParameterError, match="k must be"):
        RecordSimilarityGraph.knn(X, 0)
    with pytest.raises(ParameterError, match="min_similarity"):
        RecordSimilarityGraph.overlap(X, min_similarity=1.0)
    with pytest.raises(ParameterError, match="record indices"):
        RecordSimilarityGraph.overlap(X, rows=[9])
