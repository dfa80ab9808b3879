"""The report's sections, one builder per analysis name of an experiment file: each adds
tables, figures and findings to its :class:`~spades_sim.report.model.Section` from the analysis
functions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from markupsafe import Markup

from ..analysis import plots
from ..analysis.bids import bid_accuracy, bid_calibration, tricks_minus_bid
from ..analysis.effects import (
    game_effects,
    hand_summary,
    join_summaries,
    paired_effects,
    paired_from_summary,
)
from ..analysis.facts import (
    FACT_COLUMNS,
    blind_nil_games,
    contract_facts,
    facts_table,
    game_facts,
    nil_by_cards,
)
from ..analysis.headtohead import (
    differences_in_differences,
    head_to_head,
    opposite_signs,
    rules_text,
    variant_effect_differences,
)
from ..analysis.metrics import rate_interval, t_test_p
from ..analysis.nil import (
    nil_by_feature,
    nil_by_partner_bid,
    nil_marginal_value,
    nil_paired_value,
    nil_side_hands,
    nil_success,
)
from ..analysis.par import (
    bids_against_par,
    nil_against_par,
    par_hand_types,
    tricks_against_par,
)
from ..analysis.summary import game_summary, side_summary
from ..analysis.winprob import (
    MIN_GAMES,
    RULE_SHARE,
    plot_win_probability,
    win_probability_by_lead,
)
from ..evaluate import rating_difference
from ..experiment.counterfactual import is_number_line
from ..run import read_meta
from . import formatting
from .examples import add_example_hands, example_picks
from .formatting import ci_text, code, decimals, identical_deals_phrase, signed
from .frames import give_back_memory
from .ladder import ladder_splits, ladder_wins
from .model import Context, Section, section

# -- the sections ---------------------------------------------------------------------------------
#: How a finding names the mode its numbers come from.
MODE_WORDS = {"hands": "independent hands, each from zero scores",
              "games": "whole games"}
MODE_WORDS_SHORT = {"hands": "independent hands", "games": "whole games"}


def _share(count, total) -> str:
    """``"412 of 1,000 (41.2%)"``."""
    return f"{int(count):,} of {int(total):,} ({100 * count / total:.1f}%)" if total else "0"


EFFECT_WORDS = {  # metric -> (phrase, unit, scale, digits)
    "score": ("the mean score per side and hand", " points", 1.0, 1),
    "set": ("the share of contracts set", " percentage points", 100.0, 1),
    "bags_added": ("the bags added to a side's bag counter per hand", " bags", 1.0, 2),
    "overtricks": ("the overtricks per side and hand", " tricks", 1.0, 2),
    "nil": ("the share of seats bidding nil", " percentage points", 100.0, 1),
}


@section("variant_effects", "Paired effects on common deals (independent hands)",
         "Hands mode: independent hands, each from zero scores and empty bag counters, so a bag "
         "costs nothing here unless one hand alone reaches the bag limit, and nothing depends "
         "on the score; whole games (the games section) can rank the configurations "
         "differently. Every configuration plays from the same random streams (common random "
         "numbers), so each hand gives a paired difference against the baseline: for each "
         "metric, the difference of the per-hand values of a configuration and the baseline on "
         "the same hand, averaged over the hands, with a 95% t interval on those per-hand "
         "differences. The cards are the same only where the rules deal alike and the players' "
         "choices do not change the deal: identical_deals counts the paired hands dealt "
         "identical cards, measured from the stored cards; elsewhere the pairing shares only "
         "the random streams. Binary metrics (set, nil) get the same per-deal interval and "
         "McNemar's test on the discordant units. Metrics: score = mean score "
         "change per side and hand; set = share of side-hands whose contract was set; "
         "bags added = bags added to the side's bag counter per side and hand, as its rules "
         "count them (overtricks, plus a failed nil's tricks under failed_nil_tricks = "
         "bags_only); overtricks = tricks counting toward the contract beyond it; nil = share "
         "of seats bidding nil. Only configurations with the same number of players are "
         "compared.")
def _variant_effects(ctx: Context, section: Section) -> None:
    experiment = ctx.experiment
    configs = {c.name: c for c in experiment.configs}
    base_config = configs.get(experiment.baseline)
    groups: dict[tuple, list[str]] = {}
    for config in experiment.configs:
        groups.setdefault((config.rules.players, _adapted(config)), []).append(config.name)
    comparisons = []  # (names, baseline, adapting): the tables, in order
    for (players, adapted), names in sorted(groups.items(), key=lambda item: (-item[0][0],
                                                                                item[0][1])):
        if len(names) < 2:
            if not any(key[0] == players and key != (players, adapted) for key in groups):
                section.notes.append(Markup(
                    "{} ({} players) has no other configuration with {} players to compare "
                    "with; it appears in the other sections.").format(code(names[0]), players,
                                                                     players))
            continue
        # The baseline of a group: the configuration with the baseline's rules (for the
        # strategies tuned to their rules, the one tuned to the baseline's rules).
        baseline = next((name for name in names if base_config is not None
                         and configs[name].rules == base_config.rules), names[0])
        if not adapted and experiment.baseline in names:
            baseline = experiment.baseline
        comparisons.append((names, baseline, False))
    # Adapting the strategy: each configuration whose seats play the strategy tuned to its
    # rules against the configuration with the same rules and fixed strategies.
    for config in experiment.configs:
        if not _adapted(config):
            continue
        fixed = next((c.name for c in experiment.configs
                      if c.rules == config.rules and not _adapted(c)), None)
        if fixed is None:
            continue
        comparisons.append(([fixed, config.name], fixed, True))
    tables = []
    for (_, baseline, adapting), table in zip(comparisons, _paired_effects(
            ctx, [(names, baseline) for names, baseline, _ in comparisons])):
        tables.append(table[table["config"] != baseline] if adapting else table)
    adapting_pairs = {(names[1], baseline) for names, baseline, adapting in comparisons
                      if adapting}
    if any(_adapted(c) for c in experiment.configs):
        section.notes.append(Markup(
            "Configurations whose seats all play the strategy tuned to their own rules "
            "(tuned-PRESET) are compared with the one tuned to the baseline's rules: the "
            "effect of the rules when the players adapt to them, beside the effect with the "
            "fixed strategy. Each is also set beside the same rules played by the fixed "
            "strategy: a self-play table of tuned players against a self-play table of fixed "
            "ones, which says how the tables differ, not what adapting gains against the other "
            "players; so no finding is drawn from those rows here. The effect of adapting is "
            "measured head to head (tuned against fixed at one table), in the strategies "
            "section where the experiment seats such matches."))
    if not tables:
        return
    table = pd.concat(tables, ignore_index=True)
    for row in table.drop_duplicates(["config", "baseline"]).to_dict(orient="records"):
        if row["identical_deals"] == row["identical_deals"]:  # measured from the cards
            ctx.deal_shares[(str(row["config"]), str(row["baseline"]))] = (
                int(row["identical_deals"]), int(row["n"]))
    ctx.table(section, "paired", "Paired differences against the baseline", table)
    for metric in ("score", "set", "bags_added", "overtricks", "nil"):
        part = table[(table["metric"] == metric) & (table["config"] != table["baseline"])]
        ctx.figure(section, f"{metric}", f"Paired difference: {EFFECT_WORDS[metric][0]}",
                   plots.plot_paired_effects, part,
                   size=(7.5, max(2.5, 0.45 * len(part) + 1.2)))
    matches = [c.name for c in experiment.configs if _sides_differ(c)]
    two_changes = sorted({(row["config"], row["baseline"]) for row in table.to_dict("records")
                          if row["config"] not in matches and row["baseline"] not in matches
                          and _changes(configs[row["config"]], configs[row["baseline"]]) > 1},
                         key=lambda pair: list(configs).index(pair[0]))
    if two_changes:
        section.notes.append(Markup(
            "{} differ from their baseline in both the rules and the strategies: their rows "
            "above mix the two changes, so no finding is drawn from them here.").format(
            Markup(", ").join(Markup("{} (against {})").format(code(a), code(b))
                              for a, b in two_changes)))
    skipped = set(two_changes) | adapting_pairs
    if matches:
        section.notes.append(Markup(
            "{} seat different strategies on the two sides: their rows above are the mean over "
            "both sides (what the table scores), not a strategy's effect, so no finding is "
            "drawn from them here; the strategies section compares their sides head to "
            "head.").format(Markup(", ").join(code(name) for name in matches)))
    for metric in ("score", "set", "bags_added"):
        phrase, unit, scale, digits = EFFECT_WORDS[metric]
        rows = table[(table["metric"] == metric) & (table["config"] != table["baseline"])
                     & ~table["config"].isin(matches) & ~table["baseline"].isin(matches)]
        rows = rows[[(c, b) not in skipped for c, b in zip(rows["config"], rows["baseline"])]]
        for row in ctx.ordered(rows).to_dict(orient="records"):
            deals = Markup("{:,} hands ({})").format(
                int(row["n"]), identical_deals_phrase(row["identical_deals"], row["n"]))
            label = (f"{row['config']} vs {row['baseline']}: {metric.replace('_', ' ')} "
                     f"(self-play, hands)")
            claim = {"label": label, "effect": row["diff"], "low": row["diff_low"],
                     "high": row["diff_high"], "p": row.get("diff_p"), "unit": unit,
                     "scale": scale, "digits": digits, "n": row["n"], "n_unit": "deals",
                     "mode": "self-play, independent hands"}
            if row["diff"] == row["diff_low"] == row["diff_high"] == 0:
                section.findings.append(Markup(
                    "In self-play independent hands under {}, {} is the same as under {} on "
                    "every one of {}.").format(code(row["config"]), phrase,
                                               code(row["baseline"]), deals))
                continue
            if row["diff_low"] <= 0 <= row["diff_high"]:
                shown = decimals(row["diff_low"] * scale, row["diff_high"] * scale, digits)
                ctx.claim(section, Markup(
                    "In self-play independent hands under {}, {} is not distinguishable from {} "
                    "({:+.{d}f}{}, 95% CI {:+.{d}f} to {:+.{d}f}{}), on {}.").format(
                    code(row["config"]), phrase, code(row["baseline"]), row["diff"] * scale,
                    unit, row["diff_low"] * scale, row["diff_high"] * scale,
                    _method_words(row), deals, d=shown), **claim)
                continue
            amount, interval = signed(row["diff"], row["diff_low"], row["diff_high"], unit,
                                       scale, digits)
            ctx.claim(section, Markup(
                "In self-play independent hands under {}, {} is {} than under {} ({}{}), on "
                "{}.").format(
                code(row["config"]), phrase, amount, code(row["baseline"]), interval,
                _method_words(row), deals), **claim)


#: The columns ``paired_effects`` reads.
PAIRED_COLUMNS = ("config", "duplicate", "game_id", "hand_id", "seat", "side", "tricks",
                  "score_delta", "side_contract", "side_taken", "nil")


def _paired_effects(ctx: Context, comparisons) -> list[pd.DataFrame]:
    """``analysis.effects.paired_effects`` of each ``(names, baseline)`` of ``comparisons``
    (configurations with the same players, against one of them): the table the frame of all of
    them gives, built from the per-hand summary of one configuration at a time
    (``hand_summary``), each made once and dropped when its last pair is done. The pairs are
    taken by the rules of their configuration (a preset, then the strategy tuned to it), so
    only a few summaries are held at a time."""
    frames = ctx.config_frames("hands")
    rank = {}
    for index, config in enumerate(ctx.experiment.configs):
        rank.setdefault(config.rules, index)
    rules = {config.name: config.rules for config in ctx.experiment.configs}
    pairs = []
    for names, baseline in comparisons:
        others = [name for name in sorted(names) if name != baseline] or [baseline]
        pairs += [(baseline, name) for name in others if (baseline, name) not in pairs]
    uses: dict = {}
    for pair in pairs:
        for name in set(pair):
            uses[name] = uses.get(name, 0) + 1
    summaries, results = {}, {}
    for baseline, name in sorted(pairs, key=lambda pair: rank.get(rules.get(pair[1]), 0)):
        members = sorted({baseline, name})
        for member in members:
            if member not in summaries:
                # (the frame every later pass reads: their analyses are computed on it now)
                frame = frames.frame(member)
                ctx.take_frame("hands", member, frame)
                summaries[member] = hand_summary(frame[list(PAIRED_COLUMNS)],
                                                 deals=frames.deals(member))
                del frame
        joined = join_summaries([summaries[member] for member in members], members)
        results[(baseline, name)] = paired_from_summary(joined, baseline)
        for member in members:
            uses[member] -= 1
            if not uses[member]:
                del summaries[member]
    frames.drop_deals()  # (read here only)
    del summaries
    give_back_memory()  # (the frames and summaries of every configuration, freed)
    tables = []
    for names, baseline in comparisons:  # (the baseline is not compared with itself)
        order = sorted(names)
        others = [name for name in order if name != baseline]
        parts = [results[(baseline, name)] for name in others] or [results[(baseline, baseline)]]
        parts = [table.loc[table["config"].astype(object).to_numpy() != baseline]
                 for table in parts]
        table = pd.concat(parts, ignore_index=True)
        table["config"] = pd.Categorical(table["config"].astype(object), categories=order)
        tables.append(table)
    return tables


def _adapted(config) -> bool:
    """Whether every seat plays the strategy tuned to the configuration's own rules preset
    (``tuned-PRESET``, with the rules of that preset)."""
    rules = config.rules
    return all(s.spec() == f"tuned-{rules.preset_name}" for s in config.strategies) and \
        not rules.overrides()


def _changes(config, baseline) -> int:
    """How many of the rules and the strategies a configuration changes from another (two
    configurations each tuned to its own rules count as the same strategy)."""
    strategies = [s.spec() for s in config.strategies]
    same = strategies == [s.spec() for s in baseline.strategies] or (
        _adapted(config) and _adapted(baseline))
    return int(config.rules != baseline.rules) + int(not same)


def _sides_differ(config) -> bool:
    """Whether the configuration's sides play different strategies (a head-to-head table)."""
    rules = config.rules
    seats = range(rules.players)
    sides = {}
    for seat in seats:
        side = seat % 2 if rules.partnership else seat
        sides.setdefault(side, []).append(config.strategies[seat].spec())
    return len({tuple(specs) for specs in sides.values()}) > 1


