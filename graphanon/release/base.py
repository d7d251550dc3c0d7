"""The release protocol shared by every publication model."""

from __future__ import annotations

import gzip
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from graphanon.errors import GraphanonError, ReleaseFormatError

__all__ = ["FORMAT_TAG", "Release", "load_release", "release_kinds"]

FORMAT_TAG = "graphanon-release/1"

_KINDS: dict[str, type[Release]] = {}


def release_kinds() -> dict[str, type[Release]]:
    """Registered release kinds, by the ``kind`` tag written in saved files."""
    return dict(_KINDS)


def json_label(label: Hashable, what: str = "label") -> Any:
    """A label as a JSON value (str or int); raises for anything else."""
    if isinstance(label, (bool, np.bool_)):
        raise ReleaseFormatError(f"{what} {label!r} is a bool; releases store str or int labels")
    if isinstance(label, (int, np.integer)):
        return int(label)
    if isinstance(label, str):
        return label
    raise ReleaseFormatError(f"{what} {label!r} is a {type(label).__name__}; releases store str or int labels")


def json_params(params: dict) -> dict:
    """Parameters reduced to JSON-safe values (numbers, strings, lists)."""
    out = {}
    for key, value in params.items():
        if isinstance(value, (np.integer,)):
            value = int(value)
        elif isinstance(value, (np.floating,)):
            value = float(value)
        elif isinstance(value, (set, frozenset, tuple)):
            value = [json_params({"v": v})["v"] for v in value]
        elif isinstance(value, list):
            value = [json_params({"v": v})["v"] for v in value]
        elif isinstance(value, dict):
            value = json_params(value)
        elif value is not None and not isinstance(value, (int, float, str, bool)):
            value = repr(value)
        out[str(key)] = value
    return out


class Release(ABC):
    """What an anonymizer publishes.

    Attributes
    ----------
    kind : str
        Tag of the publication model (class attribute).
    algorithm : str
        Name of the method that produced it.
    params : dict
        The method's parameters (JSON-safe), saved with the release.
    record_ids : tuple
        One id per published record, aligned with the original records.
    """

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.kind:
            _KINDS[cls.kind] = cls

    def __init__(self, *, algorithm: str, params: dict | None, record_ids: Iterable[Hashable]) -> None:
        self.algorithm = algorithm
        self.params = json_params(dict(params or {}))
        self.record_ids = tuple(record_ids)

    @property
    def n_records(self) -> int:
        return len(self.record_ids)

    def __len__(self) -> int:
        return self.n_records

    # -------------------------------------------------------------- to implement
    @abstractmethod
    def render_record(self, i: int) -> str:
        """Text of published record ``i`` (for example ``(a,b) c e f``)."""

    @abstractmethod
    def estimate_count(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> float:
        """Expected number of records holding all of ``include`` and none of
        ``exclude`` (original item labels), over the release's possible worlds."""

    @abstractmethod
    def match_counts(self, original) -> np.ndarray:
        """Per original record, the number of published records it may be."""

    @abstractmethod
    def match_graph(self, original, *, max_edges: int = 2_000_000):
        """Bipartite :class:`networkx.DiGraph`: ``("orig", i) -> ("pub", j)``
        when published record ``j`` may stand for original record ``i``."""

    @abstractmethod
    def _payload(self) -> dict:
        """Kind-specific JSON content."""

    @classmethod
    @abstractmethod
    def _from_payload(cls, payload: dict, *, algorithm: str, params: dict, record_ids: list) -> Release:
        """Inverse of :meth:`_payload`."""

    # -------------------------------------------------------------- shared
    def to_text(self, limit: int | None = None) -> str:
        """One line per record: ``id: published record``."""
        n = self.n_records if limit is None else min(limit, self.n_records)
        lines = [f"{self.record_ids[i]}: {self.render_record(i)}" for i in range(n)]
        if n < self.n_records:
            lines.append(f"... ({self.n_records - n} more records)")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """The self-describing JSON document of this release."""
        return {
            "format": FORMAT_TAG,
            "kind": self.kind,
            "algorithm": self.algorithm,
            "params": self.params,
            "record_ids": [json_label(r, "record id") for r in self.record_ids],
            **self._payload(),
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the release as JSON (``.json``) or gzip-compressed JSON (``.json.gz``)."""
        from graphanon._io import atomic_write, dumps_json

        doc = dumps_json(self.to_dict(), separators=(",", ":"))
        path = Path(path)
        if path.suffix == ".gz":
            atomic_write(path, gzip.compress(doc.encode("utf-8"), mtime=0))
        else:
            atomic_write(path, doc)

    @staticmethod
    def from_dict(doc: dict) -> Release:
        """Rebuild a release from :meth:`to_dict` output (any registered kind)."""
        if not isinstance(doc, dict) or doc.get("format") != FORMAT_TAG:
            got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
            raise ReleaseFormatError(f"not a {FORMAT_TAG} document (format tag: {got!r})")
        kind = doc.get("kind")
        if kind not in _KINDS:
            raise ReleaseFormatError(f"unknown release kind {kind!r}; known: {sorted(_KINDS)}")
        for key in ("algorithm", "params", "record_ids"):
            if key not in doc:
                raise ReleaseFormatError(f"release document has no {key!r} field")
        return _KINDS[kind]._from_payload(
            doc, algorithm=doc["algorithm"], params=doc["params"], record_ids=doc["record_ids"]
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} by {self.algorithm!r}: {self.n_records} records>"


def load_release(path: str | os.PathLike) -> Release:
    """Read a release saved by :meth:`Release.save` (JSON or JSON.gz)."""
    path = Path(path)
    if not path.exists():
        raise ReleaseFormatError(f"{path}: no such release file")
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                doc = json.load(fh)
        else:
            doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError, EOFError) as exc:
        raise ReleaseFormatError(f"{path}: not a readable release file ({exc})") from None
    try:
        return Release.from_dict(doc)
    except GraphanonError as exc:
        raise ReleaseFormatError(f"{path}: {exc}") from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # a field of the wrong type or shape (e.g. text where numbers belong)
        raise ReleaseFormatError(
            f"{path}: not a valid release file, a field has the wrong type or shape "
            f"({type(exc).__name__}: {exc}); write it with Release.save or graphanon anonymize"
        ) from None
