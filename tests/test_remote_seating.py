"""Hosts seat bots connected to a running ``referee serve`` from the CLI:
``referee match GAME --referee HOST:PORT --seat NAME ...`` and
``referee tournament run FILE --referee HOST:PORT`` (external bots).

Real processes on loopback: a ``referee serve`` with three registered bots,
three Python sample bots connected to it by hand (``--token``), and the CLI
as the operator.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT

ADMIN = "remote-admin-token"
BOTS = {"alice": "alice-secret", "bob": "bob-secret", "carol": "carol-secret"}


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` as the operator: the admin token in the environment (never on a command line)."""
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "REFEREE_ADMIN_TOKEN": ADMIN})


@pytest.fixture()
def hosted(tmp_path: Path):
    """(address, {name: bot process}): a referee serve and three connected random bots."""
    args = [sys.executable, "-m", "referee.cli", "serve", "--port", "0", "--log-dir", str(tmp_path / "served")]
    env = {**os.environ, "REFEREE_ADMIN_TOKEN": ADMIN,
           "REFEREE_TOKENS": "\n".join(f"{name}={tok}" for name, tok in BOTS.items())}
    serve = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, env=env)
    bots: dict[str, subprocess.Popen[str]] = {}
    try:
        line = serve.stdout.readline() if serve.stdout else ""
        m = re.search(r"listening on (\S+):(\d+)", line)
        assert m, f"unexpected serve output {line!r}"
        addr = f"127.0.0.1:{m.group(2)}"
        for i, (name, tok) in enumerate(BOTS.items()):
            bots[name] = subprocess.Popen([sys.executable, "sample_bots/random_bot.py", "--referee", addr,
                                           "--name", name, "--seed", str(i)], cwd=ROOT, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, env={**os.environ, "REFEREE_TOKEN": tok})
        time.sleep(1.0)  # let them connect (a seat waits for its bot anyway: bot_connect_ms)
        yield addr, bots
    finally:
        serve.terminate()  # Goodbye "referee shutting down" to every connected bot
        try:
            serve.wait(30)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait(5)
        for p in bots.values():
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)


