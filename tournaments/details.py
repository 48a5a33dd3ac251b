"""The tables organisers read beside the leaderboard (``referee leaderboard
--details``, the leaderboard page), all from the totals the results store
keeps (:mod:`tournaments.aggregates`), never from every match:

* ``seat_summary``: per seat, over every bot: matches, mean final score,
  win rate (first place, shared firsts count): a position effect at a glance;
* ``role_summary``: per role, over every bot: rounds, how often the role
  won, its mean value per round (each game says what its roles are, what
  "won" and the value mean and how they are named: its ``meta.py``, see
  :class:`referee.games.metakit.GameMeta`; e.g. Dou Dizhu's landlord and
  peasants with their mean money per round);
* ``head_to_head``: pairs of bots (among the ``top`` bots of the board when
  given): as opponents, matches together and how often each finished ahead
  of the other (team games: whose team placed higher), ties apart; team
  games also give, per pair, their record as partners;
* ``seats``: per bot and seat: matches, wins, mean final score;
* ``roles``: per bot and role, as ``role_summary``;
* ``duplicate`` (duplicate schedules only, read from the matches on
  request): per pair of bots, table by table: on each deal (one seed = the
  same cards at every table and in every seat order of a repetition) and
  group of bots holding both, the difference of their mean final scores
  over that group's seat orders, so the cards and the seats cancel out; how
  many such tables each did better on, the mean difference and its 95%
  interval (normal approximation over tables).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any, Iterable

from rich import box
from rich.console import Console
from rich.table import Table

from referee.games import game_meta
from referee.words import plural
from tournaments.aggregates import PAIR_COLUMNS, ROLE_COLUMNS, SEAT_COLUMNS, Totals
from tournaments.outcomes import teams_of
from tournaments.schema import MatchRow
from tournaments.store import Store


def details(rows: list[MatchRow], bots: list[str], game: str, players: int, schedule: str,
            top: list[str] | None = None) -> dict[str, Any]:
    """Every table above for matches in memory (complete matches only)."""
    at = {b: i for i, b in enumerate(bots)}
    t = Totals()
    for r in rows:
        t.add(game, players, [at[b] for b in r.seats], r.status, r.result)
    seat = [{"bot_id": b, "seat": s, **dict(zip(SEAT_COLUMNS, v))} for (b, s), v in t.seat.items()]
    role = [{"bot_id": b, "role": ro, **dict(zip(ROLE_COLUMNS, v))} for (b, ro), v in t.role.items()]
    pair = [{"bot_a": a, "bot_b": b, **dict(zip(PAIR_COLUMNS, v))} for (a, b), v in t.pair.items()]
    out = tables(dict(enumerate(bots)), game, players, seat, role, pair, top)
    if schedule == "duplicate":
        out["duplicate"] = duplicate_pairs(rows, top or bots)
    return out


def store_details(store: Store, t: dict[str, Any], spec: dict[str, Any], top: list[str] | None = None
                  ) -> dict[str, Any]:
    """Every table above for a stored tournament (row ``t``), from its totals;
    ``top``: the bots whose pairs to show (default: all). The duplicate table
    streams the matches: O(matches) time, O(tables × seats) memory."""
    tid = int(t["id"])
    table = store.bot_table(tid)
    name = {b["id"]: b["name"] for b in table}
    wanted = None if top is None else [b["id"] for b in table if b["name"] in set(top)]
    out = tables(name, spec["game"], int(spec["players"]), store.seat_totals(tid), store.role_totals(tid),
                 store.pair_totals(tid, among=wanted), top)
    if spec.get("duplicate") or spec.get("schedule") == "duplicate":
        out["duplicate"] = duplicate_pairs(store.iter_matches(tid), top or [b["name"] for b in table])
    return out


def store_summaries(store: Store, t: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """Only ``seat_summary`` and ``role_summary`` of a stored tournament. O(bots × (seats + roles))."""
    tid = int(t["id"])
    return {"seat_summary": seat_summary(store.seat_totals(tid)),
            "role_summary": role_summary(spec["game"], store.role_totals(tid))}


def tables(name: dict[int, str], game: str, players: int, seat: list[dict[str, Any]], role: list[dict[str, Any]],
           pair: list[dict[str, Any]], top: list[str] | None = None) -> dict[str, Any]:
    """The tables from total rows keyed by bot id (``name``: id -> bot name, in board order of ids)."""
    order = {i: k for k, i in enumerate(name)}
    shown = set(top) if top is not None else None
    team_game = any(len(x) > 1 for x in teams_of(game, players))
    h2h = []
    for r in sorted(pair, key=lambda r: (order[r["bot_a"]], order[r["bot_b"]])):
        a, b = name[r["bot_a"]], name[r["bot_b"]]
        if shown is not None and not (a in shown and b in shown):
            continue
        d: dict[str, Any] = {"a": a, "b": b, "matches": int(r["matches"]), "a_ahead": int(r["a_ahead"]),
                             "b_ahead": int(r["b_ahead"]), "tied": int(r["tied"])}
        if team_game:
            d["partners"] = {"matches": int(r["partners"]), "won": int(r["partners_won"]),
                             "lost": int(r["partners_lost"]), "drawn": int(r["partners_drawn"])}
        h2h.append(d)
    seats = [{"bot": name[r["bot_id"]], "seat": int(r["seat"]), "matches": int(r["matches"]),
              "wins": int(r["wins"]), "mean_score": round(r["score_sum"] / r["matches"], 4)}
             for r in sorted(seat, key=lambda r: (order[r["bot_id"]], r["seat"])) if r["matches"]]
    roles = [_role_row(game, {"bot": name[r["bot_id"]], "role": r["role"]}, r)
             for r in sorted(role, key=lambda r: (order[r["bot_id"]], r["role"]))]
    return {"seat_summary": seat_summary(seat), "role_summary": role_summary(game, role),
            "head_to_head": h2h, "seats": seats, "roles": roles}


def _role_row(game: str, head: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    meta = game_meta(game)
    d = dict(head, rounds=int(r["rounds"]))
    if r["won_known"]:
        d[meta.won.name] = int(r["won"])
    if r["value_known"] and meta.value is not None:
        d[meta.value.name] = round(r["value_sum"] / r["value_known"], 4)
    return d


def seat_summary(seat: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per seat, over every bot: ``matches``, ``mean_score``, ``win_rate`` (0..1)."""
    acc: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for r in seat:
        a = acc[int(r["seat"])]
        a[0] += r["matches"]
        a[1] += r["wins"]
        a[2] += r["score_sum"]
    return [{"seat": s, "matches": int(a[0]), "mean_score": round(a[2] / a[0], 4) if a[0] else 0.0,
             "win_rate": round(a[1] / a[0], 4) if a[0] else 0.0} for s, a in sorted(acc.items())]


