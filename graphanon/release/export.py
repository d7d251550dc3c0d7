"""Export a release as plain data for its recipients, with a codebook.

A release file (``graphanon-release/2``) holds rows as indices into its
published vocabulary: a recipient needs graphanon to read it. The export
writes the same rows as a plain table (CSV, TSV or Parquet) that pandas, R or
a spreadsheet opens, and a **codebook** that says what every published item
covers and what the release lets a recipient infer.

Forms (``form=``)
-----------------
``"long"`` (the default)
    One line per (published row, item): ``row,item`` plus the kind's columns
    (below). A row with no item is one line with an empty ``item``, so every
    published row appears.
``"records"``
    One line per published row, its items in one list cell: a Parquet list
    column; in CSV/TSV a JSON array (``["290,299","401"]``), so that a name
    holding the delimiter stays whole.

``row`` is the row's pseudonym (``p1 .. pN``, the release's own order, which
is random), ``label`` the published sensitive label when the release has
labels. Per kind:

* global recoding -- ``item``: the published item (a taxonomy node, an
  original item, or a set label such as ``(a,b)``);
* local recoding -- ``item`` and ``copies`` (how many times the row holds the
  node: in the ``one`` reading each copy stands for one distinct original item
  under it, in the ``some`` reading the node stands for a non-empty set of
  them); the records form repeats a node ``copies`` times;
* nonreciprocal -- per row the ``base`` and ``distance`` items and the
  ``threshold`` (the true record is the base with at most ``threshold`` of the
  distance items flipped); the long form has one line per item in the base or
  the distance with 0/1 columns ``base`` and ``distance``;
* relational -- ``item`` plus one column per quasi-identifier, named as it
  (``qi_`` before a name the table already uses), holding the row's
  generalized value (a value, ``[lo-hi]``, a hierarchy node or ``*``);
* perturbed -- ``item`` only. Which items were moved is **not** flagged: the
  release does not publish it (a flag would undo the method); the codebook
  says what kind of move was made;
* synthetic -- ``item``: each distinct itemset repeated by its noisy count;
* itemsets -- a row is a released itemset (``p1`` the highest noisy
  support): ``item`` and ``support`` (its noisy support, a noisy number of
  records); the records form is ``row,items,support``, one line per itemset.

Nothing is exported that the release file does not publish, and less: never
the data fingerprint, and only the parameters on the method's allowlist
(:func:`~graphanon.release.base.check_published_params`, as :meth:`Release.save`).

References
----------
docs/export.md (the recipient's page); docs/privacy.md, "What a release file holds".
"""

from __future__ import annotations

import os
from pathlib import Path

from graphanon.readwrite.files import atomic_write
from graphanon.readwrite.tables import table_suffix, write_table
from graphanon.release.base import Release, check_published_params
from graphanon.release.codebook import (
    codebook_columns,
    codebook_facts,
    codebook_html,
    codebook_markdown,
    codebook_relational,
    privacy_model_of,
)
from graphanon.release.export_table import EXPORT_FORMS, export_columns

__all__ = ["EXPORT_FORMS", "codebook_columns", "codebook_facts", "codebook_relational", "codebook_html", "codebook_markdown",
           "codebook_paths", "export_columns", "export_release", "privacy_model_of"]


def codebook_paths(path: str | os.PathLike) -> dict[str, Path]:
    """The codebook files written next to an export ``path``: ``NAME.codebook.csv``, ``.md`` and ``.html``."""
    path = Path(path)
    stem = path.name[: -len(table_suffix(path))]
    return {ext: path.with_name(f"{stem}.codebook.{ext}") for ext in ("csv", "md", "html")}


def export_release(release: Release, path: str | os.PathLike, *, form: str = "long", taxonomy=None,
                   codebook: bool = True) -> list[Path]:
    """Write a release as a plain table (and its codebook next to it) for recipients without graphanon.

    Parameters
    ----------
    release : Release
        Any release kind (made by an anonymizer or read with
        :func:`~graphanon.release.base.load_release`).
    path : path-like
        Ends in ``.csv``, ``.tsv`` or ``.parquet`` (Parquet needs pyarrow).
    form : {"long", "records"}
        See the module docstring.
    taxonomy : Taxonomy, optional
        Fills the codebook's ``level`` column.
    codebook : bool
        Also write ``NAME.codebook.csv`` (one line per published item, in
        CSV whatever the table's format), ``NAME.codebook.md`` and
        ``NAME.codebook.html`` (:func:`codebook_paths`).

    Returns
    -------
    list of Path
        The files written, the table first.

    Raises
    ------
    ReleaseFormatError
        When a parameter is not on the method's allowlist: nothing is written.

    Notes
    -----
    Complexity: O(rows + occurrences + published items).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from graphanon.data import from_iterable
    >>> from graphanon.release import GlobalRecoding
    >>> rel = GlobalRecoding.from_mapping(from_iterable([["a", "b"], ["c"]]), {"a": "(a,b)", "b": "(a,b)", "c": "c"})
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "release.csv"
    >>> [p.name for p in export_release(rel, out)]
    ['release.csv', 'release.codebook.csv', 'release.codebook.md', 'release.codebook.html']
    >>> print(out.read_text().strip())
    row,item
    p1,"(a,b)"
    p2,c
    """
    check_published_params(release.algorithm, release.params)
    table_suffix(path)
    columns = export_columns(release, form)
    written = [Path(path)]
    if codebook:
        paths = codebook_paths(path)
        page_md = codebook_markdown(release, taxonomy=taxonomy)
        page_html = codebook_html(release, taxonomy=taxonomy)
        book = codebook_columns(release, taxonomy=taxonomy)
    write_table(path, columns)
    if codebook:
        write_table(paths["csv"], book)
        atomic_write(paths["md"], page_md)
        atomic_write(paths["html"], page_html)
        written += [paths["csv"], paths["md"], paths["html"]]
    return written
