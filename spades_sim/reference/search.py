"""The search player ``mc`` of the reference twin: slow, readable, bit for bit with
``engine/search.py`` (whose docstring describes the search).

``hand.play_hand`` calls :func:`mc_card` for every card an ``mc`` seat plays, with the hand's
search stream ``Stream(search_key(play_key), key_index)`` (``core/seeding.py``).
"""

from __future__ import annotations

from ..core.bidding import is_nil
from ..core.cards import lowest, suit_of
from ..core.rules import Rules
from ..core.scoring import score_side
from ..core.strategies import Strategy
from ..core.tricks import beats, breaks_spades, legal_cards
from .strategies import choose_card, estimate_tricks


def suit_index(card: int) -> int:
    """0..3 for clubs, diamonds, hearts and the trumps (jokers included)."""
    return int(card >= 13) + int(card >= 26) + int(card >= 39)


def playout(rules: Rules, heuristic: Strategy, bids, blind, hands: list[int], leader: int,
            position: int, led_suit: int, winning_card: int, winning_seat: int,
            spades_broken: bool, trick_index: int, tricks: list[int], bags=(0, 0, 0, 0),
            searcher: int | None = None) -> list[int]:
    """Finish the hand with the heuristic at every seat, from ``position`` cards into trick
    ``trick_index``; ``hands`` and ``tricks`` change in place; returns ``tricks``. A leader's
    played cards are every card of the deck in no holding. Every seat plays with the play
    switches of ``searcher`` (``strategies.play_switches``, from ``bags`` per side), as the
    kernel's playouts do."""
    players = rules.players
    while True:
        while position < players:
            seat = (leader + position) % players
            hand = hands[seat]
            legal = legal_cards(rules, hand, led_suit, spades_broken, trick_index)
            card = choose_card(rules, heuristic, seat, hand, legal, position, leader,
                               winning_card, winning_seat, bids, blind, tricks, 0, None, bags,
                               searcher)
            hands[seat] = hand & ~(1 << card)
            if breaks_spades(rules, card, position, led_suit, hand):
                spades_broken = True
            if beats(card, winning_card):
                winning_card, winning_seat = card, seat
            position += 1
        tricks[winning_seat] += 1
        leader = winning_seat
        trick_index += 1
        if trick_index == rules.hand_size:
            return tricks
        hand = hands[leader]
        held = 0
        for holding in hands:
            held |= holding
        legal = legal_cards(rules, hand, None, spades_broken, trick_index)
        card = choose_card(rules, heuristic, leader, hand, legal, 0, leader, -1, -1, bids, blind,
                           tricks, rules.deck_mask & ~held, None, bags, searcher)
        hands[leader] = hand & ~(1 << card)
        if breaks_spades(rules, card, 0, None, hand):
            spades_broken = True
        led_suit = suit_of(card)
        winning_card, winning_seat = card, leader
        position = 1


def bids_agree(rules: Rules, params: dict, seat: int, sampled, played_by, bids, blind) -> bool:
    """Each other seat's sampled holding, with its played cards, fits its bid: a trick estimate
    within ``bid_tolerance`` of the bid (less ``aggression``), or for a nil at most
    ``nil_threshold + bid_tolerance``; blind bids fit anything."""
    tolerance = params["bid_tolerance"]
    for other in range(rules.players):
        if other == seat or blind[other]:
            continue
        estimate = estimate_tricks(rules, params, sampled[other] | played_by[other])
        if is_nil(rules, bids[other], blind[other]):
            if estimate > params["nil_threshold"] + tolerance:
                return False
        elif abs(estimate + params["aggression"] - bids[other]) > tolerance:
            return False
    return True


def sample_hands(rules: Rules, params: dict, seat: int, unseen: int, counts, voids: int,
                 played_by, bids, blind, stream) -> list[int]:
    """One deal of the ``unseen`` cards to the other seats (see ``engine/search.py``)."""
    pool = []
    cards = unseen
    while cards:
        pool.append(lowest(cards))
        cards &= cards - 1
    total_need = sum(counts[: rules.players])
    backup = None
    for _ in range(int(params["sample_tries"])):
        for index in range(len(pool) - 1, 0, -1):
            swap = stream.bounded(index + 1)
            pool[index], pool[swap] = pool[swap], pool[index]
        lacking = list(counts)
        discard_room = len(pool) - total_need
        sampled = [0, 0, 0, 0]
        failed = False
        for card in pool:
            suit = suit_index(card)
            weights = [lacking[other] * (0 if voids >> (4 * other + suit) & 1 else 1)
                       for other in range(4)]
            total = sum(weights) + discard_room
            if total == 0:
                failed = True
                break
            pick = stream.bounded(total)
            for other in range(4):
                if pick < weights[other]:
                    sampled[other] |= 1 << card
                    lacking[other] -= 1
                    break
                pick -= weights[other]
            else:
                discard_room -= 1
        if failed:
            continue
        if bids_agree(rules, params, seat, sampled, played_by, bids, blind):
            return sampled
        backup = sampled
    if backup is not None:
        return backup
    # No try satisfied the voids: a deal that does.
    return void_deal(pool, counts, voids, len(pool) - total_need)


