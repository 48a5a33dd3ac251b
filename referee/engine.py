"""The rules-engine interface every game implements.

A :class:`Game` is one whole **match** of one game (several rounds), as a
pure, synchronous state machine:

* no I/O, no wall clock, no randomness except the ``random.Random`` it is
  handed at construction (same seed + same actions => same match, byte for
  byte in the log);
* the match runner asks :attr:`Game.to_act` who must act, sends that seat
  :meth:`Game.observation` and :meth:`Game.legal_actions`, and feeds the
  answer to :meth:`Game.apply`, which raises :class:`IllegalAction` naming
  the spec rule broken;
* every state change is reported as :class:`Event` objects collected with
  :meth:`Game.pop_events`; an event is public (``to is None``) or private to
  one seat.

Game modules register a subclass in :mod:`referee.games`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable

# Action kinds (the protocol's ActionKind without the prefix).
PASS = "PASS"
BID = "BID"
PLAY = "PLAY"
DECLARE = "DECLARE"
DISCARD = "DISCARD"
EXCHANGE = "EXCHANGE"
ACTION_KINDS = (PASS, BID, PLAY, DECLARE, DISCARD, EXCHANGE)

# Decision kinds (the protocol's DecisionKind without the prefix).
DECISION_KINDS = (BID, PLAY, DECLARE, DISCARD, EXCHANGE)


@dataclass(frozen=True, slots=True)
class Action:
    """One generic action.

    ``kind`` is one of :data:`ACTION_KINDS`; ``cards`` a tuple of card codes
    (a multiset: engines compare it order-insensitively); ``amount`` an
    integer whose unit the game's spec defines (a bid, for instance).
    """

    kind: str
    cards: tuple[str, ...] = ()
    amount: int = 0

    def key(self) -> tuple[str, tuple[str, ...], int]:
        """Order-insensitive identity: two actions with equal keys are the same action."""
        return (self.kind, tuple(sorted(self.cards)), self.amount)

    def to_json(self) -> dict[str, Any]:
        """JSON form used in match logs: ``{"kind", "cards", "amount"}``."""
        return {"kind": self.kind, "cards": list(self.cards), "amount": self.amount}

    @staticmethod
    def from_json(d: dict[str, Any]) -> "Action":
        return Action(d["kind"], tuple(d.get("cards", ())), int(d.get("amount", 0)))


class IllegalAction(Exception):
    """An action that the rules forbid.

    ``rule`` is the spec's stable rule label (e.g. ``"PLAY-4"`` for Dou
    Dizhu's ``[PLAY-4]``, or ``"§6.3"`` for specs that number sections);
    ``message`` explains, mentioning only the acting seat's own cards and
    public state (it is sent to that seat).
    """

    def __init__(self, rule: str, message: str):
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


class Event:
    """Something that happened. ``payload`` is the game's event protobuf
    message (e.g. ``DouDizhuEvent``); ``to`` is ``None`` for a public event
    or the seat number of the only seat allowed to see it.

    An engine that assembles an event as bytes may pass ``encoded`` (the
    payload's wire encoding) and ``parse`` (the message type's
    ``FromString``) instead of ``payload``: the message is parsed the first
    time :attr:`payload` is read, and :attr:`encoded` hands the bytes over
    without a parse and a serialisation (the referee sends events encoded).
    A payload is never changed after it is emitted; should a caller change
    the message anyway, :attr:`encoded` follows it (once :attr:`payload` has
    been read it is what gets encoded). Raises ``TypeError`` without a payload
    or an encoding and its parser."""

    __slots__ = ("_payload", "to", "_encoded", "_parse")

    def __init__(self, payload: Any = None, to: int | None = None, *, encoded: bytes | None = None,
                 parse: Callable[[bytes], Any] | None = None):
        if payload is None and (encoded is None or parse is None):
            raise TypeError("Event needs a payload, or its encoding and a parser")
        self._payload = payload
        self.to = to
        self._encoded = encoded
        self._parse = parse

    @property
    def payload(self) -> Any:
        p = self._payload
        if p is None:
            p = self._payload = self._parse(self._encoded)  # type: ignore[misc]
        return p

    @property
    def encoded(self) -> bytes:
        """The payload's wire encoding."""
        if self._payload is None:
            return self._encoded  # type: ignore[return-value]
        return self._payload.SerializeToString()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return self.to == other.to and self.payload == other.payload

    __hash__ = None  # type: ignore[assignment]  # mutable payload, as the dataclass it replaces

    def __repr__(self) -> str:
        return f"Event(payload={self.payload!r}, to={self.to!r})"


@dataclass(slots=True)
class RatingOutcome:
    """One outcome to feed TrueSkill: ``teams`` lists seats per team (a
    free-for-all game has one seat per team), ``ranks`` the place of each team
    (0 = best; equal ranks are a draw)."""

    teams: list[list[int]]
    ranks: list[int]


@dataclass(slots=True)
class MatchResult:
    """Final result of a match.

    ``scores``: per seat, in the game's unit (money for Dou Dizhu, match
    points for Smear, ...). ``ranks``: per seat, 1 = best, tied seats share a
    place. ``outcomes``: what the rating system should learn from the match,
    in order (Dou Dizhu yields one landlord-vs-peasants outcome per round
    played; team games one outcome with two teams; free-for-all games one
    outcome of single-seat teams). ``summary``: JSON-able details for logs.
    """

    scores: list[float]
    ranks: list[int]
    outcomes: list[RatingOutcome]
    summary: dict[str, Any] = field(default_factory=dict)


