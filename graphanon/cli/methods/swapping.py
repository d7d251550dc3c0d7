"""The swapping methods of Gunawan & Mambo on the command line.

``-a partswap``, ``fullswap``, ``partsupp``, ``splitperson``, ``randswap``.

``--param categories=`` is parsed by :func:`graphanon.taxonomy.categories.parse_categories`
into the :class:`~graphanon.taxonomy.ItemGroups` the functions of
:mod:`graphanon.algorithms.swapping` take.
"""

from __future__ import annotations

from graphanon.algorithms.registry import get_method
from graphanon.cli.registry import AlgorithmSpec, Param, RunOptions
from graphanon.errors import ParameterError
from graphanon.taxonomy.categories import parse_categories
from graphanon.taxonomy.tree import ItemGroups

__all__ = ["FULLSWAP", "PARTSUPP", "PARTSWAP", "RANDSWAP", "SPLITPERSON"]

_CATEGORIES = Param("categories", str, None, "random:N[:SEED], taxonomy-level:DEPTH or an item,category CSV file",
                    argument=None)
_VISIT = Param("visit", str, "random", "visiting order and tie-break of the partner search")
_SPREAD = Param("spread", int, 1, "partners per record: source items dealt into this many parts, one partner "
                "each (mitigates the partner-tendency attack)")
_UNPAIRED = Param("unpaired", str, "splice", "a record no partner is left for: splice (it joins an exchange "
                  "A -> L -> B, or takes part of a paired record's source items; suppressed only when nothing "
                  "admits it), suppress (its heaviest category's items are removed: an adversary holding the "
                  "record sees it) or keep (the paper's rule: it keeps its tendency and the audit reports it)")


def _categories(data, opts: RunOptions, name: str, spec: str | None) -> ItemGroups:
    if opts.k is not None or opts.m is not None:
        raise ParameterError(f"{name} takes no -k or -m: it hides tendencies, it does not count records")
    if opts.is_given("taxonomy") and not str(spec or "").startswith("taxonomy-level:"):
        raise ParameterError(f"{name} reads --taxonomy only for categories=taxonomy-level:DEPTH; drop it")
    if spec is None:
        raise ParameterError(
            f"{name} needs --param categories=random:N[:SEED], taxonomy-level:DEPTH or an item,category CSV file"
        )
    return parse_categories(spec, data, opts.taxonomy)


def _runner(name: str, params: tuple[Param, ...], seeded: bool):

    def run(data, opts: RunOptions):
        func = get_method(name)
        values = opts.values(params)
        categories = _categories(data, opts, name, values.pop("categories"))
        return func(data, categories=categories, **({"rng": opts.seed} if seeded else {}),
                    unsafe_secret_seed=opts.unsafe_secret_seed,
                    progress=opts.progress, **values)

    return run


def _run_randswap(data, opts: RunOptions):
    opts.values(())  # no --param options
    if opts.k is not None or opts.m is not None:
        raise ParameterError("randswap takes no -k or -m")
    return get_method("randswap")(data, unsafe_secret_seed=opts.unsafe_secret_seed, progress=opts.progress)


def _swap_spec(name: str, summary: str, visit: bool) -> AlgorithmSpec:
    params = (_CATEGORIES, _VISIT, _SPREAD, _UNPAIRED) if visit else (_CATEGORIES,)
    return AlgorithmSpec(
        name=name, summary=summary, adapter=_runner(name, params, visit), privacy_model="tendency", params=params,
        audit_params=("categories",), options=("taxonomy", "seed") if visit else ("taxonomy",),
    )


PARTSWAP = _swap_spec("partswap", "PartSwap: swap each tendency's items with the least similar record (Gunawan & Mambo)",
                      True)
FULLSWAP = _swap_spec("fullswap", "FullSwap: PartSwap plus full swaps of single-category records", True)
PARTSUPP = _swap_spec("partsupp", "PartSupp baseline: remove each record's heaviest category", False)
SPLITPERSON = _swap_spec("splitperson", "SplitPerson baseline: one record per category of each record", False)
RANDSWAP = AlgorithmSpec(name="randswap", summary="RandSwap baseline: random pairs exchange random halves "
                         "(secret pairs: no --seed)", adapter=_run_randswap, privacy_model="tendency", params=(),
                         options=())