def _method_words(row) -> Markup:
    """``; per-deal interval, McNemar test on the 3 side-hands set only here and the 9 only in
    the baseline`` for the binary metrics (``analysis.effects``), else nothing."""
    if row.get("method") != "mcnemar" or row.get("gains") != row.get("gains"):
        return Markup("")
    units = {"set": "side-hands set", "nil": "seats bidding nil"}.get(str(row["metric"]),
                                                                      "units with the event")
    return Markup("; interval over the per-deal differences, McNemar test on the "
                  "{:,} {} only here and the {:,} only in the baseline").format(
        int(row["gains"]), units, int(row["losses"]))


def _bid_accuracy_analyses(ctx: Context) -> dict:
    """The bid accuracy section's per-configuration analyses (``model.section``)."""
    return {
        "bid_accuracy:accuracy": bid_accuracy, "bid_accuracy:spread": tricks_minus_bid,
        "bid_accuracy:spades": lambda frame: bid_calibration(frame, feature="spades"),
        "bid_accuracy:high_cards": lambda frame: bid_calibration(frame, feature="high_cards"),
        "bid_accuracy:examples": lambda frame: example_picks(frame, ("worst-set",))}


def _own(found: dict) -> dict:
    """A section's tables of ``Context.per_config`` by their keys without the section's
    name."""
    return {key.split(":", 1)[1]: table for key, table in found.items()}


@section("bid_accuracy", "Bid accuracy",
         "A seat's non-nil bid is exact when it takes exactly its bid in tricks, over when it "
         "takes more, under when fewer (rates with Wilson 95% intervals, over seat-hands). A "
         "side is set when the tricks counting toward its contract fall short of it (over "
         "side-hands with a contract); overtricks per hand are the tricks counting toward a "
         "side's contract beyond it, and bags added per hand what the hand added to the side's "
         "bag counter under its rules (the overtricks, plus a failed nil's tricks under "
         "failed_nil_tricks = bags_only). Tricks minus bid is the distribution of that "
         "difference per seat; calibration shows the mean bid and the mean tricks taken by "
         "the number of spades (and of high cards: aces, kings, queens) in the hand as dealt.",
         per_config=_bid_accuracy_analyses)
def _bid_accuracy(ctx: Context, section: Section) -> None:
    mode = ctx.any_mode()
    found = _own(ctx.per_config(mode, _bid_accuracy_analyses(ctx)))
    accuracy = found["accuracy"]
    ctx.table(section, "accuracy", f"Bid accuracy by configuration and strategy ({mode})",
              accuracy)
    ctx.figure(section, "accuracy", "Exact, over and under bids, set contracts",
               plots.plot_bid_accuracy, accuracy,
               size=(7.5, max(3.5, 0.4 * len(accuracy) + 1.5)))
    spread = found["spread"]
    ctx.figure(section, "tricks-minus-bid", "Tricks minus bid", plots.plot_tricks_minus_bid,
               spread, lines=("config", "strategy"))
    ctx.table(section, "tricks-minus-bid", "Tricks minus bid (share of non-nil seat bids)",
              spread)
    for feature in ("spades", "high_cards"):
        calibration = found[feature]
        ctx.figure(section, f"calibration-{feature}", f"Mean bid and tricks by {feature}",
                   plots.plot_calibration, calibration, facet="config")
        ctx.table(section, f"calibration-{feature}",
                  f"Calibration: mean bid and mean tricks by {feature}", calibration)
    add_example_hands(ctx, section, ("worst-set",), picks=found["examples"])
    if len(accuracy) and "set_rate" in accuracy:
        rates = accuracy["set_rate"].to_numpy(dtype=float)
        if np.isfinite(rates).any():
            ends = [("lowest", np.nanmin(rates)), ("highest", np.nanmax(rates))]
            if ends[0][1] == ends[1][1]:
                ends = [("same", ends[0][1])]
            for label, value in ends:
                _set_rate_finding(section, mode, label, accuracy[rates == value])


def _set_rate_finding(section: Section, mode: str, label: str, rows: pd.DataFrame) -> None:
    """The lowest (highest) set rate and where it occurs; a tie names every group sharing it
    rather than calling one of them the lowest."""
    first = rows.iloc[0]
    where = Markup(", ").join(Markup("{} with {}").format(code(row["config"]),
                                                          code(row["strategy"]))
                              for row in rows.to_dict(orient="records"))
    rate = ci_text(first["set_rate"], first["set_rate_low"], first["set_rate_high"], "set_rate")
    if label == "same":
        section.findings.append(Markup("In {}, the set rate is the same everywhere ({}): {}.")
                                .format(MODE_WORDS[mode], where, rate))
        return
    if len(rows) > 1:
        section.findings.append(Markup(
            "In {}, the {} set rate, {}, is shared by {} (a tie).").format(
            MODE_WORDS[mode], label, rate, where))
        return
    section.findings.append(Markup(
        "In {}, the {} set rate is under {}: {}; its seats bid exactly in {}.").format(
        MODE_WORDS[mode], label, where, rate,
        ci_text(first["exact_rate"], first["exact_rate_low"], first["exact_rate_high"],
                "exact_rate")))


@section("par", "Bids against par",
         "Par is what the cards were worth double dummy: the tricks each side takes when every "
         "seat sees every card and plays perfectly, from the hand's actual first leader and the "
         "cards after any exchange (the runs were played with par). Only the hands in which "
         "nobody bid nil count (then both sides play for tricks, as par assumes), and the unit "
         "is the hand: the two sides of a hand are far from independent (their pars add up to "
         "the hand's tricks), so every interval is clustered by hand and every count is of "
         "hands. Hand types: each side's contract (the sum of its number bids) is under, at or "
         "over its par, and a hand's type is its sides' states (under / under: both sides bid "
         "fewer tricks than their cards were worth); shares of hands with Wilson 95% "
         "intervals. Bids against par: a side's contract minus its par; where every seat plays "
         "one strategy the mean par is the hand's tricks over the sides by construction, so "
         "this says how far the contracts of a hand together fall short of its tricks. Tricks "
         "against par: the tricks a side took minus its par, what hidden information and "
         "imperfect play moved; where every seat plays one strategy the sides' gains and "
         "losses cancel exactly (no interval is shown), and off par, the mean of |tricks - "
         "par|, measures how many tricks changed hands. Nil against par: a nil is double-dummy "
         "safe when its bidder, helped by the partner, can avoid every trick however the "
         "opponents play; the share of nils that were safe, and the success rate of the safe "
         "and of the unsafe ones (Wilson 95% intervals).")
