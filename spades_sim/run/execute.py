"""Executing a run into its folder: the missing chunks, on joblib's processes or a Dask cluster,
with progress; the kernels compiled once before the workers start (on a Dask cluster, loaded by
every worker before its first chunk: ``dask_warm.py``). Options are checked and the
scheduler reached before anything is written; the run's share of chunks is locked while it
plays (``locks.claim_share``), and workers stop when that lock's holder is gone.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

from ..core.errors import RunError
from ..core.limits import MAX_JOBS
from .cluster import connect_scheduler, kernel_needs, warm_dask_workers, warm_in_subprocess
from .dataset import (
    check_dir,
    pending_chunks,
    place_chunk,
    prepare_dir,
    read_meta,
    store_chunk,
    write_chunk,
)
from .folder import short_reason
from .heap import keep_heap_in_worker
from .locks import claim_share
from .memory import play_chunk_stored, spec_acceptance
from .spec import RunSpec, shard_chunks

#: Seconds between the plain progress lines written when standard error is not a terminal.
LOG_SECONDS = 60.0
_BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} UNIT [{elapsed}<{remaining}, {rate_fmt}]"


def _in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (``tqdm.auto`` then draws a notebook widget)."""
    return "ipykernel" in sys.modules


class Progress:
    """Progress of a run on stderr, through ``tqdm``; nothing when ``quiet``.

    On a terminal (or in a Jupyter notebook, through ``tqdm.auto``): a live ``tqdm`` bar
    (units done, rate, time left). Elsewhere (batch logs, pipes): no carriage returns, only a
    plain line (tqdm's counts, rate and time left) every :data:`LOG_SECONDS` seconds, and a
    last one at the end when any was written, so a short run writes nothing and a long one
    leaves a readable log.
    """

    def __init__(self, total: int, unit: str, done: int = 0, quiet: bool = False):
        self.total, self.unit, self.done = total, unit, done
        self.start_done = done
        self.started = time.monotonic()
        self.bar = None
        self.logging = False
        self.logged_at = self.started
        self.lines, self.logged_done = 0, done
        if quiet:
            return
        if sys.stderr.isatty() or _in_notebook():
            if _in_notebook() and not sys.stderr.isatty():
                from tqdm.auto import tqdm
            else:
                from tqdm import tqdm
            self.bar = tqdm(total=total, initial=done, unit=unit, file=sys.stderr,
                            mininterval=0.5, dynamic_ncols=True, leave=True,
                            bar_format=_BAR_FORMAT.replace("UNIT", unit))
        else:
            self.logging = True

    def advance(self, count: int) -> None:
        self.done += count
        if self.bar is not None:
            self.bar.update(count)
        elif self.logging and time.monotonic() - self.logged_at >= LOG_SECONDS:
            self.log()

    def log(self) -> None:
        """One plain progress line on stderr."""
        from tqdm import tqdm

        now = time.monotonic()
        elapsed = now - self.started
        rate = (self.done - self.start_done) / elapsed if elapsed > 0 else None
        text = tqdm.format_meter(self.done, self.total, elapsed, unit=self.unit, rate=rate,
                                 initial=self.start_done,
                                 bar_format="{n_fmt}/{total_fmt} " + self.unit
                                 + " ({percentage:.0f}%), {rate_fmt}, {elapsed} elapsed, "
                                   "{remaining} left")
        sys.stderr.write(f"spades-sim: {text}\n")
        sys.stderr.flush()
        self.logged_at, self.lines, self.logged_done = now, self.lines + 1, self.done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.logging and self.lines and self.logged_done != self.done:
            self.log()


