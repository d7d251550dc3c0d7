"""Reading and writing transaction files: FIMI, long CSV and basket text.

Every reader keeps item labels as the text written in the file (``001`` stays
``001``; see :mod:`graphanon.utils.labels`), decodes UTF-8 with or without a byte
order mark, reads ``.gz`` files transparently, keeps blank lines as empty
records, and names the file, line and what to pass instead when a file cannot
be read as asked. Writers go through :func:`graphanon.readwrite.files.atomic_write`.

* **FIMI** (``.dat``): one record per line, items are non-negative integers
  separated by white space.
* **Long CSV** (``.csv``): RFC 4180 CSV with a header; one ``(tid, item)``
  pair per row, an optional per-record sensitive label column.
* **Basket**: one record per line, items separated by one delimiter
  character (RFC 4180 quoting lets an item contain it); ``" "`` means any
  run of white space.
  (Long CSV and basket live in :mod:`graphanon.readwrite.long_csv`.)
* **Parquet** (``.parquet``, ``.pq``): long or list form, in
  :mod:`graphanon.readwrite.parquet` (optional extra ``graphanon[parquet]``).

:func:`read_any` picks the format from ``fmt`` or the file name, and the
basket delimiter from the content when that is unambiguous; a file whose
lines hold several space-separated tokens and no comma is an error asking for
``fmt``/``delimiter`` (FIMI and space-separated basket cannot be told apart,
and reading such a line as one item would be silently wrong).

Error messages name arguments the Python way (``tid='...'``); callers with
other names for them (the command line's ``--tid``) pass ``option_names``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphanon.errors import DataFormatError, ParameterError
from graphanon.readwrite.files import atomic_write
from graphanon.readwrite.long_csv import (
    parse_basket,
    parse_long_csv,
    read_basket,
    read_long_csv,
    write_basket,
    write_long_csv,
)
from graphanon.readwrite.missing import resolve_missing_labels
from graphanon.readwrite.parquet import read_parquet
from graphanon.readwrite.text import (
    FIMI_TOKEN,
    check_delimiter,
    from_tokens,
    plain_integer_tokens,
    read_all,
    say_option,
    split_lines,
)

if TYPE_CHECKING:
    from graphanon.data import TransactionData  # data imports these readers: for the checker only

__all__ = [
    "parse_basket",
    "parse_fimi",
    "parse_long_csv",
    "read_any",
    "read_basket",
    "read_fimi",
    "read_long_csv",
    "refuse_graphanon_file",
    "write_basket",
    "write_fimi",
    "write_long_csv",
]

FORMATS = ("fimi", "csv", "basket", "parquet")


# ---------------------------------------------------------------------- FIMI
def parse_fimi(text: str, source: str = "<text>", name: str | None = None, *, option_names=None):
    """Parse FIMI text (see :func:`read_fimi`)."""
    fast = plain_integer_tokens(text)
    if fast is not None:
        return from_tokens(fast[0], None, name, values=fast[1])
    lines = split_lines(text)
    if not lines:
        raise DataFormatError(f"{source}: no records (the file is empty)")
    token_lists = [line.split() for line in lines]
    tokens = [tok for toks in token_lists for tok in toks]
    joined = "".join(tokens)
    if not (joined.isascii() and joined.isdigit()):
        lineno, tok = next(
            (n, t) for n, toks in enumerate(token_lists, start=1) for t in toks if not FIMI_TOKEN.match(t)
        )
        raise DataFormatError(
            f"{source}, line {lineno}: item {tok!r} is not a non-negative integer; FIMI files hold "
            f"space-separated non-negative integers, one record per line (for other labels pass "
            f"{say_option(option_names, 'fmt', 'basket')} with {say_option(option_names, 'delimiter', ' ')} or "
            f"{say_option(option_names, 'fmt', 'csv')})"
        )
    lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    leading_zero = re.search(r"(?<![0-9])0[0-9]", text) is not None
    return from_tokens(lengths, tokens, name, plain_integers=not leading_zero and max(map(len, tokens)) < 19)


def read_fimi(path: str | os.PathLike, *, name: str | None = None) -> TransactionData:
    r"""Read a FIMI ``.dat`` file: one record per line, space-separated integer items.

    Items keep the text of the file (``7`` is the label ``"7"``); the
    vocabulary is in numeric order. Blank lines are empty records (kept, so no
    record is lost); only the newline that ends the last line ends the file.
    Record ids are the 0-based line numbers.

    Parameters
    ----------
    path : path-like
        The file (``.gz`` allowed).
    name : str, optional
        Display name (default: the file name).

    Returns
    -------
    TransactionData

    Raises
    ------
    DataFormatError
        Naming the line and token when an item is not a non-negative integer,
        or when the file is empty.

    Notes
    -----
    Complexity: O(N log N) for N item occurrences, vectorized after tokenizing.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "tiny.dat"
    >>> _ = p.write_text("1 2 10\n2 10\n")
    >>> read_fimi(p).items
    ('1', '2', '10')
    """
    return parse_fimi(read_all(path), source=str(path), name=name or Path(path).name)


def write_fimi(data, path: str | os.PathLike) -> None:
    """Write data in FIMI format; every item label must be a non-negative integer (digits only)."""
    for label in data.items:
        if not FIMI_TOKEN.match(label):
            raise DataFormatError(
                f"item label {label!r} is not a non-negative integer; FIMI holds integer items "
                f"only (write_basket or write_long_csv keep any label)"
            )
    items = data.items
    lines = (" ".join(items[j] for j in data.record_items(i)) + "\n" for i in range(data.n_records))
    atomic_write(path, "".join(lines))


# ---------------------------------------------------------------------- any format
def guess_format(path: str | os.PathLike) -> str:
    """Format by file name: ``.dat`` FIMI, ``.csv``/``.tsv`` long CSV, ``.parquet``/``.pq`` Parquet, else basket.

    ``.gz`` is looked through.
    """
    suffixes = [s.lower() for s in Path(path).suffixes if s.lower() != ".gz"]
    ext = suffixes[-1] if suffixes else ""
    return {".dat": "fimi", ".csv": "csv", ".tsv": "csv", ".parquet": "parquet", ".pq": "parquet"}.get(ext, "basket")


# the "format" tag every file graphanon writes opens with: a release, a private link, a split link
_GRAPHANON_TAG = re.compile(r'\A\s*\{\s*"format"\s*:\s*"(graphanon-[a-z-]+/\d+)"')


def refuse_graphanon_file(text: str, source: str) -> None:
    r"""Refuse a file graphanon wrote (a release or a private link) given as data.

    Such a file is one JSON document; read as basket data it would be one
    basket of thousands of "items" (and a memory estimate of gigabytes).
    The file is recognized by the ``"format"`` tag it opens with.

    Parameters
    ----------
    text : str
        The file's text.
    source : str
        The file's name, for the message.

    Raises
    ------
    DataFormatError
        When ``text`` opens with a ``graphanon-...`` format tag.

    Examples
    --------
    >>> refuse_graphanon_file('{"format": "graphanon-release/2", "kind": "global"}', "rel.json")
    Traceback (most recent call last):
    ...
    graphanon.errors.DataFormatError: rel.json is a graphanon release file (graphanon-release/2), not data: give the original data as INPUT; a release is read by 'graphanon audit INPUT RELEASE' or graphanon.release.load_release
    >>> refuse_graphanon_file("1 2 3\n", "data.dat")
    """
    found = _GRAPHANON_TAG.match(text[:4096])
    if found is None:
        return
    tag = found.group(1)
    if tag.startswith("graphanon-release/"):
        raise DataFormatError(
            f"{source} is a graphanon release file ({tag}), not data: give the original data as INPUT; "
            "a release is read by 'graphanon audit INPUT RELEASE' or graphanon.release.load_release"
        )
    raise DataFormatError(
        f"{source} is a graphanon private link file ({tag}), not data: give the original data as INPUT; "
        "a link is read by 'graphanon audit --link' or graphanon.release.load_link"
    )


def read_any(
    path: str | os.PathLike,
    fmt: str | None = None,
    *,
    delimiter: str | None = None,
    tid: str = "tid",
    item: str = "item",
    label: str | None = None,
    name: str | None = None,
    option_names: Mapping[str, str] | None = None,
    missing_label: str = "error",
) -> TransactionData:
    r"""Read a data file in a named format, or one told by its name and content.

    Parameters
    ----------
    path : path-like
        The file.
    fmt : {"fimi", "csv", "basket", "parquet"}, optional
        The format; by default :func:`guess_format` of the name, and for basket
        files the delimiter sniffed as in :func:`read_basket`. Parquet (long
        or list form) is read by :func:`graphanon.readwrite.parquet.read_parquet`.
    delimiter : str, optional
        CSV field delimiter (default ``","``, ``"\t"`` for ``.tsv``) or basket
        item delimiter. FIMI takes none.
    tid, item, label : str
        Long CSV or Parquet columns (see :func:`read_long_csv`).
    missing_label : {"error", "drop", "as-value"}
        Records with an empty or NA label (``label`` given): refused, left
        out, or kept as a label (:mod:`graphanon.readwrite.missing`).
    name : str, optional
        Display name (default: the file name).
    option_names : mapping, optional
        How error messages name ``fmt``, ``delimiter``, ``tid``, ``item``,
        ``label`` (the command line passes ``{"fmt": "--format", ...}``).

    Returns
    -------
    TransactionData

    Raises
    ------
    DataFormatError, ParameterError
        An unknown format, a delimiter given for FIMI, a file graphanon wrote
        (a release or a private link, see :func:`refuse_graphanon_file`), or
        any reader error.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "codes.txt"
    >>> _ = p.write_text("001 010\n250\n")
    >>> read_any(p)
    Traceback (most recent call last):
    ...
    graphanon.errors.DataFormatError: ...codes.txt, line 1: cannot tell how items are separated in '001 010' (no comma, but spaces); pass fmt='fimi' for integer items, or delimiter=' ' for space-separated items, or delimiter=',' if each line is one item
    >>> read_any(p, delimiter=" ").items
    ('001', '010', '250')
    """
    source, name = str(path), name or Path(path).name
    if fmt is None:
        fmt = guess_format(path)
        if fmt == "csv" and delimiter is None and source.lower().removesuffix(".gz").endswith(".tsv"):
            delimiter = "\t"
    if fmt not in FORMATS:
        raise ParameterError(f"unknown data format {fmt!r}; use {', '.join(FORMATS)}")
    if fmt == "fimi" and delimiter is not None and check_delimiter(delimiter, option_names) != " ":
        raise ParameterError(
            f"FIMI items are separated by white space; {say_option(option_names, 'delimiter', delimiter)} "
            f"applies to {say_option(option_names, 'fmt', 'csv')} and {say_option(option_names, 'fmt', 'basket')}"
        )
    if fmt == "parquet":
        if delimiter is not None:
            raise ParameterError(f"{source}: Parquet has no delimiter; drop {say_option(option_names, 'delimiter', delimiter)}")

        data = read_parquet(path, tid=tid, item=item, label=label, name=name, missing_label="as-value")
        return resolve_missing_labels(data, missing_label, source=source, column=label, option_names=option_names)[0]
    if label is not None and fmt != "csv":
        raise ParameterError(
            f"{source}: {say_option(option_names, 'label', label)} names a column of CSV input, and this file is read "
            f"as {fmt}, which has no labels: drop it, or give the data as {say_option(option_names, 'fmt', 'csv')}"
        )
    text = read_all(path)
    refuse_graphanon_file(text, source)
    if fmt == "fimi":
        return parse_fimi(text, source, name, option_names=option_names)
    if fmt == "csv":
        return parse_long_csv(text, source, tid=tid, item=item, label=label, delimiter=delimiter or ",",
                              name=name, option_names=option_names, missing_label=missing_label)
    return parse_basket(text, source, delimiter=delimiter, name=name, option_names=option_names)
