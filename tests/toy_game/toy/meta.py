"""High Card as the tournaments, the pages and ``referee match`` name and summarise it."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from referee.games.metakit import GameMeta, RoleEvent, ints, seat_text


def role_events(summary: dict[str, Any], players: int) -> list[RoleEvent]:
    """The leader of every round: won = it won the round."""
    return [RoleEvent(r["leader"], "leader", r["winner"] == r["leader"], None) for r in summary.get("rounds", [])]


def round_lines(events: Iterable[dict[str, Any]], names: list[str]) -> Iterator[str]:
    for ev in events:
        if "round_end" in ev:
            r = ev["round_end"]
            yield (f"round {r.get('round', 0)}: {seat_text(names, int(r.get('winner', 0)))} wins; "
                   f"scores [{ints(r.get('scores', []))}]")


META = GameMeta(label="High Card", short_label="High Card", role_note="the leader: how often it won its round",
                role_events=role_events, round_lines=round_lines)
