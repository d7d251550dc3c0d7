"""Exceptions raised by graphanon.

Every error a user can cause derives from :class:`GraphanonError` and carries
a message that says what is wrong (which file, line, record or item) and what
to do about it. The CLI turns these into a one-line message and exit code 2.
"""

from __future__ import annotations


class GraphanonError(Exception):
    """Base class of every error graphanon raises for bad input or settings."""


class DataFormatError(GraphanonError, ValueError):
    """An input file or object is malformed (names the file, line or record)."""


class TaxonomyError(GraphanonError, ValueError):
    """A taxonomy is not a rooted tree, misses items, or a node set is not a cut."""


class ParameterError(GraphanonError, ValueError):
    """A parameter is out of range (for example ``k < 1`` or ``k > n``)."""


class InfeasibleError(GraphanonError):
    """An anonymizer cannot meet its privacy model with the given settings.

    Raised instead of returning a release that would violate the model.
    """


class InternalError(RuntimeError):
    """A bug in graphanon: an internal invariant does not hold.

    Not a :class:`GraphanonError` -- no input can cause it, so the CLI does
    not turn it into a one-line message; please report it with the traceback.
    """


class ReleaseFormatError(GraphanonError, ValueError):
    """A saved release cannot be read (wrong format tag, missing field)."""


class DataMismatchError(GraphanonError, ValueError):
    """A release (or its private link) was not made from the data it is compared with.

    Raised by :func:`graphanon.release.check_same_data` when the data's
    fingerprint differs from the one recorded in the release.
    """


class LegacyFingerprintWarning(UserWarning):
    """A release file of format ``graphanon-release/2``: its data fingerprint is an oracle.

    Those files publish a salted digest of the exact data with its salt and
    the data's counts in clear; an adversary who knows every record but one
    tests guesses of the last one against them (``docs/privacy.md``, "The
    data fingerprint"). The file still loads and is still checked; re-run
    the anonymizer to publish a keyed fingerprint instead.
    """


class MemoryBudgetError(GraphanonError, MemoryError):
    """A step would need more memory than the budget allows (see :mod:`graphanon.utils.memory`).

    Raised before the allocation, with the parameter to change (for example
    ``m``) and how to raise the budget (``--max-memory``).
    """


class OutputError(GraphanonError, ValueError):
    """An output file cannot be written: it is an input, its folder is missing, or its type is unknown."""


class BudgetError(GraphanonError, ValueError):
    """A differentially private release would take the data's spent epsilon past ``--budget`` (the budget ledger)."""


class PluginWarning(UserWarning):
    """An installed plugin (an entry point of group ``graphanon.methods``) could not be used.

    One warning per broken entry point, naming it; the other methods stay
    available (``graphanon algorithms`` never crashes on a broken plugin).
    """