def role_summary(game: str, role: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per role, over every bot: ``rounds`` and, where the game has them, the
    win rate (``<won>_rate``) and mean value (named as in ``roles``: the
    game's :attr:`~referee.games.metakit.GameMeta.won` and
    :attr:`~referee.games.metakit.GameMeta.value`)."""
    meta = game_meta(game)
    acc: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(ROLE_COLUMNS))
    for r in role:
        a = acc[r["role"]]
        for k, col in enumerate(ROLE_COLUMNS):
            a[k] += r[col]
    out = []
    for ro, a in sorted(acc.items()):
        d: dict[str, Any] = {"role": ro, "rounds": int(a[0])}
        if a[2]:
            d[meta.won.name + "_rate"] = round(a[1] / a[2], 4)
        if a[4] and meta.value is not None:
            d[meta.value.name] = round(a[3] / a[4], 4)
        out.append(d)
    return out


def duplicate_pairs(rows: Iterable[MatchRow], bots: list[str]) -> list[dict[str, Any]]:
    """The table-by-table paired comparison (see the module docstring) for
    the pairs of ``bots``: a table is one deal (seed) and one group of bots.
    O(matches + tables × k²) time, O(tables × k) memory."""
    wanted = set(bots)
    tables: dict[tuple[int, frozenset[str]], dict[str, list[float]]] = defaultdict(dict)
    for row in rows:
        if row.status != "complete" or not row.result.get("ranks"):
            continue
        table = tables[(row.seed, frozenset(row.seats))]
        for s, b in enumerate(row.seats):
            if b in wanted:
                acc = table.setdefault(b, [0.0, 0])
                acc[0] += float(row.result["scores"][s])
                acc[1] += 1
    diffs: dict[tuple[str, str], list[float]] = defaultdict(list)
    order = {b: i for i, b in enumerate(bots)}
    for table in tables.values():
        here = sorted(table, key=order.__getitem__)
        for i, a in enumerate(here):
            for b in here[i + 1:]:
                diffs[(a, b)].append(table[a][0] / table[a][1] - table[b][0] / table[b][1])
    out = []
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            d = diffs.get((a, b), [])
            n = len(d)
            mean = sum(d) / n if n else 0.0
            sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) if n > 1 else 0.0
            half = 1.96 * sd / math.sqrt(n) if n > 1 else float("nan")
            out.append({"a": a, "b": b, "tables": n, "a_better": sum(x > 0 for x in d),
                        "b_better": sum(x < 0 for x in d), "equal": sum(x == 0 for x in d),
                        "mean_diff": round(mean, 4),
                        "low": None if math.isnan(half) else round(mean - half, 4),
                        "high": None if math.isnan(half) else round(mean + half, 4)})
    return out


def _table(title: str, headers: list[str], rows: list[list[str]], console: Console) -> None:
    t = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1), title_justify="left")
    for k, h in enumerate(headers):
        # on a narrow console the names fold onto more lines: every other cell stays whole
        names = k < 2 and not h.startswith("seat")
        t.add_column(h, justify="left" if names else "right", overflow="fold", no_wrap=not names)
    for r in rows:
        t.add_row(*r)
    console.print(t)


def _signed(v: float) -> str:
    """``+1.25`` / ``-0.50`` / ``0.00`` (never ``-0.00``)."""
    v = round(v, 2) + 0.0
    return f"{v:+.2f}" if v else "0.00"


def summary_lines(d: dict[str, Any]) -> list[str]:
    """The seat and role summaries as two short lines (under the leaderboard table)."""
    lines = []
    if d.get("seat_summary"):
        lines.append("seats (mean score, win rate): " + " · ".join(
            f"{x['seat']}: {_signed(x['mean_score'])} {x['win_rate']:.0%}" for x in d["seat_summary"]))
    if d.get("role_summary"):
        parts = []
        for x in d["role_summary"]:
            extra = [f"{k.removesuffix('_rate').replace('_', ' ')} {v:.0%}" if k.endswith("_rate")
                     else f"{k.replace('_', ' ')} {_signed(v)}" for k, v in x.items() if k not in ("role", "rounds")]
            parts.append(f"{x['role'].replace('_', ' ')}: {x['rounds']} {plural(x['rounds'], 'round')}"
                         + "".join(f", {e}" for e in extra))
        lines.append("roles (per round): " + " · ".join(parts))
    return lines


def render_details(d: dict[str, Any], console: Console) -> None:
    """Print the details tables on ``console`` (as wide as it is: names fold on a narrow one)."""
    if d.get("seat_summary"):
        _table("per seat, every bot", ["seat", "matches", "mean score", "win rate"],
               [[str(x["seat"]), str(x["matches"]), f"{x['mean_score']:.2f}", f"{x['win_rate']:.0%}"]
                for x in d["seat_summary"]], console)
    if d.get("role_summary"):
        keys = list(dict.fromkeys(k for x in d["role_summary"] for k in x if k not in ("role", "rounds")))
        _table("per role, every bot (per round)", ["role", "rounds"] + [k.replace("_", " ") for k in keys],
               [[x["role"], str(x["rounds"])] + [_fmt(x.get(k), k) for k in keys] for x in d["role_summary"]],
               console)
    h2h = d["head_to_head"]
    team = any("partners" in x for x in h2h)
    heads = ["a", "b", "matches", "a ahead", "b ahead", "tied"] + (["as partners W-L-D"] if team else [])
    rows = []
    for x in h2h:
        r = [x["a"], x["b"], str(x["matches"]), str(x["a_ahead"]), str(x["b_ahead"]), str(x["tied"])]
        if team:
            p = x["partners"]
            r.append(f"{p['won']}-{p['lost']}-{p['drawn']} of {p['matches']}")
        rows.append(r)
    _table("head to head (as opponents: who finished ahead)", heads, rows, console)
    _table("per seat", ["bot", "seat", "matches", "wins", "mean score"],
           [[x["bot"], str(x["seat"]), str(x["matches"]), str(x["wins"]), f"{x['mean_score']:.2f}"]
            for x in d["seats"]], console)
    if d["roles"]:
        keys = list(dict.fromkeys(k for x in d["roles"] for k in x if k not in ("bot", "role", "rounds")))
        _table("per role (per round)", ["bot", "role", "rounds"] + [k.replace("_", " ") for k in keys],
               [[x["bot"], x["role"], str(x["rounds"])] + [_fmt(x.get(k), k) for k in keys] for x in d["roles"]],
               console)
    if "duplicate" in d:
        _table("duplicate: paired by table (same cards and bots, every seat order), score of a minus b",
               ["a", "b", "tables", "a better", "b better", "equal", "mean", "95% interval"],
               [[x["a"], x["b"], str(x["tables"]), str(x["a_better"]), str(x["b_better"]), str(x["equal"]),
                 f"{x['mean_diff']:.2f}", "" if x["low"] is None else f"{x['low']:.2f}..{x['high']:.2f}"]
                for x in d["duplicate"]], console)


def _fmt(v: Any, key: str = "") -> str:
    if v is None:
        return ""
    if key.endswith("_rate"):
        return f"{v:.0%}"
    return f"{v:.2f}" if isinstance(v, float) else str(v)
