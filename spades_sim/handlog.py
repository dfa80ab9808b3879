"""Hand logs (JSON Lines, version 1): write a run's hands, read them back, check and score them.

The format is ``../shared/spec/hand-log.md``: one JSON object per hand. :func:`write_log` writes
the hands of an ``api.Run`` simulated with ``record_plays=True``; :func:`replay` checks every line
against its rules (deal, bids, exchange, every play) and scores it with the pure rule logic of
``reference.py``, never with the engine, so a log is an independent check of a run; and
:func:`replay_file` is the ``spades-sim replay FILE`` command.

Replay never raises on bad input: each bad line becomes one error text that begins ``line N``
(1-based), then ``(hand H)`` once the hand id is known, then the trick and seat where they matter
and what is wrong, e.g. ``line 3 (hand 17): trick 5: seat 2 played 4H but holds clubs and must
follow 7C``. Tricks are numbered from 1 in messages (as players count them), seats from 0 (as
the log stores them).

Where the spec leaves room, this reader decides: fields outside the format are refused (a typo
in an optional field would otherwise be silently ignored); blank lines are skipped; the first
leader, which the log does not store, is the dealer's left under ``first_leader = dealer_left``
and the seat of the first play otherwise (the 2C holder leading the 2C under
``two_of_clubs``); an exchange the rules call for must be in the log, in order (the nil bidder
passes all its cards, then the partner passes back), while the two sides' passes may
interleave.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from . import records
from .cards import N_CARD_INDICES, card_text, parse_card, suit_of, texts_of
from .reference import (
    TRUMP_MASK,
    blind_allowed,
    breaks_spades,
    deficit,
    exchange_size,
    is_misdeal,
    is_nil,
    legal_cards,
    score_hand,
    trick_winner,
)
from .rules import Rules, rules_from_spec

VERSION = 1
REQUIRED_FIELDS = ("v", "rules", "hand_id", "game_id", "dealer", "hands", "blind", "bids", "plays")
# Every field of the format, in the order of the spec's table (and of written lines).
FIELDS = ("v", "rules", "hand_id", "game_id", "dealer", "hands", "blind", "bids", "bumped",
          "exchange", "plays", "tricks", "score_before", "bags_before", "score_delta",
          "bags_after")
RESULT_FIELDS = ("tricks", "score_delta", "bags_after")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
TWO_OF_CLUBS = 0


# --- writing --------------------------------------------------------------------------------
def hand_objects(run):
    """The hand-log objects of a run, one dict per hand, fields in the spec's order.

    Parameters
    ----------
    run : api.Run
        A run simulated with ``record_plays=True`` (``run.games`` may be None).

    Yields
    ------
    dict
        ``v``, ``rules`` (``run.rules.to_spec()``), ids, dealer, hands as card texts (highest
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
            "hand_id": columns["hand_id"][row],
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
    if len(run.hands.hand_id) and not records.recorded(run.hands):
        raise ValueError("a hand log needs the plays: simulate with record_plays=True")


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


def write_log(path_or_file, run) -> int:
    """Write the hand log of ``run``: one JSON line per hand.

    Parameters
    ----------
    path_or_file : str, os.PathLike or text file
        A path is written atomically (a temporary file in the same folder, then a rename), so a
        reader never sees half a log; an open text file is written to as is.
    run : api.Run
        Simulated with ``record_plays=True``.

    Returns
    -------
    int
        The number of lines written.
    """
    _check_recorded(run)
    if hasattr(path_or_file, "write"):
        return _write_lines(path_or_file, run)
    path = Path(path_or_file)
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
    except BaseException:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        raise
    return count


# --- replay ---------------------------------------------------------------------------------
class _Bad(Exception):
    """One fault of a line: the message after the ``line N (hand H):`` prefix."""


def _show(value) -> str:
    """A JSON value as it appears in the input, cut short when long."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _json_type(value) -> str:
    """The JSON name of a parsed value's type."""
    if value is None:
        return "null"
    names = {bool: "boolean", int: "number", float: "number", str: "string", list: "array",
             dict: "object"}
    return names.get(type(value), type(value).__name__)


def _unique_fields(pairs) -> dict:
    """``json.loads`` hook: a field given twice is an error, not a silent last-one-wins."""
    obj = {}
    for name, value in pairs:
        if name in obj:
            raise ValueError(f"field {_show(name)} is given twice")
        obj[name] = value
    return obj


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_list(obj, name, length, per, minimum=None):
    """``obj[name]`` checked as a list of ``length`` ints (one ``per`` seat or side)."""
    values = obj[name]
    if not isinstance(values, list) or len(values) != length:
        got = f"{len(values)} entries" if isinstance(values, list) else _show(values)
        raise _Bad(f"{name}: expected a list of {length} integers (one per {per}), got {got}")
    for index, value in enumerate(values):
        if not _is_int(value):
            raise _Bad(f"{name}: {per} {index}: {_show(value)} is not an integer")
        if minimum is not None and value < minimum:
            raise _Bad(f"{name}: {per} {index}: {value} is below {minimum}")
    return list(values)


def _bool_list(obj, name, length):
    values = obj[name]
    if not isinstance(values, list) or len(values) != length:
        got = f"{len(values)} entries" if isinstance(values, list) else _show(values)
        raise _Bad(f"{name}: expected a list of {length} booleans (one per seat), got {got}")
    for seat, value in enumerate(values):
        if not isinstance(value, bool):
            raise _Bad(f"{name}: seat {seat}: {_show(value)} is not true or false")
    return list(values)


def _card(value, where: str) -> int:
    try:
        return parse_card(value)
    except ValueError:
        raise _Bad(f"{where}unknown card {_show(value)}") from None


_RULES_CACHE: dict[str, Rules | str] = {}


def _rules(spec) -> Rules:
    key = json.dumps(spec, sort_keys=True)
    if key not in _RULES_CACHE:
        try:
            _RULES_CACHE[key] = rules_from_spec(spec)
        except Exception as error:  # RulesError, or a TypeError from a malformed object
            message = str(error)
            _RULES_CACHE[key] = message if message.startswith("rule") else f"rules: {message}"
    found = _RULES_CACHE[key]
    if isinstance(found, str):
        raise _Bad(found)
    return found


def _check_hands(rules: Rules, obj) -> list[int]:
    """The dealt hands as bitboards: known cards, none twice, the right count, in the deck."""
    players, size = rules.players, rules.hand_size
    hands = obj["hands"]
    if not isinstance(hands, list) or len(hands) != players:
        got = f"{len(hands)} entries" if isinstance(hands, list) else _show(hands)
        raise _Bad(f"hands: expected {players} lists of cards (one per seat), got {got}")
    owner: dict[int, int] = {}
    masks = []
    for seat, cards in enumerate(hands):
        if not isinstance(cards, list):
            raise _Bad(f"hands: seat {seat}: expected a list of cards, got {_show(cards)}")
        mask = 0
        for value in cards:
            card = _card(value, f"hands: seat {seat}: ")
            if card in owner:
                where = (f"twice to seat {seat}" if owner[card] == seat
                         else f"to seats {owner[card]} and {seat}")
                raise _Bad(f"hands: {card_text(card)} is dealt twice ({where})")
            owner[card] = seat
            mask |= 1 << card
        masks.append(mask)
    for seat, mask in enumerate(masks):
        if mask.bit_count() != size:
            raise _Bad(f"hands: seat {seat} holds {mask.bit_count()} cards; expected {size}")
    for seat, mask in enumerate(masks):
        outside = mask & ~rules.deck_mask
        if outside:
            raise _Bad(f"hands: seat {seat} holds {', '.join(texts_of(outside))}, not in the "
                       f"deck of these rules")
    if rules.misdeal_redeal:
        for seat, mask in enumerate(masks):
            if is_misdeal(mask):
                lacks = "no spade" if not mask & TRUMP_MASK else "no K, Q or J"
                raise _Bad(f"hands: seat {seat} holds {lacks}: a misdeal, which must be "
                           f"redealt (misdeal_redeal)")
    return masks


def _check_bids(rules: Rules, obj, dealer, blind, bids, bumped, score_before) -> None:
    """Bid range, blind bids and their deficits, bumps, and the bid constraints.

    The deficits are read from ``score_before`` (rules.md: a blind bid is allowed only when the
    bidder's side trails the leading other side by at least the field's ``..._min_deficit``; a
    minimum of 0 always allows it). The constraints apply to the bids before any bump.
    """
    size = rules.hand_size
    for seat in range(rules.players):
        bid = bids[seat]
        if not 0 <= bid <= size:
            raise _Bad(f"bids: seat {seat} bid {bid}; allowed 0..{size}")
        if blind[seat]:
            if bid == 0:
                kind, allowed, deficit_field = "blind nil", rules.blind_nil, "blind_nil_min_deficit"
            else:
                kind, allowed, deficit_field = (f"the blind bid {bid}", rules.blind_bids,
                                                "blind_bid_min_deficit")
            if not allowed:
                off = "blind_nil" if bid == 0 else "blind_bids"
                raise _Bad(f"bids: seat {seat} bid {kind}, which these rules do not allow "
                           f"({off} is off)")
            if bid > 0 and bid > rules.blind_bid_max:
                raise _Bad(f"bids: seat {seat} bid {kind}; allowed blind bids "
                           f"1..{rules.blind_bid_max}")
            needed = getattr(rules, deficit_field)
            behind = deficit(rules, seat, score_before)
            if not blind_allowed(needed, behind):
                standing = f"trails by {behind}" if behind >= 0 else f"leads by {-behind}"
                raise _Bad(f"bids: seat {seat} bid {kind} but its side {standing}; it must "
                           f"trail by at least {needed} ({deficit_field})")
        if bumped[seat]:
            if not rules.bid_bump:
                raise _Bad(f"bumped: seat {seat} raised its bid, which these rules do not "
                           f"allow (bid_bump is off)")
            if blind[seat] or bid == 0 or is_nil(rules, bid - 1, False):
                raise _Bad(f"bumped: seat {seat} raised a nil or blind bid; only a non-nil, "
                           f"non-blind bid may be bumped")
    before_bump = [bid - int(raised) for bid, raised in zip(bids, bumped, strict=True)]
    if rules.bids_total_not_tricks and sum(before_bump) == size:
        raise _Bad(f"bids: the bids (before any bump) total {size}, the number of tricks; the "
                   f"dealer (seat {dealer}) bids last and may not make that total "
                   f"(bids_total_not_tricks)")
    if rules.min_team_bid and rules.partnership:
        for team in (0, 1):
            pair = (team, team + 2)
            if any(is_nil(rules, bids[seat], blind[seat]) for seat in pair):
                continue
            total = before_bump[team] + before_bump[team + 2]
            if total < rules.min_team_bid:
                raise _Bad(f"bids: team {team} bid {total} in all, below min_team_bid "
                           f"{rules.min_team_bid} (and neither partner bid nil)")


def _exchanges_due(rules: Rules, bids, blind) -> dict[int, tuple[int, int, int, str]]:
    """Per team: ``(passer, partner, k, kind)`` of the exchange its nil bid calls for.

    ``reference.exchange_size``: a blind nil exchanges even when the partner bid a plain nil;
    two blind nils, or two plain nils, never exchange; at most one seat of a team passes first.
    """
    due = {}
    for seat in range(rules.players):
        k = exchange_size(rules, seat, bids, blind)
        if k:
            kind = "blind nil" if blind[seat] else "nil"
            due[rules.side_of(seat)] = (seat, (seat + 2) % 4, k, kind)
    return due


def _apply_exchange(rules: Rules, obj, bids, blind, hands: list[int]) -> list[int]:
    """Check the ``exchange`` entries against the rules and apply them to copies of ``hands``."""
    entries = obj.get("exchange", [])
    if not isinstance(entries, list):
        raise _Bad(f"exchange: expected a list of [from_seat, to_seat, card], got {_show(entries)}")
    hands = list(hands)
    due = _exchanges_due(rules, bids, blind)
    passed = {team: [0, 0] for team in due}  # cards passed out, cards passed back
    for number, entry in enumerate(entries, start=1):
        where = f"exchange: entry {number}: "
        if (not isinstance(entry, list) or len(entry) != 3 or not _is_int(entry[0])
                or not _is_int(entry[1])):
            raise _Bad(f"{where}expected [from_seat, to_seat, card], got {_show(entry)}")
        sender, receiver = entry[0], entry[1]
        for seat in (sender, receiver):
            if not 0 <= seat < rules.players:
                raise _Bad(f"{where}{seat} is not a seat (0..{rules.players - 1})")
        card = _card(entry[2], where)
        team = rules.side_of(sender)
        if team not in due:
            raise _Bad(f"{where}seat {sender} passes a card, but no exchange is due for its side")
        passer, partner, k, _ = due[team]
        counts = passed[team]
        if counts[0] < k:
            expected, phase = (passer, partner), 0
        elif counts[1] < k:
            expected, phase = (partner, passer), 1
        else:
            raise _Bad(f"{where}seat {sender} passes a card after the {k}-card exchange of its "
                       f"side is complete")
        if (sender, receiver) != expected:
            raise _Bad(f"{where}seat {sender} passes to seat {receiver}; seat {expected[0]} is "
                       f"to pass to seat {expected[1]}")
        if not hands[sender] >> card & 1:
            raise _Bad(f"{where}seat {sender} passes {card_text(card)} but does not hold it")
        hands[sender] &= ~(1 << card)
        hands[receiver] |= 1 << card
        counts[phase] += 1
    for team, (passer, partner, k, kind) in due.items():
        out, back = passed[team]
        if out != k or back != k:
            raise _Bad(f"exchange: seat {passer} bid {kind}, so it passes {k} cards to seat "
                       f"{partner} and gets {k} back; the log has {out} passed and {back} back")
    return hands


def _play_entry(entry, players: int, trick: int, number: int) -> tuple[int, int]:
    where = f"trick {trick}: play {number}: "
    if not isinstance(entry, list) or len(entry) != 2 or not _is_int(entry[0]):
        raise _Bad(f"{where}expected [seat, card], got {_show(entry)}")
    if not 0 <= entry[0] < players:
        raise _Bad(f"{where}{entry[0]} is not a seat (0..{players - 1})")
    return entry[0], _card(entry[1], f"trick {trick}: seat {entry[0]} played an ")


def _illegal(rules: Rules, trick: int, seat: int, card: int, lead_card: int | None) -> str:
    text = card_text(card)
    if lead_card is not None:
        suit = suit_of(lead_card)
        return (f"trick {trick}: seat {seat} played {text} but holds {SUIT_NAMES[suit]} and "
                f"must follow {card_text(lead_card)}")
    if rules.first_leader == "two_of_clubs" and trick == 1:
        return f"trick 1: seat {seat} led {text} but must lead 2C (first_leader two_of_clubs)"
    if rules.spades_lead == "after_first_trick":
        return (f"trick {trick}: seat {seat} led {text} in the first trick while holding other "
                f"suits (spades_lead after_first_trick)")
    return (f"trick {trick}: seat {seat} led {text} before spades are broken while holding "
            f"other suits")


def _play(rules: Rules, obj, dealer: int, hands: list[int]) -> list[int]:
    """Check every play in order; return the tricks won per seat."""
    players, size = rules.players, rules.hand_size
    plays = obj["plays"]
    n_plays = players * size
    if not isinstance(plays, list) or len(plays) != n_plays:
        got = f"{len(plays)}" if isinstance(plays, list) else _show(plays)
        raise _Bad(f"plays: expected {n_plays} plays ({size} tricks of {players}), got {got}")
    hands = list(hands)
    played_in: dict[int, int] = {}
    tricks = [0] * players
    spades_broken = False
    leader = -1
    for trick_index in range(size):
        trick = trick_index + 1
        lead_card = None
        cards = []
        for position in range(players):
            number = trick_index * players + position + 1
            seat, card = _play_entry(plays[number - 1], players, trick, number)
            if trick_index == 0 and position == 0:
                leader = _first_leader(rules, dealer, seat, hands)
            expected = (leader + position) % players
            if seat != expected:
                if position > 0:
                    raise _Bad(f"trick {trick}: seat {seat} played out of turn; seat "
                               f"{expected} is to play")
                if trick_index > 0:
                    raise _Bad(f"trick {trick}: seat {seat} led out of turn; seat {expected} "
                               f"won trick {trick - 1} and leads")
                raise _Bad(f"trick 1: seat {seat} led out of turn; seat {expected}, left of "
                           f"the dealer (seat {dealer}), leads")
            hand = hands[seat]
            if not hand >> card & 1:
                earlier = (f" (it was played in trick {played_in[card]})"
                           if card in played_in else "")
                raise _Bad(f"trick {trick}: seat {seat} played {card_text(card)} but does not "
                           f"hold it{earlier}")
            led_suit = None if lead_card is None else suit_of(lead_card)
            if not legal_cards(rules, hand, led_suit, spades_broken, trick_index) >> card & 1:
                raise _Bad(_illegal(rules, trick, seat, card, lead_card))
            if breaks_spades(rules, card, position, led_suit, hand):
                spades_broken = True
            hands[seat] = hand & ~(1 << card)
            played_in[card] = trick
            cards.append(card)
            if position == 0:
                lead_card = card
        winner = (leader + trick_winner(cards)) % players
        tricks[winner] += 1
        leader = winner
    return tricks


def _first_leader(rules: Rules, dealer: int, seat: int, hands: list[int]) -> int:
    """Who leads trick 1; the log does not store it (see the module docstring)."""
    if rules.first_leader == "dealer_left":
        return (dealer + 1) % rules.players
    if rules.first_leader == "two_of_clubs":
        holder = next((other for other, hand in enumerate(hands) if hand & 1), seat)
        if holder != seat:
            raise _Bad(f"trick 1: seat {seat} led, but seat {holder} holds 2C and must lead it "
                       f"(first_leader two_of_clubs)")
    return seat  # random: the first play shows who was drawn


def _check(obj) -> dict:
    """Check and score one parsed hand-log object; raise ``_Bad`` on the first fault."""
    for name in REQUIRED_FIELDS:
        if name not in obj:
            raise _Bad(f'missing field "{name}"')
    for name in obj:
        if name not in FIELDS:
            raise _Bad(f"unknown field {_show(name)}; the fields are {', '.join(FIELDS)}")
    if not _is_int(obj["v"]) or obj["v"] != VERSION:
        raise _Bad(f"v: {_show(obj['v'])} is not a supported version; expected {VERSION}")
    rules = _rules(obj["rules"])
    players, n_sides = rules.players, rules.n_sides
    if obj["game_id"] is not None and not _is_int(obj["game_id"]):
        raise _Bad(f"game_id: {_show(obj['game_id'])} is neither an integer nor null")
    dealer = obj["dealer"]
    if not _is_int(dealer) or not 0 <= dealer < players:
        raise _Bad(f"dealer: {_show(dealer)} is not a seat (0..{players - 1})")
    zeros = [0] * n_sides
    score_before = _int_list(obj, "score_before", n_sides, "side") if "score_before" in obj \
        else zeros
    bags_before = _int_list(obj, "bags_before", n_sides, "side", minimum=0) \
        if "bags_before" in obj else zeros
    if rules.bag_limit > 0:
        for side, bags in enumerate(bags_before):
            if bags >= rules.bag_limit:
                raise _Bad(f"bags_before: side {side} has {bags} bags, at or above the bag "
                           f"limit {rules.bag_limit}")
    dealt = _check_hands(rules, obj)
    blind = _bool_list(obj, "blind", players)
    bids = _int_list(obj, "bids", players, "seat")
    bumped = _bool_list(obj, "bumped", players) if "bumped" in obj else [False] * players
    _check_bids(rules, obj, dealer, blind, bids, bumped, score_before)
    hands = _apply_exchange(rules, obj, bids, blind, dealt)
    tricks = _play(rules, obj, dealer, hands)
    score_delta, bags_after = score_hand(rules, bids, blind, tricks, bags_before)
    computed = {"tricks": tricks, "score_delta": score_delta, "bags_after": bags_after}
    for name, per, length in (("tricks", "seat", players), ("score_delta", "side", n_sides),
                              ("bags_after", "side", n_sides)):
        if name in obj:
            given = _int_list(obj, name, length, per)
            if given != computed[name]:
                source = "the plays give" if name == "tricks" else "the rules give"
                raise _Bad(f"inconsistent results: {name} is {given} but {source} "
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
            obj = json.loads(text, object_pairs_hook=_unique_fields)
        except json.JSONDecodeError as error:
            return f"{prefix}: not valid JSON: {error.msg} at column {error.colno}"
        except (ValueError, RecursionError) as error:
            return f"{prefix}: not valid JSON: {error}"
        if not isinstance(obj, dict):
            shown = "" if obj is None else f" {_show(obj)}"
            return f"{prefix}: expected a JSON object, got {_json_type(obj)}{shown}"
        if "hand_id" not in obj:
            return f'{prefix}: missing field "hand_id"'
        if not _is_int(obj["hand_id"]):
            return f"{prefix}: hand_id: {_show(obj['hand_id'])} is not an integer"
        prefix = f"{prefix} (hand {obj['hand_id']})"
        return _check(obj)
    except _Bad as bad:
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
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    status = 0
    try:
        stream = sys.stdin.buffer if str(path) == "-" else open(path, "rb")
    except OSError as error:
        err.write(f"{path}: cannot read: {error.strerror or error}\n")
        return 1
    try:
        for _, result in iter_replay(stream):
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


__all__ = ["FIELDS", "REQUIRED_FIELDS", "VERSION", "hand_objects", "iter_replay", "replay",
           "replay_file", "replay_line", "write_log"]
