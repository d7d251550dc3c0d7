"""What the hierarchy family's declarations share, and ``-a cut``'s translation hook.

Each method of the family declares itself beside its function
(:class:`~graphanon.algorithms.declaration.MethodDeclaration`); this module
holds the pieces several of them use.
"""

from __future__ import annotations

from graphanon.algorithms.declaration import (
    Parameter,
    parse_bool,
    parse_name_list,
    parse_true_false,
)
from graphanon.errors import ParameterError
from graphanon.utils.params import MEANINGS, M, check_params
from graphanon.utils.validation import check_k

__all__ = ["CUT_PARAMS", "GLOBAL_COSTS", "PUBLIC_TAXONOMY", "prepare_cut"]

#: The cost fields a global recoding publishes (information-loss numbers, docs/privacy.md).
GLOBAL_COSTS = frozenset({"cost", "cost_generalization", "cost_suppression", "ncp"})

#: ``--param public_taxonomy=true``: the taxonomy is public (AA, HgHs, mHgHs).
PUBLIC_TAXONOMY = Parameter(
    "public_taxonomy", parse_true_false, False, "the taxonomy is public (e.g. ICD-9): generalize instead of "
    "suppressing and list every leaf of a published node, so the file names no code (docs/privacy.md)")


#: ``-a cut``'s text parameters.
CUT_PARAMS = (
    Parameter("cut", parse_name_list, None, "the cut's nodes, comma-separated"),
    Parameter("level", int, None, "instead of cut: the cut at this taxonomy depth (0 = the root)"),
    Parameter("suppress", parse_name_list, (), "cut nodes to suppress, comma-separated"),
    Parameter("public_taxonomy", parse_true_false, False, "the taxonomy is public: list every leaf of a "
              "published node and publish no node that no record holds (not with suppress)"),
    Parameter("force", parse_bool, False, "with -k: publish even when the k^m audit fails", argument=None),
)


def prepare_cut(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    """``-a cut``: ``-k`` (with ``-m``) is a claim the command line audits (``verify``).

    A cut or a level is needed: the declaration's ``required``, checked before this hook runs.

    Without ``-k`` the release claims nothing, so ``-m`` and ``--param force`` are refused.
    """
    if opts.k is not None:
        check_k(opts.k, data.n_records)
        check_params({"m": M}, {"m": opts.m}, meanings=MEANINGS)
    else:
        opts.refuse(("m",), "algorithm 'cut' claims k^m-anonymity only with -k K (then it audits its release)")
        if "force" in opts.params:
            raise ParameterError("--param force only applies with -k K (it publishes a release that fails its k^m "
                                 "audit)")
    return kwargs

