"""The events of a Back Alley match (shared/rules/back_alley.md), as immutable records.

The engine emits one of these per thing that happened; :mod:`.view` turns
each into its ``BackAlleyEvent`` message. Seats are seat numbers 0..3, teams
0 (seats 0, 2) and 1 (seats 1, 3), cards CONVENTIONS.md codes, points and
totals spec section 7's. :class:`Hand` and :class:`Draw` are private to
their seat (spec 9), every other event is public.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Contract:
    """A team's contract (§4.4): board at ``board_level`` (1..4, 0 = not board)
    for all ``tricks``, or a numeric target of ``tricks``."""
    team: int
    board: bool
    board_level: int
    tricks: int


@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick as the state keeps it (part of no event): trick
    ``number`` (1-based) led by ``leader``, ``cards[i]`` played by seat
    ``(leader + i) mod 4``, won by ``winner`` (§6)."""
    number: int
    leader: int
    cards: tuple[str, ...]
    winner: int


@dataclass(frozen=True, slots=True)
class Deal:
    """A round is dealt (§2): round index, hand size, dealer, pass-outs in a row (§4.5),
    the upcard and the trump suit it fixes (``""`` = no trump, §2.4)."""
    round_index: int
    hand_size: int
    dealer: int
    passed_out_in_row: int
    upcard: str
    trump: str


@dataclass(frozen=True, slots=True)
class Hand:
    """The cards dealt to ``seat`` (§2.3), sorted; private to that seat."""
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class JokerExchange:
    """``seat`` laid out ``joker`` for the upcard (§2.4); public."""
    seat: int
    joker: str


@dataclass(frozen=True, slots=True)
class Draw:
    """The card ``seat`` took in the joker exchange (§2.4); private to that seat."""
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class Bid:
    """One bid (§4.2): ``kind`` "pass", "number" (``tricks`` 1..h-1) or "board"
    (all ``tricks``, at ``board_level`` 1..4 by position, §4.3)."""
    seat: int
    kind: str
    tricks: int
    board_level: int


@dataclass(frozen=True, slots=True)
class BiddingEnd:
    """Bidding is over (§4.4-4.6): passed out, or the contracts and the opening leader."""
    passed_out: bool
    contracts: tuple[Contract, ...]
    opening_leader: int | None


@dataclass(frozen=True, slots=True)
class Play:
    """``seat`` played ``card`` at ``position`` (0..3) of trick ``trick_number`` (1-based, §5)."""
    seat: int
    card: str
    trick_number: int
    position: int


@dataclass(frozen=True, slots=True)
class TrickEnd:
    """A trick is complete (§6): its winner and winning card, tricks per team, trumps broken (§5.2)."""
    trick_number: int
    winner: int
    winning_card: str
    team_tricks: tuple[int, int]
    trumps_broken: bool


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A round ended (§4.5, §7): whether it was passed out and closed its index, tricks,
    points and totals per team, and the contracts (empty when passed out)."""
    round_index: int
    hand_size: int
    dealer: int
    passed_out: bool
    passed_out_in_row: int
    index_complete: bool
    team_tricks: tuple[int, int]
    points: tuple[int, int]
    totals: tuple[int, int]
    contracts: tuple[Contract, ...]


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """The match ended (§8): final totals per team and the winning team (None = a draw)."""
    totals: tuple[int, int]
    winner_team: int | None


BackAlleyEventRecord = (Deal | Hand | JokerExchange | Draw | Bid | BiddingEnd | Play | TrickEnd | RoundEnd
                        | MatchEnd)
