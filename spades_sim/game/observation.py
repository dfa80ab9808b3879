"""What one seat knows: the :class:`Observation` strategies decide from, and the framework's
seeded generator.

An observation reads the hand's state lazily (a strategy pays only for what it looks at) and
shows only what its seat may know: its own cards, the auction, the cards played, the voids
shown, the scores and the rules. Card sets are bitboards (bit ``card``) with list twins
(``cards``, ``legal``); cards are indices ``13 * suit + rank`` (``docs/strategies.md``).
"""

from __future__ import annotations

import numpy as np

from ..core import view as v
from ..core.cards import cards_of
from .state import BID, BLIND, KEEP, PLAY, Hand


class Generator:
    """The framework's random generator for a strategy: the hand's play stream, the one the
    built-in strategies draw from (``core/seeding.py``), so a strategy drawing through it is
    reproducible and a reimplementation of ``random`` reproduces ``random``.

    ``bounded(n)`` draws exactly as the engine does (a uniform int in ``0 .. n-1``).
    """

    __slots__ = ("_stream",)

    def __init__(self, stream):
        self._stream = stream

    def bounded(self, n: int) -> int:
        """A uniform int in ``0 .. n-1`` (the engine's draw)."""
        if n < 1:
            raise ValueError(f"bounded({n}): n must be at least 1")
        return self._stream.bounded(n)

    def random(self) -> float:
        """A uniform float in [0, 1): the upper 53 bits of one output."""
        return (self._stream.next_u64() >> 11) * (1.0 / (1 << 53))

    def choice(self, options):
        """One element of a non-empty sequence, uniformly (``options[bounded(len)]``)."""
        return options[self.bounded(len(options))]

    def shuffle(self, items: list) -> None:
        """Shuffle a list in place (Fisher-Yates from the top, as the deck is shuffled)."""
        for i in range(len(items) - 1, 0, -1):
            j = self._stream.bounded(i + 1)
            items[i], items[j] = items[j], items[i]


class Observation:
    """Seat ``seat``'s view of a :class:`~.state.Hand`.

    Attributes (all read-only): ``rules``, ``seat``, ``side``, ``phase``, ``hand_id``,
    ``dealer``, ``hand`` (bitboard) and ``cards``, ``legal`` (the legal actions when the seat
    is to act, else []), ``legal_mask`` (play: bitboard of legal cards; bid: bit ``b`` for a
    legal bid), ``position``, ``bids`` (-1 not yet), ``blind``, ``bumped``, ``tricks``,
    ``trick`` (the current trick's ``(seat, card)``), ``trick_index``, ``leader``,
    ``first_leader``, ``led_suit`` (None when leading), ``winning_card`` and
    ``winning_seat`` (-1 when leading), ``spades_broken``, ``played`` (bitboard of every card
    played), ``played_by``, ``voids`` (bit ``4 * seat + suit``), ``scores`` and ``bags``
    (per side, before the hand), ``face_up`` (keep phase), ``pass_count`` and
    ``passing_as_nil_bidder`` (pass phase), ``blind_options`` (blind phase), ``exchanged``
    (the exchange passes this seat gave or received) and ``rng`` (the framework's
    :class:`Generator`).
    """

    __slots__ = ("_hand", "seat", "_legal_mask")

    def __init__(self, hand: Hand, seat: int, legal_mask: int | None = None):
        self._hand = hand
        self.seat = seat
        self._legal_mask = legal_mask

    def __repr__(self) -> str:
        return (f"Observation(seat={self.seat}, phase={self.phase!r}, hand_id={self.hand_id}, "
                f"trick_index={self.trick_index})")

    # -- the table ------------------------------------------------------------------------
    @property
    def rules(self):
        return self._hand.rules

    @property
    def phase(self) -> str:
        return self._hand.phase

    @property
    def hand_id(self) -> int:
        return self._hand.hand_id

    @property
    def dealer(self) -> int:
        return self._hand.dealer

    @property
    def side(self) -> int:
        return self.seat % 2 if self._hand.rules.partnership else self.seat

    @property
    def to_act(self) -> bool:
        return self._hand.to_act == self.seat

    # -- the seat's own cards and options -------------------------------------------------
    @property
    def hand(self) -> int:
        """The seat's cards (a bitboard); none while it makes a blind choice: a blind bid is made
        before the bidder sees its cards (after a draw deal it has seen them while drawing)."""
        if self._blind_choice():
            return 0
        return self._hand.hands[self.seat]

    @property
    def cards(self) -> list[int]:
        return cards_of(self.hand)

    def _blind_choice(self) -> bool:
        hand = self._hand
        return (hand.phase == BLIND and hand.to_act == self.seat
                and hand.rules.deal != "draw")

    @property
    def legal_mask(self) -> int:
        """Play: the bitboard of legal cards; bid: bit ``b`` for each legal bid; else 0."""
        if self._hand.to_act != self.seat:
            return 0
        if self._legal_mask is None:
            phase = self._hand.phase
            if phase == PLAY:
                self._legal_mask = self._hand.legal_card_mask()
            elif phase == BID:
                self._legal_mask = self._hand.legal_bid_mask()
            else:
                self._legal_mask = 0
        return self._legal_mask

    @property
    def legal(self) -> list[int]:
        """The legal actions, when this seat is to act (else [])."""
        if self._hand.to_act != self.seat:
            return []
        if self._hand.phase in (PLAY, BID):
            return cards_of(self.legal_mask)  # (bits of the mask: cards, or bids)
        return self._hand.legal_actions()

    @property
    def position(self) -> int:
        return self._hand.position

    @property
    def face_up(self) -> int:
        """Draw deal: the face-up card offered to this seat (-1 when it is not choosing)."""
        hand = self._hand
        return hand.face_up if hand.phase == KEEP and hand.to_act == self.seat else -1

    @property
    def pass_count(self) -> int:
        return self._hand.pass_count

    @property
    def passing_as_nil_bidder(self) -> bool:
        return self._hand.passing_as_nil_bidder

    @property
    def blind_options(self) -> tuple[bool, int]:
        return self._hand.blind_options if self._hand.phase == BLIND else (False, 0)

    @property
    def exchanged(self) -> list[tuple[int, int, int]]:
        """The exchange passes this seat gave or received, ``(from, to, card)``."""
        return [entry for entry in self._hand.exchange if self.seat in entry[:2]]

    # -- the auction and the play ---------------------------------------------------------
    @property
    def bids(self) -> list[int]:
        return list(self._hand.bids)

    @property
    def blind(self) -> list[bool]:
        return list(self._hand.blind)

    @property
    def bumped(self) -> list[bool]:
        return list(self._hand.bumped)

    @property
    def tricks(self) -> list[int]:
        return list(self._hand.tricks)

    @property
    def trick(self) -> list[tuple[int, int]]:
        return list(self._hand.trick)

    @property
    def trick_index(self) -> int:
        return self._hand.trick_index

    @property
    def leader(self) -> int:
        return self._hand.leader

    @property
    def first_leader(self) -> int:
        return self._hand.first_leader

    @property
    def led_suit(self) -> int | None:
        return self._hand.led_suit

    @property
    def winning_card(self) -> int:
        return self._hand.winning_card

    @property
    def winning_seat(self) -> int:
        return self._hand.winning_seat

    @property
    def spades_broken(self) -> bool:
        return self._hand.spades_broken

    @property
    def played(self) -> int:
        return self._hand.played_mask

    @property
    def played_by(self) -> list[int]:
        return list(self._hand.played_by)

    @property
    def voids(self) -> int:
        return self._hand.voids

    def void(self, seat: int, suit: int) -> bool:
        """Whether ``seat`` has shown it holds none of ``suit`` (0..3, jokers are spades)."""
        return bool(self._hand.voids >> (4 * seat + suit) & 1)

    @property
    def scores(self) -> list[int]:
        return list(self._hand.scores)

    @property
    def bags(self) -> list[int]:
        return list(self._hand.bags)

    @property
    def rng(self) -> Generator:
        return Generator(self._hand.play_stream)

    # -- for search players and numba plug-ins --------------------------------------------
    def sample(self, rng=None) -> Hand:
        """A copy of the hand with the cards this seat cannot see dealt anew, consistently with
        what it has seen (``Hand.sample_hidden``; in a blind choice its own cards too);
        ``rng`` defaults to :attr:`rng`."""
        from .sampling import sample_hidden  # (sampling.py imports this module's Generator)

        return sample_hidden(self._hand, self.seat, rng or self.rng,
                             sees_own=not self._blind_choice())

    def view(self, out: np.ndarray | None = None) -> np.ndarray:
        """The state as the ``int64`` array numba plug-ins read (``core/view.py``)."""
        return fill_view(self._hand, self.seat, self.legal_mask, out)


