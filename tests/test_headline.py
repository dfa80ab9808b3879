"""The report's findings: multiple-comparison adjustment and the ranked headline
(spades_sim.report.headline), on hand-made findings (no runs)."""

import math

import pytest
from markupsafe import Markup
from scipy import stats

from spades_sim.report.headline import (
    NO_DIFFERENCE,
    Finding,
    adjust_findings,
    headline,
    headline_rows_text,
)


def _finding(label, effect, low, high, p=None, **kw):
    return Finding(Markup(label), label, effect, low, high, p, **kw)


def test_holm_across_the_report_and_the_marks():
    # p-values 0.001, 0.02, 0.04 given; one from its interval; a descriptive finding and an
    # identically zero one stay out of the family.
    strong = _finding("strong", 5.0, 3.0, 7.0, p=0.001)
    weak = _finding("weak", 2.0, 0.2, 3.8, p=0.02)
    weaker = _finding("weaker", 1.0, 0.1, 1.9, p=0.04)
    z = 2.5  # an interval of half-width 1.96: the standard error is 1, z = effect = 2.5
    implied = _finding("implied", z, z - 1.959963984540054, z + 1.959963984540054)
    descriptive = Markup("a game lasts 12 hands")
    zero = _finding("zero", 0.0, 0.0, 0.0)
    findings = [strong, weak, descriptive, weaker, implied, zero]
    assert adjust_findings(findings) == 4
    assert implied.p_value == pytest.approx(2 * stats.norm.sf(2.5))
    # Holm over (0.001, 0.02, 0.04, 0.01242): 0.004, 0.0373 (0.01242 x 3), 0.04 (0.02 x 2,
    # made monotone), 0.04.
    assert strong.p_adjusted == pytest.approx(0.004)
    assert implied.p_adjusted == pytest.approx(3 * 2 * stats.norm.sf(2.5))
    assert weak.p_adjusted == pytest.approx(0.04) and weaker.p_adjusted == pytest.approx(0.04)
    assert [f.survives for f in (strong, implied, weak, weaker)] == [True, True, True, True]
    assert zero.survives is None and zero.family == 0
    assert "adjusted p 0.004" in str(strong.__html__())
    # A fifth test with p = 0.5 makes the family larger: 0.02 and 0.04 no longer survive.
    findings.append(_finding("null", 0.1, -1.0, 1.2, p=0.5))
    adjust_findings(findings)
    assert not weak.survives and not weaker.survives and strong.survives
    assert "not significant after Holm adjustment for the 5 tests" in weak.__html__()
    assert "adjusted" not in findings[-1].__html__()  # its interval covers zero: said already


def test_headline_ranks_drops_trivia_and_says_no_detectable_difference():
    findings = [
        _finding("covers zero, big", 9.0, -1.0, 19.0, p=0.08),
        _finding("small but sure", 0.5, 0.4, 0.6, p=1e-12, unit=" points"),
        _finding("identical", 0.0, 0.0, 0.0),
        _finding("large and sure", 30.0, 20.0, 40.0, p=1e-9, unit=" points"),
        _finding("exact", 0.01, 0.01, 0.01, p=0.0, scale=100.0, unit=" percentage points"),
        _finding("tiny, covers zero", 0.1, -5.0, 5.2, p=0.97),
        Markup("descriptive"),
    ]
    adjust_findings(findings)
    table = headline(findings)
    # Survivors first by |effect| / SE (exact: no noise at all; 0.5 / (0.1 / 1.96) = 9.8
    # before 30 / (10 / 1.96) = 5.9); then the others by the same ratio.
    assert [row["finding"] for row in table] == [
        "exact", "small but sure", "large and sure", "covers zero, big", "tiny, covers zero"]
    assert [row["verdict"] for row in table] == [
        "higher", "higher", "higher", NO_DIFFERENCE, NO_DIFFERENCE]
    assert table[1]["effect_over_se"] == pytest.approx(0.5 / (0.1 / 1.959963984540054))
    assert math.isnan(table[0]["effect_over_se"]) and table[0]["effect"] == pytest.approx(1.0)
    assert [row["rank"] for row in table] == [1, 2, 3, 4, 5]
    assert len(headline(findings, rows=2)) == 2
    cells = headline_rows_text(table)
    assert cells[0][2:5] == ["+1.0 percentage points", "+1.0 to +1.0", "exact"]
    assert cells[1][2:4] == ["+0.5 points", "+0.4 to +0.6"]
    assert cells[3][-1] == NO_DIFFERENCE
