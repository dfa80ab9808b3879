"""Hand features on demand: the ``seat_*`` feature columns of any tidy frame that holds the
dealt cards (a run played with cards stores them already; ``docs/runs.md``, "Hand
features")."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from ..core.rules import Rules, preset
from .frames import feature_columns


def hand_features(frame: pd.DataFrame, rules: Rules | None = None) -> pd.DataFrame:
    """The ``seat_*`` hand features (``core.features.FEATURE_TYPES``) of each row's ``cards``:
    a DataFrame with the frame's index.

    ``rules``: the rules the hands were dealt under (they set the deck and, for
    ``seat_trick_estimate``, the number of players); by default each row's ``rules`` column,
    read as a preset name (give ``rules`` for a run with rule overrides that change the deck or
    the table).
    """
    if "cards" not in frame.columns:
        raise AnalysisError("hand_features: the frame has no 'cards' column (play the run with "
                            "cards: --cards, or simulate(..., cards=True))")
    cards = frame["cards"].to_numpy(dtype=np.int64)
    if rules is not None:
        return pd.DataFrame(feature_columns(rules, cards), index=frame.index)
    if "rules" not in frame.columns:
        raise AnalysisError("hand_features: give rules= (the frame has no 'rules' column)")
    names = frame["rules"].astype(str).to_numpy()
    parts = []
    for name in dict.fromkeys(names.tolist()):
        rows = np.flatnonzero(names == name)
        parts.append(pd.DataFrame(feature_columns(preset(name), cards[rows]),
                                  index=frame.index[rows]))
    if not parts:
        return pd.DataFrame(feature_columns(preset("classic"), cards), index=frame.index)
    return pd.concat(parts).loc[frame.index]
