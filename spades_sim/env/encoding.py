"""The environment's observation: one fixed-length ``float32`` vector per seat.

Built from the seat's :class:`~spades_sim.game.Observation` only (what the seat may know),
plus the face-up cards it turned down in a draw deal (seen by that seat alone, remembered by
the environment). Seats are *relative*: slot 0 is the observing seat, slot 1 the seat on its
left (the next to act after it), slot 2 the one after (the partner at four), slot 3 the last;
slots beyond the table's players stay 0. Sides likewise: slot 0 is the seat's own side, then
the others in seat order. The vector has the same length for every rule variant, so one
network can learn several. ``BLOCKS`` lists the blocks in order; ``OFFSETS`` gives their
first index (``docs/environment.md`` has the table).

>>> OFFSETS["hand"], OFFSETS["phase"], OBSERVATION_SIZE
(0, 598, 902)
"""

from __future__ import annotations

import numpy as np

from ..core.cards import cards_of, mask_of
from ..core.encoding import (  # noqa: F401 (the layout, re-exported: env's public names)
    BLOCKS,
    HIGH,
    LOW,
    MAX_EXCHANGE,
    N_BIDS,
    N_CARDS,
    OBSERVATION_SIZE,
    OFFSETS,
    PHASES,
    SCORE_CLIP,
    SEATS,
    SIDES,
    SIZES,
)
from ..core.rules import MAX_HAND_SIZE, Rules
from ..game import BID, BLIND, BUMP, KEEP, OVER, PASS, PLAY, Observation

assert PHASES == (KEEP, BLIND, BID, BUMP, PASS, PLAY, OVER)


def _set_cards(vector: np.ndarray, start: int, mask: int) -> None:
    for card in cards_of(mask):
        vector[start + card] = 1.0


def encode(observation: Observation, to_act: int, declined: int = 0) -> np.ndarray:
    """The observation vector of ``observation``'s seat.

    Parameters
    ----------
    observation : Observation
        The seat's view of the hand.
    to_act : int
        The seat to act (-1 when the hand is over): public knowledge.
    declined : int
        Bitboard of the face-up cards the seat turned down in a draw deal.

    Returns
    -------
    numpy.ndarray
        ``float32``, shape ``(OBSERVATION_SIZE,)``, inside ``LOW .. HIGH``.
    """
    vector = np.zeros(OBSERVATION_SIZE, np.float32)
    rules: Rules = observation.rules
    players, seat, size = rules.players, observation.seat, rules.hand_size
    phase = observation.phase
    side = observation.side

    def slot(other: int) -> int:
        return (other - seat) % players

    def put(name: str, index: int, value: float = 1.0) -> None:
        vector[OFFSETS[name] + index] = value

    hand = observation.hand
    _set_cards(vector, OFFSETS["hand"], hand)
    for other, mask in enumerate(observation.played_by):
        _set_cards(vector, OFFSETS["played_by"] + N_CARDS * slot(other), mask)
    for other, card in observation.trick:
        put("trick", N_CARDS * slot(other) + card)
    if phase == PLAY:
        put("leader", slot(observation.leader))
        if observation.led_suit is not None:
            put("led_suit", observation.led_suit)
            put("winning", slot(observation.winning_seat))
    blind, bumped, tricks = observation.blind, observation.bumped, observation.tricks
    for other, bid in enumerate(observation.bids):
        relative = slot(other)
        if bid >= 0:
            put("bids", N_BIDS * relative + bid)
        put("blind", relative, float(blind[other]))
        put("bumped", relative, float(bumped[other]))
        put("tricks", relative, tricks[other] / size)
        for suit in range(4):
            if observation.void(other, suit):
                put("voids", 4 * relative + suit)
    put("phase", PHASES.index(phase))
    if to_act >= 0:
        put("to_act", slot(to_act))
    put("spades_broken", 0, float(observation.spades_broken))
    put("trick_index", 0, observation.trick_index / size)
    put("dealer", slot(observation.dealer))
    if observation.face_up >= 0 and observation.to_act:
        put("face_up", observation.face_up)
    _set_cards(vector, OFFSETS["declined"], declined)
    if phase == PASS and observation.to_act:
        put("pass_count", 0, observation.pass_count / MAX_EXCHANGE)
        put("passing_as_nil", 0, float(observation.passing_as_nil_bidder))
        # Cards chosen so far stay in the hand until the last one is chosen; they are the ones
        # the seat may no longer pass.
        _set_cards(vector, OFFSETS["pass_chosen"], hand & ~mask_of(observation.legal))
    for giver, _, card in observation.exchanged:
        put("given" if giver == seat else "received", card)
    n_sides = rules.n_sides
    for other_side, (score, bags) in enumerate(zip(observation.scores, observation.bags)):
        relative = (other_side - side) % n_sides
        put("scores", relative, float(np.clip(score / rules.target, -SCORE_CLIP, SCORE_CLIP)))
        if rules.bag_limit:
            put("bags", relative, min(bags / rules.bag_limit, 1.0))
    put("players", players - 2)
    put("rules", 0, float(rules.partnership))
    put("rules", 1, float(rules.deck == "jokers"))
    put("rules", 2, float(rules.deal == "draw"))
    put("rules", 3, size / MAX_HAND_SIZE)
    return vector
