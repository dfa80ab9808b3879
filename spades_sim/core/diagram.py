"""A hand as a plain-text diagram for terminals: the deal as a compass (North, East, South,
West), the bids, any exchange, every trick (who led, what each played, who won) and the result,
from a scored hand in the hand-log's fields (``docs/hand-log.md``). Pure Python: the hand-log
reader (``spades-sim hand ... --show``) and the reports' example hands both draw with it.

Seats go clockwise from North: seat 0 North, 1 East, 2 South, 3 West (partners face each
other); three players sit North, East and West, two players North and South.
"""

from __future__ import annotations

import json

from .cards import parse_card, rank_of, suit_of
from .rules import rules_from_spec
from .tricks import trick_winner

#: The compass name of each seat, by the number of players.
SEAT_NAMES = {4: ("North", "East", "South", "West"), 3: ("North", "East", "West"),
              2: ("North", "South")}
_SUIT_LETTERS = "CDHS"
_WIDTH = 24  # the width of a hand's column


def draw_hand(scored: dict) -> str:
    """The diagram of one scored hand: a dict with the hand-log fields (``docs/hand-log.md``),
    the results and ``score_before`` included, as ``spades-sim replay`` writes them. The hand
    is not checked here (``handlog.hand_diagram`` checks it first)."""
    rules = rules_from_spec(scored["rules"])
    names = SEAT_NAMES[rules.players]

    def seat(s):
        return f"{names[s]} ({s})"

    lines = [_title(scored, rules, names), ""]
    lines += _compass(scored, names)
    lines += ["", "Bids: " + ", ".join(f"{names[s]} {_bid(scored, s)}"
                                       for s in _bidding_order(scored, rules.players))]
    exchange = scored.get("exchange") or []
    if exchange:
        passes = []  # consecutive cards from one seat to another, together
        for giver, taker, card in exchange:
            if passes and passes[-1][:2] == (giver, taker):
                passes[-1][2].append(card)
            else:
                passes.append((giver, taker, [card]))
        lines.append("Exchange: " + "; ".join(f"{names[a]} passes {' '.join(cards)} to "
                                              f"{names[b]}" for a, b, cards in passes))
    lines += ["", "Tricks (leader first; * wins):"]
    plays = scored["plays"]
    for index in range(0, len(plays), rules.players):
        trick = plays[index:index + rules.players]
        won = trick_winner([parse_card(card) for _, card in trick])
        shown = "  ".join(f"{names[s]} {card}{'*' if p == won else ' '}"
                          for p, (s, card) in enumerate(trick))
        lines.append(f"{index // rules.players + 1:>3}. {shown}  -> {seat(trick[won][0])}")
    lines += ["", "Tricks taken: " + ", ".join(f"{names[s]} {scored['tricks'][s]}"
                                              for s in range(rules.players))]
    lines.append("Score: " + "; ".join(_side_result(scored, rules, names, side)
                                       for side in range(rules.n_sides)))
    return "\n".join(lines) + "\n"


def _title(scored, rules, names) -> str:
    rules_text = (scored["rules"] if isinstance(scored["rules"], str)
                  else json.dumps(scored["rules"], sort_keys=True))
    game = "" if scored["game_id"] is None else f" of game {scored['game_id']}"
    return (f"Hand {scored['hand_id']}{game}, rules {rules_text}, dealer "
            f"{names[scored['dealer']]} ({scored['dealer']})")


def _bidding_order(scored, players):
    return [(scored["dealer"] + 1 + k) % players for k in range(players)]


def _bid(scored, seat) -> str:
    bid, blind = scored["bids"][seat], scored["blind"][seat]
    bumped = (scored.get("bumped") or [False] * len(scored["bids"]))[seat]
    if bid == 0 and blind:
        text = "blind nil"
    elif bid == 0 and rules_from_spec(scored["rules"]).nil:
        text = "nil"
    else:
        text = f"blind {bid}" if blind else str(bid)
    return text + (" (bumped)" if bumped else "")


def _suit_rows(cards) -> list[str]:
    """``S AKQ...`` rows, spades first, each suit high to low (jokers head the spades)."""
    rows = []
    for suit in (3, 2, 1, 0):
        held = sorted((c for c in cards if suit_of(parse_card(c)) == suit),
                      key=lambda c: -rank_of(parse_card(c)))
        shown = " ".join(c if c in ("LJ", "BJ") else c[0] for c in held)
        rows.append(f"{_SUIT_LETTERS[suit]} {shown or '-'}")
    return rows


def _block(scored, names, seat) -> list[str]:
    return [f"{names[seat]} ({seat}), bid {_bid(scored, seat)}",
            *_suit_rows(scored["hands"][seat])]


def _compass(scored, names) -> list[str]:
    by_name = {name: seat for seat, name in enumerate(names)}
    indent = " " * _WIDTH
    lines = []
    if "North" in by_name:
        lines += [indent + row for row in _block(scored, names, by_name["North"])]
    west = _block(scored, names, by_name["West"]) if "West" in by_name else []
    east = _block(scored, names, by_name["East"]) if "East" in by_name else []
    if west or east:
        lines.append("")
        for row in range(max(len(west), len(east))):
            left = west[row] if row < len(west) else ""
            right = east[row] if row < len(east) else ""
            lines.append((f"{left:<{2 * _WIDTH}}{right}" if left else f"{indent * 2}{right}")
                         .rstrip())
        lines.append("")
    if "South" in by_name:
        lines += [indent + row for row in _block(scored, names, by_name["South"])]
    return lines


def _side_result(scored, rules, names, side) -> str:
    seats = [s for s in range(rules.players) if rules.side_of(s) == side]
    who = "/".join(names[s] for s in seats)
    delta = scored["score_delta"][side]
    before = scored["score_before"][side]
    return (f"{who} {delta:+d} ({before} -> {before + delta}, bags "
            f"{scored['bags_after'][side]})")
