"""Entry kernels: independent hands and whole games, writing into caller-provided arrays.

``simulate_hands_nb`` and ``play_games_nb`` are the kernels the Python layer calls; both run the
one hand loop in ``_run_nb``. They take the rules tuple, the strategy kinds (a tuple, one per
seat) and parameter vectors (a tuple of tuples), the two stream keys (``rng.py`` documents the
draw contract) and a namedtuple of output arrays (``core/schema.py``).

Why one long loop: numba reference-counts every array handed to a function, with atomic
instructions, and that cost dominated the first version of this engine. So arrays are touched
only here, in the loop body; the helpers it calls take and return scalars and tuples only
(bitboards, packed per-seat bytes, generator states).
"""

import numpy as np
from numba import njit

from .bidding import bid_round_nb, exchange_size_nb
from .bits import TRUMP_MASK, byte_of_nb, lowest_card, wrap_seat_nb
from .deal import draw_deal_nb, ordered_deck_nb, shuffle_deal_nb
from .features import filtered_deal_nb
from .layout import (
    DEAL_DRAW,
    FIRST_LEADER_DEALER_LEFT,
    FIRST_LEADER_RANDOM,
    FIRST_LEADER_TWO_OF_CLUBS,
    GAME_SHIFT,
    N_PARAMS,
    P_BLIND_BID_RATE,
    P_BLIND_NIL_RATE,
    P_BUMP_RATE,
    P_KEEP_RATE,
    RULE_BAG_ROOM,
    SEARCH_KEY_XOR,
    STRATEGY_MC,
)
from .plugin import fill_rules_nb, plugin_card_nb
from .rng import bounded_nb, seed_nb
from .scoring import score_side_nb
from .search import SCRATCH_SIZE, mc_card_nb, suit_index_nb
from .strategy_bids import choose_pass_nb
from .strategy_kernels import (
    heuristic_blind_floor_nb,
    play_bits_nb,
    random_bid_ranges_nb,
    random_rates_nb,
    rule_play_bits_nb,
    rule_play_mask_nb,
    score_aware_nb,
)
from .strategy_play import choose_card_nb, credit_nb, hand_facts_nb
from .strategy_value import memo_groups_nb, memo_table_nb
from .trick import card_strength_nb, follow_mask_nb, lead_mask_nb, suit_mask_of_card_nb
from .unsafe import borrow_nb, keep_nb

_SEARCH_KEY_XOR = np.uint64(SEARCH_KEY_XOR)
_NO_STATE = np.uint64(0)


@njit(cache=True)
def game_over_nb(rules, scores):
    """``(over, winner)`` for the scores (a 4-tuple per side) after a hand of a game.

    Order: a unique highest score at or over the target wins (a tie there plays on); a side at
    or below ``mercy`` ends it (highest wins, a tie is a tie: winner -1). ``max_hands`` and
    ``hand_cap`` are checked by the caller, which counts hands.
    """
    n_sides = rules.n_sides
    top = scores[0]
    low = scores[0]
    leader = 0
    for side in range(1, n_sides):
        if scores[side] > top:
            top = scores[side]
            leader = side
        if scores[side] < low:
            low = scores[side]
    n_top = 0
    for side in range(n_sides):
        if scores[side] == top:
            n_top += 1
    unique_leader = leader if n_top == 1 else -1
    if top >= rules.target and n_top == 1:
        return True, leader
    if rules.has_mercy and low <= rules.mercy:
        return True, unique_leader
    return False, unique_leader


