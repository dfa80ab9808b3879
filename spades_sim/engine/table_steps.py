"""The stepped hand loop's once-a-hand steps (``table.py``): the view a Python seat reads, the end
of the auction (bumps, exchanges, the first leader, the play's facts) and the score and record
of a finished hand, each as ``simulate._run_nb`` does it, and each resumable where a seat makes
the choice itself (``FULL_SHIFT``)."""

from numba import njit

from ..core.view import (
    PHASE_BID,
    PHASE_PLAY,
    V_FIRST_LEADER,
    V_LEADER,
    V_LED_SUIT,
    V_PLAYED,
    V_PLAYED_BY,
    V_SPADES_BROKEN,
    V_TRICK,
    V_TRICK_CARDS,
    V_VOIDS,
    V_WINNING_CARD,
    V_WINNING_SEAT,
)
from .bidding import exchange_size_nb
from .bits import byte_of_nb, flag_of_nb, lowest_card, wrap_seat_nb
from .decide import (
    T_KINDS,
    T_PLAY,
    T_RULE_BAG_FLOOR,
    T_RULE_MASK,
    T_RULE_STATIC,
)
from .layout import (
    FIRST_LEADER_DEALER_LEFT,
    FIRST_LEADER_RANDOM,
    STRATEGY_RANDOM,
)
from .plugin import fill_common_nb
from .rng import bounded_nb
from .scoring import score_side_nb
from .search import suit_index_nb
from .simulate import game_over_nb
from .strategy_bids import choose_bump_nb, choose_pass_nb
from .strategy_kernels import estimate_tricks_nb, rule_play_bits_nb
from .strategy_play import hand_facts_nb
from .table_slots import (
    FULL_SHIFT,
    G_FINAL_BAGS,
    G_FINAL_SCORE,
    G_FIRST_DEALER,
    G_GAME_ID,
    G_N_HANDS,
    G_WINNER,
    PHASE_BUMP,
    PHASE_PASS,
    R_BAGS_AFTER,
    R_BAGS_BEFORE,
    R_BIDS,
    R_BLIND,
    R_BUMPED,
    R_DEALER,
    R_EXCHANGE,
    R_FIRST_LEADER,
    R_GAME_ID,
    R_HAND_ID,
    R_HANDS,
    R_SCORE_BEFORE,
    R_SCORE_DELTA,
    R_TRICKS,
    S_ACTION,
    S_BAGS,
    S_BIDS,
    S_BLIND,
    S_BROKEN,
    S_BUMPED,
    S_DEALER,
    S_DEALT,
    S_FACTS,
    S_FIRST_DEALER,
    S_FIRST_LEADER,
    S_GAME_ID,
    S_HAND_ID,
    S_HAND_PLAY,
    S_HANDS,
    S_ILLEGAL,
    S_KEY_INDEX,
    S_LEADER,
    S_LEGAL,
    S_N_EXCHANGED,
    S_N_HANDS,
    S_PASS_LEFT,
    S_PASS_STEP,
    S_PASSED,
    S_PHASE,
    S_PLAYED,
    S_PLAYED_BY,
    S_POSITION,
    S_ROW,
    S_SCORES,
    S_SEAT,
    S_STAGE,
    S_TAKEN,
    S_TRICK_CARDS,
    S_TRICK_INDEX,
    S_TRICKS,
    S_UNIT,
    S_VOIDS,
    S_WIN_SEAT,
    S_WIN_STRENGTH,
    STAGE_BUMP,
    STAGE_EXCHANGE,
    STAGE_PLAY,
    four_nb,
)


