"""The anonymizers by name, for Python callers (``run_method("aa", data, ...)``).

One table, method name -> its ``anonymize_*`` function, resolved on first
use (:class:`~graphanon.utils.registry.LazyRegistry`): looking a method up
imports only its module. The names are the command line's (``-a mm``); the
CLI's view of a method -- its ``--param`` texts, which general options it
reads, the audit model that checks it -- is :mod:`graphanon.cli.registry`,
built on this table.

Examples
--------
>>> from graphanon.algorithms.registry import get_method, run_method
>>> from graphanon.datasets import load
>>> get_method("nr").__name__
'anonymize_nonreciprocal'
>>> release = run_method("nr", load("nr_table1"), k=2, order="gray", rng=3)
>>> release.algorithm
'nr'
"""

from __future__ import annotations

from collections.abc import Callable

from graphanon.utils.registry import LazyRegistry

__all__ = ["AUDITED_BY", "METHODS", "get_method", "method_names", "register_method", "run_method"]

_A = "graphanon.algorithms."
#: Method name -> ``anonymize_*`` function. Aliases: ``nr`` is
#: :func:`~graphanon.algorithms.nonreciprocal.anonymize_nonreciprocal`; ``hghs`` and ``mhghs``
#: share ``hierarchy/hghs.py``; the five swapping methods of one paper share ``swapping.py``.
METHODS = LazyRegistry("algorithm", {
    "aa": _A + "hierarchy.aa:anonymize_aa",
    "cahd": _A + "nonreciprocal.cahd:anonymize_cahd",
    "clump": _A + "grouping.clump:anonymize_clump",
    "coat": _A + "coat.engine:anonymize_coat",
    "cut": _A + "hierarchy.cut:anonymize_cut",
    "hghs": _A + "hierarchy.hghs:anonymize_hghs",
    "mhghs": _A + "hierarchy.hghs:anonymize_mhghs",
    "mm": _A + "hierarchy.mm:anonymize_mm",
    "nr": _A + "nonreciprocal.anonymize:anonymize_nonreciprocal",
    "partition": _A + "grouping.partition:anonymize_partition",
    "fullswap": _A + "swapping:anonymize_fullswap",
    "partsupp": _A + "swapping:anonymize_partsupp",
    "partswap": _A + "swapping:anonymize_partswap",
    "randswap": _A + "swapping:anonymize_randswap",
    "splitperson": _A + "swapping:anonymize_splitperson",
    "diffpart": _A + "dp.diffpart:anonymize_diffpart",
    "rt": _A + "relational.rt:anonymize_rt",
    "rt-naive": _A + "relational.rt:anonymize_rt_naive",
})


#: Method name -> (the audit model that checks its releases, the function arguments that also
#: configure that model). The CLI specs (:mod:`graphanon.cli.registry`) declare the same (a test
#: holds them equal); :mod:`graphanon.study`, which sits below the CLI, reads it from here.
AUDITED_BY: dict[str, tuple[str, tuple[str, ...]]] = {
    **{name: ("km", ()) for name in ("aa", "cut", "hghs", "mhghs", "mm")},
    "cahd": ("ldiversity", ("l", "diversity", "c")),
    "clump": ("transactional", ()),
    "partition": ("transactional", ()),
    "coat": ("constraints", ("privacy", "utility", "s")),
    "nr": ("nonreciprocal", ()),
    **{name: ("tendency", ("categories",)) for name in ("fullswap", "partsupp", "partswap", "splitperson")},
    "randswap": ("tendency", ()),
    # differentially private: no audit model can check a DP release; its guarantee is tested (docs/dp.md)
    "diffpart": ("dp", ()),
    # relational-transaction data: (k, k^m)-anonymity; the naive baseline is audited by the same model (and fails it)
    "rt": ("rt", ()),
    "rt-naive": ("rt", ()),
}


def register_method(name: str, function: Callable, *, audit_model: str | None = None,
                    audit_params: tuple[str, ...] = ()) -> Callable:
    """Add a method ``name`` (its ``anonymize_*`` function); a taken name is refused.

    ``audit_model`` (with the arguments ``audit_params`` that configure it)
    enters :data:`AUDITED_BY`, which :mod:`graphanon.study` reads.
    """
    registered = METHODS.register(name, function)
    if audit_model is not None:
        AUDITED_BY[name] = (audit_model, tuple(audit_params))
    return registered


def get_method(name: str) -> Callable:
    """The ``anonymize_*`` function of method ``name`` (``ParameterError`` for an unknown name)."""
    return METHODS.get(name)


def method_names() -> list[str]:
    """Every method name, sorted."""
    return METHODS.names()


def run_method(name: str, data, **options):
    """Run method ``name`` on ``data`` with the keyword arguments of its function.

    Parameters
    ----------
    name : str
        A method name (:func:`method_names`), as after ``graphanon anonymize -a``.
    data : TransactionData
        The records.
    **options
        The function's keyword arguments as Python values (``k=5``,
        ``taxonomy=tax``, ``order="gray"``, ``rng=3``); they are validated by
        the function's declared constraints (:mod:`graphanon.utils.params`).

    Returns
    -------
    Release
        What ``anonymize_<name>(data, **options)`` returns.

    Examples
    --------
    >>> from graphanon.datasets import load, load_taxonomy
    >>> run_method("aa", load("liuwang_fig1"), taxonomy=load_taxonomy("liuwang_fig1"), k=2, m=2).algorithm
    'aa'
    """
    return get_method(name)(data, **options)
