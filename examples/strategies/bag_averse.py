"""A bag-averse player, as a Python plug-in: every overtrick is a tenth of a bag penalty, so it
bids its tricks in full and, once its side's contract is made, sheds every trick it can.

The rules of thumb it follows, from common Spades advice about bags:

- **Bid what the hand is worth, rounded up.** An overtrick costs more than it pays (a point
  now, ``bag_penalty`` every ``bag_limit``), so it counts aces, guarded kings and queens,
  spades past the third, top spades and ruffs, and rounds up from ``round_up`` (a fraction:
  0.5 is plain rounding, lower rounds up more).
- **Bid up near the limit.** When the side's bag counter is within ``bag_guard`` of the limit,
  one more trick is bid: a trick bid is a trick that is not a bag.
- **Win cheaply while the contract needs it**, and lead sure winners then.
- **Then duck everything**: the highest card that loses, keeping low cards for later ducks;
  lead the lowest card of its shortest side suit (the opponents take it, and the suit runs out
  sooner so later high cards can be thrown away).
- **Nil seldom**: only a hand with no ace or king, at most two spades below the nine, and a
  count under one trick; it covers a partner's nil.
- Where bags cost nothing (``bag_penalty = 0`` or ``bag_limit = 0``) it keeps winning tricks
  after the contract: the style has nothing to avoid there.

Blind bids, bumps, exchange passes and draw-deal keeps are the default heuristic's. Each file
of the example players stands alone (no shared helper module), so a run's identity, the hash
of the plug-in's file, covers all of its code.

    spades-sim match examples/strategies/bag_averse.py:BagAverse heuristic --games 300
"""

SPADES = 3


# -- cards ----------------------------------------------------------------------------------
def suit_of(card):
    """Clubs, diamonds, hearts, spades as 0 .. 3; the jokers (52, 53) are spades."""
    return SPADES if card >= 52 else card // 13


def rank(card):
    """2 .. A as 0 .. 12; the little and big joker above the ace (13, 14)."""
    return card % 13 if card < 52 else card - 39


def beats(card, best):
    """Whether ``card`` beats ``best``: a trump beats a non-trump and lower trumps; otherwise a
    higher card of the same suit."""
    if card >= 39:
        return best < 39 or card > best
    return best < 39 and suit_of(card) == suit_of(best) and card > best


def is_master(card, obs):
    """Whether no card that beats ``card`` in its own suit is still out (unseen by the seat)."""
    seen = obs.played | obs.hand
    if card >= 39:
        top = 53 if obs.rules.deck == "jokers" else 51  # (the big joker tops the jokers deck)
    else:
        top = 13 * suit_of(card) + 12
    return all(seen >> higher & 1 for higher in range(card + 1, top + 1))


# -- the table ------------------------------------------------------------------------------
def partner_of(obs, seat):
    return (seat + 2) % 4 if obs.rules.partnership else -1


def is_nil(obs, seat):
    return obs.bids[seat] == 0 and (obs.rules.nil or obs.blind[seat])


def live_nil(obs, seat):
    """A nil bidder that has taken no trick yet."""
    return seat >= 0 and is_nil(obs, seat) and obs.tricks[seat] == 0


def tricks_needed(obs, seat):
    """The tricks the side of ``seat`` still needs for its contract (<= 0: made)."""
    seats = [seat] + ([partner_of(obs, seat)] if obs.rules.partnership else [])
    counts_nil = obs.rules.failed_nil_tricks == "count_toward_bid"
    contract = sum(obs.bids[s] for s in seats if not is_nil(obs, s))
    taken = sum(obs.tricks[s] for s in seats if counts_nil or not is_nil(obs, s))
    return contract - taken


def to_play_after(obs, seat):
    """Whether ``seat`` has still to play to the current trick."""
    return seat not in [who for who, _ in obs.trick]


# -- choosing a card ------------------------------------------------------------------------
def lowest(cards):
    """The lowest card, a side card before a spade."""
    return min(cards, key=lambda card: (suit_of(card) == SPADES, rank(card), card))


def highest(cards):
    return max(cards, key=lambda card: (rank(card), suit_of(card) == SPADES, card))


def cheapest_winner(obs, legal):
    """The cheapest legal card that beats the trick so far (a side card before a trump), or
    None."""
    winners = [card for card in legal if beats(card, obs.winning_card)]
    if not winners:
        return None
    return min(winners, key=lambda card: (card >= 39, rank(card), card))


def highest_loser(obs, legal):
    """The highest legal card that does not beat the trick so far; when every card wins, the
    lowest (the last seat to play takes it anyway, so then the highest)."""
    losers = [card for card in legal if not beats(card, obs.winning_card)]
    if losers:
        return highest(losers)
    last = len(obs.trick) == obs.rules.players - 1
    return highest(legal) if last else lowest(legal)


