"""The match runner: drives one engine with seats bound to bot links.

It owns everything about time and faults; the engine owns the rules.

Per decision (``DecisionRequest``):

* the clock starts when the request has been written to the bot's stream
  and stops when the answer is read; a seat has ``decision_ms`` per decision
  plus an optional time bank (``bank_ms``) charged only for the excess;
* no answer in time -> fault ``timeout``; an answer the engine rejects (or
  cannot parse) -> fault ``illegal`` with the spec rule;
* policy ``default_action``: the engine's fallback action is applied and
  announced like any other action; after ``max_faults`` faults the seat is
  forfeited. Policy ``forfeit``: the first fault forfeits the seat;
* a forfeited or disconnected seat is no longer asked: the referee plays the
  fallback action for it at once. A disconnected seat gets a fault for
  every later request it is not back for (a ``disconnect`` fault, then an
  ``absent`` fault per decision), so the policy forfeits it like any other;
  a forfeited seat is
  ranked last whatever its score, and its team loses in partnership games.

Fault kinds and match statuses are the enums of :mod:`referee.outcomes`.

Every match writes a JSON Lines log (see :class:`MatchLog`) from which the
match can be replayed exactly (:func:`replay_log`).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

import orjson
from google.protobuf import json_format

from cardgames.v1 import referee_pb2 as pb
from referee.clocks import CPU_WALL_CAP, StallMonitor, ask_on_cpu_clock
from referee.engine import Action, Game, IllegalAction, MatchResult, RatingOutcome, seeded_rng
from referee.games import game_class
from referee.outcomes import IGNORED_FAULTS, FaultKind, MatchStatus
from referee.protocol import (
    MalformedAction,
    action_from_pb,
    action_to_pb,
    decision_message,
    event_json,
    event_message,
    event_payload,
    message_to_json,
    normalised_json,
    to_struct,
)
from referee.unnamed import give_name, open_unnamed
from referee.words import plural

DEFAULT_DECISION_MS = 1000
DEFAULT_MAX_FAULTS = 5
FAULT_POLICIES = ("default_action", "forfeit")
#: decision clocks: elapsed wall-clock time, or CPU time of the bot's process tree
CLOCKS = ("wall", "cpu")
LOG_FORMAT = 1


@dataclass
class MatchSpec:
    """Everything that defines a match (all JSON-able).

    ``decision_ms``/``bank_ms`` in milliseconds; ``fault_policy`` one of
    :data:`FAULT_POLICIES`; ``max_faults`` faults before forfeit under
    ``default_action``; ``seat_names`` the bot names in seat order.
    """

    game: str
    players: int
    seed: int
    seat_names: list[str]
    variant: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    decision_ms: int = DEFAULT_DECISION_MS
    bank_ms: int = 0
    fault_policy: str = "default_action"
    max_faults: int = DEFAULT_MAX_FAULTS
    match_id: str = "match"
    #: what a decision is charged: ``"wall"`` (elapsed time) or ``"cpu"`` (CPU time of the
    #: bot's processes, capped at clocks.CPU_WALL_CAP times the wall time), see :data:`CLOCKS`
    clock: str = "wall"
    #: per-seat clock overrides in seat order: ``[decision_ms, bank_ms]`` for a seat whose
    #: clock differs from the match's (a human's seat), ``None`` for a seat on the match's
    #: clock; ``None``: every seat on the match's clock (see :meth:`clock_of`)
    seat_clocks: list[list[int] | None] | None = None

    def check(self) -> None:
        """Raise ``ValueError`` naming the first bad field."""
        if self.fault_policy not in FAULT_POLICIES:
            raise ValueError(f"fault_policy must be one of {FAULT_POLICIES}, got {self.fault_policy!r}")
        if len(self.seat_names) != self.players:
            given = len(self.seat_names)
            raise ValueError(f"{self.players} players but {given} {plural(given, 'seat')} given")
        if self.clock not in CLOCKS:
            raise ValueError(f"clock must be one of {CLOCKS}, got {self.clock!r}")
        if self.decision_ms <= 0 or self.bank_ms < 0 or self.max_faults < 1:
            raise ValueError("decision_ms must be > 0, bank_ms >= 0, max_faults >= 1")
        if self.seat_clocks is not None:
            if len(self.seat_clocks) != self.players:
                given = len(self.seat_clocks)
                raise ValueError(f"seat_clocks has {given} {plural(given, 'entry', 'entries')} for {self.players} seats")
            for s, c in enumerate(self.seat_clocks):
                if c is not None and (len(c) != 2 or c[0] <= 0 or c[1] < 0):
                    raise ValueError(f"seat_clocks[{s}] must be [decision_ms > 0, bank_ms >= 0], got {c!r}")

    def clock_of(self, seat: int) -> tuple[int, int]:
        """``(decision_ms, bank_ms)`` of ``seat``, milliseconds: its entry of
        :attr:`seat_clocks`, else the match's ``decision_ms`` and ``bank_ms``."""
        c = self.seat_clocks[seat] if self.seat_clocks is not None else None
        return (int(c[0]), int(c[1])) if c is not None else (self.decision_ms, self.bank_ms)

    def new_game(self) -> Game:
        """A fresh engine for this spec (ValueError for bad players/variant/params)."""
        return game_class(self.game)(self.players, self.variant, self.params, seeded_rng(self.seed))


