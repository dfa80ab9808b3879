"""Formatting numbers, intervals and tables for the page."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from markupsafe import Markup


def _is_share(column: str) -> bool:
    return "rate" in column or column in ("share", "break_even")


def format_value(value, column: str = "") -> str:
    """One cell as text: shares as percentages, counts with thousands separators.

    >>> format_value(0.1234, "set_rate"), format_value(123456, "n"), format_value(4.56789, "diff")
    ('12.3%', '123,456', '4.57')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
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


def display_table(frame: pd.DataFrame) -> tuple[list, list, list]:
    """Headers, rows of cell texts and which columns are numeric; ``x``, ``x_low`` and
    ``x_high`` become one column ``x (95% CI)``."""
    columns = list(frame.columns)
    shown, headers, numeric = [], [], []
    for column in columns:
        if column.endswith(("_low", "_high")):
            base = column.rsplit("_", 1)[0]
            if base in columns and f"{base}_low" in columns and f"{base}_high" in columns:
                continue
        has_interval = f"{column}_low" in columns and f"{column}_high" in columns
        shown.append((column, has_interval))
        headers.append(f"{column} (95% CI)" if has_interval else column)
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
                text = f"{text} [{low}, {high}]"
            row.append(text)
        rows.append(row)
    return headers, rows, numeric


def code(name) -> Markup:
    return Markup("<code>{}</code>").format(str(name))


def _interval(value, low, high, column="") -> str:
    """``"12.3% (95% CI 12.0% to 12.6%)"``, with a digit more when the ends would look equal.

    >>> _interval(0.048, 0.0476, 0.0484, "rate")
    '4.80% (95% CI 4.76% to 4.84%)'
    """
    texts = [format_value(v, column) for v in (value, low, high)]
    if texts[1] == texts[2] and _is_share(column) and low != high:
        texts = [f"{100 * v:.2f}%" for v in (value, low, high)]
    return f"{texts[0]} (95% CI {texts[1]} to {texts[2]})"


def _digits(low, high, digits: int) -> int:
    """Decimals that keep an interval's ends apart (up to 4).

    >>> _digits(-0.004, 0.002, 1), _digits(1.0, 2.0, 1)
    (3, 1)
    """
    while digits < 4 and low != high and round(low, digits) == round(high, digits):
        digits += 1
    return digits


def _signed(value, low, high, unit="", scale=1.0, digits=1) -> tuple[str, str]:
    """``("4.1 higher", "95% CI +3.8 to +4.4")`` for a difference."""
    word = "higher" if value > 0 else "lower"
    digits = _digits(low * scale, high * scale, digits)
    amount = f"{abs(value) * scale:.{digits}f}{unit}"
    return f"{amount} {word}", f"95% CI {low * scale:+.{digits}f} to {high * scale:+.{digits}f}"