def _par(ctx: Context, section: Section) -> None:
    mode = next(m for m in ("hands", "games") if ctx.has_par(m))
    frame = ctx.frame(mode)
    types = par_hand_types(frame)
    ctx.table(section, "hand-types", f"Hands by how both sides' contracts stand against par "
              f"({mode}; one hand per unit)", types,
              note="hand type: each side's contract under, at or over its par; n: hands of "
                   "the type; hands: hands without a nil bid; share: n / hands (Wilson 95%).")
    _par_hand_type_findings(ctx, section, types)
    bids = bids_against_par(frame)
    ctx.table(section, "bids", f"Side contracts against par by configuration and strategy "
              f"({mode}; n = hands, intervals clustered by hand)", bids)
    ctx.figure(section, "bids", "Side contracts against par", plots.plot_bids_against_par, bids,
               size=(7.5, max(3.5, 0.4 * len(bids) + 1.5)))
    ctx.table(section, "bids-by-seat", "Side contracts against par by configuration and seat "
              "(n = hands, intervals clustered by hand)",
              bids_against_par(frame, by=("config", "seat")))
    tricks = tricks_against_par(frame)
    ctx.table(section, "tricks", f"Tricks taken against par ({mode}; n = hands, intervals "
              f"clustered by hand)", tricks,
              note="tricks minus par has no interval where the group holds both sides of "
                   "every hand: it is 0 by construction. at par: hands in which every side "
                   "took exactly its par.")
    ctx.figure(section, "tricks", "Tricks taken against par", plots.plot_tricks_against_par,
               tricks, size=(7.5, max(3.5, 0.4 * len(tricks) + 1.5)))
    nils = nil_against_par(frame)
    ctx.table(section, "nil", f"Nil success against double-dummy safety ({mode})", nils)
    ctx.figure(section, "nil", "Nil success against double-dummy safety",
               plots.plot_nil_success, nils, size=(7.5, max(3.5, 0.35 * len(nils) + 1.5)))
    rules = ctx.rules
    for row in ctx.ordered(bids).to_dict(orient="records"):
        if row["n"] < formatting.FEW_CASES:
            continue
        where = Markup("Under {} with {}").format(code(row["config"]), code(row["strategy"]))
        config_rules = rules.get(str(row["config"]))
        sides = (config_rules.players // 2 if config_rules.partnership
                 else config_rules.players) if config_rules is not None else 0
        if sides and abs(row["sides_per_hand"] - sides) < 1e-9:
            # Every side of the hand in the group: the mean par is the hand's tricks over the
            # sides by construction, so the finding is the contracts' total against the tricks.
            total, tricks_total = sides * row["mean_bid"], sides * row["mean_par"]
            low, high = sides * row["bid_minus_par_low"], sides * row["bid_minus_par_high"]
            # (an estimate, not a test: nobody expects the contracts to take every trick)
            ctx.estimate(section, Markup(
                "{}, the contracts of a hand total {:.2f} of its {:.0f} tricks on average "
                "({:+.2f} tricks, 95% CI {:+.2f} to {:+.2f}, clustered by hand) over {:,} hands "
                "without a nil; {} of the side contracts are under their par and {} over "
                "it.").format(
                where, total, tricks_total, total - tricks_total, low, high, int(row["n"]),
                ci_text(row["under_rate"], row["under_rate_low"], row["under_rate_high"],
                        "rate"),
                ci_text(row["over_rate"], row["over_rate_low"], row["over_rate_high"], "rate")),
                label=f"{row['config']} / {row['strategy']}: tricks of a hand left out of "
                      f"both contracts", effect=tricks_total - total, low=-high, high=-low,
                unit=" tricks per hand", digits=2, n=row["n"], n_unit="hands without a nil",
                mode="self-play, independent hands")
            continue
        claim = {"label": f"{row['config']} / {row['strategy']}: contract minus par",
                 "effect": row["bid_minus_par"], "low": row["bid_minus_par_low"],
                 "high": row["bid_minus_par_high"], "unit": " tricks", "digits": 2,
                 "n": row["n"], "n_unit": "hands", "mode": "self-play, independent hands"}
        if row["bid_minus_par_low"] <= 0 <= row["bid_minus_par_high"]:
            ctx.claim(section, Markup(
                "{}, the sides' contracts are not distinguishable from par ({:+.2f} tricks, 95% "
                "CI {:+.2f} to {:+.2f}, clustered by hand) over {:,} hands without a "
                "nil.").format(where, row["bid_minus_par"], row["bid_minus_par_low"],
                               row["bid_minus_par_high"], int(row["n"])), **claim)
            continue
        side = "above" if row["bid_minus_par"] > 0 else "below"
        ctx.claim(section, Markup(
            "{}, the side bids {:.2f} tricks {} its par on average (95% CI {:+.2f} to {:+.2f}, "
            "clustered by hand) over {:,} hands without a nil; {} of its contracts are under "
            "par.").format(
            where, abs(row["bid_minus_par"]), side, row["bid_minus_par_low"],
            row["bid_minus_par_high"], int(row["n"]),
            ci_text(row["under_rate"], row["under_rate_low"], row["under_rate_high"], "rate")),
            **claim)
    for row in ctx.ordered(nils).to_dict(orient="records"):
        if row["n"] < formatting.FEW_CASES or row["blind"]:
            continue
        kind = "double-dummy safe" if row["dd_safe"] else "not double-dummy safe"
        ctx.estimate(section, Markup(
            "Under {} with {}, {} of the nil bids were {}; {} of them were made.").format(
            code(row["config"]), code(row["strategy"]),
            ci_text(row["share"], row["share_low"], row["share_high"], "rate"), kind,
            ci_text(row["rate"], row["rate_low"], row["rate_high"], "rate")),
            label=f"{row['config']} / {row['strategy']}: nils made when {kind}",
            effect=row["rate"], low=row["rate_low"], high=row["rate_high"],
            unit="% of them", scale=100, n=row["n"], n_unit=f"{kind} nil bids",
            mode="self-play, independent hands")


def _par_hand_type_findings(ctx: Context, section: Section, types: pd.DataFrame) -> None:
    """What par adds, first: per configuration, the shares of hands whose sides all bid under
    their par, and in which some side bid over it (one hand per unit)."""
    for config, part in types.groupby("config", observed=True, sort=False):
        hands = int(part["hands"].iloc[0])
        if hands < formatting.FEW_CASES:
            continue
        states = part["hand_type"].astype(str).str.split(" / ")
        all_under = int(part.loc[states.map(lambda s: set(s) == {"under"}), "n"].sum())
        some_over = int(part.loc[states.map(lambda s: "over" in s), "n"].sum())
        (under_low, over_low), (under_high, over_high) = rate_interval(
            [all_under, some_over], [hands, hands])
        ctx.estimate(section, Markup(
            "Under {}, every side bid under its par in {} of {:,} hands without a nil (one hand "
            "per unit).").format(code(config), ci_text(all_under / hands, under_low, under_high,
                                                        "rate"), hands),
            label=f"{config}: hands in which every side bid under its par",
            effect=all_under / hands, low=under_low, high=under_high, unit="% of the hands",
            scale=100, n=hands, n_unit="hands without a nil",
            mode="self-play, independent hands")
        ctx.estimate(section, Markup(
            "Under {}, some side bid over its par in {} of those hands.").format(
            code(config), ci_text(some_over / hands, over_low, over_high, "rate")),
            label=f"{config}: hands in which some side bid over its par",
            effect=some_over / hands, low=over_low, high=over_high, unit="% of the hands",
            scale=100, n=hands, n_unit="hands without a nil",
            mode="self-play, independent hands")


def _nil_analyses(ctx: Context) -> dict:
    """The nil section's per-configuration analyses (``model.section``)."""
    partnership = [c.name for c in ctx.experiment.configs if c.rules.partnership]
    return {
        "nil:success": nil_success,
        "nil:spades": lambda frame: nil_by_feature(frame, feature="spades"),
        "nil:high_cards": lambda frame: nil_by_feature(frame, feature="high_cards"),
        "nil:partner": lambda frame: (nil_by_partner_bid(frame) if len(frame)
                                      and frame["config"].iloc[0] in partnership else None),
        "nil:examples": lambda frame: example_picks(frame, ("failed-nil", "made-blind-nil"))}


@section("nil", "Nil and blind nil",
         "A nil (or blind nil) bid is made when the bidder takes no trick. Success rates carry "
         "Wilson 95% intervals; by feature they are split by the bidder's hand as dealt, and by "
         "the partner's bid in partnerships. The success rate is not what nil is worth: each "
         "strategy chooses the hands it bids nil on, and a nil also changes the partner's "
         "contract, the bags and the play. What nil is worth: with nil_counterfactual = true "
         "in the experiment file, the hands run also plays each configuration's number lines "
         "on the same deals: in each, one side's seats have nil turned off and every other "
         "seat plays as before, so every side-hand that bid nil has a paired counterpart in "
         "which its nil bidder bid its number and the opponents bid exactly as they did. The "
         "value is measured twice per nil side-hand: on the side's own score, and on its "
         "margin (its score minus the opponents'), which also counts what the nil gave or "
         "cost the opponents; 95% t intervals with the deal as the unit. Both hold for the "
         "hands the strategy chose to bid nil on (their share of all side-hands is shown), in "
         "independent hands (from zero scores); for a ladder of nil thresholds, the value of "
         "the nils each step adds is shown too. Blind nil is chosen from the score, so it is "
         "measured in whole games: how often, how often made, and what those hands scored.",
         per_config=_nil_analyses)
