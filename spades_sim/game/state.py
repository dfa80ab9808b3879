"""One hand as a state machine: the seat to act, its legal actions, apply one, observe, clone.

A :class:`Hand` walks the steps of ``docs/rules.md`` ("A hand, step by step") one decision at a
time: the draw deal's keep choices (``deal = "draw"``), then per bidder in bidding order its
blind choice (only where a blind option exists) and its bid, then the bumps, the exchange passes
(one card per action), then the cards. Actions are ints; what they mean depends on the phase:

=========  ======================================================================
phase      action
=========  ======================================================================
``keep``   1 keeps the face-up card, 0 takes the face-down one
``blind``  -1 looks at the cards (no blind bid), 0 bids blind nil, k a blind bid of k
``bid``    the bid, 0 .. hand size (0 is a nil where nil is on)
``bump``   1 raises the bid by one, 0 keeps it
``pass``   a card to pass (the seat passes ``pass_count`` cards, one per action)
``play``   a card
=========  ======================================================================

Dealt from a run's seed, a hand is dealt by the engine's deal kernels (``engine/decide.py``)
on its deal stream, and built-in strategies acting through :mod:`.agents` decide by the
engine's per-decision kernels, drawing from the play stream in the engine's order, so a run
played here equals the engine's, hand for hand.
"""

from __future__ import annotations

import copy
import operator

from ..core.bidding import blind_allowed, deficit, exchange_size, is_nil, legal_bids
from ..core.cards import (
    NON_TRUMP_MASK,
    TWO_OF_CLUBS,
    card_text,
    cards_of,
    mask_of,
    parse_card,
)
from ..core.errors import StrategyError
from ..core.features import as_deal_filter
from ..core.rules import Rules
from ..core.scoring import score_hand
from ..core.seeding import search_key, stream_keys
from .deals import filtered_deal
from .stream import Stream, dealer

KEEP, BLIND, BID, BUMP, PASS, PLAY, OVER = "keep", "blind", "bid", "bump", "pass", "play", "over"
LOOK = -1  # the blind phase's "no blind bid" action


class IllegalActionError(StrategyError):
    """An action the rules do not allow in the current state."""


def _bits(mask: int) -> list[int]:
    return [index for index in range(mask.bit_length()) if mask >> index & 1]


