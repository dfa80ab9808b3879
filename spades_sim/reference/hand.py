"""The reference twin's hand loop: deal, bid, exchange, play and score one hand; independent
hands; whole games (``engine/simulate.py``, ``engine/bidding.py``).

The stream order of one hand: the deal stream shuffles (and redeals), then draws the first
leader under ``first_leader = "random"``; the play stream makes the draw deal's keep choices,
then per bidder in bidding order its blind choice (only when a blind option is allowed) and its
bid (only when it looked), then the bump choices, then the exchange passes, then the cards. The
search player draws from its own stream (``core/seeding.py``).
"""

from __future__ import annotations

from ..core.bidding import blind_allowed, deficit, exchange_size, is_nil, legal_bids
from ..core.cards import TWO_OF_CLUBS, cards_of, suit_cards, suit_of
from ..core.errors import StrategyError
from ..core.rules import Rules
from ..core.scoring import game_over, score_hand
from ..core.seeding import game_key_index, search_key, stream_keys
from ..core.strategies import parse_strategy
from ..core.tricks import beats, breaks_spades, legal_cards
from .deal import deal, draw_deal, filtered_deal
from .search import mc_card
from .strategies import choose_bid, choose_blind, choose_bump, choose_card, choose_pass
from .stream import Stream


def bid_round(rules: Rules, strategies, dealer: int, hands: list[int], scores, bags,
              play_stream: Stream) -> tuple[list[int], list[bool], list[bool]]:
    """One round of bidding from the dealer's left, then the bumps (``engine/bidding.py``).

    ``hands`` are the dealt bitboards, ``scores`` and ``bags`` the per-side counts before the
    hand.
    Returns ``(bids, blind, bumped)``, one entry per seat, bids after any bump. Each bidder first
    chooses whether to bid blind (:func:`choose_blind`), only when a blind bid is allowed (the
    rule, its deficit, the bid constraints), else bids from :func:`legal_bids`
    (:func:`choose_bid`); then with ``bid_bump`` each non-nil, non-blind bid below the hand size
    may be raised by one (:func:`choose_bump`), in bidding order.
    """
    players, size = rules.players, rules.hand_size
    bids = [-1] * players
    blind = [False] * players
    order = [(dealer + 1 + position) % players for position in range(players)]
    for position, seat in enumerate(order):
        strategy = strategies[seat]
        choice = -1
        if rules.blind_nil or rules.blind_bids:
            behind = deficit(rules, seat, scores)
            blind_nil_ok = (
                rules.blind_nil
                and blind_allowed(rules.blind_nil_min_deficit, behind)
                and bool(legal_bids(rules, seat, position, bids, blind, True) & 1)
            )
            blind_bids = 0
            if rules.blind_bids and blind_allowed(rules.blind_bid_min_deficit, behind):
                blind_bids = (legal_bids(rules, seat, position, bids, blind, rules.nil)
                              & ((2 << rules.blind_bid_max) - 2))
            if blind_nil_ok or blind_bids:
                partner = (seat + 2) % 4
                partner_nil = rules.partnership and is_nil(rules, bids[partner], blind[partner])
                choice = choose_blind(rules, strategy, seat, behind, partner_nil, blind_nil_ok,
                                      blind_bids, bids, scores, bags, play_stream)
        if choice >= 0:
            bids[seat] = choice
            blind[seat] = True
            continue
        legal = legal_bids(rules, seat, position, bids, blind, rules.nil)
        if not legal:  # (nil off, min_team_bid = hand size and bids_total_not_tricks can do it)
            raise StrategyError(f"seat {seat} has no legal bid after the bids {bids}")
        bid = choose_bid(rules, strategy, seat, hands[seat], bids, legal, scores, bags,
                         play_stream, blind)
        if not (0 <= bid <= size and legal >> bid & 1):
            raise StrategyError(f"strategy {strategy} made the bid {bid} for seat {seat}, which "
                             f"the rules do not allow")
        bids[seat] = bid
    bumped = [False] * players
    if rules.bid_bump:
        for position, seat in enumerate(order):
            bid = bids[seat]
            if is_nil(rules, bid, blind[seat]) or blind[seat] or bid >= size:
                continue
            if choose_bump(rules, strategies[seat], seat, position, hands[seat], bids, scores,
                           bags, play_stream):
                bids[seat] += 1
                bumped[seat] = True
    return bids, blind, bumped


