"""Ratings and the leaderboard.

Two ratings are kept, both from the same per-match outcomes
(:mod:`tournaments.outcomes`: every game rated by its final standing):

* **live TrueSkill** (the ``trueskill`` package, the file's parameters;
  :mod:`tournaments.live`), applied match by match in schedule (index)
  order: what the progress display shows while a tournament runs, and the
  ``mu``/``sigma`` columns. The results store keeps it up to date as
  matches are stored; :func:`rate` computes it for matches in memory.
* the **batch fit** (:mod:`tournaments.batch`: Bradley–Terry over every
  pair of opponents, fitted to all results at once, with a cluster-robust
  confidence). It does not depend on the order matches were scheduled or
  finished, and it ranks the leaderboard.

:func:`leaderboard` builds the board from matches in memory (tests, the
coverage simulation); :func:`store_board` from a results store's totals and
streamed comparisons, with the fit kept in the store until more results
arrive (:meth:`tournaments.store.Store.cached_fit`): O(comparisons) once per
change, O(bots) after. Aborted and void matches are not rated.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np
import trueskill

from referee.outcomes import board_column
from tournaments.aggregates import Totals, rated
from tournaments.batch import CONFIDENCE_RULE, BatchFit, Comparisons, batch_fit
from tournaments.live import LiveRating as _Live
from tournaments.live import environment
from tournaments.outcomes import match_outcome, teams_of
from tournaments.schedule import derive_seed
from tournaments.schema import MatchRow
from tournaments.spec import TrueSkillParams
from tournaments.store import Store


def rate(rows: Iterable[MatchRow], bots: list[str], p: TrueSkillParams, game: str, players: int
         ) -> tuple[dict[str, trueskill.Rating], list[tuple[int, str, float, float]]]:
    """Live TrueSkill after every complete match, applied in index order
    whatever the order of ``rows``. Returns ``(bot -> Rating, history)``
    where history rows are ``(match_idx, bot, mu, sigma)`` for the bots of
    each complete match. O(matches)."""
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
    """The live TrueSkill update of one stored match row (:mod:`tournaments.live`),
    for a game and player count (also used by the ladder)."""

    def __init__(self, p: TrueSkillParams, game: str, players: int):
        self._live = _Live(p)
        self.env = self._live.env
        self.game, self.players = game, players

    def __call__(self, ratings: dict[str, trueskill.Rating], row: MatchRow) -> None:
        """Update ``ratings`` (bot -> Rating, every bot of ``row`` present) by the complete match ``row``."""
        oc = match_outcome(self.game, row.result, self.players)
        if oc is not None:
            self._live.update(ratings, [[row.seats[s] for s in team] for team in oc.teams], oc.places,
                              float(row.result.get("rating_weight", 1.0)))


def opponent_seats(game: str, players: int) -> tuple[tuple[int, int], ...]:
    """The seat pairs ``(p, q)``, p < q, that sit on different teams."""
    team = {s: ti for ti, t in enumerate(teams_of(game, players)) for s in t}
    return tuple((p, q) for p in range(players) for q in range(p + 1, players) if team[p] != team[q])


def comparisons(rows: Iterable[MatchRow], bots: list[str], game: str, players: int) -> Comparisons:
    """The rated matches among ``rows`` as the batch fit's arrays (see
    :class:`tournaments.batch.Comparisons`), units as the store keeps them
    (:func:`tournaments.aggregates.unit_key`)."""
    at = {b: i for i, b in enumerate(bots)}
    unit, weight, seat_bots, places = [], [], [], []
    for row in rows:
        facts = rated(game, players, row.seed, row.seats, row.status, row.result)
        if facts.weight <= 0:
            continue
        unit.append(facts.unit)
        weight.append(facts.weight)
        seat_bots.append([at[b] for b in row.seats])
        places.append(list(facts.places))
    opp = opponent_seats(game, players)
    if not unit:
        return Comparisons.empty(len(bots), players, opp)
    return Comparisons(len(bots), np.array(unit, np.int64), np.array(weight), np.array(seat_bots, np.int64),
                       np.array(places, np.int64), opp)


def units(rows: Iterable[MatchRow], bots: list[str], game: str, players: int) -> list[int]:
    """The distinct resampling units of the rated ``rows``: one per set of
    matches with the same seed and the same bots (a duplicate schedule's seat
    orders of one combination on one deal), else one per match."""
    return sorted(set(comparisons(rows, bots, game, players).unit.tolist()))


def fit_rows(rows: list[MatchRow], bots: list[str], game: str, players: int, seed: int,
             confidence: str = "sandwich") -> BatchFit:
    """The batch fit of matches in memory (see :mod:`tournaments.batch`)."""
    return batch_fit(bots, comparisons(rows, bots, game, players), derive_seed(seed, "bootstrap"), confidence)


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
    #: of ``wins``, those of matches whose bot crashed, left or was forfeited (a shared first place)
    broken_wins: int = 0
    mean_score: float = 0.0
    timeouts: int = 0
    illegal: int = 0
    crashes: int = 0
    other_faults: int = 0
    faults: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "elo": round(self.elo, 1), "elo_low": round(self.low, 1),
                "elo_high": round(self.high, 1),
                # rounded down: a probability below 1 never becomes 1.0 (nor 1.00 on a page built from it)
                "p_better_than_next": None if self.p_next is None else math.floor(self.p_next * 1e4) / 1e4,
                "separated_from_next": self.separated,
                "mu": round(self.mu, 4), "sigma": round(self.sigma, 4),
                "conservative": round(self.conservative, 4), "matches": self.matches, "wins": self.wins,
                "wins_while_broken": self.broken_wins,
                "mean_score": round(self.mean_score, 4), "timeouts": self.timeouts, "illegal": self.illegal,
                "crashes": self.crashes, "other_faults": self.other_faults}


@dataclass
class FitSummary:
    """What the board needs of a batch fit, in ``bots`` order: ratings and
    interval (Elo points) and, for each bot, the probability that it is
    really better than the bot ranked just below it (``p_next``, by name;
    the last bot has none). Kept in the store as JSON (:meth:`to_json`)."""

    bots: list[str]
    elo: list[float]
    low: list[float]
    high: list[float]
    p_next: dict[str, float]
    method: str = "sandwich"

    @classmethod
    def of(cls, fit: BatchFit) -> "FitSummary":
        order = ranked(fit.bots, fit.elo)
        at = {b: i for i, b in enumerate(fit.bots)}
        p = {u: fit.p_better(at[u], at[lo]) for u, lo in zip(order, order[1:])}
        return cls(list(fit.bots), list(fit.elo), list(fit.low), list(fit.high), p, fit.method)

    def to_json(self) -> dict[str, Any]:
        return {"bots": self.bots, "elo": self.elo, "low": self.low, "high": self.high, "p_next": self.p_next,
                "method": self.method, "rule": CONFIDENCE_RULE}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "FitSummary":
        return cls(d["bots"], d["elo"], d["low"], d["high"], d["p_next"], d.get("method", "sandwich"))


def ranked(bots: list[str], elo: list[float]) -> list[str]:
    """Bots best first: by rating (rounded to 1e-6 Elo, so that equal ratings tie), then name."""
    return [b for _, b in sorted(zip(elo, bots), key=lambda x: (-round(x[0], 6), x[1]))]


@dataclass
class BotTotals:
    """A bot's figures beside its rating: complete matches, wins (first
    place, shared firsts count), final score sum, faults by kind, live TrueSkill."""

    matches: int = 0
    wins: int = 0
    broken_wins: int = 0
    score_sum: float = 0.0
    faults: dict[str, int] = field(default_factory=dict)
    mu: float | None = None
    sigma: float | None = None


def assemble(fit: FitSummary, totals: dict[str, BotTotals], prior: trueskill.Rating,
             confidence: float = 0.95) -> list[BoardRow]:
    """The leaderboard (best first, then name) from a fit and each bot's totals."""
    at = {b: i for i, b in enumerate(fit.bots)}
    board = []
    for b in ranked(fit.bots, fit.elo):
        t = totals.get(b, BotTotals())
        mu = prior.mu if t.mu is None else t.mu
        sigma = prior.sigma if t.sigma is None else t.sigma
        i = at[b]
        row = BoardRow(b, fit.elo[i], fit.low[i], fit.high[i], mu, sigma, mu - 3 * sigma, matches=t.matches,
                       wins=t.wins, broken_wins=t.broken_wins,
                       mean_score=t.score_sum / t.matches if t.matches else 0.0)
        fc = t.faults
        row.faults = dict(fc)
        cols: Counter[str] = Counter()
        for kind, n in fc.items():
            cols[board_column(kind)] += n
        row.timeouts, row.illegal = cols["timeouts"], cols["illegal"]
        row.crashes, row.other_faults = cols["crashes"], cols["other_faults"]
        if b in fit.p_next:
            row.p_next = fit.p_next[b]
            row.separated = row.p_next >= confidence
        board.append(row)
    return board


