"""The Dask executor against a real scheduler and two worker processes on
127.0.0.1: the same leaderboard as the local executor, a worker killed
mid-run loses no match, persistent bots are one process per worker, and a
bot's resource tag keeps its matches on the workers that have it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PY, ROOT
from daskcluster import Cluster
from referee.runner import replay_log
from tournaments import spec as tspec
from tournaments.store import Store, StorageError

BOTS4 = "\n".join(f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                  for i in range(4))


def _write(tmp_path: Path, name: str, rounds: int = 1, bots: str = BOTS4, extra: str = "") -> Path:
    f = tmp_path / f"{name}.toml"
    f.write_text(f'name = "{name}"\ngame = "doudizhu"\nplayers = 3\nseed = 5\nconcurrency = 2\n'
                 f'database = "{tmp_path / (name + ".sqlite")}"\nlog_dir = "{tmp_path / "logs"}"\n'
                 f'params = {{ rounds = {rounds} }}\n'
                 f'schedule = {{ kind = "sampled", matches_per_bot = 9 }}\n'  # 12 matches, every bot in 9
                 f'{extra}\n[clock]\ndecision_ms = 5000\n{bots}')
    return f


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True, **kw)


def _local_board(tmp_path: Path, f: Path, name: str) -> list[dict]:
    """The same tournament (same name) run by the local executor into another database."""
    local = tmp_path / "local"
    local.mkdir(exist_ok=True)
    g = local / f.name
    g.write_text(f.read_text().replace(str(tmp_path / f"{name}.sqlite"), str(local / "l.sqlite"))
                 .replace(str(tmp_path / "logs"), str(local / "logs")))
    r = _cli("tournament", "run", str(g), "--quiet", "--format", "json", "--executor", "local")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Cluster:
    c = Cluster(tmp_path_factory.mktemp("dask"), workers=2, resources=["java=2", ""])
    try:
        yield c
    finally:
        c.stop()


def _check_logs(db: Path, name: str) -> None:
    s = Store(str(db))
    rows = s.matches(s.tournament(name)["id"])
    s.close()
    assert [m.idx for m in rows] == list(range(12))  # each match exactly once
    for m in rows:
        spec, _, result = replay_log(Path(m.log_path))  # whole, and this match's
        assert spec.seed == m.seed and result.scores == m.result["scores"]
    assert not list(Path(rows[0].log_path).parent.glob("*.part"))


@pytest.mark.slow
def test_dask_executor_gives_the_local_executors_leaderboard(cluster: Cluster, tmp_path: Path) -> None:
    f = _write(tmp_path, "dk")
    r = _cli("tournament", "run", str(f), "--quiet", "--format", "json", "--executor", "dask",
             "--scheduler", cluster.address)
    assert r.returncode == 0, r.stderr
    assert "on the Dask cluster at" in r.stderr
    assert json.loads(r.stdout) == _local_board(tmp_path, f, "dk")
    _check_logs(tmp_path / "dk.sqlite", "dk")
    s = Store(str(tmp_path / "dk.sqlite"))
    workers = {m.result["worker"] for m in s.matches(s.tournament("dk")["id"])}
    s.close()
    assert workers == {"w0", "w1"}  # both workers played
    assert list((tmp_path / "logs" / "dk").glob("dk-m00000.seat0.stderr"))  # bot output came back too


@pytest.mark.slow
def test_persistent_bots_are_one_process_per_worker_and_resource_tags_pick_workers(
        cluster: Cluster, tmp_path: Path) -> None:
    bots = ('[[bots]]\nname = "kept"\ncommand = "python sample_bots/random_bot.py --seed 7"\npersistent = true\n'
            '[[bots]]\nname = "javabot"\ncommand = "python sample_bots/random_bot.py --seed 8"\n'
            'resources = ["java"]\n'
            '[[bots]]\nname = "b0"\ncommand = "python sample_bots/random_bot.py --seed 0"\n'
            '[[bots]]\nname = "b1"\ncommand = "python sample_bots/random_bot.py --seed 1"\n')
    f = _write(tmp_path, "pk", bots=bots, extra=f'[execution]\nexecutor = "dask"\nscheduler = "{cluster.address}"\n')
    spec = tspec.load(f)
    assert spec.executor == "dask"
    from tournaments.run import run_tournament

    res = asyncio.run(run_tournament(spec))
    assert res.progress.done == 12 and res.progress.aborted == 0
    board = {b.bot: b for b in res.board}
    assert board["kept"].matches == 9 and board["kept"].crashes == 0
    launches = res.extra["persistent_launches"]  # worker -> bot -> launches there
    assert launches and all(v == {"kept": 1} for v in launches.values() if v), launches
    s = Store(spec.database)
    rows = s.matches(s.tournament("pk")["id"])
    s.close()
    assert {m.result["worker"] for m in rows if "javabot" in m.seats} == {"w0"}  # only w0 has java


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_no_match(tmp_path: Path) -> None:
    (tmp_path / "cluster").mkdir()
    c = Cluster(tmp_path / "cluster", workers=2)
    try:
        f = _write(tmp_path, "kw", rounds=2)
        db = tmp_path / "kw.sqlite"
        run = subprocess.Popen([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet", "--format", "json",
                                "--scheduler", c.address], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            deadline = time.monotonic() + 180
            done = 0
            while time.monotonic() < deadline and done < 2 and run.poll() is None:
                time.sleep(0.2)
                try:
                    s = Store(str(db), create=False)
                    t = s.tournament("kw")
                    done = len(s.finished_indices(t["id"])) if t else 0
                    s.close()
                except StorageError:
                    pass
            assert done >= 2, "no progress on the cluster"
            c.kill_worker(0)  # mid-match: each worker plays one match at a time, back to back
            out, err = run.communicate(timeout=300)
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
        assert run.returncode == 0, err
        assert json.loads(out) == _local_board(tmp_path, f, "kw")
        _check_logs(db, "kw")
        s = Store(str(db))
        rows = s.matches(s.tournament("kw")["id"])
        s.close()
        assert sum(m.result["worker"] == "w1" for m in rows) > len(rows) // 2  # w1 finished the run alone
    finally:
        c.stop()
