"""What a human in one seat sees, built from that seat's protocol messages only.

A :class:`SeatView` is fed the ``RefereeMessage``s the referee sent one seat
(:meth:`SeatView.feed`: ``MatchStarted``, ``Event``, ``DecisionRequest``,
``ActionResult``, ``MatchEnded``) and gives the state its page draws
(:meth:`SeatView.state`). It never sees anything else: the table is rebuilt
by the replay viewer's per-game renderer (:mod:`referee.web.table`) from the
events this seat received, in the seat's view, and the hand to choose from,
the legal actions and the clock come from the seat's own ``DecisionRequest``.
So the page cannot hold another seat's hidden cards: the referee never sent
them to this seat (``tests/test_hidden_info.py``), and
``tests/test_human_seat.py`` checks that the state is the same, byte for
byte, whatever the cards the seat cannot see.

The state (:meth:`SeatView.state`, JSON-able):

* ``v``: number of messages fed so far; ``seq``: the last event's number;
* ``match_id``, ``game``, ``seat``, ``players``, ``names``, ``clock``
  (``{"decision_ms", "bank_ms"}``, this seat's, milliseconds); ``None``/empty
  before ``MatchStarted``;
* ``table``: the seat view's table snapshot (see :class:`referee.web.table.Table`),
  with ``caption`` the seat's own turn while it must act, else the latest move;
* ``recent``: the last :data:`RECENT` moves, ``{"seat", "text", "cards"}``;
* ``request``: ``None``, or the pending decision: ``id``, ``kind``
  (``"PLAY"``...), ``legal`` (``[kind, cards, amount]`` per legal action),
  ``complete`` (the list is every legal action), ``hand`` (the seat's hand),
  ``time_left_ms``, ``bank_left_ms`` (as the request said), ``elapsed_ms``
  (since it arrived), ``sent`` (an answer went out, the referee has not
  moved on yet);
* ``notice``: ``None``, or the last ``ActionResult``: ``request_id``,
  ``fault`` (``"illegal"``, ``"timeout"``...), ``rule``, ``message``,
  ``applied`` (``[kind, cards, amount]`` the referee played instead, or ``None``);
* ``ended``: ``None``, or ``{"status", "results": [{"seat", "score", "rank",
  "forfeited"}], "faults": [{"kind", "rule", "message"}]}``;
* ``note``: a line from the server (who the match waits for), ``replay``:
  links to the finished match's replay (``{"all", "seat"}``), both set by the
  server, never from game state; ``auto``: single-action decisions are
  answered without asking (the player's setting).

Once the match is over, the server may also set :attr:`SeatView.revealed`:
every seat's last hand read from the finished match's log, whose all-seeing
replay is public from then on (docs/web.md); the table's hands are then
those, face up. Nothing the seat's messages did not hold reaches the state
before that.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format

from cardgames.v1 import referee_pb2 as pb
from referee.web.table import Table, table_class

#: moves kept in the state's ``recent`` list
RECENT = 12


def kind_name(value: int, enum: Any = pb.ActionKind) -> str:
    """``ACTION_KIND_PLAY`` (3) -> ``"PLAY"``; a ``DecisionKind`` with ``enum=pb.DecisionKind``."""
    prefix = "ACTION_KIND_" if enum is pb.ActionKind else "DECISION_KIND_"
    try:
        return enum.Name(value).removeprefix(prefix)
    except ValueError:
        return str(value)


def action_list(a: pb.Action) -> list[Any]:
    """An action as ``[kind, cards, amount]`` (what the page gets)."""
    return [kind_name(a.kind), list(a.cards), int(a.amount)]


def _plain(v: Any) -> Any:
    """JSON of a protobuf Struct, integral floats as ints (Struct numbers are doubles)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return int(v) if isinstance(v, float) and v.is_integer() else v


