"""Docstring paragraphs every method shares, written once (bottom layer).

A docstring holds a placeholder line such as ``%(unsafe_secret_seed)s``;
:func:`fill_doc` replaces it with the shared paragraph, indented like the
placeholder and completed with what differs per method (``secret=`` names
the method's secret choices). Like scipy's ``doccer``, in a few lines.

Examples
--------
>>> @fill_doc(secret="the row shuffle")
... def f(*, unsafe_secret_seed=None):
...     '''Do f.
...
...     Parameters
...     ----------
...     %(unsafe_secret_seed)s
...     '''
>>> print(f.__doc__.splitlines()[4].strip())
unsafe_secret_seed : int, optional
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable

__all__ = ["PARAGRAPHS", "fill_doc"]

#: Shared parameter paragraphs (numpydoc): placeholder name -> (header line, body); ``{secret}`` is
#: filled per method and the body wrapped to the docstring's indentation.
PARAGRAPHS = {
    "unsafe_secret_seed": (
        "unsafe_secret_seed : int, optional",
        "Tests only: fixes the secret choices ({secret}), which otherwise come from operating-system entropy "
        "(:func:`~graphanon.release.publish`). Anyone who knows or guesses it undoes the release's "
        "protection; never recorded in the release.",
    ),
}

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.M)


def fill_doc(**fills: str) -> Callable:
    """Decorator: replace the placeholder lines of a docstring by the shared paragraphs.

    Parameters
    ----------
    **fills : str
        Values of the paragraphs' fields (``secret="the row shuffle"``).

    Returns
    -------
    callable
        The decorator; it sets ``__doc__`` and returns the function itself.
    """

    def decorate(func: Callable) -> Callable:
        def replace(match: re.Match) -> str:
            indent = match["indent"]
            header, body = PARAGRAPHS[match["name"]]
            return indent + header + "\n" + textwrap.fill(
                body.format(**fills), width=79, initial_indent=indent + "    ", subsequent_indent=indent + "    "
            )

        if func.__doc__:
            func.__doc__ = _PLACEHOLDER.sub(replace, func.__doc__)
        return func

    return decorate
