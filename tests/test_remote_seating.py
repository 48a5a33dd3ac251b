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
    behind, so the corrected file runs with a plain re-run; --resume checks the tokens again."""
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
    assert f"the referee at {addr} does not know the token of 2 external bots; no match was started:" in r.stderr
    carol_at, dave_at = line_of(f, 'name = "carol"'), line_of(extra, 'name = "dave"')
    carol, dave = f"  {f}:{carol_at}: carol\n", f"  {extra}:{dave_at}: dave\n"
    assert carol in r.stderr and dave in r.stderr, r.stderr
    assert "alice" not in r.stderr and "bob" not in r.stderr
    assert "referee serve --token-file" in r.stderr
    assert "not-carols-token" not in r.stderr and "daves-token" not in r.stderr  # tokens are secrets
    assert not list(logs.glob("**/*.jsonl"))  # no match was played

    write(BOTS, include=False)
    r = _cli("tournament", "run", str(f), "--referee", addr, "--quiet", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert {row["bot"]: row["matches"] for row in json.loads(r.stdout)} == {"alice": 6, "bob": 6, "carol": 6}
    assert "cannot check tokens" not in r.stderr

    write({**BOTS, "carol": "not-carols-token"}, include=False)  # tokens are not in the fingerprint
    r = _cli("tournament", "run", str(f), "--referee", addr, "--quiet", "--resume")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "does not know the token of 1 external bot; no match was started:" in r.stderr
    carol_at = line_of(f, 'name = "carol"')  # a line earlier: no include
    assert f"  {f}:{carol_at}: carol\n" in r.stderr, r.stderr


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
    assert "does not know the token of 1 external bot" in r.stderr and f"{f}:" in r.stderr and ": bob" in r.stderr
    assert "not-bobs-token" not in r.stderr and r.stdout == ""
    assert not db.exists() and not (tmp_path / "logs").exists()  # nothing played or stored
