"""Runs in memory: play hands or games into record arrays, or a run's chunk into a tidy frame.

``simulate_hands`` and ``play_games`` play one configuration and keep the record arrays (the hand
logs and the command line's summaries read them); :func:`play_chunk` plays one chunk of every
configuration of a :class:`~spades_sim.run.spec.RunSpec` into its tidy frame (what the Parquet
dataset stores); :func:`simulate` plays a whole spec to one DataFrame. All of them seed alike
(``core/seeding.py``): the same seed gives the same hands whichever of them plays it, on any
number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core import schema
from ..core.errors import DealFilterError
from ..core.features import as_deal_filter
from ..core.rules import Rules
from ..core.seeding import stream_keys
from ..core.strategies import Strategy
from ..game import dispatch
from ..game.plugins import check_plugins
from .frames import tidy_frame
from .layout import shape, stored_block, stored_table
from .spec import Config, RunSpec, make_config


@dataclass
class Run:
    """What was played: rules, one strategy per seat, the seed, and the record arrays."""

    rules: Rules
    strategies: list[Strategy]
    seed: int
    hands: schema.HandArrays
    games: schema.GameArrays | None = None
    #: With a deal filter: its acceptance (:func:`deal_acceptance`).
    acceptance: dict | None = None

    def frame(self) -> pd.DataFrame:
        """The tidy table of the run (``run/frames.py``)."""
        return tidy_frame(self.hands, self.rules, self.strategies, games=self.games)


def _pieces(total: int, jobs: int) -> list[tuple[int, int]]:
    """``(first, count)`` of ``jobs`` near-equal pieces of ``total`` units."""
    jobs = max(1, min(jobs, total)) if total else 1
    bounds = np.linspace(0, total, jobs + 1).astype(np.int64)
    return [(int(a), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:])]


def _in_pieces(play, total: int, jobs: int, *args, offset: int = 0) -> list:
    pieces = [(offset + first, count) for first, count in _pieces(total, jobs)]
    if len(pieces) == 1:
        return [play(*args, *pieces[0])]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=len(pieces))(delayed(play)(*args, first, count)
                                        for first, count in pieces)


def _hands(rules, strategies, keys, record_plays, deal_filter, first, count):
    return dispatch.play_hands(rules, strategies, keys, first, count, record_plays, deal_filter)


def _games(rules, strategies, keys, record_plays, deal_filter, first, count):
    return dispatch.play_games(rules, strategies, keys, first, count, record_plays, deal_filter)


#: Hands whose deal streams measure a filter's acceptance rate (declarative, Python).
ACCEPTANCE_HANDS = (10_000, 1_000)


def deal_acceptance(rules: Rules, deal_filter, seed: int, n_hands: int | None = None) -> dict:
    """How often ``deal_filter`` accepts a deal under ``rules``: measured on the deal streams
    of independent hands ``0 .. n - 1`` of a run with ``seed`` (``n``: ``n_hands``, at most
    :data:`ACCEPTANCE_HANDS`), exactly as a run draws them. ``{"filter", "max_tries",
    "measured_hands", "deals", "acceptance_rate"}``; a :class:`DealFilterError` when a hand
    finds no accepted deal within ``max_tries``."""
    deal_filter = as_deal_filter(deal_filter)
    deal_filter.check(rules)
    cap = ACCEPTANCE_HANDS[deal_filter.is_function]
    count = cap if n_hands is None else max(1, min(int(n_hands), cap))
    deal_key = stream_keys(seed)[0]
    if deal_filter.is_function:
        from ..game.deals import redeals

        tries = np.asarray(redeals(rules, deal_key, 0, count, deal_filter)) + 1
    else:
        from ..engine.calls import filter_tries

        tries = filter_tries(rules, deal_filter, deal_key, 0, count)
        if len(tries) and tries[-1] == 0:
            raise DealFilterError(f"deal filter {deal_filter.describe()!r} accepted none of "
                                  f"{deal_filter.max_tries:,} deals of hand {len(tries) - 1}; "
                                  f"loosen it or raise max_tries")
    deals = int(tries.sum())
    return {"filter": deal_filter.describe(), "max_tries": int(deal_filter.max_tries),
            "measured_hands": count, "deals": deals, "acceptance_rate": count / deals}


def simulate_hands(rules: Rules, strategies, n_hands: int, seed: int, *, jobs: int = 1,
                   record_plays: bool = False, first_hand_id: int = 0,
                   deal_filter=None) -> Run:
    """Play independent hands ``first_hand_id ...`` (``n_hands`` of them) from zero scores, on
    ``jobs`` processes; with ``deal_filter`` (text, a Python function of the dealt hands or a
    :class:`~spades_sim.core.features.DealFilter`) only deals it accepts (``docs/runs.md``,
    "Conditional deals"), the run's ``acceptance`` telling how often it accepts."""
    strategies = list(strategies)
    check_plugins(strategies)
    deal_filter = as_deal_filter(deal_filter)
    acceptance = None
    if deal_filter is not None:
        acceptance = deal_acceptance(rules, deal_filter, seed, n_hands)
    parts = _in_pieces(_hands, n_hands, jobs, rules, strategies, stream_keys(seed), record_plays,
                       deal_filter, offset=first_hand_id)
    return Run(rules, strategies, seed, schema.concat(parts), acceptance=acceptance)


