"""Replaying hand logs: check and score every line, report each bad line in one line."""

from __future__ import annotations

import json
import sys

from ..core.scoring import score_hand
from .checks import (
    Bad,
    apply_exchange,
    bool_list,
    check_before,
    check_bids,
    check_hands,
    check_plays,
    int_list,
    is_int,
    json_type,
    parse_rules,
    show,
    unique_fields,
)
from .format import FIELDS, REQUIRED_FIELDS, VERSION

# Hand and game ids are int64 in the record arrays and the tidy frame.
MAX_ID = 2**63 - 1


def _check(obj) -> dict:
    """Check and score one parsed hand-log object; raise ``Bad`` on the first fault."""
    for name in REQUIRED_FIELDS:
        if name not in obj:
            raise Bad(f'missing field "{name}"')
    for name in obj:
        if name not in FIELDS:
            raise Bad(f"unknown field {show(name)}; the fields are {', '.join(FIELDS)}")
    if not is_int(obj["v"]) or obj["v"] != VERSION:
        raise Bad(f"v: {show(obj['v'])} is not a supported version; expected {VERSION}")
    rules = parse_rules(obj["rules"])
    players, n_sides = rules.players, rules.n_sides
    if obj["game_id"] is not None and not is_int(obj["game_id"]):
        raise Bad(f"game_id: {show(obj['game_id'])} is neither an integer nor null")
    if obj["game_id"] is not None and not 0 <= obj["game_id"] <= MAX_ID:
        raise Bad(f"game_id: {show(obj['game_id'])} is out of range; allowed: null or 0..{MAX_ID}")
    dealer = obj["dealer"]
    if not is_int(dealer) or not 0 <= dealer < players:
        raise Bad(f"dealer: {show(dealer)} is not a seat (0..{players - 1})")
    zeros = [0] * n_sides
    score_before = int_list(obj, "score_before", n_sides, "side") if "score_before" in obj \
        else zeros
    bags_before = int_list(obj, "bags_before", n_sides, "side", minimum=0) \
        if "bags_before" in obj else zeros
    check_before(rules, score_before, bags_before)
    dealt = check_hands(rules, obj)
    blind = bool_list(obj, "blind", players)
    bids = int_list(obj, "bids", players, "seat")
    bumped = bool_list(obj, "bumped", players) if "bumped" in obj else [False] * players
    check_bids(rules, obj, dealer, blind, bids, bumped, score_before)
    hands = apply_exchange(rules, obj, bids, blind, dealt)
    tricks = check_plays(rules, obj, dealer, hands)
    score_delta, bags_after = score_hand(rules, bids, blind, tricks, bags_before)
    computed = {"tricks": tricks, "score_delta": score_delta, "bags_after": bags_after}
    for name, per, length in (("tricks", "seat", players), ("score_delta", "side", n_sides),
                              ("bags_after", "side", n_sides)):
        if name in obj:
            given = int_list(obj, name, length, per)
            if given != computed[name]:
                source = "the plays give" if name == "tricks" else "the rules give"
                raise Bad(f"inconsistent results: {name} is {show(given)} but {source} "
                           f"{computed[name]}")
    scored = {**obj, "score_before": score_before, "bags_before": bags_before, **computed}
    return {name: scored[name] for name in FIELDS if name in scored}


def replay_line(line_number: int, text) -> dict | str:
    """Check and score one hand-log line.

    Parameters
    ----------
    line_number : int
        1-based number of the line in its file (for the message).
    text : str or bytes
        The line.

    Returns
    -------
    dict or str
        The scored object (the input with ``score_before``/``bags_before`` defaulted and
        ``tricks``, ``score_delta``, ``bags_after`` filled, fields in the spec's order), or one
        error line ``line N (hand H): ...`` (``line N: ...`` before the hand id is known).
    """
    result = _replay_line(line_number, text)
    if isinstance(result, str):
        return " ".join(result.splitlines())  # an error is always exactly one line
    return result


def _replay_line(line_number: int, text) -> dict | str:
    prefix = f"line {line_number}"
    try:
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as error:
                return f"{prefix}: not valid UTF-8 ({error.reason} at byte {error.start})"
        text = text.rstrip("\r\n")  # a line read from a file keeps its end of line
        try:
            obj = json.loads(text, object_pairs_hook=unique_fields)
        except json.JSONDecodeError as error:
            return f"{prefix}: not valid JSON: {error.msg} at column {error.colno}"
        except (ValueError, RecursionError) as error:
            return f"{prefix}: not valid JSON: {error}"
        if not isinstance(obj, dict):
            shown = "" if obj is None else f" {show(obj)}"
            return f"{prefix}: expected a JSON object, got {json_type(obj)}{shown}"
        if "hand_id" not in obj:
            return f'{prefix}: missing field "hand_id"'
        if not is_int(obj["hand_id"]):
            return f"{prefix}: hand_id: {show(obj['hand_id'])} is not an integer"
        if not 0 <= obj["hand_id"] <= MAX_ID:
            return (f"{prefix}: hand_id: {show(obj['hand_id'])} is out of range; allowed: "
                    f"0..{MAX_ID}")
        prefix = f"{prefix} (hand {obj['hand_id']})"
        return _check(obj)
    except Bad as bad:
        return f"{prefix}: {bad}"
    except Exception as error:  # a bug here must still not crash a replay of many lines
        return f"{prefix}: internal error while checking this hand: {type(error).__name__}: " \
               f"{error}"


def iter_replay(lines):
    """Yield ``(line_number, result)`` for each line of a hand log, as it is read.

    ``result`` is as in :func:`replay_line`, or None for a blank line (skipped).
    """
    for number, text in enumerate(lines, start=1):
        blank = not (text.strip() if isinstance(text, (str, bytes)) else True)
        yield number, None if blank else replay_line(number, text)


def replay(lines) -> list:
    """Check and score every line of a hand log.

    Parameters
    ----------
    lines : iterable of str or bytes
        The lines of the log (a file object, ``text.splitlines()``...).

    Returns
    -------
    list
        One entry per input line: the scored object (dict), an error line (str) starting with
        ``line N``, or None for a blank line (skipped).
    """
    return [result for _, result in iter_replay(lines)]


def replay_file(path, out=None, err=None) -> int:
    """The ``spades-sim replay FILE`` command: scored objects to ``out``, errors to ``err``.

    Lines are read as bytes and streamed (a line that is not UTF-8 is one bad line; a large log
    is never held in memory).

    Parameters
    ----------
    path : str or os.PathLike
        The log; ``"-"`` reads standard input.
    out, err : text files
        Default: standard output and standard error.

    Returns
    -------
    int
        The exit status: 1 if any line was bad (or the file cannot be read), else 0.
    """
    return answer_file(path, iter_replay, out, err)


def answer_file(path, answers, out=None, err=None) -> int:
    """Stream a hand log through ``answers`` (:func:`iter_replay`, or one like it: it yields
    ``(line number, result)``, the result an object, an error line or None for a blank line):
    objects as JSON lines to ``out``, errors to ``err``; the exit status is 1 if any line was
    bad (or the file cannot be read), else 0."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    status = 0
    try:
        stream = sys.stdin.buffer if str(path) == "-" else open(path, "rb")
    except OSError as error:
        err.write(f"{path}: cannot read: {error.strerror or error}\n")
        return 1
    try:
        for _, result in answers(stream):
            if isinstance(result, str):
                err.write(result + "\n")
                status = 1
            elif result is not None:
                out.write(json.dumps(result) + "\n")
    except OSError as error:  # a read error part way through
        err.write(f"{path}: cannot read: {error.strerror or error}\n")
        status = 1
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    return status
