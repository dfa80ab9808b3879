"""`spades-sim par`: each hand-log line with its double-dummy tricks and nil safety."""

from __future__ import annotations

import json

from spades_sim.cli import main
from spades_sim.core.cards import card_text, texts_of
from spades_sim.core.rules import preset
from spades_sim.game import Hand
from spades_sim.game.par import hands_par, warm


def _line(rules_name: str, hand: Hand, hand_id: int = 0) -> str:
    result = hand.result()
    return json.dumps({
        "v": 1, "rules": rules_name, "hand_id": hand_id, "game_id": None,
        "dealer": result["dealer"], "hands": [texts_of(mask) for mask in result["hands"]],
        "blind": result["blind"], "bids": result["bids"],
        "exchange": [[giver, taker, card_text(card)] for giver, taker, card in result["exchange"]],
        "plays": [[seat, card_text(card)] for seat, card in result["plays"]],
    })


def test_par_of_an_ending_and_the_warm_up():
    # A one-trick ending (what the runs' warm-up solves): seat 0's ace of spades takes the
    # king of the nil bidder, seat 1, which is safe. The nil question starts from the trick
    # the card count implies, as the trick count does.
    rules = preset("classic")
    hands = [[1 << 51, 1 << 50, 1 << 49, 1 << 48]]
    tricks, nil_safe = hands_par(rules, hands, [0], [[1, 0, 1, 1]], [[0, 0, 0, 0]])
    assert tricks.tolist() == [[1, 0]]
    assert nil_safe.tolist() == [[-1, 1, -1, -1]]
    warm()


def test_par_of_a_hand_with_one_suit_per_seat(tmp_path, capsys):
    # Seat 0 holds every spade, seat 1 the hearts, seat 2 the diamonds, seat 3 the clubs: side 0
    # ruffs the first lead and takes every trick; the nils of seats 1 and 3 cannot be set.
    rules = preset("classic", blind_nil=False)
    cards = [list(range(13 * suit, 13 * suit + 13)) for suit in (3, 2, 1, 0)]
    hand = Hand.from_cards(rules, cards, dealer=0)
    for bid in (0, 6, 0, 6):  # seats 1, 2, 3, 0 bid in that order
        hand.apply(bid)
    while not hand.done:
        hand.apply(hand.legal_actions()[0])
    log = tmp_path / "hands.jsonl"
    log.write_text(_line({"preset": "classic", "blind_nil": False}, hand) + "\n")
    capsys.readouterr()
    assert main(["par", str(log)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["par"] == {"tricks": [13, 0], "nil_safe": [None, True, None, True]}
    assert answer["tricks"] == [13, 0, 0, 0]


def test_bad_lines_get_errors_and_good_lines_answers(tmp_path, capsys):
    rules = preset("classic", blind_nil=False)
    cards = [list(range(13 * suit, 13 * suit + 13)) for suit in (3, 2, 1, 0)]
    hand = Hand.from_cards(rules, cards, dealer=0)
    for bid in (1, 6, 0, 6):
        hand.apply(bid)
    while not hand.done:
        hand.apply(hand.legal_actions()[-1])
    good = _line({"preset": "classic", "blind_nil": False}, hand, hand_id=4)
    log = tmp_path / "mixed.jsonl"
    log.write_text("not json\n" + good + "\n")
    capsys.readouterr()
    assert main(["par", str(log)]) == 1
    captured = capsys.readouterr()
    assert captured.err.strip() == "line 1: not valid JSON: Expecting value at column 1"
    answer = json.loads(captured.out)
    assert answer["hand_id"] == 4 and answer["par"]["nil_safe"] == [None, None, None, True]
    assert main(["par", str(tmp_path / "missing.jsonl")]) == 2
