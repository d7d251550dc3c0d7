"""The one rule for item labels and taxonomy nodes: labels are text.

Every reader, builder and command-line option turns an item label or a
taxonomy node into text here, and nowhere else:

* a ``str`` is kept exactly as written: ``"001"`` stays ``"001"``, ``"-1"``
  stays ``"-1"``, ``"whole milk"`` stays ``"whole milk"``;
* a Python or numpy integer (Python API only) becomes its decimal text, so
  ``1`` and ``"1"`` are the same label and ``1`` and ``"001"`` are not;
* anything else (floats, booleans, tuples, ``None``, the empty string) is an
  error, because no text form of it is obviously right.

Integer ids are a property of a vocabulary (position ``j`` of
:attr:`graphanon.data.TransactionData.items`), never of a label. Labels are
ordered by :func:`natural_key`: labels that read as whole numbers first, by
value (so FIMI items keep their numeric order), then all other labels as text.

Examples
--------
>>> as_label("001"), as_label(7), as_label("-1")
('001', '7', '-1')
>>> sorted_labels(["10", "9", "b", "001", "-1", "a"])
['-1', '001', '9', '10', 'a', 'b']
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from graphanon.errors import DataFormatError

__all__ = [
    "as_label",
    "as_labels",
    "display_items",
    "display_label",
    "display_published",
    "lookup_key",
    "natural_key",
    "parse_name_list",
    "sorted_labels",
]

_WHOLE_NUMBER = re.compile(r"-?[0-9]+\Z")


def as_label(value: Hashable, what: str = "item") -> str:
    """The label ``value`` stands for (see the module docstring).

    Parameters
    ----------
    value : str or int
        A label as given by a file or the Python API.
    what : str
        What the label names, for the error message (``"item"``, ``"taxonomy node"``).

    Returns
    -------
    str

    Raises
    ------
    DataFormatError
        For a value that is neither text nor an integer, or the empty string.

    Notes
    -----
    Complexity: O(length of the label).

    Examples
    --------
    >>> as_label(np.int64(12)), as_label("012")
    ('12', '012')
    """
    if type(value) is str:
        if value:
            return value
    elif isinstance(value, str):
        if value:
            return str(value)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    else:
        raise DataFormatError(
            f"{what} {value!r} is a {type(value).__name__}; labels are text (str), or integers "
            f"that stand for their decimal text (convert the values to str first)"
        )
    raise DataFormatError(f"{what} label is the empty string; every label needs at least one character")


def lookup_key(value: Hashable) -> Hashable:
    """What to look ``value`` up by.

    Its label, or ``value`` itself when it has none (it then matches nothing).

    Lookups (``data.has_item(1)``, ``tax.parent(1)``) use this so that an int
    finds its text and a float or tuple finds nothing instead of raising.

    Examples
    --------
    >>> lookup_key(7), lookup_key("007"), lookup_key(7.0)
    ('7', '007', 7.0)
    """
    if isinstance(value, str):
        return value
    try:
        return as_label(value)
    except DataFormatError:
        return value


def as_labels(values: Iterable[Hashable], what: str = "item") -> tuple[str, ...]:
    """:func:`as_label` of every value, in order.

    Examples
    --------
    >>> as_labels([1, "02"])
    ('1', '02')
    """
    return tuple(as_label(v, what) for v in values)


def natural_key(label: str) -> tuple:
    """Sort key: whole-number labels first by value (ties by text), then the rest as text.

    Examples
    --------
    >>> sorted(["10", "2", "02", "x"], key=natural_key)
    ['02', '2', '10', 'x']
    """
    if _WHOLE_NUMBER.match(label):
        return (0, int(label), label)
    return (1, 0, label)


def sorted_labels(labels: Iterable[str]) -> list[str]:
    """Distinct labels in :func:`natural_key` order (labels must already be text)."""
    return sorted(set(labels), key=natural_key)


def parse_name_list(text: str) -> list[str]:
    """Comma-separated item or node names of a ``--param``, as text.

    Names are stripped and empty ones dropped; each is the label it spells
    (``001`` stays ``001``: labels are text everywhere, see
    :mod:`graphanon.utils.labels`).

    Examples
    --------
    >>> parse_name_list("001, 250,,-1")
    ['001', '250', '-1']
    """
    return [token for token in (t.strip() for t in text.split(",")) if token]


def set_label(members: Sequence[Hashable]) -> Hashable:
    """Label of a set-valued published item: the item itself, or ``"(a,b,c)"``.

    Examples
    --------
    >>> set_label(["a"]), set_label(["a", "b"])
    ('a', '(a,b)')
    """
    if len(members) == 1:
        return members[0]
    return "(" + ",".join(str(m) for m in members) + ")"


# a label holding one of these is quoted when a release is printed: the record separator (white
# space), the set separator and brackets of merged items, the quote itself
_NEEDS_QUOTES = re.compile(r'[\s,()"]')


def display_label(label: Hashable) -> str:
    """The text of one label in a printed release: quoted when it could be misread.

    Printed records separate labels by spaces and merged items list their
    members as ``(a,b)``; a label holding white space, a comma, a bracket or a
    double quote is therefore written in double quotes, with each ``"``
    inside doubled (the CSV rule, RFC 4180). Other labels are printed as
    they are.

    Parameters
    ----------
    label : str or int
        An item label, a taxonomy node or a sensitive label.

    Returns
    -------
    str
        The printed text.

    See Also
    --------
    display_published : a published item, merged or not.

    Examples
    --------
    >>> display_label("eggs"), display_label("bread, white"), display_label('12" pizza')
    ('eggs', '"bread, white"', '"12"" pizza"')
    """
    text = str(label)
    if _NEEDS_QUOTES.search(text) is None:
        return text
    return '"' + text.replace('"', '""') + '"'


def display_published(label: Hashable, members: Sequence[Hashable] = ()) -> str:
    """The printed text of a published item: a merged item as ``(a,b)`` of its quoted members.

    A merged item (a set label made by :func:`set_label` from two or more
    members, as COAT publishes) is printed from its members, each by
    :func:`display_label`, so ``(007,"bread, white",eggs)`` shows three
    members where the stored label ``(007,bread, white,eggs)`` could be read
    as four. Any other item is printed by :func:`display_label`. The saved
    release keeps the stored label unchanged.

    Parameters
    ----------
    label : str or int
        The published item's label.
    members : sequence of str
        The original items it stands for.

    Returns
    -------
    str
        The printed text.

    See Also
    --------
    display_label : one label.

    Examples
    --------
    >>> members = ["007", "bread, white", "eggs"]
    >>> display_published(set_label(members), members)
    '(007,"bread, white",eggs)'
    >>> display_published("dairy", ["milk", "cheese"]), display_published("whole milk", ["whole milk"])
    ('dairy', '"whole milk"')
    """
    if len(members) > 1 and label == set_label(members):
        return "(" + ",".join(display_label(m) for m in members) + ")"
    return display_label(label)


def display_items(labels, sep: str = ", ") -> str:
    """A list of item names joined by ``sep``, a name quoted when it holds the separator.

    The one helper for printing item lists in messages, reports and
    drawings: ``-9, "140,239", "350,359"`` shows three names where
    ``-9, 140,239, 350,359`` could be read as five. A name is written in
    double quotes (each ``"`` inside doubled, RFC 4180) when it holds the
    separator's visible character (a comma for ``", "``), a double quote, or
    -- for a white-space separator -- white space; other names as they are.

    Parameters
    ----------
    labels : iterable of str or int
        The names, in the order to print.
    sep : str
        The separator (default ``", "``).

    Returns
    -------
    str

    Notes
    -----
    Complexity: O(total length).

    Examples
    --------
    >>> display_items(["-9", "140,239", "350,359"])
    '-9, "140,239", "350,359"'
    >>> display_items(["hard drinks", "eggs"]), display_items(["hard drinks", "eggs"], " ")
    ('hard drinks, eggs', '"hard drinks" eggs')
    """
    mark = sep.strip()

    def one(label) -> str:
        text = str(label)
        needs = '"' in text or (mark in text if mark else any(c.isspace() for c in text)) or text != text.strip()
        return '"' + text.replace('"', '""') + '"' if needs or text == "" else text

    return sep.join(one(x) for x in labels)
