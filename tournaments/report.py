"""Leaderboard and status output: rich table, JSON or CSV (and the details tables)."""

from __future__ import annotations

import csv
import io
import json
import os
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from tournaments.details import render_details
from tournaments.figures import elo_text, interval_text, p_next_text, score_text, trueskill_text
from tournaments.rating import BoardRow, store_board
from tournaments.store import Store

FORMATS = ("table", "json", "csv")
#: the width of tables written to a pipe or a file without $COLUMNS: wide enough that no cell is ever cut
UNCROPPED_WIDTH = 10_000


def board_from_store(store: Store, name: str | None, method: str = "sandwich"
                     ) -> tuple[dict[str, Any], list[BoardRow]]:
    """``(tournament row, leaderboard)`` of tournament ``name`` (latest if
    ``None``), from the store's totals and its batch fit (see
    :func:`tournaments.rating.store_board`). Raises ``LookupError`` when there
    is no such tournament, :class:`tournaments.batch.TooLarge` when ``method``
    is too costly for it."""
    t = tournament_row(store, name)
    return t, store_board(store, t, method)


def tournament_row(store: Store, name: str | None) -> dict[str, Any]:
    """The stored tournament ``name`` (latest if ``None``); ``LookupError`` if absent."""
    t = store.tournament(name) if name else store.latest_tournament()
    if t is None:
        known = ", ".join(x["name"] for x in store.list_tournaments()) or "none"
        raise LookupError(f"no tournament {name!r} in {store.display_url} (known: {known})" if name
                          else f"no tournament in {store.display_url}")
    return t


def board_texts(r: BoardRow) -> dict[str, str]:
    """A board row's figures as every table and page shows them, each
    rounded once from the row's raw value (:mod:`tournaments.figures`):
    the :meth:`BoardRow.to_json <tournaments.rating.BoardRow.to_json>` keys
    ``elo``, ``elo_low``, ``elo_high``, ``p_better_than_next`` (absent for
    the last bot, which has no bot below), ``mu``, ``sigma``,
    ``conservative`` and ``mean_score``; and ``interval``, the table's ± half
    of the 95% interval (``-`` before any match)."""
    out = {"elo": elo_text(r.elo), "elo_low": elo_text(r.low), "elo_high": elo_text(r.high),
           "interval": interval_text(r.low, r.high) if r.matches else "-",
           "mu": trueskill_text(r.mu), "sigma": trueskill_text(r.sigma), "conservative": trueskill_text(r.conservative),
           "mean_score": score_text(r.mean_score)}
    if r.p_next is not None:
        out["p_better_than_next"] = p_next_text(r.p_next)
    return out


def table_console() -> Console:
    """Where the leaderboard and details tables are printed (stdout): a
    terminal's width; ``$COLUMNS`` when set; written to a pipe or a file
    without ``$COLUMNS``, wide enough that no cell is cut (every table is only
    as wide as its cells)."""
    con = Console()
    if con.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit():
        return con  # rich takes $COLUMNS when set
    return Console(width=UNCROPPED_WIDTH)


def _p_next(r: BoardRow) -> str:
    """P>next as :func:`p_next_text`, ``~`` appended when not separated."""
    if r.p_next is None:
        return ""
    return p_next_text(r.p_next) + ("" if r.separated else "~")


def _faults(r: BoardRow) -> str:
    return f"{r.timeouts}/{r.illegal}/{r.crashes}/{r.other_faults}"


def board_json(board: list[BoardRow]) -> list[dict[str, Any]]:
    return [{"rank": i + 1, **r.to_json()} for i, r in enumerate(board)]


def legend(confidence: float = 0.95, starred: bool = False) -> list[str]:
    """What each column of the leaderboard table means, one line each (as the
    README's column table says it); the ``*`` of wins only when ``starred``
    (some row has one)."""
    return ["elo: rating fitted over all results at once, 0 = the average bot",
            "95%: the rating ± this is its 95% interval",
            "P>next: probability of really being better than the next bot down",
            f"  ~: not separated from the next bot at {confidence:.0%}",
            "mu, σ: live TrueSkill (updated match by match)",
            "matches: matches played",
            "wins: matches finished in first place (a shared first place counts)"] \
        + (["  *: some are first places shared in matches the bot crashed in or forfeited"]
           if starred else []) \
        + ["score: mean final score, in the game's unit",
           "t/i/c/o: faults: timeouts / illegal actions / crashes and disconnects / other"]


def render(board: list[BoardRow], fmt: str, title: str = "leaderboard", console: Console | None = None,
           confidence: float = 0.95, details: dict[str, Any] | None = None) -> str | None:
    """Render the board: ``table`` prints with rich on ``console`` (default:
    :func:`table_console`; the bot column takes what the console's width leaves)
    followed by the :func:`legend`, and returns None; ``json`` and ``csv`` return the text.
    ``details`` (see :mod:`tournaments.details`) is added to the JSON as
    ``{"leaderboard": [...], "details": {...}}`` and printed after the table.
    ``ValueError`` for another format."""
    if fmt == "json":
        rows = board_json(board)
        return json.dumps(rows if details is None else {"leaderboard": rows, "details": details}, indent=2)
    if fmt == "csv":
        buf = io.StringIO()
        rows = board_json(board)
        w = csv.DictWriter(buf, fieldnames=list(rows[0].keys()) if rows else ["rank"], lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        return buf.getvalue()
    if fmt != "table":
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    headers = ("#", "bot", "elo", "95%", "P>next", "mu", "σ", "matches", "wins", "score", "t/i/c/o")
    texts = [board_texts(r) for r in board]
    cells = [[str(i), r.bot, x["elo"], x["interval"], _p_next(r), x["mu"], x["sigma"], str(r.matches),
              f"{r.wins}*" if r.broken_wins else str(r.wins), x["mean_score"], _faults(r)]
             for i, (r, x) in enumerate(zip(board, texts), 1)]
    if console is None:
        console = table_console()
    widths = [max([len(h)] + [len(c[k]) for c in cells]) for k, h in enumerate(headers)]
    # one space between columns (the box's divider): the numbers never shrink, the bot column takes what is
    # left of the console's width (names longer than that are cut with an ellipsis, never in JSON/CSV)
    widths[1] = max(3, min(widths[1], console.width - (sum(widths) - widths[1]) - (len(headers) - 1)))
    t = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, padding=0)
    for k, h in enumerate(headers):
        t.add_column(h, justify="left" if k == 1 else "right", no_wrap=True, min_width=widths[k],
                     max_width=widths[k], overflow="ellipsis")
    for c in cells:
        t.add_row(*c)
    console.print(t)
    for line in legend(confidence, any(r.broken_wins for r in board)):
        console.print(line, markup=False, highlight=False)
    if details is not None:
        render_details(details, console)
    return None
