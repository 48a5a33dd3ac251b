"""Executors: where a tournament's matches are played.

The driver (:mod:`tournaments.run`) turns every scheduled match into a
:class:`MatchJob` and awaits ``executor.play(job)``, which returns a
:class:`FinishedMatch`. The driver alone writes the results database and
the log directory; executors only play.

* :class:`LocalExecutor` (``executor = "local"``, the default): one referee
  in the driver process on 127.0.0.1, bots launched on this machine, at most
  ``concurrency`` matches at once. The match log is written beside its final
  name (``<match_id>.jsonl.part``) and the driver renames it when complete.
* :class:`DaskExecutor` (``executor = "dask"``): every match is one
  dask.distributed task. The worker that runs it has its own referee on its
  loopback (one per worker process, started on first use), launches the
  match's bots on its host (commands resolved there, relative to the
  worker's working directory), plays, and returns the outcome with the
  zlib-compressed match log and the ends of the bots' stderr. A task whose
  worker is lost is run again by the scheduler elsewhere with the same job,
  so the same seed; the lost attempt's partial log stays in the lost
  worker's scratch directory and is never seen by the driver. Persistent
  bots are one long-lived process per worker (and tournament). A bot's
  ``resources`` (e.g. ``["java"]``) become Dask resource requirements, so
  its matches go only to workers started with ``--resources java=N``.
  The file's ``[sandbox]`` settings apply on the workers too: each worker
  keeps one referee per sandbox setting (per-bot uids need the worker to
  run as root, network isolation a Unix socket in its scratch directory).
* :class:`RemoteExecutor` (``tournament run --referee HOST:PORT``,
  ``referee ladder FILE --referee HOST:PORT``): every match on one running
  referee (``referee serve``) through its admin RPC; external bots are the
  ones connected there (seated by their token, or without one by the name
  they are registered under there), command bots are launched on this machine. Each
  match has the id it has locally on the referee too (``<tournament>-m00039``,
  or ``<tournament>-m00039-2`` ... when the referee already has a match of
  that id: one played again, another tournament of the same name). The log
  is fetched into the log directory (``AdminService.MatchLog``); a referee
  that cannot send it leaves it on its host, and its path there is recorded.
  When the referee goes away (stopped, restarted) the executor waits up to
  ``reconnect_s`` for it to answer again and plays the matches it lost again
  from the start (they were never returned, so never counted).
"""

from __future__ import annotations

import asyncio
import atexit
import shutil
import socket
import tempfile
import threading
import time
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol

from referee.bots import BotProcess, Limits
from referee.play import SeatPlan, launch, play_match, private_log_dir
from referee.remote import RefereeGone, RefereeWait, RemoteError, RemoteReferee, RemoteSeat
from referee.outcomes import MatchStatus
from referee.runner import MatchSpec
from referee.sandbox import Sandbox, SandboxError, prepare
from referee.service import Referee
from referee.words import plural
from tournaments.schedule import ScheduledMatch
from tournaments.spec import TournamentSpec

#: bytes of each bot stderr file a Dask worker sends back with a match (its end)
STDERR_TAIL_BYTES = 64 * 1024


class ExecutorError(RuntimeError):
    """The executor cannot play matches (scheduler unreachable, no workers,
    a match lost too often); the message says what to do."""


@dataclass
class SeatEntry:
    """Who plays a seat: bot ``name`` launched from ``command`` for this match,
    or kept running for the whole tournament (``persistent``), or an
    ``external`` bot that connects with ``token`` (local and remote executors;
    on the remote one, without a token, seated by its ``name``).
    ``limits``: the bot's own limits (``None``: the tournament's)."""

    name: str
    command: str = ""
    persistent: bool = False
    external: bool = False
    token: str = ""
    limits: Limits | None = None


