"""The hierarchy family on the command line: ``-a aa``, ``cut``, ``hghs``, ``mhghs``, ``mm``.

Each ``AlgorithmSpec`` declares the method's ``--param`` texts and general
options and adapts :class:`~graphanon.cli.registry.RunOptions` to the
method's ``anonymize_*`` function in :mod:`graphanon.algorithms.hierarchy`.
"""

from __future__ import annotations

from graphanon.cli.registry import (
    AlgorithmSpec,
    Param,
    RunOptions,
    parse_bool,
    parse_name_list,
    taxonomy_runner,
)
from graphanon.errors import ParameterError
from graphanon.release import GlobalRecoding
from graphanon.utils.params import MEANINGS, M, check_params
from graphanon.utils.validation import check_k

__all__ = ["AA", "CUT", "HGHS", "MHGHS", "MM"]


def _km_spec(name: str, summary: str, *, distributed: bool = False, params: tuple = ()) -> AlgorithmSpec:
    return AlgorithmSpec(
        name=name, summary=summary,
        adapter=taxonomy_runner(name, params, m=True, distributed=distributed, priors=True),
        privacy_model="km", needs_taxonomy=True, params=params,
        options=("k", "m", "taxonomy", "scheduler") if distributed else ("k", "m", "taxonomy"),
    )


def _true_false(text: str) -> bool:
    """``true`` or ``false`` (any case): the function declares a bool, and the text must say which."""
    value = text.strip().lower()
    if value not in ("true", "false"):
        raise ValueError("expected true or false")
    return value == "true"


_PUBLIC_TAXONOMY = (
    Param("public_taxonomy", _true_false, False, "the taxonomy is public (e.g. ICD-9): generalize instead of "
          "suppressing and list every leaf of a published node, so the file names no code (docs/privacy.md)"),
)


AA = _km_spec("aa", "Apriori Anonymization: full-subtree global generalization for k^m-anonymity "
              "(Terrovitis et al. 2008)", distributed=True, params=_PUBLIC_TAXONOMY)
HGHS = _km_spec("hghs", "HgHs: greedy taxonomy cut + greedy item suppression for k^m-anonymity (Liu & Wang 2010)",
                params=_PUBLIC_TAXONOMY)
MHGHS = _km_spec("mhghs", "mHgHs: HgHs in m rounds on shrinking taxonomies (scales to large m and taxonomies)",
                 params=_PUBLIC_TAXONOMY)


_MM_PARAMS = (
    Param("h", float, None, "largest allowed confidence of inferring a private item, a number in (0, 1] "
          "(default 1: no bound); needs private"),
    Param("private", parse_name_list, (), "private (sensitive) items, comma-separated", argument="private_items"),
)


def _run_mm(data, opts: RunOptions) -> GlobalRecoding:
    """CLI adapter; one ``--param h=0.5,private=a,b`` gives both (``combined_params``)."""
    values = opts.values(_MM_PARAMS, combined=True)
    h, private = values["h"], values["private"]
    if h is not None and not private:
        raise ParameterError(
            "--param h bounds the confidence of inferring a private item; without --param private=ITEM,... "
            "there is none, so h would change nothing: give the private items or drop h"
        )
    from graphanon.algorithms.hierarchy.mm import anonymize_mm

    return anonymize_mm(
        data, k=opts.required_k("mm"), m=opts.m, h=1.0 if h is None else h, private_items=private, progress=opts.progress,
        unsafe_secret_seed=opts.unsafe_secret_seed,
    )


MM = AlgorithmSpec(
    name="mm",
    summary="MM: greedy total item suppression for k^m-anonymity / (h,k,p)-coherence (Xu et al. 2008; "
    "--param h=0.8 private=a,b)",
    adapter=_run_mm,
    privacy_model="km",
    params=_MM_PARAMS,
    combined_params=True,
    options=("k", "m"),
)


_CUT_PARAMS = (
    Param("cut", parse_name_list, None, "the cut's nodes, comma-separated"),
    Param("level", int, None, "instead of cut: the cut at this taxonomy depth (0 = the root)"),
    Param("suppress", parse_name_list, (), "cut nodes to suppress, comma-separated"),
    Param("public_taxonomy", _true_false, False, "the taxonomy is public: list every leaf of a published node and "
          "publish no node that no record holds (not with suppress)"),
    Param("force", parse_bool, False, "with -k: publish even when the k^m audit fails", argument=None),
)


def _run_cut(data, opts: RunOptions) -> GlobalRecoding:
    """CLI adapter of ``cut``.

    ``-k`` (with ``-m``) is a claim the CLI checks: the release
    records ``k`` and ``m`` in its params, and the CLI audits it with the
    independent k^m audit before writing it (``spec.verify``); ``--param
    force=true`` publishes a violating release anyway, with the audit result
    in its params. Without ``-k`` the release claims nothing.
    """
    values = opts.values(_CUT_PARAMS)  # force is checked here, acted on by the CLI
    if opts.k is not None:
        check_k(opts.k, data.n_records)
        check_params({"m": M}, {"m": opts.m}, meanings=MEANINGS)
    if opts.k is None:
        opts.refuse(("m",), "algorithm 'cut' claims k^m-anonymity only with -k K (then it audits its release)")
        if "force" in opts.params:
            raise ParameterError("--param force only applies with -k K (it publishes a release that fails its k^m audit)")
    cut, level, suppress = values["cut"], values["level"], values["suppress"]
    if cut is None and level is None:
        raise ParameterError("algorithm 'cut' needs --param cut=NODE,NODE,... or --param level=DEPTH")
    from graphanon.algorithms.hierarchy.cut import anonymize_cut

    release = anonymize_cut(
        data, taxonomy=opts.taxonomy, cut=cut, level=level, suppress=suppress, unsafe_secret_seed=opts.unsafe_secret_seed,
        priors=opts.priors, public_taxonomy=values["public_taxonomy"],
    )
    if opts.k is not None:
        release.params.update(k=opts.k, m=opts.m)
    return release


CUT = AlgorithmSpec(
    name="cut",
    summary="publish a user-given taxonomy cut (--param cut=A,B,... or level=D; suppress=X,Y); with -k K [-m M] "
    "the release is audited for k^m-anonymity and refused when it fails (--param force=true publishes it anyway)",
    adapter=_run_cut,
    privacy_model="km",
    needs_taxonomy=True,
    params=_CUT_PARAMS,
    verify=True,
)
