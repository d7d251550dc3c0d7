"""Anonymizers, one module per method.

Each module defines ``anonymize_<method>(data, *, ..., rng=None) -> Release``
and registers a CLI adapter in :mod:`graphanon.algorithms.registry`.
Importing this package registers the built-in methods.
"""

from graphanon.algorithms.apriori import anonymize_aa
from graphanon.algorithms.cahd_release import anonymize_cahd
from graphanon.algorithms.clump import anonymize_clump
from graphanon.algorithms.coat import anonymize_coat, pgen
from graphanon.algorithms.cut import anonymize_cut
from graphanon.algorithms.hghs import anonymize_hghs, anonymize_mhghs
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.partition import anonymize_partition
from graphanon.algorithms.registry import (
    AlgorithmSpec,
    RunOptions,
    get_algorithm,
    register,
    registered,
)
from graphanon.algorithms.suppression import anonymize_mm
from graphanon.algorithms.swapping import (
    anonymize_fullswap,
    anonymize_partsupp,
    anonymize_partswap,
    anonymize_randswap,
    anonymize_splitperson,
)

__all__ = [
    "AlgorithmSpec",
    "RunOptions",
    "anonymize_aa",
    "anonymize_cahd",
    "anonymize_clump",
    "anonymize_coat",
    "anonymize_cut",
    "anonymize_fullswap",
    "anonymize_hghs",
    "anonymize_mhghs",
    "anonymize_mm",
    "anonymize_nonreciprocal",
    "anonymize_partition",
    "anonymize_partsupp",
    "anonymize_partswap",
    "anonymize_randswap",
    "anonymize_splitperson",
    "get_algorithm",
    "pgen",
    "register",
    "registered",
]
