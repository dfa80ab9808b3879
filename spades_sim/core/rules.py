"""Rules as data: the frozen, validated ``Rules`` dataclass, the named presets, the kernel tuple.

Every rule field of ``docs/rules.md`` is a field here with the default of ``classic``. A rule
value reaches the kernels only through :meth:`Rules.kernel_tuple`, a :class:`KernelRules` named
tuple of int64 that the kernels read by name (``rules.target``): a named tuple compiles to the
same code as a plain one, and changing a rule value never recompiles anything.

This module is the one table of the rule fields, their choices and their kernel slots: the
kernel tuple's fields are the rule fields in order, then the derived ones.
"""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from dataclasses import dataclass, fields

from .cards import JOKER_MASK, STANDARD_DECK_MASK, TRUMP_MASK
from .errors import RulesError
from .seeding import GAME_SHIFT

# The choices of the rules' text fields, in the order of their kernel codes (a kernel reads
# ``rules.deck == code("deck", "jokers")``).
CHOICES: dict[str, tuple[str, ...]] = {
    "deck": ("standard", "jokers"),
    "deal": ("standard", "draw"),
    "first_leader": ("dealer_left", "random", "two_of_clubs"),
    "spades_lead": ("broken", "anytime", "after_first_trick"),
    "double_nil": ("additive", "fixed", "doubled_no_penalty"),
    "set_penalty": ("per_bid", "per_trick_short"),
    "failed_nil_tricks": ("bags_only", "count_toward_bid"),
}


def code(field: str, value: str) -> int:
    """The kernel code of a text field's value.

    >>> code("deck", "jokers"), code("set_penalty", "per_bid")
    (1, 0)
    """
    return CHOICES[field].index(value)


@dataclass(frozen=True)
class Rules:
    """One rule variant. Build it with :func:`preset` or :func:`rules_from_spec`."""

    players: int = 4
    partnership: bool = True
    deck: str = "standard"
    deal: str = "standard"
    misdeal_redeal: bool = False
    first_leader: str = "dealer_left"
    spades_lead: str = "broken"
    broken_by_forced_lead: bool = True
    nil: bool = True
    nil_bonus: int = 100
    blind_nil: bool = True
    blind_nil_bonus: int = 200
    blind_nil_min_deficit: int = 0
    blind_nil_exchange: int = 3
    nil_exchange: int = 0
    double_nil: str = "additive"
    double_nil_bonus: int = 200
    blind_bids: bool = False
    blind_bid_max: int = 7
    blind_bid_min_deficit: int = 100
    blind_bid_bonus_per_trick: int = 10
    bids_total_not_tricks: bool = False
    min_team_bid: int = 0
    bid_bump: bool = False
    set_penalty: str = "per_bid"
    failed_nil_tricks: str = "bags_only"
    ten_for_two_hundred: bool = False
    overtrick_points: int = 1
    bag_limit: int = 10
    bag_penalty: int = 100
    target: int = 500
    mercy: int | None = None
    max_hands: int | None = None
    hand_cap: int = 200
    # The preset this variant started from (informational; logs name it).
    preset_name: str = dataclasses.field(default="classic", compare=False)

    def __post_init__(self):
        _validate(self)

    # -- derived values -------------------------------------------------------------------
    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat: 13, or 17 with three players (2C removed)."""
        return 17 if self.players == 3 else 13

    @property
    def n_sides(self) -> int:
        """Scoring sides: two teams in partnership, else one per player."""
        return 2 if self.partnership else self.players

    @property
    def deck_mask(self) -> int:
        """Bitboard of the cards in play."""
        if self.deck == "jokers":
            # 2C and 2D leave the deck; LJ and BJ join it.
            return (STANDARD_DECK_MASK & ~(1 | (1 << 13))) | JOKER_MASK
        if self.players == 3:
            return STANDARD_DECK_MASK & ~1  # 2C removed: 51 cards, 17 each
        return STANDARD_DECK_MASK

    @property
    def trump_share(self) -> int:
        """A seat's expected number of trumps, rounded: ``round(trumps in the deck * hand_size /
        cards in the deck)`` (3 for classic, 4 with jokers or three players)."""
        n_cards = bin(self.deck_mask).count("1")
        n_trumps = bin(self.deck_mask & TRUMP_MASK).count("1")
        return (2 * n_trumps * self.hand_size + n_cards) // (2 * n_cards)

    def side_of(self, seat: int) -> int:
        """Scoring side of a seat: team ``seat % 2`` in partnership, else the seat itself."""
        return seat % 2 if self.partnership else seat

    def kernel_tuple(self) -> KernelRules:
        """The rules as the kernels read them: a :class:`KernelRules` of ints."""
        values = {}
        for name in FIELD_NAMES:
            value = getattr(self, name)
            if name in CHOICES:
                value = code(name, value)
            values[name] = 0 if value is None else int(value)
        values.update(has_mercy=int(self.mercy is not None), hand_size=self.hand_size,
                      n_sides=self.n_sides, deck_mask=self.deck_mask,
                      trump_share=self.trump_share)
        return KernelRules(**values)

    def overrides(self) -> dict:
        """The fields that differ from this variant's preset (for logs and metadata)."""
        base = Rules(**PRESETS[self.preset_name])
        return {
            name: getattr(self, name)
            for name in FIELD_NAMES
            if getattr(self, name) != getattr(base, name)
        }

    def to_spec(self):
        """The hand-log ``rules`` value: the preset name, or ``{"preset": ..., overrides}``."""
        extra = self.overrides()
        if not extra:
            return self.preset_name
        return {"preset": self.preset_name, **extra}

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "preset_name"}


