"""What the family's declarations share: the ``--param`` texts, the categories hook, the argument constraints.

``categories=random:N[:SEED]``, ``taxonomy-level:DEPTH`` or a CSV file become the
:class:`~graphanon.taxonomy.ItemGroups` the functions take
(:func:`graphanon.taxonomy.categories.parse_categories`). Each method's
:class:`~graphanon.algorithms.declaration.MethodDeclaration` sits beside its function.
"""

from __future__ import annotations

from numbers import Integral

from graphanon.algorithms.declaration import Advice, MethodDeclaration, Parameter, Required
from graphanon.errors import ParameterError
from graphanon.taxonomy.categories import parse_categories
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.params import COMMON, RNG, Interval, StrOptions

_MEANINGS = {"categories": "the item categories (graphanon.taxonomy.ItemGroups)", "spread": "partners per record"}

#: The arguments of PartSwap and FullSwap, declared once (``@validate_params``).
_PAIR_CONSTRAINTS = {"categories": [ItemGroups], "rng": RNG, **COMMON, "visit": [StrOptions(("random", "input"))],
                     "spread": [Interval(Integral, 1, None)],
                     "unpaired": [StrOptions(("splice", "suppress", "keep"))]}

_CATEGORIES = Parameter("categories", str, None, "random:N[:SEED], taxonomy-level:DEPTH or an item,category CSV "
                        "file", argument=None)
#: The swaps cannot run without their categories (refused before anything runs, on every door).
_NEEDS_CATEGORIES = Required(("categories",), "categories=random:3",
                             "random:N[:SEED], taxonomy-level:DEPTH or an item,category CSV file")
_VISIT = Parameter("visit", str, "random", "visiting order and tie-break of the partner search")
_SPREAD = Parameter("spread", int, 1, "partners per record: source items dealt into this many parts, one partner "
                    "each (mitigates the partner-tendency attack)")
_UNPAIRED = Parameter("unpaired", str, "splice", "a record no partner is left for: splice (it joins an exchange "
                      "A -> L -> B, or takes part of a paired record's source items; when nothing admits it, it gets "
                      "part of another row's gift and its source items go to a row that lacks them), suppress (its heaviest category's items are removed: an adversary holding the "
                      "record sees it) or keep (the paper's rule: it keeps its tendency and the audit reports it)")


def _prepare_categories(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    """The swaps: ``--param categories=`` becomes the ItemGroups; ``--taxonomy`` only for ``taxonomy-level:``."""
    name, spec = declaration.name, values["categories"]
    if opts.k is not None or opts.m is not None:
        raise ParameterError(f"{name} takes no -k or -m: it hides tendencies, it does not count records")
    if opts.is_given("taxonomy") and not str(spec or "").startswith("taxonomy-level:"):
        raise ParameterError(f"{name} reads --taxonomy only for categories=taxonomy-level:DEPTH; drop it")
    kwargs["categories"] = parse_categories(spec, data, opts.taxonomy)
    return kwargs



def _swap_declaration(name: str, function, summary: str, *, visit: bool, less_suppression: str | None = None
                      ) -> MethodDeclaration:
    params = (_CATEGORIES, _VISIT, _SPREAD, _UNPAIRED) if visit else (_CATEGORIES,)
    return MethodDeclaration(
        name=name, family="swapping", function=function, privacy_model="tendency", summary=summary, params=params,
        audit_params=("categories",),
        published=frozenset({"n_categories", "visit", "spread", "unpaired"} if visit else {"n_categories"}),
        options=("taxonomy", "seed") if visit else ("taxonomy",), prepare=_prepare_categories,
        required=(_NEEDS_CATEGORIES,),
        advice=Advice(less_suppression=less_suppression),
    )

