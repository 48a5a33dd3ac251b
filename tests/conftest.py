"""Shared test helpers: paths, an in-process asyncio bot, a referee fixture."""

from __future__ import annotations

import asyncio
import os
import subprocess
import signal
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator

import grpc
import pytest

from cardgames.v1 import referee_pb2 as pb, referee_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
# The authoritative rules live beside the repository in ../shared/rules; docs/rules is the repository's copy
# (tests/test_rules_copy.py keeps it identical), used when ../shared is absent (a clone on its own).
SHARED_RULES = ROOT.parent / "shared" / "rules"
VECTORS = Path(os.environ.get("REFEREE_VECTORS", (SHARED_RULES if SHARED_RULES.is_dir() else ROOT / "docs" / "rules") / "vectors"))
PY = sys.executable


def run(coro: Awaitable[Any]) -> Any:
    """Run a coroutine to completion in a fresh event loop."""
    return asyncio.run(coro)


Policy = Callable[[pb.DecisionRequest], "pb.Action | list[pb.BotMessage] | None"]


async def aio_bot(port: int, token: str, policy: Policy | None = None, name: str = "t", version: int = 1,
                  first: pb.BotMessage | None = None, max_messages: int = 200_000, bundle_events: bool = False) -> tuple[list[pb.RefereeMessage], Any]:
    """An in-process bot over real loopback gRPC. ``policy`` returns an Action
    (sent as the reply), a list of raw BotMessages (sent as is) or None (no
    answer), or a coroutine giving one of those. It shares the referee's event
loop, so a slow policy must ``await asyncio.sleep``, never ``time.sleep``.
Returns ``(messages received, final status code or None)``."""
    import random

    rng = random.Random(0)
    policy = policy or (lambda req: rng.choice(list(req.legal_actions)))
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.max_receive_message_length", 64 << 20)])
    stub = referee_pb2_grpc.RefereeServiceStub(channel)
    call = stub.Connect()
    got: list[pb.RefereeMessage] = []
    code = None
    try:
        await call.write(first or pb.BotMessage(hello=pb.Hello(bot_name=name, token=token, protocol_version=version,
                                                                bundle_events=bundle_events)))
        for _ in range(max_messages):
            msg = await call.read()
            if msg is grpc.aio.EOF:
                break
            got.append(msg)
            which = msg.WhichOneof("msg")
            if which == "goodbye":
                break
            if which == "decision_request":
                out = policy(msg.decision_request)
                if asyncio.iscoroutine(out):  # async policies may await (e.g. sleep) without blocking the referee
                    out = await out
                if isinstance(out, list):
                    for m in out:
                        await call.write(m)
                elif out is not None:
                    req = msg.decision_request
                    await call.write(pb.BotMessage(action_reply=pb.ActionReply(
                        match_id=req.match_id, request_id=req.request_id, action=out)))
        await call.done_writing()
    except grpc.aio.AioRpcError as e:
        code = e.code()
    finally:
        await channel.close()
    return got, code


async def with_referee(tmp: Path, body: Callable[[Any], Awaitable[Any]], **kw: Any) -> Any:
    """Run ``body(referee)`` against a fresh in-process Referee on 127.0.0.1:0
    (``kw`` go to ``Referee``); the referee is always stopped."""
    from referee.service import Referee

    ref = Referee(tmp, **kw)
    await ref.start("127.0.0.1", 0)
    try:
        return await body(ref)
    finally:
        await ref.stop(0.2)


@pytest.fixture
def tmp_logs(tmp_path: Path) -> Path:
    d = tmp_path / "logs"
    d.mkdir()
    return d


def shared_dir(prefix: str = "referee-test-") -> Path:
    """A new temporary directory every uid can enter and read (mode 0755, in the
    system's temp dir): bots launched under their own uid cannot reach pytest's
    ``tmp_path`` (under a 0700 directory), and a root referee refuses bots its
    bot uids cannot run. The caller removes it."""
    d = Path(tempfile.mkdtemp(prefix=prefix))
    d.chmod(0o755)
    return d


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """:func:`shared_dir` for one test, removed afterwards."""
    d = shared_dir()
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def stop_server(p: subprocess.Popen, group: bool = False) -> None:
    """Stop a server process started by a test (``referee serve``, ``referee web``):
    SIGINT (to its process group when ``group``), then SIGKILL to the group after 20 s."""
    if p.poll() is None:
        if group:
            os.killpg(p.pid, signal.SIGINT)
        else:
            os.kill(p.pid, signal.SIGINT)
    try:
        p.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(5)


def stop_process(p: subprocess.Popen) -> None:
    """Stop a process started by a test: SIGTERM, then SIGKILL after 10 s."""
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)


def interrupt_when(p: subprocess.Popen, ready: Callable[[], Any], timeout_s: float = 90) -> tuple[str, str]:
    """Send Ctrl-C (SIGINT) to ``p`` once ``ready()`` holds (or after ``timeout_s``);
    its (stdout, stderr). The process group is killed if it has not ended 60 s later."""
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not ready():
            time.sleep(0.1)
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    return out, err