# One line of meaning per field, for `spades-sim rules`.
FIELD_DOCS = {
    "players": "number of players: 2, 3 or 4",
    "partnership": "4 players in two teams {0,2} and {1,3}; otherwise each player scores alone",
    "deck": "standard 52 cards, or jokers: BJ > LJ > AS trumps, 2C and 2D removed",
    "deal": "standard shuffle-and-deal, or draw (two players pick from pairs off the stock)",
    "misdeal_redeal": "redeal when a hand has no spade or no K, Q or J (3+ players)",
    "first_leader": "who leads trick 1: dealer_left, random, or two_of_clubs (its holder leads it)",
    "spades_lead": "when spades may be led: broken, anytime, after_first_trick",
    "broken_by_forced_lead": "leading a spade from an all-spade hand also breaks spades",
    "nil": "a bid of 0 is nil (bonus if no trick, penalty otherwise)",
    "nil_bonus": "points won or lost by a nil bid",
    "blind_nil": "blind nil may be bid before looking at the cards",
    "blind_nil_bonus": "points won or lost by a blind nil bid",
    "blind_nil_min_deficit": "blind nil only when the side trails the leader by at least this",
    "blind_nil_exchange": "cards a blind-nil bidder and partner exchange (0 = none)",
    "nil_exchange": "cards a nil bidder and partner exchange (0 = none)",
    "double_nil": "both partners nil: additive, fixed (double_nil_bonus), doubled_no_penalty",
    "double_nil_bonus": "points of the fixed double-nil scoring",
    "blind_bids": "blind number bids 1..blind_bid_max may be made before looking",
    "blind_bid_max": "highest blind number bid",
    "blind_bid_min_deficit": "blind number bids only when trailing the leader by at least this",
    "blind_bid_bonus_per_trick": "bonus per trick of a blind bid made exactly (else lost)",
    "bids_total_not_tricks": "the last bidder may not make the bids total the number of tricks",
    "min_team_bid": "a team's two bids must total at least this, unless one is nil",
    "bid_bump": "after bidding, each non-nil, non-blind bidder may raise their bid by 1",
    "set_penalty": "a set contract loses 10 per trick bid (per_bid) or per trick short",
    "failed_nil_tricks": "a failed nil's tricks are bags_only or count_toward_bid of the partner",
    "ten_for_two_hundred": "a made contract of 10+ scores 200 (set: -200)",
    "overtrick_points": "points per overtrick (bag)",
    "bag_limit": "bags that trigger a penalty (0 = no bag penalty at all)",
    "bag_penalty": "points lost each time the bag counter reaches bag_limit",
    "target": "points that end the game",
    "mercy": "a side at or below this score ends the game (null = off)",
    "max_hands": "the game ends after this many hands (1 = quick game; null = off)",
    "hand_cap": "a game not over after this many hands is a draw",
}

_CHOICES = {"players": (2, 3, 4), **CHOICES}
_BOOLS = {f.name for f in fields(Rules) if f.type in ("bool", bool)}
_OPTIONAL_INTS = {"mercy", "max_hands"}
_NON_NEGATIVE = {
    "nil_bonus", "blind_nil_bonus", "blind_nil_min_deficit", "double_nil_bonus",
    "blind_bid_min_deficit", "blind_bid_bonus_per_trick", "min_team_bid", "overtrick_points",
    "bag_limit", "bag_penalty",
}
_INTS = _NON_NEGATIVE | {"players", "blind_nil_exchange", "nil_exchange", "blind_bid_max",
                         "target", "hand_cap"} | _OPTIONAL_INTS
