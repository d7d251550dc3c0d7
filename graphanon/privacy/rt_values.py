"""The published relational values of an RT release: values that overlap, rows grouped into classes.

Two published values of one attribute *overlap* when they share an original
value (``[40-49]`` and ``[40-44]``; ``*`` beside any other value; a hierarchy
node and one of its descendants): the (k, k^m) audit
(:mod:`graphanon.privacy.rt`) is exact for the covering adversary only on
releases without overlaps. Rows are grouped into *classes* by their published
relational tuple (equal tuples, compared as strings).

References
----------
Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos. Anonymizing data with
relational and transaction attributes. ECML PKDD 2013, Sec. 3 (Def. 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from graphanon.errors import ParameterError
from graphanon.utils.intervals import parse_interval

__all__ = ["ancestor_sets", "check_rows", "published_classes", "tuple_text", "value_overlaps"]


def ancestor_sets(hierarchy) -> Mapping[str, set[str]] | None:
    """``value -> set of proper ancestors`` from a :class:`~graphanon.taxonomy.Taxonomy` or a mapping."""
    if hierarchy is None or isinstance(hierarchy, tuple):  # a numeric attribute's (lo, hi) span: no names
        return None
    if hasattr(hierarchy, "ancestors") and hasattr(hierarchy, "nodes"):
        return {str(v): {str(a) for a in hierarchy.ancestors(v)} for v in hierarchy.nodes}
    return {str(v): {str(a) for a in anc} for v, anc in hierarchy.items()}


def value_overlaps(values: Iterable[str], hierarchy=None) -> list[tuple[str, str]]:
    """Pairs of different published values of one attribute that share an original value.

    Parameters
    ----------
    values : iterable of str
        The distinct published values of one attribute.
    hierarchy : Taxonomy or mapping of str to iterable of str, optional
        Each value's ancestors (categorical attributes); a name and one of
        its ancestors overlap. Without it different names are disjoint.

    Returns
    -------
    list of (str, str)
        Overlapping pairs: ``*`` with every other value, intersecting
        closed intervals (``[40-45]`` and ``[45-50]`` share 45), a node with
        its ancestors.

    Notes
    -----
    Complexity: O(v log v) for the intervals (a sort and a sweep, reporting
    each interval against the widest one before it), O(v d) for the names
    (``d`` ancestors each).

    Examples
    --------
    >>> value_overlaps(["[40-44]", "[45-49]", "F"])
    []
    >>> value_overlaps(["[40-49]", "[40-44]", "*"])
    [('*', '[40-44]'), ('*', '[40-49]'), ('[40-44]', '[40-49]')]
    >>> value_overlaps(["Europe", "France"], {"France": ["Europe", "*"], "Europe": ["*"]})
    [('Europe', 'France')]
    """
    distinct = sorted({str(v) for v in values})
    out: list[tuple[str, str]] = []
    if "*" in distinct:
        out += [("*", v) for v in distinct if v != "*"]
    ranges = [(r, v) for v in distinct if v != "*" and (r := parse_interval(v)) is not None]
    ranges.sort()
    widest: tuple[float, str] | None = None  # the interval reaching furthest right so far
    for (lo, hi), v in ranges:
        if widest is not None and lo <= widest[0]:
            out.append((widest[1], v))
        if widest is None or hi > widest[0]:
            widest = (hi, v)
    anc = ancestor_sets(hierarchy)
    if anc:
        names = {v for v in distinct if v != "*" and parse_interval(v) is None}
        for v in sorted(names):
            out += [(a, v) for a in sorted(anc.get(v, set()) & names)]
    return out


def tuple_text(values: tuple[str, ...]) -> str:
    """A published relational tuple as text: ``(v1, v2, ...)``."""
    return "(" + ", ".join(values) + ")"


def check_rows(relational_rows, item_rows) -> tuple[list[tuple[str, ...]], list[list[str]]]:
    """The published rows as string tuples and sorted item lists; one-line errors for rows of unequal shape."""
    rel = [tuple(str(x) for x in row) for row in relational_rows]
    items = [sorted({str(x) for x in row}) for row in item_rows]
    if len(rel) != len(items):
        raise ParameterError(f"the release has {len(rel)} relational rows and {len(items)} item rows: "
                             "each published row needs both (one per record)")
    widths = np.fromiter((len(r) for r in rel), dtype=np.int64, count=len(rel))
    if len(rel) and (bad := np.flatnonzero(widths != widths[0])).size:
        i = int(bad[0])
        raise ParameterError(f"published row {i} has {widths[i]} relational values, row 0 has {widths[0]}: "
                             "every row publishes the same quasi-identifiers")
    return rel, items


def published_classes(rel: list[tuple[str, ...]]) -> tuple[np.ndarray, np.ndarray, list[tuple[str, ...]]]:
    """Class of each row (equal published tuples), class sizes, one tuple per class."""
    n = len(rel)
    width = len(rel[0]) if n else 0
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), []
    table = np.array(rel, dtype=object).reshape(n, width)
    codes = np.zeros((n, max(width, 1)), dtype=np.int64)
    for j in range(width):  # per attribute (a few), not per record
        codes[:, j] = np.unique(table[:, j].astype(str), return_inverse=True)[1].ravel()
    _, first, inverse, sizes = np.unique(codes, axis=0, return_index=True, return_inverse=True,
                                         return_counts=True)
    return inverse.ravel().astype(np.int64), sizes.astype(np.int64), [rel[int(i)] for i in first]

