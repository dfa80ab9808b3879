"""A numba plug-in whose every decision depends on every slot of the view (a hash of them all
picks among the legal bids or cards): played in the engine and through the Python API, it plays
the same hands only if both fill the view alike."""

from numba import njit

from spades_sim.core import view as v
from spades_sim.engine.plugin import bounded, nth_card, popcount

MOD = 1000003


@njit(cache=True)
def key(view):
    total = 0
    for i in range(view.shape[0]):
        total += (view[i] % MOD) * (i + 1)
    return total


@njit(cache=True)
def decide(view, params, rng):
    legal = view[v.V_LEGAL]
    pick = (key(view) + bounded(rng, 7) + int(params[0])) % popcount(legal)
    return nth_card(legal, pick)


class Probe:
    params = {"salt": 0.0}
    bid = decide
    play = decide