def execute(spec: RunSpec, out, *, jobs: int = 1, backend: str = "loky",
            scheduler: str | None = None, shard: tuple[int, int] | None = None,
            quiet: bool = False) -> dict:
    """Play the run's missing chunks (of ``shard`` when given) into ``out``.

    ``backend``: ``loky`` (joblib processes on this machine, ``jobs`` of them, never more than
    the chunks to play nor ``MAX_JOBS``) or ``dask`` (the chunks become tasks on the Dask
    cluster at ``scheduler``, through joblib's Dask backend; ``scheduler=None`` starts a local
    cluster). Everything is checked before anything is written; the share of chunks is locked
    for the run (another writer of the same chunks gets a ``RunError`` naming this one).
    Returns a summary dict.
    """
    if not isinstance(spec, RunSpec):
        raise RunError(f"execute: expected a RunSpec, found {type(spec).__name__}")
    if backend not in ("loky", "dask"):
        raise RunError(f"backend {backend!r}: expected loky or dask")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise RunError(f"jobs: {jobs!r} is not a positive integer")
    if shard is not None:
        shard = _check_shard(shard)
    out = Path(out).resolve()  # workers may run elsewhere (another directory, a Dask node)
    if spec.deal_filter is not None and "deal_filter" not in spec.extra:
        # Measured before anything is written (a filter that accepts nothing fails here); it
        # goes to meta.json (spec.extra) and the summary.
        spec.extra["deal_filter"] = spec_acceptance(spec)
    client = connect_scheduler(scheduler) if backend == "dask" and scheduler is not None else None
    try:
        check_dir(spec, out)  # (another run: refused before anything is written)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise RunError(f"{out}: cannot create the run folder ({short_reason(error)})")
        with claim_share(out, spec, shard) as writer:
            prepare_dir(spec, out, shard)  # (under the lock: a refused writer wrote nothing)
            summary = _execute(spec, out, writer, jobs, backend, client, shard, quiet)
            if spec.deal_filter is not None:
                summary["deal_filter"] = spec.extra["deal_filter"]
            return summary
    finally:
        if client is not None:
            client.close()


def _execute(spec, out, writer, jobs, backend, client, shard, quiet) -> dict:
    mine = shard_chunks(spec, shard)
    pending = pending_chunks(out, spec, mine)
    jobs = max(1, min(jobs, len(pending), MAX_JOBS))
    total_units = sum(spec.chunk_range(c)[1] for c in mine)
    done_units = total_units - sum(spec.chunk_range(c)[1] for c in pending)
    warmup = time.perf_counter()
    needs = kernel_needs(spec)
    if pending and ((backend == "loky" and jobs > 1) or (backend == "dask" and client is None)):
        # (a local Dask cluster's workers share this machine's numba cache too)
        warm_in_subprocess(*needs)
    warmup = time.perf_counter() - warmup
    progress = Progress(total_units, spec.unit_name, done_units, quiet)
    started = time.perf_counter()
    try:
        if pending:
            run_hash = read_meta(out)["identity_sha256"]
            tasks = [(spec, out, chunk, writer, run_hash) for chunk in pending]
            for chunk, count in _run_chunks(tasks, jobs, backend, client):
                if count == 0:
                    raise RunError(f"{out}: chunk {chunk} was abandoned: its worker no longer "
                                   f"saw this run's lock {writer.lock_name} (was it removed?)")
                progress.advance(count)
    finally:
        progress.close()
    seconds = time.perf_counter() - started
    played = sum(spec.chunk_range(c)[1] for c in pending)
    return {"out": str(out), "chunks": len(mine), "played_chunks": len(pending),
            "skipped_chunks": len(mine) - len(pending), "units": played,
            "seconds": seconds, "rate": played / seconds if seconds > 0 else 0.0,
            "warmup_seconds": warmup}


def _check_shard(shard) -> tuple[int, int]:
    try:
        index, count = shard
    except (TypeError, ValueError):
        raise RunError(f"shard {shard!r}: expected (I, N)")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (index, count)) \
            or not 1 <= index <= count:
        raise RunError(f"shard {shard!r}: expected (I, N) with 1 <= I <= N")
    return index, count


def _store(task):
    """A worker's part of a chunk: play it and write its file under a temporary name."""
    _watch_parent()
    keep_heap_in_worker()  # (the next chunk reuses this one's pages: ``run/heap.py``)
    spec, out, chunk, writer, run_hash = task
    return chunk, store_chunk(spec, out, chunk, writer, run_hash)


