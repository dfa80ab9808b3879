"""Seeded fuzz of hand logs: lines of real logs (several presets) mutated, mixed and replayed
through ``main(["replay", FILE])`` (and a few through ``par``). A line whose results, version,
fields or types were made wrong must be refused in its own ``line N ...`` line; every line is
either echoed on standard output or refused on standard error, never both; the status is 0
exactly when no line is refused; never a traceback or a hang.

``SPADES_SIM_FUZZ_CASES`` sets the number of cases (1,000 in the nightly run); the normal
suite runs a small sample.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import time

import pytest

from spades_sim.cli import main

CASES = int(os.environ.get("SPADES_SIM_FUZZ_CASES", "0")) or 60
SECONDS_PER_CASE = 60
PAR_EVERY = 25  # one case in PAR_EVERY is also given to par (it solves every deal)
WRONG = ["x", "", None, True, 1.5, -1, 2**70, [], {}, [[]], float("nan")]
REQUIRED = ["v", "rules", "hand_id", "game_id", "dealer", "hands", "blind", "bids", "plays"]


class Hang(BaseException):
    """A case ran past its time (raised by the alarm)."""


def _alarm(signum, frame):
    raise Hang()


@pytest.fixture(scope="module")
def lines(tmp_path_factory):
    """Real hand-log lines of several presets (hands and games)."""
    folder = tmp_path_factory.mktemp("logs")
    found = []
    for index, args in enumerate((
        ["simulate", "--hands", "6"],
        ["simulate", "--hands", "6", "--rules", "tournament"],
        ["simulate", "--hands", "4", "--rules", "cutthroat"],
        ["simulate", "--hands", "4", "--rules", "jokers", "--rule", "nil_exchange=2"],
        ["games", "--games", "1", "--rules", "two-player", "--rule", "target=100"],
    )):
        path = folder / f"{index}.jsonl"
        assert main([*args, "--seed", str(index), "--log", str(path)]) == 0
        found += path.read_text().splitlines()
    return found


def must_refuse(rng: random.Random, record: dict) -> dict:
    """A mutation that makes the line wrong whatever else it holds."""
    record = json.loads(json.dumps(record))
    kind = rng.randrange(5)
    if kind == 0 and "tricks" in record:
        field = rng.choice(["tricks", "score_delta", "bags_after"])
        values = record[field]
        values[rng.randrange(len(values))] += rng.choice([-3, -1, 1, 2, 10])
    elif kind == 1:
        field = rng.choice(REQUIRED)
        # ({} as the rules is the classic preset: the same rules as the logs' classic lines)
        record[field] = rng.choice([value for value in WRONG if field != "rules" or value != {}])
    elif kind == 2:
        del record[rng.choice(REQUIRED)]
    elif kind == 3:
        record[rng.choice(["extra", "Tricks", "v2", ""])] = 1
    else:
        record["v"] = rng.choice([0, 2, "1", 1.0001])
    return record


def may_refuse(rng: random.Random, text: str) -> str:
    """A mutation that may or may not leave a valid hand."""
    kind = rng.randrange(6)
    if kind == 0:  # a character changed
        at = rng.randrange(len(text))
        return text[:at] + rng.choice('[]{}",:0123456789 xSAK\\') + text[at + 1:]
    record = json.loads(text)
    if kind == 1 and len(record["plays"]) > 1:
        i, j = rng.sample(range(len(record["plays"])), 2)
        record["plays"][i], record["plays"][j] = record["plays"][j], record["plays"][i]
    elif kind == 2:
        a, b = rng.sample(range(len(record["hands"])), 2)
        if record["hands"][a]:
            record["hands"][b].append(record["hands"][a].pop())
    elif kind == 3 and "score_before" in record:
        record["score_before"][0] += rng.choice([-600, -100, 50, 10**6])
    elif kind == 4:
        record["dealer"] = rng.choice([0, 1, 2, 3, 4, -1])
    else:
        return text[:rng.randrange(1, len(text))]  # cut short
    return json.dumps(record)


def test_fuzz_hand_log_mutations(lines, tmp_path, capsys):
    previous = signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(38)
    counts = {"lines": 0, "refused": 0, "replays": 0, "pars": 0}
    started = time.monotonic()
    try:
        for case in range(CASES):
            chosen, wrong = [], set()
            for number in range(1, rng.randint(1, 6) + 1):
                original = rng.choice(lines)
                draw = rng.random()
                if draw < 0.35:
                    mutated = json.dumps(must_refuse(rng, json.loads(original)))
                    if json.loads(mutated) != json.loads(original):
                        wrong.add(number)
                elif draw < 0.7:
                    mutated = may_refuse(rng, original)
                else:
                    mutated = original
                chosen.append(mutated)
            path = tmp_path / f"{case}.jsonl"
            path.write_text("\n".join(chosen) + "\n")
            commands = ["replay"] + (["par"] if case % PAR_EVERY == 0 else [])
            for command in commands:
                signal.alarm(SECONDS_PER_CASE)
                try:
                    status = main([command, str(path)])
                except Hang:
                    pytest.fail(f"case {case} ran past {SECONDS_PER_CASE} s ({command})")
                finally:
                    signal.alarm(0)
                captured = capsys.readouterr()
                assert "Traceback" not in captured.err
                refused = {int(re.match(r"line (\d+)", line).group(1))
                           for line in captured.err.splitlines()}
                assert len(refused) == len(captured.err.splitlines()), captured.err
                assert wrong <= refused, [chosen[n - 1] for n in wrong - refused]
                assert status == (1 if refused else 0), (status, captured.err)
                if command == "replay":
                    assert len(captured.out.splitlines()) == len(chosen) - len(refused)
                    counts["replays"] += 1
                else:
                    counts["pars"] += 1
            counts["lines"] += len(chosen)
            counts["refused"] += len(refused)
    finally:
        signal.signal(signal.SIGALRM, previous)
    print(f"{CASES} hand logs in {time.monotonic() - started:.1f} s: {counts}")
    assert counts["refused"] and counts["lines"] > counts["refused"]
