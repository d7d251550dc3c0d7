"""Declared text parameters: the one ``--param`` text-to-value parser (bottom layer).

Methods (:class:`graphanon.algorithms.declaration.MethodDeclaration`) and
audit models (:class:`graphanon.privacy.declaration.ModelDeclaration`) declare
their ``--param`` parameters as :class:`Parameter` objects; :func:`parse_texts`
turns the texts typed on a command line into Python values for both, so an
unknown name or a wrong value gets the same one-line message on every door
(issue 31).

Examples
--------
>>> params = (Parameter("h", float, 1.0, "confidence"), Parameter("private", str, None, "items"))
>>> parse_texts(params, {"h": "0.5,private=a,b"}, owner="model 'x'", combined=True)
{'h': 0.5, 'private': 'a,b'}
>>> parse_texts(params, {"q": "1"}, owner="model 'x'")
Traceback (most recent call last):
...
graphanon.errors.ParameterError: unknown --param q for model 'x'; it takes: h, private
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphanon.errors import ParameterError
from graphanon.utils.params import expand_params

__all__ = ["Parameter", "parse_bool", "parse_texts", "parse_true_false"]

#: What a text converted by ``int`` or ``float`` must be, for the one-line error.
_PLAIN: dict = {int: "not a whole number", float: "not a number"}


def parse_bool(text: str) -> bool:
    """``true/yes/1/on`` or ``false/no/0/off`` (any case) as a bool.

    Examples
    --------
    >>> parse_bool("True"), parse_bool("off")
    (True, False)
    """
    value = text.strip().lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise ValueError("expected true or false")


def parse_true_false(text: str) -> bool:
    """``true`` or ``false`` (any case): the function declares a bool, and the text must say which.

    Examples
    --------
    >>> parse_true_false("TRUE")
    True
    """
    value = text.strip().lower()
    if value not in ("true", "false"):
        raise ValueError("expected true or false")
    return value == "true"


@dataclass(frozen=True)
class Parameter:
    """One text parameter of a method (``--param name=value``), declared once.

    Parameters
    ----------
    name : str
        The name after ``--param`` (and in a study's ``params``).
    type : callable(str) -> value
        Converts the text (``int``, ``float``, :func:`parse_bool`,
        :func:`parse_name_list`, ``str`` ...); a ``ValueError`` or
        ``TypeError`` becomes a :class:`ParameterError` naming the parameter.
    default : object
        The value when the parameter is not given (None: the method's default).
    help : str
        One line for ``graphanon algorithms``.
    choices : tuple of str, optional
        The allowed texts (checked before ``type``) of a parameter the
        method's ``prepare`` hook translates; one that feeds a declared
        argument takes its choices from the function's constraints
        (:meth:`MethodDeclaration.choices_of`).
    argument : str or None
        The function argument this parameter feeds as converted (default:
        the same name); None when the ``prepare`` hook translates it
        (``categories=random:3`` becomes an ``ItemGroups``). The converted
        value is checked against that argument's declared constraints.

    Examples
    --------
    >>> Parameter("l", int, None, "l-diversity").parse("3")
    3
    >>> Parameter("order", str, "gray-tsp", "record order", choices=("gray", "gray-tsp")).parse("tsp")
    Traceback (most recent call last):
    ...
    graphanon.errors.ParameterError: --param order='tsp': expected one of gray, gray-tsp
    """

    name: str
    type: Callable = str
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] | None = None
    argument: str | None = ""

    @property
    def target(self) -> str | None:
        """The function argument fed (``argument``, or ``name`` when not set)."""
        return self.name if self.argument == "" else self.argument

    def parse(self, text: str):
        """``text`` converted by ``type`` (``choices`` checked first)."""
        if self.choices is not None and text not in self.choices:
            raise ParameterError(f"--param {self.name}={text!r}: expected one of {', '.join(self.choices)}")
        try:
            return self.type(text)
        except (TypeError, ValueError) as exc:
            why = _PLAIN.get(self.type, str(exc))  # Python's "invalid literal for int()" says less than this
            raise ParameterError(f"--param {self.name}={text!r}: {why}") from None

    def describe(self) -> dict:
        """JSON-safe description (name, type, default, help, choices) for listings."""
        default = self.default
        if not (default is None or isinstance(default, (bool, int, float, str))):
            default = list(default) if isinstance(default, (tuple, list)) else repr(default)
        return {"name": self.name, "type": self.type_name, "default": default, "help": self.help,
                "choices": None if self.choices is None else list(self.choices)}

    @property
    def type_name(self) -> str:
        """Short name of the value type, for listings."""
        name = getattr(self.type, "__name__", "value")
        return {"str": "text", "float": "number", "parse_name_list": "list", "parse_bool": "bool",
                "parse_true_false": "bool"}.get(name, name.removeprefix("parse_"))



def parse_texts(params: tuple[Parameter, ...], raw: dict[str, str], *, owner: str, combined: bool = False,
                parse: Callable[[Parameter, str], Any] | None = None) -> dict[str, Any]:
    """The ``--param`` texts ``raw`` as values of the declared ``params``: the one text-to-value parser.

    Parameters
    ----------
    params : tuple of Parameter
        The declared parameters.
    raw : dict of str -> str
        ``--param name=value`` pairs as typed.
    owner : str
        What takes them, for the message of an unknown name (``"algorithm 'mm'"``,
        ``"audit model 'hkp'"``).
    combined : bool
        One ``--param`` may hold several declared parameters (``h=0.5,private=a,b``;
        :func:`graphanon.utils.params.expand_params`).
    parse : callable(Parameter, str), optional
        Converts one text (default :meth:`Parameter.parse`; a method adds its
        function's constraints).

    Returns
    -------
    dict
        Every declared parameter by name: the converted text, or its ``default`` when not given.

    Notes
    -----
    Complexity: O(number of parameters + length of the texts).

    Examples
    --------
    >>> parse_texts((Parameter("l", int, None, "l"),), {}, owner="model 'ldiversity'")
    {'l': None}
    """
    known = {p.name: p for p in params}
    if combined:
        raw = expand_params(raw, set(known))
    extra = sorted(set(raw) - set(known))
    if extra:
        raise ParameterError(f"unknown --param {', '.join(extra)} for {owner}; it takes: "
                             f"{', '.join(sorted(known)) or 'none'}")
    convert = parse or (lambda p, text: p.parse(text))
    return {name: (convert(p, raw[name]) if name in raw else p.default) for name, p in known.items()}
