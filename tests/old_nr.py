"""The old, leaky seeded ``nr`` (before issue 20), kept to show what the seed attacks catch.

Not part of the package. It builds a k-only nonreciprocal release exactly as ``nr`` did before the
fix: the seed (``rng``) fixed the record order, the ring AND the extraction of the k disjoint
assignments; only the choice among them and the row shuffle came from the secret generator. A seed
holder therefore re-runs it and gets the very k assignments the published one was chosen from.
"""

from __future__ import annotations

from graphanon.algorithms.nonreciprocal import (
    NonreciprocalTrace,
    extract_assignments,
    members_matrix,
    record_order,
)
from graphanon.graphs.generalization import GeneralizationGraph
from graphanon.release import NonreciprocalRelease, publish
from graphanon.utils.randomness import check_random_state, secret_generator


def old_seeded_nr(data, *, k: int, rng: int, order: str = "gray", unsafe_secret_seed: int | None = None):
    """A k-only ``nr`` release made the old way (the seed also decides the k assignments)."""
    gen = check_random_state(rng)
    tsp_seed = int(gen.integers(2**31 - 1))
    perm = record_order(data, order, rng=tsp_seed)
    graph = GeneralizationGraph.ring(perm, k, data.record_ids)
    assignments = extract_assignments(graph, rng=gen)  # the leak: structure randomness decides them
    secret = secret_generator(unsafe_secret_seed)
    sigma = assignments[int(secret.integers(k))]
    aligned = NonreciprocalRelease.from_preimages(
        data, members_matrix(assignments, data.n_records), sigma, algorithm="nr", params={"k": k}
    )
    release = publish(data, aligned, secret=secret)
    release.trace = NonreciprocalTrace(order=perm, graph=graph, assignments=assignments)
    return release
