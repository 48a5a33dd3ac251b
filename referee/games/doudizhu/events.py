"""Dou Dizhu's event records (shared/rules/doudizhu.md), immutable.

One frozen dataclass per kind of ``DouDizhuEvent``, with the fields of its
protocol message (protos/cardgames/v1/doudizhu.proto) in the spec's
vocabulary; :mod:`referee.games.doudizhu.view` turns a record into the
message. Sequences are tuples, so records are hashable and never change.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Deal:
    """§4 [DEAL-1..3]: a round is dealt. Public (``seat == -1``, no ``hand``)
    and then private to each seat with its own ``hand``; ``hand_sizes`` in cards."""

    round: int
    marker: str
    first_bidder: int
    hand_sizes: tuple[int, ...]
    hand: tuple[str, ...] = ()
    seat: int = -1


@dataclass(frozen=True, slots=True)
class Call:
    """§4 [AUC-2]: an auction call; ``amount`` 0 = pass, else the bid in units 1-3."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class AuctionEnd:
    """§4 [AUC-7..9]: the auction's outcome: a redeal (``landlord == -1``), or
    the landlord, its bid and the kitty shown to all."""

    redeal: bool
    landlord: int
    bid: int
    kitty: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Play:
    """§7: a play (``cards`` in canonical order, its ``combination`` type,
    ordering ``rank`` name and chain ``length``) or a pass (no cards, empty combination)."""

    seat: int
    cards: tuple[str, ...] = ()
    combination: str = ""
    rank: str = ""
    length: int = 0


@dataclass(frozen=True, slots=True)
class TrickEnd:
    """§7 [PLAY-6]: every other seat passed; ``leader`` leads the next trick."""

    leader: int


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """§8, §9: a round is over (also after a redeal: ``redeal``, no winner,
    zero ``deltas``); money in units, ``scores`` the running totals."""

    round: int
    winner: int
    landlord_won: bool
    multiplier: int
    spring: bool
    deltas: tuple[int, ...]
    scores: tuple[int, ...]
    redeal: bool
    landlord: int
    bid: int
    doublings: int


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """§9 [GAME-1]: the match is over; money per seat and ranks (1 = best)."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
