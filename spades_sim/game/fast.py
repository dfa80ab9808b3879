"""Tables with Python plug-ins at engine speed: the engine plays the built-in seats, and stops
only when a Python seat must decide (``engine/table.py``, ``engine/mixed.py``).

A Python plug-in that implements ``bid`` and ``play`` only (its other choices are the default
heuristic's, made inside the engine) decides from a :class:`ViewObservation`: the engine's array
for that seat (``core/view.py``, the same array a numba plug-in reads), read lazily; what the
array does not hold (``exchanged``, ``sample()``) comes from a :class:`~.state.Hand` rebuilt from
the engine's record of the hand so far, on first use. A plug-in that makes other choices too
(``blind``, ``bump``, ``pass_cards``, ``keep``) is asked for those from such a rebuilt hand, as
the game-state API asks it (one ``pass_cards`` call for the cards of a pass; a choice it does
not implement is the heuristic's, drawn from the same stream). The hands played are the
engine's, bit for bit, and so the API's (``tests/test_mixed.py`` holds both).

A table runs here when every seat is a built-in strategy or a Python plug-in, at least one seat
is a plug-in and no deal filter is given; any other table is played through the game-state API
(``play.py``). A plug-in that fails (an exception, an illegal or mistyped action, a change to
the hand it read) is refused in the API's words, naming the strategy, the hand, the seat, the
action and the legal ones.
"""

from __future__ import annotations

import numpy as np

from ..core import view as v
from ..core.cards import cards_of
from ..core.errors import StrategyError
from .agents import (
    HEURISTIC,
    BuiltinAgent,
    PluginAgent,
    PluginError,
    check_untouched,
    plugin_output,
    state_snapshot,
)
from .observation import Generator, Observation
from .state import BID, BLIND, BUMP, KEEP, LOOK, PLAY, Hand
from .stream import Stream


def eligible(rules, agents, deal_filter=None) -> bool:
    """Whether the table runs here (the module docstring)."""
    if deal_filter is not None:
        return False
    plugins = 0
    for agent in agents:
        if type(agent) is PluginAgent:
            plugins += 1
        elif type(agent) is not BuiltinAgent:
            return False
    return plugins > 0


def play(rules, agents, keys, first: int, count: int, record_plays: bool, games: bool):
    """Hands (or games) ``first ...`` with these agents, as ``play.play_hands`` (or
    ``play.play_games``) returns them; ``None`` when a plug-in failed (play the piece
    through the API)."""
    from ..engine.mixed import MixedPiece

    strategies = [HEURISTIC if type(agent) is PluginAgent else agent.strategy
                  for agent in agents]
    python_seats = [seat for seat, agent in enumerate(agents) if type(agent) is PluginAgent]
    full_seats = [seat for seat in python_seats if not agents[seat].bids_and_plays_only]
    piece = MixedPiece(rules, strategies, python_seats, keys, first, count, games, full_seats)
    context = _Context(rules, keys, piece)
    state = piece.state
    try:
        with plugin_output():
            while True:
                seat = piece.step()
                if seat < 0:
                    break
                if state[_S_PHASE] <= _PHASE_PLAY:  # (bid or play)
                    piece.act(_decide(agents[seat], context, seat))
                else:
                    piece.act(_choose(agents[seat], context, int(state[_S_PHASE])))
    except StrategyError:
        raise
    except ValueError:  # (the engine refused an action: the API plays the piece, names it)
        return None
    return piece.result(record_plays)


class _Context:
    """What the observations of one piece share."""

    __slots__ = ("rules", "keys", "piece", "stream", "run")

    def __init__(self, rules, keys, piece):
        self.rules = rules
        self.keys = (int(keys[0]), int(keys[1]))
        self.piece = piece
        self.stream = Stream(0, 0)
        self.run = (None, None)  # (a run of one seat's decisions, its rebuilt hand): _choose


