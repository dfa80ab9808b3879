"""Fitting and checking the trick model behind the heuristic's expected-value bids.

``fit_model`` plays independent hands of each shape's preset (``core/bidmodel.py``) with the
default heuristic and the model in force, and fits, from the hands it played:

- ``own``: the tricks a seat takes, by bidding position and half-trick bin of its adjusted
  estimate (the heuristic's estimate shifted by ``beta`` per trick the opponents have bid
  before it beyond their mean, ``opp_mean``; ``beta`` by least squares), as frequencies,
  smoothed by pooling neighbouring bins until each holds ``MIN_COUNT`` hands; the last bin is
  every hand of the position (the prior of a hand not seen);
- ``side``: likewise for the seat's tricks plus its partner's tricks beyond the partner's bid
  (partnerships, both partners bidding numbers);
- ``error``: a number bidder's tricks minus its bid;
- the nil model: a logistic regression of a nil's success on the nil features (from hands
  where one seat per side bids nil whenever the heuristic's nil gates allow it), and the
  success rates of nils and of blind nils (one seat per side always bidding blind nil).

Non-nil bidders only, for every table but the nil model. ``check_model`` plays fresh hands
(another seed) and compares what the model predicts with what happened, by bin: the calibration
check of ``spades-sim bid-model check``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.bidmodel import (
    K_SIZE,
    MODEL_PATH,
    N_BINS,
    N_NIL_FEATURES,
    N_POSITIONS,
    OFFSET,
    SHAPE_PRESETS,
    SHAPES,
    Y_SIZE,
    build_tables,
    tables,
)
from ..core.rules import Rules, preset
from ..core.seeding import stream_keys
from ..core.strategies import Strategy, parse_strategy
from ..engine.calls import play_hands
from ..engine.strategy_value import model_inputs_nb

MIN_COUNT = 400  # hands per estimate bin, pooled from neighbours where fewer
FIT_SEED = 20261201
NIL_SPEC = "heuristic:nil_margin=1000"  # bids nil whenever its gates allow
BLIND_SPEC = "heuristic:blind_nil_deficit=-100000,blind_margin=1000"  # always blind nil


@dataclass
class Played:
    """The model's inputs and outcomes for every seat of some hands (arrays [n, 4])."""

    estimates: np.ndarray
    opp_made: np.ndarray
    positions: np.ndarray
    partner_known: np.ndarray
    nil_features: np.ndarray
    bids: np.ndarray
    tricks: np.ndarray
    blind: np.ndarray
    nil: np.ndarray  # a nil or blind nil bid


def _play(rules: Rules, strategies, seed: int, n_hands: int) -> Played:
    keys = stream_keys(seed)
    out = play_hands(rules, strategies, keys, 0, n_hands)
    n = len(out.hand_id)
    estimates = np.zeros((n, 4))
    opp_made = np.zeros((n, 4), dtype=np.int64)
    positions = np.zeros((n, 4), dtype=np.int64)
    known = np.zeros((n, 4), dtype=np.bool_)
    features = np.zeros((n, 4, N_NIL_FEATURES - 1))
    default = Strategy("heuristic", Strategy("heuristic").defaults())
    params = tuple(float(v) for v in default.vector())
    bids = out.bids.astype(np.int64)
    model_inputs_nb(rules.kernel_tuple(), params, out.hands, out.dealer.astype(np.int64), bids,
                    estimates, opp_made, positions, known, features)
    blind = out.blind.astype(bool)
    nil = (bids == 0) & (bool(rules.nil) | blind)
    players = rules.players
    return Played(estimates[:, :players], opp_made[:, :players], positions[:, :players],
                  known[:, :players], features[:, :players], bids[:, :players],
                  out.tricks[:, :players].astype(np.int64), blind[:, :players],
                  nil[:, :players])


