"""Cutthroat Canadian Smear as the tournaments, the pages and ``referee
match`` name and summarise it (see :mod:`referee.games.metakit`)."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from referee.games.metakit import GameMeta, RoleEvent, RoleFigure, ints, seat_text


def role_events(summary: dict[str, Any], players: int) -> list[RoleEvent]:
    """The bidder of every round that was not passed out: won = the bid was
    made, value = the bid."""
    out: list[RoleEvent] = []
    for r in summary.get("history", []):
        if r.get("passed_out") or r.get("bidder") is None:
            continue
        out.append(RoleEvent(r["bidder"], "bidder", bool(r.get("made")), float(r.get("bid", 0))))
    return out


def round_lines(events: Iterable[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """Bidder and bid, trump, made or set, points won per seat, scores."""
    for ev in events:
        if "round_end" not in ev:
            continue
        r = ev["round_end"]
        scores = ints(r.get("scores", []))
        if r.get("passed_out"):
            yield f"round {r.get('round', '?')}: everybody passed; scores [{scores}]"
            continue
        bidder = int(r.get("bidder", 0))
        points = ints(r.get("items", {}).get("points", []))
        made = "made it" if r.get("made") else "was set"
        yield (f"round {r.get('round', '?')}: {seat_text(names, bidder)} bid {int(r.get('bid', 0))}, "
               f"trump {r.get('trump', '?')}, {made}; points won [{points}]; scores [{scores}]")


META = GameMeta(
    label="Cutthroat Canadian Smear",
    short_label="Smear",
    role_note="the bidder: how often the bid was made, and the mean bid",
    role_events=role_events,
    round_lines=round_lines,
    won=RoleFigure("made", "made", "share of the bids made"),
    value=RoleFigure("mean_bid", "mean bid", "mean bid"),
)