def _choose(agent: PluginAgent, context: _Context, phase: int) -> int:
    """A plug-in's blind choice, bump, pass card or keep, asked from the hand rebuilt from the
    engine's record and checked as the API checks it (``play.play_out``); returned as the
    engine numbers the choice (``engine/table_slots.py``)."""
    from .play import checked_int  # (play.py imports this module)

    piece = context.piece
    state = piece.state
    context.stream.state = int(piece.rng[1])  # (the decision draws from the play stream)
    # A pass (the cards one by one) and a turn of the draw deal (the pairs one by one) are runs
    # of one seat's decisions with nothing between them: the hand rebuilt for the first one
    # follows the run, and a pass asks the plug-in once, as the API does.
    key = None
    if phase in (_PHASE_PASS, _PHASE_KEEP):
        step = _S_PASS_STEP if phase == _PHASE_PASS else _S_DRAW
        run = int(state[step]) // (1 if phase == _PHASE_PASS else context.rules.hand_size)
        key = (phase, piece.first + int(state[_S_UNIT]), int(state[_S_ROW]), run)
    if key is not None and context.run[0] == key:
        hand = context.run[1]
    else:
        hand = _rebuild(context)
        context.run = (key, hand)
    action = agent.act(hand, 0)
    if hand.phase in (BUMP, KEEP) and isinstance(action, (bool, np.bool_)):
        action = int(action)  # (a yes-or-no choice)
    if type(action) is not int:
        action = checked_int(agent, hand, action)
    if not hand.is_legal(action):
        raise StrategyError(f"strategy {agent.name}: {hand.illegal_message(action)}")
    piece.rng[1] = np.uint64(context.stream.state)
    if key is not None:
        hand._apply(action)  # (the rebuilt hand follows the run)
    if phase == _PHASE_KEEP:
        return int(action)
    if phase == _PHASE_BLIND:
        return 0 if action == LOOK else action + 1
    return action


def _decide(agent: PluginAgent, context: _Context, seat: int) -> int:
    """The plug-in's action, checked; a failure is refused in the API's words (``play.py``,
    ``agents.py``), from the hand rebuilt from the engine's record."""
    view = context.piece.view
    playing = view[v.V_PHASE] == v.PHASE_PLAY
    observation = ViewObservation(context, seat)
    method = agent.instance.play if playing else agent.instance.bid
    try:
        action = method(observation)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the strategy's own error: name it, keep its traceback
        raise PluginError(agent.name, observation._hand, error) from error
    if observation._built is not None:
        check_untouched(agent.name, observation._built, observation._snapshot, seat,
                        PLAY if playing else BID)
    if observation._stream_used:
        context.piece.rng[1] = np.uint64(context.stream.state)
    if type(action) is not int:
        from .play import checked_int  # (play.py imports this module)

        action = checked_int(agent, observation._hand, action)
    if not (0 <= action < 64 and int(view[v.V_LEGAL]) >> action & 1):
        raise StrategyError(f"strategy {agent.name}: {observation._hand.illegal_message(action)}")
    return action


