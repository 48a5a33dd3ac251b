"""Replay data for the web viewer, derived from a canonical match log.

A match log (:class:`referee.runner.MatchLog`) holds every event with the
seat allowed to see it (``to``: ``None`` = public) and every decision. A
*view* is what someone watching the table may see:

* ``"all"``: the all-seeing view (every event, every decision in full);
* ``"public"``: public events only, and of each decision only who acted and
  what kind of decision it was (the view of a spectator of a live match);
* a seat number ``S``: public events, the events private to ``S``, the full
  decisions of ``S`` and, of the other seats' decisions, who acted and the
  kind only (timings and faults are told to the faulting seat alone,
  CONVENTIONS.md "Fallback actions and timing").

The view is applied to the log *before* any table is built (:func:`view_entries`),
so a seat view's data is computed from what that seat received and nothing
else: another seat's hidden cards never reach its page.

A replay is a list of **steps**: step 0 is the table before the first
decision (after the deal), step ``k`` the table right after the ``k``-th
decision and the events it caused. The events that open the next round (a
new deal) are shown with the next step, so the last trick of a round stays
on the table at the step that played it.

Each step is a flat ``dict`` (see :class:`referee.web.table.Table.snapshot`);
the page data stores step 0 whole and every later step as the keys that
changed (:func:`build_replay`), which keeps a 12-round Dou Dizhu page at a
few hundred kilobytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Union

from google.protobuf import json_format

from referee.web.table import Table, table_class

View = Union[str, int]  # "all", "public" or a seat number


class NotAMatchLog(ValueError):
    """A file that is not a match log written by the referee (the message says why)."""


@dataclass
class ParsedLog:
    """A match log read into memory.

    ``entries``: in log order, ``("event", to, event_json)`` and
    ``("decision", line)``; ``result`` the final result line (``None`` while
    the match is running); ``faults`` the fault lines appended after it.
    """

    path: Path | None
    header: dict[str, Any]
    entries: list[tuple]
    result: dict[str, Any] | None = None
    faults: list[dict[str, Any]] = field(default_factory=list)
    _parsed: dict[int, Any] = field(default_factory=dict, repr=False)

    def message(self, event: dict[str, Any], cls: Any) -> Any:
        """The event's JSON as a ``cls`` protobuf message, parsed once per log
        (every view of a match reads the same event objects)."""
        key = id(event)
        msg = self._parsed.get(key)
        if msg is None:
            msg = self._parsed[key] = json_format.ParseDict(event, cls(), ignore_unknown_fields=True)
        return msg

    @property
    def spec(self) -> dict[str, Any]:
        return self.header["spec"]

    @property
    def game(self) -> str:
        return self.spec["game"]

    @property
    def players(self) -> int:
        return int(self.spec["players"])

    @property
    def names(self) -> list[str]:
        return list(self.spec["seat_names"])

    @property
    def match_id(self) -> str:
        return self.spec["match_id"]

    @property
    def complete(self) -> bool:
        """True once the result line is written: hidden cards may then be shown."""
        return self.result is not None


def parse_log(text: str, path: Path | None = None) -> ParsedLog:
    """Parse a match log's text. A last line without its newline (a log
    being written) is ignored. Raises :class:`NotAMatchLog`."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:
        lines.pop()  # partial line of a log being written
    if not lines:
        raise NotAMatchLog(f"{path or 'log'}: empty (not a match log)")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise NotAMatchLog(f"{path or 'log'}: line 1 is not JSON (expected a match log's header)") from None
    if not isinstance(header, dict) or header.get("type") != "header" or "spec" not in header:
        raise NotAMatchLog(f"{path or 'log'}: line 1 is not a match log header")
    log = ParsedLog(path, header, [])
    for n, raw in enumerate(lines[1:], 2):
        if not raw:
            continue
        try:
            d = json.loads(raw)
        except json.JSONDecodeError:
            raise NotAMatchLog(f"{path or 'log'}: line {n} is not JSON") from None
        kind = d.get("type")
        if kind == "event":
            log.entries.append(("event", d.get("to"), d["event"]))
        elif kind == "decision":
            log.entries.append(("decision", d))
        elif kind == "result":
            log.result = d
        elif kind == "fault":
            log.faults.append(d)
    return log


def read_log(path: Path | str) -> ParsedLog:
    """Read and parse a match log file (``OSError``, :class:`NotAMatchLog`)."""
    p = Path(path)
    return parse_log(p.read_text(encoding="utf-8"), p)


def views(players: int) -> list[View]:
    """Every view of a match: all-seeing, public, then each seat."""
    return ["all", "public", *range(players)]


def view_slug(view: View) -> str:
    """File-name form of a view: ``all``, ``public``, ``seat0``..."""
    return f"seat{view}" if isinstance(view, int) else view


