"""(k, k^m)-anonymity of relational-transaction releases: the independent audit.

A relational-transaction (RT) release publishes, for every record, a tuple of
generalized quasi-identifier values (``[lo-hi]`` intervals, category or
hierarchy-node names, ``*`` for a fully suppressed value) and a set of
published items. The adversary knows a target's quasi-identifier values and
up to ``m`` of its items.

**The model** (Poulis et al. 2013, Def. 3). Rows are grouped by their
published relational tuple (*classes*: equal tuples, compared as strings).
The release is (k, k^m)-anonymous when

1. every class holds at least ``k`` rows, and
2. inside every class, every itemset of at most ``m`` published items that is
   contained in some row of the class is contained in at least ``k`` rows of
   the class (the class's item part is k^m-anonymous on its own).

**What the audit guarantees.** Let the adversary know the true
quasi-identifier values ``q`` of a target and a set ``S`` of at most ``m`` of
its items, and let ``g`` be the item recoding of the target's class (a global
recoding within the class: each original item has one published label, or
is suppressed). The candidates are the rows whose relational values *cover*
``q`` (every published value contains the matching value of ``q``) and whose
items contain ``g(S)`` (suppressed items in ``S`` are useless to the
adversary and dropped).

*Claim A (sound).* If 1 and 2 hold, every adversary finds at least ``k``
candidates. *Proof.* Let ``C`` be the class of the target's row ``r``. Its
tuple covers ``q`` (the release generalizes the target's own values), so
every row of ``C`` passes the relational test. ``I = g(S)`` has at most
``m`` items and is contained in ``r``; if ``I`` is empty the candidates
include all of ``C`` (>= k by 1), otherwise the rows of ``C`` containing
``I`` are >= k by 2. Candidates outside ``C`` only add to the count. QED.
The proof uses only that the *target's own* row generalizes its record
(its values cover ``q``, it holds the label of every known item that was
not suppressed), nothing about the other rows: the verdict needs no
original data, and a row that does not generalize its record is no link to
that record (its owner's adversary does not find it).

*Claim B (exact on non-overlapping releases).* Say a release *overlaps* when
some attribute publishes two different values that share an original value
(``[40-49]`` and ``[40-44]``; ``*`` beside any other value; a hierarchy node
and one of its descendants). If the release does not overlap and 1 or 2
fails, some adversary finds fewer than ``k`` candidates. *Proof.* If class
``C`` has fewer than ``k`` rows, take ``q`` of one of its records and
``S`` empty: a row covering ``q`` has, on every attribute, a published
value sharing ``q``'s value with ``C``'s, hence (no overlap) equal to it, so
the candidates are exactly ``C``. If ``I`` (``|I| <= m``) lies in a row
``r`` of ``C`` with support in ``(0, k)`` within ``C``, every label of ``I``
in ``r`` is the image of at least one item of ``r``'s record; pick one per
label to get ``S`` with ``g(S) = I``, ``|S| <= m``; the candidates are the
rows of ``C`` containing ``I``: fewer than ``k``. QED.

So the audit decides the covering adversary exactly when the release does
not overlap, and is stricter when it does: it then also protects against an
adversary who knows *which* class the target was put in (for instance by
knowing the clustering), not only what the target's values are. The audit
does not refuse overlapping releases (cluster-based methods publish the
range of each cluster, and ranges of different clusters can intersect);
it reports the overlaps it finds (``details["overlaps"]``), and
``details["exact_for_covering_adversary"]`` says which case applies.
Overlaps between category names are known only from ``hierarchies``
(value -> ancestors); without them two different names are taken to be
disjoint. Item labels of different classes may overlap (one class publishes
``a``, another its ancestor ``A``): this, too, only adds candidates outside
the target's class (Claim A) and is reported when ``taxonomy`` is given.

**How it counts.** Each (class, published label) pair becomes a column of
one sparse matrix (a row's entries are the pairs of its class), so itemset
supports in that matrix are supports within a class and a single run of the
k^m search (:func:`graphanon.counting.support.minimal_infrequent_itemsets`;
containment counting, :func:`graphanon.counting.containment.record_supports`,
when ``m`` is at least the longest row) checks every class at once. Classes
smaller than ``k`` are reported as such and left out of the item search
(every non-empty itemset in them is already below ``k``).

References
----------
Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos. Anonymizing data with
relational and transaction attributes. ECML PKDD 2013, Sec. 3 (Def. 3,
(k, k^m)-anonymity).
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 2 (k^m-anonymity).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.counting.containment import itemset_rows, record_supports, shrink_to_minimal
from graphanon.counting.support import minimal_infrequent_itemsets
from graphanon.errors import ParameterError
from graphanon.metrics.rtviews import rt_views
from graphanon.privacy.declaration import ModelDeclaration, require_k
from graphanon.privacy.report import AuditReport, PrivacyModel
from graphanon.privacy.rt_recoding import rt_recoding_mismatches
from graphanon.privacy.rt_values import (
    ancestor_sets,
    check_rows,
    published_classes,
    tuple_text,
    value_overlaps,
)
from graphanon.utils.intervals import parse_interval
from graphanon.utils.params import MEANINGS, K, M, validate_params

if TYPE_CHECKING:
    from graphanon.utils.progress import ProgressCallback

__all__ = ["RTAnonymity", "audit_rt", "audit_rt_release", "parse_interval", "rt_recoding_mismatches", "value_overlaps"]


def _item_matrix(items: list[list[str]]) -> tuple[sp.csr_array, np.ndarray]:
    """Rows x labels boolean matrix and the sorted labels."""
    lengths = np.fromiter((len(r) for r in items), dtype=np.int64, count=len(items))
    flat = np.array([x for r in items for x in r], dtype=str)
    labels, cols = np.unique(flat, return_inverse=True)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    X = sp.csr_array((np.ones(len(flat), dtype=bool), cols.ravel().astype(np.int64), indptr),
                     shape=(len(items), len(labels)))
    X.sort_indices()
    return X, labels


def _within_class_matrix(X: sp.csr_array, cls: np.ndarray, rows: np.ndarray):
    """Rows ``rows`` of ``X`` with columns (class, label): supports become supports within a class.

    Returns the matrix and, per new column, its class and its label index.
    """
    sub = X[rows]
    lengths = np.diff(sub.indptr)
    key = np.repeat(cls[rows], lengths) * max(X.shape[1], 1) + sub.indices
    pairs, col = np.unique(key, return_inverse=True)
    Y = sp.csr_array((np.ones(len(key), dtype=bool), col.ravel().astype(np.int64), sub.indptr),
                     shape=(len(rows), len(pairs)))
    Y.sort_indices()
    return Y, pairs // max(X.shape[1], 1), pairs % max(X.shape[1], 1)




def audit_rt(
    relational_rows: Sequence[Sequence[str]],
    item_rows: Sequence[Iterable[str]],
    *,
    k: int,
    m: int | None,
    taxonomy=None,
    hierarchies: Mapping[int, object] | None = None,
    row_names: Sequence | None = None,
    max_examples: int = 10,
    original_rows: Sequence[Sequence] | None = None,
    original_items: Sequence[Iterable[str]] | None = None,
    truth=None,
    members: Mapping[str, Iterable[str]] | None = None,
    qi_names: Sequence[str] | None = None,
) -> AuditReport:
    """Audit a relational-transaction release for (k, k^m)-anonymity.

    Parameters
    ----------
    relational_rows : sequence of tuple of str
        One tuple per published row: its generalized quasi-identifier values
        (``[lo-hi]``, a category or hierarchy node, ``*``).
    item_rows : sequence of set of str
        The published items of each row (same order).
    k : int
        Minimum number of candidate rows (>= 1).
    m : int or None
        Items the adversary knows (>= 1; None: any number).
    taxonomy : Taxonomy or mapping of str to iterable of str, optional
        The item taxonomy (label -> ancestors). Only for the report: item
        labels of the release that are ancestors of other published labels.
        The verdict does not depend on it (module notes, Claim A).
    hierarchies : mapping of int to (Taxonomy or mapping), optional
        Per quasi-identifier position, the hierarchy of its categorical
        values (value -> ancestors), to find overlapping category names.
        The verdict does not depend on it.
    row_names : sequence, optional
        Names of the rows in the report (default: their positions).
    max_examples : int
        Counter-examples to report.
    original_rows, original_items, truth : optional
        The records (quasi-identifier values, item sets) and the private
        link (``truth[i]``: the row of record ``i``): when given, each row
        is also checked against its own record
        (:func:`rt_recoding_mismatches`, with ``hierarchies``, ``taxonomy``
        and ``members``); a row that does not generalize its record is a
        violation.
    members : mapping of str to iterable of str, optional
        Published item label -> the original items it stands for (the
        recoding check only).
    qi_names : sequence of str, optional
        The quasi-identifiers' names in the recoding check's messages.

    Returns
    -------
    AuditReport
        ``violations`` counts the records whose row is not their recoding
        (with the originals), the classes of fewer than ``k`` rows, plus the
        minimal itemsets of size <= m with support in (0, k) within the
        other classes; ``worst`` is the smallest class, else the itemset of
        lowest support; ``details["checked"]`` says what was checked in one
        line.

    Notes
    -----
    The model and the proofs that this check is sound, and exact on
    releases whose generalized values do not overlap, are in the module
    docstring (:mod:`graphanon.privacy.rt`).

    Complexity: grouping is a sort of the ``n x a`` value codes; the item
    search is one k^m search on a matrix with ``nnz`` entries, whose cost is
    that of the k^m audit (:class:`~graphanon.privacy.KmAnonymity`) on a
    release with no itemset spanning two classes.

    References
    ----------
    Poulis, Loukides, Gkoulalas-Divanis, Skiadopoulos. Anonymizing data with
    relational and transaction attributes. ECML PKDD 2013, Sec. 3.

    Examples
    --------
    >>> rel = [("[40-49]", "F")] * 3 + [("[50-59]", "M")] * 2
    >>> items = [{"a", "b"}, {"a", "c"}, {"b", "c"}, {"a"}, {"a"}]
    >>> report = audit_rt(rel, items, k=2, m=2)
    >>> report.satisfied, report.violations
    (False, 3)
    >>> report.worst
    {'relational': '([40-49], F)', 'itemset': ['a', 'b'], 'support_in_class': 1, 'class_size': 3}
    >>> audit_rt(rel, items, k=2, m=1).satisfied
    True
    """
    name = f"(k, k^m)-anonymity (k={k}, m={'inf' if m is None else m})"
    if int(k) < 1 or (m is not None and int(m) < 1):
        raise ParameterError(f"k and m must be at least 1, got k={k}, m={m}")
    rel, items = check_rows(relational_rows, item_rows)
    n = len(rel)
    names = list(range(n)) if row_names is None else list(row_names)
    n_bad = 0
    problems: list[dict] = []
    if original_rows is not None or original_items is not None or truth is not None:
        if original_rows is None or original_items is None or truth is None:
            raise ParameterError("the recoding check needs original_rows, original_items and truth (the private "
                                 "link) together")
        n_bad, problems = rt_recoding_mismatches(original_rows, original_items, rel, items, truth,
                                                 hierarchies=hierarchies, taxonomy=taxonomy, members=members,
                                                 max_examples=max_examples, qi_names=qi_names)
        problems = [{**p, "row": names[p["row"]]} for p in problems]
    cls, sizes, tuples = published_classes(rel)
    small = np.flatnonzero(sizes < k)
    small = small[np.argsort(sizes[small], kind="stable")]
    examples: list[dict] = list(problems)
    for c in small[: max(0, max_examples - len(examples))].tolist():
        rows = np.flatnonzero(cls == c)
        examples.append({"relational": tuple_text(tuples[c]), "class_size": int(sizes[c]),
                         "published_records": [names[r] for r in rows[:10].tolist()]})
    X, labels = _item_matrix(items)
    big_rows = np.flatnonzero(sizes[cls] >= k) if n else np.zeros(0, dtype=np.int64)
    Y, col_class, col_label = _within_class_matrix(X, cls, big_rows)
    longest = int(np.diff(Y.indptr).max()) if Y.shape[0] else 0
    found: list[tuple[int, int, list[int]]] = []  # (support, size, within-class columns)
    if Y.nnz and (m is None or m >= longest):
        sup = record_supports(Y)
        bad = np.flatnonzero((np.diff(Y.indptr) > 0) & (sup < k))
        Yc = sp.csc_array(Y)
        Yc.sort_indices()
        seen: set[tuple[int, ...]] = set()
        for r in bad[np.argsort(sup[bad], kind="stable")].tolist():  # violating rows: one witness each shape
            row = tuple(Y.indices[Y.indptr[r] : Y.indptr[r + 1]].tolist())
            if row in seen:
                continue
            seen.add(row)
            itemset, support = shrink_to_minimal(Yc, row, k)
            if all(itemset != f[2] for f in found):
                found.append((support, len(itemset), itemset))
        n_item_viol = len(bad)
        unit_items = "rows contained in fewer than k rows of their class (m unbounded)"
    elif Y.nnz:
        levels, _ = minimal_infrequent_itemsets(
            Y, k, m, what=f"the (k, k^m) audit (k={k}, m={m})", advice="audit with a smaller m than m={m} (CLI: -m {m})")
        n_item_viol = 0
        for lvl in levels:
            n_item_viol += len(lvl)
            for i in np.argsort(lvl.supports, kind="stable")[:max_examples].tolist():
                found.append((int(lvl.supports[i]), lvl.size, lvl.itemsets[i].tolist()))
        unit_items = "minimal itemsets of size <= m with support in (0, k) within their class"
        Yc = sp.csc_array(Y)
        Yc.sort_indices()
    else:
        n_item_viol, unit_items, Yc = 0, "itemsets within classes (no items published)", None
    found.sort(key=lambda t: (t[0], t[1]))

    def itemset_case(support: int, cols: list[int]) -> dict:
        c = int(col_class[cols[0]])
        return {"relational": tuple_text(tuples[c]), "itemset": [str(labels[col_label[j]]) for j in cols],
                "support_in_class": support, "class_size": int(sizes[c])}

    for support, _, cols in found[: max(0, max_examples - len(examples))]:
        assert Yc is not None
        rows = big_rows[itemset_rows(Yc, cols)]
        examples.append({**itemset_case(support, cols), "published_records": [names[r] for r in np.sort(rows)[:10]]})
    worst = None
    if len(small):
        c = int(small[0])
        worst = {"relational": tuple_text(tuples[c]), "class_size": int(sizes[c])}
    elif found:
        worst = itemset_case(found[0][0], found[0][2])
    elif problems:
        worst = dict(problems[0])
    width = len(rel[0]) if n else 0
    columns = [[t[j] for t in tuples] for j in range(width)]
    hier = hierarchies or {}
    overlaps = {j: pairs[:5] for j in range(width) if (pairs := value_overlaps(columns[j], hier.get(j)))}
    item_overlaps: list[tuple[str, str]] = []
    if taxonomy is not None:
        anc = ancestor_sets(taxonomy) or {}
        present = {str(x) for x in labels}
        for lab in sorted(present):
            item_overlaps += [(a, lab) for a in sorted(anc.get(lab, set()) & present)]
    n_small = int(len(small))
    checked = (f"{n} rows in {len(sizes)} classes of equal published relational values (smallest "
               f"{int(sizes.min()) if n else 0}; {n_small} below k={k}), and itemsets of at most "
               f"{'any number of' if m is None else m} item(s) within each class of >= k rows")
    return AuditReport(
        model=name,
        satisfied=(n_small == 0 and n_item_viol == 0 and n_bad == 0),
        violations=n_small + int(n_item_viol) + n_bad,
        worst=worst,
        counterexamples=examples[:max_examples],
        details={
            "unit": f"classes of fewer than k rows, plus {unit_items}, plus records whose row is not their "
                    "recoding (checked only with the originals and the link)",
            "recoding_mismatches": n_bad if original_rows is not None else None,
            "checked": checked,
            "classes": int(len(sizes)),
            "smallest_class": int(sizes.min()) if n else 0,
            "small_classes": n_small,
            "item_violations": int(n_item_viol),
            "overlaps": {str(j): [list(p) for p in v] for j, v in overlaps.items()},
            "item_overlaps": [list(p) for p in item_overlaps[:5]],
            "exact_for_covering_adversary": not overlaps and not item_overlaps,
            "k": int(k),
            "m": None if m is None else int(m),
        },
    )


def audit_rt_release(release, *, k: int, m: int | None, taxonomy=None, hierarchies=None,
                     max_examples: int = 10, original_rows=None, original_items=None, truth=None,
                     members=None) -> AuditReport:
    """:func:`audit_rt` of a release object that publishes relational values and items.

    The release must expose ``relational_rows()`` (one tuple of str per
    published row) and ``item_rows()`` (one set of str per row), as the
    ``rt`` release and the naive relational-plus-items baseline do; row
    names in the report are its ``pseudonyms`` when it has them.

    Examples
    --------
    >>> class Tiny:
    ...     def relational_rows(self): return [("F",), ("F",)]
    ...     def item_rows(self): return [{"a"}, {"a"}]
    >>> audit_rt_release(Tiny(), k=2, m=1).satisfied
    True
    """
    if not (callable(getattr(release, "relational_rows", None)) and callable(getattr(release, "item_rows", None))):
        raise ParameterError(f"the rt audit reads releases that publish relational values and items (an rt "
                             f"release); got a {type(release).__name__}: audit it with --model km or transactional")
    names = getattr(release, "pseudonyms", None)
    return audit_rt(release.relational_rows(), release.item_rows(), k=k, m=m, taxonomy=taxonomy,
                    hierarchies=hierarchies, row_names=None if names is None else list(names),
                    max_examples=max_examples, original_rows=original_rows, original_items=original_items,
                    truth=truth, members=members, qi_names=getattr(release, "qi", None))


class RTAnonymity(PrivacyModel):
    """(k, k^m)-anonymity of a relational-transaction release (:func:`audit_rt`).

    Parameters
    ----------
    k : int
        Minimum number of candidate rows.
    m : int or None
        Items the adversary knows (None: any number).
    taxonomy : optional
        The item taxonomy, for the overlap report only.

    Examples
    --------
    >>> class Tiny:
    ...     def relational_rows(self): return [("[40-49]",), ("[40-49]",), ("[50-59]",)]
    ...     def item_rows(self): return [{"a"}, {"a"}, {"a"}]
    >>> RTAnonymity(2, 1).audit(None, Tiny()).violations
    1
    """

    @validate_params({"k": K, "m": M}, meanings=MEANINGS)
    def __init__(self, k: int, m: int | None, taxonomy=None) -> None:
        self.k = int(k)
        self.m = None if m is None else int(m)
        self.taxonomy = taxonomy
        self.name = f"(k, k^m)-anonymity (k={self.k}, m={'inf' if self.m is None else self.m})"

    def audit(self, original, release, *, max_examples: int = 10, progress: ProgressCallback | None = None) -> AuditReport:
        """Audit ``release``; with the private link, also each row against its own record.

        The (k, k^m) verdict is a property of the published rows alone
        (``original`` is not read for it). When ``release.link`` is set (by
        the anonymizer, or ``graphanon audit --link``) and ``original`` is the
        :class:`~graphanon.relational.RTData` it was made from, every row is
        also checked to generalize its own record
        (:func:`rt_recoding_mismatches`: QI values covered, labels standing
        for items of the record, no item its class shows left out); a row
        that does not is a violation.
        """
        link = getattr(release, "link", None)
        if link is None or not hasattr(original, "hierarchies"):
            return audit_rt_release(release, k=self.k, m=self.m, taxonomy=self.taxonomy, max_examples=max_examples)
        v = rt_views(original, release)
        return audit_rt_release(release, k=self.k, m=self.m, taxonomy=self.taxonomy, hierarchies=v.hierarchies,
                                max_examples=max_examples, original_rows=v.original_rows,
                                original_items=v.original_items, truth=link, members=v.members)


def _build_rt(*, k, m, original, taxonomy=None):
    return RTAnonymity(require_k(k, "rt"), m, taxonomy=taxonomy)


RT_MODEL = ModelDeclaration("rt", "(k, k^m)-anonymity of a release with relational values and items (-k K -m M)",
                            _build_rt)
