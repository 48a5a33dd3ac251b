"""A tournament driver on a hosted referee (``referee tournament run FILE
--referee HOST:PORT``) when that referee stops or restarts mid-run, the
referee's log of its own shutdown, and the ids its matches get there.

Real processes on loopback: ``referee serve`` on 127.0.0.1 port 0 (started
again on the same port), three external sample-style bots connected on their
own with ``--reconnect`` (each decision takes a little while, so that a match
is in flight when the referee is stopped), and the CLI as the organiser. The
driver either waits for the referee to come back and plays on (the match it
lost played again, every match counted once), or, with ``--reconnect 0``,
stops with the exact command that continues, which then finishes the run.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from cardgames.v1 import admin_pb2
from conftest import ROOT, run, stop_process
from referee.remote import MAX_ID_SUFFIX, RemoteReferee, RemoteSeat, unreachable
from referee.runner import MatchSpec
from referee.service import Referee

ADMIN = "hosted-driver-admin-token"
BOTS = {"alice": "alice-secret", "bob": "bob-secret", "carol": "carol-secret"}
#: dave is registered, and never connects
ENV = {**os.environ, "REFEREE_ADMIN_TOKEN": ADMIN,
       "REFEREE_TOKENS": "\n".join(f"{n}={t}" for n, t in {**BOTS, "dave": "dave-secret"}.items())}
#: a random bot that takes 30 ms per decision: a one-round match lasts about two seconds
SLOW_BOT = f"""
import random, sys, time
sys.path.insert(0, {str(ROOT)!r})
from sample_bots import botlib
args = botlib.parse_args("slow")
rng = random.Random(args.seed)

def choose(req, _started):
    time.sleep(0.03)
    return rng.choice(list(req.legal_actions))

sys.exit(botlib.run(choose, args))
"""


def _until(cond, what: str, timeout_s: float = 60.0, shown: Path | None = None):
    deadline = time.monotonic() + timeout_s
    while not (found := cond()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}" + (f":\n{shown.read_text()}" if shown else ""))
        time.sleep(0.05)
    return found


def _serve(tmp: Path, oplog: Path, port: int = 0) -> tuple[subprocess.Popen, int]:
    """``referee serve`` on 127.0.0.1:PORT (retried while the old one's port is still closing)."""
    deadline = time.monotonic() + 20
    while True:
        p = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "--port", str(port), "--log-dir",
                              str(tmp / "served"), "--log-file", str(oplog)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, env=ENV, start_new_session=True)
        m = re.search(r"listening on [\d.]+:(\d+)", p.stdout.readline() if p.stdout else "")
        if m:
            return p, int(m.group(1))
        p.wait(10)
        assert port and time.monotonic() < deadline, "referee serve did not start"
        time.sleep(0.2)


def _records(oplog: Path, event: str | None = None) -> list[dict]:
    if not oplog.exists():
        return []
    lines = [json.loads(ln) for ln in oplog.read_text().splitlines() if ln.endswith("}")]
    return [r for r in lines if event is None or r["event"] == event]


def _in_flight(oplog: Path, started: int) -> bool:
    """Match number ``started`` has started and has not ended."""
    return len(_records(oplog, "match_started")) == started and len(_records(oplog, "match_ended")) == started - 1


def _sigterm(p: subprocess.Popen) -> int:
    p.send_signal(signal.SIGTERM)
    return p.wait(30)


