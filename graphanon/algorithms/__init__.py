"""Anonymizers, one module per method.

Each module defines ``anonymize_<method>(data, *, ..., rng=None) -> Release``
and registers a CLI adapter in :mod:`graphanon.algorithms.registry`.
Importing this package registers the built-in methods.
"""

from graphanon.algorithms import coat  # noqa: F401
from graphanon.algorithms import cut  # noqa: F401
from graphanon.algorithms.coat import anonymize_coat, pgen
from graphanon.algorithms.apriori import anonymize_aa
from graphanon.algorithms.cut import anonymize_cut
from graphanon.algorithms.hghs import anonymize_hghs, anonymize_mhghs
from graphanon.algorithms.registry import (
    AlgorithmSpec,
    RunOptions,
    get_algorithm,
    register,
    registered,
)
from graphanon.algorithms.suppression import anonymize_mm

__all__ = [
    "AlgorithmSpec",
    "RunOptions",
    "anonymize_coat",
    "anonymize_aa",
    "anonymize_cut",
    "anonymize_hghs",
    "anonymize_mhghs",
    "anonymize_mm",
    "get_algorithm",
    "register",
    "pgen",
    "registered",
]