@dataclass
class MatchJob:
    """Everything needed to play one scheduled match anywhere (picklable).

    ``bot_uids``/``isolate_network``: the file's ``[sandbox]``; ``base_dir``:
    what relative paths in bot commands are relative to on the driver's
    machine (a Dask worker uses its own working directory)."""

    tournament: str
    index: int
    spec: MatchSpec
    seats: list[SeatEntry]
    limits: Limits
    connect_timeout_s: float
    resources: list[str] = field(default_factory=list)
    bot_uids: str = "off"
    isolate_network: bool = False
    base_dir: str = "."
    #: seconds the match's launched bots may take to exit by themselves after it
    end_grace_s: float = 2.0


@dataclass
class FinishedMatch:
    """A played match as returned to the driver.

    Exactly one of ``log_file`` (a complete log on the driver's machine, to
    be renamed to its final name) and ``log`` (the zlib-compressed log) is
    set, unless the match wrote no log. ``files``: other files of the match
    (bot stderr ends), name -> zlib-compressed bytes. ``result`` is
    :meth:`referee.runner.MatchOutcome.to_json`."""

    index: int
    status: MatchStatus
    result: dict[str, Any]
    decisions: int
    elapsed_s: float
    reason: str = ""  # why it was aborted
    #: aborted because the referee's own I/O failed (``MatchOutcome.storage_error``)
    storage_error: OSError | None = None
    log_file: Path | None = None
    log: bytes | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    worker: str = "local"
    #: a log kept on another host (a remote referee's path), recorded as is
    remote_log: str | None = None


class Executor(Protocol):
    """Plays matches; see the module docstring."""

    name: str

    async def start(self, spec: TournamentSpec, log_dir: Path) -> None:
        """Get ready (referee, cluster connection). Raises :class:`ExecutorError`."""

    async def play(self, job: MatchJob) -> FinishedMatch:
        """Play one match (may run concurrently with other calls)."""

    async def stop(self) -> None:
        """Stop what :meth:`start` started (persistent bots included)."""


def match_job(spec: TournamentSpec, m: ScheduledMatch) -> MatchJob:
    """The job of scheduled match ``m`` (match id ``<tournament>-m<index:05>``)."""
    entries = {b.name: b for b in spec.bots}
    seats = [SeatEntry(n, entries[n].command, entries[n].persistent, entries[n].external, entries[n].token,
                       entries[n].limits) for n in m.seats]
    ms = MatchSpec(game=spec.game, players=spec.players, seed=m.seed, seat_names=list(m.seats),
                   variant=spec.variant, params=spec.params, decision_ms=spec.decision_ms,
                   bank_ms=spec.bank_ms, fault_policy=spec.fault_policy, max_faults=spec.max_faults,
                   match_id=f"{spec.name}-m{m.index:05d}", clock=spec.clock)
    resources = sorted({r for n in set(m.seats) for r in entries[n].resources})
    return MatchJob(spec.name, m.index, ms, seats, spec.limits, spec.connect_timeout_ms / 1000, resources,
                    bot_uids=spec.bot_uids, isolate_network=spec.isolate_network, base_dir=spec.cwd,
                    end_grace_s=spec.end_grace_ms / 1000)


class PersistentBot:
    """A bot process launched once (per referee) and kept for many matches
    (``persistent = true``); relaunched with the same token if it dies."""

    def __init__(self, name: str, command: str, ref: Referee, log_dir: Path, limits: Limits,
                 sandbox: Sandbox, base_dir: Path | None):
        self.name, self.command, self.ref, self.log_dir, self.limits = name, command, ref, log_dir, limits
        self.sandbox, self.base_dir = sandbox, base_dir
        self.token = ref.new_token(name)
        self.proc: BotProcess | None = None
        self.launches = 0
        self._lock = asyncio.Lock()

    async def ensure(self) -> BotProcess:
        """The running process, (re)launched now if needed (on its own socket,
        :func:`referee.play.launch`); raises what launching raises."""
        async with self._lock:
            if self.proc is None or self.proc.poll() is not None:
                if self.proc is not None:
                    await asyncio.to_thread(self.proc.stop, 0.2)
                self.launches += 1
                self.proc = await launch(self.ref, self.command, f"{self.name}.persistent{self.launches}",
                                         self.token, self.log_dir, self.limits, self.sandbox, self.base_dir)
            return self.proc

    def stop(self) -> None:
        """Stop and reap the process (its own socket goes when the referee stops)."""
        if self.proc is not None:
            self.proc.stop()


