"""OS isolation of launched bots (referee/sandbox.py) and clocks that measure
the bot (referee/clocks.py), with real bot processes over real gRPC; see
docs/sandbox.md. The root-only features run in CI (as root); elsewhere each
such test is skipped with the reason this machine gives."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import PY, ROOT, run
from referee.botcommand import check_command, readable_files, resolve_command
from referee.bots import BotProcess, Limits
from referee.play import SeatPlan, play_launched, play_match
from referee.runner import MatchSpec
from referee.sandbox import Sandbox, SandboxError, capabilities, prepare
from referee.service import Referee

RANDOM = "python sample_bots/random_bot.py"
CHAOS = "python sample_bots/chaos_bot.py"
CAPS = capabilities()


def _why_no_uids() -> str | None:
    """Why per-bot uids cannot be tested here (None: they can)."""
    if os.geteuid() != 0:
        return "per-bot uids need a referee running as root"
    sb = Sandbox("60000-60999")
    argv = resolve_command(RANDOM, ROOT)
    problems = sb.check(argv, readable_files(argv))
    return f"this checkout's Python is not usable by an unprivileged uid: {problems}" if problems else None


NO_UIDS = _why_no_uids()
NO_NETNS = None if CAPS.netns else "this machine cannot create network namespaces: " + "; ".join(CAPS.notes)
NO_CGROUP_MEMORY = None if CAPS.memory else "no cgroup memory controller the referee can use: " + "; ".join(CAPS.notes)


def spec_of(match_id: str, names: list[str], **kw) -> MatchSpec:
    kw.setdefault("params", {"rounds": 1})
    return MatchSpec(game="doudizhu", players=3, seed=5, seat_names=names, match_id=match_id, **kw)


def faults_by_seat(outcome) -> dict[int, list]:
    out = defaultdict(list)
    for f in outcome.faults:
        out[f.seat].append(f)
    return out


async def _with_ref(tmp: Path, body, sandbox: Sandbox | None = None, **kw):
    ref = Referee(tmp, **kw)
    await ref.start("127.0.0.1", 0)
    try:
        return await body(ref)
    finally:
        await ref.stop(0.2)
        if sandbox is not None:
            sandbox.close()


def test_the_machine_says_which_mechanisms_are_in_force() -> None:
    line = CAPS.describe()
    print(line, CAPS.notes)  # shown with -s: what this machine allows
    assert line.startswith("memory: ") and "network namespaces: " in line
    assert CAPS.memory_mechanism in ("cgroup v2 memory.max", "cgroup v1 memory.limit_in_bytes",
                                     "RLIMIT_AS (address space)")


# --------------------------------------------------------------------------- 1. memory
@pytest.mark.skipif(NO_CGROUP_MEMORY is not None, reason=str(NO_CGROUP_MEMORY))
def test_a_runtime_reserving_8_gib_plays_and_a_bot_touching_more_than_its_limit_is_a_memory_crash(
        tmp_path: Path) -> None:
    async def body(ref):
        spec = spec_of("mem", ["reserver", "hog", "random"])
        return await play_match(ref, spec, [SeatPlan(command=f"{CHAOS} --mode reserve-8g --seed 1"),
                                            SeatPlan(command=f"{CHAOS} --mode memory-hog",
                                                     limits=Limits(memory_mb=256)),
                                            SeatPlan(command=f"{RANDOM} --seed 2")],
                                tmp_path, Limits(), base_dir=ROOT)

    out = run(_with_ref(tmp_path, body))
    by_seat = faults_by_seat(out)
    assert "reserved 8 GiB" in (tmp_path / "mem.seat0.stderr").read_text()
    assert not by_seat[0] and not by_seat[2], by_seat  # the default 2048 MB resident limit lets it play
    crash = [f for f in by_seat[1] if f.kind == "crash"]
    assert crash and crash[0].message.startswith("memory limit (memory_mb = 256, cgroup"), by_seat[1]
    sandbox_line = json.loads((tmp_path / "mem.jsonl").read_text().splitlines()[-1])
    assert sandbox_line["type"] == "sandbox" and "memory: cgroup" in sandbox_line["mechanisms"]
    assert [s["memory"] for s in sandbox_line["seats"]] == [CAPS.memory_mechanism] * 3


# --------------------------------------------------------------------------- 2. limits where bots start
def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_match_limit_option_names_the_limit_hit_and_the_bots_last_output(tmp_path: Path) -> None:
    mb = 200 if CAPS.memory else 1200  # RLIMIT_AS: a Python gRPC bot needs ~0.7 GB of address space
    r = _cli("match", "doudizhu", "--rounds", "1", "--log-dir", str(tmp_path), "--json", "--limit", f"memory_mb={mb}",
             "--limit", "cpu_seconds=120", "--bot", f"{CHAOS} --mode memory-hog", "--bot", f"{CHAOS} --mode stdout-error",
             "--bot", RANDOM)
    assert r.returncode == 0, r.stderr
    faults = json.loads(r.stdout)["faults"]
    hog = [f for f in faults if f["seat"] == 0 and f["kind"] == "crash"]
    assert hog and hog[0]["message"].startswith(f"memory limit (memory_mb = {mb}"), faults
    jvm = [f for f in faults if f["seat"] == 1 and f["kind"] == "crash"]
    assert jvm and "status 1" in jvm[0]["message"] and "last stdout: Error occurred during initialization of VM" \
        in jvm[0]["message"], faults  # a JVM writes its error to stdout
    assert not [f for f in faults if f["seat"] == 2]
    bad = _cli("match", "doudizhu", "--limit", "memory=1", "--bot", RANDOM, "--bot", RANDOM, "--bot", RANDOM)
    assert bad.returncode == 2 and "unknown limit 'memory'" in bad.stderr and "memory_mb" in bad.stderr


def test_tournament_bots_have_their_own_limits(tmp_path: Path) -> None:
    from tournaments import spec as tspec

    f = tmp_path / "t.toml"
    f.write_text('name = "lim"\ngame = "doudizhu"\n[limits]\nmemory_mb = 1024\ncpu_seconds = 30\n'
                 f'[[bots]]\nname = "a"\ncommand = "{RANDOM}"\nlimits = {{ memory_mb = 4096 }}\n'
                 f'[[bots]]\nname = "b"\ncommand = "{RANDOM}"\n[[bots]]\nname = "c"\ncommand = "{RANDOM}"\n'
                 f'[bots.limits]\nprocesses = 8\n')
    s = tspec.load(f)
    assert s.bots[0].limits == Limits(memory_mb=4096, cpu_seconds=30)
    assert s.bots[1].limits is None and s.limits == Limits(memory_mb=1024, cpu_seconds=30)
    assert s.bots[2].limits == Limits(memory_mb=1024, cpu_seconds=30, processes=8)
    f.write_text(f.read_text().replace("memory_mb = 4096", "memory = 4096"))
    with pytest.raises(tspec.SpecError) as e:
        tspec.load(f)
    assert ":9: bots[0].limits.memory: unknown limit 'memory'" in str(e.value)
    # every problem of a bot's limits at once, inline or in a [bots.limits] table, each with its line
    f.write_text(f.read_text().replace("memory = 4096", "memory_mb = -5, cpus = 2")
                 .replace("processes = 8", "processes = 8\nopen_files = true\nthreads = 4"))
    with pytest.raises(tspec.SpecError) as e:
        tspec.load(f)
    assert {(k, ln) for k, ln, _ in e.value.problems} == {
        ("bots[0].limits.memory_mb", 9), ("bots[0].limits.cpus", 9),
        ("bots[2].limits.open_files", 18), ("bots[2].limits.threads", 19)}
    assert ":9: bots[0].limits.memory_mb: limit memory_mb must be a whole number >= 0" in str(e.value)
    assert ":9: bots[0].limits.cpus: unknown limit 'cpus'" in str(e.value)


# --------------------------------------------------------------------------- 3. commands resolve one way
def test_relative_program_paths_are_resolved_from_where_the_user_runs_the_command(tmp_path: Path) -> None:
    here = tmp_path / "me"
    (here / "bin").mkdir(parents=True)
    prog = here / "bin" / "mybot"
    prog.write_text(f"#!/bin/sh\nexec {sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'} \"$@\"\n")
    prog.chmod(0o755)
    logs = tmp_path / "logs"
    # (the bot lives under pytest's private temporary directory, which no other uid can enter:
    # run under the referee's uid, on purpose)
    r = _cli("match", "doudizhu", "--rounds", "1", "--log-dir", str(logs), "--json", "--bot", "./bin/mybot",
             "--bot", "bin/../bin/mybot --seed 3", "--bot", f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'}",
             "--bot-uids", "off", cwd=here)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["faults"] == []  # played, not silently run on fallback actions
    # checked before any match starts, with the directory named
    r = _cli("match", "doudizhu", "--log-dir", str(logs), "--bot", "./nope", "--bot", "./bin/mybot",
             "--bot", "./bin/mybot", cwd=here)
    assert r.returncode == 2 and "program './nope' not found (relative paths are taken from" in r.stderr
    assert not list(logs.glob("*nope*"))
    assert check_command("../bin/mybot", here / "bin") is None
    assert resolve_command("../bin/mybot x.txt", here / "bin")[0] == str(prog)
    assert check_command(".venv/bin/python sample_bots/random_bot.py", ROOT) is None


# --------------------------------------------------------------------------- 4. network isolation
@pytest.mark.skipif(NO_NETNS is not None, reason=str(NO_NETNS))
def test_a_bot_in_its_own_network_namespace_plays_over_the_unix_socket_and_reaches_nothing_else(
        tmp_path: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted: list = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    cmd = f"{CHAOS} --mode connect-out --target-port {port} --seed 1"
    try:
        # control: on the host network the same bot gets through
        out_host = run(_with_ref(tmp_path / "host", lambda ref: play_launched(
            ref, spec_of("host", ["out", "r1", "r2"]), [cmd, RANDOM, RANDOM], tmp_path / "host", base_dir=ROOT)))
        through = len(accepted)
        sb = Sandbox(isolate_network=True)
        out = run(_with_ref(tmp_path / "iso", lambda ref: play_launched(
            ref, spec_of("iso", ["out", "r1", "r2"]), [cmd, RANDOM, RANDOM], tmp_path / "iso", sandbox=sb,
            base_dir=ROOT), sandbox=sb))
    finally:
        stop.set()
        t.join(5)
        server.close()
        for c in accepted:
            c.close()
    assert "got through" in (tmp_path / "host" / "host.seat0.stderr").read_text() and through == 1
    assert not out_host.faults
    err = (tmp_path / "iso" / "iso.seat0.stderr").read_text()
    assert "connect-out blocked" in err and len(accepted) == through, err
    assert out.status == "complete" and not out.faults, out.faults  # every seat played over the Unix socket
    log = json.loads((tmp_path / "iso" / "iso.jsonl").read_text().splitlines()[-1])
    assert "isolated network: yes" in log["mechanisms"]


# --------------------------------------------------------------------------- 5. clocks
def test_an_innocent_bot_is_charged_no_timeout_while_the_referee_stalls(tmp_path: Path) -> None:
    async def body(ref):
        busy = True

        async def hog() -> None:  # a busy loop in the referee's own event loop
            while busy:
                t = time.monotonic()
                while time.monotonic() - t < 0.6:
                    pass
                await asyncio.sleep(0.05)

        task = asyncio.get_running_loop().create_task(hog())
        try:
            spec = spec_of("stall", ["a", "b", "c"], decision_ms=400, max_faults=3, params={"rounds": 3})
            return await play_launched(ref, spec, [f"{RANDOM} --seed {i}" for i in range(3)], tmp_path,
                                       base_dir=ROOT)
        finally:
            busy = False
            await task

    out = run(_with_ref(tmp_path, body))
    kinds = [f.kind for f in out.faults]
    assert "timeout" not in kinds and "forfeit" not in kinds and not out.forfeited, out.faults
    assert set(kinds) <= {"harness", "late_reply"}, kinds
    assert all("the referee had stalled" in f.message for f in out.faults if f.kind == "harness")
    j = out.to_json()
    assert j["harness"]["longest_stall_ms"] >= 500  # the stalls were real, and measured
    assert j["harness"]["timeouts"] == kinds.count("harness")
    # whether a deadline fell inside a stall depends on the machine's speed (an idle one
    # often reads every reply in time); when one did, the match weighs less
    assert (0 < j["rating_weight"] < 1) if kinds.count("harness") else j["rating_weight"] == 1


def test_a_cpu_burning_bot_times_out_on_the_cpu_clock_and_a_sleeping_one_on_its_wall_cap(tmp_path: Path) -> None:
    async def body(ref):
        spec = spec_of("cpu", ["burn", "slow", "random"], decision_ms=300, max_faults=2, clock="cpu")
        return await play_launched(ref, spec, [f"{CHAOS} --mode cpu-burn --seed 1", f"{CHAOS} --mode hang",
                                               f"{RANDOM} --seed 3"], tmp_path, base_dir=ROOT)

    t0 = time.monotonic()
    out = run(_with_ref(tmp_path, body))
    by_seat = faults_by_seat(out)
    burn = [f for f in by_seat[0] if f.kind == "timeout"]
    assert burn and all("CPU time" in f.message and "wall-clock cap" not in f.message for f in burn), by_seat[0]
    assert all(f.elapsed_ms > 300 for f in burn)  # charged the CPU it used
    hang = [f for f in by_seat[1] if f.kind == "timeout"]
    assert hang and all("wall-clock cap" in f.message and f.elapsed_ms >= 2900 for f in hang), by_seat[1]
    assert set(out.forfeited) == {0, 1} and not [f for f in by_seat[2] if f.kind != "harness"]
    assert out.to_json()["clock"] == "cpu"
    print(f"cpu clock match: {time.monotonic() - t0:.1f} s")


def test_clock_option_and_tournament_key() -> None:
    from tournaments import spec as tspec

    r = _cli("match", "doudizhu", "--clock", "sundial", "--bot", RANDOM, "--bot", RANDOM, "--bot", RANDOM)
    assert r.returncode == 2 and "clock must be one of" in r.stderr
    base = {"name": "c", "game": "doudizhu", "bots": [{"name": n, "command": RANDOM} for n in "abc"]}
    assert tspec.parse({**base, "clock": "cpu"}).clock == "cpu"
    assert tspec.parse({**base, "clock": {"kind": "cpu", "decision_ms": 50}}).clock == "cpu"
    wall = tspec.parse(base)
    assert wall.clock == "wall" and wall.fingerprint() != tspec.parse({**base, "clock": "cpu"}).fingerprint()
    with pytest.raises(tspec.SpecError, match="clock.kind: must be one of wall, cpu"):
        tspec.parse({**base, "clock": {"kind": "gpu"}})


# --------------------------------------------------------------------------- uids (#15 item 2)
@pytest.mark.skipif(NO_UIDS is not None, reason=str(NO_UIDS))
def test_a_bot_scanning_proc_for_tokens_gains_no_seat_and_its_attempts_are_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``token-thief`` reads every /proc/*/cmdline and /proc/*/environ it can,
    opens every /proc/*/fd/* it can, tries each token-like string it finds at
    every address it saw, and looks for its match's live log. Under the
    referee's own uid (asked for: bot_uids off; as root, without
    capabilities) and under per-bot uids alike it finds no seat's token (a
    token travels on a socket, which /proc cannot open), never sees the log
    being written, gains no seat, and the other seats play without a fault;
    every attempt is recorded as a refusal."""
    seat_tokens: list[str] = []
    orig = Referee.new_token

    def recording(self, *a, **kw):
        t = orig(self, *a, **kw)
        seat_tokens.append(t)
        return t

    monkeypatch.setattr(Referee, "new_token", recording)

    def play(sandbox: Sandbox, d: Path):
        async def body(ref):
            spec = spec_of("thief", ["thief", "r1", "r2"], decision_ms=30_000)
            out = await play_launched(ref, spec, [f"{CHAOS} --mode token-thief --seed 1", f"{RANDOM} --seed 2",
                                                  f"{RANDOM} --seed 3"], d, sandbox=sandbox, base_dir=ROOT)
            return out, list(ref.refused)
        d.mkdir()
        d.chmod(0o700)
        return run(_with_ref(d, body, sandbox=sandbox))

    # a process with a token-like string on its command line: the thief finds it and tries it
    decoy_token = uuid.uuid4().hex
    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", decoy_token])
    try:
        results = {"same uid": play(Sandbox("off"), tmp_path / "same"),
                   "own uids": play(Sandbox("60000-60999"), tmp_path / "own")}
    finally:
        decoy.kill()
        decoy.wait()
    assert len(seat_tokens) == 6
    for mode, (out, refused) in results.items():
        d = tmp_path / ("same" if mode == "same uid" else "own")
        err = (d / "thief.seat0.stderr").read_text()
        report = json.loads(err.split("token-thief: ")[1].splitlines()[0])
        assert decoy_token in report["tokens"], (mode, report)  # the scan works: it finds what is there
        assert not set(report["tokens"]) & set(seat_tokens), (mode, report)  # but no seat's token
        assert not report["log_seen"], (mode, report)  # nor the match log being written
        assert report["seated"] == 0 and report["welcomed"] == 0 and report["tried"] >= 1, (mode, report)
        unauth = [x for code, x in refused if code == "UNAUTHENTICATED"]
        assert len(unauth) >= 1, (mode, refused)  # its attempts are refusals, in the operator's log
        assert out.status == "complete" and not [f for f in out.faults if f.seat in (1, 2)], (mode, out.faults)
        seats = json.loads((d / "thief.jsonl").read_text().splitlines()[-1])["seats"]
        if mode == "same uid":
            assert [s_["uid"] for s_ in seats] == [None] * 3
            assert report["fds"] >= 1, report  # it could open descriptors of other processes: none gave a token
        else:
            assert len({s_["uid"] for s_ in seats}) == 3 and all(s_["uid"] >= 60000 for s_ in seats)


