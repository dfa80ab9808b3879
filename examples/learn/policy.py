"""A learned card player as a Python plug-in: a linear softmax policy over hand-made features
of each legal card, trained by ``train.py`` with :class:`spades_sim.env.BatchEnv`.

Both ``train.py`` and the plug-in compute the features here from the engine's view array
(``spades_sim.core.view``: ``BatchEnv``'s observation, ``obs.view()`` in a plug-in), so the
policy plays in ``spades-sim match`` exactly what it was trained on. Bidding is not learned: it
is the counting rule of ``examples/strategies/counter_python.py`` (never nil), in training and
in play. The plug-in plays the most probable card (greedy); training samples from the softmax.

    spades-sim match examples/learn/policy.py:Learned heuristic --rules classic --games 200 \\
        --jobs 1
    spades-sim match examples/learn/policy.py:Learned:weights=my.npz heuristic --games 200
"""

from pathlib import Path

import numpy as np

from spades_sim.core.view import (
    V_BIDS,
    V_HAND,
    V_HAND_SIZE,
    V_LEGAL,
    V_PLAYED,
    V_PLAYERS,
    V_POSITION,
    V_SEAT,
    V_TRICK,
    V_TRICKS,
    V_WINNING_CARD,
    V_WINNING_SEAT,
)

