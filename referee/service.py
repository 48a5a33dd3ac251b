"""The referee's gRPC service (asyncio): bot connections, tokens, matches.

One :class:`Referee` hosts ``RefereeService`` (bots) and ``AdminService``
(operators) plus the standard health and reflection services, and runs any
number of matches concurrently, each through :func:`referee.runner.run_match`.

Connection policy (what happens when a bot misbehaves; docs/protocol.md and
docs/sandbox.md have the full tables):

=====================================  =========================================
bot does                               referee does
=====================================  =========================================
no Hello within ``hello_timeout_s``    closes the stream: DEADLINE_EXCEEDED
too many streams without Hello (per    refuses the new stream at once:
connection / host / in all; a          RESOURCE_EXHAUSTED ("flood: ...")
launched bot's own socket: its own)
first message is not a Hello           closes the stream: INVALID_ARGUMENT
protocol_version != 1                  closes the stream: FAILED_PRECONDITION
bot_name not 1..64 printable chars     closes the stream: INVALID_ARGUMENT
unknown token (also: a launched bot's  closes the stream: UNAUTHENTICATED
token anywhere but its own socket, or
a token removed from the token file)
a launched bot's token, already held   closes the stream: ALREADY_EXISTS
Hello.games without the token's game   closes the stream: FAILED_PRECONDITION
undecodable bytes / oversized message  closes the stream (INTERNAL /
                                       RESOURCE_EXHAUSTED); seat = disconnected
does not read: a request not written   connection closed, fault ``not_reading``
within decision time + write_grace_s   (stream abandoned, see BotConnection)
reply to an expired request            ignored, recorded ``late_reply``, told
reply to an unknown request / another  ignored, recorded ``unknown_request``,
match / twice                          told in an ActionResult
second Hello                           ignored and recorded
more than ``max_strays`` stray msgs    closes the stream: RESOURCE_EXHAUSTED
                                       ("flood: ..."); seat = disconnected
one token in two seats of a match      needs two connections: one connection
                                       never holds two seats of a match
disconnects                            the seat waits for a new connection of
                                       its token while its clock runs; not
                                       back: fallback actions (``absent``)
never connects                         no-show: forfeited; nobody: void match
=====================================  =========================================

Every refusal, connection, close and match goes to the operator's log
(:class:`referee.oplog.OperatorLog`).

Bots the referee launches never share a budget with anyone: each connects
on a Unix socket of its own (:meth:`Referee.private_socket`, a directory
only its uid can enter), where only its own token is accepted and where its
streams without a Hello are counted apart from every other client's.

Every message to a seat is built by the runner from that seat's own view;
a connection only ever receives messages of the matches it sits in.
"""

from __future__ import annotations

import asyncio
import collections
import enum
import functools
import hashlib
import hmac
import itertools
import json
import os
import re
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import grpc
from google.protobuf import json_format
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from cardgames.v1 import admin_pb2, admin_pb2_grpc, referee_pb2 as pb, referee_pb2_grpc
from referee import __version__
from referee.oplog import BOT_NAME_MAX, OperatorLog, valid_bot_name
from referee.protocol import PROTOCOL_VERSION
from referee.clocks import DEFAULT_STALL_THRESHOLD_MS, StallMonitor
from referee.outcomes import FaultKind, MatchStatus
from referee.runner import BasicSeatLink, MatchOutcome, MatchSpec, StrayReporter, run_match

DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024
#: messages queued for one connection before it is closed as not reading its stream
MAX_OUTBOX = 10_000
#: HTTP/2 streams one client connection may have open at once (``grpc.max_concurrent_streams``)
MAX_STREAMS_PER_CONNECTION = 100
#: seconds a new stream has to send its Hello
DEFAULT_HELLO_TIMEOUT_S = 10.0
#: streams waiting for their Hello at once, over every listener open to anyone
DEFAULT_MAX_UNAUTHENTICATED = 1024
#: ... from one host (IP address)
DEFAULT_MAX_UNAUTHENTICATED_PER_HOST = 64
#: ... on one TCP connection (and on one launched bot's own socket)
DEFAULT_MAX_UNAUTHENTICATED_PER_CONNECTION = 16
#: server keepalive: ping every 10 s, a peer silent for 10 s more is dropped (a frozen
#: bot process within ~20 s; gRPC core's ping timeout, 60 s by default, must be lowered too)
KEEPALIVE_OPTIONS = [
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.ping_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
]


#: the start of the details of ``RunMatch``'s ``UNAVAILABLE`` for a match stopped because the referee
#: is shutting down (a driver plays that match again once the referee is back: :mod:`referee.remote`)
SHUTTING_DOWN = "the referee is shutting down"


class CloseKind(enum.StrEnum):
    """Why a bot connection was closed, in one word: the operator log's
    ``closed`` ``reason`` (:attr:`BotConnection.close_reason` says it in words)."""

    #: a write did not complete in time, or too many messages waited: the bot does not read
    NOT_READING = "not_reading"
    #: too many stray messages
    FLOOD = "flood"
    #: the stream could not be read (undecodable bytes, a message too large)
    READ_FAILED = "read_failed"
    #: the stream could not be written (it is gone)
    WRITE_FAILED = "write_failed"
    #: the stream ended before the referee's Goodbye (the bot closed it, its process ended, the connection was lost)
    BOT_CLOSED = "bot_closed"
    #: the referee closed it after the match it was launched for
    MATCH_OVER = "match_over"
    #: the referee is stopping (also a stream the bot ended while it was: after the Goodbye, or at once)
    SHUTDOWN = "shutdown"


