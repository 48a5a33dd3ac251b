"""The bot sandbox with real chaos-bot processes (referee.bots.BotProcess):
resource limits stop hostile processes, every process of a bot's group is
killed and reaped at stop, each bot has its own working directory, and a
tournament with one chaos bot per mode completes with every fault recorded
on the right seat (see docs/sandbox.md)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

import pytest
from starlette.testclient import TestClient


from conftest import ROOT, run
from referee.bots import BotProcess, Limits, group_members
from referee.outcomes import FaultKind, MatchStatus
from referee.play import play_launched
from referee.runner import MatchSpec
from referee.sandbox import Sandbox, capabilities
from referee.service import Referee
from referee.web.app import create_app
from tournaments.rating import store_board
from tournaments.results import iter_results
from tournaments.store import Store

CHAOS = "python sample_bots/chaos_bot.py"
NOWHERE = "127.0.0.1:9"  # bots that never connect are still given a loopback address


def launch(command: str, label: str, log_dir: Path, limits: Limits | None = None,
           referee: str = NOWHERE, sandbox: Sandbox | None = None) -> BotProcess:
    return BotProcess(command, label, referee, "t" + uuid.uuid4().hex, log_dir, limits=limits,
                      cwd_for_relative=ROOT, sandbox=sandbox).start()


def wait_exit(p: BotProcess, timeout_s: float = 60.0) -> int | None:
    deadline = time.monotonic() + timeout_s
    while p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return p.poll()


def gone(pgid: int) -> bool:
    """No process of the group is left, zombies included (/proc and kill(0))."""
    if group_members(pgid):
        return False
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture(autouse=True)
def _reap_zombies_of_earlier_tests():
    """The test process is the child subreaper of every bot any earlier test
    started, so an orphan of another test file can die here as a zombie: reap
    those first, so that each test below asserts what its own matches leave."""
    for pid in zombie_children():
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    yield


def zombie_children() -> list[int]:
    """Zombies whose parent is this (test / referee) process."""
    me = str(os.getpid())
    out = []
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and fields[1] == me:
            out.append(int(d))
    return out


# --------------------------------------------------------------------------- limits
def test_memory_hog_is_stopped_by_the_address_space_limit(tmp_path: Path) -> None:
    """The fallback where no cgroup can be made (forced here): RLIMIT_AS."""
    p = launch(f"{CHAOS} --mode memory-hog", "hog", tmp_path, Limits(memory_mb=1024), sandbox=Sandbox(cgroups=False))
    try:
        rc = wait_exit(p)
        err = p.tail_stderr()
    finally:
        p.stop()
    assert rc not in (None, 0), "the hog was not stopped"
    assert "MemoryError" in err  # the allocation failed: RLIMIT_AS, not the OOM killer
    assert p.crash_message(rc).startswith("memory limit (memory_mb = 1024, RLIMIT_AS")
    assert gone(p.pgid)


def test_stdout_spam_is_stopped_by_the_file_size_limit(tmp_path: Path) -> None:
    p = launch(f"{CHAOS} --mode stdout-spam", "spam", tmp_path, Limits(file_size_mb=1))
    try:
        rc = wait_exit(p)
    finally:
        p.stop()
    assert rc not in (None, 0), "the spammer was not stopped"
    size = p.stdout_path.stat().st_size
    assert 0 < size <= 1024 * 1024, size  # the capture file stays under the cap
    assert "File too large" in p.tail_stderr() or rc == -25  # EFBIG (Python ignores SIGXFSZ) or SIGXFSZ


def test_fork_bomb_children_are_all_killed_and_reaped_at_stop(tmp_path: Path) -> None:
    p = launch(f"{CHAOS} --mode fork-bomb", "bomb", tmp_path, Limits(processes=64))
    pgid = p.pgid
    try:
        deadline = time.monotonic() + 30
        while "forked" not in p.tail_stderr() and time.monotonic() < deadline:
            time.sleep(0.05)
        members = group_members(pgid)
        kids = int(p.tail_stderr().split("forked")[1].split()[0])
    finally:
        p.stop()
    assert kids > 0 and len(members) == kids + 1  # the leader and every child share the group
    if p.cgroup is not None and p.cgroup.pids:
        assert kids < 64  # cgroup pids.max: per bot, binds root too (docs/sandbox.md)
    elif os.geteuid() == 0:
        assert kids == 200  # documented: RLIMIT_NPROC does not bind root (docs/sandbox.md)
    else:
        assert kids < 200
    assert gone(pgid), group_members(pgid)
    for pid, _ppid, _st in members:  # each pid is gone or belongs to another process now
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            assert int(fields[2]) != pgid
        except FileNotFoundError:
            pass
    assert not zombie_children()


def test_each_bot_runs_in_its_own_working_directory(tmp_path: Path) -> None:
    code = "import os; open('mine.txt', 'w').write(str(os.getpid())); print(os.getcwd())"
    procs = [launch(f'python -c "{code}"', f"wd{i}", tmp_path) for i in range(2)]
    pids = [p.proc.pid for p in procs]
    try:
        rcs = [wait_exit(p) for p in procs]
    finally:
        for p in procs:
            p.stop()
    assert rcs == [0, 0]
    cwds = [p.stdout_path.read_text().strip() for p in procs]
    assert cwds == [str(tmp_path / "wd0.wd"), str(tmp_path / "wd1.wd")]
    assert [Path(cwd, "mine.txt").read_text() for cwd in cwds] == [str(pid) for pid in pids]
    assert not (ROOT / "mine.txt").exists() and not Path(os.getcwd(), "mine.txt").exists()


def test_a_bot_dies_with_its_referee_even_on_kill_9(tmp_path: Path) -> None:
    """PR_SET_PDEATHSIG: a launcher killed by SIGKILL (no cleanup runs) takes its bot with it."""
    code = ("import sys, time\n"
            "from pathlib import Path\n"
            "from referee.bots import BotProcess\n"
            "p = BotProcess(\"python -c 'import time; time.sleep(600)'\", 'orphan', '127.0.0.1:9', 't',"
            " Path(sys.argv[1])).start()\n"
            "print(p.proc.pid, flush=True)\n"
            "time.sleep(600)\n")
    launcher = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE,
                                text=True, start_new_session=True)
    bot = 0
    try:
        bot = int(launcher.stdout.readline())
        assert _state(bot) not in (None, "Z")  # running (sleeping)
        os.kill(launcher.pid, signal.SIGKILL)
        launcher.wait(10)
        deadline = time.monotonic() + 20  # generous: the kernel signals at once
        while _state(bot) not in (None, "Z") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _state(bot) in (None, "Z"), "the bot outlived its referee"
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait(5)
        if bot:
            try:  # re-parented to this process if it is a subreaper: reap it
                os.waitpid(bot, os.WNOHANG)
            except ChildProcessError:
                pass


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def test_crash_mid_match_is_recorded_as_a_crash_and_nothing_is_left_running(tmp_path: Path) -> None:
    spec_names = ["crasher", "r1", "r2"]

    async def body() -> tuple:
        ref = Referee(tmp_path)
        await ref.start("127.0.0.1", 0)
        try:
            spec = MatchSpec(game="doudizhu", players=3, seed=8, seat_names=spec_names,
                             params={"rounds": 2}, match_id="crash")
            out = await play_launched(ref, spec, [f"{CHAOS} --mode crash-mid-match --seed 1",
                                                  "python sample_bots/random_bot.py --seed 1",
                                                  "python sample_bots/random_bot.py --seed 2"], tmp_path)
            return out, dict(ref.tokens)
        finally:
            await ref.stop(0.2)

    out, tokens = run(body())
    assert out.status is MatchStatus.COMPLETE
    by_seat = defaultdict(list)
    for f in out.faults:
        by_seat[f.seat].append(f)
    kinds = [f.kind for f in by_seat[0]]
    # gone: a disconnect, then absent (never timeout) at every later request up to forfeit; then the crash
    assert kinds[0] is FaultKind.DISCONNECT and kinds[-1] is FaultKind.CRASH and kinds.count(FaultKind.CRASH) == 1
    assert FaultKind.ABSENT in kinds and set(kinds[1:-1]) <= {FaultKind.ABSENT, FaultKind.FORFEIT}
    assert all(f.message.startswith("bot is not connected") for f in by_seat[0] if f.kind is FaultKind.ABSENT)
    assert "status 4" in by_seat[0][-1].message and "crashing mid-match" in by_seat[0][-1].message
    assert not by_seat[1] and not by_seat[2]
    assert not tokens  # the launched bots' tokens were withdrawn
    assert not zombie_children()

    # stored, the crash shows as a crash and its missed decisions as other faults, never as timeouts
    store = Store(str(tmp_path / "r.sqlite"))
    try:
        tid = store.create_tournament("t", "doudizhu", {"name": "t", "game": "doudizhu", "players": 3}, "fp", 1,
                                      [(n, "", True) for n in spec_names])
        store.record_match(tid, 0, 8, spec_names, out.status, out.to_json(), out.log_path, out.decisions, 1.0)
        row = next(r for r in store_board(store, store.tournament("t")) if r.bot == "crasher")
        absent = kinds.count(FaultKind.ABSENT)
        assert (row.timeouts, row.illegal, row.crashes) == (0, 0, 2)  # the crash and its disconnect
        assert row.other_faults == absent + kinds.count(FaultKind.FORFEIT) and row.faults["absent"] == absent
        exported = next(iter_results(store, tid, extras=True))  # what `referee results` writes
        assert exported["fault_kinds"][0].get("timeout") is None and exported["fault_kinds"][0]["absent"] == absent
    finally:
        store.close()
    with TestClient(create_app(str(tmp_path / "r.sqlite"))) as client:  # the pages name the kind
        page = client.get("/t/t/bots/crasher.html").text
        assert f"absent {absent}" in page and 'class="l fault">absent<' in page and ">timeout<" not in page
        assert f"crasher absent×{absent}" in client.get("/t/t/matches.html").text


# --------------------------------------------------------------------------- tournament of chaos
#: mode -> (fault kinds that must appear on the chaos bot's seat in every match, kinds allowed)
GONE = {"disconnect", "absent", "forfeit"}  # a bot that went away is absent at every later request
#: a seat whose bot never connected: forfeited before its first decision
NO_SHOW = {"no_show", "forfeit"}
EXPECTED: dict[str, tuple[set[str], set[str]]] = {
    "crash-at-start": ({"crash", "no_show"}, {"crash"} | NO_SHOW),
    "crash-mid-match": ({"crash", "disconnect"}, {"crash"} | GONE),
    "hang": ({"timeout", "forfeit"}, {"timeout", "forfeit"}),
    "slow": ({"timeout", "forfeit"}, {"timeout", "forfeit", "late_reply"}),
    "illegal": ({"illegal", "forfeit"}, {"illegal", "forfeit"}),
    "garbage": ({"disconnect"}, GONE),
    "wrong-request-id": ({"unknown_request", "timeout", "forfeit"}, {"unknown_request", "timeout", "forfeit"}),
    "flood": ({"unknown_request"}, {"unknown_request", "timeout"} | GONE),  # busy flooding: may be late
    # fills its memory before it connects: killed by its memory limit before its Hello, never seated
    "memory-hog": ({"crash", "no_show"}, {"crash"} | NO_SHOW),
    "fork-bomb": (NO_SHOW, NO_SHOW),
    "stdout-spam": ({"crash"}, {"crash", "timeout"} | GONE | NO_SHOW),  # gone before or after its Hello
}


#: the chaos bot's own memory limit: resident memory under a cgroup (a hog filling 1.5 GB
#: takes 20 s and more on a loaded machine, 3 at once), else address space (a Python
#: gRPC bot needs ~0.7 GB of it)
CHAOS_MB = 256 if capabilities().memory else 1536


def chaos_toml(tmp: Path, mode: str, marker: str) -> Path:
    """Two sample bots and one chaos bot: a round robin of 3 bots at 3 seats
    is their 6 seat orders, so the chaos bot meets both sample bots in every seat."""
    f = tmp / f"chaos-{mode}.toml"
    f.write_text(f'''name = "chaos-{mode}"
game = "doudizhu"
players = 3
seed = 11
concurrency = 3
database = "{tmp / 'chaos.sqlite'}"
log_dir = "{tmp / 'logs'}"
params = {{ rounds = 2 }}

[clock]
decision_ms = 1500
connect_timeout_ms = {8000 if mode == "fork-bomb" else 20000}

[faults]
policy = "default_action"
max_faults = 2

[limits]
memory_mb = 1536
file_size_mb = 2
processes = 64

[[bots]]
name = "random"
command = "python sample_bots/random_bot.py --seed 1 --name random-{marker}"

[[bots]]
name = "heuristic"
command = "python sample_bots/heuristic_bot.py --seed 2 --name heuristic-{marker}"

[[bots]]
name = "chaos"
command = "python sample_bots/chaos_bot.py --mode {mode} --seed 3 --name chaos-{marker}"
limits = {{ memory_mb = {CHAOS_MB} }}
''')
    return f


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_tournament_with_one_chaos_bot_per_mode(tmp_path: Path) -> None:
    from tournaments import spec as tspec
    from tournaments.run import run_tournament
    from tournaments.store import Store

    marker = uuid.uuid4().hex[:12]
    rss_before = _rss_kb()
    results = {}
    for mode in EXPECTED:
        spec = tspec.load(chaos_toml(tmp_path, mode, marker))
        res = asyncio.run(run_tournament(spec))
        store = Store(spec.database)
        rows = store.matches(store.tournament(spec.name)["id"])
        store.close()
        results[mode] = (res, rows)
        left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
        assert not left, f"{mode}: processes of the tournament survived: {left}"
    rss_after = _rss_kb()

    for mode, (res, rows) in results.items():
        must, allowed = EXPECTED[mode]
        assert res.progress.done == res.progress.total == 6 and res.progress.aborted == 0, mode
        assert len(rows) == 6 and all(r.status == "complete" for r in rows), mode
        chaos_seats = set()
        for r in rows:
            seat = r.seats.index("chaos")
            chaos_seats.add(seat)
            kinds = {f["kind"] for f in r.result["faults"] if f["seat"] == seat}
            # harness: a timeout while the referee itself stalled (a loaded machine), charged to nobody
            others = [f for f in r.result["faults"] if f["seat"] != seat and f["kind"] != "harness"]
            assert must <= kinds <= allowed | ({"harness"} if "timeout" in allowed else set()), (mode, r.idx, kinds)
            assert not others, (mode, r.idx, others)  # the sample bots never pay for the chaos bot
            if "forfeit" in kinds:
                assert r.result["forfeited"] == [seat]
            if mode == "memory-hog":  # the crash names the limit that stopped it
                crashes = [f["message"] for f in r.result["faults"] if f["seat"] == seat and f["kind"] == "crash"]
                assert crashes and all(m.startswith("memory limit (memory_mb = ") for m in crashes), crashes
        assert chaos_seats == {0, 1, 2}, mode  # every seat, against both sample bots
        board = {row.bot: row for row in res.board}
        assert board["random"].matches == board["heuristic"].matches == board["chaos"].matches == 6

    assert not zombie_children()
    # the referee ran in this process: 33 matches of hostile bots must not grow it without bound
    assert rss_after - rss_before < 300 * 1024, (rss_before, rss_after)


def test_example_chaos_tournament_file_is_valid_and_covers_the_modes() -> None:
    from tournaments import spec as tspec
    from tournaments.schedule import build

    s = tspec.load(ROOT / "tournaments" / "examples" / "chaos.toml")
    assert s.game == "doudizhu" and s.params == {"rounds": 3}  # 3 rounds: a redealt round cannot void a match
    modes = [b.command.split("--mode ")[1].split()[0] for b in s.bots if "chaos_bot.py" in b.command]
    samples = [b for b in s.bots if "chaos_bot.py" not in b.command]
    assert len(samples) == 2 and len(modes) >= 4 and set(modes) <= set(EXPECTED)
    sched = build(s)  # sampled: every bot in 30 matches
    assert s.schedule == "sampled" and len(sched) == 60
    assert set(__import__("collections").Counter(b for m in sched for b in m.seats).values()) == {30}