N_CARDS = 54
MAX_BID = 17
CARDS = np.arange(N_CARDS)
SUITS = np.where(CARDS >= 52, 3, CARDS // 13)
RANKS = np.where(CARDS >= 52, CARDS - 39, CARDS % 13) / 12.0
TRUMP = (SUITS == 3).astype(np.float64)
# bit masks, per card: the cards of its suit that beat it (jokers count as the highest spades)
HIGHER = np.array([sum(1 << other for other in range(N_CARDS)
                       if SUITS[other] == SUITS[card] and other > card) for card in CARDS],
                  dtype=np.int64)
SUIT_MASKS = np.array([sum(1 << card for card in CARDS if SUITS[card] == suit)
                       for suit in range(4)], dtype=np.int64)
FEATURES = ("bias", "rank", "trump", "lead", "wins", "wins_over_partner", "wins_needed",
            "wins_made", "rank_made", "rank_needed", "boss", "boss_lead", "trump_lead",
            "suit_length", "suit_length_lead", "wins_last", "wins_own_nil", "rank_own_nil",
            "wins_partner_nil", "cheapest_winner", "rank_partner_winning",
            "wins_opponents_need", "trick_index")
N_FEATURES = len(FEATURES)
DEFAULT_WEIGHTS = Path(__file__).with_name("weights.npz")


def bits(masks):
    """bool[M, 54]: bit ``card`` of each int64 bitboard in ``masks`` (int64[M])."""
    return ((masks[:, None] >> CARDS[None, :]) & 1).astype(bool)


def card_features(views):
    """The features of every card for each play-phase view.

    Parameters
    ----------
    views : int64[M, VIEW_SIZE]
        Engine views of seats about to play a card (partnership rules, four players).

    Returns
    -------
    float64[M, 54, N_FEATURES]
        Row ``m, card``: the features of playing ``card`` (meaningful for legal cards only).
    """
    rows = np.arange(len(views))
    seat = views[:, V_SEAT]
    players = views[:, V_PLAYERS]
    partner = (seat + 2) % 4
    opponents = (seat + 1) % 4, (seat + 3) % 4
    bids = views[:, V_BIDS:V_BIDS + 4]
    tricks = views[:, V_TRICKS:V_TRICKS + 4]
    contract = np.maximum(bids[rows, seat], 0) + np.maximum(bids[rows, partner], 0)
    taken = tricks[rows, seat] + tricks[rows, partner]
    needed = (taken < contract).astype(np.float64)[:, None]
    made = 1.0 - needed
    opponents_contract = sum(np.maximum(bids[rows, other], 0) for other in opponents)
    opponents_taken = sum(tricks[rows, other] for other in opponents)
    opponents_need = (opponents_taken < opponents_contract).astype(np.float64)[:, None]
    own_nil = (bids[rows, seat] == 0).astype(np.float64)[:, None]
    partner_nil = (bids[rows, partner] == 0).astype(np.float64)[:, None]
    lead = (views[:, V_POSITION] == 0).astype(np.float64)[:, None]
    last = (views[:, V_POSITION] == players - 1).astype(np.float64)[:, None]
    winning = views[:, V_WINNING_CARD][:, None]
    partner_winning = (views[:, V_WINNING_SEAT] == partner).astype(np.float64)[:, None]
    winning_trump = (winning >= 39)
    same_suit = SUITS[None, :] == np.where(winning >= 52, 3, winning // 13)
    beats = np.where(TRUMP[None, :] > 0, ~winning_trump | (CARDS[None, :] > winning),
                     ~winning_trump & same_suit & (CARDS[None, :] > winning))
    wins = (beats & (winning >= 0)).astype(np.float64)
    legal = bits(views[:, V_LEGAL])
    # the cheapest winner: no legal winning card of lower rank (trumps count above the rest)
    cost = np.where((wins > 0) & legal, RANKS[None, :] + 2 * TRUMP[None, :], np.inf)
    cheapest = ((cost == cost.min(axis=1, keepdims=True)) & np.isfinite(cost)).astype(float)
    hand = views[:, V_HAND]
    outside = ~(views[:, V_PLAYED] | hand)
    boss = ((outside[:, None] & HIGHER[None, :]) == 0).astype(np.float64)
    length = np.stack([_popcount(hand & SUIT_MASKS[suit]) for suit in range(4)], axis=1)
    suit_length = length[:, SUITS] / 13.0
    rank = np.broadcast_to(RANKS[None, :], wins.shape)
    trump = np.broadcast_to(TRUMP[None, :], wins.shape)
    trick = (views[:, V_TRICK] / views[:, V_HAND_SIZE])[:, None] * np.ones_like(wins)
    columns = (np.ones_like(wins), rank, trump, lead * np.ones_like(wins), wins,
               wins * partner_winning, wins * needed, wins * made, rank * made, rank * needed,
               boss, boss * lead, trump * lead, suit_length, suit_length * lead, wins * last,
               wins * own_nil, rank * own_nil, wins * partner_nil, cheapest,
               rank * partner_winning, wins * opponents_need, trick)
    return np.stack(columns, axis=2)


def _popcount(masks):
    return bits(masks).sum(axis=1)


def probabilities(features, legal, weights):
    """float64[M, 54]: the softmax policy over the legal cards (``legal`` bool[M, 54])."""
    logits = np.where(legal, features @ weights, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    return exp / exp.sum(axis=1, keepdims=True)


def counting_bids(views, legal_bids):
    """int64[M]: the bid for each bidding view, by counting: one trick for each ace, each king
    with another card of its suit, each spade beyond the third, and the ace and king of spades,
    at least 1; then the legal bid nearest it (``legal_bids`` bool[M, 18], bid ``b`` legal),
    never nil when another is legal, the higher on a tie."""
    cards = bits(views[:, V_HAND])
    estimate = np.zeros(len(views))
    for suit in range(3):
        length = cards[:, 13 * suit:13 * suit + 13].sum(axis=1)
        estimate += cards[:, 13 * suit + 12] + (cards[:, 13 * suit + 11] & (length >= 2))
    spades = cards[:, 39:].sum(axis=1)
    estimate += np.maximum(spades - 3, 0) + cards[:, 51] + cards[:, 50]
    want = np.clip(estimate, 1, views[:, V_HAND_SIZE])
    bid_values = np.arange(legal_bids.shape[1])
    cost = 100.0 * (bid_values == 0) + np.abs(bid_values[None, :] - want[:, None]) \
        - 0.01 * bid_values
    return np.argmin(np.where(legal_bids, cost, np.inf), axis=1)


class Learned:
    """Plays the trained linear policy's most probable legal card; bids by counting."""

    def __init__(self, weights=str(DEFAULT_WEIGHTS)):
        with np.load(weights) as saved:
            names = tuple(str(name) for name in saved["features"])
            if names != FEATURES:
                raise ValueError(f"{weights}: features {names} differ from this policy's")
            self.weights = saved["weights"].astype(np.float64)

    def bid(self, obs):
        if obs.rules.players != 4 or not obs.rules.partnership:
            raise ValueError("trained for four players in partnerships (e.g. --rules classic)")
        legal_bids = np.zeros((1, MAX_BID + 1), dtype=bool)
        legal_bids[0, list(obs.legal)] = True
        return int(counting_bids(np.asarray(obs.view(), dtype=np.int64)[None, :], legal_bids)[0])

    def blind(self, obs):
        """Always look at the cards: it never trained on a blind nil (the default heuristic's
        blind nil, when far behind, would leave the nil to this card play)."""
        return -1

    def play(self, obs):
        view = np.asarray(obs.view(), dtype=np.int64)[None, :]
        scores = card_features(view)[0] @ self.weights
        legal = list(obs.legal)
        return int(max(legal, key=lambda card: (scores[card], -card)))
