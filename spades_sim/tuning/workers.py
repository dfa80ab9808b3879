"""Where a tuning's games are played: here, on joblib's processes, or on a Dask cluster.

Every task is a piece of boards of one (candidate, opponent) pair and returns its per-board
differences; the pieces are put back in order, so the numbers never depend on the number of
workers or the backend (a board's value depends on its seed and id only).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import SpadesError
from ..core.limits import MAX_JOBS
from ..core.strategies import Strategy
from ..evaluate import board_differences
from ..run.cluster import connect_scheduler, warm_dask_workers, warm_in_subprocess


def _task(candidate, opponent, rules, seed, first, count) -> np.ndarray:
    return board_differences(candidate, opponent, rules, seed=seed, first_board=first,
                             n_boards=count)


def _pieces(total: int, parts: int) -> list[tuple[int, int]]:
    """``(first, count)`` of ``parts`` near-equal pieces of ``total`` boards."""
    parts = max(1, min(parts, total))
    bounds = np.linspace(0, total, parts + 1).astype(np.int64)
    return [(int(low), int(high - low)) for low, high in zip(bounds[:-1], bounds[1:])]


class Workers:
    """The processes that play the boards (a context manager: a Dask cluster started here is
    closed on exit).

    ``jobs``: processes (loky) or local Dask workers; ``backend``: ``loky`` or ``dask``;
    ``scheduler``: a Dask scheduler's address (with ``dask``; none starts a local cluster);
    ``search``: whether some seat is an ``mc`` strategy (its kernels are warmed too).
    """

    def __init__(self, jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
                 search: bool = False):
        if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
            raise SpadesError(f"jobs: {jobs!r} is not an integer from 1 to {MAX_JOBS}")
        if backend not in ("loky", "dask"):
            raise SpadesError(f"backend {backend!r}: expected loky or dask")
        if scheduler is not None and backend != "dask":
            raise SpadesError("scheduler needs backend dask: the loky backend plays on this "
                              "machine")
        self.jobs, self.backend, self.search = jobs, backend, search
        self.client = connect_scheduler(scheduler) if scheduler is not None else None
        self.cluster = None
        self.started = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        self.client = self.cluster = None

    @property
    def width(self) -> int:
        """How many tasks can run at once (pieces are cut to keep them all busy)."""
        if self.client is not None:
            return max(1, len(self.client.scheduler_info().get("workers", {})))
        return self.jobs

    def _start(self) -> None:
        """Compile the kernels once (in a short-lived process, so that the workers only load
        them) and start a local Dask cluster when asked for one."""
        if self.started:
            return
        self.started = True
        parallel = self.backend == "dask" or self.jobs > 1
        if parallel and self.client is None:
            warm_in_subprocess(True, self.search)
        if self.backend == "dask":
            if self.client is None:
                try:
                    from dask.distributed import Client, LocalCluster
                except ImportError:
                    raise SpadesError("backend dask needs dask[distributed]: pip install "
                                      "'spades_sim[dask]'")
                self.cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1,
                                            processes=True)
                self.client = Client(self.cluster)
            warm_dask_workers(self.client, (True, self.search, False))

    def differences(self, pairs, rules, seed: int, n_boards: int) -> list[np.ndarray]:
        """The per-board differences (float64[n_boards]) of every ``(candidate, opponent)``
        pair on boards ``0 .. n_boards - 1`` of ``seed``, in the order of ``pairs``."""
        pairs = list(pairs)
        self._start()
        parts = -(-self.width // max(1, len(pairs))) if self.width > 1 else 1
        pieces = _pieces(n_boards, parts)
        tasks = [(candidate, opponent, rules, seed, first, count)
                 for candidate, opponent in pairs for first, count in pieces]
        if self.backend == "loky" and self.jobs == 1:
            results = [_task(*task) for task in tasks]
        else:
            from joblib import Parallel, delayed, parallel_config

            if self.backend == "loky":
                config = parallel_config(backend="loky", n_jobs=min(self.jobs, len(tasks)))
            else:
                config = parallel_config(backend="dask", n_jobs=-1)
            with config:
                results = Parallel()(delayed(_task)(*task) for task in tasks)
        return [np.concatenate(results[index:index + len(pieces)])
                for index in range(0, len(results), len(pieces))]


def uses_search(strategies) -> bool:
    """Whether any of ``strategies`` is an ``mc`` strategy (it needs the search kernels)."""
    return any(isinstance(strategy, Strategy) and strategy.kind.name == "mc"
               for strategy in strategies)
