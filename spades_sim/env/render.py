"""The environment's text picture of a hand (``render()``): the table, and the cards of the seat
to act only."""

from __future__ import annotations

from ..core.cards import card_text, pretty_hand, texts_of
from ..game import BLIND, KEEP, PASS, PLAY, Game, Hand
from .actions import describe, to_env


def _bid_text(hand: Hand, seat: int) -> str:
    bid = hand.bids[seat]
    if bid < 0:
        return "-"
    text = "nil" if bid == 0 and hand.rules.nil else str(bid)
    if hand.blind[seat]:
        text = f"blind {text}"
    if hand.bumped[seat]:
        text += " (bumped)"
    return text


def render_text(hand: Hand, agents: list[str], game: Game | None = None) -> str:
    """A text picture of ``hand``: the table, and the cards of the seat to act only."""
    rules = hand.rules
    width = max(len(agent) for agent in agents)
    title = f"{rules.preset_name}: hand {hand.hand_id}, dealer {agents[hand.dealer]}"
    if game is not None:
        title = f"{rules.preset_name}: game {game.game_id}, hand {hand.hand_id}, dealer " \
                f"{agents[hand.dealer]}"
    lines = [title]
    if hand.done:
        lines.append("phase: over")
    else:
        status = f"phase: {hand.phase}, {agents[hand.to_act]} to act"
        if hand.phase == PLAY:
            status += f", trick {hand.trick_index + 1} of {rules.hand_size}"
        lines.append(status)
    scores = game.scores if game is not None else hand.scores
    bags = game.bags if game is not None else hand.bags
    sides = []
    for side in range(rules.n_sides):
        members = "+".join(agent for seat, agent in enumerate(agents)
                           if rules.side_of(seat) == side)
        sides.append(f"{members} {scores[side]} ({bags[side]} bags)")
    lines.append("scores: " + ", ".join(sides))
    lines.append("")
    trick = dict(hand.trick)
    for seat, agent in enumerate(agents):
        card = card_text(trick[seat]) if seat in trick else ""
        lead = " (led)" if hand.trick and hand.trick[0][0] == seat else ""
        lines.append(f"  {agent:<{width}}  bid {_bid_text(hand, seat):<18} tricks "
                     f"{hand.tricks[seat]:>2}  {card}{lead}".rstrip())
    if hand.done:
        result = hand.result()
        lines.append("")
        lines.append("score change: " + ", ".join(str(delta) for delta in result["score_delta"]))
        return "\n".join(lines)
    seat = hand.to_act
    lines.append("")
    lines.append(f"{agents[seat]}'s cards:")
    lines += ["  " + line for line in pretty_hand(hand.hands[seat]).splitlines()]
    if hand.phase == KEEP:
        lines.append(f"face-up card: {card_text(hand.face_up)}")
    if hand.phase == PASS:
        chosen = hand.hands[seat] & ~sum(1 << card for card in hand.legal_actions())
        lines.append(f"cards still to pass: {hand.pass_count} (chosen: "
                     f"{' '.join(texts_of(chosen)) or 'none'})")
    if hand.phase == BLIND:
        lines.append("blind bid before looking, or look")
    legal = [to_env(hand.phase, action) for action in hand.legal_actions()]
    if hand.phase in (PLAY, PASS):
        lines.append("legal: " + " ".join(texts_of(sum(1 << card for card in legal))))
    else:
        lines.append("legal: " + ", ".join(f"{action} ({describe(action)})" for action in legal))
    return "\n".join(lines)
