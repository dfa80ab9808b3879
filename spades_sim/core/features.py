"""Hand features and deal filters (pure Python): what a seat's dealt cards hold, named and
numbered once, and the filter that keeps only deals of a kind.

A *feature* is a number computed from one seat's dealt cards (:data:`FEATURES`, their codes are
their positions, which is how the kernels see them). A *deal filter* accepts or rejects a whole
deal: either declarative text such as ``seat0.spades >= 4 and seat0.aces == 0`` (parsed here,
never evaluated as Python: it becomes a table of clauses the engine evaluates as data), or a
Python function of the dealt hands. Runs draw filtered deals by rejection on each hand's deal
stream (``docs/runs.md``, "Conditional deals"), so the seeding contract holds.
"""

from __future__ import annotations

import re
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from .errors import DealFilterError

#: The features of one seat's dealt cards, in code order. Jokers count as spades (trumps).
FEATURES = ("clubs", "diamonds", "hearts", "spades", "hcp", "aces", "kings", "spade_honours",
            "voids", "singletons", "trick_estimate")
FEATURE_DOCS = {
    "clubs": "cards in clubs",
    "diamonds": "cards in diamonds",
    "hearts": "cards in hearts",
    "spades": "trumps: the spades and any jokers",
    "hcp": "high-card points: A 4, K 3, Q 2, J 1 in every suit, a joker 4",
    "aces": "aces (of any suit; jokers are not aces)",
    "kings": "kings (of any suit)",
    "spade_honours": "trump honours: the A, K and Q of spades and any jokers",
    "voids": "suits with no card (spades with jokers count as one suit)",
    "singletons": "suits with exactly one card",
    "trick_estimate": "the default heuristic's trick estimate of the hand, as its bids use it",
}
#: Comparison operators of a clause, in code order.
OPERATORS = ("<", "<=", "==", "!=", ">=", ">")
#: The feature columns of a run with cards (``core.par.CARDS_TYPES`` follows them): one per
#: feature, for the row's seat, named ``seat_<feature>``.
FEATURE_TYPES = {f"seat_{name}": ("float64" if name == "trick_estimate" else "int8")
                 for name in FEATURES}
#: A clause row of :meth:`DealFilter.clause_array`: group (clauses of one group are joined by
#: ``and``, groups by ``or``), seat, feature code, operator code, value.
CLAUSE_GROUP, CLAUSE_SEAT, CLAUSE_FEATURE, CLAUSE_OP, CLAUSE_VALUE = range(5)
#: Deals a filter may draw for one hand before the run stops with an error.
DEFAULT_MAX_TRIES = 100_000
MAX_TRIES_LIMIT = 1 << 30

#: One seat's features (and its ``cards`` bitboard): what a Python deal filter receives, one per
#: seat, in a tuple.
SeatFeatures = namedtuple("SeatFeatures", (*FEATURES, "cards"))

_TOKEN = re.compile(r"\s*(?:(?P<number>-?\d+(?:\.\d*)?|-?\.\d+)|(?P<op><=|>=|==|!=|<|>)"
                    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)?))")
_SEAT = re.compile(r"seat(\d+)$")


def _compare(left: float, op: int, right: float) -> bool:
    return (left < right, left <= right, left == right, left != right, left >= right,
            left > right)[op]


