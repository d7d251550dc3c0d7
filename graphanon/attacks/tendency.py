r"""Attack (e): the swap partner's tendency, read off a target's own published row.

The swapping methods of Gunawan & Mambo (2019) hide a person's *tendency*
(the category that dominates their record) by moving items between records.
An adversary who knows one original record ``T`` and the public categories
knows which of ``T``'s items a tendency swap moves: its *source items*
``S(T)`` (its items in its heaviest category, when it has a tendency) while
the others, ``K(T) = T \ S(T)``, stay. So it

1. finds ``T``'s row: the rows ``R`` of greatest ``|R & K(T)| - |R & S(T)|``
   (for PartSwap, exactly the rows that hold all of ``K(T)`` and none of
   ``S(T)``, ``T``'s own row among them), and among those the rows whose
   items outside ``T`` span the fewest categories (at least one: a swap
   hands over one category); it picks one uniformly;
2. reads the items that row holds and ``T`` does not -- what ``T`` received
   -- and guesses that their dominant category (ties split uniformly) is the
   *partner's tendency*.

Under PartSwap the received items are the partner's source items, all in
its heaviest category. The partner is another person: its tendency is what
the method was meant to hide, and together with the partner's own row (the
one holding ``S(T)``) the adversary has the partner's whole record.

Scoring
-------
The truth is private: which records exchanged items (``partners``: pairs
``(i, j)``, e.g. ``release.trace.pairs``; a record may have several) and
each partner's *dominating category* -- its heaviest category when it has a
tendency, else the category of all its items when it has exactly one (a
FullSwap single-category record), else none. The targets are the records
with at least one partner that has a dominating category. The success of a
guess ``g`` for target ``T`` is the share of ``T``'s partners (with a
dominating category) whose category is ``g``: the chance that the guess is
right about a partner drawn uniformly -- with one partner, 1 or 0. The
expectation over the uniform row choice and the ties is computed, not
sampled.

Bound
-----
The swapping methods promise nothing about partners, so the bound is the
**majority baseline**: the success of the best constant guess (the most
common partner category among the targets), what an adversary gets without
reading the release. Methods that move no items between records (PartSupp,
SplitPerson) have no partners: no targets.

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019, Sec. 4.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.result import AttackResult, make_result
from graphanon.errors import ParameterError
from graphanon.privacy.tendency import heaviest_categories
from graphanon.taxonomy.categories import category_codes

__all__ = ["dominating_categories", "partner_tendency", "partner_weights", "partners_from_link"]


def dominating_categories(X, codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Per record, its heaviest category when it has a tendency, else its only category, else -1.

    Examples
    --------
    >>> X = sp.csr_array([[1, 1, 1, 0], [1, 0, 0, 1], [0, 0, 1, 1]], dtype=bool)
    >>> dominating_categories(X, np.array([0, 0, 1, 1]), 2).tolist()
    [0, -1, 1]
    """
    X = sp.csr_array(X)
    out = heaviest_categories(X, codes, n_categories)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    cats = np.asarray(codes, dtype=np.int64)[X.indices]
    lo = np.full(X.shape[0], n_categories, dtype=np.int64)
    hi = np.full(X.shape[0], -1, dtype=np.int64)
    np.minimum.at(lo, rows, cats)
    np.maximum.at(hi, rows, cats)
    single = (lo == hi) & (out < 0)
    out[single] = lo[single]
    return out


