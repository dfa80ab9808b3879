"""The transposition table: partition-search entries at trick boundaries, chained in blocks.

**What an entry holds.** The bucket is the suit lengths of every hand, the leader, the broken
flag (where the rules read it) and the maximising side. An entry records, per suit, the owners
of the top live cards down to the lowest card whose rank the answer relied on, and a lower and
an upper bound on the maximising side's remaining tricks. It holds for every position of its
bucket that agrees on those top cards' owners, so one entry answers a whole class of positions
(DDS's partition search).

**How it is laid out** (columns in ``layout.py``). A suit's owners are packed two bits a card
from the top of a 32-bit field (``suit_code_nb``), two suits a word, so an entry is checked with
two masked compares. Each bucket is a chain of blocks of ``BLOCK`` entries in consecutive rows
of a preallocated pool: many positions share a bucket (some 30 entries on average in a trick
search), and the entries of a block are read without waiting on each other, where a chain of
single entries would wait on memory at every one. The bucket's head is fetched into the cache
(``unsafe.py``) as soon as its keys are known, before the quick bounds run, and each next block
of a chain while the one before it is walked.

**Policy.** A store adds its entry to the chain's newest block without looking for the same
class (rarely there, and a whole walk to find). A hit swaps places with the newest entry of its
chain (the first one walked), since it is likely to answer again soon. A stamp empties the table
in O(1) between deals (and when the pool is full); it stays when the next question is about the
same deal. A nil search stores far more entries a bucket than a trick search, so there an entry
that relies on the top card of every suit still held goes to a second bucket, keyed on those
cards' owners too (the fine key).
"""

from __future__ import annotations

from numba import njit

from ..bits import lowest_card, pdep_nb, pext_nb, popcount
from ..unsafe import prefetch_nb
from .holdings import suit_cards_nb, top_cards_nb
from .layout import (
    BLOCK,
    BOUND_BITS,
    BOUND_MASK,
    CTX_POOL,
    CTX_REL,
    CTX_ROW,
    CTX_STAMP,
    HANDS_ROW,
    HEAD_BITS,
    HEAD_BLOCK_MASK,
    HEAD_ROW_SHIFT,
    HEAD_ROWS,
    HEAD_SLOT_MASK,
    HEAD_STAMP_SHIFT,
    LINK_SHIFT,
    TT_BOUNDS,
    TT_KEY_LENGTHS,
    TT_KEY_SIDE,
    TT_LINKS,
    TT_MASK_HIGH,
    TT_MASK_LOW,
    TT_OWNERS_HIGH,
    TT_OWNERS_LOW,
    USED_MASK,
)

_EVEN_BITS = 0x1555555555555555  # bits 0, 2, .., 60: room for 2-bit owners of 30 cards
SUIT_CODE_BITS = 32  # a suit's field in a code word; two suits a word
TOP_OWNER_SHIFT = SUIT_CODE_BITS - 2  # the top card's owner in a field
# The side key: the leader in bits 0-1, the broken flag in bit 2, the maximising side from bit
# 3; a set bit 8 (never 0, an empty key); in the fine tier bit 9 and the top owners from bit 10.
SIDE_KEY_BROKEN_SHIFT = 2
SIDE_KEY_MAX_SHIFT = 3
SIDE_KEY_PLAIN = 1 << 8
SIDE_KEY_FINE = 1 << 9
SIDE_KEY_TOPS_SHIFT = 10
LENGTH_BITS = 4  # a hand's length in a suit, in the length key
HEAD_INDEX_MASK = (1 << HEAD_BITS) - 1
#: A lookup's three answers (an int, so that one inlined function returns any of them).
UNKNOWN = -1
PROVEN_NO = 0
PROVEN_YES = 1


@njit(cache=True, inline="always")
def suit_code_nb(moves, live, suit):
    """The owners of the live cards of a suit from the highest down, two bits each, from the
    top of a 32-bit field (so the top ``d`` cards are the field's top ``2 d`` bits).

    Gathered without a loop: each of seats 1..3 gives a bit a live card (pext, lowest card
    first), spread to the low (seats 1 and 3) and high (seats 2 and 3) bit of each 2-bit owner
    (pdep), then shifted to the top of the field. (The holdings row is indexed by seat.)
    """
    cards = live & suit_cards_nb(suit)
    b1 = pext_nb(moves[HANDS_ROW, 1], cards)
    b2 = pext_nb(moves[HANDS_ROW, 2], cards)
    b3 = pext_nb(moves[HANDS_ROW, 3], cards)
    spread = pdep_nb(b1 | b3, _EVEN_BITS) | pdep_nb(b2 | b3, _EVEN_BITS << 1)
    return spread << (SUIT_CODE_BITS - 2 * popcount(cards))


