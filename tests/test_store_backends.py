"""The results store on SQLite and on a real PostgreSQL server (started by
the tests, see pgserver.py): records, concurrent first use, leases, secrets,
two drivers at once, kill -9 and resume, `status` after an interruption."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from dataclasses import asdict
from pathlib import Path

import pytest
from sqlalchemy import text

from conftest import PY, ROOT
from pgserver import pg_server  # noqa: F401  (session fixture)
from referee.outcomes import FaultKind, MatchStatus
from referee.runner import FaultRecord
from tournaments.rating import store_board
from tournaments.store import LeaseHeld, LeaseHolder, Store, StorageError

BOTS4 = "\n".join(f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                  for i in range(4))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "r.sqlite")
    return request.getfixturevalue("pg_server").new_database()


def _cli(*args: str, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, **kw)


def _write(tmp_path: Path, name: str, database: str | None, extra: str = "", bots: str = BOTS4) -> Path:
    f = tmp_path / f"{name}.toml"
    db = f'database = "{database}"\n' if database else ""
    # sampled: 12 matches, every bot in 9 (the store does not care how groups are drawn)
    f.write_text(f'name = "{name}"\ngame = "doudizhu"\nplayers = 3\nseed = 9\nconcurrency = 2\n{db}'
                 f'log_dir = "{tmp_path / "logs"}"\nparams = {{ rounds = 1 }}\n'
                 f'schedule = {{ kind = "sampled", matches_per_bot = 9 }}\n{extra}\n{bots}')
    return f


def _board(db: str, name: str) -> list[dict]:
    r = _cli("leaderboard", "--db", db, "--tournament", name, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_store_records_and_reads_back_on_both_backends(db_url: str) -> None:
    s = Store(db_url)
    me = LeaseHolder.me()
    tid = s.create_tournament("t", "doudizhu", {"x": 1}, "fp", 2, [("a", "cmd a", False), ("b", "", True)], me)
    result = {"scores": [2, -1, -1], "ranks": [1, 2, 2], "faults": [{"seat": 1, "kind": "timeout", "rule": "",
                                                                      "message": "m"}], "forfeited": []}
    s.record_match(tid, 1, 2**62 + 5, ["a", "b", "a"], "complete", result, "l.jsonl", 7, 0.5)
    s.record_match(tid, 1, 2**62 + 5, ["a", "b", "a"], "complete", result, "l.jsonl", 7, 0.5)  # ignored
    s.record_match(tid, 0, 3, ["b", "a", "b"], "aborted", {"scores": None}, None, 0, 0.1)
    rows = s.matches(tid)
    assert [(r.idx, r.seed, r.status) for r in rows] == [(0, 3, "aborted"), (1, 2**62 + 5, "complete")]
    assert rows[1].result == result and rows[1].seats == ["a", "b", "a"]
    assert s.fault_counts(tid) == {"b": {"timeout": 1}}
    assert s.finished_indices(tid) == {0, 1} and s.match_count(tid) == 2
    assert s.status_counts(tid) == {"aborted": 1, "complete": 1}
    seats = {(r["bot_id"], r["seat"]): (r["matches"], r["wins"], r["score_sum"]) for r in s.seat_totals(tid)}
    ids = {b["name"]: b["id"] for b in s.bot_table(tid)}
    assert seats == {(ids["a"], 0): (1, 1, 2), (ids["b"], 1): (1, 0, -1), (ids["a"], 2): (1, 0, -1)}
    live = {b["name"]: (b["mu"], b["sigma"]) for b in s.bot_table(tid)}  # live TrueSkill, kept as stored
    assert live["b"][0] < 25 and s.rating_series(tid, ["a", "b"]) == {n: [(1, *live[n])] for n in "ab"}
    assert s.run_state(s.tournament("t"))[0] == "running"
    s.delete_tournament("t", me)
    assert s.tournament("t") is None and s.list_tournaments() == []
    s.close()
    Store(db_url).close()  # reopening an existing database migrates nothing and fails nothing


def test_match_statuses_and_fault_kinds_round_trip_through_both_backends(db_url: str) -> None:
    """Stored as their strings, read back as the same members; a result stored
    before ``absent`` existed (a disconnected seat's ``timeout`` faults) still reads."""
    s = Store(db_url)
    tid = s.create_tournament("e", "doudizhu", {"name": "e", "game": "doudizhu", "players": 3}, "fp", 3,
                              [(b, "", True) for b in ("new", "old", "x")])
    kinds = list(FaultKind)
    new = {"scores": [2, -1, -1], "ranks": [1, 2, 2], "forfeited": [0],
           "faults": [asdict(FaultRecord(0, k, message=f"m {k}")) for k in kinds]}
    old = {"scores": [2, -1, -1], "ranks": [1, 2, 2], "forfeited": [], "faults": [
        {"seat": 0, "kind": "disconnect", "rule": "", "message": "bot is not connected"},
        {"seat": 0, "kind": "timeout", "rule": "", "message": "bot is not connected (1000 ms)"}]}
    s.record_match(tid, 0, 1, ["new", "old", "x"], MatchStatus.COMPLETE, new, None, 9, 0.1)
    s.record_match(tid, 1, 2, ["old", "new", "x"], MatchStatus.COMPLETE, old, None, 9, 0.1)
    s.record_match(tid, 2, 3, ["x", "new", "old"], MatchStatus.ABORTED, {"scores": None, "faults": []}, None, 0, 0.1)
    s.record_match(tid, 3, 4, ["x", "new", "old"], MatchStatus.VOID, {"scores": None, "faults": []}, None, 0, 0.1)
    rows = s.matches(tid)
    assert [r.status for r in rows] == [MatchStatus.COMPLETE, MatchStatus.COMPLETE, MatchStatus.ABORTED,
                                        MatchStatus.VOID]
    assert all(type(r.status) is MatchStatus for r in rows)
    assert [FaultKind(f["kind"]) for f in rows[0].result["faults"]] == kinds
    assert s.status_counts(tid) == {MatchStatus.COMPLETE: 2, MatchStatus.ABORTED: 1, MatchStatus.VOID: 1}
    assert s.fault_counts(tid)["new"] == {k.value: 1 for k in kinds}
    board = {r.bot: r for r in store_board(s, s.tournament("e"))}
    assert (board["new"].timeouts, board["new"].illegal, board["new"].crashes) == (1, 1, 2)  # absent: other
    assert board["new"].other_faults == len(kinds) - 4
    assert (board["old"].timeouts, board["old"].crashes, board["old"].other_faults) == (1, 1, 0)  # as stored then
    s.close()


def test_matches_stored_at_once_by_many_threads_keep_their_totals_right(db_url: str) -> None:
    """The driver stores matches from several threads at once: on PostgreSQL
    their transactions must queue, never deadlock, and the totals add up."""
    from concurrent.futures import ThreadPoolExecutor

    s = Store(db_url)
    spec = {"name": "c", "game": "doudizhu", "players": 3, "trueskill": {}, "bots": []}
    tid = s.create_tournament("c", "doudizhu", spec, "fp", 200, [(b, "", False) for b in "abcdef"])
    seats = [list(p) for p in itertools.permutations("abcdef", 3)]  # every order: rows locked in every order
    result = {"scores": [2, -1, -1], "ranks": [1, 2, 2], "faults": [{"seat": 1, "kind": "timeout"}]}
    with ThreadPoolExecutor(12) as pool:
        list(pool.map(lambda i: s.record_match(tid, i, i, seats[(i * 7) % len(seats)], "complete", result, None, 1,
                                               0.1), range(200)))
    assert s.match_count(tid) == 200
    assert sum(r["matches"] for r in s.seat_totals(tid)) == 600
    assert sum(n for kinds in s.fault_counts(tid).values() for n in kinds.values()) == 200
    assert s.tournament("c")["live_through"] == 199  # every match applied to live TrueSkill, in index order
    s.close()


def test_page_readers_on_both_backends(db_url: str) -> None:
    """What the web pages read: a bot's page of matches and its faults, newest
    first; every pair streamed; a rating series against finishing time."""
    s = Store(db_url)
    me = LeaseHolder.me()
    tid = s.create_tournament("p", "doudizhu", {"x": 1}, "fp", 5, [(b, "", True) for b in "abcd"], me)
    seats = [["a", "b", "c"], ["b", "c", "d"], ["a", "a", "d"], ["c", "d", "b"], ["a", "b", "d"]]
    for i, names in enumerate(seats):
        result = {"match_id": f"p-m{i:05d}", "scores": [2, -1, -1], "ranks": [1, 2, 2], "forfeited": [],
                  "faults": [{"seat": 0, "kind": "timeout", "rule": "", "message": f"late {i}"}]}
        s.record_match(tid, i, 100 + i, names, "complete", result, None, 5, 0.1)
    total, rows = s.match_page(tid, 0, 2, bot="a")
    assert total == 3 and [r["idx"] for r in rows] == [4, 2]  # newest first; two seats in one match: once
    assert [r["idx"] for r in s.match_page(tid, 2, 2, bot="a")[1]] == [0] and rows[1]["seats"] == seats[2]
    assert s.match_page(tid, 0, 10, bot="nobody") == (0, [])
    n, faults = s.bot_faults(tid, "a", limit=2)
    assert n == 3 and [(f["idx"], f["match_id"], f["seat"], f["message"]) for f in faults] == [
        (4, "p-m00004", 0, "late 4"), (2, "p-m00002", 0, "late 2")]
    assert s.bot_faults(tid, "d") == (0, []) and s.bot_faults(tid, "nobody") == (0, [])
    assert list(s.iter_pair_totals(tid, chunk=2)) == sorted(s.pair_totals(tid), key=lambda r: (r["bot_a"], r["bot_b"]))
    by_idx, by_time = s.rating_series(tid, ["d"])["d"], s.rating_series(tid, ["d"], by_time=True)["d"]
    finished = {r["idx"]: r["finished_at"] for r in s.match_page(tid, 0, 10)[1]}
    assert by_idx and [x[1:] for x in by_time] == [x[1:] for x in by_idx]
    assert [x[0] for x in by_time] == [finished[i] for i, _, _ in by_idx]
    s.close()


_FIRST_USE = """
import sys, time
from tournaments.store import Store
url, i, start = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
while time.time() < start:
    time.sleep(0.001)
s = Store(url)
tid = s.create_tournament(f"t{i}", "doudizhu", {}, "fp", 1, [("a", "c", False)])
s.record_match(tid, 0, 1, ["a", "a", "a"], "complete", {"scores": [0, 0, 0], "ranks": [1, 1, 1]}, None, 1, 0.1)
s.close()
"""


def test_several_processes_opening_an_empty_database_at_once_all_succeed(db_url: str) -> None:
    start = time.time() + 3.0  # every process is started and importing by then
    procs = [subprocess.Popen([PY, "-c", _FIRST_USE, db_url, str(i), str(start)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(6)]
    errors = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        if p.returncode != 0:
            errors.append(err[-800:])
    assert not errors, errors
    s = Store(db_url)
    assert sorted(t["name"] for t in s.list_tournaments()) == [f"t{i}" for i in range(6)]
    with s.engine.connect() as c:
        assert c.execute(text("SELECT count(*) FROM schema_info")).scalar() == 1
    s.close()


def test_a_new_sqlite_file_opens_while_another_connection_holds_its_write_lock(tmp_path: Path) -> None:
    """The race behind the test above, made certain: the file is still in
    rollback mode and another connection holds its write lock, where SQLite
    refuses the switch to WAL at once instead of waiting on the busy timeout."""
    import sqlite3
    import threading

    path = tmp_path / "new.sqlite"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("CREATE TABLE other_app (x)")
    other.execute("BEGIN IMMEDIATE")  # the write lock, as another process creating the database holds it
    opened: list[object] = []
    t = threading.Thread(target=lambda: opened.append(_open_or_error(str(path))))
    t.start()
    t.join(0.5)
    assert t.is_alive() and not opened  # waiting, not failed
    other.execute("COMMIT")
    other.close()
    t.join(60)
    (store,) = opened
    assert isinstance(store, Store), store
    with store.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    store.close()


def _open_or_error(url: str) -> Store | StorageError:
    try:
        return Store(url)
    except StorageError as e:
        return e


def test_a_live_lease_refuses_a_second_driver_and_an_expired_one_is_taken_over(db_url: str) -> None:
    s = Store(db_url)
    first = LeaseHolder("first-driver", "elsewhere", 4242)  # another host: only the heartbeat's age counts
    tid = s.create_tournament("t", "doudizhu", {}, "fp", 1, [], first)
    second = LeaseHolder.me()
    with pytest.raises(LeaseHeld, match="pid 4242 on host elsewhere"):
        s.acquire_lease(tid, second)
    with pytest.raises(LeaseHeld):
        s.delete_tournament("t", second)  # --fresh cannot pull a running tournament away
    assert s.heartbeat(tid, first) and not s.heartbeat(tid, second)
    time.sleep(1.2)
    taken = s.acquire_lease(tid, second, ttl_s=1.0)  # the first driver's heartbeat is now older than the TTL
    assert taken is not None and taken["holder"] == "first-driver"
    assert not s.heartbeat(tid, first)  # the first driver learns it lost the lease (and stops)
    assert s.lease(tid)["pid"] == os.getpid()
    s.release_lease(tid, second)
    assert s.lease(tid) is None
    s.close()


def test_a_wait_is_its_lease_holders_and_ends_with_the_wait_or_the_lease(db_url: str) -> None:
    """What a running ladder waits for (its hosted referee) is stored for the status commands: shown
    only with the live lease of the process that waits, gone when the wait ends or the lease is released."""
    s = Store(db_url)
    me, other = LeaseHolder.me(), LeaseHolder("other", "elsewhere", 4242)
    tid = s.create_tournament("lad", "doudizhu", {}, "fp", 0, [], me)
    state, lease = s.run_state(s.tournament("lad"))
    assert state == "running" and s.wait(tid, lease) is None
    s.set_wait(tid, me, "the referee at 127.0.0.1:9", 1000.0, 1300.0)
    assert s.wait(tid, lease) == {"what": "the referee at 127.0.0.1:9", "since": 1000.0, "until": 1300.0}
    assert s.wait(tid, None) is None  # no live lease: nobody waits
    assert s.wait(tid, {**lease, "holder": other.holder}) is None  # another holder's lease: not its wait
    s.set_wait(tid, me, "the referee at 127.0.0.1:9", 2000.0, 2300.0)  # a later wait replaces it
    assert s.wait(tid, lease)["since"] == 2000.0
    s.end_wait(tid, me)
    assert s.wait(tid, lease) is None
    s.set_wait(tid, me, "the referee at 127.0.0.1:9", 3000.0, 3300.0)
    s.release_lease(tid, me)  # stopped while waiting: the wait goes with the lease
    s.acquire_lease(tid, me)
    assert s.wait(tid, s.lease(tid)) is None
    s.set_wait(tid, me, "the referee at 127.0.0.1:9", 3000.0, 3300.0)
    s.delete_tournament("lad", me)  # --fresh: nothing of it is left
    assert s.tournament("lad") is None
    s.close()


def test_a_dead_drivers_lease_on_this_host_is_taken_over_at_once(db_url: str) -> None:
    dead = subprocess.run([PY, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    s = Store(db_url)
    import socket

    tid = s.create_tournament("t", "doudizhu", {}, "fp", 1, [],
                              LeaseHolder("gone", socket.gethostname(), int(dead.stdout)))
    assert s.run_state(s.tournament("t"))[0] == "interrupted"
    assert s.acquire_lease(tid, LeaseHolder.me())["holder"] == "gone"
    s.close()


def test_database_password_is_masked_and_external_tokens_are_not_stored(pg_server, tmp_path: Path) -> None:
    url = pg_server.new_database().replace("referee@", "referee:hunter2-secret@")  # trust auth ignores it
    bots = BOTS4 + '[[bots]]\nname = "visitor"\nexternal = true\ntoken = "visitor-token-123"\n'
    f = _write(tmp_path, "sec", url, extra="port = 1\n", bots=bots)
    from tournaments import spec as tspec
    from tournaments.run import _open
    from tournaments.schedule import build

    spec = tspec.load(f)
    s = Store(spec.database)
    _open(spec, False, False, s, build(spec), LeaseHolder.me())
    with s.engine.connect() as c:
        dump = json.dumps([list(r) for r in c.execute(text("SELECT * FROM tournaments"))]
                          + [list(r) for r in c.execute(text("SELECT * FROM bots"))])
    assert "visitor-token-123" not in dump and "hunter2-secret" not in dump
    assert "visitor" in dump and "***" in dump
    assert "hunter2" not in s.display_url and "***" in s.display_url
    s.close()
    r = _cli("tournament", "status", "--db", url)
    assert r.returncode == 0, r.stderr
    assert "hunter2" not in r.stdout + r.stderr
    r = _cli("tournament", "run", str(f), "--quiet")  # refused: it exists; the message names the database
    assert r.returncode == 2 and "***" in r.stderr and "hunter2" not in r.stdout + r.stderr
    lines = tmp_path / "one.jsonl"
    lines.write_text(json.dumps({"match": 0, "seed": 1, "status": "complete", "seats": ["p0", "p1", "p2"],
                                 "scores": [2, -1, -1], "ranks": [1, 2, 2], "forfeited": [], "faults": [0, 0, 0],
                                 "log_path": None}) + "\n")
    r = _cli("results", "import", str(lines), "--tournament", "imp", "--game", "doudizhu", "--players", "3",
             "--db", url)  # the follow-up command it suggests
    assert r.returncode == 0 and "imported 1 match" in r.stderr, r.stderr
    assert "hunter2" not in r.stdout + r.stderr and "(with your password in place of ***)" in r.stderr
    # referee web names the database masked, on its terminal and on its pages
    empty = pg_server.new_database().replace("referee@", "referee:hunter2-secret@")
    web = subprocess.Popen([PY, "-m", "referee.cli", "web", "--db", empty, "--port", "0",
                            "--play-log-dir", str(tmp_path / "play")], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = web.stdout.readline()
        m = re.search(r" on (http://127\.0\.0\.1:\d+)/ ", line)
        assert m and "***" in line and "hunter2" not in line, line
        with urllib.request.urlopen(m.group(1) + "/", timeout=30) as resp:
            page = resp.read().decode()
        assert "no tournament in" in page and "***" in page and "hunter2" not in page, page
    finally:
        web.terminate()
        web.wait(30)
        web.stdout.close()


def test_reading_commands_find_the_database_from_db_config_or_env(tmp_path: Path) -> None:
    db = tmp_path / "cfg.sqlite"
    f = _write(tmp_path, "cfg", str(db))
    assert _cli("tournament", "run", str(f), "--quiet").returncode == 0
    by_db = _cli("leaderboard", "--db", str(db), "-f", "json")
    by_config = _cli("leaderboard", "--config", str(f), "-f", "json")
    by_env = _cli("leaderboard", "-f", "json", env={"REFEREE_DB": str(db)})
    assert by_db.returncode == by_config.returncode == by_env.returncode == 0, by_env.stderr
    assert json.loads(by_db.stdout) == json.loads(by_config.stdout) == json.loads(by_env.stdout)
    for args, env in ((("--config", str(f)), None), ((), {"REFEREE_DB": str(db)})):
        st = _cli("tournament", "status", *args, env=env)
        assert st.returncode == 0 and "cfg: doudizhu, 12/12 matches done, status complete" in st.stdout
    # a tournament file without `database` runs into $REFEREE_DB
    g = _write(tmp_path, "envrun", None)
    envdb = tmp_path / "from-env.sqlite"
    r = _cli("tournament", "run", str(g), "--quiet", env={"REFEREE_DB": str(envdb)})
    assert r.returncode == 0, r.stderr
    assert _cli("tournament", "status", "envrun", "--db", str(envdb)).returncode == 0
    missing = _cli("leaderboard", "--db", str(tmp_path / "nope.sqlite"))
    assert missing.returncode == 1 and "no results database" in missing.stderr
    assert not (tmp_path / "nope.sqlite").exists()


def _wait_matches(url: str, name: str, n: int, proc: subprocess.Popen, timeout_s: float = 120) -> int:
    deadline = time.monotonic() + timeout_s
    done = 0
    while time.monotonic() < deadline and done < n and proc.poll() is None:
        time.sleep(0.2)
        try:
            s = Store(url, create=False)
            t = s.tournament(name)
            done = len(s.finished_indices(t["id"])) if t else 0
            s.close()
        except StorageError:
            done = 0
    return done


@pytest.mark.slow
def test_kill_9_on_postgresql_then_status_says_interrupted_and_resume_equals_uninterrupted(
        pg_server, tmp_path: Path) -> None:
    url = pg_server.new_database()
    f = _write(tmp_path, "kp", url)
    proc = subprocess.Popen([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        assert _wait_matches(url, "kp", 3, proc) >= 3, "tournament made no progress"
        # paused, so that it cannot finish the other matches while `status` starts up (a
        # stopped process still exists: its lease stays live for LEASE_TTL_S, 30 s)
        os.kill(proc.pid, signal.SIGSTOP)
        st = _cli("tournament", "status", "kp", "--db", url)
        assert "status running" in st.stdout and f"lease held by pid {proc.pid} on this host" in st.stdout
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    st = _cli("tournament", "status", "kp", "--db", url)
    assert st.returncode == 0 and "status interrupted" in st.stdout and "is gone" in st.stdout, st.stdout
    s = Store(url)
    partial = len(s.finished_indices(s.tournament("kp")["id"]))
    s.close()
    assert partial < 12, "killed too late to test resume"
    r = _cli("tournament", "run", str(f), "--resume", "--quiet")
    assert r.returncode == 0, r.stderr
    assert f"{partial} already done" in r.stderr
    s = Store(url)
    rows = s.matches(s.tournament("kp")["id"])
    assert [m.idx for m in rows] == list(range(12))
    s.close()
    logs = sorted((tmp_path / "logs" / "kp").glob("*.jsonl"))
    assert len(logs) == 12 and not list((tmp_path / "logs" / "kp").glob("*.part"))
    f2 = _write(tmp_path, "kp2", str(tmp_path / "kp2.sqlite"))
    f2.write_text(f2.read_text().replace('name = "kp2"', 'name = "kp"')  # its own log directory: the first
                  .replace(f'log_dir = "{tmp_path / "logs"}"', f'log_dir = "{tmp_path / "logs2"}"'))  # run's stay
    assert _cli("tournament", "run", str(f2), "--quiet").returncode == 0
    assert _board(url, "kp") == _board(str(tmp_path / "kp2.sqlite"), "kp")


@pytest.mark.parametrize("how", ["sigterm", "sigint"])
def test_status_says_interrupted_after_sigterm_or_ctrl_c(tmp_path: Path, how: str) -> None:
    db = tmp_path / "st.sqlite"
    f = _write(tmp_path, "st", str(db))
    proc = subprocess.Popen([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert _wait_matches(str(db), "st", 1, proc) >= 1
        proc.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == (143 if how == "sigterm" else 130) and "--resume" in err and "Traceback" not in err, err
    st = _cli("tournament", "status", "--db", str(db))
    assert "status interrupted" in st.stdout and "no driver holds its lease" in st.stdout, st.stdout
    listed = _cli("tournament", "list", "--db", str(db), "--format", "json")
    assert listed.returncode == 0 and json.loads(listed.stdout)[0]["status"] == "interrupted", listed.stderr
    r = _cli("tournament", "run", str(f), "--resume", "--quiet")
    assert r.returncode == 0, r.stderr
    assert not list((tmp_path / "logs" / "st").glob("*.part"))


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_drivers_started_at_once_one_is_refused_and_every_match_is_played_once(
        tmp_path: Path, backend: str, request) -> None:
    url = str(tmp_path / "two.sqlite") if backend == "sqlite" else request.getfixturevalue("pg_server").new_database()
    f = _write(tmp_path, "two", url)
    procs = [subprocess.Popen([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet", "--resume"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True) for _ in range(2)]
    try:
        results = [p.communicate(timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], results
    refused = next(err for p, (_, err) in zip(procs, results) if p.returncode == 2)
    assert "is being run by pid" in refused and "Traceback" not in refused
    s = Store(url)
    rows = s.matches(s.tournament("two")["id"])
    s.close()
    assert [m.idx for m in rows] == list(range(12))
    from referee.runner import replay_log

    for m in rows:  # every log is whole and its own match's
        spec, _, result = replay_log(Path(m.log_path))
        assert spec.seed == m.seed and result.scores == m.result["scores"]
