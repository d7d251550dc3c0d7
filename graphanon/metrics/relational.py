"""Utility of relational-transaction releases: relational NCP / GCP and combined COUNT queries.

The relational part of a release publishes generalized quasi-identifier
values: ``[lo-hi]`` intervals of numeric attributes, hierarchy nodes (or the
values themselves) of categorical ones, ``*`` for a fully suppressed value.
These functions take plain Python data (tuples of published values, sets of
published items, a hierarchy as a ``value -> ancestors`` mapping or a
numeric ``(lo, hi)`` domain) and no release class.

* :func:`relational_loss`: the normalized certainty penalty (NCP) of every
  published value and the global certainty penalty (GCP), their mean over
  rows and attributes.
* :func:`rt_count_error`: COUNT queries that combine relational ranges with
  items ("women 40-49 with diabetes and hypertension"), answered on the
  original data and estimated from the release under the uniform
  assumption; their relative errors. :func:`rt_workload` draws such
  queries from the original records.

References
----------
Xu, Wang, Pei, Wang, Shi, Fu. Utility-based anonymization using local
recoding. KDD 2006, Sec. 3 (NCP of intervals and hierarchy nodes).
Ghinita, Karras, Kalnis, Mamoulis. Fast data anonymization with low
information loss. VLDB 2007, Sec. 2 (GCP).
Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos. Anonymizing data with
relational and transaction attributes. ECML PKDD 2013, Sec. 5 (relational
information loss and count queries on RT-datasets).
LeFevre, DeWitt, Ramakrishnan. Mondrian multidimensional k-anonymity. ICDE
2006, Sec. 5 (uniform estimation of range-count queries from generalized data).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from graphanon.errors import ParameterError
from graphanon.utils.intervals import parse_interval
from graphanon.utils.randomness import check_random_state

__all__ = ["AttributeDomain", "RTQuery", "RelationalLoss", "attribute_domains", "relational_loss", "rt_count_error",
           "rt_true_counts", "rt_estimated_counts", "rt_workload"]


def _is_number(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Real):
        return not (isinstance(value, float) and math.isnan(value))
    try:
        float(str(value))
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class AttributeDomain:
    """What the published values of one quasi-identifier can stand for.

    Attributes
    ----------
    name : str
        The attribute's name in messages.
    numeric : bool
        Numeric (intervals) or categorical (hierarchy nodes).
    lo, hi : float
        The numeric domain (``*`` stands for it).
    integral : bool
        Numeric values are whole numbers: ``[40-49]`` holds 10 values.
    leaves : dict of str to frozenset of str
        Categorical: each value or hierarchy node -> the original values
        under it (``*`` -> all of them).
    """

    name: str
    numeric: bool
    lo: float = 0.0
    hi: float = 0.0
    integral: bool = True
    leaves: dict = field(default_factory=dict, repr=False)

    @property
    def n_leaves(self) -> int:
        """Original values of a categorical attribute."""
        return len(self.leaves.get("*", ()))

    def interval(self, value: str) -> tuple[float, float]:
        """The range a published numeric value stands for."""
        if value == "*":
            return self.lo, self.hi
        rng = parse_interval(value)
        if rng is None:
            raise ParameterError(f"attribute {self.name}: published value {value!r} is neither an interval "
                                 "[lo-hi], a number nor *")
        return rng

    def members(self, value: str) -> frozenset:
        """The original values a published categorical value stands for."""
        try:
            return self.leaves[value]
        except KeyError:
            raise ParameterError(f"attribute {self.name}: published value {value!r} is not a value or node of "
                                 "its hierarchy (give the hierarchy: value -> ancestors)") from None

    def ncp(self, value: str) -> float:
        """NCP of one published value, in [0, 1]."""
        if self.numeric:
            a, b = self.interval(value)
            return (b - a) / (self.hi - self.lo) if self.hi > self.lo else 0.0
        n = self.n_leaves
        return (len(self.members(value)) - 1) / (n - 1) if n > 1 else 0.0

    def fraction(self, value: str, wanted) -> float:
        """Share of what ``value`` stands for that the query ``wanted`` selects (uniform assumption).

        ``wanted``: a numeric ``(lo, hi)`` range (closed) or a set of categorical values.
        """
        if self.numeric:
            a, b = self.interval(value)
            ql, qh = wanted
            if self.integral:
                inside = math.floor(min(b, qh)) - math.ceil(max(a, ql)) + 1
                return max(0, inside) / (math.floor(b) - math.ceil(a) + 1)
            if b == a:
                return 1.0 if ql <= a <= qh else 0.0
            return max(0.0, min(b, qh) - max(a, ql)) / (b - a)
        members = self.members(value)
        return len(members & frozenset(str(v) for v in wanted)) / len(members)


def _leaf_sets(hierarchy) -> dict[str, frozenset]:
    """``node -> leaves under it`` from a ``value -> ancestors`` mapping or a Taxonomy."""
    if hasattr(hierarchy, "ancestors") and hasattr(hierarchy, "nodes"):
        hierarchy = {v: hierarchy.ancestors(v) for v in hierarchy.nodes}
    ancestors = {str(v): [str(a) for a in anc] for v, anc in hierarchy.items()}
    inner = {a for anc in ancestors.values() for a in anc}
    leaves = [v for v in ancestors if v not in inner]
    under: dict[str, set] = {}
    for leaf in leaves:
        for node in [leaf, *ancestors[leaf]]:
            under.setdefault(node, set()).add(leaf)
    out = {node: frozenset(vals) for node, vals in under.items()}
    out["*"] = frozenset(leaves)
    return out


def attribute_domains(original_rows: Sequence[Sequence], *, hierarchies: Mapping[int, object] | None = None,
                      names: Sequence[str] | None = None) -> list[AttributeDomain]:
    """The domain of each quasi-identifier, from the original values and optional hierarchies.

    Parameters
    ----------
    original_rows : sequence of tuples
        The original quasi-identifier values, one tuple per record.
    hierarchies : mapping of int to hierarchy or (lo, hi), optional
        Per attribute position: a ``value -> ancestors`` mapping (or a
        :class:`~graphanon.taxonomy.Taxonomy`) for a categorical attribute,
        or the ``(lo, hi)`` domain of a numeric one. Without it an
        attribute whose values are all numbers is numeric over
        ``[min, max]`` of the data; any other is categorical and flat (its
        distinct values, and ``*``).
    names : sequence of str, optional
        Attribute names for messages (default ``QI 0``, ``QI 1``, ...).

    Returns
    -------
    list of AttributeDomain

    Examples
    --------
    >>> d = attribute_domains([(41, "F"), (59, "M")], hierarchies={0: (0, 99)})
    >>> d[0].ncp("[40-49]"), d[1].ncp("*"), d[1].ncp("F")
    (0.09090909090909091, 1.0, 0.0)
    """
    rows = [tuple(r) for r in original_rows]
    width = len(rows[0]) if rows else 0
    hier = dict(hierarchies or {})
    out = []
    for j in range(width):
        name = names[j] if names is not None else f"QI {j}"
        col = [r[j] for r in rows]
        spec = hier.get(j)
        if isinstance(spec, tuple) and len(spec) == 2 and all(_is_number(x) for x in spec):
            integral = all(float(x).is_integer() for x in spec) and all(
                _is_number(v) and float(v).is_integer() for v in col)
            out.append(AttributeDomain(name, True, float(spec[0]), float(spec[1]), integral))
        elif spec is not None:
            leaves = _leaf_sets(spec)
            missing = sorted({str(v) for v in col} - leaves["*"])
            if missing:
                raise ParameterError(f"attribute {name}: value {missing[0]!r} is not a leaf of its hierarchy")
            out.append(AttributeDomain(name, False, leaves=leaves))
        elif col and all(_is_number(v) for v in col):
            vals = np.array([float(v) for v in col])
            out.append(AttributeDomain(name, True, float(vals.min()), float(vals.max()),
                                       bool(np.all(vals == np.round(vals)))))
        else:
            distinct = frozenset(str(v) for v in col)
            out.append(AttributeDomain(name, False, leaves={**{v: frozenset([v]) for v in distinct}, "*": distinct}))
    return out


def _codes(published_rows: Sequence[Sequence[str]], j: int) -> tuple[np.ndarray, np.ndarray]:
    values, inverse = np.unique(np.array([str(r[j]) for r in published_rows], dtype=str), return_inverse=True)
    return values, inverse.ravel()


@dataclass(frozen=True)
class RelationalLoss:
    """NCP of a published relational table.

    Attributes
    ----------
    gcp : float
        Global certainty penalty: mean NCP over rows and attributes, in [0, 1].
    per_attribute : ndarray, shape (n_attributes,)
        Mean NCP of each attribute.
    per_row : ndarray, shape (n_rows,)
        Mean NCP of each row over the attributes.
    """

    gcp: float
    per_attribute: np.ndarray
    per_row: np.ndarray


def relational_loss(published_rows: Sequence[Sequence[str]], domains: Sequence[AttributeDomain]) -> RelationalLoss:
    """NCP of each published value and the GCP of the table.

    Parameters
    ----------
    published_rows : sequence of tuple of str
        The published relational values, one tuple per row.
    domains : sequence of AttributeDomain
        From :func:`attribute_domains` on the original values.

    Returns
    -------
    RelationalLoss

    Notes
    -----
    NCP of a numeric interval ``[a-b]`` is ``(b - a) / (hi - lo)``, of a
    categorical node ``(|leaves under it| - 1) / (|leaves| - 1)``; ``*`` costs
    1, an ungeneralized value 0. GCP is their mean over the ``n x d`` cells
    (Ghinita et al. 2007 normalize the class-weighted sum by ``n d``: the
    same number). Complexity: O(n d) to code the values plus one NCP per
    distinct published value of each attribute.

    Examples
    --------
    >>> doms = attribute_domains([(41, "F"), (45, "F"), (52, "M"), (58, "M")], hierarchies={0: (40, 60)})
    >>> loss = relational_loss([("[40-49]", "F"), ("[40-49]", "F"), ("[50-59]", "*"), ("[50-59]", "*")], doms)
    >>> loss.gcp, loss.per_attribute.tolist()
    (0.475, [0.45, 0.5])
    """
    n, d = len(published_rows), len(domains)
    cells = np.zeros((n, d))
    for j, dom in enumerate(domains):
        if n == 0:
            break
        values, inverse = _codes(published_rows, j)
        cells[:, j] = np.array([dom.ncp(str(v)) for v in values])[inverse]
    return RelationalLoss(float(cells.mean()) if cells.size else 0.0,
                          cells.mean(axis=0) if n else np.zeros(d), cells.mean(axis=1) if d else np.zeros(n))


@dataclass(frozen=True)
class RTQuery:
    """``COUNT(records whose QI values lie in ranges and that hold every include item)``.

    Attributes
    ----------
    ranges : dict of int to (lo, hi) or frozenset
        Attribute position -> a closed numeric range, or the categorical
        values accepted. Attributes not named are unconstrained.
    include : tuple of str
        Original items the record must hold.
    """

    ranges: dict
    include: tuple = ()


def rt_true_counts(original_rows: Sequence[Sequence], original_items: Sequence[Iterable[str]],
                   queries: Sequence[RTQuery]) -> np.ndarray:
    """Answers of ``queries`` on the original records (one pass per query, vectorized over records).

    Examples
    --------
    >>> q = RTQuery({0: (40, 49), 1: frozenset({"F"})}, ("diabetes",))
    >>> rt_true_counts([(42, "F"), (45, "F"), (47, "M")], [{"diabetes"}, set(), {"diabetes"}], [q]).tolist()
    [1]
    """
    rows = [tuple(r) for r in original_rows]
    X, index = _incidence([{str(x) for x in r} for r in original_items])
    n = len(rows)
    numeric: dict[int, np.ndarray] = {}
    coded: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    out = np.zeros(len(queries), dtype=np.int64)
    for i, query in enumerate(queries):
        ok = np.ones(n, dtype=bool)
        for j, wanted in query.ranges.items():
            if isinstance(wanted, tuple):
                if j not in numeric:  # each column converted once
                    numeric[j] = np.array([float(r[j]) for r in rows])
                ok &= (numeric[j] >= wanted[0]) & (numeric[j] <= wanted[1])
            else:
                if j not in coded:
                    values, codes = np.unique(np.array([str(r[j]) for r in rows], dtype=str), return_inverse=True)
                    coded[j] = (values, codes.ravel())
                values, codes = coded[j]
                ok &= np.isin(values, np.array(sorted(str(v) for v in wanted), dtype=str))[codes]
        for x in query.include:
            c = index.get(str(x))
            if c is None:
                ok[:] = False
                break
            hold = np.zeros(n, dtype=bool)
            hold[X.indices[X.indptr[c] : X.indptr[c + 1]]] = True
            ok &= hold
        out[i] = int(ok.sum())
    return out


def _incidence(rows: Sequence[set[str]]) -> tuple[sp.csc_array, dict[str, int]]:
    labels = sorted(set().union(*rows)) if rows else []
    index = {x: i for i, x in enumerate(labels)}
    lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
    cols = np.fromiter((index[x] for r in rows for x in r), dtype=np.int64, count=int(lengths.sum()))
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    X = sp.csr_array((np.ones(len(cols), dtype=bool), cols, indptr), shape=(len(rows), len(labels)))
    return sp.csc_array(X), index


def rt_estimated_counts(published_rows: Sequence[Sequence[str]], published_items: Sequence[Iterable[str]],
                        queries: Sequence[RTQuery], domains: Sequence[AttributeDomain], *,
                        members: Mapping[str, Iterable[str]] | None = None) -> np.ndarray:
    """Expected answers of ``queries`` over the release's possible worlds (uniform assumption).

    Parameters
    ----------
    published_rows, published_items : sequences
        The release: relational values and published items of each row.
    queries : sequence of RTQuery
    domains : sequence of AttributeDomain
        From :func:`attribute_domains` on the original values.
    members : mapping of str to iterable of str, optional
        Published item label -> the original items it stands for (default:
        every label stands for itself). The labels of one row must stand
        for disjoint sets of items (a global recoding within the row's
        class); labels of different classes may share items.

    Returns
    -------
    ndarray of float

    Notes
    -----
    A row's original values are uniform over what its published values
    stand for (the integers of ``[a-b]`` for whole-number attributes, the
    real interval otherwise, the leaves under a node), independently per
    attribute; a published label of ``s`` items stands for a uniform
    non-empty subset of its members, so it holds ``n`` given members with
    probability ``2^(s-n) / (2^s - 1)`` (the estimate of
    :meth:`graphanon.release.GlobalRecoding.estimate_count`); an item under
    no label of a row (suppressed) is absent. The estimate is the sum over
    rows of the product of these probabilities. Complexity per query:
    O(distinct published values) for the relational factors plus one sparse
    product over the published items.

    Examples
    --------
    >>> doms = attribute_domains([(42, "F"), (45, "F"), (47, "M")], hierarchies={0: (0, 99)})
    >>> q = RTQuery({0: (40, 44), 1: frozenset({"F"})}, ("diabetes",))
    >>> rt_estimated_counts([("[40-49]", "*")] * 3, [{"diabetes"}, set(), {"(diabetes,flu)"}], [q], doms,
    ...                     members={"(diabetes,flu)": ["diabetes", "flu"]}).round(4).tolist()
    [0.4167]
    """
    rows = [tuple(str(v) for v in r) for r in published_rows]
    n = len(rows)
    R, index = _incidence([{str(x) for x in r} for r in published_items])
    labels = sorted(index, key=index.__getitem__)
    stands = {lab: frozenset(str(x) for x in (members or {}).get(lab, [lab])) for lab in labels}
    size = np.array([len(stands[lab]) for lab in labels], dtype=np.int64)
    under: dict[str, list[int]] = {}  # original item -> the labels standing for it
    for g, lab in enumerate(labels):
        for x in stands[lab]:
            under.setdefault(x, []).append(g)
    coded = [_codes(rows, j) if n else (np.zeros(0, dtype=str), np.zeros(0, dtype=np.int64))
             for j in range(len(domains))]
    out = np.zeros(len(queries))
    Rr = sp.csr_array(R).astype(np.float64)
    for i, query in enumerate(queries):
        p = np.ones(n)
        for j, wanted in query.ranges.items():
            values, inverse = coded[j]
            p *= np.array([domains[j].fraction(str(v), wanted) for v in values])[inverse]
        if query.include:
            inc = {str(x) for x in query.include}
            n_in = np.zeros(len(labels), dtype=np.int64)
            covered = np.zeros(n)
            for x in inc:  # rows that hold some label standing for x
                cov = np.zeros(len(labels))
                cov[under.get(x, [])] = 1.0
                n_in += cov.astype(np.int64)
                covered += (Rr @ cov) > 0
            hit = n_in > 0
            logw = np.zeros(len(labels))
            logw[hit] = ((size[hit] - n_in[hit]) * math.log(2.0)
                         - np.log(np.exp2(size[hit].astype(float)) - 1.0))
            p *= np.where(covered == len(inc), np.exp(Rr @ logw), 0.0)
        out[i] = float(p.sum())
    return out


def rt_workload(original_rows: Sequence[Sequence], original_items: Sequence[Iterable[str]],
                domains: Sequence[AttributeDomain], *, n_queries: int = 100, q: int = 2, width: float = 0.2,
                attributes: int | None = None, rng=0) -> list[RTQuery]:
    """COUNT queries drawn from the original records (every answer is at least 1).

    Each query takes a random record: for ``attributes`` of its
    quasi-identifiers drawn at random (None: all of them) a range holding
    its value (numeric: ``width`` of the domain, placed at random;
    categorical: the value itself) and ``q`` of its items (all when it has
    fewer).

    Examples
    --------
    >>> doms = attribute_domains([(42, "F"), (45, "F")])
    >>> qs = rt_workload([(42, "F"), (45, "F")], [{"a", "b"}, {"a"}], doms, n_queries=3, rng=1)
    >>> bool(min(rt_true_counts([(42, "F"), (45, "F")], [{"a", "b"}, {"a"}], qs)) >= 1)
    True
    """
    if not 0 < width <= 1:
        raise ParameterError(f"width must lie in (0, 1], got {width}")
    if attributes is not None and not 0 <= attributes <= len(domains):
        raise ParameterError(f"attributes must lie in 0..{len(domains)} (the quasi-identifiers), got {attributes}")
    gen = check_random_state(rng)
    rows = [tuple(r) for r in original_rows]
    items = [sorted(str(x) for x in r) for r in original_items]
    if not rows:
        return []
    out = []
    for r in gen.integers(0, len(rows), size=n_queries).tolist():
        ranges: dict = {}
        chosen = (range(len(domains)) if attributes is None
                  else sorted(gen.choice(len(domains), size=attributes, replace=False).tolist()))
        for j in chosen:
            dom, v = domains[j], rows[r][j]
            if dom.numeric:
                span = width * (dom.hi - dom.lo)
                lo = float(v) - gen.random() * span
                ranges[j] = (lo, lo + span)
            else:
                ranges[j] = frozenset([str(v)])
        its = items[r]
        take: list[int] = gen.choice(len(its), size=min(q, len(its)), replace=False).tolist() if its else []
        out.append(RTQuery(ranges, tuple(its[t] for t in sorted(take))))
    return out


def rt_count_error(original_rows, original_items, published_rows, published_items, queries: Sequence[RTQuery],
                   domains: Sequence[AttributeDomain], *, members=None) -> tuple[float, np.ndarray]:
    """Average relative error of combined relational-and-item COUNT queries.

    Returns the mean of ``|a - e| / max(a, 1)`` over ``queries`` (``a`` the
    original answer, ``e`` the release's estimate,
    :func:`rt_estimated_counts`) and the per-query errors.

    Examples
    --------
    >>> orig, items = [(42, "F"), (45, "F"), (52, "M"), (58, "M")], [{"a"}, {"a"}, {"a"}, {"b"}]
    >>> doms = attribute_domains(orig, hierarchies={0: (40, 59)})
    >>> pub = [("[40-49]", "F"), ("[40-49]", "F"), ("[50-59]", "M"), ("[50-59]", "M")]
    >>> q = [RTQuery({0: (40, 44), 1: frozenset({"F"})}, ("a",))]
    >>> err, per = rt_count_error(orig, items, pub, items, q, doms)
    >>> round(err, 3)
    0.0
    """
    a = rt_true_counts(original_rows, original_items, queries).astype(float)
    e = rt_estimated_counts(published_rows, published_items, queries, domains, members=members)
    per = np.abs(a - e) / np.maximum(a, 1.0)
    return (float(per.mean()) if len(per) else 0.0), per
