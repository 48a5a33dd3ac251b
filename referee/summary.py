"""Readable match summaries, built from the match log."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from rich.console import Console
from rich.table import Table

from referee.runner import MatchOutcome


def _events(log_path: str | None) -> Iterator[dict[str, Any]]:
    if not log_path or not Path(log_path).exists():
        return
    for line in Path(log_path).read_text().splitlines():
        d = json.loads(line)
        if d.get("type") == "event" and d.get("to") is None:
            yield d["event"]


def round_lines(game: str, log_path: str | None, names: list[str]) -> list[str]:
    """One line per round. Dou Dizhu: bids, landlord, who went out, payments."""
    out: list[str] = []
    if game == "doudizhu":
        calls: list[str] = []
        auction: dict[str, Any] = {}
        for ev in _events(log_path):
            if "deal" in ev:
                calls, auction = [], {}
            elif "call" in ev:
                c = ev["call"]
                amt = int(c.get("amount", 0))
                calls.append(f"{c.get('seat', 0)}:{'pass' if amt == 0 else amt}")
            elif "auction_end" in ev:
                auction = ev["auction_end"]
            elif "round_end" in ev:
                r = ev["round_end"]
                rnd = r.get("round", "?")
                if auction.get("redeal"):
                    out.append(f"round {rnd}: bids {' '.join(calls)} -> everybody passed, redeal")
                    continue
                ll = int(auction.get("landlord", 0))
                who = int(r.get("winner", 0))  # protobuf JSON omits zero: seat 0
                won = "landlord wins" if r.get("landlord_won") else "peasants win"
                deltas = " ".join(f"{int(d):+d}" for d in r.get("deltas", []))
                out.append(f"round {rnd}: bids {' '.join(calls)} -> landlord seat {ll} ({names[ll]}) at "
                           f"{auction.get('bid', 0)}; seat {who} went out, {won}; x{r.get('multiplier', 1)}"
                           f"{' spring' if r.get('spring') else ''}; payments [{deltas}]")
    return out


def print_summary(outcome: MatchOutcome, console: Console | None = None) -> None:
    """Print a human summary of a finished match to stdout."""
    con = console or Console()
    if console is None and not con.is_terminal:
        con = Console(width=120)
    spec = outcome.spec
    con.print(f"[bold]{spec.game}[/bold] match {spec.match_id}: {spec.players} seats, seed {spec.seed}, "
              f"{outcome.decisions} decisions in {outcome.elapsed_s:.1f} s — {outcome.status_text}")
    for line in round_lines(spec.game, outcome.log_path, spec.seat_names):
        con.print("  " + line)
    faults = Counter((f.seat, f.kind) for f in outcome.faults)
    t = Table(title="result")
    for col in ("seat", "bot", "score", "place", "faults"):
        t.add_column(col)
    r = outcome.result
    for s in range(spec.players):
        fs = ", ".join(f"{k}×{v}" for (seat, k), v in sorted(faults.items()) if seat == s) or "-"
        t.add_row(str(s), spec.seat_names[s], f"{r.scores[s]:g}" if r else "-", str(r.ranks[s]) if r else "-", fs)
    con.print(t)
    shown: set[tuple[int, str]] = set()
    for f in outcome.faults:  # the first reason of each kind of fault, per seat
        if (f.seat, f.kind) not in shown and f.message and f.kind not in ("timeout", "forfeit"):
            shown.add((f.seat, f.kind))
            con.print(f"  seat {f.seat} {f.kind}: {f.message}", soft_wrap=True)
    if r and r.summary:
        brief = {k: v for k, v in r.summary.items() if len(json.dumps(v)) <= 120}
        if brief:
            con.print("summary: " + json.dumps(brief))
    con.file.flush()
    print(f"log: {outcome.log_path}", flush=True)  # plain print: a path must never be wrapped
