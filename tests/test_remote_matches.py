"""Matches played on a running ``referee serve`` end like local ones, and a
ladder plays its matches there.

Real processes on loopback: a ``referee serve`` on port 0 (its operator log in
a file), the CLI as the operator with the admin token in the environment, the
sample bots launched by the CLI. ``referee match --referee`` prints the same
summary as a local ``referee match`` (rounds, result table, crash reason,
log, replay) with the log fetched from the referee (``AdminService.MatchLog``)
and the same seat names; Ctrl-C stops the match on the referee too and says
what was played, in a local match's words. ``referee ladder FILE --referee``
plays and rates its matches there and keeps their logs.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PY, ROOT, run, stop_server

ADMIN = "remote-matches-admin-token"


def _env() -> dict[str, str]:
    return {**os.environ, "REFEREE_ADMIN_TOKEN": ADMIN}


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=_env())


def _wait(check, what: str, timeout: float = 60.0, shown: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}" + (f":\n{shown.read_text()}" if shown else ""))


@pytest.fixture()
def serve_proc(tmp_path: Path):
    """(address, served log dir, operator log file, the process) of a ``referee serve`` on 127.0.0.1 port 0."""
    served_dir, oplog = tmp_path / "served", tmp_path / "serve.err"
    with oplog.open("w") as err:
        p = subprocess.Popen([PY, "-m", "referee.cli", "serve", "--port", "0", "--log-dir", str(served_dir)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True, env=_env(),
                             start_new_session=True)
    try:
        m = re.search(r"listening on [\d.]+:(\d+)", p.stdout.readline() if p.stdout else "")
        assert m, oplog.read_text()
        yield f"127.0.0.1:{m.group(1)}", served_dir, oplog, p
    finally:
        stop_server(p)


@pytest.fixture()
def served(serve_proc):
    """(address, served log dir, operator log file) of a ``referee serve`` on 127.0.0.1 port 0."""
    return serve_proc[:3]


def _rounds(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith("  round ")]


BOTS = [f"python sample_bots/random_bot.py --seed {i}" for i in range(3)]


def _kill_group(p: subprocess.Popen) -> None:
    """Kill ``p``'s process group if ``p`` is still running (a test's clean-up)."""
    if p.poll() is None:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(5)


def test_a_remote_match_prints_the_summary_log_and_replay_of_a_local_one(served, tmp_path: Path) -> None:
    addr, served_dir, _ = served
    common = ["match", "doudizhu", "--rounds", "2", "--seed", "7", *sum((["--bot", b] for b in BOTS), [])]
    local = _cli(*common, "--log-dir", str(tmp_path / "local"), "--no-bot-uids")
    remote = _cli(*common, "--log-dir", str(tmp_path / "remote"), "--referee", addr)
    assert local.returncode == remote.returncode == 0, local.stderr + remote.stderr
    # same seed, same bots: the same match, told the same way, with the same seat names
    assert len(_rounds(remote.stdout)) == 2 and _rounds(remote.stdout) == _rounds(local.stdout), remote.stdout
    header = re.compile(r"doudizhu match (\S+): 3 seats, seed 7, (\d+) decisions in [\d.]+ s — complete")
    (lm,), (rm,) = header.findall(local.stdout), header.findall(remote.stdout)
    assert lm[1] == rm[1]
    for name in ("random#0", "random#1", "random#2"):
        assert re.search(rf"│ \d +│ {re.escape(name)} +│", remote.stdout), remote.stdout
    # the log was fetched here, is the referee's log byte for byte, and has its replay beside it
    log = tmp_path / "remote" / f"{rm[0]}.jsonl"
    assert f"log: {log}" in remote.stdout and log.read_bytes() == (served_dir / log.name).read_bytes()
    replay = re.search(r"^replay: (\S+)$", remote.stdout, re.M)
    assert replay and Path(replay.group(1)).is_file() and Path(replay.group(1)).parent.parent == log.parent
    assert json.loads(log.read_text().splitlines()[0])["spec"]["seat_names"] == ["random#0", "random#1", "random#2"]
    assert "Traceback" not in remote.stdout + remote.stderr


def test_a_crashed_launched_bot_is_reported_in_the_words_of_a_local_match(served, tmp_path: Path) -> None:
    addr, _, _ = served
    crash = "python sample_bots/chaos_bot.py --mode crash-mid-match"
    seats = ["--bot", BOTS[0], "--bot", crash, "--bot", BOTS[2]]
    outs = {}
    for where, extra in (("local", ["--no-bot-uids"]), ("remote", ["--referee", addr])):
        r = _cli("match", "doudizhu", "--rounds", "1", "--decision-ms", "300", *seats, "--log-dir", str(tmp_path / where),
                 *extra)
        assert r.returncode == 0, r.stdout + r.stderr
        outs[where] = r.stdout
        m = re.search(r"^  seat 1 crash: bot exited with status 4.* \(stderr: (\S+), stdout: \S+\)$", r.stdout, re.M)
        assert m and Path(m.group(1)).parent == tmp_path / where, r.stdout
        assert re.search(r"│ 1 +│ chaos-crash-mid-match#1 +│.*crash×1", r.stdout), r.stdout
        log = re.search(r"^log: (\S+)$", r.stdout, re.M)
        faults = [json.loads(ln) for ln in Path(log.group(1)).read_text().splitlines() if '"type":"fault"' in ln]
        assert any(f["kind"] == "crash" and f["seat"] == 1 for f in faults)


def test_sigterm_stops_the_match_on_the_referee_and_says_what_was_played(served, tmp_path: Path) -> None:
    addr, served_dir, oplog = served
    marker = f"rmt{os.getpid()}x{time.monotonic_ns() % 10**6}"
    cmd = [PY, "-m", "referee.cli", "match", "doudizhu", "--rounds", "100000", "--referee", addr,
           "--log-dir", str(tmp_path / "remote"),
           *sum((["--bot", f"python sample_bots/random_bot.py --name {marker}"] for _ in range(3)), [])]
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                         start_new_session=True)
    try:
        log = _wait(lambda: next(iter(served_dir.glob("*.jsonl")), None), "the match to start on the referee")
        _wait(lambda: log.read_text().count('"type":"decision"') >= 150, "a few rounds")
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        _kill_group(p)
    assert p.returncode == 128 + signal.SIGTERM, out + err
    m = re.search(rf"^doudizhu match {re.escape(log.stem)}: interrupted after (\d+) decisions$", out, re.M)
    assert m and int(m.group(1)) >= 150, out + err
    assert _rounds(out) and f"log (incomplete): {tmp_path / 'remote' / log.name}" in out
    assert "error" not in err and "Traceback" not in out + err
    # the launched bots are gone, and the referee stopped the match: it did not play on with fallbacks
    # (that would add lines to its log while it plays another match)
    _wait(lambda: not subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout, "the bots to exit")
    _wait(lambda: oplog.read_text().count(f"closed name={marker} ") == 3, "the seats closed on the referee",
          shown=oplog)
    size = log.stat().st_size
    again = _cli("match", "doudizhu", "--rounds", "1", "--referee", addr, "--log-dir", str(tmp_path / "again"),
                 *sum((["--bot", b] for b in BOTS), []))
    assert again.returncode == 0 and "— complete" in again.stdout, again.stdout + again.stderr
    assert log.stat().st_size == size
    # its one end line says it was stopped (no result), not that it ended
    ends = [ln for ln in oplog.read_text().splitlines() if f"match_ended match_id={log.stem} " in ln]
    assert len(ends) == 1 and "status='aborted: stopped by its caller'" in ends[0], ends


def test_a_match_the_referees_shutdown_cuts_off_says_what_was_played(serve_proc, tmp_path: Path) -> None:
    """The referee stops (SIGTERM) mid-match: the rounds played, from the log followed while the match
    ran, where that incomplete log is here and which match's log the referee keeps, then its error; exit 1."""
    addr, served_dir, _, serve = serve_proc
    marker = f"rmc{os.getpid()}x{time.monotonic_ns() % 10**6}"
    cmd = [PY, "-m", "referee.cli", "match", "doudizhu", "--rounds", "100000", "--referee", addr,
           "--log-dir", str(tmp_path / "remote"),
           *sum((["--bot", f"python sample_bots/random_bot.py --name {marker}"] for _ in range(3)), [])]
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                         start_new_session=True)
    try:
        here = tmp_path / "remote"
        arriving = _wait(lambda: next(iter(here.glob("doudizhu-*-1.jsonl.arriving")), None), "the log to arrive here")
        _wait(lambda: arriving.read_text().count('"type":"decision"') >= 150, "a few rounds here")
        log = here / arriving.stem  # where what arrived is left
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(30) == 0
        out, err = p.communicate(timeout=60)
    finally:
        _kill_group(p)
    assert p.returncode == 1 and "Traceback" not in out + err, out + err
    m = re.search(rf"^doudizhu match {re.escape(log.stem)}: cut off by the referee's shutdown after (\d+) decisions$",
                  out, re.M)
    assert m and int(m.group(1)) >= 150, out + err
    rounds = _rounds(out)
    assert rounds and all(re.fullmatch(r"  round \d+: .*", r) for r in rounds), out
    assert f"log (incomplete, as far as it arrived here): {log}" in out, out
    assert f"the referee at {addr} keeps its own log of the match: {log.name} in its --log-dir" in out, out
    assert (served_dir / log.name).is_file()
    # what arrived is the start of the referee's log, in whole lines
    assert (served_dir / log.name).read_bytes().startswith(log.read_bytes()) and log.read_text().endswith("\n")
    assert not arriving.exists()
    assert (f"error: the referee at {addr} went away (the referee is shutting down: match {log.stem} was stopped"
            in " ".join(err.split())), err
    _wait(lambda: not subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout, "the bots to exit")


