"""The answer first: the summary that opens a report, and its table of what each configuration
changes.

The summary holds the few findings that matter to a player (at most :data:`SUMMARY_ROWS`),
ranked by their practical size rather than by how sure we are of them: first the differences in
the share of games won (percentage points), then those in points (per hand, per game, per
board), then the others (bags, set rates, tricks, Elo), each group largest first. A finding
enters only when its interval excludes zero and it survives the report's multiple-comparison
adjustment (``report.headline``). Left out: comparisons of a configuration with the same rules
played by a tuned strategy (they measure the tuning, not the rules: the effect of adapting is
the head-to-head matches'), and findings that repeat another's numbers exactly (two
configurations that play identical hands).

A report can also measure what has no baseline to test against (a share of hands, a success
rate: ``Context.estimate``). Those estimates follow the tested findings, in the order the
sections give them, up to the same number of rows; in a report of one configuration (the par
report) they are the answer.
"""

from __future__ import annotations

import re

from markupsafe import Markup

from ..core.rules import FIELD_DOCS, FIELD_NAMES
from ..experiment import Experiment, rule_text
from .formatting import decimals
from .headline import Finding

#: Findings in the summary at most.
SUMMARY_ROWS = 8
#: The practical-size groups, in the summary's order (see :func:`size_group`).
GROUPS = ("games won", "points", "other")


def size_group(finding: Finding) -> int:
    """0: a difference in the share of games won; 1: in points (per hand, game, board, side or
    nil side-hand); 2: anything else (bags, a set rate, tricks, Elo).

    >>> size_group(Finding(Markup("x"), "a vs b: win share (games)", 1, 0, 2,
    ...                    unit=" percentage points"))
    0
    >>> size_group(Finding(Markup("x"), "a vs b: score (hands)", 1, 0, 2, unit=" points"))
    1
    >>> size_group(Finding(Markup("x"), "a vs b: bags added (hands)", 1, 0, 2, unit=" bags"))
    2
    """
    if "win share" in finding.label or "games won" in finding.unit:
        return 0
    if finding.unit.strip().startswith("points"):
        return 1
    return 2


def practical_size(finding: Finding) -> float:
    """The size of the effect in its shown units (``|effect| x scale``)."""
    return abs(finding.effect * finding.scale)


def _compared(label: str) -> tuple[str, str] | None:
    """The two names a label compares (``"A vs B: ..."``), or None."""
    found = re.match(r"^(\S+) vs (\S+)(?::| head to head)", label)
    return (found.group(1), found.group(2)) if found else None


def is_tuning(finding: Finding, experiment: Experiment) -> bool:
    """Whether the finding compares two configurations of the same rules of which one plays a
    tuned strategy (``tuned-...``): it measures the tuning, not the rules."""
    names = _compared(finding.label)
    configs = {c.name: c for c in experiment.configs}
    if names is None or not all(name in configs for name in names):
        return False
    first, second = (configs[name] for name in names)
    if first.rules != second.rules:
        return False
    specs = [s.spec() for config in (first, second) for s in config.strategies]
    firsts = [s.spec() for s in first.strategies]
    seconds = [s.spec() for s in second.strategies]
    return firsts != seconds and any(spec.startswith("tuned") for spec in specs)


def summary_findings(findings, experiment: Experiment, rows: int = SUMMARY_ROWS) -> list:
    """The findings of the summary, in its order (see the module's docstring); ``findings``
    already adjusted (``headline.adjust_findings``)."""
    kept, seen = [], set()
    for finding in findings:
        if not (isinstance(finding, Finding) and finding.tested and not finding.trivial
                and finding.survives and not finding.covers_zero):
            continue
        if is_tuning(finding, experiment):
            continue
        key = (round(finding.effect * finding.scale, 9), round(finding.low * finding.scale, 9),
               round(finding.high * finding.scale, 9), finding.unit, finding.mode)
        if key in seen:  # the same numbers: identical hands compared twice
            continue
        seen.add(key)
        kept.append(finding)
    kept.sort(key=lambda f: (size_group(f), -practical_size(f)))
    return kept[:rows]


