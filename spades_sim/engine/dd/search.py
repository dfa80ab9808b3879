"""The search: one null-window question answered by alpha-beta over single cards.

``search_nb`` answers "can the maximising side take at least ``target`` of the remaining
tricks?" (or, in a nil search, "can the nil side keep the bidder from winning a trick?") for
the whole null window at once; the drivers (``drivers.py``) ask a short sequence of such
questions to pin the exact count. At each node:

1. At a trick boundary, the bounds (``bounds.py``) and the transposition table
   (``table.py``) may answer at once.
2. In the middle of a trick, the current trick's quick trick may.
3. Otherwise the candidate cards (``ordering.py``) are tried best first until one cuts off.

**One small card a suit** (DDS's lowest-winning-rank rule): once a card of a suit has failed
and lies below every card of that suit the answers so far relied on, the seat's other cards of
the suit below those are not tried either: they would give the same answer. Every answer also
leaves in ``CTX_REL`` the cards whose ranks it relied on, which is what a table entry keeps.

**Nil safety** is the same search with another end: the nil side (the bidder, and its partner in
partnership games) fails as soon as the bidder wins a trick and succeeds when the hand ends
first. It fails at once when the bidder holds the top trump, or when the bidder's card is
winning a trick that no partner still to play can beat and every opponent still to play can
play under.

**The call.** The search calls itself with the transposition table and the moves array at
every node as their addresses (``unsafe.py``'s ``address_nb``; it makes its own views with
``view_nb``): one integer an array a call, so numba neither counts references nor copies the
arrays' fields a call. The helpers of a node are inlined, and the recursion passes only the
five rule fields the search reads (``SearchRules``): a call that is not inlined copies its
tuple arguments. The explicit signature makes one compiled search serve every rule variant.
"""

from __future__ import annotations

from numba import njit

from ..bits import TRUMP_MASK, highest_card, lowest_card, popcount, wrap_seat_nb
from ..layout import FIRST_LEADER_TWO_OF_CLUBS, SPADES_LEAD_BROKEN
from ..toolchain import SOLVER_COMPILE, announce_compile
from ..trick import card_strength_nb, follow_mask_nb, lead_mask_nb, suit_mask_of_card_nb
from ..unsafe import view_nb
from .bounds import (
    guarded_second_nb,
    quick_tricks_nb,
    second_third_nb,
    side_trumps_rel_nb,
    sure_later_nb,
)
from .holdings import (
    NON_TRUMP_MASK,
    best_strength_nb,
    least_strength_nb,
    suit_cards_nb,
    union_nb,
    winner_rel_nb,
)
from .layout import (
    BOOL,
    CTX_BOUNDARY,
    CTX_BOUNDARY_BY_TRICK,
    CTX_CUTS,
    CTX_EXPANDED,
    CTX_MAX,
    CTX_NIL,
    CTX_NODES,
    CTX_NODES_BY_TRICK,
    CTX_QUICK_CUT,
    CTX_REL,
    CTX_ROW,
    CTX_TT_CUT,
    CTX_TT_ROWS,
    CTX_ZERO,
    HANDS_ROW,
    I64,
    MOVE_CARDS,
    MOVE_CODE_HIGH,
    MOVE_CODE_LOW,
    MOVE_COLS,
    MOVE_COUNT,
    MOVE_FLOOR,
    MOVE_KILLER,
    MOVE_ROWS,
    SEARCH_RULES_TYPE,
    STATS,
    TT_COLS,
)
from .ordering import gen_moves_nb
from .table import (
    UNKNOWN,
    bucket_keys_nb,
    fine_key_nb,
    head_index_nb,
    position_codes_nb,
    prefetch_head_nb,
    probe_nb,
    relied_masks_nb,
    store_nb,
)

announce_compile(*SOLVER_COMPILE)  # (the kernel below has a signature: it compiles now)


@njit(BOOL(SEARCH_RULES_TYPE, I64, I64, I64, I64, I64, I64, I64, I64, I64, I64, I64),
      cache=True)