@njit(cache=True)
def fill_view_nb(view, rules, state, seat, phase, position, legal):
    """The numba plug-ins' view for ``seat`` (``plugin.plugin_bid_nb``, ``plugin_card_nb``)."""
    tricks = state[S_TRICKS] if phase == PHASE_PLAY else 0
    fill_common_nb(view, rules, phase, seat, state[S_DEALER], position, state[S_HANDS + seat],
                   legal, state[S_BIDS], state[S_BLIND], tricks, four_nb(state, S_SCORES),
                   four_nb(state, S_BAGS))
    if phase == PHASE_BID:
        for slot in (V_TRICK, V_LEADER, V_LED_SUIT, V_WINNING_CARD, V_WINNING_SEAT,
                     V_FIRST_LEADER):
            view[slot] = -1
        view[V_SPADES_BROKEN] = 0
        view[V_PLAYED] = 0
        view[V_VOIDS] = 0
        for i in range(4):
            view[V_PLAYED_BY + i] = 0
            view[V_TRICK_CARDS + i] = -1
        return
    view[V_TRICK] = state[S_TRICK_INDEX]
    view[V_LEADER] = state[S_LEADER]
    leading = position == 0
    view[V_LED_SUIT] = -1 if leading else suit_index_nb(state[S_TRICK_CARDS] & 0xFF)
    view[V_WINNING_CARD] = -1 if leading else state[S_WIN_STRENGTH] & 63
    view[V_WINNING_SEAT] = -1 if leading else state[S_WIN_SEAT]
    view[V_FIRST_LEADER] = state[S_FIRST_LEADER]
    view[V_SPADES_BROKEN] = state[S_BROKEN]
    view[V_PLAYED] = state[S_PLAYED]
    view[V_VOIDS] = state[S_VOIDS]
    for i in range(4):
        view[V_PLAYED_BY + i] = state[S_PLAYED_BY + i]
        view[V_TRICK_CARDS + i] = (state[S_TRICK_CARDS] >> (8 * i)) & 0xFF if i < position else -1


@njit(cache=True)
def auction_done_nb(rules, state):
    """The bids are in: on to the bumps, the exchange or the play (``_run_nb``'s order)."""
    state[S_BUMPED] = 0
    state[S_POSITION] = 0
    state[S_PASS_STEP] = 0
    state[S_PASSED] = 0
    state[S_N_EXCHANGED] = 0
    state[S_STAGE] = STAGE_BUMP if rules.bid_bump else STAGE_EXCHANGE


@njit(cache=True)
def bump_step_nb(rules, table, param_rows, python_mask, state, rng, rates):
    """The bumps from bidding position ``state[S_POSITION]`` on; True to yield to a seat that
    decides its own bump (``state[S_ACTION]`` then holds its answer at the next call)."""
    players = rules.players
    hand_size = rules.hand_size
    kinds_packed = table[T_KINDS]
    first = wrap_seat_nb(state[S_DEALER] + 1, players)
    blind = state[S_BLIND]
    scores = four_nb(state, S_SCORES)
    bags = four_nb(state, S_BAGS)
    position = state[S_POSITION]
    while position < players:
        seat = wrap_seat_nb(first + position, players)
        bids = state[S_BIDS]
        bid = byte_of_nb(bids, seat)
        nil = bid == 0 and (rules.nil != 0 or flag_of_nb(blind, seat) != 0)
        if nil or flag_of_nb(blind, seat) or bid >= hand_size:
            position += 1
            continue
        if (python_mask >> (FULL_SHIFT + seat)) & 1:
            if state[S_ACTION] < 0:
                state[S_POSITION] = position
                yield_nb(state, seat, PHASE_BUMP, 3)
                return True
            bump = state[S_ACTION] == 1
            state[S_ACTION] = -1
        else:
            kind = byte_of_nb(kinds_packed, seat)
            estimate = 0.0
            if kind != STRATEGY_RANDOM:
                estimate = estimate_tricks_nb(rules, param_rows[seat], state[S_HANDS + seat])
            bump, rng[1] = choose_bump_nb(rules, kind, param_rows, rates[2], seat, position,
                                          estimate, bids, scores, bags, rng[1])
        if bump:
            state[S_BIDS] = bids + (1 << (8 * seat))
            state[S_BUMPED] |= 1 << seat
        position += 1
    state[S_POSITION] = 0
    state[S_STAGE] = STAGE_EXCHANGE
    return False


