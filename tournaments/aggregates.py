"""What one stored match adds to a tournament's running totals.

The results store keeps, beside every match, totals that pages and the
leaderboard read instead of the matches themselves (see
:mod:`tournaments.store`): per bot and seat, per pair of bots, per bot and
fault kind, per bot and role. Each finished match adds its share in the same
transaction that stores it, and a store written by an older version is
brought up to date by replaying its matches through the same functions, so
the totals are always what the matches give.

Everything here is pure: a match's facts in, rows to add out.

* :func:`rated` — how the ratings see the match: each seat's team place
  (0 = best; from :func:`tournaments.outcomes.match_outcome`), its rating
  weight and its resampling unit (:func:`unit_key`).
* :class:`Totals` — the per-bot, per-pair, per-fault and per-role sums of a
  batch of matches, keyed by bot id.
* :func:`role_events` — each game's roles round by round, from the match
  summary the engine reports (read by the game's own ``meta.py``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Sequence

from referee.games import game_meta
from referee.games.metakit import RoleEvent
from referee.outcomes import FaultKind
from tournaments.outcomes import match_outcome


@dataclass(frozen=True)
class Rated:
    """How the ratings see one stored match: ``places`` per seat (the place
    of the seat's team, 0 = best; ``None`` for every seat of an unrated
    match), ``weight`` (0 when unrated: aborted, void, or weight 0) and
    ``unit`` (63-bit resampling unit key)."""

    places: tuple[int | None, ...]
    weight: float
    unit: int


def unit_key(seed: int, seats: Sequence[str]) -> int:
    """The resampling unit of a match: matches with the same seed and the
    same bots form one unit (a duplicate schedule's seat orders of one
    combination on the same deals), as a 63-bit integer."""
    text = f"{seed}:" + "\0".join(sorted(seats))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") & ((1 << 63) - 1)


def rated(game: str, players: int, seed: int, seats: Sequence[str], status: str, result: dict[str, Any]) -> Rated:
    """The rating facts of one match (see :class:`Rated`)."""
    unit = unit_key(seed, seats)
    oc = match_outcome(game, result, players) if status == "complete" else None
    weight = float(result.get("rating_weight", 1.0)) if oc is not None else 0.0
    if oc is None or weight <= 0:
        return Rated((None,) * len(seats), 0.0, unit)
    places: list[int | None] = [None] * len(seats)
    for team, place in zip(oc.teams, oc.places):
        for s in team:
            places[s] = place
    return Rated(tuple(places), weight, unit)


def role_events(game: str, players: int, summary: dict[str, Any] | None) -> list[RoleEvent]:
    """Each seat's role, round by round, in one match, from its stored
    summary: the game's ``role_events`` (:class:`referee.games.metakit.GameMeta`),
    ``(seat, role, won, value)`` each. :class:`referee.games.UnknownGame`
    for a game that is not implemented."""
    return game_meta(game).role_events(summary or {}, players)


def _zero(n: int) -> list[float]:
    return [0.0] * n


#: columns of each total, in order (all are sums: adding two totals adds them column by column)
SEAT_COLUMNS = ("matches", "wins", "score_sum", "forfeits", "broken_wins")
#: fault kinds of a seat whose bot was broken in the match (not merely slow or wrong once)
BROKEN_FAULTS = frozenset({FaultKind.CRASH, FaultKind.DISCONNECT, FaultKind.ABSENT, FaultKind.NO_SHOW,
                           FaultKind.NOT_READING, FaultKind.FORFEIT})
PAIR_COLUMNS = ("matches", "a_ahead", "b_ahead", "tied", "partners", "partners_won", "partners_lost",
                "partners_drawn")
ROLE_COLUMNS = ("rounds", "won", "won_known", "value_sum", "value_known")


@dataclass
class Totals:
    """Sums over a batch of matches, keyed by bot id (``a < b`` for pairs):

    * ``seat[(bot, seat)]``: complete matches, wins (first place, shared
      firsts count), final score sum, forfeits, and wins in a match whose bot
      was broken (crashed, disconnected, never came, stopped reading or was
      forfeited: a first place it shared with a partner or other seats);
    * ``pair[(a, b)]``: complete matches as opponents, a ahead, b ahead,
      tied; as partners: matches, won, lost, drawn;
    * ``fault[(bot, kind)]``: faults of every stored match;
    * ``role[(bot, role)]``: rounds, rounds won, rounds whose win is known,
      value sum, rounds whose value is known."""

    seat: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    pair: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    fault: dict[tuple[int, str], int] = field(default_factory=dict)
    role: dict[tuple[int, str], list[float]] = field(default_factory=dict)

    def add(self, game: str, players: int, bot_ids: Sequence[int], status: str, result: dict[str, Any]) -> None:
        """Add one stored match (``result`` as stored), ``bot_ids`` per seat."""
        for f in result.get("faults") or []:
            s = f.get("seat")
            if isinstance(s, int) and 0 <= s < len(bot_ids):
                key = (bot_ids[s], str(f.get("kind", "other")))
                self.fault[key] = self.fault.get(key, 0) + 1
        ranks, scores = result.get("ranks"), result.get("scores")
        if status != "complete" or not ranks or not scores:
            return
        forfeited = set(result.get("forfeited") or [])
        broken = forfeited | {f.get("seat") for f in result.get("faults") or [] if f.get("kind") in BROKEN_FAULTS}
        for s, b in enumerate(bot_ids):
            t = self.seat.setdefault((b, s), _zero(len(SEAT_COLUMNS)))
            t[0] += 1
            t[1] += ranks[s] == 1
            t[2] += float(scores[s])
            t[3] += s in forfeited
            t[4] += ranks[s] == 1 and s in broken
        for s, role, won, value in role_events(game, players, result.get("summary")):
            if not 0 <= s < len(bot_ids):
                continue
            t = self.role.setdefault((bot_ids[s], role), _zero(len(ROLE_COLUMNS)))
            t[0] += 1
            if won is not None:
                t[1] += won
                t[2] += 1
            if value is not None:
                t[3] += value
                t[4] += 1
        oc = match_outcome(game, result, players)
        if oc is None:
            return
        team, places = {}, {}
        for ti, seats in enumerate(oc.teams):
            for s in seats:
                team[s], places[s] = ti, oc.places[ti]
        all_tied = oc.all_tied
        for i in range(len(bot_ids)):
            for j in range(i + 1, len(bot_ids)):
                a, b = bot_ids[i], bot_ids[j]
                if a == b:
                    continue
                pa, pb = places[i], places[j]
                if a > b:
                    a, b, pa, pb = b, a, pb, pa
                t = self.pair.setdefault((a, b), _zero(len(PAIR_COLUMNS)))
                if team[i] == team[j]:
                    t[4] += 1
                    t[7 if all_tied else 5 if pa == 0 else 6] += 1
                else:
                    t[0] += 1
                    t[1 if pa < pb else 2 if pb < pa else 3] += 1
