"""The search player ``mc``: determinized Monte Carlo search over the card to play.

For each card decision with more than one distinct option, ``mc_card_nb``:

1. **Samples** the unseen cards ``samples`` times (``sample_hands_nb``): every other seat gets
   as many cards as it holds, never a card of a suit it has shown void in, and (up to
   ``sample_tries`` tries) a holding whose trick estimate, with the cards it has already played,
   is within ``bid_tolerance`` of its bid (or at most ``nil_threshold + bid_tolerance`` for a
   nil; blind bids say nothing). What is public is all it reads: its own hand, the cards each
   seat has played, the voids shown, the bids and the number of cards each seat holds.
2. **Plays out** each candidate card on every sample (``playout_nb``): the rest of the hand
   with the heuristic's play policy at every seat, using the searching seat's own parameters.
3. **Scores** the end of each playout with the rules' scoring (``score_side_nb``, bags and bag
   penalties included): the value is the side's points minus the mean of the other sides'
   points (integer arithmetic: ``own * (sides - 1) - sum(others)``), and the card with the
   largest total over the samples is played (ties: the lowest card).

Equivalent cards (the same suit with no unseen card between them) are one candidate, the
lowest; a single candidate is played without sampling. The searches draw from their own
stream (``search_key``, see ``simulate.py``), so an ``mc`` seat never shifts the play-stream
draws of the others. ``reference/search.py`` mirrors all of it.

Bidding, blind bids, bumps, passes and the draw deal's keep choice are the heuristic's, with the
same parameter slots (``core/strategies.py``).
"""

import numpy as np
from numba import njit, types

from ..core.rules import KernelRules
from .bits import TRUMP_MASK, byte_of_nb, flag_of_nb, lowest_card, wrap_seat_nb
from .layout import (
    N_PARAMS,
    P_AGGRESSION,
    P_BID_TOLERANCE,
    P_NIL_THRESHOLD,
    P_SAMPLE_TRIES,
    P_SAMPLES,
)
from .rng import bounded_nb
from .scoring import score_side_nb
from .strategy_kernels import estimate_tricks_nb, is_nil_nb
from .strategy_play import credit_nb, heuristic_card_nb, taken_nb
from .toolchain import announce_compile
from .trick import card_strength_nb, follow_mask_nb, lead_mask_nb, suit_mask_of_card_nb

# Explicit signatures: the search functions are called (not inlined) from the hand loop, where
# numba's type inference would otherwise compile a copy for every literal type it meets on the
# way (``Literal[int](0)`` before ``int64``), several times the compile time of one.
_I64, _U64, _BOOL = types.int64, types.uint64, types.boolean
_RULES = types.NamedUniTuple(types.int64, len(KernelRules._fields), KernelRules)
_PARAMS = types.UniTuple(types.float64, N_PARAMS)
_FACTS = types.UniTuple(types.int64, 3)
_PER_SIDE = types.UniTuple(types.int64, 4)
_ARRAY = types.int64[::1]

@njit(cache=True, inline="always")
def suit_index_nb(card):
    """0..3 for clubs, diamonds, hearts and the trumps (jokers included). (``int`` of each
    comparison: without the JIT a NumPy card gives NumPy bools, whose ``+`` is a logical or.)"""
    return int(card >= 13) + int(card >= 26) + int(card >= 39)


# (the kernels below have signatures: they compile when this module is imported)
announce_compile("the search player's kernels", "under a minute", "search.py", "playout_nb")


@njit(_I64(_RULES, _I64, _FACTS, _ARRAY, _I64, _I64, _I64, _I64, _I64, _BOOL, _I64, _I64),
      cache=True)
