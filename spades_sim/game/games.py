"""Whole games as a state machine: hands one after another, the scores and bags carried, the
deal passing left, until the rules end the game (``core/scoring.game_over``)."""

from __future__ import annotations

import copy

from ..core.features import as_deal_filter
from ..core.rules import Rules
from ..core.scoring import game_over
from ..core.seeding import game_key_index, stream_keys
from .state import Hand
from .stream import Stream


class Game:
    """Game ``game_id`` of a run with ``seed``, dealt exactly as the engine deals it.

    ``hand`` is the hand in progress (a :class:`~.state.Hand`); :meth:`apply` passes an action
    to it and, when it ends, starts the next one. ``results`` holds each finished hand's
    :meth:`~.state.Hand.result`; ``scores`` and ``bags`` the running totals per side; ``over``
    and ``winner`` (the winning side, -1 for a tie or a draw at the hand cap) tell the end.
    """

    def __init__(self, rules: Rules, seed: int = 0, game_id: int = 0, *, deal_filter=None):
        deal_key, play_key = (int(key) for key in stream_keys(seed))
        self._start(rules, deal_key, play_key, game_id, deal_filter)

    @classmethod
    def from_keys(cls, rules: Rules, deal_key: int, play_key: int, game_id: int, *,
                  deal_filter=None) -> Game:
        game = cls.__new__(cls)
        game._start(rules, deal_key, play_key, game_id, deal_filter)
        return game

    def _start(self, rules: Rules, deal_key: int, play_key: int, game_id: int,
               deal_filter=None) -> None:
        self.rules = rules
        self.deal_filter = as_deal_filter(deal_filter)  # every hand dealt through it
        self.game_id = game_id
        self._keys = (deal_key, play_key)
        self.first_dealer = Stream(deal_key, game_key_index(game_id)).bounded(rules.players)
        self.scores = [0] * rules.n_sides
        self.bags = [0] * rules.n_sides
        self.results: list[dict] = []
        self.over = False
        self.winner = -1
        self.hand = self._deal(self.first_dealer)

    def _deal(self, dealer: int) -> Hand:
        n_hands = len(self.results)
        return Hand.from_keys(self.rules, *self._keys, game_key_index(self.game_id, n_hands),
                              dealer, self.scores, self.bags, hand_id=n_hands,
                              deal_filter=self.deal_filter)

    @property
    def to_act(self) -> int:
        return self.hand.to_act

    def legal_actions(self) -> list[int]:
        return [] if self.over else self.hand.legal_actions()

    def observation(self, seat: int | None = None):
        return self.hand.observation(seat)

    def apply(self, action: int) -> None:
        """Apply ``action`` to the hand in progress; deal the next hand when it ends."""
        self.hand.apply(action)
        if self.hand.done:
            self._end_hand()

    def _end_hand(self) -> None:
        result = self.hand.result()
        self.results.append(result)
        self.scores = [score + delta for score, delta in zip(self.scores, result["score_delta"],
                                                             strict=True)]
        self.bags = list(result["bags_after"])
        self.over, self.winner = game_over(self.rules, self.scores, len(self.results))
        if not self.over:
            self.hand = self._deal((self.hand.dealer + 1) % self.rules.players)

    def clone(self) -> Game:
        return copy.deepcopy(self)