def _nil(ctx: Context, section: Section) -> None:
    mode = ctx.any_mode()
    where = MODE_WORDS[mode]
    partnership = [c.name for c in ctx.experiment.configs if c.rules.partnership]
    found = _own(ctx.per_config(mode, _nil_analyses(ctx)))
    success = found["success"]
    ctx.table(section, "success", f"Nil success by configuration, strategy and blind ({where})",
              success)
    ctx.figure(section, "success", "Nil success rate", plots.plot_nil_success, success,
               size=(7.5, max(3.5, 0.35 * len(success) + 1.5)))
    by_spades = found["spades"]
    ctx.figure(section, "by-spades", "Nil success by spades held", plots.plot_nil_success,
               by_spades, lines=("config",))
    ctx.table(section, "by-spades", f"Nil success by spades held ({where})", by_spades)
    by_high = found["high_cards"]
    ctx.table(section, "by-high-cards", f"Nil success by high cards held ({where})", by_high)
    if partnership:
        ctx.table(section, "by-partner-bid", f"Nil success by the partner's bid ({where})",
                  found["partner"])
    add_example_hands(ctx, section, ("failed-nil", "made-blind-nil"), picks=found["examples"])
    _nil_value(ctx, section)
    if "games" in ctx.experiment.modes:
        _blind_nil(ctx, section)


def _nil_value(ctx: Context, section: Section) -> None:
    """The paired value of nil (own score and margin), identical comparisons shown once, and
    the marginal value of each step of a nil-threshold ladder."""
    lines = ctx.number_lines()
    if not lines:
        section.notes.append(Markup(
            "No paired value of nil: the hands run has no number lines (add "
            "<code>nil_counterfactual = true</code> to the experiment file and run it again). "
            "The success rates above do not say whether nil pays."))
        return
    # In the experiment's order, so that a repeated comparison is shown as the earlier one.
    lines = {c.name: lines[c.name] for c in ctx.experiment.configs if c.name in lines}
    side_hands = _nil_side_hands(ctx, lines)  # (once, for both tables)
    value = nil_paired_value(None, lines, side_hands=side_hands)
    repeats = value.loc[value["same_as"] != "", ["config", "same_as"]].drop_duplicates()
    for row in repeats.to_dict(orient="records"):
        section.notes.append(Markup(
            "{} repeats {} on every hand (the same nil side-hands and the same scores in both "
            "lines, deal by deal): the same comparison, shown once, as {}.").format(
            code(row["config"]), code(row["same_as"]), code(row["same_as"])))
    value = value.loc[value["same_as"] == ""].drop(columns="same_as")
    ctx.table(section, "paired-value", "What nil was worth against its bidder bidding a "
              "number on the same deals (independent hands, per nil side-hand)", value,
              note="diff: the side's own score with the nil minus its score on the same deal "
                   "with its nil bidder bidding its number; margin diff: the same for the "
                   "side's score minus the opponents' (the answer: what the nil gained "
                   "against the table); share: nil side-hands over all side-hands (the hands "
                   "the strategy chose to bid nil on); opponents nil: nil side-hands in which "
                   "the opponents bid nil too (in both lines); same bids: nil side-hands in "
                   "which every other seat bid the same in both lines. Intervals: 95% t, the "
                   "deal as the unit.")
    for row in ctx.ordered(value).to_dict(orient="records"):
        if row["n"] < 30:
            continue
        worth = ("gained" if row["margin_low"] > 0 else "lost" if row["margin_high"] < 0
                 else "neither gained nor lost detectably")
        ctx.claim(section, Markup(
            "In independent hands under {}, on the hands its strategy chose to bid {} on ({} "
            "of side-hands; {} made), the {} {} against the bidder bidding its number on the "
            "same deals: {:+.1f} points of margin over the opponents per nil side-hand (95% "
            "CI {:+.1f} to {:+.1f}); on the side's own score {:+.1f} (95% CI {:+.1f} to "
            "{:+.1f}); {:,} side-hands.").format(
            code(row["config"]), row["kind"],
            ci_text(row["share"], row["share_low"], row["share_high"], "rate"),
            _share(row["made"], row["n"]), row["kind"], worth, row["margin_diff"],
            row["margin_low"], row["margin_high"], row["diff"], row["diff_low"],
            row["diff_high"], int(row["n"])),
            label=f"{row['config']}: {row['kind']} against the number, margin (hands)",
            effect=row["margin_diff"], low=row["margin_low"], high=row["margin_high"],
            p=row.get("margin_p"), unit=" points of margin per nil side-hand", n=row["n"],
            n_unit="nil side-hands", mode="self-play, independent hands")
    ladders = _nil_ladders(ctx, lines)
    if not ladders:
        return
    marginal = pd.concat([nil_marginal_value(None, lines, ladder, side_hands=side_hands)
                          for ladder in ladders], ignore_index=True)
    ctx.table(section, "marginal-value", "What the nils added by each nil threshold were worth "
              "(independent hands, per added nil side-hand)", marginal,
              note="Each configuration of a ladder (the same rules and strategies but for the "
                   "nil threshold) against the one before it: the nil side-hands it adds on "
                   "the same deals, and the paired value of their nils (as above).")
    for row in marginal.to_dict(orient="records"):
        if not row["previous"] or row["n"] < 30:
            continue
        section.findings.append(Markup(
            "In independent hands, raising the nil threshold from {} to {} adds {:,} nil "
            "side-hands; on them the nil changed the margin over the opponents by {:+.1f} "
            "points per side-hand (95% CI {:+.1f} to {:+.1f}) and the side's own score by "
            "{:+.1f} (95% CI {:+.1f} to {:+.1f}), against the bidder bidding its number.").format(
            code(row["previous"]), code(row["config"]), int(row["n"]), row["margin_diff"],
            row["margin_low"], row["margin_high"], row["diff"], row["diff_low"],
            row["diff_high"]))


#: The columns ``analysis.nil.nil_side_hands`` reads.
NIL_VALUE_COLUMNS = ("config", "duplicate", "game_id", "hand_id", "seat", "side", "bid", "nil",
                     "blind", "tricks", "score_delta")


def _nil_side_hands(ctx: Context, lines: dict) -> pd.DataFrame:
    """``analysis.nil.nil_side_hands`` of the hands run for ``lines`` (nil line -> ``{side:
    number line}``), one nil line at a time: the tidy frames of a line and its number lines
    only (the whole run with its number lines is several gigabytes). Each line's rows depend
    only on its own configurations, and the table is sorted by configuration and side-hand,
    so the parts put together are the table of the whole frame."""
    frames = ctx.config_frames("hands")
    parts = []
    for line, numbers in lines.items():
        names = [line, *numbers.values()]
        found = [frames.frame(name, NIL_VALUE_COLUMNS) for name in names]
        for part in found:  # (one categorical: pandas makes text of categoricals that differ)
            part["config"] = part["config"].cat.set_categories(sorted(names))
        frame = pd.concat(found, ignore_index=True)
        del found
        parts.append(nil_side_hands(frame, {line: numbers}))
        del frame
    found = [part for part in parts if len(part)]
    if len(found) < 2:  # (none or one: the table as it is, empty or sorted already)
        return found[0] if found else parts[0]
    table = pd.concat(found, ignore_index=True)
    return table.sort_values(["config", "duplicate", "hand_id", "side"], kind="stable",
                             ignore_index=True)


def _nil_ladders(ctx: Context, lines: dict) -> list[list[str]]:
    """The configurations with number lines that differ only in their strategies'
    ``nil_threshold``, grouped and ordered by it (groups of two or more thresholds)."""
    groups: dict = {}
    for config in ctx.experiment.configs:
        if config.name not in lines:
            continue
        try:
            thresholds = tuple(float(s.params["nil_threshold"]) for s in config.strategies)
            rest = tuple((s.name, tuple(sorted((k, v) for k, v in s.params.items()
                                              if k != "nil_threshold")))
                         for s in config.strategies)
        except (AttributeError, KeyError):
            continue
        groups.setdefault((config.rules.to_spec().__repr__(), rest), []).append(
            (thresholds, config.name))
    ladders = []
    for members in groups.values():
        if len({thresholds for thresholds, _ in members}) == len(members) > 1:
            ladders.append([name for _, name in sorted(members)])
    return ladders


def _blind_nil(ctx: Context, section: Section) -> None:
    """Blind nil in whole games: frequency, success and what the blind-nil hands scored."""
    table = blind_nil_games(ctx.frame("games"))
    ctx.table(section, "blind-nil-games", "Blind nil in whole games", table,
              note="per game: blind nils per game (the game is the unit); rate: blind nils "
                   "made, 95% Wilson interval clustered by game; deficit: points the side "
                   "trailed the best other side by before the hand; score, margin: the side's "
                   "score of the hand and that score minus the opponents' on the blind-nil "
                   "side-hands (95% t, clustered by game). What those hands scored is "
                   "conditional on the states the strategy chose blind nil in; it is not "
                   "paired with a number bid.")
    baseline = _baseline_name(ctx, table)
    for row in ctx.ordered(table).to_dict(orient="records"):
        if not row["blind_nils"] or row["config"] != baseline:
            continue  # (one finding: the baseline's; the table has every configuration)
        section.findings.append(Markup(
            "In whole games under {}, blind nil was bid {:.2f} times per game (95% CI {:.2f} to "
            "{:.2f}; {:,} over {:,} games), by sides trailing by {:.0f} points on average, and "
            "made {}; on those hands the side's margin over the opponents was {:+.1f} points "
            "(95% CI {:+.1f} to {:+.1f}).").format(
            code(row["config"]), row["per_game"], row["per_game_low"], row["per_game_high"],
            int(row["blind_nils"]), int(row["games"]), row["deficit"],
            ci_text(row["rate"], row["rate_low"], row["rate_high"], "rate"), row["margin"],
            row["margin_low"], row["margin_high"]))


def _baseline_name(ctx: Context, table: pd.DataFrame) -> str | None:
    """The experiment's baseline when ``table`` has it, else its first configuration."""
    names = list(dict.fromkeys(ctx.ordered(table)["config"].astype(str)))
    baseline = ctx.experiment.baseline
    return baseline if baseline in names else (names[0] if names else None)


def _facts_analyses(ctx: Context) -> dict:
    """The facts section's per-configuration analysis (``model.section``): the contracts of
    10+ (the whole hands frame is gigabytes; a configuration's facts are its own rows')."""
    mode = ctx.any_mode()
    return {"facts:contracts": lambda frame: pd.DataFrame(contract_facts(frame, mode),
                                                          columns=list(FACT_COLUMNS))}


