"""The built-in ``random`` strategy, rewritten as a Python plug-in.

Every choice is drawn from ``obs.rng``, the generator the framework hands to strategies (the
hand's play stream, the one the built-in strategies draw from), in the same way the built-in
``random`` draws. So this plug-in reproduces ``--strategy random`` exactly, hand for hand: a
check that the plumbing is faithful, and a template for strategies that randomise.

    spades-sim simulate --hands 2000 --strategy examples/strategies/random_python.py:RandomPython
"""

RATE_ONE = 1 << 15  # chances are drawn as bounded(RATE_ONE) < round(rate * RATE_ONE)


def threshold(rate):
    return int(rate * RATE_ONE + 0.5)


class RandomPython:
    def __init__(self, bid_min=1, bid_max=4, blind_nil_rate=0.05, blind_bid_rate=0.05,
                 bump_rate=0.5, keep_rate=0.5):
        self.bid_min, self.bid_max = bid_min, bid_max
        self.blind_nil_rate, self.blind_bid_rate = blind_nil_rate, blind_bid_rate
        self.bump_rate, self.keep_rate = bump_rate, keep_rate

    def bid(self, obs):
        """A legal bid in bid_min..bid_max (any legal bid when none is there)."""
        legal = obs.legal
        options = [bid for bid in legal if self.bid_min <= bid <= self.bid_max] or legal
        return options[obs.rng.bounded(len(options))]

    def play(self, obs):
        """A legal card, uniformly (``obs.legal`` lists them lowest index first)."""
        legal = obs.legal
        return legal[obs.rng.bounded(len(legal))]

    def blind(self, obs):
        """Blind nil with chance blind_nil_rate (where allowed), else a blind bid with chance
        blind_bid_rate (uniform over the allowed ones), else look (-1)."""
        nil_ok, blind_bids = obs.blind_options
        draw = obs.rng.bounded(RATE_ONE)
        limit = threshold(self.blind_nil_rate) if nil_ok else 0
        if draw < limit:
            return 0
        if blind_bids:
            limit += threshold(self.blind_bid_rate)
            if draw < limit:
                options = [bid for bid in range(blind_bids.bit_length()) if blind_bids >> bid & 1]
                return options[obs.rng.bounded(len(options))]
        return -1

    def bump(self, obs):
        return obs.rng.bounded(RATE_ONE) < threshold(self.bump_rate)

    def keep(self, obs):
        return obs.rng.bounded(RATE_ONE) < threshold(self.keep_rate)

    def pass_cards(self, obs):
        """obs.pass_count cards, one at a time, uniformly among those left."""
        left = obs.cards
        passed = []
        for _ in range(obs.pass_count):
            passed.append(left.pop(obs.rng.bounded(len(left))))
        return passed
