"""Tournament execution: one referee process, up to ``concurrency`` matches
at once, every result stored atomically, ratings in schedule order.

Resume: matches already in the store are never replayed; a match that was
running when the process died is simply played again from the start (its
seed is fixed), so the final leaderboard equals an uninterrupted run's.
An adaptive schedule (``until = "separated"``) is re-derived from the stored
results (:mod:`tournaments.adaptive`), so it resumes exactly as well.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from referee.bots import BotProcess, Limits
from referee.sandbox import Sandbox, SandboxError, prepare
from referee.play import SeatPlan, play_match
from referee.remote import RemoteReferee, RemoteSeat
from referee.runner import IGNORED_FAULTS, MatchSpec
from referee.service import Referee
from tournaments.adaptive import AdaptiveSchedule, Stop
from tournaments.rating import BoardRow, leaderboard, rate
from tournaments.schedule import ScheduledMatch
from tournaments.spec import TournamentSpec
from tournaments.store import Store


class TournamentError(RuntimeError):
    """A tournament that cannot be (re)started as asked; the message says what to do."""


@dataclass
class Progress:
    """Counters passed to the progress callback after every match."""

    total: int
    done: int = 0
    skipped: int = 0
    faults: int = 0
    aborted: int = 0
    last: str = ""


@dataclass
class TournamentResult:
    name: str
    board: list[BoardRow]
    progress: Progress
    elapsed_s: float
    store_url: str
    log_dir: str
    stop: Stop | None = None  # why it stopped; None when stopped early (stop_after)
    extra: dict[str, Any] = field(default_factory=dict)


class _PersistentBot:
    """A bot process launched once for the whole tournament (``persistent = true``)
    and relaunched with the same token if it dies."""

    def __init__(self, name: str, command: str, ref: Referee, log_dir: Path, spec: TournamentSpec,
                 sandbox: Sandbox, limits: Limits):
        self.name, self.command, self.ref, self.log_dir, self.spec = name, command, ref, log_dir, spec
        self.sandbox, self.limits = sandbox, limits
        self.token = ref.new_token(name)
        self.proc: BotProcess | None = None
        self.launches = 0
        self._lock = asyncio.Lock()

    async def ensure(self) -> BotProcess:
        async with self._lock:
            if self.proc is None or self.proc.poll() is not None:
                if self.proc is not None:
                    await asyncio.to_thread(self.proc.stop, 0.2)
                self.launches += 1
                self.proc = BotProcess(self.command, f"{self.name}.persistent{self.launches}",
                                       f"127.0.0.1:{self.ref.port}", self.token, self.log_dir,
                                       limits=self.limits, cwd_for_relative=Path(self.spec.cwd),
                                       sandbox=self.sandbox, unix_addr=self.ref.unix_addr).start()
            return self.proc

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()


def _open(spec: TournamentSpec, resume: bool, fresh: bool, store: Store, schedule: list[ScheduledMatch]) -> int:
    t = store.tournament(spec.name)
    if t is not None and fresh:
        store.delete_tournament(spec.name)
        t = None
    if t is None:
        return store.create_tournament(spec.name, spec.game, asdict(spec), spec.fingerprint(), len(schedule),
                                       [(b.name, b.command, b.external) for b in spec.bots])
    if not resume:
        raise TournamentError(
            f"tournament {spec.name!r} already exists in {store.url} ({t['status']}); "
            "use --resume to finish it or --fresh to start it over")
    if t["fingerprint"] != spec.fingerprint():
        raise TournamentError(
            f"tournament {spec.name!r} in {store.url} was started from a different file (game, bots, "
            "schedule, seed, rules or clocks changed); use --fresh to start over or give it a new name")
    return int(t["id"])


async def run_tournament(spec: TournamentSpec, resume: bool = False, fresh: bool = False,
                         on_progress: Callable[[Progress], None] | None = None,
                         stop_after: int | None = None, remote: RemoteReferee | None = None,
                         sandbox: Sandbox | None = None) -> TournamentResult:
    """Run (or resume) a tournament to the end and return its leaderboard.

    ``remote``: play every match on that running referee instead of one
    started here (external bots are the ones connected there; command bots
    are launched here per match). Raises :class:`RemoteError` if it refuses.

    ``stop_after``: play at most that many matches this call (for tests and
    partial runs; a later ``resume`` finishes). Raises :class:`TournamentError`
    when the tournament exists and neither ``resume`` nor ``fresh`` is set,
    or when the file changed since the tournament started. ``sandbox``: the
    bots' isolation (default: built from the file's ``[sandbox]`` table and
    checked with :func:`referee.sandbox.prepare`; raises
    :class:`TournamentError` when a strict setting cannot be honoured).
    """
    if sandbox is None:
        try:
            sandbox = Sandbox(spec.bot_uids, spec.isolate_network)
            prepare(sandbox, [b.command for b in spec.bots if not b.external], Path(spec.cwd))
        except SandboxError as e:
            raise TournamentError(str(e)) from None
    t0 = time.monotonic()
    store = Store(spec.database)
    schedule = AdaptiveSchedule(spec)
    tid = _open(spec, resume, fresh, store, schedule.matches)
    done = store.finished_indices(tid)
    prog = Progress(total=len(schedule.matches), done=len(done), skipped=len(done))
    log_dir = Path(spec.log_dir) / spec.name
    log_dir.mkdir(parents=True, exist_ok=True)

    if sandbox.uids:
        os.chmod(log_dir, 0o700)  # bots of other uids must not read the live match logs
    ref = Referee(log_dir)
    if remote is None:
        await ref.start("127.0.0.1", spec.port, unix_path=sandbox.socket_path if sandbox.isolate_network else None)
    persistent: dict[str, _PersistentBot] = {}
    for b in spec.bots:
        if remote is not None:
            continue
        if b.external:
            ref.register_token(b.token, b.name)
        elif b.persistent:
            persistent[b.name] = _PersistentBot(b.name, b.command, ref, log_dir, spec, sandbox, b.limits or spec.limits)
    entries = {b.name: b for b in spec.bots}
    sem = asyncio.Semaphore(spec.concurrency)

    async def one(m: ScheduledMatch) -> None:
        async with sem:
            plans: list[SeatPlan] = []
            for name in m.seats:
                b = entries[name]
                if b.external:
                    plans.append(SeatPlan(token=b.token))
                elif b.persistent:
                    pb_ = persistent[name]
                    plans.append(SeatPlan(token=pb_.token, process=await pb_.ensure()))
                else:
                    plans.append(SeatPlan(command=b.command, limits=b.limits))
            ms = MatchSpec(game=spec.game, players=spec.players, seed=m.seed, seat_names=list(m.seats),
                           variant=spec.variant, params=spec.params, decision_ms=spec.decision_ms,
                           bank_ms=spec.bank_ms, fault_policy=spec.fault_policy, max_faults=spec.max_faults,
                           match_id=f"{spec.name}-m{m.index:05d}", clock=spec.clock)
            if remote is not None:
                seats = [RemoteSeat(token=p.token, command=p.command) for p in plans]
                outcome = await remote.play(ms, seats, log_dir, spec.limits, spec.connect_timeout_ms / 1000)
            else:
                outcome = await play_match(ref, ms, plans, log_dir, spec.limits, spec.connect_timeout_ms / 1000,
                                           sandbox=sandbox, base_dir=Path(spec.cwd))
            result = outcome.to_json()
            await asyncio.to_thread(store.record_match, tid, m.index, m.seed, list(m.seats), outcome.status,
                                    result, outcome.log_path, outcome.decisions, outcome.elapsed_s)
            prog.done += 1
            prog.faults += sum(1 for f in outcome.faults if f.kind not in IGNORED_FAULTS)
            prog.aborted += outcome.status != "complete"
            prog.last = f"match {m.index}: {' / '.join(m.seats)} -> {outcome.status}"
            if on_progress:
                on_progress(prog)

    stop: Stop | None = None
    try:
        if on_progress:
            on_progress(prog)
        stop = await _play_schedule(schedule, store, tid, one, prog, on_progress, stop_after)
    finally:
        for p in persistent.values():
            await asyncio.to_thread(p.stop)
        await ref.stop(0.5)
        sandbox.close()
    rows = store.matches(tid)
    names = [b.name for b in spec.bots]
    _, history = rate(rows, names, spec.trueskill, spec.game, spec.players)
    store.write_rating_history(tid, history)
    if stop is not None:
        store.set_tournament_status(tid, "complete")
    board = await asyncio.to_thread(leaderboard, rows, names, spec.trueskill, store.fault_counts(tid), spec.game,
                                    spec.players, spec.seed, spec.confidence)
    url = store.url
    store.close()
    return TournamentResult(spec.name, board, prog, time.monotonic() - t0, url, str(log_dir), stop=stop)


async def _play_schedule(schedule: AdaptiveSchedule, store: Store, tid: int,
                         one: Callable[[ScheduledMatch], Any], prog: Progress,
                         on_progress: Callable[[Progress], None] | None, stop_after: int | None) -> Stop | None:
    """Play the schedule's missing matches, block by block, until it says
    why it stops (returned), or until ``stop_after`` matches were played
    this call (returns ``None``)."""
    budget = stop_after
    while True:
        stop = await asyncio.to_thread(schedule.advance, store.matches(tid))
        if stop is not None:
            return stop
        todo = schedule.pending(store.finished_indices(tid))
        if budget is not None:
            todo = todo[:budget]
            budget -= len(todo)
        if not todo:
            return None
        if len(schedule.matches) != prog.total:
            prog.total = len(schedule.matches)
            store.set_total_matches(tid, prog.total)
            if on_progress:
                on_progress(prog)
        await asyncio.gather(*(one(m) for m in todo))
        if budget == 0:
            return None
