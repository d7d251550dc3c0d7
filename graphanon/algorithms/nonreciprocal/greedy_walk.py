"""The paper's greedy l-diverse walk (Xue et al., Algorithm 2, ``greedyPick``).

Greedy closed walks on the complete graph with a label-aware random
fallback; used by :func:`~graphanon.algorithms.nonreciprocal.greedy_diverse_assignments`
with ``method="greedy-walk"``.

References
----------
Xue et al. KDD 2012, Sec. 4.4 (Algorithm 2).
"""

from __future__ import annotations

import numba
import numpy as np

import graphanon.utils.numba_cache  # noqa: F401 (kernel caches keyed by every kernel's source)
from graphanon.algorithms.nonreciprocal._kernels import erase_cycle, open_walk, push, round_arrays
from graphanon.counting.bitset import hamming_words
from graphanon.errors import InfeasibleError


@numba.njit(cache=True, inline="always")
def _label_used(ml, mlc, x, label):
    """Whether an earlier round already matched record ``x`` to a record labelled ``label``."""
    for c in range(mlc[x]):
        if ml[x, c] == label:
            return True
    return False


@numba.njit(cache=True)
def _greedy_pick(
    x, rank, order, P, lab, ml, mlc, inv, stamp, walk, target, ehead_stamp, ehead, enext, ey, window, lookahead
):
    n = order.shape[0]
    i = rank[x]
    last = -1
    dlast = 0
    found = -1
    found_h = 1 << 30
    dfound = 0
    half = min(n // 2 + 1, 4 * window + 64)
    for d in range(half + 1):
        best = -1
        best_unv = False
        best_h = 1 << 30
        for side in range(2):
            if d == 0 and side == 1:
                continue
            if side == 0:
                p = (i + d) % n
            else:
                p = (i - d) % n
                if p == (i + d) % n:
                    continue
            y = order[p]
            if _label_used(ml, mlc, x, lab[y]):
                continue
            bad = False
            if ehead_stamp[x] == walk:
                e = ehead[x]
                while e >= 0:
                    if ey[e] == y:
                        bad = True
                        break
                    e = enext[e]
            if bad:
                continue
            unv = y == target or stamp[inv[y]] != walk
            h = hamming_words(P, x, y)
            if best < 0 or (unv and not best_unv) or (unv == best_unv and h < best_h):
                best = y
                best_unv = unv
                best_h = h
        if best >= 0:
            if best_unv:
                if found < 0 or best_h < found_h:
                    if found < 0:
                        dfound = d
                    found = best
                    found_h = best_h
                if d - dfound >= lookahead:
                    return found
                continue
            if last < 0:
                last = best
                dlast = d
        if found >= 0 and d - dfound >= lookahead:
            return found
        if found < 0 and last >= 0 and d - dlast > window:
            break
    if found >= 0:
        return found
    return last


@numba.njit(cache=True)
def _random_pick(x, n, lab, ml, mlc, inv, stamp, walk, target):
    # fallback when every eligible edge of x was walked already: any label-eligible record
    first = -1
    for _ in range(256):
        y = np.random.randint(n)
        if _label_used(ml, mlc, x, lab[y]):
            continue
        if y == target or stamp[inv[y]] != walk:
            return y
        if first < 0:
            first = y
    if first >= 0:
        return first
    for y in range(n):
        if not _label_used(ml, mlc, x, lab[y]):
            return y
    return -1


@numba.njit(cache=True)
def _greedy_round(order, rank, P, lab, ml, mlc, starts, seed, window, greedy, max_steps, lookahead):
    """One round of greedy (or label-aware random) closed-walk extraction on the complete graph."""
    np.random.seed(seed)
    n = order.shape[0]
    A, inv, in_l, stamp, path_x, path_y = round_arrays(n, order)
    onpath = np.full(n, -1, dtype=np.int64)
    ehead_stamp = np.zeros(n, dtype=np.int64)
    ehead = np.full(n, -1, dtype=np.int64)
    enext = np.empty(max_steps + 1, dtype=np.int64)
    ey = np.empty(max_steps + 1, dtype=np.int64)
    walk = 0
    steps = 0
    for s in starts:
        if not in_l[s]:
            continue
        walk, target = open_walk(s, A, stamp, walk)
        onpath[s] = 0
        path_x[0] = s
        plen = 1
        x = s
        wsteps = 0
        while True:
            if greedy:
                y = _greedy_pick(
                    x, rank, order, P, lab, ml, mlc, inv, stamp, walk, target, ehead_stamp, ehead, enext, ey, window,
                    lookahead,
                )
            else:
                y = -1
            if y < 0 and not greedy:
                y = _random_pick(x, n, lab, ml, mlc, inv, stamp, walk, target)
            if y < 0 or wsteps >= max_steps or (greedy and steps >= 300 * n):
                return A, False, steps
            if ehead_stamp[x] != walk:
                ehead_stamp[x] = walk
                ehead[x] = -1
            ey[wsteps] = y
            enext[wsteps] = ehead[x]
            ehead[x] = wsteps
            wsteps += 1
            steps += 1
            path_y[plen - 1] = y
            if y == target:
                break
            z = inv[y]
            if stamp[z] == walk and onpath[z] >= 0:
                plen = erase_cycle(onpath, path_x, onpath[z], plen)
            else:
                stamp[z] = walk
                plen = push(onpath, path_x, z, plen)
            x = z
        for q in range(plen):
            xq = path_x[q]
            y = path_y[q]
            A[xq] = y
            inv[y] = xq
            in_l[xq] = False
            onpath[xq] = -1
    return A, True, steps


def greedy_walk_rounds(P, lab, l, order, rank, rng, window, lookahead, progress, stats):  # noqa: E741
    """The paper's rounds: greedy closed walks (``greedyPick``), label-aware random fallback."""
    n = lab.shape[0]
    ml = np.full((n, l), -1, dtype=np.int64)
    mlc = np.zeros(n, dtype=np.int64)
    out = np.empty((l, n), dtype=np.int64)
    max_steps = 20 * n + 1000
    fallback_rounds = []
    for r in range(l):
        starts = rng.permutation(n).astype(np.int64)
        seed = int(rng.integers(2**31 - 1))
        A, ok, _ = _greedy_round(order, rank, P, lab, ml, mlc, starts, seed, window, True, max_steps, lookahead)
        attempt = 0
        while not ok and attempt < 4:
            # label-aware random closed walks (no greedy scan), generous step budget
            attempt += 1
            starts = rng.permutation(n).astype(np.int64)
            seed = int(rng.integers(2**31 - 1))
            A, ok, _ = _greedy_round(order, rank, P, lab, ml, mlc, starts, seed, window, False, 20 * n + 1000, 0)
        if not ok:
            raise InfeasibleError(
                f"greedy l-diverse extraction could not complete round {r + 1} of {l}: its walks did not close "
                "(earlier rounds may have left no label-eligible perfect matching); method='flow' always "
                "completes for a feasible l"
            )
        if attempt:
            fallback_rounds.append(r)
        out[r] = A
        ml[np.arange(n), mlc] = lab[A]
        mlc += 1
        if progress is not None:
            progress(r + 1, l, f"greedy assignment {r + 1}/{l}")
    if stats is not None:
        stats["fallback_rounds"] = fallback_rounds
    return out
