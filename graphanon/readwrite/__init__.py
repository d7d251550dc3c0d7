"""Reading and writing of the bottom layer: transaction formats, text, atomic files, constraint files.

* :mod:`.formats` -- FIMI, basket and long-CSV readers/writers, and ``read_any``;
* :mod:`.long_csv` -- the basket and long-CSV parsers (pandas);
* :mod:`.parquet` -- Parquet (the optional ``pyarrow`` extra);
* :mod:`.text` -- reading text files and streams;
* :mod:`.files` -- ``atomic_write``, output-path checks and strict JSON;
* :mod:`.tables` -- plain tables (CSV, TSV, Parquet with list columns) for release exports;
* :mod:`.missing` -- the missing-sensitive-label policy of the readers;
* :mod:`.constraints` -- COAT constraint files.

The user-facing readers are re-exported by :mod:`graphanon` (``read_fimi``, ``read_basket``,
``read_long_csv``).
"""