def play_games(rules: Rules, strategies, n_games: int, seed: int, *, jobs: int = 1,
               record_plays: bool = False, first_game_id: int = 0, deal_filter=None) -> Run:
    """Play whole games ``first_game_id ...`` (``n_games`` of them) to the target (on ``jobs``
    processes); ``deal_filter`` as for :func:`simulate_hands`."""
    strategies = list(strategies)
    check_plugins(strategies)
    deal_filter = as_deal_filter(deal_filter)
    acceptance = None
    if deal_filter is not None:
        acceptance = deal_acceptance(rules, deal_filter, seed)
    parts = _in_pieces(_games, n_games, jobs, rules, strategies, stream_keys(seed), record_plays,
                       deal_filter, offset=first_game_id)
    hands = schema.concat([hands for hands, _ in parts])
    games = schema.concat([games for _, games in parts])
    return Run(rules, strategies, seed, hands, games, acceptance=acceptance)


def rotated_strategies(strategies: tuple, shift: int) -> tuple:
    """Strategies moved ``shift`` seats: seat ``s`` gets the strategy of seat ``s + shift``."""
    return tuple(strategies[(seat + shift) % len(strategies)] for seat in range(len(strategies)))


def _home_seats(frame: pd.DataFrame) -> pd.DataFrame:
    """A duplicate copy's rows moved back to their strategies' home seats: the rotated copy's
    seat ``s`` played seat ``s + 1``'s strategy, so pairs of rows line up by strategy."""
    frame["seat"] = ((frame["seat"].astype(np.int16) + 1) % 4).astype(np.int8)
    frame["side"] = (frame["seat"] % 2).astype(np.int8)
    frame["dealer"] = ((frame["dealer"].astype(np.int16) + 1) % 4).astype(np.int8)
    winner = frame["game_winner"]  # the physical side w holds home side 1 - w
    frame["game_winner"] = np.where(winner >= 0, 1 - winner, winner).astype(np.int8)
    return frame.sort_values(["game_id", "hand_id", "seat"], kind="stable", ignore_index=True)


def _played(spec: RunSpec, chunk: int):
    """Play one chunk of every configuration of ``spec``: ``(config, duplicate, strategies,
    hands, games, par)`` for each configuration and copy, in the order of the run's rows (with
    par the hands are played with their plays recorded, which changes no hand, to re-apply the
    exchanges before solving them double dummy)."""
    keys = stream_keys(spec.seed)
    first, count = spec.chunk_range(chunk)
    record = bool(spec.par)
    if record:
        from ..game.par import records_par  # (loads the double-dummy solver's kernels)
    for config in spec.configs:
        solved: dict = {}  # the positions solved double dummy under these rules
        for duplicate in ((False, True) if spec.duplicate else (False,)):
            strategies = rotated_strategies(config.strategies, 1 if duplicate else 0)
            if spec.games_mode:
                hands, games = dispatch.play_games(config.rules, strategies, keys, first, count,
                                                   record, spec.deal_filter)
            else:
                hands = dispatch.play_hands(config.rules, strategies, keys, first, count,
                                            record, spec.deal_filter)
                games = None
            par = records_par(config.rules, hands, solved) if spec.par else None
            yield config, duplicate, strategies, hands, games, par