class ViewObservation(Observation):
    """A seat's :class:`~.observation.Observation` read from the engine's view array."""

    __slots__ = ("_context", "_view", "_stream_used", "_built", "_snapshot")

    def __init__(self, context: _Context, seat: int):
        self._context = context
        self._view = context.piece.view
        self.seat = seat
        self._stream_used = False
        self._built = None

    @property
    def _hand(self) -> Hand:
        """The hand so far as a :class:`~.state.Hand` (built on first use; a decision that
        changes it is refused, as the API refuses a change of the game's state)."""
        if self._built is None:
            self._synced_stream()  # (the rebuilt hand draws from the observation's stream)
            self._built = _rebuild(self._context)
            self._snapshot = state_snapshot(self._built)
        return self._built

    def _seats(self, slot: int) -> list[int]:
        return [int(x) for x in self._view[slot:slot + self._context.rules.players]]

    def _sides(self, slot: int) -> list[int]:
        return [int(x) for x in self._view[slot:slot + self._context.rules.n_sides]]

    rules = property(lambda self: self._context.rules)
    side = property(lambda self: self.seat % 2 if self._context.rules.partnership else self.seat)
    phase = property(lambda self: PLAY if self._view[v.V_PHASE] == v.PHASE_PLAY else BID)
    hand_id = property(lambda self: int(self._context.piece.state[_S_HAND_ID]))
    dealer = property(lambda self: int(self._view[v.V_DEALER]))
    to_act = property(lambda self: True)
    hand = property(lambda self: int(self._view[v.V_HAND]))
    cards = property(lambda self: cards_of(int(self._view[v.V_HAND])))
    legal_mask = property(lambda self: int(self._view[v.V_LEGAL]))
    legal = property(lambda self: cards_of(int(self._view[v.V_LEGAL])))
    position = property(lambda self: int(self._view[v.V_POSITION]))
    face_up = property(lambda self: -1)
    pass_count = property(lambda self: 0)
    passing_as_nil_bidder = property(lambda self: False)
    blind_options = property(lambda self: (False, 0))
    bids = property(lambda self: self._seats(v.V_BIDS))
    blind = property(lambda self: [bool(x) for x in self._seats(v.V_BLIND)])
    tricks = property(lambda self: self._seats(v.V_TRICKS))
    trick_index = property(lambda self: max(int(self._view[v.V_TRICK]), 0))
    leader = property(lambda self: int(self._view[v.V_LEADER]))
    first_leader = property(lambda self: int(self._view[v.V_FIRST_LEADER]))
    winning_card = property(lambda self: int(self._view[v.V_WINNING_CARD]))
    winning_seat = property(lambda self: int(self._view[v.V_WINNING_SEAT]))
    spades_broken = property(lambda self: bool(self._view[v.V_SPADES_BROKEN]))
    played = property(lambda self: int(self._view[v.V_PLAYED]))
    played_by = property(lambda self: self._seats(v.V_PLAYED_BY))
    voids = property(lambda self: int(self._view[v.V_VOIDS]))
    scores = property(lambda self: self._sides(v.V_SCORES))
    bags = property(lambda self: self._sides(v.V_BAGS))

    @property
    def bumped(self) -> list[bool]:
        bumped = int(self._context.piece.state[_S_BUMPED]) if self.phase == PLAY else 0
        return [bool(bumped >> seat & 1) for seat in range(self._context.rules.players)]

    @property
    def led_suit(self) -> int | None:
        suit = int(self._view[v.V_LED_SUIT])
        return None if suit < 0 else suit

    @property
    def trick(self) -> list[tuple[int, int]]:
        if self.phase != PLAY:
            return []
        players, leader = self._context.rules.players, int(self._view[v.V_LEADER])
        return [((leader + k) % players, int(self._view[v.V_TRICK_CARDS + k]))
                for k in range(int(self._view[v.V_POSITION]))]

    def void(self, seat: int, suit: int) -> bool:
        return bool(int(self._view[v.V_VOIDS]) >> (4 * seat + suit) & 1)

    def _synced_stream(self) -> Stream:
        """The play stream, its state the engine's (written back after the decision)."""
        if not self._stream_used:
            self._stream_used = True
            self._context.stream.state = int(self._context.piece.rng[1])
        return self._context.stream

    @property
    def rng(self) -> Generator:
        return Generator(self._synced_stream())

    def sample(self, rng=None):
        return super().sample(rng or self.rng)

    def view(self, out: np.ndarray | None = None) -> np.ndarray:
        """The engine's array for this seat: the one numba plug-ins read (``out``: a copy in
        ``out``)."""
        if out is None:
            return self._view
        out[:] = self._view
        return out


