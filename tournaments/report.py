"""Leaderboard and status output: rich table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from tournaments.rating import BoardRow, leaderboard
from tournaments.spec import TrueSkillParams
from tournaments.store import Store

FORMATS = ("table", "json", "csv")


def board_from_store(store: Store, name: str | None) -> tuple[dict[str, Any], list[BoardRow]]:
    """``(tournament row, leaderboard)`` of tournament ``name`` (latest if
    ``None``). Raises ``LookupError`` when there is no such tournament."""
    t = store.tournament(name) if name else store.latest_tournament()
    if t is None:
        known = ", ".join(x["name"] for x in store.list_tournaments()) or "none"
        raise LookupError(f"no tournament {name!r} in {store.url} (known: {known})" if name
                          else f"no tournament in {store.url}")
    spec = json.loads(t["spec_json"])
    ts = TrueSkillParams(**spec["trueskill"])
    names = [b["name"] for b in spec["bots"]]
    return t, leaderboard(store.matches(t["id"]), names, ts, store.fault_counts(t["id"]))


def render(board: list[BoardRow], fmt: str, title: str = "leaderboard", console: Console | None = None) -> str | None:
    """Render the board: ``table`` prints with rich and returns None; ``json``
    and ``csv`` return the text. ``ValueError`` for another format."""
    if fmt == "json":
        return json.dumps([{"rank": i + 1, **r.to_json()} for i, r in enumerate(board)], indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        rows = [{"rank": i + 1, **r.to_json()} for i, r in enumerate(board)]
        w = csv.DictWriter(buf, fieldnames=list(rows[0].keys()) if rows else ["rank"], lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        return buf.getvalue()
    if fmt != "table":
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    t = Table(title=title, box=box.SIMPLE_HEAD, caption="rating = mu − 3·sigma (TrueSkill); faults: t/o timeouts, ill illegal "
              "actions, crash crashes and disconnects, oth other", padding=(0, 1))
    t.add_column("#", justify="right")
    t.add_column("bot", no_wrap=True, min_width=max([len(r.bot) for r in board] + [3]))
    for col in ("rating", "mu", "sigma", "matches", "wins", "avg score", "t/o", "ill", "crash", "oth"):
        t.add_column(col, justify="right", no_wrap=True, min_width=len(col))
    for i, r in enumerate(board, 1):
        t.add_row(str(i), r.bot, f"{r.conservative:.2f}", f"{r.mu:.2f}", f"{r.sigma:.2f}", str(r.matches),
                  str(r.wins), f"{r.mean_score:.2f}", str(r.timeouts), str(r.illegal), str(r.crashes),
                  str(r.other_faults))
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=120)  # piped output: do not squeeze to 80 columns
    console.print(t)
    return None