@dataclass
class FaultRecord:
    """One fault of ``seat``, of a :class:`~referee.outcomes.FaultKind`
    (``harness``: no answer in time while the referee itself stalled, see
    :class:`referee.clocks.StallMonitor`)."""

    seat: int
    kind: FaultKind
    rule: str = ""
    message: str = ""
    request_id: int = 0
    elapsed_ms: float = 0.0

    def to_pb(self) -> pb.Fault:
        return pb.Fault(seat=self.seat, kind=self.kind, rule=self.rule, message=self.message,
                        request_id=self.request_id)


#: characters a fault keeps of what a bot sent: an illegal action's message (which may
#: quote the action), the bot's reply in the match log's decision line
FAULT_TEXT_CHARS = 2000


def capped(text: str, limit: int = FAULT_TEXT_CHARS) -> str:
    """``text`` if at most ``limit`` characters, else its first ``limit``
    characters and the size noted: ``"...[cut: 75012 characters in all]"``."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}...[cut: {len(text)} characters in all]"


@dataclass
class MatchOutcome:
    """What a finished match produced. ``result`` is ``None`` if aborted;
    ``reason`` says why (empty for a complete match); ``elapsed_s`` in seconds."""

    spec: MatchSpec
    status: MatchStatus
    result: MatchResult | None
    faults: list[FaultRecord]
    forfeited: list[int]
    decisions: int
    log_path: str | None
    elapsed_s: float
    reason: str = ""
    #: decisions timed out by the referee's own stalls (``harness`` faults), and the
    #: referee's stall figures during the match (ms): loop lag and request write delay
    harness: dict[str, float] = field(default_factory=dict)
    #: aborted because the referee's own I/O failed (engines do none): the error, which
    #: callers treat as a storage failure, not as a bad match (``reason`` has its text)
    storage_error: OSError | None = None

    @property
    def rating_weight(self) -> float:
        """1.0 for a match the referee played cleanly; less by the share of
        decisions that were decided by a fallback because the referee stalled
        (``harness`` faults): ratings weigh the match by it."""
        n = sum(1 for f in self.faults if f.kind == FaultKind.HARNESS)
        return round(max(0.0, 1.0 - n / self.decisions), 4) if n and self.decisions else 1.0

    @property
    def status_text(self) -> str:
        """The status as the protocol states it (``MatchEnded.status``,
        ``RunMatchResponse.status``): ``"complete"`` or ``"aborted: <reason>"``."""
        return f"{self.status.value}: {self.reason}" if self.reason else self.status.value

    def to_json(self) -> dict[str, Any]:
        r = self.result
        return {
            "match_id": self.spec.match_id,
            "status": self.status.value,
            "reason": self.reason,
            "scores": r.scores if r else None,
            "ranks": r.ranks if r else None,
            "outcomes": [asdict(o) for o in r.outcomes] if r else [],
            "summary": r.summary if r else {},
            "faults": [asdict(f) for f in self.faults],
            "forfeited": self.forfeited,
            "decisions": self.decisions,
            "log_path": self.log_path,
            "clock": self.spec.clock,
            "rating_weight": self.rating_weight,
            "harness": self.harness,
        }


class StrayReporter:
    """What the runner hands each seat's link (:meth:`SeatLink.attach`): the
    link reports through it a reply that answers no pending request of this
    match (``late_reply``, ``unknown_request``). The report is recorded as a
    fault of the seat (not counted towards forfeit) and as a ``stray`` log line."""

    __slots__ = ("_runner", "seat")

    def __init__(self, runner: "MatchRunner", seat: int):
        self._runner = runner
        self.seat = seat

    def stray(self, kind: FaultKind, request_id: int) -> None:
        """Record a stray reply of kind ``kind`` (``late_reply``, ``unknown_request``) to request ``request_id``."""
        self._runner.stray(self.seat, kind, request_id)


class SeatLink(Protocol):
    """How the runner talks to the bot in one seat (implemented by the service).

    The runner hands a link whole ``RefereeMessage`` objects and never changes
    one after handing it over (one event message goes to every seat that may
    see it). Every link declares its optional capabilities
    (:class:`BasicSeatLink` gives the defaults: none of them):

    * ``bundle_events`` -- the bot asked for its events inside its requests
      (``Hello.bundle_events``): the runner puts the seat's events inside its
      next ``DecisionRequest.events`` (or ``MatchEnded.events``) instead of
      sending them;
    * stray reporting -- :meth:`attach` is handed a :class:`StrayReporter` once,
      before the match starts; a link without strays ignores it;
    * ``no_show`` -- the seat's bot never connected: a ``no_show`` fault and
      the seat is forfeited before the first decision (all seats no-shows: the
      match is void, not played);
    * ``not_reading`` -- true once the link was closed because its bot did not
      read its stream (a request could not be written in time): the fault is
      ``not_reading`` instead of ``disconnect``;
    * :meth:`wait_back` -- a disconnected seat may come back (a new connection
      with its token): the runner waits for it while the seat's clock runs.
    """

    name: str
    bundle_events: bool

    @property
    def connected(self) -> bool: ...

    async def send(self, msg: pb.RefereeMessage) -> None:
        """Best effort: a closed link drops the message."""

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply | None, float]:
        """Send a decision request, numbered by the link first (it sets
        ``msg.decision_request.request_id``); return ``(reply or None on
        timeout/disconnect, elapsed ms)``. The clock starts once the request
        is written and stops when the reply is read; ``timeout_s`` in seconds."""

    def attach(self, reporter: StrayReporter) -> None:
        """Take the reporter of this seat's stray replies (see :class:`StrayReporter`)."""

    async def wait_back(self, timeout_s: float) -> float:
        """The seat is disconnected and must act: wait up to ``timeout_s`` for its
        bot to come back (``connected`` again); milliseconds waited."""


