"""Plug-ins that misbehave, one way each (``fault=...`` in the spec), for the tests of the
one-line messages: Python ones (:class:`Faulty`) and numba ones (the classes below it)."""

import sys

from numba import njit

from spades_sim.core import view as v
from spades_sim.engine.plugin import lowest_card


class Faulty:
    """Bids 3 (or the nearest legal bid) and plays the lowest legal card, except for its
    ``fault``: ``print`` (prints in every decision), ``constructor`` (raises when built),
    ``base`` (raises BaseException when bidding), ``exit`` (calls sys.exit(5) when bidding),
    ``bool_bid`` (bids False), ``str_bid`` (bids "3"), ``float_card`` (plays a float),
    ``edit_hands`` (gives the next seat the ace of spades), ``edit_bids`` (rewrites the bids),
    ``pass_none`` (bids nil; pass_cards returns None)."""

    def __init__(self, fault="none"):
        if fault == "constructor":
            raise RuntimeError("no table for me")
        self.fault = fault

    def bid(self, obs):
        fault = self.fault
        if fault == "print":
            print("thinking about my bid")
        elif fault == "base":
            raise BaseException("out of here")
        elif fault == "exit":
            sys.exit(5)
        elif fault == "bool_bid":
            return False
        elif fault == "str_bid":
            return "3"
        elif fault == "edit_hands":
            obs._hand.hands[(obs.seat + 1) % 4] |= 1 << 51
        elif fault == "edit_bids":
            obs._hand.bids[(obs.seat + 2) % 4] = 13
        elif fault == "pass_none" and 0 in obs.legal:
            return 0  # nil, so that the nil exchange asks for cards to pass
        return min(obs.legal, key=lambda bid: (abs(bid - 3), bid))

    def play(self, obs):
        if self.fault == "print":
            print("playing", obs.legal[0])
        if self.fault == "float_card":
            return float(obs.legal[0])
        return obs.legal[0]

    def pass_cards(self, obs):
        if self.fault == "pass_none":
            return None
        return obs.cards[:obs.pass_count]


@njit(cache=True)
def three(view, params, rng):
    legal = view[v.V_LEGAL]
    return 3 if legal >> 3 & 1 else lowest_card(legal)


@njit(cache=True)
def lowest(view, params, rng):
    return lowest_card(view[v.V_LEGAL])


@njit(cache=True)
def raising(view, params, rng):
    if view[v.V_TRICK] == 2:
        raise ValueError("no third trick")
    return lowest_card(view[v.V_LEGAL])


@njit(cache=True)
def floating(view, params, rng):
    return lowest_card(view[v.V_LEGAL]) + 0.5


@njit(cache=True)
def printing(view, params, rng):
    print("numba plays", lowest_card(view[v.V_LEGAL]))
    return lowest_card(view[v.V_LEGAL])


class Raising:
    bid = three
    play = raising


class Floating:
    bid = three
    play = floating


class Printing:
    bid = three
    play = printing


class TextDefault:
    params = {"depth": "abc"}
    bid = three
    play = lowest


class NoneDefault:
    params = {"depth": None}
    bid = three
    play = lowest
