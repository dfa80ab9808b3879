"""The issue's reference plug-in in both forms: always bid 3 (the nearest legal bid when 3 is
not allowed, the lower first) and play the lowest legal card."""

from numba import njit

from spades_sim.core import view as v
from spades_sim.engine.plugin import lowest_card


def nearest_three(legal_bids):
    return min(legal_bids, key=lambda bid: (abs(bid - 3), bid))


class LowestPython:
    def bid(self, obs):
        return nearest_three(obs.legal)

    def play(self, obs):
        return obs.legal[0]


@njit(cache=True)
def bid(view, params, rng):
    legal = view[v.V_LEGAL]
    for distance in range(18):
        for candidate in (3 - distance, 3 + distance):
            if 0 <= candidate <= 17 and legal >> candidate & 1:
                return candidate
    return lowest_card(legal)


@njit(cache=True)
def play(view, params, rng):
    return lowest_card(view[v.V_LEGAL])


class LowestNumba:
    bid = bid
    play = play