def exchange_cards(rules: Rules, strategies, dealer: int, hands: list[int], bids, blind,
                   play_stream: Stream) -> list[tuple[int, int, int]]:
    """The exchanges, in bidding order; updates ``hands`` in place.

    Each seat whose :func:`exchange_size` is ``k > 0`` passes ``k`` cards to its partner
    (:func:`choose_pass` as the nil bidder), then the partner passes ``k`` back (as the
    partner; it may pass back a card it just received). Returns the ``(from, to, card)``
    entries as the engine records them: each pass lowest card first.
    """
    entries = []
    for position in range(rules.players):
        seat = (dealer + 1 + position) % rules.players
        k = exchange_size(rules, seat, bids, blind)
        if not k:
            continue
        partner = (seat + 2) % 4
        given = choose_pass(strategies[seat], hands[seat], k, True, play_stream)
        hands[seat] &= ~given
        hands[partner] |= given
        returned = choose_pass(strategies[partner], hands[partner], k, False, play_stream)
        hands[partner] &= ~returned
        hands[seat] |= returned
        entries += [(seat, partner, card) for card in cards_of(given)]
        entries += [(partner, seat, card) for card in cards_of(returned)]
    return entries


def play_hand(rules: Rules, strategies, deal_key: int, play_key: int, key_index: int, dealer: int,
              score_before, bags_before, deal_filter=None) -> dict:
    """Deal, bid, exchange, play and score one hand (the hand loop of ``engine/simulate.py``).

    Returns a dict with the hand-log fields (``hand_id`` and ``game_id`` are left to the caller)
    plus ``first_leader``; ``hands`` are the dealt bitboards (before any exchange), ``exchange``
    ``(from, to, card)`` triples, ``plays`` ``(seat, card)`` pairs. With ``deal_filter``
    (``core.features.DealFilter``) the hand is the first deal it accepts (``filtered_deal``).
    """
    players = rules.players
    deal_stream = Stream(deal_key, key_index)
    play_stream = Stream(play_key, key_index)
    if rules.deal == "draw":
        dealt = draw_deal(rules, strategies, dealer, deal_stream, play_stream)
    elif deal_filter is not None:
        dealt = filtered_deal(rules, deal_stream, deal_filter)
    else:
        dealt = deal(rules, deal_stream)
    hands = list(dealt)
    bids, blind, bumped = bid_round(rules, strategies, dealer, dealt, score_before, bags_before,
                                    play_stream)
    exchange = exchange_cards(rules, strategies, dealer, hands, bids, blind, play_stream)
    tricks = [0] * players

    # First leader; first_leader = random draws on the deal stream, after the deal.
    if rules.first_leader == "dealer_left":
        leader = (dealer + 1) % players
    elif rules.first_leader == "random":
        leader = deal_stream.bounded(players)
    else:  # two_of_clubs: its holder (after any exchange) leads it
        leader = next(seat for seat in range(players) if hands[seat] & (1 << TWO_OF_CLUBS))
    first_leader = leader

    plays = []
    played_mask = 0
    spades_broken = False
    # What the search player reads (search.py): cards played per seat, voids shown.
    played_by = [0, 0, 0, 0]
    voids = 0
    search_stream = None
    if any(strategy.kind.name == "mc" for strategy in strategies):
        search_stream = Stream(search_key(play_key), key_index)
    for trick_index in range(rules.hand_size):
        led_suit = None
        winning_card = winning_seat = -1
        for position in range(players):
            seat = (leader + position) % players
            hand = hands[seat]
            legal = legal_cards(rules, hand, led_suit, spades_broken, trick_index)
            if strategies[seat].kind.name == "mc":
                card = mc_card(rules, strategies[seat], seat, hand, legal, position, leader,
                               led_suit, winning_card, winning_seat, spades_broken, trick_index,
                               bids, blind, tricks, played_by, voids, bags_before, search_stream)
            else:
                card = choose_card(rules, strategies[seat], seat, hand, legal, position, leader,
                                   winning_card, winning_seat, bids, blind, tricks, played_mask,
                                   play_stream, bags_before)
            if not legal >> card & 1:
                raise StrategyError(f"strategy chose the illegal card {card} for seat {seat}")
            if breaks_spades(rules, card, position, led_suit, hand):
                spades_broken = True
            hands[seat] = hand & ~(1 << card)
            played_mask |= 1 << card
            played_by[seat] |= 1 << card
            if led_suit is not None and not suit_cards(hand, led_suit):
                voids |= 1 << (4 * seat + led_suit)
            plays.append((seat, card))
            if position == 0:
                led_suit = suit_of(card)
                winning_card, winning_seat = card, seat
            elif beats(card, winning_card):
                winning_card, winning_seat = card, seat
        tricks[winning_seat] += 1
        leader = winning_seat

    score_delta, bags_after = score_hand(rules, bids, blind, tricks, bags_before)
    return {
        "dealer": dealer,
        "first_leader": first_leader,
        "hands": dealt,
        "blind": blind,
        "bids": bids,
        "bumped": bumped,
        "exchange": exchange,
        "plays": plays,
        "tricks": tricks,
        "score_before": [int(score) for score in score_before],
        "bags_before": [int(bags) for bags in bags_before],
        "score_delta": score_delta,
        "bags_after": bags_after,
    }