@section("facts", "Spades facts",
         "What a Spades player expects to know about these rules as the strategies play them, "
         "each with its 95% interval and its unit, the thing counted once: a game (the hands "
         "of a game share its score), a deal (the sides of a hand share its cards), or a bid "
         "or contract clustered by its game or deal. Contracts of 10 or more come from the "
         "independent hands (from whole games when there are none); bag penalties, game "
         "length and blind nil from whole games; nil success by the spade honours (Q, K, A of "
         "spades and any joker) and low cards (2 to 5 of any suit) held needs a run played "
         "with its cards (cards = true).", per_config=_facts_analyses)
def _facts(ctx: Context, section: Section) -> None:
    mode = ctx.any_mode()  # (the games frame is small: whole)
    contracts = ctx.per_config(mode, _facts_analyses(ctx))["facts:contracts"]
    games = ctx.frame("games") if "games" in ctx.experiment.modes else None
    limits = {name: rules.bag_limit for name, rules in ctx.rules.items()}
    table = facts_table([*contracts.to_dict(orient="records"),
                         *(game_facts(games, limits) if games is not None else [])])
    ctx.table(section, "facts", "Spades facts by configuration", table,
              note="value: a mean (per game) or a share (rates as fractions); unit: what n "
                   "counts; 95% intervals (t for means, Wilson for shares, clustered by deal "
                   "or game where a deal or game holds several).")
    baseline = _baseline_name(ctx, table)
    for row in ctx.ordered(table).to_dict(orient="records"):
        if row["config"] != baseline:
            continue  # (findings for the baseline; the table has every configuration)
        share = row["fact"].startswith(("deals", "contracts", "blind nils made"))
        value = (ci_text(row["value"], row["low"], row["high"], "rate") if share else
                 f"{row['value']:.2f} (95% CI {row['low']:.2f} to {row['high']:.2f})")
        section.findings.append(Markup("In {} under {}, {}: {} ({:,} {}s).").format(
            MODE_WORDS[row["mode"]].split(",")[0], code(row["config"]), row["fact"], value,
            int(row["n"]), row["unit"].split(" (")[0]))
    if not read_meta(ctx.results / mode)["identity"].get("cards", False):
        section.notes.append(Markup(
            "Nil success by spade honours and low cards needs the dealt cards: add "
            "<code>cards = true</code> to the experiment file and run it again (the nil "
            "section shows success by spades and high cards held meanwhile)."))
        return
    # Only the nil bids' rows with their cards (kept as the runs were read: every seat's
    # cards are gigabytes), one configuration after another.
    frames = ctx.config_frames(mode)
    found = [frames.nil_bids(name, ["config", "duplicate", "game_id", "hand_id", "nil",
                                    "tricks"])
             for name in frames.names() if not is_number_line(name)]
    found = [part for part in found if part is not None]
    if not found:
        return
    cards = pd.concat(found, ignore_index=True)
    by_cards = nil_by_cards(cards)
    ctx.table(section, "nil-by-cards", "Nil success by spade honours and low cards held "
              f"({MODE_WORDS[mode]})", by_cards,
              note="A nil bid is the unit; 95% Wilson intervals clustered by deal.")


@section("games", "Whole games",
         "Games mode: games are played to the target from zero (random first dealer, the deal "
         "passing left), so the score and the bags carry from hand to hand, unlike the "
         "independent hands of the other sections. Length: hands per game (95% normal "
         "interval). Draws: games without a winner (a tie, or the hand cap reached), counted "
         "and shown as a share of all games (Wilson interval). Side 0 win rate: share of the "
         "decisive games won by side 0 (Wilson interval). Bag penalties: a side's bags "
         "crossing the bag limit, per game. Comebacks: share of games won by a side that "
         "trailed by 100 points or more after some hand.")
def _games(ctx: Context, section: Section) -> None:
    frame = ctx.frame("games")
    table = game_effects(frame)
    ctx.table(section, "summary", "Games by configuration (whole games)", table)
    ctx.figure(section, "lengths", "Game length in hands", plots.plot_game_lengths, table,
               size=(7.5, max(3.0, 0.4 * len(table) + 1.5)))
    configs = {c.name: c for c in ctx.experiment.configs}
    if len(table) and "mean_hands" in table:
        for row in ctx.ordered(table).to_dict(orient="records"):
            config = configs.get(str(row["config"]))
            draws = Markup("{:,} of them ended without a winner ({} of all games, 95% CI {} "
                           "to {}: a tie or the {}-hand cap)").format(
                int(row["draws"]), _pct(row["draw_rate"]), _pct(row["draw_rate_low"]),
                _pct(row["draw_rate_high"]),
                f"{config.rules.hand_cap:,}" if config else "hand")
            if row["decisive"]:
                wins = Markup("{} wins {} of the {:,} decisive ones").format(
                    side_name(config, 0), ci_text(
                        row["side0_win_rate"], row["side0_win_rate_low"],
                        row["side0_win_rate_high"], "rate"), int(row["decisive"]))
            else:
                wins = Markup("no game was decisive")
            section.findings.append(Markup(
                "In whole games under {}, a game lasts {:.1f} hands on average (95% CI {:.1f} "
                "to {:.1f}) over {:,} games; {}; {}.").format(
                code(row["config"]), row["mean_hands"], row["mean_hands_low"],
                row["mean_hands_high"], int(row["games"]), draws, wins))
    _win_probability(ctx, section, frame)


def _pct(value) -> str:
    return "–" if value != value else f"{100 * value:.1f}%"


def side_name(config, side: int) -> Markup:
    """How a finding names a side of ``config``: ``side 0`` when every seat plays the same
    strategy, else ``side 0 (heuristic)`` (its seats' strategies)."""
    if config is None:
        return Markup("side {}").format(side)
    specs = [s.spec() for s in config.strategies]
    if len(set(specs)) == 1:
        return Markup("side {}").format(side)
    seats = [seat for seat in range(config.rules.players)
             if (seat % 2 if config.rules.partnership else seat) == side]
    names = list(dict.fromkeys(specs[seat] for seat in seats))
    return Markup("side {} ({})").format(side, Markup(" / ").join(code(n) for n in names))


@section("strategies", "Strategies against each other",
         "Tournament (when the experiment has a [tournament]): every pair of strategies plays a "
         "duplicate match on the same deals, each deal twice with the partnerships' cards "
         "swapped, so card luck cancels. Ratings are Bradley-Terry strengths fitted to the won, "
         "lost and tied games (hands) of all the matches, on the Elo scale (a 100-point gap: "
         "the better strategy wins 64% of its games against the other), averaging 0, with 95% "
         "intervals from the Fisher information; mean diff is the mean score difference per "
         "board (in games, of the final scores) against the others, and the pairwise table "
         "gives each match's mean difference with its 95% t interval over boards. The ratings "
         "hold only if the model fits: its goodness of fit (Pearson's chi-square against the "
         "saturated model in which every pair has its own win rate) is shown, and where it is "
         "rejected (p < 0.05) the head-to-head table leads and the findings rest on it. A "
         "tournament in both modes shows each mode's ratings, fit and pairs. Then the "
         "pairings of the tournament's first strategy against every other: in whole games, "
         "its share of the games won minus the opponent's (95% t interval over boards); and "
         "where the points went, each board's difference split into its scoring parts and "
         "into the hands both plays bid alike (the card play) and those bid differently, with "
         "95% t intervals over boards. "
         "Below that, "
         "for the experiment's own runs: the mean score per side and hand of each side's "
         "strategies (95% normal interval) and, in games, each side's win rate (Wilson "
         "interval).")
def _strategies(ctx: Context, section: Section) -> None:
    both = len(ctx.experiment.tournaments) > 1  # a round robin in each mode
    for spec in ctx.experiment.tournaments:
        _tournament(ctx, section, spec, f"-{spec.unit}" if both else "")
        ladder_wins(ctx, section, ctx.tournament(spec), f"-{spec.unit}" if both else "")
        ladder_splits(ctx, section, ctx.tournament(spec), f"-{spec.unit}" if both else "")
    if ctx.experiment.modes:
        _side_scores(ctx, section)
        _head_to_head(ctx, section)


_SCORED = {"games": "final scores, the mean over the board's two games",
           "hands": "hand scores from zero, the mean over the deal's two plays"}


