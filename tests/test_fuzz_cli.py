"""Seeded fuzz of command lines: random commands with options and values drawn from valid and
hostile ones (empty, huge, negative, NaN, unicode, repeated, misspelt), run in process through
``main()``. Each ends with status 0 and sound output, or with status 1 or 2 and one line per
fault on standard error; never a traceback, never a hang, and a refused command writes nothing.

``SPADES_SIM_FUZZ_CASES`` sets the number of cases (1,000 in the nightly run); the normal
suite runs a small sample.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest

from spades_sim.cli import main

CASES = int(os.environ.get("SPADES_SIM_FUZZ_CASES", "0")) or 15
SECONDS_PER_CASE = 60
SUBPROCESS_EVERY = 50  # one case in SUBPROCESS_EVERY also runs as a real command

HOSTILE = ["", " ", "-1", "0", "nan", "inf", "1e9", "99999999999999999999999", "x", "é",
           "1,000", "2**64", "--", "-", "a=b", "=", ":", ",", "\x00"]
STRATEGIES_OK = ["heuristic", "random", "cautious", "aggressive", "heuristic:aggression=0.5",
                 "tests/plugins/lowest.py:LowestPython", "random:bid_max=5"]
STRATEGIES = ["heuristic:aggression=1,aggression=2", "heuristic:aggression=nan",
              "heuristic:aggression=inf", "heuristic:aggresion=1", "random:bid_max=99",
              "random:bid_max=nan", "nosuch", "nosuch.py:X", "tests/plugins/lowest.py:Nope",
              "heuristic:", "heuristic:aggression", ":", "heuristic:=1"]
RULES_OK = ["target=300", "bag_limit=5", "mercy=null", "max_hands=2", "nil_exchange=2",
            "blind_nil=false"]
RULES = ["target=-5", "target=nan", "target=", "targt=300", "players=3",
         "bag_limit=0", "blind_nil=maybe", "mercy=null", "max_hands=2", "deck=jokers",
         "nil_exchange=5", "=1", "target"]
PRESETS = ["classic", "casual", "cutthroat", "two-player", "simple", "tournament", "jokers",
           "openspiel", "clasic", ""]


class Hang(BaseException):
    """A case ran past its time (raised by the alarm)."""


def _alarm(signum, frame):
    raise Hang()


def pick(rng: random.Random, valid: list, hostile_rate: float = 0.1, bad: list | None = None):
    """Mostly a valid value; else one of ``bad`` or a hostile text."""
    if rng.random() >= hostile_rate:
        return rng.choice(valid)
    return rng.choice(bad) if bad and rng.random() < 0.7 else rng.choice(HOSTILE)


def command(rng: random.Random) -> list[str]:
    """A random command line (kept small: a valid one plays a few hands)."""
    name = rng.choice(["simulate", "simulate", "games", "rules", "rules", "strategies", "match",
                       "status", "replay", "par", "hand", "report", "run", "nosuch"])
    args = [name]
    if name in ("simulate", "games"):
        unit = "--hands" if name == "simulate" else "--games"
        args += [unit, pick(rng, ["1", "2", "3"])]
        if name == "games" and rng.random() < 0.8:
            args += ["--rule", "target=150"]  # short games
        for _ in range(rng.randint(0, 2)):
            args += ["--strategy", pick(rng, STRATEGIES_OK, 0.15, STRATEGIES)]
        if rng.random() < 0.4:
            args += ["--rules", pick(rng, PRESETS[:-2], 0.1, PRESETS[-2:])]
        for _ in range(rng.randint(0, 2)):
            args += ["--rule", pick(rng, RULES_OK, 0.15, RULES)]
        if rng.random() < 0.3:
            args += ["--seed", pick(rng, ["0", "7", str(2**128 - 1), str(2**128)])]
        if rng.random() < 0.5:
            args.append("--json")
        if rng.random() < 0.2:
            args += ["--log", rng.choice(["log.jsonl", "-", "", "."])]
        if rng.random() < 0.2:
            args += [rng.choice(["--chunk-size", "--shard", "--duplicate", "--par", "--cards",
                                 "--backend", "--scheduler"]), "2"]
        if rng.random() < 0.1:
            args += ["--jobs", pick(rng, ["1", "2", "5000"])]
    elif name == "rules":
        if rng.random() < 0.7:
            args.append(pick(rng, PRESETS[:-2], 0.1, PRESETS[-2:]))
        for _ in range(rng.randint(0, 3)):
            args += ["--rule", pick(rng, RULES_OK, 0.15, RULES)]
    elif name == "match":
        args += [pick(rng, STRATEGIES_OK, 0.15, STRATEGIES),
                 pick(rng, STRATEGIES_OK, 0.15, STRATEGIES), "--hands", pick(rng, ["1", "2"]),
                 "--out", "match"]
    elif name in ("status", "replay", "par", "hand", "report", "run"):
        args.append(pick(rng, ["nosuch", "nosuch.jsonl", ".", "/dev/null", "/nonexistent/x"],
                         0.3))
        if name == "hand":
            args += ["--hand", pick(rng, ["0", "1"])]
    if rng.random() < 0.1:
        args.insert(rng.randrange(1, len(args) + 1), rng.choice(["--nosuch", "--json", "-x"]))
    return args


def check_success(args: list[str], out: str, err: str) -> None:
    """Status 0: the output is what was asked for (JSON parses; the sizes are the asked ones)."""
    if args[0] in ("simulate", "games") and "--json" in args and "-" not in args:
        rows = json.loads(out)
        if args[0] == "simulate":
            assert all(row["hands"] == int(args[args.index("--hands") + 1]) for row in rows)
        else:
            wins = sum(row["wins"] for row in rows["games"]) + rows["ties"]
            assert wins == int(args[args.index("--games") + 1])
    if "--log" in args and args[args.index("--log") + 1] == "-":
        for line in out.splitlines():
            assert json.loads(line)["v"] == 1
    if args[0] == "rules" and "--rule" in args:
        for index, arg in enumerate(args):
            if arg == "--rule" and args[index + 1].startswith("target="):
                value = args[index + 1].split("=", 1)[1]
                assert "\ntarget " in out and value in out


def remove(path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def test_fuzz_command_lines(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests" / "plugins").mkdir(parents=True)
    source = os.path.join(os.path.dirname(__file__), "plugins", "lowest.py")
    (tmp_path / "tests" / "plugins" / "lowest.py").write_text(open(source).read())
    previous = signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(40)
    counts = {0: 0, 1: 0, 2: 0}
    started = time.monotonic()
    try:
        for case in range(CASES):
            args = command(rng)
            before = sorted(str(p) for p in tmp_path.rglob("*"))
            signal.alarm(SECONDS_PER_CASE)
            try:
                status = main(args)
            except SystemExit as exit_:  # (--help and --version only)
                status = exit_.code
            except Hang:
                pytest.fail(f"case {case} ran past {SECONDS_PER_CASE} s: {args}")
            finally:
                signal.alarm(0)
            captured = capsys.readouterr()
            assert "Traceback" not in captured.err, (args, captured.err)
            assert status in (0, 1, 2), (args, status, captured.err)
            if case % SUBPROCESS_EVERY == 0 and "-" not in args:
                # The real command, in its own process: the same status and output (what
                # main() cannot show: the exit path, the interpreter's own messages).
                if status == 0:
                    for path in ("log.jsonl", "match"):
                        remove(tmp_path / path)
                done = subprocess.run([sys.executable, "-m", "spades_sim.cli", *args],
                                      capture_output=True, text=True, timeout=600,
                                      cwd=tmp_path)
                assert done.returncode == status, (args, done.stderr)
                assert "Traceback" not in done.stderr
                if status and args[0] != "match":
                    assert done.stderr == captured.err and done.stdout == captured.out
            counts[status] += 1
            if status == 0:
                check_success(args, captured.out, captured.err)
                for path in ("log.jsonl", "match"):  # (the next case starts clean)
                    remove(tmp_path / path)
                continue
            lines = captured.err.splitlines()
            assert lines and all(line.startswith("spades-sim") or line.startswith("line ")
                                 for line in lines), (args, captured.err)
            if status == 2:
                assert len(lines) == 1, (args, captured.err)
            after = sorted(str(p) for p in tmp_path.rglob("*"))
            assert after == before, (args, set(after) - set(before))
    finally:
        signal.signal(signal.SIGALRM, previous)
    print(f"{CASES} command lines in {time.monotonic() - started:.1f} s: exit status counts "
          f"{counts}")
    assert counts[0] and counts[2]