class BasicSeatLink:
    """Defaults for a :class:`SeatLink` without the optional capabilities:
    events sent one by one, no stray reports, never a no-show, never comes
    back once disconnected."""

    bundle_events: bool = False
    no_show: bool = False
    not_reading: bool = False

    async def wait_back(self, timeout_s: float) -> float:
        return 0.0

    def attach(self, reporter: StrayReporter) -> None:
        return None


@dataclass(frozen=True)
class Ask:
    """One decision request and its clock, from :meth:`MatchRunner.ask` to
    :meth:`MatchRunner.apply`. Times in milliseconds unless named ``_s``."""

    seat: int
    request_id: int  # as the link numbered it (0: never written)
    reply: pb.ActionReply | None  # None: no answer in time, or the bot is gone
    elapsed_ms: float  # charged to the seat (with the time it was away first)
    timeout_s: float  # the decision time plus the bank the request offered
    deadline: float  # monotonic seconds when that time ran out
    bank_before_ms: int  # the seat's bank before the request (given back for a ``harness`` fault)
    cpu_out: bool = False  # on the CPU clock: the bot used up its CPU time


@dataclass(frozen=True)
class Ruling:
    """What became of one answer (:meth:`MatchRunner.apply`): ``fault`` None
    means the bot's action was accepted; otherwise the game got the fallback."""

    sent: Action | None  # the action the bot sent, if it could be read
    applied: Action  # the action the game got: the bot's, or the fallback
    fault: FaultRecord | None = None


def _json_line(obj: dict[str, Any]) -> bytes:
    """One log line: compact JSON with sorted keys, UTF-8 (orjson; the standard
    library for what orjson refuses: integers beyond 64 bits, non-string keys)."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class MatchLog:
    """JSON Lines match log.

    Line 1: ``{"type": "header", "format", "spec": MatchSpec, "ruleset"}``.
    Then in order: ``{"type": "event", "seq", "to": null|seat, "event": {...}}``
    (every event, private ones with their seat, so every seat's view can be
    rebuilt), ``{"type": "decision", "seq", "seat", "kind", "request_id",
    "reply": action|null, "applied": action, "fault": kind|null, "rule",
    "elapsed_ms"}`` (a rejected reply whose JSON is longer than
    :data:`FAULT_TEXT_CHARS` is logged as ``{"cut": its first characters,
    "chars": its length}``), and a final ``{"type": "result", ...}``.

    Lines are kept in memory in order and serialised and written by
    :meth:`flush`, which the runner calls once per decision while the acting
    bot is thinking (scheduled right after the request is handed to gRPC), so
    the JSON work is off the path between a reply and the next request. A
    crash of the referee loses at most the lines of the decision being
    processed.

    ``hidden``: the file has no name while it is written (``O_TMPFILE`` in
    ``path``'s directory, where the file system has it): a process of the
    referee's own uid (a bot launched under it) cannot open it; :meth:`close`
    gives it its name. Either way the file is mode 0600.
    """

    def __init__(self, path: Path | None, hidden: bool = False):
        self.path = path
        self._f = None
        self._hidden = False
        self.error: OSError | None = None  # the first failed write (see flush)
        self._lines: list[Any] = []  # dicts, or (line builder, its arguments...)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = open_unnamed(path.parent) if hidden else None
            self._hidden = fd is not None
            if fd is None:  # (without O_TMPFILE on this file system: named at once)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            self._f = os.fdopen(fd, "wb")  # UTF-8 JSON lines

    @property
    def enabled(self) -> bool:
        """False when there is no file (nothing written: callers may skip building lines)."""
        return self._f is not None

    def write(self, obj: dict[str, Any]) -> None:
        """Queue one line (a JSON-able dict); written in order by the next :meth:`flush`."""
        if self._f is not None:
            self._lines.append(obj)

    def event(self, seq: int, to: int | None, payload: Any) -> None:
        """Queue an event line; ``payload``, the game's event message (never
        changed), is converted to JSON at :meth:`flush`."""
        if self._f is not None:
            self._lines.append((_event_line, seq, to, payload))

    def decision(self, seat: int, kind: str, request_id: int, reply: Action | None, applied: Action,
                 fault: "FaultRecord | None", elapsed_ms: float) -> None:
        """Queue a decision line (built at :meth:`flush`: actions are immutable)."""
        if self._f is not None:
            self._lines.append((_decision_line, seat, kind, request_id, reply, applied, fault, elapsed_ms))

    def flush(self) -> None:
        """Serialise the queued lines, write them and push them to the OS.
        A write error (a full disk) is kept, later lines are dropped, and
        :meth:`close` raises it: flush runs as an event-loop callback, where
        an exception would only be printed."""
        if self._f is None or not self._lines:
            return
        lines, self._lines = self._lines, []
        if self.error is not None:
            return
        out = []
        for ln in lines:
            if type(ln) is tuple:  # (line builder, its arguments...)
                ln = ln[0](*ln[1:])
            out.append(_json_line(ln))
        out.append(b"")
        try:
            self._f.write(b"\n".join(out))
            self._f.flush()
        except OSError as e:
            self.error = e

    def close_quietly(self) -> None:
        """:meth:`close` for a match stopped midway (no result line): what was
        played is kept under the log's name; a write error is only kept in :attr:`error`."""
        try:
            self.close()
        except OSError:
            pass

    def close(self) -> None:
        """Write what is queued and close; raises the ``OSError`` of a failed write."""
        if self._f is not None:
            self.flush()
            try:
                if self._hidden:
                    self._f.flush()
                    give_name(self._f.fileno(), self.path)
                self._f.close()
            except OSError as e:
                self.error = self.error or e
            self._f = None
        if self.error is not None:
            raise self.error


