r"""Constraint files: lists of item sets (COAT privacy and utility constraints).

The format
----------
* UTF-8 text (a byte-order mark is ignored), one constraint per line.
* Items are separated by commas (tabs in a file whose name ends in ``.tsv``).
  Fields follow RFC 4180 CSV quoting: an item that contains the separator or
  a double quote is written in double quotes, with ``""`` for a quote.
* Spaces inside an item belong to it (``whole milk`` is one item); spaces
  around an item do not.
* Blank lines and lines whose first non-blank character is ``#`` are skipped.
  There are no end-of-line comments (``#`` may be part of an item name).
* An item named twice on one line counts once.

Examples
--------
>>> parse_constraints('# privacy\nwhole milk, yogurt\n"a, b",butter\n')
[['whole milk', 'yogurt'], ['a, b', 'butter']]
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

from graphanon.errors import DataFormatError
from graphanon.readwrite.files import atomic_write

__all__ = ["parse_constraints", "read_constraints", "write_constraints"]


def _delimiter(path: str | os.PathLike) -> str:
    return "\t" if str(path).lower().endswith(".tsv") else ","


def _match(token: str, data):
    """``token`` as an item of ``data`` (labels are text: ``001`` is not ``1``), else None."""
    return token if data.has_item(token) else None


def _not_in_data(source: str, lineno: int, token: str, data, delimiter: str) -> DataFormatError:
    parts = token.split()
    hint = ""
    if len(parts) > 1:
        sep = "tabs" if delimiter == "\t" else "commas"
        hint = f"; items are separated by {sep} (a space is part of an item name)"
        if all(_match(p, data) is not None for p in parts):
            hint += f", e.g. {delimiter.join(parts)!r}"
    return DataFormatError(f"{source}, line {lineno}: item {token!r} is not in the data{hint}")


def parse_constraints(text: str, source: str = "<text>", data=None, *, delimiter: str = ",") -> list[list]:
    r"""Constraints of a constraint file's text (format: see the module docstring).

    Parameters
    ----------
    text : str
        The file's content.
    source : str
        Name used in error messages.
    data : TransactionData, optional
        When given, every item must be one of its items (labels are matched to
        the data's, integer FIMI items to their digits).
    delimiter : str
        ``","`` (default) or ``"\t"``.

    Returns
    -------
    list of list
        One list of items per constraint, in file order.

    Raises
    ------
    DataFormatError
        Naming the source, line and item (an unknown item, an empty item, a
        broken quote).

    Notes
    -----
    Complexity: O(length of the text).

    Examples
    --------
    >>> parse_constraints("a\tb c\n", delimiter="\t")
    [['a', 'b c']]
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    out: list[list] = []
    lines = text.splitlines()
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            fields = next(csv.reader([line], delimiter=delimiter, strict=True))
        except csv.Error as exc:
            raise DataFormatError(
                f"{source}, line {lineno}: {exc}; quote an item that holds {delimiter!r} or '\"' "
                f'as "..." with "" for a quote'
            ) from None
        row: list = []
        for field in fields:
            token = field.strip()
            if not token:
                raise DataFormatError(
                    f"{source}, line {lineno}: empty item (two separators in a row, or one at the end)"
                )
            item = token if data is None else _match(token, data)
            if item is None:
                raise _not_in_data(source, lineno, token, data, delimiter)
            if item not in row:
                row.append(item)
        out.append(row)
    return out


def read_constraints(path: str | os.PathLike, data=None) -> list[list]:
    """Read a constraint file (format: see the module docstring).

    Parameters
    ----------
    path : path-like
        The file; tab-separated when its name ends in ``.tsv``.
    data : TransactionData, optional
        When given, every item must be one of its items.

    Returns
    -------
    list of list
        One list of items per constraint.

    Raises
    ------
    DataFormatError
        When the file is missing, unreadable, not UTF-8 or malformed (names
        the file, line and item).

    Notes
    -----
    Complexity: O(size of the file).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "privacy.csv"
    >>> write_constraints([["whole milk", "yogurt"], ["a,b"]], p)
    >>> read_constraints(p)
    [['whole milk', 'yogurt'], ['a,b']]
    """
    path = Path(path)
    if path.is_dir():
        raise DataFormatError(f"constraint file {path} is a folder; give a file")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataFormatError(f"cannot read constraint file {path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return parse_constraints(text, str(path), data, delimiter=_delimiter(path))


def write_constraints(constraints, path: str | os.PathLike) -> None:
    """Write constraints (lists of items) in the format :func:`read_constraints` reads.

    Items are written as text, quoted when they hold the separator or a quote;
    tab-separated when ``path`` ends in ``.tsv``. The write is atomic.

    Raises
    ------
    DataFormatError
        For an item that cannot be read back the same (empty, surrounded by
        spaces, holding a line break) or a constraint line that would read as a
        comment.
    """
    delimiter = _delimiter(path)
    lines = []
    for n, constraint in enumerate(constraints):
        row = [str(item) for item in constraint]
        if not row:
            raise DataFormatError(f"constraint {n} is empty; a constraint file cannot hold an empty constraint")
        for item in row:
            if not item or item != item.strip() or "\n" in item or "\r" in item:
                raise DataFormatError(
                    f"constraint {n}: item {item!r} cannot be written (empty, surrounding spaces or a line break)"
                )
        lines.append(delimiter.join(_quote(item, delimiter) for item in row) + "\n")
    atomic_write(path, "".join(lines))


def _quote(item: str, delimiter: str) -> str:
    """RFC 4180 quoting when needed (also for a leading ``#``, which would start a comment)."""
    if delimiter in item or '"' in item or item.startswith("#"):
        return '"' + item.replace('"', '""') + '"'
    return item
