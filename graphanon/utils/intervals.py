"""Published relational values as ranges: ``[lo-hi]`` intervals and plain numbers.

A relational-transaction release publishes numeric quasi-identifiers as
closed intervals ``[lo-hi]`` (or the number itself when not generalized);
the audit (:mod:`graphanon.privacy.rt`), the metrics
(:mod:`graphanon.metrics.relational`) and the attack
(:mod:`graphanon.attacks.rtlink`) read them with the one parser here.
"""

from __future__ import annotations

import re

from graphanon.errors import ParameterError

__all__ = ["parse_interval"]

_INTERVAL = re.compile(r"^\[\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)\s*\]$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")


def parse_interval(value: str) -> tuple[float, float] | None:
    """The closed range ``(lo, hi)`` of a published numeric value, or None for a name.

    ``[lo-hi]`` (bounds may be negative or decimal: ``[-5--1]``) and a plain
    number (an ungeneralized value, ``lo == hi``) are numeric; anything else
    (a category, a hierarchy node, ``*``) is a name.

    Examples
    --------
    >>> parse_interval("[40-49]"), parse_interval("42"), parse_interval("[-5--1]"), parse_interval("F")
    ((40.0, 49.0), (42.0, 42.0), (-5.0, -1.0), None)
    """
    text = str(value).strip()
    hit = _INTERVAL.match(text)
    if hit:
        lo, hi = float(hit.group(1)), float(hit.group(2))
        if lo > hi:
            raise ParameterError(f"published interval {value!r} has its lower bound above the upper one")
        return lo, hi
    if _NUMBER.match(text):
        return float(text), float(text)
    return None
