"""Entry kernels: independent hands and whole games, writing into caller-provided arrays.

``simulate_hands_nb`` and ``play_games_nb`` are the only kernels the Python layer calls. Both
take the rules tuple, the strategy kinds and parameter vectors per seat, the two stream keys
(see ``rng.py`` for the draw contract) and a namedtuple of output arrays (``records.py``).
"""

import numpy as np
from numba import njit

from .bits import TRUMP_MASK, suit_of_nb
from .deal import shuffle_deal_nb
from .layout import (
    FIRST_LEADER_DEALER_LEFT,
    FIRST_LEADER_RANDOM,
    FIRST_LEADER_TWO_OF_CLUBS,
    GAME_SHIFT,
    R_BROKEN_BY_FORCED_LEAD,
    R_FIRST_LEADER,
    R_HAND_CAP,
    R_HAND_SIZE,
    R_HAS_MERCY,
    R_MAX_HANDS,
    R_MERCY,
    R_N_SIDES,
    R_PLAYERS,
    R_TARGET,
)
from .rng import bounded_nb, seed_stream_nb
from .scoring import score_hand_nb
from .strategy_kernels import choose_bid_nb, choose_card_nb
from .trick import beats_nb, legal_mask_nb


@njit(cache=True, inline="always")
def _scratch_nb():
    return (np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64),
            np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64),
            np.zeros(4, dtype=np.int64))


@njit(cache=True, inline="always")
def play_hand_nb(rules, kinds, params, deal_key, play_key, key_index, dealer, score_before,
                 bags_before, out, row, record_plays, work, deck, streams):
    """Deal, bid, play and score one hand; write row ``row`` of ``out``.

    ``work`` is a tuple of seven int64[4] scratch arrays (dealt, hands, bids, blind, tricks,
    delta, bags after); separate arrays, not views, so the hot loop does no reference counting;
    ``deck`` int64[54] scratch, ``streams`` uint64[2] (deal and play generator states).
    ``score_before`` and ``bags_before`` (per side) are read only.
    """
    dealt, hands, bids, blind, tricks, delta, bags_after = work
    players = rules[R_PLAYERS]
    hand_size = rules[R_HAND_SIZE]
    n_sides = rules[R_N_SIDES]
    seed_stream_nb(streams, 0, deal_key, key_index)
    seed_stream_nb(streams, 1, play_key, key_index)
    shuffle_deal_nb(rules, streams, deck, dealt)
    for seat in range(players):
        hands[seat] = dealt[seat]
        bids[seat] = -1
        blind[seat] = 0
        tricks[seat] = 0

    # Bidding: one round, clockwise from the dealer's left.
    for k in range(players):
        seat = (dealer + 1 + k) % players
        bid = choose_bid_nb(rules, kinds[seat], params, seat, hands[seat], bids, blind,
                            streams)
        if bid < 0 or bid > hand_size:
            raise ValueError("strategy returned a bid out of range")
        bids[seat] = bid

    # First leader (first_leader = random draws on the deal stream, after the deal).
    mode = rules[R_FIRST_LEADER]
    if mode == FIRST_LEADER_DEALER_LEFT:
        leader = (dealer + 1) % players
    elif mode == FIRST_LEADER_RANDOM:
        leader = bounded_nb(streams, 0, players)
    else:  # two_of_clubs: its holder leads it
        leader = 0
        for seat in range(players):
            if hands[seat] & 1:
                leader = seat
    first_leader = leader

    # Play.
    played_mask = 0
    spades_broken = False
    for trick_index in range(hand_size):
        winning_card = -1
        winning_seat = -1
        led_suit = -1
        for k in range(players):
            seat = (leader + k) % players
            hand = hands[seat]
            legal = legal_mask_nb(rules, hand, k, led_suit, spades_broken, trick_index)
            if mode == FIRST_LEADER_TWO_OF_CLUBS and trick_index == 0 and k == 0:
                legal = 1  # two_of_clubs: the 2C itself is the first lead
            card = choose_card_nb(rules, kinds[seat], params, seat, hand, legal, k, leader,
                                  winning_card, winning_seat, bids, blind, tricks, played_mask,
                                  streams)
            if card < 0 or ((legal >> card) & 1) == 0:
                raise ValueError("strategy chose an illegal card")
            hands[seat] = hand ^ (1 << card)
            played_mask |= 1 << card
            if record_plays:
                out.plays[row, trick_index * players + k] = card
                out.play_seats[row, trick_index * players + k] = seat
            if k == 0:
                led_suit = suit_of_nb(card)
                winning_card = card
                winning_seat = seat
                if (card >= 39 and (hand & ~TRUMP_MASK) == 0
                        and rules[R_BROKEN_BY_FORCED_LEAD]):
                    spades_broken = True
            else:
                if beats_nb(card, winning_card):
                    winning_card = card
                    winning_seat = seat
                if card >= 39 and led_suit != 3:
                    spades_broken = True
        tricks[winning_seat] += 1
        leader = winning_seat

    score_hand_nb(rules, bids, blind, tricks, bags_before, delta, bags_after)

    out.dealer[row] = dealer
    out.first_leader[row] = first_leader
    for seat in range(players):
        out.hands[row, seat] = dealt[seat]
        out.bids[row, seat] = bids[seat]
        out.blind[row, seat] = blind[seat]
        out.bumped[row, seat] = 0
        out.tricks[row, seat] = tricks[seat]
    for side in range(n_sides):
        out.score_before[row, side] = score_before[side]
        out.bags_before[row, side] = bags_before[side]
        out.score_delta[row, side] = delta[side]
        out.bags_after[row, side] = bags_after[side]


