"""Run matches on a running ``referee serve`` through its AdminService.

Used by ``referee match --referee HOST:PORT`` and ``referee tournament run
--referee HOST:PORT``. Each seat is one of:

- a bot already connected to (or about to connect to) the referee, seated by
  the ``name`` it was registered under (``NAME=TOKEN`` in ``referee serve
  --token-file`` or ``REFEREE_TOKENS``);
- a bot seated by its ``token`` (a tournament file's ``external = true`` bot);
- a ``command`` launched here for this match: its token is registered first
  (``AdminService.RegisterTokens``), then the process is started with
  ``--referee HOST:PORT`` and the token, and it is stopped when the match ends.

Bots that connected on their own stay connected after a match; launched ones
get a Goodbye. The seats are recorded under the caller's names
(``RunMatchRequest.seat_labels``), and the match log is fetched into the
caller's log directory (``AdminService.MatchLog``), so a remote match ends with
the same summary, log and replay as a local one (:func:`outcome_of`).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import grpc
from google.protobuf import json_format

from cardgames.v1 import admin_pb2, admin_pb2_grpc
from referee.bots import BotProcess, Limits
from referee.engine import MatchResult
from referee.outcomes import MatchStatus
from referee.play import CRASH_GRACE_S
from referee.runner import FaultRecord, MatchOutcome, MatchSpec
from referee.service import SHUTTING_DOWN
from referee.words import plural


class RemoteError(RuntimeError):
    """The remote referee refused or failed a call; the message says which and why."""


#: ``tournament run --referee`` and ``referee ladder --referee``: how long to wait for a referee that went away
#: (seconds; their ``--reconnect`` default)
REFEREE_RECONNECT_S = 300.0


#: the last suffix a match with an id of the caller's tries (``<id>-2`` ... ``<id>-51``) before the referee's own id
MAX_ID_SUFFIX = 51


#: what gRPC's details say when the failure may be TLS's: a handshake that failed (a certificate
#: not trusted or not naming the host, TLS against plaintext) or, without TLS, a TLS server that
#: closed the plaintext connection ("Socket closed")
_TLS_TROUBLE = re.compile(r"handshake|ssl|tls|certificate|x509|peer name|socket closed", re.IGNORECASE)


def unreachable(what: str, addr: str, details: str, tls_ca: Path | str | None) -> str:
    """The message for a ``what`` ("referee", "ladder") at ``addr`` that did
    not answer (gRPC ``UNAVAILABLE`` with ``details``). When ``details`` say
    the failure may be TLS's (a failed handshake, a closed socket), the likely
    fix: without ``tls_ca``, that it may speak TLS; with it, that its
    certificate may not match. A refused connection or a cancelled call gets
    no such hint. gRPC's trailing ``: OK`` (a TLS failure's) is dropped."""
    details = re.sub(r"(?::\s*OK)+\s*$", "", details.strip())
    hint = ""
    if _TLS_TROUBLE.search(details):
        hint = ("; if it speaks TLS, give --tls-ca" if tls_ca is None
                else f"; does its certificate match {addr} and --tls-ca?")
    elif "connection refused" in details.lower():
        hint = "; is `referee serve` running on that port?"
    return f"no {what} answers at {addr} ({details}){hint}"


def gone_reason(details: str) -> str:
    """A short plain reason for a referee that went away, from a failed call's
    gRPC ``details``: ``connection refused``, ``connection reset``,
    ``connection closed``, ``timed out`` or ``the call was cancelled`` for
    gRPC's transport texts (``failed to connect to all addresses; last error:
    UNKNOWN: ipv4:127.0.0.1:50961: Failed to connect to remote host:
    Connection refused``); any other text (the referee's own, e.g. that it
    is shutting down) as it is."""
    low = details.lower()
    for needle, reason in (("refused", "connection refused"), ("reset", "connection reset"),
                           ("socket closed", "connection closed"), ("connection closed", "connection closed"),
                           ("deadline", "timed out"), ("timed out", "timed out"), ("timeout", "timed out"),
                           ("cancel", "the call was cancelled")):
        if needle in low and SHUTTING_DOWN not in details:
            return reason
    return details.strip() or "no reason given"


class RefereeGone(RemoteError):
    """The referee answered earlier in this run and now does not (it stopped,
    restarted or the network dropped): a call failed with ``UNAVAILABLE`` or
    ``CANCELLED``, or the referee stopped the match because it was shutting
    down. Nothing of the call was kept (the match it played is not counted)."""


@dataclass
class RemoteSeat:
    """Who sits in a seat of a remote match: exactly one of ``name``, ``token``, ``command``."""

    name: str | None = None
    token: str | None = None
    command: str | None = None
    #: resource limits of a launched bot (None: the match's)
    limits: Limits | None = None


@dataclass
class SeatCheck:
    """What :meth:`RemoteReferee.check_seats` learnt: indices (ascending)
    into the tokens asked about that the referee does not accept, and into
    the names asked about that no bot, or more than one, is registered
    under. ``names_checked`` False: the referee is older than the names'
    check and did not check them (then both name lists are empty)."""

    unknown_tokens: list[int]
    unknown_names: list[int]
    ambiguous_names: list[int]
    names_checked: bool


@dataclass
class RemoteOutcome:
    """A finished remote match, with the attributes the tournament runner reads
    from a :class:`referee.runner.MatchOutcome`."""

    match_id: str
    status: MatchStatus
    result: dict[str, Any]
    log_path: str | None
    decisions: int
    elapsed_s: float
    faults: list[FaultRecord] = field(default_factory=list)
    #: the log was fetched to ``log_path`` on this machine (else ``log_path`` is on the referee's)
    log_fetched: bool = False

    def to_json(self) -> dict[str, Any]:
        return self.result


def ints(v: Any) -> Any:
    """JSON that went through a protobuf Struct: integral floats back to ints."""
    if isinstance(v, dict):
        return {k: ints(x) for k, x in v.items()}
    if isinstance(v, list):
        return [ints(x) for x in v]
    return int(v) if isinstance(v, float) and v.is_integer() else v


class RemoteReferee:
    """A running referee at ``addr`` (HOST:PORT) and its admin token.

    ``tls_ca``: PEM file of the CA to trust for a TLS referee (None:
    plaintext); launched bots get ``--tls-ca`` with it too. ``end_grace_s``:
    how long launched bots may take to exit by themselves after the match
    (they have been told Goodbye) before they are stopped (SIGTERM, SIGKILL)."""

    def __init__(self, addr: str, admin_token: str, tls_ca: Path | None = None, end_grace_s: float = 1.0):
        self.addr, self.admin_token, self.tls_ca, self.end_grace_s = addr, admin_token, tls_ca, end_grace_s
        #: the referee has answered a call of this object (so a later UNAVAILABLE means it went away)
        self.reached = False

    def _failure(self, e: grpc.RpcError) -> RemoteError:
        """The error for a failed call: :class:`RefereeGone` when the referee
        answered before and is now unreachable (or cut the call short), else
        :class:`RemoteError` saying why it is unreachable or what it refused."""
        code, details = e.code(), e.details() or ""
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED) and (
                self.reached or SHUTTING_DOWN in details):
            return RefereeGone(f"the referee at {self.addr} went away ({gone_reason(details)})")
        if code == grpc.StatusCode.UNAVAILABLE:
            return RemoteError(unreachable("referee", self.addr, details, self.tls_ca))
        self.reached = True
        return RemoteError(f"referee at {self.addr} refused: {code.name}: {details}")

    async def wait_back(self, timeout_s: float, every_s: float = 0.5) -> bool:
        """Wait up to ``timeout_s`` seconds for the referee to answer again
        (an ``AdminService.CheckTokens`` call with no token, tried every
        ``every_s`` seconds); True once it does (any answer but ``UNAVAILABLE``
        and ``CANCELLED``), False when the time is up. Cancellable."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                async with self._channel() as ch:
                    await admin_pb2_grpc.AdminServiceStub(ch).CheckTokens(
                        admin_pb2.CheckTokensRequest(), metadata=[("x-admin-token", self.admin_token)],
                        timeout=max(0.1, min(5.0, left)))
                return True
            except grpc.RpcError as e:
                if e.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
                                    grpc.StatusCode.DEADLINE_EXCEEDED):
                    return True  # it answers (an older referee: UNIMPLEMENTED)
            await asyncio.sleep(min(every_s, max(0.0, deadline - time.monotonic())))

    def _channel(self) -> grpc.aio.Channel:
        if self.tls_ca is None:
            return grpc.aio.insecure_channel(self.addr)
        return grpc.aio.secure_channel(self.addr, grpc.ssl_channel_credentials(Path(self.tls_ca).read_bytes()))

    async def run_match(self, spec: MatchSpec, seats: list[RemoteSeat], log_dir: Path,
                        limits: Limits | None = None, connect_timeout_s: float = 15.0,
                        own_id: bool = False, hello_names: bool = False,
                        base_dir: Path | None = None, unique_id: bool = False) -> dict[str, Any]:
        """Play ``spec`` with ``seats`` on the remote referee; returns the
        ``RunMatchResponse`` as JSON (``match_id``, ``status``, ``result``,
        ``log_path``, ``seat_names``). The seats are recorded under
        ``spec.seat_names`` (when it names every seat); ``hello_names``: as
        ``<Hello.bot_name>#<seat>`` instead, like a local ``referee match``;
        ``own_id``: the match gets ``spec.match_id`` on the referee too (so
        that its log can be fetched even if the call is cancelled); with
        ``unique_id`` too, an id the referee already has (a match played
        again, another tournament of the same name) becomes ``<id>-2``,
        ``<id>-3``, ... (the first it does not have; after
        ``<id>-51`` (:data:`MAX_ID_SUFFIX`), the referee's own id) instead of an error.
        Launched bots' output goes to ``log_dir`` (``<match id>.seat<N>.*``);
        relative paths in their commands are taken from ``base_dir`` (default:
        the current directory). Raises :class:`RemoteError` when the referee
        refuses (bad admin token, unknown bot name, bad parameters, a match id
        it already has) or cannot be reached, :class:`RefereeGone` when it
        answered before and went away (shut down, restarted) during the call."""
        tokens = {i: secrets.token_hex(16) for i, s in enumerate(seats) if s.command is not None}
        labels = list(spec.seat_names) if len(spec.seat_names) == len(seats) else []
        req = admin_pb2.RunMatchRequest(
            game=spec.game, players=spec.players, seed=spec.seed,
            seat_tokens=[tokens.get(i) or s.token or "" for i, s in enumerate(seats)],
            seat_names=[s.name or "" for s in seats], register_tokens=list(tokens.values()),
            decision_ms=spec.decision_ms, bank_ms=spec.bank_ms, fault_policy=spec.fault_policy,
            max_faults=spec.max_faults, bot_connect_ms=int(connect_timeout_s * 1000),
            match_id=spec.match_id if own_id else "", seat_labels=labels, hello_names=hello_names)
        req.variant.update(spec.variant)
        req.params.update(spec.params)
        md = [("x-admin-token", self.admin_token)]
        procs: dict[int, BotProcess] = {}
        crashes: list[dict[str, Any]] = []
        try:
            async with self._channel() as ch:
                stub = admin_pb2_grpc.AdminServiceStub(ch)
                if tokens:  # before launching: a bot may connect before RunMatch arrives
                    await stub.RegisterTokens(admin_pb2.RegisterTokensRequest(tokens=list(tokens.values())),
                                              metadata=md)
                    self.reached = True
                extra = ["--tls-ca", str(Path(self.tls_ca).resolve())] if self.tls_ca is not None else []
                for i, tok in tokens.items():
                    label = f"{spec.match_id or 'remote-' + tok[:6]}.seat{i}"
                    procs[i] = BotProcess(seats[i].command or "", label, self.addr, tok, log_dir,
                                          limits=seats[i].limits or limits,
                                          extra_args=extra, cwd_for_relative=base_dir).start()
                res = ints(json_format.MessageToDict(await self._run_match_call(stub, req, md, unique_id),
                                                     preserving_proto_field_name=True))
                crashes = await self._crashes(procs, res.get("result", {}).get("faults", []))
                deadline = time.monotonic() + self.end_grace_s  # told Goodbye: they exit by themselves
                while procs and time.monotonic() < deadline and any(p.poll() is None for p in procs.values()):
                    await asyncio.sleep(0.02)
        except grpc.RpcError as e:
            raise self._failure(e) from None
        finally:
            try:
                await asyncio.gather(*(asyncio.to_thread(p.stop) for p in procs.values()))
            except BaseException:  # cancelled (Ctrl-C): reap synchronously, then propagate
                for p in procs.values():
                    p.stop(0.2)
                raise
        if crashes:  # what only this side knows: a launched bot exited with an error (as a local match says)
            res.setdefault("result", {}).setdefault("faults", []).extend(crashes)
            res["crashes"] = crashes
        return res

    async def _run_match_call(self, stub: admin_pb2_grpc.AdminServiceStub, req: admin_pb2.RunMatchRequest,
                              md: list[tuple[str, str]], unique_id: bool) -> admin_pb2.RunMatchResponse:
        """``RunMatch``; with ``unique_id``, again under ``<id>-2``, ``<id>-3``, ...
        while the referee answers ``ALREADY_EXISTS`` (see :meth:`run_match`)."""
        base = req.match_id
        ids = [base]
        if unique_id and base:  # at last an empty id: the referee makes one, which it never has
            ids += [f"{base}-{n}" for n in range(2, MAX_ID_SUFFIX + 1)] + [""]
        for i, match_id in enumerate(ids):
            req.match_id = match_id
            try:
                res = await stub.RunMatch(req, metadata=md)
                self.reached = True
                return res
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.ALREADY_EXISTS or i == len(ids) - 1:
                    raise
                self.reached = True
        raise ValueError("no match id to try")  # never: ids is not empty

    @staticmethod
    async def _crashes(procs: dict[int, BotProcess], faults: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``crash`` faults (as dicts) of the launched bots that exited with a
        non-zero status during the match, worded as a local match's."""
        out = []
        for s, p in sorted(procs.items()):
            rc = p.poll()
            if rc is None and any(f.get("seat") == s and f.get("kind") in ("disconnect", "no_show") for f in faults):
                deadline = time.monotonic() + CRASH_GRACE_S  # its stream closed as it died
                while (rc := p.poll()) is None and time.monotonic() < deadline:
                    await asyncio.sleep(0.02)
            if rc not in (None, 0):
                out.append(asdict(FaultRecord(s, "crash", message=p.crash_message(rc))))
        return out

    async def check_seats(self, tokens: list[str], names: list[str]) -> "SeatCheck | None":
        """Whether the referee could seat bots by these ``tokens`` and by
        these ``names`` (``AdminService.CheckTokens``): the :class:`SeatCheck`,
        or ``None`` when it does not offer that call (an older referee:
        ``UNIMPLEMENTED``). Raises :class:`RemoteError` when it refuses (bad
        admin token) or cannot be reached."""
        try:
            async with self._channel() as ch:
                res = await admin_pb2_grpc.AdminServiceStub(ch).CheckTokens(
                    admin_pb2.CheckTokensRequest(tokens=tokens, names=names),
                    metadata=[("x-admin-token", self.admin_token)])
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNIMPLEMENTED:
                self.reached = True
                return None
            raise self._failure(e) from None
        self.reached = True
        return SeatCheck(sorted({i for i in res.unknown if i < len(tokens)}),
                         sorted({i for i in res.unknown_names if i < len(names)}),
                         sorted({i for i in res.ambiguous_names if i < len(names)}), res.names_checked)

    async def absent(self, tokens: list[str], names: list[str]) -> int | None:
        """How many of the bots of these ``tokens`` and ``names`` (as
        :meth:`check_seats` takes them) are not connected to the referee now
        (``AdminService.CheckTokens``' ``connected``); ``None`` when the
        referee does not say (an older one). Raises :class:`RemoteError` when
        it refuses or cannot be reached."""
        try:
            async with self._channel() as ch:
                res = await admin_pb2_grpc.AdminServiceStub(ch).CheckTokens(
                    admin_pb2.CheckTokensRequest(tokens=tokens, names=names),
                    metadata=[("x-admin-token", self.admin_token)], timeout=5.0)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNIMPLEMENTED:
                return None
            raise self._failure(e) from None
        if not res.connections_checked:
            return None
        return (len(tokens) - len({i for i in res.connected if i < len(tokens)})
                + len(names) - len({i for i in res.connected_names if i < len(names)}))

    async def fetch_log(self, match_id: str, dest: Path) -> Path:
        """Write the log of ``match_id`` (a match played on the referee,
        finished or cut short) to ``dest`` (through ``dest.part``, renamed
        once complete); returns ``dest``. Raises :class:`RemoteError` when the
        referee has no such log, does not offer ``MatchLog`` (an older
        referee) or cannot be reached; ``OSError`` when ``dest`` cannot be
        written."""
        part = dest.with_name(dest.name + ".part")
        try:
            async with self._channel() as ch:
                stub = admin_pb2_grpc.AdminServiceStub(ch)
                with part.open("wb") as f:
                    async for chunk in stub.MatchLog(admin_pb2.MatchLogRequest(match_id=match_id),
                                                     metadata=[("x-admin-token", self.admin_token)]):
                        f.write(chunk.data)
        except grpc.RpcError as e:
            part.unlink(missing_ok=True)
            raise RemoteError(f"referee at {self.addr} did not send the log of {match_id}: "
                              f"{e.code().name}: {e.details()}") from None
        part.replace(dest)
        return dest

    async def follow_log(self, match_id: str, dest: Path, every_s: float = 1.0) -> None:
        """Keep ``dest`` a copy of the log of ``match_id`` as far as it got
        while the match is played: every ``every_s`` seconds, what was added
        since (:meth:`log_since`). A referee that has no log of it yet (the
        match has not started) or does not answer is asked again at the next
        turn. Runs until cancelled; ``OSError`` when ``dest`` cannot be written."""
        have = 0
        while True:
            try:
                have = await self.log_since(match_id, dest, have)
            except grpc.RpcError:
                pass
            await asyncio.sleep(every_s)

    async def log_since(self, match_id: str, dest: Path, have: int, timeout_s: float = 10.0) -> int:
        """Bring ``dest``, whose first ``have`` bytes are the start of the log
        of ``match_id``, up to date: ``MatchLog`` from byte ``have`` on, whole
        lines written after them (a line still being written waits for the
        next call). Returns how many bytes of the log ``dest`` now holds.
        Raises ``grpc.RpcError`` (``NOT_FOUND``: no log yet; ``UNAVAILABLE``:
        the referee does not answer), ``OSError`` when ``dest`` cannot be
        written."""
        start, got = None, bytearray()
        async with self._channel() as ch:
            stub = admin_pb2_grpc.AdminServiceStub(ch)
            async for chunk in stub.MatchLog(admin_pb2.MatchLogRequest(match_id=match_id, offset=have),
                                             metadata=[("x-admin-token", self.admin_token)], timeout=timeout_s):
                if start is None:  # a referee older than offset sends the whole log, its first chunk at 0
                    start = chunk.offset
                got += chunk.data
        whole = bytes(got[:got.rfind(b"\n") + 1])
        if start is None or not whole:
            return have
        with dest.open("r+b" if dest.exists() else "wb") as f:
            f.seek(start)
            f.write(whole)
            f.truncate()
        return start + len(whole)

    async def fetch_into(self, res: dict[str, Any], dest: Path) -> tuple[str | None, str]:
        """The log of a finished :meth:`run_match` (``res``) fetched to ``dest``,
        with the launched bots' crash faults appended: ``(where the log is, why
        it is not here)``, that is ``(dest, "")``, or its path on the referee's
        machine and the reason it could not be fetched (``(None, "")``: the
        referee kept no log)."""
        log_path = res.get("log_path") or None
        if not log_path:
            return None, ""
        try:
            log = await self.fetch_log(res["match_id"], dest)
            append_crashes(log, res.get("crashes", []))
            return str(log), ""
        except RemoteError as e:
            return log_path, str(e)
        except OSError as e:
            return log_path, f"cannot write {e.filename}: {(e.strerror or str(e)).lower()}"

    async def play(self, spec: MatchSpec, seats: list[RemoteSeat], log_dir: Path,
                   limits: Limits | None = None, connect_timeout_s: float = 15.0,
                   base_dir: Path | None = None, own_id: bool = False) -> RemoteOutcome:
        """:meth:`run_match` as an outcome for the tournament runner and the
        ladder; the match log is fetched to ``log_dir/<spec.match_id>.jsonl``
        (if the referee cannot send it, ``log_path`` is its path on the
        referee's machine and ``log_fetched`` is false). ``own_id``: the
        match is played under ``spec.match_id`` on the referee too, or the
        first ``<id>-N`` it does not have (``unique_id`` of :meth:`run_match`)."""
        t0 = time.monotonic()
        res = await self.run_match(spec, seats, log_dir, limits, connect_timeout_s, base_dir=base_dir,
                                   own_id=own_id, unique_id=own_id)
        result = res.get("result", {})
        log_path, why = await self.fetch_into(res, log_dir / f"{spec.match_id or res['match_id']}.jsonl")
        return RemoteOutcome(match_id=res.get("match_id", ""), status=MatchStatus(result.get("status", "aborted")),
                             result=result, log_path=log_path,
                             decisions=int(result.get("decisions", 0)), elapsed_s=time.monotonic() - t0,
                             faults=fault_records(result), log_fetched=log_path is not None and not why)


class RefereeWait:
    """Waiting for a referee that went away, shared by every match a driver
    plays on it (``tournament run --referee`` and ``referee ladder --referee``):
    however many matches it lost, one wait (up to ``reconnect_s`` seconds; 0:
    none) for it to answer again; ``notify(line)`` says when it went away and
    when it is back; ``record((since, until))`` is awaited as a wait starts
    (unix seconds: now, and when it gives up) and ``record(None)`` as it
    ends, before ``notify``'s lines (the hosted ladder keeps it in its
    database for ``referee ladder status``). Once it did not come back,
    every later wait fails at once. Once it is back, the wait goes on (within
    the same ``reconnect_s``) until the bots of :attr:`externals` (tokens,
    names: the ones that connect on their own, and reconnect later than the
    referee starts) are connected again, so that the lost matches are not
    played again with them as no-shows; past that time they are played
    anyway."""

    def __init__(self, remote: RemoteReferee, reconnect_s: float, notify: Callable[[str], None] | None = None,
                 record: Callable[[tuple[float, float] | None], Awaitable[None]] | None = None):
        self.remote, self.reconnect_s = remote, reconnect_s
        self.notify = notify or (lambda line: None)
        self.record = record
        self._waiting = asyncio.Lock()  # one wait for the referee however many matches it lost
        self._back_at = float("-inf")  # when it last answered again after going away (monotonic)
        self._gave_up: RefereeGone | None = None
        #: the tokens and the names of the external bots the matches seat (``([], [])``: none)
        self.externals: tuple[list[str], list[str]] = ([], [])

    @property
    def waiting(self) -> bool:
        """A match is waiting for the referee to come back now."""
        return self._waiting.locked()

    async def back(self, gone: RefereeGone, failed_at: float) -> None:
        """Return once the referee answers again after ``gone`` (a failure at
        ``failed_at``, ``time.monotonic()``): at once if it answered since; else
        wait for it, at most :attr:`reconnect_s`. Raises :class:`RefereeGone`
        (``gone``, or saying it did not come back in time) when there is no
        time to wait or the time is up. Cancellable."""
        async with self._waiting:
            if self._gave_up is not None:
                raise self._gave_up
            if self._back_at > failed_at:
                return
            if self.reconnect_s <= 0:
                self._gave_up = gone
                raise gone
            if self.record is not None:
                since = time.time()
                await self.record((since, since + self.reconnect_s))
            self.notify(f"{gone}; waiting up to {self.reconnect_s:g} s for it to come back (the matches it was "
                        "playing will be played again)")
            deadline = time.monotonic() + self.reconnect_s
            is_back = await self.remote.wait_back(self.reconnect_s)
            if is_back:
                await self._bots_back(deadline)
            if self.record is not None:
                await self.record(None)
            if not is_back:
                self._gave_up = RefereeGone(f"{gone} and did not come back within {self.reconnect_s:g} s")
                raise self._gave_up
            self._back_at = time.monotonic()
            self.notify(f"the referee at {self.remote.addr} is back; playing on")

    async def _bots_back(self, deadline: float, every_s: float = 0.5) -> None:
        """Wait until every bot of :attr:`externals` is connected to the
        referee again, or until ``deadline`` (``time.monotonic()``), or the
        referee cannot say (an older one) or does not answer."""
        tokens, names = self.externals
        said = False
        while tokens or names:
            try:
                absent = await self.remote.absent(tokens, names)
            except RemoteError:  # gone again: the next match finds out and waits again
                return
            if not absent:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                self.notify(f"{absent} external {plural(absent, 'bot')} not connected again in time")
                return
            if not said:
                said = True
                self.notify(f"the referee at {self.remote.addr} is back; waiting up to {left:.0f} s for {absent} "
                            f"external {plural(absent, 'bot')} to connect again")
            await asyncio.sleep(min(every_s, left))


def fault_records(result: dict[str, Any]) -> list[FaultRecord]:
    """The faults of a ``RunMatchResponse.result`` (as JSON) as :class:`FaultRecord` s (unknown keys dropped)."""
    known = set(FaultRecord.__dataclass_fields__)
    return [FaultRecord(**{k: v for k, v in f.items() if k in known}) for f in result.get("faults", [])]


def append_crashes(log: Path, crashes: list[dict[str, Any]]) -> None:
    """Add the launched bots' crash faults to a fetched log, as a local match's log has them."""
    if crashes:
        with log.open("a", encoding="utf-8") as f:
            for c in crashes:
                f.write(json.dumps({"type": "fault", **c}, sort_keys=True, separators=(",", ":")) + "\n")


def new_match_id(game: str) -> str:
    """A match id for a remote match chosen by the caller, in the form the
    referee gives its own: ``<game>-<UTC date>-<time>-<6 hex>-1``."""
    return f"{game}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(3)}-1"


async def play_and_fetch(referee: RemoteReferee, spec: MatchSpec, seats: list[RemoteSeat], log_dir: Path
                         ) -> tuple[dict[str, Any], MatchOutcome, str]:
    """One match of ``referee match --referee``: played under ``spec.match_id``
    (set it first, :func:`new_match_id`) with the seats named like a local
    match's (``<Hello.bot_name>#<seat>``), its log fetched to
    ``log_dir/<match id>.jsonl``. Returns the ``RunMatchResponse`` as JSON,
    the match as a :class:`~referee.runner.MatchOutcome` and, if the log
    could not be fetched, why (then the outcome's ``log_path`` is the log's
    path on the referee's machine). While the match is played its log is
    followed (:meth:`RemoteReferee.follow_log`) into ``<match id>.jsonl.arriving``
    beside, so that a match cut short (the referee shut down:
    :class:`RefereeGone`; Ctrl-C) leaves what had arrived of it in
    ``log_dir/<match id>.jsonl`` (unless that file exists: the referee's own
    log, when it writes to the same directory). Raises :class:`RemoteError`
    as :meth:`RemoteReferee.run_match`; cancelled (Ctrl-C), the call is
    cancelled and the referee stops the match."""
    t0 = time.monotonic()
    dest = log_dir / f"{spec.match_id}.jsonl"
    arriving = dest.with_name(dest.name + ".arriving")
    follow = asyncio.create_task(referee.follow_log(spec.match_id, arriving))
    try:
        res = await referee.run_match(spec, seats, log_dir, own_id=True, hello_names=True)
    except BaseException:  # cut short: what arrived of it, under the log's name
        await _stop_following(follow)
        try:
            if arriving.exists() and not dest.exists():
                arriving.replace(dest)
        except OSError:
            pass
        raise
    finally:
        await _stop_following(follow)  # (done already when cut short)
        arriving.unlink(missing_ok=True)
    elapsed = time.monotonic() - t0
    log_path, why = await referee.fetch_into(res, log_dir / f"{res['match_id']}.jsonl")
    return res, outcome_of(spec, res, log_path, elapsed), why


async def _stop_following(follow: asyncio.Task) -> None:
    """Cancel :meth:`RemoteReferee.follow_log` and wait for it to end (its ``OSError`` is dropped)."""
    follow.cancel()
    await asyncio.gather(follow, return_exceptions=True)


def seat_names_in_log(log_path: Path) -> list[str] | None:
    """The seat names a match log's header records (None: no readable header)."""
    try:
        with log_path.open(encoding="utf-8") as f:
            names = json.loads(f.readline())["spec"]["seat_names"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return [str(n) for n in names] if isinstance(names, list) else None


def outcome_of(spec: MatchSpec, res: dict[str, Any], log_path: str | None, elapsed_s: float) -> MatchOutcome:
    """A ``RunMatchResponse`` (as :meth:`RemoteReferee.run_match` returns it) as
    the :class:`~referee.runner.MatchOutcome` a local match gives, for
    :func:`referee.summary.print_summary`: ``spec`` gets the referee's match
    id and seat names; ``log_path`` is where the log is (here, once fetched)."""
    r = res.get("result", {})
    spec.match_id = res.get("match_id") or spec.match_id
    if len(res.get("seat_names") or []) == spec.players:
        spec.seat_names = list(res["seat_names"])
    scores, ranks = r.get("scores"), r.get("ranks")
    result = MatchResult(scores=scores, ranks=ranks, outcomes=[], summary=r.get("summary") or {}) \
        if scores is not None and ranks is not None else None
    return MatchOutcome(spec=spec, status=MatchStatus(r.get("status", "aborted")), result=result,
                        faults=fault_records(r),
                        forfeited=list(r.get("forfeited") or []), decisions=int(r.get("decisions", 0)),
                        log_path=log_path, elapsed_s=elapsed_s, reason=str(r.get("reason", "")),
                        harness=dict(r.get("harness") or {}))
