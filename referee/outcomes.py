"""How a match ended and what a seat did wrong, as types.

* :class:`MatchStatus` -- how a match ended (complete, aborted, void);
* :class:`FaultKind` -- the kind of every fault the referee records;
* :func:`board_column` -- which fault column of the leaderboard counts a kind.

Both enums are ``StrEnum``: a member *is* its string, so stored results,
match logs, protocol messages (``Fault.kind``, ``ActionResult.fault``) and
JSON hold exactly the strings they always did, and a string read back from a
store or a log compares equal to its member (``"timeout" ==
FaultKind.TIMEOUT``). Stored results may hold kinds this enum does not name
(an import's ``"unknown"``): readers compare, they do not convert.

This module imports nothing of the referee: the tournament side and the web
pages use it without pulling in the runner.
"""

from __future__ import annotations

import enum

__all__ = ["BOARD_FAULT_COLUMNS", "FaultKind", "IGNORED_FAULTS", "MatchStatus", "board_column"]


class MatchStatus(enum.StrEnum):
    """How a match ended (stored and logged as its value)."""

    #: played to the end: there is a result
    COMPLETE = "complete"
    #: stopped by a referee-side failure (an engine error, the decision bound, its own I/O): no result
    ABORTED = "aborted"
    #: no seat's bot ever connected: not played, no result, never rated
    VOID = "void"


class FaultKind(enum.StrEnum):
    """The kind of a recorded fault (``FaultRecord.kind``; ``Fault.kind`` and
    ``ActionResult.fault`` on the wire; ``kind`` in logs and stores)."""

    #: connected, but no answer within the decision time (and the bank)
    TIMEOUT = "timeout"
    #: an answer the engine rejects, or that cannot even be read (rule ``PROTOCOL``)
    ILLEGAL = "illegal"
    #: the bot's stream closed or broke while it had a seat (recorded once per drop)
    DISCONNECT = "disconnect"
    #: a decision of a seat whose bot is gone (crashed, disconnected, stopped reading)
    #: and did not come back in time: the referee played its fallback
    ABSENT = "absent"
    #: the connection was closed because the bot did not read its stream
    NOT_READING = "not_reading"
    #: the seat's bot never connected: forfeited before the first decision
    NO_SHOW = "no_show"
    #: the bot's process exited non-zero or by a signal, or could not be started
    CRASH = "crash"
    #: the seat was forfeited (after ``max_faults`` faults, or the first under policy ``forfeit``)
    FORFEIT = "forfeit"
    #: a reply to a request whose time had run out
    LATE_REPLY = "late_reply"
    #: a reply to no pending request (never sent, or already answered)
    UNKNOWN_REQUEST = "unknown_request"
    #: a message that is not a reply (never tied to a seat: kept on the connection)
    UNEXPECTED_MESSAGE = "unexpected_message"
    #: no answer in time while the referee itself stalled: not charged to the bot
    HARNESS = "harness"


#: fault kinds recorded but not counted towards forfeit (nor in a tournament's fault total)
IGNORED_FAULTS = frozenset({FaultKind.LATE_REPLY, FaultKind.UNKNOWN_REQUEST, FaultKind.HARNESS})

#: the leaderboard's fault columns (``BoardRow`` fields: t/i/c/o on the CLI board) and the
#: kinds each counts; every other kind counts in ``other_faults``. ``absent`` decisions follow
#: a crash or disconnect already counted in ``crashes``: they are the seat's missed
#: decisions, counted in ``other_faults`` beside the forfeit they lead to, not as timeouts.
BOARD_FAULT_COLUMNS: dict[str, frozenset[FaultKind]] = {
    "timeouts": frozenset({FaultKind.TIMEOUT}),
    "illegal": frozenset({FaultKind.ILLEGAL}),
    "crashes": frozenset({FaultKind.CRASH, FaultKind.DISCONNECT}),
}


def board_column(kind: str) -> str:
    """The ``BoardRow`` field that counts a fault of ``kind`` (a :class:`FaultKind`
    or a stored string, known or not): ``timeouts``, ``illegal``, ``crashes``
    or ``other_faults``."""
    for column, kinds in BOARD_FAULT_COLUMNS.items():
        if kind in kinds:
            return column
    return "other_faults"
