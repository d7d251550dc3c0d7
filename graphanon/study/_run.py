"""The one place the study calls the method registry.

The study sits below the command line, so it runs a method through the
Python-level table :mod:`graphanon.algorithms.registry` (``anonymize_*``
functions by name) and reads what a method takes from the function itself:
its keyword arguments and their declared constraints
(:func:`graphanon.utils.params.validate_params`). The audit model that
checks a method's releases comes from
:data:`graphanon.algorithms.registry.AUDITED_BY`. Parameters are the
function's argument names (``private_items``, not the CLI's ``private``);
their values are texts, converted here by the declared constraints.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

from graphanon.algorithms.registry import AUDITED_BY, get_method
from graphanon.errors import ParameterError
from graphanon.taxonomy.categories import parse_categories
from graphanon.taxonomy.constraint_sets import parse_fraction, parse_privacy, parse_utility
from graphanon.taxonomy.tree import ItemGroups
from graphanon.utils.params import Interval, StrOptions

__all__ = ["MethodDeclaration", "method_declarations", "run_method"]

#: Keyword arguments that are no study parameters: the general options and the plumbing.
_GENERAL = {"data", "k", "m", "taxonomy", "rng", "unsafe_secret_seed", "progress", "client", "priors"}
#: Arguments whose text is a comma-separated list of item or node names.
_NAME_LISTS = {"private_items", "cut", "suppress"}
#: Texts of required policy arguments derived from the run's ``m`` when not given, as the command line
#: derives them: COAT's privacy constraints are the k^m ones (``pgen`` without ``m``), its utility ``all``.
_POLICY_DEFAULTS = {"privacy": lambda m: "pgen" if m is None else f"km:{m}", "utility": lambda m: "all"}


@dataclass(frozen=True)
class MethodDeclaration:
    """What a method declares it takes, as the study needs it.

    Attributes
    ----------
    name : str
        The method's name (``-a NAME``).
    options : frozenset of str
        The general options it reads, among ``k``, ``m``, ``taxonomy``, ``seed``
        (``k`` and ``m`` also when they only configure its k^m audit, as for ``cut``).
    params : tuple of str
        Its method-specific parameter names (its function's keyword arguments).
    audit_params : tuple of str
        The parameters that also configure its audit model.
    privacy_model : str
        The audit model that checks its releases.
    needs_taxonomy : bool
        Whether it cannot run without a taxonomy.
    """

    name: str
    options: frozenset
    params: tuple
    audit_params: tuple
    privacy_model: str
    needs_taxonomy: bool


def method_declarations(name: str) -> MethodDeclaration:
    """The declarations of method ``name`` (:class:`~graphanon.errors.ParameterError` when unknown).

    Parameters
    ----------
    name : str
        A registered method name.

    Returns
    -------
    MethodDeclaration

    Examples
    --------
    >>> d = method_declarations("partition")
    >>> "m" in d.options, d.privacy_model
    (False, 'transactional')
    >>> method_declarations("mm").params
    ('h', 'private_items')
    """
    function = get_method(name)
    if name not in AUDITED_BY:
        raise ParameterError(f"method {name!r} names no audit model (register_method(..., audit_model=...))")
    model, audit_params = AUDITED_BY[name]
    arguments = inspect.signature(function).parameters
    options = {opt for opt in ("k", "m", "taxonomy") if opt in arguments}
    if "rng" in arguments:
        options.add("seed")
    if model == "km":  # a method without k (a given cut) is still audited for k^m
        options |= {"k", "m"}
    if "privacy" in arguments:  # m sets the k^m privacy constraints when none are given
        options.add("m")
    taxonomy = arguments.get("taxonomy")
    return MethodDeclaration(
        name=name,
        options=frozenset(options),
        params=tuple(arg for arg in arguments if arg not in _GENERAL),
        audit_params=tuple(audit_params),
        privacy_model=model,
        needs_taxonomy=taxonomy is not None and taxonomy.default is inspect.Parameter.empty,
    )


def _convert(name: str, text: str, constraints: list, data, taxonomy, k) -> Any:
    """The value of argument ``name`` given as ``text``, read by its declared ``constraints``."""
    if name == "privacy":
        return parse_privacy(text, data, k)
    if name == "utility":
        return parse_utility(text, data, taxonomy)
    if name in _NAME_LISTS:
        return [part.strip() for part in text.split(",") if part.strip()]
    for constraint in constraints:
        if constraint is None and text.strip().lower() == "none":
            return None
        if constraint is ItemGroups:
            return parse_categories(text, data, taxonomy)
        if isinstance(constraint, StrOptions) and text in constraint.options:
            return text
        if isinstance(constraint, Interval):
            try:
                if constraint.type is Integral:
                    return int(text)
                if constraint.type is Real:
                    return parse_fraction(text)
            except ValueError:
                continue
    return text  # the function's own validation names what it expected


def run_method(name: str, data, *, k=None, m=None, taxonomy=None, seed=None, params=None, progress=None):
    """Run method ``name`` on ``data`` through the registry and return its release.

    Options left at None are not given (the method's defaults apply); ``k``
    and ``m`` go to the method when it takes them (a given cut's are its
    audit's only), ``seed`` becomes ``rng``. Parameters are converted from
    text by the function's declared constraints and checked by them
    (:class:`~graphanon.errors.ParameterError`), never ignored.

    Parameters
    ----------
    name : str
        A registered method name.
    data : TransactionData
        The records.
    k, m : int or None
        Privacy parameters (``m=None``: not given).
    taxonomy : Taxonomy or None
        The item hierarchy (for methods that need one).
    seed : int or None
        Structure seed (only for methods that declare ``seed``).
    params : dict of str -> str, optional
        Method-specific parameters as text (``{"l": "3"}``).
    progress : callable, optional
        ``progress(done, total, message)``.

    Returns
    -------
    Release
        With its in-memory private link (``release.link``).

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> rel = run_method("nr", load("nr_table1"), k=2, seed=0)
    >>> rel.kind
    'nonreciprocal'
    """
    function = get_method(name)
    decl = method_declarations(name)
    arguments = inspect.signature(function).parameters
    constraints = getattr(function, "_parameter_constraints", {})
    given = dict(params or {})
    unknown = sorted(set(given) - set(decl.params))
    if unknown:
        raise ParameterError(f"{name} takes no parameter {', '.join(unknown)}; it takes: "
                             f"{', '.join(decl.params) or 'none'}")
    for option, value in (("k", k), ("m", m), ("taxonomy", taxonomy), ("seed", seed)):
        if value is not None and option not in decl.options:
            raise ParameterError(f"{name} does not use {option}; drop it")
    for arg, derive in _POLICY_DEFAULTS.items():
        if arg in arguments and arg not in given:
            given[arg] = derive(m)
    kwargs: dict[str, Any] = {arg: _convert(arg, str(text), list(constraints.get(arg, ())), data, taxonomy, k)
                              for arg, text in given.items()}
    for option, value in (("k", k), ("m", m), ("taxonomy", taxonomy), ("rng", seed)):
        if option in arguments and value is not None:
            kwargs[option] = value
    if "progress" in arguments:
        kwargs["progress"] = progress
    return function(data, **kwargs)
