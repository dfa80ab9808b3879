"""Slow, readable, pure-Python twin of the numba engine: the test oracle.

From the same stream keys this module reproduces the engine bit for bit: the dealt hands (the
shuffle, the misdeal redeal and the two-player draw deal), the dealer and first leader, every
blind choice, bid and bid bump, every card passed in an exchange, every play, the tricks, the
score and bag counters, and for whole games the sequence of hands and the game results. It
follows the draw contract documented in ``engine/rng.py`` and ``engine/deal.py`` and mirrors,
decision for decision, the auction of ``engine/bidding.py`` and the strategies of
``engine/strategy_kernels.py`` (floating-point sums in the same order, so ties and thresholds
fall the same way). It uses plain Python ints for bitboards and the PRNG and never calls a
kernel.

The stream order of one hand: the deal stream shuffles (and redeals), then draws the first
leader under ``first_leader = "random"``; the play stream makes the draw deal's keep choices,
then per bidder in bidding order its blind choice (only when a blind option is allowed) and its
bid (only when it looked), then the bump choices, then the exchange passes, then the cards.

It is also the home of the small pure rule helpers that the hand-log replay (``handlog.py``)
reuses: :func:`legal_cards`, :func:`beats`, :func:`trick_winner`, :func:`breaks_spades`,
:func:`is_nil`, :func:`legal_bids`, :func:`blind_allowed`, :func:`exchange_size` and
:func:`score_hand`.
"""

from __future__ import annotations

from .cards import JOKER_MASK, SUIT_MASKS, cards_of, mask_of, suit_of
from .rules import Rules
from .strategies import Strategy, parse_strategy

# --- the draw contract (engine/rng.py) -------------------------------------------------------
MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
WY_INCREMENT = 0xA0761D6478BD642F
WY_XOR = 0xE7037ED1A0B428DB
GAME_SHIFT = 20  # game g: first dealer on key index g << 20, its hand j on (g << 20) + 1 + j
# A random strategy's probability ``rate`` is the threshold ``round(rate * RATE_ONE)``: the
# choice is made when ``bounded(RATE_ONE)`` draws below it (``engine/layout.py``).
RATE_ONE = 1 << 15

# --- card sets ------------------------------------------------------------------------------
TRUMP_MASK = SUIT_MASKS[3] | JOKER_MASK  # spades and both jokers
NON_TRUMP_MASK = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
KQJ_MASK = 0
for _suit in range(4):
    KQJ_MASK |= 0b0111 << (13 * _suit + 9)  # J, Q, K of every suit (the misdeal check)
ACE_OF_SPADES, KING_OF_SPADES, QUEEN_OF_SPADES = 51, 50, 49
TWO_OF_CLUBS = 0


def mix64(value: int) -> int:
    """The splitmix64 finalizer on a 64-bit int."""
    value &= MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


class Stream:
    """One wyrand generator, seeded for key index ``key_index`` of the stream ``key``.

    >>> stream = Stream(0, 0)
    >>> [stream.bounded(52) for _ in range(5)]
    [24, 38, 44, 0, 1]
    """

    def __init__(self, key: int, key_index: int):
        self.state = mix64(int(key) + (int(key_index) + 1) * GOLDEN_GAMMA)

    def next_u64(self) -> int:
        """Next 64-bit output: the 128-bit product of the state and ``state ^ WY_XOR``, folded."""
        self.state = (self.state + WY_INCREMENT) & MASK64
        product = self.state * (self.state ^ WY_XOR)
        return (product >> 64) ^ (product & MASK64)

    def bounded(self, n: int) -> int:
        """Uniform int in ``0..n-1``: Lemire's method on the upper 32 bits of one output."""
        product = (self.next_u64() >> 32) * n
        low = product & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                product = (self.next_u64() >> 32) * n
                low = product & 0xFFFFFFFF
        return product >> 32


# --- cards and tricks ------------------------------------------------------------------------
def suit_cards(mask: int, suit: int) -> int:
    """The cards of ``suit`` in ``mask``; the spade suit includes the jokers."""
    if suit == 3:
        return mask & TRUMP_MASK
    return mask & SUIT_MASKS[suit]


def rank_of(card: int) -> int:
    """Rank 0..12 (2..A); LJ = 13 and BJ = 14 outrank every card."""
    return card - 39 if card >= 52 else card % 13


