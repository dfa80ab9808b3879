"""One hand of a run on disk, recovered whole: replayed with its plays recorded, and checked
against the dataset's rows.

The engine is deterministic given the run's seed, the hand's id, the rules and the strategies
(every hand seeds its own streams from the seed and its id: ``core/seeding.py``), so a hand of
a hands run is replayed by playing that one hand id again, and a hand of a games run by playing
its game again (the scores before a later hand come from the game's earlier hands). The
replayed hand must give the dataset's bids, tricks, dealer and scores, and in a run played with
``--cards`` the dealt cards of its ``cards`` column; otherwise it is refused (a plug-in or the
engine changed since the run was played). ``handlog.hand_record`` turns it into a hand-log line
(``spades-sim hand``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core import schema
from ..core.errors import RunError
from .dataset import Listing, checked_chunk, chunk_frame, open_run_stamped, replay_advice
from .folder import CHUNK_PATTERN
from .memory import Run, play_games, rotated_strategies, simulate_hands

# The dataset's columns a replayed hand is checked against (``cards`` too when the run has it).
_CHECKED = ("config", "duplicate", "hand_id", "game_id", "dealer", "seat", "bid", "tricks",
            "score_before", "bags_before", "score_delta", "bags_after")


@dataclass
class RecoveredHand:
    """A hand of a run, replayed: ``run`` holds that one hand (its plays recorded; in games mode
    ``run.games`` is its game), ``config`` the configuration's name, ``duplicate`` whether it is
    the copy played with the seats rotated, ``hand_id`` the dataset's ``hand_id`` (in games mode
    the hand's number within its game), ``cards_checked`` whether the dealt cards were checked
    against the dataset's ``cards`` column (runs played with ``--cards``)."""

    run: Run
    config: str
    duplicate: bool
    hand_id: int
    game_id: int | None
    cards_checked: bool