async def _play(ref: Referee, job: MatchJob, log_dir: Path, log_path: Path, sandbox: Sandbox,
                base_dir: Path | None, persistent: dict[Any, PersistentBot], key: Any = None) -> Any:
    """Play ``job`` on ``ref``, per-match bots launched into ``log_dir`` under
    ``sandbox`` (relative command paths from ``base_dir``, ``None``: the
    current directory); ``persistent`` maps ``(key, bot name)`` to its kept
    process."""
    plans: list[SeatPlan] = []
    for seat in job.seats:
        if seat.external:
            plans.append(SeatPlan(token=seat.token))
        elif seat.persistent:
            pb_ = persistent.get((key, seat.name))
            if pb_ is None:
                pb_ = persistent[(key, seat.name)] = PersistentBot(seat.name, seat.command, ref, log_dir,
                                                                   seat.limits or job.limits, sandbox, base_dir)
            plans.append(SeatPlan(token=pb_.token, process=await pb_.ensure()))
        else:
            plans.append(SeatPlan(command=seat.command, limits=seat.limits))
    return await play_match(ref, job.spec, plans, log_dir, job.limits, job.connect_timeout_s, sandbox=sandbox,
                            base_dir=base_dir, log_path=log_path, end_grace_s=job.end_grace_s)


def _finished(job: MatchJob, outcome: Any, **kw: Any) -> FinishedMatch:
    return FinishedMatch(job.index, outcome.status, outcome.to_json(), outcome.decisions, outcome.elapsed_s,
                         reason=outcome.reason, storage_error=outcome.storage_error, **kw)


class LocalExecutor:
    """Matches in this process's referee, bots on this machine (see module docstring)."""

    name = "local"

    def __init__(self, concurrency: int, sandbox: Sandbox | None = None):
        """``sandbox``: the bots' isolation, already checked with
        :func:`referee.sandbox.prepare` (default: built from the file's
        ``[sandbox]`` in :meth:`start`); closed by :meth:`stop`."""
        self.concurrency = concurrency
        self.sandbox = sandbox
        self.ref: Referee | None = None
        self.log_dir = Path(".")
        self.base_dir: Path | None = None
        self.persistent: dict[Any, PersistentBot] = {}
        self._sem = asyncio.Semaphore(concurrency)

    async def start(self, spec: TournamentSpec, log_dir: Path) -> None:
        if self.sandbox is None:
            self.sandbox = sandbox_for(spec.bot_uids, spec.isolate_network,
                                       [b.command for b in spec.bots if not b.external], Path(spec.cwd))
        self.log_dir, self.base_dir = log_dir, Path(spec.cwd)
        if self.sandbox.uids:
            private_log_dir(log_dir)  # bots of other uids must not read the live match logs
        self.ref = Referee(log_dir)
        await self.ref.start("127.0.0.1", spec.port)
        for b in spec.bots:
            if b.external:
                self.ref.register_token(b.token, b.name)

    async def play(self, job: MatchJob) -> FinishedMatch:
        assert self.ref is not None and self.sandbox is not None, "start() first"
        async with self._sem:
            part = self.log_dir / f"{job.spec.match_id}.jsonl.part"
            outcome = await _play(self.ref, job, self.log_dir, part, self.sandbox, self.base_dir, self.persistent)
            return _finished(job, outcome, log_file=part if part.exists() else None)

    async def stop(self) -> None:
        for p in self.persistent.values():
            await asyncio.to_thread(p.stop)
        if self.ref is not None:
            await self.ref.stop(0.5)
        if self.sandbox is not None:
            self.sandbox.close()


