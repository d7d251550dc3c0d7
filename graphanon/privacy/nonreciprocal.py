"""Audits of nonreciprocal releases: k-anonymity and l-diversity over the match graph.

An original record *matches* a published record when it lies in that
record's possible worlds: equal to the base bitmap outside the distance
positions, and at most ``threshold`` flips away on them. The audits compute
the match graph themselves from the published bitmaps (blocked sparse
products; no code shared with the anonymizer or the release's own matcher).

References
----------
Xue, Karras, Raïssi, Vaidya, Tan. Anonymizing set-valued data by
nonreciprocal recoding. KDD 2012, Sec. 3 (Definitions of k-anonymity and
l-diversity by generalization graphs).
Wong, Liu, Fu, Wang, Wang. Non-homogeneous generalization in privacy
preserving data publishing. SIGMOD 2010.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.errors import DataMismatchError, ParameterError
from graphanon.privacy.registry import register_model, require_k
from graphanon.privacy.report import AuditReport, PrivacyModel

__all__ = ["LDiversity", "NonreciprocalKAnonymity", "nonreciprocal_matches"]


def _require_nr(release, model: str):
    for attr in ("base", "distance", "threshold", "items"):
        if not hasattr(release, attr):
            raise ParameterError(
                f"{model} audits nonreciprocal releases (base/distance/threshold per record); "
                f"got a {type(release).__name__}"
            )


def nonreciprocal_matches(original, release, *, block: int | None = None):
    """All (original record, published record) match pairs, computed independently.

    Returns
    -------
    orig, pub : ndarray of int64
        Edge endpoints.
    unknown : ndarray of bool
        Original records holding an item the release does not know (they match nothing).

    Complexity
    ----------
    O(n^2 / block) sparse products of ``block`` rows; fine up to ~10^4 records.
    """
    index = {x: j for j, x in enumerate(release.items)}
    d = len(release.items)
    cols = np.array([index.get(x, -1) for x in original.items], dtype=np.int64)
    X = sp.csr_array(original.matrix).astype(np.int32)
    unknown = np.zeros(original.n_records, dtype=bool)
    if (cols < 0).any():
        unknown = np.asarray(X[:, np.flatnonzero(cols < 0)].sum(axis=1)).ravel() > 0
    keep = np.flatnonzero(cols >= 0)
    coo = sp.csr_array(X[:, keep]).tocoo()
    Y = sp.csr_array((np.ones(coo.nnz, dtype=np.int32), (coo.row, cols[keep][coo.col])), shape=(X.shape[0], d))
    Y.sum_duplicates()
    Y.data[:] = 1
    B = sp.csr_array(release.base, dtype=np.int32)
    D = sp.csr_array(release.distance, dtype=np.int32)
    U = ((B + D) > 0).astype(np.int32)
    core = ((B - D) > 0).astype(np.int32)
    BD = B.multiply(D).astype(np.int32)
    ylen = np.diff(Y.indptr)
    core_len = np.diff(sp.csr_array(core).indptr)
    bd_len = np.diff(sp.csr_array(BD).indptr)
    thr = np.asarray(release.threshold, dtype=np.int64)
    YT = Y.T.tocsr()
    o_parts, p_parts = [], []
    m = B.shape[0]
    if block is None:
        block = max(1, 2_000_000 // max(1, Y.shape[0]))
    for lo in range(0, m, block):
        hi = min(m, lo + block)
        inU = (sp.csr_array(U[lo:hi]) @ YT).toarray()  # (rows, n): |x & U|
        inCore = (sp.csr_array(core[lo:hi]) @ YT).toarray()
        inD = (sp.csr_array(D[lo:hi]) @ YT).toarray()
        inBD = (sp.csr_array(BD[lo:hi]) @ YT).toarray()
        ok = (inU == ylen[None, :]) & (inCore == core_len[lo:hi, None])
        ok &= (inD + bd_len[lo:hi, None] - 2 * inBD) <= thr[lo:hi, None]
        ok[:, unknown] = False
        p, o = np.nonzero(ok)
        o_parts.append(o.astype(np.int64))
        p_parts.append(p.astype(np.int64) + lo)
    if not o_parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), unknown
    return np.concatenate(o_parts), np.concatenate(p_parts), unknown


def _structure_problems(original, release, orig, pub, max_examples):
    """Checks every nonreciprocal release must pass whatever the level."""
    problems = []
    n, m = original.n_records, release.n_records
    if n != m:
        problems.append({"problem": "record count", "original": n, "published": m})
        return problems
    link = getattr(release, "link", None)
    if link is not None and len(link) == n:
        # the producer's own release: every record must lie in its true match's possible worlds
        try:
            own = link.rows_for(original)
        except DataMismatchError as exc:
            return problems + [{"problem": "the release's private link does not fit this data", "reason": str(exc)}]
        key = set(zip(orig.tolist(), pub.tolist(), strict=True))
        for i in range(n):
            if (i, int(own[i])) not in key:
                problems.append(
                    {
                        "problem": "record does not lie in the possible worlds of its own published record",
                        "record": original.record_ids[i],
                    }
                )
                if len(problems) >= max_examples:
                    break
    dsize = np.diff(sp.csr_array(release.distance).indptr)
    bad = np.flatnonzero((release.threshold < 0) | (release.threshold > dsize))
    for p in bad[:max_examples]:
        problems.append({"problem": "threshold exceeds distance positions", "published": release.pseudonyms[p]})
    return problems


class NonreciprocalKAnonymity(PrivacyModel):
    """k-anonymity of a nonreciprocal release.

    Satisfied when (1) the release is well formed against the original data:
    as many published records as original ones, thresholds within the
    distance positions and, when the release carries its private link (the
    producer's own release), every record inside the possible worlds of its
    true match; (2) every
    original record matches at least ``k`` published records; (3) every
    published record is matched by at least ``k`` original records (the
    published structure is at least k-regular).

    Parameters
    ----------
    k : int

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> from graphanon.algorithms.nonreciprocal import anonymize_nonreciprocal
    >>> data = load("nr_table1")
    >>> rel = anonymize_nonreciprocal(data, k=3, order="identity", rng=0)
    >>> NonreciprocalKAnonymity(3).audit(data, rel).satisfied
    True
    """

    def __init__(self, k: int) -> None:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ParameterError(f"k must be a whole number >= 1, got {k!r}")
        self.k = int(k)
        self.name = f"nonreciprocal k-anonymity (k={self.k})"

    def audit(self, original, release, *, max_examples: int = 10) -> AuditReport:
        _require_nr(release, "nonreciprocal k-anonymity")
        orig, pub, unknown = nonreciprocal_matches(original, release)
        problems = _structure_problems(original, release, orig, pub, max_examples)
        per_o = np.bincount(orig, minlength=original.n_records)
        per_p = np.bincount(pub, minlength=release.n_records)
        low_o = np.flatnonzero(per_o < self.k)
        low_p = np.flatnonzero(per_p < self.k)
        examples = list(problems[:max_examples])
        for i in low_o[: max(0, max_examples - len(examples))]:
            examples.append({"record": original.record_ids[i], "matches": int(per_o[i]), "unknown_items": bool(unknown[i])})
        for p in low_p[: max(0, max_examples - len(examples))]:
            examples.append({"published": release.pseudonyms[p], "matched_by": int(per_p[p])})
        violations = len(problems) + len(low_o) + len(low_p)
        worst = None
        if len(per_o):
            i = int(np.argmin(per_o))
            worst = {"record": original.record_ids[i], "matches": int(per_o[i])}
        return AuditReport(
            model=self.name,
            satisfied=violations == 0,
            violations=violations,
            worst=None if violations == 0 else worst,
            counterexamples=examples,
            details={
                "unit": "records with fewer than k matches + published records matched by fewer than k + "
                "structure problems",
                "min_matches": int(per_o.min()) if len(per_o) else 0,
                "min_matched_by": int(per_p.min()) if len(per_p) else 0,
                "mean_matches": float(per_o.mean()) if len(per_o) else 0.0,
                "structure_problems": len(problems),
            },
        )


class LDiversity(PrivacyModel):
    """l-diversity of a nonreciprocal release: every original record's matches
    carry at least ``l`` distinct sensitive labels (plus the structure checks of
    :class:`NonreciprocalKAnonymity`).

    Parameters
    ----------
    l : int
    """

    def __init__(self, l: int) -> None:  # noqa: E741
        if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 1:
            raise ParameterError(f"l must be a whole number >= 1, got {l!r}")
        self.l = int(l)
        self.name = f"nonreciprocal l-diversity (l={self.l})"

    def audit(self, original, release, *, max_examples: int = 10) -> AuditReport:
        _require_nr(release, "l-diversity")
        if release.labels is None:
            raise ParameterError("l-diversity audits a release with sensitive labels; this release has none")
        orig, pub, _unknown = nonreciprocal_matches(original, release)
        problems = _structure_problems(original, release, orig, pub, max_examples)
        codes: dict = {}
        lab = np.array([codes.setdefault(x, len(codes)) for x in release.labels], dtype=np.int64)
        pairs = np.unique(np.column_stack([orig, lab[pub]]), axis=0) if len(orig) else np.zeros((0, 2), np.int64)
        distinct = np.bincount(pairs[:, 0], minlength=original.n_records)
        low = np.flatnonzero(distinct < self.l)
        examples = list(problems[:max_examples])
        for i in low[: max(0, max_examples - len(examples))]:
            examples.append({"record": original.record_ids[i], "distinct_labels": int(distinct[i])})
        violations = len(problems) + len(low)
        return AuditReport(
            model=self.name,
            satisfied=violations == 0,
            violations=violations,
            worst=None if violations == 0 else {"min_distinct_labels": int(distinct.min())},
            counterexamples=examples,
            details={
                "unit": "records whose matches carry fewer than l labels + structure problems",
                "min_distinct_labels": int(distinct.min()) if len(distinct) else 0,
                "structure_problems": len(problems),
            },
        )


def _build_k(*, k, m, params, original):
    return NonreciprocalKAnonymity(require_k(k, "nonreciprocal"))


def _build_l(*, k, m, params, original):
    raw = params.get("l")
    if raw is None:
        if k is None:
            raise ParameterError("audit model 'ldiversity' needs --param l=L (or -k L)")
        return LDiversity(k)
    try:
        return LDiversity(int(raw))
    except ValueError:
        raise ParameterError(f"--param l={raw!r}: not a whole number") from None


register_model("nonreciprocal", _build_k, "nonreciprocal k-anonymity: >= k matches per record and per published record")
register_model("ldiversity", _build_l, "l-diversity of a nonreciprocal release (--param l=L): >= l labels per record's matches")
