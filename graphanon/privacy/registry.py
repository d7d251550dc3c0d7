"""Audit models by CLI name (``graphanon audit --model NAME``).

Each privacy model module registers a builder that makes the model from the
CLI's options: ``builder(k, m, params, original) -> PrivacyModel``, where
``params`` holds the ``--param name=value`` pairs as strings.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from graphanon.errors import ParameterError

__all__ = ["build_model", "model_names", "register_model"]

Builder = Callable[..., object]
_MODELS: dict[str, tuple[Builder, str]] = {}

#: The modules that register the built-in models when imported.
BUILTIN_MODULES = tuple(f"graphanon.privacy.{name}" for name in ("constraints", "hkp", "km", "nonreciprocal", "tendency"))


def register_model(name: str, builder: Builder, summary: str) -> None:
    """Register a CLI audit model ``name``."""
    _MODELS[name] = (builder, summary)


def model_names() -> dict[str, str]:
    """Registered model names and one-line summaries."""
    for module in BUILTIN_MODULES:
        importlib.import_module(module)
    return {name: summary for name, (_, summary) in sorted(_MODELS.items())}


def build_model(name: str, *, k: int | None, m: int | None, params: dict[str, str], original):
    """Make the audit model ``name`` from CLI options (clear error for unknown names)."""
    names = model_names()
    if name not in names:
        raise ParameterError(f"unknown audit model {name!r}; available: {', '.join(names)}")
    return _MODELS[name][0](k=k, m=m, params=params, original=original)


def require_k(k: int | None, model: str) -> int:
    if k is None:
        raise ParameterError(f"audit model {model!r} needs -k")
    return k
