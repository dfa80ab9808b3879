"""Strategy decisions inside the kernel: the card to play, of every strategy kind (the
heuristic's play policy: covering and busting nils, winning cheaply, ducking or chasing a set once
the contract is made; ``strategy_kernels.py`` says how the state reaches it)."""

from numba import njit

from .bits import (
    byte_of_nb,
    highest_card,
    lowest_card,
    nth_card_nb,
    popcount,
    suit_mask_nb,
    sum_bytes_nb,
    wrap_seat_nb,
    zero_bytes_nb,
)
from .layout import (
    PLAY_AFTER_CONTRACT,
    PLAY_BUST_NIL,
    PLAY_COVER_NIL,
    PLAY_KEEP_BAGS,
    PLAY_SET_SHIFT,
    STRATEGY_RANDOM,
)
from .rng import bounded_nb
from .strategy_kernels import (
    highest_rank_nb,
    lowest_rank_nb,
    prefer_side_suits_nb,
)
from .trick import winning_cards_nb


@njit(cache=True, inline="always")
def choose_card_nb(rules, kind, play_packed, seat, hand, legal, n_in_trick, leader, winning_card,
                   winning_seat, facts, tricks, taken, played_mask, state):
    """``(card, state)``: the card ``seat`` plays from ``legal`` (a non-empty bitboard).

    The heuristic's play parameters come packed a byte per seat in ``play_packed``
    (``play_bits_nb``): a parameter tuple picked by a runtime seat costs a jump table per
    card. ``played_mask`` (the cards played so far) is
    given to leaders only: the heuristic reads it only when leading.

    ``random`` picks the ``bounded(popcount(legal))``-th lowest legal card (one draw). The
    heuristic, in order of priority: a live nil bidder ducks (dumps its highest safe card); the
    partner of a live nil covers it (``cover_nil``: wins high ahead of it, overtakes it
    cheaply); against a live opponent nil it plays low under it (``bust_nil``); otherwise it
    wins cheaply while its side still needs tricks (leading a master, never overtaking a winning
    partner), and once the contract is safe ducks (``avoid_bags``) unless an opponent can still
    be set (``set_margin``).
    """
    if kind == STRATEGY_RANDOM:
        index, state = bounded_nb(state, popcount(legal))
        return nth_card_nb(legal, index), state
    return heuristic_card_nb(rules, byte_of_nb(play_packed, seat), seat, hand, legal, n_in_trick,
                             leader, winning_card, winning_seat, facts, tricks, taken,
                             played_mask), state


@njit(cache=True, inline="always")
def hand_facts_nb(rules, bids, blind):
    """Per-hand facts the play policy reads, computed once after bidding.

    Returns ``(nil_bits, contracts, credits)``. ``nil_bits``: bit ``seat`` set for a nil or
    blind-nil bidder. ``contracts``: packed 8 bits per seat, the contract of the seat's side
    (the sum of the side's non-nil bids). ``credits``: packed 4 bits per winner, bit ``seat`` of
    nibble ``winner`` set when ``winner`` is on the seat's side and not nil, so that the tricks
    it wins count toward the seat's contract (``credit_nb``).
    """
    players = rules.players
    partnership = rules.partnership != 0
    # A zero bid is a nil with nil on, else only when blind (``is_nil_nb``); unseated bytes
    # read zero, hence the mask of the seats.
    nil_bits = zero_bytes_nb(bids) & (0xF if rules.nil != 0 else blind) & ((1 << players) - 1)
    contracts = 0
    credits = 0
    for seat in range(players):
        side = (0b0101 << (seat & 1)) if partnership else 1 << seat
        counted = side & ~nil_bits
        contracts |= sum_bytes_nb(bids, counted) << (8 * seat)
        for winner in range(players):
            credits |= ((counted >> winner) & 1) << (4 * winner + seat)
    return nil_bits, contracts, credits


@njit(cache=True, inline="always")
def credit_nb(facts, winner):
    """What a trick won by ``winner`` adds to the packed ``taken`` (8 bits per seat: the tricks
    counting toward each seat's contract, which the play loops keep beside ``tricks``): one in
    the byte of every seat whose contract the winner's tricks count toward."""
    return (((facts[2] >> (4 * winner)) & 0xF) * 0x204081) & 0x01010101


@njit(cache=True, inline="always")
def taken_nb(rules, facts, tricks):
    """The packed ``taken`` (``credit_nb``) of the packed ``tricks``."""
    taken = 0
    for winner in range(rules.players):
        taken += byte_of_nb(tricks, winner) * credit_nb(facts, winner)
    return taken