def _event_line(seq: int, to: int | None, payload: Any) -> dict[str, Any]:
    return {"event": message_to_json(payload), "seq": seq, "to": to, "type": "event"}


def _decision_line(seat: int, kind: str, request_id: int, reply: Action | None, applied: Action,
                   fault: "FaultRecord | None", elapsed_ms: float) -> dict[str, Any]:
    logged: Any = reply.to_json() if reply else None
    if fault is not None and logged is not None:  # a rejected reply is the bot's to size: keep its start
        text = json.dumps(logged, separators=(",", ":"))
        if len(text) > FAULT_TEXT_CHARS:
            logged = {"cut": text[:FAULT_TEXT_CHARS], "chars": len(text)}
    return {"type": "decision", "seat": seat, "kind": kind, "request_id": request_id,
            "reply": logged, "applied": applied.to_json(),
            "fault": fault.kind if fault else None, "rule": fault.rule if fault else "",
            "elapsed_ms": round(elapsed_ms, 3)}


def _forfeit_outcomes(res: MatchResult, forfeited: set[int], players: int) -> list[RatingOutcome]:
    """Rating outcomes when seats forfeited: the game's team structure is
    kept, and every team with a forfeited seat ranks below every other team."""
    if not forfeited:
        return res.outcomes
    teams = res.outcomes[0].teams if res.outcomes else [[s] for s in range(players)]
    if all(len(t) == 1 for t in teams) or len(res.outcomes) != 1:
        # free-for-all, or per-round outcomes (Dou Dizhu): one free-for-all outcome
        teams = [[s] for s in range(players)] if len(res.outcomes) != 1 else teams
        ranks = [res.ranks[t[0]] - 1 + (players if t[0] in forfeited else 0) for t in teams]
    else:
        base = res.outcomes[0].ranks
        ranks = [r + (len(teams) if any(s in forfeited for s in t) else 0) for t, r in zip(teams, base)]
    return [RatingOutcome(teams, ranks)]


def _forfeit_ranks(ranks: list[int], forfeited: set[int]) -> list[int]:
    """Ranks with forfeited seats moved below every other seat (ties kept)."""
    key = [(1 if s in forfeited else 0, r) for s, r in enumerate(ranks)]
    return [1 + sum(1 for o in key if o < k) for k in key]