@njit(cache=True)
def exchange_step_nb(rules, table, python_mask, state, rng, records):
    """The exchange passes from ``state[S_PASS_STEP]`` on (each nil bidder's side in bidding
    order: the nil bidder gives, its partner returns); True to yield to a giver that chooses
    its own cards, one card a call. Then the first leader and the play's facts."""
    players = rules.players
    kinds_packed = table[T_KINDS]
    bids = state[S_BIDS]
    blind = state[S_BLIND]
    first = wrap_seat_nb(state[S_DEALER] + 1, players)
    row = state[S_ROW]
    if rules.partnership != 0 and (rules.blind_nil_exchange > 0 or rules.nil_exchange > 0) \
            and ((bids - 0x01010101) & ~bids & 0x80808080) != 0:
        step = state[S_PASS_STEP]
        while step < 2 * players:
            seat = wrap_seat_nb(first + step // 2, players)
            n_pass = exchange_size_nb(rules, seat, bids, blind)
            if n_pass == 0:
                step += 2
                continue
            back = step & 1
            partner = (seat + 2) & 3
            giver = partner if back else seat
            taker = seat if back else partner
            hand = state[S_HANDS + giver]
            if (python_mask >> (FULL_SHIFT + giver)) & 1:
                if state[S_ACTION] >= 0:
                    state[S_PASSED] |= 1 << state[S_ACTION]
                    state[S_ACTION] = -1
                chosen = state[S_PASSED]
                left = n_pass - popcount_nb(chosen)
                if left > 0:
                    state[S_PASS_STEP] = step
                    state[S_PASS_LEFT] = left
                    yield_nb(state, giver, PHASE_PASS, hand & ~chosen)
                    return True
                given = chosen
                state[S_PASSED] = 0
            else:
                given, rng[1] = choose_pass_nb(byte_of_nb(kinds_packed, giver), hand, n_pass,
                                               back == 0, rng[1])
            state[S_HANDS + giver] = hand ^ given
            state[S_HANDS + taker] |= given
            n_exchanged = state[S_N_EXCHANGED]
            while given:
                records[row, R_EXCHANGE + 3 * n_exchanged] = giver
                records[row, R_EXCHANGE + 3 * n_exchanged + 1] = taker
                records[row, R_EXCHANGE + 3 * n_exchanged + 2] = lowest_card(given)
                n_exchanged += 1
                given &= given - 1
            state[S_N_EXCHANGED] = n_exchanged
            step += 1
        state[S_PASS_STEP] = step
    _start_play_nb(rules, table, state, rng)
    return False


@njit(cache=True)
def yield_nb(state, seat, phase, legal):
    """Mark a yield to ``seat`` for a decision of ``phase`` with ``legal`` choices."""
    state[S_SEAT] = seat
    state[S_PHASE] = phase
    state[S_LEGAL] = legal


@njit(cache=True)
def popcount_nb(bits):
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True)
def _start_play_nb(rules, table, state, rng):
    """The first leader, the play's per-hand facts and the strategies' play bits."""
    players = rules.players
    dealer = state[S_DEALER]
    bids = state[S_BIDS]
    blind = state[S_BLIND]
    bags = four_nb(state, S_BAGS)
    if rules.first_leader == FIRST_LEADER_DEALER_LEFT:
        leader = wrap_seat_nb(dealer + 1, players)
    elif rules.first_leader == FIRST_LEADER_RANDOM:
        leader, rng[0] = bounded_nb(rng[0], players)
    else:  # two_of_clubs: its holder leads it
        leader = 0
        for seat in range(players):
            if state[S_HANDS + seat] & 1:
                leader = seat
    state[S_LEADER] = leader
    state[S_FIRST_LEADER] = leader
    facts = (0, 0, 0)
    if table[T_KINDS] != 0:
        facts = hand_facts_nb(rules, bids, blind)
    for i in range(3):
        state[S_FACTS + i] = facts[i]
    hand_play = table[T_PLAY]
    if table[T_RULE_MASK] != 0:
        hand_play = table[T_RULE_STATIC]
        if max(max(bags[0], bags[1]), max(bags[2], bags[3])) >= table[T_RULE_BAG_FLOOR]:
            hand_play = rule_play_bits_nb(rules, table[T_PLAY], table[T_RULE_MASK], bids, blind,
                                          bags)
    state[S_HAND_PLAY] = hand_play
    for slot in (S_TRICKS, S_PLAYED, S_TAKEN, S_BROKEN, S_VOIDS, S_TRICK_INDEX, S_POSITION,
                 S_ILLEGAL, S_TRICK_CARDS):
        state[slot] = 0
    state[S_STAGE] = STAGE_PLAY


