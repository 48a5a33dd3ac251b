"""``AdminService.CheckTokens``: which tokens a running referee does not
accept, asked by ``referee tournament run --referee`` before its first match
(the end-to-end runs against ``referee serve`` are in test_remote_seating.py).

Real gRPC on 127.0.0.1 port 0: an in-process :class:`Referee`, and for an
older referee without the call, a gRPC server whose AdminService implements
nothing (every call ``UNIMPLEMENTED``).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from concurrent import futures
from pathlib import Path

import grpc
import pytest

from cardgames.v1 import admin_pb2, admin_pb2_grpc
from conftest import ROOT, aio_bot, run, with_referee
from referee.remote import RemoteError, RemoteReferee
from referee.service import Referee, token_digest
from tournaments import spec as tspec
from tournaments.executor import check_external_tokens


async def _check(port: int, tokens: list[str], admin: str | None) -> tuple[list[int] | None, grpc.StatusCode, str]:
    """CheckTokens over gRPC: (unknown indices or None, status code, details)."""
    md = [("x-admin-token", admin)] if admin is not None else []
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
        try:
            res = await admin_pb2_grpc.AdminServiceStub(ch).CheckTokens(
                admin_pb2.CheckTokensRequest(tokens=tokens), metadata=md, timeout=30)
        except grpc.aio.AioRpcError as e:
            return None, e.code(), e.details() or ""
    return list(res.unknown), grpc.StatusCode.OK, ""


def test_check_tokens_lists_the_tokens_the_referee_does_not_accept(tmp_logs: Path) -> None:
    """Registered, listed in the token file and registered by SHA-256 are accepted; a guess and a
    token taken out of the token file (even while its bot is still connected) are not. Asking
    changes nothing: a token found by its digest is not registered by the question."""
    async def body(ref: Referee):
        ref.register_token("registered", "alice")
        ref.set_tokens([("bob", "listed"), ("carol", "dropped")])
        ref.register_token_hash(token_digest("hashed"), "dave")
        carol = asyncio.create_task(aio_bot(ref.port, "dropped", name="carol"))
        deadline = time.monotonic() + 30
        while not ref.tokens["dropped"].conns and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert ref.tokens["dropped"].conns, "carol did not connect"
        ref.set_tokens([("bob", "listed")])  # carol's token taken out of the file: her connection lives on
        assert ref.tokens["dropped"].revoked
        asked = await _check(ref.port, ["listed", "guess", "registered", "dropped", "hashed", "guess"], "adm")
        none = await _check(ref.port, [], "adm")
        found_by_digest = "hashed" in ref.tokens
        carol.cancel()  # a bot that connected on its own stays until it leaves
        await asyncio.gather(carol, return_exceptions=True)
        return asked, none, found_by_digest

    asked, none, found_by_digest = run(with_referee(tmp_logs, body, admin_token="adm"))
    assert asked == ([1, 3, 5], grpc.StatusCode.OK, "")
    assert none == ([], grpc.StatusCode.OK, "")
    assert not found_by_digest


async def _check_names(port: int, names: list[str]) -> admin_pb2.CheckTokensResponse:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
        return await admin_pb2_grpc.AdminServiceStub(ch).CheckTokens(
            admin_pb2.CheckTokensRequest(names=names), metadata=[("x-admin-token", "adm")], timeout=30)


def test_check_tokens_lists_the_names_a_seat_could_not_be_given_by(tmp_logs: Path) -> None:
    """A name seats a bot when exactly one registered token (not taken out of the token file) has it,
    the rule of RunMatchRequest.seat_names: none is unknown, two are ambiguous; an empty name seats
    nobody. A name taken out of the file with no connection left: unknown."""
    async def body(ref: Referee):
        ref.register_token("registered", "alice")
        ref.set_tokens([("bob", "listed"), ("twin", "twin-1"), ("twin", "twin-2"), ("carol", "dropped")])
        ref.set_tokens([("bob", "listed"), ("twin", "twin-1"), ("twin", "twin-2")])
        res = await _check_names(ref.port, ["alice", "bob", "twin", "nobody", "carol", "", "bob"])
        return list(res.unknown), list(res.unknown_names), list(res.ambiguous_names), res.names_checked

    assert run(with_referee(tmp_logs, body, admin_token="adm")) == ([], [3, 4, 5], [2], True)


def test_check_tokens_says_which_bots_are_connected_now(tmp_logs: Path) -> None:
    """``connected`` / ``connected_names``: the tokens and names whose bot has a live connection;
    :meth:`RemoteReferee.absent` counts the others (what a driver waits on after a referee restart)."""
    async def body(ref: Referee):
        ref.set_tokens([("alice", "a-tok"), ("bob", "b-tok")])
        alice = asyncio.create_task(aio_bot(ref.port, "a-tok", name="alice"))
        deadline = time.monotonic() + 30
        while not ref.tokens["a-tok"].conns and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{ref.port}") as ch:
            res = await admin_pb2_grpc.AdminServiceStub(ch).CheckTokens(
                admin_pb2.CheckTokensRequest(tokens=["b-tok", "a-tok", "guess"], names=["bob", "alice", "x"]),
                metadata=[("x-admin-token", "adm")], timeout=30)
        remote = RemoteReferee(f"127.0.0.1:{ref.port}", "adm")
        absent = (await remote.absent(["a-tok", "b-tok"], ["alice"]), await remote.absent(["a-tok"], ["alice"]))
        alice.cancel()
        await asyncio.gather(alice, return_exceptions=True)
        return list(res.connected), list(res.connected_names), res.connections_checked, absent

    assert run(with_referee(tmp_logs, body, admin_token="adm")) == ([1], [1], True, (1, 0))


def test_check_tokens_reveals_nothing_without_the_admin_token(tmp_logs: Path) -> None:
    async def body(ref: Referee):
        ref.register_token("known", "alice")
        out = [await _check(ref.port, ["known", "guess"], admin) for admin in (None, "wrong", "")]
        return out, ref.oplog.events("admin_refused")

    answers, refused = run(with_referee(tmp_logs, body, admin_token="adm"))
    assert answers == [(None, grpc.StatusCode.PERMISSION_DENIED, "bad or missing x-admin-token")] * 3
    assert [r["method"] for r in refused] == ["CheckTokens"] * 3
    assert not any("known" in str(r) or "guess" in str(r) for r in refused)  # tokens are never logged

    async def no_admin(ref: Referee):  # a referee without an admin token refuses every admin call
        return await _check(ref.port, ["known"], "")

    assert run(with_referee(tmp_logs, no_admin))[1] == grpc.StatusCode.PERMISSION_DENIED


@pytest.fixture()
def older_referee():
    """Address of a gRPC server whose AdminService implements no call (every one UNIMPLEMENTED)."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    admin_pb2_grpc.add_AdminServiceServicer_to_server(admin_pb2_grpc.AdminServiceServicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)