#: Seconds between a worker's looks at whether the process that started it is still there.
PARENT_POLL = 1.0
_WATCHING: list = []


def _watch_parent() -> None:
    """In a worker process: a daemon thread that ends the process when its parent is gone (a
    run killed with SIGKILL cannot stop its workers, and a worker in the middle of a long chunk
    would otherwise play it to the end, holding a few hundred MB, before it saw its writer's
    lock gone). The kernels release the GIL, so the thread runs while a chunk plays; the
    temporary file a worker leaves is removed by the next writer to start."""
    if _WATCHING:
        return
    parent = os.getppid()
    if threading.current_thread() is threading.main_thread():
        # Ctrl-C reaches the whole process group: the run's process stops the workers, so a
        # worker ignores it rather than print a KeyboardInterrupt traceback of its own.
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    thread = threading.Thread(target=watch, name="spades-sim-parent-watch", daemon=True)
    thread.start()
    _WATCHING.append(thread)


def _pipelined(tasks):
    """One job: this thread plays chunk k + 1 while a second one checksums and writes chunk k
    (the kernels release the GIL, and so do hashlib and the Parquet writer), so writing costs
    little time where a second core is free. The files, their order in ``meta.json`` and what
    is reported are those of playing and writing one chunk after the other."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="spades-sim-writer") as pool:
        writing = None
        for spec, out, chunk, writer, run_hash in tasks:
            table = play_chunk_stored(spec, chunk)
            if writing is not None:
                yield writing.result()
            writing = pool.submit(write_chunk, spec, out, chunk, writer, run_hash, table)
            del table
        if writing is not None:
            yield writing.result()


def _run_chunks(tasks, jobs, backend, client):
    """``(chunk, units)`` of every task as it finishes (``units`` 0: abandoned).

    On one job, :func:`_pipelined`. On several, the workers play the chunks and write their
    files under temporary names (:func:`_store`), and this process lists each in ``meta.json``
    and renames it into place as it comes back: a worker never waits for ``meta.json``'s lock
    or its flush to disk (about 10 ms a chunk with two workers), and this process, idle
    otherwise, does the waiting."""
    if backend == "loky" and jobs == 1:
        yield from _pipelined(tasks)
        return
    spec, out, _, writer, _ = tasks[0]  # (every task has the spec, the folder and the writer)
    for chunk, stored in _stored_chunks(tasks, jobs, backend, client):
        yield (chunk, 0) if stored is None else place_chunk(spec, out, stored, writer)


@contextmanager
def _quiet_abort():
    """No joblib warning when the run stops early (an interrupt, a refused chunk): joblib warns
    that the tasks it had started were cancelled, which is what stopping means here."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning,
                                message=r"\d+ tasks? (have|has) been successfully executed|"
                                        r"\d+ tasks? which (were|was) still being processed")
        yield


@contextmanager
def _terminate_as_interrupt():
    """While the workers play, SIGTERM (a batch system's stop) stops the run as an interrupt
    does: joblib then shuts its workers down instead of leaving them idle behind a dead
    parent. Only in the main thread (where signal handlers can be set)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stored_chunks(tasks, jobs, backend, client):
    """``(chunk, StoredChunk or None)`` of every task, played by the workers."""
    from joblib import Parallel, delayed, parallel_config

    calls = (delayed(_store)(task) for task in tasks)
    if backend == "loky":
        with parallel_config(backend="loky", n_jobs=jobs), _quiet_abort(), \
                _terminate_as_interrupt():
            yield from Parallel(return_as="generator_unordered")(calls)
        return
    cluster = None
    if client is None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise RunError("backend dask needs dask[distributed]: pip install "
                           "'spades_sim[dask]'")
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True)
        client = Client(cluster)
    try:
        warm_dask_workers(client, kernel_needs(tasks[0][0]))  # (every task has the spec)
        with parallel_config(backend="dask", n_jobs=-1):
            yield from Parallel(return_as="generator_unordered")(calls)
    finally:
        if cluster is not None:
            client.close()
            cluster.close()
