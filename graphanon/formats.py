"""Reading and writing transaction files: FIMI, long CSV and basket text.

Every reader keeps item labels as the text written in the file (``001`` stays
``001``; see :mod:`graphanon.labels`), decodes UTF-8 with or without a byte
order mark, reads ``.gz`` files transparently, keeps blank lines as empty
records, and names the file, line and what to pass instead when a file cannot
be read as asked. Writers go through :func:`graphanon._io.atomic_write`.

* **FIMI** (``.dat``): one record per line, items are non-negative integers
  separated by white space.
* **Long CSV** (``.csv``): RFC 4180 CSV with a header; one ``(tid, item)``
  pair per row, an optional per-record sensitive label column.
* **Basket**: one record per line, items separated by one delimiter
  character (RFC 4180 quoting lets an item contain it); ``" "`` means any
  run of white space.
* **Parquet** (``.parquet``, ``.pq``): long or list form, in
  :mod:`graphanon.formats_parquet` (optional extra ``graphanon[parquet]``).

:func:`read_any` picks the format from ``fmt`` or the file name, and the
basket delimiter from the content when that is unambiguous; a file whose
lines hold several space-separated tokens and no comma is an error asking for
``fmt``/``delimiter`` (FIMI and space-separated basket cannot be told apart,
and reading such a line as one item would be silently wrong).

Error messages name arguments the Python way (``tid='...'``); callers with
other names for them (the command line's ``--tid``) pass ``option_names``.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from graphanon._io import atomic_write
from graphanon.errors import DataFormatError, ParameterError
from graphanon.labels import natural_key

__all__ = [
    "parse_basket",
    "parse_fimi",
    "parse_long_csv",
    "read_any",
    "read_basket",
    "read_fimi",
    "read_long_csv",
    "write_basket",
    "write_fimi",
    "write_long_csv",
]

FORMATS = ("fimi", "csv", "basket", "parquet")
_FIMI_TOKEN = re.compile(r"[0-9]+\Z")
_DELIMITER_WORDS = {"\\t": "\t", "tab": "\t", "space": " ", "comma": ",", "semicolon": ";"}


# ---------------------------------------------------------------------- helpers
def _say(option_names: Mapping[str, str] | None, name: str, value: str) -> str:
    """How to pass ``name=value``: ``name='value'`` or, with option names, ``--name value``."""
    if option_names is None:
        return f"{name}={value!r}"
    return f"{option_names.get(name, '--' + name)} {shlex.quote(value)}"


def _delimiter(value: str | None, option_names=None) -> str | None:
    """A one-character delimiter (``tab``, ``\\t``, ``space`` are accepted by name)."""
    if value is None:
        return None
    value = _DELIMITER_WORDS.get(value.lower(), value) if isinstance(value, str) else value
    if not isinstance(value, str) or len(value) != 1 or value in "\"\r\n":
        raise ParameterError(
            f"the delimiter must be one character other than a quote or newline, got {value!r}; "
            f"for example {_say(option_names, 'delimiter', ';')} or {_say(option_names, 'delimiter', 'tab')}"
        )
    return value


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", newline="")
    return open(path, encoding="utf-8-sig", newline="")


def read_all(path: str | os.PathLike) -> str:
    """The whole file as text (UTF-8, a leading byte order mark dropped, ``.gz`` unpacked)."""
    path = Path(path)
    if not path.exists():
        raise DataFormatError(f"{path}: no such file")
    if path.is_dir():
        raise DataFormatError(f"{path}: is a folder, not a data file")
    try:
        with _open_text(path) as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise DataFormatError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save the file as UTF-8"
        ) from None
    except (OSError, EOFError) as exc:
        raise DataFormatError(f"{path}: cannot be read ({exc})") from None


def _split_lines(text: str) -> list[str]:
    """Lines of a record-per-line file, one per record.

    Every line is a record (a blank line is an empty record) except the empty
    string after the final newline, so that files written by the writers here
    read back with the same records. A file of blank lines only has no records.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not any(line.strip() for line in lines):
        return []
    return lines


