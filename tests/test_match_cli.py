"""`referee match` end to end: real referee, real bot processes, loopback gRPC."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import PY, ROOT, interrupt_when, stop_server

RANDOM = "python sample_bots/random_bot.py"
HEUR = "python sample_bots/heuristic_bot.py"


def _match(tmp: Path, *extra: str, bots=(RANDOM, RANDOM, HEUR), game="doudizhu") -> subprocess.CompletedProcess:
    args = [PY, "-m", "referee.cli", "match", game, "--log-dir", str(tmp)]
    for b in bots:
        args += ["--bot", b]
    return subprocess.run(args + list(extra), cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_match_prints_summary_and_log_that_replays(tmp_path: Path) -> None:
    r = _match(tmp_path, "--players", "3", "--seed", "7", "--rounds", "3")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "complete" in out and "round 1:" in out and "bids" in out and "log:" in out
    log = out.split("log:")[1].split()[0]
    rp = subprocess.run([PY, "-m", "referee.cli", "replay", log], cwd=ROOT, capture_output=True, text=True)
    assert rp.returncode == 0 and "identical to the log" in rp.stdout, rp.stderr


def test_an_illegal_action_is_explained_with_its_rule_and_where_to_read_it(tmp_path: Path) -> None:
    r = _match(tmp_path, "--rounds", "1", "--seed", "3",
               bots=("python sample_bots/chaos_bot.py --mode illegal", RANDOM, RANDOM))
    assert "Traceback" not in r.stderr, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.strip().startswith("seat 0 illegal:"))
    assert re.search(r"\(rule [A-Z]+-\d+: docs/rules/doudizhu\.md\)$", line), line


def test_match_json_is_zero_sum_and_seeded_matches_repeat(tmp_path: Path) -> None:
    seeded = (RANDOM + " --seed 1", RANDOM + " --seed 2", HEUR + " --seed 3")
    a = json.loads(_match(tmp_path, "--seed", "3", "--rounds", "2", "--json", bots=seeded).stdout)
    b = json.loads(_match(tmp_path, "--seed", "3", "--rounds", "2", "--json", bots=seeded).stdout)
    assert a["status"] == "complete" and sum(a["scores"]) == 0
    assert a["scores"] == b["scores"] and a["outcomes"] == b["outcomes"]  # seeded bots + seeded deal
    ev = lambda d: [ln for ln in Path(d["log_path"]).read_text().splitlines() if '"type":"event"' in ln]
    assert ev(a) == ev(b)  # byte for byte


def test_four_player_match(tmp_path: Path) -> None:
    r = _match(tmp_path, "--rounds", "1", "--json", bots=(RANDOM,) * 4)
    d = json.loads(r.stdout)
    assert d["status"] == "complete" and len(d["scores"]) == 4 and sum(d["scores"]) == 0


def test_bad_arguments_are_clear_errors(tmp_path: Path) -> None:
    r = _match(tmp_path, "--players", "5")
    assert r.returncode == 2 and "5" in r.stderr
    r = _match(tmp_path, game="chess")
    assert r.returncode == 2 and "unknown game" in r.stderr
    r = _match(tmp_path, "--param", "rondes=3")
    assert r.returncode == 2 and "rondes" in r.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl_c", "sigterm"])
def test_ctrl_c_or_sigterm_reaps_every_bot_process(tmp_path: Path, sig: int) -> None:
    marker = uuid.uuid4().hex[:12]  # on every bot's command line: finds this test's processes
    hang = f"python sample_bots/chaos_bot.py --mode hang --name hang-{marker}"
    p = subprocess.Popen([PY, "-m", "referee.cli", "match", "doudizhu", "--log-dir", str(tmp_path),
                          "--bot", hang, "--bot", hang, "--bot", hang, "--decision-ms", "60000"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _pids(marker):
            time.sleep(0.1)
        while time.monotonic() < deadline and not list(tmp_path.rglob("*.jsonl")):
            time.sleep(0.1)  # the match log appears once every bot has connected and the match began
        assert _pids(marker) and list(tmp_path.rglob("*.jsonl"))
        os.kill(p.pid, sig)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 128 + sig and b"interrupted after" in out and b"Traceback" not in err, err
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _pids(marker):
        time.sleep(0.1)
    assert not _pids(marker)


def test_ctrl_c_while_the_bots_exit_after_the_match_still_reports_the_finished_match(tmp_path: Path) -> None:
    linger = f"60.{uuid.uuid4().int % 10**9:09d}"  # keeps running long after Goodbye; finds this test's bot
    lingering, bot_pids = f"python tests/end_bot.py --linger {linger}", lambda: _pids(f"end_bot.py --linger {linger} --referee")
    p = subprocess.Popen([PY, "-m", "referee.cli", "match", "doudizhu", "--rounds", "2", "--log-dir", str(tmp_path),
                          "--bot", RANDOM, "--bot", RANDOM, "--bot", lingering, "--end-grace-ms", "60000"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    # the sandbox line follows the result: the match is over, the bots are being given their end grace
    out, err = interrupt_when(p, lambda: any('"type":"sandbox"' in f.read_text() for f in tmp_path.glob("*.jsonl"))
                              and bot_pids())
    assert p.returncode == 0, err
    assert "interrupted" not in out and "incomplete" not in out and "Traceback" not in err
    assert "— complete" in out and "round 2:" in out and "end-bot#2" in out and "log: " in out
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and bot_pids():
        time.sleep(0.1)
    assert not bot_pids()  # reaped


def _pids(pattern: str, under: Path | None = None) -> list[str]:
    """Pids matching ``pattern`` whose working directory is below ``under`` (bots run in the log dir)."""
    r = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
    return [p for p in r.stdout.split() if under is None or _cwd(p).startswith(str(under))]


def _cwd(pid: str) -> str:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""


GAMES_SHORT = {  # game -> (seats, match length parameter keeping the test short)
    "doudizhu": (3, ["--rounds", "2"]),
    "tractor": (4, ["--rounds", "1"]),
    "smear": (3, ["--rounds", "3"]),
    "president": (4, ["--param", "target_score=2"]),
    "back_alley": (4, ["--param", "first_round=1", "--param", "last_round=3"]),
}


@pytest.mark.parametrize("game", sorted(GAMES_SHORT))
def test_every_game_end_to_end_with_bot_processes(game: str, tmp_path: Path) -> None:
    """A real referee and real bot processes (random and heuristic) over loopback gRPC,
    for every game; the log replays exactly."""
    n, extra = GAMES_SHORT[game]
    bots = tuple((HEUR if s % 2 else RANDOM) + f" --seed {s}" for s in range(n))
    r = _match(tmp_path, "--seed", "5", "--json", *extra, bots=bots, game=game)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["status"] == "complete" and len(d["scores"]) == n
    assert not d["faults"], d["faults"]
    rp = subprocess.run([PY, "-m", "referee.cli", "replay", d["log_path"]], cwd=ROOT, capture_output=True, text=True)
    assert rp.returncode == 0 and "identical to the log" in rp.stdout, rp.stderr


def test_missing_bot_program_is_a_clear_error_before_anything_starts(tmp_path: Path) -> None:
    r = _match(tmp_path, bots=(RANDOM, "nosuchprogram --x", RANDOM))
    assert r.returncode == 2 and "--bot #2 'nosuchprogram --x': program 'nosuchprogram' not found" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_crash_is_explained_and_written_to_the_log(tmp_path: Path) -> None:
    # every RNG seeded (the deal and each bot), so the crash always comes after the
    # bot's 5th answer (an unseeded one-round match could end in a redeal, 3 decisions)
    crash = "python sample_bots/chaos_bot.py --mode crash-mid-match --seed 1"
    r = _match(tmp_path, "--rounds", "2", "--seed", "5",
               bots=(crash, RANDOM + " --seed 2", RANDOM + " --seed 3"))
    assert r.returncode == 0, r.stderr
    assert "seat 0 crash: bot exited with status 4: chaos: crashing mid-match" in r.stdout
    log = r.stdout.split("log:")[1].split()[0]
    faults = [json.loads(ln) for ln in Path(log).read_text().splitlines() if '"type":"fault"' in ln]
    assert [(f["seat"], f["kind"]) for f in faults] == [(0, "crash")]
    rp = subprocess.run([PY, "-m", "referee.cli", "replay", log], cwd=ROOT, capture_output=True, text=True)
    assert rp.returncode == 0 and '"forfeited": [0]' in rp.stdout, rp.stdout + rp.stderr


def test_match_on_a_running_referee_through_the_admin_service(tmp_path: Path) -> None:
    import re

    serve = subprocess.Popen([PY, "-m", "referee.cli", "serve", "--port", "0",
                              "--log-dir", str(tmp_path / "srv")], cwd=ROOT, stdout=subprocess.PIPE,
                             env={**os.environ, "REFEREE_ADMIN_TOKEN": "adm"},  # secrets never in argv
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", serve.stdout.readline())
        assert m, serve.stderr.read() if serve.poll() is not None else "no listening line"
        addr = f"127.0.0.1:{m.group(1)}"
        common = ["--referee", addr, "--rounds", "1", "--seed", "4"]
        r = _match(tmp_path, *common, "--admin-token", "adm")
        assert r.returncode == 0, r.stderr
        # a local match's summary (seats named after their bots), the log fetched here, and its replay
        assert "— complete" in r.stdout and re.search(r"│ 2 +│ heuristic#2 +│", r.stdout) and "round 1:" in r.stdout
        log = re.search(r"^log: (\S+)$", r.stdout, re.M)
        assert log and Path(log.group(1)).is_file() and not log.group(1).startswith(str(tmp_path / "srv"))
        assert "replay: " in r.stdout, r.stdout
        d = json.loads(_match(tmp_path, *common, "--admin-token", "adm", "--json").stdout)
        assert d["status"] == "complete" and sum(d["result"]["scores"]) == 0
        assert all(isinstance(x, int) for x in d["result"]["scores"])
        bad = _match(tmp_path, *common, "--admin-token", "wrong")
        assert bad.returncode == 2 and "PERMISSION_DENIED" in bad.stderr
    finally:
        stop_server(serve, group=True)


def test_ctrl_c_while_the_bots_exit_after_a_remote_match_still_reports_the_finished_match(tmp_path: Path) -> None:
    """As for a local match: the match on the referee is over, its log fetched here says how it ended."""
    import re

    linger = f"60.{uuid.uuid4().int % 10**9:09d}"
    lingering = f"python tests/end_bot.py --linger {linger}"
    serve = subprocess.Popen([PY, "-m", "referee.cli", "serve", "--port", "0", "--log-dir", str(tmp_path / "srv")],
                             cwd=ROOT, stdout=subprocess.PIPE, env={**os.environ, "REFEREE_ADMIN_TOKEN": "adm"},
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    p = None
    try:
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", serve.stdout.readline())
        assert m, serve.stderr.read() if serve.poll() is not None else "no listening line"
        p = subprocess.Popen([PY, "-m", "referee.cli", "match", "doudizhu", "--rounds", "2", "--log-dir",
                              str(tmp_path / "here"), "--referee", f"127.0.0.1:{m.group(1)}", "--bot", RANDOM,
                              "--bot", RANDOM, "--bot", lingering, "--end-grace-ms", "60000"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "REFEREE_ADMIN_TOKEN": "adm"}, start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not any('"type":"result"' in f.read_text()
                                                      for f in (tmp_path / "srv").glob("*.jsonl")):
            time.sleep(0.1)
        assert _pids(f"end_bot.py --linger {linger}")  # the match is over, the bots have their end grace
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p is not None and p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
        stop_server(serve, group=True)
    assert p.returncode == 0, err
    assert "interrupted" not in out and "incomplete" not in out and "Traceback" not in err
    assert "— complete" in out and "round 2:" in out and "log: " in out


def test_a_crash_names_the_error_line_above_a_long_stack_trace(tmp_path: Path, shared_tmp: Path) -> None:
    # as Node.js reports a missing module: the error, then many lines of stack
    # (in a directory the bot's own uid can read)
    bot = shared_tmp / "failing_bot.py"
    bot.write_text("import sys\nprint(\"Error: Cannot find module '@grpc/grpc-js'\", file=sys.stderr)\n"
                   "for i in range(12):\n    print(f'    at frame{i} (/x/bot.js:{i}:1)', file=sys.stderr)\n"
                   "print('Node.js v20', file=sys.stderr)\nsys.exit(1)\n")
    r = _match(tmp_path, "--rounds", "1", bots=(f"python {bot}", RANDOM, RANDOM))
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if "seat 0" in ln and "exited with status 1" in ln)
    assert "Error: Cannot find module '@grpc/grpc-js'" in line and "Node.js v20" in line
