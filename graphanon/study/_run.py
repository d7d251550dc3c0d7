"""The one place the study calls the method registry.

The registry's call convention (:class:`~graphanon.algorithms.registry.RunOptions`)
is being replaced by a declarative parameter system; everything in
:mod:`graphanon.study` runs a method through :func:`run_method` and reads its
declarations through :func:`method_declarations`, so that change touches this
module only.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphanon.algorithms.registry import RunOptions, get_algorithm

__all__ = ["MethodDeclaration", "method_declarations", "run_method"]


@dataclass(frozen=True)
class MethodDeclaration:
    """What a method declares it takes, as the study needs it.

    Attributes
    ----------
    name : str
        The method's name (``-a NAME``).
    options : frozenset of str
        The general options it reads, among ``k``, ``m``, ``taxonomy``, ``seed``.
    params : tuple of str
        Its method-specific parameter names.
    audit_params : tuple of str
        The parameters that also configure its audit model.
    privacy_model : str
        The audit model that checks its releases.
    needs_taxonomy : bool
        Whether it cannot run without a taxonomy.
    """

    name: str
    options: frozenset
    params: tuple
    audit_params: tuple
    privacy_model: str
    needs_taxonomy: bool


def method_declarations(name: str) -> MethodDeclaration:
    """The declarations of method ``name`` (:class:`~graphanon.errors.ParameterError` when unknown).

    Parameters
    ----------
    name : str
        A registered method name.

    Returns
    -------
    MethodDeclaration

    Examples
    --------
    >>> d = method_declarations("partition")
    >>> "m" in d.options, d.privacy_model
    (False, 'transactional')
    """
    spec = get_algorithm(name)
    return MethodDeclaration(
        name=spec.name,
        options=frozenset(spec.options),
        params=spec.param_names,
        audit_params=tuple(spec.audit_params),
        privacy_model=spec.privacy_model,
        needs_taxonomy=spec.needs_taxonomy,
    )


def run_method(name: str, data, *, k=None, m=None, taxonomy=None, seed=None, params=None, progress=None):
    """Run method ``name`` on ``data`` through the registry and return its release.

    Options left at None are not given (the method's defaults apply); a
    given option the method does not declare is refused by the registry
    (:class:`~graphanon.errors.ParameterError`), never ignored.

    Parameters
    ----------
    name : str
        A registered method name.
    data : TransactionData
    k, m : int or None
        Privacy parameters (``m=None``: not given).
    taxonomy : Taxonomy or None
    seed : int or None
        Structure seed (only for methods that declare ``seed``).
    params : dict of str -> str, optional
        Method-specific parameters as text (``{"l": "3"}``).
    progress : callable, optional
        ``progress(done, total, message)``.

    Returns
    -------
    Release
        With its in-memory private link (``release.link``).

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> rel = run_method("nr", load("nr_table1"), k=2, seed=0)
    >>> rel.kind
    'nonreciprocal'
    """
    spec = get_algorithm(name)
    given = frozenset(opt for opt, value in (("k", k), ("m", m), ("taxonomy", taxonomy), ("seed", seed))
                      if value is not None)
    opts = RunOptions(k=k, m=m, taxonomy=taxonomy, seed=seed, params=dict(params or {}),
                      progress=progress, given=given)
    spec.check_options(opts)
    return spec.run(data, opts)
