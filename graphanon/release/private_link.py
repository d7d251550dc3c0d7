"""Read any private link file the package writes, and attach it to the release it belongs to.

Two kinds of private link exist: :class:`~graphanon.release.ReleaseLink`
(``graphanon-private-link/1``: one row per record, every release kind but
SplitPerson) and :class:`~graphanon.release.SplitLink`
(``graphanon-private-split-link/1``: the record each row was split from).
:func:`load_private_link` reads either by its format tag;
:func:`attach_link` checks that the link was made with the release (same
data fingerprint -- scheme and digest -- and as many rows) and sets
``release.link``, which is where every audit and metric looks for it
(``docs/privacy.md``, "Auditing with the private link").

Examples
--------
>>> import pathlib, tempfile
>>> from graphanon.datasets import load
>>> from graphanon.algorithms.nonreciprocal.cahd import anonymize_cahd
>>> table = load("nr_table1")
>>> rel = anonymize_cahd(table, l=2)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "link.json"
>>> rel.link.save(path)
>>> link = load_private_link(path)
>>> rel.link = None
>>> attach_link(rel, link) is rel and rel.link is link
True
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from graphanon.errors import DataMismatchError, ReleaseFormatError
from graphanon.release.fingerprint import check_same_data, same_fingerprint
from graphanon.release.link import LINK_FORMAT_TAG, load_link
from graphanon.release.perturbed import SPLIT_LINK_TAG, load_split_link
from graphanon.release.shared import read_json_file

__all__ = ["attach_link", "load_private_link", "release_data", "release_members"]


def load_private_link(path: str | os.PathLike):
    """Read a private link file of either kind (by its ``format`` tag).

    Parameters
    ----------
    path : str or path
        A file written by ``anonymize --link-out`` / ``link.save()``.

    Returns
    -------
    ReleaseLink or SplitLink

    Raises
    ------
    ReleaseFormatError
        When the file is not a private link of a kind the package writes.
    """
    path = Path(path)
    doc = read_json_file(path, "private link")
    tag = doc.get("format") if isinstance(doc, dict) else None
    if tag == LINK_FORMAT_TAG:
        return load_link(path)
    if tag == SPLIT_LINK_TAG:
        return load_split_link(path)
    raise ReleaseFormatError(
        f"{path}: not a {LINK_FORMAT_TAG} file nor a {SPLIT_LINK_TAG} file (format tag: {tag!r})"
    )


def attach_link(release, link):
    """Check that ``link`` belongs to ``release`` and set ``release.link``.

    Parameters
    ----------
    release : Release
    link : ReleaseLink or SplitLink

    Returns
    -------
    Release
        ``release`` itself.

    Raises
    ------
    DataMismatchError
        When the link carries another data fingerprint than the release (it
        was made with another release or data), lacks one while the release
        has one, or has a different number of rows.
    """
    if release.fingerprint is not None and not same_fingerprint(link.fingerprint, release.fingerprint):
        raise DataMismatchError(
            "the private link was not made with this release (their data fingerprints differ); use the link "
            "file written together with this release"
        )
    split = hasattr(link, "rows_of")
    if split != (getattr(release, "moves", None) == "split"):
        raise DataMismatchError(
            f"a {'split' if split else 'one-row-per-record'} private link cannot belong to a "
            f"{release.kind} release made by {release.algorithm!r}"
        )
    if len(link.record_of_row) != release.n_records:
        raise DataMismatchError(f"the private link has {len(link.record_of_row)} rows, the release {release.n_records}")
    release.link = link
    return release


def release_members(original, link, *, what: str = "the release") -> np.ndarray:
    """The positions in ``original`` of a release's records, in its data's order, by its private link's record ids.

    Parameters
    ----------
    original : TransactionData
        Data holding every record of the release under its record id.
    link : ReleaseLink
        The release's private link (only its ``record_ids`` are read).
    what : str
        How to name the release in an error.

    Returns
    -------
    ndarray of int64

    Raises
    ------
    DataMismatchError
        When a record id of the link is not in ``original``.

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import ReleaseLink
    >>> data = from_iterable([["a"], ["b"], ["c"]], record_ids=["ann", "bob", "cy"])
    >>> release_members(data, ReleaseLink([1, 0], record_ids=["cy", "ann"])).tolist()
    [2, 0]
    """
    where = {rid: i for i, rid in enumerate(original.record_ids)}  # record ids are unique (TransactionData)
    try:
        return np.fromiter((where[rid] for rid in link.record_ids), dtype=np.int64, count=len(link.record_ids))
    except KeyError as exc:
        raise DataMismatchError(f"{what}: not made from this data: record {exc.args[0]!r} of its private link is "
                                "not in it; give the data holding every record of every release, under the same "
                                "record ids") from None


def release_data(data, release, link, *, what: str = "the release") -> None:
    """Raise :class:`~graphanon.errors.DataMismatchError` unless ``release`` was made from ``data``.

    ``data`` is the release's own records (:func:`release_members`, in the
    link's order). The one place where the joint audit and ``priors=``
    compare a release of changing data with the records it was made from:
    the release's data fingerprint and the link's record digest.
    """
    data = data.drop_unused_items()  # data read from a file holds the items its records use
    try:
        check_same_data(data, release, link=link)  # the key of the keyed fingerprint is in the link
        if link is not None and hasattr(link, "rows_for"):
            link.rows_for(data)
    except DataMismatchError as exc:
        raise DataMismatchError(f"{what}: {exc}") from None
