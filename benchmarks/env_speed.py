"""The environments' speed: the batched API (``env/batch.py``) and the PettingZoo AEC environment.

Classic rules, independent hands, random masked agents:

(a) ``BatchEnv`` of ``--tables`` tables, every seat the learner's, stepped from Python with a
    numba agent choosing a random legal action at every table (``BatchEnv.random_actions``):
    steps a second, one step one decision at one table; target 1,000,000 on one core.
(b) the same with built-in ``heuristic`` opponents at seats 1 and 3 (their decisions inside the
    engine, not counted as steps): the learner's steps a second.
(d) ``BatchEnv(every_choice=True)``, every seat the learner's and every choice a step, the
    observation the AEC environment's vector (902 floats a table a step).
(c) the AEC environment (``env("classic")``, PettingZoo's wrappers) with random masked agents
    in Python (``numpy`` choice over the mask), as ``spades_sim.env``'s docstring drives it:
    steps a second, every agent step counted (the steps of finished agents too);
    target 30,000.

Before timing, table (a) is checked step for step against the game-state API: every finished
hand's actions replayed on ``Hand.deal`` give the batch's rewards. Each measurement is timed in
chunks: the headline is the fastest chunk's rate (a shared machine only slows a chunk down),
the median beside it; compile (or cache load) time is reported apart. Appends one JSON line to
``history.jsonl`` (``--no-history`` skips it).

    .venv/bin/python benchmarks/env_speed.py [--tables 1024] [--seconds 10] [--no-history]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from spades_sim.bench import append_history, stamp
from spades_sim.core.rules import preset
from spades_sim.env import BatchEnv, env, to_game
from spades_sim.env.actions import LOOK_ACTION
from spades_sim.game import BLIND, Hand


def timed(step, steps_per_call: int, seconds: float, chunk_calls: int) -> dict:
    """Steps a second of ``step()`` (``steps_per_call`` steps each), in chunks of
    ``chunk_calls`` calls, for about ``seconds``."""
    rates = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        chunk = time.perf_counter()
        for _ in range(chunk_calls):
            step()
        rates.append(chunk_calls * steps_per_call / (time.perf_counter() - chunk))
    return {"best": max(rates), "median": float(np.median(rates))}


def check_against_api(seed: int) -> int:
    """Replay the batch's finished hands on ``Hand``; the hands checked."""
    rules = preset("classic")
    batch = BatchEnv(4, rules)
    views, masks = batch.reset(seed=seed)
    policy = np.array([1], dtype=np.uint64)
    taken = [[] for _ in range(batch.n_tables)]
    checked = 0
    for _ in range(300):
        ids = batch.hand_ids.copy()
        phases = batch.playing.copy()
        actions = batch.random_actions(policy)
        for table, action in enumerate(actions):
            taken[table].append((bool(phases[table]), int(action)))
        _, _, rewards, dones = batch.step(actions)
        for table in np.flatnonzero(dones):
            hand = Hand.deal(rules, seed, int(ids[table]))
            for _, action in taken[table]:
                while hand.phase == BLIND:  # (the heuristic's choice at 0-0: look)
                    hand.apply(to_game(BLIND, LOOK_ACTION))
                hand.apply(to_game(hand.phase, action))
            deltas = hand.result()["score_delta"]
            if not hand.done or rewards[table].tolist() != [deltas[s % 2] for s in range(4)]:
                raise SystemExit(f"batch table {table}, hand {ids[table]} differs from the "
                                 "game-state API's: not timing")
            taken[table] = []
            checked += 1
    return checked


def aec_rate(seconds: float) -> dict:
    table = env("classic")
    rng = np.random.default_rng(0)
    episode = [0]

    def one_episode():
        table.reset(seed=0 if episode[0] == 0 else None)
        episode[0] += 1
        steps = 0
        for _ in table.agent_iter():
            observation, _, terminated, truncated, _ = table.last()
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            table.step(action)
            steps += 1
        return steps

    one_episode()
    rates = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        chunk, steps = time.perf_counter(), 0
        for _ in range(10):
            steps += one_episode()
        rates.append(steps / (time.perf_counter() - chunk))
    return {"best": max(rates), "median": float(np.median(rates))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1024, help="tables of the batch")
    parser.add_argument("--seconds", type=float, default=10.0, help="timing of each table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-history", action="store_true", help="do not append to history")
    args = parser.parse_args()

    started = time.perf_counter()
    checked = check_against_api(args.seed)
    warm_up = time.perf_counter() - started

    results = {}
    for label, opponents, every in (("a", {}, False), ("b", {1: "heuristic", 3: "heuristic"},
                                                          False), ("d", {}, True)):
        batch = BatchEnv(args.tables, "classic", opponents=opponents, every_choice=every)
        batch.reset(seed=args.seed)
        policy = np.array([7], dtype=np.uint64)

        def step(batch=batch, policy=policy):
            batch.step(batch.random_actions(policy))

        for _ in range(20):  # (warm)
            step()
        results[label] = timed(step, args.tables, args.seconds, 20)
    aec = aec_rate(args.seconds)
    print(f"(a) batch, {args.tables} tables, 4 learner seats: {results['a']['best']:12,.0f} "
          f"steps/s (best chunk), {results['a']['median']:12,.0f} median  [target 1,000,000]")
    print(f"(b) batch, 2 learner seats + 2 heuristic:   {results['b']['best']:12,.0f} "
          f"steps/s (best chunk), {results['b']['median']:12,.0f} median")
    print(f"(d) batch, every choice, AEC observations: {results['d']['best']:12,.0f} "
          f"steps/s (best chunk), {results['d']['median']:12,.0f} median")
    print(f"(c) AEC env, random masked agents:          {aec['best']:12,.0f} "
          f"steps/s (best chunk), {aec['median']:12,.0f} median  [target 30,000]")
    print(f"    {checked} hands checked against the API; checks and compile/load {warm_up:.1f} s")
    record = {
        "benchmark": "env_speed", "rules": "classic", "seed": args.seed, "tables": args.tables,
        "batch_steps_per_second": results["a"]["best"],
        "batch_steps_per_second_median": results["a"]["median"],
        "batch_heuristic_steps_per_second": results["b"]["best"],
        "batch_every_choice_steps_per_second": results["d"]["best"],
        "aec_steps_per_second": aec["best"], "aec_steps_per_second_median": aec["median"],
        "hands_checked": checked, "warm_up_seconds": warm_up, **stamp(),
    }
    if not args.no_history:
        append_history(record)


if __name__ == "__main__":
    main()