def sandbox_for(bot_uids: str, isolate_network: bool, commands: list[str], base_dir: Path | None) -> Sandbox:
    """A :class:`~referee.sandbox.Sandbox` for these settings, checked for
    ``commands`` (relative paths from ``base_dir``). Raises
    :class:`ExecutorError` when a strict setting cannot be honoured."""
    try:
        sandbox = Sandbox(bot_uids, isolate_network)
        prepare(sandbox, commands, base_dir or Path.cwd())
    except SandboxError as e:
        raise ExecutorError(str(e)) from None
    return sandbox


class RemoteExecutor:
    """Every match on one running referee through its admin RPC (see module docstring).

    ``reconnect_s``: how long to wait for the referee to answer again when
    it went away during a match (0: not at all, the run stops);
    ``notify``: called with one line of text when it went away and when it is back."""

    name = "remote"

    def __init__(self, remote: RemoteReferee, concurrency: int, reconnect_s: float = 0.0,
                 notify: Callable[[str], None] | None = None):
        self.remote = remote
        self.log_dir = Path(".")
        self._sem = asyncio.Semaphore(concurrency)
        self.notify = notify or (lambda line: None)
        self._wait = RefereeWait(remote, reconnect_s, self.notify)

    async def start(self, spec: TournamentSpec, log_dir: Path) -> None:
        self.log_dir = log_dir
        # after a restart of the referee, its matches wait for these bots to connect again
        external = [b for b in spec.bots if b.external]
        self._wait.externals = ([b.token for b in external if not b.by_name], [b.name for b in external if b.by_name])

    def record_waits(self, record: Callable[[tuple[float, float] | None], Awaitable[None]]) -> None:
        """Report each wait for the referee to ``record`` as it starts and ends
        (``RefereeWait``'s hook: the run keeps it in its database)."""
        self._wait.record = record

    async def play(self, job: MatchJob) -> FinishedMatch:
        async with self._sem:
            seats = [_remote_seat(s) for s in job.seats]
            while True:
                try:
                    out = await self.remote.play(job.spec, seats, self.log_dir, job.limits, job.connect_timeout_s,
                                                 base_dir=Path(job.base_dir), own_id=True)
                    break
                except RefereeGone as e:  # nothing of the match counts: play it again once the referee is back
                    await self._wait.back(e, time.monotonic())
                except RemoteError as e:
                    # the referee names seats by number: say whose they are
                    who = ", ".join(f"seat {i}: {s.name}" + (f" (external: its {'token' if s.token else 'name'})"
                                                             if s.external else "")
                                    for i, s in enumerate(job.seats))
                    raise RemoteError(f"{e} (match {job.index}; {who})") from None
            fetched = Path(out.log_path) if out.log_fetched and out.log_path else None  # in log_dir already
            return FinishedMatch(job.index, out.status, out.to_json(), out.decisions, out.elapsed_s,
                                 reason=str(out.result.get("reason", "")), log_file=fetched,
                                 remote_log=None if fetched else out.log_path, worker="remote")

    async def stop(self) -> None:
        return None



def _remote_seat(s: SeatEntry) -> RemoteSeat:
    """Seat ``s`` on a remote referee: an external bot by its token, or
    without one by the name it is registered under there; any other bot by
    its command, launched on this machine."""
    if not s.external:
        return RemoteSeat(command=s.command)
    return RemoteSeat(token=s.token) if s.token else RemoteSeat(name=s.name)


