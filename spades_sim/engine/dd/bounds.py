"""Bounds that answer a question without a search: quick tricks and sure trump tricks.

Each bound that answers also writes the cards whose ranks it relied on to the context slot
``CTX_REL`` (the table stores its answer for every position that agrees on those cards'
owners, ``table.py``). After DDS's quick tricks and later tricks, adapted to Spades: the trump
suit is always the spades (with the jokers on top), and the spade-lead rules can forbid a
trump lead.

- **Quick tricks** (``quick_tricks_nb``), at a trick boundary: the leader's run of top trumps
  (when trumps may be led) and, in each side suit, its run of top cards for as many rounds as
  every opponent holding trumps can follow.
- **Sure trump tricks** (``sure_later_nb``): top trumps split between partners take as many
  tricks as the run holds, up to the longest trump holding among the seats that hold its
  cards, whoever leads. A guarded second-best trump right behind the top one
  (``guarded_second_nb``) and the second and third best on the side without the top one
  (``second_third_nb``) each take a trick.

The search (``search.py``) combines them, and adds two bounds of the current trick: DDS's
second-hand quick trick at every position, and a nil bidder caught by its own winning card.
"""

from __future__ import annotations

from numba import njit

from ..bits import TRUMP_MASK, highest_card, popcount, wrap_seat_nb
from ..trick import lead_mask_nb
from .holdings import (
    longest_other_nb,
    suit_cards_nb,
    top_cards_nb,
    top_run_nb,
)
from .layout import CTX_MAX, CTX_REL, CTX_ROW, HANDS_ROW


@njit(cache=True, inline="always")
def side_run_nb(moves, players, side_mask, union):
    """A side's run of top trumps: the live trumps above every opponent's."""
    side_cards = 0
    for seat in range(players):
        if (side_mask >> seat) & 1:
            side_cards |= moves[HANDS_ROW, seat]
    live = union & TRUMP_MASK
    run = 0
    while live != 0:
        top = highest_card(live)
        if ((side_cards >> top) & 1) == 0:
            break
        run |= 1 << top
        live ^= 1 << top
    return run


@njit(cache=True, inline="always")
def run_tricks_nb(moves, players, side_mask, run):
    """Tricks a side takes with the top trumps ``run``, whoever leads: each wins the trick it
    is played to, and the side can play them to different tricks, as many as the longest
    trump holding among the seats that hold them (a seat plays at most one trump a trick,
    and a seat with small trumps keeps its top ones apart from its partner's)."""
    longest = 0
    for seat in range(players):
        held = moves[HANDS_ROW, seat]
        if (side_mask >> seat) & 1 and (held & run) != 0:
            longest = max(longest, popcount(held & TRUMP_MASK))
    return min(popcount(run), longest)


@njit(cache=True, inline="always")
def sure_later_nb(moves, players, side_mask, union):
    """Tricks a side takes whoever leads, with its run of top trumps (``run_tricks_nb``). (A
    top card of another suit can be thrown on a trick of a third suit, so it counts only for
    the leader: see the quick tricks.)"""
    return run_tricks_nb(moves, players, side_mask, side_run_nb(moves, players, side_mask, union))


@njit(cache=True, inline="always")
def side_trumps_rel_nb(moves, players, side_mask, union, needed):
    """The top trumps ``sure_later_nb`` relies on for ``needed`` tricks: the side's run of
    top trumps from the top down to where the bound reaches ``needed``."""
    run = side_run_nb(moves, players, side_mask, union)
    cards = 0
    while run != 0:
        top = highest_card(run)
        cards |= 1 << top
        run ^= 1 << top
        if run_tricks_nb(moves, players, side_mask, cards) >= needed:
            return cards
    return cards


@njit(cache=True, inline="always")
def guarded_second_nb(moves, players, union, leader):
    """The top two live trumps when the second best is guarded (its owner holds another
    trump), its owner plays right after the top trump's owner and on the other side, and
    does not have to lead a trump now (0 otherwise), and whether that owner is on the
    maximising side: that side takes a trick with it.

    Until that side wins a trick, the other side leads, so the top trump's owner plays before
    the second's in every trick: the second's owner plays low under the top trump, and wins
    with the second when a trump is played before the top one. A second's owner who led a
    small trump with nothing else left could see it taken cheaply and the second caught by
    the top trump next, hence the lead condition."""
    live = union & TRUMP_MASK
    if popcount(live) < 2:
        return 0, False
    top = highest_card(live)
    second = highest_card(live ^ (1 << top))
    owner = -1
    for seat in range(players):
        if (moves[HANDS_ROW, seat] >> second) & 1:
            owner = seat
    if owner < 0:
        return 0, False
    if owner == leader and (moves[HANDS_ROW, owner] & ~TRUMP_MASK) == 0:
        return 0, False
    before = wrap_seat_nb(owner + players - 1, players)
    if ((moves[HANDS_ROW, before] >> top) & 1) == 0:
        return 0, False
    if popcount(moves[HANDS_ROW, owner] & TRUMP_MASK) < 2:
        return 0, False
    max_mask = moves[CTX_ROW, CTX_MAX]
    owner_max = ((max_mask >> owner) & 1) == 1
    if (((max_mask >> before) & 1) == 1) == owner_max:
        return 0, False
    return (1 << top) | (1 << second), owner_max


@njit(cache=True, inline="always")
def second_third_nb(moves, players, union):
    """The top three live trumps when the second and third best are on one side and the top
    one on the other, and the second's owner holds another trump (0 otherwise), and whether
    the pair's side is the maximising one: that side takes a trick with them.

    The top trump falls on one trick and can take only one of the pair there: the second's
    owner always has another card to play instead (it may only be forced to play the second
    when that is its last trump, after a trump trick without the top one, which the pair's
    side wins if it played either card of the pair to it). Once the top trump is gone, the
    remaining card of the pair is the best trump and wins the trick it is played to."""
    live = union & TRUMP_MASK
    if popcount(live) < 3:
        return 0, False
    top = highest_card(live)
    rest = live ^ (1 << top)
    second = highest_card(rest)
    third = highest_card(rest ^ (1 << second))
    max_mask = moves[CTX_ROW, CTX_MAX]
    side_top = -1
    side_second = -1
    side_third = -1
    second_trumps = 0
    for seat in range(players):
        held = moves[HANDS_ROW, seat]
        side = (max_mask >> seat) & 1
        if (held >> top) & 1:
            side_top = side
        if (held >> second) & 1:
            side_second = side
            second_trumps = popcount(held & TRUMP_MASK)
        if (held >> third) & 1:
            side_third = side
    if side_top < 0 or side_second < 0 or side_third != side_second \
            or side_top == side_second or second_trumps < 2:
        return 0, False
    return (1 << top) | (1 << second) | (1 << third), side_second == 1


@njit(cache=True, inline="always")
def quick_tricks_nb(rules, moves, leader, max_mask, broken, tidx, union, needed):
    """Quick tricks: tricks the leader's side takes by cashing the leader's top cards, the
    run of top trumps first (when trumps may be led), then in each side suit the run of top
    cards for as many rounds as every opponent still holding trumps can follow (one who
    cannot would ruff and take the lead). Length winners count too: all of a suit's cards
    when no other hand holds more of it than the leader's top run (in a side suit, once no
    opponent holds a trump), and the trumps drawn by the run leave the opponents who held no
    more of them without trumps. The partner never has to ruff a winner while it holds as
    many non-trumps as the side-suit tricks cashed; otherwise only trumps count."""
    players = rules.players
    lead_hand = moves[HANDS_ROW, leader]
    leader_max = (max_mask >> leader) & 1
    sure = 0
    rel = 0
    drawn = 0  # rounds of trumps cashed: a seat with no more trumps than that has none left
    if lead_mask_nb(rules, lead_hand, broken, tidx) & TRUMP_MASK:
        live_trumps = union & TRUMP_MASK
        top_trumps = top_run_nb(lead_hand & TRUMP_MASK, live_trumps)
        sure = top_trumps
        drawn = top_trumps
        # Length: when no other hand holds more trumps than the run, all of the leader's
        # trumps are winners (and the others have none left).
        if top_trumps > 0 and longest_other_nb(moves, players, leader, TRUMP_MASK) <= top_trumps:
            sure = popcount(lead_hand & TRUMP_MASK)
            drawn = 16
        rel = top_cards_nb(live_trumps, min(needed, top_trumps))
        if sure >= needed:
            moves[CTX_ROW, CTX_REL] = rel
            return needed
    trumpless = True  # no opponent holds a trump once the trumps are drawn
    for other in range(players):
        if ((max_mask >> other) & 1) != leader_max and \
                popcount(moves[HANDS_ROW, other] & TRUMP_MASK) > drawn:
            trumpless = False
    side = 0
    side_rel = 0
    for suit in range(3):
        if sure + side >= needed:
            break
        suit_cards = suit_cards_nb(suit)
        live = union & suit_cards
        top = top_run_nb(lead_hand & suit_cards, live)
        if top == 0:
            continue
        run = top
        if trumpless:
            if longest_other_nb(moves, players, leader, suit_cards) <= top:
                run = popcount(lead_hand & suit_cards)
        else:
            for other in range(players):
                if other == leader or ((max_mask >> other) & 1) == leader_max:
                    continue
                held = moves[HANDS_ROW, other]
                if popcount(held & TRUMP_MASK) > drawn:
                    length = popcount(held & suit_cards)
                    if length < run:
                        run = length
        run = min(run, needed - sure - side)
        side += run
        side_rel |= top_cards_nb(live, min(run, top))
    if side > 0:
        for other in range(players):
            if other != leader and ((max_mask >> other) & 1) == leader_max:
                held = moves[HANDS_ROW, other]
                if popcount(held & TRUMP_MASK) > drawn and popcount(held & ~TRUMP_MASK) < side:
                    side = 0
                    side_rel = 0
    if sure + side == 0 and needed == 1:
        # One trick: a lead to the partner's top card of a suit no opponent can ruff.
        leads = lead_mask_nb(rules, lead_hand, broken, tidx)
        for suit in range(4):
            suit_cards = suit_cards_nb(suit)
            if (leads & suit_cards) == 0:
                continue
            top = highest_card(union & suit_cards)
            owner = leader
            for other in range(players):
                if (moves[HANDS_ROW, other] >> top) & 1:
                    owner = other
            if owner == leader or ((max_mask >> owner) & 1) != leader_max:
                continue
            safe = True
            if suit != 3:
                for other in range(players):
                    held = moves[HANDS_ROW, other]
                    if ((max_mask >> other) & 1) != leader_max and (held & suit_cards) == 0 \
                            and (held & TRUMP_MASK) != 0:
                        safe = False
            if safe:
                moves[CTX_ROW, CTX_REL] = 1 << top
                return 1
    moves[CTX_ROW, CTX_REL] = rel | side_rel
    return sure + side

