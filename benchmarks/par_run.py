"""How long the par experiment takes end to end: ``spades-sim run experiments/par.toml``, from
start-up to the written report, into a temporary folder.

    python benchmarks/par_run.py                      # the 100,000 hands, --jobs 2 (about an hour)
    python benchmarks/par_run.py --jobs 2 --no-history

The command runs as a child under ``/usr/bin/time -v`` with fresh ``--out`` and ``--reports``
folders (``results/`` and ``reports/`` are not touched), so every chunk is played. Recorded as a
``par_run`` line in ``benchmarks/history.jsonl``: ``hands``, ``jobs``, ``seconds`` (wall clock,
start-up and report included), ``cpu_seconds`` (user and system time of the command and its
workers), ``peak_mb`` (the largest resident set of any one process), ``load`` (the machine's
one-minute load average before the run: the machine may be shared), ``csv_identical``
(whether every CSV of the report is byte for byte the shipped ``reports/par/``'s: the same
answers), with the commit it measured.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spades_sim.bench import publish, stamp  # noqa: E402
from spades_sim.experiment.parse import load_experiment  # noqa: E402


def measure(experiment: Path, jobs: int, spades_sim: Path) -> dict:
    """Run the experiment once, timed (the fields of the module docstring)."""
    work = Path(tempfile.mkdtemp(prefix="spades-par-run-"))
    load = os.getloadavg()[0]
    command = ["/usr/bin/time", "-v", str(spades_sim), "run", str(experiment), "--jobs",
               str(jobs), "--out", str(work / "results"), "--reports", str(work / "reports"),
               "--quiet"]
    try:
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"spades-sim run failed ({done.returncode}):\n{done.stderr[-3000:]}")
        fields = {key: float(re.search(rf"{label}: ([\d.]+)", done.stderr).group(1))
                  for key, label in (("user", r"User time \(seconds\)"),
                                     ("system", r"System time \(seconds\)"),
                                     ("peak_kb", r"Maximum resident set size \(kbytes\)"))}
        parsed = load_experiment(experiment)
        name = parsed.name
        built = sorted((work / "reports" / name).glob("*.csv"))
        shipped = ROOT / "reports" / name
        identical = None
        if shipped.is_dir():
            identical = [p.name for p in built] == sorted(
                p.name for p in shipped.glob("*.csv")) and all(
                p.read_bytes() == (shipped / p.name).read_bytes() for p in built)
        hands = parsed.spec("hands").n_hands
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"benchmark": "par_run", "experiment": name, "hands": hands, "jobs": jobs,
            "seconds": round(seconds, 1),
            "cpu_seconds": round(fields["user"] + fields["system"], 1),
            "peak_mb": round(fields["peak_kb"] / 1024), "load": round(load, 2),
            "csv_identical": identical, **stamp()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiment", type=Path, default=ROOT / "experiments" / "par.toml")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-history", action="store_true",
                        help="print the result only; do not append it to history.jsonl")
    args = parser.parse_args(argv)
    if not Path("/usr/bin/time").exists():
        raise SystemExit("par_run.py needs /usr/bin/time (GNU time) for the peak memory")
    spades_sim = Path(sys.executable).with_name("spades-sim")
    publish(measure(args.experiment, args.jobs, spades_sim), history=not args.no_history)
    return 0


if __name__ == "__main__":
    sys.exit(main())