@njit(cache=True)
def _run_nb(rules, kinds, params, deal_key, play_key, first_unit, n_units, games_mode, search,
            out, games, record_plays, deal_filter, plugins):
    """Play ``n_units`` independent hands, or whole games when ``games_mode``.

    Independent hand ``h`` (``first_unit + unit``) is dealt by seat ``h % players`` from zero
    scores and uses key index ``h``. Game ``g`` draws its first dealer with
    ``bounded(players)`` on deal-stream key index ``g << 20``; its hand ``j`` uses key index
    ``(g << 20) + 1 + j``; the deal passes left. Returns ``(units_done, rows_written)``; in games
    mode it stops between games when fewer than ``hand_cap`` rows are left in ``out``.

    ``search`` is a compile-time constant (a literal at each call): only the kernels that play
    ``mc`` seats (``*_search_nb``) compile the search player's bookkeeping into the loop
    (cards played per seat, voids shown, the search stream), so the others keep their speed;
    numba compiles that copy the first time an ``mc`` seat plays.

    ``plugins`` is ``None``, or the tuple of numba strategy plug-ins (``plugin.py``): the
    plug-in seats' non-blind bids and every card they play come from their plug-ins, called
    through function pointers with the view filled (``core/view.py``). It is the plug-in mode's
    compile-time flag: numba prunes every branch under ``plugins is not None`` before typing
    when it is ``None`` (by type: with numba 0.68 a literal bool argument such as ``search``
    was not pruned, only folded away after typing, so it cannot guard code that indexes the
    tuple), and the ``*_plugin_nb`` kernels compile one more copy of the loop, shared by every
    plug-in.
    """
    capacity = out.hand_id.shape[0]
    players = rules.players
    hand_size = rules.hand_size
    n_sides = rules.n_sides
    first_leader_mode = rules.first_leader
    # Per-seat kinds packed 8 bits per seat: indexing the tuple by a runtime seat would compile
    # to an indirect jump per card played.
    kinds_packed = 0
    for seat in range(4):
        kinds_packed |= kinds[seat] << (8 * seat)
    random_bids = random_bid_ranges_nb(kinds, params)
    rates = (
        random_rates_nb(kinds, params, P_BLIND_NIL_RATE),
        random_rates_nb(kinds, params, P_BLIND_BID_RATE),
        random_rates_nb(kinds, params, P_BUMP_RATE),
    )
    keep_rates = random_rates_nb(kinds, params, P_KEEP_RATE)
    blind_floor = heuristic_blind_floor_nb(kinds, params)
    score_aware = score_aware_nb(kinds, params)
    play_packed = play_bits_nb(kinds, params)
    rule_mask = rule_play_mask_nb(kinds, params)
    # The rule-play switches change from hand to hand only with ten_for_two_hundred (the
    # opponents' bids) or a side within RULE_BAG_ROOM bags of the limit; else they are these.
    rule_static = rule_play_bits_nb(rules, play_packed, rule_mask, 0, 0, (0, 0, 0, 0))
    rule_bag_floor = rules.bag_limit - RULE_BAG_ROOM if rules.bag_limit > 0 else 1 << 62
    if rules.ten_for_two_hundred != 0:
        rule_bag_floor = -1
    # The parameters as an array too, for the bids (strategy_bids.choose_bid_nb).
    param_array = np.empty((4, N_PARAMS), dtype=np.float64)
    for slot in range(N_PARAMS):
        param_array[0, slot] = params[0][slot]
        param_array[1, slot] = params[1][slot]
        param_array[2, slot] = params[2][slot]
        param_array[3, slot] = params[3][slot]
    # Borrowed views (unsafe.py): the bids read the memo and the parameters through inlined
    # helpers, and owned arrays would be counted four times a bid. Two owners, param_array and
    # memo_table, each kept alive by keep_nb at every return; the memo's float64 values are a
    # view of the borrowed keys, not a second owner.
    param_rows = borrow_nb(param_array)
    memo_table = memo_table_nb()
    memo_keys = borrow_nb(memo_table)
    memo = (memo_groups_nb(kinds, params), memo_keys, memo_keys.view(np.float64))
    search_key = play_key ^ _SEARCH_KEY_XOR
    played_by = np.zeros(4, dtype=np.int64)  # each seat's cards played this hand (for mc)
    search_scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)  # mc's working arrays
    exchanges_possible = rules.partnership != 0 and (
        rules.blind_nil_exchange > 0 or rules.nil_exchange > 0
    )
    deck = np.zeros(108, dtype=np.int64)
    n_cards = ordered_deck_nb(rules, deck)
    hands = np.zeros(4, dtype=np.int64)
    if plugins is not None:
        fill_rules_nb(plugins[4], rules)
    scores = np.zeros(4, dtype=np.int64)
    bags = np.zeros(4, dtype=np.int64)
    filtering = deal_filter[0].shape[0] > 0 or deal_filter[2].shape[0] > 0
    row = 0
    for unit in range(n_units):
        game_id = -1
        key_index = first_unit + unit
        dealer = key_index % players
        first_dealer = 0
        if games_mode:
            if capacity - row < rules.hand_cap:
                keep_nb(param_array)  # (the borrowed views' owners live to here: unsafe.py)
                keep_nb(memo_table)
                return unit, row
            game_id = first_unit + unit
            key_index = (game_id << GAME_SHIFT) + 1
            dealer, _ = bounded_nb(seed_nb(deal_key, game_id << GAME_SHIFT), players)
            first_dealer = dealer
        for side in range(4):
            scores[side] = 0
            bags[side] = 0
        n_hands = 0
        while True:
            # -- deal ---------------------------------------------------------------------
            deal_state = seed_nb(deal_key, key_index)
            play_state = seed_nb(play_key, key_index)
            search_state = _NO_STATE
            if search:
                search_state = seed_nb(search_key, key_index)
            if rules.deal == DEAL_DRAW:
                hand0, hand1, deal_state, play_state = draw_deal_nb(
                    rules, kinds_packed, params, keep_rates, dealer, deal_state, play_state, deck,
                    n_cards,
                )
                hand2 = 0
                hand3 = 0
            elif filtering:
                skip = deal_filter[2][unit] if deal_filter[2].shape[0] > 0 else 0
                hand0, hand1, hand2, hand3, deal_state, tries = filtered_deal_nb(
                    rules, deal_filter, skip, deal_state, deck, n_cards)
                if tries == 0:  # no deal accepted: the caller raises the error
                    deal_filter[4][0] = key_index + 1
                    keep_nb(param_array)
                    keep_nb(memo_keys)
                    return unit, row
            else:
                hand0, hand1, hand2, hand3, deal_state = shuffle_deal_nb(rules, deal_state, deck,
                                                                         n_cards)
            hands[0] = hand0
            hands[1] = hand1
            hands[2] = hand2
            hands[3] = hand3

            # -- bidding: blind choices, bids, bumps (bidding.py) ----------------------------
            bids, blind, bumped, play_state = bid_round_nb(
                rules, kinds_packed, params, param_rows, random_bids, rates, blind_floor,
                score_aware, dealer,
                (hand0, hand1, hand2, hand3), (scores[0], scores[1], scores[2], scores[3]),
                (bags[0], bags[1], bags[2], bags[3]), memo, play_state, plugins,
            )

            # -- exchanges: a nil bidder passes cards to its partner, who passes as many back --
            n_exchanged = 0
            # (a zero byte among the packed bids: somebody bid 0; otherwise nobody exchanges)
            if exchanges_possible and ((bids - 0x01010101) & ~bids & 0x80808080) != 0:
                first_bidder = wrap_seat_nb(dealer + 1, players)
                for position in range(players):
                    seat = wrap_seat_nb(first_bidder + position, players)
                    n_pass = exchange_size_nb(rules, seat, bids, blind)
                    if n_pass == 0:
                        continue
                    partner = (seat + 2) & 3
                    given, play_state = choose_pass_nb(byte_of_nb(kinds_packed, seat),
                                                       hands[seat], n_pass, True, play_state)
                    hands[seat] ^= given
                    hands[partner] |= given
                    returned, play_state = choose_pass_nb(byte_of_nb(kinds_packed, partner),
                                                          hands[partner], n_pass, False,
                                                          play_state)
                    hands[partner] ^= returned
                    hands[seat] |= returned
                    if record_plays:  # each pass lowest card first
                        for giver, taker, cards in ((seat, partner, given),
                                                    (partner, seat, returned)):
                            while cards:
                                out.exchange[row, n_exchanged, 0] = giver
                                out.exchange[row, n_exchanged, 1] = taker
                                out.exchange[row, n_exchanged, 2] = lowest_card(cards)
                                n_exchanged += 1
                                cards &= cards - 1

            # -- first leader (random: drawn on the deal stream, after the deal) ----------
            if first_leader_mode == FIRST_LEADER_DEALER_LEFT:
                leader = wrap_seat_nb(dealer + 1, players)
            elif first_leader_mode == FIRST_LEADER_RANDOM:
                leader, deal_state = bounded_nb(deal_state, players)
            else:  # two_of_clubs: its holder leads it
                leader = 0
                for seat in range(players):
                    if hands[seat] & 1:
                        leader = seat
            first_leader = leader

            # -- play ---------------------------------------------------------------------
            facts = (0, 0, 0)
            if kinds_packed != 0:  # only the heuristic's play reads these (random is kind 0)
                facts = hand_facts_nb(rules, bids, blind)
            illegal = 0
            tricks = 0  # packed, 8 bits per seat
            played = 0  # the cards played so far (a heuristic leader reads them)
            taken = 0  # packed: the tricks toward each seat's contract (strategy_play.credit_nb)
            spades_broken = False
            voids = 0  # bit 4 * seat + suit: the seat has shown it holds none of the suit
            if search or plugins is not None:
                for seat in range(4):
                    played_by[seat] = 0
            hand_bags = (bags[0], bags[1], bags[2], bags[3])
            hand_play = play_packed
            if rule_mask != 0:
                hand_play = rule_static
                if max(max(bags[0], bags[1]), max(bags[2], bags[3])) >= rule_bag_floor:
                    hand_play = rule_play_bits_nb(rules, play_packed, rule_mask, bids, blind,
                                                  hand_bags)
            if plugins is not None:
                hand_scores = (scores[0], scores[1], scores[2], scores[3])
                trick_cards = 0  # the current trick's cards, a byte each in play order
            for trick_index in range(hand_size):
                # The lead, apart from the followers: no per-card test of "am I leading?".
                hand = hands[np.uint64(leader)]  # (unsigned: no negative-index code)
                lead_kind = byte_of_nb(kinds_packed, leader)
                legal = lead_mask_nb(rules, hand, spades_broken, trick_index)
                if trick_index == 0 and first_leader_mode == FIRST_LEADER_TWO_OF_CLUBS:
                    legal = 1  # two_of_clubs: the 2C itself is the first lead
                if plugins is not None and (plugins[2] >> leader) & 1:
                    card, play_state = plugin_card_nb(
                        plugins, rules, leader, dealer, 0, hand, legal, trick_index, leader, -1,
                        -1, -1, spades_broken, played,
                        voids, first_leader, bids, blind, tricks,
                        (played_by[0], played_by[1], played_by[2], played_by[3]), 0, hand_scores,
                        hand_bags, play_state,
                    )
                elif search and lead_kind == STRATEGY_MC:
                    card, search_state = mc_card_nb(
                        rules, params[leader], byte_of_nb(hand_play, leader), facts, leader,
                        hand, legal, 0, leader, 0, 0, leader, spades_broken, trick_index, tricks,
                        bids, blind, played_by, voids, hand_bags, search_scratch, search_state,
                    )
                else:
                    card, play_state = choose_card_nb(
                        rules, lead_kind, hand_play, leader, hand, legal, 0, leader,
                        -1, -1, facts, tricks, taken, played, play_state,
                    )
                # Checked once per hand (a branch per card costs more than the OR). Every
                # strategy returns a card index taken from a non-empty mask, so 0 <= card < 54.
                bit = 1 << card
                illegal |= bit & ~legal
                played |= bit
                hands[np.uint64(leader)] = hand ^ bit
                if record_plays:
                    out.plays[row, trick_index * players] = card
                    out.play_seats[row, trick_index * players] = leader
                led_mask = suit_mask_of_card_nb(card)
                led_suit = 0
                if search or plugins is not None:
                    played_by[leader] |= bit
                    led_suit = suit_index_nb(card)
                if plugins is not None:
                    trick_cards = card
                # A spade led from an all-spade hand breaks spades (broken_by_forced_lead).
                spades_broken |= ((card >= 39) & ((hand & ~TRUMP_MASK) == 0)
                                  & (rules.broken_by_forced_lead != 0))
                led_side_suit = (led_mask & TRUMP_MASK) == 0
                winning_seat = leader
                winning_strength = card_strength_nb(card, led_mask)
                for k in range(1, players):
                    seat = wrap_seat_nb(leader + k, players)
                    hand = hands[np.uint64(seat)]
                    legal = follow_mask_nb(hand, led_mask)
                    kind = byte_of_nb(kinds_packed, seat)
                    if plugins is not None and (plugins[2] >> seat) & 1:
                        card, play_state = plugin_card_nb(
                            plugins, rules, seat, dealer, k, hand, legal, trick_index, leader,
                            led_suit, winning_strength & 63, winning_seat, spades_broken,
                            played, voids,
                            first_leader, bids, blind, tricks,
                            (played_by[0], played_by[1], played_by[2], played_by[3]),
                            trick_cards,
                            hand_scores, hand_bags, play_state,
                        )
                    elif search and kind == STRATEGY_MC:
                        card, search_state = mc_card_nb(
                            rules, params[seat], byte_of_nb(hand_play, seat), facts, seat, hand,
                            legal, k, leader, led_mask, winning_strength, winning_seat,
                            spades_broken, trick_index, tricks, bids, blind, played_by, voids,
                            hand_bags, search_scratch, search_state,
                        )
                    else:
                        card, play_state = choose_card_nb(
                            rules, kind, hand_play, seat, hand, legal, k, leader,
                            winning_strength & 63, winning_seat, facts, tricks, taken, 0,
                            play_state,
                        )
                    bit = 1 << card
                    if search or plugins is not None:
                        played_by[seat] |= bit
                        voids |= ((hand & led_mask) == 0) << (4 * seat + led_suit)
                    if plugins is not None:
                        trick_cards |= card << (8 * k)
                    illegal |= bit & ~legal
                    played |= bit
                    hands[np.uint64(seat)] = hand ^ bit
                    if record_plays:
                        out.plays[row, trick_index * players + k] = card
                        out.play_seats[row, trick_index * players + k] = seat
                    # A spade played on another suit's lead breaks spades.
                    spades_broken |= (card >= 39) & led_side_suit
                    strength = card_strength_nb(card, led_mask)
                    better = strength > winning_strength
                    # (the winning card is winning_strength & 63: see card_strength_nb)
                    winning_strength = strength if better else winning_strength
                    winning_seat = seat if better else winning_seat
                tricks += 1 << (8 * winning_seat)
                taken += credit_nb(facts, winning_seat)
                leader = winning_seat
            if illegal:
                raise ValueError("a strategy chose an illegal card")

            # -- score and record -----------------------------------------------------------
            out.hand_id[row] = key_index if not games_mode else row
            out.game_id[row] = game_id
            out.dealer[row] = dealer
            out.first_leader[row] = first_leader
            out.hands[row, 0] = hand0
            out.hands[row, 1] = hand1
            out.hands[row, 2] = hand2  # 0 for an absent seat
            out.hands[row, 3] = hand3
            for seat in range(players):
                out.bids[row, seat] = byte_of_nb(bids, seat)
                out.blind[row, seat] = (blind >> seat) & 1
                out.bumped[row, seat] = (bumped >> seat) & 1
                out.tricks[row, seat] = byte_of_nb(tricks, seat)
            for side in range(n_sides):
                delta, bags_after = score_side_nb(rules, side, bids, blind, tricks, bags[side])
                out.score_before[row, side] = scores[side]
                out.bags_before[row, side] = bags[side]
                out.score_delta[row, side] = delta
                out.bags_after[row, side] = bags_after
                scores[side] += delta
                bags[side] = bags_after
            row += 1
            n_hands += 1
            if not games_mode:
                break

            # -- end of game? -----------------------------------------------------------------
            over, winner = game_over_nb(rules, (scores[0], scores[1], scores[2], scores[3]))
            if not over and rules.max_hands > 0 and n_hands >= rules.max_hands:
                over = True
            elif not over and n_hands >= rules.hand_cap:
                over = True
                winner = -1  # a game not over after hand_cap hands is a draw
            if over:
                games.game_id[unit] = game_id
                games.first_dealer[unit] = first_dealer
                games.n_hands[unit] = n_hands
                games.winner[unit] = winner
                for side in range(n_sides):
                    games.final_score[unit, side] = scores[side]
                    games.final_bags[unit, side] = bags[side]
                break
            dealer = wrap_seat_nb(dealer + 1, players)
            key_index += 1
    keep_nb(param_array)
    keep_nb(memo_table)
    return n_units, row


