"""Run matches with locally launched bot processes (used by ``referee match``
and by the tournament executor)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from referee.bots import BotProcess, Limits
from referee.outcomes import FaultKind
from referee.sandbox import Sandbox
from referee.runner import FaultRecord, MatchOutcome, MatchSpec
from referee.service import Referee


@dataclass
class SeatPlan:
    """Who sits in a seat: a ``command`` launched for this match only, or a
    ``token`` of a bot that connects on its own (external or persistent).
    ``process`` is the persistent process behind a token, if we launched it."""

    command: str | None = None
    token: str | None = None
    process: BotProcess | None = None
    #: this bot's own limits (a tournament's per-bot override); ``None``: the match's
    limits: Limits | None = None


#: seconds a launched bot has to exit by itself after its match ended (MatchEnded and
#: Goodbye written, stream closed) before it gets SIGTERM
DEFAULT_END_GRACE_S = 2.0


async def play_match(ref: Referee, spec: MatchSpec, seats: list[SeatPlan], log_dir: Path,
                     limits: Limits | None = None, connect_timeout_s: float = 15.0,
                     hello_names: bool = False, end_grace_s: float = DEFAULT_END_GRACE_S,
                     sandbox: Sandbox | None = None, base_dir: Path | None = None,
                     log_path: Path | None = None) -> MatchOutcome:
    """Run ``spec`` on ``ref`` with the given seats; launch per-match bots
    first and always stop and reap them afterwards (also when cancelled).
    The match log goes to ``log_path`` (default ``<log_dir>/<match_id>.jsonl``).

    Each launched bot gets its own token on an inherited descriptor
    (``REFEREE_TOKEN_FD``, :func:`referee.bots.token_channel`; never in its
    environment nor on a command line), good for one connection in this
    match, and its own address: a Unix socket only its uid can reach
    (:meth:`Referee.private_socket`), the only place its token is accepted,
    so no other client can use up what it needs to connect. When the
    match is over its bots have ``end_grace_s`` seconds to exit by themselves
    (they have been sent ``MatchEnded`` and ``Goodbye``) before SIGTERM.
    With bot uids the log directory is made 0700 (no bot reads a log); bots
    under the referee's uid get a match log without a name while it is
    written (it is named when the match ends).
    ``sandbox``: how bots are isolated (default: cgroups where possible);
    ``base_dir``: what relative paths in bot commands are relative to
    (default: the current directory).


    A bot process that exits with a non-zero status (or by a signal) during
    the match, or whose command cannot be executed at all, gets a ``crash``
    fault on its seat (naming the limit it hit, with the last lines of its
    stderr and stdout); the match goes on with the referee playing for that
    seat. Crash faults are appended to the match log, followed by a
    ``{"type": "sandbox"}`` line: the mechanisms in force and each launched
    seat's uid and limits.
    """
    sandbox = sandbox if sandbox is not None else Sandbox()
    tokens: list[str] = []
    own: dict[int, BotProcess] = {}
    failed: dict[int, str] = {}  # seat -> why its command could not be started
    log_path = log_path or log_dir / f"{spec.match_id}.jsonl"
    try:
        for s, plan in enumerate(seats):
            if plan.command is not None:
                tok = ref.new_token(spec.seat_names[s], max_connections=1, game=spec.game)
                tokens.append(tok)
                try:
                    own[s] = await launch(ref, plan.command, f"{spec.match_id}.seat{s}", tok, log_dir,
                                          plan.limits or limits, sandbox, base_dir)
                except (OSError, ValueError, RuntimeError) as e:
                    failed[s] = f"bot command could not be started: {e}"
            else:
                assert plan.token is not None, "a seat needs a command or a token"
                tokens.append(plan.token)
        gone = {tokens[s]: (lambda p=p: p.poll() is not None) for s, p in own.items()}
        gone.update({tokens[s]: (lambda p=plan.process: p.poll() is not None)
                     for s, plan in enumerate(seats) if plan.process is not None})
        gone.update({tokens[s]: (lambda: True) for s in failed})
        meters = {tokens[s]: p.cpu_seconds for s, p in own.items()}
        meters.update({tokens[s]: plan.process.cpu_seconds for s, plan in enumerate(seats)
                       if plan.process is not None})
        outcome = await ref.play(spec, tokens, connect_timeout_s, close_after=False, log_path=log_path,
                                 hello_names=hello_names,
                                 close_tokens={tokens[s] for s in own}, gone=gone, cpu_meters=meters,
                                 hide_log=not sandbox.uids and (bool(own) or any(p.process for p in seats)))
        crashes = [FaultRecord(s, FaultKind.CRASH, message=why) for s, why in failed.items()]
        for s, plan in enumerate(seats):
            proc = own.get(s) or plan.process
            rc = proc.poll() if proc is not None else None
            if rc is None and proc is not None and any(f.seat == s and f.kind == FaultKind.DISCONNECT
                                                       for f in outcome.faults):
                # its stream closed as it died: the rest of the match can take less time than
                # the kernel needs to turn the dying process into an exit status
                rc = await asyncio.to_thread(_exit_status_within, proc, CRASH_GRACE_S)
                if rc is None and proc.cgroup is not None and proc.cgroup.oom_kills() > 0:
                    # killed by the kernel for its memory: a process freeing gigabytes on a
                    # loaded machine can take longer to become an exit status
                    rc = await asyncio.to_thread(_exit_status_within, proc, OOM_GRACE_S)
                    if rc is None:
                        rc = -signal.SIGKILL  # the OOM killer's signal; the process is on its way out
            if rc not in (None, 0):
                crashes.append(FaultRecord(s, FaultKind.CRASH, message=proc.crash_message(rc)))
        outcome.faults.extend(crashes)
        if log_path.exists():
            with log_path.open("a", encoding="utf-8") as f:  # the runner closed the log before exit codes existed
                for c in crashes:
                    f.write(json.dumps({"type": "fault", **asdict(c)}, sort_keys=True, separators=(",", ":")) + "\n")
                f.write(json.dumps({"type": "sandbox", "mechanisms": sandbox.describe(), "seats": [
                    {"seat": s, "uid": p.uid, "limits": asdict(p.limits),
                     "memory": (sandbox.caps.memory_mechanism if p.cgroup is not None and p.cgroup.memory_bytes
                                else "RLIMIT_AS (address space)")} for s, p in sorted(own.items())]},
                    sort_keys=True, separators=(",", ":")) + "\n")
        if end_grace_s > 0 and own:  # a bot that read MatchEnded and Goodbye exits by itself
            await asyncio.gather(*(asyncio.to_thread(_exit_status_within, p, end_grace_s) for p in own.values()))
        return outcome
    finally:
        try:
            await asyncio.gather(*(asyncio.to_thread(p.stop) for p in own.values()))
        except BaseException:  # cancelled (Ctrl-C): reap synchronously, then propagate
            for p in own.values():
                p.stop(0.2)
            raise
        for s in list(own) + list(failed):
            await ref.withdraw(tokens[s])


async def launch(ref: Referee, command: str, label: str, token: str, log_dir: Path, limits: Limits | None,
                 sandbox: Sandbox | None, base_dir: Path | None) -> BotProcess:
    """Start one bot process for ``ref``: its uid taken first, then its own
    socket (:meth:`Referee.private_socket` for ``token``, reachable by that
    uid only) is the address it is given, and its token is handed over on an
    inherited descriptor. With bot uids the log directory is made 0700.
    Raises what :meth:`BotProcess.start` raises (nothing is left taken)."""
    sandbox = sandbox if sandbox is not None else Sandbox()
    p = BotProcess(command, label, "", token, log_dir, limits=limits, cwd_for_relative=base_dir, sandbox=sandbox)
    try:
        p.prepare()
        if sandbox.uids:
            private_log_dir(log_dir)
        p.referee_addr = await ref.private_socket(token, p.uid)
        p.start()
    except BaseException:
        p.stop()
        raise
    return p


def private_log_dir(log_dir: Path) -> None:
    """Make ``log_dir`` 0700: bots of other uids never read a match log or another bot's output."""
    try:
        os.chmod(log_dir, 0o700)
    except OSError:
        pass  # not ours to change (its owner keeps it closed, or not: docs/sandbox.md)


#: how long a disconnected bot process may take to exit before it is judged alive (not crashed)
CRASH_GRACE_S = 1.5
#: the same, for a bot its cgroup says the kernel killed for its memory
OOM_GRACE_S = 10.0


def _exit_status_within(proc: BotProcess, timeout_s: float) -> int | None:
    deadline = time.monotonic() + timeout_s
    while (rc := proc.poll()) is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return rc


async def play_launched(ref: Referee, spec: MatchSpec, commands: list[str], log_dir: Path,
                        limits: Limits | None = None, connect_timeout_s: float = 15.0,
                        hello_names: bool = False, end_grace_s: float = DEFAULT_END_GRACE_S,
                        sandbox: Sandbox | None = None, base_dir: Path | None = None) -> MatchOutcome:
    """:func:`play_match` with one freshly launched process per seat."""
    return await play_match(ref, spec, [SeatPlan(command=c) for c in commands], log_dir, limits, connect_timeout_s,
                            hello_names, end_grace_s, sandbox, base_dir)
