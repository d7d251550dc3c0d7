"""COAT on the command line (``-a coat``).

The ``--param privacy=... utility=... s=... weights=...`` policies mapped to
:func:`~graphanon.algorithms.coat.anonymize_coat`.

The text specs are parsed by :mod:`graphanon.taxonomy.constraint_sets` (shared with
the ``constraints`` audit model).
"""

from __future__ import annotations

from graphanon.cli.registry import AlgorithmSpec, Param, RunOptions
from graphanon.errors import ParameterError
from graphanon.release import GlobalRecoding
from graphanon.taxonomy.constraint_sets import parse_fraction, parse_privacy, parse_utility

__all__ = ["COAT"]

_PARAMS = (
    Param("privacy", str, None, "privacy constraints: pgen, km:M, bundled or a FILE (default: km:M from -m, else pgen)",
          argument=None),
    Param("utility", str, "all", "utility constraints: all, bundled, groups:FILE or taxonomy-level:N",
          argument=None),
    Param("s", parse_fraction, 0.005, "largest fraction of the items that may be suppressed (0.005 or 0.5%)"),
    Param("weights", str, "one", "item weights of the information loss", choices=("one", "taxonomy"),
          argument=None),
)


def _run(data, opts: RunOptions) -> GlobalRecoding:
    values = opts.values(_PARAMS)
    k = opts.required_k("coat")
    privacy = values["privacy"]
    if privacy is not None:
        opts.refuse(("m",), f"--param privacy={privacy} sets COAT's privacy constraints (k^m ones: privacy=km:M)")
    elif opts.is_given("m") and opts.m is None:
        raise ParameterError("-m inf: COAT's k^m constraints need a whole number m (or --param privacy=pgen)")
    else:
        privacy = f"km:{opts.m}" if opts.m is not None else "pgen"
    P = parse_privacy(privacy, data, k)
    U = parse_utility(values["utility"], data, opts.taxonomy)
    s = values["s"]
    weights = values["weights"]
    if weights == "taxonomy" and opts.taxonomy is None:
        raise ParameterError("--param weights=taxonomy needs --taxonomy FILE")
    if weights != "taxonomy" and not values["utility"].startswith("taxonomy-level:"):
        opts.refuse(("taxonomy",), "COAT reads a taxonomy only with --param weights=taxonomy or utility=taxonomy-level:N")
    from graphanon.algorithms.coat.engine import anonymize_coat

    return anonymize_coat(
        data, privacy=P, utility=U, k=k, s=s, weights=opts.taxonomy if weights == "taxonomy" else None, progress=opts.progress,
        unsafe_secret_seed=opts.unsafe_secret_seed,
    )


COAT = AlgorithmSpec(
    name="coat",
    summary=(
        "COAT set-based generalization under constraints (--param privacy=pgen|km:M|bundled|FILE "
        "utility=all|bundled|groups:FILE|taxonomy-level:N s=0.5% weights=one|taxonomy)"
    ),
    adapter=_run,
    privacy_model="constraints",
    needs_taxonomy=False,
    params=_PARAMS,
    audit_params=("privacy", "utility", "s"),
)
