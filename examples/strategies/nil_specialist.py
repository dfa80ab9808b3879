"""A nil specialist, as a Python plug-in: it looks for nil first, defends nils on both sides,
and bids blind nil when its side is far behind.

The rules of thumb it follows, from common Spades advice about nil:

- **Nil a weak hand with short, low spades.** Nil when the hand counts at most ``nil_max``
  tricks, holds at most three spades with none above the ten (``nil_top_spade`` as a rank,
  2 = 0 .. A = 12), and no ace, and no king unless in a suit of four or more (long suits
  give low cards to duck under it). Never beside a partner's nil.
- **Blind nil when far behind**: where the rules allow it, blind nil when the side trails the
  leading side by at least ``blind_deficit`` points and the partner has not bid nil, or
  bid at most one trick.
- **Pass for the nil**: as the nil bidder in an exchange, pass the highest cards (spades
  first); as its partner, pass back the lowest.
- **Play the nil**: lead low, play the highest card that loses, dump high cards when void.
- **Cover the partner's nil**: bid a trick more, lead from the top, play high in front of the
  nil bidder, take the trick over it when it is winning one.
- **Set the opponents' nils**: lead low in suits the nil bidder still holds, play under the
  nil bidder's winning card, play low in front of it.
- Otherwise it counts like any player: aces, guarded kings, spades past the third; wins as
  cheaply as it can while its side needs tricks, then ducks.

Bumps and draw-deal keeps are the default heuristic's. Each file of the example players
stands alone (no shared helper module), so a run's identity, the hash of the plug-in's file,
covers all of its code.

    spades-sim match examples/strategies/nil_specialist.py:NilSpecialist heuristic --games 300
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
def count_tricks(cards):
    """Aces, guarded kings, spades past the third, the ace and jokers of spades."""
    by_suit = [[rank(card) for card in cards if suit_of(card) == suit] for suit in range(4)]
    spades = by_suit[SPADES]
    tricks = 0.0
    for suit in range(3):
        ranks = by_suit[suit]
        tricks += (12 in ranks) + 0.8 * (11 in ranks and len(ranks) >= 2)
    tricks += max(len(spades) - 3, 0) + sum(1 for r in spades if r >= 12)
    tricks += 0.8 * (11 in spades and len(spades) >= 2)
    return tricks


def nil_shape(cards, top_spade):
    """Short, low spades and no stopper a nil cannot duck."""
    by_suit = [[rank(card) for card in cards if suit_of(card) == suit] for suit in range(4)]
    spades = by_suit[SPADES]
    if len(spades) > 3 or max(spades, default=-1) > top_spade:
        return False
    for suit in range(3):
        ranks = by_suit[suit]
        if 12 in ranks or (11 in ranks and len(ranks) < 4):
            return False
    return True


class NilSpecialist:
    """The nil specialist (module docstring)."""

    tunable = {"nil_max": (0.0, 3.0), "nil_top_spade": (5, 11, "int"),
               "blind_deficit": (50, 500, "int"), "bias": (-1.0, 1.0)}

    def __init__(self, nil_max=1.5, nil_top_spade=8, blind_deficit=100, bias=0.0):
        self.nil_max, self.nil_top_spade = float(nil_max), int(nil_top_spade)
        self.blind_deficit, self.bias = int(blind_deficit), float(bias)

    # -- bidding --------------------------------------------------------------------------
    def bid(self, obs):
        legal, cards = obs.legal, obs.cards
        partner = partner_of(obs, obs.seat)
        partner_nil = partner >= 0 and is_nil(obs, partner)
        count = count_tricks(cards)
        if (obs.rules.nil and 0 in legal and not partner_nil and count <= self.nil_max
                and nil_shape(cards, self.nil_top_spade)):
            return 0
        want = round(count + self.bias) + (1 if partner_nil else 0)
        want = min(max(want, 1), obs.rules.hand_size)
        return min(legal, key=lambda bid: (bid == 0 and obs.rules.nil, abs(bid - want), bid))

    def blind(self, obs):
        nil_ok, _ = obs.blind_options
        if not nil_ok:
            return -1
        scores = obs.scores
        others = [score for side, score in enumerate(scores) if side != obs.side]
        behind = max(others, default=0) - scores[obs.side]
        partner = partner_of(obs, obs.seat)
        partner_bid = obs.bids[partner] if partner >= 0 else -1
        if partner >= 0 and (is_nil(obs, partner) or 0 <= partner_bid <= 1):
            return -1
        return 0 if behind >= self.blind_deficit else -1

    def pass_cards(self, obs):
        ordered = sorted(obs.cards, key=lambda card: (suit_of(card) == SPADES, rank(card), card))
        if obs.passing_as_nil_bidder:
            return ordered[-obs.pass_count:]  # the most dangerous cards: high spades, high ranks
        return ordered[:obs.pass_count]  # back to the nil: the lowest

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
        target = self._nil_to_set(obs)
        if target >= 0:
            return self._set_nil(obs, legal, target)
        if obs.winning_card < 0:
            if tricks_needed(obs, seat) > 0:
                masters = [card for card in legal if is_master(card, obs)]
                return lowest(masters) if masters else lowest(legal)
            return lowest(legal)
        if tricks_needed(obs, seat) <= 0:
            return highest_loser(obs, legal)
        if partner >= 0 and obs.winning_seat == partner:
            return lowest(legal)
        winner = cheapest_winner(obs, legal)
        return winner if winner is not None else lowest(legal)

    def _nil_to_set(self, obs):
        """An opponent on a live nil (the first), or -1."""
        for other in range(obs.rules.players):
            if other != obs.seat and other != partner_of(obs, obs.seat) and live_nil(obs, other):
                return other
        return -1

    def _set_nil(self, obs, legal, target):
        if obs.winning_card < 0:
            return lead_low(obs, legal, avoid_voids_of=target)
        if obs.winning_seat == target:
            return highest_loser(obs, legal)  # let the nil bidder keep the trick
        if to_play_after(obs, target):
            return lowest(legal)  # leave room under which the nil cannot duck
        return highest_loser(obs, legal) if tricks_needed(obs, obs.seat) <= 0 else \
            (cheapest_winner(obs, legal) or lowest(legal))

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
        return lowest(legal)
