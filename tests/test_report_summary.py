"""The summary that opens a report (spades_sim.report.summary), on hand-made findings and a
parsed experiment (no runs): what enters, in which order, in which words."""

from markupsafe import Markup

from spades_sim.experiment import parse_experiment
from spades_sim.report.headline import Finding, adjust_findings
from spades_sim.report.summary import (
    configuration_changes,
    is_tuning,
    summary_estimates,
    summary_findings,
    summary_rows,
    summary_sentence,
)

EXPERIMENT = """\
name = "small"
title = "Small"
seed = 1
hands = 10
analyses = ["variant_effects"]
baseline = "classic"

[[config]]
name = "classic"
rules = "classic"
strategy = "heuristic"

[[config]]
name = "simple"
rules = "simple"
strategy = "heuristic"

[[config]]
name = "classic-tuned"
rules = "classic"
strategy = "tuned-classic"

[[config]]
name = "simple-tuned"
rules = "simple"
strategy = "tuned-simple"

[[config]]
name = "low-nil"
rules = "classic"
rule = { nil_bonus = 50 }
strategy = "heuristic"
"""


def _finding(label, effect, low, high, unit, scale=1.0, **kw):
    return Finding(Markup(label), label, effect, low, high, 1e-6, unit, scale,
                   mode=kw.pop("mode", "self-play, independent hands"), **kw)


def _experiment():
    return parse_experiment(EXPERIMENT)


def test_ranked_by_practical_size_not_by_z():
    experiment = _experiment()
    # by effect / SE the bags finding would lead (z about 400); by practical size the games
    # won come first, then points (largest first), then the rest.
    bags = _finding("simple vs classic: bags added (self-play, hands)", -0.4, -0.402, -0.398,
                    " bags")
    small_points = _finding("simple vs classic: score (self-play, hands)", -2.0, -3.0, -1.0,
                            " points")
    big_points = _finding("low-nil vs classic: score (self-play, hands)", 9.0, 1.0, 17.0,
                          " points")
    won = _finding("a vs b head to head under classic: win share (games)", 0.03, 0.01, 0.05,
                   " percentage points", 100.0, mode="head to head, whole games")
    none = _finding("low-nil vs classic: set (self-play, hands)", 0.1, -0.5, 0.7,
                    " percentage points", 100.0)
    findings = [bags, small_points, big_points, won, none]
    for finding in findings:
        finding.p = 1e-9 if finding is not none else 0.5
    adjust_findings(findings)
    assert summary_findings(findings, experiment) == [won, big_points, small_points, bags]
    rows = summary_rows(summary_findings(findings, experiment))
    assert [row["group"] for row in rows] == ["games won", "points", "points", "other"]
    assert rows[0]["effect"] == 3.0 and rows[0]["low"] == 1.0 and rows[0]["unit"] == (
        "percentage points")


def test_tuning_and_repeats_are_left_out_and_eight_at_most():
    experiment = _experiment()
    tuning = _finding("classic-tuned vs classic: score (self-play, hands)", 50.0, 40.0, 60.0,
                      " points")
    assert is_tuning(tuning, experiment)
    rules = _finding("low-nil vs classic: score (self-play, hands)", 5.0, 4.0, 6.0, " points")
    assert not is_tuning(rules, experiment)
    # a head-to-head of a tuned strategy is the effect of adapting: it stays
    adapting = _finding("tuned-classic vs heuristic head to head (round robin)", 8.0, 6.0, 10.0,
                        " points per board", mode="head to head, tournament")
    assert not is_tuning(adapting, experiment)
    repeat = _finding("simple vs classic: score (self-play, hands)", 5.0, 4.0, 6.0, " points")
    many = [_finding(f"simple vs classic: metric {i} (self-play, hands)", 1.0 + i, 0.5, 2.0 + i,
                     " tricks") for i in range(10)]
    findings = [tuning, rules, adapting, repeat, *many]
    for finding in findings:
        finding.p = 1e-9
    adjust_findings(findings)
    chosen = summary_findings(findings, experiment)
    assert len(chosen) == 8
    assert tuning not in chosen and repeat not in chosen
    assert chosen[:2] == [adapting, rules]
    assert chosen[2:] == many[::-1][:6]


def test_sentence_gives_interval_units_mode_and_sample():
    finding = _finding("simple vs classic: set (self-play, hands)", 0.12, 0.1182, 0.1224,
                       " percentage points", 100.0, n=400_000, n_unit="deals")
    assert str(summary_sentence(finding)) == (
        "simple vs classic: set +12.0 percentage points (95% CI +11.8 to +12.2); self-play, "
        "independent hands, 400,000 deals.")
    bare = Finding(Markup("x"), "a vs b: score (hands)", 1.0, 0.5, 1.5, unit=" points")
    assert str(summary_sentence(bare)) == "a vs b: score +1.0 points (95% CI +0.5 to +1.5)."


def test_what_each_configuration_changes_in_words():
    rows = {row["config"]: row["changes"] for row in configuration_changes(_experiment())}
    assert rows["classic"] == ["the baseline"]
    assert rows["low-nil"] == ["nil_bonus 50 (baseline 100): points won or lost by a nil bid"]
    assert rows["classic-tuned"] == ["strategies tuned-classic (baseline heuristic)"]
    simple = rows["simple"]
    assert simple and all(" (baseline " in change and "): " in change for change in simple)
    assert rows["simple-tuned"] == ["the rules of simple",
                                    "strategies tuned-simple (baseline heuristic)"]
    assert any(change.startswith("blind_nil false (baseline true): blind nil") for change in simple)


def test_estimates_are_not_tests_but_follow_the_findings_in_the_summary():
    """A share with its interval (``Context.estimate``) stays out of the family and the
    headline's ranking; the summary lists estimates after the tested findings, in order, without
    a sign."""
    tested = Finding(Markup("t"), "a vs b: score (hands)", 5.0, 4.0, 6.0, unit=" points")
    first = Finding(Markup("e"), "c: hands under par", 0.405, 0.401, 0.409,
                    unit="% of the hands", scale=100, n=62105, n_unit="hands",
                    mode="self-play, independent hands", estimate=True)
    second = Finding(Markup("f"), "c: nils made", 0.89, 0.88, 0.90, unit="%", scale=100,
                     estimate=True)
    assert adjust_findings([tested, first, second]) == 1
    assert not first.tested and first.family == 0
    assert summary_findings([first, tested, second], parse_experiment(EXPERIMENT)) == [tested]
    assert summary_estimates([first, tested, second]) == [first, second]
    assert summary_estimates([first, tested, second], rows=1) == [first]
    assert str(summary_sentence(first)) == (
        "c: hands under par 40.5% of the hands (95% CI 40.1 to 40.9); self-play, independent "
        "hands, 62,105 hands.")
    assert summary_rows([first])[0]["group"] == "estimate"
