"""Readable match summaries, built from the match log."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from rich.console import Console
from rich.table import Table

from referee.oplog import escape
from referee.runner import MatchOutcome


def _events(log_path: str | None) -> Iterator[dict[str, Any]]:
    if not log_path or not Path(log_path).exists():
        return
    for line in Path(log_path).read_text().splitlines():
        d = json.loads(line)
        if d.get("type") == "event" and d.get("to") is None:
            yield d["event"]


def _seat(names: list[str], s: int) -> str:
    return f"seat {s} ({names[s]})" if 0 <= s < len(names) else f"seat {s}"


def _doudizhu_lines(events: Iterator[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """Dou Dizhu: bids, landlord and bid, who went out, multiplier, payments."""
    calls: list[str] = []
    auction: dict[str, Any] = {}
    for ev in events:
        if "round_start" in ev:
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
                yield f"round {rnd}: bids {' '.join(calls)} -> everybody passed, redeal"
                continue
            ll = int(auction.get("landlord", 0))
            who = int(r.get("winner", 0))  # protobuf JSON omits zero: seat 0
            won = "landlord wins" if r.get("landlord_won") else "peasants win"
            deltas = " ".join(f"{int(d):+d}" for d in r.get("deltas", []))
            yield (f"round {rnd}: bids {' '.join(calls)} -> landlord {_seat(names, ll)} at "
                   f"{auction.get('bid', 0)}; seat {who} went out, {won}; x{r.get('multiplier', 1)}"
                   f"{' spring' if r.get('spring') else ''}; payments [{deltas}]")


def _tractor_lines(events: Iterator[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """Tractor: declarer (the starter) and team, trump, defenders' points, level change."""
    for ev in events:
        if "round_end" not in ev:
            continue
        r = ev["round_end"]
        starter = int(r.get("starter", 0))
        trump = f"{r.get('trump_suit') or 'no suit'} at rank {r.get('trump_rank', '?')}"
        up = int(r.get("team_up", -1))
        change = (f"team {up} up {int(r.get('levels_up', 0))} level(s)" if up >= 0 else "no level change")
        levels = "/".join(r.get("levels", []))
        yield (f"round {r.get('round_number', '?')}: declarer {_seat(names, starter)} (team {starter % 2}), "
               f"trump {trump}; defenders {int(r.get('defender_points', 0))} points; {change}; levels {levels}"
               + ("; match over" if r.get("match_over") else ""))


def _smear_lines(events: Iterator[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """Smear: bidder and bid, trump, made or set, points won per seat, scores."""
    for ev in events:
        if "round_end" not in ev:
            continue
        r = ev["round_end"]
        scores = " ".join(str(int(x)) for x in r.get("scores", []))
        if r.get("passed_out"):
            yield f"round {r.get('round', '?')}: everybody passed; scores [{scores}]"
            continue
        bidder = int(r.get("bidder", 0))
        points = " ".join(str(int(x)) for x in r.get("items", {}).get("points", []))
        made = "made it" if r.get("made") else "was set"
        yield (f"round {r.get('round', '?')}: {_seat(names, bidder)} bid {int(r.get('bid', 0))}, "
               f"trump {r.get('trump', '?')}, {made}; points won [{points}]; scores [{scores}]")


def _president_lines(events: Iterator[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """President: finishing order with the titles it gives, and totals."""
    for ev in events:
        if "round_end" not in ev:
            continue
        r = ev["round_end"]
        roles = r.get("roles", [])
        order = []
        for s in r.get("order", []):
            s = int(s)
            title = roles[s].replace("_", " ") if s < len(roles) and roles[s] else ""
            order.append(f"{names[s] if s < len(names) else s}{f' ({title})' if title else ''}")
        totals = " ".join(str(int(x)) for x in r.get("totals", []))
        yield f"round {r.get('round', '?')}: out in order {', '.join(order)}; totals [{totals}]"


def _back_alley_lines(events: Iterator[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """Back Alley: each seat's bid, the teams' contracts, tricks taken, points, totals."""
    bids: dict[int, str] = {}
    for ev in events:
        if "round_start" in ev:
            bids = {}
        elif "bid" in ev:
            b = ev["bid"]
            kind = str(b.get("kind", "")).removeprefix("BACK_ALLEY_BID_KIND_").lower()
            bids[int(b.get("seat", 0))] = str(int(b.get("tricks", 0))) if kind == "number" else kind or "?"
        elif "round_end" in ev:
            r = ev["round_end"]
            shown = " ".join(f"{s}:{bids[s]}" for s in sorted(bids))
            ints = lambda k: " ".join(str(int(x)) for x in r.get(k, []))  # noqa: E731
            head = f"round {r.get('round_index', '?')} ({int(r.get('hand_size', 0))} cards): bids {shown}"
            if r.get("passed_out"):
                yield f"{head} -> passed out; totals [{ints('totals')}]"
                continue
            contracts = ", ".join(f"team {int(c.get('team', 0))} {int(c.get('tricks', 0))}"
                                  for c in r.get("contracts", []))
            yield (f"{head}; contracts {contracts}; tricks [{ints('team_tricks')}]; "
                   f"points [{ints('points')}]; totals [{ints('totals')}]")


_ROUND_LINES = {"doudizhu": _doudizhu_lines, "tractor": _tractor_lines, "smear": _smear_lines,
                "president": _president_lines, "back_alley": _back_alley_lines}


def round_lines(game: str, log_path: str | None, names: list[str]) -> list[str]:
    """One readable line per round of a match, from its log's public events
    (every game; see each game's ``_<game>_lines``). ``names``: bot names in
    seat order. A missing log gives no lines."""
    fn = _ROUND_LINES.get(game)
    return list(fn(_events(log_path), names)) if fn else []


def print_summary(outcome: MatchOutcome, console: Console | None = None) -> None:
    """Print a human summary of a finished match to stdout."""
    con = console or Console()
    if console is None and not con.is_terminal:
        con = Console(width=120)
    spec = outcome.spec
    con.print(f"[bold]{spec.game}[/bold] match {spec.match_id}: {spec.players} seats, seed {spec.seed}, "
              f"{outcome.decisions} decisions in {outcome.elapsed_s:.1f} s — {outcome.status_text}")
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
        if (f.seat, f.kind) not in shown and f.message and f.kind not in ("timeout", "forfeit"):
            shown.add((f.seat, f.kind))
            con.print(f"  seat {f.seat} {f.kind}: {escape(f.message)}", soft_wrap=True)
    con.file.flush()
    print(f"log: {outcome.log_path}", flush=True)  # plain print: a path must never be wrapped