class MatchRunner:
    """Plays one match over ``links`` (one per seat, seat order); :meth:`run`
    does it, in named steps:

    * :meth:`start` -- ``MatchStarted`` to every seat, the opening events;
    * per decision, :meth:`decide`: :meth:`ask` the seat (or play its fallback
      when it is forfeited or disconnected; an :class:`Ask` holds the request's
      clock), :meth:`apply` its answer or the fallback (a :class:`Ruling`),
      :meth:`fault` if there is one, then the events (:meth:`flush_events`);
    * :meth:`fault` records a fault and, by the fault policy, forfeits the
      seat (:meth:`forfeit`);
    * :meth:`finish` -- the result (forfeits applied), the log's last line,
      ``MatchEnded`` to every seat.

    Never raises for bot misbehaviour: faults are recorded. Raises
    ``ValueError`` for a bad spec. ``max_decisions`` bounds the loop (an
    engine bug cannot spin forever; the match is then aborted), and an
    exception of the engine aborts the match instead of the referee.
    """

    def __init__(self, spec: MatchSpec, links: list[SeatLink], log_path: Path | None = None,
                 max_decisions: int = 2_000_000, cpu_meters: list[Callable[[], float | None] | None] | None = None,
                 stalls: StallMonitor | None = None, hide_log: bool = False):
        spec.check()
        #: per seat, the bot's CPU seconds so far (CPU clock); a seat without one is on the wall clock
        self.cpu_meters = cpu_meters or [None] * spec.players
        self.stalls = stalls
        self.max_write_delay_ms = 0.0
        self.spec = spec
        self.links = links
        self.log_path = log_path
        self.max_decisions = max_decisions
        self.t0 = time.monotonic()
        self.game = spec.new_game()
        self.log = MatchLog(log_path, hidden=hide_log)
        n = spec.players
        self.faults: list[FaultRecord] = []
        self.fault_count = [0] * n
        self.forfeited: set[int] = set()
        self.bank = [spec.clock_of(s)[1] for s in range(n)]  # ms left in each seat's time bank
        self.seq = 0  # number of the last event
        self.decisions = 0
        self.status = MatchStatus.COMPLETE
        self.reason = ""
        self.storage_error: OSError | None = None
        # per seat whose bot bundles events: its events until its next request
        # or MatchEnded; None for a seat that gets them one by one
        self.bundled: list[list[pb.Event] | None] = [[] if ln.bundle_events else None for ln in links]
        self.disconnected_noted: set[int] = set()  # seats whose disconnection is recorded
        for s, link in enumerate(links):
            link.attach(StrayReporter(self, s))

    # -- the match -------------------------------------------------------------
    async def run(self) -> MatchOutcome:
        """Play the match to the end; the :class:`MatchOutcome`."""
        await self.start()
        if all(getattr(ln, "no_show", False) for ln in self.links):
            self.status = MatchStatus.VOID
            self.reason = "no seat's bot connected"
            return await self.finish()
        try:
            await self.flush_events()
            while (seat := self.game.to_act) is not None:
                self.decisions += 1
                if self.decisions > self.max_decisions:
                    self.abort(f"more than {self.max_decisions} decisions")
                    break
                await self.decide(seat)
        except Exception as e:  # an engine bug or the referee's own I/O: record it, do not take the referee down
            storage = isinstance(e, OSError) and not isinstance(e, (ConnectionError, TimeoutError))
            self.abort(f"{type(e).__name__}: {e}", e if storage else None)
        except asyncio.CancelledError:  # stopped (Ctrl-C, SIGTERM): the log so far, under its name
            self.log.close_quietly()
            raise
        return await self.finish()

    async def start(self) -> None:
        """Header log line; ``MatchStarted`` (with the game's teams) to every seat."""
        spec, game = self.spec, self.game
        self.log.write({"type": "header", "format": LOG_FORMAT, "spec": asdict(spec), "ruleset": game.ruleset,
                        "variant": game.variant, "params": game.params})
        team = seat_teams(game.teams(spec.players), spec.players)
        seats = [pb.SeatInfo(seat=i, name=spec.seat_names[i], team=team[i]) for i in range(spec.players)]
        variant, params = to_struct(game.variant), to_struct(game.params)
        for s, link in enumerate(self.links):  # a send only queues the message: no task per seat
            decision_ms, bank_ms = spec.clock_of(s)
            await link.send(pb.RefereeMessage(match_started=pb.MatchStarted(
                match_id=spec.match_id, game=spec.game, seat=s, seats=seats, variant=variant, params=params,
                clock=pb.Clock(decision_ms=decision_ms, bank_ms=bank_ms), ruleset=game.ruleset,
                fault_policy=spec.fault_policy)))
        for s, link in enumerate(self.links):
            if getattr(link, "no_show", False):  # never connected: forfeited before the first decision
                why = getattr(link, "why", "the bot never connected")
                self.faults.append(FaultRecord(s, FaultKind.NO_SHOW, message=why))
                self.fault_count[s] += 1
                self.forfeit(s)
                self.log.write({"type": "fault", "seat": s, "kind": FaultKind.NO_SHOW})

    async def decide(self, seat: int) -> None:
        """One decision of ``seat``: asked (or its fallback played), applied, logged, events out.

        A disconnected seat's clock runs while the runner waits for its bot to
        come back (:meth:`SeatLink.wait_back`); back in time, it is asked with
        what is left of its clock; not back, it gets an ``absent`` fault (a
        ``disconnect`` fault the first time) and its fallback, so the fault
        policy forfeits it like any other."""
        game, link = self.game, self.links[seat]
        kind = game.decision_kind()
        away_ms = 0.0
        if seat not in self.forfeited and not link.connected:
            first = seat not in self.disconnected_noted
            self.disconnected_noted.add(seat)
            if first:
                self.fault(FaultRecord(seat, FaultKind.DISCONNECT, message="bot is not connected"))
            if seat not in self.forfeited:
                away_ms = await link.wait_back((self.spec.clock_of(seat)[0] + self.bank[seat]) / 1000.0)
                if not link.connected:
                    self.charge(seat, away_ms)
                    if not first:
                        self.fault(FaultRecord(seat, FaultKind.ABSENT,
                                               message=f"bot is not connected ({away_ms:.0f} ms)", elapsed_ms=away_ms))
        if seat in self.forfeited or not link.connected:
            applied = game.fallback_action()
            game.apply(seat, applied)  # the fallback action is legal by construction
            self.log.decision(seat, kind, 0, None, applied, None, away_ms)
            await self.flush_events()
            self.log.flush()  # no request went out: flush now
            # a match whose seats are all gone plays on in fallbacks: give the event
            # loop to the other matches and connections after each one
            await asyncio.sleep(0)
            return
        ask = await self.ask(seat, away_ms)
        ruling = self.apply(ask)
        if ruling.fault is not None:
            self.fault(ruling.fault)
            if link.connected:
                await link.send(pb.RefereeMessage(action_result=pb.ActionResult(
                    match_id=self.spec.match_id, request_id=ask.request_id, accepted=False, rule=ruling.fault.rule,
                    message=ruling.fault.message, applied=action_to_pb(ruling.applied), fault=ruling.fault.kind,
                    elapsed_ms=int(ask.elapsed_ms))))
        self.log.decision(seat, kind, ask.request_id, ruling.sent, ruling.applied, ruling.fault, ask.elapsed_ms)
        await self.flush_events()

    async def ask(self, seat: int, away_ms: float = 0.0) -> Ask:
        """Send ``seat`` its decision request (its bundled events inside) and wait
        for the answer. ``away_ms``: clock already used by this decision (the
        seat was away and came back): the request states what is left. The
        seat's time bank is charged for the time beyond ``decision_ms``."""
        spec, link = self.spec, self.links[seat]
        bank_before = bank = self.bank[seat]
        left_ms = spec.clock_of(seat)[0] - away_ms
        if left_ms < 0:
            bank = max(0, bank + int(left_ms))
        left = max(1, int(left_ms))
        pending = self.bundled[seat]
        msg = decision_message(self.game, spec.match_id, 0, left, bank, pending or ())
        if pending:
            pending.clear()
        # the previous decision's log lines are serialised and written while this
        # seat thinks: the first time the event loop is free after the request has
        # been handed to gRPC (or just after, for a link that answers without yielding)
        asyncio.get_running_loop().call_soon(self.log.flush)
        timeout_s = (left + bank) / 1000.0
        due = time.monotonic()
        cpu_out = False
        meter = self.cpu_meters[seat] if spec.clock == "cpu" else None
        if meter is None:
            reply, elapsed = await link.ask(msg, timeout_s)
            wall = elapsed
        else:
            got, elapsed, wall, cpu_out = await ask_on_cpu_clock(lambda t: link.ask(msg, t), timeout_s * 1000.0,
                                                                 meter)
            if got is None:  # ran out of CPU time
                reply = None
            else:
                reply, wall_ms = got
                if reply is None:
                    elapsed = max(elapsed, wall_ms)  # the wall-clock cap, or a disconnect
                elif elapsed > timeout_s * 1000.0:
                    reply, cpu_out = None, True  # answered, but after using up its CPU time
        now = time.monotonic()
        if self.stalls is not None:
            self.max_write_delay_ms = max(self.max_write_delay_ms, (now - due) * 1000.0 - wall)
        elapsed += away_ms
        self.charge(seat, elapsed)
        return Ask(seat, msg.decision_request.request_id, reply, elapsed, timeout_s,
                   deadline=now - wall / 1000.0 + timeout_s,  # the request went out wall ms ago
                   bank_before_ms=bank_before, cpu_out=cpu_out)

    def charge(self, seat: int, elapsed_ms: float) -> None:
        """Charge one decision's ``elapsed_ms`` to the seat's clock: the time
        beyond its ``decision_ms`` comes out of its bank."""
        self.bank[seat] = max(0, self.bank[seat] - int(max(0.0, elapsed_ms - self.spec.clock_of(seat)[0])))

    def apply(self, ask: Ask) -> Ruling:
        """Apply the seat's answer to the game: its action if the engine accepts
        it; else the fallback action, with the fault (no answer: ``timeout``,
        ``harness``, ``not_reading`` or ``disconnect``; an action that cannot
        be read or that the engine rejects: ``illegal``)."""
        game, seat = self.game, ask.seat
        fault = sent = None
        if ask.reply is None:
            fault = self._no_answer(ask)
        else:
            try:
                sent = action_from_pb(ask.reply.action)
                game.apply(seat, sent)
                return Ruling(sent, sent)
            except MalformedAction as e:
                fault = FaultRecord(seat, FaultKind.ILLEGAL, rule="PROTOCOL", message=capped(str(e)),
                                    request_id=ask.request_id, elapsed_ms=ask.elapsed_ms)
            except IllegalAction as e:
                fault = FaultRecord(seat, FaultKind.ILLEGAL, rule=e.rule, message=capped(e.message),
                                    request_id=ask.request_id, elapsed_ms=ask.elapsed_ms)
        fallback = game.fallback_action()
        game.apply(seat, fallback)  # legal by construction
        return Ruling(sent, fallback, fault)

    def _no_answer(self, ask: Ask) -> FaultRecord:
        """The fault of a request that got no answer (see :meth:`apply`)."""
        seat, link, elapsed, rid = ask.seat, self.links[ask.seat], ask.elapsed_ms, ask.request_id
        if link.connected and self.stalls is not None and not ask.cpu_out:
            stalled = self.stalls.stall_at(ask.deadline, since=ask.deadline - ask.timeout_s)
            if stalled > self.stalls.threshold_ms:
                # the referee itself was not running for part of the bot's time: not the bot's fault
                self.bank[seat] = ask.bank_before_ms
                return FaultRecord(seat, FaultKind.HARNESS,
                                   message=f"no answer read in {elapsed:.0f} ms: the referee had "
                                   f"stalled for {stalled:.0f} ms at the deadline: not charged to the bot",
                                   request_id=rid, elapsed_ms=elapsed)
        if link.connected:
            cpu = self.spec.clock == "cpu" and self.cpu_meters[seat] is not None
            return FaultRecord(seat, FaultKind.TIMEOUT, message=f"no answer in {elapsed:.0f} ms"
                               + (" CPU time" if cpu and ask.cpu_out else "")
                               + (f" (wall-clock cap of {CPU_WALL_CAP}x)" if cpu and not ask.cpu_out else ""),
                               request_id=rid, elapsed_ms=elapsed)
        self.disconnected_noted.add(seat)
        if getattr(link, "not_reading", False):
            return FaultRecord(seat, FaultKind.NOT_READING, message="the request could not be written in time: "
                               "the bot does not read its stream", request_id=rid, elapsed_ms=elapsed)
        return FaultRecord(seat, FaultKind.DISCONNECT, message="bot disconnected", request_id=rid, elapsed_ms=elapsed)

    def fault(self, f: FaultRecord) -> None:
        """Record a fault; by the fault policy it may forfeit the seat."""
        self.faults.append(f)
        if f.kind in IGNORED_FAULTS:
            return  # ignored-and-recorded: does not count towards forfeit
        self.fault_count[f.seat] += 1
        if self.spec.fault_policy == "forfeit" or self.fault_count[f.seat] >= self.spec.max_faults:
            self.forfeit(f.seat)

    def forfeit(self, seat: int) -> None:
        """Forfeit ``seat`` (once): from now on the referee plays its fallback
        actions, and it ranks last (its team loses)."""
        if seat not in self.forfeited:
            self.forfeited.add(seat)
            self.faults.append(FaultRecord(seat, FaultKind.FORFEIT, message=f"after {self.fault_count[seat]} {plural(self.fault_count[seat], 'fault')}"))

    def stray(self, seat: int, kind: FaultKind, request_id: int) -> None:
        """A stray reply of ``seat`` (reported through its :class:`StrayReporter`)."""
        self.fault(FaultRecord(seat, kind, message=f"reply to request {request_id}", request_id=request_id))
        self.log.write({"type": "stray", "seat": seat, "kind": kind, "request_id": request_id})

    def abort(self, reason: str, storage_error: OSError | None = None) -> None:
        """End the match without a result (a referee-side failure); ``storage_error``:
        the failure was the referee's own I/O (see :attr:`MatchOutcome.storage_error`)."""
        self.status = MatchStatus.ABORTED
        self.reason = reason
        self.storage_error = storage_error

    async def flush_events(self) -> None:
        """Log and deliver the events the engine produced since the last call:
        each event's message is built once and goes to every seat allowed to
        see it (``Event.to``), bundled for its next request or sent. Sends are
        awaited one after the other, in order: a service link only queues the
        message (its connection's writer task puts it on the stream), so no
        task per send is needed; per seat, order is what counts."""
        spec, links, bundled = self.spec, self.links, self.bundled
        all_seats = range(spec.players)
        for ev in self.game.pop_events():
            self.seq += 1
            payload = event_payload(spec.game, ev)
            self.log.event(self.seq, ev.to, payload)
            msg = event_message(spec.game, spec.match_id, self.seq, ev, payload)
            for s in (all_seats if ev.to is None else (ev.to,)):
                if not links[s].connected:
                    continue
                if bundled[s] is not None:
                    bundled[s].append(msg.event)  # delivered with the seat's next request (or MatchEnded)
                else:
                    await links[s].send(msg)

    async def finish(self) -> MatchOutcome:
        """The outcome (forfeits applied to the result), the log's result line,
        ``MatchEnded`` (with the seat's own faults and bundled events) to every seat."""
        spec, n = self.spec, self.spec.players
        result: MatchResult | None = None
        if self.status is MatchStatus.COMPLETE:
            result = self.game.result()
            if self.forfeited:
                result = MatchResult(result.scores, _forfeit_ranks(result.ranks, self.forfeited),
                                     _forfeit_outcomes(result, self.forfeited, n), result.summary)
        harness: dict[str, float] = {}
        if self.stalls is not None:
            now = time.monotonic()
            harness = {"timeouts": sum(1 for f in self.faults if f.kind == FaultKind.HARNESS),
                       "longest_stall_ms": round(self.stalls.stalled_ms(self.t0, now), 1),
                       "stalled_ms": round(self.stalls.total_stalled_ms(self.t0, now), 1),
                       "max_write_delay_ms": round(self.max_write_delay_ms, 1)}
        outcome = MatchOutcome(spec, self.status, result, self.faults, sorted(self.forfeited), self.decisions,
                               str(self.log_path) if self.log_path else None, time.monotonic() - self.t0,
                               self.reason, harness, self.storage_error)
        self.log.write({"type": "result", **outcome.to_json()})
        self.log.close()
        results = [pb.SeatResult(seat=s, score=result.scores[s], rank=result.ranks[s],
                                 forfeited=s in self.forfeited) for s in range(n)] if result else []
        for s, link in enumerate(self.links):
            if link.connected:
                await link.send(pb.RefereeMessage(match_ended=pb.MatchEnded(
                    match_id=spec.match_id, results=results, status=outcome.status_text,
                    faults=[f.to_pb() for f in self.faults if f.seat == s], events=self.bundled[s] or ())))
        return outcome