def lowest(mask: int) -> int:
    """Lowest card index of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def highest(mask: int) -> int:
    """Highest card index of a non-empty mask."""
    return mask.bit_length() - 1


def legal_cards(rules: Rules, hand_mask: int, led_suit: int | None, spades_broken: bool,
                trick_index: int) -> int:
    """Bitboard of the cards of ``hand_mask`` that may be played now.

    Parameters
    ----------
    rules : Rules
        The rule variant (``spades_lead`` and ``first_leader`` matter here).
    hand_mask : int
        The cards the seat holds now.
    led_suit : int or None
        Suit of the card led to this trick (0..3, jokers are spades), or None when leading.
    spades_broken : bool
        Whether spades are broken before this play.
    trick_index : int
        0-based index of the trick.

    Returns
    -------
    int
        A bitboard: following, the cards of the led suit if any, else the whole hand; leading,
        trumps only where ``spades_lead`` allows it or when the hand holds nothing else, and
        under ``first_leader = "two_of_clubs"`` only the 2C to the first trick (empty when the
        seat does not hold it).

    Examples
    --------
    >>> from spades_sim.rules import preset
    >>> hand = mask_of([0, 40])  # 2C and 3S
    >>> cards_of(legal_cards(preset("classic"), hand, None, False, 3))
    [0]
    >>> cards_of(legal_cards(preset("classic"), hand, 3, False, 3))
    [40]
    """
    if led_suit is not None:
        follow = suit_cards(hand_mask, led_suit)
        return follow if follow else hand_mask
    if rules.first_leader == "two_of_clubs" and trick_index == 0:
        return hand_mask & (1 << TWO_OF_CLUBS)
    if rules.spades_lead == "anytime" or spades_broken:
        return hand_mask
    if rules.spades_lead == "after_first_trick" and trick_index > 0:
        return hand_mask
    side_cards = hand_mask & NON_TRUMP_MASK
    return side_cards if side_cards else hand_mask


def beats(card: int, winning_card: int) -> bool:
    """True when ``card`` takes the trick from ``winning_card``.

    A trump (spade or joker) beats any non-trump and every lower trump; otherwise only a higher
    card of the same suit wins.

    >>> beats(39, 12), beats(11, 12), beats(25, 12)
    (True, False, False)
    """
    card_trump = card >= 39
    winner_trump = winning_card >= 39
    if card_trump:
        return (not winner_trump) or card > winning_card
    if winner_trump:
        return False
    return suit_of(card) == suit_of(winning_card) and card > winning_card


def trick_winner(cards) -> int:
    """Position (0 = the lead) of the card that wins a trick of ``cards`` in play order.

    >>> trick_winner([5, 12, 40, 3])
    2
    """
    best = 0
    for position in range(1, len(cards)):
        if beats(cards[position], cards[best]):
            best = position
    return best


def breaks_spades(rules: Rules, card: int, position: int, led_suit: int | None,
                  hand_mask: int) -> bool:
    """Whether playing ``card`` breaks spades.

    ``position`` is the 0-based place in the trick, ``led_suit`` the suit led (None when
    leading), ``hand_mask`` the hand before the play. A trump played on another suit's lead
    breaks spades; with ``broken_by_forced_lead``, so does a trump led from an all-trump hand.
    """
    if card < 39:
        return False
    if position == 0:
        return rules.broken_by_forced_lead and (hand_mask & NON_TRUMP_MASK) == 0
    return led_suit != 3


def is_misdeal(hand_mask: int) -> bool:
    """A hand with no trump or no K, Q or J (``misdeal_redeal``)."""
    return (hand_mask & TRUMP_MASK) == 0 or (hand_mask & KQJ_MASK) == 0


def is_nil(rules: Rules, bid: int, blind: bool) -> bool:
    """A bid of 0 is nil where ``nil`` is on; a blind 0 is always a (blind) nil."""
    return bid == 0 and (rules.nil or bool(blind))


# --- the auction (engine/bidding.py) ----------------------------------------------------------
def bids_of(mask: int) -> list[int]:
    """The bids of a bid bitmask (bit ``b`` = bid ``b``), lowest first."""
    return cards_of(mask)


def legal_bids(rules: Rules, seat: int, position: int, bids, blind, zero_is_nil: bool) -> int:
    """Bitmask of the bids (bit ``b`` = bid ``b``, 0..hand_size) ``seat`` may make.

    Parameters
    ----------
    rules : Rules
    seat : int
    position : int
        0-based place of ``seat`` in the bidding order (``players - 1`` bids last).
    bids : sequence of int, one per seat
        The bids made so far (before any bump); -1 (or None) for a seat yet to bid.
    blind : sequence of bool, one per seat
    zero_is_nil : bool
        Whether a 0 from ``seat`` here would be a nil (a blind 0 always is).

    Returns
    -------
    int
        ``bids_total_not_tricks``: the last bidder may not make the total equal the number of
        tricks. ``min_team_bid``: once the partner has bid, and not a nil, the two bids must
        reach the minimum, unless this bid is a nil.

    >>> from spades_sim.rules import preset
    >>> rules = preset("classic", bids_total_not_tricks=True, min_team_bid=5)
    >>> bids_of(legal_bids(rules, 3, 3, [4, 3, 2, -1], [False] * 4, True))  # not 4, not 1
    [0, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    """
    size = rules.hand_size
    legal = (2 << size) - 1
    if rules.bids_total_not_tricks and position == rules.players - 1:
        total = sum(bids[other] for other in range(rules.players) if other != seat)
        if total <= size:
            legal &= ~(1 << (size - total))
    if rules.min_team_bid > 0 and rules.partnership:
        partner = (seat + 2) % 4
        partner_bid = bids[partner]
        if _has_bid(partner_bid) and not is_nil(rules, partner_bid, blind[partner]):
            need = rules.min_team_bid - partner_bid
            if need > 0:
                allowed = ~((1 << need) - 1)
                if zero_is_nil:
                    allowed |= 1
                legal &= allowed
    return legal


def _has_bid(bid) -> bool:
    return bid is not None and bid >= 0


def deficit(rules: Rules, seat: int, scores) -> int:
    """How far the seat's side trails the best other side (negative when ahead).

    >>> from spades_sim.rules import preset
    >>> deficit(preset("classic"), 1, [250, 40]), deficit(preset("cutthroat"), 0, [90, 100, 20])
    (210, 10)
    """
    side = rules.side_of(seat)
    best_other = max(score for other, score in enumerate(scores) if other != side)
    return best_other - scores[side]


def blind_allowed(min_deficit: int, behind: int) -> bool:
    """Whether a blind bid whose ``..._min_deficit`` field is ``min_deficit`` is allowed to a side
    that trails the leading other side by ``behind`` (negative when ahead).

    rules.md: allowed "only when the bidder's side trails the leading other side by at least the
    field's ``..._min_deficit``", and "a ``..._min_deficit`` of 0 means always allowed, even when
    ahead".

    >>> blind_allowed(100, 100), blind_allowed(100, 99), blind_allowed(0, -300)
    (True, False, True)
    """
    return min_deficit == 0 or behind >= min_deficit


def exchange_size(rules: Rules, seat: int, bids, blind) -> int:
    """Cards ``seat`` passes to its partner (who passes as many back); 0 when it does not.

    A blind-nil bidder whose partner did not also bid blind nil passes ``blind_nil_exchange``
    (also when the partner bid a plain nil); a plain nil bidder whose partner bid no nil at all
    passes ``nil_exchange``. Two blind nils, or two plain nils, never exchange.

    >>> from spades_sim.rules import preset
    >>> rules = preset("classic", nil_exchange=2)
    >>> [exchange_size(rules, seat, [0, 4, 0, 3], [True, False, False, False]) for seat in range(4)]
    [3, 0, 0, 0]
    >>> [exchange_size(rules, seat, [3, 0, 5, 4], [False] * 4) for seat in range(4)]
    [0, 2, 0, 0]
    """
    if not rules.partnership:
        return 0
    partner = (seat + 2) % 4
    if bids[seat] == 0 and blind[seat]:
        partner_blind_nil = bids[partner] == 0 and blind[partner]
        return 0 if partner_blind_nil else rules.blind_nil_exchange
    if bids[seat] == 0 and rules.nil and not is_nil(rules, bids[partner], blind[partner]):
        return rules.nil_exchange
    return 0


# --- scoring --------------------------------------------------------------------------------
def score_side(rules: Rules, side: int, bids, blind, tricks, bags_before: int) -> tuple[int, int]:
    """Points and bag counter after the hand for one side: ``(delta, bags_after)``."""
    contract = 0
    contract_tricks = 0
    points = 0
    bags = 0
    nil_count = 0
    nils_made = 0
    nil_bonus_sum = 0
    nil_points = 0
    for seat in range(rules.players):
        if rules.side_of(seat) != side:
            continue
        if is_nil(rules, bids[seat], blind[seat]):
            bonus = rules.blind_nil_bonus if blind[seat] else rules.nil_bonus
            nil_count += 1
            nil_bonus_sum += bonus
            if tricks[seat] == 0:
                nils_made += 1
                nil_points += bonus
            else:
                nil_points -= bonus
                if rules.failed_nil_tricks == "count_toward_bid":
                    contract_tricks += tricks[seat]
                else:  # bags_only: each trick of a failed nil is a 1-point bag
                    points += tricks[seat]
                    bags += tricks[seat]
        else:
            contract += bids[seat]
            contract_tricks += tricks[seat]
            if blind[seat] and bids[seat] > 0:  # a blind number bid, made exactly or lost
                blind_bonus = rules.blind_bid_bonus_per_trick * bids[seat]
                points += blind_bonus if tricks[seat] == bids[seat] else -blind_bonus
    if nil_count == 2:  # both partners nil
        if rules.double_nil == "additive":
            points += nil_points
        elif rules.double_nil == "fixed":
            if nils_made == 2:
                points += rules.double_nil_bonus
            elif nils_made == 0:
                points -= rules.double_nil_bonus
        elif nils_made == 2:  # doubled_no_penalty
            points += 2 * nil_bonus_sum
    else:
        points += nil_points
    if contract > 0:
        big = rules.ten_for_two_hundred and contract >= 10
        if contract_tricks >= contract:
            overtricks = contract_tricks - contract
            points += (200 if big else 10 * contract) + overtricks * rules.overtrick_points
            bags += overtricks
        elif big:
            points -= 200
        elif rules.set_penalty == "per_bid":
            points -= 10 * contract
        else:  # per_trick_short
            points -= 10 * (contract - contract_tricks)
    else:
        # A side with no contract takes every contract trick as an overtrick.
        points += contract_tricks * rules.overtrick_points
        bags += contract_tricks
    bags_after = bags_before + bags
    if rules.bag_limit > 0:
        while bags_after >= rules.bag_limit:
            points -= rules.bag_penalty
            bags_after -= rules.bag_limit
    return points, bags_after


def score_hand(rules: Rules, bids, blind, tricks, bags_before) -> tuple[list[int], list[int]]:
    """Score one hand per side (``../shared/spec/rules.md``, "Scoring one hand, per side").

    Parameters
    ----------
    rules : Rules
        The rule variant; every scoring field is honoured.
    bids, blind, tricks : sequence of int (or bool for ``blind``), one per seat
        Final bids (after any bump), whether each bid was blind, tricks won.
    bags_before : sequence of int, one per side
        Bag counters before the hand.

    Returns
    -------
    (list of int, list of int)
        Per side (``rules.n_sides``): the points of this hand (bag penalties included) and the
        bag counter after the hand.

    Examples
    --------
    >>> from spades_sim.rules import preset
    >>> score_hand(preset("classic"), [4, 3, 0, 3], [0, 0, 0, 0], [5, 3, 0, 5], [0, 0])
    ([141, 62], [1, 2])
    """
    deltas, bags_after = [], []
    for side in range(rules.n_sides):
        delta, bags = score_side(rules, side, bids, blind, tricks, int(bags_before[side]))
        deltas.append(delta)
        bags_after.append(bags)
    return deltas, bags_after


def game_over(rules: Rules, scores, n_hands: int) -> tuple[bool, int]:
    """``(over, winner)`` after ``n_hands`` hands of a game; winner -1 is a tie or a draw.

    A unique highest score at or over the target wins (a tie there plays on); a side at or below
    ``mercy`` ends the game; ``max_hands`` ends it; ``hand_cap`` ends it as a draw.
    """
    top = max(scores)
    n_top = scores.count(top)
    unique_leader = scores.index(top) if n_top == 1 else -1
    if top >= rules.target and n_top == 1:
        return True, unique_leader
    if rules.mercy is not None and min(scores) <= rules.mercy:
        return True, unique_leader
    if rules.max_hands is not None and n_hands >= rules.max_hands:
        return True, unique_leader
    if n_hands >= rules.hand_cap:
        return True, -1
    return False, -1


# --- dealing (engine/deal.py) ---------------------------------------------------------------
def shuffled_deck(rules: Rules, stream: Stream) -> list[int]:
    """The rules' deck in ascending index order, then Fisher-Yates from the top on ``stream``:
    for ``i = n-1 .. 1`` swap ``deck[i]`` with ``deck[bounded(i + 1)]``."""
    deck = cards_of(rules.deck_mask)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.bounded(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal(rules: Rules, stream: Stream) -> list[int]:
    """Shuffle and deal on the deal stream; one bitboard per seat.

    After :func:`shuffled_deck`, seat ``s`` gets ``deck[s*hand_size:(s+1)*hand_size]``. With
    ``misdeal_redeal`` the whole deal repeats on the same stream while a hand is a misdeal.
    """
    size = rules.hand_size
    while True:
        deck = shuffled_deck(rules, stream)
        hands = [mask_of(deck[seat * size:(seat + 1) * size]) for seat in range(rules.players)]
        if not rules.misdeal_redeal or not any(is_misdeal(hand) for hand in hands):
            return hands


def draw_deal(rules: Rules, strategies, dealer: int, deal_stream: Stream,
              play_stream: Stream) -> list[int]:
    """The two-player draw deal (``deal = "draw"``); one bitboard per seat.

    The stock is :func:`shuffled_deck` (deal stream). The player left of the dealer draws first
    from ``deck[0:26]``: pair ``p`` is ``deck[2p]`` (face up) and ``deck[2p + 1]`` (face down);
    it keeps the face-up card or takes the face-down one (:func:`choose_keep`, play stream).
    Then the other player does the same with ``deck[26:52]``.
    """
    deck = shuffled_deck(rules, deal_stream)
    hands = [0, 0]
    first = (dealer + 1) % 2
    for turn, seat in enumerate((first, 1 - first)):
        stock = deck[26 * turn:26 * (turn + 1)]
        for pair in range(rules.hand_size):
            face_up, face_down = stock[2 * pair], stock[2 * pair + 1]
            keep = choose_keep(strategies[seat], face_up, play_stream)
            hands[seat] |= 1 << (face_up if keep else face_down)
    return hands


# --- strategies (engine/strategy_kernels.py) --------------------------------------------------
def lowest_rank(mask: int) -> int:
    """The card of lowest rank in ``mask`` (ties: the lowest suit)."""
    best_card, best_rank = -1, 99
    for suit in range(4):
        cards = suit_cards(mask, suit)
        if cards:
            card = lowest(cards)
            if rank_of(card) < best_rank:
                best_card, best_rank = card, rank_of(card)
    return best_card


def highest_rank(mask: int) -> int:
    """The card of highest rank in ``mask`` (ties: the lowest suit)."""
    best_card, best_rank = -1, -1
    for suit in range(4):
        cards = suit_cards(mask, suit)
        if cards:
            card = highest(cards)
            if rank_of(card) > best_rank:
                best_card, best_rank = card, rank_of(card)
    return best_card


def prefer_side_suits(mask: int) -> int:
    """The non-trumps of ``mask`` when it has any, else ``mask``."""
    side_cards = mask & NON_TRUMP_MASK
    return side_cards if side_cards else mask


def winning_cards(legal: int, winning_card: int) -> int:
    """The cards of ``legal`` that would take the lead from ``winning_card`` now."""
    above = ~((2 << winning_card) - 1)
    if winning_card >= 39:
        return legal & TRUMP_MASK & above
    return (suit_cards(legal, suit_of(winning_card)) & above) | (legal & TRUMP_MASK)


def rate_threshold(rate: float) -> int:
    """A random strategy's probability as its threshold out of ``RATE_ONE``:
    ``round(rate * RATE_ONE)``, computed as the kernel does (``int(rate * RATE_ONE + 0.5)``)."""
    return int(rate * RATE_ONE + 0.5)


def chance(rate: float, stream: Stream) -> bool:
    """One draw ``bounded(RATE_ONE)``: true when it falls below the threshold of ``rate``."""
    return stream.bounded(RATE_ONE) < rate_threshold(rate)


def estimate_tricks(rules: Rules, params: dict, hand: int) -> float:
    """The heuristic's trick estimate (same terms, same order as the kernel).

    Side suits: ``ace`` per ace, ``king`` per guarded king, ``queen`` per twice-guarded queen,
    ``long_suit`` per card beyond the fourth; the deck's three highest trumps (AS, KS, QS; BJ,
    LJ, AS with jokers) ``trump_honour`` each when held with enough trumps; ``long_spade`` per
    trump beyond ``rules.trump_share``; ``ruff`` per spare trump that can ruff (two per void,
    one per singleton). Scaled by ``draw_scale`` after the draw
    deal, else by ``4 / players``. The kernel adds ``param * 0`` where a term does not apply,
    which leaves the sum bit for bit as if the term were skipped, as it is here.
    """
    estimate = 0.0
    ruff_chances = 0
    for suit in range(3):
        cards = suit_cards(hand, suit)
        length = cards.bit_count()
        if length == 0:
            ruff_chances += 2
        elif length == 1:
            ruff_chances += 1
        base = 13 * suit
        if cards & (1 << (base + 12)):
            estimate += params["ace"]
        if length >= 2 and cards & (1 << (base + 11)):
            estimate += params["king"]
        if length >= 3 and cards & (1 << (base + 10)):
            estimate += params["queen"]
        if length > 4:
            estimate += params["long_suit"] * (length - 4)
    trumps = hand & TRUMP_MASK
    n_trumps = trumps.bit_count()
    top = highest(rules.deck_mask)  # the deck's highest trump: AS, or BJ with jokers
    honours = 0
    for rank_below, needed in ((0, 1), (1, 2), (2, 3)):
        if trumps >> (top - rank_below) & 1 and n_trumps >= needed:
            honours += 1
    estimate += params["trump_honour"] * honours
    if n_trumps > rules.trump_share:
        estimate += params["long_spade"] * (n_trumps - rules.trump_share)
    spare = min(n_trumps - honours, ruff_chances)
    if spare > 0:
        estimate += params["ruff"] * spare
    if rules.deal == "draw":
        return estimate * params["draw_scale"]
    if rules.players != 4:
        return estimate * (4.0 / rules.players)
    return estimate


def choose_keep(strategy: Strategy, face_up: int, play_stream: Stream) -> bool:
    """Draw deal: whether to keep the face-up card (else take the face-down one).

    ``random``: a ``keep_rate`` chance. ``heuristic``: a card of rank ``keep_rank`` or higher
    (jokers rank 13 and 14).
    """
    if strategy.kind.name == "random":
        return chance(strategy.params["keep_rate"], play_stream)
    return rank_of(face_up) >= strategy.params["keep_rank"]


def choose_blind(strategy: Strategy, behind: int, partner_nil: bool, blind_nil_ok: bool,
                 blind_bids: int, play_stream: Stream) -> int:
    """Before looking at its cards: -1 to look, 0 for blind nil, or a blind number bid.

    Called only when an option exists: ``blind_nil_ok``, or ``blind_bids`` (a bid bitmask of
    the blind number bids allowed). ``random``: one draw ``u = bounded(RATE_ONE)``; blind nil
    when ``u`` is below the ``blind_nil_rate`` threshold (if allowed), else a blind bid when it
    is below both thresholds together (if one is allowed: a second draw picks it uniformly).
    ``heuristic``: blind nil when trailing by ``blind_nil_deficit`` and the partner has not bid
    a nil, else the allowed blind bid nearest to ``blind_bid`` (at or below it first) when
    trailing by ``blind_bid_deficit``.
    """
    params = strategy.params
    if strategy.kind.name == "random":
        draw = play_stream.bounded(RATE_ONE)
        threshold = rate_threshold(params["blind_nil_rate"]) if blind_nil_ok else 0
        if draw < threshold:
            return 0
        if blind_bids:
            threshold += rate_threshold(params["blind_bid_rate"])
            if draw < threshold:
                options = bids_of(blind_bids)
                return options[play_stream.bounded(len(options))]
        return -1
    if blind_nil_ok and not partner_nil and behind >= params["blind_nil_deficit"]:
        return 0
    if blind_bids and behind >= params["blind_bid_deficit"]:
        want = int(params["blind_bid"])
        at_or_below = [bid for bid in bids_of(blind_bids) if bid <= want]
        return at_or_below[-1] if at_or_below else bids_of(blind_bids)[0]
    return -1


def nearest_legal_bid(bid: int, legal: int, hand_size: int) -> int:
    """``bid`` if ``legal`` allows it, else the nearest allowed non-zero bid (above first), else
    0.

    >>> nearest_legal_bid(4, 0b1101111, 13), nearest_legal_bid(4, 0b0000001, 13)
    (5, 0)
    """
    if legal >> bid & 1:
        return bid
    for distance in range(1, hand_size + 1):
        up, down = bid + distance, bid - distance
        if up <= hand_size and legal >> up & 1:
            return up
        if down >= 1 and legal >> down & 1:
            return down
    return 0


def score_adjustment(rules: Rules, params: dict, seat: int, scores, bags) -> float:
    """What the heuristic adds to its bid for the score (``engine/strategy_kernels.py``,
    ``score_adjustment_nb``): ``bag_guard_boost`` within ``bag_guard`` bags of the bag limit;
    with ``endgame_points`` > 0, ``endgame_safe`` when its side leads within that many points
    of the target, else ``endgame_push`` when a side ahead of it is."""
    side = seat % 2 if rules.partnership else seat
    adjustment = 0.0
    guard = params["bag_guard"]
    if guard > 0 and rules.bag_limit > 0 and bags[side] >= rules.bag_limit - guard:
        adjustment += params["bag_guard_boost"]
    window = params["endgame_points"]
    if window > 0:
        own = scores[side]
        best_other = max(scores[other] for other in range(rules.n_sides) if other != side)
        if own > best_other and rules.target - own <= window:
            adjustment += params["endgame_safe"]
        elif best_other > own and rules.target - best_other <= window:
            adjustment += params["endgame_push"]
    return adjustment


SIDE_ACES_KINGS = sum(1 << (13 * suit + rank) for suit in range(3) for rank in (11, 12))


def choose_bid(rules: Rules, strategy: Strategy, seat: int, hand: int, bids: list[int],
               legal: int, scores, bags, play_stream: Stream) -> int:
    """The bid of ``seat`` having seen ``hand``; ``bids`` holds -1 for seats yet to bid and
    ``legal`` is the bid bitmask of :func:`legal_bids`; ``scores`` and ``bags`` per side.

    ``random``: uniform among the legal bids in ``bid_min..bid_max``, among all the legal ones
    when none is there (one draw). ``heuristic``: nil (see the conditions below) or
    ``round(estimate + aggression + score_adjustment)`` within 1..hand_size, then
    :func:`nearest_legal_bid`.
    """
    params = strategy.params
    if strategy.kind.name == "random":
        low, high = int(params["bid_min"]), int(params["bid_max"])
        candidates = [bid for bid in bids_of(legal) if low <= bid <= high] or bids_of(legal)
        return candidates[play_stream.bounded(len(candidates))]
    estimate = estimate_tricks(rules, params, hand)
    partner_bid = bids[(seat + 2) % rules.players] if rules.partnership else -1
    if (
        rules.nil
        and partner_bid != 0
        and (partner_bid == -1 or partner_bid >= params["nil_partner_min"])
        and estimate <= params["nil_threshold"]
        and (hand & TRUMP_MASK).bit_count() <= params["nil_max_spades"]
        and (hand & SIDE_ACES_KINGS).bit_count() <= params["nil_max_high"]
        and not hand & (1 << ACE_OF_SPADES)
    ):
        bid = 0
    else:
        adjustment = score_adjustment(rules, params, seat, scores, bags)
        bid = min(max(int(estimate + params["aggression"] + adjustment + 0.5), 1),
                  rules.hand_size)
    return nearest_legal_bid(bid, legal, rules.hand_size)


def choose_bump(rules: Rules, strategy: Strategy, hand: int, bid: int,
                play_stream: Stream) -> bool:
    """Bid bump: whether to raise ``bid`` by one. ``random``: a ``bump_rate`` chance.
    ``heuristic``: when ``estimate + aggression - bid >= bump_threshold``."""
    params = strategy.params
    if strategy.kind.name == "random":
        return chance(params["bump_rate"], play_stream)
    margin = estimate_tricks(rules, params, hand) + params["aggression"] - bid
    return margin >= params["bump_threshold"]


def choose_pass(strategy: Strategy, hand: int, n_cards: int, nil_bidder: bool,
                play_stream: Stream) -> int:
    """The bitmask of the ``n_cards`` cards ``hand`` passes in an exchange.

    ``random``: one card at a time, uniformly among those left. ``heuristic``: the nil bidder
    passes its highest cards by rank (ties: the lowest suit); its partner passes back its
    lowest, side suits before trumps.
    """
    passed = 0
    left = hand
    for _ in range(n_cards):
        if strategy.kind.name == "random":
            card = cards_of(left)[play_stream.bounded(left.bit_count())]
        elif nil_bidder:
            card = highest_rank(left)
        else:
            card = lowest_rank(prefer_side_suits(left))
        passed |= 1 << card
        left &= ~(1 << card)
    return passed


def _is_live_nil(rules, bids, blind, tricks, seat) -> bool:
    return is_nil(rules, bids[seat], blind[seat]) and tricks[seat] == 0


def choose_card(rules: Rules, strategy: Strategy, seat: int, hand: int, legal: int,
                position: int, leader: int, winning_card: int, winning_seat: int, bids, blind,
                tricks, played_mask: int, play_stream: Stream) -> int:
    """The card ``seat`` plays from the non-empty bitboard ``legal``.

    ``position`` is the place in the trick (0 = leading); ``played_mask`` every card played so
    far this hand. The heuristic's priorities: its own live nil ducks; a partner's live nil is
    covered (``cover_nil``); an opponent's live nil is played under (``bust_nil``); else it wins
    cheaply while its side still needs tricks, and once the contract is safe ducks
    (``avoid_bags``) unless an opponent can still be set (``set_margin``).
    """
    if strategy.kind.name == "random":
        return cards_of(legal)[play_stream.bounded(legal.bit_count())]
    params = strategy.params
    players = rules.players
    leading = position == 0
    winners = 0 if leading else winning_cards(legal, winning_card)
    losers = legal & ~winners

    # 1. Our own live nil: lose every trick we can.
    if _is_live_nil(rules, bids, blind, tricks, seat):
        if leading:
            return lowest_rank(prefer_side_suits(legal))
        if losers:
            return highest_rank(prefer_side_suits(losers))
        return lowest(winners)

    # 2. Partner's live nil: cover it.
    if rules.partnership and params["cover_nil"]:
        partner = (seat + 2) % 4
        if _is_live_nil(rules, bids, blind, tricks, partner):
            if leading:
                return highest_rank(prefer_side_suits(legal))
            partner_played = (partner - leader) % players < position
            if partner_played:
                if winning_seat == partner and winners:
                    return lowest(winners)
            elif winners:
                return highest(winners)

    # 3. An opponent's live nil (the first one clockwise): stay under it.
    for offset in range(1, players if params["bust_nil"] else 1):
        other = (seat + offset) % players
        if rules.partnership and other % 2 == seat % 2:
            continue
        if _is_live_nil(rules, bids, blind, tricks, other):
            if leading:
                return lowest_rank(prefer_side_suits(legal))
            if not (other - leader) % players < position:
                return lowest_rank(prefer_side_suits(legal))
            if winning_seat == other:
                if losers:
                    return highest_rank(prefer_side_suits(losers))
                return lowest(winners)
            break

    # 4. Our contract.
    def side_need(member: int) -> int:  # tricks the side of ``member`` lacks for its contract
        contract = taken = 0
        for other in range(players):
            same_side = other == member or (rules.partnership and other % 2 == member % 2)
            if same_side and not is_nil(rules, bids[other], blind[other]):
                contract += bids[other]
                taken += tricks[other]
        return contract - taken

    win_tricks = side_need(seat) > 0 or not params["avoid_bags"]
    if not win_tricks and params["set_margin"] >= 0:
        left = rules.hand_size - sum(tricks)
        for offset in range(1, players):
            other = (seat + offset) % players
            if rules.partnership and other % 2 == seat % 2:
                continue
            need = side_need(other)
            if 0 < need and left - need <= params["set_margin"]:
                win_tricks = True
    if win_tricks:
        if leading:
            unseen = rules.deck_mask & ~played_mask & ~hand
            for suit in range(4):
                cards = suit_cards(legal, suit)
                if cards:
                    top = highest(cards)
                    if not suit_cards(unseen, suit) & ~((2 << top) - 1):
                        return top  # a master card
            return lowest_rank(prefer_side_suits(legal))
        if rules.partnership and winning_seat % 2 == seat % 2 and losers:
            return lowest_rank(prefer_side_suits(losers))
        if winners:
            return lowest(winners)
        return lowest_rank(prefer_side_suits(losers))
    if leading:
        return lowest_rank(prefer_side_suits(legal))
    if losers:
        return highest_rank(prefer_side_suits(losers))
    return lowest(winners)


# --- one hand, many hands, whole games ----------------------------------------------------------
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
                choice = choose_blind(strategy, behind, partner_nil, blind_nil_ok, blind_bids,
                                      play_stream)
        if choice >= 0:
            bids[seat] = choice
            blind[seat] = True
            continue
        legal = legal_bids(rules, seat, position, bids, blind, rules.nil)
        if not legal:  # (nil off, min_team_bid = hand size and bids_total_not_tricks can do it)
            raise ValueError(f"seat {seat} has no legal bid after the bids {bids}")
        bid = choose_bid(rules, strategy, seat, hands[seat], bids, legal, scores, bags,
                         play_stream)
        if not (0 <= bid <= size and legal >> bid & 1):
            raise ValueError(f"strategy {strategy} made the bid {bid} for seat {seat}, which "
                             f"the rules do not allow")
        bids[seat] = bid
    bumped = [False] * players
    if rules.bid_bump:
        for seat in order:
            bid = bids[seat]
            if is_nil(rules, bid, blind[seat]) or blind[seat] or bid >= size:
                continue
            if choose_bump(rules, strategies[seat], hands[seat], bid, play_stream):
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
              score_before, bags_before) -> dict:
    """Deal, bid, exchange, play and score one hand (the hand loop of ``engine/simulate.py``).

    Returns a dict with the hand-log fields (``hand_id`` and ``game_id`` are left to the caller)
    plus ``first_leader``; ``hands`` are the dealt bitboards (before any exchange), ``exchange``
    ``(from, to, card)`` triples, ``plays`` ``(seat, card)`` pairs.
    """
    players = rules.players
    deal_stream = Stream(deal_key, key_index)
    play_stream = Stream(play_key, key_index)
    if rules.deal == "draw":
        dealt = draw_deal(rules, strategies, dealer, deal_stream, play_stream)
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
    # What the search player reads (reference_search.py): cards played per seat, voids shown.
    played_by = [0, 0, 0, 0]
    voids = 0
    search_stream = None
    if any(strategy.kind.name == "mc" for strategy in strategies):
        from .reference_search import mc_card, search_key

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
                                   play_stream)
            if not legal >> card & 1:
                raise ValueError(f"strategy chose the illegal card {card} for seat {seat}")
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
    # Imported here, not at the top: ``api`` loads the numba entry kernels, which the pure rule
    # helpers above (used by the hand-log replay) do not need.
    from .api import stream_keys

    strategies = [parse_strategy(strategy) for strategy in strategies]
    if len(strategies) != rules.players:
        raise ValueError(f"{len(strategies)} strategies for {rules.players} seats")
    for strategy in strategies:
        if strategy.kind.name == "random" and strategy.params["bid_max"] > rules.hand_size:
            raise ValueError(f"strategy {strategy}: bid_max is above the hand size")
    deal_key, play_key = stream_keys(seed)
    return int(deal_key), int(play_key), strategies


def simulate_hands(rules: Rules, strategies, n_hands: int, seed: int,
                   first_hand_id: int = 0) -> list[dict]:
    """Independent hands from zero scores, as ``api.simulate_hands`` plays them.

    Parameters
    ----------
    rules : Rules
    strategies : list of Strategy (or strategy texts), one per seat
    n_hands : int
    seed : int
        Run seed; the stream keys come from ``api.stream_keys(seed)``.
    first_hand_id : int
        Id of the first hand: hand ``h`` uses key index ``h`` and dealer ``h % players``.

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
                         hand_id % rules.players, zeros, zeros)
        result.append({"hand_id": hand_id, "game_id": None, **hand})
    return result


def play_games(rules: Rules, strategies, n_games: int, seed: int) -> tuple[list[dict], list[dict]]:
    """Whole games ``0 .. n_games-1``, as ``api.play_games`` plays them.

    Game ``g`` draws its first dealer with ``bounded(players)`` on deal-stream key index
    ``g << 20`` and plays its hand ``j`` on key index ``(g << 20) + 1 + j``; the deal passes left.

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
        base = game_id << GAME_SHIFT
        dealer = first_dealer = Stream(deal_key, base).bounded(rules.players)
        scores = [0] * rules.n_sides
        bags = [0] * rules.n_sides
        n_hands = 0
        while True:
            hand = play_hand(rules, strategies, deal_key, play_key, base + 1 + n_hands, dealer,
                             scores, bags)
            hands.append({"hand_id": len(hands), "game_id": game_id, **hand})
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