def test_a_match_cut_off_before_it_started_says_so(serve_proc, tmp_path: Path) -> None:
    """The referee stops while it waits for a bot that never connects: no log arrived, which is said
    (with where the referee keeps one if the match had started), then its error; exit 1."""
    addr, _, _, serve = serve_proc
    started = tmp_path / "mute.started"
    (tmp_path / "mute.py").write_text(f"import pathlib, time\npathlib.Path({str(started)!r}).touch()\n"
                                      "time.sleep(60)\n")
    p = subprocess.Popen([PY, "-m", "referee.cli", "match", "doudizhu", "--referee", addr, "--log-dir",
                          str(tmp_path / "remote"), *["--bot", f"python {tmp_path / 'mute.py'}"] * 3], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                         start_new_session=True)
    try:
        _wait(started.exists, "a launched bot to start")
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(30) == 0
        out, err = p.communicate(timeout=60)
    finally:
        _kill_group(p)
    assert p.returncode == 1 and "Traceback" not in out + err, out + err
    assert "the match was cut off before any of its log arrived here (if it had started, the referee at " \
           f"{addr} keeps its own log of the match: doudizhu-" in " ".join(err.split()), err
    assert f"error: the referee at {addr} went away (the referee is shutting down" in " ".join(err.split()), err
    assert not list((tmp_path / "remote").glob("*.jsonl*"))


