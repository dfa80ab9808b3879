"""Seeded fuzz of the environment's calls: random constructors, resets, steps (legal, illegal,
of the wrong type, out of order), observations and renders, on the wrapped and the raw
environment. Every call either works or raises one documented error (a ``SpadesError``, or
PettingZoo's ``AssertionError`` for an action outside the space and calls before reset in the
wrapped env); nothing hangs, and a refused call changes nothing.

``SPADES_SIM_FUZZ_CASES`` sets the number of cases (1,000 in the nightly run); the normal
suite plays a small sample.
"""

from __future__ import annotations

import os
import random
import signal
import time

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from spades_sim.core.errors import SpadesError  # noqa: E402
from spades_sim.env import N_ACTIONS, OBSERVATION_SIZE, env, raw_env  # noqa: E402

CASES = int(os.environ.get("SPADES_SIM_FUZZ_CASES", "0")) or 25
SECONDS_PER_CASE = 20
PRESETS = ["classic", "casual", "cutthroat", "two-player", "simple", "tournament", "jokers",
           "openspiel"]
HOSTILE = [True, False, None, 1.5, float("nan"), "x", "", -1, 2**64, 2**44 + 1, 10**12 + 1,
           [], {}, np.int64(-3), np.float64(2.0), b"1", object()]


class Hang(BaseException):
    """A case ran past its time (raised by the alarm)."""


def _alarm(signum, frame):
    raise Hang()


def hostile(rng: random.Random):
    return rng.choice(HOSTILE)


def make(rng: random.Random):
    """A constructor call, sometimes with a bad argument: ``(table, wrapped)`` or None when
    the call was refused (with a SpadesError)."""
    wrapped = rng.random() < 0.5
    kwargs = {}
    if rng.random() < 0.3:
        kwargs["whole_game"] = True
    if rng.random() < 0.1:
        kwargs["render_mode"] = "ansi"
    if rng.random() < 0.1:
        kwargs["rule_overrides"] = {"target": rng.choice([100, 300, "x", -5, 10**9])}
    if rng.random() < 0.1:
        kwargs[rng.choice(["whole_games", "seed", "render_mode", "illegal_reward"])] = \
            hostile(rng)
    rules = rng.choice(PRESETS) if rng.random() < 0.95 else hostile(rng)
    try:
        table = (env if wrapped else raw_env)(rules, **kwargs)
    except SpadesError as error:
        assert "\n" not in str(error)
        return None
    return table, wrapped


def legal_actions(table) -> list[int]:
    agent = table.agent_selection
    return [int(a) for a in np.flatnonzero(table.observe(agent)["action_mask"])]


def one_case(seed: int) -> dict:
    rng = random.Random(seed)
    made = make(rng)
    if made is None:
        return {"refused": 1}
    table, wrapped = made
    counts = {"refused": 0, "steps": 0, "episodes": 0}
    if rng.random() < 0.2:  # out of order: before any reset
        call = rng.choice([lambda: table.step(54), lambda: table.observe("player_0")])
        with pytest.raises(AssertionError if wrapped else SpadesError):
            call()
    for _ in range(rng.randint(1, 3)):
        options = None
        if rng.random() < 0.3:
            options = {"episode_id": rng.choice([0, 5, 10**12, hostile(rng)])}
        seed_value = rng.choice([None, 0, 7, 2**128 - 1, hostile(rng)]) \
            if rng.random() < 0.5 else None
        try:
            table.reset(seed=seed_value, options=options)
        except SpadesError as error:
            assert "\n" not in str(error)
            counts["refused"] += 1
            continue
        counts["episodes"] += 1
        limit = 3_000 if raw(table).whole_game else 400  # (a game: its first hands)
        for _ in range(limit):
            agent = table.agent_selection
            if table.terminations[agent] or table.truncations[agent]:
                if wrapped:
                    table.step(None)
                    if not table.agents:
                        break
                    continue
                break
            observation = table.observe(agent)
            vector, mask = observation["observation"], observation["action_mask"]
            assert vector.shape == (OBSERVATION_SIZE,) and np.isfinite(vector).all()
            assert mask.shape == (N_ACTIONS,) and mask.sum() >= 1
            legal = [int(a) for a in np.flatnonzero(mask)]
            if rng.random() < 0.05:  # a bad action: refused, nothing changes
                bad = rng.choice([True, 1.5, "54", np.array(legal), -1, N_ACTIONS, None,
                                  next((a for a in range(N_ACTIONS) if a not in legal), 0)])
                before = (table.agent_selection, vector.copy())
                try:
                    table.step(bad)
                except SpadesError as error:  # IllegalActionError included
                    assert "\n" not in str(error)
                    counts["refused"] += 1
                    assert table.agent_selection == before[0]
                    assert (table.observe(agent)["observation"] == before[1]).all()
                    continue
                except AssertionError:  # the wrapped env: outside the action space
                    assert wrapped
                    counts["refused"] += 1
                    continue
                # accepted: only an illegal integer in the wrapped env, which ends the episode
                assert wrapped and all(table.terminations.values()), bad
                continue
            table.step(rng.choice(legal))
            counts["steps"] += 1
            if rng.random() < 0.01 and raw(table).render_mode == "ansi":
                assert isinstance(raw(table).render(), str)
        else:  # (a whole game is cut short; a hand must end)
            assert raw(table).whole_game, f"case {seed}: a hand did not end in {limit} steps"
    return counts


def raw(table):
    return table.unwrapped if hasattr(table, "unwrapped") else table


def test_fuzz_environment_calls():
    previous = signal.signal(signal.SIGALRM, _alarm)
    totals = {"refused": 0, "steps": 0, "episodes": 0}
    started = time.monotonic()
    try:
        for case in range(CASES):
            signal.alarm(SECONDS_PER_CASE)
            try:
                counts = one_case(1000 + case)
            except Hang:
                pytest.fail(f"case {1000 + case} ran past {SECONDS_PER_CASE} s")
            finally:
                signal.alarm(0)
            for key, value in counts.items():
                totals[key] = totals.get(key, 0) + value
    finally:
        signal.signal(signal.SIGALRM, previous)
    print(f"{CASES} environment cases in {time.monotonic() - started:.1f} s: {totals}")
    assert totals["episodes"] > 0 and totals["refused"] > 0