@dataclass(frozen=True)
class DealFilter:
    """A deal filter: declarative ``text`` (its ``clauses``) or a Python ``function`` of the
    dealt hands (a tuple of :class:`SeatFeatures`, one per seat, returning true to keep the
    deal); ``max_tries``: the deals one hand may draw before the run fails.

    >>> deal_filter = DealFilter.parse("seat0.spades >= 4 and seat0.aces == 0 or seat2.hcp > 15")
    >>> deal_filter.clauses
    ((0, 0, 3, 4, 4.0), (0, 0, 5, 2, 0.0), (1, 2, 4, 5, 15.0))
    """

    text: str | None = None
    function: object = None
    clauses: tuple = ()
    max_tries: int = DEFAULT_MAX_TRIES

    def __post_init__(self):
        if (self.text is None) == (self.function is None):
            raise DealFilterError("a deal filter is text or a function (exactly one)")
        if self.function is not None and not callable(self.function):
            raise DealFilterError(f"deal filter {self.function!r}: not text and not callable")
        tries = self.max_tries
        if isinstance(tries, bool) or not isinstance(tries, (int, np.integer)) or not (
                1 <= tries <= MAX_TRIES_LIMIT):
            raise DealFilterError(f"deal filter max_tries {tries!r}: expected an integer "
                                  f"1..{MAX_TRIES_LIMIT}")

    @classmethod
    def parse(cls, text: str, max_tries: int = DEFAULT_MAX_TRIES) -> DealFilter:
        """The filter of declarative text: comparisons ``seatN.FEATURE OP NUMBER`` joined by
        ``and`` and ``or`` (``and`` binds first; no parentheses). A one-line
        :class:`DealFilterError` gives the column of anything else."""
        if not isinstance(text, str):
            raise DealFilterError(f"deal filter {text!r}: expected text")
        return cls(text=text, clauses=tuple(_parse(text)), max_tries=max_tries)

    @property
    def is_function(self) -> bool:
        return self.function is not None

    def describe(self) -> str:
        """The text, or the function's name."""
        if self.text is not None:
            return self.text
        return getattr(self.function, "__qualname__", repr(self.function))

    def check(self, rules) -> None:
        """Refuse (one line) a filter that does not fit ``rules``: a seat the table lacks, or the
        two-player draw deal (its hands are chosen by the players, not dealt)."""
        if rules.deal == "draw":
            raise DealFilterError(f"deal filter {self.describe()!r}: the draw deal's hands are "
                                  f"picked by the players, so a deal filter needs deal = "
                                  f"\"shuffle\"")
        for clause in self.clauses:
            if clause[CLAUSE_SEAT] >= rules.players:
                raise DealFilterError(f"deal filter {self.text!r}: seat{clause[CLAUSE_SEAT]}: the "
                                      f"table has seats 0..{rules.players - 1}")

    def clause_array(self) -> np.ndarray:
        """The clauses as a C-contiguous float64 array of shape (n, 5) (the ``CLAUSE_*``
        columns), as the kernels read them; (0, 5) for a function."""
        return np.array(self.clauses, dtype=np.float64).reshape(len(self.clauses), 5)

    def accepts(self, seats) -> bool:
        """Whether the deal whose seats have the features ``seats`` (a sequence of
        :class:`SeatFeatures`) passes."""
        if self.function is not None:
            try:
                return bool(self.function(tuple(seats)))
            except Exception as error:  # (the user's code: one line naming it, not a traceback)
                raise DealFilterError(f"deal filter {self.describe()!r} raised "
                                      f"{type(error).__name__}: {error}") from error
        return accepts_clauses(self.clauses, [tuple(s) for s in seats])

    def identity(self) -> dict:
        """What a run's identity records (only text filters can be part of a run on disk)."""
        if self.text is None:
            raise DealFilterError(f"deal filter {self.describe()!r}: a Python function cannot be "
                                  f"stored with a run on disk; give it as text "
                                  f"(seat0.spades >= 4 ...)")
        return {"text": self.text, "max_tries": int(self.max_tries)}


def accepts_clauses(clauses, seat_values) -> bool:
    """Whether clause rows (``(group, seat, feature, op, value)``, groups in order) accept a
    deal whose seat ``s`` has feature ``f`` equal to ``seat_values[s][f]``."""
    if not clauses:
        return True
    group, ok = clauses[0][CLAUSE_GROUP], True
    for clause_group, seat, feature, op, value in clauses:
        if clause_group != group:
            if ok:
                return True
            group, ok = clause_group, True
        ok = ok and _compare(seat_values[seat][feature], op, value)
    return ok