def _keys_and_strategies(rules: Rules, strategies, seed: int):
    strategies = [parse_strategy(strategy) for strategy in strategies]
    if len(strategies) != rules.players:
        raise StrategyError(f"{len(strategies)} strategies for {rules.players} seats")
    for strategy in strategies:
        if strategy.kind.name == "random" and strategy.params["bid_max"] > rules.hand_size:
            raise StrategyError(f"strategy {strategy}: bid_max is above the hand size")
    deal_key, play_key = stream_keys(seed)
    return int(deal_key), int(play_key), strategies


def simulate_hands(rules: Rules, strategies, n_hands: int, seed: int,
                   first_hand_id: int = 0, deal_filter=None) -> list[dict]:
    """Independent hands from zero scores, as the engine plays them.

    Parameters
    ----------
    rules : Rules
    strategies : list of Strategy (or strategy texts), one per seat
    n_hands : int
    seed : int
        Run seed; the stream keys come from ``core.seeding.stream_keys(seed)``.
    first_hand_id : int
        Id of the first hand: hand ``h`` uses key index ``h`` and dealer ``h % players``.
    deal_filter : DealFilter, optional
        Only deals it accepts (``core.features``).

    Returns
    -------
    list of dict
        One dict per hand with the keys of :func:`play_hand` plus ``hand_id`` and ``game_id``
        (None: independent hands).
    """
    deal_key, play_key, strategies = _keys_and_strategies(rules, strategies, seed)
    zeros = [0] * rules.n_sides
    result = []
    for hand_id in range(first_hand_id, first_hand_id + n_hands):
        hand = play_hand(rules, strategies, deal_key, play_key, hand_id,
                         hand_id % rules.players, zeros, zeros, deal_filter)
        result.append({"hand_id": hand_id, "game_id": None, **hand})
    return result


def play_games(rules: Rules, strategies, n_games: int, seed: int,
               deal_filter=None) -> tuple[list[dict], list[dict]]:
    """Whole games ``0 .. n_games-1``, as the engine plays them.

    Game ``g`` draws its first dealer with ``bounded(players)`` on deal-stream key index
    ``game_key_index(g)`` and plays its hand ``j`` on ``game_key_index(g, j)``; the deal passes
    left. ``deal_filter`` as for :func:`simulate_hands`.

    Returns
    -------
    (list of dict, list of dict)
        The hands (as :func:`simulate_hands`, ``hand_id`` numbered through the run, ``game_id``
        set) and one dict per game: ``game_id``, ``first_dealer``, ``n_hands``, ``winner``
        (winning side, -1 for a tie or a draw), ``final_score``, ``final_bags`` (per side).
    """
    deal_key, play_key, strategies = _keys_and_strategies(rules, strategies, seed)
    hands, games = [], []
    for game_id in range(n_games):
        dealer = first_dealer = Stream(deal_key, game_key_index(game_id)).bounded(rules.players)
        scores = [0] * rules.n_sides
        bags = [0] * rules.n_sides
        n_hands = 0
        while True:
            hand = play_hand(rules, strategies, deal_key, play_key,
                             game_key_index(game_id, n_hands), dealer, scores, bags,
                             deal_filter)
            hands.append({"hand_id": n_hands, "game_id": game_id, **hand})
            scores = [score + delta
                      for score, delta in zip(scores, hand["score_delta"], strict=True)]
            bags = list(hand["bags_after"])
            n_hands += 1
            dealer = (dealer + 1) % rules.players
            over, winner = game_over(rules, scores, n_hands)
            if over:
                break
        games.append({"game_id": game_id, "first_dealer": first_dealer, "n_hands": n_hands,
                      "winner": winner, "final_score": scores, "final_bags": bags})
    return hands, games
