"""Write ``benchmarks/RESULTS.md`` from ``benchmarks/history.jsonl``: every recorded measurement,
with the commit and the date it was taken on, one table per benchmark, newest first.

    python benchmarks/results.py            # rewrite RESULTS.md
    python benchmarks/results.py --check    # exit 1 if RESULTS.md is not up to date

The history is the record; this page is generated from it and never edited by hand (a test
checks that it matches the history).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HISTORY = HERE / "history.jsonl"
RESULTS = HERE / "RESULTS.md"


def _number(value, digits: int = 3) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()
                                  and abs(value) >= 1000):
        return f"{int(value):,}"
    if isinstance(value, float):
        if abs(value) >= 1e5:
            return f"{value / 1e6:.3g} M" if abs(value) >= 1e6 else f"{value / 1e3:.4g} k"
        return f"{value:.{digits}g}"
    return str(value)


def _strategies(record) -> str:
    names = record.get("strategies") or []
    unique = sorted(set(names))
    return unique[0] if len(unique) == 1 else " ".join(names)


def _bench(record):
    return {"strategy": _strategies(record), "rules": record.get("rules"),
            "jobs": record.get("jobs"), "hands": record.get("hands"),
            "hands/s fastest chunk": record.get("hands_per_second"),
            "median chunk": record.get("hands_per_second_median"),
            "whole run (all jobs)": record.get("hands_per_second_total")}


def _run_scaling(record):
    one, two = record.get("jobs1") or {}, record.get("jobs2") or {}
    return {"strategy": _strategies(record), "hands": record.get("hands"),
            "1 job, hands/s (median)": one.get("rate_median"),
            "2 jobs, hands/s (median)": two.get("rate_median"),
            "speed-up": (two.get("rate_median") or 0) / one["rate_median"]
            if one.get("rate_median") else None}


def _plugin_speed(record):
    results = record.get("results") or {}
    row = {"hands": record.get("hands")}
    for name, result in results.items():
        row[f"{name} hands/s"] = result.get("hands_per_second")
    return row


def _dd_speed(record):
    full, mid = record.get("full") or {}, record.get("mid_hand") or {}
    return {"rules": record.get("rules"), "deals": record.get("deals"),
            "full deals: ours/s": full.get("ours_per_second"),
            "DDS/s": full.get("dds_per_second"), "ratio": full.get("ratio"),
            "mismatches": full.get("mismatches"),
            "mid-hand ratio": mid.get("ratio")}


def _disk_speed(record):
    row = {"hands": record.get("hands")}
    for result in record.get("results") or []:
        row[f"{result['strategy']}, {result['jobs']} job(s): disk / kernel"] = result.get("ratio")
    return row


def _first_run(record):
    return {"what": record.get("what"), "seconds": record.get("seconds"),
            "peak memory (MB)": record.get("peak_mb"), "note": record.get("note")}


def _report_speed(record):
    # (CPU seconds and the load beside the wall clock: the machine is shared, and a load of 4
    # on 2 cores doubles the wall clock of the same work)
    return {"report": record.get("report"), "seconds": record.get("seconds"),
            "CPU seconds": record.get("cpu_seconds"), "load": record.get("load"),
            "peak memory (MB)": record.get("peak_mb")}


def _flat(record):
    return {key: value for key, value in record.items()
            if key not in ("benchmark", "commit", "date", "machine")
            and isinstance(value, (int, float, str)) and not isinstance(value, bool)}


#: Each benchmark's table: its title, what it measures, and the columns of one record.
TABLES = {
    "bench": ("Engine throughput (`spades-sim bench`)",
              "Warm hands a second per core of the engine's kernel, per-hand records written; "
              "the fastest and the median chunk of 2^19 hands (a shared machine only slows "
              "chunks down).", _bench),
    "first_run": ("First run from a fresh clone (`benchmarks/first_run.py`)",
                  "Wall-clock time of the set-up commands and first uses from an empty numba "
                  "cache on a 2-core machine.", _first_run),
    "report_speed": ("Report build time", "Rebuilding a report from finished results.",
                     _report_speed),
    "run_scaling": ("Runs on disk, 1 and 2 jobs (`benchmarks/run_scaling.py`)",
                    "Whole runs written with `--out`.", _run_scaling),
    "disk_speed": ("Writing runs to disk (`benchmarks/disk_speed.py`)",
                   "A run written with `--out` against the kernel alone, same hands.",
                   _disk_speed),
    "plugin_speed": ("Strategy plug-ins (`benchmarks/plugin_speed.py`)",
                     "Hands a second with every seat the named strategy.", _plugin_speed),
    "dd_speed": ("Double-dummy solver against DDS (`benchmarks/dd_speed.py`)",
                 "Positions solved a second per core, ours and DDS's, on the same deals.",
                 _dd_speed),
    "hand_profile": ("Where a hand's time goes (`benchmarks/hand_profile.py`)",
                     "Nanoseconds a hand of loops built from the engine's parts.", _flat),
    "interleave": ("Two hands interleaved (`benchmarks/interleave.py`)", "", _flat),
}


def _kind(record) -> str:
    return record.get("benchmark", "bench")


def render(records: list[dict]) -> str:
    lines = ["# Benchmark results", "",
             "Generated by `python benchmarks/results.py` from `benchmarks/history.jsonl`, "
             "where every benchmark script appends what it measured with the commit and the "
             "date; do not edit by hand. The machine is this project's 2-core shared virtual "
             "machine unless a row says otherwise; a neighbour's load slows some runs, so "
             "compare rows taken side by side. How the engine gets its speed is explained in "
             "[docs/performance.md](../docs/performance.md).", ""]
    kinds = list(TABLES) + sorted({_kind(r) for r in records} - set(TABLES))
    for kind in kinds:
        rows = [r for r in records if _kind(r) == kind]
        if not rows:
            continue
        title, about, columns_of = TABLES.get(kind, (kind, "", _flat))
        lines += [f"## {title}", ""]
        if about:
            lines += [about, ""]
        table = [columns_of(r) for r in rows]
        columns = []
        for row in table:
            columns += [c for c, v in row.items() if c not in columns and v is not None]
        lines.append("| date | commit | " + " | ".join(columns) + " |")
        lines.append("|---" * (len(columns) + 2) + "|")
        order = sorted(range(len(rows)), key=lambda i: rows[i].get("date", ""), reverse=True)
        for i in order:
            cells = [_number(table[i].get(c)) for c in columns]
            lines.append(f"| {rows[i].get('date', '')[:10]} | {rows[i].get('commit', '')} | "
                         + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def load(path: Path = HISTORY) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if RESULTS.md is not what the history gives")
    args = parser.parse_args(argv)
    text = render(load())
    if args.check:
        current = RESULTS.read_text() if RESULTS.exists() else ""
        if current != text:
            print("benchmarks/RESULTS.md is out of date: run python benchmarks/results.py",
                  file=sys.stderr)
            return 1
        return 0
    RESULTS.write_text(text)
    print(RESULTS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