def _tournament(ctx: Context, section: Section, spec=None, suffix: str = "") -> None:
    """The round robin ``spec`` (the experiment's first by default): its fit, ratings and
    pairwise table; ``suffix`` tells apart the files and titles of a [tournament] in both
    modes (``-games``, ``-hands``)."""
    result = ctx.tournament(spec)
    unit = result.unit
    mode_words = MODE_WORDS_SHORT.get(unit, unit)
    in_mode = f" in {mode_words}" if suffix else ""
    tag = f"(round robin, {unit})" if suffix else "(round robin)"  # (the findings' labels)
    fit = result.fit
    ratings = pd.DataFrame(result.ratings)
    ratings = ratings[["rank", "strategy", "rating", "low", "high", "games", "wins", "losses",
                       "ties", "mean_diff"]].rename(
        columns={"low": "rating_low", "high": "rating_high", "games": unit})
    # (the intervals come widened by the square root of the dispersion: the games of a pair
    # vary more than one strength per strategy allows; evaluate/tournament.py)
    rank = {row["strategy"]: row["rank"] for row in result.ratings}
    rows = []
    for m in result.matches:  # each pair once, the better-rated strategy first
        flip = rank[m.b] < rank[m.a]
        sign = -1.0 if flip else 1.0
        low, high = sorted((sign * m.ci95[0], sign * m.ci95[1]))
        rows.append({"strategy": m.b if flip else m.a, "opponent": m.a if flip else m.b,
                     "boards": m.n, "mean_diff": sign * m.mean_diff, "mean_diff_low": low,
                     "mean_diff_high": high,
                     "mean_diff_p": float(t_test_p(m.mean_diff, m.sd_diff, m.n)),
                     "wins": m.b_wins if flip else m.a_wins,
                     "losses": m.a_wins if flip else m.b_wins, "ties": m.ties})
    pairs = pd.DataFrame(rows)
    pairs = pairs.iloc[np.lexsort((pairs["opponent"].map(rank), pairs["strategy"].map(rank)))]
    fit_words = Markup("{}Bradley-Terry against the saturated pairwise model (every pair its "
                       "own win rate): {}; {}.").format(
        Markup("In {}: ").format(mode_words) if suffix else "", fit.describe(),
        fit.describe_scale())
    ratings_title = (f"Tournament ratings ({result.n:,} boards x 2 {unit} per pair, rules "
                     f"{result.rules})")
    pairs_title = ("Head to head: mean score difference per board of the better-rated "
                   "strategy")
    pairs_note = (f"wins, losses and ties count {unit} of the strategy against the opponent; "
                  f"mean diff is in points per board ({_SCORED[unit]}), with its 95% t "
                  f"interval over boards and the t test's p-value (unadjusted).")
    if fit.fits:
        section.notes.append(Markup("{} The model is not rejected (p &ge; {}): the ratings "
                                    "summarise the pairwise results.").format(fit_words,
                                                                              fit.alpha))
        ctx.table(section, "ratings" + suffix, ratings_title, ratings)
        ctx.figure(section, "ratings" + suffix, f"Tournament ratings{in_mode}",
                   plots.plot_ratings, ratings,
                   size=(7.5, max(2.5, 0.45 * len(ratings) + 1.2)))
        ctx.table(section, "pairwise" + suffix, pairs_title + in_mode, pairs, note=pairs_note)
    else:
        section.notes.append(Markup(
            "{} The model is rejected (p &lt; {}): one strength per strategy does not explain "
            "the pairwise results, so the ratings are a rough order only; their intervals are "
            "widened for the dispersion, but still assume one strength per strategy. The "
            "head-to-head matrix comes first and the findings rest on it.").format(
            fit_words, fit.alpha))
        ctx.table(section, "pairwise" + suffix, pairs_title + in_mode, pairs, note=pairs_note)
        ctx.table(section, "ratings" + suffix, ratings_title + ": the model does not fit, a "
                  "rough order only", ratings)
        ctx.figure(section, "ratings" + suffix,
                   f"Tournament ratings{in_mode} (the model does not fit)",
                   plots.plot_ratings, ratings, size=(7.5, max(2.5, 0.45 * len(ratings) + 1.2)))
        for row in pairs.to_dict(orient="records"):
            ctx.claim(section, Markup(
                "Head to head in the round robin ({}), {} scores {:+.1f} points per board "
                "against {} (95% CI {:+.1f} to {:+.1f}) over {:,} boards.").format(
                MODE_WORDS.get(unit, unit), code(row["strategy"]), row["mean_diff"],
                code(row["opponent"]), row["mean_diff_low"], row["mean_diff_high"],
                int(row["boards"])),
                label=f"{row['strategy']} vs {row['opponent']} head to head {tag}",
                effect=row["mean_diff"], low=row["mean_diff_low"], high=row["mean_diff_high"],
                p=row["mean_diff_p"], unit=" points per board", n=row["boards"],
                n_unit="boards",
                mode=f"head to head, round robin {MODE_WORDS_SHORT.get(unit, unit)}")
        section.findings.append(Markup(
            "The Bradley-Terry ratings do not fit the round robin in {} ({}): one strength per "
            "strategy does not explain who beats whom, so the ratings are a rough order only; "
            "the head-to-head results say more than the ratings.").format(
            mode_words, fit.describe()))
        _modes_against_tournament(ctx, section, result, pairs, spec)
        return
    ranked = [row["strategy"] for row in result.ratings]
    for better, worse in zip(ranked, ranked[1:]):
        diff, low, high = rating_difference(result.strategies, result.matches, better, worse,
                                            scale=fit.scale)
        label = f"{better} vs {worse}: rating {tag}"
        if low <= 0:
            ctx.claim(section, Markup(
                "{} and {} are not distinguishable in the round robin{}: {} is rated {:.0f} Elo "
                "above (95% CI {:+.0f} to {:+.0f}).").format(
                code(better), code(worse), in_mode, code(better), diff, low, high),
                label=label, effect=diff, low=low, high=high, unit=" Elo", digits=0,
                n=2 * result.n, n_unit=f"{unit} per pair",
                mode=f"head to head, round robin {mode_words}")
            continue
        ctx.claim(section, Markup(
            "{} is rated {:.0f} Elo above {} (95% CI {:.0f} to {:.0f}), over {:,} {} per "
            "pair.").format(code(better), diff, code(worse), low, high, 2 * result.n, unit),
            label=label, effect=diff, low=low, high=high, unit=" Elo", digits=0,
            n=2 * result.n, n_unit=f"{unit} per pair",
            mode=f"head to head, round robin {mode_words}")
    _modes_against_tournament(ctx, section, result, pairs, spec)
    top = result.ratings[0]
    top_low, top_high = top["low"], top["high"]
    section.findings.append(Markup(
        "{} rates best ({:+.0f} Elo, 95% CI {:+.0f} to {:+.0f}): it wins {:,} of its {:,} {} "
        "and scores {:+.1f} points per board more than its opponents on average{}.").format(
        code(top["strategy"]), top["rating"], top_low, top_high, top["wins"],
        top["games"], unit, top["mean_diff"],
        Markup(" ({}, {:,} boards per pair)").format(mode_words, result.n) if suffix else ""))


def _modes_against_tournament(ctx: Context, section: Section, result, pairs,
                              spec=None) -> None:
    """Set the tournament's head-to-head differences beside the hands run's paired differences
    between tables of one strategy each (under the tournament's rules), and warn where the two
    disagree: both intervals off zero, opposite signs."""
    if "hands" not in ctx.experiment.modes:
        return
    rules = (spec or ctx.experiment.tournament).rules
    tables = {}
    for config in ctx.experiment.configs:
        specs = {s.spec() for s in config.strategies}
        if len(specs) == 1 and config.rules == rules:
            tables.setdefault(specs.pop(), config.name)
    frame = ctx.frame("hands")
    rows = []
    for match in pairs.to_dict(orient="records"):
        a, b = tables.get(match["strategy"]), tables.get(match["opponent"])
        if a is None or b is None:
            continue
        part = frame[frame["config"].isin([a, b])]
        part = part.assign(config=part["config"].astype(str).astype("category"))
        paired = paired_effects(part, b, metrics=["score"])
        hands = paired[paired["config"] == a].iloc[0]
        rows.append({"strategy": match["strategy"], "opponent": match["opponent"],
                     "hands_diff": hands["diff"], "hands_diff_low": hands["diff_low"],
                     "hands_diff_high": hands["diff_high"], "tournament_diff": match["mean_diff"],
                     "tournament_diff_low": match["mean_diff_low"],
                     "tournament_diff_high": match["mean_diff_high"]})
    if not rows:
        return
    table = pd.DataFrame(rows)
    unit = "per game (final scores)" if result.unit == "games" else "per hand"
    ctx.table(section, "modes", "Self-play tables (independent hands) against head-to-head "
              "matches (the round robin)", table,
              note="hands diff: in self-play independent hands from zero scores, the mean score "
                   "per side and hand of the table where every seat plays the strategy minus "
                   "that of "
                   "the table where every seat plays the opponent, paired on the same deals "
                   f"(95% t interval); tournament diff: the strategy against the opponent "
                   f"head to head, {unit}, per board.")
    for row in rows:
        hands_sign = np.sign(row["hands_diff"]) if (
            row["hands_diff_low"] > 0 or row["hands_diff_high"] < 0) else 0
        match_sign = np.sign(row["tournament_diff"]) if (
            row["tournament_diff_low"] > 0 or row["tournament_diff_high"] < 0) else 0
        if hands_sign * match_sign < 0:
            section.findings.append(Markup(
                "<span class=\"flag\">Self-play and head to head disagree</span> on {} "
                "against {}: in self-play independent hands from zero scores a table of {} "
                "scores {:+.1f} points per side and hand against a table of {} (95% CI {:+.1f} "
                "to {:+.1f}), but head to head in the round robin ({}) {} "
                "scores {:+.1f} points per board against it (95% CI {:+.1f} to {:+.1f}).")
                .format(code(row["strategy"]), code(row["opponent"]), code(row["strategy"]),
                        row["hands_diff"], code(row["opponent"]), row["hands_diff_low"],
                        row["hands_diff_high"], MODE_WORDS.get(result.unit, result.unit),
                        code(row["strategy"]), row["tournament_diff"],
                        row["tournament_diff_low"], row["tournament_diff_high"]))


def _side_scores(ctx: Context, section: Section) -> None:
    mode, frame = ctx.any_frame()
    rows = []
    for config, part in frame.groupby("config", observed=True):
        table = side_summary(part, ctx.rules[config])
        for side, row in table.iterrows():
            rows.append({"config": config, "side": int(side), "strategies": row["strategies"],
                         "side_hands": row["hands"], "mean_score": row["mean_score"],
                         "mean_score_low": row["score_low"],
                         "mean_score_high": row["score_high"]})
    ctx.table(section, "scores", f"Mean score per side and hand ({MODE_WORDS[mode]})",
              pd.DataFrame(rows))
    games = ctx.frame("games")
    if games is not None and len(games):
        rows = []
        for config, part in games.groupby("config", observed=True):
            names = side_summary(part, ctx.rules[config])["strategies"]
            table = game_summary(part, ctx.rules[config])
            for side, row in table.iterrows():
                rows.append({"config": config, "side": int(side),
                             "strategies": names.get(side, ""), "games": row["games"],
                             "wins": row["wins"], "win_rate": row["win_rate"],
                             "win_rate_low": float(row["win_low"]),
                             "win_rate_high": float(row["win_high"])})
        ctx.table(section, "wins", "Wins per side in whole games", pd.DataFrame(rows))


# -- win probability from a game state (a part of the games section) -----------------------------
#: The report's margin view: lead bins of 50 points, cells reached by at least
#: ``analysis.winprob.MIN_GAMES`` games (the default docs/runs.md gives).
WIN_LEAD_BIN, WIN_MIN_GAMES = 50, MIN_GAMES


