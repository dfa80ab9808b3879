"""Seats that decide: the built-in strategies, Python plug-ins and numba plug-ins, behind one
``act(hand, legal_mask)`` call.

A built-in strategy decides through the engine's per-decision kernels (``engine/decide.py``),
the same helpers the engine's hand loop calls, drawing from the hand's streams in the engine's
order. A
plug-in decides what it implements (``bid`` and ``play``; optionally ``blind``, ``bump``,
``pass_cards`` and ``keep``) and every other choice is the default heuristic's.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from ..core import view as v
from ..core.bidding import deficit, is_nil
from ..core.cards import card_text, cards_of, lowest
from ..core.errors import StrategyError
from ..core.strategies import Strategy, make_strategy
from .observation import Observation, fill_view
from .state import BID, BLIND, BUMP, KEEP, PASS, PLAY, Hand
from .stream import decider

HEURISTIC = make_strategy("heuristic")


class BuiltinAgent:
    """A built-in strategy (``random``, ``heuristic`` and its presets, ``mc``): each decision
    one call of the engine's per-decision kernels (``engine/decide.py``), made from the hand's
    state as the engine's hand loop holds it, drawing from the hand's streams."""

    def __init__(self, strategy: Strategy):
        self.strategy = strategy
        self.name = strategy.spec()
        self._search = strategy.kind.name == "mc"
        self._passing: tuple | None = None  # (hand, seat, cards still to pass)
        self._decider = None
        self._rules = None

    def _decisions(self, rules):
        if rules is not self._rules:
            self._decider = decider(rules, self.strategy)
            self._rules = rules
        return self._decider

    def act(self, hand: Hand, legal_mask: int) -> int:
        phase, seat, rules = hand.phase, hand.to_act, hand.rules
        decide = self._decisions(rules)
        stream = hand.play_stream
        if phase == PLAY:
            bids, blind, tricks = packed_bids(hand), blind_bits(hand), packed(hand.tricks)
            n_in_trick = len(hand.trick)
            if self._search:
                led_card = hand.trick[0][1] if n_in_trick else -1
                search = hand.search_stream
                card, search.state = decide.mc_card(
                    seat, hand.hands[seat], legal_mask, n_in_trick, hand.leader, led_card,
                    hand.winning_card, hand.winning_seat, hand.spades_broken, hand.trick_index,
                    tricks, bids, blind, hand.played_by, hand.voids, hand.bags, search.state)
                return card
            card, stream.state = decide.card(
                seat, hand.hands[seat], legal_mask, n_in_trick, hand.leader, hand.winning_card,
                hand.winning_seat, bids, blind, tricks, hand.played_mask, hand.bags,
                stream.state)
            return card
        if phase == BID:
            bid, stream.state = decide.bid(seat, hand.hands[seat], packed_bids(hand),
                                           blind_bits(hand), legal_mask, hand.scores, hand.bags,
                                           stream.state)
            return bid
        if phase == BLIND:
            nil_ok, blind_bids = hand.blind_options
            partner = (seat + 2) % 4
            partner_nil = bool(rules.partnership) and is_nil(rules, hand.bids[partner],
                                                              hand.blind[partner])
            choice, stream.state = decide.blind(seat, deficit(rules, seat, hand.scores),
                                                partner_nil, nil_ok, blind_bids,
                                                packed_bids(hand), hand.scores, hand.bags,
                                                stream.state)
            return choice
        if phase == BUMP:
            bump, stream.state = decide.bump(seat, hand.bidding_position, hand.hands[seat],
                                             packed_bids(hand), hand.scores, hand.bags,
                                             stream.state)
            return int(bump)
        if phase == KEEP:
            keep, stream.state = decide.keep(seat, hand.face_up, stream.state)
            return int(keep)
        if phase == PASS:
            return self._pass_card(hand, seat)
        raise StrategyError(f"hand {hand.hand_id}: no decision in phase {phase}")

    def _pass_card(self, hand: Hand, seat: int) -> int:
        """The pass is chosen whole on its first card (as the engine does), then given one
        card per action."""
        if self._passing is None or self._passing[:2] != (hand, seat) or not self._passing[2]:
            stream = hand.play_stream
            chosen, stream.state = self._decisions(hand.rules).pass_cards(
                seat, hand.hands[seat], hand.pass_count, hand.passing_as_nil_bidder,
                stream.state)
            self._passing = (hand, seat, chosen)
        remaining = self._passing[2]
        card = lowest(remaining)
        self._passing = (hand, seat, remaining & (remaining - 1))
        return card


def packed(values) -> int:
    """Per-seat small ints packed a byte per seat, as the engine's loop holds ``tricks``."""
    result = 0
    for seat, value in enumerate(values):
        result |= value << (8 * seat)
    return result


