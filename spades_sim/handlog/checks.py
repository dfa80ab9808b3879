"""The checks of one hand-log line: its fields, the deal, the bids, the exchanges, the plays.

Each check raises :class:`Bad` with the message after the ``line N (hand H):`` prefix.
"""

from __future__ import annotations

import json

from ..core.bidding import blind_allowed, deficit, exchange_size, is_misdeal, is_nil
from ..core.cards import (
    TRUMP_MASK,
    TWO_OF_CLUBS,
    card_text,
    parse_card,
    suit_of,
    texts_of,
)
from ..core.rules import Rules, rules_from_spec, show_int
from ..core.tricks import breaks_spades, legal_cards, trick_winner
from .format import SUIT_NAMES


class Bad(Exception):
    """One fault of a line: the message after the ``line N (hand H):`` prefix."""


def show(value) -> str:
    """A JSON value as it appears in the input, cut short when long."""
    if is_int(value) and abs(value) >= 10**40:
        return show_int(value)  # (str() refuses ints of more than 4300 digits)
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def json_type(value) -> str:
    """The JSON name of a parsed value's type."""
    if value is None:
        return "null"
    names = {bool: "boolean", int: "number", float: "number", str: "string", list: "array",
             dict: "object"}
    return names.get(type(value), type(value).__name__)


def unique_fields(pairs) -> dict:
    """``json.loads`` hook: a field given twice is an error, not a silent last-one-wins."""
    obj = {}
    for name, value in pairs:
        if name in obj:
            raise ValueError(f"field {show(name)} is given twice")
        obj[name] = value
    return obj


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def int_list(obj, name, length, per, minimum=None):
    """``obj[name]`` checked as a list of ``length`` ints (one ``per`` seat or side)."""
    values = obj[name]
    if not isinstance(values, list) or len(values) != length:
        got = f"{len(values)} entries" if isinstance(values, list) else show(values)
        raise Bad(f"{name}: expected a list of {length} integers (one per {per}), got {got}")
    for index, value in enumerate(values):
        if not is_int(value):
            raise Bad(f"{name}: {per} {index}: {show(value)} is not an integer")
        if minimum is not None and value < minimum:
            raise Bad(f"{name}: {per} {index}: {value} is below {minimum}")
    return list(values)


def check_before(rules: Rules, score_before, bags_before) -> None:
    """Scores and bag counters before the hand that a game of these rules can reach: at most
    ``hand_cap - 1`` hands come before a game's last, each moving a side's score by at most
    ``rules.max_hand_points`` and adding at most a bag per trick; a counter stays below a
    non-zero ``bag_limit``."""
    n_hands = rules.hand_cap - 1
    if rules.bag_limit > 0:
        for side, bags in enumerate(bags_before):
            if bags >= rules.bag_limit:
                raise Bad(f"bags_before: side {side} has {show(bags)} bags, at or above the bag "
                           f"limit {rules.bag_limit}")
    most = rules.max_bags(n_hands)
    for side, bags in enumerate(bags_before):
        if bags > most:
            raise Bad(f"bags_before: side {side}: {show(bags)} could not arise; allowed under "
                       f"these rules: 0..{most} (at most {rules.hand_size} bags a hand in the "
                       f"{n_hands} hands before a game's last, hand_cap {rules.hand_cap})")
    most = rules.max_score(n_hands)
    for side, score in enumerate(score_before):
        if not -most <= score <= most:
            raise Bad(f"score_before: side {side}: {show(score)} could not arise; allowed under "
                       f"these rules: {-most}..{most} (at most {rules.max_hand_points} points a "
                       f"hand in the {n_hands} hands before a game's last, hand_cap "
                       f"{rules.hand_cap})")


def bool_list(obj, name, length):
    values = obj[name]
    if not isinstance(values, list) or len(values) != length:
        got = f"{len(values)} entries" if isinstance(values, list) else show(values)
        raise Bad(f"{name}: expected a list of {length} booleans (one per seat), got {got}")
    for seat, value in enumerate(values):
        if not isinstance(value, bool):
            raise Bad(f"{name}: seat {seat}: {show(value)} is not true or false")
    return list(values)


def _card(value, where: str) -> int:
    try:
        return parse_card(value)
    except ValueError:
        raise Bad(f"{where}unknown card {show(value)}") from None


_RULES_CACHE: dict[str, Rules | str] = {}


def parse_rules(spec) -> Rules:
    key = json.dumps(spec, sort_keys=True)
    if key not in _RULES_CACHE:
        try:
            _RULES_CACHE[key] = rules_from_spec(spec)
        except Exception as error:  # RulesError, or a TypeError from a malformed object
            message = str(error)
            _RULES_CACHE[key] = message if message.startswith("rule") else f"rules: {message}"
    found = _RULES_CACHE[key]
    if isinstance(found, str):
        raise Bad(found)
    return found


