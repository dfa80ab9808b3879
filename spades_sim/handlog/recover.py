"""One hand of a run on disk as a hand-log line (``spades-sim hand``): the hand is replayed and
checked against the dataset (``run.replay_hand``), then written as ``write.hand_objects``
writes a log's lines."""

from __future__ import annotations

from .write import hand_objects


def hand_record(out, hand: int, *, config: str | None = None, game: int | None = None,
                duplicate: bool = False) -> dict:
    """The hand-log object (``docs/hand-log.md``) of hand ``hand`` of the run in ``out``.

    Arguments as for :func:`spades_sim.run.replay_hand` (``game``: the game of a games run,
    ``hand`` then the hand's number within it). ``hand_id`` and ``game_id`` are the dataset's:
    the hand id (hands runs), or the hand's number within game ``game_id`` (games runs); seats
    are those the hand was played from (in the rotated copy of a duplicate run, the dataset's
    seat ``s`` played seat ``s - 1``). Raises a one-line ``RunError`` when the hand is not in
    the run or does not replay to the dataset's rows. Whether the dealt cards were checked (runs
    played with ``--cards``) is :func:`hand_record_checked`'s second value.
    """
    return hand_record_checked(out, hand, config=config, game=game, duplicate=duplicate)[0]


def hand_record_checked(out, hand: int, *, config: str | None = None, game: int | None = None,
                        duplicate: bool = False) -> tuple[dict, bool]:
    """``(hand-log object, cards checked)``: :func:`hand_record`, and whether the replayed deal
    was checked against the run's ``cards`` column (False for a run played without
    ``--cards``, where only the bids, tricks, dealer and scores were)."""
    from ..run import replay_hand

    recovered = replay_hand(out, hand, config=config, game=game, duplicate=duplicate)
    obj = next(hand_objects(recovered.run))
    obj["hand_id"] = recovered.hand_id
    return obj, recovered.cards_checked