def playout_nb(rules, play_bits, facts, hands, leader, n_played, led_mask, winning_strength,
               winning_seat, spades_broken, trick_index, tricks):
    """Finish the hand from a trick in progress with the heuristic at every seat.

    ``hands`` (int64[4], changed in place) are the holdings; ``n_played`` (at least 1) cards of
    trick ``trick_index`` are down, led by ``leader``, with ``led_mask``, the winning strength
    (``card_strength_nb``) and seat so far. Returns the packed tricks at the end of the hand. A
    leader's played cards are taken as every card of the deck in no holding.

    One loop over the cards, leads and follows alike, so the heuristic's card choice is
    inlined once (a call per card, passing the rules tuple by value, cost more than the choice).
    """
    players = rules.players
    hand_size = rules.hand_size
    position = n_played
    led_side_suit = (led_mask & TRUMP_MASK) == 0
    taken = taken_nb(rules, facts, tricks)
    while True:
        if position == players:
            tricks += 1 << (8 * winning_seat)
            taken += credit_nb(facts, winning_seat)
            leader = winning_seat
            trick_index += 1
            if trick_index == hand_size:
                return tricks
            position = 0
        seat = wrap_seat_nb(leader + position, players)
        hand = hands[seat]
        leading = position == 0
        if leading:
            legal = lead_mask_nb(rules, hand, spades_broken, trick_index)
            played_mask = rules.deck_mask & ~(hands[0] | hands[1] | hands[2] | hands[3])
            winning_card = -1
            winning_seat = -1
        else:
            legal = follow_mask_nb(hand, led_mask)
            played_mask = 0
            winning_card = winning_strength & 63
        if (legal & (legal - 1)) == 0:
            card = lowest_card(legal)  # forced: the policy would choose it too
        else:
            card = heuristic_card_nb(rules, play_bits, seat, hand, legal, position, leader,
                                     winning_card, winning_seat, facts, tricks, taken,
                                     played_mask)
        hands[seat] = hand ^ (1 << card)
        if leading:
            led_mask = suit_mask_of_card_nb(card)
            led_side_suit = (led_mask & TRUMP_MASK) == 0
            spades_broken |= ((card >= 39) & ((hand & ~TRUMP_MASK) == 0)
                              & (rules.broken_by_forced_lead != 0))
            winning_seat = leader
            winning_strength = card_strength_nb(card, led_mask)
        else:
            spades_broken |= (card >= 39) & led_side_suit
            strength = card_strength_nb(card, led_mask)
            if strength > winning_strength:
                winning_strength = strength
                winning_seat = seat
        position += 1


@njit(cache=True)
def bids_agree_nb(rules, seat_params, seat, sampled, played_by, bids, blind):
    """Whether a sample agrees with the other seats' bids (see the module docstring)."""
    tolerance = seat_params[P_BID_TOLERANCE]
    for other in range(rules.players):
        if other == seat or flag_of_nb(blind, other):
            continue
        estimate = estimate_tricks_nb(rules, seat_params, sampled[other] | played_by[other])
        if is_nil_nb(rules, bids, blind, other):
            if estimate > seat_params[P_NIL_THRESHOLD] + tolerance:
                return False
        elif abs(estimate + seat_params[P_AGGRESSION] - byte_of_nb(bids, other)) > tolerance:
            return False
    return True


@njit(types.void(_ARRAY, _I64, _ARRAY, _I64, _I64, _ARRAY), cache=True)
def void_deal_nb(pool, n_pool, counts, voids, discard_room, sampled):
    """Deal ``pool[:n_pool]`` (in that order) into ``sampled`` respecting the voids, when the
    random tries of ``sample_hands_nb`` all failed; deterministic.

    First, how many cards of each suit go to each seat (``counts[seat]`` cards in all) and to
    the discards (``discard_room``): the cards are placed one unit of their suit at a time, in
    pool order, each by the shortest augmenting path found breadth-first from its suit (suit ->
    a seat not void in it, seats in order 0..3 then the discards; a full seat -> a suit placed
    there, suits in order 0..3, that moves on). Then each card, in pool order, goes to the first
    seat (the discards last) still owed a card of its suit. A card with no path at all (voids
    no deal can meet: never, for voids a seat has shown) goes to the first seat with room.
    """
    # suit s to seat y (4: the discards): owed[5 * s + y]; room[y]; breadth-first scratch
    owed = np.zeros(20, dtype=np.int64)
    room = np.zeros(5, dtype=np.int64)
    for other in range(4):
        room[other] = counts[other]
    room[4] = discard_room
    seat_from = np.zeros(5, dtype=np.int64)  # the suit a seat was reached from
    suit_from = np.zeros(4, dtype=np.int64)  # the seat a suit was reached from
    queue = np.zeros(9, dtype=np.int64)  # nodes: suits 0..3, seats 4..8
    for index in range(n_pool):
        start = suit_index_nb(pool[index])
        seen = 1 << start
        queue[0] = start
        head = 0
        tail = 1
        end = -1
        while head < tail and end < 0:
            node = queue[head]
            head += 1
            if node < 4:  # a suit: to the seats that may hold it
                for seat in range(5):
                    if (seen >> (4 + seat)) & 1:
                        continue
                    if seat < 4 and (voids >> (4 * seat + node)) & 1:
                        continue
                    seen |= 1 << (4 + seat)
                    seat_from[seat] = node
                    if room[seat] > 0:
                        end = seat
                        break
                    queue[tail] = 4 + seat
                    tail += 1
            else:  # a full seat: to the suits placed there, which may move on
                seat = node - 4
                for suit in range(4):
                    if not (seen >> suit) & 1 and owed[5 * suit + seat] > 0:
                        seen |= 1 << suit
                        suit_from[suit] = seat
                        queue[tail] = suit
                        tail += 1
        if end < 0:
            end = 0
            while room[end] == 0:
                end += 1
            owed[5 * start + end] += 1
        else:
            seat = end
            while True:
                suit = seat_from[seat]
                owed[5 * suit + seat] += 1
                if suit == start:
                    break
                seat = suit_from[suit]
                owed[5 * suit + seat] -= 1
        room[end] -= 1
    for other in range(4):
        sampled[other] = 0
    for index in range(n_pool):
        card = pool[index]
        suit = suit_index_nb(card)
        for seat in range(5):
            if owed[5 * suit + seat] > 0:
                owed[5 * suit + seat] -= 1
                if seat < 4:
                    sampled[seat] |= 1 << card
                break


