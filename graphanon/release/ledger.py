"""The private privacy-budget ledger: every differentially private release of the same data.

Sequential composition: releasing the same records at ``epsilon_1``, then
``epsilon_2``, ... is ``(epsilon_1 + epsilon_2 + ...)``-DP. A custodian who
publishes DP releases of one dataset keeps a ledger file
(``anonymize --ledger FILE``) that records each one, and ``--budget B``
refuses a release that would take the total past ``B``.

The file is **private** (``graphanon-private-dp-ledger/1``, written 0600 and
atomically, like the private link): it is never published and no release
points to it. Entries are keyed by the data's identity, a value the
custodian recomputes from the data itself -- HMAC-SHA256, under a 256-bit
key drawn when the ledger is created and kept only in the ledger, of the
canonical multiset of records (labels as text, the records in canonical
order), the vocabulary and the shape. A shuffled copy of the data is the same
data; one changed record is other data. No digest is published anywhere, so
nothing public ties a release to its ledger entry, and without the ledger's
key the identity tests no guess of the data.

What the ledger does not see: releases made without ``--ledger`` (or with
another ledger file), and releases of *overlapping* data that is not equal
(a subset, a later extract): the custodian who publishes those must count
them by hand (``docs/dp.md``, "The budget ledger").

Examples
--------
>>> import pathlib, tempfile
>>> from graphanon.data import from_iterable
>>> path = pathlib.Path(tempfile.mkdtemp()) / "PRIVATE-ledger.json"
>>> data = from_iterable([["a", "b"], ["c"]])
>>> ledger = BudgetLedger.open(path)
>>> ledger.spent(data)
0.0
>>> ledger.record(data, epsilon=0.5, algorithm="diffpart", output="r1.json")
>>> BudgetLedger.open(path).spent(from_iterable([["c"], ["b", "a"]]))   # the same records, shuffled
0.5
>>> ledger.check(data, epsilon=1.0, budget=1.0)
Traceback (most recent call last):
...
graphanon.errors.BudgetError: --budget 1: this release (epsilon=1) would take the data's total to 1.5; already spent 0.5 on 1 release (diffpart epsilon=0.5 -> r1.json)
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import math
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from graphanon.counting.rows import canonical_row_order, row_hashes
from graphanon.errors import BudgetError, ReleaseFormatError
from graphanon.readwrite.files import atomic_write
from graphanon.release.fingerprint import canonical_rows, canonical_vocabulary
from graphanon.release.shared import read_json_file

__all__ = ["LEDGER_FORMAT_TAG", "Accounting", "BudgetLedger", "data_identity", "is_dp_release", "release_digest"]

LEDGER_FORMAT_TAG = "graphanon-private-dp-ledger/1"
_DOMAIN = b"graphanon-dp-ledger-identity/1\0"
#: a total within this of the budget still fits (sums of decimal epsilons are not exact in binary)
_SLACK = 1e-9


def data_identity(data, key: str) -> str:
    """HMAC-SHA256 under ``key`` (hex) of the canonical multiset of records of ``data``.

    Order-independent (a shuffled copy has the same identity); the labels
    count as text, as in the release fingerprint.

    Notes
    -----
    Complexity: O(nnz log nnz + n log n) (a row hash per record, one sort).
    """
    try:
        key_bytes = bytes.fromhex(key)
    except (TypeError, ValueError):
        raise ReleaseFormatError(f"ledger key must be hexadecimal text, got {key!r}") from None
    rank, vocabulary = canonical_vocabulary(data.items)
    canon = canonical_rows(data.matrix, rank)
    order = canonical_row_order(canon, row_hashes(canon))
    canon = canon[order]
    mac = hmac.new(key_bytes, _DOMAIN, hashlib.sha256)
    mac.update(json.dumps([list(canon.shape), vocabulary], ensure_ascii=False).encode("utf-8"))
    mac.update(np.diff(canon.indptr).astype("<i8").tobytes())
    mac.update(canon.indices.astype("<i8").tobytes())
    return mac.hexdigest()


def is_dp_release(release) -> bool:
    """Whether ``release`` is differentially private: it states its ``epsilon`` and its ``mechanism``.

    Every DP method's release does (``docs/dp.md``, "What a DP release
    publishes"); no syntactic release states an ``epsilon``.
    """
    params = getattr(release, "params", None) or {}
    return "epsilon" in params and "mechanism" in params


def release_digest(path: str | os.PathLike) -> str:
    """SHA-256 of the bytes of a release file: how the ledger recognises a release it recorded."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class Accounting:
    """The privacy loss of DP releases of one dataset, read from the ledger (:meth:`BudgetLedger.account`).

    Attributes
    ----------
    given : list of dict
        One per DP release named to the audit, in order: ``path``,
        ``algorithm``, ``epsilon`` (stated in the release), ``status``
        (``"recorded"``, ``"unaccounted"``), ``why`` (for an unaccounted
        release: not in the ledger, or recorded for other data), ``matched``
        (``"digest"`` or ``"file name"``).
    recorded : list of dict
        Every ledger entry of the data (``algorithm``, ``epsilon``,
        ``output``, ``time``, ``given``: whether a named release matched it).
    composed : float
        Sequential composition: the sum of the epsilons of ``recorded`` and of
        the unaccounted releases.
    lower_bound : bool
        True when a named release is unaccounted: the data's true total is
        then at least ``composed`` (more releases may have escaped the ledger).
    """

    given: list = field(default_factory=list)
    recorded: list = field(default_factory=list)
    composed: float = 0.0
    lower_bound: bool = False

    def to_dict(self) -> dict:
        """JSON-safe: ``composed_epsilon``, ``lower_bound``, ``releases`` (the named ones), ``ledger_entries``."""
        return {"composed_epsilon": self.composed, "lower_bound": self.lower_bound, "releases": self.given,
                "ledger_entries": self.recorded}


