"""`referee ladder` end to end: real referee and bot processes on loopback,
the admin RPC through the CLI, the store read back (SQLite and a real
PostgreSQL server); a stop, a restart and a kill -9 (nothing replayed,
nothing lost); one ladder process per ladder (the lease: a second start
refused, a dead one's lease taken over); suspension of a crashing bot and
the admin token, in process over real gRPC."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import secrets
import shlex
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import grpc
import pytest
import typer
from sqlalchemy import update

from cardgames.v1 import admin_pb2, admin_pb2_grpc
from conftest import PY, ROOT
from pgserver import pg_server  # noqa: F401  (session fixture)
from tournaments import matchmaking
from tournaments.ladder import Ladder, LadderError, LadderState, load, verify_history
from tournaments.ladder_store import Event, FinishedMatch, LadderStore
from tournaments.schema import bots
from tournaments.running import read_running
from tournaments.store import LeaseHolder, MatchRow, Store

ADMIN = "ladder-admin-token-for-tests"


def _bot(kind: str, seed: int, marker: str) -> str:
    return f"python sample_bots/{kind}_bot.py --seed {seed} --name {marker}"


def _file(tmp_path: Path, name: str, bots: list[tuple[str, str]], extra: str = "", db: str | None = None) -> Path:
    f = tmp_path / f"{name}.toml"
    text = (f'name = "{name}"\ngame = "doudizhu"\nplayers = 3\nseed = 5\nconcurrency = 1\n'
            f'database = "{db or tmp_path / "ladder.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n'
            f'params = {{ rounds = 1 }}\n{extra}\n[clock]\ndecision_ms = 5000\n')
    text += "".join(f'[[bots]]\nname = "{n}"\ncommand = "{c}"\n' for n, c in bots)
    f.write_text(text)
    return f


def _env() -> dict[str, str]:
    return {**os.environ, "REFEREE_ADMIN_TOKEN": ADMIN}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True, env=_env(),
                          timeout=120)


class LadderProc:
    """`referee ladder FILE` in its own process group, its stdout in a file."""

    def __init__(self, tmp_path: Path, f: Path, *extra: str):
        self.out = tmp_path / f"ladder-{time.monotonic_ns()}.out"
        self.fh = self.out.open("w")
        self.p = subprocess.Popen([PY, "-m", "referee.cli", "ladder", str(f), *extra], cwd=ROOT, env=_env(),
                                  stdout=self.fh, stderr=subprocess.STDOUT, start_new_session=True)
        m = self.wait(r"listening on 127\.0\.0\.1:(\d+)")
        self.addr = f"127.0.0.1:{m.group(1)}"

    def text(self) -> str:
        return self.out.read_text()

    def wait(self, pattern: str, timeout: float = 90.0, count: int = 1) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = list(re.finditer(pattern, self.text()))
            if len(found) >= count:
                return found[count - 1]
            if self.p.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError(f"no {count}x {pattern!r} in the ladder's output:\n{self.text()}")

    def stop(self, sig: int = signal.SIGINT, timeout: float = 60) -> int:
        try:
            os.kill(self.p.pid, sig)
            return self.p.wait(timeout)
        finally:
            self.close()

    def close(self) -> None:
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait(10)
        self.fh.close()


def _pids(marker: str) -> list[str]:
    r = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return r.stdout.split()


def _no_bot_left(marker: str, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _pids(marker):
        time.sleep(0.1)
    return not _pids(marker)


def _history(f: Path):
    spec = load(f)
    store = Store(spec.t.database)
    ls = LadderStore(store)
    tid = store.tournament(spec.name)["id"]
    out = spec, ls.events(tid), ls.match_rows(tid), ls.versions(tid)
    store.close()
    return out


def _board(f: Path) -> dict[str, dict]:
    spec = load(f)
    r = _cli("leaderboard", "--db", spec.t.database, "--tournament", spec.name, "--format", "json")
    assert r.returncode == 0, r.stderr
    return {row["bot"]: row for row in json.loads(r.stdout)}


def _check_web(f: Path, labels: list[str]) -> None:
    """The web pages (`referee report`, the same pages `referee web` serves) show the
    ladder like a tournament: every version on the leaderboard, its own page, the matches."""
    spec = load(f)
    # the ladder lists the matches it plays in <log_dir>/.running (what the live site reads); stopped, none
    assert read_running(Path(spec.t.log_dir) / spec.name) == []
    out = Path(spec.t.log_dir).parent / "report"
    r = _cli("report", spec.name, "--db", spec.t.database, "--out", str(out))
    assert r.returncode == 0, r.stderr
    index = (out / "index.html").read_text()
    for lbl in labels:
        assert lbl in index
    assert (out / "bots" / "newbot_v1.html").is_file() and (out / "matches.html").is_file()
    assert list((out / "replays").iterdir())
    # a ladder only grows: its matches page lists the latest first
    numbers = [int(n) for n in re.findall(r'<tr data-bots="[^"]*" data-match="[^"]*"><td>(\d+)</td>',
                                          (out / "matches.html").read_text())]
    assert len(numbers) > 1 and numbers == sorted(numbers, reverse=True)


def _report(f: Path) -> Path:
    spec = load(f)
    out = Path(spec.t.log_dir).parent / "report"
    r = _cli("report", spec.name, "--db", spec.t.database, "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out


def _entrant_row(index_html: str, name: str) -> str:
    """The row of entrant ``name`` in the Entrants table of a report's index page."""
    m = re.search(rf'<tr data-entrant="{re.escape(name)}" data-state="[a-z]+">.*?</tr>', index_html, re.S)
    assert m, f"no entrant row for {name}"
    return m.group(0)