@njit(_U64(_RULES, _PARAMS, _I64, _I64, _ARRAY, _I64, _ARRAY, _I64, _I64, _ARRAY, _ARRAY, _ARRAY,
           _U64), cache=True)
def sample_hands_nb(rules, seat_params, seat, unseen, counts, voids, played_by, bids, blind,
                    pool, sampled, backup, state):
    """Deal the ``unseen`` cards to the other seats into ``sampled`` (int64[4]); the state.
    ``pool`` (int64[64]) and ``backup`` (int64[4]) are scratch.

    ``counts`` holds the number of cards of each seat (0 for ``seat``); unseen cards beyond
    their total (the two-player draw deal's discards) go to nobody. Each try: shuffle the
    unseen cards (Fisher-Yates, ``bounded(i + 1)`` for ``i`` from the last down to 1), then deal
    them in that order, each to a seat drawn with weight equal to the cards it still lacks among
    the seats not void in its suit (the discards weigh what is left of them): one
    ``bounded(total weight)`` per card. A try fails when a card has no eligible seat. Up to
    ``sample_tries`` tries; the first that also agrees with the bids is taken, else the last
    that respected the voids, else (none did) the last shuffle dealt by ``void_deal_nb``, which
    always respects them.
    """
    players = rules.players
    n_pool = 0
    cards = unseen
    while cards:
        pool[n_pool] = lowest_card(cards)
        n_pool += 1
        cards &= cards - 1
    total_need = 0
    for other in range(players):
        total_need += counts[other]
    dealt_any = False
    for _ in range(int(seat_params[P_SAMPLE_TRIES])):
        for index in range(n_pool - 1, 0, -1):
            swap, state = bounded_nb(state, index + 1)
            card = pool[index]
            pool[index] = pool[swap]
            pool[swap] = card
        lacking0, lacking1, lacking2, lacking3 = counts[0], counts[1], counts[2], counts[3]
        discard_room = n_pool - total_need
        for other in range(4):
            sampled[other] = 0
        failed = False
        for index in range(n_pool):
            card = pool[index]
            suit = suit_index_nb(card)
            weight0 = lacking0 * (1 - ((voids >> suit) & 1))
            weight1 = lacking1 * (1 - ((voids >> (4 + suit)) & 1))
            weight2 = lacking2 * (1 - ((voids >> (8 + suit)) & 1))
            weight3 = lacking3 * (1 - ((voids >> (12 + suit)) & 1))
            total = weight0 + weight1 + weight2 + weight3 + discard_room
            if total == 0:
                failed = True
                break
            pick, state = bounded_nb(state, total)
            if pick < weight0:
                sampled[0] |= 1 << card
                lacking0 -= 1
            elif pick < weight0 + weight1:
                sampled[1] |= 1 << card
                lacking1 -= 1
            elif pick < weight0 + weight1 + weight2:
                sampled[2] |= 1 << card
                lacking2 -= 1
            elif pick < weight0 + weight1 + weight2 + weight3:
                sampled[3] |= 1 << card
                lacking3 -= 1
            else:
                discard_room -= 1
        if failed:
            continue
        dealt_any = True
        if bids_agree_nb(rules, seat_params, seat, sampled, played_by, bids, blind):
            return state
        # (keep this void-consistent deal in case no later try agrees)
        for other in range(4):
            backup[other] = sampled[other]
    if dealt_any:
        for other in range(4):
            sampled[other] = backup[other]
        return state
    # No try satisfied the voids: a deal that does (one always exists: the real one).
    void_deal_nb(pool, n_pool, counts, voids, n_pool - total_need, sampled)
    return state


