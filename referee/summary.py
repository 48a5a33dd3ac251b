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
    shown: set[tuple[int, str]] = set()
    for f in outcome.faults:  # the first reason of each kind of fault, per seat
        if (f.seat, f.kind) not in shown and f.message and f.kind not in _UNEXPLAINED:
            shown.add((f.seat, f.kind))
            rule = f" (rule {f.rule}: docs/rules/{spec.game}.md)" if f.rule else ""
            con.print(f"  seat {f.seat} {f.kind}: {escape(f.message)}{rule}", soft_wrap=True)
    con.file.flush()
    print(f"log: {outcome.log_path}", flush=True)  # plain print: a path must never be wrapped
