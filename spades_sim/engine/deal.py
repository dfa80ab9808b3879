"""Dealing: the ordered deck, a Fisher-Yates shuffle on the deal stream, misdeal redeal."""

from numba import njit

from .bits import HONOURS_KQJ_MASK, TRUMP_MASK, lowest_card
from .layout import R_DECK_MASK, R_HAND_SIZE, R_MISDEAL_REDEAL, R_PLAYERS
from .rng import bounded_nb


@njit(cache=True)
def shuffle_deal_nb(rules, deal_state, deck, dealt):
    """Shuffle and deal one hand; write each seat's bitboard into ``dealt[seat]``.

    Draw contract: ``deck`` is refilled with the cards of the rules' deck in ascending index
    order; then for ``i = n-1 .. 1`` a Fisher-Yates step swaps ``deck[i]`` with
    ``deck[bounded(i + 1)]``; seat ``s`` receives ``deck[s*hand_size : (s+1)*hand_size]``
    (cards past ``players * hand_size`` stay undealt). With ``misdeal_redeal`` the whole
    procedure repeats, on the same stream, while some hand has no trump or no K, Q or J.
    """
    players = rules[R_PLAYERS]
    hand_size = rules[R_HAND_SIZE]
    while True:
        mask = rules[R_DECK_MASK]
        n_cards = 0
        while mask:
            card = lowest_card(mask)
            deck[n_cards] = card
            n_cards += 1
            mask &= mask - 1
        for i in range(n_cards - 1, 0, -1):
            j = bounded_nb(deal_state, i + 1)
            card = deck[i]
            deck[i] = deck[j]
            deck[j] = card
        for seat in range(players):
            hand = 0
            for k in range(seat * hand_size, (seat + 1) * hand_size):
                hand |= 1 << deck[k]
            dealt[seat] = hand
        if not rules[R_MISDEAL_REDEAL]:
            return
        misdeal = False
        for seat in range(players):
            if (dealt[seat] & TRUMP_MASK) == 0 or (dealt[seat] & HONOURS_KQJ_MASK) == 0:
                misdeal = True
        if not misdeal:
            return
