"""The common checks of a method, public: hold your own method to the package's standard.

:func:`check_method` runs a list of named checks on an ``anonymize_*``
function (yours, or a registered method by name), in the spirit of
scikit-learn's ``check_estimator``: the release meets the method's audit
model on bundled and on random data, it publishes no record id, no input
order, no seed and only allowlisted parameters, it survives save/load,
wrong parameter values and bad input are refused with a message, and the
structure is determined by ``rng``. Each check runs alone
(:func:`method_checks`; :func:`parametrize_with_checks` makes a pytest
parametrization of them) and fails with one line that names it.

The random data are drawn from a seeded :class:`numpy.random.Generator`
(:func:`random_transactions`), so the checks run without the test extras;
:mod:`graphanon.testing.strategies` has hypothesis strategies for your own
property tests.

Examples
--------
>>> from graphanon.testing import check_method
>>> results = check_method("mm", options={"k": 2, "m": 2})
>>> [r.name for r in results if r.status == "failed"]
[]
>>> [r.name for r in results if r.status == "skipped"]
['check_rng_determinism']

References
----------
Issue 31 ("Your own method, first class"); docs/own_method.md. The checks
follow ``tests/algorithms/test_common.py`` and docs/privacy.md ("Published
parameters", "What a release must not say").
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import graphanon.algorithms.registry as _methods
from graphanon.errors import ParameterError
from graphanon.testing.checks import (
    CHECK_FUNCTIONS,
    CHECKS,
    MethodUnderCheck,
    SkipCheck,
    random_transactions,
    short_text,
)

__all__ = ["CheckResult", "MethodCheck", "MethodCheckError", "check_method", "method_checks",
           "parametrize_with_checks", "random_transactions"]


class MethodCheckError(AssertionError):
    """A check of :func:`check_method` failed; the message is one line per failed check, naming it."""


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: ``status`` is ``passed``, ``failed`` or ``skipped``, ``reason`` one line."""

    name: str
    status: str
    reason: str = ""

    def __str__(self) -> str:
        """``name: status`` and the reason."""
        return f"{self.name}: {self.status}" + (f" ({self.reason})" if self.reason else "")




# ------------------------------------------------------------------------------------------------ the public API
@dataclass(frozen=True)
class MethodCheck:
    """One named check of one method, runnable alone: call it (it raises :class:`MethodCheckError`).

    Attributes
    ----------
    name : str
        The check (``check_audit_bundled``, ...).
    method : str
        The method's name.
    """

    name: str
    method: str
    _target: MethodUnderCheck = field(repr=False, compare=False)

    def run(self) -> CheckResult:
        """The result (never raises for a failed check)."""
        try:
            CHECK_FUNCTIONS[self.name](self._target)
        except SkipCheck as why:
            return CheckResult(self.name, "skipped", str(why))
        except AssertionError as exc:
            return CheckResult(self.name, "failed", " ".join(str(exc).split()))
        except Exception as exc:  # noqa: BLE001 -- an unexpected error of the method is a failed check
            return CheckResult(self.name, "failed", f"{type(exc).__name__}: {short_text(exc)}")
        return CheckResult(self.name, "passed")

    def __call__(self) -> CheckResult:
        """Run the check; raise :class:`MethodCheckError` (``check_name: reason``) when it fails."""
        result = self.run()
        if result.status == "failed":
            raise MethodCheckError(f"{self.name}: {result.reason}")
        return result

    def __str__(self) -> str:
        """``method-check_name`` (a pytest id)."""
        return f"{self.method}-{self.name}"


def _resolve(method: Callable | str, audit_model: str | None, audit_params, options, labels: int,
             bundled: str) -> MethodUnderCheck:
    if isinstance(method, str):
        declaration = _methods.get_declaration(method)  # its declaration says the function and the audit
        name, function = method, declaration.function
        if audit_model is None:
            audit_model = declaration.privacy_model
        if audit_params is None and options is not None:  # the run's values of the parameters that configure it
            audit_params = {arg: options[arg] for arg in declaration.audit_params if arg in options}
    else:
        function = method
        name = getattr(function, "__name__", "method").removeprefix("anonymize_")
        if audit_model is None:
            audit_model = getattr(function, "audit_model", None)
    if audit_model is None:
        raise ParameterError(f"method {name!r}: give audit_model= (the model that checks its releases, e.g. 'km')")
    if options is None:
        options = {"k": 2} if "k" in inspect.signature(function).parameters else {}
    return MethodUnderCheck(function, name, audit_model, {n: str(v) for n, v in (audit_params or {}).items()},
                   dict(options), labels, bundled, registered=isinstance(method, str))


