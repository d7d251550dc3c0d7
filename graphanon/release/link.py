"""The private link between original records and published rows.

A published release is shuffled and names its rows by pseudonyms, so it says
nothing about which row stands for which person. The producer still knows:
:class:`ReleaseLink` holds, for each original record, the published row that
is its true match (for nonreciprocal releases: the row the chosen, secret
assignment matched to it). Metrics that compare a record with its own
published row (the nonreciprocal error rate) need it.

The link is the secret of the release. It lives in memory
(``release.link``), is never written by ``release.save()``, and can be saved
on its own with :meth:`ReleaseLink.save` to a file tagged
``graphanon-private-link/1`` that says, in the file, that it must never be
published.

Examples
--------
>>> import numpy as np, tempfile, pathlib
>>> link = ReleaseLink(np.array([2, 0, 1]), record_ids=["ann", "bob", "cy"])
>>> link.record_of_row.tolist()
[1, 2, 0]
>>> path = pathlib.Path(tempfile.mkdtemp()) / "link.json"
>>> link.save(path)
>>> load_link(path).row_of_record.tolist()
[2, 0, 1]
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Hashable, Iterable, Sequence
from pathlib import Path

import numpy as np

from graphanon.errors import DataMismatchError, ReleaseFormatError
from graphanon.readwrite.files import IntRows, JsonPieces, iter_json_document, write_json_document
from graphanon.release.fingerprint import (
    COUNT_KEYS,
    FINGERPRINT_KEYS,
    LEGACY_FINGERPRINT_KEYS,
    is_legacy,
    ordered_digest,
)
from graphanon.release.shared import json_label, read_json_file

__all__ = ["LINK_FORMAT_TAG", "ReleaseLink", "load_link", "save_link_runs"]

LINK_FORMAT_TAG = "graphanon-private-link/1"
_WARNING = (
    "PRIVATE: this file links original records to published rows and undoes the release's protection. "
    "Never publish it, never store it with the release."
)


class ReleaseLink:
    """Original record ``i`` -> the published row that is its true match.

    Parameters
    ----------
    row_of_record : array of int, shape (n,)
        A permutation of ``0..n-1``.
    record_ids : sequence, optional
        The original record ids, in the original order (default ``0..n-1``).
    fingerprint : dict, optional
        The (published) data fingerprint of the release it belongs to.
    data_digest : str, optional
        :func:`~graphanon.release.fingerprint.ordered_digest` of the data in
        its original order (under the key; for an old link, salted with the
        fingerprint's salt): lets :meth:`rows_for` check that the records
        under each id are the ones the link was made with.
    key : str, optional
        The fingerprint's private key (hexadecimal): with it
        :func:`~graphanon.release.check_same_data` verifies data against the
        release. Old links (``graphanon-release/2`` releases) have none.
    counts : dict, optional
        The data's ``records``, ``items`` and ``occurrences`` (private; named
        in a mismatch message).

    Attributes
    ----------
    row_of_record, record_of_row : ndarray of int64
        The link and its inverse.
    """

    def __init__(
        self,
        row_of_record,
        *,
        record_ids: Sequence[Hashable] | None = None,
        fingerprint: dict | None = None,
        data_digest: str | None = None,
        key: str | None = None,
        counts: dict | None = None,
    ) -> None:
        rows = np.asarray(row_of_record)
        if rows.ndim != 1 or (rows.size and not np.issubdtype(rows.dtype, np.integer)):
            raise ReleaseFormatError("a release link's row_of_record must be a 1-D list of whole numbers")
        rows = rows.astype(np.int64)
        n = len(rows)
        if n and (rows.min() < 0 or rows.max() >= n or len(np.unique(rows)) != n):
            raise ReleaseFormatError(f"a release link's row_of_record is not a permutation of 0..{n - 1}")
        self.row_of_record = rows
        self.row_of_record.flags.writeable = False
        inverse = np.empty(n, dtype=np.int64)
        inverse[rows] = np.arange(n)
        inverse.flags.writeable = False
        self.record_of_row = inverse
        self.record_ids = tuple(range(n)) if record_ids is None else tuple(record_ids)
        if len(self.record_ids) != n:
            raise ReleaseFormatError(f"a release link has {len(self.record_ids)} record ids for {n} rows")
        self.fingerprint = None if fingerprint is None else dict(fingerprint)
        self.data_digest = data_digest
        self.key = key
        self.counts = None if counts is None else dict(counts)

    def __len__(self) -> int:
        """The number of records linked."""
        return len(self.row_of_record)

    def rows_for(self, original) -> np.ndarray:
        """Per record of ``original``, its published row (records are matched by id).

        Raises
        ------
        DataMismatchError
            When ``original``'s record ids are not those the link was made
            with, or (when the link carries ``data_digest``) the records under
            those ids differ -- as when a file whose records have positional
            ids was shuffled.
        """
        ids = tuple(original.record_ids)
        if len(ids) != len(self.record_ids):
            raise DataMismatchError(f"the data has {len(ids)} records, the private link {len(self.record_ids)}")
        if ids == self.record_ids:
            idx, in_link_order = None, original
        else:
            where = {rid: i for i, rid in enumerate(self.record_ids)}
            try:
                idx = np.fromiter((where[rid] for rid in ids), dtype=np.int64, count=len(ids))
            except KeyError as exc:
                raise DataMismatchError(
                    f"record {exc.args[0]!r} of the data is not in the private link; use the link made "
                    "with this release and the data it was made from"
                ) from None
            pos = np.empty(len(ids), dtype=np.int64)
            pos[idx] = np.arange(len(ids))
            in_link_order = original.subset(pos)
        if self.data_digest is not None and self.fingerprint is not None:
            if _ordered_digest(self, in_link_order) != self.data_digest:
                raise DataMismatchError(
                    "the records under these ids are not the ones the private link was made with (a file "
                    "without record ids numbers its records by position, so give it in its original order)"
                )
        return self.row_of_record if idx is None else self.row_of_record[idx]

    def to_dict(self) -> dict:
        """The JSON document :meth:`save` writes."""
        return _document(self.fingerprint, self.data_digest, [json_label(r, "record id") for r in self.record_ids],
                         self.row_of_record.tolist(), key=self.key, counts=self.counts)

    def save(self, path: str | os.PathLike) -> None:
        """Write the link (JSON, or gzip-compressed JSON for ``.gz``), mode 0600; keep the file private."""
        write_json_document(path, iter_json_document(self.to_dict(), dumps=_dumps), private=True)

    def __repr__(self) -> str:
        """A short summary, marked private."""
        return f"<ReleaseLink (private): {len(self)} records>"


def _ordered_digest(link, data) -> str | None:
    """The link's kind of :func:`~graphanon.release.fingerprint.ordered_digest` of ``data`` (keyed, or salted for old links)."""
    if is_legacy(link.fingerprint):
        return ordered_digest(data, key=link.fingerprint["salt"], legacy=True)
    if link.key is None:
        return link.data_digest  # nothing to check it with
    return ordered_digest(data, key=link.key)


