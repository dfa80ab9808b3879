"""The trick model behind the heuristic's expected-value bidding: data, shapes and tables.

The heuristic bids by the expected score of each choice under the rules in force
(``engine/strategy_bids.py``, ``reference/strategies.py``). What it needs to know is how many
tricks its hand, and its side, will take. That is a distribution, fitted by the toolkit from its
own simulations (``analysis/bidmodel.py``, ``spades-sim bid-model fit``) and shipped as
``core/data/bid_model.json``. This module reads that file and turns it into the arrays both
twins read, so the engine and the reference read the very same numbers.

One model per *shape* of game (the deck, the number of players and the deal decide how tricks
fall; the scoring rules do not): ``SHAPES`` below. For each shape and bidding position (0 = the
dealer's left), and each bin of the seat's adjusted trick estimate (half-trick bins; the last bin
is the prior: a hand not yet seen), the model holds:

- ``own``: P(T = k), the tricks the seat takes, k = 0 .. 17;
- ``side``: P(Y = y), Y = T + (T_p - B_p), the seat's tricks plus its partner's tricks beyond
  the partner's bid (partnerships only: the side makes a contract ``b + B_p`` exactly when
  Y >= b), y = -OFFSET .. Y_SIZE - 1 - OFFSET;

and how often a hand falls in each bin (by position); and per shape: the partner's bid error
``T_p - B_p`` alone, the mean non-nil bid, the shift of the estimate per trick the opponents
have bid before the seat (``beta`` per position, around ``opp_mean``), the nil model (a linear
score of nil features and a table of the probability that a nil succeeds by score bin), the
blind-nil success rate and the mean success of a nil.

The derived tables (survival functions and tail sums) are built here with numpy once per
process, in one fixed order, so that both twins agree bit for bit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .errors import SpadesError

MODEL_PATH = Path(__file__).resolve().parent / "data" / "bid_model.json"

# Shapes: (name, players, deck, deal). A rules variant uses the first shape with its players
# and deck (a two-player game with the standard deal uses the two-player model).
SHAPES = (
    ("four", 4, "standard", "standard"),
    ("jokers", 4, "jokers", "standard"),
    ("three", 3, "standard", "standard"),
    ("two", 2, "standard", "draw"),
)
#: The rules preset each shape is fitted under.
SHAPE_PRESETS = {"four": "classic", "jokers": "jokers", "three": "cutthroat", "two": "two-player"}
N_SHAPES = len(SHAPES)
N_POSITIONS = 4
BIN_WIDTH = 0.5  # tricks per estimate bin
N_BINS = 36  # estimate bins 0 .. 17.5 (clamped); bin N_BINS is the prior
PRIOR_BIN = N_BINS
K_SIZE = 18  # tricks 0 .. 17
OFFSET = 17  # Y and the partner's error are stored from -OFFSET
Y_SIZE = 2 * OFFSET + K_SIZE  # Y = -17 .. 34
N_NIL_FEATURES = 12
NIL_Z_LOW, NIL_Z_STEP, NIL_Z_BINS = -8.0, 0.125, 129  # the nil probability table's grid


class ModelError(SpadesError):
    """The shipped bid model file is missing or malformed."""


def shape_index(players: int, deck: str, partnership: bool = True) -> int:
    """The model shape of a rules variant (by players and deck).

    >>> shape_index(4, "standard"), shape_index(4, "jokers"), shape_index(3, "standard")
    (0, 1, 2)
    """
    if players == 4:
        return 1 if deck == "jokers" else 0
    return 2 if players == 3 else 3


@dataclass(frozen=True)
class Tables:
    """The arrays the twins read (float64 unless noted); index ``[shape, position, bin, ...]``.

    ``own_pmf``/``own_surv``: P(T = k) and P(T >= k), k = 0 .. K_SIZE (surv has one more
    entry, 0). ``side_surv``: P(Y >= y - OFFSET) for y = 0 .. Y_SIZE; ``side_tail``:
    E[(Y - (y - OFFSET))+]; ``side_mean``: E[Y]. ``own_tail``/``own_mean`` likewise for T.
    ``err_surv``/``err_tail``/``err_mean`` ``[shape, y]``: the partner's bid error.
    ``scalars`` ``[shape, SCALARS]``; ``beta``/``opp_mean`` ``[shape, position]``;
    ``nil_weights`` ``[shape, N_NIL_FEATURES]``; ``nil_prob`` ``[shape, NIL_Z_BINS]``;
    ``bin_weights`` ``[shape, position, N_BINS]``: how often a hand falls in each bin.
    """

    own_pmf: np.ndarray
    own_surv: np.ndarray
    own_tail: np.ndarray
    own_mean: np.ndarray
    side_surv: np.ndarray
    side_tail: np.ndarray
    side_mean: np.ndarray
    err_surv: np.ndarray
    err_tail: np.ndarray
    err_mean: np.ndarray
    beta: np.ndarray
    opp_mean: np.ndarray
    scalars: np.ndarray
    nil_weights: np.ndarray
    nil_prob: np.ndarray
    bin_weights: np.ndarray


# Per-shape scalars, by index.
S_PARTNER_BID = 0  # mean non-nil bid
S_BLIND_NIL = 1  # P(a blind nil succeeds)
S_NIL_MADE = 2  # P(a nil succeeds), over the nils bid
N_SCALARS = 3


def _survival(pmf: np.ndarray) -> np.ndarray:
    """P(X >= i) for i = 0 .. n (last axis), the last entry 0; summed from the top."""
    surv = np.zeros(pmf.shape[:-1] + (pmf.shape[-1] + 1,))
    for i in range(pmf.shape[-1] - 1, -1, -1):
        surv[..., i] = surv[..., i + 1] + pmf[..., i]
    return surv


def _tail(surv: np.ndarray) -> np.ndarray:
    """E[(X - i)+] for i = 0 .. n: the sum of P(X >= j) over j > i, from the top."""
    tail = np.zeros(surv.shape)
    for i in range(surv.shape[-1] - 2, -1, -1):
        tail[..., i] = tail[..., i + 1] + surv[..., i + 1]
    return tail


def _normalised(values, shape) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.shape != shape or not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ModelError(f"{MODEL_PATH.name}: a table has shape {array.shape}, expected {shape}")
    total = array.sum(axis=-1, keepdims=True)
    return np.where(total > 0, array / np.where(total > 0, total, 1.0), 0.0)


def build_tables(model: dict) -> Tables:
    """The derived arrays of a model (the JSON object of ``bid_model.json``)."""
    own = np.zeros((N_SHAPES, N_POSITIONS, N_BINS + 1, K_SIZE))
    side = np.zeros((N_SHAPES, N_POSITIONS, N_BINS + 1, Y_SIZE))
    err = np.zeros((N_SHAPES, Y_SIZE))
    beta = np.zeros((N_SHAPES, N_POSITIONS))
    opp_mean = np.zeros((N_SHAPES, N_POSITIONS))
    scalars = np.zeros((N_SHAPES, N_SCALARS))
    nil_weights = np.zeros((N_SHAPES, N_NIL_FEATURES))
    nil_prob = np.zeros((N_SHAPES, NIL_Z_BINS))
    bin_weights = np.zeros((N_SHAPES, N_POSITIONS, N_BINS))
    shapes = model.get("shapes", {})
    for index, (name, *_rest) in enumerate(SHAPES):
        if name not in shapes:
            raise ModelError(f"{MODEL_PATH.name}: no model for the shape {name!r}")
        data = shapes[name]
        try:
            own[index] = _normalised(data["own"], own.shape[1:])
            side[index] = _normalised(data["side"], side.shape[1:])
            err[index] = _normalised(data["error"], err.shape[1:])
            beta[index] = np.asarray(data["beta"], dtype=np.float64)
            opp_mean[index] = np.asarray(data["opp_mean"], dtype=np.float64)
            scalars[index] = [data["partner_bid"], data["blind_nil"], data["nil_made"]]
            nil_weights[index] = np.asarray(data["nil_weights"], dtype=np.float64)
            bin_weights[index] = _normalised(data["bin_weights"], bin_weights.shape[1:])
        except (KeyError, ValueError, TypeError) as error:
            raise ModelError(f"{MODEL_PATH.name}: shape {name!r}: {error}") from None
    # The nil probability by score bin: the logistic function, tabulated (no exp in the kernel).
    grid = NIL_Z_LOW + NIL_Z_STEP * np.arange(NIL_Z_BINS)
    nil_prob[:] = 1.0 / (1.0 + np.exp(-grid))
    own_surv = _survival(own)
    side_surv = _survival(side)
    err_surv = _survival(err)
    ks = np.arange(K_SIZE, dtype=np.float64)
    ys = np.arange(Y_SIZE, dtype=np.float64) - OFFSET
    return Tables(
        own_pmf=own, own_surv=own_surv, own_tail=_tail(own_surv), own_mean=(own * ks).sum(-1),
        side_surv=side_surv, side_tail=_tail(side_surv), side_mean=(side * ys).sum(-1),
        err_surv=err_surv, err_tail=_tail(err_surv), err_mean=(err * ys).sum(-1),
        beta=beta, opp_mean=opp_mean, scalars=scalars, nil_weights=nil_weights,
        nil_prob=nil_prob, bin_weights=bin_weights,
    )


def read_model(path=MODEL_PATH) -> dict:
    """The model file's JSON object (a one-line :class:`ModelError` when unreadable)."""
    try:
        return json.loads(Path(path).read_text())
    except OSError as error:
        raise ModelError(f"{path}: cannot read the bid model: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ModelError(f"{path}: not JSON ({error.msg}, line {error.lineno})") from None


@lru_cache(maxsize=1)
def tables() -> Tables:
    """The shipped model's tables (built once per process)."""
    return build_tables(read_model())