def partner_weights(partners, n: int, dominating: np.ndarray) -> sp.csr_array:
    """Per record, the share of its partners (with a dominating category) in each category.

    Parameters
    ----------
    partners : iterable of (int, int)
        Records that exchanged items (symmetric; a record may have several).
    n : int
    dominating : ndarray (n,)
        :func:`dominating_categories`.

    Returns
    -------
    scipy.sparse.csr_array (n, n_categories)
        Rows sum to 1 for records with a partner that has a dominating category, 0 otherwise.

    Examples
    --------
    >>> partner_weights([(0, 1), (0, 2)], 3, np.array([0, 1, 1])).toarray().tolist()
    [[0.0, 1.0], [1.0, 0.0], [1.0, 0.0]]
    """
    pairs = np.asarray(list(partners), dtype=np.int64).reshape(-1, 2)
    if len(pairs) and (pairs.min() < 0 or pairs.max() >= n):
        raise ParameterError(f"partners must be pairs of record indices in 0..{n - 1}")
    a = np.concatenate([pairs[:, 0], pairs[:, 1]])
    b = np.concatenate([pairs[:, 1], pairs[:, 0]])
    keep = (a != b) & (dominating[b] >= 0)
    a, b = a[keep], b[keep]
    n_cat = int(dominating.max()) + 1 if len(dominating) and dominating.max() >= 0 else 1
    W = sp.coo_array((np.ones(len(a)), (a, dominating[b])), shape=(n, n_cat)).tocsr()
    W.sum_duplicates()
    total = np.asarray(W.sum(axis=1)).reshape(-1)
    return sp.csr_array(sp.diags_array(1.0 / np.maximum(total, 1.0)) @ W)


