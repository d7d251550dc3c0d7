"""One lazy registry for names that select code: methods, audit models, release kinds (bottom layer).

A :class:`LazyRegistry` maps a name to a value (a function, a spec, a
class). Built-in names are declared as a table of import targets and
resolved on first use, so looking up one method imports only that method's
module (``graphanon anonymize -a aa`` loads none of the other kernels).
A target ``"package.module:attr"`` is the attribute of that module; a
target ``"package.module"`` is a module that registers the name itself when
imported (a class registering its release kind, say).

Names of other installed packages (plugins) come in through
:data:`PLUGIN_LOADERS`: a registry whose kind is listed there calls that
loader once, on the first lookup of a name it does not know and on the first
listing (:meth:`LazyRegistry.items`), so no plugin is imported while a
built-in name is looked up.

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
from typing import Any

from graphanon.errors import ParameterError

__all__ = ["PLUGIN_LOADERS", "LazyRegistry"]

#: Kind of name (a registry's ``what``) -> import target ``"module:function"`` of the loader that
#: registers the installed plugins of that kind. The loader is called with the registry once per
#: registry (see :mod:`graphanon.plugins`: entry points of group ``graphanon.methods``).
PLUGIN_LOADERS: dict[str, str] = {"algorithm": "graphanon.plugins:load_plugins"}


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

    Examples
    --------
    >>> reg = LazyRegistry("kind", {})
    >>> reg.register("x", 1)
    1
    >>> reg.get("x"), "x" in reg, reg.names()
    (1, True, ['x'])
    """

    def __init__(self, what: str, builtin: dict[str, str], *, error: type[Exception] = ParameterError) -> None:
        self.what = what
        self.builtin = dict(builtin)
        self.error = error
        self._values: dict[str, Any] = {}
        self._plugins_loaded = False

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

    def _load_plugins(self) -> None:
        """Register the installed plugins of this registry's kind (once; see :data:`PLUGIN_LOADERS`)."""
        target = PLUGIN_LOADERS.get(self.what)
        if self._plugins_loaded or target is None:
            return
        self._plugins_loaded = True  # before the call: a loader that looks a name up does not recurse
        module, _, attr = target.partition(":")
        getattr(importlib.import_module(module), attr)(self)

    def __contains__(self, name: object) -> bool:
        """Whether ``name`` is registered or built in (nothing is imported)."""
        return isinstance(name, str) and (name in self._values or name in self.builtin)

    def get(self, name: str) -> Any:
        """The value of ``name`` (a built-in one is imported now); unknown names raise ``error``."""
        if isinstance(name, str):
            self._declare(name)
            if name not in self._values:
                self._load_plugins()
        if not isinstance(name, str) or name not in self._values:
            raise self.error(f"unknown {self.what} {name!r}; available: {', '.join(self.names())}")
        return self._values[name]

    def items(self) -> dict[str, Any]:
        """Every registered name -> value, sorted by name (imports all built-in targets)."""
        for name in self.builtin:
            self._declare(name)
        self._load_plugins()
        return dict(sorted(self._values.items()))

    def names(self) -> list[str]:
        """The registered names, sorted (imports all built-in targets)."""
        return list(self.items())