async def run_match(spec: MatchSpec, links: list[SeatLink], log_path: Path | None = None,
                    max_decisions: int = 2_000_000, cpu_meters: list[Callable[[], float | None] | None] | None = None,
                    stalls: StallMonitor | None = None, hide_log: bool = False) -> MatchOutcome:
    """Play one match to the end: ``MatchRunner(...).run()`` (see :class:`MatchRunner`).
    ``cpu_meters``: per seat, the bot's CPU seconds so far (for ``clock = "cpu"``);
    ``stalls``: the referee's :class:`referee.clocks.StallMonitor` (timeouts during
    its stalls become ``harness`` faults); ``hide_log``: the log has no name
    until the match ends (:class:`MatchLog`'s ``hidden``)."""
    return await MatchRunner(spec, links, log_path, max_decisions, cpu_meters, stalls, hide_log).run()


def seat_teams(teams: tuple[tuple[int, ...], ...], players: int) -> list[int]:
    """``SeatInfo.team`` per seat: the index of its team in ``teams`` (a game's
    :meth:`referee.engine.Game.teams`), -1 when the game has no fixed teams."""
    team = [-1] * players
    for i, members in enumerate(teams):
        for s in members:
            team[s] = i
    return team


class UnfinishedLog(ValueError):
    """Raised by :func:`replay_log` when every logged decision and event
    replays identically but the match did not finish: its log has no result
    line (the match was interrupted) or one of a match that did not complete.
    ``decisions``: how many decisions the log holds; ``ended``: the result
    line's status and reason (``"aborted: ..."``), ``None`` without one."""

    def __init__(self, path: Path, decisions: int, ended: str | None):
        how = f"it ended {ended}" if ended else "no result line: interrupted"
        which = "the logged decision replays" if decisions == 1 else f"the {decisions} logged decisions replay"
        super().__init__(f"{path}: {which} identically; the match was not finished ({how})")
        self.decisions = decisions
        self.ended = ended


