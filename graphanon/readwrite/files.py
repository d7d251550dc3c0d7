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
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from graphanon.errors import OutputError

__all__ = ["atomic_write", "check_output", "dumps_json", "finite_json"]


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
    path = Path(path)
    data = content.encode(encoding) if isinstance(content, str) else bytes(content)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        # mkstemp makes 0600 before any byte is written; private files keep it, others get the usual mode
        os.chmod(tmp, 0o600 if private else 0o666 & ~_current_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
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
    if isinstance(obj, np.ndarray):
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