def test_match_seats_connected_bots_by_name_and_they_stay_connected(hosted, tmp_path: Path) -> None:
    addr, bots = hosted
    r = _cli("match", "doudizhu", "--referee", addr, "--seat", "alice", "--seat", "bob",
             "--seat", "carol", "--param", "rounds=1", "--seed", "4", "--json", "--log-dir", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "complete"
    assert out["result"]["faults"] == [] and out["result"]["decisions"] > 0
    assert all(p.poll() is None for p in bots.values())  # still connected, ready for the next match

    # mixed: two connected bots first, then one launched here for this match
    r = _cli("match", "doudizhu", "--referee", addr, "--seat", "carol", "--seat", "alice",
             "--bot", "python sample_bots/random_bot.py --seed 9", "--param", "rounds=1", "--json",
             "--log-dir", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "complete" and out["result"]["faults"] == []
    assert all(p.poll() is None for p in bots.values())


def test_match_with_an_unknown_seat_name_or_without_referee_is_refused_clearly(hosted, tmp_path: Path) -> None:
    addr, _ = hosted
    r = _cli("match", "doudizhu", "--referee", addr, "--seat", "alice", "--seat", "bob",
             "--seat", "mallory", "--log-dir", str(tmp_path))
    assert r.returncode == 2
    assert "INVALID_ARGUMENT" in r.stderr and "seat 2: no bot named 'mallory'" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    r = _cli("match", "doudizhu", "--seat", "alice", "--seat", "bob", "--seat", "carol")
    assert r.returncode == 2 and "--referee" in r.stderr


def test_tournament_runs_external_bots_on_the_running_referee(hosted, tmp_path: Path) -> None:
    addr, bots = hosted
    f = tmp_path / "remote.toml"
    entries = "".join(f'[[bots]]\nname = "{n}"\nexternal = true\ntoken = "{t}"\n\n' for n, t in BOTS.items())
    f.write_text(f'name = "remote"\ngame = "doudizhu"\nplayers = 3\nseed = 3\nconcurrency = 1\n'
                 f'database = "{tmp_path / "t.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n'
                 f'params = {{ rounds = 1 }}\n\n{entries}')
    r = _cli("tournament", "run", str(f), "--referee", addr, "--quiet", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    board = {row["bot"]: row for row in json.loads(r.stdout)}
    assert {b: row["matches"] for b, row in board.items()} == {"alice": 6, "bob": 6, "carol": 6}
    assert all(row["timeouts"] == row["illegal"] == row["crashes"] == 0 for row in board.values())
    assert all(p.poll() is None for p in bots.values())


def test_unknown_tokens_stop_the_tournament_before_any_match_naming_every_bot(hosted, tmp_path: Path) -> None:
    """Two external bots' tokens are unknown to the referee (one bot in the tournament file, one in a
    file it includes): the run stops before the first match with one message naming both, each with
    the file and line it is defined at, and what to do. Nothing played means no tournament left
    behind (not even an empty results database), so the corrected file runs with a plain re-run;
    --resume checks the tokens again and leaves the stored tournament as it was."""
    addr, _bots = hosted
    f = tmp_path / "remote.toml"
    extra = tmp_path / "entries.toml"
    logs = tmp_path / "logs"

    def write(tokens: dict[str, str], include: bool) -> None:
        entries = "".join(f'[[bots]]\nname = "{n}"\nexternal = true\ntoken = "{t}"\n\n' for n, t in tokens.items())
        f.write_text(f'name = "remote"\ngame = "doudizhu"\nplayers = 3\nseed = 3\nconcurrency = 1\n'
                     f'database = "{tmp_path / "t.sqlite"}"\nlog_dir = "{logs}"\n'
                     + ('include = ["entries.toml"]\n' if include else "")
                     + f'params = {{ rounds = 1 }}\n\n{entries}')

    def line_of(path: Path, text: str) -> int:
        return path.read_text().splitlines().index(text) + 1

    extra.write_text('# one more entry\n[[bots]]\nname = "dave"\nexternal = true\ntoken = "daves-token"\n')
    write({**BOTS, "carol": "not-carols-token"}, include=True)
    r = _cli("tournament", "run", str(f), "--referee", addr, "--quiet")
    assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr, r.stderr
    assert f"the referee at {addr} cannot seat 2 external bots; no match was started:" in r.stderr
    carol_at, dave_at = line_of(f, 'name = "carol"'), line_of(extra, 'name = "dave"')
    unknown = "its token is not registered there"
    carol, dave = f"  {f}:{carol_at}: carol: {unknown}\n", f"  {extra}:{dave_at}: dave: {unknown}\n"
    assert carol in r.stderr and dave in r.stderr, r.stderr
    assert "alice" not in r.stderr and "bob" not in r.stderr
    assert "referee serve --token-file" in r.stderr
    assert "not-carols-token" not in r.stderr and "daves-token" not in r.stderr  # tokens are secrets
    assert not list(logs.glob("**/*.jsonl"))  # no match was played
    assert not (tmp_path / "t.sqlite").exists()  # and no database made for it

    write(BOTS, include=False)
    r = _cli("tournament", "run", str(f), "--referee", addr, "--quiet", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert {row["bot"]: row["matches"] for row in json.loads(r.stdout)} == {"alice": 6, "bob": 6, "carol": 6}
    assert "cannot check tokens" not in r.stderr

    write({**BOTS, "carol": "not-carols-token"}, include=False)  # tokens are not in the fingerprint
    stored = (tmp_path / "t.sqlite").read_bytes()
    r = _cli("tournament", "run", str(f), "--referee", addr, "--quiet", "--resume")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert (tmp_path / "t.sqlite").read_bytes() == stored  # the refused resume left the database untouched
    assert "cannot seat 1 external bot; no match was started:" in r.stderr
    carol_at = line_of(f, 'name = "carol"')  # a line earlier: no include
    assert f"  {f}:{carol_at}: carol: {unknown}\n" in r.stderr, r.stderr


def test_tournament_check_asks_the_referee_about_every_external_token_and_plays_nothing(hosted,
                                                                                          tmp_path: Path) -> None:
    addr, _bots = hosted
    f = tmp_path / "remote.toml"
    db = tmp_path / "t.sqlite"

    def write(tokens: dict[str, str]) -> None:
        entries = "".join(f'[[bots]]\nname = "{n}"\nexternal = true\ntoken = "{t}"\n\n' for n, t in tokens.items())
        f.write_text(f'name = "remote"\ngame = "doudizhu"\nplayers = 3\ndatabase = "{db}"\n'
                     f'log_dir = "{tmp_path / "logs"}"\n\n{entries}')

    write(BOTS)
    r = _cli("tournament", "check", str(f), "--referee", addr)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "remote: doudizhu, 3 bots, 3 seats, round_robin, 6 matches" in r.stdout
    assert f"the referee at {addr} knows every external bot's token" in r.stdout
    write({**BOTS, "bob": "not-bobs-token"})
    r = _cli("tournament", "check", str(f), "--referee", addr)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "cannot seat 1 external bot" in r.stderr and f"{f}:" in r.stderr
    assert ": bob: its token is not registered there" in r.stderr
    assert "not-bobs-token" not in r.stderr and r.stdout == ""
    notes = tmp_path / "notes.txt"  # and a --db `run` could not create: both problems, each on its line
    notes.write_text("a file, not a directory\n")
    r = _cli("tournament", "check", str(f), "--referee", addr, "--db", str(notes / "t.sqlite"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stdout == "", r.stderr
    assert "cannot seat 1 external bot" in r.stderr and ": bob: its token is not registered there" in r.stderr
    assert r.stderr.splitlines()[-1] == (f"error: `run` could not create the results database {notes / 't.sqlite'}: "
                                         f"{notes} is not a directory"), r.stderr
    assert notes.read_text() == "a file, not a directory\n"
    assert not db.exists() and not (tmp_path / "logs").exists()  # nothing played or stored


def _by_name_file(f: Path, tmp_path: Path, bots: list[str], include: str = "") -> None:
    """A tournament file whose external bots are given by name only (no token anywhere)."""
    entries = "".join(f'[[bots]]\nname = "{n}"\nexternal = true\n\n' for n in bots)
    f.write_text(f'name = "byname"\ngame = "doudizhu"\nplayers = 3\nseed = 3\nconcurrency = 1\n'
                 f'database = "{tmp_path / "t.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n'
                 + (f'include = ["{include}"]\n' if include else "")
                 + f'params = {{ rounds = 1 }}\n\n{entries}')


def test_tournament_seats_external_bots_by_their_registered_name(hosted, tmp_path: Path) -> None:
    """The tournament file names the external bots and holds no token: the hosted referee seats
    the bots registered (and connected) under those names, the matches record them, and the stored
    spec says each is seated by name."""
    addr, bots = hosted
    f = tmp_path / "byname.toml"
    _by_name_file(f, tmp_path, list(BOTS))
    r = _cli("tournament", "check", str(f), "--referee", addr)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"the referee at {addr} can seat every external bot" in r.stdout
    r = _cli("tournament", "run", str(f), "--referee", addr, "--quiet", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cannot check" not in r.stderr
    board = {row["bot"]: row for row in json.loads(r.stdout)}
    assert {b: row["matches"] for b, row in board.items()} == {"alice": 6, "bob": 6, "carol": 6}
    assert all(row["timeouts"] == row["illegal"] == row["crashes"] == 0 for row in board.values())
    assert all(p.poll() is None for p in bots.values())
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        seats = [sorted(json.loads(s)) for s, in db.execute("SELECT seats_json FROM matches")]
        spec = json.loads(db.execute("SELECT spec_json FROM tournaments").fetchone()[0])
    assert len(seats) == 6 and all(s == ["alice", "bob", "carol"] for s in seats)
    assert [(b["name"], b["seated_by"]) for b in spec["bots"]] == [("alice", "name"), ("bob", "name"),
                                                                    ("carol", "name")]
    logs = sorted((tmp_path / "logs").glob("**/*.jsonl"))
    assert len(logs) == 6
    assert all(n in logs[0].read_text() for n in BOTS)


def test_an_unregistered_name_stops_the_tournament_before_any_match(hosted, tmp_path: Path) -> None:
    """An external bot whose name the referee does not know (here in an included file), beside one
    whose token it does not know: run and check both name each with its file, line and why."""
    addr, _bots = hosted
    f, extra = tmp_path / "byname.toml", tmp_path / "entries.toml"
    extra.write_text('# a late entry\n[[bots]]\nname = "mallory"\nexternal = true\n\n'
                     '[[bots]]\nname = "trent"\nexternal = true\ntoken = "not-a-known-token"\n')
    _by_name_file(f, tmp_path, list(BOTS), include="entries.toml")
    lines = extra.read_text().splitlines()
    mallory_at, trent_at = lines.index('name = "mallory"') + 1, lines.index('name = "trent"') + 1
    for cmd in ("run", "check"):
        r = _cli("tournament", cmd, str(f), "--referee", addr, *(["--quiet"] if cmd == "run" else []))
        assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr, r.stderr
        started = "; no match was started" if cmd == "run" else ""  # check never starts one
        assert f"the referee at {addr} cannot seat 2 external bots{started}:" in r.stderr, r.stderr
        assert f"  {extra}:{mallory_at}: mallory: no bot is registered there under this name\n" in r.stderr
        assert f"  {extra}:{trent_at}: trent: its token is not registered there\n" in r.stderr
        assert "alice" not in r.stderr and "not-a-known-token" not in r.stderr
    assert not list((tmp_path / "logs").glob("**/*.jsonl"))  # no match was played
    assert not (tmp_path / "t.sqlite").exists()  # no database made either


def test_a_local_run_refuses_external_bots_without_a_token_naming_each(tmp_path: Path) -> None:
    """Without --referee the tournament's own referee has no registered names: every tokenless
    external bot is named at load, with its file and line, and what to do; nothing runs."""
    f = tmp_path / "byname.toml"
    _by_name_file(f, tmp_path, ["alice", "bob", "carol"])
    text = f.read_text().replace('name = "bob"\nexternal = true\n', 'name = "bob"\nexternal = true\ntoken = "b"\n')
    f.write_text(text.replace("concurrency = 1\n", "concurrency = 1\nport = 50999\n"))
    lines = f.read_text().splitlines()
    for cmd in ("run", "check"):
        r = _cli("tournament", cmd, str(f))
        assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr, r.stderr
        for n in ("alice", "carol"):
            at = lines.index(f'name = "{n}"') + 1
            assert (f"{f}:{at}: bots[{['alice', 'bob', 'carol'].index(n)}].token: external bot {n} has no token: "
                    'give token = "...", or run on a hosted referee with --referee where the bot is registered '
                    "by this name") in r.stderr, r.stderr
        assert "bob" not in r.stderr
    assert not (tmp_path / "t.sqlite").exists() and not (tmp_path / "logs").exists()