@njit(cache=True, inline="always")
def keep_winning_nb(rules, play_bits, seat, facts, tricks, taken):
    """Once the seat's contract is made: whether it keeps winning tricks, because bags do not
    matter to it (``avoid_bags = 0``) or because an opponent still needs at least ``tricks left
    - set_margin`` tricks (setting it)."""
    if play_bits & PLAY_KEEP_BAGS:
        return True
    set_margin = (play_bits >> PLAY_SET_SHIFT) - 1
    if set_margin < 0:
        return False
    contracts = facts[1]
    players = rules.players
    partnership = rules.partnership != 0
    left = rules.hand_size - (((tricks * 0x01010101) >> 24) & 0xFF)
    for offset in range(1, players):
        other = wrap_seat_nb(seat + offset, players)
        if partnership and (other & 1) == (seat & 1):
            continue
        need = byte_of_nb(contracts, other) - byte_of_nb(taken, other)
        if need > 0 and left - need <= set_margin:
            return True
    return False


@njit(cache=True, inline="always")
def heuristic_card_nb(rules, play_bits, seat, hand, legal, n_in_trick, leader, winning_card,
                      winning_seat, facts, tricks, taken, played_mask):
    """The heuristic's card (see ``choose_card_nb``); deterministic. ``facts`` is the tuple
    ``hand_facts_nb`` returns; ``play_bits`` the seat's byte of ``play_bits_nb``; ``taken``
    the packed tricks toward each seat's contract (``credit_nb``)."""
    nil_bits, contracts = facts[0], facts[1]
    players = rules.players
    partnership = rules.partnership != 0
    leading = n_in_trick == 0
    winners = 0
    if not leading:
        winners = winning_cards_nb(legal, winning_card)
    losers = legal & ~winners

    live_nils = nil_bits & zero_bytes_nb(tricks)  # nils still alive (no trick taken yet)

    # 1. Our own nil: lose every trick we can.
    if (live_nils >> seat) & 1:
        if leading:
            return lowest_rank_nb(prefer_side_suits_nb(legal))
        if losers:
            return highest_rank_nb(prefer_side_suits_nb(losers))
        return lowest_card(winners)

    # 2. Partner's live nil: cover it.
    if partnership:
        partner = (seat + 2) & 3
        if (live_nils >> partner) & play_bits & PLAY_COVER_NIL:
            if leading:
                return highest_rank_nb(prefer_side_suits_nb(legal))
            partner_played = wrap_seat_nb(partner - leader + players, players) < n_in_trick
            if partner_played:
                if winning_seat == partner and winners:
                    return lowest_card(winners)
            elif winners:
                return highest_card(winners)

    # 3. An opponent's live nil: stay under it.
    bust_nils = live_nils if play_bits & PLAY_BUST_NIL else 0
    for offset in range(1, players if bust_nils else 1):
        other = wrap_seat_nb(seat + offset, players)
        if partnership and (other & 1) == (seat & 1):
            continue
        if (bust_nils >> other) & 1:
            if leading:
                return lowest_rank_nb(prefer_side_suits_nb(legal))
            other_played = wrap_seat_nb(other - leader + players, players) < n_in_trick
            if not other_played:
                return lowest_rank_nb(prefer_side_suits_nb(legal))
            if winning_seat == other:
                if losers:
                    return highest_rank_nb(prefer_side_suits_nb(losers))
                return lowest_card(winners)
            break

    # 4. Our contract.
    # (the switches that keep winning tricks after the contract is made are off by default:
    # one test of their bits skips them)
    if byte_of_nb(taken, seat) < byte_of_nb(contracts, seat) or (
            play_bits & PLAY_AFTER_CONTRACT
            and keep_winning_nb(rules, play_bits, seat, facts, tricks, taken)):
        if leading:
            unseen = rules.deck_mask & ~played_mask & ~hand
            for suit in range(4):
                cards = legal & suit_mask_nb(suit)
                if cards:
                    top = highest_card(cards)
                    if (unseen & suit_mask_nb(suit) & ~((2 << top) - 1)) == 0:
                        return top
            return lowest_rank_nb(prefer_side_suits_nb(legal))
        if partnership and (winning_seat & 1) == (seat & 1) and losers:
            return lowest_rank_nb(prefer_side_suits_nb(losers))
        if winners:
            return lowest_card(winners)
        return lowest_rank_nb(prefer_side_suits_nb(losers))
    if leading:
        return lowest_rank_nb(prefer_side_suits_nb(legal))
    if losers:
        return highest_rank_nb(prefer_side_suits_nb(losers))
    return lowest_card(winners)
