"""From a stored match result to what the ratings learn: one outcome per match.

Every game is rated by its **match objective**, the final standing the
engine reports (``result["ranks"]``: 1 = best, equal = tied, forfeited seats
already moved below every other seat), never by intermediate roles:

* partnership games (Tractor, Back Alley): two teams, seats {0, 2} and
  {1, 3}, placed by their seats' final rank (a drawn match is a draw);
* every other game (Smear, President, Dou Dizhu): every seat on its own,
  placed by its final rank. For Dou Dizhu that is the final money: a match
  is won by ending with the most money, whichever roles the deals and the
  auctions handed out, so being landlord often (or never) cannot move a
  bot's rating except through the money it won or lost.

A match whose rounds were all redealt ends with every seat on 0 money:
an all-way draw. It is rated as that draw (the batch fit credits each pair
half a win each way); live TrueSkill skips it, since an all-way draw carries
no order to learn from and TrueSkill with ``draw_probability = 0`` would
treat it as impossible. Aborted matches (an engine error) have no result and
are not rated.

The teams are those the game declares (:meth:`referee.engine.Game.teams`);
engines only have to report final scores and ranks per seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.games import game_class


@dataclass(frozen=True)
class Outcome:
    """One rated match: ``teams`` as lists of seat indices, ``places`` the
    0-based place of each team (0 = best, equal places tie)."""

    teams: tuple[tuple[int, ...], ...]
    places: tuple[int, ...]

    @property
    def all_tied(self) -> bool:
        return len(set(self.places)) <= 1


def teams_of(game: str, players: int) -> tuple[tuple[int, ...], ...]:
    """The rating teams of ``game`` with ``players`` seats (seat indices): the
    partnerships the game declares (``Game.teams``), else one team per seat."""
    teams = game_class(game).teams(players)
    return tuple(tuple(t) for t in teams) if teams else tuple((s,) for s in range(players))


def match_outcome(game: str, result: dict[str, Any], players: int) -> Outcome | None:
    """The outcome of one stored match result (``MatchOutcome.to_json()``),
    or ``None`` when the match has no ranks (aborted)."""
    ranks = result.get("ranks")
    if not ranks or len(ranks) != players:
        return None
    teams = teams_of(game, players)
    best = [min(int(ranks[s]) for s in t) for t in teams]
    order = sorted(set(best))
    return Outcome(teams, tuple(order.index(b) for b in best))


def pairwise(outcome: Outcome) -> list[tuple[int, int, float]]:
    """``(seat a, seat b, score of a)`` for every pair of seats on different
    teams, a before b in seat order: 1 = a finished ahead, 0.5 = tied, 0 = behind."""
    out: list[tuple[int, int, float]] = []
    for ti, ta in enumerate(outcome.teams):
        for tj in range(ti + 1, len(outcome.teams)):
            pa, pb = outcome.places[ti], outcome.places[tj]
            s = 1.0 if pa < pb else 0.5 if pa == pb else 0.0
            for a in ta:
                for b in outcome.teams[tj]:
                    out.append((a, b, s) if a < b else (b, a, 1.0 - s))
    return out
