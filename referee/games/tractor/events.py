"""Tractor's event records (shared/rules/tractor.md), immutable.

One frozen dataclass per message of ``TractorEvent`` and of the records
nested in it and in the observation (protos/cardgames/v1/tractor.proto),
with the message's fields; :mod:`referee.games.tractor.view` turns a record
into its message. Sequences are tuples, levels and ranks rank characters
(``"2"``..``"A"``), a trump suit ``"S"``/``"H"``/``"D"``/``"C"`` or ``"NT"``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DealStart:
    """Section 2.1: a deal starts (round 1 may be redealt: ``deal_number``)."""

    round_number: int
    deal_number: int
    first_drawer: int
    levels: tuple[str, ...]
    trump_rank: str
    declarer_team: int  # -1 while unknown (round 1)
    starter: int  # -1 while unknown (round 1)


@dataclass(frozen=True, slots=True)
class CardDealt:
    """Section 2.1: card ``index`` (0-based) of the deal goes to ``seat``; private to it."""

    index: int
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class DeclarePass:
    """Section 2.4: ``seat`` passed at a declaration prompt after ``cards_dealt`` cards; private to it."""

    seat: int
    cards_dealt: int


@dataclass(frozen=True, slots=True)
class Declaration:
    """Sections 2.2-2.4: ``seat`` showed ``cards``; ``kind`` and ``strength``
    (2.3), a reinforcement of its own declaration, the trump suit it names."""

    seat: int
    cards: tuple[str, ...]
    kind: str
    strength: int
    reinforcement: bool
    trump_suit: str
    cards_dealt: int


@dataclass(frozen=True, slots=True)
class DeclarationClosed:
    """Sections 2.5-2.6: ``outcome`` ``"declared"`` (``standing`` the last
    declaration), ``"redeal"`` or ``"kitty_flip"``."""

    outcome: str
    trump_suit: str
    declarer_team: int
    starter: int
    standing: Declaration | None = None


@dataclass(frozen=True, slots=True)
class KittyFlip:
    """Section 2.6: the kitty cards turned up (``flipped``) and the trump suit they fix."""

    flipped: tuple[str, ...]
    trump_suit: str


@dataclass(frozen=True, slots=True)
class KittyTaken:
    """Section 3: the starter takes the kitty (public without cards; private to it with them)."""

    seat: int
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class KittyBuried:
    """Section 3: the starter buries 8 cards (public without cards; private to it with them)."""

    seat: int
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ThrowFailure:
    """Section 9: a throw failed: the ``forced`` component is played instead;
    ``penalty`` points, ``defender_points_delta`` their effect on the defenders."""

    seat: int
    attempted: tuple[str, ...]
    forced: tuple[str, ...]
    penalty: int
    defender_points_delta: int


@dataclass(frozen=True, slots=True)
class Play:
    """One seat's cards in a trick."""

    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Played:
    """Sections 6-7: a lead (``lead``, with its type and play-suit) or a follow in trick ``trick``."""

    trick: int
    lead: bool
    play: Play
    lead_type: str = ""
    lead_suit: str = ""


@dataclass(frozen=True, slots=True)
class TrickEnd:
    """Section 8: trick ``trick`` won by ``winner``, its ``points``; defender points after it."""

    trick: int
    winner: int
    points: int
    defenders_won: bool
    defender_points: int


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick, as the observation lists it (sections 6-8)."""

    number: int
    leader: int
    plays: tuple[Play, ...]
    lead_type: str
    lead_suit: str
    throw_failure: ThrowFailure | None
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class RoundResult:
    """Sections 10-11: the scoring of a round (points, kitty bonus, level change)."""

    round_number: int
    declarer_team: int
    starter: int
    trump_rank: str
    trump_suit: str
    kitty: tuple[str, ...]
    kitty_points: int
    kitty_multiplier: int
    kitty_bonus: int
    trick_points: int
    penalty_points: int
    defender_points: int
    team_up: int  # -1: nobody goes up
    levels_up: int
    levels: tuple[str, ...]
    next_declarer_team: int
    next_starter: int
    match_over: bool
    winner_team: int
    draw: bool


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """Section 11: the match is over."""

    winner_team: int  # -1 for a draw
    draw: bool
    passed_ace: bool
    levels: tuple[str, ...]
    rounds_played: int
