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
  fallback action for it at once. A disconnected seat is treated as timing
  out on every later request (a ``disconnect`` fault, then ``timeout``
  faults, recorded without waiting the clock out), so the policy forfeits
  it like any other; a forfeited seat is
  ranked last whatever its score, and its team loses in partnership games.

Every match writes a JSON Lines log (see :class:`MatchLog`) from which the
match can be replayed exactly (:func:`replay_log`).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson

from cardgames.v1 import referee_pb2 as pb
from referee.engine import Action, Event, Game, IllegalAction, MatchResult, RatingOutcome, seeded_rng
from referee.games import game_class
from referee.protocol import (
    MalformedAction,
    action_from_pb,
    action_to_pb,
    decision_body,
    decision_message,
    decision_request_events,
    event_bytes,
    event_message,
    match_ended_events,
    message_to_json,
    to_struct,
)

DEFAULT_DECISION_MS = 1000
DEFAULT_MAX_FAULTS = 5
FAULT_POLICIES = ("default_action", "forfeit")
LOG_FORMAT = 1
#: games played by two fixed teams: seats 0 and 2 against seats 1 and 3
PARTNERSHIP_GAMES = frozenset({"tractor", "back_alley"})


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

    def check(self) -> None:
        """Raise ``ValueError`` naming the first bad field."""
        if self.fault_policy not in FAULT_POLICIES:
            raise ValueError(f"fault_policy must be one of {FAULT_POLICIES}, got {self.fault_policy!r}")
        if len(self.seat_names) != self.players:
            raise ValueError(f"{self.players} players but {len(self.seat_names)} seats given")
        if self.decision_ms <= 0 or self.bank_ms < 0 or self.max_faults < 1:
            raise ValueError("decision_ms must be > 0, bank_ms >= 0, max_faults >= 1")

    def new_game(self) -> Game:
        """A fresh engine for this spec (ValueError for bad players/variant/params)."""
        return game_class(self.game)(self.players, self.variant, self.params, seeded_rng(self.seed))


@dataclass
class FaultRecord:
    """One fault: ``kind`` in timeout/illegal/late_reply/unknown_request/disconnect/crash/forfeit."""

    seat: int
    kind: str
    rule: str = ""
    message: str = ""
    request_id: int = 0
    elapsed_ms: float = 0.0

    def to_pb(self) -> pb.Fault:
        return pb.Fault(seat=self.seat, kind=self.kind, rule=self.rule, message=self.message,
                        request_id=self.request_id)


@dataclass
class MatchOutcome:
    """What a finished match produced. ``result`` is ``None`` if aborted."""

    spec: MatchSpec
    status: str
    result: MatchResult | None
    faults: list[FaultRecord]
    forfeited: list[int]
    decisions: int
    log_path: str | None
    elapsed_s: float

    def to_json(self) -> dict[str, Any]:
        r = self.result
        return {
            "match_id": self.spec.match_id,
            "status": self.status,
            "scores": r.scores if r else None,
            "ranks": r.ranks if r else None,
            "outcomes": [asdict(o) for o in r.outcomes] if r else [],
            "summary": r.summary if r else {},
            "faults": [asdict(f) for f in self.faults],
            "forfeited": self.forfeited,
            "decisions": self.decisions,
            "log_path": self.log_path,
        }