@pytest.mark.skipif(NO_UIDS is not None, reason=str(NO_UIDS))
def test_each_bot_has_its_own_uid_and_a_private_directory_and_cannot_read_the_match_logs(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    logs.chmod(0o700)
    (logs / "secret.jsonl").write_text("hands")
    code = ("import os, sys; print(os.getuid(), os.getcwd()); open('mine.txt', 'w').write('x'); "
            "print([p for p in (a[2:] for a in sys.argv[1:3]) if os.access(p, os.R_OK) or os.access(p, os.X_OK)])")
    sb = Sandbox("60000-60999")
    procs = []
    try:
        for i in range(2):
            other = sb.private_root() / f"u{1 - i}"  # the other bot's working directory
            # (paths prefixed, or the referee would refuse to start a bot that cannot read its arguments)
            procs.append(BotProcess(f'python -c "{code}" x:{logs / "secret.jsonl"} x:{other}', f"u{i}", "127.0.0.1:9",
                                    uuid.uuid4().hex, logs, sandbox=sb).start())
        for p in procs:
            p.proc.wait(60)
        outs = [p.stdout_path.read_text().split("\n") for p in procs]
        dirs = [p.workdir for p in procs]
        stats = [d.stat() for d in dirs]
    finally:
        for p in procs:
            p.stop()
        sb.close()
    assert [p.returncode for p in procs] == [0, 0], [p.tail_stderr() for p in procs]
    uids = [int(o[0].split()[0]) for o in outs]
    assert uids[0] != uids[1] and min(uids) >= 60000
    assert [o[0].split()[1] for o in outs] == [str(d) for d in dirs]  # wrote to its working directory
    assert [(s.st_uid, s.st_mode & 0o777) for s in stats] == [(u, 0o700) for u in uids]
    assert all(o[1] == "[]" for o in outs)  # neither the match logs nor anything else of the referee's


def test_bots_run_under_the_referees_uid_only_when_asked(tmp_path: Path) -> None:
    """A root referee never falls back to its own uid by itself: bots an
    unprivileged uid cannot run are refused (auto as well as a range), with
    what to do; ``--bot-uids off`` (``bot_uids = "off"``) runs them under the
    referee's uid, as asked, without a warning."""
    if os.geteuid() != 0:
        with pytest.raises(SandboxError, match="needs a referee running as root"):
            Sandbox("60000-60999")
        assert not Sandbox("auto").uids and "not root" in Sandbox("auto").describe()  # nothing else is possible
        return
    hidden = tmp_path / "private"
    hidden.mkdir()
    hidden.chmod(0o700)
    script = hidden / "bot.py"
    script.write_text((ROOT / "sample_bots" / "random_bot.py").read_text().replace(
        "sys.path.insert(0", f"sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0"))
    for setting in ("60000-60999", "auto"):
        with pytest.raises(SandboxError) as e:
            prepare(Sandbox(setting), [f"python {script}"], tmp_path)
        msg = str(e.value)
        assert str(script) in msg and "cannot read" in msg, msg
        assert "make setup PY=/usr/bin/python3" in msg and "--bot-uids off" in msg, msg  # what to do
    bots = ["--bot", f"python {script}", "--bot", RANDOM, "--bot", RANDOM]
    r = _cli("match", "doudizhu", "--rounds", "1", "--log-dir", str(tmp_path / "logs"), *bots)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "bots cannot run under their own uid" in r.stderr and "--bot-uids off" in r.stderr, r.stderr
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").glob("*.jsonl"))  # nothing started
    r = _cli("match", "doudizhu", "--rounds", "1", "--log-dir", str(tmp_path / "logs"), "--json",
             "--bot-uids", "off", *bots)
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "complete" and out["faults"] == [], out


# --------------------------------------------------------------------------- 6. the doc's recipe
@pytest.mark.skipif(NO_UIDS is not None or NO_NETNS is not None, reason=str(NO_UIDS or NO_NETNS))
def test_the_hardening_recipe_works_as_written(tmp_path: Path) -> None:
    """docs/sandbox.md section 3's tournament block, verbatim (paths moved to a
    temporary directory), with a bot that writes to its working directory."""
    doc = (ROOT / "docs" / "sandbox.md").read_text()
    recipe = doc.split("## 3. Hardening")[1].split("```toml\n")[1].split("```")[0]
    assert 'bot_uids = "60000-60999"' in recipe and "isolate_network = true" in recipe
    f = tmp_path / "hardened.toml"
    f.write_text('name = "hardened"\ngame = "doudizhu"\nplayers = 3\nconcurrency = 3\nparams = { rounds = 1 }\n'
                 + recipe.replace('"runs/hardened/', f'"{tmp_path}/')
                 + f'[[bots]]\nname = "random"\ncommand = "{RANDOM} --seed 1"\n'
                 + '[[bots]]\nname = "heuristic"\ncommand = "python sample_bots/heuristic_bot.py --seed 2"\n'
                 + f'[[bots]]\nname = "writer"\ncommand = "{CHAOS} --mode write-workdir --seed 3"\n')
    r = _cli("tournament", "run", str(f), "--quiet", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert "bot uids: own uid per bot (60000-60999); isolated network: yes" in r.stderr
    board = {row["bot"]: row for row in json.loads(r.stdout)}
    assert [board[b]["matches"] for b in ("random", "heuristic", "writer")] == [6, 6, 6]
    from tournaments.store import Store

    store = Store(str(tmp_path / "results.sqlite"))
    rows = store.matches(store.tournament("hardened")["id"])
    store.close()
    assert all(r_.status == "complete" and not [x for x in r_.result["faults"] if x["kind"] != "harness"]
               for r_ in rows), [r_.result["faults"] for r_ in rows]  # the writer never crashed
    logs = tmp_path / "logs" / "hardened"
    assert (logs.stat().st_mode & 0o777) == 0o700
    writers = [p for p in logs.glob("*.stderr") if "wrote and read back" in p.read_text()]
    assert len(writers) == 6


def test_a_match_partly_decided_by_referee_stalls_moves_the_ratings_less() -> None:
    from tournaments.rating import rate
    from tournaments.spec import TrueSkillParams
    from tournaments.store import MatchRow

    def mu_after(weight: float | None) -> float:
        result = {"scores": [3, -1, -2], "ranks": [1, 2, 3], "forfeited": [], "faults": [], "summary": {},
                  "outcomes": [{"teams": [[0], [1], [2]], "ranks": [0, 1, 2]}]}
        if weight is not None:
            result["rating_weight"] = weight
        ratings, _ = rate([MatchRow(0, 1, ["a", "b", "c"], "complete", result, None)], ["a", "b", "c"],
                          TrueSkillParams(), "smear", 3)
        return ratings["a"].mu

    clean, half, none = mu_after(None), mu_after(0.5), mu_after(0.0)
    assert clean == mu_after(1.0) and none == 25.0 and 25.0 < half < clean


def test_the_batch_fit_weighs_a_match_by_its_rating_weight() -> None:
    from tournaments.rating import fit_rows
    from tournaments.store import MatchRow

    def gap(weight: float | None) -> float:
        rows = []
        for i in range(6):  # "a" first, "b" second, "c" last every time
            result = {"scores": [3, -1, -2], "ranks": [1, 2, 3], "forfeited": [], "faults": [], "summary": {},
                      "outcomes": [{"teams": [[0], [1], [2]], "ranks": [0, 1, 2]}]}
            if weight is not None:
                result["rating_weight"] = weight
            rows.append(MatchRow(i, 100 + i, ["a", "b", "c"], "complete", result, None))
        fit = fit_rows(rows, ["a", "b", "c"], "smear", 3, seed=1)
        return fit.elo[0] - fit.elo[2]

    clean, half, none = gap(None), gap(0.5), gap(0.0)
    assert clean == gap(1.0) and 0 < half < clean and abs(none) < 1e-9


def test_a_bot_its_uid_cannot_run_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    """`tournament check` (and `run`) name the bot whose files a bot uid cannot read, and where it is
    defined, not only the path."""
    hidden = tmp_path / "entrants" / "e02"
    hidden.mkdir(parents=True)
    script = hidden / "bot.py"
    script.write_text((ROOT / "sample_bots" / "random_bot.py").read_text())
    (tmp_path / "entries").mkdir()
    cup = tmp_path / "cup.toml"
    cup.write_text('name = "cupU"\ngame = "doudizhu"\nplayers = 3\ninclude = ["entries/*.toml"]\n'
                   '[sandbox]\nbot_uids = "auto"\n')
    for i in range(3):
        cmd = f"python {script}" if i == 2 else RANDOM
        (tmp_path / "entries" / f"e0{i}.toml").write_text(f'# entry {i}\n[[bots]]\nname = "e0{i}"\ncommand = "{cmd}"\n')
    hidden.chmod(0o700)
    r = _cli("tournament", "check", str(cup))
    if os.geteuid() != 0:  # no bot uids without root: nothing to refuse
        assert r.returncode == 0, r.stderr
        return
    err = " ".join(r.stderr.split())
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert (f"bots cannot run under their own uid: bot e02 ({tmp_path / 'entries' / 'e02.toml'}:3): {script}: "
            "cannot read") in err, err
    assert "e00" not in err and "--bot-uids off" in err
