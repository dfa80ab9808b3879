"""Runs played through the game-state API: the record arrays the engine fills, from any mix of
built-in strategies and plug-ins (``agents.py``).

:func:`play_hands` and :func:`play_games` take the same pieces of a run as
``engine/calls.py`` and return the same arrays (``core/schema.py``), hand for hand, so the
rest of the toolkit (frames, datasets, analyses, hand logs) reads them alike. A table whose
plug-ins make only their bids and plays is stepped by the engine, which stops only for the
plug-ins' decisions (``fast.py``); any other table is played here, one decision at a time.
"""

from __future__ import annotations

import numpy as np

from ..core import schema
from ..core.cards import card_text
from ..core.errors import StrategyError
from ..core.rules import Rules
from . import fast
from .games import Game
from .state import BID, BUMP, KEEP, PASS, PLAY, Hand


def play_out(hand: Hand, agents) -> Hand:
    """Play ``hand`` to its end, each seat's decisions by its agent; illegal actions are
    refused with the strategy, hand, seat, action and the legal ones named."""
    while not hand.done:
        agent = agents[hand.to_act]
        if hand.phase == PLAY:  # (most decisions: the short way)
            legal = hand.legal_card_mask()
            card = agent.act(hand, legal)
            if type(card) is not int:
                card = checked_int(agent, hand, card)
            if not (0 <= card < 64 and legal >> card & 1):
                raise StrategyError(f"strategy {agent.name}: {hand.illegal_message(card)}")
            hand._play(card)
            continue
        legal = hand.legal_bid_mask() if hand.phase == BID else 0
        action = agent.act(hand, legal)
        if hand.phase in (BUMP, KEEP) and isinstance(action, (bool, np.bool_)):
            action = int(action)  # (a yes-or-no choice)
        if type(action) is not int:
            action = checked_int(agent, hand, action)
        if hand.phase == BID:
            ok = 0 <= action < 64 and legal >> action & 1
        else:
            ok = hand.is_legal(action)
        if not ok:
            raise StrategyError(f"strategy {agent.name}: {hand.illegal_message(action)}")
        hand._apply(int(action))
    return hand


def checked_int(agent, hand: Hand, action) -> int:
    """An action of a numeric type (a NumPy integer) as an int; anything else (a bool, a
    float, a string) is refused as a wrong type, not read as a number: ``False`` is no nil."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    shown = repr(action) if len(repr(action)) <= 40 else repr(action)[:37] + "..."
    show = card_text if hand.phase in (PLAY, PASS) else str
    raise StrategyError(f"strategy {agent.name}: its {hand.phase} {shown} is a "
                        f"{type(action).__name__}, not an int (hand {hand.hand_id}, seat "
                        f"{hand.to_act}); legal: {' '.join(map(show, hand.legal_actions()))}")


def _record(out: schema.HandArrays, row: int, hand: Hand, hand_id: int, game_id: int,
            record_plays: bool) -> None:
    players, n_sides = hand.rules.players, hand.rules.n_sides
    out.hand_id[row] = hand_id
    out.game_id[row] = game_id
    out.dealer[row] = hand.dealer
    out.first_leader[row] = hand.first_leader
    for seat in range(players):
        out.hands[row, seat] = hand.dealt[seat]
        out.bids[row, seat] = hand.bids[seat]
        out.blind[row, seat] = hand.blind[seat]
        out.bumped[row, seat] = hand.bumped[seat]
        out.tricks[row, seat] = hand.tricks[seat]
    for side in range(n_sides):
        out.score_before[row, side] = hand.scores[side]
        out.bags_before[row, side] = hand.bags[side]
        out.score_delta[row, side] = hand.score_delta[side]
        out.bags_after[row, side] = hand.bags_after[side]
    if record_plays:
        for index, (seat, card) in enumerate(hand.plays):
            out.plays[row, index] = card
            out.play_seats[row, index] = seat
        for index, entry in enumerate(hand.exchange):
            out.exchange[row, index] = entry


def play_hands(rules: Rules, agents, keys, first: int, count: int,
               record_plays: bool = False, deal_filter=None) -> schema.HandArrays:
    """Independent hands ``first .. first + count - 1`` from zero scores (``engine/calls.py``'s
    ``play_hands``), one agent per seat; ``deal_filter``: ``None`` or a
    :class:`~spades_sim.core.features.DealFilter`."""
    if fast.eligible(rules, agents, deal_filter):
        played = fast.play(rules, agents, keys, first, count, record_plays, games=False)
        if played is not None:
            return played
    deal_key, play_key = int(keys[0]), int(keys[1])
    out = schema.allocate_hands(count, record_plays)
    for row in range(count):
        hand_id = first + row
        hand = Hand.from_keys(rules, deal_key, play_key, hand_id, hand_id % rules.players,
                              deal_filter=deal_filter)
        play_out(hand, agents)
        _record(out, row, hand, hand_id, -1, record_plays)
    return out


def play_games(rules: Rules, agents, keys, first: int, count: int,
               record_plays: bool = False,
               deal_filter=None) -> tuple[schema.HandArrays, schema.GameArrays]:
    """Whole games ``first .. first + count - 1`` (``engine/calls.py``'s ``play_games``)."""
    if fast.eligible(rules, agents, deal_filter):
        played = fast.play(rules, agents, keys, first, count, record_plays, games=True)
        if played is not None:
            return played
    deal_key, play_key = int(keys[0]), int(keys[1])
    hands: list[tuple[Hand, int, int]] = []
    games = schema.allocate_games(count)
    for row in range(count):
        game_id = first + row
        game = Game.from_keys(rules, deal_key, play_key, game_id, deal_filter=deal_filter)
        while not game.over:
            play_out(game.hand, agents)
            hands.append((game.hand, len(game.results), game_id))
            game._end_hand()
        games.game_id[row] = game_id
        games.first_dealer[row] = game.first_dealer
        games.n_hands[row] = len(game.results)
        games.winner[row] = game.winner
        for side in range(rules.n_sides):
            games.final_score[row, side] = game.scores[side]
            games.final_bags[row, side] = game.bags[side]
    out = schema.allocate_hands(len(hands), record_plays)
    for row, (hand, index, game_id) in enumerate(hands):
        _record(out, row, hand, index, game_id, record_plays)
    return out, games
