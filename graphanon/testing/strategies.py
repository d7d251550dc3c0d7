"""Hypothesis strategies of transaction data, for property tests of your own method.

:func:`graphanon.testing.check_method` draws its random data from a seeded
numpy generator (it runs without hypothesis, which is in the ``dev`` extra
only); these strategies are for a test suite that has hypothesis, where a
failing case is shrunk to a smallest one.

Examples
--------
>>> from hypothesis import given, settings
>>> from graphanon.testing.strategies import transaction_data
>>> @settings(max_examples=5, deadline=None)
... @given(transaction_data(max_records=6))
... def test_records(data):
...     assert 1 <= data.n_records <= 6
>>> test_records()
"""

from __future__ import annotations

from typing import Any

try:
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - hypothesis is in the dev extra
    raise ImportError("graphanon.testing.strategies needs hypothesis: pip install hypothesis "
                      "(graphanon.testing.check_method itself does not)") from exc

from graphanon.data import from_iterable

__all__ = ["transaction_data"]


@st.composite
def transaction_data(draw: Any, *, min_records: int = 1, max_records: int = 12, max_items: int = 6,
                     labels: int = 0, empty_records: bool = False):
    """Small :class:`~graphanon.data.TransactionData`: records over items ``i0..``, optional labels.

    Parameters
    ----------
    draw : callable
        Hypothesis's draw (given by ``@st.composite``).
    min_records, max_records : int
        Bounds of the number of records.
    max_items : int
        Largest vocabulary (``i0`` ... ``i{n-1}``; every item is declared, some may be unused).
    labels : int
        Number of sensitive label values (``s0``, ...) to draw per record; 0: no labels.
    empty_records : bool
        Whether a record may have no items.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of TransactionData

    Notes
    -----
    Complexity: O(records * items) per example.
    """
    n_items = draw(st.integers(1, max_items))
    records = draw(st.lists(st.sets(st.integers(0, n_items - 1), min_size=0 if empty_records else 1),
                            min_size=min_records, max_size=max_records))
    label_values = None
    if labels:
        label_values = [f"s{v}" for v in draw(st.lists(st.integers(0, labels - 1), min_size=len(records),
                                                       max_size=len(records)))]
    return from_iterable([[f"i{j}" for j in sorted(r)] for r in records], labels=label_values,
                         items=[f"i{j}" for j in range(n_items)])


transaction_data.__qualname__ = "transaction_data"  # hypothesis's wrapper names itself accept.<locals>...
