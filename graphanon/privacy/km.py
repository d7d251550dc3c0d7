"""k^m-anonymity and transactional k-anonymity audits of global recodings.

References
----------
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 2 (k^m-anonymity).
He, Naughton. Anonymization of set-valued data via top-down, local
generalization. PVLDB 2009, Sec. 2 (transactional k-anonymity).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphanon.counting.containment import itemset_rows, record_supports, shrink_to_minimal
from graphanon.counting.rows import row_keys
from graphanon.counting.support import minimal_infrequent_itemsets
from graphanon.errors import ParameterError
from graphanon.privacy.consistency import recoding_mismatches
from graphanon.privacy.declaration import ModelDeclaration, require_k
from graphanon.privacy.local import local_recoding_mismatches
from graphanon.privacy.report import AuditReport, PrivacyModel
from graphanon.utils.params import MEANINGS, K, M, validate_params
from graphanon.utils.validation import check_k

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["KmAnonymity", "TransactionalKAnonymity", "check_k"]


def _is_local(release) -> bool:
    return hasattr(release, "reading") and hasattr(release, "nodes")


def require_global(release, model: str):
    if _is_local(release):
        return
    if not hasattr(release, "published_items") or not hasattr(release, "records"):
        raise ParameterError(
            f"{model} audits releases that publish item-level records (global or local recodings); "
            f"got a {type(release).__name__}"
        )


def _published(release) -> tuple[list, sp.csr_array]:
    """Published item labels and the boolean published-record matrix (local recodings: the ``t``-th copy of a node is its own item)."""
    if _is_local(release):
        return release.published_matrix()
    return [pi.label for pi in release.published_items], release.records


def _mismatches(original, release, max_examples: int):
    if _is_local(release):
        return local_recoding_mismatches(original, release, max_examples=max_examples)
    return recoding_mismatches(original, release, max_examples=max_examples)


class KmAnonymity(PrivacyModel):
    """k^m-anonymity: every published itemset of at most ``m`` items has support 0 or >= ``k``.

    Parameters
    ----------
    k : int
        Minimum support of any published itemset an attacker can use.
    m : int or None
        Attacker knowledge: at most ``m`` items; None means unbounded
        (k^infinity, any number of items).

    See Also
    --------
    graphanon.algorithms.anonymize_aa : An anonymizer it checks (also cut, hghs, mhghs, mm).
    TransactionalKAnonymity : k-anonymity of whole records (m unbounded).
    graphanon.privacy.JointAudit : Several releases of the same data.

    Notes
    -----
    The audit (1) checks that the release is the recoding of the original
    data by its own published mapping (no lost, invented or altered record;
    published labels are part of their rows, so moved labels fail; with the
    private link on ``release.link`` each record against its own row;
    local recodings: an exact record-to-row assignment,
    :mod:`graphanon.privacy.local`), then (2) looks for itemsets with
    support in (0, k):

    * bounded ``m`` below the longest published record: the minimal such
      itemsets of size <= m, level by level
      (:func:`graphanon.counting.support.minimal_infrequent_itemsets`); each is a
      violation, reported with its support and records. Memory grows with
      the number of frequent itemsets of size < m; the search stops with a
      :class:`~graphanon.errors.MemoryBudgetError` naming ``m`` before it
      exceeds the memory budget (:mod:`graphanon.utils.memory`).
    * ``m=None`` (k^infinity) or ``m`` at least the longest published record
      (the same model): by containment counting
      (:mod:`graphanon.counting.containment`): the release is k^infinity-anonymous
      exactly when every non-empty published record is contained in at
      least ``k`` published records. The violations counted are those
      *records* (each one's owner is among fewer than k rows for an
      adversary who knows the whole record); every counter-example is a
      minimal violating itemset found inside one of them. Time about
      ``sum over distinct records of (rarest item's support) x length``
      (or bitmap ANDs when the published items are few), memory
      O(occurrences) plus blocks sized to the budget, never an enumeration
      of itemsets.

    ``audit(..., client=client)`` with a ``dask.distributed.Client`` counts
    the same supports over record blocks on its workers
    (:func:`graphanon.distributed.minimal_infrequent_itemsets`,
    :func:`graphanon.distributed.record_supports`); the report is identical.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.release import GlobalRecoding
    >>> data = load("liuwang_fig1")
    >>> raw = GlobalRecoding.from_mapping(data, {x: x for x in data.items})
    >>> KmAnonymity(2, None).audit(data, raw).satisfied
    False
    """

    @validate_params({"k": K, "m": M}, meanings=MEANINGS)
    def __init__(self, k: int, m: int | None) -> None:
        self.k = int(k)
        self.m = None if m is None else int(m)
        self.name = f"k^m-anonymity (k={self.k}, m={'inf' if self.m is None else self.m})"

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None, client=None) -> AuditReport:
        """Audit ``release`` (see the class notes); ``client``.

        A ``dask.distributed.Client`` that counts the supports over record blocks on its
        workers (:mod:`graphanon.distributed`) - the report is the same.
        """
        require_global(release, "k^m-anonymity")
        check_k(self.k, original.n_records)
        n_bad, problems = _mismatches(original, release, max_examples)
        labels, rec = _published(release)
        longest = int(np.diff(rec.indptr).max()) if rec.shape[0] else 0
        if self.m is None or self.m >= longest:
            if client is None:
                sup = record_supports(rec)
            else:
                from graphanon.distributed import record_supports as distributed_record_supports

                sup = distributed_record_supports(rec, client=client, progress=progress)
            return self._audit_unbounded(release, rec, sup, labels, n_bad, problems, max_examples)
        m_text = f"m={self.m} (CLI: -m {self.m})"
        what, advice = f"the k^m audit (k={self.k}, m={self.m})", f"audit with a smaller m than {m_text}"
        if client is None:
            violations, _ = minimal_infrequent_itemsets(rec, self.k, self.m, what=what, advice=advice)
        else:
            from graphanon.distributed import minimal_infrequent_itemsets as distributed_search

            violations, _ = distributed_search(rec, self.k, self.m, client=client, progress=progress, what=what,
                                               advice=advice)
        levels = [lvl for lvl in violations if len(lvl)]
        n_viol = sum(len(lvl) for lvl in levels)
        # Lowest support first (ties: smaller itemsets first), without listing all violations.
        ranked: list[tuple[int, int, np.ndarray]] = []
        for lvl in levels:
            take = np.argsort(lvl.supports, kind="stable")[:max_examples]
            ranked.extend((int(lvl.supports[i]), lvl.size, lvl.itemsets[i]) for i in take)
        ranked.sort(key=lambda t: (t[0], t[1]))
        rec = rec.tocsc()
        examples = list(problems)
        for support, _, items in ranked[: max(0, max_examples - len(examples))]:
            rows: set[int] = set.intersection(*(set(rec.indices[rec.indptr[g] : rec.indptr[g + 1]].tolist())
                                               for g in items))
            examples.append(
                {
                    "itemset": [labels[g] for g in items],
                    "support": support,
                    "published_records": [release.pseudonyms[r] for r in sorted(rows)[:10]],
                }
            )
        worst = None
        if ranked:
            support, _, items = ranked[0]
            worst = {"itemset": [labels[g] for g in items], "support": support}
        sizes = {lvl.size: len(lvl) for lvl in violations}
        return AuditReport(
            model=self.name,
            satisfied=(n_viol == 0 and n_bad == 0),
            violations=n_viol + n_bad,
            worst=worst,
            counterexamples=examples,
            details={
                "unit": "minimal itemsets with support in (0, k), plus records that are not recodings",
                "violations_by_size": sizes,
                "recoding_mismatches": n_bad,
                "k": self.k,
                "m": self.m,
            },
        )

    def _audit_unbounded(self, release, rec, sup, labels, n_bad: int, problems: list, max_examples: int) -> AuditReport:
        """k^infinity by containment counting (see :mod:`graphanon.counting.containment`).

        ``rec`` the published records, ``sup`` their containment counts.
        """
        bad = np.flatnonzero((np.diff(rec.indptr) > 0) & (sup < self.k))
        Xc = sp.csc_array(rec)
        Xc.sort_indices()
        examples, seen, worst = list(problems), set(), None
        # Lowest record support first; one minimal itemset per distinct record shape.
        for r in bad[np.argsort(sup[bad], kind="stable")]:
            if len(examples) >= max_examples and worst is not None:
                break
            items = tuple(rec.indices[rec.indptr[r] : rec.indptr[r + 1]].tolist())
            if items in seen:
                continue
            seen.add(items)
            itemset, support = shrink_to_minimal(Xc, items, self.k)
            shown = {"itemset": [labels[g] for g in itemset], "support": support}
            worst = worst or shown
            if len(examples) < max_examples and shown["itemset"] not in [e.get("itemset") for e in examples]:
                rows = itemset_rows(Xc, itemset)
                examples.append({**shown, "published_records": [release.pseudonyms[i] for i in np.sort(rows)[:10]]})
        return AuditReport(
            model=self.name,
            satisfied=(len(bad) == 0 and n_bad == 0),
            violations=len(bad) + n_bad,
            worst=worst,
            counterexamples=examples,
            details={
                "unit": "published records contained in fewer than k published records (k^infinity, decided "
                "by containment counting), plus records that are not recodings",
                "method": "containment counting",
                "violating_records": int(len(bad)),
                "smallest_record_support": int(sup[bad].min()) if len(bad) else None,
                "recoding_mismatches": n_bad,
                "k": self.k,
                "m": self.m,
            },
        )


class TransactionalKAnonymity(PrivacyModel):
    """Transactional k-anonymity: each published record equals at least ``k - 1`` others.

    Empty published records count as records (they must also come in groups
    of at least ``k``). Audits global recodings and local recodings
    (:class:`~graphanon.release.LocalRecoding`: rows are equal when they hold
    the same copies of the same nodes); it first checks that the release is a
    recoding of ``original``, labels included (:mod:`graphanon.privacy.consistency`;
    :mod:`graphanon.privacy.local` for local ones: an exact record-to-row
    assignment by max-flow, or each record against its own row with the
    private link).
    ``audit(..., client=client)`` with a ``dask.distributed.Client`` groups
    the records on its workers (:func:`graphanon.distributed.equal_row_groups`:
    exact per-block keys, counters tree-summed there, only the records in
    groups smaller than ``k`` come back); the report is identical.

    See Also
    --------
    graphanon.algorithms.anonymize_clump : An anonymizer it checks (also partition).
    KmAnonymity : Attackers who know at most m items.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a"], ["a"], ["b"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)"})
    >>> TransactionalKAnonymity(3).audit(data, rel).satisfied
    True
    """

    @validate_params({"k": K}, meanings=MEANINGS)
    def __init__(self, k: int) -> None:
        self.k = int(k)
        self.name = f"transactional k-anonymity (k={self.k})"

    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None, client=None) -> AuditReport:
        """Audit ``release``; ``client``.

        A ``dask.distributed.Client`` that groups the records on its workers
        (:func:`graphanon.distributed.equal_row_groups`) - the report is the same.
        """
        require_global(release, "transactional k-anonymity")
        check_k(self.k, original.n_records)
        n_bad, problems = _mismatches(original, release, max_examples)
        if client is None:
            keys = row_keys(release.records, _is_local(release))
            size: dict[bytes, int] = {}
            for key in keys:
                size[key] = size.get(key, 0) + 1
            sizes = np.array([size[key] for key in keys], dtype=np.int64)
            small = np.flatnonzero(sizes < self.k)
            small_sizes, groups = sizes[small], len(size)
            smallest = min(size.values()) if size else 0
        else:
            from graphanon.distributed import equal_row_groups

            groups, smallest, small, small_sizes = equal_row_groups(
                release.records, self.k, client=client, with_values=_is_local(release), progress=progress
            )
        examples = list(problems)
        n_shown = max(0, max_examples - len(examples))
        for i, s in zip(small[:n_shown].tolist(), small_sizes[:n_shown].tolist(), strict=True):
            examples.append({"published_record": release.pseudonyms[i], "published": release.render_record(i), "group_size": s})
        worst = None
        if len(small):
            j = int(np.argmin(small_sizes))  # the first record of the smallest group
            i = int(small[j])
            worst = {"published_record": release.pseudonyms[i], "published": release.render_record(i),
                     "group_size": int(small_sizes[j])}
        return AuditReport(
            model=self.name,
            satisfied=(not len(small) and n_bad == 0),
            violations=len(small) + n_bad,
            worst=worst,
            counterexamples=examples,
            details={
                "unit": "records in groups of fewer than k identical published records",
                "groups": groups,
                "smallest_group": smallest,
                "recoding_mismatches": n_bad,
                "k": self.k,
            },
        )


def _build_km(*, k, m, original):
    return KmAnonymity(require_k(k, "km"), m)


def _build_transactional(*, k, m, original):
    return TransactionalKAnonymity(require_k(k, "transactional"))


KM_MODEL = ModelDeclaration("km", "k^m-anonymity of a global recoding (-k K -m M; omit -m for m = infinity)",
                            _build_km)
TRANSACTIONAL_MODEL = ModelDeclaration("transactional", "transactional k-anonymity (-k K)", _build_transactional)