def _win_probability(ctx: Context, section: Section, frame: pd.DataFrame) -> None:
    """The win-probability table by score lead and hands played
    (``analysis.winprob.win_probability_by_lead``) without the identity cell (before the first
    hand), its heat map (one per configuration), the cells that reflect a strategy's
    blind-nil rule, and one finding for the baseline: a side trailing by 51 to 100 points after
    5 hands."""
    table = win_probability_by_lead(frame, lead_bin=WIN_LEAD_BIN, min_games=WIN_MIN_GAMES)
    table = table.loc[~table["identity"].to_numpy(dtype=bool)].drop(columns="identity")
    table = table.reset_index(drop=True)
    rule = table["blind_nil_share"].to_numpy(dtype=float) >= RULE_SHARE
    table["strategy_rule"] = np.where(rule, "blind nil", "")
    played = {config.name: " / ".join(dict.fromkeys(str(s.spec()) for s in config.strategies))
              for config in ctx.experiment.configs}
    if len(set(played.values())) == 1:
        strategies = f"{next(iter(played.values()))} on every seat of every configuration"
    else:
        strategies = "; ".join(f"{name}: {specs}" for name, specs in played.items())
    note = Markup(
        "Whole games. A state is one side at the start of one hand: its score minus the best "
        "opponent's score (the other side's; in cutthroat the highest other score), in bins of "
        "{} points (lead from 0: ahead by 0 to 49; from -100: behind by 51 to 100), and the "
        "hands already played. win rate: the share of the games reaching the state that the "
        "side went on to win; a draw (a tie, or the hand cap reached) counts as not won and is "
        "shown apart (draw rate). Each game counts once per state and side (states: the "
        "side-hands seen there); 95% Wilson intervals, exact Clopper-Pearson under 10 wins or "
        "non-wins, treating the games as independent (the two sides of one game can share a "
        "state at equal scores). States reached by fewer than {} games are left out, and so "
        "is the state before the first hand: every game starts there level, so its rate is "
        "each side's overall share of wins, not an estimate. The rates are these strategies' "
        "as they play: blind nils: the state's side-hands that bid blind nil; strategy rule "
        "'blind nil' marks states where they did in {:.0%} or more of them (ringed in the "
        "maps): there the rate shows the strategy's blind-nil rule at work, not the state's "
        "chances under other play. Strategies: {}.").format(
        WIN_LEAD_BIN, MIN_GAMES, RULE_SHARE, strategies)
    ctx.table(section, "win-probability", "Win probability by score lead and hands played "
              "(whole games)", table, note=note)
    configs = list(dict.fromkeys(ctx.ordered(table)["config"].astype(str)))
    for number, name in enumerate(configs):
        part = table[table["config"].astype(str) == name].drop(columns="strategy_rule")
        ctx.figure(section, f"win-probability-{number}", f"Win probability: {name}",
                   plot_win_probability, part, size=(7.5, 4.8))
    baseline = ctx.experiment.baseline if ctx.experiment.baseline in configs else (
        configs[0] if configs else None)
    cell = table[(table["config"].astype(str) == baseline) & (table["hands"] == 5)
                 & (table["hands_to"] == 6) & (table["lead"] == -100)]
    if WIN_LEAD_BIN == 50 and len(cell):
        row = cell.iloc[0]
        reflects = (Markup(": this cell reflects the strategy's rule, not the state (the side "
                           "bid blind nil in {} of those hands)").format(
                               _pct(row["blind_nil_share"]))
                    if row["blind_nil_share"] >= RULE_SHARE else Markup(""))
        section.findings.append(Markup(
            "In whole games under {}, a side trailing by 51 to 100 points after 5 hands went "
            "on to win {} of the {:,} games that reached that state, as these strategies play "
            "it{}.").format(
            code(baseline), ci_text(row["win_rate"], row["win_rate_low"],
                                      row["win_rate_high"], "rate"), int(row["games"]),
            reflects))
    marked = table.loc[rule & (table["config"].astype(str) == baseline)]
    if baseline is not None and len(marked):
        section.notes.append(Markup(
            "Under {}, {} of the {} states shown reflect the strategy's blind-nil rule (it bid "
            "blind nil in {:.0%} or more of their side-hands): leads {} in those cells.").format(
            code(baseline), len(marked), int((table["config"].astype(str) == baseline).sum()),
            RULE_SHARE, ", ".join(sorted({f"{int(v)} to {int(v) + WIN_LEAD_BIN - 1}"
                                          for v in marked["lead"]}, key=lambda s: int(
                                              s.split(" ")[0])))))


#: How the head-to-head findings state each metric: (unit, scale, digits, what one unit is).
H2H_UNITS = {"score": (" points per hand", 1.0, 1, "deals"),
             "final_score": (" points per game", 1.0, 1, "games"),
             "win_share": (" percentage points", 100.0, 1, "games")}
#: How the findings name a metric.
H2H_WORDS = {"score": "the score per hand", "final_score": "the final score",
             "win_share": "the share of games won"}
H2H_CLAIMED = ("score", "win_share")  # final scores are in the table only


def _head_to_head(ctx: Context, section: Section) -> None:
    """The head-to-head configurations (two sides, different strategies) analysed as such
    (``analysis.headtohead``): A minus B within each, seat-balanced with a mirrored
    configuration, and differences-in-differences across rule variants."""
    rules = ctx.rules
    tables, units = [], []
    for mode in ctx.experiment.modes:
        table, unit = head_to_head(ctx.frame(mode), rules, units=True)
        tables.append(table)
        units.append(unit)
    h2h = pd.concat([t for t in tables if len(t)], ignore_index=True) if any(
        len(t) for t in tables) else None
    if h2h is None:
        return
    unit_frame = pd.concat([u for u in units if len(u)], ignore_index=True)
    baseline = ctx.experiment.baseline or ctx.experiment.configs[0].name
    section.notes.append(Markup(
        "Head to head: in a configuration whose two sides play different strategies, side A "
        "(the strategies of side 0's seats) minus side B, paired within the configuration: in "
        "independent hands, per deal, A's score change minus B's; in whole games, per game, A's "
        "final score minus B's, and the share of all games A won minus the share B won (+1, -1 "
        "or 0 for a draw per game; the draws are counted apart), each with a 95% t interval "
        "over the deals or games. The engine rotates the deal (hand h is dealt by seat h mod "
        "players; in games the first dealer is drawn and the deal passes left) and deals at "
        "random, so neither side sits in a favoured seat. Where the experiment also seats the "
        "two strategies the other way round under the same rules (the mirror), the two play "
        "the same deals and are paired deal by deal: the seat-balanced difference is the mean "
        "of A minus B over both seatings (each strategy held both sides' cards, so card luck "
        "cancels), and the side-0 advantage what the seats were worth with the strategies "
        "balanced. Differences-in-differences: a pair's head-to-head difference under a rule "
        "variant minus the same under the rules of the baseline configuration {}, paired by "
        "deal or game where "
        "the two configurations have as many players (the same shuffles), else independent; "
        "the table says which.").format(code(baseline)))
    ctx.table(section, "head-to-head", "Head to head: side A minus side B within a "
              "configuration", h2h,
              note="estimate within: the configuration alone (A on side 0); seat_balanced: "
                   "with its mirror (B on side 0), paired on the same deals, with the side-0 "
                   "advantage (seat_advantage). n: deals (hands) or games (a duplicate run's two "
                   "plays of a deal are one unit); a_mean, b_mean: per unit, the side's hand "
                   "score, final score or share of games won; diff: A minus B with its 95% t "
                   "interval and t-test p-value (unadjusted); draws and A's win rate of the "
                   "decisive games "
                   "(Wilson) in games.")
    balanced = {(r["config"], r["mode"], r["metric"]) for r in h2h.to_dict(orient="records")
                if r["estimate"] == "seat_balanced"}
    mirrors = {(r["mirror"], r["mode"], r["metric"]) for r in h2h.to_dict(orient="records")
               if r["estimate"] == "seat_balanced"}
    for row in ctx.ordered(h2h).to_dict(orient="records"):
        key = (row["config"], row["mode"], row["metric"])
        if row["metric"] not in H2H_CLAIMED or row["n"] < 2:
            continue
        if _pair_speaks(row, key, balanced, mirrors):
            continue
        _claim_head_to_head(ctx, section, row, rules)
    _head_to_head_modes(section, h2h, balanced, mirrors)
    base_rules = rules.get(baseline)
    if base_rules is None:
        return
    did = differences_in_differences(h2h, rules, base_rules, units=unit_frame)
    if len(did):
        ctx.table(section, "head-to-head-did", "Head to head under a rule variant minus under "
                  "the baseline rules (differences-in-differences)", did,
                  note="variant_diff and baseline_diff: the pair's head-to-head difference A "
                       "minus B in the two configurations; did: their difference with its 95% "
                       "interval: paired, per deal or game on the same shuffles (t interval), "
                       "or independent (normal interval of the two standard errors).")
        for row in did.to_dict(orient="records"):
            key = (row["variant"], row["mode"], row["metric"])
            if row["metric"] not in H2H_CLAIMED or _pair_speaks(row, key, balanced, mirrors):
                continue
            _claim_did(ctx, section, row)
        _did_disagreements(section, did)
    if "hands" in ctx.experiment.modes:
        effects = variant_effect_differences(ctx.frame("hands"), rules, base_rules)
        if len(effects):
            ctx.table(section, "variant-by-strategy", "A rule variant's effect with one "
                      "strategy minus its effect with another (independent hands)", effects,
                      note="per deal, the mean score per side-hand of the table where every "
                           "seat plays the strategy, under the variant minus under the "
                           "baseline rules (effect_1, effect_2: their means); did: effect_1 "
                           "minus effect_2 with its 95% t interval over the shared deals.")
            for row in effects.to_dict(orient="records"):
                amount, interval = signed(row["did"], row["did_low"], row["did_high"],
                                           " points per side and hand")
                ctx.claim(section, Markup(
                    "In independent hands, {} changes the mean score per side and hand of a "
                    "table of {} by {:+.1f} points and of a table of {} by {:+.1f} (against "
                    "{}): the effect is {} with {} ({}), on {:,} shared deals.").format(
                    code(row["variant_rules"]), code(row["strategy_1"]), row["effect_1"],
                    code(row["strategy_2"]), row["effect_2"], code(row["baseline_rules"]),
                    amount, code(row["strategy_1"]), interval, int(row["n"])),
                    label=(f"{row['variant_rules']} vs {row['baseline_rules']}: effect with "
                           f"{row['strategy_1']} minus with {row['strategy_2']} (hands)"),
                    effect=row["did"], low=row["did_low"], high=row["did_high"],
                    p=row["did_p"], unit=" points per side and hand", n=row["n"],
                    n_unit="shared deals", mode="self-play, independent hands")


