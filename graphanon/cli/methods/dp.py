"""The differentially private methods on the command line: ``-a diffpart --epsilon E``, ``-a privbasis``.

A DP method reads ``--epsilon`` (the privacy loss of the release) and the
public item universe -- ``--taxonomy FILE`` (its leaves) or ``--universe FILE``
(one item per line) -- never the items observed in the data. It refuses
``--seed`` (a seed would make its noise reproducible) and ``--link-out`` (a
synthetic or itemset release has no row that stands for a record). PrivBasis
takes the number of itemsets as ``--param k=K``. ``--ledger FILE``
and ``--budget B`` are handled by ``graphanon anonymize`` for every method
whose ``privacy_model`` is ``"dp"`` (:mod:`graphanon.release.ledger`).
"""

from __future__ import annotations

from graphanon.algorithms.registry import get_method
from graphanon.cli.registry import AlgorithmSpec, Param, RunOptions
from graphanon.errors import ParameterError

__all__ = ["DIFFPART", "DP_MODEL", "PRIVBASIS"]

#: The ``privacy_model`` of a DP method: tested empirically, never audited from a release (docs/dp.md).
DP_MODEL = "dp"

_DIFFPART_PARAMS = (
    Param("fanout", int, 10, "children per node of the balanced taxonomy built over --universe (2-12)"),
    Param("c_internal", float, 6.75, "threshold constant of internal partitions (the authors' 6.75)"),
    Param("c_leaf", float, 2.75, "threshold constant of leaf partitions (the authors' 2.75)"),
)


def _run_diffpart(data, opts: RunOptions):
    values = opts.values(_DIFFPART_PARAMS)
    if opts.epsilon is None:
        raise ParameterError("algorithm 'diffpart' needs --epsilon E (the privacy loss of the release, > 0)")
    # a taxonomy the user typed wins; a bundled one is used when no --universe is given
    taxonomy = opts.taxonomy if opts.universe is None or opts.is_given("taxonomy") else None
    if taxonomy is not None and opts.universe is None and "fanout" in opts.params:
        raise ParameterError("--param fanout builds a taxonomy over --universe; with --taxonomy drop it")
    return get_method("diffpart")(data, epsilon=opts.epsilon, taxonomy=taxonomy, universe=opts.universe,
                                  progress=opts.progress, **values)


DIFFPART = AlgorithmSpec(
    name="diffpart",
    summary="DiffPart: a synthetic dataset under epsilon-DP by top-down partitioning over a public taxonomy "
            "(Chen et al. 2011; needs --epsilon and --universe or --taxonomy)",
    adapter=_run_diffpart, privacy_model=DP_MODEL, params=_DIFFPART_PARAMS,
    options=("taxonomy", "epsilon", "universe"),
)


_PRIVBASIS_PARAMS = (
    Param("k", int, None, "the number of itemsets to release (required), e.g. --param k=100"),
    Param("alpha1", float, 0.1, "share of epsilon for lambda, the number of frequent items (the paper's 0.1)"),
    Param("alpha2", float, 0.4, "share of epsilon for the frequent items and pairs (the paper's 0.4); "
          "the bin counts get the rest"),
    Param("eta", float, 1.1, "theta is the support of the ceil(eta*k)-th most frequent itemset (the paper's 1.1)"),
    Param("max_basis", int, 12, "the longest basis, 1-12 (2^l - 1 noisy bins each; the authors' 12)"),
)


def _run_privbasis(data, opts: RunOptions):
    values = opts.values(_PRIVBASIS_PARAMS)
    if opts.epsilon is None:
        raise ParameterError("algorithm 'privbasis' needs --epsilon E (the privacy loss of the release, > 0)")
    if values.get("k") is None:
        raise ParameterError("algorithm 'privbasis' needs --param k=K (the number of itemsets to release)")
    taxonomy = opts.taxonomy if opts.universe is None or opts.is_given("taxonomy") else None
    return get_method("privbasis")(data, epsilon=opts.epsilon, taxonomy=taxonomy, universe=opts.universe,
                                   progress=opts.progress, **values)


PRIVBASIS = AlgorithmSpec(
    name="privbasis",
    summary="PrivBasis: the top-k frequent itemsets with noisy supports under epsilon-DP (Li et al. 2012; needs "
            "--epsilon, --param k=K and --universe or --taxonomy)",
    adapter=_run_privbasis, privacy_model=DP_MODEL, params=_PRIVBASIS_PARAMS,
    options=("taxonomy", "epsilon", "universe"),
)
