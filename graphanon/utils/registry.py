"""One lazy registry for names that select code: methods, audit models, release kinds (bottom layer).

A :class:`LazyRegistry` maps a name to a value (a function, a spec, a
class). Built-in names are declared as a table of import targets and
resolved on first use, so looking up one method imports only that method's
module (``graphanon anonymize -a aa`` loads none of the other kernels).
A target ``"package.module:attr"`` is the attribute of that module; a
target ``"package.module"`` is a module that registers the name itself when
imported (a class registering its release kind, say).

Names of other installed packages (plugins) come in through the
registry's ``more`` loader: it is called once, on the first lookup of a name
the registry does not know and on the first listing
(:meth:`LazyRegistry.items`), so no plugin is looked for while a built-in
name is looked up (the method registry reads the entry points of group
``graphanon.methods`` this way: :mod:`graphanon.algorithms.registry`).

Examples
--------
>>> from graphanon.utils.registry import LazyRegistry
>>> functions = LazyRegistry("function", {"sqrt": "math:sqrt"})
>>> functions.get("sqrt")(16.0)
4.0
>>> functions.get("cbrt")
Traceback (most recent call last):
...
graphanon.errors.ParameterError: unknown function 'cbrt'; available: sqrt
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from graphanon.errors import ParameterError

__all__ = ["LazyRegistry"]


class LazyRegistry:
    """Names -> values, built-in names imported on demand.

    Parameters
    ----------
    what : str
        What a name selects, for messages (``"algorithm"``, ``"audit model"``).
    builtin : dict of str -> str
        Built-in name -> import target: ``"module:attr"`` (the value is the
        attribute) or ``"module"`` (importing it calls :meth:`register`).
    error : type of Exception
        Raised for an unknown name (default
        :class:`~graphanon.errors.ParameterError`).
    more : callable(LazyRegistry) or None
        Registers the names found elsewhere (installed plugins); called once,
        on the first unknown name or listing.

    Examples
    --------
    >>> reg = LazyRegistry("kind", {})
    >>> reg.register("x", 1)
    1
    >>> reg.get("x"), "x" in reg, reg.names()
    (1, True, ['x'])
    """

    def __init__(self, what: str, builtin: dict[str, str], *, error: type[Exception] = ParameterError,
                 more: Callable[[LazyRegistry], None] | None = None) -> None:
        self.what = what
        self.builtin = dict(builtin)
        self.error = error
        self._more = more
        self._values: dict[str, Any] = {}

    def register(self, name: str, value: Any) -> Any:
        """Register ``value`` under ``name`` (once: a different value for a taken name is refused)."""
        if name in self._values and self._values[name] is not value:
            raise ValueError(f"{self.what} {name!r} is registered twice")
        self._values[name] = value
        return value

    def _declare(self, name: str) -> None:
        if name in self._values or name not in self.builtin:
            return
        module, _, attr = self.builtin[name].partition(":")
        imported = importlib.import_module(module)
        if attr:
            self.register(name, getattr(imported, attr))

    def _load_more(self) -> None:
        """Call the ``more`` loader (once: cleared before the call, so a loader that looks a name up ends)."""
        more, self._more = self._more, None
        if more is not None:
            more(self)

    def __contains__(self, name: object) -> bool:
        """Whether ``name`` is registered or built in (nothing is imported; ``more`` runs for an unknown name)."""
        if not isinstance(name, str):
            return False
        if name not in self._values and name not in self.builtin:
            self._load_more()
        return name in self._values or name in self.builtin

    def get(self, name: str) -> Any:
        """The value of ``name`` (a built-in one is imported now); unknown names raise ``error``."""
        if isinstance(name, str):
            self._declare(name)
            if name not in self._values:
                self._load_more()
        if not isinstance(name, str) or name not in self._values:
            raise self.error(f"unknown {self.what} {name!r}; available: {', '.join(self.names())}")
        return self._values[name]

    def items(self) -> dict[str, Any]:
        """Every registered name -> value, sorted by name (imports all built-in targets)."""
        for name in self.builtin:
            self._declare(name)
        self._load_more()
        return dict(sorted(self._values.items()))

    def names(self) -> list[str]:
        """The registered names, sorted (imports all built-in targets)."""
        return list(self.items())