def _check_each_match_once(events, rows) -> None:
    scheduled = [e.sched for e in events if e.kind == "scheduled"]
    finished = [e.sched for e in events if e.kind == "finished"]
    assert len(set(scheduled)) == len(scheduled)
    assert len(set(finished)) == len(finished)  # no match counted twice
    assert sorted(rows) == list(range(1, len(rows) + 1)) == sorted(e.data["idx"] for e in events
                                                                    if e.kind == "finished")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "ladder.sqlite")
    return request.getfixturevalue("pg_server").new_database()


def test_ladder_add_replace_stop_and_restart(tmp_path: Path, db_url: str) -> None:
    marker = f"lad{secrets.token_hex(4)}"
    f = _file(tmp_path, "lad", [("r1", _bot("random", 1, marker)), ("r2", _bot("random", 2, marker)),
                                ("h1", _bot("heuristic", 3, marker))], db=db_url)
    lad = LadderProc(tmp_path, f)
    try:
        lad.wait(r"match 1 finished \(complete\)")
        r = _cli("ladder", "add", "newbot", "--referee", lad.addr, "--command", _bot("heuristic", 9, marker))
        assert r.returncode == 0, r.stderr
        assert "added newbot@v1" in r.stdout
        r = _cli("ladder", "replace", "r1", "--referee", lad.addr, "--command", _bot("heuristic", 5, marker))
        assert r.returncode == 0, r.stderr
        assert "r1 is now r1@v2" in r.stdout
        # unknown entrant, and a call without the admin token, are refused
        r = _cli("ladder", "retire", "nobody", "--referee", lad.addr)
        assert r.returncode == 1 and "NOT_FOUND" in r.stderr
        r = subprocess.run([PY, "-m", "referee.cli", "ladder", "status", "--referee", lad.addr], cwd=ROOT,
                           capture_output=True, text=True, env={**os.environ, "REFEREE_ADMIN_TOKEN": "wrong"})
        assert r.returncode == 1 and "PERMISSION_DENIED" in r.stderr
        # the two new versions are uncertain: both are in the next match
        lad.wait(r"match \d+ finished \(complete\): (?=.*newbot@v1)(?=.*r1@v2).*")
        r = _cli("ladder", "status", "--referee", lad.addr, "--json")
        assert r.returncode == 0, r.stderr
        st = {e["name"]: e for e in json.loads(r.stdout)["entrants"]}
        assert st["r1"]["label"] == "r1@v2" and st["newbot"]["matches"] >= 1 and st["r1"]["state"] == "active"
        assert lad.stop(signal.SIGINT) == 0
    finally:
        lad.close()
    assert "ladder stopped" in lad.text()
    assert _no_bot_left(marker), "a bot process outlived the ladder"

    spec, events, rows, versions = _history(f)
    _check_each_match_once(events, rows)
    assert not [e for e in events if e.kind == "scheduled"
                if e.sched not in {x.sched for x in events if x.kind == "finished"}]  # the stop drained
    assert verify_history(spec, events, rows) == []
    states = {v["label"]: v["state"] for v in versions}
    assert states == {"r1@v1": "replaced", "r2@v1": "active", "h1@v1": "active", "newbot@v1": "active",
                      "r1@v2": "active"}
    _check_web(f, ["newbot@v1", "r1@v1", "r1@v2"])
    out = _report(f)
    row = _entrant_row((out / "index.html").read_text(), "r1")  # the current version and the history
    assert 'data-state="active"' in row and "r1@v2" in row and "v1</a> <span class=\"muted\">replaced" in row
    page = (out / "bots" / "r1_v1.html").read_text()
    assert 'data-state="replaced"' in page and "replaced by v2" in page and 'data-version="r1@v2"' in page
    board = _board(f)
    # the new bot is rated (on the board with its matches; a 1-round match can end level, a draw
    # that live TrueSkill skips, so its sigma need not have moved yet)
    assert board["newbot@v1"]["matches"] >= 1 and board["newbot@v1"]["sigma"] <= 8.34
    assert board["r1@v1"]["matches"] >= 1  # the replaced version's history is kept
    assert board["r1@v2"]["matches"] >= 1
    before = len(rows)

    # started again: continues from the stored history, nothing replayed
    lad = LadderProc(tmp_path, f, "--max-matches", "1")
    try:
        assert lad.p.wait(120) == 0
    finally:
        lad.close()
    assert f"{before} matches so far" in lad.text()
    assert "restored from its snapshot" in lad.text()  # the stop kept the state: no history replayed
    assert "playing it again" not in lad.text()
    st = _cli("ladder", "status", "--config", str(f))
    assert st.returncode == 0 and "status stopped" in st.stdout and "r1@v2: active" in st.stdout, st.stdout
    spec, events2, rows2, _ = _history(f)
    assert events2[:len(events)] == events
    assert len(rows2) == before + 1
    _check_each_match_once(events2, rows2)
    assert verify_history(spec, events2, rows2) == []
    assert _no_bot_left(marker)
    v = _cli("ladder", "verify", str(f))  # the whole history against the snapshot and the stored ratings
    assert v.returncode == 0 and "give the same state" in v.stdout and "every recorded decision" in v.stdout, \
        v.stdout + v.stderr


