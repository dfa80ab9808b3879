"""Formatting numbers, intervals and tables for the page."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from markupsafe import Markup

#: Count columns that tables hold as floats (nan where not counted).
COUNTS = ("gains", "losses", "identical_deals")


def _is_share(column: str) -> bool:
    return "rate" in column or column in ("share", "break_even")


def is_p_value(column: str) -> bool:
    """Whether a table column holds p-values (``p``, ``diff_p``, ``p_adjusted``...).

    >>> is_p_value("diff_p"), is_p_value("p_adjusted"), is_p_value("top")
    (True, True, False)
    """
    return column == "p" or column.endswith("_p") or column.startswith("p_")


def p_text(value) -> str:
    """A p-value as the report prints it: three decimals, ``< 0.001`` below that.

    >>> p_text(0.04567), p_text(1e-9), p_text(float("nan"))
    ('0.046', '< 0.001', '–')
    """
    value = float(value)
    if value != value:
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def format_value(value, column: str = "") -> str:
    """One cell as text: shares as percentages, counts with thousands separators.

    >>> format_value(0.1234, "set_rate"), format_value(123456, "n"), format_value(4.56789, "diff")
    ('12.3%', '123,456', '4.57')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if column in COUNTS and isinstance(value, (float, np.floating)) and float(value).is_integer():
        return f"{int(value):,}"  # counts held as floats to allow nan
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)) and is_p_value(column):
        return p_text(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if column.startswith("rating"):  # Elo-scale ratings: whole points
            return f"{value:+.0f}"
        if _is_share(column) and -1.0 <= value <= 1.0:
            return f"{100 * value:.1f}%"
        if value.is_integer() and abs(value) >= 1000:
            return f"{int(value):,}"
        if abs(value) >= 100:
            return f"{value:,.1f}"
        if abs(value) >= 0.1 or value == 0:
            return f"{value:.2f}"
        return f"{value:.3g}"
    return str(value)


#: Numeric columns that name a row rather than measure it (a cell of the win-probability
#: table, a feature of the hand): they stay with the leading names.
KEY_NUMBERS = ("hands", "hands_to", "lead", "lead_to", "seat", "side", "players", "threshold",
               "spades", "high_cards", "partner_bid", "bid", "tricks", "diff", "deficit")


def _shown_order(frame: pd.DataFrame) -> list[str]:
    """The columns in the page's order (the CSV keeps the analysis's): the leading names that
    identify a row first, then the estimates with their intervals and p-values, then the rest
    (counts, means without intervals, notes) as the analysis ordered them, so the answer comes
    first.

    >>> frame = pd.DataFrame({"config": ["a"], "n": [5], "rate": [0.5], "rate_low": [0.1],
    ...                       "rate_high": [0.9], "note": ["x"], "p": [0.1]})
    >>> _shown_order(frame)
    ['config', 'rate', 'rate_low', 'rate_high', 'p', 'n', 'note']
    """
    columns = list(frame.columns)
    keys = []
    for column in columns:
        values = frame[column]
        if (pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
                and column not in KEY_NUMBERS):
            break
        keys.append(column)
    estimates = []
    for column in columns:
        if column not in keys and f"{column}_low" in columns and f"{column}_high" in columns:
            estimates += [column, f"{column}_low", f"{column}_high"]
    if not estimates:
        return columns
    p_values = [c for c in columns if is_p_value(c) and c not in keys]
    first = keys + estimates + p_values
    return first + [c for c in columns if c not in first]


def is_answer(header: str, numeric: bool, position: int, leading: int) -> bool:
    """Whether a column of the page's table gives the answer: a leading name that identifies
    the row (``position < leading``), an estimate with its interval, or an adjusted p-value
    (not an unadjusted one). The layout keeps these in view at 1280 px without scrolling
    sideways.

    >>> is_answer("p_adjusted", True, 5, 1), is_answer("diff_p (unadjusted)", True, 5, 1)
    (True, False)
    """
    return (position < leading or header.endswith("(95% CI)")
            or ("adjusted" in header and "unadjusted" not in header))


def display_table(frame: pd.DataFrame) -> tuple[list, list, list]:
    """Headers, rows of cell texts and which columns are numeric; ``x``, ``x_low`` and
    ``x_high`` become one column ``x (95% CI)``, and the estimates come before the counts
    (:func:`_shown_order`). A column of p-values that are not adjusted for the report's
    family of tests (every one but ``p_adjusted``) is headed ``... p (unadjusted)``: the
    findings carry the Holm-adjusted ones.

    >>> frame = pd.DataFrame({"diff": [1.5], "diff_p": [2e-5], "p_adjusted": [0.2]})
    >>> display_table(frame)[:2]
    (['diff', 'diff_p (unadjusted)', 'p_adjusted'], [['1.50', '< 0.001', '0.200']])
    """
    columns = _shown_order(frame)
    shown, headers, numeric = [], [], []
    for column in columns:
        if column.endswith(("_low", "_high")):
            base = column.rsplit("_", 1)[0]
            if base in columns and f"{base}_low" in columns and f"{base}_high" in columns:
                continue
        has_interval = f"{column}_low" in columns and f"{column}_high" in columns
        shown.append((column, has_interval))
        header = f"{column} (95% CI)" if has_interval else column
        if is_p_value(column) and "adjusted" not in column:
            header = f"{column} (unadjusted)"
        headers.append(header)
        numeric.append(pd.api.types.is_numeric_dtype(frame[column])
                       and not pd.api.types.is_bool_dtype(frame[column]))
    rows = []
    for record in frame.to_dict(orient="records"):
        row = []
        for column, has_interval in shown:
            text = format_value(record[column], column)
            if has_interval:
                low = format_value(record[f"{column}_low"], column)
                high = format_value(record[f"{column}_high"], column)
                text = Markup('{} <span class="ci">[{}, {}]</span>').format(text, low, high)
            row.append(text)
        rows.append(row)
    return headers, rows, numeric


def leading_names(frame: pd.DataFrame) -> int:
    """How many columns lead the page's table with names (configuration, strategy, metric,
    the numeric keys of :data:`KEY_NUMBERS`) before the first measurement."""
    count = 0
    for column in _shown_order(frame):
        values = frame[column]
        if (pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
                and column not in KEY_NUMBERS):
            break
        count += 1
    return count


#: Rows resting on fewer cases than this are greyed in the page (the findings skip them too).
FEW_CASES = 30


def few_cases(frame: pd.DataFrame) -> list[bool]:
    """Per row, whether its count ``n`` is under :data:`FEW_CASES` (all False without ``n``).

    >>> few_cases(pd.DataFrame({"n": [3, 300]})), few_cases(pd.DataFrame({"x": [1]}))
    ([True, False], [False])
    """
    if "n" not in frame.columns or not pd.api.types.is_numeric_dtype(frame["n"]):
        return [False] * len(frame)
    counts = frame["n"].to_numpy(dtype=float)
    return [bool(count < FEW_CASES) for count in counts]


def code(name) -> Markup:
    return Markup("<code>{}</code>").format(str(name))


def ci_text(value, low, high, column="") -> str:
    """``"12.3% (95% CI 12.0% to 12.6%)"``, with a digit more when the ends would look equal.

    >>> ci_text(0.048, 0.0476, 0.0484, "rate")
    '4.80% (95% CI 4.76% to 4.84%)'
    """
    texts = [format_value(v, column) for v in (value, low, high)]
    if texts[1] == texts[2] and _is_share(column) and low != high:
        texts = [f"{100 * v:.2f}%" for v in (value, low, high)]
    return f"{texts[0]} (95% CI {texts[1]} to {texts[2]})"


def decimals(low, high, digits: int) -> int:
    """Decimals that keep an interval's ends apart (up to 4).

    >>> decimals(-0.004, 0.002, 1), decimals(1.0, 2.0, 1)
    (3, 1)
    """
    while digits < 4 and low != high and round(low, digits) == round(high, digits):
        digits += 1
    return digits


def signed(value, low, high, unit="", scale=1.0, digits=1) -> tuple[str, str]:
    """``("4.1 higher", "95% CI +3.8 to +4.4")`` for a difference."""
    word = "higher" if value > 0 else "lower"
    digits = decimals(low * scale, high * scale, digits)
    amount = f"{abs(value) * scale:.{digits}f}{unit}"
    return f"{amount} {word}", f"95% CI {low * scale:+.{digits}f} to {high * scale:+.{digits}f}"


# -- what the configurations of a run share --------------------------------------------------------
def _deal_key(rules) -> tuple:
    """The rule fields that decide the cards dealt from a hand's deal stream."""
    return rules.players, rules.deck, rules.deal


def _names_text(names) -> Markup:
    return Markup(", ").join(Markup("<code>{}</code>").format(name) for name in names)


def shared_deals(rules_by_config: dict, measured=None) -> list[Markup]:
    """Sentences saying what the configurations of a run share (``rules_by_config``:
    configuration name -> Rules, in the experiment's order; ``measured``: ``{(config,
    baseline): (identical, paired)}``, the paired hands dealt identical cards, counted from the
    stored cards by the paired effects).

    Every configuration draws from the same streams (the same seed and hand ids), so the shuffles
    are common; the cards that result are the same only where the rules deal alike and the
    players' choices do not change the deal (the two-player draw deal depends on what a player
    keeps). Where the cards were compared, the measured share is stated; elsewhere the
    configurations are grouped by the rules of their deal (``_deal_key``: player count, deck,
    deal procedure), which say where the cards *can* be the same, not that they are.

    >>> from spades_sim.core.rules import preset
    >>> rules = {"a": preset("classic"), "b": preset("simple"), "c": preset("casual"),
    ...          "d": preset("jokers")}
    >>> for sentence in shared_deals(rules)[1:]:
    ...     print(sentence.striptags()[:60])
    a, b deal alike by their rules (the cards were not compared:
    c deals as a but redeals misdeals (some hand with no spade o
    d deals another deck (4 players, jokers deck, standard deal)
    >>> print(shared_deals(rules, {("b", "a"): (300, 300), ("d", "a"): (0, 300)})[1].striptags())
    b and a: 300 of 300 paired hands (100.0%) dealt identical cards.
    """
    sentences = [Markup(
        "Every configuration plays from the same random streams (the same seed and hand ids: "
        "common random numbers) and hand k has the same dealer in all of them; the same "
        "streams give the same cards only where the rules deal alike and the players' "
        "choices do not change the deal:")]
    measured = dict(measured or {})
    for (name, baseline), (same, paired) in measured.items():
        rest = Markup("") if same == paired else Markup(
            "; the other hands share only the random streams, not the cards")
        sentences.append(Markup("{} and {}: {:,} of {:,} paired hands ({}) dealt identical "
                                "cards{}.").format(code(name), code(baseline), int(same),
                                                   int(paired), _percent(same, paired), rest))
    compared = {name for pair in measured for name in pair}
    groups: dict[tuple, list[str]] = {}
    for name, rules in rules_by_config.items():
        if name not in compared:
            groups.setdefault(_deal_key(rules), []).append(name)
    reference = next((name for name in rules_by_config if rules_by_config[name].players == 4),
                     None)
    unmeasured = Markup(" (the cards were not compared: a player's choices can still change "
                        "the deal)")
    for key, names in groups.items():
        plain = [n for n in names if not rules_by_config[n].misdeal_redeal]
        redeal = [n for n in names if rules_by_config[n].misdeal_redeal]
        players, deck, deal = key
        if len(plain) > 1:
            sentences.append(Markup("{} deal alike by their rules{}.").format(
                _names_text(plain), unmeasured))
        if len(redeal) > 1:
            sentences.append(Markup("{} deal alike by their rules, misdeal redeals "
                                    "included{}.").format(_names_text(redeal), unmeasured))
        if plain and redeal:
            for name in redeal:
                sentences.append(Markup(
                    "{} deals as {} but redeals misdeals (some hand with no spade or none of "
                    "K, Q, J): there its cards differ.").format(code(name), code(plain[0])))
        elif len(names) == 1 and reference is not None and names[0] != reference:
            what = (Markup("deals another deck ({} players, {} deck, {} deal) from the same "
                           "shuffles: its cards differ from those of {}.")
                    .format(players, deck, deal, code(reference))
                    if players == rules_by_config[reference].players else
                    Markup("has {} players: its deals differ from the others'.").format(players))
            sentences.append(Markup("{} {}").format(code(names[0]), what))
        elif len(names) == 1 and names[0] != reference:
            sentences.append(Markup("{} ({} players) is the only configuration dealt this "
                                    "way.").format(code(names[0]), players))
    return sentences


def _percent(count, total) -> str:
    return f"{100 * count / total:.1f}%" if total else "–"


def identical_deals_phrase(identical, paired) -> str:
    """How many of a comparison's paired hands were dealt identical cards, for findings.

    >>> identical_deals_phrase(300, 300)
    'all dealt identical cards'
    >>> identical_deals_phrase(1, 500)
    '0.2% dealt identical cards, the rest only the same random streams'
    >>> identical_deals_phrase(0, 500)
    'the same random streams, no deal identical'
    >>> identical_deals_phrase(float("nan"), 500)
    'the same random streams; cards not compared'
    """
    if identical != identical or not paired:
        return "the same random streams; cards not compared"
    if identical == paired:
        return "all dealt identical cards"
    if identical == 0:
        return "the same random streams, no deal identical"
    return (f"{_percent(identical, paired)} dealt identical cards, the rest only the same random "
            f"streams")
