"""Card codes shared by every game (shared/rules/CONVENTIONS.md).

A card is a two-character code, rank then suit: ranks ``23456789TJQKA``,
suits ``C D H S``; jokers ``BJ`` (black, small) and ``RJ`` (red, big).
Two cards with the same code are identical; hands are multisets of codes.
Every game refers to these codes (a code outside ALL_CODES is malformed).
"""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "CDHS"  # tie-break order, clubs lowest (CONVENTIONS.md)
JOKERS = ("BJ", "RJ")
STANDARD_DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
ALL_CODES: frozenset[str] = frozenset(STANDARD_DECK) | frozenset(JOKERS)


def is_card(code: object) -> bool:
    """True if ``code`` is a valid card code."""
    return isinstance(code, str) and code in ALL_CODES
