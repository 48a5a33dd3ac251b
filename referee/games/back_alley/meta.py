"""Back Alley as the tournaments, the pages and ``referee match`` name and
summarise it (see :mod:`referee.games.metakit`)."""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from referee.games.metakit import GameMeta, RoleEvent, RoleFigure, ints
from referee.words import plural


def role_events(summary: dict[str, Any], players: int) -> list[RoleEvent]:
    """Bidders and passers of every round: value = the points their team
    scored in the round; won is not told."""
    out: list[RoleEvent] = []
    for r in summary.get("rounds", []):
        bids, points = r.get("bids") or [], r.get("points") or [0, 0]
        for s, bid in enumerate(bids):
            out.append(RoleEvent(s, "passer" if bid == "pass" else "bidder", None, float(points[s % 2])))
    return out


def round_lines(events: Iterable[dict[str, Any]], names: list[str]) -> Iterator[str]:
    """Each seat's bid, the teams' contracts, tricks taken, points, totals."""
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
            size = int(r.get("hand_size", 0))
            head = f"round {r.get('round_index', '?')} ({size} {plural(size, 'card')}): bids {shown}"
            if r.get("passed_out"):
                yield f"{head} -> passed out; totals [{ints(r.get('totals', []))}]"
                continue
            contracts = ", ".join(f"team {int(c.get('team', 0))} {int(c.get('tricks', 0))}"
                                  for c in r.get("contracts", []))
            yield (f"{head}; contracts {contracts}; tricks [{ints(r.get('team_tricks', []))}]; "
                   f"points [{ints(r.get('points', []))}]; totals [{ints(r.get('totals', []))}]")


def rounds_params(rounds: int, params: dict[str, Any]) -> dict[str, Any]:
    """A match of ``rounds`` rounds: it ends at ``first_round + rounds - 1`` (rounds are numbered by hand size)."""
    return {"last_round": int(params.get("first_round", 1)) + rounds - 1}


META = GameMeta(
    label="Back Alley",
    short_label="Back Alley",
    role_note="bidders and passers: the mean points of their team per round",
    role_events=role_events,
    round_lines=round_lines,
    value=RoleFigure("mean_team_points", "mean team points", "mean points of the role's team per round"),
    rounds_params=rounds_params,
)
