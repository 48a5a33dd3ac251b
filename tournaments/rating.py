"""Ratings and the leaderboard.

Two ratings are kept, both computed from the same per-match outcomes
(:mod:`tournaments.outcomes`: every game rated by its final standing):

* **live TrueSkill** (the ``trueskill`` package, the file's parameters),
  applied match by match in schedule (index) order: what the progress
  display shows while a tournament runs, and the ``mu``/``sigma`` columns
  of the JSON and CSV;
* the **batch fit** (:mod:`tournaments.batch`: Bradley–Terry over every
  pair of opponents, fitted to all results at once, with a bootstrap over
  matches for confidence). It does not depend on the order matches were
  scheduled or finished, and it ranks the final leaderboard.

Aborted matches (an engine error) are not rated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

import trueskill

from tournaments.batch import BatchFit, Unit, batch_fit, unit_key
from tournaments.outcomes import match_outcome, pairwise
from tournaments.schedule import derive_seed
from tournaments.spec import TrueSkillParams
from tournaments.store import MatchRow

#: draw probability used for a tied outcome when the file says 0 (TrueSkill
#: would call the tie impossible and blow sigma up)
TIE_DRAW_PROBABILITY = 0.10


def environment(p: TrueSkillParams, draw_probability: float | None = None) -> trueskill.TrueSkill:
    """A TrueSkill environment with the tournament's parameters (pure-Python backend)."""
    return trueskill.TrueSkill(mu=p.mu, sigma=p.sigma, beta=p.beta, tau=p.tau,
                               draw_probability=p.draw_probability if draw_probability is None else draw_probability)


def rate(rows: Iterable[MatchRow], bots: list[str], p: TrueSkillParams, game: str, players: int
         ) -> tuple[dict[str, trueskill.Rating], list[tuple[int, str, float, float]]]:
    """Live TrueSkill after every complete match, applied in index order
    whatever the order of ``rows``: one update per match from its outcome
    (all-way draws skipped, ties drawn). Returns ``(bot -> Rating, history)``
    where history rows are ``(match_idx, bot, mu, sigma)`` for the bots of each match."""
    update = LiveRating(p, game, players)
    ratings = {b: update.env.create_rating() for b in bots}
    history: list[tuple[int, str, float, float]] = []
    for row in sorted(rows, key=lambda r: r.idx):
        if row.status != "complete":
            continue
        update(ratings, row)
        for b in dict.fromkeys(row.seats):
            history.append((row.idx, b, ratings[b].mu, ratings[b].sigma))
    return ratings, history


class LiveRating:
    """The live TrueSkill update of one match, as :func:`rate` applies it
    (also used match by match by the ladder, :mod:`tournaments.ladder`)."""

    def __init__(self, p: TrueSkillParams, game: str, players: int):
        self.env = environment(p)
        self.tie_env = self.env if p.draw_probability > 0 else environment(p, TIE_DRAW_PROBABILITY)
        self.game, self.players = game, players

    def __call__(self, ratings: dict[str, trueskill.Rating], row: MatchRow) -> None:
        """Update ``ratings`` (bot -> Rating, every bot of ``row`` present) by the complete match ``row``."""
        env = self.env
        # a match partly decided by fallbacks while the referee stalled counts less (runner.MatchOutcome)
        w = float(row.result.get("rating_weight", 1.0))
        oc = match_outcome(self.game, row.result, self.players)
        if oc is not None and not oc.all_tied and w > 0:
            teams = [[row.seats[s] for s in team] for team in oc.teams]
            groups = [{b: ratings[b] for b in team} for team in teams]
            tied = len(set(oc.places)) < len(oc.places)
            new = (self.tie_env if tied else env).rate(groups, ranks=list(oc.places))
            if w < 1:  # move each rating only that share of the way (variance interpolated)
                new = [{b: env.create_rating(ratings[b].mu + w * (r.mu - ratings[b].mu),
                                             (ratings[b].sigma ** 2 + w * (r.sigma ** 2 - ratings[b].sigma ** 2)) ** 0.5)
                        for b, r in g.items()} for g in new]
            for g in new:
                ratings.update(g)


