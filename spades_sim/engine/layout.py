"""Layout shared by the Python layer and the kernels: rules-tuple slots, enum codes, sizes.

Plain integers only (no numba import), so ``rules.py`` and ``strategies.py`` can use them.
The kernels receive the rules as a tuple of int64 laid out as ``RULE_SLOTS``.
"""

# Rules tuple slots, in order. ``rules.Rules.kernel_tuple`` fills them.
RULE_SLOTS = (
    "players",
    "partnership",
    "deck",
    "deal",
    "misdeal_redeal",
    "first_leader",
    "spades_lead",
    "broken_by_forced_lead",
    "nil",
    "nil_bonus",
    "blind_nil",
    "blind_nil_bonus",
    "blind_nil_min_deficit",
    "blind_nil_exchange",
    "nil_exchange",
    "double_nil",
    "double_nil_bonus",
    "blind_bids",
    "blind_bid_max",
    "blind_bid_min_deficit",
    "blind_bid_bonus_per_trick",
    "bids_total_not_tricks",
    "min_team_bid",
    "bid_bump",
    "set_penalty",
    "failed_nil_tricks",
    "ten_for_two_hundred",
    "overtrick_points",
    "bag_limit",
    "bag_penalty",
    "target",
    "has_mercy",
    "mercy",
    "max_hands",
    "hand_cap",
    # derived
    "hand_size",
    "n_sides",
    "deck_mask",
    "trump_share",
)
(
    R_PLAYERS,
    R_PARTNERSHIP,
    R_DECK,
    R_DEAL,
    R_MISDEAL_REDEAL,
    R_FIRST_LEADER,
    R_SPADES_LEAD,
    R_BROKEN_BY_FORCED_LEAD,
    R_NIL,
    R_NIL_BONUS,
    R_BLIND_NIL,
    R_BLIND_NIL_BONUS,
    R_BLIND_NIL_MIN_DEFICIT,
    R_BLIND_NIL_EXCHANGE,
    R_NIL_EXCHANGE,
    R_DOUBLE_NIL,
    R_DOUBLE_NIL_BONUS,
    R_BLIND_BIDS,
    R_BLIND_BID_MAX,
    R_BLIND_BID_MIN_DEFICIT,
    R_BLIND_BID_BONUS_PER_TRICK,
    R_BIDS_TOTAL_NOT_TRICKS,
    R_MIN_TEAM_BID,
    R_BID_BUMP,
    R_SET_PENALTY,
    R_FAILED_NIL_TRICKS,
    R_TEN_FOR_TWO_HUNDRED,
    R_OVERTRICK_POINTS,
    R_BAG_LIMIT,
    R_BAG_PENALTY,
    R_TARGET,
    R_HAS_MERCY,
    R_MERCY,
    R_MAX_HANDS,
    R_HAND_CAP,
    R_HAND_SIZE,
    R_N_SIDES,
    R_DECK_MASK,
    R_TRUMP_SHARE,
) = range(len(RULE_SLOTS))

# Enum codes of the rules' string fields.
DECK = {"standard": 0, "jokers": 1}
DEAL = {"standard": 0, "draw": 1}
FIRST_LEADER = {"dealer_left": 0, "random": 1, "two_of_clubs": 2}
SPADES_LEAD = {"broken": 0, "anytime": 1, "after_first_trick": 2}
DOUBLE_NIL = {"additive": 0, "fixed": 1, "doubled_no_penalty": 2}
SET_PENALTY = {"per_bid": 0, "per_trick_short": 1}
FAILED_NIL_TRICKS = {"bags_only": 0, "count_toward_bid": 1}

DECK_STANDARD, DECK_JOKERS = 0, 1
DEAL_STANDARD, DEAL_DRAW = 0, 1
FIRST_LEADER_DEALER_LEFT, FIRST_LEADER_RANDOM, FIRST_LEADER_TWO_OF_CLUBS = 0, 1, 2
SPADES_LEAD_BROKEN, SPADES_LEAD_ANYTIME, SPADES_LEAD_AFTER_FIRST_TRICK = 0, 1, 2
DOUBLE_NIL_ADDITIVE, DOUBLE_NIL_FIXED, DOUBLE_NIL_DOUBLED_NO_PENALTY = 0, 1, 2
SET_PER_BID, SET_PER_TRICK_SHORT = 0, 1
FAILED_NIL_BAGS_ONLY, FAILED_NIL_COUNT_TOWARD_BID = 0, 1

# Sizes of the per-hand record arrays (the largest table: 4 seats, 52 plays).
MAX_SEATS = 4
MAX_SIDES = 4
MAX_PLAYS = 52
MAX_EXCHANGE = 16  # two teams' exchanges of up to 4 cards each way

