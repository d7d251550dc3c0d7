"""The release protocol shared by every publication model.

A saved release (``graphanon-release/3``) holds what is safe to hand to an
adversary: the published rows in a random order, the method and its
parameters, and a keyed fingerprint of the data it was made from (its key
stays in the private link). It never
holds original record ids, the input order, a seed or the names of
suppressed items. Rows are named by pseudonyms derived from their position
(``p1 .. pN``), which say nothing because the order is random.

Files of the first format (``graphanon-release/1``) published the original
record ids in input order -- which gives the secret assignment of a
nonreciprocal release away -- and are refused with a message that says to
re-run the anonymizer. Files of the second format (``graphanon-release/2``)
published a salted digest of the data with its salt and the data's counts in
clear -- a test for guesses of the data; they load with a
:class:`~graphanon.errors.LegacyFingerprintWarning` naming the leak.
"""

from __future__ import annotations

import os
import re
import warnings
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from graphanon.errors import (
    GraphanonError,
    LegacyFingerprintWarning,
    ReleaseFormatError,
)
from graphanon.readwrite.files import IntRows, JsonPieces, iter_json_document, write_json_document
from graphanon.release.fingerprint import (
    COUNT_KEYS,
    FINGERPRINT_KEYS,
    KEYED_SCHEMES,
    LEGACY_FINGERPRINT_KEYS,
    is_legacy,
)
from graphanon.release.shared import json_params, read_json_file
from graphanon.utils.registry import LazyRegistry

if TYPE_CHECKING:
    from graphanon.data import TransactionData

__all__ = ["FORMAT_TAG", "PUBLISHED_PARAMS", "Release", "check_published_params", "load_release", "release_kinds"]

FORMAT_TAG = "graphanon-release/3"
_OLD_FORMATS = {"graphanon-release/1"}
#: Still read, with a warning: the data fingerprint in clear (salt and counts).
LEGACY_FORMAT_TAG = "graphanon-release/2"
LEGACY_WARNING = (
    "this graphanon-release/2 file publishes its data's record, item and occurrence counts and a salted digest "
    "of the exact data with its salt: anyone who knows every record but one can test guesses of the last one "
    "against them (docs/privacy.md, 'The data fingerprint'); do not publish it further -- re-run "
    "`graphanon anonymize` to make a graphanon-release/3 file (keyed fingerprint)"
)
#: Parameter names that would give a secret away; a release refuses to record them.
FORBIDDEN_PARAMS = frozenset({"seed", "rng", "unsafe_secret_seed", "random_state"})

#: Releases made by hand (``algorithm="custom"`` and any name no method declares) may publish only these.
GENERIC_PUBLISHED_PARAMS = frozenset({"k", "m", "l", "n_suppressed_nodes", "audit"})


class _DeclaredAllowlists(Mapping):
    """Method -> the parameter fields its release may publish, read from the method's declaration.

    Each method declares its allowlist once, beside its function
    (``MethodDeclaration.published``, :mod:`graphanon.algorithms.declaration`);
    this view reads it through :mod:`graphanon.algorithms.registry`, imported
    on first use (the one crossing of the release layer upward,
    ``tests/package/test_layers.py``: a saved release names its method, and its
    allowlist lives with the method). Entries set here (tests) override.
    """

    def __init__(self) -> None:
        self._override: dict[str, frozenset] = {}

    @staticmethod
    def _declared() -> tuple[Mapping, Mapping]:
        """The registry's views (published fields, nested fields) of the method declarations."""
        # declared with the methods, above this layer (tests/package/test_layers.py, ALLOWED_CROSSINGS)
        from graphanon.algorithms.registry import PUBLISHED_NESTED, PUBLISHED_PARAMS

        return PUBLISHED_PARAMS, PUBLISHED_NESTED

    def __getitem__(self, name: str) -> frozenset:
        if name in self._override:
            return self._override[name]
        return self._declared()[0][name]

    def __iter__(self):
        return iter(sorted(set(self._declared()[0]) | set(self._override)))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __setitem__(self, name: str, allowed: frozenset) -> None:
        self._override[name] = frozenset(allowed)

    def __delitem__(self, name: str) -> None:
        del self._override[name]

    def nested(self, name: str, field: str) -> frozenset | None:
        """The object fields allowed in each object of list field ``field`` of method ``name`` (None: none declared)."""
        if name in self._override:
            return None
        try:
            return self._declared()[1][name].get(field)
        except KeyError:
            return None


