"""Dealing: the ordered deck, a Fisher-Yates shuffle on the deal stream, misdeal redeal, and
the two-player draw deal."""

from numba import njit

from .bits import HONOURS_KQJ_MASK, TRUMP_MASK, byte_of_nb, lowest_card, popcount, wrap_seat_nb
from .rng import bounded_nb
from .strategy_bids import choose_keep_nb


@njit(cache=True, inline="always")
def ordered_deck_nb(rules, deck):
    """Write the rules' deck in ascending order at ``deck[n:2n]``; return ``n``."""
    n_cards = popcount(rules.deck_mask)
    mask = rules.deck_mask
    position = n_cards
    while mask:
        deck[position] = lowest_card(mask)
        position += 1
        mask &= mask - 1
    return n_cards


@njit(cache=True, inline="always")
def shuffle_nb(state, deck, n_cards):
    """Shuffle ``deck[:n_cards]`` on the deal stream; return the stream's state.

    Draw contract: ``deck[:n_cards]`` is refilled with the cards of the rules' deck in ascending
    index order (kept at ``deck[n_cards:2*n_cards]`` by ``ordered_deck_nb``: one scratch array
    rather than two, so the inlined call passes one array); then for ``i = n-1 .. 1`` a
    Fisher-Yates step swaps ``deck[i]`` with ``deck[bounded(i + 1)]``.
    """
    for i in range(n_cards):
        deck[i] = deck[n_cards + i]
    for i in range(n_cards - 1, 0, -1):
        j, state = bounded_nb(state, i + 1)
        card = deck[j]
        deck[j] = deck[i]
        deck[i] = card
    return state


@njit(cache=True, inline="always")
def shuffle_deal_nb(rules, state, deck, n_cards):
    """Shuffle and deal one hand; return ``(hand0, hand1, hand2, hand3, state)``.

    After ``shuffle_nb``, seat ``s`` receives ``deck[s*hand_size : (s+1)*hand_size]`` (cards past
    ``players * hand_size`` stay undealt; seats past ``players`` get 0). With
    ``misdeal_redeal`` the whole procedure repeats, on the same stream, while some hand has no
    trump or no K, Q or J.
    """
    players = rules.players
    hand_size = rules.hand_size
    while True:
        state = shuffle_nb(state, deck, n_cards)
        hand0 = 0
        hand1 = 0
        hand2 = 0
        hand3 = 0
        for k in range(hand_size):
            hand0 |= 1 << deck[k]
            hand1 |= 1 << deck[hand_size + k]
            if players > 2:
                hand2 |= 1 << deck[2 * hand_size + k]
            if players > 3:
                hand3 |= 1 << deck[3 * hand_size + k]
        if not rules.misdeal_redeal or not (
            _misdealt_nb(hand0) or _misdealt_nb(hand1) or _misdealt_nb(hand2)
            or (players == 4 and _misdealt_nb(hand3))
        ):
            return hand0, hand1, hand2, hand3, state


@njit(cache=True, inline="always")
def _misdealt_nb(hand):
    """A hand with no trump (jokers count) or no K, Q or J calls for a redeal."""
    return (hand & TRUMP_MASK) == 0 or (hand & HONOURS_KQJ_MASK) == 0


@njit(cache=True, inline="always")
def draw_deal_nb(rules, kinds_packed, params, keep_rates, dealer, deal_state, play_state, deck,
                 n_cards):
    """The two-player draw deal; returns ``(hand0, hand1, deal_state, play_state)``.

    The stock is the deck after ``shuffle_nb``. The player left of the dealer draws first, from
    ``deck[0:26]``: pair ``p`` is ``deck[2p]`` (turned face up) and ``deck[2p + 1]`` (face
    down); the player keeps the face-up card or takes the face-down one, by its strategy
    (``choose_keep_nb``, on the play stream), and the other card is discarded unseen. After 13
    pairs the other player does the same with ``deck[26:52]``.
    """
    deal_state = shuffle_nb(deal_state, deck, n_cards)
    first = wrap_seat_nb(dealer + 1, 2)
    hand0 = 0
    hand1 = 0
    for turn in range(2):
        seat = first if turn == 0 else 1 - first
        kind = byte_of_nb(kinds_packed, seat)
        hand = 0
        for pair in range(rules.hand_size):
            face_up = deck[26 * turn + 2 * pair]
            face_down = deck[26 * turn + 2 * pair + 1]
            keep, play_state = choose_keep_nb(kind, params, keep_rates, seat, face_up, play_state)
            hand |= 1 << (face_up if keep else face_down)
        if seat == 0:
            hand0 = hand
        else:
            hand1 = hand
    return hand0, hand1, deal_state, play_state
