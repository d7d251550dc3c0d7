"""Utilities of the bottom layer: argument checks, randomness, progress, memory budget, lazy imports.

* :mod:`.validation` -- the shared checks of the privacy parameters (``check_k``, ``check_m``,
  ``check_h``, ``check_order``, ``check_diversity_feasible``);
* :mod:`.randomness` -- ``check_random_state`` (the structure randomness, ``rng=``) and
  ``secret_generator`` (the secret choices, operating-system entropy);
* :mod:`.progress` -- the ``progress(done, total, message)`` callback type and ``report``;
* :mod:`.memory` -- the ``--max-memory`` budget;
* :mod:`.lazy` -- ``attach``, the lazy package facades (PEP 562);
* :mod:`.params` -- ``expand_params`` (``--param`` texts holding several values);
* :mod:`.labels` -- items and labels are text: ``as_label``, ``natural_key``, ``parse_name_list``.

Nothing is imported here: ``import graphanon`` reads :mod:`.lazy` only.
"""
