"""Exact AvgRE, ER and QE values on hand examples (issue 20, item 7).

Every expected value is computed by hand in the comments, as an exact
fraction; an off-by-one in any numerator or denominator (``answers + 1``,
``|r| + 1``, ``n + 1`` ...) moves it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from graphanon.data import from_iterable
from graphanon.metrics.nonreciprocal import error_rate, query_error
from graphanon.metrics.queries import CountQuery, QueryWorkload, average_relative_error, true_counts
from graphanon.release import GlobalRecoding, NonreciprocalRelease
from graphanon.release.link import ReleaseLink


def _close(value: float, exact: Fraction) -> None:
    assert value == pytest.approx(float(exact), rel=1e-12, abs=1e-15)


# ------------------------------------------------------------------------------------ AvgRE


def test_average_relative_error_exact():
    """Records {a, b}, {a}, {a}, {c}; a and b published as "(a,b)", c as itself.

    Set-based reading: a present "(a,b)" stands for {a}, {b} or {a, b}, each with
    probability 1/3, so it holds a with probability 2/3 and b with 2/3. Three rows
    hold "(a,b)".

    ======  ======  ===================  ======================
    query   a(Q)    e(Q)                 |a - e| / a
    ======  ======  ===================  ======================
    b       1       3 x 2/3 = 2          1
    a       3       3 x 2/3 = 2          1/3
    c       1       1                    0
    a, ¬b   2       3 x 1/3 = 1          1/2   (world {a} only)
    ======  ======  ===================  ======================

    AvgRE = (1 + 1/3 + 0 + 1/2) / 4 = 11/24.
    """
    data = from_iterable([["a", "b"], ["a"], ["a"], ["c"]])
    release = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": "c"})
    queries = (CountQuery(("b",)), CountQuery(("a",)), CountQuery(("c",)), CountQuery(("a",), ("b",)))
    answers = true_counts(data, queries)
    assert answers.tolist() == [1, 3, 1, 2]
    workload = QueryWorkload(queries, q=1, seed=0, answers=answers)
    estimates = [release.estimate_count(q.include, q.exclude) for q in queries]
    assert estimates == pytest.approx([2, 2, 1, 1], rel=1e-12)
    _close(average_relative_error(release, workload), Fraction(11, 24))


# ------------------------------------------------------------------------------------ ER and QE


def _nr_hand_release():
    """Records r0 {a, b}, r1 {a}, r2 {} and rows (base; no distance positions) linked one to one:
    row 0 {a} for r0, row 1 {a, b, c} for r1, row 2 {c} for r2."""
    data = from_iterable([["a", "b"], ["a"], []], items=["a", "b", "c"])
    base = np.array([[1, 0, 0], [1, 1, 1], [0, 0, 1]], dtype=bool)
    release = NonreciprocalRelease(["a", "b", "c"], base, np.zeros((3, 3), dtype=bool), [0, 0, 0])
    release.link = ReleaseLink([0, 1, 2])
    return data, release


def test_error_rate_exact():
    """ER = mean of H(r, base of r's row) / |r| (|r| taken as 1 for an empty record):

    r0 {a, b} vs {a}: H = 1, / 2 = 1/2; r1 {a} vs {a, b, c}: H = 2, / 1 = 2;
    r2 {} vs {c}: H = 1, / 1 = 1. ER = (1/2 + 2 + 1) / 3 = 7/6.
    """
    data, release = _nr_hand_release()
    _close(error_rate(data, release), Fraction(7, 6))
    # another link, the same rows: r0 -> row 2, r1 -> row 0, r2 -> row 1:
    # H({a,b},{c}) = 3 -> 3/2, H({a},{a}) = 0, H({},{a,b,c}) = 3 -> 3: (3/2 + 0 + 3) / 3 = 3/2
    _close(error_rate(data, release, link=ReleaseLink([2, 0, 1])), Fraction(3, 2))


def test_query_error_exact():
    """QE = mean over type I and type II queries of |Co - Ca| / n (n = 3 records).

    Type I "c" (all of c present): original 0, release 2 (rows 1, 2; threshold 0, so each row
    is its base) -> |0 - 2| / 3 = 2/3. Type II "not b": original 2 (r1, r2), release 2 (rows 0,
    2) -> 0. QE = (2/3 + 0) / 2 = 1/3.
    """
    data, release = _nr_hand_release()
    queries = (CountQuery(("c",), ("b",)),)
    workload = QueryWorkload(queries, q=2, seed=0, answers=true_counts(data, queries))
    qe = query_error(data, release, workload)
    _close(qe["query_error_type1"], Fraction(2, 3))
    _close(qe["query_error_type2"], Fraction(0))
    _close(qe["query_error"], Fraction(1, 3))