class BudgetLedger:
    """A private ledger of DP releases, keyed by data identity (see the module docstring).

    Use :meth:`open`; :meth:`check` before a release, :meth:`record` after
    it is written.

    Attributes
    ----------
    path : Path
        The ledger file.
    key : str
        Its secret HMAC key (64 hex digits).
    entries : list of dict
        ``{"data", "epsilon", "algorithm", "params", "output", "time"}`` per release.
    """

    def __init__(self, path: Path, key: str, entries: list[dict]) -> None:
        self.path = path
        self.key = key
        self.entries = entries

    @classmethod
    def open(cls, path: str | os.PathLike) -> BudgetLedger:
        """The ledger in ``path``, or a new empty one (with a fresh key) when the file does not exist."""
        path = Path(path)
        if not path.exists():
            return cls(path, secrets.token_hex(32), [])
        doc = read_json_file(path, "budget ledger")
        if not isinstance(doc, dict) or doc.get("format") != LEDGER_FORMAT_TAG:
            got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
            raise ReleaseFormatError(f"{path}: not a {LEDGER_FORMAT_TAG} file (format tag: {got!r})")
        key, entries = doc.get("key"), doc.get("entries")
        if not isinstance(key, str) or len(key) != 64 or not isinstance(entries, list):
            raise ReleaseFormatError(f"{path}: a budget ledger needs a 64-digit 'key' and an 'entries' list")
        for i, entry in enumerate(entries):
            eps = entry.get("epsilon") if isinstance(entry, dict) else None
            if (not isinstance(entry, dict) or not isinstance(entry.get("data"), str) or isinstance(eps, bool)
                    or not isinstance(eps, (int, float)) or not math.isfinite(eps) or eps <= 0):
                raise ReleaseFormatError(f"{path}: entry {i + 1} needs a 'data' identity and an epsilon > 0")
        return cls(path, key, entries)

    def identity(self, data) -> str:
        """The data's identity under this ledger's key."""
        return data_identity(data, self.key)

    def releases(self, data) -> list[dict]:
        """The entries recorded for ``data`` (the same records, in any order)."""
        ident = self.identity(data)
        return [e for e in self.entries if e["data"] == ident]

    def spent(self, data) -> float:
        """The epsilon already spent on ``data``: the sum over its entries (sequential composition)."""
        return float(math.fsum(e["epsilon"] for e in self.releases(data)))

    def check(self, data, *, epsilon: float, budget: float | None) -> None:
        """Raise :class:`~graphanon.errors.BudgetError` (one line naming what was spent) when ``spent + epsilon > budget``."""
        if budget is None:
            return
        done = self.releases(data)
        total = math.fsum([*(e["epsilon"] for e in done), epsilon])
        if total > budget + _SLACK:
            listed = ", ".join(f"{e['algorithm']} epsilon={e['epsilon']:g} -> {e.get('output') or '?'}" for e in done)
            raise BudgetError(
                f"--budget {budget:g}: this release (epsilon={epsilon:g}) would take the data's total to {total:g}; "
                f"already spent {math.fsum(e['epsilon'] for e in done):g} on {len(done)} release"
                f"{'' if len(done) == 1 else 's'}" + (f" ({listed})" if done else "")
            )

    def record(self, data, *, epsilon: float, algorithm: str, params: dict | None = None,
               output: str | None = None) -> None:
        """Add a release of ``data`` at ``epsilon`` and write the ledger (0600, atomically).

        When ``output`` is a file already written, the entry keeps its SHA-256
        (``release_sha256``), by which :meth:`account` recognises it later.
        """
        entry = {
            "data": self.identity(data), "epsilon": float(epsilon), "algorithm": str(algorithm),
            "params": dict(params or {}), "output": None if output is None else str(output),
            "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        if output is not None and Path(output).is_file():
            entry["release_sha256"] = release_digest(output)
        self.entries.append(entry)
        doc = {"format": LEDGER_FORMAT_TAG, "key": self.key, "entries": self.entries}
        atomic_write(self.path, json.dumps(doc, indent=1, ensure_ascii=False), private=True)

    def account(self, data, releases) -> Accounting:
        """The composed epsilon of every DP release of ``data`` in the ledger, and which named releases it holds.

        Parameters
        ----------
        data : TransactionData
            The records (its identity under this ledger's key selects the entries).
        releases : sequence of (path, Release)
            The DP releases named to the audit, loaded from ``path``.

        Returns
        -------
        Accounting
            A named release is *recorded* when an entry of ``data`` holds its
            file's SHA-256 (or, for an entry written before digests were kept,
            its file name and epsilon); otherwise it is *unaccounted* (not in
            the ledger, or recorded for other data), its stated epsilon is added
            and the total becomes a lower bound.

        Notes
        -----
        Sequential composition (McSherry 2009, Theorem 3): releases of the same
        data at epsilon_1, ..., epsilon_n are (sum epsilon_i)-DP. Complexity:
        one identity (O(nnz log nnz)) and one file hash per release.

        References
        ----------
        McSherry. Privacy integrated queries. SIGMOD 2009, Section 2.
        """
        ident = self.identity(data)
        mine = [e for e in self.entries if e["data"] == ident]
        used: set[int] = set()
        given = []
        for path, release in releases:
            eps = float(release.params["epsilon"])
            row = {"path": str(path), "algorithm": release.algorithm, "epsilon": eps, "status": "unaccounted",
                   "why": "not in the ledger", "matched": None}
            digest = release_digest(path)
            hit = next((i for i, e in enumerate(mine) if i not in used and e.get("release_sha256") == digest), None)
            how = "digest"
            if hit is None:
                hit = next((i for i, e in enumerate(mine) if i not in used and "release_sha256" not in e
                            and e.get("output") and Path(e["output"]).name == Path(path).name
                            and math.isclose(e["epsilon"], eps)), None)
                how = "file name"
            if hit is not None:
                used.add(hit)
                row.update(status="recorded", why=None, matched=how)
            elif any(e.get("release_sha256") == digest for e in self.entries):
                row["why"] = "recorded in the ledger for other data (another dataset or another extract)"
            given.append(row)
        recorded = [{"algorithm": e["algorithm"], "epsilon": e["epsilon"], "output": e.get("output"),
                     "time": e.get("time"), "given": i in used} for i, e in enumerate(mine)]
        loose = [g["epsilon"] for g in given if g["status"] == "unaccounted"]
        composed = float(math.fsum([*(e["epsilon"] for e in mine), *loose]))
        return Accounting(given=given, recorded=recorded, composed=composed, lower_bound=bool(loose))
