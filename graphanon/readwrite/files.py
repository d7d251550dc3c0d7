"""Safe file output: atomic writes, output checks, strict JSON.

Every file graphanon writes (releases, private link files, taxonomies,
figures) goes through :func:`atomic_write`: the content is written to a
temporary file in the destination's folder and moved into place with
:func:`os.replace`, so an interrupted run leaves either the old file or the
complete new one, never a truncated release. :func:`check_output` is called
before any computation: it refuses an output that is one of the inputs, a
missing or read-only folder, and a file extension the writer cannot write.
Every JSON document graphanon writes or prints goes through :func:`dumps_json`
(strict JSON: no ``NaN`` or ``Infinity``).

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> atomic_write(folder / "out.txt", "hello")
>>> (folder / "out.txt").read_text()
'hello'
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from graphanon.errors import OutputError
from graphanon.utils.memory import cost_blocks

__all__ = [
    "IntList", "IntRows", "JsonPieces", "atomic_write", "atomic_writer", "check_output", "dumps_json",
    "dumps_json_document", "finite_json", "iter_json_document", "write_json_document",
]


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(
    path: str | os.PathLike, content: str | bytes, *, encoding: str = "utf-8", private: bool = False
) -> None:
    """Write ``content`` to ``path`` atomically (temporary file + rename).

    Parameters
    ----------
    path : str or PathLike
        Destination; its folder must exist.
    content : str or bytes
        Text (encoded with ``encoding``) or bytes.
    encoding : str
        Encoding of text content.
    private : bool
        Write the file with mode 0600 (owner read/write only), whatever the
        umask: for private link files. The temporary file is created 0600
        (:func:`tempfile.mkstemp`) and keeps that mode, so the content is
        never readable by others, not even before the rename. Otherwise the
        file gets the usual mode ``0666 & ~umask``.

    Raises
    ------
    OSError
        When the folder does not exist or is not writable (nothing is left behind).

    Examples
    --------
    >>> import tempfile, pathlib, stat
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "PRIVATE-link.json"
    >>> atomic_write(out, "{}", private=True)
    >>> oct(stat.S_IMODE(out.stat().st_mode))
    '0o600'
    """
    with atomic_writer(path, private=private) as fh:
        fh.write(content.encode(encoding) if isinstance(content, str) else bytes(content))


@contextmanager
def atomic_writer(path: str | os.PathLike, *, private: bool = False) -> Iterator:
    """A binary file handle whose content replaces ``path`` atomically when the block ends.

    The streaming form of :func:`atomic_write` (same temporary file, modes
    and rename): a writer that makes its content piece by piece (a release
    written while its rows are gathered) never holds all of it. An
    exception inside the block leaves ``path`` untouched and removes the
    temporary file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_writer(out) as fh:
    ...     _ = fh.write(b"hel"), fh.write(b"lo")
    >>> out.read_text()
    'hello'
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        # mkstemp makes 0600 before any byte is written; private files keep it, others get the usual mode
        os.chmod(tmp, 0o600 if private else 0o666 & ~_current_umask())
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _is_existing_file(path: Path) -> bool:
    """Whether ``path`` names an existing file; a text no file can have (too long, a NUL) names none."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def check_output(
    path: str | os.PathLike,
    *,
    inputs: Iterable[str | os.PathLike] = (),
    suffixes: Iterable[str] = (),
    option: str = "-o",
) -> Path:
    r"""Check, before any work is done, that ``path`` can be written.

    Parameters
    ----------
    path : str or PathLike
        The output file.
    inputs : iterable of path-like
        Files the command reads; the output may be none of them (compared by
        resolved path and :func:`os.path.samefile`, so links and ``./`` do not
        fool it). Names that are not existing files (bundled dataset names,
        ``--param`` values such as a list of 423 item names, texts too long
        to be a file name) are ignored.
    suffixes : iterable of str
        Accepted endings (``".json"``, ``".json.gz"``, ``".png"``, ...),
        compared case-insensitively; empty accepts any.
    option : str
        The option that named the output, for the message.

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    OutputError
        Naming the output and what to pass instead.

    Notes
    -----
    Complexity: O(number of inputs) file-system lookups.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "data.dat").write_text("1 2\n")
    >>> check_output(folder / "rel.json", inputs=[folder / "data.dat"], suffixes=[".json"]).name
    'rel.json'
    >>> check_output(folder / "data.dat", inputs=[folder / "data.dat"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphanon.errors.OutputError: -o ...data.dat is an input of this command; choose another output file
    """
    out = Path(path)
    for source in inputs:
        source = Path(source)
        if _is_existing_file(source) and _same_file(out, source):
            raise OutputError(f"{option} {out} is an input of this command; choose another output file")
    suffixes = [s.lower() for s in suffixes]
    if suffixes and not any(out.name.lower().endswith(s) and len(out.name) > len(s) for s in suffixes):
        raise OutputError(f"{option} {out}: cannot write this kind of file; use a name ending in {', '.join(suffixes)}")
    if out.is_dir():
        raise OutputError(f"{option} {out} is a folder; give a file name")
    folder = out.parent
    if not folder.is_dir():
        raise OutputError(f"{option} {out}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {out}: the folder {folder} is not writable")
    if out.exists() and not os.access(out, os.W_OK):
        raise OutputError(f"{option} {out} exists and is read-only")
    return out


def finite_json(obj):
    """``obj`` with every non-finite float (NaN, +-Infinity) replaced by ``None``.

    NumPy scalars and arrays become Python numbers and lists; dict keys become
    strings; tuples and sets become lists. JSON has no NaN or Infinity, so an
    undefined number (for example the log of a zero utility) is written as
    ``null``.

    Examples
    --------
    >>> finite_json({"a": float("nan"), "b": [1.5, -float("inf")], "c": np.int64(3)})
    {'a': None, 'b': [1.5, None], 'c': 3}
    """
    if isinstance(obj, (np.ndarray, IntRows)):
        obj = obj.tolist()
    elif isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k if isinstance(k, str) else str(finite_json(k)): finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [finite_json(v) for v in obj]
    return obj


def dumps_json(obj, **kwargs) -> str:
    """Strict JSON text of ``obj`` (see :func:`finite_json`); keyword arguments go to :func:`json.dumps`.

    Objects JSON cannot hold (other than NumPy values) are written as their ``str``.

    Examples
    --------
    >>> dumps_json({"ul": float("-inf"), "k": np.int32(5)})
    '{"ul": null, "k": 5}'
    """
    return json.dumps(finite_json(obj), allow_nan=False, default=str, **kwargs)


class IntRows:
    """Rows of non-negative integers held as CSR arrays, encoded to JSON without Python objects per value.

    A release's records (lists of item or node indices, one list per row) are
    most of its saved bytes; :meth:`to_json` writes them as the JSON text
    ``json.dumps(rows, separators=(",", ":"))`` would, byte for byte, by
    filling one byte buffer with numpy (digits, commas, brackets at computed
    offsets) instead of building ``n`` Python lists of Python ints.

    Parameters
    ----------
    indptr : array of int (n + 1)
        Row ``i`` is ``values[indptr[i]:indptr[i + 1]]``.
    values : array of int
        The row entries, each >= 0.

    Examples
    --------
    >>> rows = IntRows([0, 2, 2, 3], [7, 10, 0])
    >>> rows.to_json()
    '[[7,10],[],[0]]'
    >>> rows.tolist()
    [[7, 10], [], [0]]
    """

    __slots__ = ("indptr", "values")

    def __init__(self, indptr, values):
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.values = np.asarray(values, dtype=np.int64)
        if self.values.size and int(self.values.min()) < 0:
            raise ValueError("IntRows holds non-negative integers only")

    def __len__(self) -> int:
        """The number of rows."""
        return len(self.indptr) - 1

    def tolist(self) -> list[list[int]]:
        """The rows as Python lists of ints."""
        flat = self.values.tolist()
        return [flat[a:b] for a, b in zip(self.indptr[:-1].tolist(), self.indptr[1:].tolist())]

    def to_json(self, block: int = 1 << 16) -> str:
        """Compact JSON text of the rows (no spaces), equal to ``json.dumps(self.tolist(), separators=(",", ":"))``.

        Rows are encoded in blocks of about ``block`` entries (a row is never
        split), so the integer scratch arrays are ``O(block)`` whatever the
        size of the rows; the text does not depend on ``block``.

        Complexity: O(total digits), a constant number of numpy passes (one per digit position) per block.

        Examples
        --------
        >>> IntRows([0, 2, 2, 3, 5], [7, 10, 0, 1, 2]).to_json(block=1)
        '[[7,10],[],[0],[1,2]]'
        """
        indptr = self.indptr
        if len(indptr) <= 1:
            return "[]"
        if int(indptr[-1] - indptr[0]) <= block:
            return _rows_json(indptr, self.values).decode("ascii")
        parts = []
        for a, b in cost_blocks(np.diff(indptr) + 1, block):  # + 1: an empty row costs too
            lo, hi = int(indptr[a]), int(indptr[b])
            parts.append(_rows_json(indptr[a : b + 1] - lo, self.values[lo:hi])[1:-1])  # without its "[" "]"
        return "[" + b",".join(parts).decode("ascii") + "]"


class IntList(IntRows):
    """One list of non-negative integers, encoded to JSON by numpy as :class:`IntRows` encodes rows.

    Examples
    --------
    >>> IntList([3, 0, 12]).to_json(), IntList([]).to_json(), IntList([3, 0]).tolist()
    ('[3,0,12]', '[]', [3, 0])
    """

    __slots__ = ()

    def __init__(self, values):
        values = np.asarray(values, dtype=np.int64).reshape(-1)
        super().__init__([0, len(values)], values)

    def __len__(self) -> int:
        """The number of values."""
        return len(self.values)

    def tolist(self) -> list[int]:  # type: ignore[override]
        """The values as a Python list of ints."""
        return self.values.tolist()

    def to_json(self, block: int = 1 << 16) -> str:
        """Compact JSON text of the list, equal to ``json.dumps(self.tolist(), separators=(",", ":"))``."""
        return super().to_json(block)[1:-1]  # the one row, without the outer list


def _rows_json(indptr: np.ndarray, values: np.ndarray) -> bytes:
    """The bytes of :meth:`IntRows.to_json` for one block of at least one row (``indptr[0] == 0``)."""
    n = len(indptr) - 1
    lengths = np.diff(indptr)
    n_digits = np.ones(len(values), dtype=np.int64)
    power = 10
    while len(values) and power <= int(values.max()):
        n_digits += values >= power
        power *= 10
    row_of = np.repeat(np.arange(n, dtype=np.int64), lengths)
    entry_len = n_digits + 1  # the digits and a "," (or the row's closing "]")
    entry_end = np.cumsum(entry_len)
    before_row = np.r_[np.int64(0), entry_end][indptr[:-1]]  # entry bytes of the earlier rows
    # per row: "," (not the first), "[", its entries, "]" only when empty (an entry closes a row)
    row_len = (np.arange(n) > 0) + 1 + np.r_[before_row[1:], entry_end[-1] if len(values) else 0] - before_row
    row_len = row_len + (lengths == 0)
    row_start = 1 + np.cumsum(row_len) - row_len
    bracket = row_start + (np.arange(n) > 0)
    buf = np.empty(int(row_start[-1] + row_len[-1]) + 1, dtype=np.uint8)
    buf[0], buf[-1] = ord("["), ord("]")
    buf[row_start[1:]] = ord(",")
    buf[bracket] = ord("[")
    buf[bracket[lengths == 0] + 1] = ord("]")
    start = bracket[row_of] + 1 + (entry_end - entry_len) - before_row[row_of]
    for j in range(int(n_digits.max()) if len(values) else 0):
        has = n_digits > j
        place = 10 ** (n_digits[has] - 1 - j)
        buf[start[has] + j] = ord("0") + (values[has] // place) % 10
    last = np.zeros(len(values), dtype=bool)
    last[indptr[1:][lengths > 0] - 1] = True
    buf[start + n_digits] = np.where(last, ord("]"), ord(","))
    return buf.tobytes()


def dumps_json_document(doc: dict) -> str:
    """Compact strict JSON text of a top-level object whose values may be :class:`IntRows`.

    The same bytes as ``dumps_json(doc, separators=(",", ":"))`` with every
    :class:`IntRows` replaced by its list: plain values go through
    :func:`dumps_json`, :class:`IntRows` values through :meth:`IntRows.to_json`.

    Examples
    --------
    >>> dumps_json_document({"n": 2, "records": IntRows([0, 1, 3], [4, 0, 12])})
    '{"n":2,"records":[[4],[0,12]]}'
    """
    return "".join(iter_json_document(doc))


class JsonPieces:
    """A JSON value given as consecutive pieces of its text (a document too large to hold as one string).

    :func:`iter_json_document` writes the pieces as they come; the caller
    guarantees that together they are one JSON value.
    """

    __slots__ = ("pieces",)

    def __init__(self, pieces: Iterable[str]) -> None:
        self.pieces = pieces


def iter_json_document(doc: dict, dumps: Callable[[object], str] | None = None) -> Iterator[str]:
    """The compact JSON text of a top-level object, in pieces; values may be :class:`IntRows` or :class:`JsonPieces`.

    ``"".join(iter_json_document(doc))`` is :func:`dumps_json_document`
    of ``doc``; ``dumps`` (default ``dumps_json`` with compact separators)
    encodes plain values.

    Examples
    --------
    >>> "".join(iter_json_document({"n": 1, "rows": JsonPieces(iter(["[[1]", ",[]]"]))}))
    '{"n":1,"rows":[[1],[]]}'
    """
    dumps = dumps or (lambda value: dumps_json(value, separators=(",", ":")))
    for i, (key, value) in enumerate(doc.items()):
        yield ("{" if i == 0 else ",") + json.dumps(key if isinstance(key, str) else str(finite_json(key))) + ":"
        if isinstance(value, JsonPieces):
            yield from value.pieces
        else:
            yield value.to_json() if isinstance(value, IntRows) else dumps(value)
    yield "}" if doc else "{}"


def write_json_document(path: str | os.PathLike, pieces: Iterable[str], *, private: bool = False) -> None:
    """Write JSON text given in pieces to ``path`` atomically, gzip-compressed when it ends in ``.gz``.

    The bytes are those of :func:`atomic_write` of the joined text (for
    ``.gz``: ``gzip.compress(text, mtime=0)``, whose stream zlib makes the
    same when fed in pieces), without holding the whole text.
    """
    path = Path(path)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31) if path.suffix == ".gz" else None
    with atomic_writer(path, private=private) as fh:
        for piece in pieces:
            data = piece.encode("utf-8")
            fh.write(data if packer is None else packer.compress(data))
        if packer is not None:
            fh.write(packer.flush())