@pytest.fixture()
def hosted(tmp_path: Path):
    """(address, port, operator log of the first referee, start(): a new referee on the same
    port with its own operator log, tournament file) with three slow bots connected with --reconnect."""
    (tmp_path / "slow.py").write_text(SLOW_BOT)
    oplog = tmp_path / "serve1.jsonl"
    procs: list[subprocess.Popen] = []
    serve, port = _serve(tmp_path, oplog)
    procs.append(serve)
    addr = f"127.0.0.1:{port}"
    try:
        for i, (name, tok) in enumerate(BOTS.items()):
            with open(tmp_path / f"{name}.err", "wb") as err:
                procs.append(subprocess.Popen([sys.executable, str(tmp_path / "slow.py"), "--referee", addr,
                                               "--name", name, "--seed", str(i), "--reconnect", "60"], cwd=ROOT,
                                              stdout=subprocess.DEVNULL, stderr=err,
                                              env={**os.environ, "REFEREE_TOKEN": tok}))
        _until(lambda: len(_records(oplog, "connected")) == 3, "the bots to connect", shown=oplog)
        f = tmp_path / "hosted.toml"
        entries = "".join(f'[[bots]]\nname = "{n}"\nexternal = true\ntoken = "{t}"\n\n' for n, t in BOTS.items())
        f.write_text(f'name = "hosted"\ngame = "doudizhu"\nplayers = 3\nseed = 3\nconcurrency = 1\n'
                     f'database = "{tmp_path / "t.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n'
                     f'params = {{ rounds = 1 }}\n\n{entries}')

        def again(log: Path) -> subprocess.Popen:
            p, _ = _serve(tmp_path, log, port)
            procs.append(p)
            return p

        yield addr, procs[0], oplog, again, f
    finally:
        for p in procs:
            stop_process(p)