def search_nb(rules, tt_address, moves_address, pos, leader, broken, tidx, led_mask,
              win_strength, win_seat, on_table, target):
    """Whether the maximising side (context slot ``CTX_MAX``) can take at least ``target`` of
    the remaining tricks (the current one included), or, in a nil search (slot ``CTX_NIL`` at
    least 0), whether the nil side can keep the bidder from winning any trick.

    ``moves`` holds the ply rows, the context (row ``CTX_ROW``) and the holdings (row
    ``HANDS_ROW``, changed and restored in place); ``pos`` cards of trick
    ``tidx`` are down (``on_table``), led by ``leader``, with the led suit's mask, the winning
    strength (``card_strength_nb``) and seat so far; ``broken`` is whether spades are broken.
    On return ``CTX_REL`` holds the cards whose ranks the answer relied on.
    """
    moves = view_nb(moves_address, MOVE_ROWS + 2, MOVE_COLS)
    tt = view_nb(tt_address, moves[CTX_ROW, CTX_TT_ROWS], TT_COLS)
    players = rules.players
    max_mask = moves[CTX_ROW, CTX_MAX]
    nil_seat = moves[CTX_ROW, CTX_NIL]
    moves[CTX_ROW, CTX_NODES] += 1
    if STATS:
        moves[CTX_ROW, CTX_NODES_BY_TRICK + tidx] += 1
        if pos == 0:
            moves[CTX_ROW, CTX_BOUNDARY_BY_TRICK + tidx] += 1
    # Run-time zeros: literal arguments in the recursive calls would make numba type (and
    # mangle) the self-call as another specialisation, which a cached load cannot resolve.
    zero = moves[CTX_ROW, CTX_ZERO]
    none = zero - 1
    lower = 0
    upper = 0
    length_key = 0
    side_key = 0
    fine_key = 0
    plain_index = 0
    ply = tidx * players + pos
    union = union_nb(moves)
    remaining = rules.hand_size - tidx
    if pos == 0:
        moves[CTX_ROW, CTX_REL] = 0
        if nil_seat < 0:
            if target <= 0:
                return True
            if target > remaining:
                return False
        elif remaining == 0:
            return True
        else:
            # The bidder holds the top trump: the trick it is played to is the bidder's.
            trumps = union & TRUMP_MASK
            if trumps != 0 and (moves[HANDS_ROW, nil_seat] >> highest_card(trumps)) & 1:
                if STATS:
                    moves[CTX_ROW, CTX_QUICK_CUT] += 1
                moves[CTX_ROW, CTX_REL] = 1 << highest_card(trumps)
                return False
        # The bucket's keys first, and its head fetched into the cache while the bounds run:
        # the head table is large and this read would otherwise wait on memory.
        key_broken = broken if rules.spades_lead == SPADES_LEAD_BROKEN else 0
        length_key, side_key = bucket_keys_nb(moves, players, leader, key_broken, max_mask)
        plain_index = head_index_nb(length_key, side_key)
        prefetch_head_nb(tt, plain_index)
        # The bounds of a trick search (bounds.py): the quick tricks of the side on lead (none
        # at a two-of-clubs opening, where the lead is forced), either side's sure trump
        # tricks, and the tricks of a guarded second-best trump or of the second and third
        # best. (Written out here rather than in one helper: numba copies an inlined helper's
        # code once a level, and one more level made the first compile 10% longer.)
        if nil_seat < 0 and not (rules.first_leader == FIRST_LEADER_TWO_OF_CLUBS and tidx == 0):
            leader_max = (max_mask >> leader) & 1
            needed = target if leader_max else remaining - target + 1
            sure = quick_tricks_nb(rules, moves, leader, max_mask, broken, tidx, union, needed)
            if leader_max:
                if sure >= target:
                    if STATS:
                        moves[CTX_ROW, CTX_QUICK_CUT] += 1
                    return True
            elif remaining - sure < target:
                if STATS:
                    moves[CTX_ROW, CTX_QUICK_CUT] += 1
                return False
        if nil_seat < 0:
            if sure_later_nb(moves, players, max_mask, union) >= target:
                if STATS:
                    moves[CTX_ROW, CTX_QUICK_CUT] += 1
                moves[CTX_ROW, CTX_REL] = side_trumps_rel_nb(moves, players, max_mask, union,
                                                             target)
                return True
            others = ((1 << players) - 1) & ~max_mask
            if remaining - sure_later_nb(moves, players, others, union) < target:
                if STATS:
                    moves[CTX_ROW, CTX_QUICK_CUT] += 1
                moves[CTX_ROW, CTX_REL] = side_trumps_rel_nb(moves, players, others, union,
                                                             remaining - target + 1)
                return False
            guarded, guarded_max = guarded_second_nb(moves, players, union, leader)
            if guarded != 0:
                if guarded_max:
                    if target <= 1:
                        if STATS:
                            moves[CTX_ROW, CTX_QUICK_CUT] += 1
                        moves[CTX_ROW, CTX_REL] = guarded
                        return True
                elif target >= remaining:
                    if STATS:
                        moves[CTX_ROW, CTX_QUICK_CUT] += 1
                    moves[CTX_ROW, CTX_REL] = guarded
                    return False
            if target <= 1 or target >= remaining:
                pair, pair_max = second_third_nb(moves, players, union)
                if pair != 0 and (target <= 1 if pair_max else target >= remaining):
                    if STATS:
                        moves[CTX_ROW, CTX_QUICK_CUT] += 1
                    moves[CTX_ROW, CTX_REL] = pair
                    return pair_max
        if STATS:
            moves[CTX_ROW, CTX_BOUNDARY] += 1
        code_low, code_high = position_codes_nb(moves, union)
        lower = 0
        upper = remaining if nil_seat < 0 else 1
        # In a nil search, two tiers: an entry that relies on the top card of every suit
        # still held lives in a bucket keyed on those cards' owners too (the fine key), the
        # others in the plain bucket.
        if nil_seat >= 0:
            fine_key = fine_key_nb(side_key, code_low, code_high)
        for tier in range(0 if nil_seat >= 0 else 1, 2):
            key = fine_key if tier == 0 else side_key
            index = head_index_nb(length_key, key) if tier == 0 else plain_index
            found = probe_nb(tt, moves, index, length_key, key, code_low, code_high, target,
                             union)
            if found != UNKNOWN:
                if STATS:
                    moves[CTX_ROW, CTX_TT_CUT] += 1
                return found != 0
        moves[ply, MOVE_CODE_LOW] = code_low
        moves[ply, MOVE_CODE_HIGH] = code_high
    seat = wrap_seat_nb(leader + pos, players)
    hand = moves[HANDS_ROW, seat]
    if pos == 0:
        if rules.first_leader == FIRST_LEADER_TWO_OF_CLUBS and tidx == 0:
            legal = hand & 1
        else:
            legal = lead_mask_nb(rules, hand, broken, tidx)
    else:
        legal = follow_mask_nb(hand, led_mask)
    maximizing = (max_mask >> seat) & 1
    if pos > 0 and nil_seat < 0:
        # The side to play needs only this trick, and one of its cards still to come wins it
        # whatever the opponents still to play hold (DDS's second-hand quick trick, at any
        # position in the trick). Beyond one trick, the side's sure trump tricks count when
        # every seat of the side still to play follows a side suit (its trumps stay).
        need = target if maximizing else remaining - target + 1
        side_mask = max_mask if maximizing else ((1 << players) - 1) & ~max_mask
        later = 0
        if need >= 2 and (led_mask & TRUMP_MASK) == 0:
            follows = True
            for step in range(pos, players):
                other = wrap_seat_nb(seat + step - pos, players)
                if (side_mask >> other) & 1 and (moves[HANDS_ROW, other] & led_mask) == 0:
                    follows = False
            if follows:
                later = sure_later_nb(moves, players, side_mask, union)
        if need <= 1 + later:
            own = (side_mask >> win_seat) & 1
            side_best = win_strength if own else 0
            opp_best = 0 if own else win_strength
            for step in range(pos, players):
                other = wrap_seat_nb(seat + step - pos, players)
                best = best_strength_nb(moves[HANDS_ROW, other], led_mask)
                if (side_mask >> other) & 1:
                    side_best = max(side_best, best)
                else:
                    opp_best = max(opp_best, best)
            if side_best > opp_best:
                if STATS:
                    moves[CTX_ROW, CTX_QUICK_CUT] += 1
                if own and side_best == win_strength:
                    # The card already winning, with its owner's equivalent cards.
                    rel = winner_rel_nb(moves, win_strength & 63, win_seat, on_table)
                else:
                    rel = 1 << (side_best & 63)
                if need >= 2:
                    rel |= side_trumps_rel_nb(moves, players, side_mask, union, need - 1)
                moves[CTX_ROW, CTX_REL] = rel
                return maximizing != 0
    elif pos > 0 and win_seat == nil_seat:
        # The nil bidder's card is winning the trick: it keeps it when no partner still to
        # play can beat it and every opponent still to play can play under it.
        saved = False
        for step in range(pos, players):
            other = wrap_seat_nb(seat + step - pos, players)
            held = moves[HANDS_ROW, other]
            if (max_mask >> other) & 1:
                saved |= best_strength_nb(held, led_mask) > win_strength
            else:
                saved |= least_strength_nb(held, led_mask) > win_strength
        if not saved:
            if STATS:
                moves[CTX_ROW, CTX_QUICK_CUT] += 1
            moves[CTX_ROW, CTX_REL] = winner_rel_nb(moves, win_strength & 63, nil_seat, on_table)
            return False
    gen_moves_nb(rules, moves, ply, seat, pos, legal, led_mask, win_strength, win_seat,
                 on_table, maximizing, nil_seat, union)
    count = moves[ply, MOVE_COUNT]
    result = maximizing == 0
    rel = 0
    for suit in range(4):
        moves[ply, MOVE_FLOOR + suit] = -1
    for i in range(count):
        card = moves[ply, MOVE_CARDS + i]
        card_suit = 3 if card >= 39 else card // 13
        if card < moves[ply, MOVE_FLOOR + card_suit]:
            # Below every card of its suit that the failed moves' answers relied on, like a
            # small card of this suit already tried: the same answer (one small card a suit).
            continue
        bit = 1 << card
        moves[HANDS_ROW, seat] = hand ^ bit
        if pos == 0:
            new_led = suit_mask_of_card_nb(card)
            new_broken = broken | int((card >= 39) & ((hand & NON_TRUMP_MASK) == 0)
                                      & (rules.broken_by_forced_lead != 0))
            strength = card_strength_nb(card, new_led)
            new_seat = seat
        else:
            new_led = led_mask
            new_broken = broken | int((card >= 39) & ((led_mask & TRUMP_MASK) == 0))
            strength = card_strength_nb(card, led_mask)
            new_seat = win_seat
            if strength > win_strength:
                new_seat = seat
            else:
                strength = win_strength
        if pos == players - 1:
            # The winner beat another card of its suit by rank: its rank matters.
            won_by = strength - 128 if strength >= 128 else strength - 64
            rank_win = popcount((on_table | bit) & suit_mask_of_card_nb(won_by)) >= 2
            if nil_seat >= 0:
                if new_seat == nil_seat:
                    answer = False
                    moves[CTX_ROW, CTX_REL] = 0
                else:
                    answer = search_nb(rules, tt_address, moves_address, zero, new_seat,
                                       new_broken, tidx + 1, zero, none, none, zero, target)
            else:
                answer = search_nb(rules, tt_address, moves_address, zero, new_seat, new_broken,
                                   tidx + 1, zero, none, none, zero,
                                   target - ((max_mask >> new_seat) & 1))
            if rank_win:
                # The winner's rank matters, and so do the cards of its hand equivalent to it
                # (a lower one of them would have won too, and was not tried).
                moves[CTX_ROW, CTX_REL] |= winner_rel_nb(moves, won_by, new_seat, on_table | bit)
        else:
            answer = search_nb(rules, tt_address, moves_address, pos + 1, leader, new_broken,
                               tidx, new_led, strength, new_seat, on_table | bit, target)
        moves[HANDS_ROW, seat] = hand
        if answer == (maximizing != 0):
            if pos == 0:
                moves[ply, MOVE_KILLER] = card + 1
            result = answer
            rel = moves[CTX_ROW, CTX_REL]
            if STATS:
                moves[CTX_ROW, CTX_CUTS + (i > 0) + 2 * (pos == 0)] += 1
            break
        rel |= moves[CTX_ROW, CTX_REL]
        if moves[ply, MOVE_FLOOR + card_suit] < 0:
            relied = rel & suit_cards_nb(card_suit)
            low = lowest_card(relied) if relied != 0 else 64
            if card < low:
                moves[ply, MOVE_FLOOR + card_suit] = low
    if STATS:
        moves[CTX_ROW, CTX_EXPANDED + (pos == 0)] += 1
    if pos == 0:
        if rules.first_leader == FIRST_LEADER_TWO_OF_CLUBS and tidx == 0:
            rel |= 1  # the forced opening lead: the two of clubs' owner matters
        if result:
            lower = target
        else:
            upper = target - 1
        mask_low, mask_high, every_suit = relied_masks_nb(rel, union)
        key = side_key
        index = plain_index
        if nil_seat >= 0 and every_suit:
            key = fine_key
            index = head_index_nb(length_key, key)
        store_nb(tt, moves, index, length_key, key, moves[ply, MOVE_CODE_LOW] & mask_low,
                 moves[ply, MOVE_CODE_HIGH] & mask_high, mask_low, mask_high, lower, upper)
    moves[CTX_ROW, CTX_REL] = rel
    return result