def ranks_from_scores(scores: Iterable[float], higher_is_better: bool = True) -> list[int]:
    """Competition ranking (1 = best, ties share the better place): [5, 9, 5] -> [2, 1, 2]."""
    s = list(scores)
    sign = -1 if higher_is_better else 1
    return [1 + sum(1 for o in s if sign * o < sign * x) for x in s]


class Game(ABC):
    """One match of one game. Subclasses implement the spec; see module docstring.

    Constructor: ``Game(players, variant, params, rng)`` where ``variant`` is a
    dict of the spec's variant flags (missing = default), ``params`` a dict of
    match parameters (missing = default) and ``rng`` a ``random.Random``.
    Raises ``ValueError`` for an unsupported player count or unknown flag.
    """

    #: game id used in the protocol, CLI and tournament files
    name: ClassVar[str]
    #: allowed player counts
    player_counts: ClassVar[tuple[int, ...]]
    #: spec version announced in MatchStarted.ruleset
    ruleset: ClassVar[str]
    #: variant flags with their defaults
    variant_defaults: ClassVar[dict[str, Any]] = {}
    #: match parameters with their defaults
    param_defaults: ClassVar[dict[str, Any]] = {}

    players: int
    variant: dict[str, Any]
    params: dict[str, Any]

    def __init__(self, players: int, variant: dict[str, Any] | None, params: dict[str, Any] | None,
                 rng: random.Random):
        """Check and store the configuration; subclasses call this first.

        Raises ``ValueError`` naming the problem for an unsupported player
        count, an unknown variant flag or match parameter, or a value of the
        wrong type.
        """
        if players not in self.player_counts:
            raise ValueError(f"{self.name}: {players} players not supported (allowed: {', '.join(map(str, self.player_counts))})")
        self.players = players
        self.variant = _merge("variant flag", self.name, self.variant_defaults, variant or {})
        self.params = _merge("match parameter", self.name, self.param_defaults, params or {})
        self.rng = rng
        self._events = []

    # -- the turn ---------------------------------------------------------
    @property
    @abstractmethod
    def to_act(self) -> int | None:
        """Seat that must act now, or ``None`` when the match is over."""

    @abstractmethod
    def decision_kind(self) -> str:
        """Kind of the pending decision (one of :data:`DECISION_KINDS`)."""

    @abstractmethod
    def legal_actions(self) -> tuple[list[Action], bool]:
        """Legal actions of :attr:`to_act`, and whether the list is complete.
        When incomplete, the list is a non-empty deterministic sample."""

    @abstractmethod
    def apply(self, seat: int, action: Action) -> None:
        """Validate then apply ``action`` by ``seat``.

        Raises :class:`IllegalAction` (state unchanged) if it is not that
        seat's turn or the action breaks a rule.
        """

    def validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` if ``apply`` would reject the action.
        Default: check membership in a complete legal list."""
        if seat != self.to_act:
            raise IllegalAction("TURN", f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        legal, complete = self.legal_actions()
        if complete and action.key() not in {a.key() for a in legal}:
            raise IllegalAction("LEGAL", f"{action.kind} {' '.join(action.cards)} is not a legal action")

    @abstractmethod
    def fallback_action(self) -> Action:
        """The spec's fallback action for :attr:`to_act` (timeouts, disconnections)."""

    # -- what a seat sees ---------------------------------------------------
    @abstractmethod
    def observation(self, seat: int) -> Any:
        """The game's observation protobuf message for ``seat``: its own
        hidden information and the public state only (spec's visibility section)."""

    def observation_bytes(self, seat: int) -> bytes | None:
        """The encoded :meth:`observation` of ``seat`` (protobuf wire format),
        for an engine that assembles it as bytes and can hand them over
        without parsing them first (the referee then parses them once, inside
        the request); ``None`` (the default) = use :meth:`observation`."""
        return None

    def pop_events(self) -> list[Event]:
        """Events produced since the last call (construction included), in order."""
        ev, self._events = self._events, []
        return ev

    _events: list[Event]

    def emit(self, payload: Any, to: int | None = None) -> None:
        """Record an event (for subclasses)."""
        self._events.append(Event(payload, to))

    # -- the end --------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.to_act is None

    @abstractmethod
    def result(self) -> MatchResult:
        """Final result; only valid once :attr:`over` is true."""

    # -- hidden information (for the leak tests) --------------------------------
    def hidden_zones(self, seat: int) -> dict[str, list[str]]:
        """Every place holding cards that ``seat`` may not see right now,
        e.g. ``{"hand1": [...], "hand2": [...], "kitty": [...]}``. Used by the
        hidden-information differential test; engines override it."""
        raise NotImplementedError

    def with_hidden_zones(self, zones: dict[str, list[str]]) -> "Game":
        """A deep copy of this game whose hidden places hold ``zones`` (same
        keys and sizes as :meth:`hidden_zones`), including any pending future
        cards (undealt stock). Engines override it."""
        raise NotImplementedError


def _merge(what: str, game: str, defaults: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    out = dict(defaults)
    for k, v in given.items():
        if k not in defaults:
            raise ValueError(f"{game}: unknown {what} {k!r} (known: {', '.join(sorted(defaults)) or 'none'})")
        d = defaults[k]
        if type(d) is int and isinstance(v, float) and v.is_integer():
            v = int(v)  # numbers that went through JSON/protobuf Struct come back as floats
        if d is not None and type(v) is not type(d) and not (isinstance(d, float) and type(v) is int):
            raise ValueError(f"{game}: {what} {k!r} must be {type(d).__name__}, got {v!r}")
        out[k] = v
    return out


def seeded_rng(seed: int) -> random.Random:
    """The one RNG constructor used for matches: ``random.Random(seed)``."""
    return random.Random(seed)
