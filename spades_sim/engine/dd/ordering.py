"""Move generation and ordering: the candidate cards of a node, best first.

One card of each run of equivalent cards is a candidate: two cards of one hand and one suit
with no card of another hand (or of the trick on the table) between them win and lose the same
tricks. The candidates are then scored and sorted, so that the card most likely to cut off
comes first (after DDS's move ordering):

- **Leads** cost the size of the tree below them: every card the opponents hold in the suit,
  and a void opponent (free to discard any card or to ruff) most of all, the more so the more
  tricks are left; that rule cuts the tree most. Sure winners and leads to the partner's top
  card come first, then leads of suits the partner ruffs (suits an opponent ruffs last). Small
  leads go through the second hand's top card to the partner's second best, not into the
  fourth hand's top cards, and drive out a top card when the side holds the next two. The
  lead that last cut off at the same ply goes earlier (DDS's best move).
- **Followers** win as cheaply as possible when the other side is winning, and play low when
  their own side is winning and no later opponent can beat it, or when a later partner holds
  the led suit's top card (and no later opponent can ruff).
- **In a nil search** the bidder plays its highest card that does not win, and the setting
  side leads the bidder's long suits first, above all those the bidder's partner is void in.

The weights were tuned on node counts of the benchmark's deals (``benchmarks/README.md``).
"""

from __future__ import annotations

from numba import njit

from ..bits import TRUMP_MASK, highest_card, popcount, wrap_seat_nb
from ..trick import card_strength_nb
from .holdings import best_strength_nb, between_nb, suit_cards_nb
from .layout import (
    CTX_MAX,
    CTX_ROW,
    HANDS_ROW,
    MOVE_CARDS,
    MOVE_COUNT,
    MOVE_KILLER,
    MOVE_SCORES,
    MOVE_SKIPPED,
)

# Leads: a suit costs this much a card the opponents hold in it, and a void opponent (who
# discards or ruffs: the widest replies) LEAD_VOID_BASE and LEAD_VOID_PER_TRICK a card in the
# leader's hand (212 with 13 tricks left, 100 with 5: a void weighs more the more cards it can
# throw).
LEAD_LENGTH_COST = 10
LEAD_VOID_BASE = 30
LEAD_VOID_PER_TRICK = 14
# The lead that last cut off at the same ply gets this much more (DDS's best move; at the
# followers' plies such a bonus made the tree larger).
LEAD_KILLER = 70
# A singleton led to the partner's top card, for a ruff on the return.
LEAD_RUFF_RETURN = 45
# In a nil search, the setting side's leads: this much a card the bidder holds in the suit,
# and this much more when the bidder's partner is void in it.
NIL_LEAD_BIDDER_CARD = 20
NIL_LEAD_UNCOVERED = 30