@njit(cache=True, inline="always")
def position_codes_nb(moves, union):
    """The position's two code words: suits 0 and 1, and suits 2 and 3."""
    low = suit_code_nb(moves, union, 0) | (suit_code_nb(moves, union, 1) << SUIT_CODE_BITS)
    high = suit_code_nb(moves, union, 2) | (suit_code_nb(moves, union, 3) << SUIT_CODE_BITS)
    return low, high


@njit(cache=True, inline="always")
def top_field_nb(depth):
    """The top ``2 depth`` bits of a 32-bit field."""
    return ((1 << (2 * depth)) - 1) << (SUIT_CODE_BITS - 2 * depth)


@njit(cache=True, inline="always")
def head_index_nb(length_key, side_key):
    """The bucket of a pair of keys: a multiplicative hash."""
    mixed = length_key * -7046029254386353131 + side_key * -4417276706812531889
    return (mixed ^ (mixed >> 31)) & HEAD_INDEX_MASK


@njit(cache=True, inline="always")
def bucket_keys_nb(moves, players, leader, key_broken, max_mask):
    """The plain bucket's keys: every hand's suit lengths, and the side key."""
    length_key = 0
    for suit in range(4):
        suit_cards = suit_cards_nb(suit)
        for other in range(players):
            length_key |= popcount(moves[HANDS_ROW, other] & suit_cards) \
                << (LENGTH_BITS * (4 * suit + other))
    side_key = leader | (key_broken << SIDE_KEY_BROKEN_SHIFT) \
        | (max_mask << SIDE_KEY_MAX_SHIFT) | SIDE_KEY_PLAIN
    return length_key, side_key


@njit(cache=True, inline="always")
def fine_key_nb(side_key, code_low, code_high):
    """The fine tier's side key: the plain one and the owners of every suit's top card."""
    tops = ((code_low >> TOP_OWNER_SHIFT) & 3) \
        | (((code_low >> (SUIT_CODE_BITS + TOP_OWNER_SHIFT)) & 3) << 2) \
        | (((code_high >> TOP_OWNER_SHIFT) & 3) << 4) \
        | (((code_high >> (SUIT_CODE_BITS + TOP_OWNER_SHIFT)) & 3) << 6)
    return side_key | SIDE_KEY_FINE | (tops << SIDE_KEY_TOPS_SHIFT)


@njit(cache=True, inline="always")
def prefetch_head_nb(tt, head_index):
    """Start fetching a bucket's head into the cache."""
    prefetch_nb(tt, head_index >> HEAD_ROW_SHIFT, head_index & HEAD_SLOT_MASK)


