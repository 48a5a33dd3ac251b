"""Dou Dizhu as the tournaments, the pages and ``referee match`` name and
summarise it (see :mod:`referee.games.metakit`)."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from referee.games.metakit import GameMeta, RoleEvent, RoleFigure, seat_text


def role_events(summary: dict[str, Any], players: int) -> list[RoleEvent]:
    """Landlord and peasants of every round played (redeals left out): won
    = the seat's side won the round, value = the seat's money of the round."""
    out: list[RoleEvent] = []
    for r in summary.get("rounds", []):
        if r.get("redeal") or r.get("landlord") is None or r["landlord"] < 0:
            continue
        ll, lw, deltas = r["landlord"], bool(r["landlord_won"]), r.get("deltas") or [0] * players
        for s in range(players):
            out.append(RoleEvent(s, "landlord" if s == ll else "peasant", lw if s == ll else not lw,
                                 float(deltas[s])))
    return out


def round_lines(events: Iterable[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """Bids, landlord and bid, who went out, multiplier, payments."""
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
                yield f"round {rnd}: bids {' '.join(calls)} -> everybody passed: no landlord, no payments"
                continue
            ll = int(auction.get("landlord", 0))
            who = int(r.get("winner", 0))  # protobuf JSON omits zero: seat 0
            won = "landlord wins" if r.get("landlord_won") else "peasants win"
            deltas = " ".join(f"{int(d):+d}" for d in r.get("deltas", []))
            yield (f"round {rnd}: bids {' '.join(calls)} -> landlord {seat_text(names, ll)} at "
                   f"{auction.get('bid', 0)}; seat {who} went out, {won}; x{r.get('multiplier', 1)}"
                   f"{' spring' if r.get('spring') else ''}; payments [{deltas}]")


META = GameMeta(
    label="Dou Dizhu",
    short_label="Dou Dizhu",
    role_note="landlord against peasants: how often each side won its round, and its mean money per round",
    role_events=role_events,
    round_lines=round_lines,
    value=RoleFigure("mean_money", "mean money", "mean money per round (the game's score unit)"),
)
