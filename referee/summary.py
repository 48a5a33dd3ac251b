"""Readable match summaries, built from the match log: the lines of each
round come from the game (:attr:`referee.games.metakit.GameMeta.round_lines`),
the result table and the faults are printed here."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from rich.console import Console
from rich.table import Table

from referee.games import UnknownGame, game_meta
from referee.oplog import escape
from referee.outcomes import FaultKind
from referee.runner import MatchOutcome
from referee.words import plural

#: fault kinds whose message the summary does not repeat (a clock figure; a consequence of other faults)
_UNEXPLAINED = frozenset({FaultKind.TIMEOUT, FaultKind.ABSENT, FaultKind.FORFEIT})


def _events(log_path: str | None) -> Iterator[dict[str, Any]]:
    if not log_path or not Path(log_path).exists():
        return
    for line in Path(log_path).read_text().splitlines():
        d = json.loads(line)
        if d.get("type") == "event" and d.get("to") is None:
            yield d["event"]


def round_lines(game: str, log_path: str | None, names: list[str]) -> list[str]:
    """One readable line per round of a match, from its log's public events
    (each game's ``round_lines``, :class:`referee.games.metakit.GameMeta`).
    ``names``: bot names in seat order. A missing log, or a game that is not
    implemented, gives no lines."""
    try:
        lines = game_meta(game).round_lines
    except UnknownGame:
        return []
    return list(lines(_events(log_path), names))


def fault_lines(outcome: MatchOutcome) -> list[str]:
    """The summary's reasons: the first of each kind of fault, per seat
    (``  seat S KIND: MESSAGE``, the message escaped for rich), in the order
    recorded except that a crash comes before the disconnect or no-show of
    its seat (the crash, recorded once the process's exit status is known,
    is why the bot disconnected or never connected)."""
    shown: set[tuple[int, str]] = set()
    lines: list[tuple[int, str, str]] = []  # (seat, kind, line)
    for f in outcome.faults:
        if (f.seat, f.kind) in shown or not f.message or f.kind in _UNEXPLAINED:
            continue
        shown.add((f.seat, f.kind))
        rule = f" (rule {f.rule}: docs/rules/{outcome.spec.game}.md)" if f.rule else ""
        at = len(lines)
        if f.kind == FaultKind.CRASH:
            at = next((i for i, (seat, kind, _) in enumerate(lines)
                       if seat == f.seat and kind in (FaultKind.DISCONNECT, FaultKind.NO_SHOW)), at)
        lines.insert(at, (f.seat, f.kind, f"  seat {f.seat} {f.kind}: {escape(f.message)}{rule}"))
    return [line for _, _, line in lines]


def stderr_files(outcome: MatchOutcome) -> dict[int, Path]:
    """The stderr files, by seat, of the match's launched bots that wrote
    to stderr: ``<match_id>.seatS.stderr`` next to the log, when not empty
    (a bot connected on its own has none)."""
    if not outcome.log_path:
        return {}
    files = {s: Path(outcome.log_path).parent / f"{outcome.spec.match_id}.seat{s}.stderr"
             for s in range(outcome.spec.players)}
    return {s: p for s, p in files.items() if p.is_file() and p.stat().st_size > 0}


def print_summary(outcome: MatchOutcome, console: Console | None = None) -> None:
    """Print a human summary of a finished match to stdout."""
    con = console or Console()
    if console is None and not con.is_terminal:
        con = Console(width=120)
    spec = outcome.spec
    con.print(f"[bold]{spec.game}[/bold] match {spec.match_id}: {spec.players} seats, seed {spec.seed}, "
              f"{outcome.decisions} {plural(outcome.decisions, 'decision')} in {outcome.elapsed_s:.1f} s — "
              f"{outcome.status_text}")
    for line in round_lines(spec.game, outcome.log_path, spec.seat_names):
        con.print("  " + line, soft_wrap=True, markup=False, highlight=False)
    faults = Counter((f.seat, f.kind) for f in outcome.faults)
    t = Table(title="result")
    for col in ("seat", "bot", "score", "place", "faults"):
        t.add_column(col)
    r = outcome.result
    for s in range(spec.players):
        fs = ", ".join(f"{k}×{v}" for (seat, k), v in sorted(faults.items()) if seat == s) or "-"
        # a bot's name (Hello.bot_name) and a crash message (its stderr) are the bot's text:
        # shown escaped, never read as rich markup or terminal escapes
        t.add_row(str(s), escape(spec.seat_names[s]), f"{r.scores[s]:g}" if r else "-", str(r.ranks[s]) if r else "-", fs)
    con.print(t)
    lines = fault_lines(outcome)
    for line in lines:
        con.print(line, soft_wrap=True)
    con.file.flush()
    for s, path in stderr_files(outcome).items():  # what a bot said without a fault (plain print: a path)
        if not any(str(path) in line for line in lines):
            print(f"  seat {s} wrote to stderr: {path}", flush=True)
    print(f"log: {outcome.log_path}", flush=True)  # plain print: a path must never be wrapped
