"""Attack (c): the m-item linking attack of Terrovitis et al. (the k^m model).

The adversary knows ``m`` items of the target (not the rest of its record)
and looks for the published records consistent with them:

* global recoding: the rows holding the published images of the known items
  (a suppressed item constrains nothing: the adversary only learns that it
  is not published);
* nonreciprocal: the rows whose possible worlds can hold all known items --
  each known item is in the base or distance bitmap, and the known items
  that are distance positions outside the base (each needing a flip) number
  at most the row's threshold.

A k^m-anonymous release leaves every target at least ``k`` candidates, and
so does a nonreciprocal k-anonymous one (each of the target's ``k`` matches
holds its whole record). The adversary guesses uniformly among the
candidates; its success is ``1/|candidates|`` when the true row is one of
them.

References
----------
Terrovitis, Mamoulis, Kalnis. Privacy-preserving anonymization of set-valued
data. VLDB 2008 (k^m-anonymity; the adversary knows up to m items).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.linkage import model_level
from graphanon.attacks.result import AttackResult, attack_targets, make_result, random_row_baseline
from graphanon.counting.support import generalize_matrix
from graphanon.errors import ParameterError
from graphanon.utils.randomness import check_random_state

__all__ = ["known_items", "m_item_linkage"]


def known_items(X, targets, m: int, rng=None) -> sp.csr_array:
    """``min(m, |record|)`` items of each target, drawn uniformly without replacement.

    Parameters
    ----------
    X : sparse matrix (n, d)
    targets : array of int
    m : int
    rng : seed or Generator

    Returns
    -------
    csr_array (len(targets), d), boolean

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> Q = known_items(sp.csr_array(np.array([[1, 1, 1], [0, 1, 0]])), np.array([0, 1]), 2, rng=0)
    >>> np.diff(Q.indptr).tolist()
    [2, 1]
    """
    gen = check_random_state(rng)
    T = sp.csr_array(sp.csr_array(X)[np.asarray(targets, dtype=np.int64)])
    T.sum_duplicates()
    T.eliminate_zeros()
    lens = np.diff(T.indptr)
    row = np.repeat(np.arange(T.shape[0]), lens)
    order = np.lexsort((gen.random(T.nnz), row))
    rank = np.arange(T.nnz) - T.indptr[row]  # rank within the row after sorting (rows stay grouped)
    keep = order[rank < m]
    Q = sp.csr_array((np.ones(len(keep), dtype=bool), (row[keep], T.indices[keep])), shape=T.shape)
    Q.sort_indices()
    return Q


def _rows_blocks(n_targets: int, n_rows: int, cells: int = 4_000_000):
    step = max(1, cells // max(1, n_rows))
    for lo in range(0, n_targets, step):
        yield lo, min(n_targets, lo + step)


def _global_candidates(release, original, Q, truth_t):
    code = release.code_for(original)
    Qg = sp.csr_array(generalize_matrix(Q, code, release.n_published_items), dtype=np.int32)
    qlen = np.diff(Qg.indptr)
    RT = sp.csr_array(release.records, dtype=np.int32).T.tocsr()
    n_rows = release.n_records
    sizes = np.zeros(Qg.shape[0], dtype=np.int64)
    has_truth = np.zeros(Qg.shape[0], dtype=bool)
    for lo, hi in _rows_blocks(Qg.shape[0], n_rows):
        ok = (Qg[lo:hi] @ RT).toarray() == qlen[lo:hi, None]
        sizes[lo:hi] = ok.sum(axis=1)
        has_truth[lo:hi] = ok[np.arange(hi - lo), truth_t[lo:hi]] if truth_t is not None else ok.any(axis=1)
    return sizes, has_truth


def _nonreciprocal_candidates(release, original, Q, truth_t):
    index = {x: j for j, x in enumerate(release.items)}
    cols = np.array([index.get(x, -1) for x in original.items], dtype=np.int64)
    Qc = Q.tocoo()
    inside = cols[Qc.col] >= 0
    outside = (
        np.bincount(Qc.row[~inside], minlength=Q.shape[0]) > 0
    )  # a known item the release never shows
    d = len(release.items)
    Qr = sp.csr_array(
        (np.ones(int(inside.sum()), dtype=np.int32), (Qc.row[inside], cols[Qc.col[inside]])),
        shape=(Q.shape[0], d),
    )
    qlen = np.diff(Qr.indptr)
    B = sp.csr_array(release.base, dtype=np.int32)
    D = sp.csr_array(release.distance, dtype=np.int32)
    UT = sp.csr_array(((B + D) > 0).astype(np.int32)).T.tocsr()
    FT = sp.csr_array(((D - B) > 0).astype(np.int32)).T.tocsr()  # positions that must flip to 1
    thr = np.asarray(release.threshold, dtype=np.int64)
    n_rows = B.shape[0]
    sizes = np.zeros(Q.shape[0], dtype=np.int64)
    has_truth = np.zeros(Q.shape[0], dtype=bool)
    for lo, hi in _rows_blocks(Q.shape[0], n_rows):
        q = Qr[lo:hi]
        ok = (q @ UT).toarray() == qlen[lo:hi, None]
        ok &= (q @ FT).toarray() <= thr[None, :]
        ok[outside[lo:hi]] = False
        sizes[lo:hi] = ok.sum(axis=1)
        has_truth[lo:hi] = ok[np.arange(hi - lo), truth_t[lo:hi]] if truth_t is not None else ok.any(axis=1)
    return sizes, has_truth


def _promise(release, m: int) -> tuple[bool, str]:
    """Whether the release's model promises ``1/k`` against ``m`` known items, and the bound's name."""
    if getattr(release, "kind", None) != "global_recoding":
        return True, "1/k"  # every match holds the whole record
    own = (getattr(release, "params", {}) or {}).get("m")
    if isinstance(own, int) and not isinstance(own, bool):
        if m <= own:
            return True, "1/k"
        return False, f"1/k (not promised: the release is k^{own}, the adversary knows {m} items)"
    return False, "1/k (the release publishes no m: no k^m promise to check)"


def m_item_linkage(
    original,
    release,
    *,
    truth,
    m: int = 2,
    k: int | None = None,
    targets=None,
    rng=None,
    confidence: float = 0.999,
) -> AttackResult:
    """Attack (c): an adversary who knows ``m`` items of each target.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from (the known items come from it).
    release : GlobalRecoding or NonreciprocalRelease
    truth : ReleaseLink, array of int or None
        The private link (``truth[i]``: record ``i``'s true row). None
        (a custodian without the link): the true row is taken to be among
        the candidates, which holds for every sound release (the target's
        row is consistent with its own items), so the success is the
        adversary's expected ``1/|candidates|`` -- an upper bound of the
        link-scored success (``details["scored"]`` is False).
    m : int
        Items the adversary knows (all of them for shorter records).
    k : int, optional
        Bound ``1/k``; default the release's published ``k`` (or ``l``).
    targets : None, int or array of int
    rng : seed or Generator
        Draws the targets (when an int) and the known items (reproducible).
    confidence : float

    Returns
    -------
    AttackResult
        ``success`` = mean over targets of ``1/|candidates|`` when the truth
        is a candidate (0 otherwise); ``bound_kind`` says when the release
        does not promise ``1/k`` against ``m`` items (a global recoding with
        a smaller published ``m``, or none); ``details``: ``promised``,
        ``share_below_k`` (targets
        with fewer than ``k`` candidates), ``mean_inverse_candidates``,
        ``min_candidates``, ``truth_outside``.

    See Also
    --------
    row_linkage : An adversary who knows the whole record.
    graphanon.privacy.KmAnonymity : The audit of the bound it tests.

    Notes
    -----
    Complexity: blocked sparse products: O(targets x n) dense cells in blocks of 4e6,
    plus O(nnz) per block; no Python loop over records.

    Examples
    --------
    >>> import numpy as np
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a", "c"], ["b", "c"], ["a"], ["b"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": "c"}, params={"k": 2})
    >>> res = m_item_linkage(data, rel, truth=np.arange(4), m=1, rng=0)
    >>> res.details["share_below_k"], res.within_bound()
    (0.0, True)
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ParameterError(
            f"m (items the adversary knows) must be a whole number >= 1, got {m!r}"
        )
    gen = check_random_state(rng)
    t, truth_t = attack_targets(original, release, targets, gen, truth=truth, scored=truth is not None)
    Q = known_items(original.matrix, t, int(m), gen)
    level = model_level(release, k, ("k", "l"), "k")
    if level is None:
        raise ParameterError(
            "the release publishes no k; pass k= (the level the m-item attack is compared with)"
        )
    if getattr(release, "kind", None) == "global_recoding":
        sizes, has_truth = _global_candidates(release, original, Q, truth_t)
    elif all(hasattr(release, a) for a in ("base", "distance", "threshold", "items")):
        sizes, has_truth = _nonreciprocal_candidates(release, original, Q, truth_t)
    else:
        raise ParameterError(
            f"the m-item attack knows global recodings and nonreciprocal releases, not {type(release).__name__}"
        )
    inv = np.where(sizes > 0, 1.0 / np.maximum(sizes, 1), 0.0)
    per = np.where(has_truth, inv, 0.0)
    nt = len(t)
    promised, kind = _promise(release, int(m))
    return make_result(
        f"m-item-linkage/m={int(m)}" + ("" if truth is not None else "/expected"),
        per,
        1.0 / level,
        kind,
        confidence,
        {
            "m": int(m),
            "promised": promised,
            "k": level,
            "share_below_k": float((sizes < level).mean()) if nt else 0.0,
            "mean_inverse_candidates": float(inv.mean()) if nt else 0.0,
            "min_candidates": int(sizes.min()) if nt else 0,
            "truth_outside": float((~has_truth).mean()) if nt else 0.0,
            "scored": truth is not None,
        },
        baseline=random_row_baseline(release.n_records),
        baseline_kind="random row",
    )
