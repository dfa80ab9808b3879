"""A Spades run on a Dask cluster started through the batch system (SLURM or PBS).

    pip install dask-jobqueue              # into the project's .venv, on the login node
    .venv/bin/python examples/dask_jobqueue.py --out /scratch/$USER/spades/run1

dask-jobqueue submits ordinary batch jobs, each starting Dask workers that connect back to the
scheduler this script runs; ``execute(..., backend="dask", scheduler=ADDRESS)`` then sends every
missing chunk to the workers as a task. Each worker writes its chunk files itself, so ``--out``
must be an absolute path on a filesystem that every node sees. Interrupt it at any time (or lose
workers to the walltime) and run the same command again: finished chunks are skipped.

The same cluster can serve the command line while this script (or any Python session holding the
cluster) is alive:

    spades-sim simulate ... --out DIR --backend dask --scheduler tcp://10.0.0.5:8786

The keyword names below are those of dask-jobqueue 0.8 and later (``job_script_prologue``,
``job_extra_directives``, ``worker_extra_args``); adapt the queue, account and resources to your
site. This example is not run by the tests.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from spades_sim.core.rules import preset
from spades_sim.run import RunSpec, execute, make_config, run_status

REPO = Path(__file__).resolve().parent.parent
# This script is named after the package it uses; run as a script, its own directory comes first
# on the import path and `import dask_jobqueue` would import the script itself. Drop it.
HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]


def start_cluster(kind: str, jobs: int):
    """``jobs`` batch jobs of 8 single-threaded worker processes each.

    One thread per worker process: a chunk is CPU-bound Python and numba work, so threads in one
    process would mostly wait for each other. About 0.6 GB per worker process covers a chunk of
    100,000 hands of two configurations in duplicate mode.
    """
    prologue = [f"source {REPO}/.venv/bin/activate",
                "export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1"]
    common = dict(cores=8, processes=8, memory="8GB", walltime="02:00:00",
                  job_script_prologue=prologue, log_directory="logs/dask",
                  local_directory="$TMPDIR", python=f"{REPO}/.venv/bin/python")
    if kind == "slurm":
        from dask_jobqueue import SLURMCluster

        cluster = SLURMCluster(queue="cpu", account="myproject",
                               job_extra_directives=["--output=logs/dask/%j.out"], **common)
    else:
        from dask_jobqueue import PBSCluster

        cluster = PBSCluster(queue="workq", account="myproject",
                             resource_spec="select=1:ncpus=8:mem=8GB", **common)
    cluster.scale(jobs=jobs)  # or cluster.adapt(minimum_jobs=1, maximum_jobs=jobs)
    return cluster


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="run directory on a shared filesystem")
    parser.add_argument("--kind", choices=("slurm", "pbs"), default="slurm")
    parser.add_argument("--jobs", type=int, default=4, help="batch jobs to start")
    parser.add_argument("--hands", type=int, default=100_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    # Two configurations on the same deals (common random numbers): the same rules, the
    # heuristic against a more aggressive heuristic partnership.
    classic = preset("classic")
    spec = RunSpec(
        (make_config("baseline", classic, ["heuristic"]),
         make_config("aggressive-ns", classic, ["heuristic:aggression=0.5", "heuristic"] * 2)),
        seed=args.seed, n_hands=args.hands, chunk_size=100_000, duplicate=True)
    out = Path(args.out).resolve()  # workers on other nodes need an absolute path

    cluster = start_cluster(args.kind, args.jobs)
    print(f"scheduler {cluster.scheduler_address}; dashboard {cluster.dashboard_link}",
          file=sys.stderr)
    try:
        summary = execute(spec, out, backend="dask", scheduler=cluster.scheduler_address)
    finally:
        cluster.close()
    print(summary)
    status = run_status(out)
    print(f"{status['units_done']:,}/{status['units']:,} hands; complete: {status['complete']}")
    if status["complete"]:
        mean, error = paired_difference(out, "aggressive-ns", "baseline")
        print(f"north-south score per hand, aggressive-ns - baseline: {mean:+.3f} "
              f"(standard error {error:.3f})")
    return 0


def paired_difference(out: Path, config: str, baseline: str) -> tuple[float, float]:
    """Mean and standard error of the per-deal difference of north-south's score between two
    configurations, read one chunk file at a time (memory stays bounded by a chunk).

    Both configurations played the same deals, so the difference is paired, deal by deal (and,
    in duplicate mode, copy by copy: seat 0 is north-south's strategy in both copies).
    """
    import numpy as np
    import pyarrow.parquet as pq

    count, total, squares = 0, 0.0, 0.0
    for path in sorted(out.glob("chunk-*.parquet")):
        table = pq.read_table(path, columns=["config", "duplicate", "hand_id", "score_delta"],
                              filters=[("seat", "==", 0)])
        frame = table.to_pandas()
        wide = frame.pivot_table(index=["hand_id", "duplicate"], columns="config",
                                 values="score_delta", observed=True)
        difference = (wide[config] - wide[baseline]).to_numpy(dtype=np.float64)
        count += len(difference)
        total += difference.sum()
        squares += (difference ** 2).sum()
    mean = total / count
    variance = (squares - count * mean ** 2) / (count - 1)
    return mean, (variance / count) ** 0.5
    return 0


if __name__ == "__main__":
    sys.exit(main())
