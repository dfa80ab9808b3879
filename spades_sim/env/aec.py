"""The PettingZoo AEC environment: :class:`raw_env` and the wrapped :func:`env`.

The state lives in a :class:`~spades_sim.game.Hand` (one hand per episode) or a
:class:`~spades_sim.game.Game` (``whole_game=True``: one game per episode); the environment
translates actions (:mod:`.actions`), encodes observations (:mod:`.encoding`) and keeps
PettingZoo's bookkeeping. ``spades_sim.env``'s docstring and ``docs/environment.md`` describe
the spaces, rewards and seeding.
"""

from __future__ import annotations

import operator

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core.cards import card_text, pretty_hand, texts_of
from ..core.errors import RulesError, SpadesError
from ..core.limits import MAX_UNITS
from ..core.rules import Rules, preset
from ..core.seeding import check_seed
from ..game import BLIND, KEEP, PASS, PLAY, Game, Hand, IllegalActionError
from .actions import N_ACTIONS, describe, to_env, to_game
from .encoding import HIGH, LOW, encode

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
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward=illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(_IntegerActions(wrapped))


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


class _IntegerActions(wrappers.BaseWrapper):
    """Refuses an action that is not an integer before the wrappers below read it (PettingZoo's
    illegal-action wrapper indexes the action mask with it: ``True`` would select the whole
    mask and fail with NumPy's "truth value of an array is ambiguous")."""

    def step(self, action):
        if action is not None:  # (None: the step of an agent whose episode ended)
            _integer_action(action, self.agent_selection)
        super().step(action)


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
        self.game: Game | None = None
        self.hand: Hand | None = None
        self._declined = [0] * players
        self._declined_hand: Hand | None = None

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
        if self.whole_game:
            self.game = Game(self.rules, self.seed_value, episode)
            self.hand = self.game.hand
        else:
            self.game = None
            self.hand = Hand.deal(self.rules, self.seed_value, episode)
        self._declined = [0] * self.rules.players
        self._declined_hand = self.hand
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self.hand.to_act]
        if self.render_mode == "human":
            self.render()

    def _started(self, call: str) -> None:
        if self.hand is None:
            raise SpadesError(f"{call} before reset(): call reset() to start an episode")

    def observe(self, agent):
        """``{"observation": float32 vector, "action_mask": int8 mask}`` for ``agent``."""
        self._started("observe()")
        if agent not in self.possible_agents:
            raise SpadesError(f"observe(): {agent!r} is not an agent; agents: "
                              f"{', '.join(self.possible_agents)}")
        seat = self.possible_agents.index(agent)
        hand = self.hand
        mask = np.zeros(N_ACTIONS, np.int8)
        if seat == hand.to_act:
            phase = hand.phase
            for action in hand.legal_actions():
                mask[to_env(phase, action)] = 1
        vector = encode(hand.observation(seat), hand.to_act, self._declined[seat])
        return {"observation": vector, "action_mask": mask}

    def step(self, action):
        self._started("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        hand = self.hand
        game_action = self._game_action(hand, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        seat = hand.to_act
        if hand.phase == KEEP and game_action == 0:
            self._declined[seat] |= 1 << hand.face_up
        if self.game is None:
            hand.apply(game_action)
            if hand.done:
                self._end_hand(hand.result(), {})
            over = hand.done
        else:
            hands_played = len(self.game.results)
            self.game.apply(game_action)
            game = self.game
            if len(game.results) > hands_played:
                extra = {"scores": list(game.scores), "bags": list(game.bags),
                         "hands_played": len(game.results), "game_over": game.over}
                if game.over:
                    extra["winner"] = game.winner
                self._end_hand(game.results[-1], extra)
            self.hand = game.hand
            over = game.over
        if self.hand is not self._declined_hand:  # a new hand of the game
            self._declined = [0] * self.rules.players
            self._declined_hand = self.hand
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.agents[self.hand.to_act]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _game_action(self, hand: Hand, action) -> int:
        """The hand's action for an environment action, or an IllegalActionError."""
        number = _integer_action(action, self.agent_selection)
        game_action = to_game(hand.phase, number)
        if game_action is None or not hand.is_legal(game_action):
            numbers = [to_env(hand.phase, option) for option in hand.legal_actions()]
            legal = ", ".join(f"{legal} ({describe(legal)})" for legal in numbers)
            raise IllegalActionError(f"action {number} is not legal for {self.agent_selection} "
                                     f"in the {hand.phase} phase; legal: {legal}")
        return game_action

    def _end_hand(self, result: dict, extra: dict) -> None:
        """Every agent's reward is its side's score change; the infos carry the result."""
        deltas = result["score_delta"]
        for seat, agent in enumerate(self.agents):
            self.rewards[agent] = float(deltas[self.rules.side_of(seat)])
            self.infos[agent] = {"hand_id": self.hand.hand_id, "hand_result": result, **extra}

    # -- text -------------------------------------------------------------------------------
    def render(self):
        """The table as text (``"ansi"``: returned; ``"human"``: printed)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode: 'ansi' or 'human'")
            return None
        if self.hand is None:
            text = "(no episode yet: call reset())"
        else:
            text = render_text(self.hand, self.possible_agents, self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass


def _bid_text(hand: Hand, seat: int) -> str:
    bid = hand.bids[seat]
    if bid < 0:
        return "-"
    text = "nil" if bid == 0 and hand.rules.nil else str(bid)
    if hand.blind[seat]:
        text = f"blind {text}"
    if hand.bumped[seat]:
        text += " (bumped)"
    return text


def render_text(hand: Hand, agents: list[str], game: Game | None = None) -> str:
    """A text picture of ``hand``: the table, and the cards of the seat to act only."""
    rules = hand.rules
    width = max(len(agent) for agent in agents)
    title = f"{rules.preset_name}: hand {hand.hand_id}, dealer {agents[hand.dealer]}"
    if game is not None:
        title = f"{rules.preset_name}: game {game.game_id}, hand {hand.hand_id}, dealer " \
                f"{agents[hand.dealer]}"
    lines = [title]
    if hand.done:
        lines.append("phase: over")
    else:
        status = f"phase: {hand.phase}, {agents[hand.to_act]} to act"
        if hand.phase == PLAY:
            status += f", trick {hand.trick_index + 1} of {rules.hand_size}"
        lines.append(status)
    scores = game.scores if game is not None else hand.scores
    bags = game.bags if game is not None else hand.bags
    sides = []
    for side in range(rules.n_sides):
        members = "+".join(agent for seat, agent in enumerate(agents)
                           if rules.side_of(seat) == side)
        sides.append(f"{members} {scores[side]} ({bags[side]} bags)")
    lines.append("scores: " + ", ".join(sides))
    lines.append("")
    trick = dict(hand.trick)
    for seat, agent in enumerate(agents):
        card = card_text(trick[seat]) if seat in trick else ""
        lead = " (led)" if hand.trick and hand.trick[0][0] == seat else ""
        lines.append(f"  {agent:<{width}}  bid {_bid_text(hand, seat):<18} tricks "
                     f"{hand.tricks[seat]:>2}  {card}{lead}".rstrip())
    if hand.done:
        result = hand.result()
        lines.append("")
        lines.append("score change: " + ", ".join(str(delta) for delta in result["score_delta"]))
        return "\n".join(lines)
    seat = hand.to_act
    lines.append("")
    lines.append(f"{agents[seat]}'s cards:")
    lines += ["  " + line for line in pretty_hand(hand.hands[seat]).splitlines()]
    if hand.phase == KEEP:
        lines.append(f"face-up card: {card_text(hand.face_up)}")
    if hand.phase == PASS:
        chosen = hand.hands[seat] & ~sum(1 << card for card in hand.legal_actions())
        lines.append(f"cards still to pass: {hand.pass_count} (chosen: "
                     f"{' '.join(texts_of(chosen)) or 'none'})")
    if hand.phase == BLIND:
        lines.append("blind bid before looking, or look")
    legal = [to_env(hand.phase, action) for action in hand.legal_actions()]
    if hand.phase in (PLAY, PASS):
        lines.append("legal: " + " ".join(texts_of(sum(1 << card for card in legal))))
    else:
        lines.append("legal: " + ", ".join(f"{action} ({describe(action)})" for action in legal))
    return "\n".join(lines)