def play_chunk(spec: RunSpec, chunk: int) -> pd.DataFrame:
    """Play one chunk of every configuration of ``spec``; the tidy frame of its hands (with
    the par columns when ``spec.par``, the cards column when ``spec.cards``)."""
    frames = []
    for config, duplicate, strategies, hands, games, par in _played(spec, chunk):
        frame = tidy_frame(hands, config.rules, strategies, config=config.name,
                           duplicate=duplicate, chunk=chunk, games=games, par=par,
                           cards=spec.cards)
        frames.append(_home_seats(frame) if duplicate else frame)
    return _categorical(pd.concat(frames, ignore_index=True))[list(spec.columns)]


def play_chunk_stored(spec: RunSpec, chunk: int) -> pa.Table:
    """Play one chunk of every configuration of ``spec`` into the table its chunk file holds:
    one row per hand (``run/layout.py``); :func:`~spades_sim.run.layout.tidy_from_stored`
    gives back exactly :func:`play_chunk`'s frame."""
    seats, sides = shape(spec.configs)
    blocks = [stored_block(hands, config.rules, strategies, config=config.name,
                           duplicate=duplicate, chunk=chunk, seats=seats, sides=sides,
                           games=games, par=par)
              for config, duplicate, strategies, hands, games, par in _played(spec, chunk)]
    return stored_table(blocks, spec.stored_types)


def _categorical(frame: pd.DataFrame) -> pd.DataFrame:
    for column in ("config", "rules", "strategy"):
        frame[column] = frame[column].astype("category")
    return frame


def simulate(configs, *, n_hands: int | None = None, n_games: int | None = None, seed: int = 0,
             chunk_size: int = 100_000, duplicate: bool = False, jobs: int = 1,
             par: bool = False, cards: bool = False, deal_filter=None) -> pd.DataFrame:
    """A run straight to a DataFrame: the same rows as the same spec written to disk.

    ``configs``: a list of :class:`~spades_sim.run.spec.Config` (or ``(name, rules,
    strategies)`` tuples); ``par``: add the par columns (``core.par.PAR_TYPES``); ``cards``:
    add the cards column and the ``seat_*`` hand features (``core.par.tidy_types``);
    ``deal_filter``: only deals it accepts (text such as ``"seat0.spades >= 4"``, a Python
    function of the dealt hands, or a :class:`~spades_sim.core.features.DealFilter`); the
    frame's ``attrs["deal_filter"]`` then holds its acceptance per configuration
    (:func:`deal_acceptance`).
    """
    configs = tuple(c if isinstance(c, Config) else make_config(*c) for c in configs)
    spec = RunSpec(configs, seed, n_hands=n_hands, n_games=n_games, chunk_size=chunk_size,
                   duplicate=duplicate, par=par, cards=cards,
                   deal_filter=as_deal_filter(deal_filter))
    acceptance = spec_acceptance(spec)
    if jobs == 1:
        frames = [play_chunk(spec, chunk) for chunk in range(spec.n_chunks)]
    else:
        from joblib import Parallel, delayed

        frames = Parallel(n_jobs=jobs)(delayed(play_chunk)(spec, c) for c in range(spec.n_chunks))
    frame = _categorical(pd.concat(frames, ignore_index=True))
    if acceptance is not None:
        frame.attrs["deal_filter"] = acceptance
    return frame


def spec_acceptance(spec: RunSpec) -> dict | None:
    """The acceptance of a run's deal filter (``None`` without one): :func:`deal_acceptance`
    per configuration, as ``{"filter", "max_tries", "measured_hands", "deals":
    {config: n}, "acceptance_rate": {config: rate}}``."""
    if spec.deal_filter is None:
        return None
    by_rules: dict = {}  # (configurations with the same rules deal alike: measured once)
    per_config = {}
    for config in spec.configs:
        if config.rules not in by_rules:
            by_rules[config.rules] = deal_acceptance(config.rules, spec.deal_filter, spec.seed,
                                                     spec.units)
        per_config[config.name] = by_rules[config.rules]
    first = next(iter(per_config.values()))
    return {"filter": first["filter"], "max_tries": first["max_tries"],
            "measured_hands": first["measured_hands"],
            "deals": {name: value["deals"] for name, value in per_config.items()},
            "acceptance_rate": {name: value["acceptance_rate"]
                                for name, value in per_config.items()}}