def check_hands(rules: Rules, obj) -> list[int]:
    """The dealt hands as bitboards: known cards, none twice, the right count, in the deck."""
    players, size = rules.players, rules.hand_size
    hands = obj["hands"]
    if not isinstance(hands, list) or len(hands) != players:
        got = f"{len(hands)} entries" if isinstance(hands, list) else show(hands)
        raise Bad(f"hands: expected {players} lists of cards (one per seat), got {got}")
    owner: dict[int, int] = {}
    masks = []
    for seat, cards in enumerate(hands):
        if not isinstance(cards, list):
            raise Bad(f"hands: seat {seat}: expected a list of cards, got {show(cards)}")
        mask = 0
        for value in cards:
            card = _card(value, f"hands: seat {seat}: ")
            if card in owner:
                where = (f"twice to seat {seat}" if owner[card] == seat
                         else f"to seats {owner[card]} and {seat}")
                raise Bad(f"hands: {card_text(card)} is dealt twice ({where})")
            owner[card] = seat
            mask |= 1 << card
        masks.append(mask)
    for seat, mask in enumerate(masks):
        if mask.bit_count() != size:
            raise Bad(f"hands: seat {seat} holds {mask.bit_count()} cards; expected {size}")
    for seat, mask in enumerate(masks):
        outside = mask & ~rules.deck_mask
        if outside:
            raise Bad(f"hands: seat {seat} holds {', '.join(texts_of(outside))}, not in the "
                       f"deck of these rules")
    if rules.misdeal_redeal:
        for seat, mask in enumerate(masks):
            if is_misdeal(mask):
                lacks = "no spade" if not mask & TRUMP_MASK else "no K, Q or J"
                raise Bad(f"hands: seat {seat} holds {lacks}: a misdeal, which must be "
                           f"redealt (misdeal_redeal)")
    return masks


