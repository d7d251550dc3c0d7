"""Differentially private methods: sound noise (OpenDP) and DiffPart.

:mod:`~graphanon.algorithms.dp.noise` draws every number that carries the
guarantee (OpenDP's exact discrete Laplace, OS entropy, never a seed);
:mod:`~graphanon.algorithms.dp.diffpart` publishes a synthetic set-valued
dataset under epsilon-DP (Chen et al., PVLDB 2011);
:mod:`~graphanon.algorithms.dp.privbasis` the top-k frequent itemsets with
noisy supports (Li et al., PVLDB 2012). See ``docs/dp.md``.
"""

from graphanon.utils.lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, globals(), {
    "graphanon.algorithms.dp.noise": ("check_epsilon", "discrete_laplace", "discrete_laplace_tail", "noisy_max",
                                     "noisy_top_k"),
    "graphanon.algorithms.dp.privbasis": ("anonymize_privbasis",),
    "graphanon.algorithms.dp.diffpart": ("anonymize_diffpart",),
})

#: The family's methods: name -> the declaration beside each function (read by
#: :mod:`graphanon.algorithms.registry`; importing this package imports none of them).
METHOD_DECLARATIONS = {"diffpart": "graphanon.algorithms.dp.diffpart:DIFFPART",
                       "privbasis": "graphanon.algorithms.dp.privbasis:PRIVBASIS"}