def leaderboard(rows: list[MatchRow], bots: list[str], p: TrueSkillParams,
                fault_counts: dict[str, dict[str, int]], game: str, players: int, seed: int = 0,
                confidence: float = 0.95, method: str = "sandwich") -> list[BoardRow]:
    """Leaderboard of matches in memory, ranked by the batch fit (best first,
    then name), with the live TrueSkill figures, the interval and the
    adjacent-pair confidence. O(matches)."""
    ratings, _ = rate(rows, bots, p, game, players)
    fit = FitSummary.of(fit_rows(rows, bots, game, players, seed, method))
    totals = {b: BotTotals(mu=r.mu, sigma=r.sigma, faults=fault_counts.get(b, {})) for b, r in ratings.items()}
    at = {b: i for i, b in enumerate(bots)}
    sums = Totals()
    for row in rows:
        sums.add(game, players, [at[b] for b in row.seats], row.status, row.result)
    for (i, _), v in sums.seat.items():
        t = totals[bots[i]]
        t.matches += int(v[0])
        t.wins += int(v[1])
        t.score_sum += v[2]
        t.broken_wins += int(v[4])
    return assemble(fit, totals, environment(p).create_rating(), confidence)


def store_fit(store: Store, t: dict[str, Any], method: str = "sandwich") -> FitSummary:
    """The batch fit of a stored tournament (row ``t``): the one kept in the
    store when no result arrived since (and its intervals were made by the
    present :data:`tournaments.batch.CONFIDENCE_RULE`), else fitted now from
    the streamed comparisons and kept. Raises :class:`tournaments.batch.TooLarge` when the
    method is too costly for the tournament."""
    tid = int(t["id"])
    version = store.results_version(tid)
    cached = store.cached_fit(tid, method)
    if cached is not None and cached[0] == version and cached[1].get("rule") == CONFIDENCE_RULE:
        return FitSummary.from_json(cached[1])
    spec = json.loads(t["spec_json"])
    table = store.bot_table(tid)
    names = [b["name"] for b in table]
    comps = store.comparisons(tid, {b["id"]: i for i, b in enumerate(table)}, int(spec["players"]),
                              opponent_seats(spec["game"], int(spec["players"])))
    fit = FitSummary.of(batch_fit(names, comps, derive_seed(int(spec.get("seed", 0)), "bootstrap"), method))
    store.store_fit(tid, method, version, fit.to_json())
    return fit


