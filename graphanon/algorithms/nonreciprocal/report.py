"""Compare the total cyclic Hamming length of the identity, Gray and Gray-TSP orders."""

from __future__ import annotations

import time

import numpy as np

from graphanon.algorithms.nonreciprocal.gray import consecutive_packed, gray_order_packed
from graphanon.algorithms.nonreciprocal.tsp import gray_tsp_details
from graphanon.counting.bitset import bytes_to_words, pack_bytes
from graphanon.graphs.order import OrderReport

__all__ = ["order_report"]


def order_report(X, **tsp_params) -> OrderReport:
    """Compare the total cyclic Hamming length of the identity, Gray and Gray-TSP orders.

    Parameters
    ----------
    X : TransactionData, scipy sparse matrix, or 2-D array-like of 0/1
    **tsp_params
        Keyword arguments of :func:`gray_tsp_details` (``time_limit=None`` with a
        ``step_limit`` for a reproducible report).

    Returns
    -------
    OrderReport

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> rep = order_report(load("nr_table1"), time_limit=None, step_limit=4000)  # no clock: same on a busy machine
    >>> rep.identity, rep.gray, rep.gray_tsp
    (14, 12, 10)
    """
    packed, b = pack_bytes(X)
    n = packed.shape[0]
    words = bytes_to_words(packed)
    t0 = time.perf_counter()
    gray = gray_order_packed(packed, b)
    t1 = time.perf_counter()
    res = gray_tsp_details(X, **tsp_params)
    t2 = time.perf_counter()
    ident = np.arange(n, dtype=np.int64)
    return OrderReport(
        n_records=int(n),
        n_items=int(b),
        identity=int(consecutive_packed(words, ident, True).sum()),
        gray=int(consecutive_packed(words, gray, True).sum()),
        gray_tsp=int(consecutive_packed(words, res.order, True).sum()),
        n_segments=int(len(res.bounds) - 1),
        seconds_gray=t1 - t0,
        seconds_gray_tsp=t2 - t1,
        params={k: v for k, v in tsp_params.items() if k != "progress"},
    )
