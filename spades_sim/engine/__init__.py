"""The numba engine: the only package that imports numba; it imports ``core`` only.

Modules: ``layout`` (the kernels' constant names for the core's tables, no numba), ``bits``
(bitboard helpers), ``rng`` (in-kernel PRNG and its draw contract), ``deal``, ``trick`` (legal
moves, trick winner), ``strategy_kernels`` (the strategies' shared helpers and trick estimate),
``strategy_bids`` and ``strategy_play`` (every strategy's bidding and card decisions),
``bidding`` (the auction), ``scoring``, ``search`` (the ``mc`` player), ``features`` (hand
features and the deal filter's clauses, evaluated as data), ``simulate`` (the entry kernels)
and ``calls`` (the Python side: allocate, call one entry kernel, return the records).

Numba's on-disk cache (``cache=True``) is keyed by the source file of each *entry* function only,
so an edit to a helper in another file would leave a stale compiled kernel in use. To rule that
out, the cache lives in a folder named by a hash of every engine source file (and of the core
modules the kernels take constants from): any such edit (or an upgrade) starts from a fresh
cache. The double-dummy solver (``dd``) is left out of that hash: no kernel of the hand loop
calls it, and numba's own check of its file is enough for its kernels.
"""

import os

from ..core.version import engine_hash


def _cache_dir() -> str:
    root = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "spades_sim"
    )
    return os.path.join(root, "numba-" + engine_hash())


def _configure_cache() -> None:
    from numba.core import config

    config.CACHE_DIR = _cache_dir()


_configure_cache()