def store_totals(store: Store, tid: int) -> dict[str, BotTotals]:
    """Each bot's :class:`BotTotals` from the store's total tables. O(bots × seats)."""
    table = store.bot_table(tid)
    name = {b["id"]: b["name"] for b in table}
    out = {b["name"]: BotTotals(mu=b["mu"], sigma=b["sigma"]) for b in table}
    for r in store.seat_totals(tid):
        t = out[name[r["bot_id"]]]
        t.matches += int(r["matches"])
        t.wins += int(r["wins"])
        t.broken_wins += int(r["broken_wins"])
        t.score_sum += float(r["score_sum"])
    for bot, kinds in store.fault_counts(tid).items():
        if bot in out:
            out[bot].faults = kinds
    return out


def store_board(store: Store, t: dict[str, Any], method: str = "sandwich") -> list[BoardRow]:
    """The leaderboard of a stored tournament (row ``t``) from its totals and
    its batch fit (:func:`store_fit`). Raises :class:`tournaments.batch.TooLarge`
    (see there)."""
    spec = json.loads(t["spec_json"])
    p = TrueSkillParams(**spec.get("trueskill", {}))
    return assemble(store_fit(store, t, method), store_totals(store, int(t["id"])), environment(p).create_rating(),
                    float(spec.get("confidence", 0.95)))

