"""Tendency hiding: does a released record still show its person's dominant category?

The adversary (Gunawan & Mambo 2019, Sec. 3) knows the item categories and
reads the release. A record's *tendency* is its heaviest category: the
category ``g`` of greatest weight ``WR(t, g)`` (items of ``t`` in ``g``)
when that weight exceeds ``MTV(t) = |t| / categories present`` (ties: the
first category of ``groups.names``). The methods of
:mod:`graphanon.algorithms.swapping` promise that the tendency a person had
is not the one their published record shows.

What :class:`TendencyHiding` checks (recomputing every weight itself; it
shares no code with the anonymizers):

With the private link (``release.link`` or ``link=``), for every original
record ``i`` with a tendency ``h(i)``: the record *keeps its tendency* when
a published row of ``i`` (its row; for SplitPerson, any of its rows) has a
tendency equal to ``h(i)``. That is exactly what the adversary who found
``i``'s row would infer correctly. The release satisfies the model when the
share of records that keep their tendency is at most ``max_share``
(default 0: none).

Without the link the audit cannot know whose row is whose. It checks what
the published rows and the original data alone decide: the number of
original records with a tendency that the release contains *verbatim*
(multiset intersection of identical rows; an adversary who knows a
person's full record finds it unchanged, tendency included). A verbatim row
may be someone else's record that became identical, so this counts the
*possible* survivors among unchanged records and the check is conservative
(a verbatim row counts against the release); a changed row that kept its
tendency is invisible without the link. Reports say which mode was used
(``details["mode"]``).

Invariants (both modes), by the release's ``moves``:

* ``swap`` and ``split``: the multiset of item occurrences is conserved
  (every item's support is the same);
  an exchange that hands a record an item it already holds (a *collision*)
  merges the two occurrences, so conservation fails exactly when some
  exchange collided;
* ``swap-suppress`` and ``suppress``: no item gains occurrences (items are
  moved or removed, never made up);
* ``swap``: as many rows as records.

Examples
--------
>>> from graphanon.data import from_iterable
>>> from graphanon.release import PerturbedRelease
>>> from graphanon.taxonomy import ItemGroups
>>> data = from_iterable([["a1", "a2", "b1"], ["b2"]])
>>> cats = ItemGroups({"A": ["a1", "a2"], "B": ["b1", "b2"]})
>>> rel = PerturbedRelease.from_matrix(data, data.matrix, moves="swap")
>>> rep = TendencyHiding(cats).audit(data, rel)   # unchanged: the tendency is published verbatim
>>> rep.satisfied, rep.details["mode"], rep.details["exposed"]
(False, 'without link', 1)
"""

from __future__ import annotations

from numbers import Real
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.counting.rows import row_hashes
from graphanon.errors import ParameterError
from graphanon.privacy.declaration import ModelDeclaration
from graphanon.privacy.report import AuditReport, PrivacyModel
from graphanon.taxonomy.categories import category_codes, parse_categories
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.declaration import Parameter
from graphanon.utils.params import Interval, validate_params

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["TendencyHiding", "heaviest_categories"]


