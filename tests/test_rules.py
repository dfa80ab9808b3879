"""Rules: presets, validation messages, overrides, the kernel tuple."""

import pytest

from spades_sim.core.rules import (
    FIELD_NAMES,
    PRESETS,
    Rules,
    RulesError,
    build_rules,
    preset,
    rules_from_spec,
)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds(name):
    rules = preset(name)
    assert rules.kernel_tuple()._fields[:len(FIELD_NAMES)] == FIELD_NAMES
    assert rules_from_spec(rules.to_spec()) == rules


def test_preset_values_from_the_spec():
    assert preset("cutthroat").hand_size == 17
    assert preset("cutthroat").deck_mask & 1 == 0  # 2C removed
    jokers = preset("jokers")
    assert jokers.deck_mask >> 52 & 3 == 3 and jokers.deck_mask & 1 == 0
    assert jokers.deck_mask >> 13 & 1 == 0
    assert bin(jokers.deck_mask).count("1") == 52
    assert preset("casual").double_nil_bonus == 500
    assert preset("tournament").blind_nil_min_deficit == 100
    assert preset("openspiel").failed_nil_tricks == "count_toward_bid"


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"players": 5}, "rule players: 5 is not one of 2, 3, 4"),
        ({"deck": "tarot"}, "rule deck: 'tarot' is not one of standard, jokers"),
        ({"bag_limit": -1}, "rule bag_limit: -1 is out of range; allowed: 0..100000000"),
        ({"deal": "draw"}, "rule deal: draw is a two-player deal"),
        ({"players": 3}, "rule partnership: true only with 4 players"),
        ({"players": 3, "partnership": False}, "rule blind_nil_exchange: an exchange needs"),
        ({"first_leader": "two_of_clubs", "deck": "jokers"}, "rule first_leader: two_of_clubs"),
        ({"nil": "yes"}, "rule nil: 'yes' is not a bool"),
        ({"target": 0}, "rule target: 0 is out of range; allowed: 1..10000000000"),
        ({"bids_total_not_tricks": True, "min_team_bid": 13},
         "rule min_team_bid: 13 leaves the last bidder no legal bid"),
        ({"min_team_bid": 14}, "rule min_team_bid: 14 is out of range"),
    ],
)
def test_bad_rules_name_the_field(overrides, message):
    with pytest.raises(RulesError) as error:
        Rules(**overrides)
    assert message in str(error.value)


def test_unknown_preset_and_field():
    with pytest.raises(RulesError, match="unknown preset 'foo'; allowed: classic"):
        preset("foo")
    with pytest.raises(RulesError, match="unknown rule field 'colour'"):
        build_rules("classic", ["colour=red"])


def test_overrides_parse_and_round_trip():
    rules = build_rules("classic", ["target=300", "mercy=-200", "nil=false"])
    assert (rules.target, rules.mercy, rules.nil) == (300, -200, False)
    assert rules.to_spec() == {"preset": "classic", "target": 300, "mercy": -200, "nil": False}
    assert rules_from_spec(rules.to_spec()) == rules
