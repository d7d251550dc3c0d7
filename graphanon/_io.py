"""Safe file output: atomic writes that never leave half a file behind.

Every file graphanon writes (releases, private link files, taxonomies,
figures) goes through :func:`atomic_write`: the content is written to a
temporary file in the destination's folder and moved into place with
:func:`os.replace`, so an interrupted run leaves either the old file or the
complete new one, never a truncated release.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> atomic_write(folder / "out.txt", "hello")
>>> (folder / "out.txt").read_text()
'hello'
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write"]


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, content: str | bytes, *, encoding: str = "utf-8") -> None:
    """Write ``content`` to ``path`` atomically (temporary file + rename).

    Parameters
    ----------
    path : str or PathLike
        Destination; its folder must exist.
    content : str or bytes
        Text (encoded with ``encoding``) or bytes.
    encoding : str
        Encoding of text content.

    Raises
    ------
    OSError
        When the folder does not exist or is not writable (nothing is left behind).
    """
    path = Path(path)
    data = content.encode(encoding) if isinstance(content, str) else bytes(content)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_current_umask())  # mkstemp makes 0600; give the usual mode
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