class SeatLink(Protocol):
    """How the runner talks to the bot in one seat (implemented by the service)."""

    name: str

    @property
    def connected(self) -> bool: ...

    async def send(self, msg: pb.RefereeMessage) -> None:
        """Best effort: a closed link drops the message."""

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply | None, float]:
        """Send a decision request; return ``(reply or None on timeout/disconnect, elapsed ms)``.
        The clock starts once the request is written and stops when the reply is read.

        A link may also have ``bundle_events`` (True: the runner puts the seat's
        events inside its next request, ``DecisionRequest.events``, or into
        ``MatchEnded.events``, instead of sending them) and an ``async
        ask_encoded(body: bytes, timeout_s) -> (reply or None, elapsed ms,
        request_id)``, which the runner then uses instead of :meth:`ask`:
        ``body`` is :func:`referee.protocol.decision_body` (the request encoded,
        without its ``request_id``, which the link assigns:
        :func:`referee.protocol.decision_wire`)."""


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
    "elapsed_ms"}``, and a final ``{"type": "result", ...}``.

    Lines are kept in memory in order and serialised and written by
    :meth:`flush`, which the runner calls once per decision while the acting
    bot is thinking (scheduled right after the request is handed to gRPC), so
    the JSON work is off the path between a reply and the next request. A
    crash of the referee loses at most the lines of the decision being
    processed.
    """

    def __init__(self, path: Path | None):
        self.path = path
        self._f = None
        self._lines: list[Any] = []  # dicts, or (line builder, its arguments...)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._f = path.open("wb")  # UTF-8 JSON lines

    @property
    def enabled(self) -> bool:
        """False when there is no file (nothing written: callers may skip building lines)."""
        return self._f is not None

    def write(self, obj: dict[str, Any]) -> None:
        """Queue one line (a JSON-able dict); written in order by the next :meth:`flush`."""
        if self._f is not None:
            self._lines.append(obj)

    def event(self, seq: int, ev: Event) -> None:
        """Queue an event line; the event (its payload is never changed after
        it is emitted) is converted to JSON at :meth:`flush`."""
        if self._f is not None:
            self._lines.append((_event_line, seq, ev))

    def decision(self, seat: int, kind: str, request_id: int, reply: Action | None, applied: Action,
                 fault: "FaultRecord | None", elapsed_ms: float) -> None:
        """Queue a decision line (built at :meth:`flush`: actions are immutable)."""
        if self._f is not None:
            self._lines.append((_decision_line, seat, kind, request_id, reply, applied, fault, elapsed_ms))

    def flush(self) -> None:
        """Serialise the queued lines, write them and push them to the OS."""
        if self._f is None or not self._lines:
            return
        lines, self._lines = self._lines, []
        out = []
        for ln in lines:
            if type(ln) is tuple:  # (line builder, its arguments...)
                ln = ln[0](*ln[1:])
            out.append(_json_line(ln))
        out.append(b"")
        self._f.write(b"\n".join(out))
        self._f.flush()

    def close(self) -> None:
        if self._f is not None:
            self.flush()
            self._f.close()
            self._f = None


def _event_line(seq: int, ev: Event) -> dict[str, Any]:
    return {"event": message_to_json(ev.payload), "seq": seq, "to": ev.to, "type": "event"}


def _decision_line(seat: int, kind: str, request_id: int, reply: Action | None, applied: Action,
                   fault: "FaultRecord | None", elapsed_ms: float) -> dict[str, Any]:
    return {"type": "decision", "seat": seat, "kind": kind, "request_id": request_id,
            "reply": reply.to_json() if reply else None, "applied": applied.to_json(),
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


async def run_match(spec: MatchSpec, links: list[SeatLink], log_path: Path | None = None,
                    max_decisions: int = 2_000_000) -> MatchOutcome:
    """Play one match to the end over ``links`` (one per seat, seat order).

    Never raises for bot misbehaviour: faults are recorded. Raises
    ``ValueError`` for a bad spec. ``max_decisions`` bounds the loop (an
    engine bug cannot spin forever; the match is then "aborted").
    """
    spec.check()
    t0 = time.monotonic()
    game = spec.new_game()
    log = MatchLog(log_path)
    n = spec.players
    log.write({"type": "header", "format": LOG_FORMAT, "spec": asdict(spec), "ruleset": game.ruleset,
               "variant": game.variant, "params": game.params})
    faults: list[FaultRecord] = []
    fault_count = [0] * n
    forfeited: set[int] = set()
    bank = [spec.bank_ms] * n
    seq = 0
    decisions = 0
    partnership = spec.game in PARTNERSHIP_GAMES

    started = [
        pb.RefereeMessage(match_started=pb.MatchStarted(
            match_id=spec.match_id, game=spec.game, seat=s,
            seats=[pb.SeatInfo(seat=i, name=spec.seat_names[i],
                               team=(i % 2 if partnership else -1)) for i in range(n)],
            variant=to_struct(game.variant), params=to_struct(game.params),
            clock=pb.Clock(decision_ms=spec.decision_ms, bank_ms=spec.bank_ms),
            ruleset=game.ruleset, fault_policy=spec.fault_policy))
        for s in range(n)
    ]
    for s in range(n):  # a send only queues the message (see flush_events): no task per seat
        await links[s].send(started[s])

    # seats whose bot asked for events inside its requests (Hello.bundle_events)
    # (their events kept encoded, protocol.event_bytes, until that request or MatchEnded)
    bundled: list[list[bytes] | None] = [[] if getattr(links[s], "bundle_events", False) else None
                                         for s in range(n)]
    all_seats = range(n)

    async def flush_events() -> None:
        # Each event is built once: as an encoded ``Event`` kept for the seats that get
        # their events inside their next request (joined into it then), and
        # wrapped in a ``RefereeMessage`` only if a seat without bundling is
        # connected. Sends are awaited one after the other, in order: a service
        # link only queues the message (its connection's writer task puts it on
        # the stream), so no task per send is needed; per seat, order is what counts.
        nonlocal seq
        for ev in game.pop_events():
            seq += 1
            log.event(seq, ev)
            seats = all_seats if ev.to is None else (ev.to,)
            msg = None
            e = None
            for s in seats:
                if not links[s].connected:
                    continue
                b = bundled[s]
                if b is not None:
                    if e is None:
                        e = event_bytes(spec.game, spec.match_id, seq, ev)
                    b.append(e)  # delivered with the seat's next request (or MatchEnded)
                else:
                    if msg is None:
                        msg = event_message(spec.game, spec.match_id, seq, ev)
                    await links[s].send(msg)

    def add_fault(f: FaultRecord) -> None:
        faults.append(f)
        if f.kind in ("late_reply", "unknown_request"):
            return  # ignored-and-recorded: does not count towards forfeit
        fault_count[f.seat] += 1
        if spec.fault_policy == "forfeit" or fault_count[f.seat] >= spec.max_faults:
            if f.seat not in forfeited:
                forfeited.add(f.seat)
                faults.append(FaultRecord(f.seat, "forfeit", message=f"after {fault_count[f.seat]} fault(s)"))

    def on_stray(seat: int, kind: str, reply: pb.ActionReply) -> None:
        add_fault(FaultRecord(seat, kind, message=f"reply to request {reply.request_id}",
                              request_id=reply.request_id))
        log.write({"type": "stray", "seat": seat, "kind": kind, "request_id": reply.request_id})

    for s in range(n):
        link = links[s]
        if hasattr(link, "on_stray"):
            link.on_stray = (lambda kind, reply, s=s: on_stray(s, kind, reply))  # type: ignore[attr-defined]

    disconnected_noted: set[int] = set()
    loop = asyncio.get_running_loop()
    status = "complete"
    try:
        await flush_events()
        while (seat := game.to_act) is not None:
            decisions += 1
            if decisions > max_decisions:
                status = f"aborted: more than {max_decisions} decisions"
                break
            link = links[seat]
            kind = game.decision_kind()
            fault: FaultRecord | None = None
            reply_action: Action | None = None
            elapsed = 0.0
            request_id = 0
            asked = False  # a request went out (its call_soon flushes the log)
            if seat in forfeited or not link.connected:
                if seat not in forfeited:
                    # a disconnected bot times out on every later request (without waiting
                    # the clock out), so the fault policy forfeits it like any other
                    first = seat not in disconnected_noted
                    disconnected_noted.add(seat)
                    add_fault(FaultRecord(seat, "disconnect" if first else "timeout",
                                          message="bot is not connected"))
                applied = game.fallback_action()
            else:
                pending = bundled[seat]
                ask_encoded = getattr(link, "ask_encoded", None)
                if ask_encoded is not None:
                    # the request as wire bytes, events bundled (see protocol.decision_body)
                    body = decision_body(game, spec.match_id, spec.decision_ms, bank[seat], pending or ())
                else:
                    msg = decision_message(game, spec.match_id, 0, spec.decision_ms, bank[seat])
                    if pending:
                        msg.decision_request.MergeFromString(decision_request_events(pending))
                if pending:
                    pending.clear()
                # the previous decision's log lines are serialised and written while
                # this seat thinks: the first time the event loop is free after the
                # request has been handed to gRPC (or just after, for a link that
                # answers without yielding)
                loop.call_soon(log.flush)
                asked = True
                timeout_s = (spec.decision_ms + bank[seat]) / 1000.0
                if ask_encoded is not None:
                    reply, elapsed, request_id = await ask_encoded(body, timeout_s)
                else:
                    reply, elapsed = await link.ask(msg, timeout_s)
                    request_id = msg.decision_request.request_id
                over = max(0.0, elapsed - spec.decision_ms)
                if reply is None:
                    if link.connected:
                        fault = FaultRecord(seat, "timeout", message=f"no answer in {elapsed:.0f} ms",
                                            request_id=request_id, elapsed_ms=elapsed)
                    else:
                        fault = FaultRecord(seat, "disconnect", message="bot disconnected",
                                            request_id=request_id, elapsed_ms=elapsed)
                        disconnected_noted.add(seat)
                    bank[seat] = max(0, bank[seat] - int(over))
                    applied = game.fallback_action()
                else:
                    bank[seat] = max(0, bank[seat] - int(over))
                    try:
                        reply_action = action_from_pb(reply.action)
                        game.apply(seat, reply_action)
                        applied = reply_action
                    except (IllegalAction, MalformedAction) as e:
                        rule = e.rule if isinstance(e, IllegalAction) else "PROTOCOL"
                        message = e.message if isinstance(e, IllegalAction) else str(e)
                        fault = FaultRecord(seat, "illegal", rule=rule, message=message,
                                            request_id=request_id, elapsed_ms=elapsed)
                        applied = game.fallback_action()
                if fault is not None:
                    add_fault(fault)
                if fault is not None and link.connected:
                    await link.send(pb.RefereeMessage(action_result=pb.ActionResult(
                        match_id=spec.match_id, request_id=request_id, accepted=fault is None,
                        rule=fault.rule if fault else "", message=fault.message if fault else "",
                        applied=action_to_pb(applied) if fault else None,
                        fault=fault.kind if fault else "", elapsed_ms=int(elapsed))))
            if applied is not reply_action:
                game.apply(seat, applied)  # the fallback action is legal by construction
            log.decision(seat, kind, request_id, reply_action, applied, fault, elapsed)
            await flush_events()
            if not asked:
                log.flush()  # no request went out (fallback): flush now
    except Exception as e:  # an engine bug: record it, do not take the referee down
        status = f"aborted: {type(e).__name__}: {e}"

    result: MatchResult | None = None
    if status == "complete":
        result = game.result()
        if forfeited:
            result = MatchResult(result.scores, _forfeit_ranks(result.ranks, forfeited),
                                 _forfeit_outcomes(result, forfeited, n), result.summary)
    outcome = MatchOutcome(spec, status, result, faults, sorted(forfeited), decisions,
                           str(log_path) if log_path else None, time.monotonic() - t0)
    log.write({"type": "result", **outcome.to_json()})
    log.close()
    ended_results = [pb.SeatResult(seat=s, score=result.scores[s], rank=result.ranks[s], forfeited=s in forfeited)
                     for s in range(n)] if result else []
    for s in range(n):
        if links[s].connected:
            ended = pb.RefereeMessage(match_ended=pb.MatchEnded(
                match_id=spec.match_id, results=ended_results, status=status,
                faults=[f.to_pb() for f in faults if f.seat == s]))
            if bundled[s]:
                ended.match_ended.MergeFromString(match_ended_events(bundled[s]))
            await links[s].send(ended)
    return outcome


def replay_log(path: Path) -> tuple[MatchSpec, list[dict[str, Any]], MatchResult]:
    """Re-run a match from its log: same seed, the applied actions in order.

    Returns ``(spec, events, result)`` where ``events`` are the replayed event
    lines. Raises ``ValueError`` naming the first line where the replay
    differs from the log (an engine changed, or the log was edited).
    """
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    if not lines or lines[0].get("type") != "header":
        raise ValueError(f"{path}: not a match log (no header line)")
    spec = MatchSpec(**lines[0]["spec"])
    game = spec.new_game()
    seq = 0
    replayed: list[dict[str, Any]] = []

    def drain() -> None:
        nonlocal seq
        for ev in game.pop_events():
            seq += 1
            replayed.append({"type": "event", "seq": seq, "to": ev.to, "event": message_to_json(ev.payload)})

    drain()
    for ln in lines[1:]:
        if ln["type"] == "decision":
            game.apply(ln["seat"], Action.from_json(ln["applied"]))
            drain()
    logged = [ln for ln in lines if ln["type"] == "event"]
    for i, (a, b) in enumerate(zip(logged, replayed)):
        if a != b:
            raise ValueError(f"{path}: replay differs at event seq {a.get('seq')}: logged {a} replayed {b}")
    if len(logged) != len(replayed):
        raise ValueError(f"{path}: log has {len(logged)} events, replay produced {len(replayed)}")
    if not game.over:
        raise ValueError(f"{path}: the logged actions do not finish the match")
    return spec, replayed, game.result()