class RecordedLadder:
    """A ladder written to its database the way the ladder process writes it
    (events, versions, matches and live ratings through :meth:`LadderStore.commit`),
    without processes: bots added, matches scheduled by the state and finished."""

    def __init__(self, f: Path):
        self.spec = load(f)
        self.store = Store(self.spec.t.database)
        self.ls = LadderStore(self.store)
        self.tid = self.ls.create(self.spec.name, self.spec.t.game, self.spec.stored_json(),
                                  self.spec.fingerprint())
        self.state = LadderState(self.spec)
        for b in self.spec.t.bots:
            label = f"{b.name}@v1"
            self.commit([Event(0, "add", b.name, data={"version": 1, "label": label, "command": b.command,
                                                       "external": False, "online": False})],
                        new_version={"name": b.name, "version": 1, "label": label, "command": b.command,
                                     "external": False, "token": "", "state": "active", "reason": "",
                                     "added_seq": self.state.last_seq + 1})

    def commit(self, events: list[Event], rows: dict | None = None, **kw) -> None:
        numbered = [Event(self.state.last_seq + i, e.kind, e.name, e.sched, e.data) for i, e in enumerate(events, 1)]
        self.ls.commit(self.tid, numbered, **kw)
        for e in numbered:
            self.state.apply(e, (rows or {}).get((e.data or {}).get("idx", -1)))

    def play(self, winner: int) -> None:
        m = self.state.next_match()
        self.commit([Event(0, "scheduled", sched=m.sched, data={
            "seats": m.seats, "seed": str(m.seed), "match_id": m.match_id, "seating": matchmaking.SEATING_DESIGN})])
        idx = self.state.finished + 1
        ranks = [1 if s == winner else 2 for s in range(len(m.seats))]
        result = {"status": "complete", "scores": [2 if r == 1 else -1 for r in ranks], "ranks": ranks,
                  "outcomes": [{"teams": [[winner], [s for s in range(len(m.seats)) if s != winner]],
                                "ranks": [0, 1]}], "faults": [], "forfeited": []}
        self.commit([Event(0, "finished", sched=m.sched, data={"idx": idx, "status": "complete"})],
                    {idx: MatchRow(idx, m.seed, list(m.seats), "complete", result, None)},
                    match=FinishedMatch(idx, m.seed, list(m.seats), "complete", result, None, 10, 0.1))


def test_verify_while_matches_are_recorded_compares_one_moment_and_finds_tampering(
        tmp_path: Path, db_url: str, monkeypatch, capsys) -> None:
    from referee.laddercli import ladder_verify

    f = _file(tmp_path, "vf", [(n, _bot("random", i, "unused")) for i, n in enumerate(("a", "b", "c"))], db=db_url)
    lad = RecordedLadder(f)
    for i in range(3):
        lad.play(i % 3)
    lad.ls.save_snapshot(lad.tid, lad.state.last_seq, lad.state.to_json())
    lad.play(1)
    # a match finishes between verify's reads: after it has read the events, before the rest
    real_iter = LadderStore.iter_events
    recorded: list[int] = []

    def events_then_a_match(self, *a, **kw):
        yield from real_iter(self, *a, **kw)
        if not recorded:
            recorded.append(lad.state.last_seq)
            lad.play(2)

    monkeypatch.setattr(LadderStore, "iter_events", events_then_a_match)
    ladder_verify(f, None)  # no difference: typer.Exit(1) otherwise
    out = capsys.readouterr().out
    assert recorded and f"ladder vf: {recorded[0]} events, 4 matches replayed" in out, out
    assert "every recorded decision and rating is the one the history gives" in out
    monkeypatch.setattr(LadderStore, "iter_events", real_iter)
    ladder_verify(f, None)  # the match recorded meanwhile is a proper one
    assert "5 matches replayed" in capsys.readouterr().out
    with lad.store.engine.begin() as c:  # a tampered live rating is still found
        c.execute(update(bots).where((bots.c.tournament_id == lad.tid) & (bots.c.name == "a@v1")).values(mu=30.0))
    lad.store.close()
    with pytest.raises(typer.Exit) as ei:
        ladder_verify(f, None)
    assert ei.value.exit_code == 1
    assert "live rating of a@v1 in the database: 30.000000/" in capsys.readouterr().out


def test_a_ladders_continue_command_names_its_admin_token_file_never_the_token(tmp_path: Path) -> None:
    """A ladder started with --admin-token-file: `ladder status --config` and `tournament status`
    give it again (its path: the ladder's admin calls need the same token), and store no token."""
    f = _file(tmp_path, "tf", [(n, _bot("random", i, "unused")) for i, n in enumerate(("a", "b", "c"))])
    token = tmp_path / "ladder admin.token"
    token.write_text("the-ladders-own-admin-secret\n")
    run = _cli("ladder", str(f), "--admin-token-file", str(token), "--port", "0", "--max-matches", "0")
    assert run.returncode == 0, run.stdout + run.stderr
    command = f"referee ladder {f} --admin-token-file '{token}'"
    st = _cli("ladder", "status", "--config", str(f))
    assert f"not running; continue it with `{command}`" in st.stdout, st.stdout + st.stderr
    st = _cli("tournament", "status", "tf", "--db", str(tmp_path / "ladder.sqlite"))
    assert f"continue it with `{command} --db {tmp_path / 'ladder.sqlite'}`" in " ".join(st.stdout.split()), \
        st.stdout + st.stderr
    with sqlite3.connect(tmp_path / "ladder.sqlite") as db:
        stored = db.execute("SELECT spec_json FROM tournaments").fetchone()[0]
    assert "the-ladders-own-admin-secret" not in stored + st.stdout and json.loads(stored)["admin_token_file"] == \
        str(token)