def summary_estimates(findings, rows: int = SUMMARY_ROWS) -> list:
    """The estimates the summary shows (``Finding.estimate``), in the sections' order, at most
    ``rows``."""
    return [f for f in findings if isinstance(f, Finding) and f.estimate][:max(rows, 0)]


def _subject(label: str) -> str:
    """The label without its closing mode in parentheses (the sentence says the mode)."""
    return re.sub(r"\s*\((self-play, )?(hands|games|round robin)(, (hands|games))?\)$", "", label)


def summary_sentence(finding: Finding) -> Markup:
    """One sentence: what, how much with its interval and units, where from, on how many.

    >>> f = Finding(Markup("x"), "simple vs classic: score (self-play, hands)", -5.86, -5.96,
    ...             -5.76, unit=" points", n=400000, n_unit="deals",
    ...             mode="self-play, independent hands")
    >>> print(summary_sentence(f))  # doctest: +NORMALIZE_WHITESPACE
    simple vs classic: score -5.9 points (95% CI -6.0 to -5.8); self-play, independent hands,
    400,000 deals.
    """
    scale = finding.scale
    digits = decimals(finding.low * scale, finding.high * scale, finding.digits)
    where = [finding.mode] if finding.mode else []
    if finding.n is not None:
        where.append(f"{finding.n:,} {finding.n_unit}".strip())
    # (a difference carries its sign; an estimate, a share or a rate, does not need one)
    number = "{:.{d}f}" if finding.estimate else "{:+.{d}f}"
    return Markup("{} " + number + "{} (95% CI " + number + " to " + number + "){}.").format(
        _subject(finding.label), finding.effect * scale, finding.unit, finding.low * scale,
        finding.high * scale, "; " + ", ".join(where) if where else "", d=digits)


def summary_rows(findings) -> list[dict]:
    """The summary's rows for its CSV (full precision)."""
    return [{"rank": rank, "finding": f.label, "effect": f.effect * f.scale,
             "low": f.low * f.scale, "high": f.high * f.scale, "unit": f.unit.strip(),
             "mode": f.mode, "n": f.n, "n_unit": f.n_unit,
             "group": "estimate" if f.estimate else GROUPS[size_group(f)]}
            for rank, f in enumerate(findings, 1)]


def _field_words(name: str, value, base) -> str:
    """``"nil_bonus 50 (baseline 100): points won or lost by a nil bid"``."""
    return f"{name} {rule_text(value)} (baseline {rule_text(base)}): {FIELD_DOCS.get(name, '')}"


def _seats_text(strategies) -> str:
    """``"heuristic"`` when every seat plays it, else the seats' strategies in turn."""
    specs = [s.spec() for s in strategies]
    return specs[0] if len(set(specs)) == 1 else ", ".join(specs)


def configuration_changes(experiment: Experiment) -> list[dict]:
    """One row per configuration: ``config`` and ``changes``, the rule fields that differ
    from the baseline's (each with its meaning, ``core.rules.FIELD_DOCS``; "the rules of X"
    where an earlier row X has the same rules) and the strategies when they differ. The
    baseline is the experiment's, else its first configuration."""
    configs = list(experiment.configs)
    if not configs:
        return []
    by_name = {c.name: c for c in configs}
    base = by_name.get(experiment.baseline or "", configs[0])
    base_rules = base.rules.as_dict()
    rows, seen = [], {}
    for config in configs:
        if config.name == base.name:
            rows.append({"config": config.name, "changes": ["the baseline"]})
            seen.setdefault(config.rules, config.name)
            continue
        values = config.rules.as_dict()
        changes = [_field_words(name, values[name], base_rules[name]) for name in FIELD_NAMES
                   if values[name] != base_rules[name]]
        if changes and config.rules in seen:  # said once, on the first row of these rules
            changes = [f"the rules of {seen[config.rules]}"]
        seen.setdefault(config.rules, config.name)
        shown, was = _seats_text(config.strategies), _seats_text(base.strategies)
        if shown != was:
            changes.append(f"strategies {shown} (baseline {was})")
        rows.append({"config": config.name, "changes": changes or ["nothing"]})
    return rows
