"""Hosting safety (issue #15): no bot can stall a match, take another seat,
or act unseen by the operator. Real gRPC on loopback (port 0), real bot
processes: a raw HTTP/2 client that never grants flow-control window
(``tests/h2_bot.py``), sample bots, ``referee serve`` and ``referee match``
as subprocesses. One test (at least) per "must hold" item of the issue."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

import grpc
import pytest

from cardgames.v1 import admin_pb2, admin_pb2_grpc, referee_pb2 as pb
from conftest import PY, ROOT, aio_bot, run, stop_server, with_referee
from referee.play import play_launched
from referee.runner import MatchOutcome, MatchRunner, MatchSpec, MatchStatus
from referee.service import BotConnection, Referee
from test_tls import cert  # noqa: F401  (fixture: a self-signed certificate for 127.0.0.1)

H2_BOT = str(ROOT / "tests" / "h2_bot.py")
END_BOT = str(ROOT / "tests" / "end_bot.py")
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot.py")
#: faults of a seat whose bot left and did not come back: absent while away, then forfeit
AWAY = ["absent"] * 4 + ["forfeit"]


def spec(match_id: str, seed: int = 5, **kw: Any) -> MatchSpec:
    kw.setdefault("params", {"rounds": 1})
    return MatchSpec(game="doudizhu", players=3, seed=seed, seat_names=[], match_id=match_id, **kw)


def seat_faults(out: MatchOutcome, seat: int) -> list[str]:
    return [f.kind for f in out.faults if f.seat == seat]


def log_lines(out: MatchOutcome) -> list[dict]:
    return [json.loads(x) for x in Path(out.log_path).read_text().splitlines()]


async def clean_match(ref: Referee, match_id: str) -> MatchOutcome:
    toks = [ref.new_token(f"{match_id}{i}") for i in range(3)]
    bots = [asyncio.create_task(aio_bot(ref.port, t, name=f"{match_id}{i}")) for i, t in enumerate(toks)]
    out = await ref.play(spec(match_id, 77, decision_ms=5000), toks, connect_timeout_s=10)
    await asyncio.gather(*bots)
    return out


def h2_bot(port: int, *args: str, token: str = "") -> subprocess.Popen:
    return subprocess.Popen([PY, H2_BOT, "--referee", f"127.0.0.1:{port}", *args],
                            env={**os.environ, "REFEREE_TOKEN": token}, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)


def stop(p: subprocess.Popen) -> str:
    if p.poll() is None:
        p.kill()
    out, _ = p.communicate(timeout=10)
    return out or ""


# --------------------------------------------------------------------------- item 1: not reading
def test_a_bot_that_stops_reading_is_a_not_reading_fault_and_stalls_nothing(tmp_logs: Path) -> None:
    """Seat 0 is a raw HTTP/2 client that says Hello, answers pings and never
    grants window: its request cannot be written, which is a ``not_reading``
    fault within the decision time plus the grace; the match (and one beside
    it) finishes, and the connection is gone from the referee's tables."""
    async def body(ref: Referee):
        toks = [ref.new_token(f"s{i}") for i in range(3)]
        mute = h2_bot(ref.port, "--window", "256", token=toks[0])
        try:
            others = [asyncio.create_task(aio_bot(ref.port, t, name=f"b{i}")) for i, t in enumerate(toks[1:])]
            out, clean = await asyncio.gather(ref.play(spec("stall", decision_ms=1000), toks, connect_timeout_s=15),
                                              clean_match(ref, "clean"))
            await asyncio.gather(*others)
            live = ref.tokens[toks[0]].conns + [c for c in ref.connections if c.token == toks[0]]
            return out, clean, list(ref.oplog.recent), live
        finally:
            seen = await asyncio.to_thread(stop, mute)
            assert "message welcome" in seen  # it was authenticated, then stalled

    out, clean, oplog, live = run(with_referee(tmp_logs, body))
    assert out.status == "complete"
    assert seat_faults(out, 0) == ["not_reading"] + AWAY
    nr = out.faults[0]
    assert nr.request_id > 0 and "does not read" in nr.message
    assert not [f for f in out.faults if f.seat != 0]
    assert clean.status == "complete" and not clean.faults
    assert not live  # released from the token's list and the live set
    closed = [r for r in oplog if r["event"] == "closed" and r["name"] == "h2-nonreader"]
    assert closed and closed[0]["reason"] == "not_reading"


def test_a_forfeited_bot_that_stops_reading_does_not_hold_run_match(tmp_logs: Path) -> None:
    """AdminService.RunMatch over gRPC: the non-reading seat's MatchEnded and
    Goodbye cannot be written; RunMatch still returns (the end writes are bounded)."""
    async def body(ref: Referee):
        toks = [ref.new_token(f"s{i}") for i in range(3)]
        # a window that takes the opening messages and a request or two, then fills up
        mute = h2_bot(ref.port, "--window", "3000", token=toks[0])
        try:
            others = [asyncio.create_task(aio_bot(ref.port, t, name=f"b{i}")) for i, t in enumerate(toks[1:])]
            async with grpc.aio.insecure_channel(f"127.0.0.1:{ref.port}") as ch:
                res = await admin_pb2_grpc.AdminServiceStub(ch).RunMatch(admin_pb2.RunMatchRequest(
                    game="doudizhu", players=3, seed=3, seat_tokens=toks, decision_ms=1000, max_faults=2,
                    bot_connect_ms=15_000), metadata=[("x-admin-token", "adm")], timeout=120)
            for t in others:  # bots that connected on their own stay for a next match: RunMatch says
                t.cancel()    # Goodbye only to bots it launched, so these end when the test ends them
            await asyncio.gather(*others, return_exceptions=True)
            return res
        finally:
            await asyncio.to_thread(stop, mute)

    res = run(with_referee(tmp_logs, body, admin_token="adm"))
    assert res.status == "complete"
    kinds = [f["kind"] for f in res.result["faults"] if f["seat"] == 0]
    assert kinds[-1] == "forfeit" and set(kinds) <= {"timeout", "not_reading", "absent", "forfeit"}
    assert all(f["seat"] == 0 for f in res.result["faults"])


