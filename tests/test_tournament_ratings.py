"""Ratings end to end with real bots over gRPC: the chaos example's ranking,
and an adaptive (until = "separated") run killed with -9 and resumed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PY, ROOT
from tournaments.store import Store


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True, **kw)


def _board(db: Path, name: str) -> list[dict]:
    r = _cli("leaderboard", "--db", str(db), "--tournament", name, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.slow
def test_chaos_example_ranks_every_working_bot_above_every_broken_one(tmp_path: Path) -> None:
    src = (ROOT / "tournaments" / "examples" / "chaos.toml").read_text()
    text = src.replace('database = "runs/referee.sqlite"', f'database = "{tmp_path / "chaos.sqlite"}"')
    text = text.replace('log_dir = "runs/logs"', f'log_dir = "{tmp_path / "logs"}"')
    assert len(set(text.splitlines()) - set(src.splitlines())) == 2  # the example itself, only stored elsewhere
    f = tmp_path / "chaos.toml"
    f.write_text(text)
    r = _cli("tournament", "run", str(f), "--quiet", "--format", "json", timeout=900)
    assert r.returncode == 0, r.stderr
    board = json.loads(r.stdout)
    assert [row["bot"] for row in board[:2]] == ["heuristic", "random"], board
    assert {row["bot"] for row in board[2:]} == {"crash-mid-match", "hang", "illegal", "memory-hog"}
    assert board[1]["separated_from_next"] is True  # and the board is sure of it
    assert all(row["matches"] == 30 for row in board)
    s = Store(str(tmp_path / "chaos.sqlite"))
    rows = s.matches(s.tournament("chaos-demo")["id"])
    s.close()
    working = {"heuristic", "random"}
    for m in rows:  # every match with a working bot has a strict result; only broken-only matches may draw
        if working & set(m.seats):
            assert len(set(m.result["ranks"])) > 1, (m.idx, m.seats, m.result["ranks"])


ADAPTIVE = """\
name = "adapt"
game = "doudizhu"
players = 3
seed = 5
concurrency = 2
database = "{db}"
log_dir = "{logs}"
params = {{ rounds = 2 }}

[schedule]
kind = "round_robin"
until = "separated"
confidence = 0.95
max_matches = 18

[[bots]]
name = "heuristic"
command = "python sample_bots/heuristic_bot.py --seed 1"

[[bots]]
name = "random-a"
command = "python sample_bots/random_bot.py --seed 2"

[[bots]]
name = "random-b"
command = "python sample_bots/random_bot.py --seed 3"
"""


def _done(db: Path, name: str) -> int:
    """Matches stored so far, read without Store (which would create the
    schema and race the run doing the same)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as c:
            return c.execute("SELECT count(*) FROM matches m JOIN tournaments t ON m.tournament_id = t.id "
                             "WHERE t.name = ?", (name,)).fetchone()[0]
    except sqlite3.Error:
        return 0


def _matches(db: Path) -> list[tuple]:
    s = Store(str(db))
    rows = s.matches(s.tournament("adapt")["id"])
    s.close()
    return [(m.idx, m.seed, tuple(m.seats), tuple(m.result["ranks"])) for m in rows]


@pytest.mark.slow
def test_adaptive_run_killed_with_9_resumes_exactly(tmp_path: Path) -> None:
    # uninterrupted reference run
    ref_db = tmp_path / "ref.sqlite"
    f_ref = tmp_path / "ref.toml"
    f_ref.write_text(ADAPTIVE.format(db=ref_db, logs=tmp_path / "logs-ref"))
    r = _cli("tournament", "run", str(f_ref), "--quiet", timeout=600)
    assert r.returncode == 0, r.stderr
    assert "stopped: " in r.stderr, r.stderr
    ref = _matches(ref_db)
    assert len(ref) > 6 and len(ref) % 6 == 0  # went past the fixed schedule, whole blocks of seat orders only

    db = tmp_path / "kill.sqlite"
    f = tmp_path / "kill.toml"
    f.write_text(ADAPTIVE.format(db=db, logs=tmp_path / "logs"))
    proc = subprocess.Popen([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and _done(db, "adapt") < 8 and proc.poll() is None:
            time.sleep(0.2)  # killed inside the first added block
        assert _done(db, "adapt") >= 8, ("the adaptive run made no progress",
                                          proc.poll() is not None and proc.communicate(timeout=10))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    partial = _done(db, "adapt")
    assert partial < len(ref), "killed too late to test resume"
    r = _cli("tournament", "run", str(f), "--resume", "--quiet", timeout=600)
    assert r.returncode == 0, r.stderr
    assert f"{partial} already done" in r.stderr
    assert _matches(db) == ref  # the same matches, the same seeds and seats, nothing twice
    assert _board(db, "adapt") == _board(ref_db, "adapt")
    det = _cli("leaderboard", "--db", str(db), "--tournament", "adapt", "--details", "--format", "json")
    assert det.returncode == 0, det.stderr
    d = json.loads(det.stdout)
    assert d["leaderboard"] == _board(db, "adapt")
    assert {"head_to_head", "seats", "roles"} <= set(d["details"])
    assert {x["role"] for x in d["details"]["roles"]} == {"landlord", "peasant"}
    stop = [line for line in r.stderr.splitlines() if line.startswith("stopped: ")]
    assert stop and stop == [line for line in _cli("tournament", "run", str(f_ref), "--resume", "--quiet"
                                                   ).stderr.splitlines() if line.startswith("stopped: ")]
