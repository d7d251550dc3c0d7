"""Lazy package facades (PEP 562), so ``import graphanon`` stays light (bottom layer).

A package ``__init__`` declares which submodule holds each public name;
the name's module is imported on first access (``graphanon.TransactionData``,
``from graphanon.algorithms import anonymize_aa``) and the value is cached in
the package namespace. Importing the package itself imports none of them:
``graphanon --help`` and ``graphanon datasets`` start without numpy, scipy,
networkx or numba, and each method pulls in only what it uses.

Examples
--------
>>> import graphanon
>>> graphanon.TransactionData.__module__
'graphanon.data'
>>> "TransactionData" in dir(graphanon)
True
"""

from __future__ import annotations

import importlib
import sys
import types
from functools import cache

__all__ = ["attach"]


def attach(package: str, namespace: dict, exports: dict[str, tuple[str, ...]]):
    """Module ``__getattr__``, ``__dir__`` and ``__all__`` for a lazy package facade.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    namespace : dict
        The package's ``globals()``: imported values are cached there, so each
        name is looked up once.
    exports : dict of str -> tuple of str
        Submodule (absolute dotted name) -> the public names it defines.

    Returns
    -------
    (__getattr__, __dir__, __all__)
        Assign them at module level of the package ``__init__``. Names not in
        ``exports`` fall back to the package's submodules (``graphanon.data``
        after ``import graphanon``), else raise :class:`AttributeError`.

    Notes
    -----
    A public name equal to the name of the submodule that defines it
    (``graphanon.release.publish.publish``) stays the value when the
    submodule is imported: the import system's ``setattr(package, name,
    submodule)`` is turned into the submodule's value (what the eager
    ``from .publish import publish`` of a classic ``__init__`` leaves).

    Complexity: one dict lookup per first access; the submodule import is the cost.
    """
    owner = {name: module for module, names in exports.items() for name in names}
    shadowed = {name for name, module in owner.items() if module == f"{package}.{name}"}
    if shadowed:  # e.g. graphanon.release.publish.publish
        sys.modules[package].__class__ = _facade_class(frozenset(shadowed))

    def __getattr__(name: str):
        module = owner.get(name)
        if module is None:
            if name.startswith("__"):
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            try:  # a submodule, as an eager ``import`` would have left it
                value = importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        else:
            value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(owner))

    return __getattr__, __dir__, sorted(owner)


@cache
def _facade_class(shadowed: frozenset[str]) -> type:
    """A module class whose attributes ``shadowed`` keep the value of the like-named submodule."""

    class LazyFacade(types.ModuleType):
        def __setattr__(self, name, value):
            if name in shadowed and isinstance(value, types.ModuleType):
                value = getattr(value, name)
            super().__setattr__(name, value)

    return LazyFacade
