"""Findings that test something, their multiple-comparison adjustment and the headline table.

A report states 30 to 60 findings, and some would look significant by chance alone. Every
finding that tests a difference against zero (a :class:`Finding` with an ``effect``) enters one
family per report: its two-sided p-value (the analysis's own test when it has one: the t test
of paired differences, McNemar's exact test of paired binary outcomes; else the normal test the
95% interval implies) is adjusted across the family by Holm's method
(``statsmodels.stats.multitest.multipletests``, family-wise error rate 5%), and a finding whose
own interval excludes zero but whose adjusted p-value is 0.05 or more is marked as not
surviving. Descriptive findings (a set rate, a game length) test nothing and are left alone.

The headline (:func:`headline`) ranks the tested findings: those that survive first, then by
the size of the effect against its noise, ``|effect| / standard error`` (the standard error the
95% interval implies, ``half-width / 1.96``); it drops trivia (differences identically zero on
every hand, e.g. a metric two configurations cannot differ in) and says "no detectable
difference" where the interval covers zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from markupsafe import Markup

from ..analysis.metrics import ADJUSTMENTS, Z95, adjust_pvalues
from .formatting import p_text

#: The multiple-comparison adjustment of a report's findings (``metrics.ADJUSTMENTS``).
ADJUSTMENT = "holm"
ALPHA = 0.05
#: Rows of the headline table at most (the rest are in the sections).
HEADLINE_ROWS = 20
NO_DIFFERENCE = "no detectable difference"


@dataclass(eq=False)
class Finding:
    """A finding's sentence and, when it tests a difference against zero, its numbers.

    ``label``: a short name for the headline; ``effect``, ``low``, ``high``: the difference and
    its 95% interval (in the analysis's units; shown times ``scale`` with ``digits`` decimals
    and ``unit``); ``p``: its two-sided p-value (None: from the interval). Set by
    :func:`adjust_findings`: ``p_adjusted``, ``survives``, ``family`` (how many tests).
    ``n``, ``n_unit``: the sample the finding rests on (``400000``, ``"deals"``); ``mode``:
    where it comes from (``"self-play, independent hands"``), for the summary
    (``report.summary``). ``estimate``: a measurement with its interval that tests nothing (a
    share, a rate): never in the multiple-comparison family or the headline, but a report
    whose answer is what it measured (one configuration) leads its summary with them.
    """

    text: Markup
    label: str = ""
    effect: float = math.nan
    low: float = math.nan
    high: float = math.nan
    p: float | None = None
    unit: str = ""
    scale: float = 1.0
    digits: int = 1
    p_adjusted: float = math.nan
    survives: bool | None = None
    family: int = 0
    n: int | None = None
    n_unit: str = ""
    mode: str = ""
    estimate: bool = False

    @property
    def tested(self) -> bool:
        return (not self.estimate and self.effect == self.effect and self.low == self.low
                and self.high == self.high)

    @property
    def stderr(self) -> float:
        """The standard error the 95% interval implies (``half-width / 1.96``)."""
        return (self.high - self.low) / (2 * Z95)

    @property
    def noise_ratio(self) -> float:
        """``effect / stderr``: the size of the effect against its noise (inf for a nonzero
        effect measured without noise, 0 for none)."""
        if self.stderr > 0:
            return self.effect / self.stderr
        return 0.0 if self.effect == 0 else math.copysign(math.inf, self.effect)

    @property
    def p_value(self) -> float:
        """The test's p-value, or the normal test's that the interval implies."""
        if self.p is not None and self.p == self.p:
            return float(self.p)
        from scipy import stats  # here: SciPy takes a second to import

        return float(2 * stats.norm.sf(abs(self.noise_ratio)))

    @property
    def covers_zero(self) -> bool:
        return self.low <= 0 <= self.high

    @property
    def trivial(self) -> bool:
        """Identically zero: no difference on any hand (nothing to report)."""
        return self.effect == 0 and self.low == 0 and self.high == 0

    def __html__(self) -> str:
        if not self.tested or self.survives is None or self.trivial:
            return str(self.text)
        method = ADJUSTMENTS[ADJUSTMENT].split(" (")[0]
        if self.covers_zero:  # the sentence already says no difference is detectable
            mark = Markup("")
        elif self.survives:
            mark = Markup(' <span class="adjusted">(adjusted p {})</span>').format(
                p_text(self.p_adjusted))
        else:
            mark = Markup(' <span class="flag">[not significant after {} adjustment for the '
                          '{} tests of this report: adjusted p {}]</span>').format(
                method, self.family, p_text(self.p_adjusted))
        return str(Markup("{}{}").format(self.text, mark))


def adjust_findings(findings, method: str = ADJUSTMENT, alpha: float = ALPHA) -> int:
    """Adjust the p-values of the tested findings (one family) in place; returns the family's
    size. Identically zero findings are left out of the family (they test nothing)."""
    family = [f for f in findings if isinstance(f, Finding) and f.tested and not f.trivial]
    adjusted, reject = adjust_pvalues([f.p_value for f in family], method, alpha)
    for finding, p, keep in zip(family, adjusted, reject):
        finding.p_adjusted, finding.survives, finding.family = float(p), bool(keep), len(family)
    return len(family)


def verdict(finding: Finding) -> str:
    """``no detectable difference`` (the interval covers zero), ``higher``/``lower`` (the
    interval excludes zero and the finding survives the adjustment) or ``not significant after
    adjustment`` (it excludes zero, but not after the adjustment)."""
    if finding.covers_zero:
        return NO_DIFFERENCE
    if finding.survives:
        return "higher" if finding.effect > 0 else "lower"
    return "not significant after adjustment"


def headline(findings, rows: int = HEADLINE_ROWS) -> list[dict]:
    """The headline rows of adjusted findings, most important first.

    Order: the findings that survive the adjustment, then the others; within each, by
    ``|effect| / stderr`` (largest first). Trivial findings (identically zero) are dropped and
    at most ``rows`` are kept. Each row: ``rank``, ``finding`` (label), ``effect``, ``low``,
    ``high`` (times the finding's scale), ``unit``, ``effect_over_se``, ``p_adjusted`` and
    ``verdict``.

    >>> same = Finding(Markup("x"), "x", 0.0, 0.0, 0.0)
    >>> small = Finding(Markup("s"), "s", 1.0, -1.0, 3.0)
    >>> big = Finding(Markup("b"), "b", -8.0, -10.0, -6.0)
    >>> adjust_findings([same, small, big])
    2
    >>> [(row["finding"], row["verdict"]) for row in headline([same, small, big])]
    [('b', 'lower'), ('s', 'no detectable difference')]
    """
    kept = [f for f in findings if isinstance(f, Finding) and f.tested and not f.trivial
            and f.survives is not None]
    kept.sort(key=lambda f: (verdict(f) not in ("higher", "lower"), -abs(f.noise_ratio)))
    table = []
    for rank, finding in enumerate(kept[:rows], 1):
        scale = finding.scale
        ratio = finding.noise_ratio
        table.append({"rank": rank, "finding": finding.label,
                      "effect": finding.effect * scale, "low": finding.low * scale,
                      "high": finding.high * scale, "unit": finding.unit.strip(),
                      "digits": finding.digits,
                      "effect_over_se": ratio if np.isfinite(ratio) else math.nan,
                      "p_adjusted": finding.p_adjusted, "verdict": verdict(finding)})
    return table


def headline_rows_text(table) -> list[list[str]]:
    """The headline's cells as text (effect and interval with the finding's digits)."""
    rows = []
    for row in table:
        digits = row["digits"]
        while digits < 4 and row["low"] != row["high"] and (
                round(row["low"], digits) == round(row["high"], digits)):
            digits += 1
        ratio = row["effect_over_se"]
        rows.append([str(row["rank"]), row["finding"],
                     f"{row['effect']:+.{digits}f} {row['unit']}".strip(),
                     f"{row['low']:+.{digits}f} to {row['high']:+.{digits}f}",
                     "exact" if ratio != ratio else f"{ratio:+.1f}",
                     p_text(row["p_adjusted"]), row["verdict"]])
    return rows


HEADERS = ["rank", "finding", "effect", "95% CI", "effect / SE", "adjusted p", "verdict"]
