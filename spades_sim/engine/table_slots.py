"""Named slots of the stepped hand loop's arrays (``table.py``): its state between calls, the
record rows it writes, and what a call returns."""

from numba import njit

DONE = 0
YIELD = 1

# The stages of a hand.
STAGE_START = 0  # a unit (hand or game) begins
STAGE_DEAL = 1
STAGE_BID = 2
STAGE_PLAY = 3
STAGE_BUMP = 4  # after the auction: the bumps, position by position
STAGE_EXCHANGE = 5  # the exchange passes, one pass (one giver) at a time
STAGE_DRAW = 6  # the two-player draw deal, pair by pair, when a seat keeps for itself

# A seat in bit ``FULL_SHIFT + seat`` of ``python_mask`` (besides bit ``seat``) makes every choice
# itself: the blind choice, bumps, exchange passes and the draw deal's keeps as well.
FULL_SHIFT = 4

# What the seat to act decides when the loop yields (``S_PHASE``); ``S_LEGAL`` holds the legal
# choices as bits, the action is a bit's index: a card (play, pass), a bid (bid), 0 look or
# ``1 + b`` the blind bid ``b`` (blind), 0 keep the bid or 1 bump it (bump), 0 take the face-down
# card or 1 keep the face-up one (keep). ``PHASE_BID`` and ``PHASE_PLAY`` are ``core/view.py``'s.
PHASE_BLIND = 2
PHASE_BUMP = 3
PHASE_PASS = 4
PHASE_KEEP = 5

# Named slots of ``state``.
S_UNIT = 0  # units (hands or games) finished
S_ROW = 1  # rows written
S_STAGE = 2
S_ACTION = 3  # the Python seat's action, -1 none
S_SEAT = 4  # the seat to act
S_POSITION = 5  # bidding position, or place in the trick
S_LOOKED = 6  # 1: the bidder at S_POSITION has made its blind choice and looks
S_DEALER = 7
S_KEY_INDEX = 8
S_GAME_ID = 9
S_FIRST_DEALER = 10
S_N_HANDS = 11
S_BIDS = 12
S_BLIND = 13
S_BUMPED = 14
S_TRICKS = 15
S_PLAYED = 16
S_TAKEN = 17
S_BROKEN = 18
S_VOIDS = 19
S_LEADER = 20
S_FIRST_LEADER = 21
S_TRICK_INDEX = 22
S_LED_MASK = 23
S_WIN_STRENGTH = 24
S_WIN_SEAT = 25
S_TRICK_CARDS = 26
S_ILLEGAL = 27
S_HAND_PLAY = 28
S_FACTS = 29  # + 0..2
S_HANDS = 32  # + seat: held now
S_DEALT = 36  # + seat: as dealt
S_SCORES = 40  # + side: before the hand
S_BAGS = 44  # + side
S_PLAYED_BY = 48  # + seat
S_N_EXCHANGED = 52
S_HAND_ID = 53  # the hand's id as the API numbers it (key index, or hand within the game)
S_PHASE = 54  # the decision yielded (PHASE_*)
S_LEGAL = 55  # its legal choices, as bits
S_PASS_STEP = 56  # exchange: 2 * bidding position + (0 the nil side gives, 1 its partner returns)
S_PASSED = 57  # exchange: the cards the giver has chosen so far
S_PASS_LEFT = 58  # exchange, at a yield: cards still to choose
S_STOCK_KEY = 59  # draw deal: the deal stream's state before the stock was shuffled
S_DRAW = 60  # draw deal: pairs drawn so far (turn * hand_size + pair)
S_FACE_UP = 61  # draw deal, at a yield: the face-up card offered
S_DECLINED = 62  # + seat (two seats): draw deal, the face-up cards the seat turned down
STATE_SIZE = 64

# Columns of ``records`` (int64, a row per hand): the fields of ``core/schema.HandArrays``,
# flat, so that a call takes one array, not the sixteen of the named tuple (each array an
# argument costs a fraction of a microsecond, and a table with a Python seat calls the kernel
# once per Python decision). ``mixed.py`` unpacks them.
R_HAND_ID = 0
R_GAME_ID = 1
R_DEALER = 2
R_FIRST_LEADER = 3
R_HANDS = 4  # + seat
R_BLIND = 8
R_BIDS = 12
R_BUMPED = 16
R_TRICKS = 20
R_SCORE_BEFORE = 24  # + side
R_BAGS_BEFORE = 28
R_SCORE_DELTA = 32
R_BAGS_AFTER = 36
R_PLAYS = 40  # + play (MAX_PLAYS)
R_PLAY_SEATS = 92
R_EXCHANGE = 144  # + 3 * entry + (from, to, card) (MAX_EXCHANGE entries)
RECORD_WIDTH = 192
# Columns of ``game_records`` (a row per game), as ``core/schema.GameArrays``.
G_GAME_ID = 0
G_FIRST_DEALER = 1
G_N_HANDS = 2
G_WINNER = 3
G_FINAL_SCORE = 4  # + side
G_FINAL_BAGS = 8
GAME_RECORD_WIDTH = 12


@njit(cache=True, inline="always")
def four_nb(state, slot):
    """Four consecutive slots of ``state`` as a tuple (per seat or per side)."""
    return (state[slot], state[slot + 1], state[slot + 2], state[slot + 3])

