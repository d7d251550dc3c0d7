"""One job's whole process (issue 24): the vectorized release writer and what a job imports.

The writer must give the bytes ``json.dumps`` gave (saved releases are compared
by hash across versions); the lazy-import checks run the CLI in a fresh
interpreter and read ``sys.modules``.
"""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphanon.readwrite.files import IntRows, dumps_json, dumps_json_document

rows_strategy = st.lists(st.lists(st.integers(0, 2**63 - 1) | st.integers(0, 12), max_size=6), max_size=8)


@settings(max_examples=300, deadline=None)
@given(rows_strategy)
def test_int_rows_encode_like_json_dumps(rows):
    indptr = np.r_[0, np.cumsum([len(r) for r in rows], dtype=np.int64)]
    values = np.array([x for r in rows for x in r], dtype=np.int64)
    encoded = IntRows(indptr, values)
    assert encoded.to_json() == json.dumps(rows, separators=(",", ":"))
    assert encoded.tolist() == rows
    doc = {"a": 1.5, "records": encoded, "nan": float("nan"), "label": "é\"x"}
    plain = {**doc, "records": rows}
    assert dumps_json_document(doc) == dumps_json(plain, separators=(",", ":"))


def test_int_rows_refuse_negative_values():
    import pytest

    with pytest.raises(ValueError, match="non-negative"):
        IntRows([0, 1], [-1])