def _rebuild(context: _Context) -> Hand:
    """The hand so far, replayed on a :class:`Hand` from the engine's record of it: the draw
    deal's keeps, the bids (blind or not), the bumps, the exchange passes and the cards played,
    up to the decision the engine waits for."""
    from ..engine.table_slots import (
        R_EXCHANGE,
        R_PLAYS,
        S_BAGS,
        S_BIDS,
        S_BLIND,
        S_DEALER,
        S_DEALT,
        S_DRAW,
        S_HANDS,
        S_KEY_INDEX,
        S_N_EXCHANGED,
        S_POSITION,
        S_SCORES,
        S_STAGE,
        S_TRICK_INDEX,
        STAGE_BID,
        STAGE_BUMP,
        STAGE_DRAW,
        STAGE_EXCHANGE,
        STAGE_PLAY,
    )

    rules, piece = context.rules, context.piece
    state, players = piece.state, rules.players
    key_index = int(state[S_KEY_INDEX])
    n_sides = rules.n_sides
    deal_key, play_key = context.keys
    hand = Hand.from_keys(rules, deal_key, play_key, key_index, int(state[S_DEALER]),
                          [int(x) for x in state[S_SCORES:S_SCORES + n_sides]],
                          [int(x) for x in state[S_BAGS:S_BAGS + n_sides]],
                          int(state[_S_HAND_ID]))  # (dealt again: the same cards)
    stage = int(state[S_STAGE])
    if hand.phase == KEEP:
        held = state[S_HANDS:S_HANDS + 2] if stage == STAGE_DRAW else state[S_DEALT:S_DEALT + 2]
        n_pairs = int(state[S_DRAW]) if stage == STAGE_DRAW else 2 * rules.hand_size
        for _ in range(n_pairs):
            hand.apply(int(held[hand.to_act]) >> hand.face_up & 1)
        if stage == STAGE_DRAW:
            return _synced(hand, context)
    bids, blind = int(state[S_BIDS]), int(state[S_BLIND])
    bumped = int(state[_S_BUMPED])
    n_bid = int(state[S_POSITION]) if stage == STAGE_BID else players
    for _ in range(n_bid):
        seat = hand.to_act
        if hand.phase == BLIND:
            if blind >> seat & 1:
                hand.apply(bids >> (8 * seat) & 0xFF)
                continue
            hand.apply(LOOK)
        hand.apply((bids >> (8 * seat) & 0xFF) - (bumped >> seat & 1))
    if stage == STAGE_BID:
        if hand.phase == BLIND and int(state[_S_PHASE]) == v.PHASE_BID:
            hand.apply(LOOK)  # (the bidder looked; its bid is the decision awaited)
        return _synced(hand, context)
    while hand.phase == BUMP and (stage != STAGE_BUMP or hand.position < int(state[S_POSITION])):
        hand.apply(bumped >> hand.to_act & 1)
    row = int(state[_S_ROW])
    for index in range(int(state[S_N_EXCHANGED])):
        hand.apply(int(piece.records[row, R_EXCHANGE + 3 * index + 2]))
    if stage == STAGE_EXCHANGE:
        for card in cards_of(int(state[_S_PASSED])):  # (a pass under way: its cards so far)
            hand.apply(card)
    if stage == STAGE_PLAY:
        n_played = int(state[S_TRICK_INDEX]) * players + int(piece.view[v.V_POSITION])
        for index in range(n_played):
            hand.apply(int(piece.records[row, R_PLAYS + index]))
    return _synced(hand, context)


def _synced(hand: Hand, context: _Context) -> Hand:
    """``hand`` drawing from the engine's streams (the play stream: the context's, synced)."""
    piece = context.piece
    hand.play_stream = context.stream  # (its state: the engine's play stream, synced)
    hand.deal_stream.state = int(piece.rng[0])
    hand.search_stream.state = int(piece.rng[2])
    return hand


# (numba-free constants: engine/table_slots.py's slots, checked equal by tests/test_mixed.py)
_S_BUMPED, _S_HAND_ID, _S_ROW, _S_UNIT = 14, 53, 1, 0
_S_PHASE, _S_PASS_STEP, _S_PASSED, _S_DRAW = 54, 56, 57, 60
_PHASE_PLAY, _PHASE_BLIND, _PHASE_PASS, _PHASE_KEEP = 1, 2, 4, 5
