"""A Python plug-in that misbehaves at random (for tests/test_fuzz_plugins.py): each decision
draws, from ``seed`` and the decision's place, one behaviour, legal or not. ``Fuzzy.faults``
lists the faults it committed, so a test knows whether the run had to be refused."""

import random
import sys

import numpy as np

LEGAL = ("int", "numpy", "draw", "print")
FAULTS = ("illegal", "bool", "float", "str", "none", "list", "huge", "negative", "raise",
          "base", "exit", "edit_hands", "edit_bids", "edit_tricks", "edit_plays", "edit_attr",
          "recursion")


class Fuzzy:
    faults: list = []

    def __init__(self, seed=0, rate=0.02):
        self.seed, self.rate = seed, rate

    def _decide(self, obs, legal):
        rng = random.Random(hash((self.seed, obs.hand_id, obs.seat, obs.phase,
                                  obs.trick_index, len(obs.trick))))
        if rng.random() >= self.rate:
            kind = rng.choice(LEGAL)
        else:
            kind = rng.choice(FAULTS)
            Fuzzy.faults.append(kind)
        choice = rng.choice(legal)
        if kind == "numpy":
            return np.int64(choice)
        if kind == "draw":
            return obs.rng.choice(legal)
        if kind == "print":
            print("fuzzy says", choice)
            return choice
        if kind == "illegal":
            return next(a for a in range(60) if a not in legal)
        hand = obs._hand
        answers = {"bool": True, "float": float(choice), "str": str(choice), "none": None,
                   "list": [choice], "huge": 2**70, "negative": -1}
        if kind in answers:
            return answers[kind]
        if kind == "raise":
            raise rng.choice([ValueError, KeyError, ZeroDivisionError, RuntimeError])("fuzz")
        if kind == "base":
            raise BaseException("fuzz")
        if kind == "exit":
            sys.exit(rng.choice([0, 1, 5, None, "bye"]))
        if kind == "recursion":
            def deeper(n):
                return deeper(n + 1)
            return deeper(0)
        if kind == "edit_hands":
            hand.hands[rng.randrange(len(hand.hands))] ^= 1 << rng.randrange(52)
        elif kind == "edit_bids":
            hand.bids[rng.randrange(len(hand.bids))] += 1
        elif kind == "edit_tricks":
            hand.tricks[rng.randrange(len(hand.tricks))] += 1
        elif kind == "edit_plays":
            hand.plays.append((obs.seat, choice))
        elif kind == "edit_attr":
            hand.trick_index += 1
        return choice

    def bid(self, obs):
        return self._decide(obs, obs.legal)

    def play(self, obs):
        return self._decide(obs, obs.legal)

    def pass_cards(self, obs):
        rng = random.Random(hash((self.seed, obs.hand_id, obs.seat)))
        return rng.sample(obs.cards, obs.pass_count)