MAX_HAND_CAP = (1 << GAME_SHIFT) - 2


def _fail(field: str, message: str):
    raise RulesError(f"rule {field}: {message}")


def _validate(rules: Rules) -> None:
    for field in fields(rules):
        name, value = field.name, getattr(rules, field.name)
        if name == "preset_name":
            continue
        if name in _BOOLS:
            if not isinstance(value, bool):
                _fail(name, f"{value!r} is not a bool (true or false)")
        elif name in _CHOICES:
            if value not in _CHOICES[name]:
                allowed = ", ".join(str(c) for c in _CHOICES[name])
                _fail(name, f"{value!r} is not one of {allowed}")
        elif name in _INTS:
            if value is None and name in _OPTIONAL_INTS:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                _fail(name, f"{value!r} is not an integer")
            if name in _NON_NEGATIVE and value < 0:
                _fail(name, f"{value} is negative; allowed: an integer >= 0")
    if rules.partnership and rules.players != 4:
        _fail("partnership", "true only with 4 players; allowed with 2 or 3 players: false")
    for name in ("blind_nil_exchange", "nil_exchange"):
        value = getattr(rules, name)
        if not 0 <= value <= 4:
            _fail(name, f"{value} is out of range; allowed: 0..4")
        if value > 0 and not rules.partnership:
            _fail(name, f"an exchange needs partnership scoring; allowed with "
                        f"{rules.players} individual players: 0")
    if rules.deal == "draw" and rules.players != 2:
        _fail("deal", f"draw is a two-player deal; allowed with {rules.players} players: standard")
    if rules.deck == "jokers" and rules.players != 4:
        _fail("deck", "jokers is a four-player deck; allowed with fewer players: standard")
    if rules.misdeal_redeal and rules.players < 3:
        _fail("misdeal_redeal", "applies only to 3 or more players; allowed with 2: false")
    if rules.first_leader == "two_of_clubs" and (
        rules.players != 4 or rules.deck == "jokers" or rules.deal == "draw"
    ):
        _fail("first_leader", "two_of_clubs needs 2C dealt (4 players, standard deck); "
                              "allowed here: dealer_left, random")
    if not 1 <= rules.blind_bid_max <= rules.hand_size:
        _fail("blind_bid_max", f"{rules.blind_bid_max} is out of range; allowed: "
                               f"1..{rules.hand_size}")
    if rules.min_team_bid and not rules.partnership:
        _fail("min_team_bid", "needs partnership scoring; allowed without: 0")
    if rules.min_team_bid > rules.hand_size:
        _fail("min_team_bid", f"{rules.min_team_bid} is out of range; allowed: "
                              f"0..{rules.hand_size}")
    if rules.bids_total_not_tricks and rules.min_team_bid >= rules.hand_size:
        # The last bidder, partner of a plain zero bid, could then have no legal bid at all.
        _fail("min_team_bid", f"{rules.min_team_bid} leaves the last bidder no legal bid with "
                              f"bids_total_not_tricks; allowed: 0..{rules.hand_size - 1}")
    if rules.target < 1:
        _fail("target", f"{rules.target} is out of range; allowed: an integer >= 1")
    if not 1 <= rules.hand_cap <= MAX_HAND_CAP:
        _fail("hand_cap", f"{rules.hand_cap} is out of range; allowed: 1..{MAX_HAND_CAP}")
    if rules.max_hands is not None and rules.max_hands < 1:
        _fail("max_hands", f"{rules.max_hands} is out of range; allowed: null or an integer >= 1")
    if rules.mercy is not None and rules.mercy >= rules.target:
        _fail("mercy", f"{rules.mercy} is not below the target {rules.target}")


