"""Bitboard helpers: popcount, lowest and highest set bit, n-th set bit, bit gather and
scatter (pext, pdep), suit masks.

Bitboards are int64 with bit 63 never used. The compiled versions use LLVM's ctpop/cttz/ctlz
(``unsafe.py``); with ``NUMBA_DISABLE_JIT=1`` the same names are plain Python, so every kernel
still runs.
"""

from numba import config, njit

SUIT_MASK_CLUBS = (1 << 13) - 1
SUIT_MASK_DIAMONDS = SUIT_MASK_CLUBS << 13
SUIT_MASK_HEARTS = SUIT_MASK_CLUBS << 26
# Trumps: the spades plus both jokers (bits 52, 53); a standard deck simply holds no jokers.
TRUMP_MASK = (SUIT_MASK_CLUBS << 39) | (1 << 52) | (1 << 53)
NON_TRUMP_MASK = (1 << 39) - 1
HONOURS_KQJ_MASK = 0
for _suit in range(4):
    HONOURS_KQJ_MASK |= 0b0111 << (13 * _suit + 9)  # J, Q, K of each suit

if config.DISABLE_JIT:

    def popcount(mask):
        return int(mask).bit_count()

    def lowest_card(mask):
        mask = int(mask)
        return (mask & -mask).bit_length() - 1

    def highest_card(mask):
        return int(mask).bit_length() - 1

else:
    from .unsafe import ctlz_nb as _ctlz
    from .unsafe import ctpop_nb as _ctpop
    from .unsafe import cttz_nb as _cttz
    from .unsafe import pdep_raw_nb as _pdep
    from .unsafe import pext_raw_nb as _pext

    @njit(cache=True, inline="always")
    def popcount(mask):
        """Number of cards in ``mask``."""
        return _ctpop(mask)

    @njit(cache=True, inline="always")
    def lowest_card(mask):
        """Lowest card index in a non-empty ``mask``."""
        return _cttz(mask)

    @njit(cache=True, inline="always")
    def highest_card(mask):
        """Highest card index in a non-empty ``mask``."""
        return 63 - _ctlz(mask)


def _host_has_bmi2() -> bool:
    try:
        import llvmlite.binding as llvm

        return bool(llvm.get_host_cpu_features().get("bmi2", False))
    except Exception:  # pragma: no cover - feature query unavailable
        return False


@njit(cache=True, inline="always")
def pext_loop_nb(source, mask):
    """The bits of ``source`` under ``mask``, packed to the bottom in order (a loop; what
    ``pext_nb`` is without BMI2)."""
    packed = 0
    position = 0
    while mask != 0:
        packed |= ((source >> lowest_card(mask)) & 1) << position
        position += 1
        mask &= mask - 1
    return packed


@njit(cache=True, inline="always")
def pdep_loop_nb(source, mask):
    """The low bits of ``source`` deposited in order onto the set bits of ``mask`` (a loop;
    what ``pdep_nb`` is without BMI2)."""
    spread = 0
    position = 0
    while mask != 0:
        spread |= ((source >> position) & 1) << lowest_card(mask)
        position += 1
        mask &= mask - 1
    return spread


if not config.DISABLE_JIT and _host_has_bmi2():
    # BMI2's pdep deposits bit ``index`` straight onto the index-th set bit: no loop, no
    # unpredictable branch. Numba's cache is keyed by the host CPU, so this never runs elsewhere.
    @njit(cache=True, inline="always")
    def nth_card_nb(mask, index):
        """The ``index``-th lowest card of ``mask`` (0-based); ``index < popcount(mask)``."""
        return lowest_card(_pdep(1 << index, mask))

    @njit(cache=True, inline="always")
    def pext_nb(source, mask):
        """The bits of ``source`` under ``mask``, packed to the bottom in order (BMI2 pext)."""
        return _pext(source, mask)

    @njit(cache=True, inline="always")
    def pdep_nb(source, mask):
        """The low bits of ``source`` deposited in order onto the set bits of ``mask`` (pdep)."""
        return _pdep(source, mask)

else:

    @njit(cache=True, inline="always")
    def nth_card_nb(mask, index):
        """The ``index``-th lowest card of ``mask`` (0-based); ``index < popcount(mask)``."""
        for _ in range(index):
            mask &= mask - 1
        return lowest_card(mask)

    pext_nb = pext_loop_nb
    pdep_nb = pdep_loop_nb


@njit(cache=True, inline="always")
def suit_mask_nb(suit):
    """Cards of ``suit`` (0..3); the spade suit includes the jokers (bits 39..53)."""
    width = 0x7FFF if suit == 3 else 0x1FFF
    return width << (13 * suit)


@njit(cache=True, inline="always")
def suit_of_nb(card):
    """Suit of a card; jokers (52, 53) count as spades."""
    return min(card // 13, 3)


@njit(cache=True, inline="always")
def rank_of_nb(card):
    """Rank 0..12 (2..A); LJ = 13, BJ = 14, so jokers outrank every card."""
    if card >= 52:
        return card - 39
    return card % 13


@njit(cache=True, inline="always")
def byte_of_nb(packed, seat):
    """Byte ``seat`` of a packed per-seat vector (bids, tricks: 8 bits per seat)."""
    return (packed >> (8 * seat)) & 0xFF


@njit(cache=True, inline="always")
def flag_of_nb(bits, seat):
    """Bit ``seat`` of a per-seat flag set (blind bids)."""
    return (bits >> seat) & 1


@njit(cache=True, inline="always")
def wrap_seat_nb(seat, players):
    """``seat % players`` for ``0 <= seat < 2 * players`` without a division (the player count
    is a runtime rule value, so ``%`` would compile to a slow integer division)."""
    return seat - players if seat >= players else seat


@njit(cache=True, inline="always")
def zero_bytes_nb(packed):
    """Bit ``seat`` set for each of the four low bytes of ``packed`` that is zero (exact, no
    loop: the high bit of ``(b & 0x7F) + 0x7F`` is set for any non-zero byte below 0x80)."""
    low = packed & 0xFFFFFFFF
    flags = ~(((low & 0x7F7F7F7F) + 0x7F7F7F7F) | low | 0x7F7F7F7F) & 0x80808080
    # bits 7, 15, 23, 31 to bits 0..3: the multiply's partial products never overlap
    return (((flags >> 7) * 0x204081) >> 21) & 0xF


@njit(cache=True, inline="always")
def sum_bytes_nb(packed, seats):
    """The sum of the bytes of ``packed`` (at most 255 together) picked by the four-bit set
    ``seats``."""
    mask = (((seats & 0xF) * 0x204081) & 0x01010101) * 0xFF
    return (((packed & mask) * 0x01010101) >> 24) & 0xFF
