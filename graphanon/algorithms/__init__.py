"""Anonymizers, one module per method.

Each module defines ``anonymize_<method>(data, *, ..., rng=None) -> Release``
and registers a CLI adapter in :mod:`graphanon.algorithms.registry`.
Importing this package registers the built-in methods.
"""

from graphanon.algorithms import cut  # noqa: F401
from graphanon.algorithms.cahd_release import anonymize_cahd
from graphanon.algorithms.cut import anonymize_cut
from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
from graphanon.algorithms.registry import (
    AlgorithmSpec,
    RunOptions,
    get_algorithm,
    register,
    registered,
)

__all__ = [
    "AlgorithmSpec",
    "RunOptions",
    "anonymize_cahd",
    "anonymize_cut",
    "anonymize_nonreciprocal",
    "get_algorithm",
    "register",
    "registered",
]
