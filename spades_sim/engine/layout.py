"""The engine's constant names for the core's tables (no numba import).

Every table lives once in ``core``: the rule fields and their text choices (``core/rules.py``),
the strategy kinds and their parameter lists (``core/strategies.py``), the record sizes
(``core/schema.py``) and the key scheme (``core/seeding.py``). The kernels read the rules by
name (``rules.target``) from the :class:`~spades_sim.core.rules.KernelRules` named tuple; here
the other tables become the plain integer constants the kernels compile in (numba freezes a
module-level int into the compiled code, which is right for constants and never for rule values
or parameters).
"""

from ..core.rules import code
from ..core.schema import MAX_EXCHANGE, MAX_PLAYS, MAX_SEATS, MAX_SIDES  # noqa: F401
from ..core.seeding import GAME_SHIFT, SEARCH_KEY_XOR  # noqa: F401
from ..core.strategies import (  # noqa: F401
    N_PARAMS,
    RATE_ONE,
    STRATEGY_HEURISTIC,
    STRATEGY_MC,
    STRATEGY_RANDOM,
    slot,
)

# Codes of the rules' text fields.
DECK_STANDARD, DECK_JOKERS = code("deck", "standard"), code("deck", "jokers")
DEAL_STANDARD, DEAL_DRAW = code("deal", "standard"), code("deal", "draw")
FIRST_LEADER_DEALER_LEFT = code("first_leader", "dealer_left")
FIRST_LEADER_RANDOM = code("first_leader", "random")
FIRST_LEADER_TWO_OF_CLUBS = code("first_leader", "two_of_clubs")
SPADES_LEAD_BROKEN = code("spades_lead", "broken")
SPADES_LEAD_ANYTIME = code("spades_lead", "anytime")
SPADES_LEAD_AFTER_FIRST_TRICK = code("spades_lead", "after_first_trick")
DOUBLE_NIL_ADDITIVE = code("double_nil", "additive")
DOUBLE_NIL_FIXED = code("double_nil", "fixed")
DOUBLE_NIL_DOUBLED_NO_PENALTY = code("double_nil", "doubled_no_penalty")
SET_PER_BID = code("set_penalty", "per_bid")
SET_PER_TRICK_SHORT = code("set_penalty", "per_trick_short")
FAILED_NIL_BAGS_ONLY = code("failed_nil_tricks", "bags_only")
FAILED_NIL_COUNT_TOWARD_BID = code("failed_nil_tricks", "count_toward_bid")

# Parameter slots the kernels read (the lists and their order: ``core/strategies.py``).
P_RANDOM_BID_MIN = slot("random", "bid_min")
P_RANDOM_BID_MAX = slot("random", "bid_max")
P_BLIND_NIL_RATE = slot("random", "blind_nil_rate")
P_BLIND_BID_RATE = slot("random", "blind_bid_rate")
P_BUMP_RATE = slot("random", "bump_rate")
P_KEEP_RATE = slot("random", "keep_rate")
P_AGGRESSION = slot("heuristic", "aggression")
P_NIL_THRESHOLD = slot("heuristic", "nil_threshold")
P_NIL_MAX_SPADES = slot("heuristic", "nil_max_spades")
P_ACE = slot("heuristic", "ace")
P_KING = slot("heuristic", "king")
P_QUEEN = slot("heuristic", "queen")
P_LONG_SPADE = slot("heuristic", "long_spade")
P_RUFF = slot("heuristic", "ruff")
P_BLIND_NIL_DEFICIT = slot("heuristic", "blind_nil_deficit")
P_BLIND_BID_DEFICIT = slot("heuristic", "blind_bid_deficit")
P_BLIND_BID = slot("heuristic", "blind_bid")
P_BUMP_THRESHOLD = slot("heuristic", "bump_threshold")
P_KEEP_RANK = slot("heuristic", "keep_rank")
P_DRAW_SCALE = slot("heuristic", "draw_scale")
P_TRUMP_HONOUR = slot("heuristic", "trump_honour")
P_LONG_SUIT = slot("heuristic", "long_suit")
P_NIL_MAX_HIGH = slot("heuristic", "nil_max_high")
P_NIL_PARTNER_MIN = slot("heuristic", "nil_partner_min")
P_BAG_GUARD = slot("heuristic", "bag_guard")
P_BAG_GUARD_BOOST = slot("heuristic", "bag_guard_boost")
P_ENDGAME_POINTS = slot("heuristic", "endgame_points")
P_ENDGAME_SAFE = slot("heuristic", "endgame_safe")
P_ENDGAME_PUSH = slot("heuristic", "endgame_push")
P_COVER_NIL = slot("heuristic", "cover_nil")
P_BUST_NIL = slot("heuristic", "bust_nil")
P_AVOID_BAGS = slot("heuristic", "avoid_bags")
P_SET_MARGIN = slot("heuristic", "set_margin")
P_EV_BID = slot("heuristic", "ev_bid")
P_BAG_WEIGHT = slot("heuristic", "bag_weight")
P_TARGET_BONUS = slot("heuristic", "target_bonus")
P_NIL_MARGIN = slot("heuristic", "nil_margin")
P_BLIND_MARGIN = slot("heuristic", "blind_margin")
P_RULE_PLAY = slot("heuristic", "rule_play")
P_SAMPLES = slot("mc", "samples")
P_BID_TOLERANCE = slot("mc", "bid_tolerance")
P_SAMPLE_TRIES = slot("mc", "sample_tries")

# The play policy's switches reach the card choice packed in a byte per seat (a parameter tuple
# picked by a runtime seat would cost a jump table per card): cover_nil, bust_nil, NOT
# avoid_bags, and set_margin + 1 in the top five bits. So the bits of PLAY_AFTER_CONTRACT are
# all clear by default, and one test skips both switches that act once the contract is made.
PLAY_COVER_NIL = 1
PLAY_BUST_NIL = 2
PLAY_KEEP_BAGS = 4
PLAY_SET_SHIFT = 3
PLAY_AFTER_CONTRACT = 0xFC
# rule_play: a side this close to its bag limit ducks once its contract is made.
RULE_BAG_ROOM = 2
