"""Hand diagrams (``spades-sim hand ... --show``): a golden hand log drawn as the checked-in
text, the three table sizes, and bad hands refused in one line."""

import json
import re
from pathlib import Path

import pytest

from spades_sim.core.errors import HandLogError
from spades_sim.core.rules import preset
from spades_sim.core.strategies import seat_strategies
from spades_sim.handlog import hand_diagram, hand_objects
from spades_sim.run import simulate_hands

GOLDEN = Path(__file__).parent / "golden"


def test_the_golden_log_draws_as_the_expected_text():
    lines = (GOLDEN / "classic_game.jsonl").read_text().splitlines()
    drawn = "\n".join(hand_diagram(json.loads(line)) for line in lines if line.strip())
    assert drawn == (GOLDEN / "classic_game.expected.diagram").read_text()


@pytest.mark.parametrize("name, seats", [("cutthroat", ["North (0)", "East (1)", "West (2)"]),
                                         ("two-player", ["North (0)", "South (1)"])])
def test_smaller_tables_sit_at_the_compass(name, seats):
    rules = preset(name)
    run = simulate_hands(rules, seat_strategies(["heuristic"], rules.players), 1, 3,
                         record_plays=True)
    text = hand_diagram(next(hand_objects(run)))
    for seat in seats:
        assert f"{seat}, bid " in text
    tricks = [line for line in text.splitlines() if re.match(r"\s*\d+\. ", line)]
    assert len(tricks) == rules.hand_size
    assert "South (" not in text if name == "cutthroat" else "East (" not in text


def test_a_bad_hand_is_refused_in_one_line():
    obj = json.loads((GOLDEN / "classic_game.jsonl").read_text().splitlines()[0])
    obj["plays"] = obj["plays"][:-1]
    with pytest.raises(HandLogError) as error:
        hand_diagram(obj)
    assert "\n" not in str(error.value) and "(hand 0)" in str(error.value)


def test_hand_show_prints_the_diagram(tmp_path, capsys):
    from spades_sim.cli import main

    out = tmp_path / "run"
    assert main(["simulate", "--hands", "20", "--seed", "4", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["hand", str(out), "--hand", "5"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert main(["hand", str(out), "--hand", "5", "--show"]) == 0
    assert capsys.readouterr().out == hand_diagram(obj)