def _bin(values: np.ndarray) -> np.ndarray:
    index = np.where(values > 0, (values * 2.0 + 0.5).astype(np.int64), 0)
    return np.minimum(index, N_BINS - 1)


def _pooled(counts: np.ndarray) -> np.ndarray:
    """Frequencies by bin ``[bins, values]``: a bin with fewer than ``MIN_COUNT`` hands borrows
    its neighbours' (widening symmetrically), then every row is normalised."""
    n_bins = counts.shape[0]
    out = np.zeros(counts.shape)
    totals = counts.sum(axis=1)
    for index in range(n_bins):
        low = high = index
        while totals[low:high + 1].sum() < MIN_COUNT and (low > 0 or high < n_bins - 1):
            low, high = max(low - 1, 0), min(high + 1, n_bins - 1)
        row = counts[low:high + 1].sum(axis=0)
        out[index] = row / row.sum() if row.sum() else 0
    return out


def _logistic(features: np.ndarray, made: np.ndarray, ridge: float = 1e-3) -> np.ndarray:
    """Weights of a logistic regression by Newton's method (intercept first)."""
    x = np.column_stack([np.ones(len(features)), features])
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (made - p) - ridge * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w += step
        if np.abs(step).max() < 1e-9:
            break
    return w


def fit_shape(name: str, n_hands: int, seed: int = FIT_SEED) -> dict:
    """The model of one shape, from ``n_hands`` hands of each of its three fitting runs."""
    rules = preset(SHAPE_PRESETS[name])
    players = rules.players
    base = parse_strategy("heuristic")
    played = _play(rules, [base] * players, seed, n_hands)
    number = ~played.nil
    # beta: the tricks beyond the estimate per opponents' trick bid beyond its mean, by position.
    beta = np.zeros(N_POSITIONS)
    opp_mean = np.zeros(N_POSITIONS)
    for position in range(players):
        rows = number & (played.positions == position)
        opp = played.opp_made[rows].astype(float)
        opp_mean[position] = opp.mean() if position else 0.0
        residual = played.tricks[rows] - played.estimates[rows]
        spread = opp - opp.mean()
        if position and spread.var() > 0:
            beta[position] = float((spread * (residual - residual.mean())).mean() / spread.var())
    adjusted = played.estimates + beta[played.positions] * (played.opp_made
                                                            - opp_mean[played.positions])
    bins = _bin(adjusted)
    bin_weights = np.zeros((N_POSITIONS, N_BINS))
    for position in range(N_POSITIONS):
        rows = played.positions == min(position, players - 1)
        bin_weights[position] = np.bincount(bins[rows], minlength=N_BINS)[:N_BINS]
    own = np.zeros((N_POSITIONS, N_BINS + 1, K_SIZE))
    side = np.zeros((N_POSITIONS, N_BINS + 1, Y_SIZE))
    error_values = (played.tricks - played.bids)[number]
    error = np.bincount(error_values + OFFSET, minlength=Y_SIZE)[:Y_SIZE].astype(float)
    if rules.partnership:
        partner = (np.arange(4) + 2) % 4
        partner_error = (played.tricks - played.bids)[:, partner]
        both = number & number[:, partner]
        y = played.tricks + partner_error
    for position in range(players):
        rows = number & (played.positions == position)
        counts = np.zeros((N_BINS, K_SIZE))
        np.add.at(counts, (bins[rows], played.tricks[rows]), 1)
        own[position, :N_BINS] = _pooled(counts)
        own[position, N_BINS] = counts.sum(axis=0) / counts.sum()
        if rules.partnership:
            rows = both & (played.positions == position)
            counts = np.zeros((N_BINS, Y_SIZE))
            np.add.at(counts, (bins[rows], np.clip(y[rows] + OFFSET, 0, Y_SIZE - 1)), 1)
            side[position, :N_BINS] = _pooled(counts)
            side[position, N_BINS] = counts.sum(axis=0) / counts.sum()
        else:
            side[position, :, OFFSET:OFFSET + K_SIZE] = own[position]
    for position in range(players, N_POSITIONS):  # (unused positions: copies of the last)
        own[position], side[position] = own[players - 1], side[players - 1]
    nil_made = float((played.tricks[played.nil & ~played.blind] == 0).mean()) \
        if (played.nil & ~played.blind).any() else 0.5

    # The nil model: one seat per side bids nil whenever its gates allow.
    wide = parse_strategy(NIL_SPEC)
    seats = [wide if seat < 2 or not rules.partnership else base for seat in range(players)]
    nils = _play(rules, seats, seed + 1, n_hands)
    chosen = nils.nil & ~nils.blind
    features = nils.nil_features[chosen]
    made = (nils.tricks[chosen] == 0).astype(float)
    weights = _logistic(features, made)

    # Blind nils: one seat per side always bids blind nil (with the rule switched on).
    blind_rules = preset(SHAPE_PRESETS[name], blind_nil=True, blind_nil_min_deficit=0,
                         blind_nil_exchange=rules.blind_nil_exchange if rules.partnership else 0)
    always = parse_strategy(BLIND_SPEC)
    seats = [always if seat < 2 or not rules.partnership else base for seat in range(players)]
    blinds = _play(blind_rules, seats, seed + 2, max(n_hands // 4, 1000))
    went = blinds.nil & blinds.blind
    blind_nil = float((blinds.tricks[went] == 0).mean()) if went.any() else 0.5
    return {
        "rules": SHAPE_PRESETS[name],
        "hands": int(n_hands),
        "own": own.tolist(),
        "side": side.tolist(),
        "error": (error / error.sum()).tolist(),
        "beta": beta.tolist(),
        "opp_mean": opp_mean.tolist(),
        "partner_bid": float(played.bids[number].mean()),
        "nil_made": nil_made,
        "blind_nil": blind_nil,
        "nil_weights": weights.tolist(),
        "bin_weights": (bin_weights / bin_weights.sum(axis=1, keepdims=True)).tolist(),
        "nil_hands": int(chosen.sum()),
    }


def fit_model(n_hands: int = 400_000, seed: int = FIT_SEED, shapes=None,
              progress=None) -> dict:
    """A full model (every shape), ready to write as ``bid_model.json``."""
    names = [shape[0] for shape in SHAPES] if shapes is None else list(shapes)
    fitted = {}
    for name in names:
        start = time.time()
        fitted[name] = fit_shape(name, n_hands, seed)
        if progress:
            progress(f"{name}: fitted from {n_hands} hands in {time.time() - start:.1f} s")
    return {"version": 1, "seed": seed, "hands_per_shape": n_hands,
            "command": f"spades-sim bid-model fit --hands {n_hands} --seed {seed}",
            "shapes": fitted}


def write_model(model: dict, path=MODEL_PATH) -> Path:
    """Write a model file atomically (after checking that its tables build)."""
    build_tables(model)
    path = Path(path)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(model, separators=(",", ":")) + "\n")
    temporary.replace(path)
    return path


def check_model(n_hands: int = 100_000, seed: int = FIT_SEED + 7, shapes=None) -> dict:
    """Calibration on fresh hands: by shape, the mean predicted and observed tricks of number
    bidders by estimate bin, the predicted and observed rate of making the bid (own table for
    solo shapes, side table for partnerships), and the nil model's predicted and observed
    success by decile of prediction. Each has ``max_gap``: the largest |predicted - observed|
    over cells of at least 200 hands."""
    t = tables()
    names = [shape[0] for shape in SHAPES] if shapes is None else list(shapes)
    report = {}
    for index, (name, *_rest) in enumerate(SHAPES):
        if name not in names:
            continue
        rules = preset(SHAPE_PRESETS[name])
        base = parse_strategy("heuristic")
        played = _play(rules, [base] * rules.players, seed, n_hands)
        number = ~played.nil
        adjusted = played.estimates + t.beta[index][played.positions] * (
            played.opp_made - t.opp_mean[index][played.positions])
        bins = _bin(adjusted)
        predicted = t.own_mean[index][played.positions, bins]
        rows = []
        for b in range(N_BINS):
            cell = number & (bins == b)
            if cell.sum() >= 200:
                rows.append({"bin": b / 2, "hands": int(cell.sum()),
                             "predicted": float(predicted[cell].mean()),
                             "observed": float(played.tricks[cell].mean())})
        own_surv = t.own_surv[index][played.positions, bins]
        made_pred = np.take_along_axis(own_surv.reshape(-1, own_surv.shape[-1]),
                                       np.clip(played.bids, 0, K_SIZE).reshape(-1, 1),
                                       axis=1).reshape(played.bids.shape)
        made_obs = played.tricks >= played.bids
        if rules.partnership:
            partner = (np.arange(4) + 2) % 4
            side_surv = t.side_surv[index][played.positions, bins]
            made_pred = np.take_along_axis(
                side_surv.reshape(-1, side_surv.shape[-1]),
                (played.bids + OFFSET).reshape(-1, 1), axis=1).reshape(played.bids.shape)
            side_tricks = played.tricks + played.tricks[:, partner]
            made_obs = side_tricks >= played.bids + played.bids[:, partner]
            number = number & number[:, partner]
        made_rows = _deciles(made_pred[number], made_obs[number])
        nil_rows = []
        wide = parse_strategy(NIL_SPEC)
        seats = [wide if seat < 2 or not rules.partnership else base
                 for seat in range(rules.players)]
        nils = _play(rules, seats, seed + 1, n_hands)
        chosen = nils.nil & ~nils.blind
        x = np.column_stack([np.ones(chosen.sum()), nils.nil_features[chosen]])
        z = x @ t.nil_weights[index]
        nil_pred = 1.0 / (1.0 + np.exp(-z))
        nil_rows = _deciles(nil_pred, nils.tricks[chosen] == 0)
        report[name] = {
            "rules": SHAPE_PRESETS[name], "hands": n_hands, "seed": seed,
            "tricks": {"rows": rows, "max_gap": _gap(rows)},
            "made": {"rows": made_rows, "max_gap": _gap(made_rows)},
            "nil": {"rows": nil_rows, "max_gap": _gap(nil_rows)},
        }
    return report


def _deciles(predicted: np.ndarray, observed: np.ndarray) -> list[dict]:
    if len(predicted) == 0:
        return []
    edges = np.quantile(predicted, np.linspace(0, 1, 11))
    which = np.clip(np.searchsorted(edges, predicted, side="right") - 1, 0, 9)
    rows = []
    for decile in range(10):
        cell = which == decile
        if cell.any():
            rows.append({"decile": decile + 1, "hands": int(cell.sum()),
                         "predicted": float(predicted[cell].mean()),
                         "observed": float(np.asarray(observed)[cell].mean())})
    return rows


def _gap(rows) -> float:
    gaps = [abs(row["predicted"] - row["observed"]) for row in rows if row["hands"] >= 200]
    return float(max(gaps)) if gaps else 0.0


def format_check(report: dict) -> str:
    lines = []
    for name, shape in report.items():
        lines.append(f"{name} ({shape['rules']}, {shape['hands']} hands, seed {shape['seed']}): "
                     f"largest gaps: tricks {shape['tricks']['max_gap']:.3f}, "
                     f"bid made {shape['made']['max_gap']:.3f}, nil made "
                     f"{shape['nil']['max_gap']:.3f}")
        for part, label in (("made", "P(side makes its bid)"), ("nil", "P(nil made)")):
            cells = "  ".join(f"{row['predicted']:.2f}/{row['observed']:.2f}"
                              for row in shape[part]["rows"])
            lines.append(f"  {label} by decile, predicted/observed: {cells}")
    return "\n".join(lines)
