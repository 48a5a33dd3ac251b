"""End-to-end tests of the C++ sample bot (``sample_bots/cpp``).

The bot is built once per test session with its own Makefile into a
temporary directory (system protoc, grpc_cpp_plugin, libgrpc++; .ci/run
installs them), then plays real matches over loopback gRPC against the
Python sample bots: one match of every game and a short tournament.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT, shared_dir
from reconnectlib import (a_negative_value_is_a_usage_error, comes_back_to_a_restarted_referee_and_plays,
                          ctrl_c_while_reconnecting_exits_130, exits_without_reconnect_and_never_retries_a_bad_token,
                          reports_its_connection_and_rejections_on_stderr, says_nothing_on_connecting_when_launched)

RANDOM_BOT = "python sample_bots/random_bot.py"
HEURISTIC_BOT = "python sample_bots/heuristic_bot.py"


def _cli(*args: str, timeout: float = 600, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, **kw)


@pytest.fixture(scope="session")
def cpp_bot() -> Iterator[str]:
    """Path of the C++ bot, built from sample_bots/cpp into a session temp dir
    every uid can read (the bot runs under a uid of its own)."""
    for tool in ("make", "g++", "protoc", "grpc_cpp_plugin", "pkg-config"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} not found: the C++ bot needs protobuf-compiler, protobuf-compiler-grpc, "
                        "libgrpc++-dev, libprotobuf-dev, pkg-config, g++ and make (.ci/run installs them)")
    build = shared_dir("referee-cppbot-")
    # -O0: the test needs a working bot, not a fast one (about half the compile time)
    r = subprocess.run(["make", "-C", str(ROOT / "sample_bots" / "cpp"), f"BUILD={build}", "CXXFLAGS=-O0",
                        "-j2"], capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, f"building the C++ bot failed:\n{r.stdout[-4000:]}\n{r.stderr[-8000:]}"
    bot = build / "bot"
    assert os.access(bot, os.X_OK)
    try:
        yield str(bot)
    finally:
        shutil.rmtree(build, ignore_errors=True)


# (game, players, match parameters, seat of the C++ bot): short matches, the
# C++ bot in different seats
MATCHES = [
    ("doudizhu", 3, ["rounds=2"], 1),
    ("tractor", 4, ["max_rounds=1"], 2),
    ("smear", 3, ["max_rounds=3"], 0),
    ("president", 4, ["max_rounds=2"], 3),
    ("back_alley", 4, ["first_round=12", "last_round=13"], 1),
]


@pytest.mark.parametrize(("game", "players", "params", "seat"), MATCHES, ids=[m[0] for m in MATCHES])
def test_cpp_bot_plays_a_match_of_every_game(cpp_bot: str, tmp_path: Path, game: str, players: int,
                                             params: list[str], seat: int) -> None:
    bots = [f"{RANDOM_BOT} --seed {s}" for s in range(players)]
    bots[seat] = f"{cpp_bot} --seed 7 --name cpp"
    args = ["match", game, "--seed", "21", "--json", "--log-dir", str(tmp_path), "--decision-ms", "5000"]
    for p in params:
        args += ["--param", p]
    for b in bots:
        args += ["--bot", b]
    r = _cli(*args)
    assert r.returncode == 0, f"referee match failed:\n{r.stdout}\n{r.stderr}"
    out = json.loads(r.stdout)
    assert out["status"] == "complete"
    assert out["decisions"] > 0
    assert [f for f in out["faults"] if f["seat"] == seat] == []
    assert seat not in out["forfeited"]
    stderr = next(tmp_path.glob(f"*.seat{seat}.stderr")).read_text()
    assert "rejected" not in stderr and "connection ended" not in stderr, stderr
    assert "connected to" not in stderr, stderr  # launched: its connection is not announced


def test_cpp_bot_in_a_short_tournament(cpp_bot: str, tmp_path: Path) -> None:
    f = tmp_path / "cpp.toml"
    f.write_text(f'''name = "cpp-smear"
game = "smear"
players = 3
schedule = "round_robin"
seed = 5
concurrency = 2
database = "{tmp_path / 't.sqlite'}"
log_dir = "{tmp_path / 'logs'}"
params = {{ max_rounds = 4 }}

[clock]
decision_ms = 5000

[[bots]]
name = "cpp"
command = "{cpp_bot} --seed 3"

[[bots]]
name = "random"
command = "{RANDOM_BOT} --seed 1"

[[bots]]
name = "heuristic"
command = "{HEURISTIC_BOT} --seed 2"
''')
    r = _cli("tournament", "run", str(f), "--quiet", "--format", "json")
    assert r.returncode == 0, f"tournament failed:\n{r.stdout}\n{r.stderr}"
    board = {row["bot"]: row for row in json.loads(r.stdout)}
    assert set(board) == {"cpp", "random", "heuristic"}
    assert all(row["matches"] == 6 for row in board.values()), board  # every seat order once
    assert board["cpp"]["timeouts"] == board["cpp"]["illegal"] == board["cpp"]["crashes"] == 0, board["cpp"]


def _serve(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    serve = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "--port", "0", "--log-dir",
                              str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True,
                             env={**os.environ, "REFEREE_ADMIN_TOKEN": "test-admin",
                                  "REFEREE_TOKENS": "alice=alice-secret"})
    line = serve.stdout.readline() if serve.stdout else ""
    m = re.search(r"listening on (\S+):(\d+)", line)
    if not m:
        serve.kill()
        pytest.fail(f"unexpected serve output {line!r}")
    return serve, f"127.0.0.1:{m.group(2)}"


def test_cpp_bot_takes_its_token_from_the_environment_and_reports_a_bad_one(cpp_bot: str, tmp_path: Path) -> None:
    serve, addr = _serve(tmp_path)
    try:
        env = {**os.environ, "REFEREE_TOKEN": "not-a-token"}
        r = subprocess.run([cpp_bot, "--referee", addr, "--name", "cpptest"], env=env, capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 1, r.stderr
        assert "cpptest: connection ended: UNAUTHENTICATED" in r.stderr
        env.pop("REFEREE_TOKEN")
        r = subprocess.run([cpp_bot, "--referee", addr], env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "REFEREE_TOKEN" in r.stderr
    finally:
        serve.terminate()
        serve.wait(30)


@pytest.mark.parametrize("goodbye", [True, False], ids=["goodbye", "dropped"])
def test_cpp_bot_with_reconnect_comes_back_to_a_restarted_referee_and_plays(cpp_bot: str, tmp_path: Path,
                                                                             goodbye: bool) -> None:
    """`--reconnect SECONDS`, as the Python sample bots (tests/reconnectlib.py)."""
    comes_back_to_a_restarted_referee_and_plays([cpp_bot], tmp_path, goodbye)


def test_cpp_bot_without_reconnect_exits_and_never_retries_a_bad_token(cpp_bot: str, tmp_path: Path) -> None:
    exits_without_reconnect_and_never_retries_a_bad_token([cpp_bot], tmp_path)


def test_cpp_bot_ctrl_c_while_reconnecting_exits_130(cpp_bot: str, tmp_path: Path) -> None:
    ctrl_c_while_reconnecting_exits_130([cpp_bot], tmp_path)


def test_cpp_bot_rejects_a_negative_reconnect(cpp_bot: str) -> None:
    a_negative_value_is_a_usage_error([cpp_bot])


def test_cpp_bot_reports_its_connection_and_a_reply_after_its_match_ended(cpp_bot: str, tmp_path: Path) -> None:
    reports_its_connection_and_rejections_on_stderr([cpp_bot], tmp_path)


def test_cpp_bot_launched_says_nothing_on_connecting(cpp_bot: str, tmp_path: Path) -> None:
    says_nothing_on_connecting_when_launched([cpp_bot], tmp_path)