def test_ladder_hints_name_the_database_without_its_password_and_say_so_outside_the_command(
        tmp_path: Path, pg_server) -> None:  # noqa: F811
    url = pg_server.new_database()
    f = _file(tmp_path, "pw", [(n, _bot("random", i, "unused")) for i, n in enumerate(("a", "b", "c"))], db=url)
    lad = RecordedLadder(f)
    lad.play(0)
    lad.store.close()
    secret = url.replace("referee@", "referee:hunter2-secret@")  # trust auth ignores it
    shown = shlex.quote(secret.replace("hunter2-secret", "***"))
    note = "(with your password in place of ***)"
    st = _cli("ladder", "status", "--config", str(f), "--db", secret)
    assert st.returncode == 0 and "hunter2" not in st.stdout + st.stderr, st.stdout + st.stderr
    assert f"continue it with `referee ladder {f} --db {shown}` {note}" in st.stdout, st.stdout
    run = _cli("ladder", str(f), "--db", secret, "--port", "0", "--max-matches", "0")  # opens and stops
    assert run.returncode == 0 and "hunter2" not in run.stdout + run.stderr, run.stdout + run.stderr
    assert f"`referee leaderboard -t pw --db {shown}` shows the ratings {note}" in run.stdout, run.stdout


def test_ladder_status_shows_the_column_its_table_is_sorted_by(monkeypatch, capsys) -> None:
    from referee import laddercli

    entrants = [admin_pb2.LadderEntrant(name=n, label=f"{n}@v1", state="active", mu=mu, sigma=sg, matches=9)
                for n, mu, sg in (("steady", 24.0, 1.0), ("lucky", 30.0, 4.0), ("new", 25.0, 8.333))]
    res = admin_pb2.LadderStatusResponse(ladder="l", game="doudizhu", entrants=entrants, matches_finished=12)
    monkeypatch.setattr(laddercli, "_call", lambda *a, **kw: res)
    laddercli.ladder_status(referee="127.0.0.1:1", config=None, db=None, admin_token_file=None, tls_ca=None,
                            json_out=False)
    out = capsys.readouterr().out
    assert "mu−3σ" in out, out
    rows = [ln.split() for ln in out.splitlines() if "@v1" in ln]
    assert [r[0] for r in rows] == ["steady@v1", "lucky@v1", "new@v1"]  # best mu−3σ first: 21 > 18 > 0.0
    assert [r[4] for r in rows] == ["21.00", "18.00", "0.00"], out


def test_ladder_killed_with_9_restarts_without_losing_or_double_counting(tmp_path: Path) -> None:
    marker = f"lad{secrets.token_hex(4)}"
    f = _file(tmp_path, "k9", [("a", _bot("random", 1, marker)), ("b", _bot("random", 2, marker)),
                               ("c", _bot("random", 3, marker))])
    lad = LadderProc(tmp_path, f)
    try:
        lad.wait(r"match 1 finished")
        # one ladder process per ladder: a second start is refused, naming the one that runs it
        second = _cli("ladder", str(f), "--port", "0")
        assert second.returncode == 1, second.stdout + second.stderr
        assert f"is being run by pid {lad.p.pid} on host" in second.stderr and "Traceback" not in second.stderr
        for args in (("ladder", "status", "--config", str(f)), ("tournament", "status", "k9", "--config", str(f))):
            st = _cli(*args)
            assert "status running" in st.stdout and f"lease held by pid {lad.p.pid} on this host" in st.stdout, \
                st.stdout + st.stderr
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # kill while a match is scheduled (and recorded) and in progress
            started = [int(n) for n in re.findall(r"match (\d+): ", lad.text())]
            if started and max(started) > 1 and f"match {max(started)} finished" not in lad.text():
                break
            time.sleep(0.05)
        os.kill(lad.p.pid, signal.SIGKILL)
        lad.p.wait(10)
    finally:
        lad.close()
    for args in (("ladder", "status", "--config", str(f)), ("tournament", "status", "k9", "--config", str(f))):
        st = _cli(*args)
        assert "status interrupted" in st.stdout and "is gone" in st.stdout and "referee ladder" in st.stdout, \
            st.stdout + st.stderr
    _, events, rows, _ = _history(f)
    done = len(rows)
    unfinished = {e.sched for e in events if e.kind == "scheduled"} - {e.sched for e in events
                                                                       if e.kind == "finished"}
    assert unfinished, "killed too late: no match in progress"
    lad = LadderProc(tmp_path, f, "--max-matches", "1")  # the dead process's lease is taken over at once
    try:
        assert lad.p.wait(120) == 0
    finally:
        lad.close()
    text = lad.text()
    for s in unfinished:
        assert f"match {s} " in text and "was interrupted: playing it again" in text
    spec, events2, rows2, _ = _history(f)
    _check_each_match_once(events2, rows2)
    assert len(rows2) == done + len(unfinished) + 1
    assert not ({e.sched for e in events2 if e.kind == "scheduled"} - {e.sched for e in events2
                                                                        if e.kind == "finished"})
    assert verify_history(spec, events2, rows2) == []
    assert _no_bot_left(marker, 30)