PRESETS: dict[str, dict] = {
    "classic": {},
    "casual": {"first_leader": "random", "misdeal_redeal": True, "double_nil": "fixed",
               "double_nil_bonus": 500, "blind_nil": False},
    "cutthroat": {"players": 3, "partnership": False, "first_leader": "random",
                  "misdeal_redeal": True, "blind_nil": False, "blind_nil_exchange": 0},
    "two-player": {"players": 2, "partnership": False, "deal": "draw", "blind_nil": False,
                   "blind_nil_exchange": 0},
    "simple": {"set_penalty": "per_trick_short", "blind_nil": False,
               "broken_by_forced_lead": False},
    "tournament": {"double_nil": "doubled_no_penalty", "blind_nil": True, "blind_nil_bonus": 200,
                   "blind_nil_min_deficit": 100, "blind_nil_exchange": 3, "blind_bids": True,
                   "blind_bid_max": 7, "blind_bid_min_deficit": 100,
                   "blind_bid_bonus_per_trick": 10, "bid_bump": True,
                   "bids_total_not_tricks": True},
    "jokers": {"deck": "jokers"},
    "openspiel": {"failed_nil_tricks": "count_toward_bid", "blind_nil": False},
}

# One line per preset for `spades-sim rules` (docs/rules.md describes each in full).
PRESET_DOCS = {
    "classic": "four players in two partnerships, nil and blind nil, 10 bags cost 100, to 500",
    "casual": "classic with a random first leader, misdeal redeals, a fixed 500-point double "
              "nil and no blind nil",
    "cutthroat": "three players each on their own, 17 cards each (2C removed)",
    "two-player": "two players building their hands by the draw deal",
    "simple": "a set costs 10 per trick short, no blind nil; a forced spade lead does not "
              "break spades",
    "tournament": "blind nil and blind bids only 100 behind, doubled double nil, bid bumps, "
                  "bids may not total 13",
    "jokers": "classic with the big and little jokers as the top trumps (2C and 2D removed)",
    "openspiel": "classic scored as OpenSpiel scores it: a failed nil's tricks count toward the "
                 "partner's bid; no blind nil",
}

FIELD_NAMES = tuple(f.name for f in fields(Rules) if f.name != "preset_name")
# What the kernels read: every rule field (``mercy`` and ``max_hands`` as 0 when off), then
# ``has_mercy`` and the derived values.
KernelRules = namedtuple(
    "KernelRules", FIELD_NAMES + ("has_mercy", "hand_size", "n_sides", "deck_mask", "trump_share")
)


def preset(name: str, **overrides) -> Rules:
    """The named preset, with optional field overrides.

    >>> preset("classic").target
    500
    >>> preset("simple", target=300).set_penalty
    'per_trick_short'
    """
    if name not in PRESETS:
        raise RulesError(f"unknown preset {name!r}; allowed: {', '.join(PRESETS)}")
    for field in overrides:
        if field not in FIELD_NAMES:
            raise RulesError(f"unknown rule field {field!r}; allowed: {', '.join(FIELD_NAMES)}")
    return Rules(**{**PRESETS[name], **overrides, "preset_name": name})


def rules_from_spec(spec) -> Rules:
    """Rules from a hand-log ``rules`` value: a preset name or ``{"preset": NAME, ...}``."""
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, str):
        return preset(spec)
    if isinstance(spec, dict):
        spec = dict(spec)
        name = spec.pop("preset", "classic")
        if not isinstance(name, str):
            raise RulesError(f"rule preset: {name!r} is not a preset name")
        return preset(name, **spec)
    raise RulesError(f"rules: {spec!r} is neither a preset name nor an object")


def parse_override(text: str) -> tuple[str, object]:
    """Parse a ``field=value`` override from the command line.

    >>> parse_override("target=300"), parse_override("mercy=null"), parse_override("nil=false")
    (('target', 300), ('mercy', None), ('nil', False))
    """
    if "=" not in text:
        raise RulesError(f"rule override {text!r}: expected field=value")
    field, raw = (part.strip() for part in text.split("=", 1))
    if field not in FIELD_NAMES:
        raise RulesError(f"unknown rule field {field!r}; allowed: {', '.join(FIELD_NAMES)}")
    lowered = raw.lower()
    if field in _BOOLS:
        if lowered in ("true", "1", "yes", "on"):
            return field, True
        if lowered in ("false", "0", "no", "off"):
            return field, False
        _fail(field, f"{raw!r} is not a bool (true or false)")
    if field in _INTS:
        if field in _OPTIONAL_INTS and lowered in ("null", "none", ""):
            return field, None
        try:
            return field, int(raw)
        except ValueError:
            _fail(field, f"{raw!r} is not an integer")
    return field, raw


def build_rules(preset_name: str, override_texts=()) -> Rules:
    """Rules from a preset name and ``field=value`` texts (the CLI's ``--rules``/``--rule``)."""
    return preset(preset_name, **dict(parse_override(text) for text in override_texts))