def void_deal(pool: list[int], counts, voids: int, discard_room: int) -> list[int]:
    """The deal of ``pool`` that respects the voids (``void_deal_nb``): per suit and seat (the
    discards as seat 4), how many cards it gets, by one augmenting path per card in pool order
    (breadth-first: a suit to the seats not void in it, in order; a full seat to the suits
    placed there, in order), then each card to the first seat still owed its suit."""
    owed = [[0] * 5 for _ in range(4)]
    room = [*counts[:4], discard_room]
    for card in pool:
        start = suit_index(card)
        came_to_seat, came_to_suit = {}, {}  # seat -> the suit it was reached from, and back
        queue = [("suit", start)]
        seen_suits, seen_seats = {start}, set()
        end = None
        while queue and end is None:
            kind, node = queue.pop(0)
            if kind == "suit":
                for seat in range(5):
                    if seat in seen_seats or (seat < 4 and voids >> (4 * seat + node) & 1):
                        continue
                    seen_seats.add(seat)
                    came_to_seat[seat] = node
                    if room[seat] > 0:
                        end = seat
                        break
                    queue.append(("seat", seat))
            else:
                for suit in range(4):
                    if suit not in seen_suits and owed[suit][node] > 0:
                        seen_suits.add(suit)
                        came_to_suit[suit] = node
                        queue.append(("suit", suit))
        if end is None:  # no deal meets these voids: the first seat with room
            end = next(seat for seat in range(5) if room[seat] > 0)
            owed[start][end] += 1
        else:
            seat = end
            while True:
                suit = came_to_seat[seat]
                owed[suit][seat] += 1
                if suit == start:
                    break
                seat = came_to_suit[suit]
                owed[suit][seat] -= 1
        room[end] -= 1
    sampled = [0, 0, 0, 0]
    for card in pool:
        suit = suit_index(card)
        seat = next(seat for seat in range(5) if owed[suit][seat] > 0)
        owed[suit][seat] -= 1
        if seat < 4:
            sampled[seat] |= 1 << card
    return sampled


def candidates(legal: int, unseen: int) -> list[int]:
    """The legal cards less those equivalent to a lower legal card of their suit (no unseen
    card between them), lowest first."""
    kept = []
    previous = -1
    cards = legal
    while cards:
        card = lowest(cards)
        cards &= cards - 1
        if previous >= 0 and suit_index(previous) == suit_index(card):
            between = ((1 << card) - 1) & ~((2 << previous) - 1)
            if not between & unseen:
                previous = card
                continue
        kept.append(card)
        previous = card
    return kept


def mc_card(rules: Rules, strategy: Strategy, seat: int, hand: int, legal: int, position: int,
            leader: int, led_suit, winning_card: int, winning_seat: int, spades_broken: bool,
            trick_index: int, bids, blind, tricks, played_by, voids: int, bags, stream) -> int:
    """The search player's card: sample, play out every distinct candidate, keep the best total
    of ``own points * (sides - 1) - other sides' points`` (ties: the lowest card).

    ``played_by`` holds each seat's cards played this hand, ``voids`` bit ``4 * seat + suit``
    for a void shown, ``bags`` the per-side bags before the hand; ``stream`` is the search
    stream.
    """
    params = strategy.params
    heuristic = Strategy("heuristic", params)
    players, n_sides = rules.players, rules.n_sides
    seen = hand
    for cards in played_by:
        seen |= cards
    unseen = rules.deck_mask & ~seen
    options = candidates(legal, unseen)
    if len(options) == 1:
        return options[0]
    counts = [0, 0, 0, 0]
    for other in range(players):
        if other != seat:
            played_now = (other - leader) % players < position
            counts[other] = rules.hand_size - trick_index - played_now
    side = seat % 2 if rules.partnership else seat
    totals = dict.fromkeys(options, 0)
    for _ in range(int(params["samples"])):
        sampled = sample_hands(rules, params, seat, unseen, counts, voids, played_by, bids,
                               blind, stream)
        for card in options:
            hands = list(sampled[:players])
            hands[seat] = hand & ~(1 << card)
            broken = spades_broken or breaks_spades(rules, card, position, led_suit, hand)
            if position == 0:
                trick_suit, best_card, best_seat = suit_of(card), card, seat
            elif beats(card, winning_card):
                trick_suit, best_card, best_seat = led_suit, card, seat
            else:
                trick_suit, best_card, best_seat = led_suit, winning_card, winning_seat
            final = playout(rules, heuristic, bids, blind, hands, leader, position + 1,
                            trick_suit, best_card, best_seat, broken, trick_index, list(tricks),
                            bags, seat)
            value = 0
            for other_side in range(n_sides):
                delta, _ = score_side(rules, other_side, bids, blind, final, bags[other_side])
                value += delta * (n_sides - 1) if other_side == side else -delta
            totals[card] += value
    best = options[0]
    for card in options[1:]:
        if totals[card] > totals[best]:
            best = card
    return best
