"""Methods of other installed packages, found by their entry points (group ``graphanon.methods``).

A package makes its method a graphanon method with no edit of graphanon: it
declares an entry point in its ``pyproject.toml``::

    [project.entry-points."graphanon.methods"]
    minsupp = "my_package.minsupp:MINSUPP"

The entry point's name is the method's name (``graphanon anonymize -a
minsupp``); its value is a :class:`MethodPlugin` (made by
:func:`declare_method`) or an ``anonymize_*`` function carrying an
``audit_model`` attribute (and optionally ``audit_params``,
``published_params``). The method then appears wherever a built-in one does:
:func:`graphanon.algorithms.registry.run_method`, ``graphanon algorithms``,
``anonymize -a``, ``compare -a`` (each release audited by its declared
model, with the ``k`` and ``m`` the release states), ``bench`` (which audits
with the ``-k`` / ``-m`` given).

The registries load the plugins lazily (:data:`graphanon.utils.registry.PLUGIN_LOADERS`):
on the first lookup of a name no built-in method has, and on the first
listing. A plugin that cannot be loaded or declares something wrong gives one
:class:`~graphanon.errors.PluginWarning` naming its entry point and is left
out; it never stops the other methods.

The command line's view of a plugin (its ``--param`` options, the general
options it reads) is derived from the function's signature by
:func:`plugin_spec`.

Examples
--------
>>> from graphanon.plugins import declare_method
>>> from graphanon.algorithms.registry import get_method
>>> plugin = declare_method(get_method("mm"), audit_model="km", published=("k", "m"))
>>> plugin.audit_model, plugin.published
('km', ('k', 'm'))
"""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

import graphanon.release.base as _release_base
from graphanon.algorithms.registry import METHODS, register_method
from graphanon.errors import ParameterError, PluginWarning
from graphanon.privacy.registry import model_names

__all__ = ["ENTRY_POINT_GROUP", "MethodPlugin", "declare_method", "installed_methods", "load_plugins",
           "plugin_spec"]

#: The entry-point group a package registers its methods in.
ENTRY_POINT_GROUP = "graphanon.methods"

#: Arguments the command line fills from its general options (or never exposes), not ``--param`` options.
_GENERAL_ARGUMENTS = frozenset({"data", "k", "m", "taxonomy", "rng", "unsafe_secret_seed", "progress", "client",
                                "priors"})


@dataclass(frozen=True)
class MethodPlugin:
    """What a method of another package declares: its function and how its releases are audited.

    Attributes
    ----------
    function : callable
        ``anonymize_<method>(data, *, k, ..., rng=None, unsafe_secret_seed=None, progress=None) -> Release``.
    audit_model : str
        The audit model that checks its releases (a name of
        :func:`graphanon.privacy.registry.model_names`: ``km``, ``transactional``, ...).
    audit_params : tuple of str
        The function's arguments that also configure that model.
    published : tuple of str or None
        The parameter fields its release may publish (the allowlist of
        :data:`graphanon.release.PUBLISHED_PARAMS`); None: the generic list
        (``k``, ``m``, ``l``, ``n_suppressed_nodes``, ``audit``).
    summary : str
        One line for ``graphanon algorithms`` (default: the docstring's first line).
    """

    function: Callable
    audit_model: str
    audit_params: tuple[str, ...] = ()
    published: tuple[str, ...] | None = None
    summary: str = ""


def declare_method(function: Callable, *, audit_model: str, audit_params: tuple[str, ...] = (),
                   published: tuple[str, ...] | None = None, summary: str = "") -> MethodPlugin:
    """The declaration a package points its ``graphanon.methods`` entry point at.

    Parameters
    ----------
    function : callable
        The method's ``anonymize_*`` function.
    audit_model : str
        The audit model that checks its releases.
    audit_params : tuple of str
        Arguments of ``function`` that also configure the audit model.
    published : tuple of str, optional
        The parameter fields its releases may publish (None: the generic list).
    summary : str
        One line for ``graphanon algorithms``.

    Returns
    -------
    MethodPlugin

    Raises
    ------
    ParameterError
        When ``audit_params`` names an argument ``function`` does not take.

    Examples
    --------
    >>> from graphanon.algorithms.registry import get_method
    >>> declare_method(get_method("aa"), audit_model="km", audit_params=("l",))
    Traceback (most recent call last):
    ...
    graphanon.errors.ParameterError: audit_params: anonymize_aa takes no argument 'l'
    """
    taken = inspect.signature(function).parameters
    for arg in audit_params:
        if arg not in taken:
            raise ParameterError(f"audit_params: {function.__name__} takes no argument {arg!r}")
    return MethodPlugin(function, audit_model, tuple(audit_params), None if published is None else tuple(published),
                        summary)


def _as_plugin(value: Any) -> MethodPlugin:
    if isinstance(value, MethodPlugin):
        return value
    if callable(value) and isinstance(getattr(value, "audit_model", None), str):
        published = getattr(value, "published_params", None)
        return declare_method(value, audit_model=value.audit_model, audit_params=tuple(getattr(value, "audit_params",
                                                                                               ())),
                              published=None if published is None else tuple(published))
    raise TypeError("expected a graphanon.plugins.MethodPlugin (declare_method) or a function with an "
                    "audit_model attribute")


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


def _warn(entry_point, why: str) -> None:
    """One line naming the entry point (no source line: the warning is about the plugin, not this code)."""
    warnings.warn_explicit(f"{ENTRY_POINT_GROUP} entry point {entry_point.name!r} ({entry_point.value}): {why}; "
                           "skipped", PluginWarning, filename="graphanon.plugins", lineno=0)


