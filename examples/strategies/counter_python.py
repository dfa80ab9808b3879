"""A counting player, as a Python plug-in: it bids its sure and likely tricks and plays to make
exactly that many, no more.

Bid: one trick for each ace, for each king with another card of its suit, for each spade
beyond the third, and one for the ace and the king of spades; ``bias`` is added. Play: while
its side still needs tricks it wins as cheaply as it can (the lowest card that beats the trick,
or its highest when leading); once the side's bids are made it plays its lowest card (it ducks
to avoid bags). It never bids nil.

    spades-sim match examples/strategies/counter_python.py:Counter heuristic --hands 4000
"""

SPADES = 3


def suit_of(card):
    return SPADES if card >= 52 else card // 13


def rank(card):
    """2 .. A as 0 .. 12; the jokers above the ace (13, 14)."""
    return card % 13 if card < 52 else card - 39


def beats(card, best):
    """Whether ``card`` beats ``best``: a trump beats a non-trump and lower trumps; otherwise a
    higher card of the same suit."""
    if card >= 39:
        return best < 39 or card > best
    return best < 39 and suit_of(card) == suit_of(best) and card > best


def estimate(cards):
    by_suit = [[card for card in cards if suit_of(card) == suit] for suit in range(4)]
    tricks = 0
    for suit in range(3):
        ranks = [card % 13 for card in by_suit[suit]]
        tricks += (12 in ranks) + (11 in ranks and len(ranks) >= 2)
    spades = by_suit[SPADES]
    tricks += max(len(spades) - 3, 0) + (51 in spades) + (50 in spades)
    return tricks


class Counter:
    tunable = {"bias": (-2, 3, "int")}  # what `spades-sim tune` may search (docs/strategies.md)

    def __init__(self, bias=0):
        self.bias = bias

    def bid(self, obs):
        want = min(max(estimate(obs.cards) + self.bias, 1), obs.rules.hand_size)
        legal = obs.legal
        return min(legal, key=lambda bid: (bid == 0, abs(bid - want), -bid))

    def play(self, obs):
        legal = obs.legal
        seat, players = obs.seat, obs.rules.players
        team = [seat, (seat + 2) % 4] if obs.rules.partnership else [seat]
        contract = sum(max(obs.bids[member], 0) for member in team)
        taken = sum(obs.tricks[member] for member in team)
        if taken >= contract:
            return min(legal, key=lambda card: (rank(card), card))  # duck: the lowest rank
        if obs.winning_card < 0:
            return max(legal, key=lambda card: (rank(card), card))  # lead the highest rank
        if obs.rules.partnership and obs.winning_seat == (seat + 2) % players:
            return min(legal, key=lambda card: (rank(card), card))  # partner wins: keep cards
        winners = [card for card in legal if beats(card, obs.winning_card)]
        if winners:
            return min(winners, key=lambda card: (card >= 39, rank(card), card))
        return min(legal, key=lambda card: (rank(card), card))
