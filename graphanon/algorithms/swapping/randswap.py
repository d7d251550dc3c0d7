"""RandSwap (after Reiss 1984): random record pairs exchange random halves of their items.

All records are paired at random (a random perfect matching; with an odd count one record
stays alone); in each pair each record gives a uniformly random ``ceil(|t| / 2)`` of its items
to the other. An item given to a record that already holds it is lost (a *collision*), as in
the paper. A baseline of Gunawan & Mambo (2019).

References
----------
Reiss, S. P. Practical data-swapping: the first steps. ACM TODS 9(1), 1984.
Gunawan, D., Mambo, M. Future Internet 11(6):138, 2019, Sec. 5 (the baselines).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from graphanon.algorithms.declaration import MethodDeclaration, Parameter, Required
from graphanon.algorithms.swapping._moves import _exchange
from graphanon.algorithms.swapping.trace import SwapTrace, _pairs_list
from graphanon.errors import ParameterError
from graphanon.release.perturbed import PerturbedRelease
from graphanon.release.publish import publish
from graphanon.taxonomy.categories import parse_categories
from graphanon.utils.docs import fill_doc
from graphanon.utils.params import COMMON, validate_params
from graphanon.utils.progress import report
from graphanon.utils.randomness import secret_generator

if TYPE_CHECKING:
    from graphanon.data import TransactionData
    from graphanon.utils.progress import ProgressCallback

__all__ = ["anonymize_randswap"]


@validate_params({**COMMON})
@fill_doc(secret='the pairs, the items exchanged and the row shuffle')
def anonymize_randswap(data: TransactionData, *, unsafe_secret_seed: int | None = None,
                       progress: ProgressCallback | None = None) -> PerturbedRelease:
    """RandSwap: random record pairs exchange random halves of their items (collisions lose items).

    The pairs and the items exchanged are *secret* (operating-system entropy,
    :func:`graphanon.utils.randomness.secret_generator`): they depend on nothing but
    the number of records (public) and the record lengths, so drawing them
    from a shared seed would tell a seed holder which input position swapped
    with which, and hence whose items a known target's row received.

    Parameters
    ----------
    data : TransactionData
    %(unsafe_secret_seed)s
    progress : as :func:`~graphanon.algorithms.anonymize_partswap`

    Returns
    -------
    PerturbedRelease
        ``moves="random-swap"``.

    See Also
    --------
    graphanon.privacy.TendencyHiding : The audit of its releases.
    graphanon.algorithms.anonymize_partswap : Swaps chosen by tendency.

    Notes
    -----
    Complexity: O(occurrences log occurrences) (one sort of random keys).

    Examples
    --------
    >>> from graphanon.data import from_iterable
    >>> rel = anonymize_randswap(from_iterable([["a", "b"], ["c", "d"]]), unsafe_secret_seed=0)
    >>> sorted(len(rel.render_record(i).split()) for i in range(2))
    [2, 2]

    References
    ----------
    Reiss, S. P. Practical data-swapping: the first steps. ACM TODS 9(1), 1984;
    issue 20 (what a shared seed may fix).
    """
    gen = secret_generator(unsafe_secret_seed)  # the pairs are the secret: never from the seed
    X = data.matrix
    n = X.shape[0]
    perm = gen.permutation(n)
    partner = np.full(n, -1, dtype=np.int64)
    half = n // 2
    partner[perm[0 : 2 * half : 2]] = perm[1 : 2 * half : 2]
    partner[perm[1 : 2 * half : 2]] = perm[0 : 2 * half : 2]
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    order = np.lexsort((gen.random(X.nnz), rows))  # a random order of the items within each record
    rank = np.empty(X.nnz, dtype=np.int64)
    rank[order] = np.arange(X.nnz) - X.indptr[rows[order]]
    lengths = np.diff(X.indptr)
    give = rank < (lengths[rows] + 1) // 2
    release = PerturbedRelease.from_matrix(data, _exchange(X, give, partner), moves="random-swap",
                                           algorithm="randswap", params={})
    release.trace = SwapTrace(pairs=_pairs_list(partner))
    report(progress, 1, 1, "random swap")
    return publish(data, release, secret=gen)


def _prepare_randswap(declaration, data, opts, values: dict, kwargs: dict) -> dict:
    if opts.k is not None or opts.m is not None:
        raise ParameterError(f"{declaration.name} takes no -k or -m")
    if opts.is_given("taxonomy") and not str(values["categories"] or "").startswith("taxonomy-level:"):
        raise ParameterError(f"{declaration.name} reads --taxonomy only for categories=taxonomy-level:DEPTH; drop it")
    if values["categories"] is not None:  # a bad text is refused here, not at the audit
        parse_categories(values["categories"], data, opts.taxonomy)
    kwargs.pop("categories", None)  # the tendency audit's categories: RandSwap pairs records blind to them
    return kwargs


#: The categories the tendency audit reads (Gunawan & Mambo, Sec. 5, measure RandSwap by them): RandSwap itself
#: pairs records at random, but its release is checked, in every door, against the categories it is compared on.
_AUDIT_CATEGORIES = Parameter("categories", str, None, "the item categories its tendency audit reads (RandSwap "
                              "ignores them): random:N[:SEED], taxonomy-level:DEPTH or an item,category CSV file",
                              argument=None)

RANDSWAP = MethodDeclaration(
    name="randswap", family="swapping", function=anonymize_randswap, privacy_model="tendency",
    summary="RandSwap baseline: random pairs exchange random halves (secret pairs: no --seed; categories= for "
    "its tendency audit)",
    params=(_AUDIT_CATEGORIES,), audit_params=("categories",),
    published=frozenset(), options=("taxonomy",), prepare=_prepare_randswap,
    required=(Required(("categories",), "categories=random:3",
                       "the categories its tendency audit reads: random:N[:SEED], taxonomy-level:DEPTH or a CSV",
                       for_audit=True),),
)