def partner_tendency(
    original,
    release,
    *,
    categories,
    partners,
    truth=None,
    targets=None,
    one_category: bool = True,
    confidence: float = 0.999,
    block: int | None = None,
) -> AttackResult:
    """Attack (e): guess the tendency of each target's swap partner from the target's own row.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from (the adversary knows the target's record).
    release : PerturbedRelease
        Any release with ``matrix_over(items)`` (published rows over the original items).
    categories : ItemGroups
        The public categories.
    partners : iterable of (int, int)
        The private truth: records that exchanged items (``release.trace.pairs``).
    truth : ReleaseLink, optional
        Accepted for the common signature and checked for size; the adversary's
        success does not depend on it (the guess is scored against the partners).
    targets : array-like of int, optional
        Restrict to these records (default: every record with a partner that
        has a dominating category).
    one_category : bool, default True
        Prefer, among the best-scoring rows, those whose new items span the
        fewest categories (a plain swap hands over one category). An
        adversary who knows the release spread a record's items over several
        partners (``spread`` > 1) drops this preference: ``False``.
    confidence : float
        For the one-sided margin.
    block : int, optional
        Targets per block of dense (targets x rows x categories) counts
        (default: about 4 million cells).

    Returns
    -------
    AttackResult
        ``details``: ``baseline`` (best constant guess), ``row_found`` (mean
        chance that the chosen row is the target's own, when ``truth`` is a
        one-to-one link), ``candidates_mean``, ``received_nothing`` (share of
        (target, candidate) pairs whose row adds no item), ``targets_with_partner``.

    Notes
    -----
    Complexity: per block of ``b`` targets: sparse products with the published rows for
    the scores and, per category, the received counts; O(b x rows) memory.

    Examples
    --------
    >>> from graphanon.algorithms import anonymize_partswap
    >>> from graphanon.data import from_iterable
    >>> from graphanon.taxonomy import ItemGroups
    >>> data = from_iterable([["a1", "a2", "b1"], ["b2", "b3", "a3"]])
    >>> cats = ItemGroups({"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"]})
    >>> rel = anonymize_partswap(data, categories=cats, rng=0, unsafe_secret_seed=0)
    >>> res = partner_tendency(data, rel, categories=cats, partners=rel.trace.pairs)
    >>> res.success, res.bound            # each reads the other's tendency; a constant guess gets half
    (1.0, 0.5)

    References
    ----------
    Gunawan & Mambo, Future Internet 2019, Sec. 4 (PartSwap, FullSwap).
    """
    n = original.n_records
    if not hasattr(release, "matrix_over"):
        raise ParameterError(
            f"the partner-tendency attack reads perturbed (swapping) releases; got a {type(release).__name__}"
        )
    X = sp.csr_array(original.matrix, dtype=bool)
    X.sum_duplicates()
    codes = category_codes(categories, original.items)
    G = len(categories)
    Y = sp.csr_array(release.matrix_over(original.items), dtype=np.float64)
    dom = dominating_categories(X, codes, G)
    W = partner_weights(partners, n, dom)
    if W.shape[1] < G:
        W = sp.csr_array(sp.hstack([W, sp.csr_array((n, G - W.shape[1]))]))
    has_partner = np.asarray(W.sum(axis=1)).reshape(-1) > 0
    if targets is None:
        t = np.flatnonzero(has_partner)
    else:
        t = np.asarray(targets, dtype=np.int64).reshape(-1)
        if len(t) and (t.min() < 0 or t.max() >= n):
            raise ParameterError(f"target record indices must lie in 0..{n - 1}")
        t = t[has_partner[t]]
    own_row = _own_rows(truth, n, release.n_records)
    # the adversary's model of each target: heaviest-category items move, the rest stay
    heavy = heaviest_categories(X, codes, G)
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    source = (heavy[rows] >= 0) & (codes[X.indices] == heavy[rows])
    S = sp.csr_array((np.ones(int(source.sum())), (rows[source], X.indices[source])), shape=X.shape)
    K = sp.csr_array((np.ones(int((~source).sum())), (rows[~source], X.indices[~source])), shape=X.shape)
    Xf = sp.csr_array(X, dtype=np.float64)
    Yt = sp.csr_array(Y.T)
    cat_cols = [np.flatnonzero(codes == g) for g in range(G)]
    row_cat = np.column_stack([np.asarray(Y[:, cols].sum(axis=1)).reshape(-1) for cols in cat_cols]) if G else None
    per, found, n_cands, empty_share = [], [], [], []
    Wd = W.toarray() if G else np.zeros((n, 0))
    if block is None:
        block = max(1, 4_000_000 // max(1, release.n_records * max(G, 1)))
    for lo in range(0, len(t), block):
        tb = t[lo : lo + block]
        score = (K[tb] @ Yt - S[tb] @ Yt).toarray()
        cand = score == score.max(axis=1, keepdims=True)
        received = []
        for g, cols in enumerate(cat_cols):
            overlap = (Xf[tb][:, cols] @ Yt[cols]).toarray()
            assert row_cat is not None  # categories exist (G > 0)
            received.append(row_cat[:, g][None, :] - overlap)
        R = np.stack(received, axis=2)  # (b, rows, G): items of the row in g that the target lacks
        # a swap hands over one category (the partner's source items): among the best-scoring rows,
        # prefer those whose new items span the fewest categories (at least one)
        if one_category:
            spread = (R > 0).sum(axis=2)
            spread = np.where(spread == 0, G + 1, spread)
            best = np.where(cand, spread, G + 2).min(axis=1, keepdims=True)
            cand &= spread == best
        top = R.max(axis=2)
        at_top = (R == top[:, :, None]) & (top[:, :, None] > 0)
        n_top = at_top.sum(axis=2)
        right = (at_top * Wd[tb][:, None, :]).sum(axis=2) / np.maximum(n_top, 1)
        c = cand.sum(axis=1)
        per.append((right * cand).sum(axis=1) / c)
        n_cands.append(c)
        empty_share.append(((top <= 0) & cand).sum(axis=1) / c)
        if own_row is not None:
            found.append(cand[np.arange(len(tb)), own_row[tb]] / c)
    per_target = np.concatenate(per) if per else np.zeros(0)
    baseline = float(Wd[t].mean(axis=0).max()) if len(t) and G else 0.0
    details = {
        "baseline": baseline,
        "targets_with_partner": int(has_partner.sum()),
        "candidates_mean": float(np.concatenate(n_cands).mean()) if n_cands else 0.0,
        "received_nothing": float(np.concatenate(empty_share).mean()) if empty_share else 0.0,
    }
    if own_row is not None:
        details["row_found"] = float(np.concatenate(found).mean()) if found else 0.0
    return make_result(
        "partner-tendency" if one_category else "partner-tendency/any-categories", per_target, baseline, "baseline: the most common partner tendency", confidence, details,
        baseline=baseline, baseline_kind="most common tendency",
    )


def _own_rows(truth, n: int, n_rows: int):
    """The target's own published row from a one-to-one link; None without one (or for a split link)."""
    if truth is None or not hasattr(truth, "row_of_record") and not isinstance(truth, (list, tuple, np.ndarray)):
        return None
    rows = np.asarray(getattr(truth, "row_of_record", truth), dtype=np.int64).reshape(-1)
    if len(rows) != n or n_rows != n:
        raise ParameterError(f"truth gives rows for {len(rows)} records; the data has {n}, the release {n_rows} rows")
    return rows


def partners_from_link(original, release, truth, *, block: int = 1024) -> list[tuple[int, int]]:
    """The record pairs that exchanged items, read off a one-to-one private link.

    Record ``T`` *received* the items its published row holds and ``T`` does
    not, and *gave* the items ``T`` holds and its row does not. ``T`` and
    ``P`` are partners when, both ways, ``T`` received something, all of it
    given by ``P`` (``received(T)`` within ``gave(P)``), and everything ``P``
    gave reached ``T`` (``gave(P)`` within ``T``'s record or row: an item
    ``T`` already held is lost, a RandSwap collision). For PartSwap, FullSwap and RandSwap releases
    this recovers ``release.trace.pairs`` (which is never saved), up to
    records that are identical in the data, which may all be named; it is
    what ``graphanon attack --link`` scores the partner-tendency attack with.
    It does not apply to releases made with ``spread > 1``, where a record
    gives to several partners (the CLI says so and skips the attack), and
    it names only mutual exchanges: the 3-cycles, hosts, gifts and
    receivers of ``unpaired="splice"`` are in ``release.trace.pairs`` but
    not read off the link.

    Parameters
    ----------
    original : TransactionData
    release : PerturbedRelease
    truth : ReleaseLink or array of int
        One published row per record.
    block : int
        Records per sparse product.

    Returns
    -------
    list of (int, int)
        Pairs ``(i, j)``, ``i < j``.

    Examples
    --------
    >>> from graphanon.algorithms import anonymize_partswap
    >>> from graphanon.data import from_iterable
    >>> from graphanon.taxonomy import ItemGroups
    >>> data = from_iterable([["a1", "a2", "b1"], ["b2", "b3", "a3"], ["c1"]])
    >>> cats = ItemGroups({"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"], "C": ["c1"]})
    >>> rel = anonymize_partswap(data, categories=cats, rng=0, unsafe_secret_seed=0)
    >>> partners_from_link(data, rel, rel.link), rel.trace.pairs
    ([(0, 1)], ((0, 1),))
    """
    n = original.n_records
    rows = _own_rows(truth, n, release.n_records)
    if rows is None:
        raise ParameterError("the swap partners are read off a one-to-one private link (--link FILE)")
    X = sp.csr_array(original.matrix, dtype=np.float64)
    X.sum_duplicates()
    X.data[:] = 1.0
    Y = sp.csr_array(release.matrix_over(original.items), dtype=np.float64)[rows]
    received = (Y - Y.multiply(X)).tocsr()
    received.eliminate_zeros()
    gave = (X - X.multiply(Y)).tocsr()
    gave.eliminate_zeros()
    size = np.diff(received.indptr)
    given = np.diff(gave.indptr)
    holds = sp.csr_array((X + Y) > 0, dtype=np.float64)
    Xt = sp.csr_array(gave.T)
    a_all, b_all = [], []
    for lo in range(0, n, block):
        hit = (received[lo : lo + block] @ Xt).tocoo()
        a = hit.row.astype(np.int64) + lo
        keep = (hit.data == size[a]) & (size[a] > 0) & (a != hit.col)
        a, b = a[keep], hit.col[keep].astype(np.int64)
        reached = np.asarray(gave[b].multiply(holds[a]).sum(axis=1)).reshape(-1)
        keep = reached == given[b]
        a_all.append(a[keep])
        b_all.append(b[keep])
    a = np.concatenate(a_all) if a_all else np.zeros(0, dtype=np.int64)
    b = np.concatenate(b_all) if b_all else np.zeros(0, dtype=np.int64)
    # each direction found on its own: keep the pairs found both ways
    key = np.minimum(a, b) * n + np.maximum(a, b)
    uniq, counts = np.unique(key, return_counts=True)
    both = uniq[counts == 2]
    return [(int(k // n), int(k % n)) for k in both]