def test_a_log_is_followed_from_where_it_was_left_in_whole_lines(tmp_path: Path) -> None:
    """``MatchLog`` from an offset sends what was added since (each chunk with its offset); the
    follower writes whole lines only and asks again from the end of them; a negative offset is refused."""
    import grpc

    from referee.remote import RemoteReferee
    from referee.service import Referee

    served, dest = tmp_path / "served", tmp_path / "here.jsonl"
    served.mkdir()
    log = served / "m-1.jsonl"

    async def body() -> None:
        ref = Referee(served, admin_token=ADMIN)
        port = await ref.start("127.0.0.1", 0)
        try:
            remote = RemoteReferee(f"127.0.0.1:{port}", ADMIN)
            with pytest.raises(grpc.RpcError) as e:  # no log yet
                await remote.log_since("m-1", dest, 0)
            assert e.value.code() == grpc.StatusCode.NOT_FOUND
            log.write_bytes(b'{"a":1}\n{"b":')
            assert await remote.log_since("m-1", dest, 0) == 8 and dest.read_bytes() == b'{"a":1}\n'
            assert await remote.log_since("m-1", dest, 8) == 8  # the line being written waits
            log.write_bytes(b'{"a":1}\n{"b":2}\n{"c":3}\n')
            assert await remote.log_since("m-1", dest, 8) == 24 and dest.read_bytes() == log.read_bytes()
            assert await remote.log_since("m-1", dest, 24) == 24  # nothing new
            with pytest.raises(grpc.RpcError) as e:
                await remote.log_since("m-1", dest, -1)
            assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        finally:
            await ref.stop(0.2)

    run(body())


