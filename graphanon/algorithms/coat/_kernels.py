"""Compiled parts of COAT's k^m loop (numba): the violation queue and the partner search.

Imported by the functions that run them (:func:`graphanon.algorithms.coat.engine._run_km`,
:meth:`graphanon.algorithms.coat.state.CoatState.best_partner`), never at package import, so
``import graphanon.algorithms`` stays free of numba (tests/package/test_imports.py).

The queue holds *entries*: a minimal violation found by the level-wise search (its items,
``items[e]``, padded with -1), the published items it stood for when it was last counted
(``groups[e]``) and the clock of that count (``t_push[e]``). The order is the one of the
Python loop this replaces, a heap on ``(-support, seq)`` with ``seq`` a push counter: largest
support first, then first pushed. Supports in the queue lie in ``(0, k)``, so the queue is a
*bucket queue*: one first-in-first-out list per support (linked through ``nxt``), and the top
is the head of the fullest nonempty bucket; pushes and pops are O(1). When the top is stale,
the next entries are re-counted in a batch as before; an entry of the batch whose published
items did not change keeps its support without a count.
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.counting._bitset_kernels import popcount64

__all__ = ["fill_queue", "group_support", "next_fresh", "partner_candidates"]


@numba.njit(cache=True)
def _low_bit(word):  # pragma: no cover - compiled
    """(position of the lowest set bit of ``word``, ``word`` without it)."""
    low = word & (~word + np.uint64(1))
    return np.int64(popcount64(low - np.uint64(1))), word ^ low


@numba.njit(cache=True)
def group_support(bits, words, sup, gs, n_g, stop):  # pragma: no cover - compiled
    """Records holding every published item ``gs[:n_g]``.

    ``sup[g]`` for one item, else AND + popcount of their bitmaps over the words nonzero in all
    of them (``words``: bit ``w`` of row ``g`` tells whether word ``w`` of ``bits[g]`` is
    nonzero).

    With ``stop > 0`` the count ends as soon as it reaches ``stop`` (the result is then some
    value >= ``stop``).
    """
    if n_g == 1:
        return sup[gs[0]]
    total = 0
    for sw in range(words.shape[1]):
        live = words[gs[0], sw]
        for j in range(1, n_g):
            live &= words[gs[j], sw]
        while live:
            b, live = _low_bit(live)
            w = sw * 64 + b
            acc = bits[gs[0], w]
            for j in range(1, n_g):
                acc &= bits[gs[j], w]
            if acc:
                total += popcount64(acc)
                if 0 < stop <= total:
                    return total
    return total


@numba.njit(cache=True)
def _push(queue, nxt, e, s):  # pragma: no cover - compiled
    """Append entry ``e`` to the bucket of support ``s`` (``queue``: heads, tails, then the size and the highest bucket that may be nonempty)."""
    k = (queue.shape[0] - 2) // 2
    nxt[e] = -1
    if queue[s] < 0:
        queue[s] = e
    else:
        nxt[queue[k + s]] = e
    queue[k + s] = e
    queue[2 * k] += 1
    if s > queue[2 * k + 1]:
        queue[2 * k + 1] = s


@numba.njit(cache=True)
def _top(queue):  # pragma: no cover - compiled
    """The bucket of the next entry (largest support with an entry), -1 when empty."""
    k = (queue.shape[0] - 2) // 2
    s = queue[2 * k + 1]
    while s > 0 and queue[s] < 0:
        s -= 1
    queue[2 * k + 1] = s
    return s if s > 0 else -1


@numba.njit(cache=True)
def _pop(queue, nxt, s):  # pragma: no cover - compiled
    """Remove and return the head of bucket ``s``."""
    k = (queue.shape[0] - 2) // 2
    e = queue[s]
    queue[s] = nxt[e]
    if queue[s] < 0:
        queue[k + s] = -1
    queue[2 * k] -= 1
    return e


@numba.njit(cache=True)
def fill_queue(sups, k):  # pragma: no cover - compiled
    """The queue of entries ``0..len(sups)-1`` in that order (supports in ``(0, k)``).

    ``(queue, nxt)`` for :func:`next_fresh`.
    """
    queue = np.full(2 * k + 2, -1, dtype=np.int64)
    queue[2 * k] = 0
    queue[2 * k + 1] = 0
    nxt = np.full(len(sups), -1, dtype=np.int64)
    for e in range(len(sups)):
        _push(queue, nxt, e, sups[e])
    return queue, nxt


@numba.njit(cache=True)
def _current(items, e, grp, out):  # pragma: no cover - compiled
    """The published items of entry ``e``'s items now (first-appearance order, suppressed ones left out) into ``out``; returns how many."""
    n_g = 0
    for j in range(items.shape[1]):
        i = items[e, j]
        if i < 0:
            break
        g = grp[i]
        if g < 0:
            continue
        seen = False
        for t in range(n_g):
            if out[t] == g:
                seen = True
                break
        if not seen:
            out[n_g] = g
            n_g += 1
    return n_g