def _sorted_distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (a sort and a mask: faster than ``np.unique`` on large integer arrays)."""
    out = np.sort(values)
    return out[np.concatenate(([True], out[1:] != out[:-1]))] if len(out) else out


def _from_tokens(lengths: np.ndarray, tokens: list[str], name: str | None, *, plain_integers: bool = False):
    """Data from per-record token counts and the flat token list (labels as written).

    ``plain_integers``: every token is a whole number written without leading
    zeros, so its text is ``str(int(token))`` and numeric order is the natural
    order; the tokens are then parsed as integers (much faster than sorting text).
    """
    from graphanon.data import from_id_lists

    if not tokens:
        return from_id_lists(lengths, np.zeros(0, np.int64), [], name=name)
    if plain_integers:
        values = np.array(tokens, dtype=np.int64)
        distinct = _sorted_distinct(values)
        ids = np.searchsorted(distinct, values)
        vocab = [str(v) for v in distinct.tolist()]
    else:
        vocab, ids = np.unique(np.array(tokens), return_inverse=True)
        vocab = [str(v) for v in vocab]
        order = sorted(range(len(vocab)), key=lambda j: natural_key(vocab[j]))
        rank = np.empty(len(vocab), dtype=np.int64)
        rank[order] = np.arange(len(vocab))
        ids = rank[ids.ravel()]
        vocab = [vocab[j] for j in order]
    rows = np.repeat(np.arange(len(lengths)), lengths)
    key = _sorted_distinct(rows * len(vocab) + ids)  # by record, then by item id; duplicates gone
    rows, ids = np.divmod(key, len(vocab))
    lengths = np.bincount(rows, minlength=len(lengths))
    return from_id_lists(lengths, ids, vocab, name=name)


# ---------------------------------------------------------------------- FIMI
def parse_fimi(text: str, source: str = "<text>", name: str | None = None, *, option_names=None):
    """Parse FIMI text (see :func:`read_fimi`)."""
    lines = _split_lines(text)
    if not lines:
        raise DataFormatError(f"{source}: no records (the file is empty)")
    token_lists = [line.split() for line in lines]
    tokens = [tok for toks in token_lists for tok in toks]
    joined = "".join(tokens)
    if not (joined.isascii() and joined.isdigit()):
        lineno, tok = next(
            (n, t) for n, toks in enumerate(token_lists, start=1) for t in toks if not _FIMI_TOKEN.match(t)
        )
        raise DataFormatError(
            f"{source}, line {lineno}: item {tok!r} is not a non-negative integer; FIMI files hold "
            f"space-separated non-negative integers, one record per line (for other labels pass "
            f"{_say(option_names, 'fmt', 'basket')} with {_say(option_names, 'delimiter', ' ')} or "
            f"{_say(option_names, 'fmt', 'csv')})"
        )
    lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    leading_zero = re.search(r"(?<![0-9])0[0-9]", text) is not None
    return _from_tokens(lengths, tokens, name, plain_integers=not leading_zero and max(map(len, tokens)) < 19)


def read_fimi(path: str | os.PathLike, *, name: str | None = None):
    """Read a FIMI ``.dat`` file: one record per line, space-separated integer items.

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

    Complexity
    ----------
    O(N log N) for N item occurrences, vectorized after tokenizing.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "tiny.dat"
    >>> _ = p.write_text("1 2 10\\n2 10\\n")
    >>> read_fimi(p).items
    ('1', '2', '10')
    """
    return parse_fimi(read_all(path), source=str(path), name=name or Path(path).name)


def write_fimi(data, path: str | os.PathLike) -> None:
    """Write data in FIMI format; every item label must be a non-negative integer (digits only)."""
    for label in data.items:
        if not _FIMI_TOKEN.match(label):
            raise DataFormatError(
                f"item label {label!r} is not a non-negative integer; FIMI holds integer items "
                f"only (write_basket or write_long_csv keep any label)"
            )
    items = data.items
    lines = (" ".join(items[j] for j in data.record_items(i)) + "\n" for i in range(data.n_records))
    atomic_write(path, "".join(lines))


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
):
    """Parse long-format CSV text (see :func:`read_long_csv`)."""
    from graphanon.data import from_iterable

    delimiter = _delimiter(delimiter, option_names)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise DataFormatError(f"{source}: empty file (expected a header row with {tid!r} and {item!r})") from None
    except csv.Error as exc:
        raise DataFormatError(f"{source}, line 1: not CSV ({exc})") from None
    for col, arg in ((tid, "tid"), (item, "item"), (label, "label")):
        if col is not None and col not in header:
            hint = f"name the column with {_say(option_names, arg, 'COLUMN')}"
            other = next((d for d in (";", "\t", ",", "|") if d != delimiter and d in "".join(header)), None)
            if len(header) == 1 and other is not None:
                hint = f"the header looks {other!r}-separated: pass {_say(option_names, 'delimiter', other)}"
            raise DataFormatError(
                f"{source}, line 1: no column {col!r} in the header {header}; {hint} (or "
                f"{_say(option_names, 'fmt', 'basket')} for one record per line without a header)"
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
    return from_iterable(
        (records[t] for t in ids),
        record_ids=ids,
        labels=[labels[t] for t in ids] if li is not None else None,
        name=name,
    )


def read_long_csv(
    path: str | os.PathLike,
    *,
    tid: str = "tid",
    item: str = "item",
    label: str | None = None,
    delimiter: str = ",",
    name: str | None = None,
):
    """Read long-format CSV: one ``(transaction id, item)`` pair per row.

    Parameters
    ----------
    path : path-like
        RFC 4180 CSV with a header row (``.gz`` allowed, byte order mark allowed).
    tid, item : str
        Column names of the transaction id and the item label.
    label : str, optional
        Column of a per-record sensitive label; every row of a record must
        carry the same value.
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
        empty transaction id, conflicting labels.

    Complexity
    ----------
    O(rows), one Python step per row.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "codes.csv"
    >>> _ = p.write_text("tid;item\\n1;001\\n1;250\\n2;-1\\n")
    >>> read_long_csv(p, delimiter=";").items
    ('-1', '001', '250')
    """
    return parse_long_csv(
        read_all(path), str(path), tid=tid, item=item, label=label, delimiter=delimiter,
        name=name or Path(path).name,
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
def _sniff_basket_delimiter(lines: list[str], source: str, option_names=None) -> str:
    """``","`` unless the lines hold space-separated tokens and no comma (then: an error)."""
    if any("," in line for line in lines):
        return ","
    spaced = next(((n, line) for n, line in enumerate(lines, start=1) if len(line.split()) > 1), None)
    if spaced is None:
        return ","  # one item per line: every reading agrees
    lineno, line = spaced
    integers = all(_FIMI_TOKEN.match(t) for ln in lines for t in ln.split())
    choices = (
        f"{_say(option_names, 'fmt', 'fimi')} for integer items, or " if integers else ""
    ) + f"{_say(option_names, 'delimiter', ' ')} for space-separated items, or " + (
        f"{_say(option_names, 'delimiter', ',')} if each line is one item"
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

    lines = _split_lines(text)
    if not lines:
        raise DataFormatError(f"{source}: no records (the file is empty)")
    delimiter = _delimiter(delimiter, option_names) or _sniff_basket_delimiter(lines, source, option_names)
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
    """Read basket text: one record per line, items separated by ``delimiter``.

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

    Complexity
    ----------
    O(characters in the file).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "baskets.txt"
    >>> _ = p.write_text('whole milk,"nuts, salted"\\n001 010\\n', encoding="utf-8")
    >>> read_basket(p).record(0) == {"whole milk", "nuts, salted"}
    True
    """
    return parse_basket(
        read_all(path), str(path), delimiter=delimiter, quotechar=quotechar, name=name or Path(path).name
    )


def write_basket(data, path: str | os.PathLike, *, delimiter: str = ",") -> None:
    """Write basket text; labels containing the delimiter, quotes or edge spaces are quoted."""
    delimiter = _delimiter(delimiter)
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


# ---------------------------------------------------------------------- any format
def guess_format(path: str | os.PathLike) -> str:
    """Format by file name: ``.dat`` FIMI, ``.csv``/``.tsv`` long CSV, ``.parquet``/``.pq`` Parquet, else basket.

    ``.gz`` is looked through.
    """
    suffixes = [s.lower() for s in Path(path).suffixes if s.lower() != ".gz"]
    ext = suffixes[-1] if suffixes else ""
    return {".dat": "fimi", ".csv": "csv", ".tsv": "csv", ".parquet": "parquet", ".pq": "parquet"}.get(ext, "basket")


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
):
    """Read a data file in a named format, or one told by its name and content.

    Parameters
    ----------
    path : path-like
        The file.
    fmt : {"fimi", "csv", "basket", "parquet"}, optional
        The format; by default :func:`guess_format` of the name, and for basket
        files the delimiter sniffed as in :func:`read_basket`. Parquet (long
        or list form) is read by :func:`graphanon.formats_parquet.read_parquet`.
    delimiter : str, optional
        CSV field delimiter (default ``","``, ``"\\t"`` for ``.tsv``) or basket
        item delimiter. FIMI takes none.
    tid, item, label : str
        Long CSV or Parquet columns (see :func:`read_long_csv`).
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
        An unknown format, a delimiter given for FIMI, or any reader error.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "codes.txt"
    >>> _ = p.write_text("001 010\\n250\\n")
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
    if fmt == "fimi" and delimiter is not None and _delimiter(delimiter, option_names) != " ":
        raise ParameterError(
            f"FIMI items are separated by white space; {_say(option_names, 'delimiter', delimiter)} "
            f"applies to {_say(option_names, 'fmt', 'csv')} and {_say(option_names, 'fmt', 'basket')}"
        )
    if fmt == "parquet":
        if delimiter is not None:
            raise ParameterError(f"{source}: Parquet has no delimiter; drop {_say(option_names, 'delimiter', delimiter)}")
        from graphanon.formats_parquet import read_parquet

        return read_parquet(path, tid=tid, item=item, label=label, name=name)
    if label is not None and fmt != "csv":
        raise ParameterError(
            f"{source}: {_say(option_names, 'label', label)} names a column of CSV input, and this file is read "
            f"as {fmt}, which has no labels: drop it, or give the data as {_say(option_names, 'fmt', 'csv')}"
        )
    text = read_all(path)
    if fmt == "fimi":
        return parse_fimi(text, source, name, option_names=option_names)
    if fmt == "csv":
        return parse_long_csv(text, source, tid=tid, item=item, label=label, delimiter=delimiter or ",",
                              name=name, option_names=option_names)
    return parse_basket(text, source, delimiter=delimiter, name=name, option_names=option_names)
