"""A set chaser, as a Python plug-in: it plays defence first. Every trick the opponents need
and do not get is ten points off their score, so it keeps taking tricks while an opponent's
contract can still be set, and once it cannot, it hands them overtricks (bags).

The rules of thumb it follows, from common Spades advice about defence:

- **Bid the count, and squeeze a loose table.** It counts aces, guarded kings, spades past
  the third, top spades and ruffs, rounded to the nearest; when it bids after the opponents
  and the bids so far leave many tricks unbid (the table's total, with its count, at most
  the hand size minus ``loose``), it bids ``push`` more: every trick bid is one the opponents
  cannot take as a spare, and the side's extra tricks go to setting them.
- **Set first.** While an opponent's contract is not yet made it wins every trick it can:
  sure winners when leading, the cheapest winner when following, over its partner only when
  the partner's card is not sure to hold.
- **Then bag them.** Once no opponent can be set and its own contract is made, it ducks:
  lowest leads, the highest card that loses, so the opponents collect overtricks.
- **Set nils.** An opponent on a live nil is led to low, played under and played low in front
  of.
- **Nil rarely**, only a very weak hand with low, short spades; it covers a partner's nil.

Blind bids, bumps, exchange passes and draw-deal keeps are the default heuristic's. Each file
of the example players stands alone (no shared helper module), so a run's identity, the hash
of the plug-in's file, covers all of its code.

    spades-sim match examples/strategies/set_chaser.py:SetChaser heuristic --games 300
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
    """Aces, guarded kings, spades past the third, top spades and ruffs."""
    by_suit = [[rank(card) for card in cards if suit_of(card) == suit] for suit in range(4)]
    spades = by_suit[SPADES]
    tricks = 0.0
    for suit in range(3):
        ranks, length = by_suit[suit], len(by_suit[suit])
        tricks += (12 in ranks) + 0.7 * (11 in ranks and length >= 2)
        if len(spades) >= 3:
            tricks += 0.8 if length == 0 else 0.4 if length == 1 else 0.0
    tricks += max(len(spades) - 3, 0) + sum(1 for r in spades if r >= 12)
    tricks += 0.8 * (11 in spades and len(spades) >= 2)
    return tricks


def opponents(obs):
    partner = partner_of(obs, obs.seat)
    return [seat for seat in range(obs.rules.players) if seat not in (obs.seat, partner)]


class SetChaser:
    """The set chaser (module docstring)."""

    tunable = {"push": (0, 3, "int"), "loose": (0, 6, "int"), "bias": (-1.0, 1.0)}

    def __init__(self, push=1, loose=3, bias=0.0):
        self.push, self.loose, self.bias = int(push), int(loose), float(bias)

    # -- bidding --------------------------------------------------------------------------
    def bid(self, obs):
        legal, cards = obs.legal, obs.cards
        size = obs.rules.hand_size
        partner = partner_of(obs, obs.seat)
        partner_nil = partner >= 0 and is_nil(obs, partner)
        count = count_tricks(cards)
        spades = [rank(card) for card in cards if suit_of(card) == SPADES]
        high = [card for card in cards if suit_of(card) != SPADES and rank(card) >= 11]
        if (obs.rules.nil and 0 in legal and not partner_nil and count < 0.5 and not high
                and len(spades) <= 2 and max(spades, default=-1) < 6):
            return 0
        want = round(count + self.bias) + (1 if partner_nil else 0)
        made = [obs.bids[seat] for seat in range(obs.rules.players) if obs.bids[seat] >= 0]
        opponents_bid = all(obs.bids[seat] >= 0 for seat in opponents(obs))
        if opponents_bid and sum(made) + want <= size - self.loose:
            want += self.push
        want = min(max(want, 1), size)
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
        for other in opponents(obs):
            if live_nil(obs, other):
                return self._set_nil(obs, legal, other)
        if tricks_needed(obs, seat) > 0 or self._can_set(obs):
            return self._take(obs, legal, partner)
        if obs.winning_card < 0:
            return lowest(legal)
        return highest_loser(obs, legal)

    def _can_set(self, obs):
        """Whether some opponent's contract is not made yet and the tricks left could still
        keep it from being made."""
        left = obs.rules.hand_size - obs.trick_index
        for other in opponents(obs):
            needed = tricks_needed(obs, other)
            if 0 < needed <= left:
                return True
        return False

    def _take(self, obs, legal, partner):
        if obs.winning_card < 0:
            masters = [card for card in legal if is_master(card, obs)]
            return lowest(masters) if masters else lowest(legal)
        if partner >= 0 and obs.winning_seat == partner and (
                is_master(obs.winning_card, obs) or len(obs.trick) == obs.rules.players - 1):
            return lowest(legal)
        winner = cheapest_winner(obs, legal)
        return winner if winner is not None else lowest(legal)

    def _set_nil(self, obs, legal, target):
        if obs.winning_card < 0:
            return lead_low(obs, legal, avoid_voids_of=target)
        if obs.winning_seat == target:
            return highest_loser(obs, legal)  # let the nil bidder keep the trick
        if to_play_after(obs, target):
            return lowest(legal)
        return cheapest_winner(obs, legal) or lowest(legal)

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
