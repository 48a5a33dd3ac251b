"""Tractor as the tournaments, the pages and ``referee match`` name and
summarise it (see :mod:`referee.games.metakit`)."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from referee.games.metakit import GameMeta, RoleEvent, seat_text


def role_events(summary: dict[str, Any], players: int) -> list[RoleEvent]:
    """Declarers (the starter's team) and defenders of every round: won =
    the seat's team went up levels; no value."""
    out: list[RoleEvent] = []
    for r in summary.get("rounds", []):
        d = r.get("declarer_team")
        if d is None:
            continue
        for s in range(players):
            out.append(RoleEvent(s, "declarer" if s % 2 == d else "defender", r.get("team_up") == s % 2, None))
    return out


def round_lines(events: Iterable[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """Declarer (the starter) and team, trump, defenders' points, level change."""
    for ev in events:
        if "round_end" not in ev:
            continue
        r = ev["round_end"]
        starter = int(r.get("starter", 0))
        trump = f"{r.get('trump_suit') or 'no suit'} at rank {r.get('trump_rank', '?')}"
        up = int(r.get("team_up", -1))
        change = (f"team {up} up {int(r.get('levels_up', 0))} level(s)" if up >= 0 else "no level change")
        levels = "/".join(r.get("levels", []))
        yield (f"round {r.get('round_number', '?')}: declarer {seat_text(names, starter)} (team {starter % 2}), "
               f"trump {trump}; defenders {int(r.get('defender_points', 0))} points; {change}; levels {levels}"
               + ("; match over" if r.get("match_over") else ""))


META = GameMeta(
    label="Tractor",
    short_label="Tractor",
    role_note="declarer's team against the defenders: how often each went up levels",
    role_events=role_events,
    round_lines=round_lines,
)
