"""Executing a run into its folder: the missing chunks, on joblib's processes or a Dask cluster,
with progress; the kernels compiled once before the workers start.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from ..core.errors import RunError
from ..core.rules import preset
from .dataset import CHUNK_PATTERN, chunk_done, prepare_dir, write_chunk
from .memory import play_chunk
from .spec import RunSpec, make_config, shard_chunks


class Progress:
    """A one-line progress bar on stderr (hands done, rate, time left); silent when stderr is
    not a terminal or when ``quiet``."""

    def __init__(self, total: int, unit: str, done: int = 0, quiet: bool = False):
        self.total, self.unit, self.done = total, unit, done
        self.start_done = done
        self.started = time.monotonic()
        self.enabled = not quiet and sys.stderr.isatty()
        self.show()

    def advance(self, count: int) -> None:
        self.done += count
        self.show()

    def show(self) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        rate = (self.done - self.start_done) / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else float("nan")
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        eta = f"{left / 60:.1f} min left" if left == left else "--"
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done:,}/"
                         f"{self.total:,} {self.unit}  {rate:,.0f}/s  {eta}   ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def execute(spec: RunSpec, out, *, jobs: int = 1, backend: str = "loky",
            scheduler: str | None = None, shard: tuple[int, int] | None = None,
            quiet: bool = False) -> dict:
    """Play the run's missing chunks (of ``shard`` when given) into ``out``.

    ``backend``: ``loky`` (joblib processes on this machine, ``jobs`` of them) or ``dask``
    (the chunks become tasks on the Dask cluster at ``scheduler``, through joblib's Dask
    backend; ``scheduler=None`` starts a local cluster). Returns a summary dict.
    """
    out = Path(out).resolve()  # workers may run elsewhere (another directory, a Dask node)
    prepare_dir(spec, out)
    mine = shard_chunks(spec, shard)
    pending = [c for c in mine if not chunk_done(spec, out, c)]
    for chunk in pending:  # temporary files a killed run left behind (this shard's only)
        for stale in out.glob(f".{CHUNK_PATTERN.format(chunk)}.*.tmp"):
            stale.unlink(missing_ok=True)
    total_units = sum(spec.chunk_range(c)[1] for c in mine)
    done_units = total_units - sum(spec.chunk_range(c)[1] for c in pending)
    warmup = time.perf_counter()
    if backend == "loky" and jobs > 1 and len(pending) > 1:
        search = any(strategy.kind.name == "mc" for config in spec.configs
                     for strategy in config.strategies)
        _warm_in_subprocess(spec.games_mode, search)
    warmup = time.perf_counter() - warmup
    progress = Progress(total_units, spec.unit_name, done_units, quiet)
    started = time.perf_counter()
    try:
        if pending:
            _run_chunks(spec, out, pending, jobs, backend, scheduler, progress)
    finally:
        progress.close()
    seconds = time.perf_counter() - started
    played = sum(spec.chunk_range(c)[1] for c in pending)
    return {"out": str(out), "chunks": len(mine), "played_chunks": len(pending),
            "skipped_chunks": len(mine) - len(pending), "units": played,
            "seconds": seconds, "rate": played / seconds if seconds > 0 else 0.0,
            "warmup_seconds": warmup}


def warm_kernels(games: bool = False, search: bool = False) -> None:
    """Compile the entry kernel of hands (or of ``games``), and with ``search`` the one that
    plays ``mc`` seats too, or load them from numba's disk cache, with a tiny run."""
    rules = preset("classic", max_hands=1)
    units = {"n_games": 1} if games else {"n_hands": 1}
    configs = [make_config("warm", rules, ["random"])]
    if search:
        configs.append(make_config("warm-search", rules, ["mc:samples=1"]))
    play_chunk(RunSpec(tuple(configs), 0, chunk_size=1, **units), 0)


def _warm_in_subprocess(games: bool, search: bool = False) -> None:
    """Fill numba's disk cache from a short-lived process before the workers start: compiling
    takes several hundred MiB per process, which workers compiling at once would all hold (a
    10-million-hand run with two workers stays under 1 GiB only this way), and the workers then
    merely load the compiled kernels."""
    subprocess.run([sys.executable, "-c", "from spades_sim.run.execute import warm_kernels; "
                    f"warm_kernels(games={bool(games)}, search={bool(search)})"], check=False,
                   timeout=1800)


def _run_chunks(spec, out, pending, jobs, backend, scheduler, progress) -> None:
    from joblib import Parallel, delayed, parallel_config

    if backend == "loky" and jobs == 1:
        for chunk in pending:
            progress.advance(write_chunk(spec, out, chunk))
        return
    tasks = (delayed(write_chunk)(spec, out, chunk) for chunk in pending)
    if backend == "loky":
        with parallel_config(backend="loky", n_jobs=jobs):
            for count in Parallel(return_as="generator_unordered")(tasks):
                progress.advance(count)
        return
    if backend != "dask":
        raise RunError(f"backend {backend!r}: expected loky or dask")
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise RunError("backend dask needs dask[distributed]: pip install 'spades_sim[dask]'")
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        with parallel_config(backend="dask", n_jobs=-1):
            for count in Parallel(return_as="generator_unordered")(tasks):
                progress.advance(count)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