def as_deal_filter(value, max_tries: int | None = None) -> DealFilter | None:
    """``None``, a :class:`DealFilter`, declarative text or a Python function, as a filter."""
    if value is None or isinstance(value, DealFilter):
        return value
    tries = DEFAULT_MAX_TRIES if max_tries is None else max_tries
    if isinstance(value, str):
        return DealFilter.parse(value, tries)
    if callable(value):
        return DealFilter(function=value, max_tries=tries)
    raise DealFilterError(f"deal filter {value!r}: expected text such as "
                          f"'seat0.spades >= 4' or a function of the dealt hands")


def _fail(text: str, column: int, why: str):
    raise DealFilterError(f"deal filter {text!r}: {why} at column {column + 1}")


def _parse(text: str):
    """Clause rows of ``text`` (see :meth:`DealFilter.parse`)."""
    tokens = []
    position = 0
    stripped = text.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None or match.end() == position:
            start = len(stripped) - len(stripped[position:].lstrip())
            _fail(text, start, f"unexpected {stripped[start]!r}")
        kind = match.lastgroup
        tokens.append((kind, match.group(kind), match.start(kind)))
        position = match.end()
    if not tokens:
        raise DealFilterError(f"deal filter {text!r}: empty; expected comparisons such as "
                              f"seat0.spades >= 4")
    clauses, group, index = [], 0, 0
    while True:
        if index + 3 > len(tokens):
            where = tokens[index][2] if index < len(tokens) else len(stripped)
            _fail(text, where, "expected a comparison seatN.FEATURE OP NUMBER")
        (k1, name, p1), (k2, op, p2), (k3, number, p3) = tokens[index:index + 3]
        if k1 != "name" or "." not in name:
            _fail(text, p1, f"expected seatN.FEATURE, found {name!r}")
        who, feature = name.split(".")
        seat = _SEAT.match(who)
        if seat is None:
            _fail(text, p1, f"expected seat0..seat3 before the dot, found {who!r}")
        if int(seat.group(1)) > 3:
            _fail(text, p1, f"no seat {seat.group(1)}: seats are 0..3")
        if feature not in FEATURES:
            _fail(text, p1 + len(who) + 1,
                  f"unknown feature {feature!r} (features: {', '.join(FEATURES)})")
        if k2 != "op":
            _fail(text, p2, f"expected a comparison ({' '.join(OPERATORS)}), found {op!r}")
        if k3 != "number":
            _fail(text, p3, f"expected a number, found {number!r}")
        clauses.append((group, int(seat.group(1)), FEATURES.index(feature),
                        OPERATORS.index(op), float(number)))
        index += 3
        if index == len(tokens):
            return clauses
        kind, word, where = tokens[index]
        if kind != "name" or word not in ("and", "or"):
            _fail(text, where, f"expected 'and' or 'or', found {word!r}")
        group += word == "or"
        index += 1


def count_features(rules, hand: int) -> list:
    """The features of one dealt hand but ``trick_estimate`` (left 0.0), in code order.

    >>> from spades_sim.core.rules import preset
    >>> from spades_sim.core.cards import mask_of, parse_card
    >>> hand = mask_of(parse_card(c) for c in "AS KS 2S AH KH QH JH 2D 3D 4D 5D 6D 7D".split())
    >>> dict(zip(FEATURES, count_features(preset("classic"), hand)))["hcp"]
    17
    """
    lengths = [((hand >> (13 * suit)) & 0x1FFF).bit_count() for suit in range(3)]
    lengths.append(((hand >> 39) & 0x7FFF).bit_count())
    ranks = [sum((hand >> (13 * suit + rank)) & 1 for suit in range(4)) for rank in range(13)]
    jokers = ((hand >> 52) & 3).bit_count()
    honours = ((hand >> 49) & 7).bit_count() + jokers
    hcp = 4 * (ranks[12] + jokers) + 3 * ranks[11] + 2 * ranks[10] + ranks[9]
    return [*lengths, hcp, ranks[12], ranks[11], honours, lengths.count(0), lengths.count(1), 0.0]