class BotConnection:
    """One authenticated bot stream. Writes are serialised: every message goes
    through one queue that the connection's writer task puts on the stream in
    order (:meth:`post` queues without waiting, :meth:`write` waits until
    written, at most a given time); replies are routed to the pending request
    they answer.

    Every wait on a write is bounded: a bot that stops reading (no HTTP/2
    flow-control window granted) blocks gRPC's write, and the writer task with
    it, but nobody waits on that task without a bound. A write not done in
    time closes the connection as not reading (:attr:`not_reading`); the
    stuck write itself cannot be taken back (gRPC's asyncio server cannot reset
    a stream), so that stream is abandoned: it stays open in gRPC core until
    the peer closes its connection or stops answering keepalive pings."""

    def __init__(self, ctx: grpc.aio.ServicerContext, hello: pb.Hello, session_id: str, token: str,
                 max_strays: int, peer: str = ""):
        self.ctx = ctx
        self.name = hello.bot_name
        self.hello = hello
        self.token = token
        self.peer = peer
        self.session_id = session_id
        self.capacity = max(1, hello.max_concurrent_matches)
        self.games = frozenset(hello.games)  # empty: every game
        self.seats: dict[str, "MatchSeat | None"] = {}
        self.pending: dict[int, tuple[str, asyncio.Future]] = {}
        self.expired: dict[int, str] = {}
        #: request id -> match id of the last answered requests (bounded): a second
        #: answer is told "already answered", not "no pending request"
        self.answered: dict[int, str] = {}
        self._ids = itertools.count(1)
        self._outbox: collections.deque[tuple[pb.RefereeMessage | bytes, asyncio.Future | None]] = \
            collections.deque()
        self._wake: asyncio.Future | None = None
        self._writer: asyncio.Task | None = None
        self._writing: asyncio.Future | None = None  # waiter of the message being written, if any
        self.closed = asyncio.Event()
        self.strays = 0
        self.max_strays = max_strays
        self.close_reason = ""
        self.close_kind: CloseKind | None = None  # why it was closed (None: open)
        #: a write to this bot did not complete in time: it does not read its stream
        self.not_reading = False
        self.unattributed: list[tuple[FaultKind, str]] = []  # (kind, detail) not tied to a match

    @property
    def free(self) -> bool:
        """Can take one more match: counts matches it sits in and seats reserved for it."""
        return not self.closed.is_set() and len(self.seats) < self.capacity

    def plays(self, game: str) -> bool:
        """The bot listed ``game`` in ``Hello.games`` (or listed none: every game)."""
        return not self.games or game in self.games

    def next_request_id(self) -> int:
        return next(self._ids)

    def post(self, msg: pb.RefereeMessage | bytes) -> bool:
        """Queue one message for the stream without waiting (order kept); False if closed."""
        return self._enqueue(msg, None)

    async def write(self, msg: pb.RefereeMessage | bytes, timeout_s: float) -> bool:
        """Write one message, after every message queued before it, waiting at
        most ``timeout_s`` seconds for it to be on the stream. False if the
        connection is (or got) closed; a message not written in time closes it
        as not reading (:meth:`stalled`)."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        if not self._enqueue(msg, fut):
            return False
        timer = loop.call_later(timeout_s, self.stalled, fut, timeout_s)
        try:
            return await fut
        finally:
            timer.cancel()

    def stalled(self, fut: asyncio.Future, timeout_s: float) -> None:
        """``fut``'s message was not written within ``timeout_s``: close as not reading."""
        if not fut.done():
            self.not_reading = True
            self.close(CloseKind.NOT_READING,
                       f"not reading: a message could not be written to the stream within {timeout_s * 1000:.0f} ms")

    def _enqueue(self, msg: pb.RefereeMessage | bytes, fut: asyncio.Future | None) -> bool:
        if self.closed.is_set():
            return False
        if len(self._outbox) >= MAX_OUTBOX:
            self.not_reading = True
            self.close(CloseKind.NOT_READING, f"not reading: more than {MAX_OUTBOX} messages waiting to be written")
            return False
        self._outbox.append((msg, fut))
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())
        elif self._wake is not None and not self._wake.done():
            self._wake.set_result(None)
        return True

    async def _write_loop(self) -> None:
        q = self._outbox
        loop = asyncio.get_running_loop()
        while not self.closed.is_set():
            if not q:
                self._wake = loop.create_future()
                await self._wake  # set by _enqueue and by close
                self._wake = None
                continue
            msg, fut = q.popleft()
            self._writing = fut
            try:
                # not cancellable in practice: gRPC completes (or fails) it when the
                # peer takes the data or the call ends; waiters bound their own wait
                await self.ctx.write(msg)
            except Exception as e:  # stream gone
                self.close(CloseKind.WRITE_FAILED, f"write failed: {type(e).__name__}")
                return
            finally:
                self._writing = None
            if fut is not None and not fut.done():
                fut.set_result(True)

    def close(self, kind: CloseKind, reason: str) -> None:
        """Close the connection (once; the first ``kind`` and ``reason`` stand):
        pending requests get no answer, queued and in-flight writes are
        reported as not written, the writer task ends."""
        if self.closed.is_set():
            return
        self.close_kind = kind
        self.close_reason = reason
        self.closed.set()
        for _, fut in self.pending.values():
            if not fut.done():
                fut.set_result(None)
        if self._writing is not None and not self._writing.done():
            self._writing.set_result(False)
        while self._outbox:
            _, fut = self._outbox.popleft()
            if fut is not None and not fut.done():
                fut.set_result(False)
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)  # the writer task sees the close and ends

    def on_message(self, msg: pb.BotMessage) -> bool:
        """Route one message read from the stream (never raises); True if it
        answered a pending request (whose asker was woken)."""
        now = time.monotonic()
        if not msg.HasField("action_reply"):
            which = msg.WhichOneof("msg")
            self._stray(None, FaultKind.UNEXPECTED_MESSAGE, f"unexpected {which or 'empty'} message")
            return False
        r = msg.action_reply
        p = self.pending.get(r.request_id)
        if p is not None and p[0] == r.match_id and not p[1].done():
            p[1].set_result((r, now))
            self.answered[r.request_id] = r.match_id
            if len(self.answered) > 4096:
                self.answered.pop(next(iter(self.answered)))
            return True
        if self.expired.get(r.request_id) == r.match_id:
            self._stray(r, FaultKind.LATE_REPLY, f"request {r.request_id} had expired")
        elif self.answered.get(r.request_id) == r.match_id:
            self._stray(r, FaultKind.UNKNOWN_REQUEST, f"request {r.request_id} was already answered")
        else:
            self._stray(r, FaultKind.UNKNOWN_REQUEST, f"no pending request {r.request_id} in match {r.match_id!r}")
        return False

    def _stray(self, r: pb.ActionReply | None, kind: FaultKind, detail: str) -> None:
        self.strays += 1
        seat = self.seats.get(r.match_id) if r is not None else None
        if seat is not None and seat.reporter is not None:
            seat.reporter.stray(kind, r.request_id)
        else:
            if len(self.unattributed) < 100:
                self.unattributed.append((kind, detail))
        if r is not None and self.strays <= 100:
            self.post(pb.RefereeMessage(action_result=pb.ActionResult(
                match_id=r.match_id if seat is not None else "", request_id=r.request_id, accepted=False,
                message=detail, fault=kind)))
        if self.strays > self.max_strays:
            self.close(CloseKind.FLOOD, f"flood: more than {self.max_strays} stray messages")


class MatchSeat:
    """A :class:`referee.runner.SeatLink` for one seat of one match on a connection:
    bundles events if the bot asked (``Hello.bundle_events``), reports stray
    replies to the match's runner.

    The seat belongs to its token, not to one stream: if its connection drops,
    a new connection with the same token takes it back (:meth:`Referee.rebind`),
    and the next request goes to the new stream. ``gone()`` true (the bot's
    process exited) means it cannot come back: :meth:`wait_back` then returns at once."""

    no_show = False

    def __init__(self, conn: BotConnection, match_id: str, token: str, write_grace_s: float,
                 gone: Callable[[], bool] | None = None, game: str = ""):
        self.conn = conn
        self.match_id = match_id
        self.game = game
        self.token = token
        self.name = conn.name
        self.write_grace_s = write_grace_s
        self.gone = gone
        #: where the connection reports this seat's stray replies (see attach)
        self.reporter: StrayReporter | None = None
        #: the bot asked for its events inside its requests (Hello.bundle_events);
        #: fixed for the match (the runner keeps the seat's events accordingly)
        self.bundle_events = conn.hello.bundle_events
        #: the seat's MatchStarted, sent again to a connection that takes the seat back
        self.started: pb.RefereeMessage | None = None
        self._back: asyncio.Event | None = None

    def attach(self, reporter: StrayReporter) -> None:
        """:meth:`referee.runner.SeatLink.attach`."""
        self.reporter = reporter

    @property
    def connected(self) -> bool:
        return not self.conn.closed.is_set()

    @property
    def not_reading(self) -> bool:
        """The seat's connection was closed because the bot did not read its stream."""
        return self.conn.not_reading

    async def send(self, msg: pb.RefereeMessage) -> None:
        """Queue the message on the connection (written in order by its writer task); never waits."""
        if self.started is None and msg.HasField("match_started"):
            self.started = msg
        self.conn.post(msg)

    def take_over(self, conn: BotConnection) -> None:
        """Move the seat to ``conn`` (same token, the old connection closed):
        it gets the seat's ``MatchStarted`` again, then the next request."""
        self.conn = conn
        conn.seats[self.match_id] = self
        if self.started is not None:
            conn.post(self.started)
        if self._back is not None:
            self._back.set()

    async def wait_back(self, timeout_s: float) -> float:
        """Wait up to ``timeout_s`` for the bot to take the seat back on a new
        connection; milliseconds waited (at once 0 if it is connected, or cannot come back)."""
        if self.connected or (self.gone is not None and self.gone()):
            return 0.0
        t0 = time.monotonic()
        self._back = asyncio.Event()
        try:
            deadline = t0 + timeout_s
            while not self.connected and (left := deadline - time.monotonic()) > 0:
                if self.gone is not None and self.gone():
                    break
                try:
                    await asyncio.wait_for(self._back.wait(), min(left, 0.1))
                except asyncio.TimeoutError:
                    pass
        finally:
            self._back = None
        return (time.monotonic() - t0) * 1000.0

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply | None, float]:
        """:meth:`referee.runner.SeatLink.ask` (numbers the request)."""
        rid = self.conn.next_request_id()
        msg.decision_request.request_id = rid
        return await self._ask(self.conn, rid, msg, timeout_s)

    async def _ask(self, conn: BotConnection, rid: int, msg: pb.RefereeMessage | bytes,
                   timeout_s: float) -> tuple[pb.ActionReply | None, float]:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future = loop.create_future()
        conn.pending[rid] = (self.match_id, fut)
        timer = None
        try:
            # the request must be on the stream within the decision time plus a grace:
            # a bot that does not read gets a not_reading fault, not an endless wait
            if not await conn.write(msg, timeout_s + self.write_grace_s):
                return None, 0.0
            t0 = time.monotonic()  # the clock starts once the request is on the stream
            timer = loop.call_later(timeout_s, self._expire, conn, rid, fut)
            got = await fut
            if got is _EXPIRED or got is None:
                return None, (time.monotonic() - t0) * 1000.0
            reply, t1 = got
            if t1 - t0 > timeout_s:
                # read after the deadline although the timer had not fired yet (a busy
                # event loop): it is late, whatever the order the loop ran the two in
                self._expire(conn, rid, loop.create_future())
                conn._stray(reply, "late_reply", f"request {rid} had expired")
                return None, (t1 - t0) * 1000.0
            return reply, max(0.0, (t1 - t0) * 1000.0)
        except asyncio.CancelledError:  # the runner gave up (CPU clock): a later reply is late
            self._expire(conn, rid, fut)
            raise
        finally:
            if timer is not None:
                timer.cancel()
            conn.pending.pop(rid, None)

    def _expire(self, conn: BotConnection, rid: int, fut: asyncio.Future) -> None:
        """The clock ran out: from now on a reply to ``rid`` is a late reply."""
        if fut.done():
            return
        conn.pending.pop(rid, None)
        conn.expired[rid] = self.match_id
        if len(conn.expired) > 4096:
            conn.expired.pop(next(iter(conn.expired)))
        fut.set_result(_EXPIRED)