@numba.njit(cache=True)
def _fresh(items, groups, t_push, e, grp, changed_at, buf):  # pragma: no cover - compiled
    """Whether entry ``e``'s count still holds: same published items, none merged into since."""
    n_g = _current(items, e, grp, buf)
    for t in range(groups.shape[1]):
        g = groups[e, t]
        if t >= n_g:
            return g < 0
        if g != buf[t] or changed_at[g] > t_push[e]:
            return False
    return True


@numba.njit(cache=True)
def next_fresh(queue, nxt, items, groups, t_push, grp, changed_at, bits, words, sup, k, clock,
               batch):  # pragma: no cover - compiled
    """Pop and return the top entry once its count is current; -1 when the queue is empty.

    While the top is stale, the top ``batch`` entries are popped together, re-counted on
    the current published items, and those still violating (support in ``(0, k)``) are
    pushed back in pop order (at the tails of their buckets) with ``t_push = clock``.
    """
    buf = np.empty(items.shape[1], dtype=groups.dtype)
    popped = np.empty(batch, dtype=np.int64)
    popped_sup = np.empty(batch, dtype=np.int64)
    while True:
        top = _top(queue)
        if top < 0:
            return -1
        if _fresh(items, groups, t_push, queue[top], grp, changed_at, buf):
            return _pop(queue, nxt, top)
        nb = 0
        while nb < batch and top > 0:
            popped[nb] = _pop(queue, nxt, top)
            popped_sup[nb] = top
            nb += 1
            top = _top(queue)
        for b in range(nb):
            x = popped[b]
            if _fresh(items, groups, t_push, x, grp, changed_at, buf):
                t_push[x] = clock  # its count holds: pushed back with the same support
                _push(queue, nxt, x, popped_sup[b])
                continue
            n_g = _current(items, x, grp, buf)
            if n_g == 0:
                continue
            s = group_support(bits, words, sup, buf, n_g, k)
            if 0 < s < k:
                for t in range(groups.shape[1]):
                    groups[x, t] = buf[t] if t < n_g else -1
                t_push[x] = clock
                _push(queue, nxt, x, s)


@numba.njit(cache=True)
def _co_supports(bits_g, indptr, indices, grp, n_groups):  # pragma: no cover - compiled
    """``out[h]`` = records holding both the published item of bitmap ``bits_g`` and ``h``.

    Walks the set bits of ``bits_g`` (its records) and, per record, the published items
    of its items, each counted once per record (a per-item stamp of the last record).
    """
    out = np.zeros(n_groups, dtype=np.int64)
    stamp = np.full(n_groups, -1, dtype=np.int64)
    for w in range(bits_g.shape[0]):
        word = bits_g[w]
        while word:
            b, word = _low_bit(word)
            r = w * 64 + b
            for p in range(indptr[r], indptr[r + 1]):
                h = grp[indices[p]]
                if h >= 0 and stamp[h] != r:
                    stamp[h] = r
                    out[h] += 1
    return out


@numba.njit(cache=True)
def partner_candidates(g, bits, indptr, indices, grp, rep_of_min, block, one_block, sup, size,
                       per_size):  # pragma: no cover - compiled
    """The merge partners of published item ``g`` worth scoring, and the support of each union.

    Candidates: the live published items of ``g``'s utility block other than ``g``, in the
    order of their smallest members (``rep_of_min``). The union's support is
    ``sup[g] + sup[h] - co-support(g, h)``. With ``per_size`` only the first candidate of least
    union support among those of each size is kept (still in candidate order): when the
    weight is 1 the UL ``(2^size - 1) * union`` of a merge depends on nothing else, and among
    equal sizes it grows strictly with the union, so no other candidate can be the least.
    """
    co = _co_supports(bits[g], indptr, indices, grp, len(grp))
    n_slots = len(rep_of_min)
    cands = np.empty(n_slots, dtype=np.int64)
    union = np.empty(n_slots, dtype=np.int64)
    where = np.empty(n_slots, dtype=np.int64)  # candidate order of each kept one
    slot_of_size = np.full(n_slots + 1 if per_size else 0, -1, dtype=np.int64)
    n = 0
    for i in range(n_slots):
        h = rep_of_min[i]
        if h < 0 or h == g or (not one_block and block[h] != block[g]):
            continue
        u = sup[g] + sup[h] - co[h]
        if per_size:
            slot = slot_of_size[size[h]]
            if slot >= 0:
                if u < union[slot]:  # ties keep the earlier candidate
                    cands[slot], union[slot], where[slot] = h, u, i
                continue
            slot_of_size[size[h]] = n
        cands[n], union[n], where[n] = h, u, i
        n += 1
    order = np.argsort(where[:n])
    return cands[:n][order], union[:n][order]