def private_fields(fingerprint, data_digest, key, counts) -> dict:
    """The fingerprint fields a private link file holds (both link kinds)."""
    doc = {"data_fingerprint": fingerprint, "data_digest": data_digest}
    if key is not None:
        doc["data_key"] = key
        doc["data_counts"] = counts
    return doc


def read_private_fields(doc: dict, path) -> dict:
    """The keyword arguments of a link's fingerprint fields, checked (both link kinds)."""
    fp = doc.get("data_fingerprint")
    digest = doc.get("data_digest")
    key = doc.get("data_key")
    counts = doc.get("data_counts")
    if digest is not None and not isinstance(digest, str):
        raise ReleaseFormatError(f"{path}: private link has a malformed data_digest")
    if fp is not None:
        want = LEGACY_FINGERPRINT_KEYS if is_legacy(fp) else FINGERPRINT_KEYS
        if not isinstance(fp, dict) or any(k not in fp for k in want):
            raise ReleaseFormatError(f"{path}: private link has a malformed data_fingerprint")
    if key is not None and (not isinstance(key, str) or not _HEX_KEY.match(key)):
        raise ReleaseFormatError(f"{path}: private link has a malformed data_key (hexadecimal text expected)")
    if counts is not None and (not isinstance(counts, dict) or any(not isinstance(counts.get(k), int) for k in COUNT_KEYS)):
        raise ReleaseFormatError(f"{path}: private link has malformed data_counts")
    return {"fingerprint": fp, "data_digest": digest, "key": key, "counts": counts}


