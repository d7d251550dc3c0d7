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

#: Built-in model name -> the module (under graphanon.privacy) that registers it when imported;
#: :func:`build_model` imports only the module of the model asked for.
BUILTIN = {
    "constraints": "constraints", "hkp": "hkp", "km": "km", "transactional": "km", "nonreciprocal": "nonreciprocal",
    "ldiversity": "diversity", "entropy-ldiversity": "diversity", "recursive-ldiversity": "diversity",
    "tendency": "tendency",
}


def _declare(name: str) -> None:
    importlib.import_module(f"graphanon.privacy.{BUILTIN[name]}")


def register_model(name: str, builder: Builder, summary: str) -> None:
    """Register a CLI audit model ``name``."""
    _MODELS[name] = (builder, summary)


def model_names() -> dict[str, str]:
    """Registered model names and one-line summaries."""
    for name in BUILTIN:
        _declare(name)
    return {name: summary for name, (_, summary) in sorted(_MODELS.items())}


def build_model(name: str, *, k: int | None, m: int | None, params: dict[str, str], original):
    """Make the audit model ``name`` from CLI options (clear error for unknown names)."""
    if name not in _MODELS and name in BUILTIN:
        _declare(name)
    if name not in _MODELS:
        raise ParameterError(f"unknown audit model {name!r}; available: {', '.join(model_names())}")
    return _MODELS[name][0](k=k, m=m, params=params, original=original)


def require_k(k: int | None, model: str) -> int:
    if k is None:
        raise ParameterError(f"audit model {model!r} needs -k")
    return k