def parse_view(slug: str, players: int) -> View:
    """Inverse of :func:`view_slug`; ``ValueError`` for an unknown view."""
    if slug in ("all", "public"):
        return slug
    if slug.startswith("seat") and slug[4:].isdigit() and int(slug[4:]) < players:
        return int(slug[4:])
    raise ValueError(f"unknown view {slug!r} (all, public, seat0..seat{players - 1})")


def view_entries(log: ParsedLog, view: View) -> list[tuple]:
    """The log's entries as ``view`` may see them.

    Events: every event for ``"all"``; public ones for ``"public"``; public
    ones and those private to ``S`` for seat ``S``. Decisions: in full for
    ``"all"`` and for the view's own seat; otherwise ``{"seat", "kind"}``
    only (the applied action of another seat is known only through the
    public events it caused).
    """
    out: list[tuple] = []
    for e in log.entries:
        if e[0] == "event":
            to = e[1]
            if view == "all" or to is None or to == view:
                out.append(e)
        else:
            d = e[1]
            if view == "all" or d.get("seat") == view:
                out.append(("decision", d))
            else:
                out.append(("decision", {"seat": d.get("seat"), "kind": d.get("kind")}))
    return out


def steps(log: ParsedLog, view: View) -> list[dict[str, Any]]:
    """Every step of the replay as a full table snapshot (see module doc)."""
    tbl: Table = table_class(log.game)(log.header, view)
    out: list[dict[str, Any]] = []
    deferred: list[tuple] = []
    seen_decision = False
    for e in view_entries(log, view):
        if e[0] == "decision":
            out.append(tbl.snapshot())  # the step before this decision (step 0 the first time)
            seen_decision = True
            tbl.begin_step(e[1])
            for ev in deferred:
                tbl.apply(ev[1], log.message(ev[2], tbl.EVENT))
            deferred = []
            tbl.decision(e[1])
        else:
            if seen_decision and (deferred or tbl.opens_round(e[2])):
                deferred.append(e)
            else:
                tbl.apply(e[1], log.message(e[2], tbl.EVENT))
    for ev in deferred:  # a log that ends after a new deal (a match being played)
        tbl.apply(ev[1], log.message(ev[2], tbl.EVENT))
    if log.complete:
        tbl.finish(log.result, log.faults)
    out.append(tbl.snapshot())
    return out


def final_hands(log: ParsedLog) -> list[list[str]] | None:
    """Every seat's hand at the end of a finished match, sorted as the table sorts
    (``[["3S", "TH"], [], ...]`` by seat), from the all-seeing view; ``None`` while
    the match is being played (its hands are hidden until it is over)."""
    if not log.complete:
        return None
    tbl: Table = table_class(log.game)(log.header, "all")
    for e in log.entries:  # in log order: the hands come out as the steps' would
        if e[0] == "event":
            tbl.apply(e[1], log.message(e[2], tbl.EVENT))
        else:
            tbl.begin_step(e[1])
            tbl.decision(e[1])
    return [sorted(h or [], key=tbl.sort_key) for h in tbl.hands]


def deltas(frames: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Step 0 whole, then for each step the keys whose value changed
    (a key that disappeared maps to ``None``)."""
    out: list[dict[str, Any]] = []
    prev: dict[str, Any] | None = None
    for f in frames:
        if prev is None:
            out.append(f)
        else:
            d = {k: v for k, v in f.items() if prev.get(k, _MISSING) != v}
            d.update({k: None for k in prev if k not in f})
            out.append(d)
        prev = f
    return out


_MISSING = object()


def build_replay(log: ParsedLog, view: View) -> dict[str, Any]:
    """The page data of one view of one match (JSON-able).

    Keys: ``game``, ``match_id``, ``players``, ``names``, ``view``
    (``"all"``, ``"public"`` or a seat), ``complete``, ``frames`` (see
    :func:`deltas`), ``rounds`` (``[label, first step]`` per round, for the
    round menu). Raises ``ValueError`` for a hidden view (all-seeing or a
    seat) of a match that is not over.
    """
    if view != "public" and not log.complete:
        raise ValueError("a match in progress can only be watched in the public view")
    full = steps(log, view)
    rounds: list[list[Any]] = []
    for i, f in enumerate(full):
        if not rounds or rounds[-1][0] != f.get("round"):
            rounds.append([f.get("round"), i])
    return {"game": log.game, "match_id": log.match_id, "players": log.players, "names": log.names,
            "view": view, "complete": log.complete, "frames": deltas(full), "rounds": rounds}


def replay_json(data: dict[str, Any]) -> str:
    """Compact JSON of :func:`build_replay`'s data, safe inside an HTML
    ``<script>`` element (``<``, ``>`` and ``&`` escaped)."""
    s = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