_HEX_KEY = re.compile(r"^(?:[0-9a-f]{2}){16,}$")


def _document(fingerprint, data_digest, record_ids, row_of_record, *, key=None, counts=None) -> dict:
    return {
        "format": LINK_FORMAT_TAG,
        "never_publish": True,
        "warning": _WARNING,
        **private_fields(fingerprint, data_digest, key, counts),
        "record_ids": record_ids,
        "row_of_record": row_of_record,
    }


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def save_link_runs(
    path: str | os.PathLike, *, fingerprint: dict, data_digest: str, id_runs: Iterable[str], row_of_record: np.ndarray,
    key: str | None = None, counts: dict | None = None, chunk: int = 1 << 20,
) -> None:
    """Write the private link file :meth:`ReleaseLink.save` writes, the record ids given as runs of JSON text.

    For a link too large to hold as Python objects (the streamed AA
    release of :mod:`graphanon.algorithms.hierarchy.aa_dask`, whose record
    ids stay on the Dask workers).

    Parameters
    ----------
    path : str or path
        Written atomically, mode 0600 (gzip-compressed for ``.gz``).
    fingerprint, data_digest, key, counts :
        As :class:`ReleaseLink` holds them.
    id_runs : iterable of str
        The record ids in the original order, as consecutive non-empty runs
        of JSON values separated by ``","`` (strings quoted, ``json_label``
        numbers bare).
    row_of_record : ndarray of int
        Original record -> published row.
    chunk : int
        Entries of ``row_of_record`` encoded at a time.
    """
    rows = np.asarray(row_of_record, dtype=np.int64)

    def ids():
        yield "["
        for i, run in enumerate(id_runs):
            yield ("," if i else "") + run
        yield "]"

    def numbers():
        yield "["
        for a in range(0, len(rows), chunk):
            part = rows[a : a + chunk]
            yield ("," if a else "") + IntRows([0, len(part)], part).to_json()[2:-2]
        yield "]"

    doc = _document(fingerprint, data_digest, JsonPieces(ids()), JsonPieces(numbers()), key=key, counts=counts)
    write_json_document(path, iter_json_document(doc, dumps=_dumps), private=True)


def load_link(path: str | os.PathLike) -> ReleaseLink:
    """Read a link written by :meth:`ReleaseLink.save`."""
    path = Path(path)
    doc = read_json_file(path, "private link")
    if not isinstance(doc, dict) or doc.get("format") != LINK_FORMAT_TAG:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ReleaseFormatError(f"{path}: not a {LINK_FORMAT_TAG} file (format tag: {got!r})")
    for key in ("record_ids", "row_of_record"):
        if not isinstance(doc.get(key), list):
            raise ReleaseFormatError(f"{path}: private link has no {key!r} list")
    fields = read_private_fields(doc, path)
    try:
        return ReleaseLink(np.array(doc["row_of_record"], dtype=np.int64), record_ids=doc["record_ids"], **fields)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ReleaseFormatError(f"{path}: {exc}") from None