def check_bids(rules: Rules, obj, dealer, blind, bids, bumped, score_before) -> None:
    """Bid range, blind bids and their deficits, bumps, and the bid constraints.

    The deficits are read from ``score_before`` (rules.md: a blind bid is allowed only when the
    bidder's side trails the leading other side by at least the field's ``..._min_deficit``; a
    minimum of 0 always allows it). The constraints apply to the bids before any bump.
    """
    size = rules.hand_size
    for seat in range(rules.players):
        bid = bids[seat]
        if not 0 <= bid <= size:
            raise Bad(f"bids: seat {seat} bid {bid}; allowed 0..{size}")
        if blind[seat]:
            if bid == 0:
                kind, allowed, deficit_field = "blind nil", rules.blind_nil, "blind_nil_min_deficit"
            else:
                kind, allowed, deficit_field = (f"the blind bid {bid}", rules.blind_bids,
                                                "blind_bid_min_deficit")
            if not allowed:
                off = "blind_nil" if bid == 0 else "blind_bids"
                raise Bad(f"bids: seat {seat} bid {kind}, which these rules do not allow "
                           f"({off} is off)")
            if bid > 0 and bid > rules.blind_bid_max:
                raise Bad(f"bids: seat {seat} bid {kind}; allowed blind bids "
                           f"1..{rules.blind_bid_max}")
            needed = getattr(rules, deficit_field)
            behind = deficit(rules, seat, score_before)
            if not blind_allowed(needed, behind):
                standing = f"trails by {behind}" if behind >= 0 else f"leads by {-behind}"
                raise Bad(f"bids: seat {seat} bid {kind} but its side {standing}; it must "
                           f"trail by at least {needed} ({deficit_field})")
        if bumped[seat]:
            if not rules.bid_bump:
                raise Bad(f"bumped: seat {seat} raised its bid, which these rules do not "
                           f"allow (bid_bump is off)")
            if blind[seat] or bid == 0 or is_nil(rules, bid - 1, False):
                raise Bad(f"bumped: seat {seat} raised a nil or blind bid; only a non-nil, "
                           f"non-blind bid may be bumped")
    before_bump = [bid - int(raised) for bid, raised in zip(bids, bumped, strict=True)]
    if rules.bids_total_not_tricks and sum(before_bump) == size:
        raise Bad(f"bids: the bids (before any bump) total {size}, the number of tricks; the "
                   f"dealer (seat {dealer}) bids last and may not make that total "
                   f"(bids_total_not_tricks)")
    if rules.min_team_bid and rules.partnership:
        for team in (0, 1):
            pair = (team, team + 2)
            if any(is_nil(rules, bids[seat], blind[seat]) for seat in pair):
                continue
            total = before_bump[team] + before_bump[team + 2]
            if total < rules.min_team_bid:
                raise Bad(f"bids: team {team} bid {total} in all, below min_team_bid "
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


def apply_exchange(rules: Rules, obj, bids, blind, hands: list[int]) -> list[int]:
    """Check the ``exchange`` entries against the rules and apply them to copies of ``hands``."""
    entries = obj.get("exchange", [])
    if not isinstance(entries, list):
        raise Bad(f"exchange: expected a list of [from_seat, to_seat, card], got {show(entries)}")
    hands = list(hands)
    due = _exchanges_due(rules, bids, blind)
    passed = {team: [0, 0] for team in due}  # cards passed out, cards passed back
    for number, entry in enumerate(entries, start=1):
        where = f"exchange: entry {number}: "
        if (not isinstance(entry, list) or len(entry) != 3 or not is_int(entry[0])
                or not is_int(entry[1])):
            raise Bad(f"{where}expected [from_seat, to_seat, card], got {show(entry)}")
        sender, receiver = entry[0], entry[1]
        for seat in (sender, receiver):
            if not 0 <= seat < rules.players:
                raise Bad(f"{where}{seat} is not a seat (0..{rules.players - 1})")
        card = _card(entry[2], where)
        team = rules.side_of(sender)
        if team not in due:
            raise Bad(f"{where}seat {sender} passes a card, but no exchange is due for its side")
        passer, partner, k, _ = due[team]
        counts = passed[team]
        if counts[0] < k:
            expected, phase = (passer, partner), 0
        elif counts[1] < k:
            expected, phase = (partner, passer), 1
        else:
            raise Bad(f"{where}seat {sender} passes a card after the {k}-card exchange of its "
                       f"side is complete")
        if (sender, receiver) != expected:
            raise Bad(f"{where}seat {sender} passes to seat {receiver}; seat {expected[0]} is "
                       f"to pass to seat {expected[1]}")
        if not hands[sender] >> card & 1:
            raise Bad(f"{where}seat {sender} passes {card_text(card)} but does not hold it")
        hands[sender] &= ~(1 << card)
        hands[receiver] |= 1 << card
        counts[phase] += 1
    for team, (passer, partner, k, kind) in due.items():
        out, back = passed[team]
        if out != k or back != k:
            raise Bad(f"exchange: seat {passer} bid {kind}, so it passes {k} cards to seat "
                       f"{partner} and gets {k} back; the log has {out} passed and {back} back")
    return hands


def _play_entry(entry, players: int, trick: int, number: int) -> tuple[int, int]:
    where = f"trick {trick}: play {number}: "
    if not isinstance(entry, list) or len(entry) != 2 or not is_int(entry[0]):
        raise Bad(f"{where}expected [seat, card], got {show(entry)}")
    if not 0 <= entry[0] < players:
        raise Bad(f"{where}{entry[0]} is not a seat (0..{players - 1})")
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


def check_plays(rules: Rules, obj, dealer: int, hands: list[int]) -> list[int]:
    """Check every play in order; return the tricks won per seat."""
    players, size = rules.players, rules.hand_size
    plays = obj["plays"]
    n_plays = players * size
    if not isinstance(plays, list) or len(plays) != n_plays:
        got = f"{len(plays)}" if isinstance(plays, list) else show(plays)
        raise Bad(f"plays: expected {n_plays} plays ({size} tricks of {players}), got {got}")
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
                    raise Bad(f"trick {trick}: seat {seat} played out of turn; seat "
                               f"{expected} is to play")
                if trick_index > 0:
                    raise Bad(f"trick {trick}: seat {seat} led out of turn; seat {expected} "
                               f"won trick {trick - 1} and leads")
                raise Bad(f"trick 1: seat {seat} led out of turn; seat {expected}, left of "
                           f"the dealer (seat {dealer}), leads")
            hand = hands[seat]
            if not hand >> card & 1:
                earlier = (f" (it was played in trick {played_in[card]})"
                           if card in played_in else "")
                raise Bad(f"trick {trick}: seat {seat} played {card_text(card)} but does not "
                           f"hold it{earlier}")
            led_suit = None if lead_card is None else suit_of(lead_card)
            if not legal_cards(rules, hand, led_suit, spades_broken, trick_index) >> card & 1:
                raise Bad(_illegal(rules, trick, seat, card, lead_card))
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
        holder = next((other for other, hand in enumerate(hands)
                       if hand >> TWO_OF_CLUBS & 1), seat)
        if holder != seat:
            raise Bad(f"trick 1: seat {seat} led, but seat {holder} holds 2C and must lead it "
                       f"(first_leader two_of_clubs)")
    return seat  # random: the first play shows who was drawn