def heaviest_categories(X, codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Per row of ``X``, the heaviest category when its weight exceeds the MTV, else -1.

    Parameters
    ----------
    X : boolean sparse matrix, shape (n, d)
    codes : int array, shape (d,)
        Category index of each column.
    n_categories : int

    Returns
    -------
    ndarray of int64, shape (n,)

    Notes
    -----
    Complexity: O(nnz log nnz) (one sort of (row, category) keys).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array([[1, 1, 1, 0], [1, 0, 0, 1], [0, 0, 1, 1]], dtype=bool)
    >>> heaviest_categories(X, np.array([0, 0, 1, 1]), 2).tolist()
    [0, -1, -1]
    """
    X = sp.csr_array(X)
    X.sum_duplicates()
    n = X.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(X.indptr))
    keys, weight = np.unique(rows * n_categories + np.asarray(codes, np.int64)[X.indices], return_counts=True)
    krow, kcat = keys // n_categories, keys % n_categories
    length = np.bincount(rows, minlength=n)
    present = np.bincount(krow, minlength=n)
    # within each row: heaviest first, then the smaller category
    order = np.lexsort((kcat, -weight, krow))
    first = order[np.r_[True, krow[order][1:] != krow[order][:-1]]] if len(order) else order
    out = np.full(n, -1, dtype=np.int64)
    top_row, top_w, top_cat = krow[first], weight[first], kcat[first]
    has = top_w * present[top_row] > length[top_row]  # WR > MTV, in integers
    out[top_row[has]] = top_cat[has]
    return out


class TendencyHiding(PrivacyModel):
    """No published record shows the tendency its person had (SPEC §4).

    Parameters
    ----------
    groups : ItemGroups
        The item categories (public: the adversary knows them).
    max_share : float in [0, 1]
        Largest acceptable share of records with a tendency that keep it.

    See Also
    --------
    graphanon.algorithms.anonymize_partswap : An anonymizer it checks (also fullswap and the baselines).

    Notes
    -----
    ``audit(original, release, *, max_examples=10, progress=None, link=None)``
    uses ``link`` or ``release.link`` when present (exact survival), otherwise
    the link-free check (module notes). Only :class:`~graphanon.release.PerturbedRelease`
    is audited.
    """

    @validate_params({"groups": [ItemGroups], "max_share": [Interval(Real, 0, 1)]},
                     meanings={"groups": "the item categories", "max_share": "the largest share of a tendency left"})
    def __init__(self, groups: ItemGroups, *, max_share: float = 0.0) -> None:
        self.groups = groups
        self.max_share = float(max_share)
        self.name = f"tendency hiding ({len(groups)} categories, max share {self.max_share:g})"

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None, link=None) -> AuditReport:
        """Audit a perturbed ``release`` for tendency hiding against ``original`` (``link`` for the private checks)."""
        from graphanon.release.perturbed import PerturbedRelease

        if not isinstance(release, PerturbedRelease):
            raise ParameterError(
                f"the tendency model audits perturbed releases (swapping, suppression, split), not {release.kind!r}"
            )
        link = link if link is not None else release.link
        codes = category_codes(self.groups, original.items)
        G = len(self.groups)
        names = self.groups.names
        X = original.matrix
        P = release.matrix_over(original.items)
        h_orig = heaviest_categories(X, codes, G)
        h_pub = heaviest_categories(P, codes, G)
        had = np.flatnonzero(h_orig >= 0)
        problems: list[dict] = []
        details: dict = {"records_with_tendency": int(len(had)), "moves": release.moves,
                         "unit": "records that keep their tendency, plus broken invariants"}
        self._invariants(original, release, X, P, problems, details)
        if link is not None:
            details["mode"] = "with link"
            owner = np.asarray(link.record_of_row, dtype=np.int64)
            if len(owner) != P.shape[0]:
                raise ParameterError(f"the private link has {len(owner)} rows, the release {P.shape[0]}")
            kept_rows = (h_pub >= 0) & (h_pub == h_orig[owner])
            keeps = np.zeros(X.shape[0], dtype=bool)
            keeps[owner[kept_rows]] = True
            survivors = np.flatnonzero(keeps)
            details["kept_tendency"] = int(len(survivors))
            for i in survivors[:max_examples]:
                problems.append({"record": original.record_ids[int(i)], "tendency": names[int(h_orig[i])],
                                 "problem": "the published record keeps this tendency"})
            count = len(survivors)
        else:
            details["mode"] = "without link"
            count = _verbatim(X[had], P)
            details["exposed"] = int(count)
            details["note"] = ("without the private link only records published unchanged are counted; "
                               "pass the link for exact survival")
            if count:
                problems.append({"problem": f"{count} published row(s) equal an original record with a tendency: "
                                 "each may be that record unchanged (or another record that became identical); "
                                 "audit with the private link for exact survival"})
        share = count / len(had) if len(had) else 0.0
        details["share"] = share
        details["original_tendencies"] = _histogram(h_orig, names)
        details["published_tendencies"] = _histogram(h_pub, names)
        broken = details["broken_invariants"]
        satisfied = share <= self.max_share and broken == 0
        worst = problems[0] if problems else None
        return AuditReport(self.name, satisfied, int(count) * (share > self.max_share) + broken, worst,
                           problems[:max_examples], details)

    @staticmethod
    def _invariants(original, release, X, P, problems: list, details: dict) -> None:
        broken = 0
        if release.conserves_items:
            f_orig = np.bincount(X.indices, minlength=X.shape[1])
            f_pub = np.bincount(P.indices, minlength=P.shape[1])
            diff = np.flatnonzero(f_orig != f_pub)
            details["items_conserved"] = not len(diff)
            broken += len(diff)
            for j in diff[:5]:
                problems.append({"item": original.items[int(j)], "original_support": int(f_orig[j]),
                                 "published_support": int(f_pub[j]), "problem": "item occurrences not conserved"})
        elif release.moves in ("swap-suppress", "suppress"):
            # items were moved or removed, never created: no item may gain occurrences
            f_orig = np.bincount(X.indices, minlength=X.shape[1])
            f_pub = np.bincount(P.indices, minlength=P.shape[1])
            gained = np.flatnonzero(f_pub > f_orig)
            details["items_not_gained"] = not len(gained)
            broken += len(gained)
            for j in gained[:5]:
                problems.append({"item": original.items[int(j)], "original_support": int(f_orig[j]),
                                 "published_support": int(f_pub[j]),
                                 "problem": "more occurrences published than the data holds"})
        if release.moves in ("swap", "swap-suppress") and P.shape[0] != X.shape[0]:
            problems.append({"problem": f"{P.shape[0]} rows for {X.shape[0]} records"})
            broken += 1
        details["broken_invariants"] = int(broken)


def _verbatim(A, B) -> int:
    """Size of the multiset intersection of the rows of ``A`` and ``B`` (equal 128-bit set hashes)."""
    def counts(M):
        h = row_hashes(M)
        keys, cnt = np.unique(h, axis=0, return_counts=True)
        return keys, cnt

    ka, ca = counts(A)
    kb, cb = counts(B)
    if not len(ka) or not len(kb):
        return 0
    both = np.concatenate([ka, kb])
    _, inv, n_keys = np.unique(both, axis=0, return_inverse=True, return_counts=True)
    inv = inv.ravel()
    in_a = np.zeros(len(n_keys), np.int64)
    in_b = np.zeros(len(n_keys), np.int64)
    in_a[inv[: len(ka)]] = ca
    in_b[inv[len(ka):]] = cb
    return int(np.minimum(in_a, in_b).sum())


def _histogram(h: np.ndarray, names) -> dict:
    counts = np.bincount(h[h >= 0], minlength=len(names))
    return {str(names[c]): int(counts[c]) for c in np.flatnonzero(counts)}


def _build_tendency(*, k, m, original, categories, max_share, taxonomy=None):
    if k is not None or m is not None:
        raise ParameterError("audit model 'tendency' takes no -k or -m")
    if categories is None:
        raise ParameterError(
            "audit model 'tendency' needs --param categories=... (the same value given to the anonymizer)"
        )
    return TendencyHiding(parse_categories(categories, original, taxonomy), max_share=max_share)


TENDENCY_MODEL = ModelDeclaration(
    "tendency",
    "tendency hiding of a perturbed release (--param categories=random:N[:SEED]|taxonomy-level:D|FILE; "
    "--taxonomy for taxonomy-level)",
    _build_tendency,
    params=(Parameter("categories", str, None, "the item categories given to the anonymizer: random:N[:SEED], "
                                               "taxonomy-level:D or FILE"),
            Parameter("max_share", float, 0.0, "largest share of a category's items that may keep a tendency")),
)
