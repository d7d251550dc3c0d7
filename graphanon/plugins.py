"""Methods of other installed packages: a declaration derived from a function, found by its entry point.

A package makes its method a graphanon method with no edit of graphanon: it
declares it (a :class:`~graphanon.algorithms.declaration.MethodDeclaration`,
here derived from the function by :func:`declare_method`) and names that
declaration by an entry point in its ``pyproject.toml``::

    [project.entry-points."graphanon.methods"]
    minsupp = "my_package.minsupp:MINSUPP"

The entry point's name is the method's name (``graphanon anonymize -a
minsupp``) and must be the declaration's. The method then appears wherever a
built-in one does: :func:`graphanon.algorithms.registry.run_method`,
``graphanon algorithms``, ``anonymize -a``, ``compare -a`` (each release
audited by its declared model), ``bench``, :func:`graphanon.testing.check_method`.

The method registry (:mod:`graphanon.algorithms.registry`) reads the entry
points lazily: on the first lookup of a name no built-in method has, and on
the first listing. An entry point that cannot be loaded, whose value is not
a declaration of its name, or that takes a built-in name gives one
:class:`~graphanon.errors.PluginWarning` naming it and is left out; it never
stops the other methods.

Examples
--------
>>> from graphanon.plugins import declare_method
>>> from graphanon.algorithms.registry import get_method
>>> declared = declare_method(get_method("mm"), audit_model="km", published=("k", "m"), name="my_mm")
>>> declared.name, declared.privacy_model, sorted(declared.published), declared.options
('my_mm', 'km', ['k', 'm'], ('k', 'm'))
>>> [p.name for p in declared.params]
['h', 'private_items']
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from graphanon.algorithms.declaration import MethodDeclaration, Parameter, parse_bool
from graphanon.errors import ParameterError
from graphanon.privacy.registry import model_names
from graphanon.release.base import GENERIC_PUBLISHED_PARAMS
from graphanon.utils.labels import parse_name_list

__all__ = ["declare_method"]

#: Arguments filled from the general options (or never exposed), not ``--param`` options.
_GENERAL_ARGUMENTS = frozenset({"data", "k", "m", "taxonomy", "rng", "unsafe_secret_seed", "progress", "client",
                                "priors"})
#: Function argument -> the general option that feeds it.
_OPTIONS = (("k", "k"), ("m", "m"), ("taxonomy", "taxonomy"), ("rng", "seed"))


def _check_signature(function: Callable) -> None:
    """Raise ``TypeError`` unless ``function`` is ``f(data, *, ...)`` with defaults for all but the general options."""
    parameters = list(inspect.signature(function).parameters.values())
    if not parameters or parameters[0].kind not in (parameters[0].POSITIONAL_ONLY, parameters[0].POSITIONAL_OR_KEYWORD):
        raise TypeError(f"{function.__qualname__} must take the data as its first positional argument")
    loose = [p.name for p in parameters[1:] if p.kind is not p.KEYWORD_ONLY]
    if loose:
        raise TypeError(f"{function.__qualname__}: arguments after the data must be keyword-only ({', '.join(loose)})")
    required = [p.name for p in parameters[1:] if p.name not in _GENERAL_ARGUMENTS and p.default is p.empty]
    if required:
        raise TypeError(f"{function.__qualname__}: the command line cannot give arguments without a default "
                        f"({', '.join(required)})")


def _keep_defaults(declaration: MethodDeclaration, data, opts, values: dict, kwargs: dict) -> dict:
    """Drop ``k``, ``m``, ``taxonomy``, ``rng`` left unset where the function has a default (the default holds).

    ``-m inf`` (given, ``m`` None) is kept: it says "unbounded".
    """
    signature = inspect.signature(declaration.function).parameters
    for argument, option in _OPTIONS:
        if (argument in kwargs and kwargs[argument] is None and not opts.is_given(option)
                and signature[argument].default is not inspect.Parameter.empty):
            del kwargs[argument]
    return kwargs


def _text_type(default: Any) -> Callable:
    if isinstance(default, bool):
        return parse_bool
    if isinstance(default, (int, float)):
        return type(default)
    if isinstance(default, (tuple, list, frozenset, set)):
        return parse_name_list
    return str


def _help(function: Callable, arg: str) -> str:
    """The first line of ``arg``'s entry in the docstring's Parameters section (numpydoc)."""
    doc = inspect.getdoc(function) or ""
    found = re.search(rf"^{re.escape(arg)}\b[^\n]*\n[ \t]+(\S[^\n]*)", doc, flags=re.M)
    return found.group(1).strip() if found else f"argument {arg} of {function.__qualname__}"


def declare_method(function: Callable, *, audit_model: str, audit_params: tuple[str, ...] = (),
                   published: tuple[str, ...] | None = None, summary: str = "",
                   name: str | None = None) -> MethodDeclaration:
    """The declaration of a method of another package, derived from its function's signature.

    ``k``, ``m``, ``taxonomy`` and ``rng`` become the general options ``-k``,
    ``-m``, ``--taxonomy`` (required when the argument has no default) and
    ``--seed``; every other keyword argument with a default becomes a
    :class:`~graphanon.algorithms.declaration.Parameter` (``--param``; its
    type from the default, its help from the docstring's Parameters
    section), checked by the function's declared constraints
    (``@validate_params``) before a run.

    Parameters
    ----------
    function : callable
        The method's ``anonymize_*(data, *, ...)`` function: keyword-only
        arguments after the data, each with a default but ``k``, ``m``,
        ``taxonomy``, ``rng``.
    audit_model : str
        The audit model that checks its releases (a name of
        :func:`graphanon.privacy.registry.model_names`, or ``dp``).
    audit_params : tuple of str
        Arguments of ``function`` (keywords with a default) that also
        configure the audit model.
    published : tuple of str, optional
        The parameter fields its releases may publish (None: the generic
        list ``k``, ``m``, ``l``, ``n_suppressed_nodes``, ``audit``).
    summary : str
        One line for ``graphanon algorithms`` (default: the docstring's first line).
    name : str, optional
        The method's name (default: the function's name without ``anonymize_``);
        the entry point must have the same name.

    Returns
    -------
    MethodDeclaration
        Of family ``plugin``; point a ``graphanon.methods`` entry point at it.

    Raises
    ------
    ParameterError
        When ``audit_model`` is unknown or ``audit_params`` names an argument
        that is no keyword with a default of ``function``.
    TypeError
        When the signature is not ``f(data, *, ...)`` with defaults.

    Notes
    -----
    Complexity: reads the signature and docstring once.

    Examples
    --------
    >>> from graphanon.algorithms.registry import get_method
    >>> declare_method(get_method("aa"), audit_model="km", audit_params=("l",))
    Traceback (most recent call last):
    ...
    graphanon.errors.ParameterError: audit_params: anonymize_aa takes no argument 'l'
    """
    _check_signature(function)
    models = set(model_names()) | {"dp"}
    if audit_model not in models:
        raise ParameterError(f"unknown audit model {audit_model!r} (known: {', '.join(sorted(models))})")
    signature = inspect.signature(function).parameters
    empty = inspect.Parameter.empty
    params = tuple(Parameter(arg, _text_type(p.default), p.default, _help(function, arg))
                   for arg, p in signature.items()
                   if arg not in _GENERAL_ARGUMENTS and p.kind is p.KEYWORD_ONLY and p.default is not empty)
    for arg in audit_params:
        if arg not in signature:
            raise ParameterError(f"audit_params: {function.__name__} takes no argument {arg!r}")
        if arg not in {p.name for p in params}:
            raise ParameterError(f"audit_params: {arg!r} of {function.__name__} is no keyword argument with a "
                                 "default (-k and -m reach the audit by themselves)")
    doc = (inspect.getdoc(function) or "").strip()
    line = summary or (doc.splitlines()[0] if doc else function.__name__)
    return MethodDeclaration(
        name=name or function.__name__.removeprefix("anonymize_"), family="plugin",
        summary=f"{line} (plugin {function.__module__})", function=function, privacy_model=audit_model,
        params=params, audit_params=tuple(audit_params),
        published=GENERIC_PUBLISHED_PARAMS if published is None else frozenset(published),
        needs_taxonomy="taxonomy" in signature and signature["taxonomy"].default is empty,
        needs_k="k" in signature and signature["k"].default is empty,
        options=tuple(option for argument, option in _OPTIONS if argument in signature),
        prepare=_keep_defaults,
    )
