"""The number lines of a configuration: the same rules and strategies with nil bidding turned
off on one side, for the paired value of nil (``analysis.nil.nil_paired_value``).

Every configuration of a run plays the same deals (the same seed and hand ids), so a
configuration whose seats on side ``k`` never bid nil, otherwise identical, replays each deal
with side ``k``'s would-be nil bidder bidding its number instead: the seat bids what the
heuristic bids when nil is not chosen (``round(estimate + aggression)``, at least 1). Only the
bidder's side loses its nil: the opponents keep theirs, so a nil side-hand is compared with the
same deal in which the opponents bid exactly as they did. Nil is turned off for the bidder's
partner as well, which changes nothing on the hands where the bidder bid nil (the heuristic
never bids nil beside a partner's nil) and keeps the partner from bidding a nil it did not bid
beside the nil. Number bids of the heuristic do not depend on the others' bids, except where the
rules constrain them (``bids_total_not_tricks``: the last bidder may not make the bids total
the tricks; ``min_team_bid``) or a bid is bumped: ``analysis.nil.nil_paired_value`` counts the
side-hands in which another seat's bid changed.

One number line per side (``NAME~number0``, ``NAME~number1``, ...; partnerships have two).
Nil is turned off by parameters the heuristic already has: ``nil_threshold`` below any trick
estimate (:data:`NO_NIL_THRESHOLD`) and ``blind_nil_deficit`` above any score difference
(:data:`NO_BLIND_NIL_DEFICIT`). Seats whose strategies lack them (``random``, plug-ins) cannot
have nil turned off: their side gets no number line.
"""

from __future__ import annotations

import re

from ..core.strategies import Strategy, make_strategy
from ..run import Config

#: Suffix of a number line's configuration name, before its side (``classic~number0``);
#: experiment names never hold ``~``, so it cannot clash with a configuration of the file.
NUMBER_LINE = "~number"
#: ``nil_threshold`` of a number line: the heuristic bids nil when its trick estimate is at most
#: this, and the estimate is a sum of card weights over at most 17 cards.
NO_NIL_THRESHOLD = -1e9
#: ``blind_nil_deficit`` of a number line: above any deficit a game can reach (twice
#: ``core.rules.MAX_SCORE``, under 1.6e18).
NO_BLIND_NIL_DEFICIT = 1e19
_NIL_KINDS = ("heuristic", "mc")
_LINE = re.compile(re.escape(NUMBER_LINE) + r"(\d+)$")


def number_strategy(strategy) -> Strategy | None:
    """``strategy`` with nil and blind nil turned off, or None when its kind has no parameter
    for that (``random``, a plug-in).

    >>> str(number_strategy(make_strategy("cautious")))
    'cautious:nil_threshold=-1000000000,blind_nil_deficit=10000000000000000000'
    >>> number_strategy(make_strategy("random")) is None
    True
    """
    if not isinstance(strategy, Strategy) or strategy.kind.name not in _NIL_KINDS:
        return None
    params = dict(strategy.params)
    params.update(nil_threshold=NO_NIL_THRESHOLD, blind_nil_deficit=NO_BLIND_NIL_DEFICIT)
    return make_strategy(strategy.name, **params)


def side_of(rules, seat: int) -> int:
    """The side of ``seat``: its team in partnerships, else the seat itself.

    >>> from spades_sim.core.rules import preset
    >>> [side_of(preset("classic"), seat) for seat in range(4)]
    [0, 1, 0, 1]
    """
    return seat % 2 if rules.partnership else seat


def number_line(config: Config, side: int) -> Config | None:
    """The number line of ``config`` for ``side`` (named ``NAME~number<side>``): the seats of
    ``side`` with nil turned off, every other seat as it was; None when its rules allow no nil
    or a seat of ``side`` cannot have nil turned off."""
    if not (config.rules.nil or config.rules.blind_nil):
        return None
    strategies = list(config.strategies)
    for seat, strategy in enumerate(config.strategies):
        if side_of(config.rules, seat) == side:
            strategies[seat] = number_strategy(strategy)
            if strategies[seat] is None:
                return None
    return Config(f"{config.name}{NUMBER_LINE}{side}", config.rules, tuple(strategies))


def number_lines(config: Config) -> tuple[Config, ...]:
    """The number lines of ``config``, one per side that has one, in side order."""
    lines = (number_line(config, side) for side in range(config.rules.n_sides))
    return tuple(line for line in lines if line is not None)


def with_number_lines(configs) -> tuple[Config, ...]:
    """``configs`` followed by the number lines of each."""
    return (*configs, *(line for config in configs for line in number_lines(config)))


def is_number_line(name) -> bool:
    """Whether a configuration name is a number line's.

    >>> is_number_line("classic~number1"), is_number_line("classic")
    (True, False)
    """
    return _LINE.search(str(name)) is not None


def number_pairs(names) -> dict[str, dict[int, str]]:
    """Each configuration of ``names`` that has number lines among them -> ``{side: line}``.

    >>> number_pairs(["a", "b", "a~number0", "a~number1"])
    {'a': {0: 'a~number0', 1: 'a~number1'}}
    """
    names = [str(n) for n in names]
    pairs: dict[str, dict[int, str]] = {}
    present = set(names)
    for name in names:
        found = _LINE.search(name)
        if found is None:
            continue
        config = name[:found.start()]
        if config in present:
            pairs.setdefault(config, {})[int(found.group(1))] = name
    return {config: dict(sorted(pairs[config].items())) for config in names if config in pairs}