class Hand:
    """The state of one hand. Build it with :meth:`deal` or :meth:`from_cards`.

    Read ``phase``, ``to_act`` and :meth:`legal_actions`; change it with :meth:`apply`; see it
    as a seat does with :meth:`observation`. Public attributes (read them, do not assign):
    ``rules``, ``dealer``, ``hand_id``, ``hands`` (each seat's bitboard now), ``dealt`` (as
    dealt, before any exchange), ``bids`` (-1 not yet), ``blind``, ``bumped``, ``tricks``,
    ``plays`` (``(seat, card)`` in order), ``exchange`` (``(from, to, card)``), ``leader``,
    ``first_leader`` (-1 before play), ``trick`` (the current trick's ``(seat, card)``),
    ``trick_index``, ``spades_broken``, ``played_by`` and ``voids`` (bit ``4 * seat + suit``:
    the seat showed it holds none of the suit), ``rejected`` (draw deal: the face-up cards each
    seat turned down), ``scores`` and ``bags`` (per side, before the hand).
    """

    def __init__(self, rules: Rules, dealer: int, scores, bags, deal_stream: Stream,
                 play_stream: Stream, search_stream: Stream | None = None, hand_id: int = 0):
        players = rules.players
        if not 0 <= dealer < players:
            raise ValueError(f"dealer {dealer} is not a seat of a {players}-player table")
        self.rules = rules
        self.dealer = dealer
        self.hand_id = hand_id
        self.scores = [int(score) for score in (scores or [0] * rules.n_sides)]
        self.bags = [int(count) for count in (bags or [0] * rules.n_sides)]
        if len(self.scores) != rules.n_sides or len(self.bags) != rules.n_sides:
            raise ValueError(f"scores and bags need one value per side ({rules.n_sides})")
        self.deal_stream = deal_stream
        self.play_stream = play_stream
        self.search_stream = search_stream
        self.hands = [0] * players
        self.dealt = [0] * players
        self.bids = [-1] * players
        self.blind = [False] * players
        self.bumped = [False] * players
        self.tricks = [0] * players
        self.plays: list[tuple[int, int]] = []
        self.exchange: list[tuple[int, int, int]] = []
        self.leader = self.first_leader = -1
        self.trick: list[tuple[int, int]] = []
        self.trick_index = 0
        self.spades_broken = False
        self.played_mask = 0
        self.played_by = [0] * players
        self.voids = 0
        self.rejected = [0] * players  # draw deal: the face-up cards each seat turned down
        self.led_suit: int | None = None
        self.winning_card = self.winning_seat = -1
        self.phase = BID
        self.to_act = -1
        self.order = [(dealer + 1 + position) % players for position in range(players)]
        self._position = 0  # bidding position, bump position or exchange step
        self._blind_options = (False, 0)
        self._stock: list[int] = []
        self._draw = (0, 0)  # draw deal: (turn, pair)
        self._passes: list[tuple[int, int, int, bool]] = []
        self._passed = 0
        self.score_delta: list[int] | None = None
        self.bags_after: list[int] | None = None

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def deal(cls, rules: Rules, seed: int = 0, hand_id: int = 0, *, dealer: int | None = None,
             scores=None, bags=None, deal_filter=None) -> Hand:
        """Hand ``hand_id`` of a run with ``seed``, as the engine deals it.

        The engine's independent hand ``h`` is dealt by seat ``h % players`` from zero
        scores; give ``dealer``, ``scores`` and ``bags`` to start it elsewhere. With
        ``deal_filter`` (text such as ``"seat0.spades >= 4"``, a Python function of the dealt
        hands, or a :class:`~spades_sim.core.features.DealFilter`) the hand is the first deal on
        its deal stream the filter accepts, as a run with that filter deals it.
        """
        deal_key, play_key = (int(key) for key in stream_keys(seed))
        if dealer is None:
            dealer = hand_id % rules.players
        return cls.from_keys(rules, deal_key, play_key, hand_id, dealer, scores, bags,
                             deal_filter=deal_filter)

    @classmethod
    def from_keys(cls, rules: Rules, deal_key: int, play_key: int, key_index: int, dealer: int,
                  scores=None, bags=None, hand_id: int | None = None, *,
                  deal_filter=None) -> Hand:
        """A hand seeded by the run's stream keys and a key index (``core/seeding.py``)."""
        deal_filter = as_deal_filter(deal_filter)
        if deal_filter is not None:
            deal_filter.check(rules)
        hand = cls(rules, dealer, scores, bags, Stream(deal_key, key_index),
                   Stream(play_key, key_index), Stream(search_key(play_key), key_index),
                   key_index if hand_id is None else hand_id)
        hand._shuffle(deal_filter)
        return hand

    @classmethod
    def from_cards(cls, rules: Rules, hands, dealer: int = 0, *, scores=None, bags=None,
                   seed: int = 0, hand_id: int = 0) -> Hand:
        """A hand with the given cards: one bitboard, list of card indices or list of card
        texts (``"AS"``) per seat. ``seed`` seeds the streams that strategies (and a random
        first leader) draw from."""
        if len(hands) != rules.players:
            raise ValueError(f"{len(hands)} hands for {rules.players} seats")
        masks = []
        for seat, cards in enumerate(hands):
            if isinstance(cards, int):
                mask = cards
            else:
                mask = mask_of(parse_card(card) if isinstance(card, str) else card
                               for card in cards)
            if mask.bit_count() != rules.hand_size or mask & ~rules.deck_mask:
                raise ValueError(f"seat {seat}: a hand needs {rules.hand_size} cards of the "
                                 f"{rules.deck} deck")
            masks.append(mask)
        if sum(mask.bit_count() for mask in masks) != mask_of_union(masks).bit_count():
            raise ValueError("a card is dealt to two seats")
        deal_key, play_key = (int(key) for key in stream_keys(seed))
        hand = cls(rules, dealer, scores, bags, Stream(deal_key, hand_id),
                   Stream(play_key, hand_id), Stream(search_key(play_key), hand_id), hand_id)
        hand.hands = list(masks)
        hand.dealt = list(masks)
        hand._start_bidding()
        return hand

    def clone(self) -> Hand:
        """An independent copy (its streams too: the copy draws what the original would)."""
        return copy.deepcopy(self)

    # -- the deal --------------------------------------------------------------------------
    def _shuffled_deck(self) -> list[int]:
        deck, self.deal_stream.state = dealer(self.rules).shuffled_deck(self.deal_stream.state)
        return deck

    def _shuffle(self, deal_filter=None) -> None:
        rules = self.rules
        if deal_filter is not None:  # (deals drawn on the same stream: game/deals.py)
            hands, _ = filtered_deal(rules, self.deal_stream, deal_filter,
                                     f"hand {self.hand_id}")
            self.hands = list(hands)
            self.dealt = list(hands)
            self._start_bidding()
            return
        if rules.deal == "draw":
            self._stock = self._shuffled_deck()
            self.phase = KEEP
            self._draw = (0, 0)
            self.to_act = (self.dealer + 1) % 2
            return
        hands, self.deal_stream.state = dealer(rules).deal(self.deal_stream.state)
        hands = hands[:rules.players]  # (misdeal redeals included: engine/deal.py)
        self.hands = list(hands)
        self.dealt = list(hands)
        self._start_bidding()

    @property
    def face_up(self) -> int:
        """Draw deal: the face-up card the seat to act may keep (-1 outside the keep phase)."""
        if self.phase != KEEP:
            return -1
        turn, pair = self._draw
        return self._stock[26 * turn + 2 * pair]

    def _keep(self, keep: bool) -> None:
        turn, pair = self._draw
        first = 26 * turn + 2 * pair
        face_up, face_down = self._stock[first], self._stock[first + 1]
        self.hands[self.to_act] |= 1 << (face_up if keep else face_down)
        if not keep:
            self.rejected[self.to_act] |= 1 << face_up
        pair += 1
        if pair == self.rules.hand_size:
            turn, pair = turn + 1, 0
            self.to_act = 1 - self.to_act
        self._draw = (turn, pair)
        if turn == 2:
            self.dealt = list(self.hands)
            self._start_bidding()

    # -- the auction -----------------------------------------------------------------------
    def _start_bidding(self) -> None:
        self._position = 0
        self._next_bidder()

    def _next_bidder(self) -> None:
        rules = self.rules
        if self._position == rules.players:
            self._start_bumps()
            return
        seat = self.order[self._position]
        self.to_act = seat
        if rules.blind_nil or rules.blind_bids:
            behind = deficit(rules, seat, self.scores)
            blind_nil_ok = (
                rules.blind_nil
                and blind_allowed(rules.blind_nil_min_deficit, behind)
                and bool(legal_bids(rules, seat, self._position, self.bids, self.blind, True) & 1)
            )
            blind_bids = 0
            if rules.blind_bids and blind_allowed(rules.blind_bid_min_deficit, behind):
                blind_bids = (legal_bids(rules, seat, self._position, self.bids, self.blind,
                                         rules.nil)
                              & ((2 << rules.blind_bid_max) - 2))
            if blind_nil_ok or blind_bids:
                self._blind_options = (bool(blind_nil_ok), blind_bids)
                self.phase = BLIND
                return
        self._blind_options = (False, 0)
        self.phase = BID
        if not self.legal_bid_mask():
            raise StrategyError(f"seat {seat} has no legal bid after the bids {self.bids}")

    def legal_bid_mask(self) -> int:
        """Bit ``b`` set when the seat to act may bid ``b`` (in the bid phase)."""
        return legal_bids(self.rules, self.to_act, self._position, self.bids, self.blind,
                          self.rules.nil)

    @property
    def blind_options(self) -> tuple[bool, int]:
        """In the blind phase: ``(blind nil allowed, bitmask of the blind number bids)``."""
        return self._blind_options

    @property
    def bidding_position(self) -> int:
        """The seat to act's place in the bidding order (0 = first), in the auction."""
        return self._position

    def _bid(self, bid: int, blind: bool) -> None:
        seat = self.to_act
        self.bids[seat] = bid
        self.blind[seat] = blind
        self._position += 1
        self._next_bidder()

    def _bump_eligible(self, seat: int) -> bool:
        bid, blind = self.bids[seat], self.blind[seat]
        return not (is_nil(self.rules, bid, blind) or blind or bid >= self.rules.hand_size)

    def _start_bumps(self) -> None:
        self._position = 0
        if self.rules.bid_bump:
            self._next_bump()
        else:
            self._start_exchange()

    def _next_bump(self) -> None:
        while self._position < self.rules.players:
            seat = self.order[self._position]
            if self._bump_eligible(seat):
                self.to_act = seat
                self.phase = BUMP
                return
            self._position += 1
        self._start_exchange()

    def _bump(self, bump: bool) -> None:
        if bump:
            self.bids[self.to_act] += 1
            self.bumped[self.to_act] = True
        self._position += 1
        self._next_bump()

    # -- the exchanges ---------------------------------------------------------------------
    def _start_exchange(self) -> None:
        passes = []
        for seat in self.order:
            k = exchange_size(self.rules, seat, self.bids, self.blind)
            if k:
                partner = (seat + 2) % 4
                passes += [(seat, partner, k, True), (partner, seat, k, False)]
        self._passes = passes
        self._position = 0
        self._passed = 0
        self._next_pass()

    @property
    def pass_count(self) -> int:
        """In the pass phase: the cards the seat to act still has to pass."""
        if self.phase != PASS:
            return 0
        return self._passes[self._position][2] - self._passed.bit_count()

    @property
    def passing_as_nil_bidder(self) -> bool:
        """In the pass phase: whether the seat to act passes as the nil bidder (else as its
        partner, passing back)."""
        return self.phase == PASS and self._passes[self._position][3]

    def _next_pass(self) -> None:
        if self._position == len(self._passes):
            self._start_play()
            return
        self.phase = PASS
        self.to_act = self._passes[self._position][0]

    def _pass(self, card: int) -> None:
        giver, taker, k, _ = self._passes[self._position]
        self._passed |= 1 << card
        if self._passed.bit_count() < k:
            return
        given = self._passed
        self.hands[giver] &= ~given
        self.hands[taker] |= given
        self.exchange += [(giver, taker, card) for card in cards_of(given)]
        self._passed = 0
        self._position += 1
        self._next_pass()

    # -- the play --------------------------------------------------------------------------
    def _start_play(self) -> None:
        rules, players = self.rules, self.rules.players
        if rules.first_leader == "dealer_left":
            leader = (self.dealer + 1) % players
        elif rules.first_leader == "random":
            leader = self.deal_stream.bounded(players)
        else:  # two_of_clubs: its holder (after any exchange) leads it
            leader = next(seat for seat in range(players) if self.hands[seat] >> TWO_OF_CLUBS & 1)
        self.leader = self.first_leader = self.to_act = leader
        self.phase = PLAY

    def legal_card_mask(self) -> int:
        """Bitboard of the cards the seat to act may play (in the play phase)."""
        hand = self.hands[self.to_act]
        rules = self.rules
        if self.led_suit is not None:
            follow = hand & _SUIT_MASKS[self.led_suit]
            return follow if follow else hand
        if self.trick_index == 0 and rules.first_leader == "two_of_clubs":
            return hand & (1 << TWO_OF_CLUBS)
        if (self.spades_broken or rules.spades_lead == "anytime"
                or (rules.spades_lead == "after_first_trick" and self.trick_index > 0)):
            return hand
        side = hand & NON_TRUMP_MASK
        return side if side else hand

    def _play(self, card: int) -> None:
        seat = self.to_act
        hand = self.hands[seat]
        bit = 1 << card
        trick = self.trick
        led_suit = self.led_suit
        if led_suit is None:  # the lead
            if card >= 39 and self.rules.broken_by_forced_lead and not hand & NON_TRUMP_MASK:
                self.spades_broken = True  # a trump led from an all-trump hand
            self.led_suit = 3 if card >= 52 else card // 13
            self.winning_card, self.winning_seat = card, seat
        else:
            if not hand & _SUIT_MASKS[led_suit]:
                self.voids |= 1 << (4 * seat + led_suit)
                if card >= 39 and led_suit != 3:
                    self.spades_broken = True  # a trump played on another suit's lead
            best = self.winning_card
            if card >= 39:  # (beats(), inlined: a trump beats non-trumps and lower trumps)
                wins = best < 39 or card > best
            else:
                wins = best < 39 and card // 13 == best // 13 and card > best
            if wins:
                self.winning_card, self.winning_seat = card, seat
        self.hands[seat] = hand & ~bit
        self.played_mask |= bit
        self.played_by[seat] |= bit
        self.plays.append((seat, card))
        trick.append((seat, card))
        players = self.rules.players
        if len(trick) < players:
            self.to_act = seat + 1 if seat + 1 < players else 0
            return
        winner = self.winning_seat
        self.tricks[winner] += 1
        self.trick = []
        self.led_suit = None
        self.winning_card = self.winning_seat = -1
        self.trick_index += 1
        self.leader = self.to_act = winner
        if self.trick_index == self.rules.hand_size:
            self._finish()

    def _finish(self) -> None:
        self.score_delta, self.bags_after = score_hand(self.rules, self.bids, self.blind,
                                                       self.tricks, self.bags)
        self.phase = OVER
        self.to_act = -1

    # -- the public interface -------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.phase == OVER

    @property
    def position(self) -> int:
        """The seat to act's place: in the bidding order in the auction, in the trick in
        play."""
        return len(self.trick) if self.phase == PLAY else self._position

    def legal_actions(self) -> list[int]:
        """The actions the seat to act may take now (see the module's table); [] when over."""
        phase = self.phase
        if phase == PLAY:
            return _bits(self.legal_card_mask())
        if phase == BID:
            return _bits(self.legal_bid_mask())
        if phase == BLIND:
            nil_ok, blind_bids = self._blind_options
            return [LOOK] + ([0] if nil_ok else []) + _bits(blind_bids)
        if phase in (BUMP, KEEP):
            return [0, 1]
        if phase == PASS:
            return _bits(self.hands[self.to_act] & ~self._passed)
        return []

    def is_legal(self, action: int) -> bool:
        phase = self.phase
        if not isinstance(action, int):
            return False
        if phase == PLAY:
            return action >= 0 and bool(self.legal_card_mask() >> action & 1)
        if phase == BID:
            return action >= 0 and bool(self.legal_bid_mask() >> action & 1)
        if phase == PASS:
            return action >= 0 and bool((self.hands[self.to_act] & ~self._passed) >> action & 1)
        return action in self.legal_actions()

    def apply(self, action: int) -> None:
        """Take ``action`` for the seat to act; :class:`IllegalActionError` if not legal."""
        action = _as_int(action)
        if not self.is_legal(action):
            raise IllegalActionError(self.illegal_message(action))
        self._apply(action)

    def _apply(self, action: int) -> None:
        """:meth:`apply` without the check (the caller checked)."""
        phase = self.phase
        if phase == PLAY:
            self._play(action)
        elif phase == BID:
            self._bid(action, False)
        elif phase == BLIND:
            if action == LOOK:
                self._blind_options = (False, 0)
                self.phase = BID
                if not self.legal_bid_mask():
                    raise StrategyError(f"seat {self.to_act} has no legal bid after the bids "
                                        f"{self.bids}")
            else:
                self._bid(action, True)
        elif phase == BUMP:
            self._bump(bool(action))
        elif phase == PASS:
            self._pass(action)
        elif phase == KEEP:
            self._keep(bool(action))

    def illegal_message(self, action) -> str:
        """Why ``action`` is not legal now, with the legal ones."""
        if self.phase == OVER:
            return f"hand {self.hand_id} is over: no action is legal"
        legal = self.legal_actions()
        if self.phase in (PLAY, PASS):
            shown = card_text(action) if isinstance(action, int) and 0 <= action < 54 else action
            legal_text = " ".join(card_text(card) for card in legal)
        else:
            shown, legal_text = action, " ".join(str(option) for option in legal)
        return (f"the {self.phase} {shown!s} is not legal for seat {self.to_act} in hand "
                f"{self.hand_id}; legal: {legal_text}")

    def observation(self, seat: int | None = None):
        """What ``seat`` (default: the seat to act) knows now (:class:`.Observation`)."""
        from .observation import Observation  # (observation.py imports this module)

        return Observation(self, self.to_act if seat is None else seat)

    def result(self) -> dict:
        """The finished hand as a hand-log record (the fields of ``docs/hand-log.md`` less
        the ids): dealer, first leader, hands as dealt, bids, blind, bumped, exchange, plays,
        tricks, scores and bags before, score deltas and bags after."""
        if self.phase != OVER:
            raise ValueError(f"hand {self.hand_id} is not over (phase {self.phase})")
        return {
            "dealer": self.dealer,
            "first_leader": self.first_leader,
            "hands": list(self.dealt),
            "blind": list(self.blind),
            "bids": list(self.bids),
            "bumped": list(self.bumped),
            "exchange": list(self.exchange),
            "plays": list(self.plays),
            "tricks": list(self.tricks),
            "score_before": list(self.scores),
            "bags_before": list(self.bags),
            "score_delta": list(self.score_delta),
            "bags_after": list(self.bags_after),
        }


_SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * suit) for suit in range(3)) + (
    (((1 << 13) - 1) << 39) | (3 << 52),
)


def mask_of_union(masks) -> int:
    union = 0
    for mask in masks:
        union |= mask
    return union


def _as_int(action) -> int:
    """Actions as Python ints (NumPy integers and bools too); others are left for the check to
    refuse."""
    try:
        return int(operator.index(action))
    except TypeError:
        return action
