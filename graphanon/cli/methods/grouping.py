"""The grouping family on the command line: ``-a clump`` and ``-a partition``.

Both run through one adapter (:func:`grouping_runner`) over
:mod:`graphanon.algorithms.grouping`.
"""

from __future__ import annotations

from collections.abc import Callable

from graphanon.algorithms.registry import get_method
from graphanon.cli.registry import AlgorithmSpec, Param, RunOptions

__all__ = ["CLUMP", "PARTITION", "grouping_runner"]


def grouping_runner(name: str, params: tuple = (), *, seeded: bool = False) -> Callable:
    """The command-line adapter of a grouping method over a taxonomy (Clump, Partition).

    Returns ``run(data, opts)`` calling method ``name``'s ``anonymize(data, taxonomy=..., k=...,
    **params, [rng=...,] unsafe_secret_seed=..., progress=...)`` from the
    :class:`~graphanon.cli.registry.RunOptions`; ``params`` are the
    method's declared ``--param`` options (none refuses every ``--param``); ``seeded``: the
    method has structure randomness and takes ``rng`` (from ``--seed``).
    """

    def run(data, opts: RunOptions):
        anonymize = get_method(name)
        return anonymize(
            data, taxonomy=opts.taxonomy, k=opts.k, **opts.values(params),
            **({"rng": opts.seed} if seeded else {}),
            unsafe_secret_seed=opts.unsafe_secret_seed, progress=opts.progress,
            **({} if opts.client is None else {"client": opts.client}),
        )  # fmt: skip

    return run


PARTITION = AlgorithmSpec(
    name="partition",
    summary="Partition/LG: top-down local generalization into groups of >= k identical records (He & Naughton 2009)",
    adapter=grouping_runner("partition"),
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
    adapter=grouping_runner("clump", _CLUMP_PARAMS, seeded=True),
    privacy_model="transactional",
    needs_taxonomy=True,
    options=("k", "taxonomy", "seed"),
    params=_CLUMP_PARAMS,
)