@pytest.mark.slow
def test_a_tournament_never_waits_on_a_launched_bot_that_does_not_read(tmp_path: Path) -> None:
    f = tmp_path / "mute.toml"
    f.write_text(f'name = "mute"\ngame = "doudizhu"\nplayers = 3\nseed = 9\nconcurrency = 2\n'
                 f'database = "{tmp_path / "mute.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n'
                 'params = { rounds = 1 }\n[clock]\ndecision_ms = 1500\n'
                 '[[bots]]\nname = "mute"\ncommand = "python tests/h2_bot.py --window 256"\n'
                 '[[bots]]\nname = "r1"\ncommand = "python sample_bots/random_bot.py --seed 1"\n'
                 '[[bots]]\nname = "r2"\ncommand = "python sample_bots/random_bot.py --seed 2"\n')
    r = subprocess.run([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet", "--format", "json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    board = {row["bot"]: row for row in json.loads(r.stdout)}
    assert {b: row["matches"] for b, row in board.items()} == {"mute": 6, "r1": 6, "r2": 6}
    st = subprocess.run([PY, "-m", "referee.cli", "tournament", "status", "mute", "--db", str(tmp_path / "mute.sqlite")],
                        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "not_reading×6" in st.stdout, st.stdout
    assert "faults of r1" not in st.stdout and "faults of r2" not in st.stdout


# --------------------------------------------------------------------------- item 2: tokens never in argv
def _proc_table() -> dict[int, tuple[bytes, bytes]]:
    """pid -> (cmdline, environ) of every process this user can read."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    cmd = f.read()
                with open(f"/proc/{d}/environ", "rb") as f:
                    env = f.read()
            except OSError:
                continue
            out[int(d)] = (cmd, env)
    return out


def test_no_process_started_by_the_referee_has_a_token_on_its_command_line(
        tmp_logs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a match of three launched sample bots runs, every process on the
    machine is scanned: no command line and no environment holds any token;
    each bot is told only the number of the descriptor its token comes on
    (REFEREE_TOKEN_FD), none inherits the referee's admin token, and each
    is given an address of its own (a Unix socket)."""
    monkeypatch.setenv("REFEREE_ADMIN_TOKEN", "admin-secret-should-not-leak")
    tokens: list[str] = []
    orig = Referee.new_token

    def recording(self, *a, **kw):
        t = orig(self, *a, **kw)
        tokens.append(t)
        return t

    monkeypatch.setattr(Referee, "new_token", recording)

    async def body(ref: Referee):
        seen: dict[int, tuple[bytes, bytes]] = {}
        done = asyncio.Event()

        async def scan() -> None:
            while not done.is_set():
                seen.update(await asyncio.to_thread(_proc_table))
                await asyncio.sleep(0.05)

        scanner = asyncio.create_task(scan())
        sp = spec(ref.new_match_id("doudizhu"), decision_ms=3000)
        sp.params = {"rounds": 2}
        sp.seat_names = ["a", "b", "c"]
        out = await play_launched(ref, sp, [f"python {RANDOM_BOT} --seed {i}" for i in range(3)], tmp_logs)
        done.set()
        await scanner
        return out, seen

    out, seen = run(with_referee(tmp_logs, body))
    assert out.status == "complete" and not out.faults
    assert len(tokens) == 3
    bots = {pid: (cmd, env) for pid, (cmd, env) in seen.items() if RANDOM_BOT.encode() in cmd}
    assert len(bots) >= 3  # the scan saw the bots running
    for cmd, env in seen.values():
        assert not any(t.encode() in cmd or t.encode() in env for t in tokens)
    addresses = set()
    for cmd, env in bots.values():
        if b"--referee" not in cmd:
            continue
        envs = dict(e.split(b"=", 1) for e in env.split(b"\0") if b"=" in e)
        assert b"REFEREE_ADMIN_TOKEN" not in envs and b"REFEREE_TOKEN" not in envs
        assert envs[b"REFEREE_TOKEN_FD"].isdigit()  # the descriptor's number, nothing else
        argv = cmd.split(b"\0")
        addresses.add(argv[argv.index(b"--referee") + 1].decode())
    assert len(addresses) == 3 and all(a.startswith("unix:") for a in addresses)  # each bot its own socket


def test_a_hello_with_another_seats_token_is_refused_and_logged(tmp_logs: Path) -> None:
    """A seat's token (one connection, as the referee makes them for launched
    bots) presented a second time while its bot is connected: refused, logged,
    and the match goes on untouched."""
    async def body(ref: Referee):
        toks = [ref.new_token(f"s{i}", max_connections=1, game="doudizhu") for i in range(3)]
        stolen: list[Any] = []

        async def policy(req: pb.DecisionRequest):
            if not stolen:  # mid-match, someone else tries seat 2's token
                stolen.append(await aio_bot(ref.port, toks[2], name="thief"))
            return req.legal_actions[0]

        bots = [asyncio.create_task(aio_bot(ref.port, toks[0], policy, name="s0"))] + \
               [asyncio.create_task(aio_bot(ref.port, t, name=f"s{i}")) for i, t in enumerate(toks[1:], 1)]
        out = await ref.play(spec("steal", decision_ms=10_000), toks, connect_timeout_s=10)
        await asyncio.gather(*bots)
        bad = await aio_bot(ref.port, "not-a-token", name="guess")
        return out, stolen[0], bad, ref.oplog.events("refused")

    out, (thief_msgs, thief_code), (bad_msgs, bad_code), refused = run(with_referee(tmp_logs, body))
    assert out.status == "complete" and not out.faults
    assert thief_msgs == [] and thief_code == grpc.StatusCode.ALREADY_EXISTS
    assert bad_msgs == [] and bad_code == grpc.StatusCode.UNAUTHENTICATED
    reasons = {(r["reason"], r["name"]) for r in refused}
    assert ("token_in_use", "thief") in reasons and ("bad_token", "guess") in reasons
    assert not any("token" in r or "not-a-token" in json.dumps(r) for r in refused)  # tokens are never logged


def _serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, int]:
    p = subprocess.Popen([PY, "-m", "referee.cli", "serve", "--port", "0", "--log-dir", str(tmp_path / "m"), *args],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, **(env or {})}, start_new_session=True)
    line = p.stdout.readline()
    m = re.search(r"listening on [\d.]+:(\d+)", line)
    if not m:
        p.kill()
        raise AssertionError(line + p.stderr.read())
    return p, int(m.group(1))


def _end(p: subprocess.Popen) -> str:
    stop_server(p)
    return p.stderr.read()


def test_serve_takes_secrets_from_a_file_and_the_environment_never_argv(tmp_path: Path) -> None:
    r = subprocess.run([PY, "-m", "referee.cli", "serve", "--token", "alice=S3CRET"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "/proc/<pid>/cmdline" in r.stderr and "--token-file" in r.stderr
    r = subprocess.run([PY, "-m", "referee.cli", "serve", "--admin-token", "x"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--admin-token-file" in r.stderr
    bad = tmp_path / "bad.tokens"
    bad.write_text("alice=ok\nno-equals-sign\n")
    r = subprocess.run([PY, "-m", "referee.cli", "serve", "--token-file", str(bad)], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "line 2" in r.stderr and "Traceback" not in r.stderr

    tf = tmp_path / "bots.tokens"
    tf.write_text("# name=token\nalice=S3CRET-A\nbob=S3CRET-B\n")
    af = tmp_path / "admin.token"
    af.write_text("ADMIN-S3CRET\n")
    p, port = _serve(tmp_path, "--token-file", str(tf), "--admin-token-file", str(af),
                     env={"REFEREE_TOKENS": "carol=S3CRET-C"})
    try:
        cmdline = Path(f"/proc/{p.pid}/cmdline").read_bytes()
        assert not any(s in cmdline for s in (b"S3CRET-A", b"S3CRET-B", b"S3CRET-C", b"ADMIN-S3CRET"))

        async def bots():
            return [await aio_bot(port, t, name=n, max_messages=1)
                    for n, t in (("alice", "S3CRET-A"), ("carol", "S3CRET-C"), ("x", "wrong"))]

        (a, _), (c, _), (_, wrong) = run(bots())
        assert a[0].WhichOneof("msg") == "welcome" and c[0].WhichOneof("msg") == "welcome"
        assert wrong == grpc.StatusCode.UNAUTHENTICATED
    finally:
        _end(p)


# --------------------------------------------------------------------------- item 3: fair under abuse
def test_connections_without_hello_are_bounded_and_resets_cost_nothing(tmp_logs: Path) -> None:
    """Streams that never send a Hello: at most ``max_unauthenticated_per_host``
    are held at once, the rest refused at once; a burst of opened-and-reset
    streams leaves nothing behind; a match playing meanwhile is untouched."""
    async def body(ref: Referee):
        peak = 0
        done = asyncio.Event()

        async def watch() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, sum(ref.unauthenticated.values()))
                await asyncio.sleep(0.002)

        watcher = asyncio.create_task(watch())
        clean = asyncio.create_task(clean_match(ref, "beside"))
        for _ in range(400):  # its bots are in before the flood (which comes from the same host)
            if len(ref.connections) == 3:
                break
            await asyncio.sleep(0.05)
        holders = h2_bot(ref.port, "--streams", "40", "--seconds", "4")
        resets = h2_bot(ref.port, "--resets", "2000", "--seconds", "4")
        held, reset = await asyncio.gather(asyncio.to_thread(stop_after, holders, 6),
                                           asyncio.to_thread(stop_after, resets, 6))
        out = await clean
        await asyncio.sleep(0.5)
        done.set()
        await watcher
        refused = [r for r in ref.oplog.events("refused") if r["reason"] == "too_many_unauthenticated"]
        return out, peak, held, reset, refused, dict(ref.unauthenticated), len(ref.connections)

    out, peak, held, reset, refused, left, conns = run(with_referee(
        tmp_logs, body, max_unauthenticated_per_host=8, hello_timeout_s=2.0))
    assert out.status == "complete" and not out.faults
    assert 0 < peak <= 8
    assert held.count("trailers 8") >= 30 and len(refused) >= 30  # RESOURCE_EXHAUSTED at once
    assert "opened 2000" in reset or "closed by the referee" in reset
    assert left == {} and conns == 0  # nothing held once the streams are gone


def stop_after(p: subprocess.Popen, timeout_s: float) -> str:
    try:
        out, _ = p.communicate(timeout=timeout_s)
        return out
    except subprocess.TimeoutExpired:
        return stop(p)


def test_closed_connections_are_released_at_once(tmp_logs: Path) -> None:
    async def body(ref: Referee):
        tok = ref.new_token("churn")
        for _ in range(200):
            msgs, _ = await aio_bot(ref.port, tok, max_messages=1)  # Hello, Welcome, close
            assert msgs[0].WhichOneof("msg") == "welcome"
        for _ in range(100):  # closed conns are released by the handler as the stream ends
            if not ref.tokens[tok].conns and not ref.connections:
                break
            await asyncio.sleep(0.02)
        gc.collect()
        return (len(ref.tokens[tok].conns), len(ref.tokens[tok].closed), len(ref.connections),
                sum(isinstance(o, BotConnection) for o in gc.get_objects()))

    live, recent, conns, objects = run(with_referee(tmp_logs, body))
    assert live == 0 and conns == 0
    assert recent <= 8 and objects <= 8  # bounded: 200 connects leave at most the last few for inspection


def test_fallback_bursts_yield_to_the_event_loop(tmp_logs: Path) -> None:
    """Every seat forfeits at its first request (it leaves, fault policy
    ``forfeit``): the rest of a long match is played in fallbacks, and other
    tasks on the referee's loop keep running all through it."""
    async def body(ref: Referee):
        toks = [ref.new_token(f"g{i}") for i in range(3)]

        async def leave(req: pb.DecisionRequest):
            raise grpc.aio.AioRpcError(grpc.StatusCode.CANCELLED, None, None, "leaving")

        bots = [asyncio.create_task(aio_bot(ref.port, t, leave, name=f"g{i}")) for i, t in enumerate(toks)]
        gap = [0, 0]  # decisions since the ticker last ran, the largest such run
        running = asyncio.Event()

        async def ticker() -> None:
            while not running.is_set():
                gap[0] = 0
                await asyncio.sleep(0)

        orig = MatchRunner.decide

        async def counted(self, seat):
            gap[0] += 1
            gap[1] = max(gap[1], gap[0])
            await orig(self, seat)

        MatchRunner.decide = counted
        t = asyncio.create_task(ticker())
        out = await ref.play(spec("burst", params={"rounds": 30}, fault_policy="forfeit", decision_ms=2000),
                             toks, connect_timeout_s=10)
        MatchRunner.decide = orig
        running.set()
        await t
        await asyncio.gather(*bots)
        return out, gap[1]

    out, longest = run(with_referee(tmp_logs, body))
    assert out.status == "complete" and sorted(out.forfeited) == [0, 1, 2]
    fallbacks = sum(1 for d in log_lines(out) if d["type"] == "decision" and d["request_id"] == 0)
    assert fallbacks > 50  # (fallback bids are passes: rounds of all-pass redeals)
    assert longest <= 2  # other tasks ran between (nearly) every two decisions, never a long burst


# --------------------------------------------------------------------------- item 4: the operator's log
def test_serve_logs_connections_refusals_matches_and_admin_calls_escaped(tmp_path: Path) -> None:
    tf = tmp_path / "bots.tokens"
    tf.write_text("alice=S3CRET-A\nbob=S3CRET-B\ncarol=S3CRET-C\n")
    log = tmp_path / "oplog.jsonl"
    p, port = _serve(tmp_path, "--token-file", str(tf), "--log-file", str(log),
                     env={"REFEREE_ADMIN_TOKEN": "ADM"})
    try:
        async def calls():
            res = []
            res.append(await aio_bot(port, "S3CRET-A", name="alice", max_messages=1))
            res.append(await aio_bot(port, "S3CRET-A", name="\x1b[31mevil\nline", max_messages=1))
            res.append(await aio_bot(port, "S3CRET-B", name="[bold red]mark[/bold red]", max_messages=1))
            res.append(await aio_bot(port, "guess", name="guesser", max_messages=1))
            res.append(await aio_bot(port, "S3CRET-C", name="old", version=2, max_messages=1))
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
                stub = admin_pb2_grpc.AdminServiceStub(ch)
                try:
                    await stub.RunMatch(admin_pb2.RunMatchRequest(game="doudizhu", seat_tokens=["S3CRET-A"] * 3),
                                        metadata=[("x-admin-token", "wrong")], timeout=30)
                except grpc.aio.AioRpcError as e:
                    res.append(e.code())
                void = await stub.RunMatch(admin_pb2.RunMatchRequest(
                    game="doudizhu", seat_tokens=["S3CRET-A", "S3CRET-B", "S3CRET-C"], bot_connect_ms=300),
                    metadata=[("x-admin-token", "ADM")], timeout=30)
                res.append(void)
            return res

        alice, evil, markup, guess, old, denied, void = run(calls())
    finally:
        err = _end(p)
    assert alice[0][0].WhichOneof("msg") == "welcome" and markup[0][0].WhichOneof("msg") == "welcome"
    assert evil == ([], grpc.StatusCode.INVALID_ARGUMENT)  # 1..64 printable characters
    assert guess[1] == grpc.StatusCode.UNAUTHENTICATED and old[1] == grpc.StatusCode.FAILED_PRECONDITION
    assert denied == grpc.StatusCode.PERMISSION_DENIED
    assert void.status.startswith("void")
    # the terminal: one readable line per event, nothing a bot sent is interpreted
    assert "\x1b" not in err and "Traceback" not in err
    lines = [ln for ln in err.splitlines() if re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \w+", ln)]
    assert any("refused" in ln and "reason=bad_name" in ln and "\\x1b\\[31mevil\\nline" in ln for ln in lines), lines
    assert any("connected" in ln and "\\[bold red]mark\\[/bold red]" in ln for ln in lines), err
    # the JSON Lines file: the same events, machine-readable
    recs = [json.loads(x) for x in log.read_text().splitlines()]
    kinds = {(r["event"], r.get("reason", "")) for r in recs}
    assert {("listening", ""), ("connected", ""), ("refused", "bad_name"), ("refused", "bad_token"),
            ("refused", "version"), ("admin_refused", "bad or missing x-admin-token"), ("match_started", ""),
            ("match_ended", "")} <= kinds
    assert ("closed", "bot_closed") in kinds  # a bot that ended its stream: not said as if it left on purpose
    assert all("before the referee's Goodbye" in r["detail"] for r in recs
               if r["event"] == "closed" and r["reason"] == "bot_closed"), recs
    conn = next(r for r in recs if r["event"] == "connected" and r["name"] == "alice")
    assert conn["peer"].startswith("ipv4:127.0.0.1:") and conn["seat_of"] == "alice"
    ended = next(r for r in recs if r["event"] == "match_ended")
    assert ended["status"].startswith("void") and ended["faults"] == {"no_show": 3, "forfeit": 3}
    assert "S3CRET" not in log.read_text() and "S3CRET" not in err


# --------------------------------------------------------------------------- item 5: ports and files
def test_a_second_serve_on_a_port_in_use_fails_clearly(tmp_path: Path) -> None:
    a, port = _serve(tmp_path)
    try:
        r = subprocess.run([PY, "-m", "referee.cli", "serve", "--port", str(port), "--log-dir", str(tmp_path)],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        assert f"cannot listen on 127.0.0.1:{port}" in r.stderr and "Traceback" not in r.stderr
        assert a.poll() is None  # the first one still serves
    finally:
        _end(a)


def test_missing_or_invalid_tls_files_are_named(tmp_path: Path, cert) -> None:  # noqa: F811
    crt, key = cert
    junk = tmp_path / "junk.pem"
    junk.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    cases = [
        ((tmp_path / "nope.pem", key), "--tls-cert", "nope.pem", "no such file"),
        ((crt, tmp_path / "nokey.pem"), "--tls-key", "nokey.pem", "no such file"),
        ((junk, key), "--tls-cert", "junk.pem", "not a valid certificate"),
        ((crt, crt), "--tls-key", str(crt.name), "not a PEM private key"),
    ]
    for (c, k), opt, name, why in cases:
        r = subprocess.run([PY, "-m", "referee.cli", "serve", "--port", "0", "--tls-cert", str(c), "--tls-key", str(k)],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, (opt, r.stderr)
        assert opt in r.stderr and name in r.stderr and why in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_match_on_a_tls_referee_with_tls_ca(tmp_path: Path, cert) -> None:  # noqa: F811
    crt, key = cert
    other = tmp_path / "other.pem"  # a CA that did not sign the referee's certificate
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(tmp_path / "k.pem"),
                    "-out", str(other), "-days", "2", "-subj", "/CN=localhost"], check=True, capture_output=True)
    bots = sum((["--bot", f"python {RANDOM_BOT} --seed {i}"] for i in range(3)), [])
    t = tmp_path / "t.toml"
    t.write_text(f'name = "t"\ngame = "doudizhu"\nplayers = 3\ndatabase = "{tmp_path / "t.sqlite"}"\n'
                 f'log_dir = "{tmp_path / "logs"}"\n'
                 + "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {RANDOM_BOT}"\n' for i in range(3)))

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([PY, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=120, env={**os.environ, "REFEREE_ADMIN_TOKEN": "ADM"})

    p, port = _serve(tmp_path, "--tls-cert", str(crt), "--tls-key", str(key), env={"REFEREE_ADMIN_TOKEN": "ADM"})
    addr = f"127.0.0.1:{port}"
    try:
        r = cli("match", "doudizhu", "--rounds", "1", "--json", "--referee", addr, "--tls-ca", str(crt),
                "--log-dir", str(tmp_path / "b"), *bots)
        # plaintext to a TLS referee, and a CA that does not match: what to do about it
        plain = [cli("match", "doudizhu", "--referee", addr, "--log-dir", str(tmp_path / "c"), *bots),
                 cli("tournament", "run", str(t), "--referee", addr, "--quiet")]
        wrong = cli("match", "doudizhu", "--referee", addr, "--tls-ca", str(other), "--log-dir", str(tmp_path / "d"),
                    *bots)
    finally:
        _end(p)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "complete" and not out["result"]["faults"]
    for x in plain:
        assert x.returncode != 0 and f"no referee answers at {addr}" in x.stderr, x.stderr
        assert "if it speaks TLS, give --tls-ca" in x.stderr and "Traceback" not in x.stderr, x.stderr
    assert wrong.returncode != 0 and f"no referee answers at {addr}" in wrong.stderr, wrong.stderr
    assert f"does its certificate match {addr} and --tls-ca?" in wrong.stderr and ": OK)" not in wrong.stderr


# --------------------------------------------------------------------------- item 6: results never lie
def test_no_shows_are_forfeited_and_a_match_nobody_joined_is_void(tmp_logs: Path) -> None:
    async def body(ref: Referee):
        toks = [ref.new_token(f"n{i}") for i in range(3)]
        void = await ref.play(spec("void"), toks, connect_timeout_s=0.3)
        bots = [asyncio.create_task(aio_bot(ref.port, t)) for t in toks[1:]]
        one = await ref.play(spec("one"), toks, connect_timeout_s=2)
        await asyncio.gather(*bots)
        return void, one, ref.oplog.events("match_started")

    void, one, started = run(with_referee(tmp_logs, body))
    assert void.status is MatchStatus.VOID and void.result is None and void.decisions == 0
    assert void.to_json()["status"] == "void" and void.status_text.startswith("void: ")
    assert sorted(f.kind for f in void.faults) == ["forfeit"] * 3 + ["no_show"] * 3
    assert one.status == "complete" and seat_faults(one, 0) == ["no_show", "forfeit"]
    assert one.forfeited == [0] and one.result.ranks[0] == 3
    assert {"type": "fault", "seat": 0, "kind": "no_show"} in log_lines(one)  # in the match log
    assert [s["no_show"] for s in started] == [[0, 1, 2], [0]]  # and in the operator's log


def test_a_bot_is_never_seated_in_a_game_it_did_not_list(tmp_logs: Path) -> None:
    async def body(ref: Referee):
        launched = ref.new_token("l", max_connections=1, game="doudizhu")
        refused = await aio_bot(ref.port, launched, first=pb.BotMessage(hello=pb.Hello(
            bot_name="tractor-only", token=launched, protocol_version=1, games=["tractor"])))
        toks = [ref.new_token(f"e{i}") for i in range(3)]
        picky = asyncio.create_task(aio_bot(ref.port, toks[0], first=pb.BotMessage(hello=pb.Hello(
            bot_name="picky", token=toks[0], protocol_version=1, games=["tractor", "smear"]))))
        others = [asyncio.create_task(aio_bot(ref.port, t)) for t in toks[1:]]
        await asyncio.sleep(0.3)
        out = await ref.play(spec("picky"), toks, connect_timeout_s=1)
        await asyncio.gather(*others)
        await ref.stop(0.2)  # Goodbye to the picky bot, which was never seated
        msgs, _ = await picky
        return refused, out, msgs

    (r_msgs, r_code), out, msgs = run(with_referee(tmp_logs, body))
    assert r_msgs == [] and r_code == grpc.StatusCode.FAILED_PRECONDITION
    assert seat_faults(out, 0) == ["no_show", "forfeit"]
    assert "does not play doudizhu" in out.faults[0].message
    assert not any(m.WhichOneof("msg") in ("match_started", "decision_request") for m in msgs)


# --------------------------------------------------------------------------- item 7: reconnect
def test_a_dropped_bot_reconnects_with_its_token_and_takes_its_seat_back(tmp_logs: Path) -> None:
    """Seat 0 answers three requests, drops its stream, and comes back 0.4 s
    later with the same token: its next request goes to the new stream (with
    MatchStarted again first), the time away is charged to that decision."""
    async def body(ref: Referee):
        toks = [ref.new_token(f"r{i}") for i in range(3)]
        answered = [0]

        def first_life(req: pb.DecisionRequest):
            answered[0] += 1
            if answered[0] > 3:
                raise grpc.aio.AioRpcError(grpc.StatusCode.CANCELLED, None, None, "dropping")
            return req.legal_actions[0]

        async def bot0():
            try:
                await aio_bot(ref.port, toks[0], first_life, name="phoenix")
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.4)
            return await aio_bot(ref.port, toks[0], name="phoenix")

        b0 = asyncio.create_task(bot0())
        others = [asyncio.create_task(aio_bot(ref.port, t)) for t in toks[1:]]
        out = await ref.play(spec("phoenix", decision_ms=3000, bank_ms=2000), toks, connect_timeout_s=10)
        second, code = await b0
        await asyncio.gather(*others)
        return out, second, code, ref.oplog.events("reconnected")

    out, second, code, back = run(with_referee(tmp_logs, body))
    assert out.status == "complete"
    assert seat_faults(out, 0) == ["disconnect"]  # one fault for the drop; not forfeited
    assert not [f for f in out.faults if f.seat != 0]
    kinds = [m.WhichOneof("msg") for m in second]
    assert kinds[0] == "welcome" and kinds[1] == "match_started" and "decision_request" in kinds
    assert second[1].match_started.seat == 0 and kinds[-1] == "goodbye" and code is None
    assert back and back[0]["match_id"] == "phoenix"
    mine = [d for d in log_lines(out) if d["type"] == "decision" and d["seat"] == 0]
    assert mine[-1]["reply"] is not None  # answered to the end on the new stream
    first_req = next(m.decision_request for m in second if m.WhichOneof("msg") == "decision_request")
    # the request the bot got on its return: the time it was away (>= 0.4 s, minus what
    # the first request after the drop took) is gone from its clock
    resumed = [d for d in mine if d["request_id"] == first_req.request_id and d["reply"] is not None]
    assert resumed and (first_req.time_left_ms < 3000 or resumed[0]["elapsed_ms"] >= 300)


# --------------------------------------------------------------------------- item 8: end of match
def test_launched_bots_read_match_ended_and_goodbye_and_exit_on_their_own(tmp_logs: Path) -> None:
    async def body(ref: Referee):
        sp = spec(ref.new_match_id("doudizhu"), decision_ms=3000)
        sp.seat_names = ["a", "b", "c"]
        return await play_launched(ref, sp, [f"python {END_BOT} --linger 0.5"] * 3, tmp_logs)

    out = run(with_referee(tmp_logs, body))
    assert out.status == "complete" and not out.faults
    for s in range(3):
        seen = (tmp_logs / f"{out.spec.match_id}.seat{s}.stderr").read_text().split()
        assert seen == ["welcome", "match_started", "match_ended", "goodbye", "exiting"], (s, seen)


# --------------------------------------------------------------------------- round 2 (#38): pre-Hello flood
def _flood(port: int, streams: int, out: Path, renew_s: float) -> subprocess.Popen:
    """One local process: ``streams`` HTTP/2 streams without a Hello on ONE TCP
    connection to the referee's port, all reset and opened again every
    ``renew_s`` seconds (before the Hello timeout); what it sees goes to ``out``."""
    with out.open("w") as f:
        return subprocess.Popen([PY, H2_BOT, "--referee", f"127.0.0.1:{port}", "--streams", str(streams),
                                 "--renew", str(renew_s), "--seconds", "600"], stdout=f, stderr=subprocess.STDOUT,
                                start_new_session=True)


@pytest.mark.parametrize("streams,connections", [(64, 1), (256, 1), (2000, 1), (256, 8)])
def test_a_pre_hello_flood_costs_the_honest_bots_of_a_tournament_nothing(
        tmp_path: Path, streams: int, connections: int) -> None:
    """Issue #38, item 1: while local processes hold ``streams`` streams
    without a Hello on ``connections`` TCP connections to the referee's port
    (renewed every 2 s, before the Hello timeout; the issue's flood renewed
    every 8 s), a tournament of launched bots plays every match to the end
    with no fault: each launched bot connects on a Unix socket of its own,
    where no outsider's streams count. One connection gets at most
    ``max_unauthenticated_per_connection`` streams held (the rest refused at
    once), so an honest bot connecting over TCP from the same host meanwhile
    is welcomed; a flood over enough connections uses up the host's budget
    (the documented limit of a per-address budget: such a bot is then
    refused, unless it comes in while a flooder renews), and still costs the
    launched bots nothing."""
    from tournaments import spec as tspec
    from tournaments.executor import LocalExecutor
    from tournaments.run import run_tournament
    from tournaments.store import Store

    seen: dict[str, Any] = {"floods": []}
    outs = [tmp_path / f"flood{i}.out" for i in range(connections)]

    class Flooded(LocalExecutor):
        """The local executor, flooded as soon as its referee listens, before any match."""

        async def start(self, spec, log_dir: Path) -> None:
            await super().start(spec, log_dir)
            ref = self.ref
            for out in outs:
                seen["floods"].append(_flood(ref.port, streams // connections, out, 2.0))
            for _ in range(1200):  # until every flood holds what it can and has renewed once
                held = sorted(ref.unauthenticated_conns.values())
                if (len(held) >= min(connections, 4) and all(o.read_text().count("opened") >= 2 for o in outs)
                        and held[-1] >= min(streams // connections, ref.max_unauthenticated_per_connection)):
                    break
                await asyncio.sleep(0.05)
            seen["held"] = dict(ref.unauthenticated_conns)
            tok = ref.new_token("honest")  # an external bot from the flooding host, meanwhile
            seen["honest"] = await aio_bot(ref.port, tok, name="honest", max_messages=1)

        async def stop(self) -> None:
            seen["refused"] = [r for r in self.ref.oplog.events("refused")
                               if r["reason"] == "too_many_unauthenticated"]
            await super().stop()

    f = tmp_path / "flood.toml"
    f.write_text(f'name = "flood{streams}"\ngame = "doudizhu"\nplayers = 3\nseed = 3\nconcurrency = 2\n'
                 f'database = "{tmp_path / "flood.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n'
                 'params = { rounds = 2 }\n[clock]\ndecision_ms = 5000\n'
                 + "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                           for i in range(3)))
    spec = tspec.load(f)
    spec.cwd = str(ROOT)
    try:
        res = asyncio.run(run_tournament(spec, executor=Flooded(spec.concurrency)))
    finally:
        for p in seen["floods"]:
            stop(p)
    store = Store(spec.database)
    rows = store.matches(store.tournament(spec.name)["id"])
    store.close()
    assert res.progress.done == res.progress.total == 6 and len(rows) == 6
    assert all(r.status == "complete" for r in rows), [r.status for r in rows]
    assert [f for r in rows for f in r.result["faults"]] == []  # no fault on any seat of any match
    cap, per_host = 16, 64  # the defaults of max_unauthenticated_per_connection and _per_host
    assert max(seen["held"].values()) <= cap and sum(seen["held"].values()) <= per_host, seen["held"]
    details = {r["detail"].split(";")[0] for r in seen["refused"]}
    msgs, code = seen["honest"]
    if connections * cap < per_host:  # one connection's flood leaves the host's budget to others
        assert code is None and msgs[0].WhichOneof("msg") == "welcome"
        assert details == {f"flood: more than {cap} streams without a Hello on this connection"}, details
    else:  # a flood over many connections uses up the host's budget (for anyone on that address)
        assert f"flood: more than {per_host} streams without a Hello from this host" in details, details
        # the honest bot is refused while it is used up, or gets in while a flooder renews its streams.
        # The refusal comes before the referee reads the Hello: when the bot's write of its Hello loses
        # that race, grpc's asyncio client reports INTERNAL ("Internal error from Core") instead of the
        # status the referee sent (grpc/grpc#36066), so INTERNAL with nothing received is a refusal too.
        refused_codes = (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INTERNAL)
        assert (code in refused_codes and msgs == []) or \
            (code is None and msgs[0].WhichOneof("msg") == "welcome"), (code, msgs)
    assert len(seen["refused"]) >= min(streams, 100 * connections) - connections * cap


# --------------------------------------------------------------------------- #42: tokens reloaded, the README recipe
def test_a_token_removed_while_its_bot_plays_keeps_its_seat_and_refuses_new_connections(tmp_logs: Path) -> None:
    """Referee.set_tokens (what serve does when its token file changes): in the
    middle of a match bob's token is removed and dave's added. Bob's live
    seat plays on to the end without a fault; a new connection with bob's
    token is refused, one with dave's is welcomed."""
    async def body(ref: Referee):
        ref.set_tokens([("alice", "A-1"), ("bob", "B-1"), ("carol", "C-1")])
        during: dict[str, Any] = {}

        async def bob_policy(req: pb.DecisionRequest):
            if not during:
                during["counts"] = ref.set_tokens([("alice", "A-1"), ("carol", "C-1"), ("dave", "D-1")])
                during["bob again"] = await aio_bot(ref.port, "B-1", name="bob-again", max_messages=1)
                during["dave"] = await aio_bot(ref.port, "D-1", name="dave", max_messages=1)
            return req.legal_actions[0]

        bots = [asyncio.create_task(aio_bot(ref.port, "A-1", name="alice")),
                asyncio.create_task(aio_bot(ref.port, "B-1", bob_policy, name="bob")),
                asyncio.create_task(aio_bot(ref.port, "C-1", name="carol"))]
        out = await ref.play(spec("reload", decision_ms=10_000), ["A-1", "B-1", "C-1"], connect_timeout_s=10)
        await asyncio.gather(*bots)
        return out, during, set(ref.tokens)

    out, during, left = run(with_referee(tmp_logs, body))
    assert out.status == "complete" and not out.faults, out.faults
    assert during["counts"] == (1, 1)
    assert during["bob again"] == ([], grpc.StatusCode.UNAUTHENTICATED)
    assert during["dave"][0][0].WhichOneof("msg") == "welcome"
    assert "B-1" not in left and {"A-1", "C-1", "D-1"} <= left  # forgotten once its bot was gone


def test_serve_reloads_its_token_file_on_sighup(tmp_path: Path) -> None:
    # the bounds are settings, checked (--max-unauthenticated-per-connection: the former name of -per-conn)
    for opt in ("--max-unauthenticated-per-conn", "--max-unauthenticated-per-connection", "--hello-timeout-s"):
        r = subprocess.run([PY, "-m", "referee.cli", "serve", "--port", "0", opt, "0"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and f"{opt} must be" in r.stderr and "Traceback" not in r.stderr, r.stderr
    tf = tmp_path / "bots.tokens"
    tf.write_text("alice=S3CRET-A\nbob=S3CRET-B\n")
    log = tmp_path / "oplog.jsonl"
    p, port = _serve(tmp_path, "--token-file", str(tf), "--token-check-s", "0", "--log-file", str(log))
    try:
        async def hello(token: str):
            return await aio_bot(port, token, name="x", max_messages=1)

        assert run(hello("S3CRET-C"))[1] == grpc.StatusCode.UNAUTHENTICATED
        tf.write_text("alice=S3CRET-A\ncarol=S3CRET-C\n")  # bob out, carol in
        assert run(hello("S3CRET-C"))[1] == grpc.StatusCode.UNAUTHENTICATED  # not before SIGHUP (no polling)
        os.kill(p.pid, signal.SIGHUP)
        for _ in range(200):
            if any(json.loads(x).get("event") == "tokens" for x in log.read_text().splitlines()):
                break
            time.sleep(0.05)
        carol, bob, alice = run(hello("S3CRET-C")), run(hello("S3CRET-B")), run(hello("S3CRET-A"))
        tf.write_text("alice=S3CRET-A\nbroken line\n")  # a bad file changes nothing
        os.kill(p.pid, signal.SIGHUP)
        for _ in range(200):
            if sum(json.loads(x).get("event") == "tokens" for x in log.read_text().splitlines()) == 2:
                break
            time.sleep(0.05)
        still = run(hello("S3CRET-C"))
    finally:
        err = _end(p)
    assert carol[0][0].WhichOneof("msg") == "welcome" and alice[0][0].WhichOneof("msg") == "welcome"
    assert bob == ([], grpc.StatusCode.UNAUTHENTICATED)
    assert still[0][0].WhichOneof("msg") == "welcome"
    reloads = [json.loads(x) for x in log.read_text().splitlines() if json.loads(x).get("event") == "tokens"]
    assert reloads[0]["added"] == 1 and reloads[0]["removed"] == 1 and reloads[0]["tokens"] == 2
    assert "line 2" in reloads[1]["error"] and "the tokens in force stay" in reloads[1]["error"]
    assert "S3CRET" not in log.read_text() and "S3CRET" not in err and "Traceback" not in err


def _readme_recipe() -> list[list[str]]:
    """The shell commands of README.md's "Hosting a competition", block by block
    (continuation lines joined, comments dropped)."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Hosting a competition", 1)[1].split("\n## ", 1)[0]
    blocks = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        cmds = [ln.strip() for ln in block.replace("\\\n", " ").splitlines()]
        blocks.append([" ".join(c.split()) for c in cmds if c and not c.startswith("#")])
    return blocks


def test_the_readme_hosting_recipe_works_command_by_command(tmp_path: Path) -> None:
    """README.md's hosting recipe, each command as written, run by bash in a
    fresh directory where ``referee`` and ``python`` are this checkout's
    (``sample_bots`` is linked in). What is changed: ``--host 0.0.0.0`` ->
    ``127.0.0.1`` and port 50051 -> a free one (serve's ``--port 0``; the tests
    stay on loopback), ``FILE`` -> a tournament file of the three bots. Then
    the token file edits of the recipe take effect while serve runs: dave
    connects, bob cannot connect again, and bob's live connection still plays."""
    setup, bots, host, edits = _readme_recipe()
    assert setup[-1].startswith("referee serve ") and len(bots) == 3 and host[0].startswith("export ")
    work, shims = tmp_path / "work", tmp_path / "bin"
    work.mkdir()
    shims.mkdir()
    (work / "sample_bots").symlink_to(ROOT / "sample_bots")
    for name, target in (("referee", f'{PY} -m referee.cli'), ("python", PY)):
        (shims / name).write_text(f'#!/bin/sh\nexec {target} "$@"\n')
        (shims / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{shims}:{os.environ['PATH']}"}
    env.pop("REFEREE_ADMIN_TOKEN", None)
    env.pop("REFEREE_TOKENS", None)

    def sh(cmd: str, **kw: Any) -> subprocess.CompletedProcess:
        r = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, capture_output=True, text=True, timeout=300, **kw)
        assert r.returncode == 0, (cmd, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr, (cmd, r.stderr)
        return r

    def background(cmd: str) -> subprocess.Popen:
        return subprocess.Popen(["bash", "-c", cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)

    def events(kind: str) -> list[dict]:
        log = work / "referee-log.jsonl"
        lines = log.read_text().splitlines() if log.exists() else []
        return [r for r in map(json.loads, lines) if r["event"] == kind]

    def wait_for(what: Callable[[], bool], why: str) -> None:
        for _ in range(1200):
            if what():
                return
            time.sleep(0.05)
        raise AssertionError(f"{why}: {serve_err()}")

    procs: list[subprocess.Popen] = []
    serve = None

    def serve_err() -> str:
        return "" if serve is None or serve.poll() is None else serve.stderr.read()

    try:
        for cmd in setup[:-1]:
            sh(cmd)
        serve = background(setup[-1].replace("--host 0.0.0.0", "--host 127.0.0.1").replace("--port 50051",
                                                                                           "--port 0"))
        line = serve.stdout.readline()
        m = re.search(r"listening on 127\.0\.0\.1:(\d+) \(TLS\)", line)
        assert m, line + serve_err()
        port = m.group(1)
        here = lambda cmd: cmd.replace("localhost:50051", f"localhost:{port}")  # noqa: E731
        procs += [background(here(cmd)) for cmd in bots]
        wait_for(lambda: {"alice", "bob", "carol"} <= {r["name"] for r in events("connected")}, "bots connected")
        tfile = tmp_path / "hosted.toml"
        tfile.write_text(f'name = "hosted"\ngame = "doudizhu"\nplayers = 3\nparams = {{ rounds = 1 }}\n'
                         f'database = "{tmp_path / "hosted.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n'
                         + "".join(f'[[bots]]\nname = "{n}"\nexternal = true\ntoken = "SECRET{i}"\n'
                                   for i, n in enumerate(("alice", "bob", "carol"), 1)))
        exports = host[0]
        match = sh(f"{exports}; {here(host[1])}")
        # a local match's summary: no faults (a fault shows as KIND×N), the log fetched here and its replay
        assert "complete" in match.stdout and "×" not in match.stdout and "replay: " in match.stdout, match.stdout
        board = sh(f"{exports}; {here(host[2]).replace('FILE', str(tfile))} --quiet --format json")
        assert {row["bot"]: row["matches"] for row in json.loads(board.stdout)} == {"alice": 6, "bob": 6, "carol": 6}
        for cmd in edits:  # dave in, bob out: read again while serve runs
            sh(cmd)
        wait_for(lambda: any(r.get("removed") == 1 for r in events("tokens")), "the token file reloaded")
        dave = background(here(bots[0]).replace("SECRET1", "SECRET4").replace("--name alice", "--name dave"))
        procs.append(dave)
        wait_for(lambda: "dave" in {r["name"] for r in events("connected")}, "dave connected")
        bob2 = background(here(bots[1]).replace("--name bob", "--name bob2"))
        procs.append(bob2)
        assert bob2.wait(60) == 1 and "UNAUTHENTICATED" in bob2.stderr.read()
        again = sh(f"{exports}; {here(host[1])}")  # bob's live connection is seated and plays
        assert "complete" in again.stdout and "×" not in again.stdout and "bob#1" in again.stdout, again.stdout
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(10)
        if serve is not None:
            _end(serve)


def test_a_stopped_match_keeps_its_hidden_log_under_its_name(tmp_path: Path) -> None:
    """A match whose log has no name while it is written (bots under the
    referee's uid) and that is stopped midway (Ctrl-C, SIGTERM: its task
    cancelled) keeps what was played under the log's name, header first."""
    from referee.runner import BasicSeatLink, run_match

    class Slow(BasicSeatLink):  # plays the first legal action; seat 2 never answers
        def __init__(self, seat: int) -> None:
            self.seat, self.name, self.connected = seat, f"s{seat}", True
            self.asked = asyncio.Event()

        async def send(self, msg: pb.RefereeMessage) -> None:
            pass

        async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply, float]:
            req = msg.decision_request
            if self.seat == 2:
                self.asked.set()
                await asyncio.Event().wait()  # until cancelled
            return pb.ActionReply(match_id=req.match_id, request_id=req.request_id,
                                  action=req.legal_actions[0]), 1.0

    spec = MatchSpec(game="doudizhu", players=3, seed=4, seat_names=["s0", "s1", "s2"], match_id="stopped-1",
                     decision_ms=60_000)
    links = [Slow(s) for s in range(3)]
    log_path = tmp_path / "stopped-1.jsonl"

    async def stop_midway() -> None:
        task = asyncio.ensure_future(run_match(spec, links, log_path, hide_log=True))
        await asyncio.wait_for(links[2].asked.wait(), 60)
        assert not log_path.exists()  # no name while it is written
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stop_midway())
    lines = [json.loads(ln) for ln in log_path.read_text().splitlines()]
    assert lines[0]["type"] == "header" and not any(ln["type"] == "result" for ln in lines)
    assert oct(log_path.stat().st_mode & 0o777) == "0o600"
