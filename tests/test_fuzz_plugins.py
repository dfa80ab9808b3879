"""Seeded fuzz of plug-in behaviours: tables of built-in seats, a Python plug-in that draws a
behaviour for every decision (legal ones, and faults: illegal or wrongly typed actions,
exceptions of every kind, ``sys.exit``, prints, edits of the game's state) and the numba
plug-ins of tests/plugins, played through ``main()``. A run with a fault ends with status 2 and
one line naming the strategy; a run without one ends with status 0 and JSON that is the whole
answer; never a traceback or a hang.

``SPADES_SIM_FUZZ_CASES`` sets the number of cases (1,000 in the nightly run); the normal
suite runs a small sample.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import pytest

from spades_sim.cli import main
from spades_sim.game.plugins import load

CASES = int(os.environ.get("SPADES_SIM_FUZZ_CASES", "0")) or 12
SECONDS_PER_CASE = 60
PLUGINS = Path(__file__).parent / "plugins"
FUZZY = f"{PLUGINS / 'fuzzy.py'}:Fuzzy"
NUMBA = {f"{PLUGINS / 'faulty.py'}:{name}": fault for name, fault in (
    ("Raising", True), ("Floating", True), ("Printing", False), ("TextDefault", True),
    ("NoneDefault", True))} | {f"{PLUGINS / 'lowest.py'}:LowestNumba": False,
                               f"{PLUGINS / 'probe.py'}:Probe": False}
BUILTIN = ["heuristic", "random", "cautious"]
PRESETS = ["classic", "classic", "tournament", "casual", "simple", "jokers"]


class Hang(BaseException):
    """A case ran past its time (raised by the alarm)."""


def _alarm(signum, frame):
    raise Hang()


def table(rng: random.Random, case: int) -> tuple[list[str], bool | None]:
    """Four seats' specs and whether the numba seat (if any) must fail."""
    if rng.random() < 0.2:
        spec = rng.choice(sorted(NUMBA))
        seats = [spec if rng.random() < 0.5 else rng.choice(BUILTIN) for _ in range(4)]
        seats[rng.randrange(4)] = spec
        return seats, NUMBA[spec]
    rate = rng.choice([0.0, 0.005, 0.02, 0.1])
    fuzzy = f"{FUZZY}:seed={case},rate={rate}"
    seats = [fuzzy if rng.random() < 0.5 else rng.choice(BUILTIN) for _ in range(4)]
    seats[rng.randrange(4)] = fuzzy
    return seats, None


def test_fuzz_plugin_behaviours(capsys):
    fuzzy = load(FUZZY).cls
    previous = signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(6)
    counts = {"played": 0, "refused": 0}
    started = time.monotonic()
    try:
        for case in range(CASES):
            seats, numba_fault = table(rng, case)
            args = ["simulate", "--hands", str(rng.randint(1, 4)), "--seed", str(case),
                    "--rules", rng.choice(PRESETS), "--json"]
            for seat in seats:
                args += ["--strategy", seat]
            if rng.random() < 0.3:
                args += ["--rule", "nil_exchange=2"]
            fuzzy.faults.clear()
            signal.alarm(SECONDS_PER_CASE)
            try:
                status = main(args)
            except Hang:
                pytest.fail(f"case {case} ran past {SECONDS_PER_CASE} s: {args}")
            finally:
                signal.alarm(0)
            captured = capsys.readouterr()
            assert "Traceback" not in captured.err and "Exception ignored" not in captured.err
            fault = bool(fuzzy.faults) if numba_fault is None else numba_fault
            if fault:
                assert status == 2, (args, fuzzy.faults, captured.out[:200])
                last = captured.err.splitlines()[-1]
                assert last.startswith("spades-sim simulate: error: ") and "strategy" in last
                assert captured.out == ""
                counts["refused"] += 1
            else:
                assert status == 0, (args, captured.err)
                rows = json.loads(captured.out)  # the plug-ins' prints went to stderr
                assert all(row["hands"] == int(args[2]) for row in rows)
                counts["played"] += 1
    finally:
        signal.signal(signal.SIGALRM, previous)
    print(f"{CASES} plug-in tables in {time.monotonic() - started:.1f} s: {counts}")
    assert counts["played"] and counts["refused"]