def _driver(f: Path, addr: str, *extra: str) -> subprocess.Popen:
    """``tournament run F --referee ADDR`` with the admin token in REFEREE_ADMIN_TOKEN, unless ``extra``
    gives --admin-token-file."""
    env = dict(os.environ) if "--admin-token-file" in extra else {**os.environ, "REFEREE_ADMIN_TOKEN": ADMIN}
    return subprocess.Popen([sys.executable, "-m", "referee.cli", "tournament", "run", str(f), "--referee", addr,
                             "--quiet", "--format", "json", *extra], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def _counted_once(tmp: Path) -> None:
    """Every one of the 6 scheduled matches is stored once and each bot played 6."""
    with sqlite3.connect(tmp / "t.sqlite") as db:
        idx = [r[0] for r in db.execute("SELECT idx FROM matches ORDER BY idx")]
    assert len(idx) == len(set(idx)) == 6, idx


def _shutdown_logged(oplog: Path) -> str:
    """The first referee's log of its SIGTERM: every match that started ended (the one in flight
    aborted, naming the shutdown), every bot's connection closed as ``shutdown``, then ``stopped``.
    Returns the id of the match stopped in flight."""
    recs = _records(oplog)
    started = [r["match_id"] for r in recs if r["event"] == "match_started"]
    ended = {r["match_id"]: r["status"] for r in recs if r["event"] == "match_ended"}
    assert set(started) == set(ended), recs
    aborted = [m for m, st in ended.items() if st == "aborted: referee shutting down"]
    assert len(aborted) == 1 and started[-1] == aborted[0], ended
    closed = {r["name"]: r["reason"] for r in recs if r["event"] == "closed"}
    assert closed == {n: "shutdown" for n in BOTS}, recs
    assert recs[-1]["event"] == "stopped" and recs[-1]["matches_stopped"] == 1, recs[-1]
    assert recs[-1]["connections_closed"] == _closed_by_shutdown(recs), recs
    return aborted[0]


def _status(tmp: Path) -> str:
    """``referee tournament status hosted`` (its output)."""
    return subprocess.run([sys.executable, "-m", "referee.cli", "tournament", "status", "hosted", "--db",
                           str(tmp / "t.sqlite")], cwd=ROOT, capture_output=True, text=True, env=ENV,
                          timeout=60).stdout


def _closed_by_shutdown(recs: list[dict]) -> int:
    return sum(r["event"] == "closed" and r["reason"] == "shutdown" for r in recs)


def test_the_driver_waits_for_a_restarted_referee_and_plays_the_lost_match_again(hosted, tmp_path: Path) -> None:
    """The lost match is played again once the referee is back and the external bots, which reconnect
    later (back-off), are connected again: never with them as no-shows, however short connect_timeout."""
    addr, serve, oplog, again, f = hosted
    f.write_text(f.read_text() + "[clock]\nconnect_timeout_ms = 500\n")
    driver = _driver(f, addr, "--reconnect", "60")
    try:
        _until(lambda: _in_flight(oplog, 2), "the second match to be in flight", shown=oplog)
        assert _sigterm(serve) == 0
        stopped = _shutdown_logged(oplog)
        assert stopped == "hosted-m00001"  # the tournament's own match ids, on the referee too
        waiting = _until(lambda: "waiting for the referee" in (s := _status(tmp_path)) and s, "status to show the wait")
        assert re.search(rf"\n  waiting for the referee at {re.escape(addr)} since [\d:]+ \(gives up at [\d:]+\)\n",
                         waiting), waiting
        second = tmp_path / "serve2.jsonl"
        again(second)  # same port, same log directory: it has the stopped match's log
        _until(lambda: "waiting for" not in _status(tmp_path), "status to show the wait is over")
        out, err = driver.communicate(timeout=120)
    finally:
        stop_process(driver)
    assert driver.returncode == 0, err
    assert f"note: the referee at {addr} went away" in err and "waiting up to 60 s for it to come back" in err, err
    assert f"note: the referee at {addr} is back; playing on" in err and "Traceback" not in err, err
    assert {row["bot"]: row["matches"] for row in json.loads(out)} == {n: 6 for n in BOTS}
    _counted_once(tmp_path)
    # the stopped match played again under its own id with a suffix (the referee keeps the first attempt's log)
    replayed = [r["match_id"] for r in _records(second, "match_started")]
    assert replayed[0] == "hosted-m00001-2" and all(m.startswith("hosted-m0000") for m in replayed), replayed
    assert (tmp_path / "logs" / "hosted" / "hosted-m00001.jsonl").exists()
    assert all(r["status"] == "complete" for r in _records(second, "match_ended"))
    assert all(r["no_show"] == [] for r in _records(second, "match_started")), _records(second)
    assert not _records(second, "match_waiting"), _records(second)
    assert "faults of" not in (status := _status(tmp_path)), status  # no fault charged to any bot


def test_without_reconnect_the_driver_says_how_to_resume_and_resume_finishes(hosted, tmp_path: Path) -> None:
    """The command printed (and the one `tournament status` gives) names the admin token's file, never
    the token, and finishes the run as it is."""
    addr, serve, oplog, again, f = hosted
    token_file = tmp_path / "admin.token"
    token_file.write_text(ADMIN + "\n")
    driver = _driver(f, addr, "--reconnect", "0", "--admin-token-file", str(token_file))
    try:
        _until(lambda: _in_flight(oplog, 2), "the second match to be in flight", shown=oplog)
        assert _sigterm(serve) == 0
        _, err = driver.communicate(timeout=60)
    finally:
        stop_process(driver)
    assert driver.returncode == 1 and "Traceback" not in err and ADMIN not in err, err
    msg = " ".join(err.split())
    assert f"the referee at {addr} went away (the referee is shutting down: match hosted-m00001 was stopped" in msg
    assert "certificate" not in msg, msg
    assert "the finished matches are saved" in msg, msg
    m = re.search(r"continue with `(referee tournament run [^`]+)`", msg)
    assert m and m.group(1) == (f"referee tournament run {f} --referee {addr} --admin-token-file {token_file} "
                                "--resume"), msg
    # tournament status gives the same command: the stored tournament knows where it ran and the admin
    # token's file (never the token)
    st = subprocess.run([sys.executable, "-m", "referee.cli", "tournament", "status", "hosted", "--db",
                         str(tmp_path / "t.sqlite")], cwd=ROOT, capture_output=True, text=True, timeout=60,
                        env={k: v for k, v in os.environ.items() if k != "REFEREE_DB"})
    assert f"finish it with `{m.group(1)} --db {tmp_path / 't.sqlite'}`" in " ".join(st.stdout.split()), st.stdout
    assert ADMIN not in st.stdout + st.stderr and "REFEREE_ADMIN_TOKEN" not in st.stdout + msg
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        stored = db.execute("SELECT spec_json FROM tournaments").fetchone()[0]
    assert json.loads(stored)["referee"] == addr and ADMIN not in stored, stored
    assert json.loads(stored)["admin_token_file"] == str(token_file), stored
    again(tmp_path / "serve2.jsonl")
    r = subprocess.run([sys.executable, "-m", "referee.cli", *m.group(1).split()[1:],
                        "--quiet", "--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env={k: v for k, v in os.environ.items() if k != "REFEREE_ADMIN_TOKEN"})
    assert r.returncode == 0, r.stderr
    assert {row["bot"]: row["matches"] for row in json.loads(r.stdout)} == {n: 6 for n in BOTS}
    _counted_once(tmp_path)


def test_ctrl_c_while_the_driver_waits_for_the_referee_stops_it_with_the_resume_command(hosted, tmp_path: Path) -> None:
    addr, serve, oplog, _, f = hosted
    err_file = tmp_path / "driver.err"
    with err_file.open("w") as err:
        driver = subprocess.Popen([sys.executable, "-m", "referee.cli", "tournament", "run", str(f), "--referee",
                                   addr, "--quiet", "--reconnect", "600"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=err, env={**os.environ, "REFEREE_ADMIN_TOKEN": ADMIN})
    try:
        _until(lambda: _records(oplog, "match_started"), "the first match to start", shown=oplog)
        assert _sigterm(serve) == 0
        _until(lambda: "waiting up to 600 s for it to come back" in err_file.read_text(), "the driver to wait",
               shown=err_file)
        driver.send_signal(signal.SIGINT)
        assert driver.wait(30) == 130
    finally:
        stop_process(driver)
    text = " ".join(err_file.read_text().split())
    # the admin token was in REFEREE_ADMIN_TOKEN: the command says it needs it set (never the token)
    command = f"referee tournament run {f} --referee {addr} --resume"
    assert f"interrupted: finished matches are saved; continue with `{command}` (with REFEREE_ADMIN_TOKEN set)" \
        in text and "Traceback" not in text and ADMIN not in text, text
    status = " ".join(_status(tmp_path).split())
    assert f"finish it with `{command} --db {tmp_path / 't.sqlite'}` (with REFEREE_ADMIN_TOKEN set)" in status, status


def test_only_a_failure_that_can_be_tls_gets_the_certificate_hint() -> None:
    addr = "localhost:50751"
    refused = ("failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:50751: Failed to "
               "connect to remote host: Connection refused")
    for ca in (None, "cert.pem"):
        for details in (refused, "Cancelling all calls"):
            text = unreachable("referee", addr, details, ca)
            assert "certificate" not in text and "--tls-ca" not in text, text
        assert unreachable("referee", addr, refused, ca).endswith("is `referee serve` running on that port?")
    handshake = ("failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:50751: Tls handshake "
                 "failed (TSI_PROTOCOL_FAILURE): SSL_ERROR_SSL: CERTIFICATE_VERIFY_FAILED: self signed: OK")
    assert unreachable("referee", addr, handshake, "ca.pem").endswith(
        f"self signed); does its certificate match {addr} and --tls-ca?")
    plain = "failed to connect to all addresses; last error: UNAVAILABLE: ipv4:127.0.0.1:50751: Socket closed"
    assert unreachable("referee", addr, plain, None).endswith("; if it speaks TLS, give --tls-ca")


def test_a_referee_that_went_away_is_told_with_a_short_plain_reason() -> None:
    """gRPC's transport text becomes a few plain words; the referee's own reason stays as it is."""
    class Failed(grpc.RpcError):
        def __init__(self, code: grpc.StatusCode, details: str):
            self._code, self._details = code, details

        def code(self) -> grpc.StatusCode:
            return self._code

        def details(self) -> str:
            return self._details

    remote = RemoteReferee("127.0.0.1:50961", ADMIN)
    remote.reached = True
    refused = ("failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:50961: Failed to connect "
               "to remote host: Connection refused")
    for code, details, reason in (
            (grpc.StatusCode.UNAVAILABLE, refused, "connection refused"),
            (grpc.StatusCode.UNAVAILABLE, "Socket closed", "connection closed"),
            (grpc.StatusCode.UNAVAILABLE, "Connection reset by peer", "connection reset"),
            (grpc.StatusCode.CANCELLED, "Cancelling all calls", "the call was cancelled"),
            (grpc.StatusCode.UNAVAILABLE, "the referee is shutting down: match t-m00001 was stopped",
             "the referee is shutting down: match t-m00001 was stopped")):
        gone = remote._failure(Failed(code, details))
        assert str(gone) == f"the referee at 127.0.0.1:50961 went away ({reason})", (details, str(gone))


def test_a_match_waiting_names_every_seat_whose_bot_is_absent(tmp_path: Path) -> None:
    """No bot of the match connected: its one ``match_waiting`` line names all three seats."""
    from referee.oplog import OperatorLog

    async def body() -> list[dict]:
        ref = Referee(tmp_path / "served", admin_token=ADMIN, oplog=OperatorLog())
        tokens = [ref.new_token(name) for name in BOTS]
        spec = MatchSpec(game="doudizhu", players=3, seed=1, seat_names=list(BOTS), params={"rounds": 1},
                         match_id="absent-m00000")
        await ref.play(spec, tokens, connect_timeout_s=0.2)
        return list(ref.oplog.recent)

    recs = run(body())
    waiting = [r for r in recs if r["event"] == "match_waiting"]
    assert len(waiting) == 1 and waiting[0]["waiting_for"] == list(BOTS), recs


def test_a_match_id_the_referee_already_has_gets_a_suffix(tmp_path: Path) -> None:
    """Two tournaments of one name on one referee (or a match played again): the second match of
    the same id is played as ``<id>-2``, the third as ``<id>-3``; nothing fails."""
    async def body() -> list[str]:
        ref = Referee(tmp_path / "served", admin_token=ADMIN)
        port = await ref.start("127.0.0.1", 0)
        try:
            remote = RemoteReferee(f"127.0.0.1:{port}", ADMIN)
            ids = []
            for _ in range(3):
                spec = MatchSpec(game="doudizhu", players=3, seed=1, seat_names=["a", "b", "c"],
                                 params={"rounds": 1}, match_id="same-m00000")
                seats = [RemoteSeat(command=f"python sample_bots/random_bot.py --seed {i}") for i in range(3)]
                out = await remote.play(spec, seats, tmp_path / "logs", base_dir=ROOT, own_id=True)
                assert out.status == "complete", out.result
                ids.append(out.match_id)
            return ids
        finally:
            await ref.stop(0.2)

    (tmp_path / "logs").mkdir()
    assert run(body()) == ["same-m00000", "same-m00000-2", "same-m00000-3"]


def test_when_every_suffix_is_taken_the_match_gets_the_referees_own_id() -> None:
    class Taken(grpc.RpcError):
        def code(self) -> grpc.StatusCode:
            return grpc.StatusCode.ALREADY_EXISTS

        def details(self) -> str:
            return "this referee already has a match"

    class Stub:  # a referee that has every id it is offered
        tried: list[str] = []

        async def RunMatch(self, req, metadata):
            self.tried.append(req.match_id)
            if req.match_id:
                raise Taken()
            return admin_pb2.RunMatchResponse(match_id="doudizhu-20261206-190000-abcdef-1")

    stub = Stub()
    remote = RemoteReferee("127.0.0.1:1", ADMIN)
    res = run(remote._run_match_call(stub, admin_pb2.RunMatchRequest(match_id="t-m00000"), [], unique_id=True))
    assert res.match_id == "doudizhu-20261206-190000-abcdef-1"
    assert stub.tried == ["t-m00000", *(f"t-m00000-{n}" for n in range(2, MAX_ID_SUFFIX + 1)), ""]
    with pytest.raises(grpc.RpcError):  # without unique_id, the referee's ALREADY_EXISTS stands
        run(remote._run_match_call(stub, admin_pb2.RunMatchRequest(match_id="t-m00000"), [], unique_id=False))


def test_a_match_waiting_for_a_seat_when_the_referee_stops_is_logged_aborted(hosted, tmp_path: Path) -> None:
    """``referee match --seat alice --seat bob --seat dave`` (dave never connects): the referee logs
    that the match waits for dave; SIGTERM then stops it, and its log says so by the match's id,
    as for a match in flight; the ``stopped`` line counts the ``closed`` lines it wrote."""
    addr, serve, oplog, _, _ = hosted
    client = subprocess.Popen([sys.executable, "-m", "referee.cli", "match", "doudizhu", "--referee", addr,
                               "--seat", "alice", "--seat", "bob", "--seat", "dave", "--rounds", "3",
                               "--log-dir", str(tmp_path / "client")], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "REFEREE_ADMIN_TOKEN": ADMIN})
    try:
        waiting = _until(lambda: _records(oplog, "match_waiting"), "the match to wait for dave", shown=oplog)
        assert _sigterm(serve) == 0
        out, err = client.communicate(timeout=60)
    finally:
        stop_process(client)
    assert len(waiting) == 1 and waiting[0]["waiting_for"] == ["dave"] and waiting[0]["wait_s"] > 0, waiting
    match_id = waiting[0]["match_id"]
    assert f"match {match_id} was stopped before its end" in " ".join((out + err).split()), out + err
    assert "Traceback" not in out + err
    recs = _records(oplog)
    named = [r for r in recs if r.get("match_id") == match_id]
    assert [r["event"] for r in named] == ["match_waiting", "match_ended"], named
    assert named[1]["status"] == "aborted: referee shutting down" and named[1]["waiting_for"] == ["dave"], named
    assert recs[-1]["event"] == "stopped" and recs[-1]["matches_stopped"] == 1, recs[-1]
    assert recs[-1]["connections_closed"] == _closed_by_shutdown(recs) == 3, recs


def test_the_stopped_line_counts_the_bots_a_driver_launched_too(hosted, tmp_path: Path) -> None:
    """A hosted tournament with a bot the driver launches (it connects with a token the driver
    registered): stopped in flight, the referee closes that bot's connection with the match; the
    ``stopped`` line's ``connections_closed`` counts it with the three bots connected on their own."""
    addr, serve, oplog, _, _ = hosted
    f = tmp_path / "mixed.toml"
    entries = "".join(f'[[bots]]\nname = "{n}"\nexternal = true\ntoken = "{BOTS[n]}"\n\n' for n in ("alice", "bob"))
    f.write_text(f'name = "mixed"\ngame = "doudizhu"\nplayers = 3\nseed = 3\nconcurrency = 1\n'
                 f'database = "{tmp_path / "m.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n'
                 f'params = {{ rounds = 1 }}\n\n{entries}'
                 f'[[bots]]\nname = "slow"\ncommand = "python {tmp_path / "slow.py"}"\n')
    driver = _driver(f, addr, "--reconnect", "0")
    try:
        _until(lambda: _in_flight(oplog, 1), "the first match to be in flight", shown=oplog)
        assert _sigterm(serve) == 0
        driver.communicate(timeout=60)
    finally:
        stop_process(driver)
    recs = _records(oplog)
    closed = sorted(r["name"] for r in recs if r["event"] == "closed" and r["reason"] == "shutdown")
    assert closed == ["alice", "bob", "carol", "slow"], recs
    ended = [r["status"] for r in recs if r["event"] == "match_ended"]
    assert ended == ["aborted: referee shutting down"], recs
    assert recs[-1]["event"] == "stopped" and recs[-1]["connections_closed"] == 4, recs[-1]