def packed_bids(hand: Hand) -> int:
    """The bids packed a byte per seat as the engine's loop holds them: 255 for a seated seat
    that has not bid yet, 0 for a seat the table does not have."""
    result = 0
    for seat, bid in enumerate(hand.bids):
        result |= (255 if bid < 0 else bid) << (8 * seat)
    return result


def blind_bits(hand: Hand) -> int:
    """Bit ``seat`` set for a blind bid."""
    result = 0
    for seat, blind in enumerate(hand.blind):
        if blind:
            result |= 1 << seat
    return result


@contextlib.contextmanager
def plugin_output():
    """While a plug-in runs (its import, its constructor, its decisions), what it prints goes
    to standard error: standard output carries the command line's machine output (``--json``,
    ``--log -``), which a stray ``print`` would corrupt. numba's ``print`` writes through
    ``sys.stdout`` too, so it is redirected alike."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def plugin_call(name: str, hand: Hand, function, *args):
    """``function(*args)`` for the plug-in ``name``, its prints on standard error; any failure
    of the plug-in's own (``raise BaseException``, ``sys.exit``) becomes one
    :class:`PluginError` line. Ctrl-C still interrupts."""
    try:
        with plugin_output():
            return function(*args)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the strategy's own error: name it, keep its traceback
        raise PluginError(name, hand, error) from error


def state_snapshot(hand: Hand) -> list:
    """What a decision must leave as it was: every attribute of ``hand``, lists copied (a
    shallow copy: their items are ints, bools and tuples). Objects (the rules, the streams)
    are compared by identity, so a strategy may draw from ``obs.rng`` (the play stream's
    state). Taken before and compared after each decision: about 2.5 microseconds."""
    return [value.copy() if type(value) is list else value for value in vars(hand).values()]


def check_untouched(name: str, hand: Hand, before: list, seat: int, phase: str) -> None:
    """Refuse a decision that changed the game (``obs._hand`` is reachable from Python)."""
    after = state_snapshot(hand)
    if after != before:
        changed = [key for key, old, new in zip(vars(hand), before, after, strict=False)
                   if old != new] or ["its attributes"]
        raise StrategyError(f"strategy {name} changed the game's state ({', '.join(changed)}) "
                            f"while deciding in hand {hand.hand_id}, seat {seat}, {phase} "
                            f"phase; a strategy must only read its observation")


class PluginAgent:
    """A Python plug-in: an object with ``bid(obs)`` and ``play(obs)``, and optionally
    ``blind(obs)``, ``bump(obs)``, ``pass_cards(obs)`` and ``keep(obs)``."""

    def __init__(self, instance, name: str):
        self.instance = instance
        self.name = name
        self.fallback = BuiltinAgent(HEURISTIC)
        self._play = instance.play
        self._methods = {
            PLAY: instance.play,
            BID: instance.bid,
            BLIND: getattr(instance, "blind", None),
            BUMP: getattr(instance, "bump", None),
            KEEP: getattr(instance, "keep", None),
            PASS: getattr(instance, "pass_cards", None),
        }
        self._passing: tuple | None = None

    @property
    def bids_and_plays_only(self) -> bool:
        """Whether the plug-in makes only its bids and plays (its other choices are the
        default heuristic's): such a seat can sit at an engine-stepped table (``fast.py``)."""
        return all(self._methods[phase] is None for phase in (BLIND, BUMP, KEEP, PASS))

    def act(self, hand: Hand, legal_mask: int) -> int:
        phase = hand.phase
        if phase == PLAY:  # (the common case, the short way)
            return self._call(self._play, hand, legal_mask)
        method = self._methods[phase]
        if method is None:
            return self.fallback.act(hand, legal_mask)
        if phase == PASS:
            return self._pass_card(hand, method, legal_mask)
        action = self._call(method, hand, legal_mask)
        if phase in (BUMP, KEEP) and isinstance(action, (bool, np.bool_)):
            action = int(action)
        return action

    def _call(self, method, hand: Hand, legal_mask: int):
        seat, phase = hand.to_act, hand.phase
        before = state_snapshot(hand)
        action = plugin_call(self.name, hand, method, Observation(hand, seat, legal_mask))
        check_untouched(self.name, hand, before, seat, phase)
        return action

    def _pass_card(self, hand: Hand, method, legal_mask: int) -> int:
        seat = hand.to_act
        if self._passing is None or self._passing[:2] != (hand, seat) or not self._passing[2]:
            cards = self._call(method, hand, legal_mask)
            if isinstance(cards, (int, np.integer)) and not isinstance(cards, (bool, np.bool_)):
                cards = [cards]
            elif isinstance(cards, (str, bytes, dict, set)) or not hasattr(cards, "__iter__"):
                raise StrategyError(
                    f"strategy {self.name}: pass_cards returned {_shown(cards)} in hand "
                    f"{hand.hand_id}, seat {seat}; it must return a list of "
                    f"{hand.pass_count} card indices")
            else:
                cards = list(cards)
            count = hand.pass_count
            held = hand.hands[seat]
            if (len(cards) != count or len(set(cards)) != count
                    or any(not isinstance(card, (int, np.integer))
                           or isinstance(card, (bool, np.bool_)) or not 0 <= card < 54
                           or not held >> int(card) & 1 for card in cards)):
                shown = " ".join(card_text(int(c)) if isinstance(c, (int, np.integer))
                                 and 0 <= c < 54 else repr(c) for c in cards)
                raise StrategyError(
                    f"strategy {self.name}: hand {hand.hand_id}, seat {seat} must pass {count} "
                    f"different cards it holds, not [{shown}]; it holds "
                    f"{' '.join(card_text(card) for card in cards_of(held))}")
            self._passing = (hand, seat, [int(card) for card in cards])
        remaining = self._passing[2]
        card = remaining[0]
        self._passing = (hand, seat, remaining[1:])
        return card


class NumbaPluginAgent:
    """A numba plug-in called from Python: ``bid`` and ``play`` read the array view
    (``core/view.py``) and draw from ``rng[0]``, the play stream's state; every other choice is
    the default heuristic's. Slow; the engine's loop calls the same functions at full speed."""

    def __init__(self, bid, play, params: np.ndarray, name: str):
        self.bid, self.play = bid, play
        self.params = np.ascontiguousarray(params, dtype=np.float64)
        self.name = name
        self.fallback = BuiltinAgent(HEURISTIC)
        self._view = np.empty(v.VIEW_SIZE, dtype=np.int64)
        self._rng = np.zeros(1, dtype=np.uint64)

    def act(self, hand: Hand, legal_mask: int) -> int:
        phase = hand.phase
        if phase not in (PLAY, BID):
            return self.fallback.act(hand, legal_mask)
        fill_view(hand, hand.to_act, legal_mask, self._view)
        stream = hand.play_stream
        self._rng[0] = stream.state
        function = self.play if phase == PLAY else self.bid
        action = plugin_call(self.name, hand, function, self._view, self.params, self._rng)
        if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
            # (the engine refuses such a function before playing: engine/plugin.py)
            raise StrategyError(f"strategy {self.name}: its {phase} function returned "
                                f"{_shown(action)}, not an int (hand {hand.hand_id}, seat "
                                f"{hand.to_act})")
        stream.state = int(self._rng[0])
        return int(action)


def _shown(value) -> str:
    """A returned value for a message: its repr (shortened) and its type."""
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{text} (a {type(value).__name__})"


class PluginError(StrategyError):
    """A plug-in raised an exception: one line naming the strategy and the hand; the plug-in's
    own traceback is the ``__cause__`` (shown under ``--debug``)."""

    def __init__(self, name: str, hand: Hand, error: BaseException):
        where = f"hand {hand.hand_id}, seat {hand.to_act}, {hand.phase} phase"
        if isinstance(error, SystemExit):
            super().__init__(f"strategy {name} called sys.exit({error.code!r}) ({where}); a "
                             f"strategy must return its decision, not end the program")
        else:
            super().__init__(f"strategy {name} raised {type(error).__name__}: {error} "
                             f"({where})")

    def __reduce__(self):
        # A worker process sends its errors back pickled, and unpickling calls the class
        # with ``args`` (the message alone): come back as a StrategyError with this message,
        # or the pool breaks and the user gets a traceback about pickling instead.
        return StrategyError, self.args
