"""A careful trick counter, as a Python plug-in: it bids the tricks it can count and plays to
make exactly those, guarding its nil partner and its bag counter.

The rules of thumb it follows, from common Spades advice:

- **Count sure tricks, not hopes.** An ace is a trick; a king with one guard, a queen with two
  (in side suits only when the suit is not long: long suits get trumped); every spade beyond
  the third; the top spades; a void or singleton beside three spades is a ruff. The count is
  rounded down (``bias`` is added before rounding).
- **Nil only with nothing.** Nil when the count is at most ``nil_max`` and the hand has at
  most three spades, none above the nine, and no ace or king; never when the partner bid nil.
- **Cover the partner's nil**: lead from the top, play high in front of the nil bidder and
  take the trick over it when it is winning one.
- **Win cheaply until the contract is made**: the lowest card that beats the trick (a side
  card before a trump), a sure winner when leading, low when the partner already wins.
- **Then duck near the bag limit**: once the side's contract is made it keeps taking tricks
  cheaply only while the side's bag counter is more than ``bag_guard`` bags from the limit;
  inside that margin it plays its highest card that loses.

It answers the bids only (bids, plays); blind bids, bumps, exchange passes and draw-deal keeps
are the default heuristic's. Each file of the example players stands alone (no shared helper
module), so a run's identity, the hash of the plug-in's file, covers all of its code.

    spades-sim match examples/strategies/trick_counter.py:TrickCounter heuristic --games 300
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
def sure_tricks(cards):
    """Sure and nearly sure tricks of a hand (see the module docstring), not rounded."""
    by_suit = [[rank(card) for card in cards if suit_of(card) == suit] for suit in range(4)]
    spades = by_suit[SPADES]
    tricks = 0.0
    for suit in range(3):
        ranks, length = by_suit[suit], len(by_suit[suit])
        tricks += (12 in ranks) * (1.0 if length <= 6 else 0.5)
        tricks += (11 in ranks and length >= 2) * (1.0 if length <= 4 else 0.5)
        tricks += (10 in ranks and length >= 3 and length <= 4) * 0.5
        if len(spades) >= 3:
            tricks += 1.0 if length == 0 else 0.5 if length == 1 else 0.0
    tricks += max(len(spades) - 3, 0)
    tricks += sum(1 for r in spades if r >= 12)  # the ace and the jokers
    tricks += (11 in spades and len(spades) >= 2) + 0.5 * (10 in spades and len(spades) >= 3)
    return tricks


class TrickCounter:
    """The careful trick counter (module docstring)."""

    tunable = {"bias": (-1.5, 1.5), "nil_max": (0.0, 1.5), "bag_guard": (0, 8, "int")}

    def __init__(self, bias=0.0, nil_max=0.5, bag_guard=3):
        self.bias, self.nil_max, self.bag_guard = float(bias), float(nil_max), int(bag_guard)

    # -- bidding --------------------------------------------------------------------------
    def bid(self, obs):
        legal = obs.legal
        cards = obs.cards
        count = sure_tricks(cards)
        partner = partner_of(obs, obs.seat)
        spades = [rank(card) for card in cards if suit_of(card) == SPADES]
        high = [card for card in cards if suit_of(card) != SPADES and rank(card) >= 11]
        partner_nil = partner >= 0 and is_nil(obs, partner)
        if (obs.rules.nil and 0 in legal and not partner_nil and count <= self.nil_max
                and len(spades) <= 3 and max(spades, default=-1) <= 7 and not high):
            return 0
        want = int(count + self.bias)  # rounded down: a careful count
        if partner_nil:
            want += 1  # the cover takes tricks the count does not see
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
            return self._as_nil(obs, legal)
        if live_nil(obs, partner):
            return self._cover(obs, legal, partner)
        if self._wants_tricks(obs):
            return self._win_cheaply(obs, legal, partner)
        if obs.winning_card < 0:
            return lowest(legal)
        return highest_loser(obs, legal)

    def _wants_tricks(self, obs):
        if tricks_needed(obs, obs.seat) > 0:
            return True
        limit = obs.rules.bag_limit
        if limit == 0 or obs.rules.bag_penalty == 0:
            return True  # bags cost nothing: every trick may set the opponents
        overtricks = -tricks_needed(obs, obs.seat)
        return obs.bags[obs.side] + overtricks < limit - self.bag_guard

    def _win_cheaply(self, obs, legal, partner):
        if obs.winning_card < 0:
            masters = [card for card in legal if suit_of(card) != SPADES and is_master(card, obs)]
            if masters:
                return lowest(masters)
            spade_masters = [card for card in legal if is_master(card, obs)]
            if spade_masters:
                return highest(spade_masters)
            return lowest(legal)
        if partner >= 0 and obs.winning_seat == partner and is_master(obs.winning_card, obs):
            return lowest(legal)
        winner = cheapest_winner(obs, legal)
        return winner if winner is not None else lowest(legal)

    def _as_nil(self, obs, legal):
        if obs.winning_card < 0:
            return lead_low(obs, legal)
        return highest_loser(obs, legal)

    def _cover(self, obs, legal, partner):
        """Play for the partner's live nil: high in front of it, over it when it wins."""
        if obs.winning_card < 0:
            return highest(legal)
        if obs.winning_seat == partner or to_play_after(obs, partner):
            winner = cheapest_winner(obs, legal)
            if winner is None:
                return lowest(legal)
            if to_play_after(obs, partner):  # in front of the nil: as high as it can
                return highest([card for card in legal if beats(card, obs.winning_card)])
            return winner
        return highest_loser(obs, legal) if tricks_needed(obs, obs.seat) <= 0 else \
            (cheapest_winner(obs, legal) or lowest(legal))
