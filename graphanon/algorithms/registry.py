"""The anonymizers by name: every table derived from the methods' declarations.

Each method declares itself once, beside its function, with a
:class:`~graphanon.algorithms.declaration.MethodDeclaration`; each family
names its declarations in its ``METHOD_DECLARATIONS`` index (name ->
``"module:ATTRIBUTE"``), so looking a method up imports only its family
index and its own module. A method in another installed package joins by an
entry point in the group ``graphanon.methods`` (name = the method's name,
value = ``"module:DECLARATION"``, a :class:`MethodDeclaration` of that name,
such as :func:`graphanon.plugins.declare_method` derives from a function) or
by :func:`register_method`. The entry points are read only when a name no
built-in method has is looked up, or the methods are listed; a broken one
(its module fails to import, its value is no declaration of that name, or
the name is a built-in method's) is one
:class:`~graphanon.errors.PluginWarning` naming it, and is left out.

The tables other code reads are views of the declarations, never kept by
hand: :data:`METHODS` (name -> function), :data:`AUDITED_BY` (name ->
audit model and the parameters that configure it), :data:`PUBLISHED_PARAMS`
(name -> the release fields it may publish) and :data:`PRIOR_METHODS` (name ->
how it composes with priors).

Examples
--------
>>> from graphanon.algorithms.registry import AUDITED_BY, get_method, run_method
>>> from graphanon.datasets import load
>>> get_method("nr").__name__
'anonymize_nonreciprocal'
>>> AUDITED_BY["cahd"]
('ldiversity', ('l', 'diversity', 'c'))
>>> release = run_method("nr", load("nr_table1"), k=2, order="gray", rng=3)
>>> release.algorithm
'nr'
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator, Mapping
from importlib.metadata import entry_points
from typing import Any

from graphanon.algorithms.declaration import MethodDeclaration, RunOptions
from graphanon.errors import ParameterError, PluginWarning
from graphanon.utils.registry import LazyRegistry

__all__ = [
    "AUDITED_BY",
    "METHODS",
    "PRIOR_METHODS",
    "PUBLISHED_PARAMS",
    "declarations",
    "get_declaration",
    "get_method",
    "method_names",
    "register_method",
    "run_declared",
    "run_method",
]

#: The method families: each module or package holds a ``METHOD_DECLARATIONS`` index.
FAMILIES = ("graphanon.algorithms.hierarchy", "graphanon.algorithms.coat", "graphanon.algorithms.nonreciprocal",
            "graphanon.algorithms.grouping", "graphanon.algorithms.swapping", "graphanon.algorithms.dp",
            "graphanon.algorithms.relational")
#: The entry-point group of methods in other packages.
ENTRY_POINT_GROUP = "graphanon.methods"

_REGISTRY: LazyRegistry | None = None


def _skip(point, why: str) -> None:
    """One warning line naming the entry point (no source line: it is about the other package, not this code)."""
    warnings.warn_explicit(f"{ENTRY_POINT_GROUP} entry point {point.name!r} ({point.value}): {why}; skipped",
                           PluginWarning, filename=ENTRY_POINT_GROUP, lineno=0)


def _load_entry_points(registry: LazyRegistry) -> None:
    """Register the declarations of the entry points of :data:`ENTRY_POINT_GROUP` (the registry calls it once).

    Each entry point is loaded (its package imported); one that fails, whose
    value is not a :class:`MethodDeclaration` named as the entry point, or
    whose name a method already has, gives one :class:`PluginWarning` and is
    skipped: it never stops the other methods.

    Notes
    -----
    Complexity: one import per plugin package, once per process.
    """
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
        if point.name in registry.builtin or point.name in registry._values:
            _skip(point, f"the method name {point.name!r} is taken")
            continue
        try:
            declaration = point.load()
        except Exception as exc:  # noqa: BLE001 -- any failure of another package is one warning, not a crash
            _skip(point, f"{type(exc).__name__}: {' '.join(str(exc).split())}")
            continue
        if not isinstance(declaration, MethodDeclaration):
            _skip(point, f"expected a MethodDeclaration (graphanon.plugins.declare_method), got "
                         f"{type(declaration).__name__}")
        elif declaration.name != point.name:
            _skip(point, f"its declaration names the method {declaration.name!r}")
        else:
            registry.register(point.name, declaration)


def _declared() -> LazyRegistry:
    """The registry of declarations (built on first use from the family indexes; entry points when needed)."""
    global _REGISTRY
    if _REGISTRY is None:
        builtin: dict[str, str] = {}
        for family in FAMILIES:
            builtin.update(importlib.import_module(family).METHOD_DECLARATIONS)
        _REGISTRY = LazyRegistry("algorithm", builtin, more=_load_entry_points)
    return _REGISTRY


def get_declaration(name: str) -> MethodDeclaration:
    """The declaration of method ``name`` (``ParameterError`` for an unknown name, listing the known ones)."""
    declaration = _declared().get(name)
    if not isinstance(declaration, MethodDeclaration):
        raise TypeError(f"method {name!r} is registered as {declaration!r}, not a MethodDeclaration")
    if declaration.name != name:
        raise ValueError(f"method {name!r} is registered with the declaration of {declaration.name!r}")
    return declaration


def declarations() -> dict[str, MethodDeclaration]:
    """Every declaration by name, sorted (imports every method module)."""
    return {name: get_declaration(name) for name in _declared().names()}


def method_names() -> list[str]:
    """Every method name, sorted."""
    return _declared().names()


def register_method(declaration: MethodDeclaration | str, function: Callable | None = None, *,
                    audit_model: str | None = None, audit_params: tuple[str, ...] = ()) -> Any:
    """Add a method (its declaration); a taken name is refused.

    ``register_method(declaration)`` is the form to use. The older
    ``register_method(name, function, audit_model=...)`` still works: it
    declares a method with no text parameters that reads ``-k`` and ``-m``
    and publishes the generic fields.

    Returns the declaration (the new form) or the function (the old one).
    """
    if isinstance(declaration, MethodDeclaration):
        _declared().register(declaration.name, declaration)
        return declaration
    if function is None:
        raise TypeError("register_method(name, function): give the function, or a MethodDeclaration")
    made = MethodDeclaration(name=declaration, family="custom", summary=function.__doc__ or "",
                             function=function, privacy_model=audit_model or "km", audit_params=(),
                             published=frozenset({"k", "m", "l", "n_suppressed_nodes", "audit"}))
    if audit_params:
        raise ParameterError("register_method(name, function): audit_params need declared parameters; "
                             "register a MethodDeclaration")
    _declared().register(declaration, made)
    return function


def get_method(name: str) -> Callable:
    """The ``anonymize_*`` function of method ``name`` (``ParameterError`` for an unknown name)."""
    return get_declaration(name).function


def run_method(name: str, data, **options):
    """Run method ``name`` on ``data`` with the keyword arguments of its function.

    Parameters
    ----------
    name : str
        A method name (:func:`method_names`), as after ``graphanon anonymize -a``.
    data : TransactionData
        The records.
    **options
        The function's keyword arguments as Python values (``k=5``,
        ``taxonomy=tax``, ``order="gray"``, ``rng=3``); they are validated by
        the function's declared constraints (:mod:`graphanon.utils.params`).

    Returns
    -------
    Release
        What ``anonymize_<name>(data, **options)`` returns.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> run_method("aa", load("liuwang_fig1"), taxonomy=load_taxonomy("liuwang_fig1"), k=2, m=2).algorithm
    'aa'
    """
    return get_method(name)(data, **options)


def run_declared(name: str, data, opts: RunOptions):
    """Run method ``name`` by its declaration: what ``anonymize``, ``bench``, ``compare`` and the study call.

    Parameters
    ----------
    name : str
        A method name.
    data : TransactionData
        The records.
    opts : RunOptions
        The general options and the ``--param`` texts.

    Returns
    -------
    Release

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> run_declared("nr", load("nr_table1"), RunOptions(k=2, seed=3, params={"order": "gray"})).algorithm
    'nr'
    """
    declaration = get_declaration(name)
    declaration.check_options(opts)
    return declaration.run(data, opts)


class _View(Mapping):
    """A read-only table derived from the declarations (name -> ``value(declaration)``)."""

    def __init__(self, value: Callable[[MethodDeclaration], Any], keep: Callable[[MethodDeclaration], bool] = bool,
                 what: str = "") -> None:
        self._value = value
        self._keep = keep
        self.__doc__ = what

    def __getitem__(self, name: str) -> Any:
        if not isinstance(name, str) or name not in _declared():
            raise KeyError(name)
        declaration = get_declaration(name)
        if not self._keep(declaration):
            raise KeyError(name)
        return self._value(declaration)

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, d in declarations().items() if self._keep(d)])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(dict(self))


class _Functions(_View):
    """Name -> function, with the lookups of :class:`~graphanon.utils.registry.LazyRegistry`."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in _declared()

    def get(self, name: str, default: Any = None) -> Any:
        """The function of ``name`` (``ParameterError`` for an unknown name)."""
        return get_method(name)

    def names(self) -> list[str]:
        """Every method name, sorted."""
        return method_names()

    def items(self) -> dict[str, Callable]:  # type: ignore[override]
        """Every name -> function, sorted by name."""
        return {name: d.function for name, d in declarations().items()}

    def register(self, name: str, function: Callable) -> Callable:
        """The older registration of a bare function (see :func:`register_method`)."""
        return register_method(name, function)


#: Method name -> its ``anonymize_*`` function.
METHODS = _Functions(lambda d: d.function, what="Method name -> its anonymize_* function.")
#: Method name -> (the audit model that checks its releases, the parameters that also configure it).
AUDITED_BY = _View(lambda d: (d.privacy_model, tuple(d.audit_params)),
                   what="Method name -> (audit model, the parameters that configure it).")
#: Method name -> the parameter fields its release may publish (docs/privacy.md, "Published parameters").
PUBLISHED_PARAMS = _View(lambda d: d.published, what="Method name -> the fields its release may publish.")
#: Method name -> (field -> the object fields allowed in each object of that list field).
PUBLISHED_NESTED = _View(lambda d: dict(d.published_nested), what="Method name -> nested allowlists.")
#: The methods that take priors, and how (``reuses ...`` or ``coarsened ...``).
PRIOR_METHODS = _View(lambda d: d.priors, keep=lambda d: d.priors is not None,
                      what="Method name -> how it composes with priors.")
