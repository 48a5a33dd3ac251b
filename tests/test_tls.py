"""TLS: a referee serving with a certificate (``Referee.start(tls=...)``,
``referee serve --tls-cert --tls-key``) plays a whole match with bots that
trust the CA (``--tls-ca``); clients without TLS, without the CA, or
expecting another name cannot connect.

The self-signed certificate for ``localhost`` / ``127.0.0.1`` is made at test
time with the ``openssl`` command line (the ``cryptography`` package is not a
dependency)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from cardgames.v1 import referee_pb2 as pb, referee_pb2_grpc
from conftest import ROOT, aio_bot, run
from referee.bots import BotProcess
from referee.runner import MatchSpec
from referee.service import Referee

OPENSSL = shutil.which("openssl")


@pytest.fixture(scope="module")
def cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    assert OPENSSL, "the TLS tests need the openssl command (or add the cryptography package)"
    d = tmp_path_factory.mktemp("tls")
    key, crt = d / "key.pem", d / "cert.pem"
    subprocess.run([OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(crt),
                    "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return crt, key


def creds(crt: Path) -> grpc.ChannelCredentials:
    return grpc.ssl_channel_credentials(crt.read_bytes())


async def tls_bot(port: int, token: str, crt: Path | None, name: str = "tls",
                  target_name: str = "localhost") -> tuple[list[pb.RefereeMessage], Any]:
    """An in-process bot over TLS to 127.0.0.1 (the certificate's name is
    checked against ``target_name``); ``crt=None``: TLS trusting only the
    system roots. Plays the first legal action."""
    options = [("grpc.ssl_target_name_override", target_name)]
    c = creds(crt) if crt is not None else grpc.ssl_channel_credentials()
    ch = grpc.aio.secure_channel(f"127.0.0.1:{port}", c, options=options)
    call = referee_pb2_grpc.RefereeServiceStub(ch).Connect(timeout=30)
    got: list[pb.RefereeMessage] = []
    try:
        await call.write(pb.BotMessage(hello=pb.Hello(bot_name=name, token=token, protocol_version=1)))
        while (msg := await call.read()) is not grpc.aio.EOF:
            got.append(msg)
            if msg.WhichOneof("msg") == "goodbye":
                break
            if msg.WhichOneof("msg") == "decision_request":
                req = msg.decision_request
                await call.write(pb.BotMessage(action_reply=pb.ActionReply(
                    match_id=req.match_id, request_id=req.request_id, action=req.legal_actions[0])))
        return got, None
    except grpc.aio.AioRpcError as e:
        return got, e.code()
    finally:
        await ch.close()


async def with_tls_referee(tmp: Path, crt: Path, key: Path, body) -> Any:
    ref = Referee(tmp)
    await ref.start("127.0.0.1", 0, tls=(crt.read_bytes(), key.read_bytes()))
    try:
        return await body(ref)
    finally:
        await ref.stop(0.2)


def test_a_match_over_tls_with_sample_bot_processes_and_an_aio_bot(tmp_logs: Path, cert) -> None:
    crt, key = cert

    async def body(ref: Referee):
        toks = [ref.new_token(f"b{i}") for i in range(3)]
        procs = [BotProcess(f"python sample_bots/random_bot.py --seed {i}", f"tls{i}", f"localhost:{ref.port}",
                            toks[i], tmp_logs, extra_args=["--tls-ca", str(crt)], cwd_for_relative=ROOT).start()
                 for i in (0, 1)]
        try:
            inproc = asyncio.create_task(tls_bot(ref.port, toks[2], crt))
            spec = MatchSpec(game="doudizhu", players=3, seed=3, seat_names=[], params={"rounds": 1},
                             match_id="tls")
            out = await ref.play(spec, toks, connect_timeout_s=30)
            msgs, code = await inproc
            await asyncio.gather(*(asyncio.to_thread(p.proc.wait, 10) for p in procs))
            return out, msgs, code, [p.poll() for p in procs], [p.tail_stderr() for p in procs]
        finally:
            for p in procs:
                p.stop()

    out, msgs, code, rcs, errs = run(with_tls_referee(tmp_logs, crt, key, body))
    assert out.status == "complete" and not out.faults, (out.faults, errs)
    assert code is None and [m.WhichOneof("msg") for m in msgs][:2] == ["welcome", "match_started"]
    assert any(m.WhichOneof("msg") == "match_ended" for m in msgs)
    assert rcs == [0, 0], errs  # the sample bots finished cleanly over TLS


def test_clients_that_cannot_do_this_tls_are_refused(tmp_logs: Path, cert) -> None:
    crt, key = cert

    async def body(ref: Referee):
        tok = ref.new_token("x")
        plain = await aio_bot(ref.port, tok)  # no TLS at all
        untrusted = await tls_bot(ref.port, tok, None)  # TLS, but the self-signed CA is not trusted
        wrong_name = await tls_bot(ref.port, tok, crt, target_name="referee.example")
        good = asyncio.create_task(tls_bot(ref.port, tok, crt))
        conn = await ref.acquire(tok, 30)
        connected = conn is not None
        await ref.stop(0.2)
        await good
        return plain, untrusted, wrong_name, connected, [*ref.tokens[tok].closed, *ref.tokens[tok].conns]

    plain, untrusted, wrong_name, connected, conns = run(with_tls_referee(tmp_logs, crt, key, body))
    for msgs, code in (plain, untrusted, wrong_name):
        assert msgs == [] and code == grpc.StatusCode.UNAVAILABLE
    assert connected and len(conns) == 1  # only the client that trusts the CA and checks the name got in


def test_referee_serve_with_tls_cert_and_key(tmp_path: Path, cert) -> None:
    """The CLI: ``referee serve --tls-cert --tls-key`` announces TLS and
    welcomes a bot that trusts the certificate; Ctrl-C (SIGINT) stops it."""
    crt, key = cert
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "--port", "0", "--tls-cert", str(crt),
                             "--tls-key", str(key), "--log-dir", str(tmp_path)],
                            env={**os.environ, "REFEREE_TOKENS": "cli=abc123"},  # secrets never in argv
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"listening on 127\.0\.0\.1:(\d+) \(TLS\)", line)
        assert m, line + proc.stderr.read() if proc.poll() is not None else line
        port = int(m.group(1))

        async def hello() -> tuple:
            ch = grpc.aio.secure_channel(f"127.0.0.1:{port}", creds(crt),
                                         options=[("grpc.ssl_target_name_override", "localhost")])
            call = referee_pb2_grpc.RefereeServiceStub(ch).Connect(timeout=30)
            await call.write(pb.BotMessage(hello=pb.Hello(bot_name="cli", token="abc123", protocol_version=1)))
            first = await call.read()
            call.cancel()
            await ch.close()
            _, plain_code = await aio_bot(port, "abc123")
            return first, plain_code

        first, plain_code = run(hello())
        assert first.WhichOneof("msg") == "welcome" and first.welcome.protocol_version == 1
        assert plain_code == grpc.StatusCode.UNAVAILABLE
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
