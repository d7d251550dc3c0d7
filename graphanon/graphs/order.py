"""The record-order structures of nonreciprocal recoding.

The engines that compute them live in :mod:`graphanon.algorithms.nonreciprocal`
(:func:`~graphanon.algorithms.nonreciprocal.gray_tsp_details`,
:func:`~graphanon.algorithms.nonreciprocal.order_report`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

__all__ = ["GrayTSPResult", "OrderReport"]


@dataclass
class GrayTSPResult:
    """The Gray-TSP order with its intermediate steps.

    Attributes
    ----------
    order : ndarray of int64
        The Gray-TSP order (a permutation of the records).
    gray : ndarray of int64
        The Gray order it started from.
    bounds : ndarray of int64
        Segment boundaries (positions, shared by both orders; see
        :func:`segment_breakpoints`).
    gray_costs, tsp_costs : ndarray of int64
        Hamming path length of each segment in the Gray order and in the
        Gray-TSP order (``tsp_costs <= gray_costs``).
    solved : ndarray of bool
        Segments handed to the TSP solver (others were already optimal by the
        lower bound, or had at most one interior record).
    """

    order: np.ndarray
    gray: np.ndarray
    bounds: np.ndarray
    gray_costs: np.ndarray
    tsp_costs: np.ndarray
    solved: np.ndarray


@dataclass
class OrderReport:
    """Total cyclic Hamming length of the identity, Gray and Gray-TSP orders.

    Attributes
    ----------
    n_records, n_items : int
    identity, gray, gray_tsp : int
        Total cyclic Hamming lengths.
    n_segments : int
        Segments of the Gray-TSP order.
    seconds_gray, seconds_gray_tsp : float
        Wall-clock time to compute each order (Gray-TSP includes the Gray order).
    params : dict
        The Gray-TSP parameters used.
    """

    n_records: int
    n_items: int
    identity: int
    gray: int
    gray_tsp: int
    n_segments: int
    seconds_gray: float
    seconds_gray_tsp: float
    params: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """A JSON-serializable dict of the report."""
        return asdict(self)
