"""Scale-out figures (section ``scaleout`` of bench/run.py):

* matches per minute of one tournament (Dou Dizhu, 4 random bots, 1-round
  matches: 36; quick: 3 bots, 3 matches) with the local executor (concurrency 2) and with the Dask
  executor on a scheduler and 1 or 2 workers of 2 threads each, all on this
  machine (127.0.0.1), measured in one run so the ratios compare like with like;
* the driver's own ceiling: matches recorded per second when the executor
  returns every match at once (a real match's result and compressed log,
  replayed), on SQLite and on a throwaway PostgreSQL server (fsync on),
  i.e. the cost of the driver alone: lease, log write + rename, one
  transaction per match.

Every process started here (scheduler, workers, PostgreSQL) is stopped.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = f"{sys.executable} sample_bots/random_bot.py"


def _spec(name: str, tmp: Path, games: int, database: str | None = None, bots: int = 4) -> Any:
    from tournaments.spec import parse

    raw = {"name": name, "game": "doudizhu", "players": 3, "games": games, "seed": 11, "concurrency": 2,
           "database": database or str(tmp / f"{name}.sqlite"), "log_dir": str(tmp / "slogs"),
           "params": {"rounds": 1},
           "bots": [{"name": f"r{i}", "command": f"{RANDOM_BOT} --seed {i}"} for i in range(bots)]}
    return parse(raw, "<bench>")


async def _timed(spec: Any, executor: Any = None) -> dict[str, float]:
    from tournaments.run import run_tournament

    t0 = time.perf_counter()
    res = await run_tournament(spec, executor=executor)
    el = time.perf_counter() - t0
    played = res.progress.done - res.progress.skipped
    if res.progress.aborted:
        raise RuntimeError(f"bench tournament {spec.name}: {res.progress.aborted} aborted matches")
    return {"matches": played, "seconds": el, "matches_per_min": played * 60.0 / el,
            "matches_per_s": played / el}


class _Cluster:
    """``dask scheduler`` + ``workers`` x ``dask worker --nthreads 2`` on 127.0.0.1."""

    def __init__(self, tmp: Path, workers: int):
        dask = str(Path(sys.executable).parent / "dask")
        self.procs: list[subprocess.Popen] = []
        sched = tmp / f"sched-{workers}.json"
        self._spawn([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(sched)])
        deadline = time.monotonic() + 60
        while not sched.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)
        self.address = json.loads(sched.read_text())["address"]
        for _ in range(workers):
            self._spawn([dask, "worker", self.address, "--nthreads", "2", "--no-nanny", "--no-dashboard",
                         "--host", "127.0.0.1"])
        from distributed import Client

        with Client(self.address, timeout=30) as c:
            c.wait_for_workers(workers, timeout=90)

    def _spawn(self, argv: list[str]) -> None:
        self.procs.append(subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           start_new_session=True))

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(5)


class InstantExecutor:
    """Returns every match at once: a copy of one real finished match
    (result and compressed log), so only the driver's work is measured."""

    name = "instant"

    def __init__(self, template: Any):
        self.template = template

    async def start(self, spec: Any, log_dir: Path) -> None:
        pass

    async def play(self, job: Any) -> Any:
        fm = copy.copy(self.template)
        fm.index = job.index
        fm.result = dict(self.template.result, match_id=job.spec.match_id)
        return fm

    async def stop(self) -> None:
        pass


async def _template(tmp: Path) -> Any:
    """One real match, played locally, as a Dask worker would return it."""
    import zlib

    from tournaments.executor import LocalExecutor, match_job
    from tournaments.schedule import build

    spec = _spec("tmpl", tmp, 1)
    ex = LocalExecutor(1)
    log_dir = tmp / "tmpl-logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    await ex.start(spec, log_dir)
    try:
        fm = await ex.play(match_job(spec, build(spec)[0]))
    finally:
        await ex.stop()
    fm.log = zlib.compress(fm.log_file.read_bytes())
    fm.log_file = None
    fm.worker = "instant"
    return fm


def run(quick: bool, tmp: Path) -> dict[str, Any]:
    """The section's figures (see module docstring)."""
    out: dict[str, Any] = {}
    games, bots = (1, 3) if quick else (3, 4)  # 3 or 36 matches
    out["local"] = asyncio.run(_timed(_spec(f"local-{time.monotonic_ns()}", tmp, games, bots=bots)))
    for workers in (1, 2):
        c = _Cluster(tmp, workers)
        try:
            spec = _spec(f"dask{workers}-{time.monotonic_ns()}", tmp, games, bots=bots)
            spec.executor, spec.scheduler = "dask", c.address
            out[f"dask_{workers}w"] = asyncio.run(_timed(spec))
        finally:
            c.stop()
    out["dask_2w_over_1w"] = out["dask_2w"]["matches_per_min"] / out["dask_1w"]["matches_per_min"]
    out["dask_1w_over_local"] = out["dask_1w"]["matches_per_min"] / out["local"]["matches_per_min"]

    template = asyncio.run(_template(tmp))
    ceiling_games = 1 if quick else 6  # 8 bots: 168 matches per repetition
    sqlite = _spec(f"ceil-sqlite-{time.monotonic_ns()}", tmp, ceiling_games, bots=8)
    out["driver_sqlite"] = asyncio.run(_timed(sqlite, InstantExecutor(template)))
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        import pgserver

        server, proc, root = pgserver._start(fsync=True)
    except Exception as e:  # PostgreSQL not installed: say so, keep the other figures
        out["driver_postgresql"] = {"error": str(e)}
        return out
    try:
        pg = _spec(f"ceil-pg-{time.monotonic_ns()}", tmp, ceiling_games, database=server.new_database(), bots=8)
        out["driver_postgresql"] = asyncio.run(_timed(pg, InstantExecutor(template)))
    finally:
        pgserver._stop(proc, root)
    return out


def report(r: dict[str, Any], say: Any, fmt: Any) -> None:
    say("\n-- (f) scale-out: one tournament (Dou Dizhu, 4 random bots, 1-round matches) by executor, "
        "then the driver's own ceiling (an executor that returns every match at once)")
    say(f"{'executor':<44} {'matches':>8} {'seconds':>8} {'matches/min':>12}")
    for key, label in (("local", "local, concurrency 2"), ("dask_1w", "Dask, 1 worker x 2 threads"),
                       ("dask_2w", "Dask, 2 workers x 2 threads")):
        x = r[key]
        say(f"{label:<44} {x['matches']:>8} {fmt(x['seconds']):>8} {fmt(x['matches_per_min']):>12}")
    say(f"Dask 2 workers / 1 worker: {r['dask_2w_over_1w']:.2f}x; Dask 1 worker / local: "
        f"{r['dask_1w_over_local']:.2f}x (one machine of {os.cpu_count()} cores: the workers share its cores)")
    for key, label in (("driver_sqlite", "driver ceiling, SQLite"), ("driver_postgresql", "driver ceiling, PostgreSQL")):
        x = r[key]
        if "error" in x:
            say(f"{label:<44} not measured: {x['error']}")
        else:
            say(f"{label:<44} {x['matches']:>8} {fmt(x['seconds']):>8} {fmt(x['matches_per_min']):>12}"
                f"  ({fmt(x['matches_per_s'])} matches recorded/s)")