@njit(cache=True)
def score_nb(rules, state, records, game_records, games_mode):
    """Score and record the hand (``_run_nb``); True when the unit is over."""
    if state[S_ILLEGAL]:
        raise ValueError("a strategy chose an illegal card")
    row = state[S_ROW]
    bids = state[S_BIDS]
    blind = state[S_BLIND]
    tricks = state[S_TRICKS]
    records[row, R_HAND_ID] = state[S_HAND_ID]
    records[row, R_GAME_ID] = state[S_GAME_ID]
    records[row, R_DEALER] = state[S_DEALER]
    records[row, R_FIRST_LEADER] = state[S_FIRST_LEADER]
    for seat in range(4):
        records[row, R_HANDS + seat] = state[S_DEALT + seat]
    for seat in range(rules.players):
        records[row, R_BIDS + seat] = byte_of_nb(bids, seat)
        records[row, R_BLIND + seat] = (blind >> seat) & 1
        records[row, R_BUMPED + seat] = (state[S_BUMPED] >> seat) & 1
        records[row, R_TRICKS + seat] = byte_of_nb(tricks, seat)
    for side in range(rules.n_sides):
        delta, bags_after = score_side_nb(rules, side, bids, blind, tricks, state[S_BAGS + side])
        records[row, R_SCORE_BEFORE + side] = state[S_SCORES + side]
        records[row, R_BAGS_BEFORE + side] = state[S_BAGS + side]
        records[row, R_SCORE_DELTA + side] = delta
        records[row, R_BAGS_AFTER + side] = bags_after
        state[S_SCORES + side] += delta
        state[S_BAGS + side] = bags_after
    state[S_ROW] = row + 1
    state[S_N_HANDS] += 1
    n_hands = state[S_N_HANDS]
    if not games_mode:
        return True
    over, winner = game_over_nb(rules, four_nb(state, S_SCORES))
    if not over and rules.max_hands > 0 and n_hands >= rules.max_hands:
        over = True
    elif not over and n_hands >= rules.hand_cap:
        over = True
        winner = -1
    if over:
        unit = state[S_UNIT]
        game_records[unit, G_GAME_ID] = state[S_GAME_ID]
        game_records[unit, G_FIRST_DEALER] = state[S_FIRST_DEALER]
        game_records[unit, G_N_HANDS] = n_hands
        game_records[unit, G_WINNER] = winner
        for side in range(rules.n_sides):
            game_records[unit, G_FINAL_SCORE + side] = state[S_SCORES + side]
            game_records[unit, G_FINAL_BAGS + side] = state[S_BAGS + side]
        return True
    state[S_DEALER] = wrap_seat_nb(state[S_DEALER] + 1, rules.players)
    state[S_KEY_INDEX] += 1
    state[S_HAND_ID] = n_hands
    return False