# The entry kernels release the GIL (nogil): a run on one job plays the next chunk while a
# thread writes the last one (run/execute.py).
@njit(cache=True, nogil=True)
def simulate_hands_nb(rules, kinds, params, deal_key, play_key, first_hand_id, out, games,
                      record_plays, deal_filter):
    """Play ``len(out.hand_id)`` independent hands, ids ``first_hand_id ...``, from zero scores.

    Hand ``h`` depends only on the keys and ``h``, so any split of a run into pieces (workers,
    chunks) reproduces the same hands. ``games`` is unused (an empty GameArrays). No seat may be
    an ``mc`` seat (``simulate_hands_search_nb`` plays those). ``deal_filter``: the deal filter's
    tuple (``calls.filter_tuple``; empty arrays for none), see ``_run_nb``.
    """
    # ``games_mode`` as a runtime bool (``first_hand_id < 0`` is never true), not the literal
    # False: with a literal, numba would compile a second copy of the whole hand loop, one per
    # entry kernel, doubling the cold compile time of a run with hands and games.
    _run_nb(rules, kinds, params, deal_key, play_key, first_hand_id, out.hand_id.shape[0],
            first_hand_id < 0, False, out, games, record_plays, deal_filter, None)


@njit(cache=True, nogil=True)
def play_games_nb(rules, kinds, params, deal_key, play_key, first_game_id, n_games, out, games,
                  record_plays, deal_filter):
    """Play whole games ``first_game_id ...``; return ``(games_done, rows_written)``.

    Stops early, between games, when fewer than ``hand_cap`` rows are left in ``out``; the caller
    continues from the next game with fresh arrays (every game depends only on its id).
    ``out.hand_id`` holds the row; the caller renumbers hands across the run. No ``mc`` seats
    (``play_games_search_nb`` plays those).
    """
    return _run_nb(rules, kinds, params, deal_key, play_key, first_game_id, n_games,
                   first_game_id >= 0, False, out, games, record_plays, deal_filter, None)


