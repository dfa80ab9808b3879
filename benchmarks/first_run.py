"""A new user's first hour, timed: a fresh clone, ``make run`` and ``make test`` from an empty
numba cache, and the first uses that compile kernels (a 1,000-hand ``simulate``, an ``mc``
match, a numba plug-in), each from its own empty cache.

    python benchmarks/first_run.py                 # everything (about 20 minutes on 2 cores)
    python benchmarks/first_run.py --only uses     # the three first uses only
    python benchmarks/first_run.py --only run      # make run, then the first uses

Each measurement is appended to ``benchmarks/history.jsonl`` as a ``first_run`` record (``what``,
``seconds``, ``peak_mb``: the largest resident set of any process of the command, from
``/usr/bin/time``), with the commit it measured. The clone is made from this checkout's HEAD
into a temporary folder; pip's own download cache is kept (a user's second install is as
quick), the numba cache is not.
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

#: The first uses: what a new user types, each on an empty numba cache.
USES = {
    "first simulate --hands 1000": ["simulate", "--hands", "1000", "--seed", "1"],
    "first mc match (20 games)": ["match", "mc", "heuristic", "--rules", "classic", "--games",
                                  "10", "--seed", "1"],
    "first numba plug-in (1000 hands)": ["simulate", "--strategy",
                                         "examples/strategies/counter_numba.py:CounterNumba",
                                         "--hands", "1000", "--seed", "1"],
}


def _timed(command: list[str], cwd: Path, env: dict) -> tuple[float, float, str]:
    """``(seconds, peak MB, output tail)`` of ``command``; raises on failure."""
    timing = ["/usr/bin/time", "-v"] if Path("/usr/bin/time").exists() else []
    started = time.perf_counter()
    done = subprocess.run(timing + command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n"
                         f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    return seconds, int(peak.group(1)) / 1024 if peak else float("nan"), done.stderr[-600:]


def _record(what: str, seconds: float, peak: float, note: str = "", *, commit: str) -> None:
    """Append one measurement, stamped with the commit the clone was made at (this checkout's
    HEAD may move on while the measurement runs)."""
    publish({"benchmark": "first_run", "what": what, "seconds": round(seconds, 1),
             "peak_mb": round(peak), "note": note, **stamp(), "commit": commit})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["make", "run", "uses"],
                        help="make: make run and make test; run: make run and the first uses; "
                             "uses: the first uses")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="spades-first-run-"))
    try:
        clone = work / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, check=True,
                                capture_output=True, text=True).stdout.strip()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("NUMBA_", "VIRTUAL_ENV", "SPADES_SIM_"))}
        env["XDG_CACHE_HOME"] = str(work / "cache")  # (an empty numba cache for the toolkit)
        if args.only != "uses":
            seconds, peak, _ = _timed(["make", "run"], clone, env)
            _record("make run (fresh clone, empty numba cache)", seconds, peak,
                    "creates .venv, installs, compiles, plays and reports", commit=commit)
        if args.only in (None, "make"):
            shutil.rmtree(work / "cache", ignore_errors=True)
            seconds, peak, _ = _timed(["make", "test"], clone, env)
            _record("make test (empty numba cache)", seconds, peak, commit=commit)
        if args.only == "uses":
            subprocess.run(["make", "setup"], cwd=clone, env=env, check=True,
                           capture_output=True)
        if args.only != "make":
            for what, command in USES.items():
                shutil.rmtree(work / "cache", ignore_errors=True)
                seconds, peak, tail = _timed([str(clone / ".venv/bin/spades-sim"), *command],
                                             clone, env)
                said = [line for line in tail.splitlines() if "compiling" in line]
                _record(what, seconds, peak, said[0] if said else "", commit=commit)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