#: result of a pending request whose clock ran out
_EXPIRED = object()


class NoShowSeat(BasicSeatLink):
    """SeatLink of a seat whose bot never connected (within the connect time):
    the runner records a ``no_show`` fault and forfeits it; every decision is a fallback.
    ``why``: what the operator and the result are told."""

    no_show = True

    def __init__(self, name: str, why: str = "the bot never connected"):
        self.name = name
        self.why = why
        self.connected = False

    async def send(self, msg: pb.RefereeMessage) -> None:
        return None

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[None, float]:
        return None, 0.0


def token_digest(token: str) -> str:
    """The SHA-256 of a token, hex (64 characters): what is stored instead of
    the token (a ladder's database), see :meth:`Referee.register_token_hash`."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class TokenSlot:
    """A token the referee accepts, and the live connections that use it.

    ``max_connections``: live connections allowed at once (0 = any number); a
    token the referee made for one launched bot allows one, so a second Hello
    with it (a bot that learnt another seat's token) is refused. ``game``: the
    only game this token is seated in (launched bots), or empty.
    ``closed``: the last connections of this token that closed (bounded; the
    connections themselves are released from :attr:`conns` at once).
    ``private``: the token of a launched bot with a socket of its own
    (:meth:`Referee.private_socket`): accepted there only. ``revoked``: taken
    out of the token file (:meth:`Referee.set_tokens`): refused to new
    connections, its live ones keep their seats."""

    token: str
    name: str
    max_connections: int = 0
    game: str = ""
    private: bool = False
    revoked: bool = False
    conns: list[BotConnection] = field(default_factory=list)
    closed: collections.deque = field(default_factory=lambda: collections.deque(maxlen=8))
    cond: asyncio.Condition = field(default_factory=asyncio.Condition)


@dataclass
class PrivateSocket:
    """A launched bot's own socket (:meth:`Referee.private_socket`): the token
    it serves, its path, its gRPC server, and how many of its streams are
    waiting for their Hello (``waiting``)."""

    token: str
    path: Path
    server: grpc.aio.Server
    waiting: int = 0
    started: "asyncio.Future | None" = None


def check_bounds(**bounds: float) -> None:
    """Raise ``ValueError`` naming the first bad connection bound of
    :class:`Referee` given by name: ``hello_timeout_s`` must be above 0,
    every ``max_*`` at least 1."""
    for name, v in bounds.items():
        if name == "hello_timeout_s" and not v > 0:
            raise ValueError(f"{name} must be above 0, got {v}")
        if name.startswith("max_") and v < 1:
            raise ValueError(f"{name} must be at least 1, got {v}")


def _remove_stale_socket_dirs() -> None:
    """Remove the socket directories a referee that died (``kill -9``) left in the temp dir."""
    for d in Path(tempfile.gettempdir()).glob("referee-sock-*-*"):
        pid = d.name.split("-")[2]
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(d, ignore_errors=True)


class Referee:
    """The referee process: gRPC server + token registry + match execution.

    ``log_dir``: where match logs go (``<log_dir>/<match_id>.jsonl``).
    ``admin_token``: required in metadata ``x-admin-token`` by AdminService
    (``None`` = AdminService refuses every call). ``oplog``: the operator's
    log (:class:`referee.oplog.OperatorLog`; default: kept in memory only).

    Bounds (seconds unless said): ``hello_timeout_s`` for a new stream to send
    its Hello; streams without Hello at once (beyond: refused at once,
    RESOURCE_EXHAUSTED): ``max_unauthenticated`` in all,
    ``max_unauthenticated_per_host`` from one IP address and
    ``max_unauthenticated_per_connection`` on one TCP connection, over the
    listeners open to anyone; a launched bot's own socket
    (:meth:`private_socket`) has a budget of
    ``max_unauthenticated_per_connection`` for that bot alone, which nobody
    else can use; ``max_streams_per_connection`` HTTP/2 streams open at once
    on one connection (``grpc.max_concurrent_streams``); ``write_grace_s``
    added to a decision's time for its request to be written; ``end_write_s``
    for ``MatchEnded``/``Goodbye``. Raises ``ValueError`` for a bound below 1.
    """

    def __init__(self, log_dir: Path, admin_token: str | None = None,
                 max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                 hello_timeout_s: float = DEFAULT_HELLO_TIMEOUT_S,
                 max_strays: int = 1000, oplog: OperatorLog | None = None,
                 max_unauthenticated: int = DEFAULT_MAX_UNAUTHENTICATED,
                 max_unauthenticated_per_host: int = DEFAULT_MAX_UNAUTHENTICATED_PER_HOST,
                 max_unauthenticated_per_connection: int = DEFAULT_MAX_UNAUTHENTICATED_PER_CONNECTION,
                 max_streams_per_connection: int = MAX_STREAMS_PER_CONNECTION,
                 write_grace_s: float = 1.0, end_write_s: float = 2.0,
                 stall_threshold_ms: float = DEFAULT_STALL_THRESHOLD_MS):
        check_bounds(hello_timeout_s=hello_timeout_s, max_unauthenticated=max_unauthenticated,
                     max_unauthenticated_per_host=max_unauthenticated_per_host,
                     max_unauthenticated_per_connection=max_unauthenticated_per_connection,
                     max_streams_per_connection=max_streams_per_connection)
        self.log_dir = Path(log_dir)
        #: the referee's own event-loop lag (started with the server); timeouts during
        #: stalls above ``stall_threshold_ms`` are recorded as ``harness``, not ``timeout``
        self.stalls = StallMonitor(threshold_ms=stall_threshold_ms)
        self.admin_token = admin_token
        self.max_message_bytes = max_message_bytes
        self.hello_timeout_s = hello_timeout_s
        self.max_strays = max_strays
        self.max_unauthenticated = max_unauthenticated
        self.max_unauthenticated_per_host = max_unauthenticated_per_host
        self.max_unauthenticated_per_connection = max_unauthenticated_per_connection
        self.max_streams_per_connection = max_streams_per_connection
        self.write_grace_s = write_grace_s
        self.end_write_s = end_write_s
        self.oplog = oplog or OperatorLog()
        self.tokens: dict[str, TokenSlot] = {}
        #: tokens known only by their SHA-256 (:meth:`register_token_hash`): digest -> (name, max_connections, game)
        self.token_hashes: dict[str, tuple[str, int, str]] = {}
        #: digest -> the token, once a bot presented it (kept in memory only)
        self._revealed: dict[str, str] = {}
        self.refused: collections.deque[tuple[str, str]] = collections.deque(maxlen=1000)  # (status, detail)
        #: streams that have not sent their Hello yet, per host (listeners open to anyone)
        self.unauthenticated: collections.Counter[str] = collections.Counter()
        #: ... per connection (its peer: host and port)
        self.unauthenticated_conns: collections.Counter[str] = collections.Counter()
        #: the launched bots' own sockets, by token (:meth:`private_socket`)
        self.private: dict[str, PrivateSocket] = {}
        self._private_root: Path | None = None
        self._private_ids = itertools.count(1)
        self._closing: set[asyncio.Future] = set()  # own sockets being closed (see withdraw)
        #: the tokens of the token file (:meth:`set_tokens`)
        self._listed: set[str] = set()
        #: every live authenticated connection (released when it closes)
        self.connections: set[BotConnection] = set()
        #: seats of running matches, per token (for a connection that takes its seat back)
        self.match_seats: dict[str, list[MatchSeat]] = {}
        self.server: grpc.aio.Server | None = None
        self.port = 0
        self._match_ids = itertools.count(1)
        self.active_matches = 0
        #: :meth:`stop` has begun: connections that end now are closed by the shutdown
        self.stopping = False
        #: the ``closed`` lines of reason ``shutdown`` logged (the ``stopped`` line's ``connections_closed``)
        self.closed_by_shutdown = 0
        #: the matches of ``AdminService.RunMatch`` being played (tasks of :meth:`play`): :meth:`stop` stops them
        self.remote_matches: set[asyncio.Task] = set()
        #: the standing competition this referee hosts (``tournaments.ladder.Ladder``), answering
        #: AdminService's Ladder* calls; ``None``: they are refused with FAILED_PRECONDITION
        self.ladder: Any = None

    # -- tokens ------------------------------------------------------------------
    def register_token(self, token: str, name: str = "", max_connections: int = 0, game: str = "") -> None:
        """Accept bots presenting ``token`` (idempotent; see :class:`TokenSlot`)."""
        if token not in self.tokens:
            self.tokens[token] = TokenSlot(token, name, max_connections, game)

    def register_token_hash(self, digest: str, name: str = "", max_connections: int = 0, game: str = "") -> None:
        """Accept bots presenting the token whose SHA-256 is ``digest``
        (:func:`token_digest`, hex), without knowing the token: a Hello's
        token is hashed and compared with every registered digest in constant
        time (``hmac.compare_digest``); the first Hello that matches registers
        the token itself (:meth:`register_token`, in memory) and
        :meth:`token_for_digest` returns it from then on. ``ValueError`` for a
        digest that is not 64 hex characters."""
        digest = digest.lower()
        if len(digest) != 64 or any(ch not in "0123456789abcdef" for ch in digest):
            raise ValueError("a token digest is the SHA-256 of the token, 64 hex characters")
        self.token_hashes[digest] = (name, max_connections, game)

    def token_for_digest(self, digest: str) -> str | None:
        """The token registered by ``digest`` once a bot has presented it, else ``None``."""
        return self._revealed.get(digest.lower())

    def slot_for(self, token: str) -> TokenSlot | None:
        """The slot of ``token`` (a Hello's): registered as such, or by its digest."""
        slot = self.tokens.get(token)
        if slot is not None or not self.token_hashes:
            return slot
        d = token_digest(token)
        found = None
        for digest in self.token_hashes:  # every digest compared, in constant time each
            if hmac.compare_digest(digest, d):
                found = digest
        if found is None:
            return None
        self._revealed[found] = token
        self.register_token(token, *self.token_hashes[found])
        return self.tokens[token]

    def accepts_token(self, token: str) -> bool:
        """Whether a bot could connect with ``token`` now: registered (not taken
        out of the token file) or registered by its SHA-256. Changes nothing
        (:meth:`slot_for` registers a token found by its digest)."""
        slot = self.tokens.get(token)
        if slot is not None:
            return not slot.revoked
        if not self.token_hashes:
            return False
        d = token_digest(token)
        return any([hmac.compare_digest(digest, d) for digest in self.token_hashes])  # every digest compared

    def new_token(self, name: str = "", max_connections: int = 0, game: str = "") -> str:
        """Register and return a fresh random token (hex: never starts with "-", safe on any command line)."""
        t = secrets.token_hex(16)
        self.register_token(t, name, max_connections, game)
        return t

    def set_tokens(self, entries: list[tuple[str, str]]) -> tuple[int, int]:
        """Make ``entries`` (``(name, token)``, e.g. ``referee serve``'s token
        file) the listed tokens: one not listed before is accepted from now
        on, one no longer listed is refused to every new connection (its
        live connections keep their seats, play on and may still be seated;
        it is forgotten once it has none), a listed one renamed takes its
        new name. Tokens registered any other way are not touched. Returns
        ``(added, removed)``."""
        new = {tok: name for name, tok in entries}
        added = removed = 0
        for tok, name in new.items():
            slot = self.tokens.get(tok)
            if slot is None:
                self.register_token(tok, name)
                added += 1
            else:
                added += slot.revoked
                slot.revoked = False
                slot.name = name
        for tok in self._listed - new.keys():
            slot = self.tokens.get(tok)
            if slot is not None and not slot.revoked:
                slot.revoked = True
                removed += 1
        self._listed = set(new)
        self._forget_revoked()
        return added, removed

    def _forget_revoked(self) -> None:
        """Drop revoked tokens that no live connection nor running match holds any more."""
        for tok in [t for t, slot in self.tokens.items() if slot.revoked]:
            slot = self.tokens[tok]
            if not any(not c.closed.is_set() for c in slot.conns) and not self.match_seats.get(tok):
                del self.tokens[tok]

    # -- the launched bots' own sockets --------------------------------------------
    async def private_socket(self, token: str, uid: int | None = None) -> str:
        """The address (``unix:<path>``) of a socket that serves the bot of
        ``token`` (a registered token) and nobody else: a gRPC server of its
        own on a Unix socket in a directory of its own (mode 0700; owned by
        ``uid``, the bot's own uid, when given: then no other uid but root
        can reach it), where only ``token`` is accepted, and where its
        streams without a Hello are counted for it alone. From then on the
        token is refused everywhere else. Made once per token (a relaunched
        persistent bot gets the same one, handed to its new ``uid``); closed
        by :meth:`withdraw`. Raises ``OSError`` when it cannot be made, or
        when the path would be too long for a Unix socket (108 bytes: the
        temporary directory, ``$TMPDIR``, is too deep)."""
        slot = self.tokens[token]
        p = self.private.get(token)
        if p is None:
            d = self._private_dir() / str(next(self._private_ids))
            path = d / "referee.sock"
            if len(str(path).encode()) >= 108:
                raise OSError(f"cannot listen on a Unix socket at {path}: the path is longer than a Unix "
                              "socket allows (108 bytes); set TMPDIR to a shorter directory")
            d.mkdir(mode=0o700)
            server = self._new_server()
            p = PrivateSocket(token, path, server)
            add_referee_service(_BotServicer(self, p), server)
            if server.add_insecure_port(f"unix:{path}") == 0:
                shutil.rmtree(d, ignore_errors=True)
                raise OSError(f"could not listen on the Unix socket {path}")
            self.private[token] = p  # before it starts: withdraw (or stop) stops it whatever happens next
            slot.private = True
            # not cancellable half-way either (a gRPC server whose start was interrupted fails
            # when it stops): a cancelled caller leaves it to finish, withdraw waits for it
            p.started = asyncio.ensure_future(server.start())
            await asyncio.shield(p.started)
            os.chmod(path, 0o600)
        if uid is not None:
            for f in (p.path.parent, p.path):
                os.chown(f, uid, uid)
        return f"unix:{p.path}"

    def _private_dir(self) -> Path:
        """The directory of the launched bots' sockets (mode 0711: a bot may pass
        through to its own socket's directory, never list the others); made on first use."""
        if self._private_root is None:
            _remove_stale_socket_dirs()
            self._private_root = Path(tempfile.mkdtemp(prefix=f"referee-sock-{os.getpid()}-"))
            os.chmod(self._private_root, 0o711)
        return self._private_root

    async def withdraw(self, token: str) -> None:
        """Forget ``token`` (a launched bot's, once it has been stopped): it is
        refused from now on, and its own socket (if any) is closed and removed."""
        self.tokens.pop(token, None)
        p = self.private.pop(token, None)
        if p is not None:
            # not cancellable half-way (a gRPC server whose stop was interrupted fails at exit):
            # a cancelled caller leaves it to finish, and stop() waits for it
            task = asyncio.ensure_future(self._close_private(p))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
            await asyncio.shield(task)

    @staticmethod
    async def _close_private(p: PrivateSocket) -> None:
        if p.started is not None:
            await asyncio.gather(p.started, return_exceptions=True)
        await p.server.stop(0)
        shutil.rmtree(p.path.parent, ignore_errors=True)

    def connected(self, token: str) -> bool:
        """Whether a bot is connected (Hello accepted, stream open) with ``token``."""
        slot = self.tokens.get(token)
        return slot is not None and any(not c.closed.is_set() for c in slot.conns)

    async def acquire(self, token: str, timeout_s: float,
                      gone: Callable[[], bool] | None = None,
                      reserve: str | None = None, game: str = "",
                      waiting: Callable[[], None] | None = None) -> BotConnection | None:
        """A live connection of ``token`` with a free match slot, waiting up to
        ``timeout_s``; ``None`` if none came (the bot never connected or died).
        ``gone()`` returning true (e.g. the bot's process exited) stops the wait early.
        ``reserve``: a match id; the connection is reserved for that match in the
        same step it is found free (so two matches starting at once cannot both
        take a bot's last slot), and a connection already holding a seat of that
        match is skipped (one connection never holds two seats of a match).
        ``game``: only a connection whose ``Hello.games`` allows it.
        ``waiting()`` is called once, when no such connection is there at once
        and the call starts to wait."""
        slot = self.tokens[token]
        deadline = time.monotonic() + timeout_s
        async with slot.cond:
            while True:
                for c in slot.conns:
                    if c.free and (reserve is None or reserve not in c.seats) and (not game or c.plays(game)):
                        if reserve is not None:
                            c.seats[reserve] = None  # placeholder until its MatchSeat exists
                        return c
                left = deadline - time.monotonic()
                if left <= 0 or (gone is not None and gone()):
                    return None
                if waiting is not None:
                    waiting()
                    waiting = None
                try:
                    await asyncio.wait_for(slot.cond.wait(), min(left, 0.1))
                except asyncio.TimeoutError:
                    pass

    async def _notify(self, token: str) -> None:
        slot = self.tokens.get(token)
        if slot is not None:
            async with slot.cond:
                slot.cond.notify_all()

    def log_closed(self, conn: BotConnection) -> None:
        """The operator's ``closed`` line of a released connection (:meth:`_release`), counted
        for the ``stopped`` line when its reason is ``shutdown``."""
        self.oplog.emit("closed", name=conn.name, peer=conn.peer, session=conn.session_id, reason=conn.close_kind,
                        detail=conn.close_reason)
        if conn.close_kind is CloseKind.SHUTDOWN:
            self.closed_by_shutdown += 1

    def _release(self, conn: BotConnection) -> None:
        """Forget a closed connection at once (its token's list, the live set)."""
        self.connections.discard(conn)
        slot = self.tokens.get(conn.token)
        if slot is not None and conn in slot.conns:
            slot.conns.remove(conn)
            slot.closed.append(conn)

    def rebind(self, conn: BotConnection) -> list[MatchSeat]:
        """Give ``conn`` back the seats of its token whose connection dropped
        in running matches (one seat per match, up to its capacity)."""
        taken = []
        for seat in self.match_seats.get(conn.token, ()):
            if not seat.connected and seat.match_id not in conn.seats and conn.free and conn.plays(seat.game):
                seat.take_over(conn)
                taken.append(seat)
        return taken

    # -- server ------------------------------------------------------------------
    def _new_server(self) -> grpc.aio.Server:
        return grpc.aio.server(options=[
            ("grpc.max_receive_message_length", self.max_message_bytes),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ("grpc.so_reuseport", 0),
            ("grpc.max_concurrent_streams", self.max_streams_per_connection),
            *KEEPALIVE_OPTIONS,
        ])

    async def start(self, host: str = "127.0.0.1", port: int = 0,
                    tls: tuple[bytes, bytes] | None = None) -> int:
        """Start serving; returns the bound port. ``tls`` = (cert PEM, key PEM).
        Raises ``OSError`` if the address cannot be bound (also when another
        process listens on the port: the port is not shared, ``grpc.so_reuseport`` 0).
        Bots this process launches do not use this port: each connects on a
        socket of its own (:meth:`private_socket`, plaintext, never off the machine)."""
        self.server = self._new_server()
        add_referee_service(_BotServicer(self), self.server)
        admin_pb2_grpc.add_AdminServiceServicer_to_server(_AdminServicer(self), self.server)
        hs = health.aio.HealthServicer() if hasattr(health, "aio") else health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(hs, self.server)
        names = (
            pb.DESCRIPTOR.services_by_name["RefereeService"].full_name,
            admin_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        )
        reflection.enable_server_reflection(names, self.server)
        addr = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
        try:
            if tls is None:
                self.port = self.server.add_insecure_port(addr)
            else:
                creds = grpc.ssl_server_credentials([(tls[1], tls[0])])
                self.port = self.server.add_secure_port(addr, creds)
        except RuntimeError as e:  # grpc: "Failed to bind to address ..."
            self.server = None
            raise OSError(f"could not bind {addr}: the port is in use or the address is not local ({e})") from None
        if self.port == 0:
            self.server = None
            raise OSError(f"could not bind {addr}: the port is in use or the address is not local")
        await self.server.start()
        self.stalls.start()
        r = hs.set("", health_pb2.HealthCheckResponse.SERVING)
        if asyncio.iscoroutine(r):
            await r
        self.oplog.emit("listening", host=host, port=self.port, tls=tls is not None)
        return self.port

    async def stop(self, grace_s: float = 1.0) -> None:
        """Stop the matches ``AdminService.RunMatch`` is playing (each logged
        ``match_ended`` ``aborted: referee shutting down``, its caller told
        ``UNAVAILABLE`` :data:`SHUTTING_DOWN`), Goodbye to every connection
        (each write bounded by ``end_write_s``; every connection that ends from
        now on is logged closed as ``shutdown``), then stop the server
        (``grace_s`` seconds for the calls in flight); the operator's log ends
        with a ``stopped`` line (``connections_closed``: how many ``closed``
        lines of reason ``shutdown`` it wrote, waiting up to ``end_write_s``
        for the last ones)."""
        self.stopping = True
        await self.stalls.stop()
        runs = [t for t in self.remote_matches if not t.done()]
        for t in runs:
            t.cancel()
        await asyncio.gather(*runs, return_exceptions=True)  # their Goodbyes are bounded writes
        live = [c for c in self.connections if not c.closed.is_set()]

        async def bye(c: BotConnection) -> None:
            await c.write(pb.RefereeMessage(goodbye=pb.Goodbye(reason="referee shutting down")), self.end_write_s)
            c.close(CloseKind.SHUTDOWN, "referee shutting down")

        await asyncio.gather(*(bye(c) for c in live))
        if self.server is not None:
            await self.server.stop(grace_s)
            self.server = None
        for token in list(self.private):
            await self.withdraw(token)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
        if self._private_root is not None:
            shutil.rmtree(self._private_root, ignore_errors=True)
            self._private_root = None
        # every connection is closed now; their handlers log them as they end (the server cancelled them)
        deadline = time.monotonic() + self.end_write_s
        while self.connections and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        if self.port:
            self.oplog.emit("stopped", port=self.port, matches_stopped=len(runs),
                            connections_closed=self.closed_by_shutdown)
        self.oplog.close()

    # -- matches -----------------------------------------------------------------
    def new_match_id(self, game: str) -> str:
        return f"{game}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}-{next(self._match_ids)}"

    async def play(self, spec: MatchSpec, tokens: list[str], connect_timeout_s: float = 10.0,
                   close_after: bool = True, log_path: Path | None = None,
                   close_tokens: set[str] | None = None,
                   gone: dict[str, Callable[[], bool]] | None = None,
                   hello_names: bool = False,
                   cpu_meters: dict[str, Callable[[], float | None]] | None = None,
                   hide_log: bool = False) -> MatchOutcome:
        """Seat the bots of ``tokens`` (seat order) and run ``spec`` to the end.

        A seat whose bot does not connect within ``connect_timeout_s`` (or only
        with a ``Hello.games`` that does not list the game) is a no-show: a
        ``no_show`` fault, forfeited, fallback actions; if no seat connects the
        match is void (not played, not rated). A seat whose connection drops
        may be taken back by a new connection of its token (:meth:`rebind`).
        ``close_after``: send Goodbye and close every seat's connection
        afterwards; ``close_tokens``: close only those of these tokens (bots
        launched for this match); ``gone``: per token, a check that the bot
        cannot connect any more (its process exited); ``cpu_meters``: per token,
        the bot's CPU seconds so far (``spec.clock == "cpu"``); ``hello_names``: rename the
        seats ``"<Hello.bot_name>#<seat>"``; ``hide_log``: the match log has no
        name until the match ends (bots run under the referee's uid). Never
        raises for bot faults. The operator's log gets a ``match_waiting``
        line when the match has to wait for a bot (naming the seats of every
        bot not connected then; a bot named once is not named again),
        ``match_started`` once
        every seat is taken (or a no-show), and ``match_ended``; cancelled
        (while waiting for its seats too), the match ends ``aborted`` and the
        cancellation propagates.
        """
        t0 = time.monotonic()
        deadline = t0 + connect_timeout_s
        gone = gone or {}

        def seat_name(s: int) -> str:
            return spec.seat_names[s] if len(spec.seat_names) == len(tokens) else self.tokens[tokens[s]].name

        def seats_of(t: str) -> list[str]:
            return [seat_name(s) for s, tok in enumerate(tokens) if tok == t]

        # One connection never holds two seats of a match (it would see both views): a
        # token seated twice needs two connections. Tokens are acquired one at a time in
        # sorted order, so two matches waiting for the same busy bots cannot deadlock.
        by_token: dict[str, list[BotConnection | None]] = {}
        waiting_for: list[str] = []  # the seats of the bot being acquired
        logged: set[str] = set()  # the tokens whose wait is logged

        def waiting(t: str) -> None:  # one line per wait: t's seats and every later seat without a bot
            if t in logged:
                return
            order = sorted(set(tokens))
            absent = [t] + [u for u in order[order.index(t) + 1:]
                            if u not in logged and not (u in self.tokens and self.tokens[u].conns)]
            logged.update(absent)
            self.oplog.emit("match_waiting", match_id=spec.match_id, game=spec.game,
                            waiting_for=[seat_name(s) for s, tok in enumerate(tokens) if tok in absent],
                            wait_s=round(max(0.0, deadline - time.monotonic()), 1))

        try:
            for t in sorted(set(tokens)):
                got: list[BotConnection | None] = by_token.setdefault(t, [])
                waiting_for = seats_of(t)
                for _ in range(tokens.count(t)):
                    got.append(await self.acquire(t, deadline - time.monotonic(), gone.get(t), reserve=spec.match_id,
                                                  game=spec.game, waiting=functools.partial(waiting, t)))
        except asyncio.CancelledError:  # stopped before it was seated: the seats reserved so far are freed
            for c in (c for held in by_token.values() for c in held if c is not None):
                c.seats.pop(spec.match_id, None)
            self.oplog.emit("match_ended", match_id=spec.match_id, status=self._aborted_status(), faults={},
                            elapsed_s=round(time.monotonic() - t0, 3), waiting_for=waiting_for)
            for t in by_token:
                await self._notify(t)
            raise
        conns = [by_token[t].pop(0) for t in tokens]
        links: list[Any] = []
        seats: list[MatchSeat] = []
        for s, (t, c) in enumerate(zip(tokens, conns)):
            name = seat_name(s)
            if c is None:
                links.append(NoShowSeat(name, self._no_show_reason(t, spec.game)))
            else:
                seat = MatchSeat(c, spec.match_id, t, self.write_grace_s, gone.get(t), spec.game)
                c.seats[spec.match_id] = seat
                links.append(seat)
                seats.append(seat)
                self.match_seats.setdefault(t, []).append(seat)
        if not spec.seat_names or len(spec.seat_names) != len(tokens):
            spec.seat_names = [ln.name for ln in links]
        elif hello_names:  # name the seats after what the bots call themselves
            spec.seat_names = [f"{c.name}#{s}" if c is not None else spec.seat_names[s] for s, c in enumerate(conns)]
        path = log_path or (self.log_dir / f"{spec.match_id}.jsonl")
        self.oplog.emit("match_started", match_id=spec.match_id, game=spec.game, seats=list(spec.seat_names),
                        no_show=[s for s, ln in enumerate(links) if ln.no_show])
        self.active_matches += 1
        started = time.monotonic()
        try:
            meters = [(cpu_meters or {}).get(t) for t in tokens]
            outcome = await run_match(spec, links, path, cpu_meters=meters, stalls=self.stalls, hide_log=hide_log)
        except asyncio.CancelledError:  # stopped before its end: no result
            self.oplog.emit("match_ended", match_id=spec.match_id, status=self._aborted_status(),
                            faults={}, elapsed_s=round(time.monotonic() - started, 3))
            raise
        finally:
            self.active_matches -= 1
            for seat in seats:
                lst = self.match_seats.get(seat.token)
                if lst is not None:
                    lst.remove(seat)
                    if not lst:
                        del self.match_seats[seat.token]
            for seat in seats:  # the connection holding the seat now (it may have been taken back)
                c = seat.conn
                c.seats.pop(spec.match_id, None)
            ends = []
            for seat in seats:
                c = seat.conn
                # a multiplexed connection stays open while it sits in other matches
                if (close_after or c.token in (close_tokens or ())) and not c.seats and not c.closed.is_set():
                    ends.append(self._goodbye(c))
            await asyncio.gather(*ends)  # MatchEnded (queued before) and Goodbye: bounded writes
            for c in conns:
                if c is not None:
                    c.seats.pop(spec.match_id, None)  # a reservation of a seat taken over elsewhere
            for t in set(tokens):
                await self._notify(t)
        faults = collections.Counter(f.kind for f in outcome.faults)
        self.oplog.emit("match_ended", match_id=spec.match_id, status=outcome.status_text, faults=dict(faults),
                        elapsed_s=round(outcome.elapsed_s, 3))
        return outcome

    def _aborted_status(self) -> str:
        """The ``match_ended`` status of a match stopped before its end (its task cancelled)."""
        why = "referee shutting down" if self.stopping else "stopped by its caller"
        return f"{MatchStatus.ABORTED.value}: {why}"

    async def _goodbye(self, c: BotConnection) -> None:
        """Goodbye after the match the connection's bot was launched for (or, when the referee
        is stopping, because it is), then close it."""
        kind, reason = ((CloseKind.SHUTDOWN, "referee shutting down") if self.stopping
                        else (CloseKind.MATCH_OVER, "match over"))
        await c.write(pb.RefereeMessage(goodbye=pb.Goodbye(reason=reason)), self.end_write_s)
        c.close(kind, reason)

    def _no_show_reason(self, token: str, game: str) -> str:
        slot = self.tokens.get(token)
        live = slot.conns if slot is not None else []
        if live and all(not c.plays(game) for c in live):
            return f"the bot does not play {game} (Hello.games = {sorted(live[0].games)})"
        return "the bot never connected"


def _serialize_referee_message(m: pb.RefereeMessage | bytes) -> bytes:
    """The bot stream's serializer: a message is serialised, bytes (a message
    encoded beforehand, e.g. by the bench's echo server) go as they are."""
    return m if m.__class__ is bytes else m.SerializeToString()


def add_referee_service(servicer: referee_pb2_grpc.RefereeServiceServicer, server: grpc.aio.Server) -> None:
    """Register ``RefereeService`` as the generated ``add_RefereeServiceServicer_to_server``
    does, but with :func:`_serialize_referee_message` for what the servicer writes
    (a ``RefereeMessage``, or its encoding as bytes)."""
    name = pb.DESCRIPTOR.services_by_name["RefereeService"].full_name
    handlers = {
        "Connect": grpc.stream_stream_rpc_method_handler(
            servicer.Connect, request_deserializer=pb.BotMessage.FromString,
            response_serializer=_serialize_referee_message),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
    server.add_registered_method_handlers(name, handlers)


class _BotServicer(referee_pb2_grpc.RefereeServiceServicer):
    """``RefereeService`` on a listener open to anyone (``private`` None), or on
    one launched bot's own socket (:meth:`Referee.private_socket`)."""

    def __init__(self, ref: Referee, private: PrivateSocket | None = None):
        self.ref = ref
        self.private = private

    def _flooded(self, host: str, peer: str) -> str:
        """Why one more stream without a Hello is refused ("": it is not)."""
        ref, own = self.ref, self.private
        if own is not None:
            if own.waiting >= ref.max_unauthenticated_per_connection:
                return f"more than {ref.max_unauthenticated_per_connection} streams without a Hello on this socket"
            return ""
        if ref.unauthenticated_conns[peer] >= ref.max_unauthenticated_per_connection:
            return f"more than {ref.max_unauthenticated_per_connection} streams without a Hello on this connection"
        if ref.unauthenticated[host] >= ref.max_unauthenticated_per_host:
            return f"more than {ref.max_unauthenticated_per_host} streams without a Hello from this host"
        if sum(ref.unauthenticated.values()) >= ref.max_unauthenticated:
            return f"more than {ref.max_unauthenticated} streams without a Hello in all"
        return ""

    def _count(self, host: str, peer: str, by: int) -> None:
        ref, own = self.ref, self.private
        if own is not None:
            own.waiting += by
            return
        for counter, key in ((ref.unauthenticated, host), (ref.unauthenticated_conns, peer)):
            counter[key] += by
            if counter[key] <= 0:
                del counter[key]

    async def Connect(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        ref = self.ref
        peer = context.peer() or ""
        host = _peer_host(peer)
        name = ""

        async def refuse(code: grpc.StatusCode, reason: str, detail: str) -> None:
            ref.refused.append((code.name, detail))
            ref.oplog.emit("refused", reason=reason, detail=detail, peer=peer, name=name)
            await context.abort(code, detail)

        # Before its Hello a stream holds one handler and at most one message (the
        # rest waits in gRPC's flow-controlled buffers), for hello_timeout_s at most;
        # the number of such streams is bounded per connection, per host and in all
        # (on a launched bot's own socket: for that bot alone).
        why = self._flooded(host, peer)
        if why:
            await refuse(grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_unauthenticated",
                         f"flood: {why}; send the Hello at once")
            return
        self._count(host, peer, 1)
        try:
            first = await asyncio.wait_for(context.read(), ref.hello_timeout_s)
        except asyncio.TimeoutError:
            first = None
        except Exception:  # the stream was reset or broke before its Hello
            first = grpc.aio.EOF
        finally:
            self._count(host, peer, -1)
        if first is None:
            await refuse(grpc.StatusCode.DEADLINE_EXCEEDED, "no_hello", f"no Hello within {ref.hello_timeout_s:g} s")
            return
        if first is grpc.aio.EOF or first.WhichOneof("msg") != "hello":
            await refuse(grpc.StatusCode.INVALID_ARGUMENT, "not_hello", "the first message must be a Hello")
            return
        hello = first.hello
        name = hello.bot_name
        if hello.protocol_version != PROTOCOL_VERSION:
            await refuse(grpc.StatusCode.FAILED_PRECONDITION, "version",
                         f"protocol_version {hello.protocol_version} not supported; this referee speaks "
                         f"{PROTOCOL_VERSION} (package cardgames.v1)")
            return
        if not valid_bot_name(hello.bot_name):
            await refuse(grpc.StatusCode.INVALID_ARGUMENT, "bad_name",
                         f"bot_name must be 1..{BOT_NAME_MAX} printable characters")
            return
        slot = ref.slot_for(hello.token)
        # a launched bot's token is good on its own socket only, and its socket for it only
        if (slot is None or slot.revoked or slot.private != (self.private is not None)
                or (self.private is not None and slot.token != self.private.token)):
            await refuse(grpc.StatusCode.UNAUTHENTICATED, "bad_token", "unknown token")
            return
        if slot.max_connections and sum(not c.closed.is_set() for c in slot.conns) >= slot.max_connections:
            await refuse(grpc.StatusCode.ALREADY_EXISTS, "token_in_use",
                         "this token's seat is already held by a live connection")
            return
        if slot.game and hello.games and slot.game not in hello.games:
            await refuse(grpc.StatusCode.FAILED_PRECONDITION, "game",
                         f"this token's seat is in a {slot.game} match, but Hello.games lists only "
                         f"{', '.join(hello.games)}")
            return
        conn = BotConnection(context, hello, secrets.token_hex(6), hello.token, ref.max_strays, peer)
        ref.connections.add(conn)
        task: asyncio.Task | None = None
        ref.oplog.emit("connected", name=name, peer=peer, session=conn.session_id, seat_of=slot.name,
                       games=list(hello.games))
        try:
            if not await conn.write(pb.RefereeMessage(welcome=pb.Welcome(
                    session_id=conn.session_id, protocol_version=PROTOCOL_VERSION, referee_version=__version__,
                    max_message_bytes=ref.max_message_bytes)), ref.hello_timeout_s):
                return
            async with slot.cond:
                slot.conns.append(conn)
                for seat in ref.rebind(conn):
                    ref.oplog.emit("reconnected", name=name, peer=peer, session=conn.session_id,
                                   match_id=seat.match_id, seat=seat.name)
                slot.cond.notify_all()

            async def reader() -> None:
                try:
                    while not conn.closed.is_set():
                        msg = await context.read()
                        if msg is grpc.aio.EOF:
                            if ref.stopping:  # the Goodbye may be on its way, or read already
                                conn.close(CloseKind.SHUTDOWN, "referee shutting down")
                            conn.close(CloseKind.BOT_CLOSED, "the stream ended before the referee's Goodbye: "
                                                             "the bot closed it or its process ended")
                            return
                        if conn.on_message(msg):
                            # a reply woke the match waiting for it: let the match run up to
                            # its next request before this task arms the next read (the read
                            # is then set up while the bot thinks, not between reply and request)
                            await asyncio.sleep(0)
                except Exception as e:
                    conn.close(CloseKind.READ_FAILED, f"read failed: {type(e).__name__}")

            task = asyncio.get_running_loop().create_task(reader())
            await conn.closed.wait()
        finally:
            # also when gRPC cancels this handler (the peer went away mid-write)
            if task is not None:
                task.cancel()
            # no-op if closed already: the first reason stands
            if ref.stopping:
                conn.close(CloseKind.SHUTDOWN, "referee shutting down")
            conn.close(CloseKind.BOT_CLOSED, "the connection was lost before the referee's Goodbye: the bot's "
                       "process may have ended, or the network dropped")
            ref._release(conn)  # released at once: nothing keeps a closed connection
            for other in list(slot.conns):  # an idle connection of the token takes its seats back
                for seat in ref.rebind(other):
                    ref.oplog.emit("reconnected", name=other.name, peer=other.peer, session=other.session_id,
                                   match_id=seat.match_id, seat=seat.name)
            # logged before any await: a handler cancelled from now on (the server stopping) still logs it
            ref.log_closed(conn)
            await ref._notify(hello.token)
            if slot.revoked:
                ref._forget_revoked()
        if conn.not_reading:
            # a write is stuck in gRPC (the peer grants no window): any status would
            # queue behind it, so the handler just ends; gRPC core keeps the stream
            # until the peer goes (closes its connection or misses keepalive pings)
            return
        # tell the bot why, instead of a bare end of stream (status OK means "after Goodbye");
        # first let a write in progress finish (no write starts once the connection is closed)
        if conn._writer is not None and not conn._writer.done():
            await asyncio.wait({conn._writer}, timeout=ref.end_write_s)
            if not conn._writer.done():
                return  # still stuck: as for not reading
        if conn.close_kind is CloseKind.FLOOD:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, conn.close_reason)
        if conn.close_kind is CloseKind.READ_FAILED:
            await context.abort(grpc.StatusCode.INTERNAL, f"unreadable message ({conn.close_reason})")


def _peer_host(peer: str) -> str:
    """The host part of a gRPC peer string (``ipv4:1.2.3.4:5678`` -> ``ipv4:1.2.3.4``)."""
    if peer.startswith(("ipv4:", "ipv6:")):
        return peer.rsplit(":", 1)[0]
    return peer


#: a match id a RunMatch caller may choose (also the name of the log: no path, no hidden file)
_MATCH_ID = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,99}")
#: the size of the pieces AdminService.MatchLog streams a log in
LOG_CHUNK_BYTES = 1 << 20


class _AdminServicer(admin_pb2_grpc.AdminServiceServicer):
    def __init__(self, ref: Referee):
        self.ref = ref
        #: ids of the matches RunMatch is playing now
        self.match_ids: set[str] = set()

    async def _admit(self, context: grpc.aio.ServicerContext, method: str) -> None:
        """Abort with PERMISSION_DENIED (and log it) unless the call carries the admin token."""
        ref = self.ref
        md = dict(context.invocation_metadata() or ())
        if ref.admin_token is None or not secrets.compare_digest(md.get("x-admin-token", ""), ref.admin_token):
            ref.oplog.emit("admin_refused", method=method, peer=context.peer() or "",
                           reason="bad or missing x-admin-token")
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "bad or missing x-admin-token")

    async def _ladder(self, method: str, request: Any, context: grpc.aio.ServicerContext) -> Any:
        """A Ladder* call, answered by :attr:`Referee.ladder`; a refusal it raises
        (an exception with a ``grpc_code``) becomes that status with its message."""
        await self._admit(context, method)
        if self.ref.ladder is None:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                "this referee runs no ladder (start one with `referee ladder FILE`)")
        try:
            return await self.ref.ladder.admin(method, request)
        except Exception as e:  # noqa: BLE001 - only refusals carry a grpc_code; anything else propagates
            code = getattr(e, "grpc_code", None)
            if code is None:
                raise
            await context.abort(code, str(e))

    async def LadderAdd(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._ladder("LadderAdd", request, context)

    async def LadderReplace(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._ladder("LadderReplace", request, context)

    async def LadderRetire(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._ladder("LadderRetire", request, context)

    async def LadderStatus(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._ladder("LadderStatus", request, context)

    async def RunMatch(self, request: admin_pb2.RunMatchRequest,
                       context: grpc.aio.ServicerContext) -> admin_pb2.RunMatchResponse:
        ref = self.ref
        await self._admit(context, "RunMatch")
        if ref.stopping:
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"{SHUTTING_DOWN}: no match is started")
        for t in request.register_tokens:
            ref.register_token(t, max_connections=1)  # each is one launched bot's
        seat_tokens, problem = _seat_tokens(ref, request)
        if problem:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
        if request.match_id and not _MATCH_ID.fullmatch(request.match_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"match_id {request.match_id!r}: "
                                "1-100 letters, digits, '-', '_', '.' (not starting with '.')")
        if request.match_id and (request.match_id in self.match_ids
                                 or (ref.log_dir / f"{request.match_id}.jsonl").exists()):
            await context.abort(grpc.StatusCode.ALREADY_EXISTS,
                                f"this referee already has a match {request.match_id!r}")
        spec = MatchSpec(
            game=request.game, players=request.players or len(seat_tokens), seed=request.seed,
            seat_names=[], variant=_int_floats(json_format.MessageToDict(request.variant)),
            params=_int_floats(json_format.MessageToDict(request.params)),
            decision_ms=request.decision_ms or 1000, bank_ms=request.bank_ms,
            fault_policy=request.fault_policy or "default_action", max_faults=request.max_faults or 5,
            match_id=request.match_id or ref.new_match_id(request.game))
        try:
            spec.seat_names = ["?"] * spec.players
            spec.check()
            spec.new_game()
        except (ValueError, LookupError) as e:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        if request.seat_labels and len(request.seat_labels) != len(seat_tokens):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"{len(request.seat_labels)} seat_labels for {len(seat_tokens)} seats")
        spec.seat_names = list(request.seat_labels)
        # bots launched for this match are told Goodbye; bots that connected on their own stay
        self.match_ids.add(spec.match_id)
        run = asyncio.ensure_future(ref.play(spec, seat_tokens, (request.bot_connect_ms or 10_000) / 1000.0,
                                             close_after=False, close_tokens=set(request.register_tokens),
                                             hello_names=request.hello_names and bool(request.seat_labels)))
        ref.remote_matches.add(run)
        try:
            outcome = await run
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if run.cancelled() and ref.stopping and not (task is not None and task.cancelling()):
                await context.abort(grpc.StatusCode.UNAVAILABLE,
                                    f"{SHUTTING_DOWN}: match {spec.match_id} was stopped before its end and counts "
                                    "for nothing")
            raise
        finally:
            ref.remote_matches.discard(run)
            self.match_ids.discard(spec.match_id)
        res = admin_pb2.RunMatchResponse(match_id=spec.match_id, status=outcome.status_text,
                                         log_path=outcome.log_path or "", seat_names=spec.seat_names)
        res.result.update(_jsonable(outcome.to_json()))
        return res

    async def MatchLog(self, request: admin_pb2.MatchLogRequest,
                       context: grpc.aio.ServicerContext) -> Any:
        """Stream the log of a match of this referee in chunks of :data:`LOG_CHUNK_BYTES`, from
        ``request.offset`` (bytes) on, each chunk with the offset of its data."""
        await self._admit(context, "MatchLog")
        if not _MATCH_ID.fullmatch(request.match_id):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"match_id {request.match_id!r}: "
                                "1-100 letters, digits, '-', '_', '.' (not starting with '.')")
        if request.offset < 0:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"offset {request.offset}: must be >= 0")
        path = self.ref.log_dir / f"{request.match_id}.jsonl"
        try:
            f = path.open("rb")
        except OSError:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"this referee has no log of match {request.match_id!r}")
        with f:
            at = f.seek(request.offset)
            while data := await asyncio.to_thread(f.read, LOG_CHUNK_BYTES):
                yield admin_pb2.MatchLogChunk(data=data, offset=at)
                at += len(data)

    async def CheckTokens(self, request: admin_pb2.CheckTokensRequest,
                          context: grpc.aio.ServicerContext) -> admin_pb2.CheckTokensResponse:
        await self._admit(context, "CheckTokens")
        named = tokens_by_name(self.ref)  # RunMatch's rule for seat_names
        seated = [len(named.get(n, ())) if n else 0 for n in request.names]

        def connected(token: str) -> bool:
            slot = self.ref.tokens.get(token)
            return slot is not None and bool(slot.conns)

        return admin_pb2.CheckTokensResponse(
            unknown=[i for i, t in enumerate(request.tokens) if not self.ref.accepts_token(t)],
            unknown_names=[i for i, k in enumerate(seated) if k == 0],
            ambiguous_names=[i for i, k in enumerate(seated) if k > 1], names_checked=True,
            connected=[i for i, t in enumerate(request.tokens) if connected(t)],
            connected_names=[i for i, (n, k) in enumerate(zip(request.names, seated))
                             if k == 1 and connected(named[n][0])],
            connections_checked=True)

    async def RegisterTokens(self, request: admin_pb2.RegisterTokensRequest,
                             context: grpc.aio.ServicerContext) -> admin_pb2.RegisterTokensResponse:
        ref = self.ref
        await self._admit(context, "RegisterTokens")
        for t in request.tokens:
            ref.register_token(t, max_connections=1)  # each is one launched bot's
        return admin_pb2.RegisterTokensResponse()