@njit(cache=True, inline="always")
def gen_moves_nb(rules, moves, ply, seat, pos, legal, led_mask, win_strength, win_seat,
                 on_table, maximizing, nil_seat, union):
    """Fill row ``ply`` of ``moves``: one card of each run of equivalent ``legal`` cards of
    ``seat``, best first (``MOVE_CARDS``, ``MOVE_SCORES``, ``MOVE_COUNT``; the cards left out
    as equivalent in ``MOVE_SKIPPED``); ``union`` is every card still held."""
    hand = moves[HANDS_ROW, seat]
    blockers = (union & ~hand) | on_table
    # The candidates first: one card of each run of equivalent legal cards, by suit and from
    # the highest down. A single one (a forced play, often) needs no scores.
    count = 0
    skipped = 0
    for suit in range(4):
        cards = legal & suit_cards_nb(suit)
        previous = -1
        while cards != 0:
            card = highest_card(cards)
            cards ^= 1 << card
            if previous >= 0 and (blockers & between_nb(card, previous)) == 0:
                skipped |= 1 << card
            else:
                moves[ply, MOVE_CARDS + count] = card
                count += 1
            previous = card
    moves[ply, MOVE_COUNT] = count
    moves[ply, MOVE_SKIPPED] = skipped
    if count <= 1:
        return True
    players = rules.players
    max_mask = moves[CTX_ROW, CTX_MAX]
    side_mask = max_mask if maximizing else ((1 << players) - 1) & ~max_mask
    partners = 0
    for other in range(players):
        if other != seat and (side_mask >> other) & 1:
            partners |= moves[HANDS_ROW, other]
    # Opponents who play after this seat in this trick (for followers' "sure winner" test).
    later = 0
    for step in range(pos + 1, players):
        other = wrap_seat_nb(seat + step - pos, players)
        if ((side_mask >> other) & 1) == 0:
            later |= moves[HANDS_ROW, other]
    own_winning = pos > 0 and ((side_mask >> win_seat) & 1) == 1
    # The side's winning card may still be beaten by an opponent who plays later: then
    # this seat tries to win over every later card, else it plays low.
    exposed = False
    if own_winning:
        for step in range(pos + 1, players):
            other = wrap_seat_nb(seat + step - pos, players)
            if ((side_mask >> other) & 1) == 0 and \
                    best_strength_nb(moves[HANDS_ROW, other], led_mask) > win_strength:
                exposed = True
    last = pos == players - 1
    # A later partner holds the top card of the led suit and no later opponent can ruff (or
    # the top trump, on a trump lead): the trick is the side's, so this seat plays low.
    covered = False
    if pos > 0 and not own_winning and not last:
        led_live = union & led_mask
        if led_live != 0:
            top = highest_card(led_live)
            for step in range(pos + 1, players):
                other = wrap_seat_nb(seat + step - pos, players)
                if ((side_mask >> other) & 1) and (moves[HANDS_ROW, other] >> top) & 1:
                    covered = top > (win_strength & 63)
            if covered and (led_mask & TRUMP_MASK) == 0:
                for step in range(pos + 1, players):
                    other = wrap_seat_nb(seat + step - pos, players)
                    if ((side_mask >> other) & 1) == 0:
                        held = moves[HANDS_ROW, other]
                        if (held & led_mask) == 0 and (held & TRUMP_MASK) != 0:
                            covered = False
    last_suit = -1
    suit_live = 0
    top_live = 0
    suit_cost = 0
    for i in range(count):
        card = moves[ply, MOVE_CARDS + i]
        suit = 3 if card >= 39 else card // 13
        if suit != last_suit:
            last_suit = suit
            suit_live = union & suit_cards_nb(suit)
            top_live = highest_card(suit_live)
            # A lead's cost for the size of the tree below it: every card the opponents may
            # reply with, a void opponent (free to discard or ruff) most of all.
            suit_cost = 0
            if pos == 0:
                for other in range(players):
                    if other != seat and ((side_mask >> other) & 1) == 0:
                        length = popcount(moves[HANDS_ROW, other] & suit_cards_nb(suit))
                        suit_cost += LEAD_LENGTH_COST * length if length > 0 \
                            else LEAD_VOID_BASE + LEAD_VOID_PER_TRICK * popcount(hand)
        rank = card - 13 * suit
        if nil_seat >= 0:
            if pos == 0:
                wins = False
            else:
                wins = card_strength_nb(card, led_mask) > win_strength
            if seat == nil_seat:
                score = rank - (40 if wins else 0) if pos > 0 else -rank
            elif maximizing:
                score = rank
            else:
                score = -rank
                if pos == 0:
                    # The setting side leads the bidder's long suits, above all those its
                    # partner cannot cover (void).
                    bidder_cards = popcount(moves[HANDS_ROW, nil_seat] & suit_cards_nb(suit))
                    if bidder_cards > 0:
                        score += NIL_LEAD_BIDDER_CARD * bidder_cards
                        if players == 4 and (moves[HANDS_ROW, wrap_seat_nb(nil_seat + 2, 4)]
                                             & suit_cards_nb(suit)) == 0:
                            score += NIL_LEAD_UNCOVERED
        elif pos == 0:
            if card == top_live:
                # A sure winner (a suit an opponent ruffs costs its void above).
                score = 100
            elif (partners >> top_live) & 1:
                score = 60 - rank
                # A singleton to the partner's top card, with trumps left to ruff the
                # return.
                if popcount(hand & suit_cards_nb(suit)) == 1 and suit != 3 \
                        and (hand & TRUMP_MASK) != 0:
                    score += LEAD_RUFF_RETURN
            else:
                score = 20 - rank
                # The live cards below the top: the second and third best (-1: none).
                below = suit_live ^ (1 << top_live)
                second_best = highest_card(below) if below != 0 else -1
                below ^= (1 << second_best) if below != 0 else 0
                third_best = highest_card(below) if below != 0 else -1
                # The side holds the second and third best: a low lead drives out the top.
                side_cards = partners | hand
                if third_best >= 0 and (side_cards >> second_best) & 1 \
                        and (side_cards >> third_best) & 1:
                    score += 15
                # Through the second hand's top card to the partner's second best; not
                # into the fourth hand's top cards.
                if players == 4:
                    held2 = moves[HANDS_ROW, wrap_seat_nb(seat + 1, players)]
                    held4 = moves[HANDS_ROW, wrap_seat_nb(seat + 3, players)]
                    if (held4 >> top_live) & 1 or \
                            (second_best >= 0 and (held4 >> second_best) & 1):
                        score -= 12
                    elif (held2 >> top_live) & 1 and second_best >= 0 \
                            and (partners >> second_best) & 1:
                        score += 27
                if suit == 3:
                    score -= 8
                else:
                    # A suit the partner ruffs (void, with trumps) and the opponents
                    # follow; a suit an opponent ruffs is worse.
                    for other in range(players):
                        if other != seat:
                            held = moves[HANDS_ROW, other]
                            if (held & suit_cards_nb(suit)) == 0 and (held & TRUMP_MASK) != 0:
                                score += 25 if (side_mask >> other) & 1 else -12
        else:
            wins = card_strength_nb(card, led_mask) > win_strength
            if (own_winning and not exposed) or covered:
                score = -rank - (40 if wins else 0)
                if card >= 39 and (led_mask & TRUMP_MASK) == 0:
                    score -= 20
            elif wins:
                if last:
                    score = 100 - rank
                else:
                    if card >= 39:
                        beaten = (later & TRUMP_MASK) >> (card + 1) != 0
                    else:
                        beaten = ((later & suit_cards_nb(suit)) >> (card + 1)) != 0
                        if not beaten:
                            # A later opponent void in the suit with trumps can ruff.
                            for step in range(pos + 1, players):
                                other = wrap_seat_nb(seat + step - pos, players)
                                if ((side_mask >> other) & 1) == 0:
                                    held = moves[HANDS_ROW, other]
                                    if (held & suit_cards_nb(suit)) == 0 and \
                                            (held & TRUMP_MASK) != 0:
                                        beaten = True
                    score = (90 if not beaten else 60) - rank
                    if own_winning and beaten:
                        score = -rank - 40
            else:
                score = -rank
                if card >= 39:
                    score -= 20
        score -= suit_cost
        if pos == 0 and nil_seat < 0 and card == moves[ply, MOVE_KILLER] - 1:
            # The lead that last cut off at this ply (DDS's best move).
            score += LEAD_KILLER
        moves[ply, MOVE_SCORES + i] = score
    # Best first, by a stable insertion sort: equal scores keep the candidates' order.
    for i in range(1, count):
        card = moves[ply, MOVE_CARDS + i]
        score = moves[ply, MOVE_SCORES + i]
        at = i
        while at > 0 and moves[ply, MOVE_SCORES + at - 1] < score:
            moves[ply, MOVE_CARDS + at] = moves[ply, MOVE_CARDS + at - 1]
            moves[ply, MOVE_SCORES + at] = moves[ply, MOVE_SCORES + at - 1]
            at -= 1
        moves[ply, MOVE_CARDS + at] = card
        moves[ply, MOVE_SCORES + at] = score
    moves[ply, MOVE_COUNT] = count
    moves[ply, MOVE_SKIPPED] = skipped
    return True

