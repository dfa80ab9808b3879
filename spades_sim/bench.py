"""`spades-sim bench`: warm hands per second per core, compile time reported apart.

Each worker process compiles (or loads) the kernel on a small warm-up batch, checks that batch
(every hand's tricks sum to the hand size, every score equals the scoring function applied to the
record), then plays its share of hands in chunks into pre-allocated record arrays: all per-hand
records are written and summed per chunk, none skipped. Only the chunks are timed, each on its
own. A table with plug-ins is timed as a run plays it (``_plugin_worker``).

The machines this runs on are shared, and a neighbour's load only ever slows a chunk down, so the
headline ``hands_per_second`` is the fastest chunk's rate (as ``timeit`` takes the minimum);
``hands_per_second_median`` and the whole-run rate are reported beside it.
"""

from __future__ import annotations

import json
import os
import platform
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .core import schema
from .core.rules import Rules
from .core.seeding import stream_keys
from .core.strategies import PluginStrategy, Strategy
from .core.version import commit
from .engine.calls import filter_tuple, hands_kernel, kernel_strategies
from .engine.scoring import score_hand_nb
from .game import dispatch

CHUNK = 1 << 19
HISTORY = Path(__file__).resolve().parent.parent / "benchmarks" / "history.jsonl"


def _check_chunk(rules: Rules, out) -> None:
    players, n_sides = rules.players, rules.n_sides
    tricks = out.tricks[:, :players].astype(np.int64).sum(axis=1)
    if not np.all(tricks == rules.hand_size):
        raise AssertionError("bench check failed: tricks do not sum to the hand size")
    rules_tuple = rules.kernel_tuple()
    delta = np.zeros(4, np.int64)
    bags = np.zeros(4, np.int64)
    for row in range(min(len(out.hand_id), 2000)):
        score_hand_nb(rules_tuple, out.bids[row].astype(np.int64), out.blind[row].astype(np.int64),
                      out.tricks[row].astype(np.int64), out.bags_before[row].astype(np.int64),
                      delta, bags)
        if not np.array_equal(delta[:n_sides], out.score_delta[row, :n_sides]):
            raise AssertionError(f"bench check failed: hand {row} scored inconsistently")


PLUGIN_CHUNK = 1 << 14  # plug-ins: smaller chunks (a Python one plays thousands a second)


def _timed_chunks(play, first: int, n_hands: int, chunk: int, compile_seconds: float) -> dict:
    """Play ``n_hands`` hands from ``first`` in chunks, ``play(first, count)`` returning each
    chunk's record arrays; time every chunk on its own."""
    checksum = done = 0
    rates = []
    seconds = 0.0
    while done < n_hands:
        count = min(chunk, n_hands - done)
        started = time.perf_counter()
        out = play(first + done, count)
        elapsed = time.perf_counter() - started
        seconds += elapsed
        rates.append(count / elapsed)
        checksum += int(out.score_delta.sum())
        done += count
    return {"hands": n_hands, "seconds": seconds, "compile_seconds": compile_seconds,
            "checksum": checksum, "best": max(rates), "median": float(np.median(rates))}


def _plugin_worker(rules: Rules, strategies, seed: int, first: int, n_hands: int) -> dict:
    """The bench of a table with plug-ins: each chunk played as a run plays it
    (``game/dispatch.py``: a numba plug-in in the engine, a Python one through the API),
    its record arrays allocated and filled."""
    keys = stream_keys(seed)
    started = time.perf_counter()
    warm = dispatch.play_hands(rules, strategies, keys, first, 64)
    compile_seconds = time.perf_counter() - started
    _check_chunk(rules, warm)

    def play(start, count):
        return dispatch.play_hands(rules, strategies, keys, start, count)

    return _timed_chunks(play, first, n_hands, min(PLUGIN_CHUNK, max(n_hands, 1)),
                         compile_seconds)


def _worker(rules: Rules, strategies, seed: int, first: int, n_hands: int) -> dict:
    if any(isinstance(strategy, PluginStrategy) for strategy in strategies):
        return _plugin_worker(rules, strategies, seed, first, n_hands)
    kinds, params = kernel_strategies(strategies, rules)
    simulate_hands_nb = hands_kernel(kinds)
    deal_key, play_key = stream_keys(seed)
    rules_tuple = rules.kernel_tuple()
    no_games = schema.allocate_games(0)
    no_filter = filter_tuple(rules)
    started = time.perf_counter()
    warm = schema.allocate_hands(4096, False)
    simulate_hands_nb(rules_tuple, kinds, params, deal_key, play_key, first, warm, no_games, False,
                      no_filter)
    compile_seconds = time.perf_counter() - started
    _check_chunk(rules, warm)
    chunk = min(CHUNK, max(n_hands, 1))
    out = schema.allocate_hands(chunk, False)
    for array in out:
        array.fill(0)  # touch the pages before timing

    def play(start, count):  # into the pre-allocated arrays
        view = schema.take(out, count)
        simulate_hands_nb(rules_tuple, kinds, params, deal_key, play_key, start, view,
                          no_games, False, no_filter)
        return view

    return _timed_chunks(play, first, n_hands, chunk, compile_seconds)


def run_bench(rules: Rules, strategies: list[Strategy], n_hands: int, jobs: int,
              seed: int = 0, record_history: bool = True) -> dict:
    """Measure; returns the result object that ``--json`` prints."""
    shares = [n_hands // jobs + (1 if i < n_hands % jobs else 0) for i in range(jobs)]
    firsts = np.concatenate([[0], np.cumsum(shares)[:-1]]).astype(int)
    if jobs == 1:
        results = [_worker(rules, strategies, seed, 0, n_hands)]
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=jobs)(
            delayed(_worker)(rules, strategies, seed, int(first), share)
            for first, share in zip(firsts, shares)
        )
    wall = max(r["seconds"] for r in results)
    result = {
        "strategies": [str(s) for s in strategies],
        "rules": rules.preset_name,
        "hands": n_hands,
        "jobs": jobs,
        "hands_per_second": float(np.mean([r["best"] for r in results])),
        "hands_per_second_median": float(np.mean([r["median"] for r in results])),
        "hands_per_second_run": float(np.mean([r["hands"] / r["seconds"] for r in results])),
        "hands_per_second_total": n_hands / wall if wall > 0 else 0.0,
        "compile_seconds": max(r["compile_seconds"] for r in results),
        "checksum": sum(r["checksum"] for r in results),
        **stamp(),
    }
    if record_history:
        append_history(result)
    return result


def stamp() -> dict:
    """What every benchmark result records of where it ran: ``commit`` (short), ``date`` (UTC)
    and ``machine``."""
    return {"commit": commit(short=True),
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": f"{platform.machine()} {os.cpu_count()} cpus"}


def publish(result: dict, history: bool = True) -> None:
    """Print a benchmark result as one JSON line and, with ``history``, append it to
    ``benchmarks/history.jsonl``."""
    print(json.dumps(result))
    if history:
        append_history(result)


def append_history(result: dict) -> None:
    """Append one benchmark result as a JSON line to ``benchmarks/history.jsonl`` (what every
    benchmark records; nothing when the file cannot be written, as in an installed package)."""
    try:
        HISTORY.parent.mkdir(parents=True, exist_ok=True)
        with HISTORY.open("a") as handle:
            handle.write(json.dumps(result) + "\n")
    except OSError:
        pass
