"""Runs that scale: throughput of a chunked Parquet run with 1 and 2 jobs, and peak memory.

    .venv/bin/python benchmarks/run_scaling.py [--hands 4000000] [--memory-hands 10000000]

1. Throughput. A ``--hands`` run (default 4 M, classic rules, heuristic players, chunks of 100,000
   hands) is played with ``jobs=1`` and then ``jobs=2`` through ``spades_sim.run.execute``:
   every hand is simulated, turned into the tidy frame and written to a zstd Parquet chunk file,
   exactly what ``spades-sim simulate --out`` does. Start-up is excluded: before the timed runs a
   warm-up run (same configuration, small chunks) loads the kernels in this process (``jobs=1``
   plays here) or starts the reusable loky pool and loads the kernels in both workers
   (``jobs=2``); the timed figure is ``execute``'s own ``seconds`` (the chunk loop only, from
   the first chunk dispatched to the last file renamed). Each timed run writes into a fresh
   directory; ``--repeats`` runs of each, the median is the headline.

2. Peak memory. A ``--memory-hands`` run (default 10 M) with ``--jobs 2`` is started as the real
   command (``python -m spades_sim.cli simulate ... --jobs 2 --out DIR --quiet --json``) in a
   child process. Every ``--interval`` seconds (default 0.02) the script reads ``/proc`` for that
   process and all its descendants (the loky workers, loky's resource tracker, the runner's
   short-lived kernel warm-up process): ``peak_rss_sum_mib`` is the peak of their summed
   ``VmRSS``; ``hwm_alive_sum_mib`` the peak, over samples, of the summed ``VmHWM`` (each
   process's own high-water mark, kept by the kernel) of the processes alive at that sample, an
   upper bound on the simultaneous peak that does not depend on catching it, compared with 1 GiB
   in ``under_1_gib``; ``hwm_sum_mib`` sums every process's high-water mark whether they were
   alive together or not. Resident sizes count shared pages (libraries) once per process, so
   all of these over-count a little. The kernels normally load from numba's on-disk cache,
   filled by the throughput part; ``--cold-cache`` gives the child an empty ``NUMBA_CACHE_DIR``
   instead, to measure a first run (the kernels are compiled, which takes far more memory than
   playing).

The engine's cache folder is named by a hash of the engine sources; the result records it at the
start and at the end (``engine_changed`` is true when the sources were edited during the
measurement, which makes the figures worthless: the workers compiled).

Prints one JSON object and appends it to ``benchmarks/history.jsonl`` (``--no-history`` to
skip). Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from spades_sim.bench import publish, stamp

MIB = 1 << 20


def _spec(n_hands: int, chunk_size: int, seed: int, strategy: str):
    from spades_sim.core.rules import preset
    from spades_sim.run import RunSpec, make_config

    config = make_config("classic", preset("classic"), [strategy])
    return RunSpec((config,), seed, n_hands=n_hands, chunk_size=chunk_size)


def measure_throughput(jobs: int, n_hands: int, chunk_size: int, seed: int, strategy: str,
                       repeats: int, workdir: Path) -> dict:
    from spades_sim.run import execute

    warm = _spec(max(8 * 2000, 2000 * 4 * jobs), 2000, seed + 1, strategy)
    started = time.perf_counter()
    execute(warm, workdir / f"warm-{jobs}", jobs=jobs, quiet=True)
    warm_seconds = time.perf_counter() - started
    shutil.rmtree(workdir / f"warm-{jobs}")
    runs = []
    for repeat in range(repeats):
        out = workdir / f"jobs{jobs}-{repeat}"
        summary = execute(_spec(n_hands, chunk_size, seed, strategy), out, jobs=jobs, quiet=True)
        assert summary["played_chunks"] == summary["chunks"], summary
        size = sum(p.stat().st_size for p in out.iterdir())
        shutil.rmtree(out)
        runs.append({"seconds": summary["seconds"], "rate": summary["rate"],
                     "bytes_on_disk": size})
        print(f"jobs {jobs}, run {repeat + 1}/{repeats}: {n_hands:,} hands in "
              f"{summary['seconds']:.2f} s = {summary['rate']:,.0f} hands/s", file=sys.stderr)
    rates = [r["rate"] for r in runs]
    return {"jobs": jobs, "warmup_seconds": warm_seconds, "runs": runs,
            "rate_median": statistics.median(rates), "rate_best": max(rates),
            "seconds_median": statistics.median(r["seconds"] for r in runs)}


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        # The command name (in parentheses) may hold spaces; the parent pid follows it.
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def _tree(root: int) -> list[int]:
    children = _children_map()
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def _status_kib(pid: int) -> tuple[str, int, int] | None:
    """``(name, VmRSS, VmHWM)`` in KiB, or None when the process is gone (or a zombie)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            text = handle.read()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
    if "VmRSS" not in fields:
        return None
    return (fields["Name"].strip(), int(fields["VmRSS"].split()[0]),
            int(fields["VmHWM"].split()[0]))


