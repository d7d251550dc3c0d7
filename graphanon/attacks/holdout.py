"""Members against non-members: is a label adversary's gain about the target or about the population?

An adversary who knows how labels follow contents in the population guesses
a person's label from a release above the ``1/l`` bound even for a person
who is *not* in the data (Kifer, "Attacks on privacy and de Finetti's
theorem", SIGMOD 2009): that is population inference, what a release is
meant to let analysts learn. :func:`holdout_label_inference` separates it
from what the release says about its members: it plays the majority
adversary of :func:`~graphanon.attacks.labels.label_inference` on the
members (over their candidate rows) and the same vote over the ``k`` rows
nearest by content on held-out non-members of the same population, and
reports the difference with a two-sample interval.

References
----------
Kifer. Attacks on privacy and de Finetti's theorem. SIGMOD 2009, Sec. 3.
Issue 30, item 1; ``benchmarks/label_holdout.py`` and ``docs/attacks.md`` (j).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.candidates import candidate_sets, label_codes
from graphanon.attacks.linkage import model_level
from graphanon.attacks.result import AttackResult, majority_hit, make_result
from graphanon.errors import ParameterError
from graphanon.privacy.match_graph import nonreciprocal_matches

__all__ = ["holdout_label_inference"]

_Z95 = 1.959963984540054
_BLOCK = 2048  # persons per block of the dense distance matrix
_TIE = 1e-9  # votes (sums of label shares) this close to the largest tie with it


def _in_columns(data, items) -> sp.csr_array:
    """``data``'s records over the column order ``items`` as 0/1 int64 (items not in ``items`` dropped)."""
    index = {x: j for j, x in enumerate(items)}
    cols = np.array([index.get(x, -1) for x in data.items], dtype=np.int64)
    coo = sp.csr_array(data.matrix).tocoo()
    keep = (cols[coo.col] >= 0) & (coo.data != 0)
    X = sp.csr_array((np.ones(int(keep.sum()), dtype=np.int64), (coo.row[keep], cols[coo.col[keep]])),
                     shape=(data.n_records, len(items)))
    X.sum_duplicates()
    X.data[:] = 1
    return X


