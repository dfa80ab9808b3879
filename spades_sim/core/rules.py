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
import re
from collections import namedtuple
from dataclasses import dataclass, fields

from .bidmodel import shape_index
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

    @property
    def max_hand_points(self) -> int:
        """The most points a side can win or lose in one hand of these rules: every
        ``score_delta`` lies in ``-max_hand_points..max_hand_points`` (:func:`hand_points_bound`).
        """
        return hand_points_bound(self.hand_size, self.nil_bonus, self.blind_nil_bonus,
                                 self.double_nil_bonus, self.blind_bid_bonus_per_trick,
                                 self.overtrick_points, self.bag_penalty)

    def max_score(self, n_hands: int) -> int:
        """The most points a side can hold, either way, after ``n_hands`` hands of a game."""
        return n_hands * self.max_hand_points

    def max_bags(self, n_hands: int) -> int:
        """The highest bag counter a side can hold after ``n_hands`` hands of a game: below a
        non-zero ``bag_limit``, and at most one bag per trick played."""
        most = n_hands * self.hand_size
        return min(most, self.bag_limit - 1) if self.bag_limit > 0 else most

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
                      trump_share=self.trump_share,
                      bid_model=shape_index(self.players, self.deck, self.partnership))
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

# -- the bounds of the integer fields ------------------------------------------------------------
# docs/rules.md ("Bounds") explains them. In short: every points value is at most MAX_POINTS
# (10**10, a hundred million times the classic values), so one hand moves a side's score by at
# most ``Rules.max_hand_points`` (72 * MAX_POINTS + 357 at worst) and a whole game of
# MAX_HAND_CAP hands by at most MAX_SCORE (about 7.6e17): twelve times below 2**63, and the
# difference of two scores (a deficit) six times below. The kernels compute in int64, the record
# arrays and tidy frames hold scores as int64 and bag counters as int32, the twin and the
# hand-log replay in Python ints; none of them can overflow.
MAX_POINTS = 10**10
MAX_HAND_SIZE = 17  # three players
# Game g's hands use key indices (g << GAME_SHIFT) + 1 + j (core/seeding.py).
MAX_HAND_CAP = (1 << GAME_SHIFT) - 2
# A bag counter stays below a non-zero bag_limit; with bag_limit 0 it grows by at most a hand's
# tricks a hand: MAX_HAND_SIZE * MAX_HAND_CAP (about 1.8e7) in a game. Both stay far inside int32.
MAX_BAG_LIMIT = 10**8

# (lowest, highest) of each integer field. blind_bid_max and min_team_bid are further capped by
# the hand size, mercy by the target (``_validate``).
BOUNDS: dict[str, tuple[int, int]] = {
    "players": (2, 4),
    "nil_bonus": (0, MAX_POINTS),
    "blind_nil_bonus": (0, MAX_POINTS),
    "blind_nil_min_deficit": (0, MAX_POINTS),
    "blind_nil_exchange": (0, 4),
    "nil_exchange": (0, 4),
    "double_nil_bonus": (0, MAX_POINTS),
    "blind_bid_max": (1, MAX_HAND_SIZE),
    "blind_bid_min_deficit": (0, MAX_POINTS),
    "blind_bid_bonus_per_trick": (0, MAX_POINTS),
    "min_team_bid": (0, MAX_HAND_SIZE),
    "overtrick_points": (0, MAX_POINTS),
    "bag_limit": (0, MAX_BAG_LIMIT),
    "bag_penalty": (0, MAX_POINTS),
    "target": (1, MAX_POINTS),
    "mercy": (-MAX_POINTS, MAX_POINTS - 1),
    "max_hands": (1, MAX_HAND_CAP),
    "hand_cap": (1, MAX_HAND_CAP),
}
_INTS = set(BOUNDS)


def hand_points_bound(hand_size: int, nil_bonus: int, blind_nil_bonus: int,
                      double_nil_bonus: int, blind_bid_bonus_per_trick: int,
                      overtrick_points: int, bag_penalty: int) -> int:
    """The most points one side can win or lose in one hand (``docs/rules.md``, "Bounds").

    A side has at most two seats and takes at most ``hand_size`` tricks: nil bonuses at most
    four bonuses (``doubled_no_penalty``) or the double-nil bonus; blind number bids at most
    ``2 * hand_size`` tricks bid; the contract at most 200 or 10 per trick of ``2 * hand_size``
    bid; overtricks, failed-nil bags and bag penalties (at most one per bag of the hand, with
    ``bag_limit = 1``) at most one per trick each.

    >>> hand_points_bound(13, 100, 200, 200, 10, 1, 100)  # classic
    2646
    """
    return (max(4 * max(nil_bonus, blind_nil_bonus), double_nil_bonus)
            + 2 * hand_size * blind_bid_bonus_per_trick
            + hand_size * (overtrick_points + bag_penalty + 1)
            + max(200, 20 * hand_size))


