"""Audit models by CLI name (``graphanon audit --model NAME``).

Each privacy model module registers a builder that makes the model from the
CLI's options: ``builder(k, m, params, original) -> PrivacyModel``, where
``params`` holds the ``--param name=value`` pairs as strings.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from graphanon.errors import ParameterError
from graphanon.utils.registry import LazyRegistry

__all__ = ["build_model", "model_names", "register_model"]

Builder = Callable[..., object]

#: Model name -> (builder, summary). Built-in names map to the module (under graphanon.privacy)
#: that registers them when imported; :func:`build_model` imports only the module asked for.
_MODELS = LazyRegistry("audit model", {
    name: f"graphanon.privacy.{module}" for name, module in {
        "constraints": "constraints", "hkp": "hkp", "km": "km", "transactional": "km",
        "nonreciprocal": "nonreciprocal", "ldiversity": "diversity", "entropy-ldiversity": "diversity",
        "recursive-ldiversity": "diversity", "tendency": "tendency", "rt": "rt",
    }.items()
})


def register_model(name: str, builder: Builder, summary: str) -> None:
    """Register a CLI audit model ``name``."""
    _MODELS.register(name, (builder, summary))


def model_names() -> dict[str, str]:
    """Registered model names and one-line summaries."""
    return {name: summary for name, (_, summary) in _MODELS.items().items()}


def build_model(name: str, *, k: int | None, m: int | None, params: dict[str, str], original, taxonomy=None):
    """Make the audit model ``name`` from CLI options (clear error for unknown names).

    ``taxonomy`` (``graphanon audit --taxonomy``) goes to the builders that
    take a ``taxonomy`` argument (the tendency model, for
    ``categories=taxonomy-level:D``); a model that reads none refuses it.
    """
    builder, _ = _MODELS.get(name)
    if taxonomy is None:
        return builder(k=k, m=m, params=params, original=original)
    if "taxonomy" not in inspect.signature(builder).parameters:
        raise ParameterError(f"audit model {name!r} reads no taxonomy: drop --taxonomy")
    return builder(k=k, m=m, params=params, original=original, taxonomy=taxonomy)


def require_k(k: int | None, model: str) -> int:
    if k is None:
        raise ParameterError(f"audit model {model!r} needs -k")
    return k
