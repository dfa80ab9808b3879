"""Par of logged hands: `spades-sim par FILE` answers each hand-log line with what the cards
were worth double dummy (every card seen, every seat playing perfectly).

Each good line is written back as ``replay`` writes it, with a ``par`` object: ``tricks``, the
double-dummy tricks from the hand's actual first leader and the position after any exchanges
(per side with partnerships, per seat, against all the others, without), and ``nil_safe``,
per seat: for each nil or blind-nil bidder whether it can avoid every trick (helped by its
partner) when the opponents play to set it, ``null`` for the other seats. A bad line gets the
same one-line error as in ``replay``, and the good lines are still answered.
"""

from __future__ import annotations

from ..game.par import NOT_NIL, hands_par
from .checks import apply_exchange, check_hands, parse_rules
from .replay import answer_file, iter_replay


def par_of(scored: dict) -> dict:
    """The ``par`` object of one scored hand-log object (as ``replay_line`` returns it): the
    hand's ``game.par.hands_par``, as runs played with par have it in their columns."""
    rules = parse_rules(scored["rules"])
    dealt = check_hands(rules, scored)
    hands = apply_exchange(rules, scored, scored["bids"], scored["blind"], dealt)
    leader = int(scored["plays"][0][0])  # (replay checked that this seat led)
    tricks, nil_safe = hands_par(rules, [hands], [leader], [scored["bids"]], [scored["blind"]])
    return {"tricks": [int(t) for t in tricks[0]],
            "nil_safe": [None if safe == NOT_NIL else bool(safe) for safe in nil_safe[0]]}


def iter_par(lines):
    """Yield ``(line_number, result)``: the scored object with its ``par``, an error line, or
    None for a blank line."""
    for number, result in iter_replay(lines):
        if isinstance(result, dict):
            try:
                result = {**result, "par": par_of(result)}
            except Exception as error:  # a solver bug must not stop a log of many lines
                result = (f"line {number} (hand {result['hand_id']}): internal error in the "
                          f"double-dummy solver: {type(error).__name__}: {error}")
        yield number, result


def par_file(path, out=None, err=None) -> int:
    """The ``spades-sim par FILE`` command (``-`` reads standard input): each good line with
    its ``par`` to ``out``, each bad line's error to ``err``; the exit status is 1 if any line
    was bad (or the file cannot be read), else 0."""
    return answer_file(path, iter_par, out, err)
