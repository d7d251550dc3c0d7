"""What a dataset or release actually has: the k^m, k and l it achieves and its risk distribution.

An audit answers "is this release k^m-anonymous for *this* k?"; this module
answers "for which k is it?", and how the re-identification risk is spread
over the records (the risk analysis of ARX, the achieved-parameters report of
pycanon, for transaction data). It reads only what an adversary reads: the
published records (for raw data, the data itself).

Definitions (``P`` the published records, ``n = |P|``, an itemset's support
the number of records of ``P`` that contain it):

* **rarest support** ``s_m(r)`` of record ``r``: the smallest support of an
  itemset of at most ``m`` of ``r``'s published items. By anti-monotonicity it
  is the smallest support of an ``m``-subset of ``r`` (the whole record when
  ``r`` holds at most ``m`` items; ``m = None``: the whole record, its
  containment count). An empty record holds only the empty itemset, held by
  all ``n`` records: ``s_m(r) = n``.
* **largest k for m** (achieved k^m): ``min_r s_m(r)``. Every itemset of at most
  ``m`` published items that occurs lies in some record, so the data is
  k^m-anonymous (:class:`~graphanon.privacy.km.KmAnonymity`) exactly for
  ``k <= min_r s_m(r)``.
* **at risk at (k, m)**: ``r`` is not empty and ``s_m(r) < k`` - some ``m`` of
  its published items are shared by fewer than ``k`` published records.
* **prosecutor risk** at ``m``: an adversary who knows ``r`` is published and
  knows its rarest ``m``-subset is left with the ``s_m(r)`` records holding it
  and picks one uniformly: ``1 / s_m(r)`` (the worst case over the adversary's
  ``m`` items). The report gives its mean and maximum over the records.
* **transactional k**: the size of the smallest group of identical published
  records; **l** (where records carry sensitive labels): the fewest distinct
  labels in such a group, and ``exp`` of the smallest label entropy of a group
  (entropy l).
* nonreciprocal releases (no item-level records): the **nonreciprocal k**, the
  fewest published rows an original record matches in the match graph
  (:func:`~graphanon.privacy.match_graph.match_classes`), and the achieved
  ``l`` over each record's viable rows
  (:func:`~graphanon.privacy.diversity.candidate_label_counts`).

References
----------
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. PVLDB 2008, Sec. 2 (k^m-anonymity). He, Naughton. Anonymization of
set-valued data via top-down, local generalization. PVLDB 2009, Sec. 2
(transactional k-anonymity). Prasser, Kohlmayer et al. ARX - a comprehensive
tool for anonymizing biomedical data, AMIA 2014 (risk analysis: prosecutor
risk, records at risk). Machanavajjhala et al. l-Diversity, ACM TKDD 2007,
Sec. 4.1 (entropy l-diversity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from graphanon.counting.containment import record_supports
from graphanon.counting.rows import bool_csr, row_keys
from graphanon.counting.support import minimal_infrequent_itemsets
from graphanon.errors import ParameterError

__all__ = ["AchievedReport", "DEFAULT_K_GRID", "achieved_privacy", "rarest_supports"]

#: The k of the risk distribution (records at risk for each k and m).
DEFAULT_K_GRID = (2, 5, 10, 25, 50, 100)

_BLOCK = 1 << 22  # itemset codes per block when looking up the m-subsets of records


def _combinations(length: int, m: int) -> np.ndarray:
    """All ``m``-subsets of ``range(length)`` as rows of increasing positions (lexicographic order)."""
    rows = np.arange(length, dtype=np.int64)[:, None]
    for _ in range(m - 1):
        last = rows[:, -1]
        reps = length - 1 - last
        keep = reps > 0
        rows, last, reps = rows[keep], last[keep], reps[keep]
        parent = np.repeat(np.arange(len(rows)), reps)
        offset = np.arange(int(reps.sum())) - np.repeat(np.cumsum(reps) - reps, reps)
        rows = np.concatenate([rows[parent], (last[parent] + 1 + offset)[:, None]], axis=1)
    return rows


def _encode(itemsets: np.ndarray, base: int) -> np.ndarray:
    key = np.zeros(itemsets.shape[0], dtype=np.int64)
    for c in range(itemsets.shape[1]):
        key = key * base + itemsets[:, c]
    return key


def rarest_supports(X, m: int | None) -> tuple[np.ndarray, list]:
    """Per record, the smallest support of an itemset of at most ``m`` of its items.

    Parameters
    ----------
    X : sparse matrix, shape (n_records, n_items)
        Boolean published records.
    m : int or None
        Adversary knowledge in items; None: unbounded (the whole record).

    Returns
    -------
    rarest : ndarray of int64, shape (n_records,)
        ``s_m(r)`` (module docstring); ``n_records`` for empty records.
    levels : list of ItemsetLevel
        Every occurring itemset of each size ``1..m`` with its support (empty
        for ``m=None``), from the level-wise search at ``k = 1``.

    Notes
    -----
    Supports of all occurring itemsets of size <= m come from the package's
    level-wise search (:func:`~graphanon.counting.support.minimal_infrequent_itemsets`
    at ``k=1``: pair supports, then one sparse product per level). The
    ``m``-subsets of each record are enumerated by record length in blocks
    of about 2^22, encoded as one int64 each and looked up by binary search:
    time ``O(sum_r C(|r|, m) log T)`` with ``T`` the number of distinct
    occurring m-itemsets (bms1, m=3: 24 million subsets), memory one block.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> X = sp.csr_array([[1, 1, 0], [1, 1, 1], [0, 1, 1], [0, 0, 0]], dtype=bool)
    >>> rarest_supports(X, 1)[0].tolist(), rarest_supports(X, 2)[0].tolist()
    ([2, 2, 2, 4], [2, 1, 2, 4])
    """
    X = bool_csr(X, copy=False)
    n, n_items = X.shape
    lengths = np.diff(X.indptr).astype(np.int64)
    rarest = np.full(n, n, dtype=np.int64)
    if m is None:
        nonempty = lengths > 0
        if nonempty.any():
            rarest[nonempty] = record_supports(X)[nonempty]
        return rarest, []
    if m < 1:
        raise ParameterError(f"m must be a whole number >= 1 (or None for unbounded), got {m!r}")
    if n_items and m * math.log2(max(n_items, 2)) >= 62:
        raise ParameterError(f"m={m} is too large to encode itemsets of {n_items} items; use a smaller m")
    _, levels = minimal_infrequent_itemsets(
        X, 1, m, what=f"the achieved-k^m report (m={m})", advice="report a smaller m, e.g. m={m}"
    )
    tables = [(_encode(lvl.itemsets, n_items), lvl.supports) for lvl in levels]
    indptr = X.indptr.astype(np.int64)
    idx = X.indices.astype(np.int64)
    order = np.argsort(lengths, kind="stable")
    sorted_len = lengths[order]
    edges = np.flatnonzero(np.diff(sorted_len)) + 1
    for a, b in zip(np.r_[0, edges], np.r_[edges, len(order)], strict=True):
        length = int(sorted_len[a]) if b > a else 0
        if length == 0:
            continue
        size = min(length, m)
        codes_table, sups = tables[size - 1]
        combos = _combinations(length, size)
        chunk = max(1, _BLOCK // len(combos))
        for c in range(a, b, chunk):
            recs = order[c : min(b, c + chunk)]
            A = idx[indptr[recs, None] + np.arange(length)]  # items of each record, sorted
            key = np.zeros((len(recs), len(combos)), dtype=np.int64)
            for col in range(size):
                key = key * n_items + A[:, combos[:, col]]
            pos = np.searchsorted(codes_table, key.ravel())
            rarest[recs] = sups[pos].reshape(key.shape).min(axis=1)
    return rarest, levels


def _label_spread(group_of: np.ndarray, labels) -> dict:
    """Fewest distinct labels and the smallest label entropy (as ``exp``) over the groups ``group_of``."""
    values, codes = np.unique(np.asarray([str(v) for v in labels], dtype=object), return_inverse=True)
    counts = sp.coo_array(
        (np.ones(len(codes), dtype=np.int64), (group_of, codes)), shape=(int(group_of.max()) + 1, len(values))
    ).tocsr()
    counts.sum_duplicates()
    C = counts.tocoo()
    total = np.asarray(counts.sum(axis=1)).ravel().astype(np.float64)
    p = C.data / total[C.row]
    entropy = -np.bincount(C.row, weights=p * np.log(p), minlength=counts.shape[0])
    distinct = np.bincount(C.row, minlength=counts.shape[0])
    return {"distinct_l": int(distinct.min()), "entropy_l": float(np.exp(entropy.min()))}


@dataclass
class AchievedReport:
    """What a dataset or release achieves (see :func:`achieved_privacy`).

    Attributes
    ----------
    kind : str
        ``"data"`` or the release class name.
    n_records : int
        Published records (rows).
    largest_k : dict
        m (1, 2, 3, ``"inf"``) -> the largest k with k^m-anonymity (None when
        not computed, e.g. over the memory budget).
    transactional_k : int or None
    l_diversity : dict or None
        ``distinct_l`` and ``entropy_l`` where labels exist.
    nonreciprocal : dict or None
        ``k`` (fewest matches of an original record) and its ``l`` values.
    risk : list of dict
        One row per (m, k): ``m``, ``k``, ``records_at_risk``, ``share``.
    prosecutor : dict
        m -> ``{"mean": .., "max": ..}``.
    exposed : list of dict
        The most exposed itemsets: ``itemset`` (published labels), ``support``.
    notes : list of str
    rarest : dict
        m -> ``s_m(r)`` per published record (ndarray; prosecutor risk per
        record is ``1 / rarest[m]``). Not part of :meth:`to_dict`.
    """

    kind: str
    n_records: int
    largest_k: dict = field(default_factory=dict)
    transactional_k: int | None = None
    l_diversity: dict | None = None
    nonreciprocal: dict | None = None
    risk: list = field(default_factory=list)
    prosecutor: dict = field(default_factory=dict)
    exposed: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    rarest: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        """The report as one JSON-safe dict (what ``graphanon report --json`` prints)."""
        return {
            "kind": self.kind,
            "n_records": self.n_records,
            "largest_k": {str(m): k for m, k in self.largest_k.items()},
            "transactional_k": self.transactional_k,
            "l_diversity": self.l_diversity,
            "nonreciprocal": self.nonreciprocal,
            "risk": self.risk,
            "prosecutor": {str(m): v for m, v in self.prosecutor.items()},
            "exposed": self.exposed,
            "notes": self.notes,
        }


def published_view(data, release=None) -> tuple[str, list, sp.csr_array | None, object]:
    """What an adversary reads: the published items and records of ``release`` (or of ``data``).

    Parameters
    ----------
    data : TransactionData
    release : Release, optional

    Returns
    -------
    kind : str
        ``"data"`` or the release class name.
    items : list
        Published item labels by column (local recodings: one per copy of a node).
    records : csr_array or None
        Boolean published records; None for a nonreciprocal release (no item-level records).
    labels : sequence or None
        Published sensitive labels by row.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> kind, items, records, labels = published_view(load("liuwang_fig1"))
    >>> kind, records.shape[1] == len(items)
    ('data', True)
    """
    if release is None:
        return "data", list(data.items), data.matrix, data.labels
    kind = type(release).__name__
    labels = getattr(release, "labels", None)
    if hasattr(release, "published_matrix") and hasattr(release, "nodes"):
        items, rec = release.published_matrix()
        return kind, list(items), rec, labels
    if hasattr(release, "published_items"):
        return kind, [pi.label for pi in release.published_items], release.records, labels
    if hasattr(release, "records") and hasattr(release, "items"):
        return kind, list(release.items), release.records, labels
    return kind, [], None, labels


def achieved_privacy(data, release=None, *, ms=(1, 2, 3), unbounded: bool = True,
                     k_grid=DEFAULT_K_GRID, top: int = 10) -> AchievedReport:
    """The k^m, k and l a dataset or release achieves, and its risk distribution.

    Parameters
    ----------
    data : TransactionData
        The data, or the original data of ``release`` (read only for the
        nonreciprocal match graph).
    release : Release, optional
        A global or local recoding, perturbed or nonreciprocal release; None
        reports on ``data`` itself.
    ms : sequence of int
        The bounded attacker knowledges reported (default 1, 2, 3).
    unbounded : bool
        Also report m = infinity (containment counting).
    k_grid : sequence of int
        The k of the risk distribution.
    top : int
        How many most exposed itemsets to list.

    Returns
    -------
    AchievedReport

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> rep = achieved_privacy(load("liuwang_fig1"))
    >>> rep.largest_k[1] >= rep.largest_k[2] >= rep.largest_k[3] >= rep.largest_k["inf"]
    True

    References
    ----------
    See the module docstring (Terrovitis et al. 2008 Sec. 2; ARX risk analysis).
    """
    ms = sorted({int(m) for m in ms})
    if any(m < 1 for m in ms):
        raise ParameterError(f"m must be whole numbers >= 1, got {ms}")
    k_grid = sorted({int(k) for k in k_grid})
    if any(k < 1 for k in k_grid):
        raise ParameterError(f"the k of the risk grid must be >= 1, got {k_grid}")
    kind, items, rec, labels = published_view(data, release)
    if rec is None:
        return _nonreciprocal_report(kind, data, release)
    rec = bool_csr(rec, copy=False)
    n = rec.shape[0]
    if n == 0:
        raise ParameterError("the data has no records")
    rep = AchievedReport(kind=kind, n_records=n)
    keys = row_keys(rec)
    _, group_of, group_size = np.unique(np.asarray(keys, dtype=object), return_inverse=True, return_counts=True)
    rep.transactional_k = int(group_size.min())
    if labels is not None and len(labels) == n:  # type: ignore[arg-type]  # published_view returns labels untyped
        rep.l_diversity = _label_spread(group_of.ravel(), labels)
    best: list[tuple[int, int, tuple]] = []
    nonempty = np.diff(rec.indptr) > 0  # an empty record has no items to be at risk by
    for m in [*ms, *([None] if unbounded else [])]:
        key = "inf" if m is None else m
        rarest, levels = rarest_supports(rec, m)
        rep.largest_k[key] = int(rarest.min())
        rep.rarest[key] = rarest
        for k in k_grid:
            at = int(((rarest < k) & nonempty).sum())
            rep.risk.append({"m": key, "k": k, "records_at_risk": at, "share": at / n})
        risk = 1.0 / rarest
        rep.prosecutor[key] = {"mean": float(risk.mean()), "max": float(risk.max())}
        if m is not None and ms and m == ms[-1]:  # the largest m's search holds every size 1..m
            for lvl in levels:
                take = np.lexsort((np.arange(len(lvl)), lvl.supports))[: 20 * top]
                best.extend((int(lvl.supports[i]), lvl.size, tuple(lvl.itemsets[i].tolist())) for i in take)
    rep.exposed = _most_exposed(sorted(best), items, top)
    if kind == "PerturbedRelease":
        rep.notes.append("perturbed release: supports are of the published (perturbed) records")
    return rep


def _most_exposed(ranked: list[tuple[int, int, tuple]], items: list, top: int) -> list[dict]:
    """The ``top`` rarest itemsets, skipping one that contains an itemset already listed (it says no more)."""
    shown: list[tuple[int, int, tuple]] = []
    for sup, size, itemset in ranked:
        if len(shown) >= top:
            break
        if any(set(s).issubset(itemset) for _, _, s in shown):
            continue
        shown.append((sup, size, itemset))
    return [{"itemset": [items[g] for g in s], "support": sup} for sup, _, s in shown]


def _nonreciprocal_report(kind: str, data, release) -> AchievedReport:
    """Nonreciprocal k and l from the match graph (no item-level published records)."""
    from graphanon.privacy.diversity import candidate_label_counts
    from graphanon.privacy.match_graph import match_classes

    mc = match_classes(data, release)
    per_class, _ = mc.degrees()
    matches = per_class[mc.record_class]
    rep = AchievedReport(kind=kind, n_records=release.n_records)
    nr = {"k": int(matches.min()) if len(matches) else 0,
          "prosecutor_mean": float(np.mean(1.0 / np.maximum(matches, 1))) if len(matches) else 0.0}
    if getattr(release, "labels", None) is not None:
        _, viable, _ = candidate_label_counts(data, release)
        C = sp.coo_array(viable)
        keep = C.data > 0
        row, val = C.row[keep], C.data[keep].astype(np.float64)
        total = np.bincount(row, weights=val, minlength=viable.shape[0])
        p = val / total[row]
        entropy = -np.bincount(row, weights=p * np.log(p), minlength=viable.shape[0])
        nr["distinct_l"] = int(np.bincount(row, minlength=viable.shape[0]).min())
        nr["entropy_l"] = float(np.exp(entropy.min()))
    rep.nonreciprocal = nr
    rep.notes.append("nonreciprocal release: no item-level records; k^m and the risk grid do not apply")
    return rep