def method_checks(method: Callable | str, *, audit_model: str | None = None,
                  audit_params: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                  labels: int = 0, bundled: str = "groceries",
                  checks: Iterable[str] | None = None) -> list[MethodCheck]:
    """The named checks of ``method``, each runnable alone.

    Parameters
    ----------
    method : callable or str
        An ``anonymize_*`` function, or a registered method's name (its
        audit model is then the registered one).
    audit_model : str, optional
        The audit model that checks its releases (a name of
        :func:`graphanon.privacy.registry.model_names`; ``"dp"``: none, the
        audit checks are skipped). Default: the registered model, or the
        function's ``audit_model`` attribute.
    audit_params : dict, optional
        The model's options as ``graphanon audit --param`` texts; ``k`` and
        ``m`` here are the audit's ``-k`` / ``-m`` where neither the release's
        parameters nor ``options`` say them (a method that takes no ``k``).
    options : dict, optional
        Keyword arguments of every run (default ``{"k": 2}`` when the method
        takes ``k``); a value may be a function of the data (``lambda data:
        ...``). A taxonomy is given where the method takes one (the bundled
        dataset's, or a balanced one of fan-out 4).
    labels : int
        Give the data that many sensitive label values (0: no labels).
    bundled : str
        The bundled dataset of ``check_audit_bundled`` (a seeded sample of 200
        records).
    checks : iterable of str, optional
        A subset of :data:`CHECKS` (default: all).

    Returns
    -------
    list of MethodCheck

    Examples
    --------
    >>> [str(c) for c in method_checks("mm", options={"k": 2, "m": 1}, checks=["check_no_seed"])]
    ['mm-check_no_seed']
    """
    target = _resolve(method, audit_model, audit_params, options, labels, bundled)
    names = CHECKS if checks is None else tuple(checks)
    unknown = [name for name in names if name not in CHECK_FUNCTIONS]
    if unknown:
        raise ParameterError(f"unknown check {unknown[0]!r}; the checks: {', '.join(CHECKS)}")
    return [MethodCheck(name, target.name, target) for name in names]


def check_method(method: Callable | str, *, audit_model: str | None = None,
                 audit_params: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                 labels: int = 0, bundled: str = "groceries", checks: Iterable[str] | None = None,
                 raise_on_failure: bool = True) -> list[CheckResult]:
    """Run every check of ``method`` and report; raise when one fails.

    Parameters
    ----------
    method, audit_model, audit_params, options, labels, bundled, checks
        As for :func:`method_checks`.
    raise_on_failure : bool
        Raise :class:`MethodCheckError` when a check fails (default); else
        only return the results.

    Returns
    -------
    list of CheckResult
        One per check, in :data:`CHECKS` order.

    Raises
    ------
    MethodCheckError
        One line per failed check: ``check_name: reason``.

    Notes
    -----
    Complexity: about 15 runs of the method on data of at most 200 records
    (plus one per generated wrong value).

    Examples
    --------
    >>> from graphanon.algorithms.registry import get_method
    >>> results = check_method(get_method("partition"), audit_model="transactional",
    ...                        checks=["check_audit_random", "check_no_input_order"])
    >>> [str(r) for r in results]
    ['check_audit_random: passed', 'check_no_input_order: passed']
    """
    results = [check.run() for check in method_checks(method, audit_model=audit_model, audit_params=audit_params,
                                                      options=options, labels=labels, bundled=bundled,
                                                      checks=checks)]
    failed = [f"{r.name}: {r.reason}" for r in results if r.status == "failed"]
    if failed and raise_on_failure:
        raise MethodCheckError("\n".join(failed))
    return results


def parametrize_with_checks(methods: Iterable[Callable | str], **config: Any):
    """A ``pytest.mark.parametrize("check", ...)`` over every check of every method (ids ``method-check``).

    Parameters
    ----------
    methods : iterable of callable or str
        The methods (functions or registered names).
    **config
        As for :func:`method_checks` (the same for every method).

    Returns
    -------
    pytest.MarkDecorator
        Decorate ``def test_x(check): check()``.
    """
    import pytest

    checks = [check for method in methods for check in method_checks(method, **config)]
    return pytest.mark.parametrize("check", checks, ids=str)
