"""The numba engine: the only package that imports numba; it imports ``core`` only.

Modules: ``layout`` (the kernels' constant names for the core's tables, no numba), ``unsafe``
(every borrowed view, raw address and intrinsic, each with its safety rule), ``bits`` (bitboard
helpers), ``rng`` (in-kernel PRNG and its draw contract), ``deal``, ``trick`` (legal moves, trick
winner), ``strategy_kernels`` (the strategies' shared helpers and trick estimate),
``strategy_bids`` and ``strategy_play`` (every strategy's bidding and card decisions),
``bidding`` (the auction), ``scoring``, ``search`` (the ``mc`` player), ``features`` (hand
features and the deal filter's clauses, evaluated as data), ``simulate`` (the entry kernels),
``calls`` (the Python side: allocate, call one entry kernel, return the records), ``plugin``
(numba plug-ins), ``dd`` (the double-dummy solver) and ``toolchain`` (the numba versions
supported and where the kernels cache).

Importing the engine checks numba's version and points numba's cache at the toolkit's folder
for the toolkit's own files only (``toolchain.py``); it changes nothing else in the process.
"""

from .toolchain import check_versions, install_cache_locator

check_versions()
install_cache_locator()
