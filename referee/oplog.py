"""The operator's log of a referee: what happened on its connections and matches.

One :class:`OperatorLog` per :class:`referee.service.Referee`. Every record
is a flat dict ``{"ts": ISO-8601 UTC, "event": KIND, ...fields}``; it goes

* to the terminal (``stream``), one readable line per record:
  ``2026-12-01T20:01:02Z refused reason=bad_token peer=ipv4:127.0.0.1:5555 name='alice'``,
  every text value escaped by :func:`escape` (no control character, ANSI
  escape, newline or rich markup of a bot reaches the terminal as is);
* to a JSON Lines file (``path``), one JSON object per line, flushed per record;
* into :attr:`OperatorLog.recent` (the last ``keep`` records, for tests and status).

Events (``event`` field) and their fields:

=================  =============================================================
``listening``      ``host``, ``port``, ``tls``
``connected``      ``name`` (Hello.bot_name), ``peer``, ``session``, ``seat_of``
                   (the name the token was registered under), ``games``
``reconnected``    ``name``, ``peer``, ``session``, ``match_id``, ``seat``
``refused``        ``reason`` (``bad_token``, ``token_in_use``, ``version``,
                   ``bad_name``, ``no_hello``, ``not_hello``, ``game``,
                   ``too_many_unauthenticated``), ``detail``, ``peer``, ``name``
``closed``         ``name``, ``peer``, ``session``, ``reason`` (``not_reading``,
                   ``flood``, ``read_failed``, ``bot_closed``, ``match_over``,
                   ``shutdown``, ``write_failed``; ``shutdown``: every
                   connection that ends while the referee stops), ``detail``
``match_waiting``  ``match_id``, ``game``, ``waiting_for`` (the seats of the bot
                   with no free connection yet, and of every other bot of the
                   match not connected then), ``wait_s`` (how long it waits
                   at most): before its start, once per wait (a bot listed is
                   not listed again)
``match_started``  ``match_id``, ``game``, ``seats`` (names), ``no_show`` (seats)
``match_ended``    ``match_id``, ``status``, ``faults`` (count per kind), ``elapsed_s``;
                   a match stopped before its end: status ``aborted: referee
                   shutting down`` or ``aborted: stopped by its caller``, no
                   faults; stopped while it waited for its seats, also
                   ``waiting_for`` (as above) and ``elapsed_s`` the time it waited
``admin_refused``  ``method``, ``peer``, ``reason``
``tokens``         ``source`` (the token file), ``tokens`` (how many now),
                   ``added``, ``removed`` (a reload, ``referee serve``), or
                   ``error`` (the file could not be used: the tokens stay)
``stopped``        ``port``, ``matches_stopped``, ``connections_closed`` (the
                   ``closed`` lines of reason ``shutdown`` written): the
                   referee's last line
=================  =============================================================

Tokens are never logged.
"""

from __future__ import annotations

import collections
import json
import sys
import time
from pathlib import Path
from typing import IO, Any

__all__ = ["OperatorLog", "escape", "valid_bot_name", "BOT_NAME_MAX"]

#: longest bot name accepted (characters), as the protocol guide says (Hello.bot_name)
BOT_NAME_MAX = 64


def valid_bot_name(name: str) -> bool:
    """True for 1..64 printable characters (``str.isprintable``: no control,
    format (bidi overrides), separator other than space, or unassigned characters)."""
    return 0 < len(name) <= BOT_NAME_MAX and name.isprintable()


def escape(text: str) -> str:
    """``text`` safe for a terminal: every non-printable character as a Python
    escape (``\\x1b``, ``\\n``, ``\\u202e``), backslashes doubled, and ``[``
    written ``\\[`` so that rich markup is shown, not interpreted."""
    out = []
    for c in text:
        if c == "\\":
            out.append("\\\\")
        elif c == "[":
            out.append("\\[")
        elif c.isprintable():
            out.append(c)
        else:
            out.append(repr(c)[1:-1] if c not in "'\"" else c)
    return "".join(out)


def _value(v: Any) -> str:
    if isinstance(v, str):
        return "'" + escape(v) + "'" if (not v or any(ch in v for ch in " ='\"") or not v.isprintable()) else escape(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{escape(str(k))}:{_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, float):
        return f"{v:.3f}"
    return escape(str(v))


def terminal_line(rec: dict[str, Any]) -> str:
    """One record as the readable terminal line (every value escaped)."""
    fields = " ".join(f"{k}={_value(v)}" for k, v in rec.items() if k not in ("ts", "event"))
    return f"{rec['ts']} {rec['event']} {fields}".rstrip()


class OperatorLog:
    """Where a referee reports connections, refusals and matches (see the module doc).

    ``stream``: a text stream for the readable lines (``None``: none);
    ``path``: a JSON Lines file, appended to (created with its directory);
    ``keep``: how many recent records :attr:`recent` holds."""

    def __init__(self, stream: IO[str] | None = None, path: Path | None = None, keep: int = 1000):
        self.stream = stream
        self.path = Path(path) if path else None
        self.recent: collections.deque[dict[str, Any]] = collections.deque(maxlen=keep)
        self._f = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._f = self.path.open("a", encoding="utf-8")

    def emit(self, event: str, **fields: Any) -> dict[str, Any]:
        """Record one event; returns the record. Never raises for a broken terminal."""
        rec = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "event": event, **fields}
        self.recent.append(rec)
        if self.stream is not None:
            try:
                self.stream.write(terminal_line(rec) + "\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass
        if self._f is not None:
            self._f.write(json.dumps(rec, ensure_ascii=True, sort_keys=False) + "\n")
            self._f.flush()
        return rec

    def events(self, event: str) -> list[dict[str, Any]]:
        """The recent records of one kind, oldest first."""
        return [r for r in self.recent if r["event"] == event]

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None


def stderr_log(path: Path | None = None) -> OperatorLog:
    """The log of ``referee serve``: readable lines on stderr, JSON Lines to ``path``."""
    return OperatorLog(sys.stderr, path)
