"""The one place the study runs a method: through the declaration ``graphanon anonymize`` runs it by.

A method is run by name through ONE function,
:meth:`graphanon.algorithms.declaration.MethodDeclaration.run`:
``graphanon anonymize``, ``graphanon bench``, ``graphanon compare`` and
:func:`run_method` here all call it, so a method has the same defaults on
every door (COAT's ``s=0.005``, ``privacy=km:M`` from ``-m``, MM's ``h``
...): they are read from the method's declaration, beside its function (its
``Parameter`` defaults and its function's ``validate_params`` constraints),
never copied.

Parameters are the ``--param`` names of ``graphanon anonymize``
(``graphanon algorithms`` lists them; MM's ``private``, not its function's
``private_items``) and their values are texts, converted and checked by the
declaration.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphanon.algorithms.declaration import RunOptions
from graphanon.algorithms.registry import get_declaration
from graphanon.errors import ParameterError

__all__ = ["MethodDeclaration", "method_declarations", "run_method"]

#: the general options a study gives (``scheduler`` is the command line's, a study has its own workers)
_STUDY_OPTIONS = ("k", "m", "taxonomy", "seed")


@dataclass(frozen=True)
class MethodDeclaration:
    """What a method declares it takes, as the study needs it (read from its ``MethodDeclaration``).

    Attributes
    ----------
    name : str
        The method's name (``-a NAME``).
    options : frozenset of str
        The general options it reads, among ``k``, ``m``, ``taxonomy``, ``seed``.
    params : tuple of str
        Its ``--param`` names.
    audit_params : tuple of str
        The parameters that also configure its audit model.
    privacy_model : str
        The audit model that checks its releases.
    needs_taxonomy : bool
        Whether it cannot run without a taxonomy.
    needs_labels : bool
        Whether it cannot run without sensitive labels.
    label_params : tuple of str
        Parameters that, when given, need sensitive labels (``nr``'s ``l``).
    """

    name: str
    options: frozenset
    params: tuple
    audit_params: tuple
    privacy_model: str
    needs_taxonomy: bool
    needs_labels: bool = False
    label_params: tuple = ()
    secret_structure_with_labels: bool = False

    def missing_labels(self, given_params) -> str | None:
        """What needs labels among this method and ``given_params`` (names), or None when nothing does."""
        if self.needs_labels:
            return f"-a {self.name}"
        asked = [name for name in self.label_params if name in given_params]
        return f"-a {self.name} --param {asked[0]}" if asked else None


def method_declarations(name: str) -> MethodDeclaration:
    """The declarations of method ``name`` (:class:`~graphanon.errors.ParameterError` when unknown).

    Parameters
    ----------
    name : str
        A registered method name.

    Returns
    -------
    MethodDeclaration
        Read from :func:`graphanon.algorithms.registry.get_declaration`.

    Examples
    --------
    >>> d = method_declarations("partition")
    >>> "m" in d.options, d.privacy_model
    (False, 'transactional')
    >>> method_declarations("mm").params
    ('h', 'private')
    >>> method_declarations("cahd").needs_labels
    True
    """
    spec = get_declaration(name)
    return MethodDeclaration(
        name=spec.name,
        options=frozenset(opt for opt in spec.options if opt in _STUDY_OPTIONS),
        params=spec.param_names,
        audit_params=tuple(spec.audit_params),
        privacy_model=spec.privacy_model,
        needs_taxonomy=spec.needs_taxonomy,
        needs_labels=spec.needs_labels,
        label_params=tuple(spec.label_params),
        secret_structure_with_labels=spec.secret_structure_with_labels,
    )


def run_options(name: str, *, k=None, m=None, taxonomy=None, seed=None, params=None, progress=None,
                unsafe_secret_seed=None, taxonomy_given: bool = True, audit: bool = False):
    """The :class:`~graphanon.algorithms.declaration.RunOptions` of a run, checked as ``anonymize`` checks them.

    Options left at None are not given; a given option the method does not
    read, an unknown ``--param`` or one whose text its declaration refuses
    raises :class:`~graphanon.errors.ParameterError` (nothing has run yet).
    ``taxonomy_given=False`` passes ``taxonomy`` as ``anonymize`` passes a
    dataset's bundled taxonomy: there for a method whose parameters ask for
    it, not refused by one that does not read it.

    Parameters
    ----------
    name : str
        A registered method name.
    k, m, taxonomy, seed, params, progress, unsafe_secret_seed
        As for :func:`run_method`.
    taxonomy_given : bool
        Whether ``taxonomy`` counts as typed (``--taxonomy``) or as bundled.
    audit : bool
        The release will be audited (a study): a parameter only its audit
        model reads (``Required.for_audit``) is required too.

    Returns
    -------
    tuple
        ``(spec, opts)``: the method's ``MethodDeclaration`` and its options.

    Raises
    ------
    ParameterError
        Prefixed ``-a NAME:``.

    Examples
    --------
    >>> spec, opts = run_options("nr", k=2, params={"order": "gray"})
    >>> spec.name, opts.params, sorted(opts.given)
    ('nr', {'order': 'gray'}, ['k'])
    """
    spec = get_declaration(name)
    given = {opt for opt, value in (("k", k), ("m", m), ("seed", seed)) if value is not None}
    if taxonomy is not None and taxonomy_given:
        given.add("taxonomy")
    opts = RunOptions(k=k, m=m, taxonomy=taxonomy, seed=seed, params={n: str(v) for n, v in (params or {}).items()},
                      progress=progress, given=frozenset(given), unsafe_secret_seed=unsafe_secret_seed)
    try:
        spec.check_options(opts, audit=audit)
    except ParameterError as exc:
        raise ParameterError(f"-a {name}: {exc}") from None
    return spec, opts


def run_method(name: str, data, *, k=None, m=None, taxonomy=None, seed=None, params=None, progress=None,
               unsafe_secret_seed=None):
    """Run method ``name`` on ``data`` as ``graphanon anonymize -a NAME`` runs it, and return its release.

    Options left at None are not given (the method's declared defaults
    apply); an option the method does not read is refused, as on the command
    line. ``seed`` is ``--seed`` (the structure seed, ``rng=``).

    Parameters
    ----------
    name : str
        A registered method name (``graphanon algorithms``).
    data : TransactionData
        The records.
    k, m : int or None
        Privacy parameters (``m=None``: not given).
    taxonomy : Taxonomy or None
        The item hierarchy (for methods that read one).
    seed : int or None
        Structure seed (only for methods with structure randomness).
    params : dict of str -> str, optional
        The method's ``--param`` options as text (``{"l": "3"}``).
    progress : callable, optional
        ``progress(done, total, message)``.
    unsafe_secret_seed : int or None
        Tests only: fixes the secret choices (as ``RunOptions.unsafe_secret_seed``).

    Returns
    -------
    Release
        With its in-memory private link (``release.link``).

    Raises
    ------
    ParameterError
        Unknown method or parameter, an option the method does not read, a
        value its declaration refuses.

    Notes
    -----
    The call is ``get_declaration(name).run(data, opts)``, the one the
    command line makes: no defaults of its own.

    Examples
    --------
    >>> from graphanon.datasets import load
    >>> rel = run_method("nr", load("liuwang_fig1"), k=2, seed=0)
    >>> rel.kind
    'nonreciprocal'
    >>> run_method("partition", load("nr_table1"), k=2, m=2)
    Traceback (most recent call last):
    ...
    graphanon.errors.ParameterError: -a partition: algorithm 'partition' does not use -m; drop it
    """
    spec, opts = run_options(name, k=k, m=m, taxonomy=taxonomy, seed=seed, params=params, progress=progress,
                             unsafe_secret_seed=unsafe_secret_seed)
    return spec.run(data, opts)
