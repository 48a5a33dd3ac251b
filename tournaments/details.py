"""The tables organisers read beside the leaderboard (``referee leaderboard --details``).

* ``head_to_head``: every pair of bots. As opponents: matches together and
  how often each finished ahead of the other (team games: whose team
  placed higher), ties apart. Team games also give, per pair, their record
  as partners.
* ``seats``: per bot and seat: matches, wins (first place, shared firsts
  count), mean final score.
* ``roles``: per bot and role, from each match's per-round summary: Dou
  Dizhu landlord / peasant (rounds, rounds won, mean money per round;
  redeals left out), Tractor declarer / defender (rounds, rounds in which
  the bot's team went up levels), Smear bidder (rounds won in the auction,
  bids made, mean bid), Back Alley bidder / passer (rounds the bot bid or
  passed, mean points its team scored in them), President first / last
  (rounds finished first and last).
* ``duplicate`` (duplicate schedules only): per pair of bots, deal by deal
  (one seed = the same cards at every table and in every seat order of a
  repetition), the difference of their mean final scores on that deal, so the cards cancel
  out; how many deals each did better on, the mean difference and its 95%
  interval (normal approximation over deals).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from tournaments.outcomes import match_outcome, teams_of
from tournaments.store import MatchRow


def details(rows: list[MatchRow], bots: list[str], game: str, players: int, schedule: str) -> dict[str, Any]:
    """Every table above as JSON-able lists (complete matches only)."""
    done = [r for r in rows if r.status == "complete" and r.result.get("ranks")]
    out: dict[str, Any] = {"head_to_head": head_to_head(done, bots, game, players),
                           "seats": seat_stats(done, bots, players), "roles": role_stats(done, bots, game)}
    if schedule == "duplicate":
        out["duplicate"] = duplicate_pairs(done, bots)
    return out


def head_to_head(rows: list[MatchRow], bots: list[str], game: str, players: int) -> list[dict[str, Any]]:
    order = {b: i for i, b in enumerate(bots)}
    team_game = any(len(t) > 1 for t in teams_of(game, players))
    stats: dict[tuple[str, str], dict[str, int]] = {}
    for a in bots:
        for b in bots[order[a] + 1:]:
            stats[(a, b)] = {"matches": 0, "a_ahead": 0, "b_ahead": 0, "tied": 0,
                             "partners": 0, "partners_won": 0, "partners_lost": 0, "partners_drawn": 0}
    for row in rows:
        oc = match_outcome(game, row.result, players)
        if oc is None:
            continue
        place = {row.seats[s]: oc.places[ti] for ti, t in enumerate(oc.teams) for s in t}
        team = {row.seats[s]: ti for ti, t in enumerate(oc.teams) for s in t}
        names = sorted(set(row.seats), key=order.__getitem__)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                st = stats[(a, b)]
                if team[a] == team[b]:
                    st["partners"] += 1
                    if oc.all_tied:
                        st["partners_drawn"] += 1
                    elif place[a] == 0:
                        st["partners_won"] += 1
                    else:
                        st["partners_lost"] += 1
                    continue
                st["matches"] += 1
                key = "a_ahead" if place[a] < place[b] else "b_ahead" if place[b] < place[a] else "tied"
                st[key] += 1
    out = []
    for (a, b), st in stats.items():
        d: dict[str, Any] = {"a": a, "b": b, "matches": st["matches"], "a_ahead": st["a_ahead"],
                             "b_ahead": st["b_ahead"], "tied": st["tied"]}
        if team_game:
            d["partners"] = {"matches": st["partners"], "won": st["partners_won"],
                             "lost": st["partners_lost"], "drawn": st["partners_drawn"]}
        out.append(d)
    return out


def seat_stats(rows: list[MatchRow], bots: list[str], players: int) -> list[dict[str, Any]]:
    acc: dict[tuple[str, int], list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for row in rows:
        for s, b in enumerate(row.seats):
            a = acc[(b, s)]
            a[0] += 1
            a[1] += row.result["ranks"][s] == 1
            a[2] += float(row.result["scores"][s])
    return [{"bot": b, "seat": s, "matches": int(acc[(b, s)][0]), "wins": int(acc[(b, s)][1]),
             "mean_score": round(acc[(b, s)][2] / acc[(b, s)][0], 4)}
            for b in bots for s in range(players) if (b, s) in acc]


def _role_events(row: MatchRow, game: str) -> list[tuple[int, str, bool | None, float | None]]:
    """``(seat, role, won, value)`` per seat and round of one match; value is
    the round's money (Dou Dizhu), bid (Smear) or team points (Back Alley)."""
    summ = row.result.get("summary") or {}
    n = len(row.seats)
    ev: list[tuple[int, str, bool | None, float | None]] = []
    if game == "doudizhu":
        for r in summ.get("rounds", []):
            if r.get("redeal") or r.get("landlord") is None or r["landlord"] < 0:
                continue
            ll, lw, deltas = r["landlord"], bool(r["landlord_won"]), r.get("deltas") or [0] * n
            for s in range(n):
                ev.append((s, "landlord" if s == ll else "peasant", lw if s == ll else not lw, float(deltas[s])))
    elif game == "tractor":
        for r in summ.get("rounds", []):
            d = r.get("declarer_team")
            if d is None:
                continue
            for s in range(n):
                ev.append((s, "declarer" if s % 2 == d else "defender", r.get("team_up") == s % 2, None))
    elif game == "smear":
        for r in summ.get("history", []):
            if r.get("passed_out") or r.get("bidder") is None:
                continue
            ev.append((r["bidder"], "bidder", bool(r.get("made")), float(r.get("bid", 0))))
    elif game == "back_alley":
        for r in summ.get("rounds", []):
            bids, points = r.get("bids") or [], r.get("points") or [0, 0]
            for s, bid in enumerate(bids):
                ev.append((s, "passer" if bid == "pass" else "bidder", None, float(points[s % 2])))
    elif game == "president":
        for order in summ.get("orders", []):
            if order:
                ev.append((order[0], "first", None, None))
                ev.append((order[-1], "last", None, None))
    return ev