async def check_external_tokens(remote: RemoteReferee, spec: TournamentSpec,
                                before_run: bool = True) -> bool:
    """Before a tournament's first match on ``remote``: ask that referee once
    (``AdminService.CheckTokens``) whether it can seat every ``external``
    bot of ``spec``: by its token, or (:attr:`~tournaments.spec.BotEntry.by_name`)
    by its name, the rule of ``RunMatchRequest.seat_names`` (exactly one
    bot registered there under that name). Returns True when it can (or
    there is no external bot: nothing is asked), False when the referee
    could not check (an older one, without the call, or without its names
    when a bot is seated by name). Raises :class:`~referee.remote.RemoteError`
    naming every external bot it cannot seat, with the file and line where
    each is defined, why (its token is unknown; no bot, or several, of its
    name) and what to do (``before_run``: also that no match was started),
    and when it refuses the call or cannot be reached."""
    external = [b for b in spec.bots if b.external]
    if not external:
        return True
    by_token = [b for b in external if not b.by_name]
    by_name = [b for b in external if b.by_name]
    checked = await remote.check_seats([b.token for b in by_token], [b.name for b in by_name])
    if checked is None:
        return False
    why = {by_token[i].name: "its token is not registered there" for i in checked.unknown_tokens}
    why.update({by_name[i].name: "no bot is registered there under this name" for i in checked.unknown_names})
    why.update({by_name[i].name: "several bots are registered there under this name"
                for i in checked.ambiguous_names})
    if why:
        n = len(why)
        lines = "".join(f"\n  {b.where}: {b.name}: {why[b.name]}" for b in external if b.name in why)
        started = "; no match was started" if before_run else ""
        raise RemoteError(f"the referee at {remote.addr} cannot seat {n} external {plural(n, 'bot')}{started}:"
                          f"{lines}\n"
                          "register each bot with that referee under its name (a NAME=TOKEN line in the file of "
                          "`referee serve --token-file FILE`, reread when it changes), or correct its token or name "
                          "in the tournament file, then run again")
    return checked.names_checked or not by_name


def unchecked_note(addr: str, spec: TournamentSpec, running: bool = False) -> str:
    """The note for a tournament whose external bots the referee at ``addr``
    could not check (:func:`check_external_tokens` returned False);
    ``running``: with what that means for the run."""
    names = any(b.by_name for b in spec.bots)
    what = "tokens and bot names (an older version)" if names else \
        "tokens (no AdminService.CheckTokens: an older version)"
    then = f"; an unknown token{' or name' if names else ''} stops the run at its bot's first match" if running else ""
    return f"the referee at {addr} cannot check {what}{then}"


# --------------------------------------------------------------------------- Dask workers
class WorkerRuntime:
    """Per Dask worker process: a scratch directory for logs and bot output,
    one event loop in its own thread, and per sandbox setting (``[sandbox]``
    ``bot_uids``, ``isolate_network``) one referee on 127.0.0.1 (each bot it
    launches on a Unix socket of its own); the persistent bots of the
    tournaments it has played. Created on first use; everything is stopped
    when the worker process exits."""

    _instance: "WorkerRuntime | None" = None
    _guard = threading.Lock()

    @classmethod
    def get(cls) -> "WorkerRuntime":
        with cls._guard:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="referee-worker-"))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="referee-worker", daemon=True)
        self.thread.start()
        self.sites: dict[tuple[str, bool], tuple[Referee, Sandbox]] = {}
        self._sites_guard = threading.Lock()
        self.persistent: dict[Any, PersistentBot] = {}
        atexit.register(self.shutdown)

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def site(self, job: MatchJob) -> tuple[Referee, Sandbox]:
        """The referee and sandbox for ``job``'s sandbox setting, started on
        first use. Raises :class:`referee.sandbox.SandboxError` when this
        worker cannot honour the setting (e.g. bot uids without root)."""
        key = (job.bot_uids, job.isolate_network)
        with self._sites_guard:
            if key not in self.sites:
                sandbox = Sandbox(job.bot_uids, job.isolate_network)
                ref = Referee(self.dir)
                self.run(ref.start("127.0.0.1", 0))
                self.sites[key] = (ref, sandbox)
            ref, sandbox = self.sites[key]
            # every job's commands checked (relative to the worker's directory): a bot a bot uid cannot
            # run is refused (SandboxError), never run under the worker's own uid unless asked
            prepare(sandbox, [s.command for s in job.seats if not s.external])
        return ref, sandbox

    def stop_persistent(self, tournament: str, names: list[str] | None = None) -> dict[str, int]:
        launches = {}
        for k in [k for k in self.persistent if k[0] == tournament and (names is None or k[1] in names)]:
            p = self.persistent.pop(k)
            p.stop()
            launches[k[1]] = p.launches
        return launches

    def shutdown(self) -> None:
        for p in self.persistent.values():
            p.stop()
        self.persistent.clear()
        for ref, sandbox in self.sites.values():
            try:
                self.run(ref.stop(0.2))
            except Exception:  # the loop may already be gone at interpreter exit
                pass
            sandbox.close()
        self.sites.clear()
        self.loop.call_soon_threadsafe(self.loop.stop)
        shutil.rmtree(self.dir, ignore_errors=True)


