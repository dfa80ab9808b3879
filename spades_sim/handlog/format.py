"""The hand-log format (``docs/hand-log.md``): its version and fields."""

VERSION = 1
REQUIRED_FIELDS = ("v", "rules", "hand_id", "game_id", "dealer", "hands", "blind", "bids", "plays")
# Every field of the format, in the order of the spec's table (and of written lines).
FIELDS = ("v", "rules", "hand_id", "game_id", "dealer", "hands", "blind", "bids", "bumped",
          "exchange", "plays", "tricks", "score_before", "bags_before", "score_delta",
          "bags_after")
RESULT_FIELDS = ("tricks", "score_delta", "bags_after")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