def lead_low(obs, legal, avoid_voids_of=-1):
    """A low lead, from a suit ``avoid_voids_of`` (a seat) still holds when one is given."""
    options = [card for card in legal
               if avoid_voids_of < 0 or not obs.void(avoid_voids_of, suit_of(card))]
    return lowest(options or legal)



# -- the trick count ------------------------------------------------------------------------
def full_count(cards):
    """Every trick the hand is likely to take (a generous count, see the module docstring)."""
    by_suit = [[rank(card) for card in cards if suit_of(card) == suit] for suit in range(4)]
    spades = by_suit[SPADES]
    tricks = 0.0
    for suit in range(3):
        ranks, length = by_suit[suit], len(by_suit[suit])
        tricks += (12 in ranks) + 0.8 * (11 in ranks and length >= 2)
        tricks += 0.4 * (10 in ranks and length >= 3)
        if len(spades) >= 2:
            tricks += 0.9 if length == 0 else 0.5 if length == 1 else 0.0
    tricks += max(len(spades) - 3, 0) + sum(1 for r in spades if r >= 12)
    tricks += 0.9 * (11 in spades and len(spades) >= 2)
    tricks += 0.5 * (10 in spades and len(spades) >= 3)
    return tricks


def bags_cost(obs):
    return obs.rules.bag_limit > 0 and obs.rules.bag_penalty > 0


class BagAverse:
    """The bag-averse player (module docstring)."""

    tunable = {"round_up": (0.1, 0.9), "bag_guard": (0, 6, "int")}

    def __init__(self, round_up=0.35, bag_guard=3):
        self.round_up, self.bag_guard = float(round_up), int(bag_guard)

    # -- bidding --------------------------------------------------------------------------
    def bid(self, obs):
        legal, cards = obs.legal, obs.cards
        partner = partner_of(obs, obs.seat)
        partner_nil = partner >= 0 and is_nil(obs, partner)
        count = full_count(cards)
        spades = [rank(card) for card in cards if suit_of(card) == SPADES]
        high = [card for card in cards if suit_of(card) != SPADES and rank(card) >= 11]
        if (obs.rules.nil and 0 in legal and not partner_nil and count < 1.0 and not high
                and len(spades) <= 2 and max(spades, default=-1) < 7):
            return 0
        want = int(count + 1.0 - self.round_up)
        if bags_cost(obs) and obs.bags[obs.side] >= obs.rules.bag_limit - self.bag_guard:
            want += 1
        if partner_nil:
            want += 1
        want = min(max(want, 1), obs.rules.hand_size)
        return min(legal, key=lambda bid: (bid == 0 and obs.rules.nil, abs(bid - want), bid))

    # -- play -----------------------------------------------------------------------------
    def play(self, obs):
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        seat = obs.seat
        partner = partner_of(obs, seat)
        if live_nil(obs, seat):
            return lead_low(obs, legal) if obs.winning_card < 0 else highest_loser(obs, legal)
        if live_nil(obs, partner):
            return self._cover(obs, legal, partner)
        if tricks_needed(obs, seat) > 0 or not bags_cost(obs):
            return self._win_cheaply(obs, legal, partner)
        if obs.winning_card < 0:
            return self._lead_to_lose(legal)
        return highest_loser(obs, legal)

    def _lead_to_lose(self, legal):
        """The lowest card of the shortest side suit held (spades only when nothing else)."""
        side = [card for card in legal if suit_of(card) != SPADES] or legal
        length = {suit: sum(1 for card in legal if suit_of(card) == suit) for suit in range(4)}
        return min(side, key=lambda card: (length[suit_of(card)], rank(card), card))

    def _win_cheaply(self, obs, legal, partner):
        if obs.winning_card < 0:
            masters = [card for card in legal if is_master(card, obs)]
            return lowest(masters) if masters else lowest(legal)
        if partner >= 0 and obs.winning_seat == partner:
            return lowest(legal)
        winner = cheapest_winner(obs, legal)
        return winner if winner is not None else lowest(legal)

    def _cover(self, obs, legal, partner):
        """Play for the partner's live nil: high in front of it, over it when it wins."""
        if obs.winning_card < 0:
            return highest(legal)
        if to_play_after(obs, partner):
            winners = [card for card in legal if beats(card, obs.winning_card)]
            return highest(winners) if winners else lowest(legal)
        if obs.winning_seat == partner:
            winner = cheapest_winner(obs, legal)
            return winner if winner is not None else lowest(legal)
        return highest_loser(obs, legal) if tricks_needed(obs, obs.seat) <= 0 else lowest(legal)
