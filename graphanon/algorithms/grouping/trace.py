"""The trace of a grouping method (Clump, Partition): its groups and their costs.

A module of its own so that Clump does not import Partition (and Partition's
Dask helpers) to build its trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["GroupingTrace"]


@dataclass(frozen=True)
class GroupingTrace:
    """The record groups a local-recoding method formed (``release.trace``; memory only, never saved).

    Attributes
    ----------
    groups : int
        Number of groups.
    ggd_per_group : numpy.ndarray
        Each group's generalized-graph distance (GGD) cost.
    similarity_graph : RecordSimilarityGraph or None
        Clump only: the record-similarity graph it grouped over.

    Examples
    --------
    >>> GroupingTrace(groups=2, ggd_per_group=[0.0, 1.5])
    GroupingTrace(groups=2)
    """

    groups: int
    ggd_per_group: Any = field(repr=False)
    similarity_graph: Any = field(default=None, repr=False)
