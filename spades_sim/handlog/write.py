"""Writing hand logs: one JSON object per hand of a run played with ``record_plays=True``."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

from ..core import schema
from ..core.cards import (
    N_CARD_INDICES,
    card_text,
)
from ..core.errors import HandLogError
from .format import VERSION


def hand_objects(run):
    """The hand-log objects of a run, one dict per hand, fields in the spec's order.

    Parameters
    ----------
    run : run.Run
        A run played with ``record_plays=True`` (``run.games`` may be None).

    Yields
    ------
    dict
        ``v``, ``rules`` (``run.rules.to_spec()``), ids (in whole games ``hand_id`` is the
        hand's place in the run, unique as the format asks), dealer, hands as card texts (highest
        first), blind, bids, ``bumped`` (only when a bid was bumped), ``exchange`` (only when
        cards were passed), plays as ``[seat, card]``, and every result field.
    """
    _check_recorded(run)
    hands, rules = run.hands, run.rules
    n_rows = len(hands.hand_id)
    spec = rules.to_spec()
    players, n_sides = rules.players, rules.n_sides
    n_plays = players * rules.hand_size
    texts = [card_text(card) for card in range(N_CARD_INDICES)]
    # Whole columns to Python lists once: per-element numpy indexing is the slow part.
    columns = {name: getattr(hands, name).tolist() for name in hands._fields}
    for row in range(n_rows):
        game_id = columns["game_id"][row]
        obj = {
            "v": VERSION,
            "rules": spec,
            "hand_id": columns["hand_id"][row] if game_id < 0 else row,
            "game_id": None if game_id < 0 else game_id,
            "dealer": columns["dealer"][row],
            "hands": [_hand_texts(mask, texts) for mask in columns["hands"][row][:players]],
            "blind": [bool(flag) for flag in columns["blind"][row][:players]],
            "bids": columns["bids"][row][:players],
        }
        bumped = [bool(flag) for flag in columns["bumped"][row][:players]]
        if any(bumped):
            obj["bumped"] = bumped
        exchange = [[sender, receiver, texts[card]]
                    for sender, receiver, card in columns["exchange"][row] if sender >= 0]
        if exchange:
            obj["exchange"] = exchange
        obj["plays"] = [[seat, texts[card]] for seat, card in
                        zip(columns["play_seats"][row][:n_plays], columns["plays"][row][:n_plays],
                            strict=True)]
        obj["tricks"] = columns["tricks"][row][:players]
        for name in ("score_before", "bags_before", "score_delta", "bags_after"):
            obj[name] = columns[name][row][:n_sides]
        yield obj


def _check_recorded(run) -> None:
    if len(run.hands.hand_id) and not schema.recorded(run.hands):
        raise HandLogError("a hand log needs the plays: simulate with record_plays=True")


def _hand_texts(mask: int, texts: list[str]) -> list[str]:
    """Card texts of a bitboard, highest first (as ``cards.texts_of``, with a lookup table)."""
    result = []
    while mask:
        top = mask.bit_length() - 1
        result.append(texts[top])
        mask ^= 1 << top
    return result


def _write_lines(stream, run) -> int:
    count = 0
    for obj in hand_objects(run):
        stream.write(json.dumps(obj) + "\n")
        count += 1
    return count


_KINDS = (  # what a path that is not a regular file is, for the refusal
    (stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
)


def check_log_path(path) -> Path:
    """The path a hand log may be written to: absent, or a regular file (replaced whole), in an
    existing folder; anything else (a symbolic link, a FIFO, a device, a directory) is refused
    with a :class:`HandLogError`, since the atomic write would replace it by a regular file.
    Call it before playing, so that a bad path is refused before the hands are played."""
    if not str(os.fspath(path)).strip():
        raise HandLogError("hand log: the path is empty; give a file name (or - for standard "
                           "output on the command line)")
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        folder = path.parent
        if not folder.is_dir():
            raise HandLogError(f"hand log {path}: the folder {folder} does not exist")
        return path
    except OSError as error:
        raise HandLogError(f"hand log {path}: {error.strerror or error}")
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise HandLogError(f"hand log {path}: is {kind}; a hand log is written to a regular "
                           f"file only (replaced whole), or to standard output with --log -")
    return path


def write_log(path_or_file, run) -> int:
    """Write the hand log of ``run``: one JSON line per hand.

    Parameters
    ----------
    path_or_file : str, os.PathLike or text file
        A path is written atomically (a temporary file in the same folder, then a rename), so a
        reader never sees half a log; it must be absent or a regular file
        (:func:`check_log_path`: a symbolic link, a FIFO, a device or a directory is refused,
        never replaced). An open text file (``sys.stdout``) is written to as is.
    run : run.Run
        Played with ``record_plays=True``.

    Returns
    -------
    int
        The number of lines written.
    """
    _check_recorded(run)
    if hasattr(path_or_file, "write"):
        return _write_lines(path_or_file, run)
    path = check_log_path(path_or_file)
    handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            # mkstemp makes the file private (0600); give the log the mode open() would.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temp_name, 0o666 & ~umask)
            count = _write_lines(stream, run)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp_name, path)
    except BaseException as error:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        if isinstance(error, OSError):  # (a full disk: the write itself names no file)
            raise HandLogError(f"hand log {path}: cannot write: {error.strerror or error}")
        raise
    return count