def test_a_crashing_bot_is_suspended_with_its_reason_and_the_admin_rpc_needs_the_token(tmp_path: Path) -> None:
    marker = f"lad{secrets.token_hex(4)}"
    crash = f"python sample_bots/chaos_bot.py --mode crash-mid-match --name {marker}"
    f = _file(tmp_path, "sus", [("a", _bot("random", 1, marker)), ("b", _bot("random", 2, marker)),
                                ("c", _bot("random", 3, marker)), ("boom", crash)],
              extra="[ladder]\nsuspend_after = 2\n")
    spec = load(f)
    lines: list[str] = []

    async def main() -> admin_pb2.LadderStatusResponse:
        lad = Ladder(spec, ADMIN, say=lines.append)
        stop = asyncio.Event()
        task = asyncio.create_task(lad.run(stop))
        await asyncio.wait_for(lad.ready.wait(), 60)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{lad.port}") as ch:
            stub = admin_pb2_grpc.AdminServiceStub(ch)
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await stub.LadderStatus(admin_pb2.LadderStatusRequest(), metadata=[("x-admin-token", "nope")])
            assert ei.value.code() == grpc.StatusCode.PERMISSION_DENIED
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await stub.LadderAdd(admin_pb2.LadderAddRequest(name="bad name!", command="python x.py"),
                                     metadata=[("x-admin-token", ADMIN)])
            assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            await stub.LadderRetire(admin_pb2.LadderRetireRequest(name="a", reason="withdrawn by its author"),
                                    metadata=[("x-admin-token", ADMIN)])
            deadline = time.monotonic() + 150
            while time.monotonic() < deadline and not any(ln.startswith("suspended boom@v1") for ln in lines):
                await asyncio.sleep(0.2)
            st = await stub.LadderStatus(admin_pb2.LadderStatusRequest(), metadata=[("x-admin-token", ADMIN)])
        stop.set()
        await asyncio.wait_for(task, 90)
        return st

    st = asyncio.run(main())
    boom = next(e for e in st.entrants if e.name == "boom")
    assert boom.state == "suspended", lines
    assert "2 faulty matches in a row" in boom.reason and "crash: bot exited with status 4" in boom.reason
    _, events, rows, _ = _history(f)
    after = [e for e in events if e.kind == "scheduled" and e.seq > next(
        x.seq for x in events if x.kind == "suspend")]
    assert all("boom@v1" not in e.data["seats"] for e in after)  # never scheduled again
    assert _no_bot_left(marker)
    # the web pages (`referee report`, as `referee web` serves them) show each entrant's state, why and when
    out = _report(f)
    index = (out / "index.html").read_text()
    row = _entrant_row(index, "boom")
    assert 'data-state="suspended"' in row and "2 faulty matches in a row" in row and "crash: bot exited" in row
    assert re.search(r"<td class=\"l\">\d{4}-\d\d-\d\d \d\d:\d\d UTC</td>", row)  # since when
    row = _entrant_row(index, "a")
    assert 'data-state="retired"' in row and "withdrawn by its author" in row
    assert 'data-state="active"' in _entrant_row(index, "b")
    page = (out / "bots" / "boom_v1.html").read_text()
    assert 'id="bot-state" data-state="suspended"' in page and "2 faulty matches in a row" in page


def test_a_second_sigterm_abandons_the_match_in_progress_and_stops_every_bot(tmp_path: Path) -> None:
    marker = f"lad{secrets.token_hex(4)}"
    hang = f"python sample_bots/chaos_bot.py --mode hang --name {marker}"
    f = _file(tmp_path, "ab", [("h1", hang), ("h2", hang), ("h3", hang)])
    f.write_text(f.read_text().replace("decision_ms = 5000", "decision_ms = 60000"))
    lad = LadderProc(tmp_path, f)
    try:
        lad.wait(r"match 1: ")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_pids(marker)) < 3:
            time.sleep(0.1)
        assert len(_pids(marker)) == 3
        os.kill(lad.p.pid, signal.SIGTERM)
        lad.wait(r"stopping: 1 match\(es\) in progress may finish")
        assert lad.stop(signal.SIGTERM, timeout=30) == 0
    finally:
        lad.close()
    assert "abandoned match(es) 1: they are played again" in lad.text()
    assert _no_bot_left(marker), "a bot process outlived the ladder"
    spec, events, rows, _ = _history(f)
    assert [e.kind for e in events if e.sched == 1] == ["scheduled"] and not rows  # nothing counted
    assert verify_history(spec, events, rows) == []


def _scan_for(secret: str, *roots: Path) -> list[str]:
    """Files under ``roots`` whose bytes contain ``secret``."""
    hits = []
    for root in roots:
        for f in [root] if root.is_file() else root.rglob("*"):
            if f.is_file() and secret.encode() in f.read_bytes():
                hits.append(str(f))
    return hits


