"""Run matches with locally launched bot processes (used by ``referee match``
and by the tournament executor)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from referee.bots import BotProcess, Limits
from referee.runner import FaultRecord, MatchOutcome, MatchSpec
from referee.service import Referee


async def play_launched(ref: Referee, spec: MatchSpec, commands: list[str], log_dir: Path,
                        limits: Limits | None = None, connect_timeout_s: float = 15.0,
                        extra_args: list[list[str]] | None = None) -> MatchOutcome:
    """Launch one process per seat (``commands[s]``), run ``spec`` on ``ref``
    and always stop and reap every process. A process that exits with a
    non-zero status (or is killed by a signal) before the match ends gets a
    ``crash`` fault on its seat. Raises ``OSError`` only if a command cannot
    be executed at all (then no process is left running)."""
    addr = f"127.0.0.1:{ref.port}"
    tokens = [ref.new_token(name) for name in spec.seat_names]
    procs: list[BotProcess] = []
    try:
        for s, cmd in enumerate(commands):
            procs.append(BotProcess(cmd, f"{spec.match_id}.seat{s}", addr, tokens[s], log_dir, limits=limits,
                                    extra_args=(extra_args[s] if extra_args else None)).start())
        outcome = await ref.play(spec, tokens, connect_timeout_s, log_path=log_dir / f"{spec.match_id}.jsonl")
        for s, p in enumerate(procs):
            rc = p.poll()
            if rc not in (None, 0):
                outcome.faults.append(FaultRecord(s, "crash", message=f"bot exited with status {rc}: "
                                                  + p.tail_stderr(300).strip().replace("\n", " | ")))
        return outcome
    finally:
        try:
            await asyncio.gather(*(asyncio.to_thread(p.stop) for p in procs))
        except BaseException:  # cancelled (Ctrl-C): reap synchronously, then propagate
            for p in procs:
                p.stop(0.2)
            raise
        for t in tokens:
            ref.tokens.pop(t, None)
