"""Card codes shared by every game (shared/rules/CONVENTIONS.md).

A card is a two-character code, rank then suit: ranks ``23456789TJQKA``,
suits ``C D H S``; jokers ``BJ`` (black, small) and ``RJ`` (red, big).
Two cards with the same code are identical; hands are multisets of codes.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

RANKS = "23456789TJQKA"
SUITS = "CDHS"  # tie-break order, clubs lowest (CONVENTIONS.md)
JOKERS = ("BJ", "RJ")
STANDARD_DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
ALL_CODES: frozenset[str] = frozenset(STANDARD_DECK) | frozenset(JOKERS)


def is_card(code: object) -> bool:
    """True if ``code`` is a valid card code."""
    return isinstance(code, str) and code in ALL_CODES


def check_cards(codes: Iterable[str]) -> list[str]:
    """Return ``codes`` as a list; raise ``ValueError`` naming the first malformed code."""
    out = list(codes)
    for c in out:
        if not is_card(c):
            raise ValueError(f"malformed card code {c!r} (expected rank 2-9TJQKA + suit CDHS, or BJ/RJ)")
    return out


def tiebreak_key(code: str) -> tuple[int, int]:
    """Sort key of the deterministic tie-break order: suits C < D < H < S, then BJ < RJ."""
    if code in JOKERS:
        return (4, JOKERS.index(code))
    return (SUITS.index(code[1]), RANKS.index(code[0]))


def is_submultiset(part: Iterable[str], whole: Iterable[str]) -> bool:
    """True if every code of ``part`` occurs in ``whole`` at least as often."""
    need = Counter(part)
    have = Counter(whole)
    return all(have[c] >= n for c, n in need.items())


def remove_cards(hand: list[str], cards: Iterable[str]) -> None:
    """Remove one copy of each of ``cards`` from ``hand`` in place; ``ValueError`` if missing."""
    for c in cards:
        hand.remove(c)