def measure_memory(n_hands: int, chunk_size: int, seed: int, strategy: str, interval: float,
                   workdir: Path, cold_cache: bool = False) -> dict:
    out = workdir / "memory"
    command = [sys.executable, "-m", "spades_sim.cli", "simulate", "--hands", str(n_hands),
               "--chunk-size", str(chunk_size), "--seed", str(seed), "--strategy", strategy,
               "--jobs", "2", "--out", str(out), "--quiet", "--json"]
    env = dict(os.environ)
    if cold_cache:
        env["NUMBA_CACHE_DIR"] = str(workdir / "empty-numba-cache")
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env)
    peak_sum_kib, peak_count, peak_alive_hwm_kib, samples = 0, 0, 0, 0
    hwm: dict[int, tuple[str, int]] = {}
    while process.poll() is None:
        total, alive_hwm, count = 0, 0, 0
        for pid in _tree(process.pid):
            status = _status_kib(pid)
            if status is None:
                continue
            name, rss, high = status
            total += rss
            alive_hwm += high
            count += 1
            hwm[pid] = (name, max(high, hwm.get(pid, (name, 0))[1]))
        if total > peak_sum_kib:
            peak_sum_kib, peak_count = total, count
        peak_alive_hwm_kib = max(peak_alive_hwm_kib, alive_hwm)
        samples += 1
        time.sleep(interval)
    wall = time.perf_counter() - started
    stdout, stderr = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"memory run failed ({process.returncode}): {stderr.strip()}")
    summary = json.loads(stdout)
    size = sum(p.stat().st_size for p in out.iterdir())
    shutil.rmtree(out)
    per_process = sorted(({"pid": pid, "name": name, "hwm_mib": round(kib / 1024, 1)}
                          for pid, (name, kib) in hwm.items()), key=lambda p: p["pid"])
    hwm_sum = sum(kib for _, kib in hwm.values())
    return {
        "hands": n_hands, "jobs": 2, "chunk_size": chunk_size, "cold_cache": cold_cache,
        "peak_rss_sum_mib": round(peak_sum_kib / 1024, 1),
        "processes_at_peak": peak_count,
        "hwm_alive_sum_mib": round(peak_alive_hwm_kib / 1024, 1),
        "hwm_sum_mib": round(hwm_sum / 1024, 1),
        "under_1_gib": peak_alive_hwm_kib * 1024 < 1 << 30,
        "per_process": per_process,
        "samples": samples, "interval_s": interval,
        "wall_seconds": wall, "run_seconds": summary["seconds"], "run_rate": summary["rate"],
        "bytes_on_disk": size,
        "method": "the command and its descendants (/proc/PID/stat parent links), sampled every "
                  f"{interval} s: the peak of their summed VmRSS (peak_rss_sum_mib); the peak "
                  "over samples of the summed VmHWM (kernel high-water marks) of the processes "
                  "alive together (hwm_alive_sum_mib, an upper bound on the simultaneous peak, "
                  "compared with 1 GiB); and each process's VmHWM, summed over all processes "
                  "whether alive together or not (hwm_sum_mib)",
    }


def _engine_cache() -> str:
    from spades_sim.engine.toolchain import cache_dir

    return Path(cache_dir()).name


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=4_000_000,
                        help="throughput run size (0 skips it)")
    parser.add_argument("--memory-hands", type=int, default=10_000_000,
                        help="memory run size (0 skips it)")
    parser.add_argument("--chunk-size", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strategy", default="heuristic")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--interval", type=float, default=0.02, help="memory sampling, seconds")
    parser.add_argument("--cold-cache", action="store_true",
                        help="memory run with an empty numba cache (a first run: compiles)")
    parser.add_argument("--workdir", help="where the runs are written (default: a temporary "
                        "directory, removed at the end)")
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args(argv)

    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="run-scaling-"))
    workdir.mkdir(parents=True, exist_ok=True)
    engine_before = _engine_cache()
    one = two = memory = None
    try:
        if args.hands:
            one = measure_throughput(1, args.hands, args.chunk_size, args.seed, args.strategy,
                                     args.repeats, workdir)
            two = measure_throughput(2, args.hands, args.chunk_size, args.seed, args.strategy,
                                     args.repeats, workdir)
        if args.memory_hands:
            memory = measure_memory(args.memory_hands, args.chunk_size, args.seed,
                                    args.strategy, args.interval, workdir, args.cold_cache)
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    result = {
        "benchmark": "run_scaling",
        "rules": "classic", "strategies": [args.strategy] * 4, "hands": args.hands,
        "chunk_size": args.chunk_size, "seed": args.seed, "repeats": args.repeats,
        "jobs1": one, "jobs2": two,
        "speedup_median": two["rate_median"] / one["rate_median"] if one else None,
        "speedup_best": two["rate_best"] / one["rate_best"] if one else None,
        "memory": memory,
        "engine_cache": engine_before, "engine_changed": _engine_cache() != engine_before,
        **stamp(),
    }
    publish(result, history=not args.no_history)
    return 0


if __name__ == "__main__":
    sys.exit(main())
