"""The rules-engine contract every game implements.

A :class:`Game` is one whole **match** of one game (several rounds), as a
pure, synchronous state machine. The contract, which :class:`Game` states
here and enforces (its public methods are final; a game implements the
``_``-prefixed hooks under them):

* **Pure.** No I/O, no wall clock, no wire format (``rules.py`` and
  ``game.py`` of a game import no protobuf or generated module:
  ``tests/test_engine_contract.py`` checks), no randomness except the
  ``random.Random`` handed to the constructor: same seed + same actions =>
  the same match, event for event.
* **The turn.** :attr:`Game.to_act` is the seat that must act, ``None`` once
  the match is over. While a decision is pending, :meth:`Game.decision_kind`
  names it, :meth:`Game.legal_actions` lists the legal actions as a
  :class:`Legal` (an immutable ``tuple[Action, ...]`` and whether it is
  complete), :meth:`Game.validate` raises :class:`IllegalAction` exactly when
  :meth:`Game.apply` would, and :meth:`Game.fallback_action` is the spec's
  action for a seat that does not answer (always legal).
* **After the end** (``to_act is None``), ``decision_kind``,
  ``legal_actions``, ``validate``, ``fallback_action`` and ``apply`` raise
  :class:`MatchOver` (an :class:`IllegalAction` with rule ``"TURN"``, so a
  late action is refused like any other); :meth:`Game.result` is valid only
  then (``RuntimeError`` before).
* **Teams** are declared by the game (:meth:`Game.teams`): the runner and the
  scheduler ask it, nothing else knows which games have partnerships.
* **Events.** Every state change is reported through :meth:`Game.emit` as a
  typed, immutable record (a frozen dataclass of the game's ``events.py``)
  wrapped in an :class:`Event` with its audience (``to``: ``None`` = public,
  else the one seat allowed to see it); the runner collects them with
  :meth:`Game.pop_events`.
* **Views live outside the engine.** What a seat is sent is built by the
  game's view module, ``referee/games/<game>/view.py`` (see
  :func:`referee.games.view_module`): ``observation(game, seat)`` -> the
  game's observation protobuf message, built field by field from the
  engine's public state and that seat's own hidden cards, and
  ``event_message(record)`` -> the game's event protobuf message (with
  the helpers of :mod:`referee.games.viewkit`). An engine exposes the state
  a view needs as plain attributes (documented in its class docstring).
* **Hidden information and cards** (for the contract and leak tests):
  :meth:`Game.hidden_zones` / :meth:`Game.with_hidden_zones` (what a seat
  cannot see, and a copy with it reshuffled), :meth:`Game.card_zones` (every
  place holding cards: their union is :meth:`Game.deck` as a multiset).

Game modules register a subclass in :mod:`referee.games`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, NamedTuple

from referee.words import plural

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


class MatchOver(IllegalAction):
    """Raised by every turn method of a :class:`Game` once the match is over
    (``to_act is None``): ``decision_kind``, ``legal_actions``, ``validate``,
    ``fallback_action`` and ``apply``. An :class:`IllegalAction` of rule
    ``"TURN"``, so an action sent after the end is refused like any illegal one."""

    def __init__(self, game: str):
        super().__init__("TURN", f"{game}: the match is over; no decision is pending")


class Legal(NamedTuple):
    """What :meth:`Game.legal_actions` returns: ``actions``, an immutable
    tuple (callers may keep it; an engine may return the same tuple for the
    same state), and ``complete``: ``True`` when ``actions`` is every legal
    action, ``False`` when it is a non-empty deterministic sample (some legal
    actions are not listed; :meth:`Game.validate` is then the judge)."""

    actions: tuple[Action, ...]
    complete: bool


_new_tuple = tuple.__new__


class Event(NamedTuple):
    """Something that happened: ``record``, an immutable event record of the
    game (a frozen dataclass of ``referee/games/<game>/events.py``, turned
    into the protocol's event message by the game's view module), and ``to``:
    ``None`` for a public event, else the only seat allowed to see it.

    A named tuple, so immutable, and made at about two thirds of a frozen
    dataclass's cost (an engine makes two or three per decision)."""

    record: Any
    to: int | None = None


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


#: the turn methods that are final in :class:`Game` (each calls its ``_`` hook)
_FINAL = ("decision_kind", "legal_actions", "validate", "fallback_action", "apply")