def test_an_external_entrant_plays_while_connected_and_its_token_is_stored_only_hashed(tmp_path: Path) -> None:
    marker = f"lad{secrets.token_hex(4)}"
    f = _file(tmp_path, "ext", [("a", _bot("random", 1, marker)), ("b", _bot("random", 2, marker))])
    spec = load(f)
    token = secrets.token_hex(16)
    lines: list[str] = []
    md = [("x-admin-token", ADMIN)]

    async def run(add: bool) -> tuple:
        """One run of the ladder: (with ``add``: add the external entrant, then) start the
        external bot and wait for a match of it to finish; then stop the ladder."""
        lad = Ladder(spec, ADMIN, say=lines.append)
        stop = asyncio.Event()
        task = asyncio.create_task(lad.run(stop))
        await asyncio.wait_for(lad.ready.wait(), 60)
        start = len(lines)
        proc = offline = online = None
        rc = None
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{lad.port}") as ch:
                stub = admin_pb2_grpc.AdminServiceStub(ch)
                if add:
                    res = await stub.LadderAdd(admin_pb2.LadderAddRequest(name="ext", token=token), metadata=md)
                    assert res.change.label == "ext@v1"
                offline = await stub.LadderStatus(admin_pb2.LadderStatusRequest(), metadata=md)
                proc = subprocess.Popen([PY, "sample_bots/heuristic_bot.py", "--referee", f"127.0.0.1:{lad.port}",
                                         "--name", marker], cwd=ROOT, env={**os.environ, "REFEREE_TOKEN": token},
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline and not any(
                        ln.startswith("match") and "finished" in ln and "ext@v1" in ln for ln in lines[start:]):
                    await asyncio.sleep(0.2)
                online = await stub.LadderStatus(admin_pb2.LadderStatusRequest(), metadata=md)
        finally:
            stop.set()
            await asyncio.wait_for(task, 90)
            if proc is not None:
                rc = await asyncio.to_thread(proc.wait, 20)  # the ladder's Goodbye ends it
        return offline, online, rc

    offline, online, rc = asyncio.run(run(add=True))
    ext = {e.name: e for e in offline.entrants}["ext"]
    assert ext.external and not ext.online
    ext = {e.name: e for e in online.entrants}["ext"]
    assert ext.online and ext.matches >= 1, lines
    assert rc == 0
    _, events, rows, versions = _history(f)
    kinds = [e.kind for e in events if e.name == "ext"]
    assert kinds[:2] == ["add", "online"]
    first = next(e.seq for e in events if e.kind == "online" and e.name == "ext")
    assert not [e for e in events if e.kind == "scheduled" and e.seq < first]  # two bots for three seats: it waited
    assert any(ln.startswith("ext@v1 connected") for ln in lines)
    ver = {v["label"]: v for v in versions}["ext@v1"]
    assert ver["external"] is True and ver["token"] == "sha256:" + hashlib.sha256(token.encode()).hexdigest()
    played = ext.matches

    # a restarted ladder knows the token by its hash only, and still accepts the bot
    offline, online, rc = asyncio.run(run(add=False))
    ext = {e.name: e for e in online.entrants}["ext"]
    assert ext.online and ext.matches > played, lines
    assert rc == 0
    _, events2, rows2, _ = _history(f)
    assert verify_history(spec, events2, rows2) == []
    # the token is nowhere: not in the database file (nor its journal), the logs, or what the ladder said
    assert _scan_for(token, tmp_path) == []
    assert not [ln for ln in lines if token in ln]
    assert _no_bot_left(marker)


def test_a_token_stored_in_the_clear_by_an_older_ladder_is_replaced_by_its_hash(tmp_path: Path) -> None:
    from sqlalchemy import insert

    from tournaments.ladder_store import ladder_versions

    token = secrets.token_hex(16)
    db = tmp_path / "old.sqlite"
    store = Store(str(db))
    ls = LadderStore(store)
    tid = ls.create("old", "doudizhu", {"bots": []}, "f")
    with store.engine.begin() as c:  # what the first ladder version wrote
        c.execute(insert(ladder_versions).values(tournament_id=tid, name="ext", version=1, label="ext@v1",
                                                 command="", external=True, token=token, state="active",
                                                 reason="", added_seq=1))
    assert _scan_for(token, tmp_path)  # in the file or its WAL
    assert ls.token_hashes(tid) == {"ext@v1": hashlib.sha256(token.encode()).hexdigest()}
    assert ls.versions(tid)[0]["token"].startswith("sha256:")
    assert _scan_for(token, tmp_path) == []  # also while the database is open
    store.close()
    assert _scan_for(token, tmp_path) == []


def _self_signed(d: Path) -> tuple[Path, Path]:
    """A throwaway certificate for 127.0.0.1 / localhost and its key (openssl, as tests/test_tls.py)."""
    import shutil

    openssl = shutil.which("openssl")
    assert openssl, "the TLS tests need the openssl command"
    crt, key = d / "cert.pem", d / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(crt),
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return crt, key


def test_a_ladder_serves_tls_to_external_bots_and_admin_calls(tmp_path: Path) -> None:
    marker = f"lad{secrets.token_hex(4)}"
    crt, key = _self_signed(tmp_path)
    f = _file(tmp_path, "tls", [("a", _bot("random", 1, marker)), ("b", _bot("random", 2, marker))])
    # bad certificate files are named, before anything starts
    r = _cli("ladder", str(f), "--tls-cert", str(tmp_path / "missing.pem"), "--tls-key", str(key))
    assert r.returncode == 2 and "--tls-cert" in r.stderr and "no such file" in r.stderr
    r = _cli("ladder", str(f), "--tls-cert", str(key), "--tls-key", str(key))
    assert r.returncode == 2 and "not a PEM certificate" in r.stderr
    r = _cli("ladder", str(f), "--tls-cert", str(crt))
    assert r.returncode == 2 and "go together" in r.stderr
    tokf = tmp_path / "ext.token"
    tokf.write_text(secrets.token_hex(16))
    lad = LadderProc(tmp_path, f, "--port", "0", "--tls-cert", str(crt), "--tls-key", str(key))
    bot = None
    try:
        assert "(TLS)" in lad.text()
        # admin calls over TLS with the CA; without it (plaintext to a TLS port) a clear refusal
        r = _cli("ladder", "status", "--referee", lad.addr)
        assert r.returncode == 1 and "no ladder answers" in r.stderr and "--tls-ca" in r.stderr
        r = _cli("ladder", "status", "--referee", lad.addr, "--tls-ca", str(tmp_path / "nope.pem"))
        assert r.returncode == 2 and "no such file" in r.stderr
        r = _cli("ladder", "add", "ext", "--external", "--token-file", str(tokf), "--referee", lad.addr,
                 "--tls-ca", str(crt))
        assert r.returncode == 0, r.stderr
        # an external bot over TLS; the launched ones connect by themselves (plaintext on loopback)
        bot = subprocess.Popen([PY, "sample_bots/heuristic_bot.py", "--referee", lad.addr, "--tls-ca", str(crt),
                                "--name", marker], cwd=ROOT, env={**os.environ, "REFEREE_TOKEN": tokf.read_text()},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lad.wait(r"match \d+ finished \(complete\): (?=.*ext@v1)(?=.*a@v1)(?=.*b@v1).*")
        r = _cli("ladder", "status", "--referee", lad.addr, "--tls-ca", str(crt), "--json")
        assert r.returncode == 0, r.stderr
        st = {e["name"]: e for e in json.loads(r.stdout)["entrants"]}
        assert st["ext"]["online"] and st["ext"]["matches"] >= 1 and st["a"]["matches"] >= 1
        assert lad.stop(signal.SIGINT) == 0
        assert bot.wait(20) == 0  # the ladder's Goodbye ends it
    finally:
        lad.close()
        if bot is not None and bot.poll() is None:
            bot.kill()
            bot.wait(10)
    _, events, rows, _ = _history(f)
    assert rows and all(r.status == "complete" and not r.result.get("faults") for r in rows.values())
    assert _no_bot_left(marker)


def _tokens_of(marker: str) -> set[str]:
    """The address each live process whose command line has ``marker`` was
    given (``--referee``): a launched bot's own socket, made once per token
    (Referee.private_socket), so one address per token. (The token itself is
    nowhere to be read: it is handed over on a descriptor.)"""
    out = set()
    for pid in _pids(marker):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            env = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        assert b"REFEREE_TOKEN=" not in env
        out.update(argv[i + 1].decode() for i, a in enumerate(argv[:-1]) if a == b"--referee")
    return out


def test_a_persistent_entrant_is_launched_once_relaunched_with_its_token_and_stopped(tmp_path: Path) -> None:
    marker, pmark = f"lad{secrets.token_hex(4)}", f"per{secrets.token_hex(4)}"
    f = _file(tmp_path, "per", [("a", _bot("random", 1, marker)), ("b", _bot("random", 2, marker))])
    f.write_text(f.read_text() + f'[[bots]]\nname = "p"\ncommand = "{_bot("random", 7, pmark)}"\npersistent = true\n')
    logs = Path(load(f).t.log_dir) / "per"
    lad = LadderProc(tmp_path, f)
    try:
        lad.wait(r"match \d+ finished \(complete\)", count=3)  # every match seats p (three entrants, three seats)
        assert "added p@v1 (persistent: launched once)" in lad.text()
        assert sorted(p.name for p in logs.glob("p@v1.persistent*.stderr")) == ["p@v1.persistent1.stderr"]
        tokens = _tokens_of(pmark)
        assert len(tokens) == 1, tokens
        # killed: relaunched for its next match, with the same token
        for pid in _pids(pmark):
            os.kill(int(pid), signal.SIGKILL)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not (logs / "p@v1.persistent2.stderr").exists():
            time.sleep(0.2)
        assert (logs / "p@v1.persistent2.stderr").exists(), lad.text()
        n = len(re.findall(r"match \d+ finished", lad.text()))
        lad.wait(r"match \d+ finished \(complete\)", count=n + 2)
        assert _tokens_of(pmark) == tokens
        # a new version: the old process is stopped, the new one launched once
        r = _cli("ladder", "replace", "p", "--referee", lad.addr, "--command", _bot("random", 8, pmark),
                 "--persistent")
        assert r.returncode == 0, r.stderr
        lad.wait(r"stopped the persistent bot of p@v1 \(replaced\)")
        lad.wait(r"match \d+ finished \(complete\): .*p@v2", count=2)
        assert [p.name for p in logs.glob("p@v2.persistent*.stderr")] == ["p@v2.persistent1.stderr"]
        assert len(_tokens_of(pmark)) == 1 and _tokens_of(pmark) != tokens
        assert lad.stop(signal.SIGINT) == 0
    finally:
        lad.close()
    assert _no_bot_left(pmark), "the persistent bot outlived the ladder"
    assert _no_bot_left(marker)
    spec, events, rows, _ = _history(f)
    assert verify_history(spec, events, rows) == []
    v1 = [r for r in rows.values() if "p@v1" in r.seats]
    assert len(v1) >= 5  # several matches, two launches


def test_a_lease_held_elsewhere_refuses_the_ladder_until_it_expires_and_a_lost_lease_stops_it(
        tmp_path: Path) -> None:
    from sqlalchemy import update

    from tournaments.store import leases

    marker = f"lad{secrets.token_hex(4)}"
    f = _file(tmp_path, "ls", [("a", _bot("random", 1, marker)), ("b", _bot("random", 2, marker)),
                               ("c", _bot("random", 3, marker))])
    spec = load(f)
    store = Store(spec.t.database)
    other = LeaseHolder("other-ladder", "elsewhere", 4242)  # another host: only the heartbeat's age counts
    tid = LadderStore(store).create(spec.name, spec.t.game, spec.stored_json(), spec.fingerprint(), other)
    lines: list[str] = []

    async def run(**kw) -> Ladder:
        lad = Ladder(spec, ADMIN, say=lines.append, **kw)
        await asyncio.wait_for(lad.run(asyncio.Event()), 120)
        return lad

    with pytest.raises(LadderError, match="is being run by pid 4242 on host elsewhere"):
        asyncio.run(run(max_matches=1))
    with pytest.raises(LadderError, match="pid 4242 on host elsewhere"):
        asyncio.run(run(max_matches=1, fresh=True))  # --fresh cannot pull a running ladder away either
    with store.engine.begin() as c:  # its heartbeat is now older than the lease's TTL: it is presumed dead
        c.execute(update(leases).where(leases.c.tournament_id == tid).values(heartbeat_at=time.time() - 3600))
    asyncio.run(run(max_matches=1))
    assert store.lease(tid) is None and store.run_state(store.tournament("ls"))[0] == "stopped"
    assert len(store.matches(tid)) == 1

    async def taken_over() -> None:
        lad = Ladder(spec, ADMIN, say=lines.append)
        task = asyncio.create_task(lad.run(asyncio.Event()))
        await asyncio.wait_for(lad.ready.wait(), 60)
        with store.engine.begin() as c:  # another process took the lease over (this one looked dead)
            c.execute(update(leases).where(leases.c.tournament_id == tid).values(holder="thief", host="elsewhere", pid=4243))
        with pytest.raises(LadderError, match="lost its lease .* pid 4243 on host elsewhere"):
            await asyncio.wait_for(task, 90)

    asyncio.run(taken_over())
    store.close()
    assert _no_bot_left(marker)


_OPEN_LADDER = """
import sys, time
from tournaments.store import Store
from tournaments.ladder_store import LadderStore
url, i, start = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
while time.time() < start:
    time.sleep(0.001)
s = Store(url)
ls = LadderStore(s)
ls.create(f"l{i}", "doudizhu", {"bots": []}, "fp")
s.close()
"""


def test_several_processes_opening_an_empty_database_as_ladders_all_succeed(db_url: str) -> None:
    start = time.time() + 3.0  # every process is started and importing by then
    procs = [subprocess.Popen([PY, "-c", _OPEN_LADDER, db_url, str(i), str(start)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(5)]
    errors = [p.communicate(timeout=120)[1][-800:] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    s = Store(db_url)
    assert sorted(t["name"] for t in s.list_tournaments()) == [f"l{i}" for i in range(5)]
    s.close()


def test_the_cpu_clock_and_a_file_bots_own_limits_apply_to_its_ladder_matches(tmp_path: Path) -> None:
    from tournaments.ladder import rebuild

    marker = f"lad{secrets.token_hex(4)}"
    f = _file(tmp_path, "lim", [("a", _bot("random", 1, marker)), ("b", _bot("random", 2, marker))])
    # a bot whose own address-space limit (5 MB) is too small for the interpreter: it cannot start
    f.write_text(f.read_text().replace("[clock]\n", '[clock]\nkind = "cpu"\n')
                 + f'[[bots]]\nname = "tight"\ncommand = "{_bot("random", 3, marker)}"\n'
                 'limits = { memory_mb = 5 }\n')
    spec = load(f)
    assert spec.t.clock == "cpu"
    lines: list[str] = []
    asyncio.run(asyncio.wait_for(Ladder(spec, ADMIN, say=lines.append, max_matches=1).run(asyncio.Event()), 120))
    spec, events, rows, _ = _history(f)
    (row,) = rows.values()
    seat = row.seats.index("tight@v1")
    assert {x["seat"] for x in row.result["faults"] if x["kind"] not in ("late_reply",)} == {seat}, row.result
    header = json.loads(Path(row.log_path).read_text().splitlines()[0])
    assert header["spec"]["clock"] == "cpu" and row.result["clock"] == "cpu", header
    st = rebuild(spec, events, rows)  # what a restarted ladder knows: the limits are kept with the version
    assert st.versions["tight@v1"].limits.memory_mb == 5 and st.versions["a@v1"].limits is None
    assert _no_bot_left(marker)


def test_bot_commands_are_taken_from_the_run_directory_and_readers_do_not_check_them(tmp_path: Path) -> None:
    """As in tournaments, a ladder file's bot commands are relative to the directory the ladder is run
    from (here ROOT: `python sample_bots/...`); `ladder status --config` and `ladder verify` launch no
    bot and do not check them, so they work from any directory."""
    f = _file(tmp_path, "rd", [("a", _bot("random", 1, "rd"))])
    assert load(f).t.bots[0].command == _bot("random", 1, "rd")  # checked from the cwd, ROOT here
    elsewhere = subprocess.run([PY, "-m", "referee.cli", "ladder", str(f), "--port", "0"], cwd=tmp_path,
                               capture_output=True, text=True, env=_env(), timeout=120)
    assert elsewhere.returncode == 2 and "script 'sample_bots/random_bot.py' not found (relative paths are " \
        f"taken from {tmp_path.resolve()})" in elsewhere.stderr, elsewhere.stderr
    Store(str(tmp_path / "ladder.sqlite")).close()  # a database without this ladder
    for args in (("status", "--config", str(f)), ("verify", str(f))):
        r = subprocess.run([PY, "-m", "referee.cli", "ladder", *args], cwd=tmp_path, capture_output=True,
                           text=True, env=_env(), timeout=120)
        assert "not found" not in r.stderr and "no ladder 'rd' in" in r.stdout + r.stderr, r.stdout + r.stderr
