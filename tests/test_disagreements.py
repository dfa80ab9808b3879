"""Two estimates of one comparison that disagree (``headtohead.opposite_signs``): found on a
hand-built table exactly where both intervals exclude zero with opposite signs."""

import pandas as pd
import pytest

from spades_sim.analysis.headtohead import opposite_signs
from spades_sim.core.errors import AnalysisError


def test_opposite_signs_flags_only_significant_disagreements():
    rows = []
    cases = {  # variant: (hands did and interval, games did and interval)
        "disagree": ((-12.6, -20.0, -5.0), (0.144, 0.05, 0.24)),
        "agree": ((-12.6, -20.0, -5.0), (-0.1, -0.2, -0.01)),
        "games covers zero": ((8.0, 2.0, 14.0), (-0.05, -0.12, 0.02)),
        "hands covers zero": ((1.0, -3.0, 5.0), (-0.2, -0.3, -0.1)),
        "both flip": ((4.0, 1.0, 7.0), (-0.2, -0.3, -0.1)),
    }
    for variant, (hands, games) in cases.items():
        for (mode, metric), (did, low, high) in ((("hands", "score"), hands),
                                                 (("games", "win_share"), games)):
            rows.append({"variant": variant, "estimate": "within", "mode": mode,
                         "metric": metric, "did": did, "did_low": low, "did_high": high})
    rows.append({"variant": "disagree", "estimate": "within", "mode": "games",
                 "metric": "final_score", "did": 50.0, "did_low": 10.0, "did_high": 90.0})
    found = opposite_signs(pd.DataFrame(rows), ["variant", "estimate"], "did")
    assert sorted(found["variant"]) == ["both flip", "disagree"]
    row = found.set_index("variant").loc["disagree"]
    assert (row["did_first"], row["did_second"]) == (-12.6, 0.144)
    with pytest.raises(AnalysisError, match="lacks column"):
        opposite_signs(pd.DataFrame(rows).drop(columns="did_low"), ["variant"], "did")
