"""The PettingZoo AEC environment: :class:`raw_env` and the wrapped :func:`env`.

The state lives in the engine's arrays (:class:`.table.EngineTable`: one hand, or with
``whole_game=True`` one game, per episode), stepped by numba kernels that also write the
observation vector (:mod:`.encoding`'s layout) and the action mask; this module checks actions
(:mod:`.actions`), keeps PettingZoo's bookkeeping, and shows the episode as a
:class:`~spades_sim.game.Hand` or :class:`~spades_sim.game.Game` when asked (``hand``,
``game``, ``render()``). ``spades_sim.env``'s docstring and ``docs/environment.md`` describe
the spaces, rewards and seeding.
"""

from __future__ import annotations

import operator

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from ..core.errors import RulesError, SpadesError
from ..core.limits import MAX_UNITS
from ..core.rules import Rules, preset
from ..core.seeding import check_seed
from ..game import BID, BLIND, BUMP, KEEP, PASS, PLAY, Game, Hand, IllegalActionError
from .actions import N_ACTIONS, describe, to_game
from .encoding import HIGH, LOW
from .render import render_text
from .table import EngineTable

# The phase names of ``engine/table_slots.py``'s ``PHASE_*`` values.
PHASE_NAMES = (BID, PLAY, BLIND, BUMP, PASS, KEEP)

RENDER_MODES = ("ansi", "human")


def resolve_rules(rules, rule_overrides=None) -> Rules:
    """The environment's rules: a preset name or a :class:`Rules`, with optional overrides
    (a dict of rule fields); a :class:`RulesError` with one line when something is wrong."""
    if rule_overrides is None:
        rule_overrides = {}
    if not isinstance(rule_overrides, dict):
        raise RulesError(f"rule_overrides: {rule_overrides!r} is not a dict of rule fields")
    if isinstance(rules, Rules):
        if not rule_overrides:
            return rules
        return preset(rules.preset_name, **{**rules.overrides(), **rule_overrides})
    if isinstance(rules, str):
        return preset(rules, **rule_overrides)
    raise RulesError(f"rules: {rules!r} is neither a preset name nor a Rules")


def env(rules="classic", **kwargs) -> AECEnv:
    """The Spades environment with PettingZoo's usual wrappers.

    An illegal action ends the episode with reward ``illegal_reward`` for the seat that took
    it (default: minus the most points a side can lose in a hand, ``Rules.max_hand_points``,
    so an illegal action is never better than a hand played), 0 for the others; an action
    outside ``0 .. 94`` is an assertion error; calls out of order are refused.

    Parameters
    ----------
    rules : str or Rules
        A preset name (``spades_sim.core.rules.PRESETS``) or a :class:`Rules`.
    **kwargs
        ``illegal_reward``, and the keyword arguments of :class:`raw_env`.
    """
    _check_keywords("env", kwargs, ("illegal_reward", *RAW_KEYWORDS))
    illegal_reward = kwargs.pop("illegal_reward", None)
    raw = raw_env(rules, **kwargs)
    if illegal_reward is None:
        illegal_reward = -float(raw.rules.max_hand_points)
    elif not _finite_number(illegal_reward):
        raise SpadesError(f"illegal_reward: {illegal_reward!r} is not a finite number")
    return SpadesWrapper(raw, illegal_reward)


def _finite_number(value) -> bool:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        return False
    try:
        return bool(np.isfinite(float(value)))
    except OverflowError:
        return False


RAW_KEYWORDS = ("rule_overrides", "whole_game", "render_mode")


def _check_keywords(name: str, given: dict, allowed) -> None:
    unknown = [key for key in given if key not in allowed]
    if unknown:
        raise SpadesError(f"{name}: unknown keyword argument {unknown[0]!r}; allowed: "
                          f"{', '.join(allowed)}")


def _integer_action(action, agent) -> int:
    """An environment action as an int, or one IllegalActionError line: a bool is not an
    action (True is not action 1), nor is a float or an array."""
    shown = " ".join(repr(action).split())  # (an array's repr spans lines)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    if isinstance(action, (bool, np.bool_)):
        raise IllegalActionError(f"action {shown} for {agent} is a bool, not an integer "
                                 f"0..{N_ACTIONS - 1}")
    try:
        return int(operator.index(action))
    except TypeError:
        raise IllegalActionError(f"action {shown} for {agent} is not an integer "
                                 f"0..{N_ACTIONS - 1}") from None


class SpadesWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's usual wrappers in one: the calls' order enforced
    (``OrderEnforcingWrapper``), an action that is not an integer refused with one line, an
    action outside the space an assertion error (``AssertOutOfBoundsWrapper``), and an illegal
    action ending the episode with ``illegal_reward`` for the seat that took it
    (``TerminateIllegalWrapper``), each as those wrappers do it, without a chain of four
    wrappers to pass through at every step. An action is checked against the mask of the
    agent to act (the one its last observation showed)."""

    def __init__(self, env: raw_env, illegal_reward: float):
        super().__init__(env)
        self._illegal_value = illegal_reward
        self._terminated = False  # (ended by an illegal action)

    def reset(self, seed=None, options=None):
        self._terminated = False
        super().reset(seed=seed, options=options)

    def last(self, observe: bool = True):
        raw = self.env
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        agent = raw.agent_selection
        return (raw.observe(agent) if observe else None, raw._cumulative_rewards[agent],
                raw.terminations[agent], raw.truncations[agent], raw.infos[agent])

    def step(self, action):
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self.env
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        if action is not None:  # (None: the step of an agent whose episode ended)
            _integer_action(action, agent)
        assert (action is None and dead) or raw.action_space(agent).contains(action), \
            "action is not in action space"
        if self._terminated and dead:
            raw._was_dead_step(action)
        elif not dead and not raw.legal(action):
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = float(self._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            raw.step(action)


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's name for the unwrapped environment)
    """Spades as a PettingZoo AEC environment, unwrapped: an illegal action raises
    :class:`~spades_sim.game.IllegalActionError`.

    Parameters
    ----------
    rules : str or Rules
        A preset name or a :class:`Rules` (default ``"classic"``).
    rule_overrides : dict, optional
        Rule fields to change, e.g. ``{"target": 300}``.
    whole_game : bool
        False: an episode is one hand (dealt as the engine deals independent hand
        ``episode_id``, from zero scores). True: an episode is a whole game (game
        ``episode_id``), with a reward at the end of every hand.
    render_mode : {None, "ansi", "human"}
        ``render()`` returns the text picture (``"ansi"``) or prints it (``"human"``, also
        after every step).
    """

    metadata = {"name": "spades_v0", "render_modes": list(RENDER_MODES),
                "is_parallelizable": False}

    def __init__(self, rules="classic", *, rule_overrides=None, whole_game=False,
                 render_mode=None, **unknown):
        _check_keywords("raw_env", unknown, RAW_KEYWORDS)
        super().__init__()
        self.rules = resolve_rules(rules, rule_overrides)
        if not isinstance(whole_game, bool):
            raise SpadesError(f"whole_game: {whole_game!r} is not a bool (True or False)")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise SpadesError(f"render_mode: {render_mode!r} is not one of None, "
                              f"{', '.join(RENDER_MODES)}")
        self.whole_game = whole_game
        self.render_mode = render_mode
        players = self.rules.players
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.agents = list(self.possible_agents)
        self._action_space = spaces.Discrete(N_ACTIONS)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(LOW, HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
        })
        self.seed_value = 0
        self.episode_id = -1
        self._next_episode = 0
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._table: EngineTable | None = None
        self._started_episode = False
        self._shadow = None  # the episode as a Hand or Game, built when asked for
        self._replayed = 0

    # -- spaces -----------------------------------------------------------------------------
    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    # -- the episode ------------------------------------------------------------------------
    def reset(self, seed=None, options=None):
        """Start an episode: hand (or game) ``episode_id`` of the run with the current seed.

        ``seed`` sets the run seed and starts again from episode 0; without it the next
        episode id is taken (the first reset ever plays episode 0 of seed 0).
        ``options={"episode_id": k}`` picks an episode id; other options are ignored.
        """
        if seed is not None:
            self.seed_value = check_seed(seed)
            self._next_episode = 0
        episode = self._next_episode
        if options and "episode_id" in options:
            episode = options["episode_id"]
            if isinstance(episode, bool) or not isinstance(episode, (int, np.integer)) \
                    or episode < 0:
                raise SpadesError(f"episode_id {episode!r}: expected an integer >= 0")
            episode = int(episode)
        if episode > MAX_UNITS:
            # As on the command line: past it a game's hands would share their streams'
            # keys with other games' (core/seeding.py), and 2**64 would deal episode 0 again.
            raise SpadesError(f"episode_id {episode}: more than the largest allowed, "
                              f"{MAX_UNITS:,}, as for a run's hand and game ids")
        self.episode_id = episode
        self._next_episode = episode + 1
        if self._table is None:
            self._table = EngineTable(self.rules)
        self._table.start(self.seed_value, episode, self.whole_game)
        self._started_episode = True
        self._shadow = None
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self._table.seat]
        if self.render_mode == "human":
            self.render()

    def _started(self, call: str) -> None:
        if not self._started_episode:
            raise SpadesError(f"{call} before reset(): call reset() to start an episode")

    # -- the episode as the game-state API sees it ------------------------------------------
    @property
    def hand(self) -> Hand | None:
        """The hand being played (or just finished) as a :class:`~spades_sim.game.Hand`, built
        from the episode's actions the first time it is asked for and kept up to date after;
        None before the first reset. The environment itself steps the engine's arrays."""
        shadow = self._synced()
        if shadow is None:
            return None
        return shadow.hand if self.whole_game else shadow

    @property
    def game(self) -> Game | None:
        """Whole-game episodes: the game as a :class:`~spades_sim.game.Game` (as ``hand``);
        None for one-hand episodes."""
        return self._synced() if self.whole_game else None

    def _synced(self):
        if not self._started_episode:
            return None
        if self._shadow is None:
            if self.whole_game:
                self._shadow = Game(self.rules, self.seed_value, self.episode_id)
            else:
                self._shadow = Hand.deal(self.rules, self.seed_value, self.episode_id)
            self._replayed = 0
        actions = self._table.actions
        shadow = self._shadow
        for action in actions[self._replayed:]:
            hand = shadow.hand if self.whole_game else shadow
            shadow.apply(to_game(hand.phase, action))
        self._replayed = len(actions)
        return shadow

    def observe(self, agent):
        """``{"observation": float32 vector, "action_mask": int8 mask}`` for ``agent``."""
        self._started("observe()")
        seat = self._seats.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise SpadesError(f"observe(): {agent!r} is not an agent; agents: "
                              f"{', '.join(self.possible_agents)}")
        table = self._table
        if seat == table.seat:
            return {"observation": table.obs.copy(), "action_mask": table.mask.copy()}
        return {"observation": table.observe(seat), "action_mask": np.zeros(N_ACTIONS, np.int8)}

    def legal(self, action) -> bool:
        """Whether ``action`` (an environment number) is legal for the agent to act."""
        table = self._table
        choice = int(action) - table.offset
        return not table.over and 0 <= choice < 64 and bool(table.legal >> choice & 1)

    def step(self, action):
        self._started("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table
        number = _integer_action(action, agent)
        if not self.legal(number):
            legal = ", ".join(f"{option} ({describe(option)})"
                              for option in np.flatnonzero(table.mask).tolist())
            raise IllegalActionError(f"action {number} is not legal for {agent} in the "
                                     f"{PHASE_NAMES[table.phase]} phase; legal: {legal}")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        hands_before = table.hands_done
        table.act(number - table.offset, number)
        if table.hands_done > hands_before:
            self._end_hand(table.hands_done - 1)
        if table.over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.agents[table.seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_hand(self, index: int) -> None:
        """Every agent's reward is its side's score change; the infos carry the result."""
        table = self._table
        result = table.result(index)
        extra = {}
        if self.whole_game:
            extra = {"scores": [before + delta for before, delta in
                                zip(result["score_before"], result["score_delta"])],
                     "bags": list(result["bags_after"]), "hands_played": index + 1,
                     "game_over": table.over}
            if table.over:
                extra["winner"] = table.game_over()[2]
        deltas = result["score_delta"]
        hand_id = table.hand_id(index)
        for seat, agent in enumerate(self.agents):
            self.rewards[agent] = float(deltas[self.rules.side_of(seat)])
            self.infos[agent] = {"hand_id": hand_id, "hand_result": result, **extra}

    # -- text -------------------------------------------------------------------------------
    def render(self):
        """The table as text (``"ansi"``: returned; ``"human"``: printed)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode: 'ansi' or 'human'")
            return None
        if not self._started_episode:
            text = "(no episode yet: call reset())"
        else:
            text = render_text(self.hand, self.possible_agents, self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass
