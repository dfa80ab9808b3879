"""Exact double-dummy solver for Spades: every hand seen, every seat playing perfectly.

The search
----------
``_search_nb`` answers one yes/no question ("can the maximising side take at least ``target``
of the remaining tricks?") by alpha-beta over single cards, the whole null window at once; the
drivers (``_value_nb``) ask a short sequence of such questions, starting from a guess, to find
the exact count (MTD-f style). What makes it fast:

- **Equivalent cards**: two cards of one hand and one suit with no card of another hand (or of
  the trick on the table) between them win and lose the same tricks; one of each run is tried.
- **One small card a suit** (the lowest-winning-rank rule of DDS): once a card of a suit has
  failed and lies below every card of that suit the answers so far relied on, the seat's
  other cards of the suit below those are not tried either: they would give the same answer.
- **Transposition table** at trick boundaries only, partition-search style: the bucket is the
  suit lengths of every hand, the leader, the broken flag (where the rules read it) and the
  maximising side; an entry records, per suit, the owners of the top live cards down to the
  lowest card whose rank the answer relied on (a trick won by rank over a card of its suit,
  with the winner's equivalent cards, and the cards a quick-trick bound used), and a lower and
  an upper bound on the maximising side's remaining tricks. It holds for every position that
  agrees on those top cards and the lengths. Each bucket is a chain of blocks of ``BLOCK``
  entries in consecutive rows of a preallocated pool (owners packed from the top of a 32-bit
  field a suit, so an entry is checked with two masked compares). Many positions share a
  bucket (a bucket's chain holds some 30 entries on average), so the walk must not chase one
  pointer per entry: the entries of a block are read without waiting on each other. The
  bucket's head is
  fetched into the cache (``unsafe.py``) as soon as its keys are known, before the quick
  bounds run, and each next block of a chain while the one before it is walked. A store adds
  its entry without looking for the same class in the chain (rarely there, and a whole walk to
  find). A stamp empties the table in O(1) between deals, and it stays when the next deal is
  the same one (another leader). A hit swaps places with the newest entry of its chain (the
  first one walked), since it is likely to answer again soon.
- **Quick tricks** before a trick-boundary search: the leader's run of top trumps (when trumps
  may be led) and, in each side suit, its run of top cards for as many rounds as every
  opponent holding trumps can follow; and each side's sure trump tricks (its run of top
  trumps, counted in one hand). They answer many questions without a search.
- **Move ordering**: sure winners and leads to partner's top cards first, then leads of
  suits the partner ruffs (suits an opponent ruffs last); followers win as cheaply as
  possible when the other side is winning, and play low when their own side is winning and
  no later opponent can beat it, or when a later partner holds the led suit's top card (and
  no later opponent can ruff). Small leads go through the second hand's top card to the
  partner's second best, not into the fourth hand's top cards, and drive out a top card when
  the side holds the next two (after DDS's move ordering). Above all, a lead costs the size
  of the tree below it: every card the opponents hold in its suit, and a void opponent (free
  to discard any card or to ruff) as much as 3 cards and 1.4 a trick left (21 with 13 tricks
  left, 10 with 5); that one rule cuts the tree most. And the lead that last cut off at the
  same ply goes earlier (DDS's best move).

- **Quick tricks in the middle of a trick** (DDS's second-hand quick trick, at every
  position): a side that needs only the current trick, or the current trick and its sure
  trump tricks after it (when its seats still to play all follow a side suit), and holds in
  a seat still to play a card no opponent still to play can beat (or is already winning with
  such a card), has its answer without a search.
- **Sure trump tricks** count top trumps split between partners: as many tricks as the run
  holds, up to the longest trump holding among the seats that hold its cards. And a guarded
  second-best trump (its owner holds another trump) right behind the top one takes a trick for
  its side, unless its owner is on lead with nothing but trumps (``_guarded_second_nb``).
  So do the second and third best trumps on the side without the top one, when the second's
  owner holds another trump, wherever they sit (``_second_third_nb``: the top trump takes one
  of them at most). And a side on lead that needs one trick takes it by leading to the
  partner's top card of a suit no opponent can ruff (after DDS's later tricks and quick
  tricks).
- **The first guess** (the first question's target) for partnerships is a linear fit on
  solved deals (``benchmarks/dd_guess_fit.py``), rounded up by about a trick, since a guess
  one above the answer costs no more questions than the answer itself.

The search calls itself with the transposition table and the moves array at every node: as
their addresses (``unsafe.py``'s ``address_nb``; it makes its own views with ``view_nb``), one
integer an array a call, so numba neither counts references nor copies the arrays' nine fields
a call. The move generator lists the candidate cards before it scores them, and a single
candidate (a forced play, often) is not scored.

How fast it is against DDS, and the ideas measured and dropped, are in ``benchmarks/`` (the
README and RESULTS.md).

Rules: the standard and jokers decks (trumps are the spades and jokers, bits 39..53), every
``spades_lead`` mode with ``broken_by_forced_lead`` (the position carries the broken flag),
the two-of-clubs opening at trick 0, 2, 3 or 4 players. With 4 players in partnership the
maximising side is a team; otherwise one seat plays against all the others.

Nil safety (``_search_nb`` with a nil seat in the context) is the same search with another end:
the nil side (the bidder, and its partner in partnership games) fails as soon as the bidder
wins a trick and succeeds when the hand ends first. It fails at once when the bidder holds the
top trump, or when the bidder's card is winning a trick that no partner still to play can
beat and every opponent still to play can play under. The setting side leads the bidder's
long suits first, above all those the bidder's partner is void in. Its table keeps far more
entries a bucket than a trick search, so an entry that relies on the top card of every suit
still held goes to a second bucket keyed on those cards' owners too.

Every compiled entry point has an explicit signature, so one compiled solver serves every rule
variant (rules are the :class:`~spades_sim.core.rules.KernelRules` tuple, as in the rest of
the engine). The helpers of a node are inlined into ``_search_nb``, and the recursion passes
only the five rule fields the search reads (:data:`SearchRules`): a call that is not inlined
copies its tuple arguments, and the whole rules tuple copied at every node was costly.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, types

from ..core.cards import SUITS, parse_card
from ..core.errors import SpadesError
from ..core.rules import KernelRules, Rules
from ..core.tricks import breaks_spades, legal_cards, trick_winner
from .bits import (
    TRUMP_MASK,
    highest_card,
    lowest_card,
    pdep_nb,
    pext_nb,
    popcount,
    wrap_seat_nb,
)
from .layout import (
    FIRST_LEADER_TWO_OF_CLUBS,
    SPADES_LEAD_BROKEN,
)
from .toolchain import SOLVER_COMPILE, announce_compile
from .trick import card_strength_nb, follow_mask_nb, lead_mask_nb, suit_mask_of_card_nb
from .unsafe import address_nb, prefetch_nb, view_nb

announce_compile(*SOLVER_COMPILE)  # (the kernels below have signatures: they compile now)

_I64, _BOOL = types.int64, types.boolean
_RULES = types.NamedUniTuple(types.int64, len(KernelRules._fields), KernelRules)
#: The rules as the search reads them: the few fields it needs, so that each recursive call
#: copies five integers rather than the whole rules tuple.
SearchRules = namedtuple("SearchRules", ["players", "hand_size", "spades_lead",
                                         "broken_by_forced_lead", "first_leader"])
_SEARCH_RULES = types.NamedUniTuple(types.int64, len(SearchRules._fields), SearchRules)
_ARR = types.int64[::1]
_ARR2 = types.int64[:, ::1]

# Context slots: row CTX_ROW of the moves array, shared by the whole search (Python sees it as
# the view ``ctx``).
CTX_STAMP = 0  # the current deal's stamp in the transposition table
CTX_MAX = 1  # bit per seat: the maximising side (the nil side in a nil search)
CTX_NIL = 2  # the nil bidder's seat in a nil search, else -1
CTX_NODES = 3  # nodes searched (a counter for benchmarks)
CTX_QUESTIONS = 4  # null-window questions asked (a counter)
CTX_BOUNDARY = 5  # trick-boundary nodes reaching the transposition table (a counter)
CTX_TT_CUT = 6  # trick-boundary nodes the table's bounds answered (a counter)
CTX_QUICK_CUT = 7  # trick-boundary nodes the quick-trick bounds answered (a counter)
#: Whether the search keeps its statistics (the counters above but the node count, the nodes
#: and boundary nodes by trick in slots 20.. and 40.., cut-offs by move in slots 8..13): a
#: compile-time switch for profiling, off because the counting costs time at every node.
STATS = False
CTX_REL = 14  # the cards whose ranks the last answer relied on (the search's second result)
CTX_POOL = 15  # the next free entry of the transposition table's pool
CTX_TT_ROWS = 16  # the transposition table's rows (the search makes its view of the table)
CTX_SIZE = 60  # the last slot holds a run-time zero

HEAD_BITS = 20  # buckets of the transposition table (heads of block chains, 8 a row)
HEAD_ROWS = (1 << HEAD_BITS) // 8
POOL_BITS = 21  # entries of eight int64: 128 MiB
TT_COLS = 8
# Entries of a bucket's block, in consecutive rows; the first row's last column holds the
# entries used and the previous block of the chain (+1, 0 for none) above 8 bits.
BLOCK = 8
MOVE_ROWS = 72  # one row per ply: at most 17 tricks of 4 cards
# Up to 20 candidate cards, their scores, suit codes and counts, the last lead that cut off
# (KILLER_COL, the card + 1, 0 for none), small-card floors; and below
# the ply rows, the context (CTX_SIZE slots) and the four holdings. One array holds all three
# because each array a recursive call passes costs two atomic reference-count updates.
MOVE_COLS = 64
KILLER_COL = 42
CTX_ROW = MOVE_ROWS
HANDS_ROW = MOVE_ROWS + 1
_NON_TRUMP = (1 << 39) - 1
# Leads: a suit costs this much a card the opponents hold in it, and a void opponent (who
# discards or ruffs: the widest replies) 30 and 14 a trick left (212 with 13 tricks left,
# 100 with 5: a void weighs more the more cards it can throw).
LEAD_LENGTH_COST = 10
LEAD_VOID_BASE = 30
LEAD_VOID_PER_TRICK = 14
# The lead that last cut off at the same ply gets this much more (DDS's best move; at the
# followers' plies such a bonus gives 1.4-1.8 times the nodes).
LEAD_KILLER = 70
# A singleton led to the partner's top card, for a ruff on the return.
LEAD_RUFF_RETURN = 45
# In a nil search, the setting side's leads: this much a card the bidder holds in the suit,
# and this much more when the bidder's partner is void in it (one nil question of a par run
# went from 350 s to 57 s; 200 others took as long as before).
NIL_LEAD_BIDDER_CARD = 20
NIL_LEAD_UNCOVERED = 30
_EVEN_BITS = 0x1555555555555555  # bits 0, 2, .., 60: room for 2-bit owners of 30 cards


@njit(cache=True, inline="always")
def _suit_mask(suit):
    """All the cards of suit 0..3; the trump suit includes both jokers."""
    return (0x7FFF if suit == 3 else 0x1FFF) << (13 * suit)


@njit(cache=True, inline="always")
def _between(low, high):
    """Bits strictly between card ``low`` and card ``high`` (``low < high``)."""
    return ((1 << high) - 1) & ~((2 << low) - 1)


@njit(cache=True, inline="always")
def _union_nb(moves):
    """Every card still held (the holdings are row ``HANDS_ROW`` of ``moves``)."""
    return moves[HANDS_ROW, 0] | moves[HANDS_ROW, 1] | moves[HANDS_ROW, 2] | moves[HANDS_ROW, 3]


@njit(cache=True, inline="always")
def _top_run(mine, live):
    """How many of the highest cards of ``live`` belong to ``mine``, counted from the top."""
    count = 0
    while live != 0:
        top = highest_card(live)
        if ((mine >> top) & 1) == 0:
            break
        count += 1
        live ^= 1 << top
    return count


@njit(cache=True, inline="always")
def _top_cards(live, count):
    """The ``count`` highest cards of ``live``."""
    cards = 0
    for _ in range(count):
        top = highest_card(live)
        cards |= 1 << top
        live ^= 1 << top
    return cards


@njit(cache=True, inline="always")
def _side_run(moves, players, side_mask, union):
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
def _run_tricks(moves, players, side_mask, run):
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
def _sure_later_nb(moves, players, side_mask, union):
    """Tricks a side takes whoever leads, with its run of top trumps (``_run_tricks``). (A top
    card of another suit can be thrown on a trick of a third suit, so it counts only for the
    leader: see the quick tricks.)"""
    return _run_tricks(moves, players, side_mask, _side_run(moves, players, side_mask, union))


@njit(cache=True, inline="always")
def _guarded_second_nb(moves, players, union, leader):
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
def _second_third_nb(moves, players, union):
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
def _side_trumps_rel(moves, players, side_mask, union, needed):
    """The top trumps ``_sure_later_nb`` relies on for ``needed`` tricks: the side's run of
    top trumps from the top down to where the bound reaches ``needed``."""
    run = _side_run(moves, players, side_mask, union)
    cards = 0
    while run != 0:
        top = highest_card(run)
        cards |= 1 << top
        run ^= 1 << top
        if _run_tricks(moves, players, side_mask, cards) >= needed:
            return cards
    return cards


@njit(cache=True, inline="always")
def _winner_rel(moves, card, owner, on_table):
    """A card that wins a trick by rank, with the cards of its owner's hand equivalent to
    it: their owners matter to an answer that relies on its rank (a lower one of them would
    have won too, and was not tried)."""
    owner_hand = moves[HANDS_ROW, owner]
    below = ((1 << card) - 1) & _suit_mask(3 if card >= 39 else card // 13)
    floor = ((_union_nb(moves) & ~owner_hand) | on_table) & below
    if floor != 0:
        below &= ~((2 << highest_card(floor)) - 1)
    return (1 << card) | (owner_hand & below)


@njit(cache=True, inline="always")
def _best_strength(held, led_mask):
    """The strongest card (``card_strength_nb``) a seat holding ``held`` may play to a
    trick of the led suit ``led_mask``; 0 when it can only discard."""
    legal = follow_mask_nb(held, led_mask)
    if legal & TRUMP_MASK:
        return highest_card(legal & TRUMP_MASK) + 128
    if legal & led_mask:
        return highest_card(legal & led_mask) + 64
    return 0


@njit(cache=True, inline="always")
def _least_strength(held, led_mask):
    """The weakest card (``card_strength_nb``) a seat holding ``held`` may play to a trick
    of the led suit ``led_mask``: 0 when it may discard a card of a third suit."""
    legal = follow_mask_nb(held, led_mask)
    if legal & led_mask:
        return lowest_card(legal & led_mask) + (128 if (led_mask & TRUMP_MASK) else 64)
    if (legal & ~TRUMP_MASK) != 0:
        return 0
    return lowest_card(legal) + 128


@njit(cache=True, inline="always")
def _longest_other(moves, players, seat, cards):
    """The most of ``cards`` that one seat other than ``seat`` holds."""
    longest = 0
    for other in range(players):
        if other != seat:
            longest = max(longest, popcount(moves[HANDS_ROW, other] & cards))
    return longest


@njit(cache=True, inline="always")
def _quick_nb(rules, moves, leader, max_mask, broken, tidx, union, needed):
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
        top_trumps = _top_run(lead_hand & TRUMP_MASK, live_trumps)
        sure = top_trumps
        drawn = top_trumps
        # Length: when no other hand holds more trumps than the run, all of the leader's
        # trumps are winners (and the others have none left).
        if top_trumps > 0 and _longest_other(moves, players, leader, TRUMP_MASK) <= top_trumps:
            sure = popcount(lead_hand & TRUMP_MASK)
            drawn = 16
        rel = _top_cards(live_trumps, min(needed, top_trumps))
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
        suit_cards = _suit_mask(suit)
        live = union & suit_cards
        top = _top_run(lead_hand & suit_cards, live)
        if top == 0:
            continue
        run = top
        if trumpless:
            if _longest_other(moves, players, leader, suit_cards) <= top:
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
        side_rel |= _top_cards(live, min(run, top))
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
            suit_cards = _suit_mask(suit)
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


@njit(cache=True, inline="always")
def _suit_code_nb(moves, live, suit):
    """The owners of the live cards of a suit from the highest down, two bits each, from the
    top of a 32-bit field (so the top ``d`` cards are the field's top ``2 d`` bits).

    Gathered without a loop: each of seats 1..3 gives a bit a live card (pext, lowest card
    first), spread to the low (seats 1 and 3) and high (seats 2 and 3) bit of each 2-bit owner
    (pdep), then shifted to the top of the field.
    """
    cards = live & _suit_mask(suit)
    b1 = pext_nb(moves[HANDS_ROW, 1], cards)
    b2 = pext_nb(moves[HANDS_ROW, 2], cards)
    b3 = pext_nb(moves[HANDS_ROW, 3], cards)
    spread = pdep_nb(b1 | b3, _EVEN_BITS) | pdep_nb(b2 | b3, _EVEN_BITS << 1)
    return spread << (32 - 2 * popcount(cards))


@njit(cache=True, inline="always")
def _top_field(depth):
    """The top ``2 depth`` bits of a 32-bit field."""
    return ((1 << (2 * depth)) - 1) << (32 - 2 * depth)


@njit(cache=True, inline="always")
def _tt_index(key1, key2, mask):
    mixed = key1 * -7046029254386353131 + key2 * -4417276706812531889
    return (mixed ^ (mixed >> 31)) & mask


@njit(cache=True, inline="always")
def _gen_nb(rules, moves, ply, seat, pos, legal, led_mask, win_strength, win_seat,
            on_table, maximizing, nil_seat, union):
    """Fill ``moves[ply]``: one card of each run of equivalent legal cards, best first (row
    ``ply`` holds the count at column 39, the cards from column 0, their scores from 20);
    ``union`` is every card still held (the search's)."""
    hand = moves[HANDS_ROW, seat]
    blockers = (union & ~hand) | on_table
    # The candidates first: one card of each run of equivalent legal cards, by suit and from
    # the highest down. A single one (a forced play, often) needs no scores.
    count = 0
    skipped = 0
    for suit in range(4):
        cards = legal & _suit_mask(suit)
        previous = -1
        while cards != 0:
            card = highest_card(cards)
            cards ^= 1 << card
            if previous >= 0 and (blockers & _between(card, previous)) == 0:
                skipped |= 1 << card
            else:
                moves[ply, count] = card
                count += 1
            previous = card
    moves[ply, 39] = count
    moves[ply, 38] = skipped
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
                    _best_strength(moves[HANDS_ROW, other], led_mask) > win_strength:
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
        card = moves[ply, i]
        suit = 3 if card >= 39 else card // 13
        if suit != last_suit:
            last_suit = suit
            suit_live = union & _suit_mask(suit)
            top_live = highest_card(suit_live)
            # A lead's cost for the size of the tree below it: every card the opponents may
            # reply with, a void opponent (free to discard or ruff) most of all.
            suit_cost = 0
            if pos == 0:
                for other in range(players):
                    if other != seat and ((side_mask >> other) & 1) == 0:
                        length = popcount(moves[HANDS_ROW, other] & _suit_mask(suit))
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
                    bidder_cards = popcount(moves[HANDS_ROW, nil_seat] & _suit_mask(suit))
                    if bidder_cards > 0:
                        score += NIL_LEAD_BIDDER_CARD * bidder_cards
                        if players == 4 and (moves[HANDS_ROW, wrap_seat_nb(nil_seat + 2, 4)]
                                             & _suit_mask(suit)) == 0:
                            score += NIL_LEAD_UNCOVERED
        elif pos == 0:
            if card == top_live:
                # A sure winner (a suit an opponent ruffs costs its void above).
                score = 100
            elif (partners >> top_live) & 1:
                score = 60 - rank
                # A singleton to the partner's top card, with trumps left to ruff the
                # return.
                if popcount(hand & _suit_mask(suit)) == 1 and suit != 3 \
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
                            if (held & _suit_mask(suit)) == 0 and (held & TRUMP_MASK) != 0:
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
                        beaten = ((later & _suit_mask(suit)) >> (card + 1)) != 0
                        if not beaten:
                            # A later opponent void in the suit with trumps can ruff.
                            for step in range(pos + 1, players):
                                other = wrap_seat_nb(seat + step - pos, players)
                                if ((side_mask >> other) & 1) == 0:
                                    held = moves[HANDS_ROW, other]
                                    if (held & _suit_mask(suit)) == 0 and \
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
        if pos == 0 and nil_seat < 0 and card == moves[ply, KILLER_COL] - 1:
            # The lead that last cut off at this ply (DDS's best move).
            score += LEAD_KILLER
        moves[ply, 20 + i] = score
    # Best first, by a stable insertion sort: equal scores keep the candidates' order.
    for i in range(1, count):
        card = moves[ply, i]
        score = moves[ply, 20 + i]
        at = i
        while at > 0 and moves[ply, 20 + at - 1] < score:
            moves[ply, at] = moves[ply, at - 1]
            moves[ply, 20 + at] = moves[ply, 20 + at - 1]
            at -= 1
        moves[ply, at] = card
        moves[ply, 20 + at] = score
    moves[ply, 39] = count
    moves[ply, 38] = skipped
    return True


@njit(_BOOL(_SEARCH_RULES, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64),
      cache=True)
def _search_nb(rules, tt_address, moves_address, pos, leader, broken, tidx, led_mask,
               win_strength, win_seat, on_table, target):
    """Whether the maximising side (context slot ``CTX_MAX``) can take at least ``target`` of
    the remaining tricks (the current one included), or, in a nil search (slot ``CTX_NIL`` at
    least 0), whether the nil side can keep the bidder from winning any trick.

    ``moves`` holds the ply rows, the context (row ``CTX_ROW``) and the holdings (row
    ``HANDS_ROW``, changed and restored in place); ``pos`` cards of trick
    ``tidx`` are down (``on_table``), led by ``leader``, with the led suit's mask, the winning
    strength (``card_strength_nb``) and seat so far; ``broken`` is whether spades are broken.
    """
    moves = view_nb(moves_address, MOVE_ROWS + 2, MOVE_COLS)
    tt = view_nb(tt_address, moves[CTX_ROW, CTX_TT_ROWS], TT_COLS)
    players = rules.players
    max_mask = moves[CTX_ROW, CTX_MAX]
    nil_seat = moves[CTX_ROW, CTX_NIL]
    moves[CTX_ROW, CTX_NODES] += 1
    if STATS:
        moves[CTX_ROW, 20 + tidx] += 1
    if pos == 0:
        if STATS:
            moves[CTX_ROW, 40 + tidx] += 1
    # Run-time zeros: literal arguments in the recursive calls would make numba type (and
    # mangle) the self-call as another specialisation, which a cached load cannot resolve.
    zero = moves[CTX_ROW, CTX_SIZE - 1]
    none = zero - 1
    lower = 0
    upper = 0
    agg1 = 0
    agg2 = 0
    fine_key = 0
    plain_index = 0
    ply = tidx * players + pos
    union = _union_nb(moves)
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
        # The bucket's keys first, and its head fetched into the cache while the quick bounds
        # run: the head table is large and this read would otherwise wait on memory.
        key_broken = broken if rules.spades_lead == SPADES_LEAD_BROKEN else 0
        for suit in range(4):
            suit_cards = _suit_mask(suit)
            for other in range(players):
                agg1 |= popcount(moves[HANDS_ROW, other] & suit_cards) << (16 * suit + 4 * other)
        agg2 = leader | (key_broken << 2) | (max_mask << 3) | (1 << 8)
        plain_index = _tt_index(agg1, agg2, (1 << HEAD_BITS) - 1)
        prefetch_nb(tt, plain_index >> 3, plain_index & 7)
        leader_max = (max_mask >> leader) & 1
        # Quick tricks of the side on lead.
        if nil_seat < 0 and not (rules.first_leader == FIRST_LEADER_TWO_OF_CLUBS and tidx == 0):
            needed = target if leader_max else remaining - target + 1
            sure = _quick_nb(rules, moves, leader, max_mask, broken, tidx, union, needed)
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
            if _sure_later_nb(moves, players, max_mask, union) >= target:
                if STATS:
                    moves[CTX_ROW, CTX_QUICK_CUT] += 1
                moves[CTX_ROW, CTX_REL] = _side_trumps_rel(moves, players, max_mask, union, target)
                return True
            others = ((1 << players) - 1) & ~max_mask
            if remaining - _sure_later_nb(moves, players, others, union) < target:
                if STATS:
                    moves[CTX_ROW, CTX_QUICK_CUT] += 1
                moves[CTX_ROW, CTX_REL] = _side_trumps_rel(moves, players, others, union,
                                                remaining - target + 1)
                return False
            # A guarded second-best trump behind the top one takes a trick.
            guarded, guarded_max = _guarded_second_nb(moves, players, union, leader)
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
            # The second and third best trumps on the side without the top one take a trick.
            if target <= 1 or target >= remaining:
                pair, pair_max = _second_third_nb(moves, players, union)
                if pair != 0 and (target <= 1 if pair_max else target >= remaining):
                    if STATS:
                        moves[CTX_ROW, CTX_QUICK_CUT] += 1
                    moves[CTX_ROW, CTX_REL] = pair
                    return pair_max
        if STATS:
            moves[CTX_ROW, CTX_BOUNDARY] += 1
        # Transposition table (partition search): the bucket is the suit lengths of every
        # hand, the leader, the broken flag and the maximising side; an entry holds for every
        # position whose top cards of each suit, down to the lowest card whose rank the
        # answer relied on, have the owners it records.
        code0 = _suit_code_nb(moves, union, 0) | (_suit_code_nb(moves, union, 1) << 32)
        code1 = _suit_code_nb(moves, union, 2) | (_suit_code_nb(moves, union, 3) << 32)
        lower = 0
        upper = remaining if nil_seat < 0 else 1
        # In a nil search, two tiers: an entry that relies on the top card of every suit
        # still held lives in a bucket keyed on those cards' owners too (the fine key), the
        # others in the plain bucket. A nil search stores many more entries a bucket than
        # a trick search (in the slowest question seen, an entry's bucket held some 1,900
        # entries on average), and walking them cost most of its time.
        if nil_seat >= 0:
            tops = ((code0 >> 30) & 3) | (((code0 >> 62) & 3) << 2) \
                | (((code1 >> 30) & 3) << 4) | (((code1 >> 62) & 3) << 6)
            fine_key = agg2 | (1 << 9) | (tops << 10)
        stamp = moves[CTX_ROW, CTX_STAMP]
        for tier in range(0 if nil_seat >= 0 else 1, 2):
            key2 = fine_key if tier == 0 else agg2
            head_index = _tt_index(agg1, key2, (1 << HEAD_BITS) - 1) if tier == 0 \
                else plain_index
            head = tt[head_index >> 3, head_index & 7]
            block = (head & 0xFFFFFF) - 1 if (head >> 24) == stamp else -1
            while block >= 0:
                base = HEAD_ROWS + block
                links = tt[base, 7]
                block = (links >> 8) - 1
                # The next block of the chain is fetched while this one is walked.
                if block >= 0:
                    for ahead in range(BLOCK):
                        prefetch_nb(tt, HEAD_ROWS + block + ahead, 0)
                for j in range((links & 0xFF) - 1, -1, -1):
                    row = base + j
                    if tt[row, 0] != agg1 or tt[row, 1] != key2 \
                            or (code0 & tt[row, 4]) != tt[row, 2] \
                            or (code1 & tt[row, 5]) != tt[row, 3]:
                        continue
                    info = tt[row, 6]
                    found_lower = (info >> 8) & 0xFF
                    found_upper = info & 0xFF
                    if found_lower >= target or found_upper < target:
                        if STATS:
                            moves[CTX_ROW, CTX_TT_CUT] += 1
                        rel = 0
                        for suit in range(4):
                            field = (tt[row, 4 + (suit >> 1)] >> (32 * (suit & 1))) \
                                & 0xFFFFFFFF
                            rel |= _top_cards(union & _suit_mask(suit), popcount(field) // 2)
                        moves[CTX_ROW, CTX_REL] = rel
                        # Move to front: the newest entry of the chain (met first) swaps
                        # places with this one, which is likely to answer again soon.
                        front_block = (head & 0xFFFFFF) - 1
                        front = HEAD_ROWS + front_block + (tt[HEAD_ROWS + front_block, 7]
                                                           & 0xFF) - 1
                        if front != row:
                            for col in range(7):
                                swap = tt[front, col]
                                tt[front, col] = tt[row, col]
                                tt[row, col] = swap
                        return found_lower >= target
        moves[ply, 40] = code0
        moves[ply, 41] = code1
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
        # position in the trick).
        need = target if maximizing else remaining - target + 1
        side_mask = max_mask if maximizing else ((1 << players) - 1) & ~max_mask
        # Beyond one trick, the side's sure trump tricks count when every seat of the side
        # still to play follows a side suit (its trumps stay as they are).
        later = 0
        if need >= 2 and (led_mask & TRUMP_MASK) == 0:
            follows = True
            for step in range(pos, players):
                other = wrap_seat_nb(seat + step - pos, players)
                if (side_mask >> other) & 1 and (moves[HANDS_ROW, other] & led_mask) == 0:
                    follows = False
            if follows:
                later = _sure_later_nb(moves, players, side_mask, union)
        if need <= 1 + later:
            own = (side_mask >> win_seat) & 1
            side_best = win_strength if own else 0
            opp_best = 0 if own else win_strength
            for step in range(pos, players):
                other = wrap_seat_nb(seat + step - pos, players)
                best = _best_strength(moves[HANDS_ROW, other], led_mask)
                if (side_mask >> other) & 1:
                    side_best = max(side_best, best)
                else:
                    opp_best = max(opp_best, best)
            if side_best > opp_best:
                if STATS:
                    moves[CTX_ROW, CTX_QUICK_CUT] += 1
                if own and side_best == win_strength:
                    # The card already winning, with its owner's equivalent cards.
                    rel = _winner_rel(moves, win_strength & 63, win_seat, on_table)
                else:
                    rel = 1 << (side_best & 63)
                if need >= 2:
                    rel |= _side_trumps_rel(moves, players, side_mask, union, need - 1)
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
                saved |= _best_strength(held, led_mask) > win_strength
            else:
                saved |= _least_strength(held, led_mask) > win_strength
        if not saved:
            if STATS:
                moves[CTX_ROW, CTX_QUICK_CUT] += 1
            moves[CTX_ROW, CTX_REL] = _winner_rel(moves, win_strength & 63, nil_seat, on_table)
            return False
    _gen_nb(rules, moves, ply, seat, pos, legal, led_mask, win_strength, win_seat,
            on_table, maximizing, nil_seat, union)
    count = moves[ply, 39]
    result = maximizing == 0
    rel = 0
    for suit in range(4):
        moves[ply, 48 + suit] = -1
    for i in range(count):
        card = moves[ply, i]
        card_suit = 3 if card >= 39 else card // 13
        if card < moves[ply, 48 + card_suit]:
            # Below every card of its suit that the failed moves' answers relied on, like a
            # small card of this suit already tried: the same answer (one small card a suit).
            continue
        bit = 1 << card
        moves[HANDS_ROW, seat] = hand ^ bit
        if pos == 0:
            new_led = suit_mask_of_card_nb(card)
            new_broken = broken | int((card >= 39) & ((hand & _NON_TRUMP) == 0)
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
                    answer = _search_nb(rules, tt_address, moves_address, zero, new_seat,
                                        new_broken, tidx + 1, zero, none, none, zero, target)
            else:
                answer = _search_nb(rules, tt_address, moves_address, zero, new_seat, new_broken,
                                    tidx + 1, zero, none, none, zero,
                                    target - ((max_mask >> new_seat) & 1))
            if rank_win:
                # The winner's rank matters, and so do the cards of its hand equivalent to it
                # (a lower one of them would have won too, and was not tried).
                moves[CTX_ROW, CTX_REL] |= _winner_rel(moves, won_by, new_seat, on_table | bit)
        else:
            answer = _search_nb(rules, tt_address, moves_address, pos + 1, leader, new_broken, tidx,
                                new_led, strength, new_seat, on_table | bit, target)
        moves[HANDS_ROW, seat] = hand
        if answer == (maximizing != 0):
            if pos == 0:
                moves[ply, KILLER_COL] = card + 1
            result = answer
            rel = moves[CTX_ROW, CTX_REL]
            if STATS:
                moves[CTX_ROW, 8 + (i > 0) + 2 * (pos == 0)] += 1
            break
        rel |= moves[CTX_ROW, CTX_REL]
        if moves[ply, 48 + card_suit] < 0:
            relied = rel & _suit_mask(card_suit)
            low = lowest_card(relied) if relied != 0 else 64
            if card < low:
                moves[ply, 48 + card_suit] = low
    if STATS:
        moves[CTX_ROW, 12 + (pos == 0)] += 1
    if pos == 0:
        if rules.first_leader == FIRST_LEADER_TWO_OF_CLUBS and tidx == 0:
            rel |= 1
        if result:
            lower = target
        else:
            upper = target - 1
        mask0 = 0
        mask1 = 0
        fine = nil_seat >= 0
        for suit in range(4):
            relied = rel & union & _suit_mask(suit)
            if relied == 0 and (union & _suit_mask(suit)) != 0:
                fine = False
            if relied != 0:
                depth = popcount(union & _suit_mask(suit) & ~((1 << lowest_card(relied)) - 1))
                if suit < 2:
                    mask0 |= _top_field(depth) << (32 * suit)
                else:
                    mask1 |= _top_field(depth) << (32 * (suit - 2))
        word0 = moves[ply, 40] & mask0
        word1 = moves[ply, 41] & mask1
        # A new entry in the chain's newest block, or in a new block at its head (a full pool
        # empties the table: a new stamp). The same class may already be in the chain with
        # the other bound, but seldom (1.7% of the stores of full deals): looking for it cost
        # a whole chain's walk a store, and each entry answers on its own.
        stamp = moves[CTX_ROW, CTX_STAMP]
        head_index = plain_index
        if fine:
            agg2 = fine_key
            head_index = _tt_index(agg1, agg2, (1 << HEAD_BITS) - 1)
        head = tt[head_index >> 3, head_index & 7]
        first = (head & 0xFFFFFF) - 1 if (head >> 24) == stamp else -1
        used = tt[HEAD_ROWS + first, 7] & 0xFF if first >= 0 else BLOCK
        if used < BLOCK:
            row = HEAD_ROWS + first + used
            tt[HEAD_ROWS + first, 7] += 1
        else:
            if moves[CTX_ROW, CTX_POOL] + BLOCK > tt.shape[0] - HEAD_ROWS:
                moves[CTX_ROW, CTX_STAMP] += 1
                stamp = moves[CTX_ROW, CTX_STAMP]
                moves[CTX_ROW, CTX_POOL] = 0
                first = -1
            block = moves[CTX_ROW, CTX_POOL]
            moves[CTX_ROW, CTX_POOL] = block + BLOCK
            row = HEAD_ROWS + block
            tt[row, 7] = ((first + 1) << 8) | 1
            tt[head_index >> 3, head_index & 7] = (stamp << 24) | (block + 1)
        tt[row, 0] = agg1
        tt[row, 1] = agg2
        tt[row, 2] = word0
        tt[row, 3] = word1
        tt[row, 4] = mask0
        tt[row, 5] = mask1
        tt[row, 6] = (lower << 8) | upper
        moves[CTX_ROW, CTX_REL] = rel
    else:
        moves[CTX_ROW, CTX_REL] = rel
    return result





@njit(cache=True, inline="always")
def search_rules_nb(rules):
    """The :data:`SearchRules` of a rules tuple."""
    return SearchRules(rules.players, rules.hand_size, rules.spades_lead,
                       rules.broken_by_forced_lead, rules.first_leader)


@njit(_I64(_RULES, _ARR, _ARR2, _ARR2, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64),
      cache=True)
def _value_nb(rules, hands, tt, moves, pos, leader, broken, tidx, led_mask, win_strength,
              win_seat, on_table, guess):
    """The maximising side's remaining tricks (the current trick included): null-window
    questions from ``guess`` up or down until the answer is pinned."""
    low = 0
    high = rules.hand_size - tidx
    probe = guess
    search_rules = search_rules_nb(rules)
    for seat in range(4):
        moves[HANDS_ROW, seat] = hands[seat]
    # The search passes the table and the moves to itself at every node: as their addresses
    # (unsafe.py), which spares it numba's reference counts and the arrays' fields; the caller
    # owns the arrays.
    moves[CTX_ROW, CTX_TT_ROWS] = tt.shape[0]
    while low < high:
        target = min(max(probe, low + 1), high)
        moves[CTX_ROW, CTX_QUESTIONS] += 1
        if _search_nb(search_rules, address_nb(tt), address_nb(moves), pos, leader, broken,
                      tidx, led_mask, win_strength, win_seat, on_table, target):
            low = target
            probe = target + 1
        else:
            high = target - 1
            probe = target - 1
    return low


@njit(_BOOL(_RULES, _ARR2, _ARR2, _I64, _I64, _I64, _I64, _I64, _I64, _I64, _I64),
      cache=True)
def _nil_search_nb(rules, tt, moves, pos, leader, broken, tidx, led_mask, win_strength, win_seat,
                   on_table):
    """The nil question (the context's nil seat set): ``_search_nb`` on the arrays'
    addresses, as ``_value_nb`` calls it."""
    moves[CTX_ROW, CTX_TT_ROWS] = tt.shape[0]
    return _search_nb(search_rules_nb(rules), address_nb(tt), address_nb(moves), pos, leader,
                      broken, tidx, led_mask, win_strength, win_seat, on_table, 1)


@njit(_I64(_RULES, _ARR, _I64, _I64, _I64), cache=True)
def _guess_nb(rules, hands, max_mask, remaining, leader):
    """A first guess at the maximising side's tricks, the first null-window question.

    The high-card points (A 4, K 3, Q 2, J 1, jokers 5 and 6, trumps one more each) give
    each side its share. For partnerships a linear fit adds the side's extra trumps, its
    longer trump holding, its short side suits (one card or none) in hands with trumps, and
    the lead; fitted by least squares on 1,000 classic deals solved double dummy (a random
    leader each), it missed by 0.75 tricks on average on 500 others, against 1.31 for the
    share alone. The guess is rounded up by about a trick: a guess one above the answer
    costs no more questions than the answer itself (two), one below costs a third.
    """
    mine = 0
    total = 0
    extra_trumps = 0
    longest_mine = 0
    longest_theirs = 0
    short = 0
    for seat in range(rules.players):
        cards = hands[seat]
        points = 0
        while cards != 0:
            card = lowest_card(cards)
            cards &= cards - 1
            rank = card - 39 if card >= 39 else card % 13
            points += max(rank - 8, 0) + (1 if card >= 39 else 0)
        total += points
        trumps = popcount(hands[seat] & TRUMP_MASK)
        shorts = 0
        if trumps > 0:
            for suit in range(3):
                if popcount(hands[seat] & _suit_mask(suit)) <= 1:
                    shorts += 1
        if (max_mask >> seat) & 1:
            mine += points
            extra_trumps += trumps
            longest_mine = max(longest_mine, trumps)
            short += shorts
        else:
            extra_trumps -= trumps
            longest_theirs = max(longest_theirs, trumps)
            short -= shorts
    if total == 0:
        return remaining // 2
    if rules.players != 4 or not rules.partnership:
        return (2 * remaining * mine + total) // (2 * total)
    lead = 1.0 if (max_mask >> leader) & 1 else -1.0
    estimate = remaining * (1.398 * mine / total - 0.2024) + 0.151 * extra_trumps \
        + 0.173 * lead + 0.514 * short + 0.226 * (longest_mine - longest_theirs)
    return min(max(int(np.floor(estimate + 1.0)), 0), remaining)


@njit(types.void(_RULES, _ARR2, _ARR, _I64, _ARR2, _ARR2, _ARR2), cache=True)
def _solve_deals_nb(rules, deals, leaders, broken, out, tt, moves):
    """Solve deals from a trick boundary: ``out[i]`` gets the remaining tricks of each side
    (partnership) or each seat (individual play, one search per seat).

    ``deals`` is int64[n, 4] (bitboards, every seat of a row holding as many cards; seats beyond
    ``players`` hold 0): a full deal starts at trick 0, a smaller one at the trick its card
    count implies. ``leaders`` is int64[n]; ``broken`` whether spades are broken (all rows).
    Consecutive rows with the same deal (other leaders) keep the transposition table.
    """
    players = rules.players
    hands = np.zeros(4, dtype=np.int64)
    previous = np.zeros(4, dtype=np.int64)
    zero = moves[CTX_ROW, CTX_SIZE - 1]
    none = zero - 1
    for i in range(deals.shape[0]):
        same = i > 0
        for seat in range(4):
            hands[seat] = deals[i, seat]
            if i > 0 and deals[i - 1, seat] != hands[seat]:
                same = False
        if not same:
            moves[CTX_ROW, CTX_STAMP] += 1
            moves[CTX_ROW, CTX_POOL] = 0
        moves[CTX_ROW, CTX_NIL] = -1
        remaining = popcount(hands[0])
        tidx = rules.hand_size - remaining
        if rules.partnership:
            moves[CTX_ROW, CTX_MAX] = 0b0101
            guess = previous[0] if same else _guess_nb(rules, hands, 0b0101, remaining,
                                                         leaders[i])
            value = _value_nb(rules, hands, tt, moves, zero, leaders[i], broken, tidx, zero,
                              none, none, zero, guess)
            out[i, 0] = value
            out[i, 1] = remaining - value
            previous[0] = value
        else:
            for seat in range(players):
                moves[CTX_ROW, CTX_MAX] = 1 << seat
                guess = previous[seat] if same else _guess_nb(rules, hands, 1 << seat,
                                                                remaining, leaders[i])
                value = _value_nb(rules, hands, tt, moves, zero, leaders[i], broken, tidx,
                                  zero, none, none, zero, guess)
                out[i, seat] = value
                previous[seat] = value


# -- the Python side ----------------------------------------------------------------------------

_STATE: dict = {}


def _buffers():
    """The solver's preallocated transposition table, move rows and context (made once)."""
    if not _STATE:
        _STATE["tt"] = np.zeros((HEAD_ROWS + (1 << POOL_BITS), TT_COLS), dtype=np.int64)
        _STATE["moves"] = moves = np.zeros((MOVE_ROWS + 2, MOVE_COLS), dtype=np.int64)
        _STATE["ctx"] = ctx = moves[CTX_ROW]  # a view: the kernels read it as that row
        ctx[CTX_NIL] = -1
    return _STATE["ctx"], _STATE["tt"], _STATE["moves"]


def _kernel_rules(rules):
    if isinstance(rules, Rules):
        return rules, rules.kernel_tuple()
    raise SpadesError(f"rules must be a Rules value (see spades_sim.core.rules.preset), "
                      f"not {type(rules).__name__}")


def _card(value, where: str) -> int:
    if isinstance(value, str):
        return parse_card(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) \
            and 0 <= int(value) <= 53:
        return int(value)
    raise SpadesError(f"{where}: {value!r} is not a card (an index 0..53 or a text like 'AS')")


def _flag(value, where: str) -> bool:
    """A yes-or-no argument: a bool (a NumPy one too), never a truthy text such as "no"."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise SpadesError(f"{where}: {value!r} is not a bool (True or False)")


def _sequence(value, where: str, what: str):
    """``value`` as a list, or one line when it is not a sequence (None, a number, a text)."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise SpadesError(f"{where}: {value!r} is not a sequence of {what}")
    return list(value)


def _mask(holding, where: str) -> int:
    """A holding given as a bitboard int or as an iterable of cards (indices or texts)."""
    if isinstance(holding, (int, np.integer)) and not isinstance(holding, bool):
        value = int(holding)
        if value < 0 or value >> 54:
            raise SpadesError(f"{where}: bitboard {value} has bits outside 0..53")
        return value
    if isinstance(holding, str):
        holding = holding.split()
    mask = 0
    for item in _sequence(holding, where, "cards"):
        card = _card(item, where)
        if (mask >> card) & 1:
            raise SpadesError(f"{where}: card {item!r} is listed twice")
        mask |= 1 << card
    return mask


def _position(rules: Rules, hands, leader, trick, trick_index, spades_broken):
    """Check a position and turn it into the search's arguments; SpadesError names the fault."""
    players = rules.players
    hands = _sequence(hands, "hands", "holdings (one per seat)")
    trick = _sequence(trick, "trick", "cards")
    spades_broken = _flag(spades_broken, "spades_broken")
    if len(hands) != players:
        raise SpadesError(f"hands: {len(hands)} hands given; these rules have {players} players")
    masks = [_mask(h, f"hands[{s}]") for s, h in enumerate(hands)]
    if isinstance(leader, bool) or not isinstance(leader, (int, np.integer)) \
            or not 0 <= leader < players:
        raise SpadesError(f"leader: {leader!r} is not a seat 0..{players - 1}")
    leader = int(leader)
    if isinstance(trick_index, bool) or not isinstance(trick_index, (int, np.integer)) \
            or not 0 <= trick_index <= rules.hand_size:
        raise SpadesError(f"trick_index: {trick_index!r} is not 0..{rules.hand_size}")
    trick_index = int(trick_index)
    cards = []
    for position, item in enumerate(trick):
        if isinstance(item, tuple):
            if len(item) != 2:
                raise SpadesError(f"trick[{position}]: {item!r} is not a (seat, card) pair")
            seat, item = item
            if seat != (leader + position) % players:
                raise SpadesError(f"trick[{position}]: seat {seat!r} does not play "
                                  f"{position + 1}th after leader {leader}")
        cards.append(_card(item, f"trick[{position}]"))
    if len(cards) >= players:
        raise SpadesError(f"trick: {len(cards)} cards is a whole trick; pass the position after "
                          f"it (the winner leads, trick_index + 1)")
    if cards and trick_index == rules.hand_size:
        raise SpadesError("trick: no trick is left to play after the last one")
    seen = 0
    for seat, mask in enumerate(masks):
        if mask & ~rules.deck_mask:
            outside = [c for c in range(54) if (mask & ~rules.deck_mask) >> c & 1]
            raise SpadesError(f"hands[{seat}]: card {outside[0]} is not in this deck")
        if seen & mask:
            both = (seen & mask).bit_length() - 1
            raise SpadesError(f"hands[{seat}]: card {_text(both)} is in two hands")
        seen |= mask
    for position, card in enumerate(cards):
        if not (rules.deck_mask >> card) & 1:
            raise SpadesError(f"trick[{position}]: card {card} is not in this deck")
        if (seen >> card) & 1:
            raise SpadesError(f"trick[{position}]: card {_text(card)} is also in a hand")
        seen |= 1 << card
    remaining = rules.hand_size - trick_index
    for seat, mask in enumerate(masks):
        played = (seat - leader) % players < len(cards)
        want = remaining - (1 if played else 0)
        have = bin(mask).count("1")
        if have != want:
            raise SpadesError(f"hands[{seat}]: holds {have} cards; at trick {trick_index} with "
                              f"{len(cards)} card(s) on the table it should hold {want}")
    # Replay the trick's cards: legality, the broken flag, the winner so far.
    broken = bool(spades_broken)
    led_suit = None
    on_table = 0
    led_mask = 0
    win_strength, win_seat = -1, -1
    for position, card in enumerate(cards):
        seat = (leader + position) % players
        before = masks[seat] | (1 << card)
        if not (legal_cards(rules, before, led_suit, broken, trick_index) >> card) & 1:
            raise SpadesError(f"trick[{position}]: {_text(card)} is not a legal play for seat "
                              f"{seat} here")
        broken = broken or breaks_spades(rules, card, position, led_suit, before)
        if position == 0:
            led_suit = 3 if card >= 39 else card // 13
            led_mask = int(card_mask_of_suit(led_suit))
        strength = card + 128 if card >= 39 else (card + 64 if (led_mask >> card) & 1 else 0)
        if strength > win_strength:
            win_strength, win_seat = strength, seat
        on_table |= 1 << card
    if not cards and remaining > 0 and rules.first_leader == "two_of_clubs" \
            and trick_index == 0 and not masks[leader] & 1:
        raise SpadesError(f"leader: seat {leader} must lead 2C to the first trick (two_of_clubs) "
                          f"but does not hold it")
    full = np.zeros(4, dtype=np.int64)
    full[:players] = masks
    return full, (len(cards), leader, int(broken), trick_index, led_mask, win_strength, win_seat,
                  on_table)


def card_mask_of_suit(suit: int) -> int:
    """All the cards of a suit 0..3 (the trumps with both jokers for suit 3)."""
    return (0x7FFF if suit == 3 else 0x1FFF) << (13 * suit)


def _text(card: int) -> str:
    if card >= 52:
        return "LJ" if card == 52 else "BJ"
    return "23456789TJQKA"[card % 13] + SUITS[card // 13]


def _run_value(kernel, hands, state, max_mask):
    ctx, tt, moves = _buffers()
    ctx[CTX_STAMP] += 1
    ctx[CTX_POOL] = 0
    ctx[CTX_MAX] = max_mask
    ctx[CTX_NIL] = -1
    pos, leader, broken, tidx, led_mask, win_strength, win_seat, on_table = state
    remaining = kernel.hand_size - tidx
    guess = int(_guess_nb(kernel, hands, max_mask, remaining, leader))
    return int(_value_nb(kernel, hands, tt, moves, pos, leader, broken, tidx, led_mask,
                         win_strength, win_seat, on_table, guess))


def solve_seat(rules: Rules, hands, leader: int, seat: int, *, trick=(), trick_index: int = 0,
               spades_broken: bool = False) -> int:
    """Tricks ``seat``'s side takes from a position on, all sides playing double dummy.

    Parameters
    ----------
    rules : Rules
        The rule variant.
    hands : sequence
        One holding per seat (``rules.players`` of them): a bitboard int or an iterable of cards
        (indices or texts such as ``"AS"``). The cards still held, after any card on the table.
    leader : int
        The seat that leads the current trick (that led it, when ``trick`` holds cards).
    seat : int
        The seat whose tricks are counted. In partnership play its team's; otherwise the seat
        plays alone against all the others, who play to minimise its tricks.
    trick : sequence, optional
        The cards of the current trick already played, in play order from ``leader``: cards, or
        ``(seat, card)`` pairs.
    trick_index : int, optional
        0-based index of the current trick.
    spades_broken : bool, optional
        Whether spades were broken before the current trick's first card.

    Returns
    -------
    int
        The side's tricks from here on, the current trick included.

    Raises
    ------
    SpadesError
        A bad position (wrong card counts, a card in two places, an illegal card on the table).
    """
    rules, kernel = _kernel_rules(rules)
    hands, state = _position(rules, hands, leader, trick, trick_index, spades_broken)
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) \
            or not 0 <= seat < rules.players:
        raise SpadesError(f"seat: {seat!r} is not a seat 0..{rules.players - 1}")
    if rules.partnership:
        max_mask = 0b0101 << (seat % 2)
    else:
        max_mask = 1 << int(seat)
    return _run_value(kernel, hands, state, max_mask)


def solve(rules: Rules, hands, leader: int, *, trick=(), trick_index: int = 0,
          spades_broken: bool = False) -> list[int]:
    """Double-dummy tricks from a position on: per team in partnership play, else per seat.

    Parameters
    ----------
    rules, hands, leader, trick, trick_index, spades_broken
        As for :func:`solve_seat`.

    Returns
    -------
    list of int
        Partnership: ``[team 0, team 1]`` (they add up to the tricks left, the current one
        included). Otherwise one value per seat, each the tricks that seat takes when all the
        others play against it (one search per seat; the values need not add up).

    Examples
    --------
    >>> from spades_sim.core.rules import preset
    >>> solve(preset("classic"), [["AS"], ["KS"], ["2H"], ["3H"]], 0, trick_index=12,
    ...       spades_broken=True)
    [1, 0]
    """
    rules, kernel = _kernel_rules(rules)
    hands, state = _position(rules, hands, leader, trick, trick_index, spades_broken)
    remaining = rules.hand_size - state[3]
    if rules.partnership:
        team0 = _run_value(kernel, hands, state, 0b0101)
        return [team0, remaining - team0]
    return [_run_value(kernel, hands, state, 1 << seat) for seat in range(rules.players)]


def solve_cards(rules: Rules, hands, leader: int, *, trick=(), trick_index: int = 0,
                spades_broken: bool = False) -> dict[int, int]:
    """Double-dummy value of every legal card of the seat to play (the perfect-information
    sampling player's question).

    Parameters
    ----------
    rules, hands, leader, trick, trick_index, spades_broken
        As for :func:`solve_seat`; the seat to play is the one after the cards of ``trick``.

    Returns
    -------
    dict of int to int
        For each legal card (index 0..53), the tricks the playing seat's side takes from this
        position on (the current trick included) when that card is played and every seat then
        plays double dummy. In individual play (two or three players, or four without
        partnerships) the side is the seat alone against all the others. The searches share
        one transposition table.
    """
    rules, kernel = _kernel_rules(rules)
    masks, state = _position(rules, hands, leader, trick, trick_index, spades_broken)
    pos, leader, broken, tidx, led_mask, win_strength, win_seat, on_table = state
    players = rules.players
    if tidx >= rules.hand_size:
        raise SpadesError("trick_index: the hand is over; no card is left to play")
    seat = (leader + pos) % players
    max_mask = (0b0101 << (seat % 2)) if rules.partnership else 1 << seat
    played = [_card(c[1] if isinstance(c, tuple) else c, "trick") for c in trick]
    led_suit = (3 if played[0] >= 39 else played[0] // 13) if played else None
    hand = int(masks[seat])
    legal = legal_cards(rules, hand, led_suit, bool(broken), tidx)
    ctx, tt, moves = _buffers()
    ctx[CTX_STAMP] += 1
    ctx[CTX_POOL] = 0
    ctx[CTX_MAX] = max_mask
    ctx[CTX_NIL] = -1
    values = {}
    last = -1  # the previous card's value: the next card's first guess (they differ little)
    for card in range(54):
        if not (legal >> card) & 1:
            continue
        child = masks.copy()
        child[seat] = hand & ~(1 << card)
        now_broken = int(broken or breaks_spades(rules, card, pos, led_suit, hand))
        cards = played + [card]
        if len(cards) == players:
            winner = (leader + trick_winner(cards)) % players
            taken = 1 if (max_mask >> winner) & 1 else 0
            remaining = rules.hand_size - tidx - 1
            if remaining == 0:
                values[card] = taken
                continue
            if last >= 0:
                guess = min(max(last - taken, 0), remaining)
            else:
                guess = int(_guess_nb(kernel, child, max_mask, remaining, winner))
            rest = _value_nb(kernel, child, tt, moves, 0, winner, now_broken, tidx + 1,
                             0, -1, -1, 0, guess)
            values[card] = last = taken + int(rest)
            continue
        if pos == 0:
            new_led = int(card_mask_of_suit(3 if card >= 39 else card // 13))
        else:
            new_led = led_mask
        strength = card + 128 if card >= 39 else (card + 64 if (new_led >> card) & 1 else 0)
        if pos > 0 and strength <= win_strength:
            strength, new_seat = win_strength, win_seat
        else:
            new_seat = seat
        if last >= 0:
            guess = last
        else:
            guess = int(_guess_nb(kernel, child, max_mask, rules.hand_size - tidx,
                                        leader))
        last = int(_value_nb(kernel, child, tt, moves, pos + 1, leader, now_broken, tidx,
                             new_led, strength, new_seat, on_table | (1 << card), guess))
        values[card] = last
    return values


def nil_safe(rules: Rules, hands, leader: int, nil_seat: int, *, trick=(), trick_index: int = 0,
             spades_broken: bool = False) -> bool:
    """Whether a nil bidder can take no trick from a position on, double dummy.

    The bidder (with its partner in partnership play, alone otherwise) plays to avoid winning
    any trick; all the other seats play to make it win one. A trick the bidder has already
    won is not in the position: the answer is about the tricks still to play.

    Parameters
    ----------
    rules, hands, leader, trick, trick_index, spades_broken
        As for :func:`solve_seat`.
    nil_seat : int
        The nil bidder's seat.

    Returns
    -------
    bool
        True when the nil is safe against any defence.
    """
    rules, kernel = _kernel_rules(rules)
    hands, state = _position(rules, hands, leader, trick, trick_index, spades_broken)
    if isinstance(nil_seat, bool) or not isinstance(nil_seat, (int, np.integer)) \
            or not 0 <= nil_seat < rules.players:
        raise SpadesError(f"nil_seat: {nil_seat!r} is not a seat 0..{rules.players - 1}")
    nil_seat = int(nil_seat)
    ctx, tt, moves = _buffers()
    ctx[CTX_STAMP] += 1
    ctx[CTX_POOL] = 0
    ctx[CTX_MAX] = (0b0101 << (nil_seat % 2)) if rules.partnership else 1 << nil_seat
    ctx[CTX_NIL] = nil_seat
    try:
        moves[HANDS_ROW, :4] = hands
        return bool(_nil_search_nb(kernel, tt, moves, *state))
    finally:
        ctx[CTX_NIL] = -1


def solve_deals(rules: Rules, hands, leaders, *, spades_broken: bool = False) -> np.ndarray:
    """Double-dummy tricks of many deals, each from a trick boundary (the batch path).

    Parameters
    ----------
    rules : Rules
        The rule variant.
    hands : array_like of int64, shape (n, players) or (n, 4)
        Bitboards; every seat of a row holds as many cards (seats beyond ``players`` hold 0).
        A full deal (``rules.hand_size`` cards a seat) starts at trick 0; a row of ``k`` cards a
        seat is an ending from trick ``hand_size - k``.
    leaders : array_like of int, shape (n,)
        The seat leading each row's next trick. Give a deal several times in a row (with
        other leaders) and the rows after the first reuse its transposition table.
    spades_broken : bool, optional
        Whether spades are broken at the start of every row.

    Returns
    -------
    numpy.ndarray of int64, shape (n, sides)
        Remaining tricks per team (partnership) or per seat (individual play, each seat
        against all the others).

    Raises
    ------
    SpadesError
        Shapes that do not fit, a row that is not a deal of these rules (uneven counts, a card
        outside the deck or in two hands), a leader out of range or, under ``two_of_clubs``, a
        full deal whose leader does not hold 2C.
    """
    rules, kernel = _kernel_rules(rules)
    spades_broken = _flag(spades_broken, "spades_broken")
    try:
        deals = np.asarray(hands, dtype=np.int64)
        leaders = np.ascontiguousarray(leaders, dtype=np.int64)
    except (TypeError, ValueError, OverflowError) as error:
        raise SpadesError(f"hands and leaders must be arrays of int64 bitboards and seats "
                          f"({error})") from None
    if deals.ndim != 2 or deals.shape[1] not in (rules.players, 4) \
            or leaders.shape != (deals.shape[0],):
        raise SpadesError(f"hands must be (n, {rules.players}) bitboards and leaders (n,); got "
                          f"{deals.shape} and {leaders.shape}")
    full = np.zeros((deals.shape[0], 4), dtype=np.int64)
    full[:, :deals.shape[1]] = deals
    if full[:, rules.players:].any():
        raise SpadesError("hands: seats beyond the player count must hold no card")
    if deals.shape[0]:
        if leaders.min() < 0 or leaders.max() >= rules.players:
            raise SpadesError(f"leaders: seats must be 0..{rules.players - 1}")
        counts = np.zeros(full.shape, dtype=np.int64)
        union = np.zeros(full.shape[0], dtype=np.int64)
        overlap = np.zeros(full.shape[0], dtype=bool)
        for seat in range(4):
            column = full[:, seat]
            overlap |= (union & column) != 0
            union |= column
            counts[:, seat] = [bin(int(v)).count("1") for v in column]
        players = rules.players
        uneven = (counts[:, :players] != counts[:, :1]).any(axis=1) \
            | (counts[:, 0] > rules.hand_size)
        bad = np.flatnonzero(overlap | ((union & ~np.int64(rules.deck_mask)) != 0) | uneven
                             | (full < 0).any(axis=1))
        if bad.size:
            raise SpadesError(f"hands[{bad[0]}]: not a deal of these rules (as many cards a seat, "
                              f"at most {rules.hand_size}, from the deck, no card twice)")
        if rules.first_leader == "two_of_clubs":
            first = counts[:, 0] == rules.hand_size
            holds = (full[np.arange(full.shape[0]), leaders] & 1) != 0
            if (first & ~holds).any():
                raise SpadesError(f"leaders[{np.flatnonzero(first & ~holds)[0]}]: must hold 2C "
                                  f"to lead the first trick (two_of_clubs)")
    out = np.zeros((deals.shape[0], rules.n_sides), dtype=np.int64)
    ctx, tt, moves = _buffers()
    _solve_deals_nb(kernel, full, leaders, int(spades_broken), out, tt, moves)
    return out


def nodes_searched() -> int:
    """Nodes the solver has searched in this process (a counter for benchmarks)."""
    ctx, _, _ = _buffers()
    return int(ctx[CTX_NODES])


__all__ = ["solve", "solve_seat", "solve_cards", "nil_safe", "solve_deals",
           "nodes_searched"]
