"""How long ``spades-sim report`` takes to rebuild a report from finished results, and how much
memory it needs.

    python benchmarks/report_speed.py                       # results/variants (make run first)
    python benchmarks/report_speed.py --results results/nil --no-history

The command runs as a child under ``/usr/bin/time -v``, into a temporary ``--reports`` folder
(the shipped ``reports/`` is not touched). Recorded as a ``report_speed`` line in
``benchmarks/history.jsonl``: ``report`` (the experiment's name), ``seconds`` (wall clock),
``cpu_seconds`` (user and system time of the command and the processes it waited for: its
figure workers), ``peak_mb`` (the largest resident set of any one process, from
``/usr/bin/time``), ``peak_sum_mb`` (the largest sum of the resident sets of the command and
its workers, sampled from ``/proc`` every 50 ms), ``load`` (the machine's one-minute load
average before the run: the machine is shared), ``csv_identical`` (whether every CSV the
build wrote is byte for byte the one in ``reports/NAME/``, when that folder exists), with the
commit it measured.
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


def _tree_rss_mb(root: int) -> float:
    """The summed resident set (MB) of ``root`` and its descendants, from ``/proc``."""
    parents, rss = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        rss[int(entry)] = int(found.group(1)) if found else 0
    tree, grown = {root}, True
    while grown:
        grown = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grown = True
    return sum(rss.get(pid, 0) for pid in tree) / 1024


def measure(results: Path, spades_sim: Path) -> dict:
    """Build the report of ``results`` once, timed (the fields of the module docstring)."""
    reports = Path(tempfile.mkdtemp(prefix="spades-report-speed-"))
    load = os.getloadavg()[0]
    command = ["/usr/bin/time", "-v", str(spades_sim), "report", str(results), "--reports",
               str(reports), "--quiet"]
    try:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        peak_sum = 0.0
        while child.poll() is None:
            peak_sum = max(peak_sum, _tree_rss_mb(child.pid))
            time.sleep(0.05)
        seconds = time.perf_counter() - started
        out, err = child.communicate()
        if child.returncode != 0:
            raise SystemExit(f"spades-sim report failed ({child.returncode}):\n{err[-3000:]}")
        name = Path(out.strip().splitlines()[-1]).parent.name
        fields = {key: float(re.search(rf"{label}: ([\d.]+)", err).group(1)) for key, label in (
            ("user", r"User time \(seconds\)"), ("system", r"System time \(seconds\)"),
            ("peak_kb", r"Maximum resident set size \(kbytes\)"))}
        shipped = ROOT / "reports" / name
        built = sorted((reports / name).glob("*.csv"))
        identical = None
        if shipped.is_dir():
            identical = [p.name for p in built] == sorted(
                p.name for p in shipped.glob("*.csv")) and all(
                p.read_bytes() == (shipped / p.name).read_bytes() for p in built)
    finally:
        shutil.rmtree(reports, ignore_errors=True)
    return {"benchmark": "report_speed", "report": name, "seconds": round(seconds, 1),
            "cpu_seconds": round(fields["user"] + fields["system"], 1),
            "peak_mb": round(fields["peak_kb"] / 1024), "peak_sum_mb": round(peak_sum),
            "load": round(load, 2), "csv_identical": identical, **stamp()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(ROOT / "results" / "variants"),
                        help="the experiment's results folder (default results/variants)")
    parser.add_argument("--no-history", action="store_true",
                        help="print the result only; do not append it to history.jsonl")
    args = parser.parse_args(argv)
    results = Path(args.results)
    if not (results / "experiment.toml").exists():
        raise SystemExit(f"{results}: no finished experiment here (make run writes "
                         f"results/variants)")
    if not Path("/usr/bin/time").exists():
        raise SystemExit("report_speed.py needs /usr/bin/time (GNU time) for the peak memory")
    spades_sim = Path(sys.executable).with_name("spades-sim")
    publish(measure(results, spades_sim), history=not args.no_history)
    return 0


if __name__ == "__main__":
    sys.exit(main())
