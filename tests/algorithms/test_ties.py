"""Golden tie cases: tiny inputs where a documented tie rule alone decides the release.

Each expected output is derived by hand in the comments from the rule as
documented (Partition: ``graphanon/algorithms/grouping/partition.py`` module notes and
``_empty_records``; COAT: ``_run_explicit`` / ``_run_km`` in
``graphanon/algorithms/coat/engine.py`` and ``CoatState.best_partner``), and
the same input with the tie broken the other way gives another release, so a
changed rule fails here.
"""

from __future__ import annotations

import pytest

from graphanon.algorithms.coat import anonymize_coat
from graphanon.algorithms.grouping.partition import anonymize_partition
from graphanon.data import from_iterable
from graphanon.privacy import KmAnonymity, PrivacyConstraints, TransactionalKAnonymity
from graphanon.taxonomy import Taxonomy
from graphanon.taxonomy.constraint_sets import KmConstraints


def _rows_by_record(release, n: int) -> list[str]:
    """Each original record's published row (through the private link), in record order."""
    return [release.render_record(int(release.link.row_of_record[i])) for i in range(n)]


# --------------------------------------------------------------------------------------- Partition


def _taxonomy(y_first: bool) -> Taxonomy:
    """ALL -> X (x1, x2), Y (y1, y2); the parent map's order sets the depth-first order of X and Y."""
    x = {"x1": "X", "x2": "X", "X": "ALL"}
    y = {"y1": "Y", "y2": "Y", "Y": "ALL"}
    return Taxonomy.from_parent_map({**y, **x} if y_first else {**x, **y})


GRID = [["x1", "y1"], ["x2", "y1"], ["x1", "y2"], ["x2", "y2"]]


def test_taxonomy_depth_first_order_follows_the_parent_map():
    assert _taxonomy(True)._order == ["ALL", "Y", "y1", "y2", "X", "x1", "x2"]
    assert _taxonomy(False)._order == ["ALL", "X", "x1", "x2", "Y", "y1", "y2"]


@pytest.mark.parametrize(
    ("y_first", "expected"),
    [
        # k = 2. Root partition {0,1,2,3} at cut {ALL}: every record holds both children, one
        # bucket {X, Y} of 4 -> cut {X, Y}. Gains: X = 4 occurrences x (NCP(X) - NCP(leaf)) =
        # 4 x (2/4 - 0) = 2, Y the same: a tie, which goes to the node first in depth-first order.
        # Y first: buckets by Y's child {y1}: records 0, 1 and {y2}: 2, 3, both of size k. In
        # {0, 1}, expanding X gives buckets {x1}: 0 and {x2}: 1, both below k: they form the
        # leftover (2 >= k records) with X frozen, which is published as is: "y1 X"; likewise
        # {2, 3}: "y2 X".
        (True, ["y1 X", "y1 X", "y2 X", "y2 X"]),
        # X first (same data, X before Y in depth-first order): by the same steps with X and Y
        # exchanged, records {0, 2} publish "x1 Y" and {1, 3} "x2 Y".
        (False, ["x1 Y", "x2 Y", "x1 Y", "x2 Y"]),
    ],
)
def test_partition_gain_tie_goes_to_the_first_node_in_depth_first_order(y_first, expected):
    """The data's item columns are x1, x2, y1, y2 (X is met first in every record), so a rule
    "first touched" or "smallest column" would pick X in both cases."""
    data = from_iterable(GRID)
    assert list(data.items) == ["x1", "x2", "y1", "y2"]
    release = anonymize_partition(data, taxonomy=_taxonomy(y_first), k=2, unsafe_secret_seed=0)
    assert _rows_by_record(release, 4) == expected
    assert TransactionalKAnonymity(2).audit(data, release).satisfied


def test_partition_empty_records_topped_up_with_the_first_shortest():
    """One empty record (e = 1 < k = 2): the k - e = 1 shortest other record is published empty
    too, ties to the first: records 1, 2, 3 all have one item, record 1 ({x1}) is taken.

    The rest, {y1}, {x2}, {x1, y1}, {x2, y2} (records 2..5), at cut {ALL}: buckets by the
    children held are {Y}: 2, {X}: 3 (both below k: the leftover, 2 >= k records, with ALL
    frozen: published "ALL") and {X, Y}: 4, 5 -> cut {Y, X}. The X/Y gain tie goes to Y (first
    in depth-first order): buckets {y1}: 4, {y2}: 5, both below k, leftover with Y frozen;
    then X: {x1}: 4, {x2}: 5, leftover with X frozen too: "Y X" for both.
    """
    data = from_iterable([[], ["x1"], ["y1"], ["x2"], ["x1", "y1"], ["x2", "y2"]])
    release = anonymize_partition(data, taxonomy=_taxonomy(True), k=2, unsafe_secret_seed=0)
    assert _rows_by_record(release, 6) == ["", "", "ALL", "ALL", "Y X", "Y X"]
    assert TransactionalKAnonymity(2).audit(data, release).satisfied


# --------------------------------------------------------------------------------------- COAT

# Records r0 {a}, r1 {b, c}, r2 {d}, r3 {d}; k = 2, one utility block, weight 1, so the UL of a
# merge is (2^size - 1) x support of the union; supports a = b = c = 1, d = 2.
COAT_RECORDS = [["a"], ["b", "c"], ["d"], ["d"]]


@pytest.mark.parametrize(
    ("privacy", "expected"),
    [
        # Both constraints have support 1: the tie goes to the first queued, {a}. a's partners:
        # b (union 2, UL 3 x 2 = 6), c (union 2, UL 6), d (union 3, UL 9); the b/c tie goes to the
        # input order: (a,b), support 2. {b} is then published as (a,b), support 2: satisfied.
        ([["a"], ["b"]], ["(a,b)", "(a,b) c", "d", "d"]),
        # {b} queued first: b's partners a (union 2, UL 6), c (union 1, UL 3), d (union 3, UL 9):
        # (b,c), support 1, still short; its partners a (union 2, size 3: UL 7 x 2 = 14) and d
        # (union 3, UL 21): (a,b,c), support 2. {a} is then satisfied.
        ([["b"], ["a"]], ["(a,b,c)", "(a,b,c)", "d", "d"]),
    ],
)
def test_coat_explicit_queue_ties_go_to_the_first_queued(privacy, expected):
    data = from_iterable(COAT_RECORDS)
    release = anonymize_coat(data, privacy=privacy, k=2, s=1.0, unsafe_secret_seed=0)
    assert _rows_by_record(release, 4) == expected
    assert release.n_suppressed == 0
    assert PrivacyConstraints(privacy, 2).audit(data, release).satisfied


def test_coat_km_queue_ties_go_to_the_first_queued():
    """k^m (m = 1): the round's violations are a, b, c (support 1 each, queued in search order).

    a first: partners b, c (union 2, UL 6) and d (UL 9): (a,b), support 2. b: its entry is stale
    (b changed), re-counted on (a,b): support 2, dropped. c: partners (a,b) (union 2, size 3:
    UL 14) and d (union 3, size 2: UL 9): (c,d), support 3. The next search finds nothing.
    (With the tie going to the last queued, c would go first and give (a,b,c) and d.)
    """
    data = from_iterable(COAT_RECORDS)
    release = anonymize_coat(data, privacy=KmConstraints(1), k=2, s=1.0, unsafe_secret_seed=0)
    assert _rows_by_record(release, 4) == ["(a,b)", "(a,b) (c,d)", "(c,d)", "(c,d)"]
    assert KmAnonymity(2, 1).audit(data, release).satisfied