def tokens_by_name(ref: Referee) -> dict[str, list[str]]:
    """Bot name -> the tokens a seat given by that name could be given
    (``RunMatchRequest.seat_names``; exactly one is needed): those registered
    under it and not taken out of the token file, else those taken out whose
    bot is still connected (a taken-out token is forgotten when its last
    connection ends). O(registered tokens)."""
    live: dict[str, list[str]] = {}
    every: dict[str, list[str]] = {}
    for tok, slot in ref.tokens.items():
        every.setdefault(slot.name, []).append(tok)
        if not slot.revoked:
            live.setdefault(slot.name, []).append(tok)
    return {name: live.get(name) or toks for name, toks in every.items()}


def _seat_tokens(ref: Referee, request: admin_pb2.RunMatchRequest) -> tuple[list[str], str]:
    """The token of every seat of ``request`` (``seat_tokens``, else the bot
    registered under the ``seat_names`` entry), and a problem ("" if none)."""
    n = max(len(request.seat_tokens), len(request.seat_names))
    by_name = tokens_by_name(ref) if request.seat_names else {}
    tokens: list[str] = []
    for i in range(n):
        t = request.seat_tokens[i] if i < len(request.seat_tokens) else ""
        name = request.seat_names[i] if i < len(request.seat_names) else ""
        if not t and name:
            named = by_name.get(name, [])
            if len(named) != 1:
                return [], (f"seat {i}: no bot named {name!r} is registered with this referee"
                            if not named else f"seat {i}: {len(named)} bots are registered as {name!r}")
            t = named[0]
        if not t:
            return [], f"seat {i}: neither a seat token nor a seat name"
        if t not in ref.tokens:
            return [], f"seat {i}: seat token not registered"
        tokens.append(t)
    return tokens, ""


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(d))


def _int_floats(d: dict[str, Any]) -> dict[str, Any]:
    """protobuf Struct numbers are doubles: turn integral ones back into ints."""
    return {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in d.items()}
