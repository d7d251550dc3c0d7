"""Long CSV and basket text: readers and writers (re-exported by :mod:`graphanon.readwrite.formats`).

* **Long CSV** (``.csv``): RFC 4180 CSV with a header; one ``(tid, item)``
  pair per row, an optional per-record sensitive label column.
* **Basket**: one record per line, items separated by one delimiter
  character (RFC 4180 quoting lets an item contain it); ``" "`` means any
  run of white space.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

from graphanon.errors import DataFormatError
from graphanon.readwrite.files import atomic_write
from graphanon.readwrite.missing import resolve_missing_labels
from graphanon.readwrite.text import (
    FIMI_TOKEN,
    check_delimiter,
    csv_header,
    read_all,
    say_option,
    split_lines,
)

if TYPE_CHECKING:
    from graphanon.data import TransactionData  # data imports these readers: for the checker only

__all__ = ["parse_basket", "parse_long_csv", "read_basket", "read_long_csv", "write_basket", "write_long_csv"]


# ---------------------------------------------------------------------- long CSV
def parse_long_csv(
    text: str,
    source: str = "<text>",
    *,
    tid: str = "tid",
    item: str = "item",
    label: str | None = None,
    delimiter: str = ",",
    name: str | None = None,
    option_names=None,
    missing_label: str = "error",
):
    """Parse long-format CSV text (see :func:`read_long_csv`)."""
    from graphanon.data import from_iterable

    field_delimiter = check_delimiter(delimiter, option_names) or ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=field_delimiter)
    header = csv_header(reader, source, f"{tid!r} and {item!r}")
    for col, arg in ((tid, "tid"), (item, "item"), (label, "label")):
        if col is not None and col not in header:
            hint = f"name the column with {say_option(option_names, arg, 'COLUMN')}"
            other = next((d for d in (";", "\t", ",", "|") if d != delimiter and d in "".join(header)), None)
            if len(header) == 1 and other is not None:
                hint = f"the header looks {other!r}-separated: pass {say_option(option_names, 'delimiter', other)}"
            raise DataFormatError(
                f"{source}, line 1: no column {col!r} in the header {header}; {hint} (or "
                f"{say_option(option_names, 'fmt', 'basket')} for one record per line without a header)"
            )
    ti, ii = header.index(tid), header.index(item)
    li = header.index(label) if label is not None else None
    need = max(ti, ii, li if li is not None else 0) + 1
    records: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    try:
        for row in reader:
            lineno = reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) < need:
                raise DataFormatError(
                    f"{source}, line {lineno}: {len(row)} field(s) but the header has {len(header)}; "
                    f"column {header[need - 1]!r} is missing"
                )
            t = row[ti].strip()
            if not t:
                raise DataFormatError(f"{source}, line {lineno}: empty transaction id in column {tid!r}")
            rec = records.setdefault(t, [])
            it = row[ii].strip()
            if it:
                rec.append(it)
            if li is not None:
                lab = row[li].strip()
                if labels.setdefault(t, lab) != lab:
                    raise DataFormatError(
                        f"{source}, line {lineno}: record {t!r} has two sensitive labels "
                        f"({labels[t]!r} and {lab!r}) in column {label!r}"
                    )
    except csv.Error as exc:
        raise DataFormatError(f"{source}, line {reader.line_num}: not CSV ({exc})") from None
    if not records:
        raise DataFormatError(f"{source}: no records below the header")
    ids = list(records)
    data = from_iterable(
        (records[t] for t in ids),
        record_ids=ids,
        labels=[labels[t] for t in ids] if li is not None else None,
        name=name,
    )
    return resolve_missing_labels(data, missing_label, source=source, column=label, option_names=option_names)[0]


def read_long_csv(
    path: str | os.PathLike,
    *,
    tid: str = "tid",
    item: str = "item",
    label: str | None = None,
    delimiter: str = ",",
    name: str | None = None,
    missing_label: str = "error",
) -> TransactionData:
    r"""Read long-format CSV: one ``(transaction id, item)`` pair per row.

    Parameters
    ----------
    path : path-like
        RFC 4180 CSV with a header row (``.gz`` allowed, byte order mark allowed).
    tid, item : str
        Column names of the transaction id and the item label.
    label : str, optional
        Column of a per-record sensitive label; every row of a record must
        carry the same value.
    missing_label : {"error", "drop", "as-value"}
        Records whose label is empty or NA: refused (the default), left out
        (with the items only they held), or kept with the text as a label
        (:mod:`graphanon.readwrite.missing`).
    delimiter : str
        Field delimiter (one character; ``"tab"`` names the tab).
    name : str, optional
        Display name.

    Returns
    -------
    TransactionData
        Records in the order their ids first appear; ids, items and sensitive
        labels are the text of the cells (stripped). A row with an empty item
        adds no item (so an empty record can be written as ``tid,``).

    Raises
    ------
    DataFormatError
        Naming the file, line and column: missing header columns (with the
        delimiter the header seems to use), a row with too few fields, an
        empty transaction id, conflicting labels, missing labels (with
        ``missing_label="error"``).

    Notes
    -----
    Complexity: O(rows), one Python step per row.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "codes.csv"
    >>> _ = p.write_text("tid;item\n1;001\n1;250\n2;-1\n")
    >>> read_long_csv(p, delimiter=";").items
    ('-1', '001', '250')
    """
    return parse_long_csv(
        read_all(path), str(path), tid=tid, item=item, label=label, delimiter=delimiter,
        name=name or Path(path).name, missing_label=missing_label,
    )


def write_long_csv(data, path: str | os.PathLike, *, tid: str = "tid", item: str = "item") -> None:
    """Write long-format CSV (``tid,item[,label]``); an empty record is written as ``tid,``."""
    out = io.StringIO(newline="")
    w = csv.writer(out, lineterminator="\n")
    w.writerow([tid, item] + (["label"] if data.labels is not None else []))
    for i in range(data.n_records):
        extra = [data.labels[i]] if data.labels is not None else []
        ids = data.record_items(i)
        if len(ids) == 0:
            w.writerow([data.record_ids[i], ""] + extra)
        for j in ids:
            w.writerow([data.record_ids[i], data.items[j]] + extra)
    atomic_write(path, out.getvalue())


# ---------------------------------------------------------------------- basket
def _sniff_basketcheck_delimiter(lines: list[str], source: str, option_names=None) -> str:
    """``","`` unless the lines hold space-separated tokens and no comma (then: an error)."""
    if any("," in line for line in lines):
        return ","
    spaced = next(((n, line) for n, line in enumerate(lines, start=1) if len(line.split()) > 1), None)
    if spaced is None:
        return ","  # one item per line: every reading agrees
    lineno, line = spaced
    integers = all(FIMI_TOKEN.match(t) for ln in lines for t in ln.split())
    choices = (
        f"{say_option(option_names, 'fmt', 'fimi')} for integer items, or " if integers else ""
    ) + f"{say_option(option_names, 'delimiter', ' ')} for space-separated items, or " + (
        f"{say_option(option_names, 'delimiter', ',')} if each line is one item"
    )
    raise DataFormatError(
        f"{source}, line {lineno}: cannot tell how items are separated in {line.strip()[:40]!r} "
        f"(no comma, but spaces); pass {choices}"
    )


def parse_basket(
    text: str,
    source: str = "<text>",
    *,
    delimiter: str | None = None,
    quotechar: str | None = '"',
    name: str | None = None,
    option_names=None,
):
    """Parse basket text (see :func:`read_basket`)."""
    from graphanon.data import from_iterable

    lines = split_lines(text)
    if not lines:
        raise DataFormatError(f"{source}: no records (the file is empty)")
    delimiter = check_delimiter(delimiter, option_names) or _sniff_basketcheck_delimiter(lines, source, option_names)
    records = []
    for lineno, line in enumerate(lines, start=1):
        if quotechar and quotechar in line:
            if line.count(quotechar) % 2:
                raise DataFormatError(f"{source}, line {lineno}: unterminated quote {quotechar!r}")
            fields = next(csv.reader([line], delimiter=delimiter, quotechar=quotechar, skipinitialspace=True))
        else:
            fields = line.split() if delimiter == " " else line.split(delimiter)
        records.append([f.strip() for f in fields if f.strip()])
    return from_iterable(records, name=name)


def read_basket(
    path: str | os.PathLike,
    *,
    delimiter: str | None = None,
    quotechar: str | None = '"',
    name: str | None = None,
):
    r"""Read basket text: one record per line, items separated by ``delimiter``.

    Parameters
    ----------
    path : path-like
        The file (``.gz`` allowed).
    delimiter : str, optional
        One character; ``" "`` splits on any run of white space. By default
        ``","`` when the file holds a comma or every line holds at most one
        item; a file with several space-separated tokens on a line and no
        comma is an error asking for the delimiter.
    quotechar : str or None
        Items may be quoted (RFC 4180) so a label can contain the delimiter.
    name : str, optional
        Display name.

    Returns
    -------
    TransactionData
        Labels are the stripped text of each item; blank lines are empty records.

    Raises
    ------
    DataFormatError
        For an empty file, an unterminated quote (naming the line) or an
        ambiguous separator.

    Notes
    -----
    Complexity: O(characters in the file).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "baskets.txt"
    >>> _ = p.write_text('whole milk,"nuts, salted"\n001 010\n', encoding="utf-8")
    >>> read_basket(p).record(0) == {"whole milk", "nuts, salted"}
    True
    """
    return parse_basket(
        read_all(path), str(path), delimiter=delimiter, quotechar=quotechar, name=name or Path(path).name
    )


def write_basket(data, path: str | os.PathLike, *, delimiter: str = ",") -> None:
    """Write basket text; labels containing the delimiter, quotes or edge spaces are quoted."""
    delimiter = check_delimiter(delimiter) or ","
    lines = []
    for i in range(data.n_records):
        out = []
        for j in data.record_items(i):
            s = data.items[j]
            if delimiter in s or '"' in s or s != s.strip() or s.startswith("\ufeff") or (
                delimiter == " " and s != "".join(s.split())
            ):
                s = '"' + s.replace('"', '""') + '"'
            out.append(s)
        lines.append(delimiter.join(out) + "\n")
    atomic_write(path, "".join(lines))
