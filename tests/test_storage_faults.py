"""Storage faults stop a tournament with a message naming the file and the
problem (no traceback), lose nothing already recorded, and `--resume`
finishes once the cause is fixed: a corrupt database, pages of the database
corrupted mid-run, a database deleted mid-run, a full disk under the
database, a full disk under the logs.

A full disk is a small tmpfs mounted for the test (needs root, as in CI)
and grown afterwards with ``mount -o remount,size=...``."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from cardgames.v1 import referee_pb2 as pb
from conftest import PY, ROOT
from referee.outcomes import MatchStatus
from referee.runner import BasicSeatLink, MatchSpec, replay_log, run_match
from tournaments.store import Store, StorageError

BOTS4 = "\n".join(f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                  for i in range(4))


def _write(tmp_path: Path, name: str, db: Path, logs: Path) -> Path:
    f = tmp_path / f"{name}.toml"
    f.write_text(f'name = "{name}"\ngame = "doudizhu"\nplayers = 3\nseed = 9\nconcurrency = 2\n'
                 f'database = "{db}"\nlog_dir = "{logs}"\nparams = {{ rounds = 1 }}\n'
                 f'schedule = {{ kind = "sampled", matches_per_bot = 9 }}\n{BOTS4}')  # 12 matches
    return f


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True, **kw)


@contextmanager
def small_disk(path: Path, size_kb: int) -> Iterator[Callable[[int], None]]:
    """A tmpfs of ``size_kb`` at ``path``; yields a function that resizes it."""
    if os.geteuid() != 0:
        pytest.skip("a full disk is simulated with a small tmpfs, which needs root (CI runs as root)")
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(path)], check=True)
    try:
        yield lambda kb: subprocess.run(["mount", "-o", f"remount,size={kb}k", str(path)], check=True)
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _recorded(db: Path, name: str) -> list:
    s = Store(str(db), create=False)
    try:
        t = s.tournament(name)
        return s.matches(t["id"]) if t else []
    finally:
        s.close()


def _finish_and_check(f: Path, db: Path, name: str, kept: list) -> None:
    r = _cli("tournament", "run", str(f), "--resume", "--quiet", "--db", str(db))
    assert r.returncode == 0, r.stderr
    rows = _recorded(db, name)
    assert [m.idx for m in rows] == list(range(12))  # each match once, none missing
    by_idx = {m.idx: m for m in rows}
    for m in kept:  # what was recorded before the fault is still there, unchanged
        assert by_idx[m.idx].result == m.result
    for m in rows:
        spec, _, result = replay_log(Path(m.log_path))
        assert spec.seed == m.seed and result.scores == m.result["scores"]


def _clean_failure(r: subprocess.CompletedProcess, *needles: str) -> None:
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr


def test_a_corrupt_database_is_named_and_nothing_is_overwritten(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite"
    db.write_bytes(b"this is not a database, it is a shopping list\n" * 200)
    before = db.read_bytes()
    f = _write(tmp_path, "c", db, tmp_path / "logs")
    r = _cli("tournament", "run", str(f), "--quiet")
    _clean_failure(r, str(db), "is corrupt")
    for cmd in (("leaderboard", "--db", str(db)), ("tournament", "status", "--db", str(db))):
        _clean_failure(_cli(*cmd), str(db), "is corrupt")
    assert db.read_bytes() == before
    db.unlink()  # the cause fixed (moved away): the run starts and finishes
    _finish_and_check(f, db, "c", [])


def _run_until(f: Path, db: Path, name: str, n: int) -> subprocess.Popen:
    proc = subprocess.Popen([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if len(_recorded(db, name)) >= n:
                break
        except StorageError:
            pass
        time.sleep(0.1)
    return proc


def test_pages_corrupted_mid_run_are_found_and_every_readable_result_is_kept(tmp_path: Path) -> None:
    """Issue #38, item 3: the pages of the SQLite file (all but its header) are
    overwritten with random bytes while the run writes to it (the writer's
    own page cache and the write-ahead log hide most of them: only pages
    nothing rewrote since the last checkpoint show it, so every page is hit,
    that some certainly stay damaged whatever the timing). The run
    finds it, at the write that trips on it or at the latest by its final
    integrity check of the file, and fails (exit 1, no leaderboard) naming
    the file; the file is left as it is, and every result that can still be
    read (from the file, else from its match's log) is in ``<file>.salvaged``,
    from which ``--resume`` plays only the rest."""
    import random
    import re

    db = tmp_path / "p.sqlite"
    f = _write(tmp_path, "p", db, tmp_path / "logs")
    Store(str(db)).close()  # made before the run: its tables are in the file's pages, not only in its WAL
    proc = _run_until(f, db, "p", 3)
    try:
        assert proc.poll() is None, "the run ended before the corruption"
        pages = db.stat().st_size // 4096
        rng = random.Random(38)
        with db.open("r+b") as fh:
            for page in range(2, pages + 1):  # page 1, the header, kept: the file is still SQLite's
                fh.seek((page - 1) * 4096)
                fh.write(rng.randbytes(4096))
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    _clean_failure(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), str(db), "is corrupt",
                   "--resume")
    assert "found by the integrity check at the end of the run" in err or "found at a write" in err, err
    assert "elo" not in out  # no leaderboard out of a damaged file
    salvaged = Path(f"{db}.salvaged")
    m = re.search(r"the (\d+) results that could still be read", err)
    assert m and int(m.group(1)) >= 3, err  # at least those recorded before the damage
    check = Store(str(salvaged), create=False)
    try:
        assert check.integrity_problem() is None
    finally:
        check.close()
    kept = _recorded(salvaged, "p")
    assert len(kept) == int(m.group(1))
    _finish_and_check(f, salvaged, "p", kept)


def test_a_database_deleted_mid_run_stops_the_run_and_resume_replays(tmp_path: Path) -> None:
    db = tmp_path / "d.sqlite"
    f = _write(tmp_path, "d", db, tmp_path / "logs")
    proc = _run_until(f, db, "d", 2)
    try:
        for p in tmp_path.glob("d.sqlite*"):
            p.unlink()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    _clean_failure(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), str(db), "was deleted")
    _finish_and_check(f, db, "d", [])


@pytest.mark.slow
def test_a_full_disk_under_the_database_stops_cleanly_and_resume_finishes(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", 1024) as resize:
        db = tmp_path / "disk" / "f.sqlite"
        filler = tmp_path / "disk" / "filler"
        f = _write(tmp_path, "f", db, tmp_path / "logs")
        proc = _run_until(f, db, "f", 2)
        try:
            assert proc.poll() is None and len(_recorded(db, "f")) >= 2, "the run ended before the disk filled up"
            fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
            try:  # fill what is left
                while os.write(fd, b"\0" * 4096):
                    pass
            except OSError:
                pass
            finally:
                os.close(fd)
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        r = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        _clean_failure(r, str(db), "disk is full", "--resume")
        resize(64 * 1024)  # the cause fixed
        filler.unlink()
        kept = _recorded(db, "f")
        assert len(kept) >= 2  # nothing recorded was lost
        _finish_and_check(f, db, "f", kept)


@pytest.mark.slow
def test_a_full_disk_under_the_logs_stops_cleanly_and_resume_finishes(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", 120) as resize:
        db = tmp_path / "l.sqlite"
        logs = tmp_path / "disk" / "logs"
        f = _write(tmp_path, "l", db, logs)
        r = _cli("tournament", "run", str(f), "--quiet")
        _clean_failure(r, str(logs / "l"), "No space left on device", "--resume")
        kept = _recorded(db, "l")
        assert 0 < len(kept) < 12
        for m in kept:  # every log recorded before the fault is whole
            replay_log(Path(m.log_path))
        resize(64 * 1024)
        _finish_and_check(f, db, "l", kept)


# --------------------------------------------------------------------------- a storage error is a type, not text
class _Answering(BasicSeatLink):
    """An in-process seat that answers every request with its first legal action."""

    def __init__(self, name: str):
        self.name, self.connected, self.asked = name, True, 0

    async def send(self, msg: pb.RefereeMessage) -> None:
        return None

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply, float]:
        self.asked += 1
        req = msg.decision_request
        req.request_id = self.asked
        return pb.ActionReply(match_id=req.match_id, request_id=req.request_id, action=req.legal_actions[0]), 1.0


@pytest.mark.parametrize("error, storage", [(OSError(28, "No space left on device"), True),
                                            (FileNotFoundError(2, "No such file or directory"), True),
                                            (ValueError("an engine bug"), False),
                                            (ConnectionResetError(104, "Connection reset by peer"), False)])
def test_the_runner_carries_its_own_io_failure_as_an_error_not_as_reason_text(error: Exception,
                                                                              storage: bool) -> None:
    spec = MatchSpec(game="doudizhu", players=3, seed=1, seat_names=["a", "b", "c"], params={"rounds": 1})
    game = MatchSpec.new_game(spec)

    def broken(seat: int, action: Any) -> None:
        raise error

    game.apply = broken  # type: ignore[method-assign]
    spec.new_game = lambda: game  # type: ignore[method-assign]
    out = asyncio.run(run_match(spec, [_Answering(n) for n in spec.seat_names]))
    assert out.status is MatchStatus.ABORTED and out.result is None
    assert out.reason == f"{type(error).__name__}: {error}"  # the text is unchanged, for people
    assert out.storage_error is (error if storage else None)


def test_a_storage_error_of_a_match_stops_the_tournament_naming_the_log(tmp_path: Path) -> None:
    from tournaments import spec as tspec
    from tournaments.executor import FinishedMatch, MatchJob
    from tournaments.run import run_tournament

    class FullDisk:
        """An executor whose every match fails writing its log (as the runner reports it)."""

        name = "local"

        async def start(self, spec: Any, log_dir: Path) -> None:
            return None

        async def play(self, job: MatchJob) -> FinishedMatch:
            err = OSError(28, "No space left on device")
            return FinishedMatch(job.index, MatchStatus.ABORTED, {"status": "aborted", "faults": []}, 0, 0.0,
                                 reason=f"OSError: {err}", storage_error=err)

        async def stop(self) -> None:
            return None

    f = _write(tmp_path, "full", tmp_path / "full.sqlite", tmp_path / "logs")
    spec = tspec.load(f)
    with pytest.raises(StorageError, match=r"match log .*full-m\d+\.jsonl\.part: \[Errno 28\] No space left on "
                                           r"device .*--resume"):
        asyncio.run(run_tournament(spec, executor=FullDisk()))
    assert _recorded(tmp_path / "full.sqlite", "full") == []  # nothing recorded for the failed match