class Game(ABC):
    """One match of one game; see the module docstring for the contract.

    Constructor: ``Game(players, variant, params, rng)`` where ``variant`` is a
    dict of the spec's variant flags (missing = default), ``params`` a dict of
    match parameters (missing = default) and ``rng`` a ``random.Random``.
    Raises ``ValueError`` for an unsupported player count or unknown flag.

    A game implements :attr:`to_act`, the hooks ``_decision_kind``,
    ``_legal_actions``, ``_validate``, ``_fallback_action`` and ``_apply``
    (each called only while a decision is pending), :meth:`result`,
    :meth:`deck`, :meth:`card_zones`, :meth:`hidden_zones` and
    :meth:`with_hidden_zones`; it may override :meth:`teams`. It may not
    override the public turn methods (``TypeError`` at class creation).
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

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        for name in _FINAL:
            if name in cls.__dict__:
                raise TypeError(f"{cls.__name__} overrides Game.{name}: implement _{name} instead")

    def __init__(self, players: int, variant: dict[str, Any] | None, params: dict[str, Any] | None,
                 rng: random.Random):
        """Check and store the configuration; subclasses call this first.

        Raises ``ValueError`` naming the problem for an unsupported player
        count, an unknown variant flag or match parameter, or a value of the
        wrong type.
        """
        if players not in self.player_counts:
            raise ValueError(f"{self.name}: {players} {plural(players, 'player')} not supported (allowed: {', '.join(map(str, self.player_counts))})")
        self.players = players
        self.variant = _merge("variant flag", self.name, self.variant_defaults, variant or {})
        self.params = _merge("match parameter", self.name, self.param_defaults, params or {})
        self.rng = rng
        self._events = []

    @classmethod
    def teams(cls, players: int) -> tuple[tuple[int, ...], ...]:
        """The fixed partnerships of a match of ``players`` seats, as tuples of
        seats (``SeatInfo.team`` is the index of a seat's team), or ``()`` when
        every seat plays for itself or sides change from round to round (Dou
        Dizhu's landlord). Default ``()``."""
        return ()

    # -- the turn (final: each checks the match is not over, then calls its hook)
    @property
    @abstractmethod
    def to_act(self) -> int | None:
        """Seat that must act now, or ``None`` when the match is over."""

    @property
    def over(self) -> bool:
        """True once the match is over (``to_act is None``)."""
        return self.to_act is None

    def decision_kind(self) -> str:
        """Kind of the pending decision (one of :data:`DECISION_KINDS`).
        Raises :class:`MatchOver` after the end."""
        if self.to_act is None:
            raise MatchOver(self.name)
        return self._decision_kind()

    def legal_actions(self) -> Legal:
        """The legal actions of :attr:`to_act` (see :class:`Legal`). Raises
        :class:`MatchOver` after the end; ``TypeError`` if the game's hook
        returns anything but a tuple of actions."""
        if self.to_act is None:
            raise MatchOver(self.name)
        acts, complete = self._legal_actions()
        if type(acts) is not tuple:
            raise TypeError(f"{self.name}: legal actions must be a tuple, not {type(acts).__name__}")
        return _new_tuple(Legal, (acts, complete))  # Legal(acts, complete), without NamedTuple's Python __new__

    def validate(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` (naming the spec rule) exactly when
        :meth:`apply` would reject ``action`` by ``seat``; :class:`MatchOver`
        after the end."""
        if self.to_act is None:
            raise MatchOver(self.name)
        self._validate(seat, action)

    def fallback_action(self) -> Action:
        """The spec's fallback action for :attr:`to_act` (timeouts,
        disconnections, forfeits); always legal. :class:`MatchOver` after the end."""
        if self.to_act is None:
            raise MatchOver(self.name)
        return self._fallback_action()

    def apply(self, seat: int, action: Action) -> None:
        """Validate then apply ``action`` by ``seat``. Raises
        :class:`IllegalAction` (state unchanged) if it is not that seat's turn
        or the action breaks a rule; :class:`MatchOver` after the end."""
        if self.to_act is None:
            raise MatchOver(self.name)
        self._apply(seat, action)

    # -- the hooks (called only while a decision is pending) ---------------------
    @abstractmethod
    def _decision_kind(self) -> str:
        """See :meth:`decision_kind`."""

    @abstractmethod
    def _legal_actions(self) -> tuple[tuple[Action, ...], bool]:
        """See :meth:`legal_actions`: ``(actions as a tuple, complete)``."""

    def _validate(self, seat: int, action: Action) -> None:
        """See :meth:`validate`. Default: the seat's turn, and membership in a
        complete legal list."""
        if seat != self.to_act:
            raise IllegalAction("TURN", f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        legal, complete = self.legal_actions()
        if complete and action.key() not in {a.key() for a in legal}:
            raise IllegalAction("LEGAL", f"{action.kind} {' '.join(action.cards)} is not a legal action")

    @abstractmethod
    def _fallback_action(self) -> Action:
        """See :meth:`fallback_action`."""

    @abstractmethod
    def _apply(self, seat: int, action: Action) -> None:
        """See :meth:`apply`."""

    # -- events ------------------------------------------------------------------
    _events: list[Event]

    def emit(self, record: Any, to: int | None = None) -> None:
        """Report an event: ``record`` (a frozen dataclass of the game's
        ``events.py``), public (``to is None``) or private to seat ``to``."""
        self._events.append(Event(record, to))

    def pop_events(self) -> list[Event]:
        """Events emitted since the last call (construction included), in order."""
        ev, self._events = self._events, []
        return ev

    # -- the end --------------------------------------------------------------
    @abstractmethod
    def result(self) -> MatchResult:
        """Final result; only valid once :attr:`over` is true (``RuntimeError`` before)."""

    # -- cards and hidden information (for the contract and leak tests) ----------
    def deck(self) -> tuple[str, ...]:
        """Every card of the current round (the game's pack), as codes."""
        raise NotImplementedError

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        """Every place holding cards of the current round (hands, kitty, stock,
        the current trick, cards played or won...): as multisets their union is
        :meth:`deck`, whatever has been played."""
        raise NotImplementedError

    def hidden_zones(self, seat: int) -> dict[str, list[str]]:
        """Every place holding cards that ``seat`` may not see right now,
        e.g. ``{"hand1": [...], "hand2": [...], "kitty": [...]}``."""
        raise NotImplementedError

    def with_hidden_zones(self, zones: dict[str, list[str]]) -> "Game":
        """A deep copy of this game whose hidden places hold ``zones`` (same
        keys and sizes as :meth:`hidden_zones`), including any pending future
        cards (undealt stock)."""
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