class SeatView:
    """One seat's view of one match, fed its protocol messages (see the module doc)."""

    def __init__(self) -> None:
        self.started: pb.MatchStarted | None = None
        self.table: Table | None = None
        self.request: pb.DecisionRequest | None = None
        self.request_at = 0.0  # when the pending request arrived (seconds, the caller's clock)
        self.sent = False
        self.notice: dict[str, Any] | None = None
        self.ended: dict[str, Any] | None = None
        self.recent: list[dict[str, Any]] = []
        self.version = 0
        self.seq = 0
        self.note = ""
        self.replay: dict[str, str] | None = None
        #: every seat's last hand, from the finished match's log (set by the server once it is over)
        self.revealed: list[list[str]] | None = None
        #: single-action decisions are answered without asking (a setting of the seat's player)
        self.auto = True

    @property
    def seat(self) -> int | None:
        return self.started.seat if self.started is not None else None

    @property
    def game(self) -> str:
        return self.started.game if self.started is not None else ""

    # -- messages -------------------------------------------------------------------
    def feed(self, msg: pb.RefereeMessage, now: float) -> None:
        """Take one message the referee sent this seat; ``now``: the caller's clock, seconds
        (the time a request arrived, for its ``elapsed_ms``). Other kinds are ignored."""
        which = msg.WhichOneof("msg")
        if which == "match_started":
            self._start(msg.match_started)
        elif which == "event":
            self._event(msg.event)
        elif which == "decision_request":
            req = msg.decision_request
            for ev in req.events:
                self._event(ev)
            self.request, self.request_at, self.sent = req, now, False
        elif which == "action_result":
            self._result(msg.action_result)
        elif which == "match_ended":
            self._ended(msg.match_ended)
        else:
            return
        self.version += 1

    def _start(self, m: pb.MatchStarted) -> None:
        if self.started is not None:  # the same match again (a reconnect): keep the table
            return
        self.started = m
        params = _plain(json_format.MessageToDict(m.params))
        variant = _plain(json_format.MessageToDict(m.variant))
        header = {"spec": {"game": m.game, "match_id": m.match_id, "players": len(m.seats),
                           "seat_names": [s.name for s in m.seats], "params": params, "variant": variant},
                  "params": params, "variant": variant}
        self.table = table_class(m.game)(header, m.seat)
        self.table.said = []

    def _event(self, ev: pb.Event) -> None:
        if self.table is None:
            return
        self.seq = max(self.seq, ev.seq)
        game_msg = getattr(ev, self.game)
        self.table.apply(self.seat if ev.is_private else None, game_msg)
        if self.table.said:
            self.recent = (self.recent + self.table.said)[-RECENT:]
            self.table.said.clear()

    def _result(self, r: pb.ActionResult) -> None:
        applied = action_list(r.applied) if r.HasField("applied") else None
        self.notice = {"request_id": int(r.request_id), "fault": r.fault, "rule": r.rule, "message": r.message,
                       "applied": applied}
        if self.request is not None and self.request.request_id == r.request_id:
            if self.table is not None and applied is not None:  # the fault in the table's list of faults
                self.table.decision({"seat": self.seat, "kind": kind_name(self.request.kind, pb.DecisionKind),
                                     "applied": {"kind": applied[0], "cards": applied[1], "amount": applied[2]},
                                     "fault": r.fault, "rule": r.rule, "request_id": int(r.request_id)})
            self.request, self.sent = None, False

    def _ended(self, m: pb.MatchEnded) -> None:
        for ev in m.events:
            self._event(ev)
        self.request, self.sent = None, False
        results = [{"seat": r.seat, "score": _plain(r.score), "rank": r.rank, "forfeited": r.forfeited}
                   for r in m.results]
        faults = [{"kind": f.kind, "rule": f.rule, "message": f.message} for f in m.faults]
        self.ended = {"status": m.status, "results": results, "faults": faults}
        if self.table is not None:
            status = m.status.split(":", 1)[0]
            by_seat = sorted(results, key=lambda r: r["seat"])
            self.table.finish({"status": "complete" if status == "complete" else m.status,
                               "ranks": [r["rank"] for r in by_seat], "scores": [r["score"] for r in by_seat],
                               "forfeited": [r["seat"] for r in results if r["forfeited"]],
                               "faults": [dict(f, seat=self.seat, request_id=int(pf.request_id))
                                          for f, pf in zip(faults, m.faults)]}, [])

    # -- answering ------------------------------------------------------------------
    def pending(self, request_id: int) -> pb.DecisionRequest | None:
        """The pending request if its id is ``request_id`` and no answer went out yet."""
        r = self.request
        return r if r is not None and r.request_id == request_id and not self.sent else None

    def answered(self) -> None:
        """An answer to the pending request went out (the page shows it as sent)."""
        self.sent = True
        self.notice = None
        self.version += 1

    # -- the page's state -------------------------------------------------------------
    def state(self, now: float) -> dict[str, Any]:
        """The state the page draws (see the module doc); ``now``: the caller's clock, seconds."""
        m = self.started
        out: dict[str, Any] = {"v": self.version, "seq": self.seq, "note": self.note, "replay": self.replay,
                               "auto": self.auto,
                               "match_id": m.match_id if m else "", "game": self.game, "seat": self.seat,
                               "players": len(m.seats) if m else 0, "names": [s.name for s in m.seats] if m else [],
                               "clock": {"decision_ms": m.clock.decision_ms, "bank_ms": m.clock.bank_ms} if m else None,
                               "table": None, "recent": list(self.recent), "request": None, "notice": self.notice,
                               "ended": self.ended}
        if self.table is not None:
            snap = self.table.snapshot()
            if self.request is not None:
                what = kind_name(self.request.kind, pb.DecisionKind).lower()
                snap["caption"] = {"seat": self.seat, "text": f"to {what} (your turn)", "cards": []}
            elif self.recent:
                snap["caption"] = dict(self.recent[-1])
            else:
                snap["caption"] = {"seat": None, "text": "", "cards": []}
            if self.revealed is not None and len(self.revealed) == len(m.seats):
                for s, cards in enumerate(self.revealed):
                    snap[f"s{s}"] = dict(snap[f"s{s}"], hand=list(cards), count=len(cards))
            out["table"] = snap
        r = self.request
        if r is not None:
            out["request"] = {"id": int(r.request_id), "kind": kind_name(r.kind, pb.DecisionKind),
                              "legal": [action_list(a) for a in r.legal_actions],
                              "complete": r.legal_actions_complete, "hand": self._hand(r),
                              "time_left_ms": r.time_left_ms, "bank_left_ms": r.bank_left_ms,
                              "elapsed_ms": max(0, int((now - self.request_at) * 1000)), "sent": self.sent}
        return out

    def _hand(self, r: pb.DecisionRequest) -> list[str]:
        """The seat's hand as its request's observation states it, sorted as the table sorts."""
        obs = getattr(r.observation, r.observation.WhichOneof("game") or "", None)
        hand = list(getattr(obs, "hand", ())) if obs is not None else []
        return sorted(hand, key=self.table.sort_key) if self.table is not None else hand

    def state_json(self, now: float) -> str:
        """:meth:`state` as compact JSON: what the page is sent."""
        return json.dumps(self.state(now), separators=(",", ":"), ensure_ascii=False)
