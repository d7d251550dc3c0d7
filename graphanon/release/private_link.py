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

from graphanon.errors import DataMismatchError, ReleaseFormatError
from graphanon.release.base import read_json_file
from graphanon.release.fingerprint import same_fingerprint
from graphanon.release.link import LINK_FORMAT_TAG, load_link
from graphanon.release.perturbed import SPLIT_LINK_TAG, load_split_link

__all__ = ["attach_link", "load_private_link"]


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
