"""Audit reports and the privacy-model protocol."""

from __future__ import annotations

import textwrap
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphanon.utils.labels import display_items

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["AuditReport", "PrivacyModel", "describe_case"]


def _value_text(value) -> str:
    if isinstance(value, dict):
        return f"({describe_case(value, ', ')})"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, dict) for v in value):
            return " ".join(f"({describe_case(v, ', ')})" for v in value)
        return "{" + display_items(value) + "}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value) if value != "" else "(empty)"


def describe_case(case: dict, sep: str = "; ") -> str:
    """A worst case or counter-example of an audit as words, not a Python repr.

    Keys are written with spaces (``published_records`` -> ``published
    records``), item lists in braces with names quoted when they hold a comma
    (:func:`graphanon.utils.labels.display_items`), nested cases in brackets.

    Parameters
    ----------
    case : dict
        A JSON-safe dict of an :class:`AuditReport` (``worst`` or one of
        ``counterexamples``).
    sep : str
        Between the entries (nested cases use ``", "``).

    Returns
    -------
    str

    Examples
    --------
    >>> describe_case({"itemset": ["-9", "140,239"], "support": 1})
    'itemset: {-9, "140,239"}; support: 1'
    """
    return sep.join(f"{str(key).replace('_', ' ')}: {_value_text(value)}" for key, value in case.items())


@dataclass
class AuditReport:
    """The outcome of auditing a release against its original data.

    Attributes
    ----------
    model : str
        The privacy model and its parameters, e.g. ``"k^m-anonymity (k=2, m=3)"``.
    satisfied : bool
        True when no violation was found.
    violations : int
        Number of violations found (the unit is model-specific and stated in
        ``details["unit"]``).
    worst : dict or None
        The worst case found (e.g. the lowest-support violating itemset).
    counterexamples : list of dict
        Concrete violations (at most ``max_examples`` of them), each naming
        items or records a user can look up.
    details : dict
        Further model-specific numbers.
    """

    model: str
    satisfied: bool
    violations: int
    worst: dict | None = None
    counterexamples: list[dict] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        """Whether the model is satisfied."""
        return self.satisfied

    def to_dict(self) -> dict:
        """The report as a JSON-safe dict."""
        return {
            "model": self.model,
            "satisfied": self.satisfied,
            "violations": self.violations,
            "worst": self.worst,
            "counterexamples": self.counterexamples,
            "details": self.details,
        }

    def __str__(self) -> str:
        """The verdict and, when violated, the worst case and examples, in words, wrapped at 80 columns."""
        head = f"{self.model}: {'satisfied' if self.satisfied else 'VIOLATED'}"
        if self.satisfied:
            return head
        lines = [f"{head} ({self.violations} violation(s))"]
        cases = ([("worst: ", self.worst)] if self.worst else []) + [("e.g. ", ex) for ex in self.counterexamples[:5]]
        for label, case in cases:
            text = describe_case(case) if isinstance(case, dict) else str(case)
            lines += textwrap.wrap(text, 79, initial_indent="  " + label, subsequent_indent="      ",
                                   break_long_words=False, break_on_hyphens=False)
        return "\n".join(lines)


class PrivacyModel(ABC):
    """A privacy model that can audit a release against the original data.

    Audits are written independently of the anonymizers: they share no code
    with them besides support counting, so that they catch algorithm bugs.
    """

    name: str = ""

    @abstractmethod
    def audit(self, original: TransactionData, release, *, max_examples: int = 10, progress: ProgressCallback | None = None) -> AuditReport:
        """Check ``release`` against ``original``; never raises for a violation.

        ``progress``, when given, is called as ``progress(done, total, message)``
        by models whose audits take long enough to report; others ignore it.
        """

    def __call__(self, original, release, **kwargs) -> AuditReport:
        """Same as :meth:`audit`."""
        return self.audit(original, release, **kwargs)