def test_a_referee_older_than_the_offset_has_its_whole_log_rewritten(tmp_path: Path, monkeypatch) -> None:
    """A referee that ignores ``MatchLogRequest.offset`` sends the whole log, its chunks at offset 0:
    the follower writes it over what it has instead of after it."""
    from cardgames.v1 import admin_pb2
    from referee import remote as remote_mod

    whole = b'{"a":1}\n{"b":2}\n'

    class OldStub:
        def __init__(self, _channel) -> None:
            pass

        async def MatchLog(self, request, metadata, timeout):  # an async generator, as the real stub's stream
            for i in range(0, len(whole), 5):
                yield admin_pb2.MatchLogChunk(data=whole[i:i + 5])

    monkeypatch.setattr(remote_mod.admin_pb2_grpc, "AdminServiceStub", OldStub)
    dest = tmp_path / "here.jsonl"
    dest.write_bytes(b'{"a":1}\n')
    remote = remote_mod.RemoteReferee("127.0.0.1:1", ADMIN)
    assert run(remote.log_since("m-1", dest, 8)) == len(whole) and dest.read_bytes() == whole


def _ladder_file(tmp_path: Path, bots: str) -> Path:
    f = tmp_path / "rl.toml"
    f.write_text(f'name = "rl"\ngame = "doudizhu"\nplayers = 3\nseed = 5\nconcurrency = 2\n'
                 f'database = "{tmp_path / "ladder.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\nport = 0\n'
                 f'params = {{ rounds = 1 }}\n[clock]\ndecision_ms = 5000\n{bots}')
    return f


def test_a_ladder_plays_and_rates_its_matches_on_a_remote_referee(served, tmp_path: Path) -> None:
    from tournaments.ladder import load, verify_history
    from tournaments.ladder_store import LadderStore
    from tournaments.store import Store

    addr, served_dir, oplog = served
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                   for i in range(4))
    f = _ladder_file(tmp_path, bots)
    r = _cli("ladder", str(f), "--referee", addr, "--max-matches", "4", timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"matches on the referee at {addr}" in r.stdout
    assert len(re.findall(r"^match \d+ finished \(complete\)", r.stdout, re.M)) == 4, r.stdout
    assert oplog.read_text().count("match_started") == 4  # every match was played there
    board = json.loads(_cli("leaderboard", "--db", str(tmp_path / "ladder.sqlite"), "--tournament", "rl",
                            "--format", "json").stdout)
    assert sum(row["matches"] for row in board) == 12 and all(row["crashes"] == 0 for row in board)
    spec = load(f)
    store = Store(spec.t.database)
    try:
        ls = LadderStore(store)
        tid = store.tournament("rl")["id"]
        rows = ls.match_rows(tid)
        assert not verify_history(spec, ls.events(tid), rows)
    finally:
        store.close()
    assert len(rows) == 4
    for row in rows.values():  # each log kept in the ladder's log directory, its seats named by version
        assert row.status == "complete" and row.result["worker"] == "remote"
        assert Path(row.log_path).parent == tmp_path / "logs" / "rl"
        head = json.loads(Path(row.log_path).read_text().splitlines()[0])
        assert head["spec"]["seat_names"] == list(row.seats)


def test_a_remote_ladder_refuses_what_cannot_play_there(served, tmp_path: Path) -> None:
    addr, _, _ = served
    f = _ladder_file(tmp_path, '[[bots]]\nname = "p"\ncommand = "python sample_bots/random_bot.py"\n'
                               'persistent = true\n')
    r = _cli("ladder", str(f), "--referee", addr, "--max-matches", "1")
    assert r.returncode == 1 and "external and persistent bots (p) cannot play on another referee" in r.stderr
    r = _cli("ladder", str(f), "--tls-ca", str(f), "--max-matches", "1")
    assert r.returncode == 2 and "--tls-ca goes with --referee" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr
