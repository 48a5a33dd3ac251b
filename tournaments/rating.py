"""TrueSkill ratings and the leaderboard.

How each game's results become rating updates (each match result carries a
list of *outcomes*, produced by the game engine, see
``referee.engine.MatchResult``):

* free-for-all games (Smear, President): one outcome per match, every seat
  its own team, ranked by the match's finishing order; equal places are
  draws;
* partnership games (Tractor, Back Alley): one outcome per match, teams
  {seat 0, seat 2} and {seat 1, seat 3}, the winning team first, a drawn
  match a draw;
* Dou Dizhu: one outcome per round that was played out (redeals are
  skipped), in round order: the landlord as a one-bot team against the
  peasants as a team, the round's winner first. A match of R rounds is thus
  R successive team updates, so a bot is credited for every hand it won as
  landlord or helped win as a peasant, not only for the match's net money;
* when the teams of an outcome differ in size (Dou Dizhu), members play
  with partial-play weight 1/team size (see :func:`partial_play_weights`);
* a forfeited seat is ranked below every other seat (its team loses).

Updates are applied in schedule (match index) order, never completion
order, so the leaderboard does not depend on timing or on concurrency.
Aborted matches (an engine error) are not rated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import trueskill

from tournaments.spec import TrueSkillParams
from tournaments.store import MatchRow


def environment(p: TrueSkillParams) -> trueskill.TrueSkill:
    """A TrueSkill environment with the tournament's parameters (pure-Python backend)."""
    return trueskill.TrueSkill(mu=p.mu, sigma=p.sigma, beta=p.beta, tau=p.tau,
                               draw_probability=p.draw_probability)


def partial_play_weights(teams: list[list[str]]) -> list[tuple[float, ...]] | None:
    """``None`` (standard TrueSkill: a team's performance is the sum of its
    members') when all teams have the same size; otherwise every member of a
    team of k bots gets partial-play weight 1/k, so teams compare by average
    skill. Without it a lone Dou Dizhu landlord would face the sum of two or
    three peasants' skills and every rating would drift down."""
    sizes = {len(t) for t in teams}
    if len(sizes) <= 1:
        return None
    return [tuple(1.0 / len(t) for _ in t) for t in teams]


def rate(rows: Iterable[MatchRow], bots: list[str], p: TrueSkillParams
         ) -> tuple[dict[str, trueskill.Rating], list[tuple[int, str, float, float]]]:
    """Ratings after every complete match, applied in index order whatever
    the order of ``rows``. Returns ``(bot -> Rating, history)`` where history
    rows are ``(match_idx, bot, mu, sigma)`` for the bots of each match."""
    env = environment(p)
    ratings = {b: env.create_rating() for b in bots}
    history: list[tuple[int, str, float, float]] = []
    for row in sorted(rows, key=lambda r: r.idx):
        if row.status != "complete":
            continue
        # a match partly decided by fallbacks while the referee stalled counts less (runner.MatchOutcome)
        w = float(row.result.get("rating_weight", 1.0))
        if w <= 0:
            continue
        for oc in row.result.get("outcomes", []):
            teams = [[row.seats[s] for s in team] for team in oc["teams"]]
            groups = [{b: ratings[b] for b in team} for team in teams]
            new = env.rate(groups, ranks=oc["ranks"], weights=partial_play_weights(teams))
            if w < 1:  # move each rating only that share of the way (variance interpolated)
                new = [{b: env.create_rating(ratings[b].mu + w * (r.mu - ratings[b].mu),
                                             (ratings[b].sigma ** 2 + w * (r.sigma ** 2 - ratings[b].sigma ** 2)) ** 0.5)
                        for b, r in g.items()} for g in new]
            for g in new:
                ratings.update(g)
        for b in dict.fromkeys(row.seats):
            history.append((row.idx, b, ratings[b].mu, ratings[b].sigma))
    return ratings, history


@dataclass
class BoardRow:
    """One leaderboard line. ``conservative`` = mu - 3 sigma (the ranking key)."""

    bot: str
    mu: float
    sigma: float
    conservative: float
    matches: int = 0
    wins: int = 0
    mean_score: float = 0.0
    timeouts: int = 0
    illegal: int = 0
    crashes: int = 0
    other_faults: int = 0
    faults: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "mu": round(self.mu, 4), "sigma": round(self.sigma, 4),
                "conservative": round(self.conservative, 4), "matches": self.matches, "wins": self.wins,
                "mean_score": round(self.mean_score, 4), "timeouts": self.timeouts, "illegal": self.illegal,
                "crashes": self.crashes, "other_faults": self.other_faults}


def leaderboard(rows: list[MatchRow], bots: list[str], p: TrueSkillParams,
                fault_counts: dict[str, dict[str, int]]) -> list[BoardRow]:
    """Leaderboard sorted by conservative rating (best first, then name)."""
    ratings, _ = rate(rows, bots, p)
    board = {b: BoardRow(b, r.mu, r.sigma, r.mu - 3 * r.sigma) for b, r in ratings.items()}
    totals: dict[str, float] = {b: 0.0 for b in bots}
    for row in rows:
        if row.status != "complete":
            continue
        for s, b in enumerate(row.seats):
            board[b].matches += 1
            if row.result["ranks"][s] == 1:
                board[b].wins += 1
            totals[b] += float(row.result["scores"][s])
    for b, br in board.items():
        br.mean_score = totals[b] / br.matches if br.matches else 0.0
        fc = fault_counts.get(b, {})
        br.faults = dict(fc)
        br.timeouts = fc.get("timeout", 0)
        br.illegal = fc.get("illegal", 0)
        br.crashes = fc.get("crash", 0) + fc.get("disconnect", 0)
        br.other_faults = sum(v for k, v in fc.items() if k not in ("timeout", "illegal", "crash", "disconnect"))
    return sorted(board.values(), key=lambda r: (-r.conservative, r.bot))
