r"""Attack (k): which records of a swapping release lost items, found by an adversary who holds them.

PartSwap and FullSwap (Gunawan & Mambo 2019) pair the records that have a
tendency and exchange their *source items* ``S(T)`` (their items in their
heaviest category). A record the pairing leaves alone would keep its
tendency; the package then either suppresses its source items
(``unpaired="suppress"``, the release says ``moves="swap-suppress"``) or, by
default, splices it into an existing exchange (``unpaired="splice"``, see
:mod:`graphanon.algorithms.swapping`). PartSupp suppresses every record's
source items.

The adversary holds some original records (the *known* records) and the
public categories, and reads the release (rows, ``moves`` and any count the
file states). For a known record ``T`` with a tendency, a suppressed ``T``
is published as exactly ``K(T) = T \ S(T)``: ``T`` minus one category, with
no gift. A swapped ``T`` is published as ``K(T)`` plus the source items of
another record, never as ``K(T)`` alone. So the adversary

1. flags ``T`` when some published row equals ``K(T)`` as a set and no published row
   looks like ``T`` swapped -- ``K(T)`` plus a non-empty set of items of one category other
   than ``T``'s heaviest, none of ``S(T)`` (a single-category *gift*) -- or, with
   ``evidence="source"``, when no published row holds all of ``S(T)`` (in a pair the partner's
   row holds them);
2. does not trust ``moves="swap"`` (every occurrence conserved): a record can hand its source
   items to another row and receive nothing (``unpaired="splice"`` when no row can give it a gift);
3. when the file states the data's occurrence count in clear (the fingerprint of
   releases made before issue 30), reads the *deficit* -- stated occurrences minus
   published ones, the number of suppressed occurrences -- and drops a flag
   whose ``|S(T)|`` exceeds it.

Scoring
-------
The truth is private: the records that *lost items* -- their published row
holds a strict subset of their record and received nothing
(:func:`lost_records`, read off the private link). The targets are the known
records with a tendency (the adversary can tell which those are). The
attack's *precision* (the share of flagged targets that lost items) is
compared with the **base rate**: the share of targets that lost items, what
flagging targets blindly achieves. Recall is reported in the details.

A release in which no record lost items has base rate 0; the attack can then
only flag coincidences (another record published exactly as ``K(T)``).

References
----------
Gunawan, D., Mambo, M. Data anonymization for hiding personal tendency in
set-valued database publication. Future Internet 11(6):138, 2019, Sec. 4;
issue 30 (item 3) of this package.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.result import AttackResult, make_result, resolve_targets
from graphanon.counting.rows import row_hashes
from graphanon.errors import ParameterError
from graphanon.privacy.tendency import heaviest_categories
from graphanon.taxonomy.categories import category_codes

__all__ = ["lost_items_attack", "lost_records"]


def lost_records(original, release, truth) -> np.ndarray:
    """Per original record: whether it lost items (the private truth).

    A record lost items when its published row holds a strict subset of its record and received
    nothing, or when the method says it removed the record's items (``release.trace.suppressed_records``,
    in memory only: a record that lost its source items and received a gift, ``unpaired="splice"``).

    Parameters
    ----------
    original : TransactionData
    release : PerturbedRelease
        One published row per record.
    truth : ReleaseLink or array of int
        The private link (``release.link``) or the row of each record.

    Returns
    -------
    ndarray of bool, shape (n_records,)

    Examples
    --------
    >>> from graphanon.algorithms import anonymize_partsupp
    >>> from graphanon.data import from_iterable
    >>> from graphanon.taxonomy import ItemGroups
    >>> data = from_iterable([["a1", "a2", "b1"], ["b2"]])
    >>> cats = ItemGroups({"A": ["a1", "a2"], "B": ["b1", "b2"]})
    >>> rel = anonymize_partsupp(data, categories=cats, unsafe_secret_seed=0)
    >>> lost_records(data, rel, rel.link).tolist()
    [True, False]
    """
    n = original.n_records
    rows = np.asarray(getattr(truth, "row_of_record", truth), dtype=np.int64).reshape(-1)
    if len(rows) != n or release.n_records != n:
        raise ParameterError(
            f"the lost-items truth needs one published row per record: {n} records, "
            f"{release.n_records} rows, {len(rows)} linked"
        )
    X = sp.csr_array(original.matrix, dtype=np.int64)
    X.sum_duplicates()
    X.data[:] = 1
    Y = sp.csr_array(release.matrix_over(original.items), dtype=np.int64)[rows]
    both = np.asarray(X.multiply(Y).sum(axis=1)).reshape(-1)
    got = np.asarray(Y.sum(axis=1)).reshape(-1)
    had = np.asarray(X.sum(axis=1)).reshape(-1)
    out = (got == both) & (both < had)
    trace = getattr(release, "trace", None)
    out[np.asarray(getattr(trace, "suppressed_records", ()), dtype=np.int64)] = True
    return out


def lost_items_attack(
    original,
    release,
    *,
    categories,
    truth,
    known=None,
    lost=None,
    use_counts: bool = True,
    evidence: str = "no-gift",
    confidence: float = 0.999,
    rng=None,
) -> AttackResult:
    """Attack (k): flag the known records whose row is "the record minus its heaviest category, no gift".

    Parameters
    ----------
    original : TransactionData
        The data the release was made from (the adversary holds the ``known`` records of it).
    release : PerturbedRelease
        A swapping or suppression release (one row per record).
    categories : ItemGroups
        The public categories.
    truth : ReleaseLink or array of int
        The private link: scores the flags (:func:`lost_records`).
    known : None, int or array-like of int
        The records the adversary holds: None every record, an int that many drawn from ``rng``,
        or their indices. Only those with a tendency are targets.
    lost : array-like of bool, optional
        The private truth per record (default: :func:`lost_records`).
    use_counts : bool, default True
        Use the occurrence count the file states in clear, if any (module notes, step 3).
    evidence : {"no-gift", "source", "exchange"}
        ``"no-gift"``: the module's adversary. ``"source"``: the holder of ``T`` looks for its source
        items instead -- in a pair they lie together in the partner's row -- and flags ``T`` when no
        published row holds all of ``S(T)`` (a host's items, dealt between two rows, and parts spread
        over several partners are flagged too). ``"exchange"``: an adversary who has found the rows
        of the known records (the private link stands for that search: an upper bound) and
        reads who gave to whom among them -- ``T`` gave to ``U`` when ``U``'s row holds an item of
        ``S(T)`` that ``U`` did not have; it flags every known record whose exchange is not one
        mutual pair (a 3-cycle or a split made by ``unpaired="splice"``). Score it with
        ``lost=`` the records the pairing left (``release.trace``).
    confidence : float
        For the one-sided margin of the precision over the flags.
    rng : seed or Generator, optional
        Draws ``known`` when it is an int.

    Returns
    -------
    AttackResult
        ``success`` is the precision over the flagged targets, ``bound`` the base rate; ``details``:
        ``recall``, ``flagged``, ``targets``, ``lost_targets``, ``base_rate``, ``deficit`` (None when the file
        states no count), ``flags_match_deficit`` (the flagged source items add up to the deficit).

    Notes
    -----
    Complexity: O(occurrences) for the row hashes of the published rows and of the targets'
    ``K(T)``, then one sort (``numpy.isin``).

    Examples
    --------
    >>> from graphanon.algorithms import anonymize_partsupp
    >>> from graphanon.data import from_iterable
    >>> from graphanon.taxonomy import ItemGroups
    >>> data = from_iterable([["a1", "a2", "b1"], ["b2", "b3", "a3"], ["a1", "b2"]])
    >>> cats = ItemGroups({"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"]})
    >>> rel = anonymize_partsupp(data, categories=cats, unsafe_secret_seed=0)
    >>> res = lost_items_attack(data, rel, categories=cats, truth=rel.link)
    >>> res.success, res.bound, res.details["recall"]    # PartSupp: every target lost items
    (1.0, 1.0, 1.0)

    References
    ----------
    Gunawan & Mambo, Future Internet 2019, Sec. 4; issue 30, item 3.
    """
    if not hasattr(release, "matrix_over") or not hasattr(release, "moves"):
        raise ParameterError(
            f"the lost-items attack reads perturbed (swapping) releases; got a {type(release).__name__}"
        )
    n = original.n_records
    lost = lost_records(original, release, truth) if lost is None else np.asarray(lost, dtype=bool).reshape(-1)
    if len(lost) != n:
        raise ParameterError(f"lost gives {len(lost)} records; the data has {n}")
    X = sp.csr_array(original.matrix, dtype=bool)
    X.sum_duplicates()
    codes = category_codes(categories, original.items)
    heavy = heaviest_categories(X, codes, len(categories))
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    source = (heavy[rows] >= 0) & (codes[X.indices] == heavy[rows])
    n_source = np.bincount(rows[source], minlength=n)
    k = resolve_targets(known, n, rng)
    t = k[heavy[k] >= 0]
    Y = release.matrix_over(original.items)
    deficit = _deficit(release, Y) if use_counts else None
    if evidence == "exchange":
        flagged = _not_a_pair(X, source, rows, t, Y, truth)
    elif evidence == "source":
        S = sp.csr_array((np.ones(int(source.sum()), bool), (rows[source], X.indices[source])), shape=X.shape)
        flagged = ~_held_whole(S[t], Y)
        if deficit is not None:
            flagged &= n_source[t] <= deficit
    elif evidence != "no-gift":
        raise ParameterError(f"evidence must be 'no-gift', 'source' or 'exchange', got {evidence!r}")
    else:  # "moves" is no evidence: a record can hand its items to another row and receive nothing
        keep = ~source
        K = sp.csr_array((np.ones(int(keep.sum()), bool), (rows[keep], X.indices[keep])), shape=X.shape)[t]
        flagged = _rows_in(K, Y)
        if deficit is not None:
            flagged &= n_source[t] <= deficit
        S = sp.csr_array((np.ones(int(source.sum()), bool), (rows[source], X.indices[source])), shape=X.shape)
        f = np.flatnonzero(flagged)
        flagged[f[_swapped_row_exists(K[f], S[t[f]], heavy[t[f]], Y, codes, len(categories))]] = False
    hits = lost[t][flagged]
    lost_t = int(lost[t].sum())
    base = lost_t / len(t) if len(t) else 0.0
    details = {
        "targets": int(len(t)),
        "flagged": int(flagged.sum()),
        "lost_targets": lost_t,
        "base_rate": base,
        "recall": float(hits.sum() / lost_t) if lost_t else 0.0,
        "deficit": deficit,
        "flags_match_deficit": (None if deficit is None
                                else bool(int(n_source[t][flagged].sum()) == deficit and flagged.any())),
        "moves": release.moves,
    }
    return make_result(f"lost-items/{evidence}", hits.astype(float), base,
                       "base rate: share of the known tendency records that lost items", confidence, details)


def _not_a_pair(X, source, rows, t, Y, truth) -> np.ndarray:
    """Per target: no other target is its swap partner, read off their rows.

    ``T`` and ``U`` are partners when each received exactly the other's source items
    (``received(U) = S(T)`` and ``received(T) = S(U)``; ``received`` = row minus record). Without
    such a partner among the targets, ``T``'s items went through a cycle or a split -- or its
    partner is not known.
    """
    own = np.asarray(getattr(truth, "row_of_record", truth), dtype=np.int64).reshape(-1)
    Xt = sp.csr_array(X, dtype=np.int64)[t]
    Yt = sp.csr_array(Y, dtype=np.int64)[own[t]]
    received = (Yt - Yt.multiply(Xt)).tocsr()
    received.eliminate_zeros()
    S = sp.csr_array((np.ones(int(source.sum()), np.int64), (rows[source], X.indices[source])), shape=X.shape)[t]
    hr, hs = row_hashes(received), row_hashes(S)
    have = np.concatenate([hr, hs], axis=1)  # (received, source) of each target
    want = np.concatenate([hs, hr], axis=1)  # what its partner must have
    keys = np.unique(np.concatenate([have, want]), axis=0, return_inverse=True)[1].ravel()
    return ~np.isin(keys[len(t):], keys[: len(t)])


def _held_whole(S, Y, block: int = 512) -> np.ndarray:
    """Per row of ``S``: whether some row of ``Y`` holds all of it (one sparse product per block)."""
    S = sp.csr_array(S, dtype=np.int64)
    Yt = sp.csr_array(sp.csr_array(Y, dtype=np.int64).T)
    size = np.diff(S.indptr)
    out = np.zeros(S.shape[0], dtype=bool)
    for lo in range(0, S.shape[0], block):
        hits = sp.csr_array(S[lo : lo + block] @ Yt)
        r = np.repeat(np.arange(hits.shape[0]), np.diff(hits.indptr))
        out[lo + np.unique(r[hits.data == size[lo + r]])] = True
    return out


def _swapped_row_exists(K, S, heavy, Y, codes, n_categories: int, block: int = 256) -> np.ndarray:
    """Per target: whether a published row is ``K`` plus a gift of one category other than ``heavy``, none of ``S``.

    Only the rows holding all of ``K`` are looked at: one sparse product per block of targets.
    """
    Y = sp.csr_array(Y, dtype=np.int64)
    onehot = sp.csr_array((np.ones(len(codes), np.int64), (np.arange(len(codes)), codes)),
                          shape=(len(codes), n_categories))
    Ycat = sp.csr_array(Y @ onehot)
    Yt = sp.csr_array(Y.T)
    Kf = sp.csr_array(K, dtype=np.int64)
    Sf = sp.csr_array(S, dtype=np.int64)
    Kcat = sp.csr_array(Kf @ onehot)
    k_len = np.diff(Kf.indptr)
    y_len = np.diff(Y.indptr)
    out = np.zeros(K.shape[0], dtype=bool)
    for lo in range(0, K.shape[0], block):
        hi = min(lo + block, K.shape[0])
        holds = (Kf[lo:hi] @ Yt).tocoo()
        t, r = holds.row.astype(np.int64), holds.col.astype(np.int64)
        keep = (holds.data == k_len[lo + t]) & (y_len[r] > k_len[lo + t])
        t, r = t[keep], r[keep]
        if not len(t):
            continue
        hit_s = (Sf[lo:hi] @ Yt).tocsr()
        hit_s.sum_duplicates()
        n_rows = Y.shape[0]
        bad = np.repeat(np.arange(hi - lo), np.diff(hit_s.indptr)) * n_rows + hit_s.indices
        keep = ~np.isin(t * n_rows + r, bad)
        t, r = t[keep], r[keep]
        if not len(t):
            continue
        gift = (Ycat[r] - Kcat[lo + t]).tocsr()  # K is within the row: the received items per category
        gift.eliminate_zeros()
        one = np.diff(gift.indptr) == 1
        cat = np.full(len(t), -1, dtype=np.int64)
        cat[one] = gift.indices[gift.indptr[:-1][one]]
        ok = one & (cat != heavy[lo + t])
        out[lo + np.unique(t[ok])] = True
    return out


def _rows_in(A, B) -> np.ndarray:
    """Per row of ``A``: whether ``B`` holds an identical row (128-bit set hashes)."""
    if A.shape[0] == 0 or B.shape[0] == 0:
        return np.zeros(A.shape[0], dtype=bool)
    ha = row_hashes(A)
    hb = row_hashes(B)
    hb_keys = np.unique(hb, axis=0)
    both = np.concatenate([hb_keys, ha])
    _, inv = np.unique(both, axis=0, return_inverse=True)
    inv = inv.ravel()
    return np.isin(inv[len(hb_keys):], inv[: len(hb_keys)])


def _deficit(release, Y) -> int | None:
    """Occurrences the file states in clear minus those it publishes (None when it states none)."""
    fp = getattr(release, "fingerprint", None)
    occ = fp.get("occurrences") if isinstance(fp, dict) else None
    if not isinstance(occ, int) or isinstance(occ, bool):
        return None
    return int(occ) - int(Y.nnz)
