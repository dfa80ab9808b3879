"""Speed on disk: a run written with ``--out`` against the kernel alone, side by side.

    .venv/bin/python benchmarks/disk_speed.py [--hands 4000000] [--strategies heuristic random]

For each strategy (all four seats, classic rules) and for 1 and 2 jobs, in turns so that a
neighbour's load falls on both alike:

- the kernel: ``spades-sim bench``'s measurement (``spades_sim.bench.run_bench``: hands played
  into pre-allocated record arrays, nothing else), ``--hands`` hands; its median chunk rate (per
  job, times the jobs for two) and its fastest chunk;
- on disk: ``spades_sim.run.execute`` of a run of ``--hands`` hands in chunks of 100,000 into a
  fresh folder, what ``spades-sim simulate --out`` does: every hand played, stored (one row per
  hand, ``run/layout.py``), checksummed and written as a Parquet chunk file, listed in
  ``meta.json``. Start-up is excluded as in ``run_scaling.py``: a warm-up run first loads the
  kernels (and starts the worker pool for two jobs); the figure is ``execute``'s own rate (from
  the first chunk dispatched to the last file renamed).

``ratio``: the on-disk rate over the kernel's median chunk rate; ``ratio_fastest`` over its
fastest chunk (the figure ``spades-sim bench`` prints first). ``--repeats`` rounds; the medians
are the result. Prints one JSON object and appends it to ``benchmarks/history.jsonl``
(``--no-history`` to skip).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from spades_sim.bench import publish, stamp

CHUNK = 100_000


def _spec(strategy: str, n_hands: int, chunk_size: int, seed: int):
    from spades_sim.core.rules import preset
    from spades_sim.run import RunSpec, make_config

    config = make_config("classic", preset("classic"), [strategy])
    return RunSpec((config,), seed, n_hands=n_hands, chunk_size=chunk_size)


def kernel_rate(strategy: str, n_hands: int, jobs: int, seed: int) -> dict:
    from spades_sim.bench import run_bench
    from spades_sim.core.rules import preset
    from spades_sim.core.strategies import seat_strategies

    result = run_bench(preset("classic"), seat_strategies([strategy], 4), n_hands, jobs, seed,
                       record_history=False)
    return {"median": result["hands_per_second_median"] * jobs,
            "fastest": result["hands_per_second"] * jobs}


def disk_rate(strategy: str, n_hands: int, jobs: int, seed: int, workdir: Path) -> dict:
    from spades_sim.run import execute

    out = workdir / f"{strategy}-{jobs}-{time.monotonic_ns()}"
    summary = execute(_spec(strategy, n_hands, CHUNK, seed), out, jobs=jobs, quiet=True)
    assert summary["played_chunks"] == summary["chunks"], summary
    size = sum(p.stat().st_size for p in out.iterdir())
    shutil.rmtree(out)
    return {"rate": summary["rate"], "seconds": summary["seconds"], "bytes": size}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4_000_000)
    parser.add_argument("--strategies", nargs="+", default=["heuristic", "random"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args(argv)
    from spades_sim.core.version import engine_hash
    from spades_sim.run import execute

    workdir = Path(tempfile.mkdtemp(prefix="spades-disk-speed-"))
    results = []
    try:
        for strategy in args.strategies:
            for jobs in (1, 2):
                execute(_spec(strategy, 8 * 4000 * jobs, 4000, args.seed + 1),
                        workdir / f"warm-{strategy}-{jobs}", jobs=jobs, quiet=True)
                kernel_rate(strategy, 1 << 19, jobs, args.seed)  # (loads the kernel here)
                kernels, disks = [], []
                for repeat in range(args.repeats):
                    kernels.append(kernel_rate(strategy, args.hands, jobs, args.seed))
                    disks.append(disk_rate(strategy, args.hands, jobs, args.seed, workdir))
                    print(f"{strategy}, jobs {jobs}, round {repeat + 1}: kernel "
                          f"{kernels[-1]['median']:,.0f} hands/s, on disk "
                          f"{disks[-1]['rate']:,.0f} hands/s", file=sys.stderr)
                kernel = statistics.median(k["median"] for k in kernels)
                fastest = statistics.median(k["fastest"] for k in kernels)
                disk = statistics.median(d["rate"] for d in disks)
                results.append({
                    "strategy": strategy, "jobs": jobs, "kernel_median": kernel,
                    "kernel_fastest": fastest, "disk": disk, "ratio": disk / kernel,
                    "ratio_fastest": disk / fastest,
                    "bytes_per_hand": statistics.median(d["bytes"] for d in disks) / args.hands,
                    "rounds": [{"kernel": k, "disk": d} for k, d in zip(kernels, disks)]})
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result = {"benchmark": "disk_speed", "rules": "classic", "hands": args.hands,
              "chunk_size": CHUNK, "results": results, "engine": engine_hash()[:12],
              **stamp()}
    for row in results:
        print(f"{row['strategy']:>10}  jobs {row['jobs']}: kernel {row['kernel_median']:>12,.0f} "
              f"hands/s, on disk {row['disk']:>12,.0f} hands/s = {row['ratio']:.2f} of the "
              f"kernel ({row['ratio_fastest']:.2f} of its fastest chunk), "
              f"{row['bytes_per_hand']:.0f} bytes a hand", file=sys.stderr)
    publish(result, history=not args.no_history)
    return 0


if __name__ == "__main__":
    sys.exit(main())