def replay_log(path: Path) -> tuple[MatchSpec, list[dict[str, Any]], MatchResult]:
    """Re-run a match from its log: same seed, the applied actions in order.

    Returns ``(spec, events, result)`` where ``events`` are the replayed event
    lines. Raises ``ValueError`` naming the first line where the replay
    differs from the log (an engine changed, or the log was edited), and
    :class:`UnfinishedLog` (a ``ValueError``) when the log replays identically
    as far as it goes but the match did not finish.
    """
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    if not lines or lines[0].get("type") != "header":
        raise ValueError(f"{path}: not a match log (no header line)")
    spec = MatchSpec(**lines[0]["spec"])
    game = spec.new_game()
    seq = 0
    replayed: list[dict[str, Any]] = []

    payload_types: list[Any] = []  # the message type of each replayed event

    def drain() -> None:
        nonlocal seq
        for ev in game.pop_events():
            seq += 1
            payload = event_payload(spec.game, ev)
            payload_types.append(type(payload))
            replayed.append({"type": "event", "seq": seq, "to": ev.to, "event": event_json(spec.game, ev, payload)})

    drain()
    for ln in lines[1:]:
        if ln["type"] == "decision":
            game.apply(ln["seat"], Action.from_json(ln["applied"]))
            drain()
    logged = [ln for ln in lines if ln["type"] == "event"]
    for a, b, t in zip(logged, replayed, payload_types):
        if a != b and isinstance(a.get("event"), dict):  # a log written before defaults were written out
            try:
                a = {**a, "event": normalised_json(a["event"], t)}
            except json_format.ParseError:
                pass
        if a != b:
            raise ValueError(f"{path}: replay differs at event seq {a.get('seq')}: logged {a} replayed {b}")
    end = next((ln for ln in lines if ln["type"] == "result"), None)
    finished = end is not None and end.get("status") == "complete"
    # an interrupted log can stop between a decision and the events it caused: the log is a prefix of the replay
    if len(logged) > len(replayed) or (len(logged) < len(replayed) and (finished or game.over)):
        raise ValueError(f"{path}: log has {len(logged)} events, replay produced {len(replayed)}")
    if not game.over:
        if finished:
            raise ValueError(f"{path}: the logged actions do not finish the match")
        ended = None if end is None else f"{end.get('status')}" + (f": {end['reason']}" if end.get("reason") else "")
        raise UnfinishedLog(path, sum(1 for ln in lines if ln["type"] == "decision"), ended)
    return spec, replayed, game.result()
