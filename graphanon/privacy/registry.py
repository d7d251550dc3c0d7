"""Audit models by name (``graphanon audit --model NAME``), derived from their declarations.

Each model is declared once beside its class by a
:class:`~graphanon.privacy.declaration.ModelDeclaration`; this registry maps
a name to the declaration's import target, so looking up one model imports
only its module. :func:`build_model` parses the ``--param`` texts with the
declaration and builds the model from Python values.

Examples
--------
>>> from graphanon.privacy.registry import build_model
>>> build_model("km", k=3, m=2, params={}, original=None).k
3
>>> build_model("km", k=3, m=2, params={"h": "1"}, original=None)
Traceback (most recent call last):
...
graphanon.errors.ParameterError: unknown --param h for audit model 'km'; it takes: none
"""

from __future__ import annotations

from graphanon.privacy.declaration import ModelDeclaration, require_k
from graphanon.utils.registry import LazyRegistry

__all__ = ["build_model", "get_model", "model_names", "register_model", "require_k"]

#: Model name -> import target of its :class:`ModelDeclaration` (module:attribute, imported on first use).
_MODELS = LazyRegistry("audit model", {
    "constraints": "graphanon.privacy.constraints:CONSTRAINTS_MODEL",
    "hkp": "graphanon.privacy.hkp:HKP_MODEL",
    "km": "graphanon.privacy.km:KM_MODEL",
    "transactional": "graphanon.privacy.km:TRANSACTIONAL_MODEL",
    "nonreciprocal": "graphanon.privacy.nonreciprocal:NONRECIPROCAL_MODEL",
    "ldiversity": "graphanon.privacy.diversity:LDIVERSITY_MODEL",
    "entropy-ldiversity": "graphanon.privacy.diversity:ENTROPY_LDIVERSITY_MODEL",
    "recursive-ldiversity": "graphanon.privacy.diversity:RECURSIVE_LDIVERSITY_MODEL",
    "tendency": "graphanon.privacy.tendency:TENDENCY_MODEL",
    "rt": "graphanon.privacy.rt:RT_MODEL",
})


def register_model(declaration: ModelDeclaration) -> None:
    """Register an audit model (a plugin's) under ``declaration.name``."""
    _MODELS.register(declaration.name, declaration)


def get_model(name: str) -> ModelDeclaration:
    """The declaration of the audit model ``name`` (one-line error naming the known ones otherwise)."""
    return _MODELS.get(name)


def model_names() -> dict[str, str]:
    """Registered model names and one-line summaries."""
    return {name: declaration.summary for name, declaration in _MODELS.items().items()}


def build_model(name: str, *, k: int | None, m: int | None, params: dict[str, str], original, taxonomy=None):
    """Make the audit model ``name`` from the general options and ``--param`` texts (one-line errors).

    ``taxonomy`` (``graphanon audit --taxonomy``) goes to the models whose
    declaration reads one (the tendency model, for
    ``categories=taxonomy-level:D``); a model that reads none refuses it.
    """
    return get_model(name).make(k=k, m=m, params=params, original=original, taxonomy=taxonomy)