@njit(cache=True)
def simulate_hands_nb(rules, kinds, params, deal_key, play_key, first_hand_id, out,
                      record_plays):
    """Play ``len(out.hand_id)`` independent hands, ids ``first_hand_id ...``, from zero scores.

    Hand ``h`` is dealt by seat ``h % players`` and uses key index ``h`` on both streams, so
    any split of a run into pieces reproduces the same hands.
    """
    n_hands = out.hand_id.shape[0]
    players = rules[R_PLAYERS]
    work = _scratch_nb()
    deck = np.zeros(54, dtype=np.int64)
    streams = np.zeros(2, dtype=np.uint64)
    zeros = np.zeros(4, dtype=np.int64)
    for row in range(n_hands):
        hand_id = first_hand_id + row
        out.hand_id[row] = hand_id
        out.game_id[row] = -1
        play_hand_nb(rules, kinds, params, deal_key, play_key, hand_id, hand_id % players,
                     zeros, zeros, out, row, record_plays, work, deck, streams)


@njit(cache=True)
def game_over_nb(rules, scores, n_hands):
    """``(over, winner)`` after ``n_hands`` hands; winner -1 is a tie or a draw.

    Order: a unique highest score at or over the target wins (a tie there plays on); a side at
    or below ``mercy`` ends it; ``max_hands`` ends it; ``hand_cap`` ends it as a draw.
    """
    n_sides = rules[R_N_SIDES]
    top = scores[0]
    low = scores[0]
    leader = 0
    for side in range(1, n_sides):
        if scores[side] > top:
            top = scores[side]
            leader = side
        if scores[side] < low:
            low = scores[side]
    n_top = 0
    for side in range(n_sides):
        if scores[side] == top:
            n_top += 1
    unique_leader = leader if n_top == 1 else -1
    if top >= rules[R_TARGET] and n_top == 1:
        return True, leader
    if rules[R_HAS_MERCY] and low <= rules[R_MERCY]:
        return True, unique_leader
    if rules[R_MAX_HANDS] > 0 and n_hands >= rules[R_MAX_HANDS]:
        return True, unique_leader
    if n_hands >= rules[R_HAND_CAP]:
        return True, -1
    return False, -1


@njit(cache=True)
def play_games_nb(rules, kinds, params, deal_key, play_key, first_game_id, n_games, out,
                  games, record_plays):
    """Play whole games ``first_game_id ...``; return ``(games_done, rows_written)``.

    Game ``g`` draws its first dealer with ``bounded(players)`` on deal-stream key index
    ``g << 20``; its hand ``j`` uses key index ``(g << 20) + 1 + j``; the deal passes left.
    Stops early, between games, when fewer than ``hand_cap`` rows are left in ``out``; the
    caller continues from the next game with fresh arrays (games are independent).
    """
    capacity = out.hand_id.shape[0]
    players = rules[R_PLAYERS]
    n_sides = rules[R_N_SIDES]
    work = _scratch_nb()
    deck = np.zeros(54, dtype=np.int64)
    streams = np.zeros(2, dtype=np.uint64)
    scores = np.zeros(4, dtype=np.int64)
    bags = np.zeros(4, dtype=np.int64)
    row = 0
    for g in range(n_games):
        if capacity - row < rules[R_HAND_CAP]:
            return g, row
        game_id = first_game_id + g
        base = game_id << GAME_SHIFT
        seed_stream_nb(streams, 0, deal_key, base)
        dealer = bounded_nb(streams, 0, players)
        first_dealer = dealer
        scores[:] = 0
        bags[:] = 0
        n_hands = 0
        while True:
            out.hand_id[row] = row  # the caller adds the run offset
            out.game_id[row] = game_id
            play_hand_nb(rules, kinds, params, deal_key, play_key, base + 1 + n_hands, dealer,
                         scores, bags, out, row, record_plays, work, deck, streams)
            for side in range(n_sides):
                scores[side] += out.score_delta[row, side]
                bags[side] = out.bags_after[row, side]
            row += 1
            n_hands += 1
            dealer = (dealer + 1) % players
            over, winner = game_over_nb(rules, scores, n_hands)
            if over:
                break
        games.game_id[g] = game_id
        games.first_dealer[g] = first_dealer
        games.n_hands[g] = n_hands
        games.winner[g] = winner
        for side in range(n_sides):
            games.final_score[g, side] = scores[side]
            games.final_bags[g, side] = bags[side]
    return n_games, row
