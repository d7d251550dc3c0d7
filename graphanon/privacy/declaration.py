"""One declaration per audit model: what ``graphanon audit --model NAME`` and every other door read (issue 31).

An audit model is declared once, beside its class, by a
:class:`ModelDeclaration`: its name (``--model NAME``), a one-line summary,
its ``--param`` parameters as :class:`~graphanon.utils.declaration.Parameter`
objects (the methods' type, parsed by the one parser
:func:`~graphanon.utils.declaration.parse_texts`) and a ``build`` function
that takes Python values: ``build(*, k, m, original, [taxonomy,] **values)``.
The model registry (:mod:`graphanon.privacy.registry`) holds the
declarations; no module of ``graphanon.privacy`` parses command-line text.

Examples
--------
>>> from graphanon.privacy.registry import get_model
>>> hkp = get_model("hkp")
>>> [p.name for p in hkp.params]
['h', 'p', 'private']
>>> hkp.values({"h": "0.5,private=beer,wine"})
{'h': 0.5, 'p': None, 'private': ['beer', 'wine']}
>>> hkp.values({"h": "high"})
Traceback (most recent call last):
...
graphanon.errors.ParameterError: --param h='high': not a number
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphanon.errors import ParameterError
from graphanon.utils.declaration import Parameter, parse_texts

__all__ = ["ModelDeclaration", "require_k"]


def require_k(k: int | None, model: str) -> int:
    """``k``, or a one-line error saying the audit model ``model`` needs ``-k``.

    Examples
    --------
    >>> require_k(3, "km")
    3
    """
    if k is None:
        raise ParameterError(f"audit model {model!r} needs -k")
    return k


@dataclass(frozen=True)
class ModelDeclaration:
    """Everything the package needs to know to build one audit model by name, declared beside its class.

    Parameters
    ----------
    name : str
        The name after ``graphanon audit --model`` (and a method declaration's ``privacy_model``).
    summary : str
        One line for ``graphanon models`` / ``graphanon audit --help``.
    build : callable
        ``build(*, k, m, original, **values)`` -> a
        :class:`~graphanon.privacy.report.PrivacyModel`, where ``values`` are
        the parsed ``params`` by name (Python values, never command-line text);
        a ``taxonomy`` keyword when the model reads ``--taxonomy``.
    params : tuple of Parameter
        Its ``--param`` parameters (name, type, default, help).
    combined_params : bool
        One ``--param`` may hold several parameters (``h=0.8,private=a,b``).

    Notes
    -----
    Complexity: building is the model's own constructor; parsing is linear in the texts.

    References
    ----------
    Issue 31 (one declaration per method and per audit model).
    """

    name: str
    summary: str
    build: Callable[..., Any]
    params: tuple[Parameter, ...] = ()
    combined_params: bool = False

    @property
    def reads_taxonomy(self) -> bool:
        """Whether ``build`` takes a ``taxonomy`` (``graphanon audit --taxonomy``)."""
        return "taxonomy" in inspect.signature(self.build).parameters

    def values(self, raw: dict[str, str]) -> dict[str, Any]:
        """The ``--param`` texts ``raw`` as values (every declared parameter; its default when not given)."""
        return parse_texts(self.params, raw, owner=f"audit model {self.name!r}", combined=self.combined_params)

    def make(self, *, k: int | None, m: int | None, params: dict[str, str], original, taxonomy=None):
        """The model, from the general options and ``--param`` texts (one-line :class:`ParameterError` otherwise)."""
        values = self.values(params)
        if taxonomy is None:
            return self.build(k=k, m=m, original=original, **values)
        if not self.reads_taxonomy:
            raise ParameterError(f"audit model {self.name!r} reads no taxonomy: drop --taxonomy")
        return self.build(k=k, m=m, original=original, taxonomy=taxonomy, **values)
