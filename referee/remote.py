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
get a Goodbye.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format

from cardgames.v1 import admin_pb2, admin_pb2_grpc
from referee.bots import BotProcess, Limits
from referee.outcomes import MatchStatus
from referee.runner import FaultRecord, MatchSpec


class RemoteError(RuntimeError):
    """The remote referee refused or failed a call; the message says which and why."""


@dataclass
class RemoteSeat:
    """Who sits in a seat of a remote match: exactly one of ``name``, ``token``, ``command``."""

    name: str | None = None
    token: str | None = None
    command: str | None = None


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

    def _channel(self) -> grpc.aio.Channel:
        if self.tls_ca is None:
            return grpc.aio.insecure_channel(self.addr)
        return grpc.aio.secure_channel(self.addr, grpc.ssl_channel_credentials(Path(self.tls_ca).read_bytes()))

    async def run_match(self, spec: MatchSpec, seats: list[RemoteSeat], log_dir: Path,
                        limits: Limits | None = None, connect_timeout_s: float = 15.0) -> dict[str, Any]:
        """Play ``spec`` with ``seats`` on the remote referee; returns the
        ``RunMatchResponse`` as JSON (``match_id``, ``status``, ``result``,
        ``log_path``). Launched bots' output goes to ``log_dir``. Raises
        :class:`RemoteError` when the referee refuses (bad admin token, unknown
        bot name, bad parameters) or cannot be reached."""
        tokens = {i: secrets.token_hex(16) for i, s in enumerate(seats) if s.command is not None}
        req = admin_pb2.RunMatchRequest(
            game=spec.game, players=spec.players, seed=spec.seed,
            seat_tokens=[tokens.get(i) or s.token or "" for i, s in enumerate(seats)],
            seat_names=[s.name or "" for s in seats], register_tokens=list(tokens.values()),
            decision_ms=spec.decision_ms, bank_ms=spec.bank_ms, fault_policy=spec.fault_policy,
            max_faults=spec.max_faults, bot_connect_ms=int(connect_timeout_s * 1000))
        req.variant.update(spec.variant)
        req.params.update(spec.params)
        md = [("x-admin-token", self.admin_token)]
        procs: list[BotProcess] = []
        try:
            async with self._channel() as ch:
                stub = admin_pb2_grpc.AdminServiceStub(ch)
                if tokens:  # before launching: a bot may connect before RunMatch arrives
                    await stub.RegisterTokens(admin_pb2.RegisterTokensRequest(tokens=list(tokens.values())),
                                              metadata=md)
                extra = ["--tls-ca", str(Path(self.tls_ca).resolve())] if self.tls_ca is not None else []
                for i, tok in tokens.items():
                    procs.append(BotProcess(seats[i].command or "", f"remote-{tok[:6]}.seat{i}", self.addr, tok,
                                            log_dir, limits=limits, extra_args=extra).start())
                res = await stub.RunMatch(req, metadata=md)
                deadline = time.monotonic() + self.end_grace_s  # told Goodbye: they exit by themselves
                while procs and time.monotonic() < deadline and any(p.poll() is None for p in procs):
                    await asyncio.sleep(0.02)
        except grpc.RpcError as e:
            raise RemoteError(f"referee at {self.addr} refused: {e.code().name}: {e.details()}") from None
        finally:
            try:
                await asyncio.gather(*(asyncio.to_thread(p.stop) for p in procs))
            except BaseException:  # cancelled (Ctrl-C): reap synchronously, then propagate
                for p in procs:
                    p.stop(0.2)
                raise
        return ints(json_format.MessageToDict(res, preserving_proto_field_name=True))

    async def play(self, spec: MatchSpec, seats: list[RemoteSeat], log_dir: Path,
                   limits: Limits | None = None, connect_timeout_s: float = 15.0) -> RemoteOutcome:
        """:meth:`run_match` as an outcome for the tournament runner."""
        t0 = time.monotonic()
        res = await self.run_match(spec, seats, log_dir, limits, connect_timeout_s)
        result = res.get("result", {})
        known = set(FaultRecord.__dataclass_fields__)
        faults = [FaultRecord(**{k: v for k, v in f.items() if k in known}) for f in result.get("faults", [])]
        return RemoteOutcome(match_id=res.get("match_id", ""), status=MatchStatus(result.get("status", "aborted")),
                             result=result, log_path=res.get("log_path") or None,
                             decisions=int(result.get("decisions", 0)), elapsed_s=time.monotonic() - t0,
                             faults=faults)