@njit(cache=True, nogil=True)
def simulate_hands_search_nb(rules, kinds, params, deal_key, play_key, first_hand_id, out, games,
                             record_plays, deal_filter):
    """``simulate_hands_nb`` for tables with ``mc`` seats."""
    _run_nb(rules, kinds, params, deal_key, play_key, first_hand_id, out.hand_id.shape[0],
            first_hand_id < 0, True, out, games, record_plays, deal_filter, None)


@njit(cache=True, nogil=True)
def play_games_search_nb(rules, kinds, params, deal_key, play_key, first_game_id, n_games, out,
                         games, record_plays, deal_filter):
    """``play_games_nb`` for tables with ``mc`` seats."""
    return _run_nb(rules, kinds, params, deal_key, play_key, first_game_id, n_games,
                   first_game_id >= 0, True, out, games, record_plays, deal_filter, None)


@njit(cache=True, nogil=True)
def simulate_hands_plugin_nb(rules, kinds, params, deal_key, play_key, first_hand_id, out, games,
                             record_plays, deal_filter, plugins):
    """``simulate_hands_nb`` for tables with numba plug-in seats: ``plugins`` is the tuple of
    ``plugin.py`` (no ``mc`` seats; ``simulate_hands_plugin_search_nb`` plays those)."""
    _run_nb(rules, kinds, params, deal_key, play_key, first_hand_id, out.hand_id.shape[0],
            first_hand_id < 0, False, out, games, record_plays, deal_filter, plugins)