@njit(cache=True, inline="always")
def candidates_nb(legal, unseen):
    """``legal`` less the cards equivalent to a lower legal card of their suit (no unseen card
    between them), so each distinct choice is tried once."""
    kept = 0
    previous = -1
    cards = legal
    while cards:
        card = lowest_card(cards)
        cards &= cards - 1
        if previous >= 0 and suit_index_nb(previous) == suit_index_nb(card):
            between = ((1 << card) - 1) & ~((2 << previous) - 1)
            if (between & unseen) == 0:
                previous = card
                continue
        kept |= 1 << card
        previous = card
    return kept


# The search's scratch (``mc_card_nb``'s ``scratch``, allocated once per kernel call):
# counts [0, 4), sampled [4, 8), backup [8, 12), hands [12, 16), pool [16, 80), totals [80, 144).
SCRATCH_SIZE = 144


@njit(types.Tuple((_I64, _U64))(_RULES, _PARAMS, _I64, _FACTS, _I64, _I64, _I64, _I64, _I64,
                               _I64, _I64, _I64, _BOOL, _I64, _I64, _I64, _I64, _ARRAY, _I64,
                               _PER_SIDE, _ARRAY, _U64), cache=True)
def mc_card_nb(rules, seat_params, play_bits, facts, seat, hand, legal, n_in_trick, leader,
               led_mask, winning_strength, winning_seat, spades_broken, trick_index, tricks,
               bids, blind, played_by, voids, bags, scratch, state):
    """``(card, state)``: the search player's card (module docstring); ``state`` is the search
    stream's.

    ``played_by`` (int64[4]) holds each seat's played cards this hand; ``voids`` a bit per seat
    and suit (``4 * seat + suit``); ``bags`` the per-side bag counts before the hand (a
    4-tuple); the trick in progress is ``n_in_trick`` cards led by ``leader`` (``led_mask``,
    winning strength and seat; when leading, ``led_mask`` and the rest are ignored);
    ``scratch`` (int64[SCRATCH_SIZE]) the kernel call's working arrays, so that a decision
    allocates nothing.
    """
    players = rules.players
    n_sides = rules.n_sides
    seen = hand | played_by[0] | played_by[1] | played_by[2] | played_by[3]
    unseen = rules.deck_mask & ~seen
    options = candidates_nb(legal, unseen)
    if (options & (options - 1)) == 0:
        return lowest_card(options), state
    counts = scratch[0:4]
    sampled = scratch[4:8]
    backup = scratch[8:12]
    hands = scratch[12:16]
    pool = scratch[16:80]
    totals = scratch[80:144]
    cards_left = rules.hand_size - trick_index
    for other in range(4):
        counts[other] = 0
        if other < players and other != seat:
            played_now = wrap_seat_nb(other - leader + players, players) < n_in_trick
            counts[other] = cards_left - played_now
    remaining = options
    while remaining:  # (the candidates' totals: the only ones read)
        totals[lowest_card(remaining)] = 0
        remaining &= remaining - 1
    side = (seat & 1) if rules.partnership else seat
    for _ in range(int(seat_params[P_SAMPLES])):
        state = sample_hands_nb(rules, seat_params, seat, unseen, counts, voids, played_by, bids,
                                blind, pool, sampled, backup, state)
        remaining = options
        while remaining:
            card = lowest_card(remaining)
            remaining &= remaining - 1
            for other in range(4):
                hands[other] = sampled[other]
            hands[seat] = hand ^ (1 << card)
            if n_in_trick == 0:
                trick_led = suit_mask_of_card_nb(card)
                strength = card_strength_nb(card, trick_led)
                best_seat = seat
                broken = spades_broken | ((card >= 39) & ((hand & ~TRUMP_MASK) == 0)
                                          & (rules.broken_by_forced_lead != 0))
            else:
                trick_led = led_mask
                strength = card_strength_nb(card, led_mask)
                best_seat = seat
                if strength <= winning_strength:
                    strength = winning_strength
                    best_seat = winning_seat
                broken = spades_broken | ((card >= 39) & ((led_mask & TRUMP_MASK) == 0))
            final = playout_nb(rules, play_bits, facts, hands, leader, n_in_trick + 1, trick_led,
                               strength, best_seat, broken, trick_index, tricks)
            value = 0
            for other_side in range(n_sides):
                delta, _ = score_side_nb(rules, other_side, bids, blind, final, bags[other_side])
                if other_side == side:
                    value += delta * (n_sides - 1)
                else:
                    value -= delta
            totals[card] += value
    best = -1
    remaining = options
    while remaining:
        card = lowest_card(remaining)
        remaining &= remaining - 1
        if best < 0 or totals[card] > totals[best]:
            best = card
    return best, state
