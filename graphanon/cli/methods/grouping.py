"""The grouping family on the command line: ``-a clump`` and ``-a partition``.

Both run through the taxonomy methods' adapter (:func:`~graphanon.cli.registry.taxonomy_runner`) over
:mod:`graphanon.algorithms.grouping`.
"""

from __future__ import annotations

from graphanon.cli.registry import AlgorithmSpec, Param, taxonomy_runner

__all__ = ["CLUMP", "PARTITION"]


PARTITION = AlgorithmSpec(
    name="partition",
    summary="Partition/LG: top-down local generalization into groups of >= k identical records (He & Naughton 2009)",
    adapter=taxonomy_runner("partition", distributed=True),
    privacy_model="transactional",
    needs_taxonomy=True,
    options=("k", "taxonomy", "scheduler"),
)


_CLUMP_PARAMS = (
    Param("neighbors", int, 50, "neighbours per record in the similarity graph the candidates come from"),
    Param("pool", int, 64, "fallback candidates when a group has no unassigned neighbour left"),
)


CLUMP = AlgorithmSpec(
    name="clump",
    summary="Clump: groups of >= k similar records published as their least common generalization",
    adapter=taxonomy_runner("clump", _CLUMP_PARAMS, seeded=True, distributed=True),
    privacy_model="transactional",
    needs_taxonomy=True,
    options=("k", "taxonomy", "seed", "scheduler"),
    params=_CLUMP_PARAMS,
)