# The most points a side can hold after any game, either way (every points field at its bound,
# 17 tricks a hand, MAX_HAND_CAP hands).
MAX_SCORE = MAX_HAND_CAP * hand_points_bound(MAX_HAND_SIZE, *[MAX_POINTS] * 6)


def _fail(field: str, message: str):
    raise RulesError(f"rule {field}: {message}")


def show_int(value: int) -> str:
    """An int for a one-line message: its digits, or its size when it has too many to print
    (``str`` refuses ints of more than 4300 digits).

    >>> show_int(-12), show_int(10**60)
    ('-12', 'an integer of 200 bits')
    """
    if abs(value) < 10**40:
        return str(value)
    return f"{'a negative' if value < 0 else 'an'} integer of {abs(value).bit_length()} bits"


def _out_of_range(field: str, value: int, low: int, high: int, optional: bool = False):
    allowed = f"{'null or ' if optional else ''}{low}..{high}"
    _fail(field, f"{show_int(value)} is out of range; allowed: {allowed}")


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
                _fail(name, f"{_show(value)} is not one of {allowed}")
        elif name in _INTS:
            if value is None and name in _OPTIONAL_INTS:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                _fail(name, f"{_show(value)} is not an integer")
            low, high = BOUNDS[name]
            if name == "mercy":  # (the target, an earlier field, is checked by now)
                high = min(high, rules.target - 1)
                if high < value <= BOUNDS[name][1]:
                    _fail(name, f"{value} is not below the target {rules.target}; allowed: "
                                f"null or {low}..{high}")
            if not low <= value <= high:
                _out_of_range(name, value, low, high, name in _OPTIONAL_INTS)
    if rules.partnership and rules.players != 4:
        _fail("partnership", "true only with 4 players; allowed with 2 or 3 players: false")
    for name in ("blind_nil_exchange", "nil_exchange"):
        value = getattr(rules, name)
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
    if rules.blind_bid_max > rules.hand_size:
        _out_of_range("blind_bid_max", rules.blind_bid_max, 1, rules.hand_size)
    if rules.min_team_bid and not rules.partnership:
        _fail("min_team_bid", "needs partnership scoring; allowed without: 0")
    if rules.min_team_bid > rules.hand_size:
        _out_of_range("min_team_bid", rules.min_team_bid, 0, rules.hand_size)
    if rules.bids_total_not_tricks and rules.min_team_bid >= rules.hand_size:
        # The last bidder, partner of a plain zero bid, could then have no legal bid at all.
        _fail("min_team_bid", f"{rules.min_team_bid} leaves the last bidder no legal bid with "
                              f"bids_total_not_tricks; allowed: 0..{rules.hand_size - 1}")


def _show(value) -> str:
    """A wrong value for a message: its repr, cut short when long."""
    text = show_int(value) if isinstance(value, int) and not isinstance(value, bool) \
        else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


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
    "KernelRules",
    FIELD_NAMES + ("has_mercy", "hand_size", "n_sides", "deck_mask", "trump_share", "bid_model"),
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
        if re.fullmatch(r"[+-]?[0-9]+", raw) and len(raw.lstrip("+-")) > 40:
            # int() refuses more than 4300 digits; any value this long is out of range anyway.
            low, high = BOUNDS[field]
            optional = "null or " if field in _OPTIONAL_INTS else ""
            _fail(field, f"an integer of {len(raw.lstrip('+-'))} digits is out of range; "
                         f"allowed: {optional}{low}..{high}")
        try:
            return field, int(raw)
        except ValueError:
            _fail(field, f"{_show(raw)} is not an integer")
    return field, raw


def build_rules(preset_name: str, override_texts=()) -> Rules:
    """Rules from a preset name and ``field=value`` texts (the CLI's ``--rules``/``--rule``)."""
    return preset(preset_name, **dict(parse_override(text) for text in override_texts))