def _pair_speaks(row, key, balanced: set, mirrors: set) -> bool:
    """Whether a one-seating row of a mirrored pair is left to the pair's seat-balanced row."""
    return row["estimate"] == "within" and (key in balanced or key in mirrors)


def _head_to_head_modes(section: Section, h2h: pd.DataFrame, balanced: set,
                        mirrors: set = frozenset()) -> None:
    """Warn where independent hands and whole games rank a head-to-head pair the other way
    round: the score per hand and the share of games won both off zero, with opposite signs
    (in hands from zero scores bags cost nothing until one hand reaches the limit). A mirrored
    pair is judged once, on its seat-balanced rows."""
    rows = {}
    for row in h2h.to_dict(orient="records"):
        key = (row["config"], row["mode"], row["metric"])
        if key in mirrors and key not in balanced:
            continue  # the seat-balanced rows of its pair speak for it
        seat_balanced = key in balanced
        if row["estimate"] != ("seat_balanced" if seat_balanced else "within"):
            continue
        rows[(row["config"], row["mode"], row["metric"])] = row

    def sign(row):
        return 0 if row["diff_low"] <= 0 <= row["diff_high"] else np.sign(row["diff"])

    for (config, mode, metric), hands in rows.items():
        games = rows.get((config, "games", "win_share"))
        if mode != "hands" or metric != "score" or games is None:
            continue
        if sign(hands) * sign(games) >= 0:
            continue
        where = code(config)
        if hands["estimate"] == "seat_balanced":
            where = Markup("{} and its mirror {} (both seatings)").format(
                code(config), code(hands["mirror"]))
        section.findings.append(Markup(
            "<span class=\"flag\">The modes disagree</span> on {} against {} under {}: in "
            "independent hands from zero scores {} scores {:+.1f} points per hand against it "
            "(95% CI {:+.1f} to {:+.1f}), but in whole games its share of the games won minus "
            "that of {} is {:+.1f} percentage points (95% CI {:+.1f} to {:+.1f}). Bags cost "
            "nothing in hands "
            "from zero scores until one hand reaches the limit; whole games are the game as "
            "played.").format(
            code(hands["strategy_a"]), code(hands["strategy_b"]), where,
            code(hands["strategy_a"]), hands["diff"], hands["diff_low"], hands["diff_high"],
            code(hands["strategy_b"]), 100 * games["diff"], 100 * games["diff_low"],
            100 * games["diff_high"]))


def _claim_head_to_head(ctx: Context, section: Section, row, rules) -> None:
    unit, scale, digits, units = H2H_UNITS[row["metric"]]
    a, b = code(row["strategy_a"]), code(row["strategy_b"])
    what = "scores" if row["metric"] == "score" else "wins"
    config_rules = rules[row["config"]]
    if row["estimate"] == "seat_balanced":
        where = Markup("{} and its mirror {} (both seatings, {})").format(
            code(row["config"]), code(row["mirror"]), rules_text(config_rules))
    else:
        where = Markup("{} ({}; {} in {})").format(
            code(row["config"]), rules_text(config_rules), a, _first_seats(config_rules))
    amount, interval = signed(row["diff"], row["diff_low"], row["diff_high"], unit, scale,
                               digits)
    amount = amount.replace("higher", "more").replace("lower", "fewer" if scale != 1.0
                                                              else "less")
    if row["estimate"] == "seat_balanced":
        units = f"{units} in each seating"
    draws = ""
    if row["mode"] == "games":
        draws = Markup("; {} won {:,}, {} {:,}, {:,} drawn").format(
            a, int(row["a_wins"]), b, int(row["b_wins"]), int(row["draws"]))
    label = (f"{row['strategy_a']} vs {row['strategy_b']} head to head under {row['config']}"
             f"{' (seat-balanced)' if row['estimate'] == 'seat_balanced' else ''}: "
             f"{row['metric'].replace('_', ' ')} ({row['mode']})")
    claim = {"label": label, "effect": row["diff"], "low": row["diff_low"],
             "high": row["diff_high"], "p": row["diff_p"], "unit": unit, "scale": scale,
             "digits": digits, "n": row["n"], "n_unit": units,
             "mode": f"head to head, {MODE_WORDS_SHORT[row['mode']]}"}
    if row["diff_low"] <= 0 <= row["diff_high"]:
        ctx.claim(section, Markup(
            "Under {}, in {}, {} and {} are not distinguishable head to head ({} {}: "
            "{:+.{d}f}{}, {}), over {:,} {}{}.").format(
            where, MODE_WORDS[row["mode"]], a, b, a, "minus " + str(row["strategy_b"]),
            row["diff"] * scale, unit, interval, int(row["n"]), units, draws, d=digits),
            **claim)
    elif row["metric"] == "win_share":
        ctx.claim(section, Markup(
            "Under {}, in {}, {} wins {} of the games head to head and {} {}: {} for {} ({}), "
            "over {:,} {}{}.").format(
            where, MODE_WORDS[row["mode"]], a, _pct(row["a_mean"]), b, _pct(row["b_mean"]),
            amount, a, interval, int(row["n"]), units, draws), **claim)
    else:
        ctx.claim(section, Markup(
            "Under {}, in {}, {} {} {} than {} head to head ({}), over {:,} {}{}.").format(
            where, MODE_WORDS[row["mode"]], a, what, amount, b, interval, int(row["n"]), units,
            draws), **claim)
    if row["estimate"] == "seat_balanced" and row["seat_advantage_low"] == row[
            "seat_advantage_low"]:
        shown = decimals(row["seat_advantage_low"] * scale, row["seat_advantage_high"] * scale,
                        digits)
        ctx.claim(section, Markup(
            "With {} and {} balanced over both seatings ({} and {}), sitting in {} rather "
            "than the other seats is worth {:+.{d}f}{}{} (95% CI {:+.{d}f} to {:+.{d}f}) "
            "in {}.").format(
            a, b, code(row["config"]), code(row["mirror"]), _first_seats(config_rules),
            row["seat_advantage"] * scale, unit,
            " of the games won" if row["metric"] == "win_share" else "",
            row["seat_advantage_low"] * scale, row["seat_advantage_high"] * scale,
            MODE_WORDS[row["mode"]], d=shown),
            label=f"side-0 seat advantage under {row['config']}: "
                  f"{row['metric'].replace('_', ' ')} ({row['mode']})",
            effect=row["seat_advantage"], low=row["seat_advantage_low"],
            high=row["seat_advantage_high"], p=row["seat_advantage_p"], unit=unit, scale=scale,
            digits=digits, n=row["n"], n_unit=units,
            mode=f"head to head, {MODE_WORDS_SHORT[row['mode']]}")


def _first_seats(rules) -> str:
    """The seats of a configuration's first side, for findings: ``seats 0 and 2``."""
    seats = [seat for seat in range(rules.players)
             if (seat % 2 if rules.partnership else seat) == 0]
    return (f"seat {seats[0]}" if len(seats) == 1
            else "seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}")


def _did_disagreements(section: Section, did: pd.DataFrame) -> None:
    """Flag where the differences-in-differences of independent hands (score per hand) and of
    whole games (share of games won) are both off zero with opposite signs."""
    for row in opposite_signs(did, ["variant", "baseline", "estimate", "strategy_a",
                                    "strategy_b"], "did").to_dict(orient="records"):
        section.findings.append(Markup(
            "<span class=\"flag\">The modes disagree</span> on what {} changes in {} against "
            "{} head to head (against {}): in independent hands from zero scores the "
            "difference-in-differences is {:+.1f} points per hand (95% CI {:+.1f} to {:+.1f}), "
            "in whole games {:+.1f} percentage points of the games won (95% CI {:+.1f} to "
            "{:+.1f}). Bags cost nothing in hands from zero scores until one hand reaches the "
            "limit; whole games are the game as played.").format(
            code(row["variant_rules_first"]), code(row["strategy_a"]), code(row["strategy_b"]),
            code(row["baseline_rules_first"]), row["did_first"], row["did_low_first"],
            row["did_high_first"], 100 * row["did_second"], 100 * row["did_low_second"],
            100 * row["did_high_second"]))


def _claim_did(ctx: Context, section: Section, row) -> None:
    unit, scale, digits, units = H2H_UNITS[row["metric"]]
    a, b = code(row["strategy_a"]), code(row["strategy_b"])
    amount, interval = signed(row["did"], row["did_low"], row["did_high"], unit, scale, digits)
    pairing = (Markup("paired on {:,} shared {}").format(int(row["n"]), units)
               if row["pairing"] == "paired" else Markup("independent samples"))
    balanced = " (seat-balanced)" if row["estimate"] == "seat_balanced" else ""
    if row["did_low"] <= 0 <= row["did_high"]:
        verdict = Markup("not distinguishable between the two ({:+.{d}f}{}, {}; {})").format(
            row["did"] * scale, unit, interval, pairing, d=digits)
    else:
        verdict = Markup("{} under {} ({}; {})").format(amount, code(row["variant_rules"]),
                                                        interval, pairing)
    ctx.claim(section, Markup(
        "In {}, {} minus {} head to head{} in {} is {:+.{d}f}{} under {} ({}) and {:+.{d}f} "
        "under {} ({}): {}.").format(
        MODE_WORDS[row["mode"]], a, b, balanced, H2H_WORDS[row["metric"]],
        row["variant_diff"] * scale, unit,
        code(row["variant_rules"]), code(row["variant"]), row["baseline_diff"] * scale,
        code(row["baseline_rules"]), code(row["baseline"]), verdict, d=digits),
        label=(f"{row['strategy_a']} vs {row['strategy_b']}: {row['variant_rules']} minus "
               f"{row['baseline_rules']}{balanced}, {row['metric'].replace('_', ' ')} "
               f"({row['mode']})"),
        effect=row["did"], low=row["did_low"], high=row["did_high"], p=row["did_p"], unit=unit,
        scale=scale, digits=digits, n=row["n"] if row["pairing"] == "paired" else None,
        n_unit=units, mode=f"head to head, {MODE_WORDS_SHORT[row['mode']]}")
