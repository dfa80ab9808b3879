"""The batched environment (``env/batch.py``) step for step against the game-state API (``Hand``,
its built-in seats deciding through ``BuiltinAgent``) and the AEC environment: the same hands,
the same views, masks and rewards; seeding, auto-reset and one-line errors."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from spades_sim.core.errors import SpadesError  # noqa: E402
from spades_sim.core.rules import PRESETS, preset  # noqa: E402
from spades_sim.core.view import V_SEAT  # noqa: E402
from spades_sim.env import (  # noqa: E402
    N_ACTIONS,
    OBSERVATION_SIZE,
    BatchEnv,
    raw_env,
    to_env,
    to_game,
)
from spades_sim.env.actions import LOOK_ACTION  # noqa: E402
from spades_sim.game import BID, BLIND, PLAY, Hand  # noqa: E402
from spades_sim.game.agents import BuiltinAgent  # noqa: E402

SEED = 11
TABLES = 3


def _legal_mask(hand: Hand) -> int:
    if hand.phase == PLAY:
        return hand.legal_card_mask()
    return hand.legal_bid_mask() if hand.phase == BID else 0


def _to_learner(hand: Hand, learner_seats, agents) -> None:
    """Play ``hand`` on until a learner seat must bid or play (or the hand ends): every other
    decision by the seat's built-in agent (the default heuristic at a learner seat)."""
    while not hand.done:
        seat = hand.to_act
        if seat in learner_seats and hand.phase in (BID, PLAY):
            return
        hand.apply(int(agents[seat].act(hand, _legal_mask(hand))))


def _expected_mask(hand: Hand) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=bool)
    for action in hand.legal_actions():
        mask[to_env(hand.phase, action)] = True
    return mask


def _check_against_hands(name: str, opponents: dict, n_steps: int) -> int:
    rules = preset(name)
    batch = BatchEnv(TABLES, name, opponents=opponents)
    views, masks = batch.reset(seed=SEED)
    agents = [BuiltinAgent(strategy) for strategy in batch.strategies]
    hands = []
    for table in range(TABLES):
        assert batch.hand_ids[table] == table
        hand = Hand.deal(rules, SEED, table)
        _to_learner(hand, batch.learner_seats, agents)
        hands.append(hand)
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(n_steps):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        for table, hand in enumerate(hands):
            seat = hand.to_act
            assert views[table, V_SEAT] == seat
            assert np.array_equal(views[table], hand.observation(seat).view())
            assert np.array_equal(masks[table], _expected_mask(hand))
            hand.apply(to_game(hand.phase, int(actions[table])))
            _to_learner(hand, batch.learner_seats, agents)
        views, masks, rewards, dones = batch.step(actions)
        for table, hand in enumerate(hands):
            assert dones[table] == hand.done
            if not hand.done:
                assert not rewards[table].any()
                continue
            ended += 1
            deltas = hand.result()["score_delta"]
            expected = [deltas[rules.side_of(seat)] for seat in range(rules.players)]
            assert rewards[table, :rules.players].tolist() == expected
            assert not rewards[table, rules.players:].any()
            assert batch.hand_ids[table] % TABLES == table
            hands[table] = Hand.deal(rules, SEED, int(batch.hand_ids[table]))
            _to_learner(hands[table], batch.learner_seats, agents)
    return ended


@pytest.mark.parametrize("name", ["classic", "casual", "cutthroat", "two-player", "simple",
                                  "tournament", "jokers", "openspiel"])
def test_every_seat_a_learner_plays_the_api_s_hands(name):
    assert _check_against_hands(name, {}, 130) >= TABLES


@pytest.mark.parametrize("name,opponents", [
    ("classic", {1: "heuristic", 3: "heuristic"}),
    ("tournament", {0: "random", 2: "heuristic:nil_threshold=0.3"}),
    ("cutthroat", {2: "heuristic"}),
    ("classic", {1: "mc:samples=2", 2: "random", 3: "heuristic"}),
])
def test_built_in_opponents_decide_as_the_api_s_seats(name, opponents):
    assert _check_against_hands(name, opponents, 70) >= TABLES


def test_the_aec_environment_sees_what_the_batch_sees():
    # Every seat a learner, classic: the AEC environment's episode ``hand_id`` takes the same
    # actions at the same steps. Its blind choices (classic offers blind nil) are the batch's
    # heuristic's: at 0-0 it looks (the tests above hold that choice to the API's).
    batch = BatchEnv(2, "classic")
    views, masks = batch.reset(seed=SEED)
    tables = []
    for table in range(2):
        aec = raw_env("classic")
        aec.reset(seed=SEED, options={"episode_id": table})
        tables.append(aec)
    rng = np.random.default_rng(5)
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        for table, aec in enumerate(tables):
            while aec.hand.phase == BLIND:
                aec.step(LOOK_ACTION)
            agent = aec.agent_selection
            assert agent == f"player_{views[table, V_SEAT]}"
            assert np.array_equal(aec.observe(agent)["action_mask"].astype(bool), masks[table])
            aec.step(int(actions[table]))
        views, masks, rewards, dones = batch.step(actions)
        for table, aec in enumerate(tables):
            ended = all(aec.terminations.values())
            assert dones[table] == ended
            if ended:
                assert [aec.rewards[agent] for agent in aec.agents] == rewards[table].tolist()
                aec.reset(seed=SEED, options={"episode_id": int(batch.hand_ids[table])})


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_choice_batch_is_the_aec_environment_step_for_step(name):
    # Every seat a learner taking every choice: each table is the AEC environment's episode
    # ``hand_id`` (the AEC environment is held to the game-state API in test_env.py), with the
    # same observation vector, mask and rewards at every step, and auto-reset.
    n_tables = 3
    batch = BatchEnv(n_tables, name, every_choice=True)
    observations, masks = batch.reset(seed=SEED)
    assert observations.shape == (n_tables, OBSERVATION_SIZE) and observations.dtype == np.float32
    tables = []
    for table in range(n_tables):
        aec = raw_env(name)
        aec.reset(seed=SEED, options={"episode_id": table})
        tables.append(aec)
    policy = np.array([3], dtype=np.uint64)
    finished = 0
    for _ in range(150):
        for table, aec in enumerate(tables):
            agent = aec.agent_selection
            assert agent == f"player_{batch.to_act[table]}"
            seen = aec.observe(agent)
            assert np.array_equal(seen["observation"], observations[table])
            assert np.array_equal(seen["action_mask"].astype(bool), masks[table])
        actions = batch.random_actions(policy)
        for table, aec in enumerate(tables):
            aec.step(int(actions[table]))
        observations, masks, rewards, dones = batch.step(actions)
        for table, aec in enumerate(tables):
            ended = all(aec.terminations.values())
            assert dones[table] == ended
            if ended:
                finished += 1
                assert [aec.rewards[agent] for agent in aec.agents] == \
                    rewards[table, :aec.rules.players].tolist()
                aec.reset(seed=SEED, options={"episode_id": int(batch.hand_ids[table])})
    assert finished >= n_tables


