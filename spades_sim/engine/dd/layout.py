"""The solver's shared array layouts and types: every row and column the kernels read by name.

The search works in two preallocated ``int64`` arrays (made once a process, ``api.py``):

- **moves** (``MOVE_ROWS + 2`` rows of ``MOVE_COLS``): one row a ply (at most 17 tricks of 4
  cards), then the context row ``CTX_ROW`` (counters and the search's shared state) and the
  holdings row ``HANDS_ROW`` (one bitboard a seat, changed and restored in place). One array
  holds all three because each array a recursive call passes costs two atomic reference-count
  updates.
- **tt**, the transposition table: ``HEAD_ROWS`` rows of bucket heads (``HEADS_PER_ROW`` a
  row), then a pool of entries, ``TT_COLS`` columns an entry, handed out in blocks of
  ``BLOCK`` consecutive rows (``table.py``).

numba folds these module constants into the kernels, so a name costs nothing at run time; they
are constants, never rule values or parameters (those reach the kernels as arguments).
"""

from __future__ import annotations

from collections import namedtuple

from numba import types

from ...core.rules import KernelRules

# -- types of the compiled entry points (explicit signatures: one compile serves every variant) -

I64 = types.int64
BOOL = types.boolean
RULES_TYPE = types.NamedUniTuple(types.int64, len(KernelRules._fields), KernelRules)
#: The rules as the search reads them: the few fields it needs, so that each recursive call
#: copies five integers rather than the whole rules tuple.
SearchRules = namedtuple("SearchRules", ["players", "hand_size", "spades_lead",
                                         "broken_by_forced_lead", "first_leader"])
SEARCH_RULES_TYPE = types.NamedUniTuple(types.int64, len(SearchRules._fields), SearchRules)
ARRAY = types.int64[::1]
ARRAY2 = types.int64[:, ::1]

# -- the moves array ----------------------------------------------------------------------------

MOVE_ROWS = 72  # one row a ply: at most 17 tricks of 4 cards
MOVE_COLS = 64
CTX_ROW = MOVE_ROWS  # the context (Python sees it as the view ``ctx``)
HANDS_ROW = MOVE_ROWS + 1  # the holdings: column ``seat`` is that seat's bitboard
SEATS = 4  # columns of the holdings row (seats beyond the player count hold 0)

# Columns of a ply row.
MOVE_CARDS = 0  # the candidate cards, best first (up to MAX_CANDIDATES)
MAX_CANDIDATES = 20
MOVE_SCORES = 20  # the candidates' ordering scores, in the same order
MOVE_SKIPPED = 38  # legal cards left out as equivalent to a candidate (a bitboard)
MOVE_COUNT = 39  # how many candidates
MOVE_CODE_LOW = 40  # the position's suit codes (table.py) of suits 0 and 1, at a trick boundary
MOVE_CODE_HIGH = 41  # ... and of suits 2 and 3
MOVE_KILLER = 42  # the lead that last cut off at this ply, card + 1 (0: none)
MOVE_FLOOR = 48  # 48..51: a suit's small-card floor (no card below it is tried; -1: none yet)

# Slots of the context row.
CTX_STAMP = 0  # the current deal's stamp in the transposition table
CTX_MAX = 1  # bit per seat: the maximising side (the nil side in a nil search)
CTX_NIL = 2  # the nil bidder's seat in a nil search, else -1
CTX_NODES = 3  # nodes searched (a counter for benchmarks)
CTX_QUESTIONS = 4  # null-window questions asked (a counter)
CTX_BOUNDARY = 5  # trick-boundary nodes reaching the transposition table (a counter)
CTX_TT_CUT = 6  # trick-boundary nodes the table's bounds answered (a counter)
CTX_QUICK_CUT = 7  # nodes the quick-trick and sure-trick bounds answered (a counter)
CTX_CUTS = 8  # 8..11: cut-offs, + 1 when not by the first move, + 2 at a lead
CTX_EXPANDED = 12  # 12..13: nodes that tried their moves, + 1 at a lead
CTX_REL = 14  # the cards whose ranks the last answer relied on (the search's second result)
CTX_POOL = 15  # the next free entry of the transposition table's pool
CTX_TT_ROWS = 16  # the transposition table's rows (the search makes its view of the table)
CTX_NODES_BY_TRICK = 20  # 20..37: nodes by trick
CTX_BOUNDARY_BY_TRICK = 40  # 40..57: trick-boundary nodes by trick
CTX_SIZE = 60
CTX_ZERO = CTX_SIZE - 1  # always 0: the search's run-time zero (search.py says why)
#: Whether the search keeps its statistics (the counters above but the node count): a
#: compile-time switch for profiling, off because the counting costs time at every node.
STATS = False

#: Columns of the batch output in partnership play (``drivers.solve_deals_nb``): the team of
#: seats 0 and 2, then the team of seats 1 and 3. In individual play a column is a seat.
OUT_TEAM_EVEN = 0
OUT_TEAM_ODD = 1

# -- the transposition table --------------------------------------------------------------------

HEAD_BITS = 20  # buckets (heads of block chains)
HEADS_PER_ROW = 8  # heads a row of the head area
HEAD_ROW_SHIFT = 3  # a head's row: index >> HEAD_ROW_SHIFT
HEAD_SLOT_MASK = HEADS_PER_ROW - 1  # its column: index & HEAD_SLOT_MASK
HEAD_ROWS = (1 << HEAD_BITS) // HEADS_PER_ROW
POOL_BITS = 21  # entries in the pool, of TT_COLS int64 each: 128 MiB
BLOCK = 8  # entries of a block, in consecutive rows
#: A head holds the stamp above this many bits and the chain's newest block + 1 below them.
HEAD_STAMP_SHIFT = 24
HEAD_BLOCK_MASK = (1 << HEAD_STAMP_SHIFT) - 1

# Columns of an entry.
TT_KEY_LENGTHS = 0  # the bucket's first key: every hand's suit lengths (4 bits each)
TT_KEY_SIDE = 1  # the second key: leader, broken flag, maximising side, tier (table.py)
TT_OWNERS_LOW = 2  # the owners of the relied-on top cards of suits 0 and 1 (packed codes)
TT_OWNERS_HIGH = 3  # ... of suits 2 and 3
TT_MASK_LOW = 4  # which bits of the codes of suits 0 and 1 the entry holds
TT_MASK_HIGH = 5  # ... of suits 2 and 3
TT_BOUNDS = 6  # the lower bound << BOUND_BITS | the upper bound (the side's remaining tricks)
#: In a block's first row: the entries used, and the previous block of the chain + 1 (0: none)
#: above LINK_SHIFT bits.
TT_LINKS = 7
TT_COLS = 8
BOUND_BITS = 8
BOUND_MASK = (1 << BOUND_BITS) - 1
LINK_SHIFT = 8
USED_MASK = (1 << LINK_SHIFT) - 1