#: Method -> the parameter fields its release may publish (docs/privacy.md, "Published parameters"),
#: as each method declares them (``MethodDeclaration.published``). ``Release.save`` refuses any other
#: field. Each is a setting the user chose, a count, or a cost / information-loss number; none rebuilds
#: the full cut, a suppressed name, an order, an assignment, a group or a seed, nor tells whether the run
#: was seeded. Fields holding a list of objects name the object fields allowed
#: (``MethodDeclaration.published_nested``).
PUBLISHED_PARAMS = _DeclaredAllowlists()


def check_published_params(algorithm: str, params: dict) -> None:
    """Raise unless every parameter field of a release is on its method's allowlist.

    Parameters
    ----------
    algorithm : str
        The method's name (a key of :data:`PUBLISHED_PARAMS`; any other name
        gets :data:`GENERIC_PUBLISHED_PARAMS`).
    params : dict
        The release's (JSON-safe) parameters.

    Raises
    ------
    ReleaseFormatError
        Naming the first field that is not on the allowlist.

    Examples
    --------
    >>> check_published_params("nr", {"k": 5, "order": "gray"})
    >>> check_published_params("hghs", {"k": 5, "path": [["ROOT", 3.0]]})
    Traceback (most recent call last):
    ...
    graphanon.errors.ReleaseFormatError: a 'hghs' release may not publish parameter 'path': it is not on the allowlist of published parameters (docs/privacy.md)

    References
    ----------
    docs/privacy.md, "Published parameters"; issue 20 (published parameters).
    """
    allowed = PUBLISHED_PARAMS.get(algorithm, GENERIC_PUBLISHED_PARAMS)
    declared = algorithm in PUBLISHED_PARAMS
    for key, value in params.items():
        if key not in allowed:
            raise ReleaseFormatError(
                f"a {algorithm!r} release may not publish parameter {key!r}: it is not on the allowlist of "
                "published parameters (docs/privacy.md)"
            )
        nested = PUBLISHED_PARAMS.nested(algorithm, key) if declared else None
        if nested is not None:
            objects = value if isinstance(value, list) else [value]
            for obj in objects:
                extra = sorted(set(obj) - nested) if isinstance(obj, dict) else ["(not an object)"]
                if extra:
                    raise ReleaseFormatError(
                        f"a {algorithm!r} release may not publish parameter {key}.{extra[0]}: it is not on the "
                        "allowlist of published parameters (docs/privacy.md)"
                    )

#: Release kind -> its class. Built-in kinds map to the module (under graphanon.release) that
#: defines them, imported on demand: the class registers its ``kind`` tag when its module runs.
_KINDS = LazyRegistry("release kind", {
    kind: f"graphanon.release.{kind}" for kind in ("global_recoding", "local_recoding", "nonreciprocal", "perturbed", "synthetic",
                                                 "itemsets", "relational")
}, error=ReleaseFormatError)


def release_kinds() -> dict[str, type[Release]]:
    """Registered release kinds, by the ``kind`` tag written in saved files (the built-in ones included)."""
    return _KINDS.items()