_RULE_VALUES: dict = {}


def _rule_values(rules) -> tuple:
    values = _RULE_VALUES.get(rules)
    if values is None:
        values = _RULE_VALUES[rules] = tuple(int(value) for value in rules.kernel_tuple())
    return values


def fill_view(hand: Hand, seat: int, legal_mask: int, out: np.ndarray | None = None) -> np.ndarray:
    """Fill (or allocate) the numba plug-ins' view of ``hand`` for ``seat`` (``core/view.py``)."""
    view = np.full(v.VIEW_SIZE, -1, dtype=np.int64) if out is None else out
    if out is not None:
        view[:] = -1
    rules = hand.rules
    players = rules.players
    playing = hand.phase == PLAY
    view[v.V_PHASE] = v.PHASE_PLAY if playing else v.PHASE_BID
    view[v.V_SEAT] = seat
    view[v.V_PLAYERS] = players
    view[v.V_HAND_SIZE] = rules.hand_size
    view[v.V_DEALER] = hand.dealer
    view[v.V_POSITION] = hand.position
    view[v.V_HAND] = hand.hands[seat]
    view[v.V_LEGAL] = legal_mask
    view[v.V_SPADES_BROKEN] = int(hand.spades_broken)
    view[v.V_PLAYED] = hand.played_mask
    view[v.V_VOIDS] = hand.voids
    if playing:
        view[v.V_TRICK] = hand.trick_index
        view[v.V_LEADER] = hand.leader
        view[v.V_FIRST_LEADER] = hand.first_leader
        if hand.led_suit is not None:
            view[v.V_LED_SUIT] = hand.led_suit
            view[v.V_WINNING_CARD] = hand.winning_card
            view[v.V_WINNING_SEAT] = hand.winning_seat
        for k, (_, card) in enumerate(hand.trick):
            view[v.V_TRICK_CARDS + k] = card
    for other in range(4):
        present = other < players
        view[v.V_BIDS + other] = hand.bids[other] if present else -1
        view[v.V_BLIND + other] = int(hand.blind[other]) if present else 0
        view[v.V_TRICKS + other] = hand.tricks[other] if present else 0
        view[v.V_PLAYED_BY + other] = hand.played_by[other] if present else 0
    for side in range(4):
        present = side < rules.n_sides
        view[v.V_SCORES + side] = hand.scores[side] if present else 0
        view[v.V_BAGS + side] = hand.bags[side] if present else 0
    view[v.V_RULES:] = _rule_values(rules)
    return view
