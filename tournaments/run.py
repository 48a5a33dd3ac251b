"""Tournament driver: hands every scheduled match to an executor (see
:mod:`tournaments.executor`: this process, or a Dask cluster), and is the
single writer of the results database and the log directory. Each result is
stored atomically; ratings are applied in schedule order whatever order
results arrive in.

No match played twice: the driver holds the tournament's lease in the store
(host, pid, heartbeat every :data:`~tournaments.store.LEASE_HEARTBEAT_S`
seconds) for the whole run; a second driver is refused while the lease is
live and may take over only once it expired (or, on the same host, once its
holder's process is gone). Match logs are written to ``<name>.part`` and
renamed when complete, so a log under its final name is always whole.

Resume: matches already in the store are never replayed; a match that was
running when the process died is simply played again from the start (its
seed is fixed), so the final leaderboard equals an uninterrupted run's.
An adaptive schedule (``until = "separated"``) is re-derived from the stored
results (:mod:`tournaments.adaptive`), so it resumes exactly as well.

Storage faults (database deleted, corrupt or full; log disk full) stop the
run with a :class:`~tournaments.store.StorageError` naming the file; what
was recorded before stays recorded, and ``--resume`` continues. An SQLite
file damaged while the run wrote to it (pages corrupted on disk, which the
writer's own cache can hide until the end) is found at the write that
trips on it or, at the latest, by an integrity check of the file at the end
of the run (:meth:`~tournaments.store.Store.integrity_problem`): the run
then fails instead of printing a leaderboard, the damaged file is left as
it is, and every result that can still be read from it is copied into a
new database next to it (``<file>.salvaged``), from which ``--resume``
plays only the matches that were lost.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from sqlalchemy.exc import IntegrityError

from referee.remote import RemoteError, RemoteReferee
from referee.outcomes import IGNORED_FAULTS, MatchStatus
from referee.sandbox import Sandbox
from referee.words import plural
from tournaments.adaptive import AdaptiveSchedule, Stop
from tournaments.executor import (Executor, ExecutorError, FinishedMatch, RemoteExecutor, make_executor, match_job,
                                  sandbox_for)
from tournaments.details import store_summaries
from tournaments.rating import BoardRow, store_board
from tournaments.running import RunningIndex
from tournaments.schedule import ScheduledMatch
from tournaments.spec import TournamentSpec
from tournaments.record import MatchRecord
from tournaments.store import LEASE_HEARTBEAT_S, LEASE_TTL_S, LeaseHeld, LeaseHolder, Store, StorageError, mask_url


class TournamentError(RuntimeError):
    """A tournament that cannot be (re)started as asked; the message says what to do."""


@dataclass
class Progress:
    """Counters passed to the progress callback after every match."""

    total: int
    done: int = 0
    skipped: int = 0
    faults: int = 0
    aborted: int = 0  # stopped by a referee-side failure: no result
    void: int = 0  # a seat's bot never connected (no_show): no result
    last: str = ""


@dataclass
class TournamentResult:
    name: str
    board: list[BoardRow]
    progress: Progress
    elapsed_s: float
    store_url: str  # password masked
    log_dir: str
    stop: Stop | None = None  # why it stopped; None when stopped early (stop_after)
    #: the seat and role summaries (:func:`tournaments.details.store_summaries`)
    summaries: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


def _open(spec: TournamentSpec, resume: bool, fresh: bool, store: Store, schedule: list[ScheduledMatch],
          me: LeaseHolder) -> int:
    """The tournament's id, with its lease held by ``me``. Raises
    :class:`TournamentError` when another driver runs it, when it exists
    and neither ``resume`` nor ``fresh`` is set, or when the file changed.
    A resumed tournament's stored spec takes this run's ``referee``, ``tls_ca`` and ``admin_token_file``."""
    where = f"tournament {spec.name!r} in {store.display_url}"
    for _ in range(3):  # a concurrent driver may create or delete it between our steps
        t = store.tournament(spec.name)
        try:
            if t is not None and (problem := ladder_problem(spec, t, f"{spec.name!r} in {store.display_url}")):
                raise TournamentError(problem)
            if t is not None and fresh:
                store.delete_tournament(spec.name, me)
                t = None
            if t is None:
                try:
                    return store.create_tournament(spec.name, spec.game, spec.public_json(), spec.fingerprint(),
                                                   len(schedule), [(b.name, b.command, b.external) for b in spec.bots],
                                                   lease_holder=me)
                except IntegrityError:
                    fresh = False  # another driver created it just now: its lease decides below
                    continue
            state, lease = store.run_state(t)
            if lease is not None:
                raise LeaseHeld(lease, LEASE_TTL_S)
            if not resume:
                raise TournamentError(f"{where} {_exists_advice(state)}")
            if t["fingerprint"] != spec.fingerprint():
                raise TournamentError(_changed(where, t, spec))
            store.acquire_lease(int(t["id"]), me)
            store.update_spec(int(t["id"]), {"referee": spec.referee, "tls_ca": spec.tls_ca,  # where it runs now
                                             "admin_token_file": spec.admin_token_file,
                                             "admin_token_env": spec.admin_token_env})
            return int(t["id"])
        except LeaseHeld as e:
            raise TournamentError(f"{where} {e}") from None
    raise TournamentError(f"{where} is being created and deleted by other drivers at the same time; retry")


def ladder_problem(spec: TournamentSpec, t: dict[str, Any], where: str) -> str | None:
    """Why a tournament file cannot use the stored row ``t`` of its name: the
    row is a ladder's (``referee ladder``; a tournament run would neither
    resume nor replace it), else ``None``. ``where`` names the row."""
    try:
        schedule = json.loads(t["spec_json"]).get("schedule")
    except (ValueError, TypeError, AttributeError):
        return None
    if schedule != "ladder":
        return None
    return (f"{where} is a ladder (`referee ladder`), not a tournament: give the tournament another name, "
            "or use another database (--db)")


def resume_refusal(spec: TournamentSpec, t: dict[str, Any]) -> str | None:
    """Why ``--resume`` would refuse the stored tournament ``t`` (a row of
    :meth:`Store.tournament`) for ``spec``, e.g. ``the file changed since it
    was started: seed: 9 -> 10`` (what changed, by
    :meth:`TournamentSpec.changes_from`); ``None`` when the fingerprints
    match and it would go on."""
    if t["fingerprint"] == spec.fingerprint():
        return None
    try:
        changes = spec.changes_from(json.loads(t["spec_json"]))
    except (ValueError, TypeError, AttributeError):  # a stored spec this version cannot read
        changes = []
    return (f"the file changed since it was started: {'; '.join(changes)}" if changes
            else "it was started by a referee version that schedules matches differently")


def _changed(where: str, t: dict[str, Any], spec: TournamentSpec) -> str:
    """Why ``--resume`` refuses the stored tournament ``t`` for ``spec``: what changed in the file."""
    return (f"{where} cannot be resumed: {resume_refusal(spec, t)}. Undo the change to finish it with --resume, "
            "or use --fresh to start over, or give it a new name")


def _exists_advice(state: str) -> str:
    if state == "complete":
        return ("already exists and is complete; use --fresh to play it again (--resume plays nothing more and "
                "prints its leaderboard)")
    return f"already exists ({state}); use --resume to finish it or --fresh to start it over"


def existing_problem(spec: TournamentSpec, store: Store, resume: bool, fresh: bool) -> str | None:
    """Why a run of ``spec`` would be refused at once, checked before anything is
    drawn or started: another driver holds the tournament's lease, it exists
    and neither ``resume`` nor ``fresh`` is set, or ``resume`` is set and the
    file changed since it was started (what changed is named). ``None``: go
    ahead (the run checks again, under the lease)."""
    t = store.tournament(spec.name)
    if t is None:
        return None
    where = f"tournament {spec.name!r} in {store.display_url}"
    if problem := ladder_problem(spec, t, f"{spec.name!r} in {store.display_url}"):
        return problem
    state, lease = store.run_state(t)
    if lease is not None:
        return f"{where} {LeaseHeld(lease, LEASE_TTL_S)}"
    if not (resume or fresh):
        return f"{where} {_exists_advice(state)}"
    if resume and t["fingerprint"] != spec.fingerprint():
        return _changed(where, t, spec)
    return None


def resume_note(spec: TournamentSpec, store: Store) -> str | None:
    """The line ``--resume`` prints before it plays: how many of the stored
    tournament's matches are already played, and the settings that may
    change before a resume and did, old -> new
    (:meth:`TournamentSpec.resume_changes`), e.g. ``resuming: 12 of 48
    matches already played; changed since it was started: concurrency: 2 ->
    4`` (``resuming: all 48 matches already played, nothing more to play``
    for a complete one). ``None`` when no tournament of that name is stored
    (the run starts it)."""
    t = store.tournament(spec.name)
    if t is None:
        return None
    done, total = len(store.finished_indices(int(t["id"]))), int(t["total_matches"])
    line = (f"resuming: all {total} {plural(total, 'match', 'matches')} already played, nothing more to play"
            if done >= total else f"resuming: {done} of {total} {plural(total, 'match', 'matches')} already played")
    try:
        changes = spec.resume_changes(json.loads(t["spec_json"]))
    except (ValueError, TypeError, AttributeError):  # a stored spec this version cannot read
        changes = []
    return line + (f"; changed since it was started: {'; '.join(changes)}" if changes else "")


def holds_match_logs(spec: TournamentSpec) -> bool:
    """Whether ``log_dir/NAME/`` of ``spec`` already holds match logs of a
    tournament of its name (``NAME-m*.jsonl``), which a run of it new to
    its database would write over."""
    return any((Path(spec.log_dir) / spec.name).glob(f"{spec.name}-m*.jsonl"))


def _log_error(path: Path, e: OSError) -> StorageError:
    return StorageError(f"match log {path}: {e.strerror or e} (log directory {path.parent}); "
                        "free space or fix the directory, then continue with --resume")


def keep_log(fm: FinishedMatch, log_dir: Path, match_id: str) -> str | None:
    """Put the match's log (and bot output) under its final name; the log is
    renamed only once complete (also used by the ladder, :mod:`tournaments.ladder`). Returns the final log path. Raises
    :class:`StorageError` when the log directory cannot be written."""
    final = log_dir / f"{match_id}.jsonl"
    target = final
    try:
        for name, data in fm.files.items():
            target = log_dir / name
            target.write_bytes(zlib.decompress(data))
        if fm.remote_log is not None:  # on the remote referee's host
            return fm.remote_log
        if fm.log_file is not None:
            target = final
            os.replace(fm.log_file, final)
            return str(final)
        if fm.log is not None:
            target = final.with_name(final.name + ".part")
            with target.open("wb") as f:
                f.write(zlib.decompress(fm.log))
                f.flush()
                os.fsync(f.fileno())
            target = final
            os.replace(final.with_name(final.name + ".part"), final)
            return str(final)
    except OSError as e:
        raise _log_error(target, e) from None
    return None


def _root_cause(e: BaseException) -> BaseException:
    """The first meaningful exception inside (nested) exception groups."""
    while isinstance(e, BaseExceptionGroup):
        inner = [x for x in e.exceptions if not isinstance(x, asyncio.CancelledError)] or list(e.exceptions)
        preferred = [x for x in inner if isinstance(x, (StorageError, TournamentError, ExecutorError))]
        e = (preferred or inner)[0]
    return e


async def run_tournament(spec: TournamentSpec, resume: bool = False, fresh: bool = False,
                         on_progress: Callable[[Progress], None] | None = None,
                         stop_after: int | None = None, executor: Executor | None = None,
                         remote: RemoteReferee | None = None, sandbox: Sandbox | None = None,
                         schedule: AdaptiveSchedule | None = None, reconnect_s: float = 0.0,
                         notify: Callable[[str], None] | None = None) -> TournamentResult:
    """Run (or resume) a tournament to the end and return its leaderboard.

    ``stop_after``: play at most that many matches this call (for tests and
    partial runs; a later ``resume`` finishes). ``executor``: where matches
    are played (default: as the spec says, see
    :func:`tournaments.executor.make_executor`); ``remote``: play every match
    on that running referee instead (external bots are the ones connected
    there; command bots are launched here per match), which raises
    :class:`~referee.remote.RemoteError` if it refuses; when it goes away,
    the run waits up to ``reconnect_s`` seconds for it to come back (saying
    so through ``notify``) and plays the matches it lost again, else raises
    :class:`~referee.remote.RefereeGone`. ``sandbox``: the
    local executor's bot isolation (default: the file's ``[sandbox]``,
    checked before the store is opened). ``schedule``: the spec's schedule
    when already built (:class:`~tournaments.adaptive.AdaptiveSchedule`,
    nothing played yet), else built here. Raises
    :class:`TournamentError` when the tournament exists and neither
    ``resume`` nor ``fresh`` is set, when the file changed since the
    tournament started, when another driver runs it, or when a tournament
    new to the database (without ``fresh`` or ``resume``: continuing one
    whose database was lost replays into its own logs) would write over
    match logs of the same name in the log directory;
    :class:`~tournaments.store.StorageError` when the database or the log
    directory fails; :class:`~tournaments.executor.ExecutorError` when the
    executor cannot play. A new tournament refused before its first match
    leaves no tournament stored.
    """
    t0 = time.monotonic()
    if executor is None:
        if sandbox is None and remote is None and spec.executor == "local":
            try:  # a strict setting this machine cannot honour fails before anything is stored
                sandbox = sandbox_for(spec.bot_uids, spec.isolate_network,
                                      [b.command for b in spec.bots if not b.external], Path(spec.cwd))
            except ExecutorError as e:
                raise TournamentError(str(e)) from None
        executor = make_executor(spec, remote, sandbox, reconnect_s, notify)
    store = Store(spec.database)
    try:
        return await _run(spec, store, t0, resume, fresh, on_progress, stop_after, executor, schedule)
    finally:
        store.close()


async def _run(spec: TournamentSpec, store: Store, t0: float, resume: bool, fresh: bool,
               on_progress: Callable[[Progress], None] | None, stop_after: int | None,
               ex: Executor, schedule: AdaptiveSchedule | None = None) -> TournamentResult:
    schedule = AdaptiveSchedule(spec) if schedule is None else schedule
    me = LeaseHolder.me()
    new = fresh or store.tournament(spec.name) is None
    tid = _open(spec, resume, fresh, store, schedule.matches, me)
    try:
        done = store.finished_indices(tid)
        prog = Progress(total=len(schedule.matches), done=len(done), skipped=len(done))
        log_dir = Path(spec.log_dir) / spec.name
        if new and not fresh and not resume and holds_match_logs(spec):
            store.delete_tournament(spec.name, me)  # nothing was played: leave no tournament behind
            raise TournamentError(
                f"{log_dir} already holds match logs of a tournament {spec.name!r} that {mask_url(spec.database)} "
                "does not hold (another database's?); this run would write over them: move them away, set "
                "another log_dir, or use --fresh to replace them (--resume to continue that tournament)")
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            for stale in log_dir.glob("*.part"):  # we hold the lease: these are a dead run's partial logs
                stale.unlink()
            running = RunningIndex(log_dir)
            running.reset()
        except OSError as e:
            if new:  # nothing was played: leave no tournament behind
                store.delete_tournament(spec.name, me)
            raise StorageError(f"log directory {log_dir}: {e.strerror or e}") from None
        try:
            await ex.start(spec, log_dir)
        except ExecutorError:
            if new:  # nothing was played: leave no tournament behind (a plain rerun works once fixed)
                store.delete_tournament(spec.name, me)
            raise
        if isinstance(ex, RemoteExecutor):  # `tournament status` shows a wait for the referee
            ex.record_waits(store.wait_recorder(tid, me, f"the referee at {ex.remote.addr}", ex.notify))
        try:
            stop = await _play_all(spec, store, tid, me, ex, schedule, log_dir, prog, on_progress, stop_after,
                                   running)
        except RemoteError:
            if new and not store.finished_indices(tid):  # refused before anything was played: as never run
                store.delete_tournament(spec.name, me)
            raise
        except StorageError as e:
            if store.file is not None and "is corrupt" in str(e):
                raise await asyncio.to_thread(_corrupt, spec, store, tid, list(schedule.matches), log_dir, str(e),
                                              "found at a write") from None
            raise
        finally:
            await ex.stop()
        problem = await asyncio.to_thread(store.integrity_problem)
        if problem is not None:
            raise await asyncio.to_thread(_corrupt, spec, store, tid, list(schedule.matches), log_dir, problem,
                                          "found by the integrity check at the end of the run")
        if stop is not None:
            store.set_tournament_status(tid, "complete")
        t = store.tournament(spec.name)
        board = await asyncio.to_thread(store_board, store, t)
        summaries = await asyncio.to_thread(store_summaries, store, t, spec.public_json())
        return TournamentResult(spec.name, board, prog, time.monotonic() - t0, store.display_url, str(log_dir),
                                stop=stop, summaries=summaries,
                                extra={"executor": ex.name,
                                       "persistent_launches": getattr(ex, "persistent_launches", {})})
    finally:
        try:
            store.release_lease(tid, me)
        except StorageError:
            pass  # the database is what failed: the lease expires on its own


def _record_from_log(path: Path, m: ScheduledMatch) -> MatchRecord | None:
    """The stored form of scheduled match ``m`` rebuilt from its complete log
    (its result line, plus the crash faults appended after it), or ``None``
    when there is no such log or it cannot be read."""
    result: dict[str, Any] | None = None
    crashes: list[dict[str, Any]] = []
    try:
        with path.open(encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                if d.get("type") == "result":
                    result = {k: v for k, v in d.items() if k != "type"}
                elif d.get("type") == "fault" and result is not None:
                    crashes.append({k: v for k, v in d.items() if k != "type"})
    except (OSError, ValueError):
        return None
    if result is None or result.get("status") not in tuple(MatchStatus):
        return None
    result["faults"] = list(result.get("faults") or []) + crashes
    result["log_path"] = str(path)
    return MatchRecord(m.index, m.seed, list(m.seats), MatchStatus(result["status"]), result, str(path),
                       int(result.get("decisions") or 0))


def _corrupt(spec: TournamentSpec, store: Store, tid: int, played: list[ScheduledMatch], log_dir: Path,
             problem: str, when: str) -> StorageError:
    """The error for a damaged SQLite file (``problem``, ``when`` it was
    found), after every result that can still be read, from the file or
    else from its match's complete log in ``log_dir``, was copied into a new
    database beside it, ``<file>.salvaged``, under a tournament of the same
    name and file (so ``--resume --db <file>.salvaged`` plays only the
    rest). The damaged file is not touched."""
    kept, lost = store.readable_matches(tid)
    have = {r.idx for r in kept}
    from_logs = 0
    for m in played:
        if m.index not in have:
            rec = _record_from_log(log_dir / f"{spec.name}-m{m.index:05d}.jsonl", m)
            if rec is not None:
                kept.append(rec)
                from_logs += 1
    kept.sort(key=lambda r: r.idx)
    total = len(played)
    path = store.file.with_name(store.file.name + ".salvaged")
    try:
        for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            p.unlink(missing_ok=True)
        new = Store(str(path))
        try:
            ntid = new.create_tournament(spec.name, spec.game, spec.public_json(), spec.fingerprint(), total,
                                         [(b.name, b.command, b.external) for b in spec.bots])
            for i in range(0, len(kept), 2000):
                new.record_matches(ntid, kept[i:i + 2000])
        finally:
            new.close()
        saved = (f"the {len(kept)} {plural(len(kept), 'result')} that could still be read"
                 + (f" ({from_logs} of them from their match logs)" if from_logs else "")
                 + f" are copied into {path}; to go on from them: referee tournament run FILE --resume --db {path}")
    except (StorageError, OSError, ValueError) as e:
        saved = f"its results could not be copied elsewhere ({e})"
    detail = problem.split(" is corrupt (", 1)[1].split(");", 1)[0] if " is corrupt (" in problem else problem
    return StorageError(f"results database {store.file} is corrupt ({detail}; {when}); the file is left as it "
                        f"is (move it away, or restore a backup); {saved}")


async def _to_the_end(work: Any) -> Any:
    """Await ``work`` (an awaitable, e.g. a thread's job) to its end, also when
    this task is cancelled meanwhile (another match failed, the run is
    stopping): the cancellation is raised once ``work`` is done. So a match
    that finished is recorded before the run decides what it leaves behind
    (a refused first run deletes a tournament without a finished match)."""
    job = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(job)
    except asyncio.CancelledError:
        await job
        raise


async def _play_all(spec: TournamentSpec, store: Store, tid: int, me: LeaseHolder, ex: Executor,
                    schedule: AdaptiveSchedule, log_dir: Path, prog: Progress,
                    on_progress: Callable[[Progress], None] | None, stop_after: int | None,
                    running: RunningIndex) -> Stop | None:
    """Play the schedule's missing matches on ``ex``, block by block (see
    :func:`_play_schedule`), recording each result as it arrives, while
    renewing the lease; the first storage, lease or executor failure stops
    every other match and is raised. Each match is listed in ``running``
    (``<log_dir>/.running``, what the live site reads) while it is played.
    Returns why the schedule stopped (``None``: ``stop_after`` matches were played)."""

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(LEASE_HEARTBEAT_S)
            await asyncio.to_thread(store.check)
            if not await asyncio.to_thread(store.heartbeat, tid, me):
                lease = await asyncio.to_thread(store.lease, tid)
                who = f"pid {lease['pid']} on host {lease['host']}" if lease else "nobody"
                raise TournamentError(f"tournament {spec.name!r} lost its lease in {store.display_url} (now held "
                                      f"by {who}); this driver stopped so that no match is played twice")

    async def one(m: ScheduledMatch) -> None:
        job = match_job(spec, m)
        part = log_dir / f"{job.spec.match_id}.jsonl.part"
        try:
            with running.playing(job.spec.match_id):
                fm = await ex.play(job)
        except OSError as e:  # the log could not even be created
            raise _log_error(part, e) from None
        if fm.storage_error is not None:  # the referee's own I/O failed (engines do none)
            raise StorageError(f"match log {part}: {fm.storage_error} (log directory {log_dir}); "
                               "free space or fix the directory, then continue with --resume")
        result = fm.result
        if fm.worker != "local":
            result["worker"] = fm.worker  # which Dask worker played it

        def keep_and_record() -> None:
            result["log_path"] = keep_log(fm, log_dir, job.spec.match_id)
            store.record_match(tid, m.index, m.seed, list(m.seats), fm.status, result, result["log_path"],
                               fm.decisions, fm.elapsed_s)

        await _to_the_end(asyncio.to_thread(keep_and_record))
        prog.done += 1
        prog.faults += sum(1 for f in result.get("faults", []) if f["kind"] not in IGNORED_FAULTS)
        prog.aborted += fm.status is MatchStatus.ABORTED
        prog.void += fm.status is MatchStatus.VOID
        prog.last = f"match {m.index}: {' / '.join(m.seats)} -> {fm.status}"
        if on_progress:
            on_progress(prog)

    async def block(todo: list[ScheduledMatch]) -> None:
        async with asyncio.TaskGroup() as tg:
            for m in todo:
                tg.create_task(one(m))

    if on_progress:
        on_progress(prog)
    try:
        async with asyncio.TaskGroup() as tg:
            beat = tg.create_task(heartbeat())
            stop = await _play_schedule(schedule, store, tid, block, prog, on_progress, stop_after)
            beat.cancel()
    except BaseExceptionGroup as eg:
        raise _root_cause(eg) from None
    return stop


async def _play_schedule(schedule: AdaptiveSchedule, store: Store, tid: int,
                         block: Callable[[list[ScheduledMatch]], Any], prog: Progress,
                         on_progress: Callable[[Progress], None] | None, stop_after: int | None) -> Stop | None:
    """Play the schedule's missing matches, block by block, until it says
    why it stops (returned), or until ``stop_after`` matches were played
    this call (returns ``None``)."""
    budget = stop_after
    while True:
        stop = await asyncio.to_thread(schedule.advance, await asyncio.to_thread(store.matches, tid))
        if stop is not None:
            return stop
        todo = schedule.pending(await asyncio.to_thread(store.finished_indices, tid))
        if budget is not None:
            todo = todo[:budget]
            budget -= len(todo)
        if not todo:
            return None
        if len(schedule.matches) != prog.total:
            prog.total = len(schedule.matches)
            await asyncio.to_thread(store.set_total_matches, tid, prog.total)
            if on_progress:
                on_progress(prog)
        await block(todo)
        if budget == 0:
            return None
