"""The PettingZoo environment: PettingZoo's API test, random-legal rollouts of every preset in
hand and whole-game mode, the env against the game-state API, masks, privacy, seeding, text."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from spades_sim.core.errors import RulesError, SpadesError  # noqa: E402
from spades_sim.core.rules import PRESETS, preset  # noqa: E402
from spades_sim.env import (  # noqa: E402
    N_ACTIONS,
    OBSERVATION_SIZE,
    OFFSETS,
    env,
    raw_env,
    to_env,
    to_game,
)
from spades_sim.env.encoding import encode  # noqa: E402
from spades_sim.game import (  # noqa: E402
    BID,
    BLIND,
    BUMP,
    KEEP,
    PASS,
    PLAY,
    Game,
    Hand,
    IllegalActionError,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "environment.md"
# Whole games of random play rarely reach the target; two hands keep a rollout short.
SHORT_GAME = {"max_hands": 2}


def quiet_api_test(test):
    """api_test warns about every Dict observation with an action mask; PettingZoo's own
    classic games get the same two warnings."""
    for message in ("Observation space for each agent probably", "Observation is not a NumPy"):
        test = pytest.mark.filterwarnings(f"ignore:{message}")(test)
    return test


def rollout(table, seed, policy_seed=0, reset_seed=True):
    """Play one episode of ``table`` (a raw_env or a wrapped env) with random legal actions;
    return the actions, the total reward per agent, the phases seen and the hand results."""
    if reset_seed:
        table.reset(seed=seed)
    else:
        table.reset()
    raw = table.unwrapped
    rng = np.random.default_rng(policy_seed)
    actions, phases = [], set()
    totals = dict.fromkeys(table.possible_agents, 0.0)
    results = []
    for agent in table.agent_iter():
        observation, reward, terminated, truncated, info = table.last()
        totals[agent] += reward
        assert table.observation_space(agent).contains(observation)
        if terminated or truncated:
            table.step(None)
            continue
        hand = raw.hand
        seat = table.possible_agents.index(agent)
        assert seat == hand.to_act
        mask = observation["action_mask"]
        legal = {to_env(hand.phase, action) for action in hand.legal_actions()}
        assert set(np.flatnonzero(mask)) == legal
        for other in table.possible_agents:
            if other != agent:
                assert not table.observe(other)["action_mask"].any()
        phases.add(hand.phase)
        action = int(rng.choice(np.flatnonzero(mask)))
        actions.append(action)
        hands_before = len(raw.game.results) if raw.game is not None else 0
        table.step(action)
        if raw.game is not None:
            if len(raw.game.results) > hands_before:
                results.append(raw.game.results[-1])
        elif raw.hand.done:
            results.append(raw.hand.result())
    return actions, totals, phases, results


@pytest.mark.parametrize("name", list(PRESETS))
@quiet_api_test
def test_pettingzoo_api(name):
    api_test(env(name), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("whole_game", [False, True])
@pytest.mark.parametrize("name", list(PRESETS))
@quiet_api_test
def test_pettingzoo_seed_test(name, whole_game):
    overrides = SHORT_GAME if whole_game else None
    seed_test(lambda: env(name, whole_game=whole_game, rule_overrides=overrides),
              num_cycles=100)


@quiet_api_test
def test_pettingzoo_api_whole_game():
    api_test(env("tournament", whole_game=True, rule_overrides=SHORT_GAME), num_cycles=400,
             verbose_progress=False)


@pytest.mark.parametrize("whole_game", [False, True])
@pytest.mark.parametrize("name", list(PRESETS))
def test_random_rollouts(name, whole_game):
    overrides = SHORT_GAME if whole_game else None
    table = env(name, whole_game=whole_game, rule_overrides=overrides)
    rules = table.unwrapped.rules
    actions, totals, _, results = rollout(table, seed=5)
    assert results and all(sum(result["tricks"]) == rules.hand_size for result in results)
    for seat, agent in enumerate(table.possible_agents):
        expected = sum(result["score_delta"][rules.side_of(seat)] for result in results)
        assert totals[agent] == expected
    if whole_game:
        assert table.unwrapped.game.over
        assert table.unwrapped.infos == {}  # every agent has been stepped out
    # The same seed plays the same episode; the next reset plays another one.
    assert rollout(table, seed=5)[:2] == (actions, totals)
    assert rollout(table, seed=5, reset_seed=False)[0] != actions
    assert table.unwrapped.episode_id == 1


def test_every_phase_is_reached():
    seen = {}
    for name, whole_game in [("classic", False), ("tournament", True), ("two-player", False)]:
        table = raw_env(name, whole_game=whole_game, rule_overrides={"max_hands": 4}
                        if whole_game else None)
        phases = set()
        for episode in range(6):
            phases |= rollout(table, seed=11, policy_seed=episode)[2]
        seen[name] = phases
    assert {BID, PLAY, PASS, BLIND} <= seen["classic"]
    assert {BLIND, BID, BUMP, PLAY} <= seen["tournament"]
    assert {KEEP, BID, PLAY} <= seen["two-player"]


@pytest.mark.parametrize("name", ["classic", "tournament", "two-player", "jokers"])
def test_env_plays_the_hand_the_game_api_plays(name):
    # A policy that picks by the observation alone (the middle legal action), through the env
    # and straight on Hand.deal: the same hand, the same result.
    def choose(options):
        return options[len(options) // 2]

    table = raw_env(name)
    table.reset(seed=21, options={"episode_id": 3})
    for _ in table.agent_iter():
        observation, _, terminated, _, _ = table.last()
        if terminated:
            table.step(None)
            continue
        table.step(int(choose(np.flatnonzero(observation["action_mask"]))))
    played = table.hand.result()

    hand = Hand.deal(preset(name), seed=21, hand_id=3)
    while not hand.done:
        options = sorted(to_env(hand.phase, action) for action in hand.legal_actions())
        hand.apply(to_game(hand.phase, int(choose(options))))
    assert played == hand.result()


@pytest.mark.parametrize("whole_game", [False, True])
@pytest.mark.parametrize("name", list(PRESETS))
def test_engine_state_shows_what_the_game_api_shows(name, whole_game):
    # The environment steps the engine's arrays; beside it, the game-state API (Hand, Game)
    # takes the same actions. At every step every seat's observation is the Python encoder's
    # of that seat's Observation, and the mask is the API's legal actions.
    overrides = SHORT_GAME if whole_game else None
    table = env(name, whole_game=whole_game, rule_overrides=overrides)
    raw = table.unwrapped
    rng = np.random.default_rng(2)
    phases = set()
    for episode in range(1 if whole_game else 4):
        table.reset(seed=7 if episode == 0 else None)
        if whole_game:
            shadow = Game(raw.rules, 7, raw.episode_id)
        else:
            shadow = Hand.deal(raw.rules, 7, raw.episode_id)
        declined = [0] * raw.rules.players
        for agent in table.agent_iter():
            observation, _, terminated, truncated, info = table.last()
            hand = shadow.hand if whole_game else shadow
            for seat, other in enumerate(table.possible_agents):
                seen = table.observe(other)
                assert np.array_equal(seen["observation"],
                                      encode(hand.observation(seat), hand.to_act, declined[seat]))
                legal = {to_env(hand.phase, action) for action in hand.legal_actions()} \
                    if seat == hand.to_act else set()
                assert set(np.flatnonzero(seen["action_mask"])) == legal
            if terminated or truncated:
                table.step(None)
                continue
            assert agent == table.possible_agents[hand.to_act]
            phases.add(hand.phase)
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            if hand.phase == KEEP and action == to_env(KEEP, 0):
                declined[hand.to_act] |= 1 << hand.face_up
            shadow.apply(to_game(hand.phase, action))
            if whole_game and shadow.hand is not hand and not shadow.over:
                declined = [0] * raw.rules.players
            table.step(action)
        expected = shadow.results[-1] if whole_game else shadow.result()
        assert info["hand_result"] == expected
    assert {BID, PLAY} <= phases


def test_observation_shows_only_the_seat_s_knowledge():
    # Seat 0 holds the same cards in both deals; the others' cards differ.
    rules = preset("simple")  # (no blind nil: the bid phase comes first)
    deck = list(range(52))
    first = [deck[0:13], deck[13:26], deck[26:39], deck[39:52]]
    second = [deck[0:13], deck[39:52], deck[13:26], deck[26:39]]
    views = []
    for cards in (first, second):
        hand = Hand.from_cards(rules, cards, dealer=3)
        for action in (3, 2, 4):  # seats 0, 1, 2 bid
            hand.apply(action)
        views.append(encode(hand.observation(0), hand.to_act))
    np.testing.assert_array_equal(*views)
    vector = views[0]
    assert vector.shape == (OBSERVATION_SIZE,) and vector.dtype == np.float32
    assert vector[OFFSETS["hand"]:OFFSETS["hand"] + 54].sum() == 13
    bids = vector[OFFSETS["bids"]:OFFSETS["bids"] + 72].reshape(4, 18)
    assert [int(row.argmax()) if row.any() else -1 for row in bids] == [3, 2, 4, -1]
    assert vector[OFFSETS["to_act"] + 3] == 1  # seat 3 acts: three seats to the left


def test_illegal_actions():
    table = raw_env("classic")
    table.reset(seed=0)
    agent = table.agent_selection
    with pytest.raises(IllegalActionError, match=f"not legal for {agent} in the blind phase"):
        table.step(3)  # a card in the blind phase
    assert table.agent_selection == agent and table.hand.phase == BLIND  # nothing changed
    with pytest.raises(IllegalActionError, match="not an integer"):
        table.step("bid")
    wrapped = env("classic")
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    wrapped.step(3)  # (PettingZoo logs a warning)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] == -preset("classic").max_hand_points
    wrapped = env("classic")
    wrapped.reset(seed=0)
    with pytest.raises(AssertionError):
        wrapped.step(N_ACTIONS)  # out of the action space


def test_calls_out_of_order_or_of_the_wrong_type_are_one_line():
    with pytest.raises(SpadesError, match=r"step\(\) before reset\(\)"):
        raw_env().step(54)
    with pytest.raises(SpadesError, match=r"observe\(\) before reset\(\)"):
        raw_env().observe("player_0")
    with pytest.raises(SpadesError, match="unknown keyword argument 'whole_games'; allowed: "
                                          "illegal_reward, rule_overrides, whole_game"):
        env(whole_games=True)
    with pytest.raises(SpadesError, match="illegal_reward: {} is not a finite number"):
        env(illegal_reward={})
    with pytest.raises(SpadesError, match="raw_env: unknown keyword argument 'seed'"):
        raw_env(seed=3)
    for make in (env, raw_env):
        table = make("classic")
        table.reset(seed=0)
        agent = table.agent_selection
        for action in (True, np.bool_(False), 72.0, np.array([72, 73])):
            with pytest.raises(IllegalActionError, match="not an integer 0..94"):
                table.step(action)
        assert table.agent_selection == agent and not any(table.terminations.values())
        table.step(72)  # still playable: the bad actions changed nothing
    table = raw_env()
    table.reset()
    with pytest.raises(SpadesError, match="'player_7' is not an agent"):
        table.observe("player_7")


@pytest.mark.parametrize("whole_game", [False, True])
def test_episode_ids_are_bounded_as_on_the_command_line(whole_game):
    table = raw_env(whole_game=whole_game)
    for episode in (2**64, 2**44 + 3, 10**12 + 1):
        with pytest.raises(SpadesError, match=f"episode_id {episode}: more than the largest "
                                              f"allowed, 1,000,000,000,000"):
            table.reset(seed=5, options={"episode_id": episode})
    table.reset(seed=5, options={"episode_id": 10**12})  # the largest is played
    assert table.episode_id == 10**12
    with pytest.raises(SpadesError, match="episode_id 1000000000001"):
        table.reset()  # the next id is past the bound


def test_bad_constructor_input_is_one_line():
    with pytest.raises(RulesError, match="unknown preset 'clasic'"):
        raw_env("clasic")
    with pytest.raises(RulesError, match="unknown rule field 'targt'"):
        raw_env("classic", rule_overrides={"targt": 300})
    with pytest.raises(RulesError, match="rule target"):
        raw_env("classic", rule_overrides={"target": -5})
    with pytest.raises(RulesError, match="neither a preset name"):
        raw_env(4)
    with pytest.raises(SpadesError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(SpadesError, match="whole_game"):
        raw_env(whole_game="yes")
    table = raw_env(preset("cutthroat"), rule_overrides={"target": 300})
    assert table.rules.target == 300 and table.rules.players == 3
    assert table.possible_agents == ["player_0", "player_1", "player_2"]
    with pytest.raises(SpadesError, match="seed"):
        table.reset(seed=-1)


def test_render(capsys):
    table = raw_env("two-player", render_mode="ansi")
    table.reset(seed=2)
    text = table.render()
    assert "phase: keep, player_1 to act" in text and "face-up card:" in text
    human = raw_env("classic", render_mode="human")
    human.reset(seed=2)
    assert human.render() is None
    assert "player_1 to act" in capsys.readouterr().out


def test_docs_table_matches_the_layout():
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", DOCS.read_text(), re.MULTILINE)
    assert {name: int(offset) for name, offset, _ in rows} == OFFSETS
    assert sum(int(size) for _, _, size in rows) == OBSERVATION_SIZE


def test_the_env_leaves_numba_out():
    code = ("import sys, spades_sim.env; print(sorted(m for m in ('numba', 'llvmlite', 'pandas') "
            "if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=True)
    assert result.stdout.strip() == "[]", result.stdout