def _tail(path: Path, n: int) -> bytes:
    with path.open("rb") as f:
        size = path.stat().st_size
        if size > n:
            f.seek(size - n)
        return f.read()


def remote_play(job: MatchJob) -> FinishedMatch:
    """The Dask task: play ``job`` on this worker and return it with its
    compressed log and the ends of its bots' stderr (scratch files removed)."""
    rt = WorkerRuntime.get()
    ref, sandbox = rt.site(job)
    d = rt.dir / job.tournament
    d.mkdir(parents=True, exist_ok=True)
    mid = job.spec.match_id
    log_path = d / f"{mid}.jsonl"
    try:
        outcome = rt.run(_play(ref, job, d, log_path, sandbox, None, rt.persistent, key=job.tournament))
        log = zlib.compress(log_path.read_bytes()) if log_path.exists() else None
        files = {p.name: zlib.compress(_tail(p, STDERR_TAIL_BYTES)) for p in d.glob(f"{mid}.seat*")
                 if p.is_file()}
    finally:
        for p in d.glob(f"{mid}.*"):
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
    return _finished(job, outcome, log=log, files=files, worker=_worker_name())


def _worker_name() -> str:
    try:  # dask.distributed is an optional extra ([dask]): imported only where a Dask run needs it
        from distributed import get_worker

        w = get_worker()
        return str(w.name if w.name is not None else w.address)
    except (ImportError, ValueError):
        return socket.gethostname()


def stop_persistent(tournament: str, names: list[str] | None = None) -> dict[str, int]:
    """Run on every worker at the end of a tournament: stop its persistent
    bots (only those in ``names``, if given: a ladder's version that plays no
    more); returns bot name -> how many times it was launched on this worker."""
    rt = WorkerRuntime._instance
    return rt.stop_persistent(tournament, names) if rt is not None else {}