def test_every_choice_with_opponents_and_its_random_agent():
    batch = BatchEnv(4, "tournament", opponents={1: "heuristic", 3: "random"},
                     every_choice=True)
    batch.reset(seed=2)
    policy = np.array([9], dtype=np.uint64)
    seats, ends = set(), 0
    for _ in range(400):
        seats |= set(batch.to_act.tolist())
        _, _, _, dones = batch.step(batch.random_actions(policy))
        ends += int(dones.sum())
    assert seats == {0, 2} and ends > 4
    with pytest.raises(SpadesError, match="table 0: action"):
        bad = np.flatnonzero(~batch.masks[0])[0]
        batch.step(np.array([bad, 0, 0, 0]))
    with pytest.raises(SpadesError, match="every_choice"):
        BatchEnv(2, "classic", every_choice="yes")


def test_same_seed_same_arrays_and_tables_map_to_hand_ids():
    def run(seed):
        batch = BatchEnv(5, "classic", opponents={1: "heuristic"})
        batch.reset(seed=seed)
        policy = np.array([9], dtype=np.uint64)
        out = []
        for _ in range(80):
            views, masks, rewards, dones = batch.step(batch.random_actions(policy))
            out.append((views.copy(), masks.copy(), rewards.copy(), dones.copy()))
        return out, batch.hand_ids.copy()

    first, ids = run(4)
    again, ids_again = run(4)
    other, _ = run(5)
    assert all(all(np.array_equal(a, b) for a, b in zip(x, y)) for x, y in zip(first, again))
    assert np.array_equal(ids, ids_again)
    assert (ids % 5 == np.arange(5)).all() and (ids >= 5).all()
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(first, other))


def test_bad_input_is_one_line():
    batch = BatchEnv(2, "classic")
    with pytest.raises(SpadesError, match="before reset"):
        batch.step([0, 0])
    views, masks = batch.reset(seed=1)
    illegal = int(np.flatnonzero(~masks[1])[0])
    legal = int(np.flatnonzero(masks[0])[0])
    with pytest.raises(SpadesError, match=f"table 1: action {illegal} is not legal"):
        batch.step([legal, illegal])
    with pytest.raises(SpadesError, match="expected 2 integers"):
        batch.step([legal])
    with pytest.raises(SpadesError, match="expected 2 integers"):
        batch.step([0.5, 1.5])
    for kwargs, message in [({"opponents": {4: "heuristic"}}, "seat 4"),
                            ({"opponents": dict.fromkeys(range(4), "random")}, "every seat"),
                            ({"opponents": [1]}, "not a dict")]:
        with pytest.raises(SpadesError, match=message):
            BatchEnv(2, "classic", **kwargs)
    with pytest.raises(SpadesError, match="n_tables"):
        BatchEnv(0)


def _digest(seed: int) -> str:
    batch = BatchEnv(2, "tournament", opponents={1: "heuristic"})
    batch.reset(seed=seed)
    policy = np.array([3], dtype=np.uint64)
    digest = hashlib.sha256()
    for _ in range(60):
        for array in batch.step(batch.random_actions(policy)):
            digest.update(array.tobytes())
    return digest.hexdigest()


def test_jit_matches_no_jit():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import test_env_batch; "
            "print(test_env_batch._digest(2))")
    result = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)],
                            capture_output=True, text=True, timeout=600, check=True,
                            env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    assert result.stdout.strip() == _digest(2)


def test_one_signature_per_batch_kernel():
    from spades_sim.engine import batch, table

    for name in PRESETS:
        for opponents in ({}, {1: "random"}, {0: "mc:samples=2"}):
            for every_choice in (False, True):
                env = BatchEnv(2, name, opponents=opponents, every_choice=every_choice)
                env.reset(seed=1)
                env.step(env.random_actions(np.array([1], dtype=np.uint64)))
    for kernel in (batch.batch_step_nb, batch.batch_reset_nb, batch.batch_step_all_nb,
                   batch.batch_reset_all_nb, table.mixed_run_nb):
        assert len(kernel.signatures) <= 1, kernel


def test_the_slots_batch_reads_are_the_engines():
    from spades_sim.engine import table_slots
    from spades_sim.env import batch

    assert (batch._S_SEAT, batch._S_PHASE) == (table_slots.S_SEAT, table_slots.S_PHASE)