def units(rows: Iterable[MatchRow], bots: list[str], game: str, players: int) -> list[Unit]:
    """Bootstrap units of the batch fit: complete matches grouped by seed and
    set of bots (a duplicate schedule's seat orders of one group on the same
    deals form one unit; otherwise every match has its own seed and is its
    own unit)."""
    index = {b: i for i, b in enumerate(bots)}
    groups: dict[tuple[int, frozenset[str]], list[MatchRow]] = {}
    for row in rows:
        if row.status == "complete":
            groups.setdefault((row.seed, frozenset(row.seats)), []).append(row)
    out: list[Unit] = []
    for (seed, _), group in groups.items():
        wins: list[tuple[int, int, float]] = []
        payload = []
        for row in group:
            oc = match_outcome(game, row.result, players)
            # a match partly decided by fallbacks while the referee stalled counts less (runner.MatchOutcome)
            w = float(row.result.get("rating_weight", 1.0))
            if oc is None or w <= 0:
                continue
            payload.append([row.seats, list(oc.places)] + ([w] if w < 1 else []))
            for a, b, s in pairwise(oc):
                ia, ib = index[row.seats[a]], index[row.seats[b]]
                wins.append((ia, ib, w * s))
                wins.append((ib, ia, w * (1.0 - s)))
        if payload:
            out.append(Unit(unit_key([seed, sorted(payload)]), wins))
    return out


def fit_rows(rows: list[MatchRow], bots: list[str], game: str, players: int, seed: int) -> BatchFit:
    """The batch fit of a tournament's stored matches (see :mod:`tournaments.batch`)."""
    return batch_fit(bots, units(rows, bots, game, players), derive_seed(seed, "bootstrap"))


@dataclass
class BoardRow:
    """One leaderboard line. ``elo`` (batch fit, Elo points, 0 = the average
    bot) ranks; ``low``/``high`` its 95% interval; ``p_next`` the probability
    this bot is really better than the next one down (``None`` for the last),
    ``separated`` whether that reaches the confidence asked for. ``mu``,
    ``sigma``: live TrueSkill; ``conservative`` = mu - 3 sigma."""

    bot: str
    elo: float
    low: float
    high: float
    mu: float
    sigma: float
    conservative: float
    p_next: float | None = None
    separated: bool | None = None
    matches: int = 0
    wins: int = 0
    mean_score: float = 0.0
    timeouts: int = 0
    illegal: int = 0
    crashes: int = 0
    other_faults: int = 0
    faults: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "elo": round(self.elo, 1), "elo_low": round(self.low, 1),
                "elo_high": round(self.high, 1),
                "p_better_than_next": None if self.p_next is None else round(self.p_next, 4),
                "separated_from_next": self.separated,
                "mu": round(self.mu, 4), "sigma": round(self.sigma, 4),
                "conservative": round(self.conservative, 4), "matches": self.matches, "wins": self.wins,
                "mean_score": round(self.mean_score, 4), "timeouts": self.timeouts, "illegal": self.illegal,
                "crashes": self.crashes, "other_faults": self.other_faults}


def leaderboard(rows: list[MatchRow], bots: list[str], p: TrueSkillParams,
                fault_counts: dict[str, dict[str, int]], game: str, players: int, seed: int = 0,
                confidence: float = 0.95) -> list[BoardRow]:
    """Leaderboard ranked by the batch fit (best first, then name), with the
    live TrueSkill figures, the interval and the adjacent-pair confidence."""
    ratings, _ = rate(rows, bots, p, game, players)
    bf = fit_rows(rows, bots, game, players, seed)
    at = {b: i for i, b in enumerate(bots)}
    board = {b: BoardRow(b, bf.elo[at[b]], bf.low[at[b]], bf.high[at[b]], r.mu, r.sigma, r.mu - 3 * r.sigma)
             for b, r in ratings.items()}
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
    ordered = sorted(board.values(), key=lambda r: (-round(r.elo, 6), r.bot))
    for upper, lower in zip(ordered, ordered[1:]):
        upper.p_next = bf.p_better(at[upper.bot], at[lower.bot])
        upper.separated = upper.p_next >= confidence
    return ordered


def separated(board: list[BoardRow]) -> bool:
    """Whether every adjacent pair of ``board`` is separated."""
    return all(r.separated for r in board[:-1])
