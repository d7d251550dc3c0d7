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

    Complexity
    ----------
    One dict lookup per first access; the submodule import is the cost.
    """
    owner = {name: module for module, names in exports.items() for name in names}

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