class Release(ABC):
    """What an anonymizer publishes.

    Attributes
    ----------
    kind : str
        Tag of the publication model (class attribute).
    algorithm : str
        Name of the method that produced it.
    params : dict
        The method's parameters (JSON-safe), saved with the release. Never a
        seed or rng, never names of suppressed items.
    n_records : int
        Number of published rows.
    pseudonyms : tuple of str
        ``("p1", ..., "pN")``: the name of each published row, derived from
        its position (rows are in a random order, so names reveal nothing).
    fingerprint : dict or None
        Keyed fingerprint of the data the release was made from
        (:func:`~graphanon.release.fingerprint.data_fingerprint`; the key is
        in the private link); saved as ``"data_fingerprint"``. A salted
        ``graphanon-release/2`` fingerprint (counts in clear) is saved under
        that old format tag. None for hand-made releases.
    link : ReleaseLink or None
        The PRIVATE link from original records to published rows, set by
        :func:`~graphanon.release.publish.publish`; in memory only, never saved
        with the release (``link.save(path)`` writes it to its own file).
    trace : frozen dataclass or None
        What the method found on the way, for drawings and experiments
        (the cut and suppressed nodes, a search path, the record order and
        generalization graph, pairs...): a method-specific frozen dataclass
        defined in the method's module (for example
        :class:`graphanon.algorithms.hierarchy.hghs.HierarchyTrace`). In memory only,
        never written by :meth:`save`; None for loaded or hand-made releases.
    """

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs) -> None:
        """Register a release kind under its ``kind`` tag (what :func:`load_release` reads)."""
        super().__init_subclass__(**kwargs)
        if cls.kind:
            _KINDS.register(cls.kind, cls)

    def __init__(
        self, *, algorithm: str, params: dict | None, n_records: int, fingerprint: dict | None = None
    ) -> None:
        params = dict(params or {})
        forbidden = sorted(FORBIDDEN_PARAMS & set(params))
        if forbidden:
            raise ReleaseFormatError(
                f"a release never records {forbidden[0]!r}: it would let anyone recompute the secret choices"
            )
        self.algorithm = algorithm
        self.params = json_params(params)
        self._n_records = int(n_records)
        self.fingerprint = _check_fingerprint(fingerprint, legacy=is_legacy(fingerprint))
        # the private link (ReleaseLink, or SplitLink for split records) and the family's frozen trace
        self.link: Any = None
        self.trace: Any = None

    @property
    def n_records(self) -> int:
        """The number of published records."""
        return self._n_records

    @property
    def pseudonyms(self) -> tuple[str, ...]:
        """``("p1", ..., "pN")``, one per published row."""
        if getattr(self, "_pseudonyms", None) is None:
            self._pseudonyms = tuple(f"p{i + 1}" for i in range(self._n_records))
        return self._pseudonyms

    def __len__(self) -> int:
        """The number of published records."""
        return self.n_records

    # -------------------------------------------------------------- to implement
    @abstractmethod
    def render_record(self, i: int) -> str:
        """Text of published record ``i`` (for example ``(a,b) c e f``)."""

    @abstractmethod
    def estimate_count(self, include: Iterable[Hashable], exclude: Iterable[Hashable] = ()) -> float:
        """Expected number of records holding all of ``include`` and none of ``exclude`` (original item labels), over the release's possible worlds."""

    @abstractmethod
    def match_counts(self, original: TransactionData) -> np.ndarray:
        """Per original record, the number of published records it may be."""

    @abstractmethod
    def match_graph(self, original: TransactionData, *, max_edges: int = 2_000_000):
        """Bipartite :class:`networkx.DiGraph`.

        ``("orig", i) -> ("pub", j)`` when published record ``j`` may stand for original
        record ``i``.
        """

    @abstractmethod
    def _permute_rows(self, order: np.ndarray) -> None:
        """Reorder the rows in place: new row ``j`` is old row ``order[j]`` (labels travel along)."""

    @abstractmethod
    def _payload(self) -> dict:
        """Kind-specific JSON content."""

    @classmethod
    @abstractmethod
    def _from_payload(cls, payload: dict, *, algorithm: str, params: dict, n_records: int) -> Release:
        """Inverse of :meth:`_payload`."""

    # -------------------------------------------------------------- shared
    def to_text(self, limit: int | None = None) -> str:
        """One line per published row: ``pseudonym: published record``.

        Items are separated by spaces; a label holding white space, a comma,
        a bracket or a double quote is printed in double quotes (inner quotes
        doubled, as in CSV), and a merged item lists its members as
        ``(a,"b, c")`` (:func:`graphanon.utils.labels.display_published`). The
        saved file is not affected: it holds labels as JSON strings.
        """
        n = self.n_records if limit is None else min(limit, self.n_records)
        lines = [f"p{i + 1}: {self.render_record(i)}" for i in range(n)]
        if n < self.n_records:
            lines.append(f"... ({self.n_records - n} more records)")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """The self-describing JSON document of this release (what :meth:`save` writes)."""
        return {key: value.tolist() if isinstance(value, IntRows) else value for key, value in self._document().items()}

    def _document(self) -> dict:
        """:meth:`to_dict` with the record lists still :class:`~graphanon.readwrite.files.IntRows` (encoded by numpy)."""
        return {
            "format": LEGACY_FORMAT_TAG if is_legacy(self.fingerprint) else FORMAT_TAG,
            "kind": self.kind,
            "algorithm": self.algorithm,
            "params": self.params,
            "n_records": self.n_records,
            "data_fingerprint": self.fingerprint,
            **self._payload(),
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the release as JSON (``.json``) or gzip-compressed JSON (``.json.gz``).

        The file holds only :meth:`to_dict`: never the private link, the seed
        or anything else that pins a row to a person. The same release gives
        the same bytes (gzip without a timestamp).

        Raises
        ------
        ReleaseFormatError
            When a parameter field is not on the method's allowlist
            (:func:`check_published_params`); nothing is written.
        """
        check_published_params(self.algorithm, self.params)
        write_json_document(path, iter_json_document(self._document()))

    def save_rows(self, path: str | os.PathLike, *, n_records: int, rows: Iterable[IntRows]) -> None:
        """Write this release with its ``records`` given in runs of rows: :meth:`save` without holding them.

        For a release too large to hold (the streamed AA release of
        :mod:`graphanon.algorithms.hierarchy.aa_dask`): ``self`` holds no
        rows, only what the rest of the document says (published items,
        parameters, fingerprint); ``rows`` are the published records, in
        their published (secret, shuffled) order, as consecutive
        :class:`~graphanon.readwrite.files.IntRows` runs. The file is the one
        :meth:`save` writes for the release holding those rows.

        Raises
        ------
        ReleaseFormatError
            As :meth:`save`; or when the runs hold another number of rows
            than ``n_records`` (the file is then not written).
        """
        check_published_params(self.algorithm, self.params)
        doc = self._document()
        if "records" not in doc or self.n_records:
            raise ReleaseFormatError(f"a {self.kind} release of {self.n_records} rows cannot take its rows in runs")

        def pieces():
            count = 0
            yield "["
            for run in rows:
                if len(run):
                    yield ("," if count else "") + run.to_json()[1:-1]
                    count += len(run)
            if count != n_records:
                raise ReleaseFormatError(f"{count} rows written for n_records={n_records}")
            yield "]"

        doc.update(n_records=int(n_records), records=JsonPieces(pieces()))
        write_json_document(path, iter_json_document(doc))

    @staticmethod
    def from_dict(doc: dict) -> Release:
        """Rebuild a release from :meth:`to_dict` output (any registered kind)."""
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        if got in _OLD_FORMATS:
            raise ReleaseFormatError(
                f"this is a {got} file: that format published the original record ids in input order, which "
                f"lets anyone link rows to people; do not publish it -- re-run `graphanon anonymize` to make a "
                f"{FORMAT_TAG} release"
            )
        if got not in (FORMAT_TAG, LEGACY_FORMAT_TAG):
            raise ReleaseFormatError(f"not a {FORMAT_TAG} document (format tag: {got!r})")
        kind = doc.get("kind")
        if kind not in _KINDS:
            raise ReleaseFormatError(f"unknown release kind {kind!r}; known: {sorted(release_kinds())}")
        kind_class = _KINDS.get(str(kind))
        for key in ("algorithm", "params", "n_records"):
            if key not in doc:
                raise ReleaseFormatError(f"release document has no {key!r} field")
        n = doc["n_records"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ReleaseFormatError(f"n_records must be a whole number >= 0, got {n!r}")
        if not isinstance(doc["params"], dict):
            raise ReleaseFormatError("release params must be a JSON object")
        release = kind_class._from_payload(doc, algorithm=doc["algorithm"], params=doc["params"], n_records=n)
        legacy = got == LEGACY_FORMAT_TAG
        if legacy:
            warnings.warn(LEGACY_WARNING, LegacyFingerprintWarning, stacklevel=2)
        release.fingerprint = _check_fingerprint(doc.get("data_fingerprint"), legacy=legacy)
        return release

    def __repr__(self) -> str:
        """A short summary: kind, algorithm, records."""
        return f"<{type(self).__name__} by {self.algorithm!r}: {self.n_records} records>"


_HEX = re.compile(r"^[0-9a-f]*$")


def _check_fingerprint(fp, *, legacy: bool = False) -> dict | None:
    """The ``data_fingerprint`` field checked: keyed (``/3``), or salted with counts (``/2``)."""
    if fp is None:
        return None
    keys = LEGACY_FINGERPRINT_KEYS if legacy else FINGERPRINT_KEYS
    if not isinstance(fp, dict) or set(fp) != set(keys):
        raise ReleaseFormatError(f"data_fingerprint must be an object with the fields {', '.join(keys)} only")
    hexes = ("salt", "digest") if legacy else ("digest",)
    if not all(isinstance(fp[key], str) and _HEX.match(fp[key]) for key in hexes):
        raise ReleaseFormatError(f"data_fingerprint {' and '.join(hexes)} must be lower-case hexadecimal text")
    if legacy and not all(isinstance(fp[key], int) and not isinstance(fp[key], bool) for key in COUNT_KEYS):
        raise ReleaseFormatError("data_fingerprint counts must be whole numbers")
    if not legacy and fp["scheme"] not in KEYED_SCHEMES:
        raise ReleaseFormatError(f"data_fingerprint scheme {fp['scheme']!r} is unknown; one of {list(KEYED_SCHEMES)} expected")
    return {key: fp[key] for key in keys}



def load_release(path: str | os.PathLike) -> Release:
    """Read a release saved by :meth:`Release.save` (JSON or JSON.gz)."""
    path = Path(path)
    doc = read_json_file(path, "release")
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
