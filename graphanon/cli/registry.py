"""The anonymizers as the command line sees them (``graphanon anonymize -a NAME``): their declarations.

A method is declared once, beside its function, by a
:class:`~graphanon.algorithms.declaration.MethodDeclaration`; the command
line reads that declaration as it is (:func:`get_algorithm`): its
``--param`` texts, the general options it reads, the audit model that
checks it, and :meth:`~graphanon.algorithms.declaration.MethodDeclaration.run`,
the one way a method is run by name. Nothing here is specific to a method.

The names kept for the command line's code: ``AlgorithmSpec`` is
``MethodDeclaration``, ``Param`` is ``Parameter``.
"""

from __future__ import annotations

from graphanon.algorithms.declaration import (
    OPTION_FLAGS,
    MethodDeclaration,
    Parameter,
    RunOptions,
    parse_bool,
    parse_name_list,
)
from graphanon.algorithms.registry import declarations, get_declaration, register_method

__all__ = [
    "OPTION_FLAGS",
    "AlgorithmSpec",
    "Param",
    "RunOptions",
    "get_algorithm",
    "parse_bool",
    "parse_name_list",
    "register",
    "registered",
]

#: A method's declaration, as the command line calls it.
AlgorithmSpec = MethodDeclaration
#: One ``--param`` of a method.
Param = Parameter


def register(spec: MethodDeclaration) -> MethodDeclaration:
    """Register a method's declaration under ``spec.name`` (a name is registered once)."""
    return register_method(spec)


def registered() -> dict[str, MethodDeclaration]:
    """All registered methods by name (imports every method module)."""
    return declarations()


def get_algorithm(name: str) -> MethodDeclaration:
    """The declaration of method ``name`` (a built-in one is imported on demand)."""
    return get_declaration(name)
