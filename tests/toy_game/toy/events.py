"""The events of a High Card match, as immutable records."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RoundStart:
    round: int
    leader: int


@dataclass(frozen=True, slots=True)
class Deal:
    """The two cards dealt to ``seat``; private to that seat."""
    seat: int
    hand: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class RoundEnd:
    round: int
    winner: int
    scores: tuple[int, ...]
