"""A relational-transaction release read beside its data, as the plain rows the rt measures take.

:mod:`graphanon.metrics.relational`, :func:`graphanon.attacks.rt_linkage` and
:func:`graphanon.privacy.rt.audit_rt` take plain Python data (tuples of QI
values, sets of items, hierarchies as mappings). :func:`rt_views` turns an
:class:`~graphanon.relational.RTData` and a release that publishes
``relational_rows()`` and ``item_rows()`` (the ``rt`` release,
:class:`~graphanon.release.RelationalRelease`) into those rows, once, so
that the command line, the study and the benchmark read a release the same
way; :func:`rt_utility` is the relational side of a release's utility.

References
----------
Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos. Anonymizing data with
relational and transaction attributes. ECML PKDD 2013, Sec. 5 (relational
information loss and count queries on RT-datasets).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphanon.errors import ParameterError
from graphanon.metrics.relational import (
    AttributeDomain,
    attribute_domains,
    relational_loss,
    rt_count_error,
    rt_workload,
)

__all__ = ["RTViews", "rt_utility", "rt_views"]


@dataclass(frozen=True)
class RTViews:
    """The rows of RT data and of its release, as the rt measures read them.

    Attributes
    ----------
    original_rows : list of tuple
        Per record (input order), its QI values.
    original_items : list of set of str
        Per record, its items.
    published_rows : list of tuple of str
        Per published row, its generalized QI values.
    published_items : list of set of str
        Per published row, its published item labels.
    hierarchies : dict of int to (lo, hi) or Taxonomy
        Per QI position: the span of a numeric hierarchy's coarsest bins, or
        a categorical hierarchy's tree.
    domains : list of AttributeDomain
        :func:`~graphanon.metrics.relational.attribute_domains` of the
        original rows with ``hierarchies``.
    members : dict of str to tuple of str
        Published label -> the original items it stands for.
    """

    original_rows: list
    original_items: list
    published_rows: list
    published_items: list
    hierarchies: dict
    domains: list[AttributeDomain]
    members: dict


def rt_views(original, release) -> RTViews:
    """The plain rows of ``original`` (RTData) and of ``release`` (relational values and items).

    Parameters
    ----------
    original : RTData
        The data the release was made from (its QIs must be the release's).
    release : RelationalRelease
        Any object with ``relational_rows()``, ``item_rows()`` and
        ``published_items`` (labels with ``members``).

    Returns
    -------
    RTViews

    Raises
    ------
    ParameterError
        For data without a relational table, a release without relational
        rows, or QIs that differ.

    Notes
    -----
    Complexity: O(n d + nnz) to read the rows.

    Examples
    --------
    >>> from graphanon.datasets.synthetic import patients_with_demographics
    >>> from graphanon.algorithms import anonymize_rt
    >>> rt, tax = patients_with_demographics(300, seed=1)
    >>> v = rt_views(rt, anonymize_rt(rt, k=5, m=1, taxonomy=tax))
    >>> len(v.original_rows), len(v.published_rows), len(v.domains)
    (300, 300, 5)
    """
    if not (hasattr(original, "qi") and hasattr(original, "hierarchies") and hasattr(original, "transactions")):
        raise ParameterError("an rt release is read beside relational-transaction data (graphanon.relational.RTData; "
                             "on the command line --relational FILE --qi COLUMNS)")
    if not (callable(getattr(release, "relational_rows", None)) and callable(getattr(release, "item_rows", None))):
        raise ParameterError(f"a {getattr(release, 'kind', type(release).__name__)} release publishes no relational "
                             "values: the rt measures read releases of -a rt or rt-naive")
    qi = tuple(getattr(release, "qi", original.qi))
    if qi != tuple(original.qi):
        raise ParameterError(f"the release's quasi-identifiers are {', '.join(qi)}, the data's "
                             f"{', '.join(original.qi)}: give --qi {','.join(qi)}")
    columns = [original.table.column(c).tolist() for c in original.qi]
    rows = list(zip(*columns, strict=True)) if columns else []
    tx = original.transactions
    X = tx.matrix
    names = [str(x) for x in tx.items]
    items = [{names[j] for j in X.indices[X.indptr[i]: X.indptr[i + 1]].tolist()} for i in range(tx.n_records)]
    hierarchies: dict = {}
    for j, c in enumerate(original.qi):
        h = original.hierarchies[c]
        hierarchies[j] = tuple(int(v) for v in h.span) if h.is_numeric else h.taxonomy
    domains = attribute_domains(rows, hierarchies=hierarchies, names=list(original.qi))
    members = {str(pi.label): tuple(str(x) for x in pi.members) for pi in getattr(release, "published_items", ())}
    return RTViews(rows, items, release.relational_rows(), release.item_rows(), hierarchies, domains, members)


def rt_utility(original, release, *, queries: int = 200, q: int = 2, attributes: int | None = 2, rng=0,
               views: RTViews | None = None) -> dict:
    """The relational side of an rt release's utility: GCP and the combined COUNT-query error.

    Parameters
    ----------
    original : RTData
    release : RelationalRelease
    queries : int
        Combined COUNT queries (0: none): a range on ``attributes`` QIs and
        ``q`` items, drawn from the original records
        (:func:`~graphanon.metrics.relational.rt_workload`; the same seed,
        the same queries for every release of the data).
    q : int
        Items per query.
    attributes : int or None
        QIs a query restricts ("women 40-49 with diabetes and hypertension":
        2); None: all of them.
    rng : int or Generator
        The workload's seed.
    views : RTViews, optional
        :func:`rt_views` already read.

    Returns
    -------
    dict
        ``rt_gcp`` (mean NCP of the published QI values, Ghinita et al.'s
        GCP), ``rt_ncp_<qi>`` (mean NCP of each QI) and, with queries,
        ``rt_query_error`` (average relative error of the combined queries).

    Notes
    -----
    Complexity: O(n d) for the loss; per query O(n) (one pass of the rows).

    Examples
    --------
    >>> from graphanon.datasets.synthetic import patients_with_demographics
    >>> from graphanon.algorithms import anonymize_rt
    >>> rt, tax = patients_with_demographics(300, seed=1)
    >>> u = rt_utility(rt, anonymize_rt(rt, k=5, m=1, taxonomy=tax), queries=20)
    >>> 0 <= u["rt_gcp"] <= 1, u["rt_query_error"] >= 0
    (True, True)
    """
    v = views if views is not None else rt_views(original, release)
    loss = relational_loss(v.published_rows, v.domains)
    out: dict = {"rt_gcp": loss.gcp}
    out.update({f"rt_ncp_{c}": float(x) for c, x in zip(original.qi, loss.per_attribute.tolist(), strict=True)})
    if queries > 0:
        width = None if attributes is None else min(int(attributes), len(v.domains))
        workload = rt_workload(v.original_rows, v.original_items, v.domains, n_queries=queries, q=q,
                               attributes=width, rng=rng)
        out["rt_query_error"], _ = rt_count_error(v.original_rows, v.original_items, v.published_rows,
                                                  v.published_items, workload, v.domains, members=v.members)
    return out
