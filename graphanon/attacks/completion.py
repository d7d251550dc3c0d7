"""The completion attack: test guesses of one record against what the release file publishes.

The adversary holds **every record but the target's** (the strongest
adversary of the record-linkage models) and the release file. It generates
the completions the rows allow for the missing record -- each one a full
candidate dataset ``known + [guess]`` -- and keeps those that no field of
the file rules out. Against a ``graphanon-release/2`` file the data
fingerprint is such a field: its counts (records, items, occurrences) are
in clear and its digest is SHA-256 salted with a salt printed beside it, so
every guess can be recomputed and tested; usually one survives, the exact,
ungeneralized record. Against a ``graphanon-release/3`` file the digest is
keyed (HMAC-SHA256, the key only in the private link) and no count is
published beyond what the rows show: there is nothing to recompute, and the
adversary is left with what the rows alone allow.

Guess generators (:func:`completion_guesses`), from the target's candidate
rows:

* global recoding: the target's row is the published multiset minus the
  known records' recodings (exact); each published item of it stands for a
  non-empty subset of its members, and one item suppressed everywhere that
  the known records show may be added;
* local recoding: every distinct row, each node a non-empty subset of its
  members;
* nonreciprocal: every distinct row's possible worlds (the base outside the
  distance positions, at most ``threshold`` flips on them);
* perturbed: every distinct row, and each row with one item added or
  removed.

Success is the probability that a uniform pick among the surviving guesses
is the target's record (``1/|survivors|`` when it is among them); its
bound is the same quantity over the guesses the rows allow (the fingerprint
ignored): the file must give nothing beyond the rows.

References
----------
Sweeney. k-anonymity: a model for protecting privacy. IJUFKS 10(5), 2002
(the adversary who holds the other records). Bellare, Canetti, Krawczyk.
Keying hash functions for message authentication. CRYPTO 1996 (HMAC).

Examples
--------
>>> from graphanon.data import from_iterable
>>> from graphanon.release import GlobalRecoding, publish
>>> from graphanon.release.fingerprint import legacy_fingerprint
>>> data = from_iterable([["a", "c"], ["b"], ["a"], ["b", "c"]])
>>> recode = {"a": "(a,b)", "b": "(a,b)", "c": "c"}
>>> rel = publish(data, GlobalRecoding.from_mapping(data, recode), unsafe_secret_seed=0)
>>> completion_attack(data, rel, targets=[0]).success          # keyed file: the rows allow 3 guesses
0.3333333333333333
>>> rel.fingerprint = legacy_fingerprint(data, salt="ab")       # as a graphanon-release/2 file published it
>>> completion_attack(data, rel, targets=[0]).details["recovered"]
1
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp

from graphanon.attacks.result import AttackResult, make_result
from graphanon.counting.rows import row_hashes
from graphanon.counting.support import generalize_matrix
from graphanon.data import TransactionData, from_iterable
from graphanon.errors import ParameterError
from graphanon.release.fingerprint import (
    canonical_rows,
    canonical_vocabulary,
    is_legacy,
    legacy_fingerprint,
)

__all__ = ["CompletionTarget", "completion_attack", "completion_count", "completion_guesses", "file_oracle"]


@dataclass(frozen=True)
class CompletionTarget:
    """What the completion adversary learns about one target.

    Attributes
    ----------
    guesses : int
        Completions the rows allow (counted, :func:`completion_count`).
    tested : int
        Guesses tested against the file (0 when the file offers no test).
    survivors : int
        Completions no field of the file rules out.
    truth_allowed, truth_survives : bool
        Whether the target's record is among the guesses / the survivors.
    length_learnt : bool
        The file told the target's exact record length.
    """

    guesses: int
    tested: int
    survivors: int
    truth_allowed: bool
    truth_survives: bool
    length_learnt: bool


def _expand(groups: list[tuple], limit: int, length: int | None = None) -> list[frozenset]:
    """Unions of one non-empty subset of each group of members, at most ``limit``; of total size ``length`` when given.

    Groups are taken as disjoint (a release's published items or nodes are).
    """
    out: list[frozenset] = []
    groups = [tuple(sorted(g, key=str)) for g in groups]
    room = np.r_[np.cumsum([len(g) for g in groups][::-1])[::-1], 0]  # members in groups i.. (the most they take)

    def walk(i: int, acc: frozenset, rem: int | None):
        if len(out) >= limit:
            return
        if i == len(groups):
            if rem is None or rem == 0:
                out.append(acc)
            return
        left = len(groups) - i - 1  # each later group takes at least one member
        top = len(groups[i]) if rem is None else min(len(groups[i]), rem - left)
        low = 1 if rem is None else max(1, rem - int(room[i + 1]))  # the later groups cannot take more than room
        for size in range(low, top + 1):
            for combo in itertools.combinations(groups[i], size):
                walk(i + 1, acc | frozenset(combo), None if rem is None else rem - size)
                if len(out) >= limit:
                    return

    walk(0, frozenset(), length)
    return out


def _global_residual(known: TransactionData, release):
    """The target's row of a global recoding (one tuple), or all distinct rows when the subtraction is not one row."""
    code = release.code_for(known)
    recoded = Counter(_row_sets(generalize_matrix(known.matrix, code, release.n_published_items)))
    published = Counter(_row_sets(release.records))
    residual = list((published - recoded).elements())
    return residual if len(residual) == 1 else sorted(published)


def _global_extra(known: TransactionData, release) -> list[frozenset]:
    """No suppressed item, or one the known records show (suppressed items are not named by the file)."""
    members = {x for pi in release.published_items for x in pi.members}
    present = np.flatnonzero(np.asarray(sp.csr_array(known.matrix).sum(axis=0)).ravel() > 0)
    shown = {known.items[j] for j in present}
    return [frozenset()] + [frozenset([x]) for x in sorted(shown - members, key=str)]


def _named_items(release) -> set:
    """The item labels the file names (published members, node leaves, or its item list)."""
    if getattr(release, "kind", None) == "global_recoding":
        return {x for pi in release.published_items for x in pi.members}
    if getattr(release, "kind", None) == "local_recoding":
        return {x for node in release.nodes for x in node.members}
    return set(getattr(release, "items", ()))


def completion_count(known: TransactionData, release, *, max_guesses: int = 50_000) -> tuple[int, bool]:
    """How many completions the rows allow, and whether the count is exact.

    For a global recoding whose residual row is one row, the product over
    its published items of ``2^|members| - 1`` (times the suppressed
    choices), without enumerating; otherwise :func:`completion_guesses`
    counted, exact when below ``max_guesses``.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a", "c"], ["b"], ["a"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": "c"})
    >>> completion_count(data.subset([1, 2]), rel)                 # (a,b) c: {a,b,ab} x {c}
    (3, True)
    """
    if getattr(release, "kind", None) == "global_recoding":
        rows = _global_residual(known, release)
        if len(rows) == 1:
            count = 1
            for g in rows[0]:
                count *= 2 ** len(release.published_items[g].members) - 1
            return count * len(_global_extra(known, release)), True
    guesses = completion_guesses(known, release, max_guesses=max_guesses)
    return len(guesses), len(guesses) < max_guesses


def _row_sets(M) -> list[tuple[int, ...]]:
    M = sp.csr_array(M)
    return [tuple(M.indices[M.indptr[i] : M.indptr[i + 1]].tolist()) for i in range(M.shape[0])]


def completion_guesses(known: TransactionData, release, *, length: int | None = None,
                       max_guesses: int = 50_000) -> list[frozenset]:
    """The completions of the missing record the rows of ``release`` allow, given every other record.

    Parameters
    ----------
    known : TransactionData
        Every record but the target's.
    release : Release
        Any release kind.
    length : int, optional
        Only guesses of this many items (an adversary who read the target's
        length off clear counts).
    max_guesses : int
        At most this many guesses (smallest first within each row).

    Returns
    -------
    list of frozenset
        Distinct guesses (sets of item labels).

    Notes
    -----
    Complexity: O(n + guesses x record length) for a global recoding (the
    residual row by a multiset difference of row keys); O(distinct rows x
    guesses per row) for the other kinds.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> data = from_iterable([["a", "c"], ["b"], ["a"]])
    >>> rel = GlobalRecoding.from_mapping(data, {"a": "(a,b)", "b": "(a,b)", "c": "c"})
    >>> sorted(sorted(g) for g in completion_guesses(data.subset([1, 2]), rel, length=2))
    [['a', 'c'], ['b', 'c']]
    """
    if max_guesses < 1:
        raise ParameterError(f"max_guesses must be >= 1, got {max_guesses}")
    kind = getattr(release, "kind", None)
    seen: dict[frozenset, None] = {}

    def add(guess) -> bool:
        if guess and (length is None or len(guess) == length):
            seen.setdefault(frozenset(guess))
        return len(seen) >= max_guesses

    if kind == "global_recoding":
        extra = _global_extra(known, release)
        for row in _global_residual(known, release):
            groups = [release.published_items[g].members for g in row]
            for plus in extra:
                want = None if length is None else length - len(plus)
                if want is not None and want < len(groups):
                    continue
                for base in _expand(groups, max_guesses, want):
                    if add(base | plus):
                        return list(seen)
        return list(seen)
    if kind == "local_recoding":
        for row in sorted(set(_row_sets(release.records))):
            for guess in _expand([release.nodes[g].members for g in row], max_guesses, length):
                if add(guess):
                    return list(seen)
        return list(seen)
    if kind == "nonreciprocal":
        items = release.items
        keys = set(zip(_row_sets(release.base), _row_sets(release.distance), np.asarray(release.threshold).tolist(),
                       strict=True))
        for bits, dist, thr in sorted(keys):
            fixed = frozenset(items[j] for j in bits if j not in set(dist))
            on = sorted((items[j] for j in bits if j in set(dist)), key=str)
            off = sorted((items[j] for j in dist if j not in set(bits)), key=str)
            # a world drops a of the base's distance items and adds b others, a + b <= threshold
            for a in range(min(int(thr), len(on)) + 1):
                for b in range(min(int(thr) - a, len(off)) + 1):
                    if length is not None and len(fixed) + len(on) - a + b != length:
                        continue
                    for drop in itertools.combinations(on, a):
                        kept = fixed | (set(on) - set(drop))
                        for gain in itertools.combinations(off, b):
                            if add(kept | set(gain)):
                                return list(seen)
        return list(seen)
    if kind == "perturbed":
        items = release.items
        for row in sorted(set(_row_sets(release.records))):
            here = frozenset(items[j] for j in row)
            for guess in [here, *(here - {x} for x in here), *(here | {x} for x in items if x not in here)]:
                if add(guess):
                    return list(seen)
        return list(seen)
    raise ParameterError(f"the completion attack does not know release kind {kind!r}")


class _LegacyOracle:
    """Recompute a ``graphanon-release/2`` fingerprint for ``known + [guess]``, fast.

    The known records' canonical arrays are built once; each guess is
    placed by its row hash in the canonical order and the salted SHA-256
    is fed the same bytes :func:`~graphanon.release.fingerprint.legacy_fingerprint`
    hashes (a guess with an item outside the known vocabulary takes that
    function itself).
    """

    def __init__(self, known: TransactionData, fp: dict) -> None:
        self.known, self.fp = known, fp
        self.index = {x: j for j, x in enumerate(known.items)}
        self.rank, vocabulary = canonical_vocabulary(known.items)
        X = sp.csr_array(known.matrix)
        lengths = np.diff(X.indptr).astype(np.int64)
        hashes = row_hashes(X, relabel=self.rank) if X.shape[0] else np.zeros((0, 2), dtype=np.uint64)
        order = np.lexsort((lengths, hashes[:, 1], hashes[:, 0]))  # the canonical order of the known records
        self.lengths, self.hashes = lengths[order], hashes[order]
        canon = canonical_rows(X[order], self.rank)
        self.indptr, self.indices = canon.indptr.astype(np.int64), canon.indices.astype("<i8")
        self.d = X.shape[1]
        self.nnz = int(X.nnz)
        self.length_bytes = self.lengths.astype("<i8").tobytes()
        self.index_bytes = self.indices.tobytes()
        self.item_hash = row_hashes(sp.identity(self.d, dtype=bool, format="csr"), relabel=self.rank)
        self.vocab_bytes = json.dumps(vocabulary, ensure_ascii=False).encode("utf-8")
        self.start = hashlib.sha256(b"graphanon-data-fingerprint/1\0")
        self.start.update(bytes.fromhex(fp["salt"]))

    def _place(self, key) -> int:
        """How many known records sort at or before a record of hash ``key[0]`` and length ``key[1]``.

        The canonical order sorts by (lane 0, lane 1, length); a stable
        sort puts the guess (last in the data) after the known records with
        the same key.
        """
        (h0, h1), length = key
        lo = int(np.searchsorted(self.hashes[:, 0], h0, side="left"))
        hi = int(np.searchsorted(self.hashes[:, 0], h0, side="right"))
        for i in range(lo, hi):  # equal first lanes: a handful at most (equal records)
            if (int(self.hashes[i, 1]), int(self.lengths[i])) > (int(h1), length):
                return i
        return hi

    def __call__(self, guess: frozenset) -> bool:
        fp = self.fp
        n = self.known.n_records + 1
        if fp["records"] != n or fp["occurrences"] != self.nnz + len(guess):
            return False
        if any(x not in self.index for x in guess):  # a new item: the slow, exact path
            if fp["items"] != self.d + sum(x not in self.index for x in guess):
                return False
            records = [sorted(self.known.record(i), key=str) for i in range(self.known.n_records)]
            items = [*self.known.items, *(x for x in guess if x not in self.index)]
            full = from_iterable([*records, sorted(guess, key=str)], items=items)
            return legacy_fingerprint(full, salt=fp["salt"])["digest"] == fp["digest"]
        if fp["items"] != self.d:
            return False
        cols = np.fromiter((self.index[x] for x in guess), dtype=np.int64, count=len(guess))
        # the set hash is a sum of per-column weights (mod 2^64): the guess's key, then its place among the known keys
        key = (self.item_hash[cols].sum(axis=0, dtype=np.uint64), len(cols))
        pos = self._place(key)
        cut = int(self.indptr[pos])
        h = self.start.copy()
        h.update(np.array([n, self.d, self.nnz + len(cols)], dtype="<i8").tobytes())
        h.update(self.vocab_bytes)
        h.update(self.length_bytes[: 8 * pos])
        h.update(np.array([len(cols)], dtype="<i8").tobytes())
        h.update(self.length_bytes[8 * pos :])
        h.update(self.index_bytes[: 8 * cut])
        h.update(np.sort(self.rank[cols]).astype("<i8").tobytes())
        h.update(self.index_bytes[8 * cut :])
        return h.hexdigest() == fp["digest"]


def file_oracle(known: TransactionData, release) -> _LegacyOracle | None:
    """The test a release file offers for a guess of the missing record, or None when it offers none.

    A ``graphanon-release/2`` fingerprint (salt and counts in clear) gives
    one: the counts and the salted digest recomputed for ``known + [guess]``.
    A keyed fingerprint gives none: the digest is HMAC-SHA256 under a key
    the file does not hold, and no count beyond the rows is published.

    Returns
    -------
    callable(frozenset) -> bool, or None
    """
    fp = getattr(release, "fingerprint", None)
    if fp is None or not is_legacy(fp):
        return None
    return _LegacyOracle(known, fp)


def completion_attack(
    original: TransactionData,
    release,
    *,
    targets=None,
    max_guesses: int = 50_000,
    confidence: float = 0.999,
) -> AttackResult:
    """Play the completion adversary against ``release`` for each target record.

    Parameters
    ----------
    original : TransactionData
        The data the release was made from; for target ``t`` the adversary
        holds every record but ``t`` (with ``original``'s vocabulary less
        the items only ``t`` holds).
    release : Release
        As loaded from its file (the adversary reads only what the file
        holds: rows, published items and the data fingerprint).
    targets : sequence of int, optional
        Target records (default: all).
    max_guesses : int
        Guesses generated per target (:func:`completion_guesses`).
    confidence : float
        Of the sampling margin.

    Returns
    -------
    AttackResult
        ``success``: mean probability that a uniform pick among the
        survivors is the target's exact record; ``bound``: the same over the
        guesses the rows allow (the fingerprint ignored). ``details``:
        ``recovered`` (one survivor, the truth), ``length_learnt``,
        ``median_guesses``, ``file_test`` (whether the file offered a test),
        and the rows-only counts.

    Notes
    -----
    Complexity: per target, the guesses times O(n) (hashing ``n`` records;
    the canonical arrays of the known records are built once per target).
    """
    n = original.n_records
    targets = list(range(n)) if targets is None else [int(t) for t in targets]
    if any(t < 0 or t >= n for t in targets):
        raise ParameterError(f"targets must lie in 0..{n - 1}")
    support = np.asarray(sp.csr_array(original.matrix).sum(axis=0)).ravel()
    named = _named_items(release)
    per, base, rows = [], [], []
    for t in targets:
        keep = np.r_[0:t, t + 1 : n].astype(np.int64)
        others = original.subset(keep)
        # the adversary's vocabulary: the data's, less the items only the target holds that the file does not name
        mine = sp.csr_array(original.matrix)[[t]].indices
        hidden = [j for j in mine[support[mine] == 1] if original.items[j] not in named]
        used = np.setdiff1d(np.arange(original.n_items), np.asarray(hidden, dtype=np.int64))
        known = TransactionData(sp.csr_array(others.matrix)[:, used], [others.items[j] for j in used],
                                others.record_ids)
        truth = frozenset(original.record(t))
        count, _exact = completion_count(known, release, max_guesses=max_guesses)
        allowed = truth in set(completion_guesses(known, release, length=len(truth), max_guesses=max_guesses))
        oracle = file_oracle(known, release)
        if oracle is None:  # nothing in the file tests a guess: the survivors are what the rows allow
            tested, survivors, survives = 0, count, allowed
            learnt = False
        else:  # the clear counts give the length; each guess of that length is hashed with the clear salt
            length = oracle.fp["occurrences"] - int(known.matrix.nnz)
            guesses = completion_guesses(known, release, length=length, max_guesses=max_guesses)
            kept = [g for g in guesses if oracle(g)]
            tested, survivors, survives = len(guesses), len(kept), truth in set(kept)
            learnt = length == len(truth)
        rows.append(CompletionTarget(guesses=count, tested=tested, survivors=survivors, truth_allowed=allowed,
                                     truth_survives=survives, length_learnt=learnt))
        per.append(1.0 / survivors if survives else 0.0)
        base.append(1.0 / count if allowed else 0.0)
    bound = float(np.mean(base)) if base else 0.0
    details = {
        "file_test": is_legacy(getattr(release, "fingerprint", None)),
        "recovered": int(sum(r.survivors == 1 and r.truth_survives for r in rows)),
        "length_learnt": int(sum(r.length_learnt for r in rows)),
        "truth_allowed": int(sum(r.truth_allowed for r in rows)),
        "median_guesses": float(np.median([r.guesses for r in rows])) if rows else 0.0,
        "median_tested": float(np.median([r.tested for r in rows])) if rows else 0.0,
        "median_survivors": float(np.median([r.survivors for r in rows])) if rows else 0.0,
        "rows_only_recovered": int(sum(r.guesses == 1 and r.truth_allowed for r in rows)),
        "targets": [asdict(r) for r in rows],
    }
    return make_result("completion/fingerprint", per, bound, "baseline: uniform pick among the completions the "
                       "rows allow", confidence, details)
