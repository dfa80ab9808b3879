"""Seeded fuzz of experiment files: mutations of valid files (characters, values of every
type, nesting, grid names with braces, a byte-order mark, unknown keys) are parsed; each is
either accepted as a sound experiment or refused with one ``FILE:LINE: ...`` line, never a
traceback, and ``spades-sim run`` of a refused file writes nothing.

``SPADES_SIM_FUZZ_CASES`` sets the number of cases (1,000 in the nightly run); the normal
suite parses a small sample.
"""

from __future__ import annotations

import os
import random
import signal
import time

import pytest

from spades_sim.cli import main
from spades_sim.core.errors import ExperimentError
from spades_sim.core.limits import MAX_CHUNK_SIZE, MAX_GRID, MAX_UNITS
from spades_sim.experiment import parse_experiment

CASES = int(os.environ.get("SPADES_SIM_FUZZ_CASES", "0")) or 150
SECONDS_PER_CASE = 10

BASES = [
    'name = "x"\nseed = 1\nhands = 100\nchunk_size = 50\n\n[[config]]\nname = "a"\n'
    'rules = "classic"\nrule = { target = 300 }\nstrategy = "heuristic:aggression=0.5"\n',
    'name = "g"\nseed = 3\ngames = 10\n\n[[grid]]\nname = "aggr={aggression}-t={target}"\n'
    'params = { aggression = [-1, 0, 1], target = [300, 500] }\n',
    'name = "t"\nseed = 0\nanalyses = ["strategies"]\n\n[tournament]\n'
    'strategies = ["heuristic", "random", "cautious"]\nhands = 20\n',
    'name = "s"\nseed = 9\nhands = 40\nduplicate = true\n\n[[config]]\nname = "one"\n'
    'strategies = { side0 = "heuristic", side1 = "random" }\n\n[[config]]\nname = "two"\n'
    'rules = "tournament"\n',
]
VALUES = ['""', '"x"', "0", "-1", "1e400", "nan", "inf", "-inf", "true", "[]", "{}", "[[]]",
          '"{aggression.x}"', '"{"', '"}"', '"{0}"', '"a{aggression!r}"', str(2**64),
          str(MAX_UNITS + 1), "1_000", "0x10", '"heuristic:aggression=1,aggression=2"',
          '"heuristic:aggression=nan"', '"random:bid_max=99"', '"nope.py:X"', '"\\u0000"',
          '"' + "é" * 50 + '"', "[" * 40 + "1" + "]" * 40, "{ a = " * 40 + "1" + " }" * 40,
          "1979-05-27", '"classic"', '"clasic"', "[1, 2, 3]", '["heuristic", "random"]']
KEYS = ["name", "seed", "hands", "games", "chunk_size", "games_chunk_size", "duplicate", "par",
        "cards", "analyses", "rules", "rule", "strategy", "strategies", "params", "stratgy",
        "nil_counterfactual", "x"]
NOISE = list("[]{}\"'=,.#\n\\ \t") + ["\ufeff", "\x00", "é", "{{", "}}", "[[", "]]"]


class Hang(BaseException):
    """A case ran past its time (raised by the alarm)."""


def _alarm(signum, frame):
    raise Hang()


def mutate(rng: random.Random) -> str:
    text = rng.choice(BASES)
    for _ in range(rng.randint(1, 3)):
        lines = text.split("\n")
        kind = rng.randrange(7)
        if kind == 0:  # one character in or out
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(NOISE) + text[at + rng.randint(0, 1):]
        elif kind in (1, 2):  # a value replaced
            index = rng.randrange(len(lines))
            key, sep, _ = lines[index].partition(" = ")
            if sep:
                lines[index] = f"{key} = {rng.choice(VALUES)}"
            text = "\n".join(lines)
        elif kind == 3:  # a key added to some table
            index = rng.randrange(len(lines) + 1)
            lines.insert(index, f"{rng.choice(KEYS)} = {rng.choice(VALUES)}")
            text = "\n".join(lines)
        elif kind == 4:  # a line dropped
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 5:  # a byte-order mark, or a table header
            text = rng.choice(["\ufeff" + text, text + rng.choice(
                ["\n[[config]]\n", "\n[config]\n", "\n[[grid]]\nname = \"{x}\"\n",
                 "\n[tournament]\n", "\n[[config.sub]]\n"])])
        else:  # a grid name with braces
            text += (f'\n[[grid]]\nname = "{rng.choice(["g{aggression}", "g{aggression.x}", "g{", "g}", "g{}", "g{{aggression}}", "g{aggression:>3}"])}"\n'  # noqa: E501
                     "params = { aggression = [1, 2] }\n")
    return text


def check_accepted(experiment) -> None:
    """An accepted experiment is sound: bounded sizes, distinct named configurations."""
    names = [config.name for config in experiment.configs]
    assert len(names) == len(set(names)) and len(names) <= MAX_GRID
    assert all(name and "{" not in name and "}" not in name for name in names)
    for size in (experiment.hands, experiment.games):
        assert size is None or 1 <= size <= MAX_UNITS
    assert 1 <= experiment.chunk_size <= MAX_CHUNK_SIZE


def test_fuzz_experiment_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    previous = signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(2026)
    counts = {"accepted": 0, "refused": 0, "run refused": 0}
    started = time.monotonic()
    try:
        for case in range(CASES):
            text = mutate(rng)
            signal.alarm(SECONDS_PER_CASE)
            try:
                experiment = parse_experiment(text, "fuzz.toml")
            except ExperimentError as error:
                message = str(error)
                assert "\n" not in message and message.startswith("fuzz.toml:"), (text, message)
                assert "Single '{'" not in message and "Traceback" not in message
                counts["refused"] += 1
                if case % 10 == 0:  # the command refuses it too, writing nothing
                    path = tmp_path / "fuzz.toml"
                    path.write_text(text, encoding="utf-8")
                    status = main(["run", str(path), "--out", "out", "--reports", "reports"])
                    captured = capsys.readouterr()
                    assert status == 2 and captured.err.count("\n") == 1, captured.err
                    assert sorted(p.name for p in tmp_path.iterdir()) == ["fuzz.toml"]
                    counts["run refused"] += 1
            except Hang:
                pytest.fail(f"case {case} ran past {SECONDS_PER_CASE} s: {text!r}")
            else:
                check_accepted(experiment)
                counts["accepted"] += 1
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    print(f"{CASES} experiment files in {time.monotonic() - started:.1f} s: {counts}")
    assert counts["accepted"] and counts["refused"]
