"""Example hands in a report: the worst set, a failed nil and a made blind nil of a run, each
replayed from the run folder and drawn as a diagram (``core/diagram.py``), shown folded in the
section and written beside the report as a text file (``hands/<kind>.txt``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from markupsafe import Markup, escape

from ..core.cards import N_CARD_INDICES, card_text
from ..core.diagram import draw_hand
from ..core.errors import SpadesError
from ..run import replay_hand
from .model import Context, Section

#: The example kinds: file name and what the link says.
KINDS = {"worst-set": "the worst set", "failed-nil": "a failed nil",
         "made-blind-nil": "a made blind nil"}
FOLDER = "hands"


#: The columns the examples are picked by (read one configuration at a time).
PICK_COLUMNS = ("config", "hand_id", "game_id", "seat", "duplicate", "side_contract",
                "side_taken", "nil", "blind", "tricks")


def _pick(frame: pd.DataFrame, kind: str):
    """The first row (in the frame's order) of the example ``kind`` with its rank (the worst
    set: the largest shortfall first), or ``(None, None)``."""
    frame = frame[~frame["duplicate"].to_numpy(dtype=bool)]
    if kind == "worst-set":
        shortfall = (frame["side_contract"].astype(np.int32)
                     - frame["side_taken"].astype(np.int32)).where(frame["side_contract"] > 0, 0)
        if not len(frame) or shortfall.max() <= 0:
            return None, None
        return frame.loc[shortfall.idxmax()], -int(shortfall.max())
    nil = frame["nil"].to_numpy(dtype=bool)
    blind = frame["blind"].to_numpy(dtype=bool)
    taken = frame["tricks"].to_numpy()
    mask = nil & ~blind & (taken > 0) if kind == "failed-nil" else nil & blind & (taken == 0)
    rows = np.flatnonzero(mask)
    return (frame.iloc[rows[0]], 0) if len(rows) else (None, None)


def example_picks(frame: pd.DataFrame, kinds) -> pd.DataFrame:
    """The example rows of ``kinds`` in the frame of one configuration (a per-configuration
    analysis: ``Context.per_config``), one row each with ``kind`` and ``rank`` (lower is
    worse); :func:`add_example_hands` takes the best of every configuration's."""
    rows = []
    for kind in kinds:
        row, rank = _pick(frame, kind)
        if row is not None:
            rows.append({"kind": kind, "rank": rank,
                         **{column: row[column] for column in PICK_COLUMNS}})
    return pd.DataFrame(rows, columns=["kind", "rank", *PICK_COLUMNS])


def _best(ctx: Context, picks: pd.DataFrame) -> dict:
    """``{kind: row}`` of :func:`_examples` from the :func:`example_picks` of every
    configuration."""
    order = {c.name: i for i, c in enumerate(ctx.experiment.configs)}
    best: dict = {}
    rows = sorted(picks.to_dict(orient="records"),
                  key=lambda row: order.get(str(row["config"]), len(order)))
    for row in rows:
        if str(row["config"]) not in order:
            continue
        kind = row["kind"]
        if kind not in best or row["rank"] < best[kind]["rank"]:
            best[kind] = row
    return best


def _examples(ctx: Context, mode: str, kinds) -> dict:
    """``{kind: row}``: each example's row over every configuration (not the number lines),
    read one configuration at a time in the experiment's order; the worst set is the largest
    shortfall of all (ties: the first configuration), the others the first configuration's
    first."""
    frames = ctx.config_frames(mode)
    order = [c.name for c in ctx.experiment.configs if c.name in frames.names()]
    best: dict = {}
    for name in order:
        frame = frames.frame(name, columns=PICK_COLUMNS)
        for kind in kinds:
            row, rank = _pick(frame, kind)
            if row is not None and (kind not in best or rank < best[kind][1]):
                best[kind] = (row, rank)
        del frame
    return {kind: found[0] for kind, found in best.items()}


def scored_hand(recovered) -> dict:
    """A replayed hand (``run.RecoveredHand``) as the scored hand-log fields ``draw_hand``
    reads."""
    run, rules = recovered.run, recovered.run.rules
    hands, players, sides = run.hands, rules.players, rules.n_sides
    texts = [card_text(card) for card in range(N_CARD_INDICES)]
    n_plays = players * rules.hand_size
    return {
        "rules": rules.to_spec(), "hand_id": recovered.hand_id, "game_id": recovered.game_id,
        "dealer": int(hands.dealer[0]),
        "hands": [[texts[c] for c in range(N_CARD_INDICES) if int(mask) >> c & 1]
                  for mask in hands.hands[0, :players]],
        "blind": [bool(b) for b in hands.blind[0, :players]],
        "bids": [int(b) for b in hands.bids[0, :players]],
        "bumped": [bool(b) for b in hands.bumped[0, :players]],
        "exchange": [[int(a), int(b), texts[c]] for a, b, c in hands.exchange[0] if a >= 0],
        "plays": [[int(s), texts[c]] for s, c in zip(hands.play_seats[0, :n_plays],
                                                     hands.plays[0, :n_plays], strict=True)],
        "tricks": [int(t) for t in hands.tricks[0, :players]],
        **{name: [int(v) for v in getattr(hands, name)[0, :sides]]
           for name in ("score_before", "bags_before", "score_delta", "bags_after")},
    }


def add_example_hands(ctx: Context, section: Section, kinds, picks=None) -> None:
    """Add the diagrams of the example ``kinds`` (keys of :data:`KINDS`) of the hands run (the
    games run without one) to ``section``, folded, each with a link to its text file.
    ``picks``: the :func:`example_picks` of every configuration where the section has them
    already (its own pass over the configurations), else they are found here."""
    mode = ctx.any_mode()
    found = _examples(ctx, mode, kinds) if picks is None else _best(ctx, picks)
    parts = []
    for kind in kinds:
        row = found.get(kind)
        if row is None:
            continue
        game = int(row["game_id"]) if mode == "games" else None
        where = (f"configuration {row['config']}, "
                 + (f"game {game}, hand {int(row['hand_id'])}" if game is not None
                    else f"hand {int(row['hand_id'])}") + f", seat {int(row['seat'])}")
        try:
            recovered = replay_hand(ctx.results / mode, int(row["hand_id"]),
                                    config=str(row["config"]), game=game)
        except SpadesError as error:  # (a run that no longer replays: say so, build the rest)
            parts.append(Markup("{} ({}) could not be replayed: {}").format(
                KINDS[kind], where, str(error)))
            continue
        text = draw_hand(scored_hand(recovered))
        folder = ctx.out / FOLDER
        folder.mkdir(exist_ok=True)
        name = f"{FOLDER}/{section.name}-{kind}.txt"
        (ctx.out / name).write_text(text, encoding="utf-8")
        ctx.files.append(name)
        parts.append(Markup('<details><summary>{} ({}; <a href="{}">as text</a>)</summary>'
                            "<pre>{}</pre></details>").format(KINDS[kind], where, name,
                                                              escape(text)))
    if parts:
        section.notes.append(Markup("Example hands, replayed from the run: ")
                             + Markup("").join(parts))