def _tournament(tmp_path: Path, by_name: int = 0) -> Path:
    """Three external bots; the first ``by_name`` of them without a token (seated by name)."""
    f = tmp_path / "t.toml"
    f.write_text(f'name = "t"\ngame = "doudizhu"\nplayers = 3\nconcurrency = 1\n'
                 f'database = "{tmp_path / "t.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n\n'
                 + "".join(f'[[bots]]\nname = "b{i}"\nexternal = true\n'
                           + ("" if i < by_name else f'token = "tok{i}"\n') + "\n" for i in range(3)))
    return f


class _TokensOnly(admin_pb2_grpc.AdminServiceServicer):
    """A referee from before CheckTokensRequest.names: every token known, names ignored."""

    def CheckTokens(self, request, context):
        return admin_pb2.CheckTokensResponse()


def test_a_referee_that_ignores_names_leaves_bots_seated_by_name_unchecked(tmp_path: Path) -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    admin_pb2_grpc.add_AdminServiceServicer_to_server(_TokensOnly(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        remote = RemoteReferee(f"127.0.0.1:{port}", "adm")
        assert run(check_external_tokens(remote, tspec.load(_tournament(tmp_path), remote=True))) is True
        assert run(check_external_tokens(remote, tspec.load(_tournament(tmp_path, by_name=1), remote=True))) is False
    finally:
        server.stop(None)


def test_an_older_referee_without_check_tokens_is_not_checked(older_referee: str, tmp_path: Path) -> None:
    spec = tspec.load(_tournament(tmp_path), remote=True)
    remote = RemoteReferee(older_referee, "adm")
    assert run(remote.check_seats(["tok0"], [])) is None
    assert run(check_external_tokens(remote, spec)) is False
    # the run goes on with a one-line note (this server then refuses the first match itself)
    r = subprocess.run([sys.executable, "-m", "referee.cli", "tournament", "run", str(tmp_path / "t.toml"),
                        "--referee", older_referee, "--quiet"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, env={**os.environ, "REFEREE_ADMIN_TOKEN": "adm"})
    note = [ln for ln in r.stderr.splitlines() if "cannot check tokens" in ln]
    assert note == [f"note: the referee at {older_referee} cannot check tokens (no AdminService.CheckTokens: an "
                    "older version); an unknown token stops the run at its bot's first match"], r.stderr
    assert r.returncode == 2 and "UNIMPLEMENTED" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_tournament_without_external_bots_asks_nothing(tmp_path: Path) -> None:
    """No external bot: nothing to check, so no referee is asked (none answers at this address)."""
    f, bot = tmp_path / "t.toml", ROOT / "sample_bots" / "random_bot.py"
    f.write_text('name = "t"\ngame = "doudizhu"\nplayers = 3\n\n'
                 + "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {bot}"\n\n'
                           for i in range(3)))
    spec = tspec.load(f, remote=True)
    assert run(check_external_tokens(RemoteReferee("127.0.0.1:1", "adm"), spec)) is True


def test_an_unreachable_referee_is_said_so_before_the_first_match(tmp_path: Path) -> None:
    spec = tspec.load(_tournament(tmp_path), remote=True)
    with pytest.raises(RemoteError, match="no referee answers at 127.0.0.1:1"):
        run(check_external_tokens(RemoteReferee("127.0.0.1:1", "adm"), spec))
