"""The game-state API in a few lines: deal a hand of a run, act for each seat, look at what a
seat knows, sample the hidden cards, clone, and play a whole game.

    .venv/bin/python examples/game_api.py
"""

from spades_sim.core.cards import card_text, pretty_hand
from spades_sim.core.rules import preset
from spades_sim.game import BID, BLIND, LOOK, PLAY, Game, Hand


def simple_choice(state):
    """Look at the cards (no blind bid), bid 3 (or the nearest legal bid), play the lowest
    legal card; every other choice: the first legal one."""
    legal = state.legal_actions()
    if state.phase == BLIND:
        return LOOK
    if state.phase == BID:
        return min(legal, key=lambda bid: abs(bid - 3))
    return legal[0]


rules = preset("classic")
hand = Hand.deal(rules, seed=7, hand_id=0)  # hand 0 of a run with seed 7, as the engine deals it
print("seat 1 holds", pretty_hand(hand.hands[1]))

while hand.phase != PLAY:  # blind choices, then bids
    print(f"{hand.phase}: seat {hand.to_act} may choose {hand.legal_actions()}")
    hand.apply(simple_choice(hand))

seen = hand.observation()  # what the seat to act knows
print(f"seat {seen.seat} leads trick {seen.trick_index}; bids {seen.bids}; legal:",
      " ".join(card_text(card) for card in seen.legal))
guess = seen.sample()  # the other hands dealt anew, consistent with what seat has seen
print("a guess at seat 2's cards:", pretty_hand(guess.hands[2]))

branch = hand.clone()  # try a line of play without touching the real hand
branch.apply(branch.legal_actions()[-1])
while not hand.done:
    hand.apply(simple_choice(hand))
print("tricks", hand.tricks, "score change", hand.result()["score_delta"])

game = Game(rules, seed=7, game_id=0)  # a whole game: hands follow each other to the target
while not game.over:
    game.apply(simple_choice(game.hand))
print(f"game over after {len(game.results)} hands: scores {game.scores}, winner side {game.winner}")
