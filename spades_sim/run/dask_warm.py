"""The Dask worker plug-in that loads the compiled kernels a run needs on every worker, once,
before the worker plays its first chunk (imported only with ``--backend dask``: it needs
``distributed``)."""

from __future__ import annotations

import time

from distributed import WorkerPlugin

#: ``(games, search, par, seconds)`` of every warm-up this process made as a Dask worker (what
#: the plug-in did, for the tests and for anyone asking the workers with ``client.run``).
WARMED: list[tuple[bool, bool, bool, float]] = []


class WarmKernels(WorkerPlugin):
    """Loads (or compiles, on a worker whose numba cache is empty) the entry kernels of a run:
    those of hands or ``games``, with ``search`` those of ``mc`` seats, with ``par`` the
    double-dummy solver's. Registered on the client, its ``setup`` runs on every worker, and on
    every worker that joins later, before any task."""

    idempotent = True  # registered again on the same cluster (another run): kept, not re-run

    def __init__(self, games: bool, search: bool, par: bool):
        self.games, self.search, self.par = bool(games), bool(search), bool(par)
        # One plug-in per set of kernels: registering another set keeps this one.
        self.name = f"spades-sim-warm-{int(self.games)}{int(self.search)}{int(self.par)}"

    def setup(self, worker=None):
        from .cluster import warm_kernels

        started = time.perf_counter()
        warm_kernels(self.games, self.search, self.par)
        WARMED.append((self.games, self.search, self.par, time.perf_counter() - started))