# Strategy kinds (an integer per seat, dispatched inside the kernel) and parameter vectors.
N_PARAMS = 32
STRATEGY_RANDOM = 0
STRATEGY_HEURISTIC = 1
STRATEGY_MC = 2  # bids like the heuristic (same parameter slots); plays by Monte Carlo search

# Offsets of the deal-stream keys of whole games: game g's hand j uses key index
# (g << GAME_SHIFT) + 1 + j, and its first dealer is drawn from key index g << GAME_SHIFT.
GAME_SHIFT = 20

# Parameter slots of each strategy kind (names, defaults and meanings: ``strategies.py``).
RANDOM_PARAM_NAMES = (
    "bid_min",
    "bid_max",
    "blind_nil_rate",
    "blind_bid_rate",
    "bump_rate",
    "keep_rate",
)
(
    P_RANDOM_BID_MIN,
    P_RANDOM_BID_MAX,
    P_BLIND_NIL_RATE,
    P_BLIND_BID_RATE,
    P_BUMP_RATE,
    P_KEEP_RATE,
) = range(len(RANDOM_PARAM_NAMES))
# A random strategy's probabilities become integer thresholds out of RATE_ONE: a choice is made
# when bounded(RATE_ONE) < round(rate * RATE_ONE).
RATE_ONE = 1 << 15
HEURISTIC_PARAM_NAMES = (
    "aggression",
    "nil_threshold",
    "nil_max_spades",
    "ace",
    "king",
    "queen",
    "long_spade",
    "ruff",
    "blind_nil_deficit",
    "blind_bid_deficit",
    "blind_bid",
    "bump_threshold",
    "keep_rank",
    "draw_scale",
    "trump_honour",
    "long_suit",
    "nil_max_high",
    "nil_partner_min",
    "bag_guard",
    "bag_guard_boost",
    "endgame_points",
    "endgame_safe",
    "endgame_push",
    "cover_nil",
    "bust_nil",
    "avoid_bags",
    "set_margin",
)
(
    P_AGGRESSION,
    P_NIL_THRESHOLD,
    P_NIL_MAX_SPADES,
    P_ACE,
    P_KING,
    P_QUEEN,
    P_LONG_SPADE,
    P_RUFF,
    P_BLIND_NIL_DEFICIT,
    P_BLIND_BID_DEFICIT,
    P_BLIND_BID,
    P_BUMP_THRESHOLD,
    P_KEEP_RANK,
    P_DRAW_SCALE,
    P_TRUMP_HONOUR,
    P_LONG_SUIT,
    P_NIL_MAX_HIGH,
    P_NIL_PARTNER_MIN,
    P_BAG_GUARD,
    P_BAG_GUARD_BOOST,
    P_ENDGAME_POINTS,
    P_ENDGAME_SAFE,
    P_ENDGAME_PUSH,
    P_COVER_NIL,
    P_BUST_NIL,
    P_AVOID_BAGS,
    P_SET_MARGIN,
) = range(len(HEURISTIC_PARAM_NAMES))
# The play policy's switches reach the card choice packed in a byte per seat (a parameter tuple
# picked by a runtime seat would cost a jump table per card): cover_nil, bust_nil, NOT
# avoid_bags, and set_margin + 1 in the top five bits. So the bits of PLAY_AFTER_CONTRACT are
# all clear by default, and one test skips both switches that act once the contract is made.
PLAY_COVER_NIL = 1
PLAY_BUST_NIL = 2
PLAY_KEEP_BAGS = 4
PLAY_SET_SHIFT = 3
PLAY_AFTER_CONTRACT = 0xFC
# The search player (``mc``): the heuristic's parameters, then its own.
MC_PARAM_NAMES = HEURISTIC_PARAM_NAMES + ("samples", "bid_tolerance", "sample_tries")
P_SAMPLES, P_BID_TOLERANCE, P_SAMPLE_TRIES = range(len(HEURISTIC_PARAM_NAMES),
                                                   len(MC_PARAM_NAMES))
# The search player's stream: key ``play_key ^ SEARCH_KEY_XOR``, key index as the hand's.
SEARCH_KEY_XOR = 0x5EA4C4ED5EA4C4ED
assert len(MC_PARAM_NAMES) <= N_PARAMS

# Per-hand output arrays (struct of arrays, one row per hand), passed to the entry kernels as
# one namedtuple. ``records.py`` allocates them; dtypes are listed there.
HAND_FIELDS = (
    "hand_id",
    "game_id",
    "dealer",
    "first_leader",
    "hands",
    "blind",
    "bids",
    "bumped",
    "tricks",
    "score_before",
    "bags_before",
    "score_delta",
    "bags_after",
    "plays",
    "play_seats",
    "exchange",
)
GAME_FIELDS = ("game_id", "first_dealer", "n_hands", "winner", "final_score", "final_bags")
