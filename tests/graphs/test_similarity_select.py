"""kNN with many neighbours (k > the old insertion-buffer limit) against brute force."""

import numpy as np

from graphanon.graphs.similarity import RecordSimilarityGraph


def test_knn_large_k_matches_brute_force():
    rng = np.random.default_rng(1)
    X = (rng.random((60, 12)) < 0.25).astype(int)
    g = RecordSimilarityGraph.knn(X, 20)
    inter = X @ X.T
    sizes = X.sum(axis=1)
    for i in range(60):
        sims = [(-(inter[i, j] / (sizes[i] + sizes[j] - inter[i, j])), j) for j in range(60) if j != i and inter[i, j] > 0]
        want = sorted(j for _, j in sorted(sims)[:20])
        assert sorted(g.neighbors(i)[0].tolist()) == want
