"""The number line of a configuration: the same rules and strategies with nil bidding turned off,
for the paired value of nil (``analysis.nil.nil_paired_value``).

Every configuration of a run plays the same deals (the same seed and hand ids), so a
configuration whose seats never bid nil, otherwise identical, replays each deal with the would-be
nil bidder bidding its number instead: the seat bids what the heuristic bids when nil is not
chosen (``round(estimate + aggression)``, at least 1), and every other seat bids as before (the
heuristic's number bids do not depend on the others' bids). The difference of the side's scores
on the same deal is what the nil was worth against that number.

Nil is turned off by parameters the heuristic already has: ``nil_threshold`` below any trick
estimate (:data:`NO_NIL_THRESHOLD`) and ``blind_nil_deficit`` above any score difference
(:data:`NO_BLIND_NIL_DEFICIT`). Strategies without them (``random``, plug-ins) get no number
line.
"""

from __future__ import annotations

from ..core.strategies import Strategy, make_strategy
from ..run import Config

#: Suffix of a number line's configuration name (``classic~number``); experiment names never
#: hold ``~``, so it cannot clash with a configuration of the file.
NUMBER_LINE = "~number"
#: ``nil_threshold`` of a number line: the heuristic bids nil when its trick estimate is at most
#: this, and the estimate is a sum of card weights over at most 17 cards.
NO_NIL_THRESHOLD = -1e9
#: ``blind_nil_deficit`` of a number line: above any deficit a game can reach (twice
#: ``core.rules.MAX_SCORE``, under 1.6e18).
NO_BLIND_NIL_DEFICIT = 1e19
_NIL_KINDS = ("heuristic", "mc")


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


def number_line(config: Config) -> Config | None:
    """The number line of ``config`` (named ``NAME~number``), or None when its rules allow no
    nil or some seat's strategy cannot have nil turned off."""
    if not (config.rules.nil or config.rules.blind_nil):
        return None
    strategies = [number_strategy(s) for s in config.strategies]
    if any(s is None for s in strategies):
        return None
    return Config(config.name + NUMBER_LINE, config.rules, tuple(strategies))


def with_number_lines(configs) -> tuple[Config, ...]:
    """``configs`` followed by the number line of each that has one."""
    lines = [line for line in map(number_line, configs) if line is not None]
    return (*configs, *lines)


def is_number_line(name) -> bool:
    """Whether a configuration name is a number line's."""
    return str(name).endswith(NUMBER_LINE)


def number_pairs(names) -> dict[str, str]:
    """Each configuration of ``names`` that has its number line among them -> that line."""
    names = [str(n) for n in names]
    present = set(names)
    return {n: n + NUMBER_LINE for n in names
            if not is_number_line(n) and n + NUMBER_LINE in present}