_INSTALLED: dict[str, MethodPlugin] | None = None


def installed_methods(*, refresh: bool = False) -> dict[str, MethodPlugin]:
    """Every installed method plugin by name (each entry point loaded once per process).

    Parameters
    ----------
    refresh : bool
        Read the entry points again (after installing a package in this process).

    Returns
    -------
    dict of str -> MethodPlugin
        The plugins that loaded; a broken one gives one
        :class:`~graphanon.errors.PluginWarning` naming it and is left out, and
        so is one whose name a built-in method has.

    Notes
    -----
    Complexity: one import per plugin package, on first use.
    """
    global _INSTALLED
    if _INSTALLED is not None and not refresh:
        return _INSTALLED
    found: dict[str, MethodPlugin] = {}
    declared = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    models = (set(model_names()) | {"dp"}) if declared else set()  # importing every audit model: only for plugins
    for entry_point in declared:
        if entry_point.name in METHODS.builtin or entry_point.name in found:
            _warn(entry_point, f"the method name {entry_point.name!r} is taken")
            continue
        try:
            plugin = _as_plugin(entry_point.load())
            _check_signature(plugin.function)
        except Exception as exc:  # noqa: BLE001 -- any failure of a foreign package is one warning, not a crash
            _warn(entry_point, f"{type(exc).__name__}: {exc}")
            continue
        if plugin.audit_model not in models:
            _warn(entry_point, f"unknown audit model {plugin.audit_model!r} (known: {', '.join(sorted(models))})")
            continue
        found[entry_point.name] = plugin
    _INSTALLED = found
    return found


def load_plugins(registry) -> None:
    """Register every installed method plugin in ``registry`` (called by the registries, once each).

    The Python table (:data:`graphanon.algorithms.registry.METHODS`) gets the
    function, its audit model and its published-parameter allowlist; the
    command line's table (``graphanon.cli.registry``) gets the spec
    :func:`plugin_spec` derives.

    Parameters
    ----------
    registry : graphanon.utils.registry.LazyRegistry
        The registry asking.
    """
    plugins = installed_methods()
    for name, plugin in plugins.items():
        if name not in METHODS:
            register_method(name, plugin.function, audit_model=plugin.audit_model, audit_params=plugin.audit_params)
        if plugin.published is not None:
            _release_base.PUBLISHED_PARAMS.setdefault(name, frozenset(plugin.published))
    if registry is METHODS:
        return
    for name, plugin in plugins.items():
        if name not in registry:
            registry.register(name, plugin_spec(name, plugin))


def _text_type(default: Any) -> Callable:
    from graphanon.cli.registry import parse_bool, parse_name_list

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


def plugin_spec(name: str, plugin: MethodPlugin):
    """The command line's spec of a plugin method, derived from its function's signature.

    ``k``, ``m``, ``taxonomy`` and ``rng`` become ``-k``, ``-m``,
    ``--taxonomy`` (required when the argument has no default) and
    ``--seed``; every other keyword argument with a default becomes a
    ``--param`` (its type from the default, its help from the docstring), and
    a given text is checked by the function's declared constraints
    (``@validate_params``) before the run.

    Parameters
    ----------
    name : str
        The method's name.
    plugin : MethodPlugin
        Its declaration.

    Returns
    -------
    graphanon.cli.registry.AlgorithmSpec
    """
    from graphanon.cli.registry import AlgorithmSpec, Param, RunOptions

    signature = inspect.signature(plugin.function).parameters
    empty = inspect.Parameter.empty
    options = tuple(option for option, arg in (("k", "k"), ("m", "m"), ("taxonomy", "taxonomy"), ("seed", "rng"))
                    if arg in signature)
    params = tuple(Param(arg, _text_type(p.default), p.default, _help(plugin.function, arg))
                   for arg, p in signature.items()
                   if arg not in _GENERAL_ARGUMENTS and p.kind is p.KEYWORD_ONLY and p.default is not empty)
    def run(data, opts: RunOptions):
        values = opts.values(params)
        kwargs: dict[str, Any] = {p.name: values[p.name] for p in params if p.name in opts.params}
        if "k" in signature and (signature["k"].default is empty or opts.k is not None):
            kwargs["k"] = opts.required_k(name)
        if "m" in signature and (opts.m is not None or opts.is_given("m")):
            kwargs["m"] = opts.m
        if "taxonomy" in signature and opts.taxonomy is not None:
            kwargs["taxonomy"] = opts.taxonomy
        if "rng" in signature and opts.seed is not None:
            kwargs["rng"] = opts.seed
        for arg, value in (("unsafe_secret_seed", opts.unsafe_secret_seed), ("progress", opts.progress)):
            if arg in signature:
                kwargs[arg] = value
        return plugin.function(data, **kwargs)

    doc = (inspect.getdoc(plugin.function) or "").strip()
    summary = plugin.summary or (doc.splitlines()[0] if doc else name)
    return AlgorithmSpec(name=name, summary=f"{summary} (plugin {plugin.function.__module__})", adapter=run,
                         privacy_model=plugin.audit_model,
                         needs_taxonomy="taxonomy" in signature and signature["taxonomy"].default is empty,
                         params=params, audit_params=tuple(a for a in plugin.audit_params if a in {p.name for p in
                                                                                                  params}),
                         options=options)
