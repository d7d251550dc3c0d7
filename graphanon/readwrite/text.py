"""Shared pieces of the text readers in :mod:`graphanon.readwrite.formats` and :mod:`graphanon.readwrite.long_csv`.

Opening (UTF-8, byte order mark, ``.gz``), line splitting, delimiter names,
how error messages name an argument, and the vectorized build of a
:class:`~graphanon.data.TransactionData` from tokens.
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

from graphanon.errors import DataFormatError, ParameterError
from graphanon.utils.labels import natural_key

FIMI_TOKEN = re.compile(r"[0-9]+\Z")
DELIMITER_WORDS = {"\\t": "\t", "tab": "\t", "space": " ", "comma": ",", "semicolon": ";"}


def say_option(option_names: Mapping[str, str] | None, name: str, value: str) -> str:
    """How to pass ``name=value``: ``name='value'`` or, with option names, ``--name value``."""
    if option_names is None:
        return f"{name}={value!r}"
    return f"{option_names.get(name, '--' + name)} {shlex.quote(value)}"


def check_delimiter(value: str | None, option_names=None) -> str | None:
    r"""A one-character delimiter (``tab``, ``\t``, ``space`` are accepted by name)."""
    if value is None:
        return None
    value = DELIMITER_WORDS.get(value.lower(), value) if isinstance(value, str) else value
    if not isinstance(value, str) or len(value) != 1 or value in "\"\r\n":
        raise ParameterError(
            f"the delimiter must be one character other than a quote or newline, got {value!r}; "
            f"for example {say_option(option_names, 'delimiter', ';')} or {say_option(option_names, 'delimiter', 'tab')}"
        )
    return value


def open_text(path: Path) -> io.TextIOBase:
    """``path`` opened for reading text: UTF-8, a byte order mark dropped, ``.gz`` unpacked."""
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
        with open_text(path) as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise DataFormatError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save the file as UTF-8"
        ) from None
    except (OSError, EOFError) as exc:
        raise DataFormatError(f"{path}: cannot be read ({exc})") from None



def csv_header(reader, source: str, expected: str) -> list[str]:
    r"""The stripped header row of a ``csv.reader``; an empty or non-CSV file is a one-line error.

    ``expected`` says what the header should hold (for the message).

    Examples
    --------
    >>> import csv, io
    >>> csv_header(csv.reader(io.StringIO("tid, item\n1,a\n")), "x.csv", "tid and item")
    ['tid', 'item']
    """
    try:
        return [h.strip() for h in next(reader)]
    except StopIteration:
        raise DataFormatError(f"{source}: empty file (expected a header row with {expected})") from None
    except csv.Error as exc:
        raise DataFormatError(f"{source}, line 1: not CSV ({exc})") from None

def split_lines(text: str) -> list[str]:
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


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (a sort and a mask: faster than ``np.unique`` on large integer arrays)."""
    out = np.sort(values)
    return out[np.concatenate(([True], out[1:] != out[:-1]))] if len(out) else out


def plain_integer_tokens(text: str) -> tuple[np.ndarray, np.ndarray] | None:
    r"""Per-line token counts and token values of record-per-line text of plain integers, parsed by numpy.

    The fast path of the FIMI reader: one pass over the bytes finds the
    token starts and ends, and the values are summed digit position by digit
    position, with no Python string per token or per line. Lines and tokens
    are those of :func:`split_lines` and ``str.split``. Returns None (the
    caller then tokenizes in Python, which also names a bad token) unless
    every character is an ASCII digit, space, tab, ``\r`` or ``\n``,
    some line holds a token, and every token is written without a leading
    zero in at most 18 digits.

    Examples
    --------
    >>> lengths, values = plain_integer_tokens("1 2 10\n\n7\r\n")
    >>> lengths.tolist(), values.tolist()
    ([3, 0, 1], [1, 2, 10, 7])
    >>> plain_integer_tokens("1 02") is None  # a leading zero: the label keeps its text
    True
    """
    if not text.isascii():
        return None
    raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    digit = (raw >= ord("0")) & (raw <= ord("9"))
    newline = raw == ord("\n")
    lone_cr = (raw == ord("\r")) & np.r_[~newline[1:], True]  # "\r" not followed by "\n" ends a line too
    if not (digit | newline | (raw == ord(" ")) | (raw == ord("\t")) | (raw == ord("\r"))).all():
        return None
    newline |= lone_cr
    starts = np.flatnonzero(digit & ~np.r_[False, digit[:-1]])
    ends = np.flatnonzero(digit & ~np.r_[digit[1:], False]) + 1
    width = ends - starts
    if not len(starts) or width.max() > 18 or ((raw[starts] == ord("0")) & (width > 1)).any():
        return None
    n_lines = int(newline.sum()) + (0 if len(raw) and newline[-1] else 1)  # the text after the last newline
    line_of = np.cumsum(newline)[starts]
    lengths = np.bincount(line_of, minlength=n_lines).astype(np.int64)
    values = np.zeros(len(starts), dtype=np.int64)
    for j in range(int(width.max())):
        has = width > j
        values[has] = values[has] * 10 + (raw[starts[has] + j] - ord("0"))
    return lengths, values


def from_tokens(lengths: np.ndarray, tokens: list[str] | None, name: str | None, *, plain_integers: bool = False,
                values: np.ndarray | None = None):
    """Data from per-record token counts and the flat token list (labels as written).

    ``plain_integers``: every token is a whole number written without leading
    zeros, so its text is ``str(int(token))`` and numeric order is the natural
    order; the tokens are then parsed as integers (much faster than sorting text).
    ``values``: those integers already parsed (:func:`plain_integer_tokens`; ``tokens`` is then unused).
    """
    from graphanon.data import from_id_lists

    if values is not None:
        plain_integers = True
    if not (len(values) if values is not None else len(tokens or ())):
        return from_id_lists(lengths, np.zeros(0, np.int64), [], name=name)
    if plain_integers:
        values = np.array(tokens, dtype=np.int64) if values is None else values
        distinct = sorted_distinct(values)
        ids = np.searchsorted(distinct, values)
        vocab = [str(v) for v in distinct.tolist()]
    else:
        distinct_tokens, ids = np.unique(np.array(tokens), return_inverse=True)
        vocab = [str(v) for v in distinct_tokens]
        order = sorted(range(len(vocab)), key=lambda j: natural_key(vocab[j]))
        rank = np.empty(len(vocab), dtype=np.int64)
        rank[order] = np.arange(len(vocab))
        ids = rank[ids.ravel()]
        vocab = [vocab[j] for j in order]
    rows = np.repeat(np.arange(len(lengths)), lengths)
    key = sorted_distinct(rows * len(vocab) + ids)  # by record, then by item id; duplicates gone
    rows, ids = np.divmod(key, len(vocab))
    lengths = np.bincount(rows, minlength=len(lengths))
    return from_id_lists(lengths, ids, vocab, name=name)
