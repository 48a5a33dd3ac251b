"""The events of a Smear match (shared/rules/smear.md), as immutable records.

The engine emits one of these per thing that happened; :mod:`.view` turns
each into its ``SmearEvent`` message. Seats are seat numbers, ``None`` for
"none"; cards are CONVENTIONS.md codes; scores and points are match points.
:class:`Deal` is private to its seat, every other event is public (spec 9).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RoundStart:
    """A round starts (§2): its number, dealer, the scores before it, 6 cards per seat."""
    round: int
    dealer: int
    scores: tuple[int, ...]
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Deal:
    """The 6 cards dealt to ``seat`` (§2.3), sorted; private to that seat."""
    round: int
    seat: int
    hand: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Call:
    """One auction call (§5): ``bid`` 2, 3 or 4, or 0 for a pass."""
    seat: int
    bid: int


@dataclass(frozen=True, slots=True)
class AuctionEnd:
    """The auction's outcome (§5.4-5.6): the bidder and contract, or passed out (``bidder`` None, ``bid`` 0)."""
    passed_out: bool
    bidder: int | None
    bid: int


@dataclass(frozen=True, slots=True)
class Play:
    """``seat`` played ``card`` to trick number ``trick`` (0..5) of the round (§6)."""
    seat: int
    card: str
    trick: int


@dataclass(frozen=True, slots=True)
class Trump:
    """The round's first card fixed the trump ``suit`` (§6.1); ``seat`` is the bidder who led it."""
    suit: str
    seat: int


@dataclass(frozen=True, slots=True)
class TrickEnd:
    """A completed trick (§6.4): ``cards[i]`` was played by seat ``(leader + i) mod n``."""
    index: int
    leader: int
    cards: tuple[str, ...]
    winner: int


@dataclass(frozen=True, slots=True)
class RoundItems:
    """The award of a played-out round (§4, §7): seats awarded each item (None = nobody),
    the highest and lowest natural trump played, game points and points per seat."""
    high: int | None
    low: int | None
    jack: int | None
    game: int | None
    high_card: str
    low_card: str
    game_points: tuple[int, ...]
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A round ended (§7, §8); for a passed-out deal ``passed_out`` is true, ``items`` None."""
    round: int
    passed_out: bool
    bidder: int | None
    bid: int
    trump: str
    items: RoundItems | None
    made: bool
    deltas: tuple[int, ...]
    scores: tuple[int, ...]
    winner: int | None


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """The match ended (§8): the winner (None at the round limit), final scores, standings (1 = best)."""
    winner: int | None
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    rounds: int


SmearEventRecord = RoundStart | Deal | Call | AuctionEnd | Play | Trump | TrickEnd | RoundEnd | MatchEnd