def role_stats(rows: list[MatchRow], bots: list[str], game: str) -> list[dict[str, Any]]:
    acc: dict[tuple[str, str], dict[str, float]] = {}
    for row in rows:
        for s, role, won, value in _role_events(row, game):
            a = acc.setdefault((row.seats[s], role), {"rounds": 0, "won": 0, "value": 0.0, "has_won": 0,
                                                       "has_value": 0})
            a["rounds"] += 1
            if won is not None:
                a["has_won"] = 1
                a["won"] += won
            if value is not None:
                a["has_value"] = 1
                a["value"] += value
    value_name = {"doudizhu": "mean_money", "smear": "mean_bid", "back_alley": "mean_team_points"}.get(game)
    won_name = {"smear": "made"}.get(game, "won")
    out = []
    for (b, role), a in sorted(acc.items(), key=lambda kv: (bots.index(kv[0][0]), kv[0][1])):
        d: dict[str, Any] = {"bot": b, "role": role, "rounds": int(a["rounds"])}
        if a["has_won"]:
            d[won_name] = int(a["won"])
        if a["has_value"] and value_name:
            d[value_name] = round(a["value"] / a["rounds"], 4)
        out.append(d)
    return out


def duplicate_pairs(rows: list[MatchRow], bots: list[str]) -> list[dict[str, Any]]:
    by_deal: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        for s, b in enumerate(row.seats):
            by_deal[row.seed][b].append(float(row.result["scores"][s]))
    out = []
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            diffs = [sum(d[a]) / len(d[a]) - sum(d[b]) / len(d[b]) for d in by_deal.values() if a in d and b in d]
            n = len(diffs)
            mean = sum(diffs) / n if n else 0.0
            sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (n - 1)) if n > 1 else 0.0
            half = 1.96 * sd / math.sqrt(n) if n > 1 else float("nan")
            out.append({"a": a, "b": b, "deals": n, "a_better": sum(x > 0 for x in diffs),
                        "b_better": sum(x < 0 for x in diffs), "equal": sum(x == 0 for x in diffs),
                        "mean_diff": round(mean, 4),
                        "low": None if math.isnan(half) else round(mean - half, 4),
                        "high": None if math.isnan(half) else round(mean + half, 4)})
    return out


def _table(title: str, headers: list[str], rows: list[list[str]], console: Console) -> None:
    t = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1), title_justify="left")
    for k, h in enumerate(headers):
        t.add_column(h, justify="left" if k < 2 and not h.startswith("seat") else "right",
                     overflow="ellipsis", max_width=16 if k < 2 else None)
    for r in rows:
        t.add_row(*r)
    console.print(t)


def render_details(d: dict[str, Any], console: Console) -> None:
    """Print the details tables (each fits 80 columns)."""
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
               [[x["bot"], x["role"], str(x["rounds"])] + [_fmt(x.get(k)) for k in keys] for x in d["roles"]],
               console)
    if "duplicate" in d:
        _table("duplicate: paired by deal (same cards, rotated seats), score of a minus b",
               ["a", "b", "deals", "a better", "b better", "equal", "mean", "95% interval"],
               [[x["a"], x["b"], str(x["deals"]), str(x["a_better"]), str(x["b_better"]), str(x["equal"]),
                 f"{x['mean_diff']:.2f}", "" if x["low"] is None else f"{x['low']:.2f}..{x['high']:.2f}"]
                for x in d["duplicate"]], console)


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    return f"{v:.2f}" if isinstance(v, float) else str(v)