class DaskExecutor:
    """Matches as dask.distributed tasks (see module docstring). ``scheduler``:
    address such as ``tcp://10.0.0.5:8786``."""

    name = "dask"

    def __init__(self, scheduler: str, wait_for_workers_s: float = 60.0, max_in_flight: int = 1024):
        self.scheduler = scheduler
        self.wait_for_workers_s = wait_for_workers_s
        self.client: Any = None
        self.tournament = ""
        self._sem = asyncio.Semaphore(max_in_flight)
        #: after stop(): worker -> persistent bot -> launches on that worker
        self.persistent_launches: dict[str, dict[str, int]] = {}

    async def start(self, spec: TournamentSpec, log_dir: Path) -> None:
        try:  # dask.distributed is an optional extra ([dask])
            from distributed import Client
        except ModuleNotFoundError:
            raise ExecutorError("the Dask executor needs dask.distributed, the dask extra: pip install -e '.[dask]' "
                                "in a checkout, pip install \"<the .whl file>[dask]\" with the wheel") from None
        self.tournament = spec.name
        if not self.scheduler:
            raise ExecutorError("the Dask executor needs a scheduler address: --scheduler tcp://HOST:8786 "
                                "or scheduler = \"...\" in [execution]")
        try:
            self.client = await Client(self.scheduler, asynchronous=True, timeout=20, set_as_default=False)
        except ValueError as e:  # a malformed address (the CLI and the file check the usual forms)
            raise ExecutorError(f"{self.scheduler!r} is not a Dask scheduler address ({e}); "
                                "give one like tcp://HOST:8786") from None
        except (OSError, TimeoutError, asyncio.TimeoutError) as e:
            raise ExecutorError(f"cannot reach the Dask scheduler at {self.scheduler} ({e}); start it with "
                                "`dask scheduler` (see docs/tournaments.md)") from None
        try:
            await self.client.wait_for_workers(1, timeout=self.wait_for_workers_s)
        except (TimeoutError, asyncio.TimeoutError):
            await self.client.close()
            raise ExecutorError(f"no Dask worker joined the scheduler at {self.scheduler} within "
                                f"{self.wait_for_workers_s:.0f} s; start some with `dask worker {self.scheduler}`"
                                ) from None

    async def play(self, job: MatchJob) -> FinishedMatch:
        from distributed import KilledWorker  # the optional [dask] extra, there when start() succeeded

        async with self._sem:
            fut = self.client.submit(remote_play, job, key=f"match-{job.spec.match_id}-{uuid.uuid4().hex[:8]}",
                                     pure=False, resources={r: 1 for r in job.resources} or None)
            try:
                return await fut
            except KilledWorker as e:
                raise ExecutorError(f"match {job.index} ({job.spec.match_id}) was lost with its Dask worker "
                                    f"too many times ({e}); check the workers' logs, then continue with --resume"
                                    ) from None
            except (asyncio.CancelledError, ExecutorError):
                raise
            except Exception as e:  # raised on the worker (its disk, its environment)
                raise ExecutorError(f"match {job.index} ({job.spec.match_id}) failed on a Dask worker: "
                                    f"{type(e).__name__}: {e}; fix the worker, then continue with --resume"
                                    ) from None
            finally:
                fut.release()

    async def stop_bots(self, names: list[str] | None) -> dict[str, dict[str, int]]:
        """Stop the persistent bots ``names`` of this tournament on every worker
        (the others keep running; ``None``: all of them); returns worker ->
        bot -> launches there."""
        if self.client is None or names == []:
            return {}
        try:
            return await self.client.run(stop_persistent, self.tournament, None if names is None else list(names))
        except Exception:  # a worker gone: its bots died with it (parent-death signal)
            return {}

    async def stop(self) -> None:
        if self.client is None:
            return
        try:
            self.persistent_launches = await self.client.run(stop_persistent, self.tournament)
        except Exception:  # workers gone: their bots died with them (parent-death signal)
            pass
        await self.client.close()
        self.client = None


def make_executor(spec: TournamentSpec, remote: RemoteReferee | None = None,
                  sandbox: Sandbox | None = None, reconnect_s: float = 0.0,
                  notify: Callable[[str], None] | None = None) -> Executor:
    """The executor the spec asks for (``executor``, ``scheduler``,
    ``concurrency``), or a :class:`RemoteExecutor` on ``remote`` (with its
    ``reconnect_s`` and ``notify``); ``sandbox`` is the local executor's
    (see :class:`LocalExecutor`)."""
    if remote is not None:
        return RemoteExecutor(remote, spec.concurrency, reconnect_s, notify)
    if spec.executor == "dask":
        return DaskExecutor(spec.scheduler)
    return LocalExecutor(spec.concurrency, sandbox)
