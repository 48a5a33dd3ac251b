"""The events of a President match (shared/rules/president.md), as immutable records.

The engine emits one of these per thing that happened; :mod:`.view` turns
each into its ``PresidentEvent`` message. Seats are seat numbers, cards
CONVENTIONS.md codes, scores role points (spec 4). :class:`Deal` and
:class:`TransferCards` are private (spec 9), every other event is public.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RoundStart:
    """A round starts (§2.4): number, dealer, first leader (§6.8), roles held (§4), cards dealt per seat."""
    round: int
    dealer: int
    leader: int
    roles: tuple[str, ...]
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Deal:
    """The cards dealt to the receiving seat (§2.3), in card order; private to that seat."""
    round: int
    hand: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Transfer:
    """Cards moved in the exchange (§5): ``kind`` "gift" (forced, §5.1 step 1) or "return".
    Public as a count (:func:`.view.event` leaves the cards out); see :class:`TransferCards`."""
    kind: str
    from_seat: int
    to_seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TransferCards:
    """The same transfer with its cards, private to its giver and its receiver (§9)."""
    transfer: Transfer


@dataclass(frozen=True, slots=True)
class ExchangeEnd:
    """The exchange is over (§5): cards held per seat, and the round's first leader."""
    hand_sizes: tuple[int, ...]
    leader: int


@dataclass(frozen=True, slots=True)
class Play:
    """One action of a trick (§6): ``seat`` played ``cards`` (``()`` = a pass; ``auto``: the
    automatic pass of a skip, §6.5), ``transparent`` (§10 transparent threes), the top and
    the revolution state after it (None = no top), the seat's cards left, and ``place``
    (1-based finishing place if it went out with this play, else 0; §6.7).
    The same record is an entry of the trick in progress (:class:`.play.RoundPlay`)."""
    seat: int
    cards: tuple[str, ...]
    auto: bool
    transparent: bool
    top: tuple[int, str] | None
    revolution: bool
    hand_size: int
    place: int


@dataclass(frozen=True, slots=True)
class TrickEnd:
    """A trick ended (§6.6): the seat that made the last top, and the next leader."""
    last_player: int
    leader: int


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A round ended (§7): finishing order, the roles and role scores it gives (§4), totals."""
    round: int
    order: tuple[int, ...]
    roles: tuple[str, ...]
    deltas: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """The match ended (§8): rounds played, totals, the final ranking (best first) and its winner."""
    rounds_played: int
    totals: tuple[int, ...]
    ranking: tuple[int, ...]
    winner: int


PresidentEventRecord = (RoundStart | Deal | Transfer | TransferCards | ExchangeEnd | Play | TrickEnd | RoundEnd
                        | MatchEnd)