@njit(cache=True, nogil=True)
def play_games_plugin_nb(rules, kinds, params, deal_key, play_key, first_game_id, n_games, out,
                         games, record_plays, deal_filter, plugins):
    """``play_games_nb`` for tables with numba plug-in seats (see ``simulate_hands_plugin_nb``)."""
    return _run_nb(rules, kinds, params, deal_key, play_key, first_game_id, n_games,
                   first_game_id >= 0, False, out, games, record_plays, deal_filter, plugins)


@njit(cache=True, nogil=True)
def simulate_hands_plugin_search_nb(rules, kinds, params, deal_key, play_key, first_hand_id, out,
                                    games, record_plays, deal_filter, plugins):
    """``simulate_hands_plugin_nb`` for tables with ``mc`` seats too."""
    _run_nb(rules, kinds, params, deal_key, play_key, first_hand_id, out.hand_id.shape[0],
            first_hand_id < 0, True, out, games, record_plays, deal_filter, plugins)


@njit(cache=True, nogil=True)
def play_games_plugin_search_nb(rules, kinds, params, deal_key, play_key, first_game_id, n_games,
                                out, games, record_plays, deal_filter, plugins):
    """``play_games_plugin_nb`` for tables with ``mc`` seats too."""
    return _run_nb(rules, kinds, params, deal_key, play_key, first_game_id, n_games,
                   first_game_id >= 0, True, out, games, record_plays, deal_filter, plugins)
