"""President as the tournaments, the pages and ``referee match`` name and
summarise it (see :mod:`referee.games.metakit`)."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from referee.games.metakit import GameMeta, RoleEvent, RoleFigure, ints

from .rules import ROLE_SCORE, ROLE_TABLE


def role_events(summary: dict[str, Any], players: int) -> list[RoleEvent]:
    """The role each seat held during a round (earned in the round before,
    so the first round has none): won = it went out first, value = the role
    points it earned in the round."""
    roles = ROLE_TABLE.get(players, ())
    orders = [o for o in summary.get("orders", []) if len(o) == players == len(roles)]
    out: list[RoleEvent] = []
    for before, order in zip(orders, orders[1:]):
        for pos, s in enumerate(order):
            out.append(RoleEvent(s, roles[before.index(s)], pos == 0, float(ROLE_SCORE[roles[pos]])))
    return out


def round_lines(events: Iterable[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """Finishing order with the titles it gives, and totals."""
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
        yield f"round {r.get('round', '?')}: out in order {', '.join(order)}; totals [{ints(r.get('totals', []))}]"


META = GameMeta(
    label="President",
    short_label="President",
    role_note="the role held during a round (earned in the round before): how often it went out first, "
              "and the mean role points it earned",
    role_events=role_events,
    round_lines=round_lines,
    won=RoleFigure("went_out_first", "out first", "share of the rounds the role went out first"),
    value=RoleFigure("mean_points", "mean role points", "mean role points earned per round"),
)
