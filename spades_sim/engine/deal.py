"""Dealing: the ordered deck, a Fisher-Yates shuffle on the deal stream, misdeal redeal."""

from numba import njit

from .bits import HONOURS_KQJ_MASK, TRUMP_MASK, lowest_card
from .layout import R_DECK_MASK, R_HAND_SIZE, R_MISDEAL_REDEAL, R_PLAYERS
from .rng import bounded_nb


@njit(cache=True, inline="always")
def shuffle_deal_nb(rules, streams, deck, dealt):
    """Shuffle and deal one hand on the deal stream ``streams[0]``; write ``dealt[seat]``.

    Draw contract: ``deck`` is refilled with the cards of the rules' deck in ascending index
    order; then for ``i = n-1 .. 1`` a Fisher-Yates step swaps ``deck[i]`` with
    ``deck[bounded(i + 1)]``; seat ``s`` receives ``deck[s*hand_size : (s+1)*hand_size]``
    (cards past ``players * hand_size`` stay undealt). With ``misdeal_redeal`` the whole
    procedure repeats, on the same stream, while some hand has no trump or no K, Q or J.
    """
    players = rules[R_PLAYERS]
    hand_size = rules[R_HAND_SIZE]
    n_dealt = players * hand_size
    while True:
        mask = rules[R_DECK_MASK]
        n_cards = 0
        while mask:
            deck[n_cards] = lowest_card(mask)
            n_cards += 1
            mask &= mask - 1
        for seat in range(players):
            dealt[seat] = 0
        # Position i is final once swapped, so it is dealt in the same pass.
        for i in range(n_cards - 1, 0, -1):
            j = bounded_nb(streams, 0, i + 1)
            card = deck[j]
            deck[j] = deck[i]
            deck[i] = card
            if i < n_dealt:
                dealt[i // hand_size] |= 1 << card
        dealt[0] |= 1 << deck[0]
        if not rules[R_MISDEAL_REDEAL]:
            return
        misdeal = False
        for seat in range(players):
            if (dealt[seat] & TRUMP_MASK) == 0 or (dealt[seat] & HONOURS_KQJ_MASK) == 0:
                misdeal = True
        if not misdeal:
            return
