"""Declared parameters: each public function states its constraints once (bottom layer).

A function declares what each parameter may be with :func:`validate_params`
(a dict ``name -> list of constraints``, any one of which must hold, plus
rules between parameters); the decorator checks every call and raises a
:class:`~graphanon.errors.ParameterError` naming the parameter, the value and
what is allowed. The declaration is kept on the function
(``func._parameter_constraints``), so the command line converts a
``--param`` text and checks it against the same declaration, ``graphanon
algorithms`` lists the allowed values from it, and ``tests/algorithms/test_common.py``
generates a wrong value for every declared parameter
(:func:`invalid_values`). The shape follows scikit-learn's
``utils/_param_validation.py`` (``validate_params``, ``Interval``,
``StrOptions``); checks that depend on the data (``k`` at most the number
of records) stay where the data is.

Constraints
-----------
``Interval(Integral | Real, left, right, closed=...)``, ``StrOptions({...})``,
``None`` (the value None), ``"boolean"``, ``"callable"``, ``"random_state"``
(None, a non-negative whole number or a ``numpy.random.Generator``),
``"array-like"`` (a list, tuple or array), or a
class (``isinstance``). Rules: :class:`AtLeastOne`, :class:`ExactlyOne`, :class:`NotGreater`,
:class:`OnlyWith`.

Examples
--------
>>> from numbers import Integral
>>> @validate_params({"k": [Interval(Integral, 1, None, closed="left")], "m": [Interval(Integral, 1, None), None]},
...                  meanings={"m": "the largest itemset an attacker knows"})
... def f(*, k, m=None):
...     return k, m
>>> f(k=2)
(2, None)
>>> f(k=2, m=0)
Traceback (most recent call last):
...
graphanon.errors.ParameterError: m must be a whole number >= 1 or None (the largest itemset an attacker knows), got 0
>>> f(k="2")
Traceback (most recent call last):
...
graphanon.errors.ParameterError: k must be a whole number >= 1, got '2'
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, cast

import numpy as np

from graphanon.errors import ParameterError

__all__ = [
    "COMMON",
    "K",
    "M",
    "MEANINGS",
    "NO_VALIDATION",
    "RNG",
    "AtLeastOne",
    "ExactlyOne",
    "Interval",
    "NotGreater",
    "OnlyWith",
    "StrOptions",
    "check_params",
    "describe",
    "expand_params",
    "invalid_values",
    "is_satisfied",
    "validate_params",
]


@dataclass(frozen=True)
class Interval:
    """Numbers of a type within bounds.

    Parameters
    ----------
    type : numbers.Integral or numbers.Real
        ``Integral``: whole numbers (bools refused); ``Real``: any real number
        (bools refused, NaN outside every interval).
    left, right : number or None
        The bounds (None: unbounded on that side).
    closed : {"both", "left", "right", "neither"}
        Which bounds belong to the interval (default ``"both"``).

    Examples
    --------
    >>> from numbers import Real
    >>> str(Interval(Real, 0, 1, closed="right")), Interval(Real, 0, 1, closed="right").contains(0.0)
    ('a number in (0, 1]', False)
    """

    type: type
    left: float | None
    right: float | None
    closed: str = "both"

    def contains(self, value: Any) -> bool:
        """Whether ``value`` is of :attr:`type` and within the bounds."""
        if isinstance(value, bool) or not isinstance(value, self.type):
            return False
        value = cast(Any, value)  # a number of self.type (the check above narrows it to object)
        if self.type is Real and math.isnan(float(value)):
            return False
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.left is not None and (value < self.left or (value == self.left and not left_closed)):
            return False
        return not (self.right is not None and (value > self.right or (value == self.right and not right_closed)))

    def __str__(self) -> str:
        """The interval in words (``a whole number >= 1``)."""
        whole = self.type is Integral
        noun = "a whole number" if whole else "a number"
        lo = self.left is not None
        hi = self.right is not None
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if lo and hi:
            if whole and left_closed and right_closed:
                return f"{noun} in {self.left}..{self.right}"
            return f"{noun} in {'[' if left_closed else '('}{self.left}, {self.right}{']' if right_closed else ')'}"
        if lo:
            return f"{noun} {'>=' if left_closed else '>'} {self.left}"
        if hi:
            return f"{noun} {'<=' if right_closed else '<'} {self.right}"
        return noun

    def invalid(self) -> list:
        """Values outside the interval: beyond each finite bound, and one of the wrong type."""
        step = 1 if self.type is Integral else 0.5
        out: list = ["not-a-number"]
        if self.left is not None:
            out.append(self.left - step if self.closed in ("both", "left") else self.left)
        if self.right is not None:
            out.append(self.right + step if self.closed in ("both", "right") else self.right)
        return out


@dataclass(frozen=True)
class StrOptions:
    """One of a fixed set of texts.

    Examples
    --------
    >>> str(StrOptions(("gray", "identity")))
    "one of 'gray', 'identity'"
    """

    options: tuple[str, ...]

    def contains(self, value: Any) -> bool:
        """Whether ``value`` is one of :attr:`options`."""
        return isinstance(value, str) and value in self.options

    def __str__(self) -> str:
        """The options in words (``one of 'a', 'b'``)."""
        return "one of " + ", ".join(repr(o) for o in self.options)

    def invalid(self) -> list:
        """A text that is no option, and a non-text."""
        return ["no-such-choice", 3]


_NAMED: dict[str, tuple[str, Callable[[Any], bool], list]] = {
    "boolean": ("True or False", lambda v: isinstance(v, (bool, np.bool_)), ["yes"]),
    "callable": ("a callable", callable, [3]),
    "array-like": ("a list or array", lambda v: isinstance(v, (list, tuple, np.ndarray)), [3]),
    "random_state": (
        "None, a non-negative whole-number seed or a numpy Generator",
        lambda v: v is None or isinstance(v, np.random.Generator)
        or (isinstance(v, Integral) and not isinstance(v, bool) and int(v) >= 0),
        [-1, "seed"],
    ),
}


def is_satisfied(constraint, value: Any) -> bool:
    """Whether ``value`` meets one ``constraint`` (see the module docstring for the kinds)."""
    if constraint is None:
        return value is None
    if isinstance(constraint, str):
        return _NAMED[constraint][1](value)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return constraint.contains(value)


def describe(constraints) -> str:
    """What a list of constraints allows, in words (``"a whole number >= 1 or None"``)."""
    if constraints == NO_VALIDATION:
        return "any value (checked by the function itself)"
    words = []
    for constraint in constraints:
        if constraint is None:
            words.append("None")
        elif isinstance(constraint, str):
            words.append(_NAMED[constraint][0])
        elif isinstance(constraint, type):
            words.append(f"a {constraint.__name__}")
        else:
            words.append(str(constraint))
    return " or ".join(words)


def invalid_values(constraints: list) -> list:
    """Values that meet none of ``constraints`` (for tests that expect them refused).

    Examples
    --------
    >>> invalid_values([Interval(Integral, 1, None, closed="left"), None])
    ['not-a-number', 0]
    >>> invalid_values(NO_VALIDATION)
    []
    """
    if constraints == NO_VALIDATION:
        return []
    candidates: list = []
    for constraint in constraints:
        if constraint is None:
            continue  # the other constraints' wrong values are not None either
        if isinstance(constraint, str):
            candidates.extend(_NAMED[constraint][2])
        elif isinstance(constraint, type):
            candidates.append(object())
        else:
            candidates.extend(constraint.invalid())
    return [v for v in candidates if not any(is_satisfied(c, v) for c in constraints)]


@dataclass(frozen=True)
class AtLeastOne:
    """At least one of ``names`` is not None (``k`` or ``l``); ``why`` says what each gives."""

    names: tuple[str, ...]
    why: str = ""

    def check(self, values: dict) -> str | None:
        """A message when the rule fails, else None."""
        if all(values.get(name) is None for name in self.names):
            return f"give {' or '.join(self.names)}{' (' + self.why + ')' if self.why else ''}"
        return None


@dataclass(frozen=True)
class ExactlyOne:
    """Exactly one of ``names`` is not None (``cut`` or ``level``); ``why`` says what each gives."""

    names: tuple[str, ...]
    why: str = ""

    def check(self, values: dict) -> str | None:
        """A message when the rule fails, else None."""
        if sum(values.get(name) is not None for name in self.names) != 1:
            return f"give exactly one of {', '.join(self.names)}{' (' + self.why + ')' if self.why else ''}"
        return None


@dataclass(frozen=True)
class NotGreater:
    """``low <= high`` when both are given (``min_segment <= max_segment``, ``k <= l``)."""

    low: str
    high: str
    why: str = ""

    def check(self, values: dict) -> str | None:
        """A message when the rule fails, else None."""
        low, high = values.get(self.low), values.get(self.high)
        if low is not None and high is not None and low > high:
            return f"{self.low}={low} cannot exceed {self.high}={high}{'; ' + self.why if self.why else ''}"
        return None


@dataclass(frozen=True)
class OnlyWith:
    """``name`` may be given (not None) only when ``other`` is ``value`` (or, with ``value=None``, given)."""

    name: str
    other: str
    value: Any = None

    def check(self, values: dict) -> str | None:
        """A message when the rule fails, else None."""
        if values.get(self.name) is None:
            return None
        other = values.get(self.other)
        if self.value is None and other is None:
            return f"{self.name} applies only with {self.other}; give {self.other} or drop {self.name}"
        if self.value is not None and other != self.value:
            return f"{self.name} applies to {self.other}={self.value!r} only, not {other!r}"
        return None


#: ``k``: a whole number >= 1 (at most the number of records is checked with the data:
#: :func:`graphanon.utils.validation.check_k`).
K = [Interval(Integral, 1, None)]
#: ``m``: a whole number >= 1, or None (unbounded).
M = [Interval(Integral, 1, None), None]
#: ``rng``: the structure randomness (:func:`graphanon.utils.randomness.check_random_state`).
RNG = ["random_state"]
#: The arguments every method takes: ``rng``, ``unsafe_secret_seed``, ``progress``.
COMMON = {
    "unsafe_secret_seed": [None, Interval(Integral, None, None)],
    "progress": [None, "callable"],
}
#: The marker of a keyword that is declared but not validated here (scikit-learn's ``"no_validation"``): the
#: function checks it itself (``priors`` by ``as_priors``) or it is an object of a library the layer may not
#: import (a Dask ``client``). ``tests/algorithms/test_declarations.py`` requires every keyword declared, marked or not.
NO_VALIDATION = "no_validation"
#: Words for the messages of the shared parameters.
MEANINGS = {
    "k": "a record hides among at least k",
    "m": "the largest itemset an attacker knows; None: unbounded",
}


def check_params(constraints: dict, values: dict, *, meanings: dict | None = None, rules=()) -> None:
    """Check ``values`` (name -> value) against declared ``constraints`` and ``rules``.

    Raises
    ------
    ParameterError
        The first parameter that meets none of its constraints (its name,
        what is allowed, the value), or the first failing rule.
    """
    meanings = meanings or {}
    for name, allowed in constraints.items():
        if name not in values or allowed == "no_validation":
            continue
        value = values[name]
        if not any(is_satisfied(c, value) for c in allowed):
            meaning = f" ({meanings[name]})" if name in meanings else ""
            raise ParameterError(f"{name} must be {describe(allowed)}{meaning}, got {value!r}")
    for rule in rules:
        message = rule.check(values)
        if message:
            raise ParameterError(message)


def validate_params(constraints: dict, *, meanings: dict | None = None, rules=()) -> Callable:
    """Decorator: check a function's arguments against its declared constraints on every call.

    Parameters
    ----------
    constraints : dict of str -> list
        Parameter name -> constraints (any one must hold), or
        :data:`NO_VALIDATION` for a keyword the function checks itself;
        parameters not listed are not checked here (a method declares every
        keyword: ``tests/algorithms/test_declarations.py``).
    meanings : dict of str -> str, optional
        A few words per parameter for the messages (``"the largest itemset
        an attacker knows"``).
    rules : sequence of AtLeastOne, NotGreater or OnlyWith
        Requirements between parameters.

    Returns
    -------
    callable
        The decorator; the decorated function keeps the declaration on
        ``_parameter_constraints`` (and ``_parameter_rules``,
        ``_parameter_meanings``).

    References
    ----------
    scikit-learn, ``sklearn/utils/_param_validation.py`` (the shape, not the code).
    """

    def decorate(func: Callable) -> Callable:
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{func.__qualname__} declares constraints for unknown parameters {sorted(unknown)}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            check_params(constraints, bound.arguments, meanings=meanings, rules=rules)
            return func(*args, **kwargs)

        wrapper._parameter_constraints = dict(constraints)  # type: ignore[attr-defined]
        wrapper._parameter_rules = tuple(rules)  # type: ignore[attr-defined]
        wrapper._parameter_meanings = dict(meanings or {})  # type: ignore[attr-defined]
        return wrapper

    return decorate


def expand_params(params: dict, known: set) -> dict:
    """Accept ``--param h=0.4,p=2,private=a,b`` as well as separate ``--param`` pairs.

    A value holding ``,name=`` for a known ``name`` is split into several
    parameters; other commas stay (they separate the items of a list).

    Examples
    --------
    >>> expand_params({"h": "0.4,p=2,private=a,b"}, {"h", "p", "private"})
    {'h': '0.4', 'p': '2', 'private': 'a,b'}
    """
    out: dict = {}
    for name, value in params.items():
        current = name
        parts: dict = {current: []}
        for tok in str(value).split(","):
            key, sep, rest = tok.partition("=")
            if sep and key.strip() in known:
                current = key.strip()
                parts[current] = [rest]
            else:
                parts[current].append(tok)
        for key, toks in parts.items():
            out[key] = ",".join(toks)
    return out