def _index(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise RunError(f"{name} {value!r}: expected an integer >= 0")
    return int(value)


def replay_hand(out, hand: int, *, config: str | None = None, game: int | None = None,
                duplicate: bool = False) -> RecoveredHand:
    """Replay hand ``hand`` of the run in folder ``out`` and check it against the dataset.

    ``config`` names the configuration (needed when the run has several); ``game`` the game of
    a games run, where ``hand`` is the hand's number within that game (the dataset's
    ``hand_id``); in a hands run ``hand`` is the hand id and there is no ``game``;
    ``duplicate`` picks the copy played with the seats rotated (runs played with
    ``--duplicate``). Every refusal is a one-line ``RunError``: not a run folder, no such
    configuration, game or hand, the chunk holding it not played (or damaged), or a replay
    that does not give the dataset's row.
    """
    out = Path(out)
    meta, stamp, spec = open_run_stamped(out)
    names = [c.name for c in spec.configs]
    if config is None:
        if len(names) > 1:
            raise RunError(f"{out}: the run has several configurations ({', '.join(names)}); "
                           f"name one (--config NAME)")
        chosen = spec.configs[0]
    else:
        if config not in names:
            raise RunError(f"{out}: no configuration {config!r} in this run; its "
                           f"configurations are {', '.join(names)}")
        chosen = spec.configs[names.index(config)]
    if duplicate and not spec.duplicate:
        raise RunError(f"{out}: the run was not played with --duplicate: it has no rotated copy")
    hand = _index(hand, "hand")
    if spec.games_mode:
        if game is None:
            raise RunError(f"{out}: a games run: give the game (--game G) and the hand's number "
                           f"within it (--hand H)")
        unit = _index(game, "game")
        if unit >= spec.units:
            raise RunError(f"{out}: no game {unit}: the run has games 0..{spec.units - 1}")
    else:
        if game is not None:
            raise RunError(f"{out}: a hands run has no games: give only the hand (--hand H)")
        unit = hand
        if unit >= spec.units:
            raise RunError(f"{out}: no hand {unit}: the run has hands 0..{spec.units - 1}")
    rows = _dataset_rows(out, Listing(out, meta, stamp), meta, spec, unit, chosen.name,
                         duplicate, hand, game)
    strategies = rotated_strategies(chosen.strategies, 1 if duplicate else 0)
    if spec.games_mode:
        run = play_games(chosen.rules, strategies, 1, spec.seed, record_plays=True,
                         first_game_id=unit, deal_filter=spec.deal_filter)
        row = hand
    else:
        run = simulate_hands(chosen.rules, strategies, 1, spec.seed, record_plays=True,
                             first_hand_id=unit, deal_filter=spec.deal_filter)
        row = 0
    if row >= len(run.hands.hand_id):
        raise RunError(f"{out}: the replayed game {unit} has {len(run.hands.hand_id)} hands but "
                       f"the dataset has hand {hand}: the run no longer replays (was a plug-in, "
                       f"the rules or the engine changed?)")
    one = schema.HandArrays(*(a[row:row + 1] for a in run.hands))
    recovered = Run(run.rules, list(strategies), spec.seed, one, run.games)
    _check_against(out, spec, recovered, rows, duplicate)
    return RecoveredHand(recovered, chosen.name, duplicate, hand,
                         unit if spec.games_mode else None, spec.cards)


def _dataset_rows(out, listing, meta, spec, unit, config, duplicate, hand, game):
    """The dataset's rows of the hand (one per seat, by seat), from the chunk holding it."""
    chunk = unit // spec.chunk_size
    check = checked_chunk(out, spec, meta["identity_sha256"], listing, chunk, keep=True)
    what = f"game {unit}" if spec.games_mode else f"hand {unit}"
    if check.state == "missing":
        raise RunError(f"{out}: {what} is in chunk {chunk}, which is not played yet (re-run "
                       f"the run's command to resume it)")
    if check.state != "done":
        raise RunError(f"{out / CHUNK_PATTERN.format(chunk)}: {check.why}; "
                       f"{replay_advice(out, chunk)}")
    columns = list(_CHECKED) + (["cards"] if spec.cards else [])
    # The configuration's rows of the hand (or game) first: the tidy frame of a whole chunk is
    # a gigabyte where the run has many configurations and its cards (the nil experiment).
    table = check.table
    ids = table.column("game_id" if spec.games_mode else "hand_id")
    wanted = game if spec.games_mode else hand
    table = table.filter(pc.and_(pc.equal(pc.cast(table.column("config"), pa.string()), config),
                                 pc.equal(ids, pa.scalar(wanted, ids.type))))
    frame = chunk_frame(spec, table, columns)
    mask = (frame["config"] == config) & (frame["duplicate"] == duplicate)
    if spec.games_mode:
        mask &= frame["game_id"] == game
        in_game = int(frame.loc[mask, "hand_id"].max() + 1) if mask.any() else 0
        mask &= frame["hand_id"] == hand
        if in_game and not mask.any():
            raise RunError(f"{out}: game {game} has no hand {hand}: it has hands "
                           f"0..{in_game - 1}")
    else:
        mask &= frame["hand_id"] == hand
    rows = frame[mask].sort_values("seat", ignore_index=True)
    if not len(rows):  # a finished chunk holds every hand of every configuration
        raise RunError(f"{out}: {what} of configuration {config} is not in chunk {chunk}")
    return rows


def _check_against(out, spec, run: Run, rows, duplicate: bool) -> None:
    """Refuse (one line) a replayed hand that does not give the dataset's rows."""
    hands, rules = run.hands, run.rules
    shift = 1 if duplicate else 0
    players = rules.players
    if len(rows) != players:
        raise RunError(f"{out}: the dataset has {len(rows)} rows for this hand, not {players}")

    def fail(what, found, expected):
        raise RunError(f"{out}: the replayed hand does not match the dataset: {what} is "
                       f"{found} in the replay but {expected} in the dataset (was a plug-in, "
                       f"the rules or the engine changed since the run was played?)")

    dealer = int(hands.dealer[0])
    if (dealer + shift) % players != int(rows["dealer"].iloc[0]):
        fail("the dealer", dealer, (int(rows["dealer"].iloc[0]) - shift) % players)
    for _, row in rows.iterrows():
        seat = (int(row["seat"]) - shift) % players  # the seat it was played from
        side = seat % 2 if rules.partnership else seat
        checks = [("bid", hands.bids[0, seat]), ("tricks", hands.tricks[0, seat]),
                  ("score_before", hands.score_before[0, side]),
                  ("bags_before", hands.bags_before[0, side]),
                  ("score_delta", hands.score_delta[0, side]),
                  ("bags_after", hands.bags_after[0, side])]
        if spec.cards:
            checks.append(("cards", hands.hands[0, seat]))
        for name, value in checks:
            if int(value) != int(row[name]):
                shown = (lambda v: hex(int(v))) if name == "cards" else int
                fail(f"seat {seat}'s {name}", shown(value), shown(row[name]))