def _nearest_votes(X: sp.csr_array, base: sp.csr_array, W: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Summed label distributions of the ``k`` rows nearest each person (Hamming distance to the base).

    Ties at the k-th distance are broken by draws from ``seed`` that depend only on the person's position,
    so two identical inputs give identical votes.
    """
    rng = np.random.default_rng(seed)
    noise = rng.random((X.shape[0], base.shape[0])) * 0.5  # below one unit of distance
    len_b = np.diff(base.indptr)
    out = np.zeros((X.shape[0], W.shape[1]))
    for lo in range(0, X.shape[0], _BLOCK):
        hi = min(lo + _BLOCK, X.shape[0])
        Xb = X[lo:hi]
        dist = np.diff(Xb.indptr)[:, None] + len_b[None, :] - 2 * (Xb @ base.T).toarray() + noise[lo:hi]
        idx = np.argpartition(dist, k - 1, axis=1)[:, :k]
        out[lo:hi] = W[idx].sum(axis=1)
    return out


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Difference of means ``a - b`` and its two-sample 95% normal interval (Welch's standard error)."""
    d = float(a.mean() - b.mean())
    se = float(np.sqrt(a.var(ddof=1) / max(len(a), 1) + b.var(ddof=1) / max(len(b), 1)))
    return d, d - _Z95 * se, d + _Z95 * se


def _release_list(release) -> list:
    """``release`` as a non-empty list of bit-voting releases with labels (one, or several draws)."""
    releases = list(release) if isinstance(release, (list, tuple)) else [release]
    if not releases:
        raise ParameterError("holdout label inference needs at least one release")
    for rel in releases:
        if getattr(rel, "labels", None) is None:
            raise ParameterError("this release publishes no sensitive labels; there is nothing to infer")
        if not all(hasattr(rel, a) for a in ("base", "distance", "threshold", "items")):
            raise ParameterError(
                f"holdout label inference reads bit-voting releases (nr, cahd); got a "
                f"{getattr(rel, 'kind', type(rel).__name__)} release"
            )
    return releases


def _draw_hits(original, release, others, k: int, seed: int) -> dict[str, np.ndarray]:
    """Per person, each adversary's success on one release (see :func:`holdout_label_inference`)."""
    (m_code, o_code, pub), n_labels = label_codes(original.labels, others.labels, release.labels)
    W = release.group_label_shares(pub, n_labels).toarray()
    n, n_rows = original.n_records, release.base.shape[0]
    C = candidate_sets(original, release)
    base = sp.csr_array(release.base).astype(np.int64)
    other_votes = _nearest_votes(_in_columns(others, release.items), base, W, k, seed)
    o, p, _unknown = nonreciprocal_matches(others, release)
    like = sp.csr_array((np.ones(len(o)), (o, p)), shape=(others.n_records, n_rows)) @ W
    matched = np.bincount(o, minlength=others.n_records) > 0
    mode = int(np.argmax(np.bincount(pub, minlength=n_labels)))
    member_votes = C.label_weights(np.arange(n), sp.csr_array(W)).toarray()
    member_near = _nearest_votes(_in_columns(original, release.items), base, W, k, seed)
    return {
        "member_candidates": majority_hit(member_votes, m_code, tol=_TIE),
        "member_nearest": majority_hit(member_near, m_code, tol=_TIE),
        "nonmember_nearest": majority_hit(other_votes, o_code, tol=_TIE),
        "nonmember_candidates_like": majority_hit(np.where(matched[:, None], like, other_votes), o_code, tol=_TIE),
        "nonmember_matched": matched.astype(float),
        "mode_members": (m_code == mode).astype(float),
        "mode_nonmembers": (o_code == mode).astype(float),
    }


def holdout_label_inference(
    original,
    release,
    others,
    *,
    k: int | None = None,
    seed: int = 0,
    confidence: float = 0.999,
) -> AttackResult:
    """The majority label adversary on members, against the same vote on non-members of the same population.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from, with its sensitive labels (the members).
    release : NonreciprocalRelease or sequence of them
        A bit-voting release (``nr``, ``cahd``) with published labels; or
        several releases of ``original`` (draws of one method with different
        secret seeds), over which each person's success is averaged before
        the two samples are compared.
    others : TransactionData
        Non-members with labels, drawn from the same population as
        ``original`` (i.i.d.; e.g. a held-out part of one sample).
    k : int, optional
        Rows counted for the nearest-rows vote; default the (first) release's
        published ``k``, else its ``l``, else 3.
    seed : int, default 0
        Tie-breaks at the k-th distance (the adversary's own coin); draw ``i``
        of several releases uses ``seed + i``.
    confidence : float, default 0.999
        Of the one-sided margin of the member success over the reference.

    Returns
    -------
    AttackResult
        ``success``: the members' majority adversary over their candidate
        rows (``label_inference``'s ``majority_success``); ``bound``: the
        non-members' success with the k nearest rows (the population
        inference reference). ``details``: ``member_candidates``,
        ``member_nearest``, ``nonmember_nearest``,
        ``nonmember_candidates_like`` (non-members voting over the rows whose
        bit-voting rule they satisfy, as a member's candidate rows are found;
        one that matches no row falls back to its k nearest),
        ``nonmembers_matching_a_row`` (the share that matched some row),
        ``mode_members``, ``mode_nonmembers`` (hits of the most common
        published label); differences with their two-sample 95% intervals,
        ``X`` and ``X_ci95``: ``difference`` (members' candidate vote minus
        non-members' nearest vote, each person's most-common-label hit
        subtracted), ``nearest_difference`` (the like-for-like k-nearest vote
        on both sides, same subtraction), ``raw_difference`` and
        ``nearest_raw_difference`` (the same two without the subtraction),
        ``like_difference`` (members' candidate vote minus non-members'
        candidate-like vote, no subtraction); ``k`` and ``draws``.

    Raises
    ------
    ParameterError
        Without labels in the data, the non-members or the release, or for a
        release that is not a bit-voting one.

    Notes
    -----
    A non-member has no candidate set, so its rows are the ``k`` nearest by
    Hamming distance between its items and each row's published base, over
    all rows; a row of a label group votes with its group's label shares,
    as in :func:`~graphanon.attacks.labels.label_inference`. Subtracting
    each person's most-common-label hit removes the chance difference in the
    two samples' label make-up. The candidate-like rows of a non-member are
    :func:`~graphanon.privacy.match_graph.nonreciprocal_matches` of the
    non-members against the release. Complexity per release: that of
    :func:`candidate_sets` for the members and the non-members, then
    O((n + n_others) x rows) distances, in blocks of 2,048 persons.

    References
    ----------
    Kifer, SIGMOD 2009, Sec. 3 (de Finetti attacks: population inference).

    Examples
    --------
    >>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
    >>> from graphanon.datasets import load
    >>> data = load("nr_table1")
    >>> rel = anonymize_cahd(data, l=3, unsafe_secret_seed=0)
    >>> res = holdout_label_inference(data, rel, data)   # the members as their own hold-out
    >>> res.attack, res.details["nearest_difference"], res.details["nonmembers_matching_a_row"]
    ('label-holdout', 0.0, 1.0)
    """
    for what, d in (("data", original), ("non-members", others)):
        if d.labels is None:
            raise ParameterError(f"holdout label inference needs the sensitive labels of the {what}; it has none")
    releases = _release_list(release)
    k = model_level(releases[0], k, ("k", "l"), "k") or 3
    n_rows = min(rel.base.shape[0] for rel in releases)
    if not 1 <= k <= n_rows:
        raise ParameterError(f"k must be between 1 and the release's {n_rows} rows, got {k}")
    draws = [_draw_hits(original, rel, others, k, seed + i) for i, rel in enumerate(releases)]
    per = {key: np.mean([d[key] for d in draws], axis=0) for key in draws[0]}
    mc, mn, on = per["member_candidates"], per["member_nearest"], per["nonmember_nearest"]
    m_mode, o_mode = per["mode_members"], per["mode_nonmembers"]
    details: dict = {key: float(v.mean()) for key, v in per.items() if key != "nonmember_matched"}
    details["nonmembers_matching_a_row"] = float(per["nonmember_matched"].mean())
    for name, a, b in (("difference", mc - m_mode, on - o_mode), ("nearest_difference", mn - m_mode, on - o_mode),
                       ("raw_difference", mc, on), ("nearest_raw_difference", mn, on),
                       ("like_difference", mc, per["nonmember_candidates_like"])):
        diff, lo, hi = _welch(a, b)
        details[name] = diff
        details[name.removesuffix("difference") + "ci95"] = (lo, hi)
    details.update(k=k, draws=len(releases))
    return make_result(
        "label-holdout",
        mc,
        float(on.mean()),
        "reference: non-members' majority label over their k nearest rows (population inference)",
        confidence,
        details,
    )