@njit(cache=True, inline="always")
def probe_nb(tt, moves, head_index, length_key, side_key, code_low, code_high, target,
             union):
    """Walk a bucket's chain for an entry of this position's class whose bounds answer
    ``target``: ``PROVEN_YES`` or ``PROVEN_NO`` (the cards it relied on written to
    ``CTX_REL``, the entry moved to the chain's front), else ``UNKNOWN``."""
    stamp = moves[CTX_ROW, CTX_STAMP]
    head = tt[head_index >> HEAD_ROW_SHIFT, head_index & HEAD_SLOT_MASK]
    block = (head & HEAD_BLOCK_MASK) - 1 if (head >> HEAD_STAMP_SHIFT) == stamp else -1
    while block >= 0:
        base = HEAD_ROWS + block
        links = tt[base, TT_LINKS]
        block = (links >> LINK_SHIFT) - 1
        # The next block of the chain is fetched while this one is walked.
        if block >= 0:
            for ahead in range(BLOCK):
                prefetch_nb(tt, HEAD_ROWS + block + ahead, TT_KEY_LENGTHS)
        for j in range((links & USED_MASK) - 1, -1, -1):
            row = base + j
            if tt[row, TT_KEY_LENGTHS] != length_key or tt[row, TT_KEY_SIDE] != side_key \
                    or (code_low & tt[row, TT_MASK_LOW]) != tt[row, TT_OWNERS_LOW] \
                    or (code_high & tt[row, TT_MASK_HIGH]) != tt[row, TT_OWNERS_HIGH]:
                continue
            bounds = tt[row, TT_BOUNDS]
            found_lower = (bounds >> BOUND_BITS) & BOUND_MASK
            found_upper = bounds & BOUND_MASK
            if found_lower >= target or found_upper < target:
                rel = 0
                for suit in range(4):
                    field = (tt[row, TT_MASK_LOW + (suit >> 1)]
                             >> (SUIT_CODE_BITS * (suit & 1))) & 0xFFFFFFFF
                    rel |= top_cards_nb(union & suit_cards_nb(suit), popcount(field) // 2)
                moves[CTX_ROW, CTX_REL] = rel
                # Move to front: the newest entry of the chain (met first) swaps places with
                # this one, which is likely to answer again soon.
                front_block = (head & HEAD_BLOCK_MASK) - 1
                front = HEAD_ROWS + front_block \
                    + (tt[HEAD_ROWS + front_block, TT_LINKS] & USED_MASK) - 1
                if front != row:
                    for col in range(TT_LINKS):  # every column but the block's links
                        swap = tt[front, col]
                        tt[front, col] = tt[row, col]
                        tt[row, col] = swap
                return PROVEN_YES if found_lower >= target else PROVEN_NO
    return UNKNOWN


@njit(cache=True, inline="always")
def relied_masks_nb(rel, union):
    """The masks of the code words an entry relying on the cards ``rel`` keeps (each suit's top
    cards down to its lowest relied-on card), and whether it relies on every live suit."""
    mask_low = 0
    mask_high = 0
    every_suit = True
    for suit in range(4):
        live = union & suit_cards_nb(suit)
        relied = rel & live
        if relied == 0 and live != 0:
            every_suit = False
        if relied != 0:
            depth = popcount(live & ~((1 << lowest_card(relied)) - 1))
            if suit < 2:
                mask_low |= top_field_nb(depth) << (SUIT_CODE_BITS * suit)
            else:
                mask_high |= top_field_nb(depth) << (SUIT_CODE_BITS * (suit - 2))
    return mask_low, mask_high, every_suit


@njit(cache=True, inline="always")
def store_nb(tt, moves, head_index, length_key, side_key, owners_low, owners_high, mask_low,
             mask_high, lower, upper):
    """Add an entry to a bucket: in the chain's newest block, or in a new block at its head (a
    full pool empties the table: a new stamp). The same class may already be in the chain with
    the other bound, but seldom, and each entry answers on its own."""
    stamp = moves[CTX_ROW, CTX_STAMP]
    head = tt[head_index >> HEAD_ROW_SHIFT, head_index & HEAD_SLOT_MASK]
    first = (head & HEAD_BLOCK_MASK) - 1 if (head >> HEAD_STAMP_SHIFT) == stamp else -1
    used = tt[HEAD_ROWS + first, TT_LINKS] & USED_MASK if first >= 0 else BLOCK
    if used < BLOCK:
        row = HEAD_ROWS + first + used
        tt[HEAD_ROWS + first, TT_LINKS] += 1
    else:
        if moves[CTX_ROW, CTX_POOL] + BLOCK > tt.shape[0] - HEAD_ROWS:
            moves[CTX_ROW, CTX_STAMP] += 1
            stamp = moves[CTX_ROW, CTX_STAMP]
            moves[CTX_ROW, CTX_POOL] = 0
            first = -1
        block = moves[CTX_ROW, CTX_POOL]
        moves[CTX_ROW, CTX_POOL] = block + BLOCK
        row = HEAD_ROWS + block
        tt[row, TT_LINKS] = ((first + 1) << LINK_SHIFT) | 1
        tt[head_index >> HEAD_ROW_SHIFT, head_index & HEAD_SLOT_MASK] = \
            (stamp << HEAD_STAMP_SHIFT) | (block + 1)
    tt[row, TT_KEY_LENGTHS] = length_key
    tt[row, TT_KEY_SIDE] = side_key
    tt[row, TT_OWNERS_LOW] = owners_low
    tt[row, TT_OWNERS_HIGH] = owners_high
    tt[row, TT_MASK_LOW] = mask_low
    tt[row, TT_MASK_HIGH] = mask_high
    tt[row, TT_BOUNDS] = (lower << BOUND_BITS) | upper
