"""Matchmaking of a standing competition (``referee ladder``): which bots
play the next match, and in which seats.

Pure and deterministic: the choice depends only on the candidates given
(their ratings and play counts, which the ladder derives from its event
history), the ladder seed and the match's sequence number, never on the
order of the candidates or on the wall clock.

How the next match is chosen from the free active entrants:

1. **The anchor.** An *overdue* entrant (one that has waited more than
   ``2 * n / players`` scheduled matches since its last match or since it
   joined, ``n`` = active entrants) is anchored first, the longest-waiting
   one; otherwise the most uncertain one (largest TrueSkill sigma), ties by
   fewest matches. A new version starts at the prior sigma, so new entrants
   and new versions come first until they are rated; since sigma shrinks with
   every match played, among established bots the least played is the most
   uncertain, which spreads the matches evenly.
2. **The opponents**: the ``players - 1`` others (from the 12 next in the
   anchor order) that maximise ``quality + uncertainty + 2 * overdue``:
   the group's match quality (high when the match is close and therefore
   tells the most): in a free-for-all game the mean over its pairs of
   TrueSkill's head-to-head quality (:func:`pair_quality`); in a
   partnership game (``teams``, from ``Game.teams``) TrueSkill's quality of
   the teams the group forms (:func:`team_quality`), for the best way of
   splitting the group into teams; the mean
   ``sigma / sigma0`` of the opponents, and two points per overdue
   opponent. Overdue entrants are thus guaranteed a match: every active bot
   plays at least about once per ``2 * n / players`` matches (half its fair
   share), uncertain bots more.
3. **The seats**: the arrangement that repeats the least history: the sum
   of each bot's previous sittings in its seat plus, for each pair of bots
   the arrangement seats next to each other, how often the first already
   sat immediately before the second (the table is round: seat 0 follows
   the last seat), so that over time seats rotate and every bot sits
   before and after every other equally often
   (:func:`tournaments.seatings.least_used`); in a partnership game only
   the arrangements whose teams are that best split (partners balanced:
   the teams' strengths as close as they can be, e.g. the strongest bot
   partners the weakest) are considered.

Ties anywhere are broken by a random draw seeded with the ladder seed and
the match's sequence number.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from typing import Mapping

import trueskill

from tournaments.schedule import derive_seed
from tournaments.seatings import least_used

#: version of the seat choice (:func:`seat`), kept in each ``scheduled`` event: a history seated
#: by an earlier version is verified for who played, not for the seat order
SEATING_DESIGN = 2
#: opponents are chosen among this many candidates after the anchor (bounds the search to C(12, 3) groups)
OPPONENT_POOL = 12


@dataclass
class Candidate:
    """A free active entrant as the matchmaker sees it. ``label``: its rated
    version (``name@vN``); ``plays``: matches scheduled for that version;
    ``waited``: matches scheduled since its last match (or since it joined);
    ``seat_counts[s]``: how often it was seated at seat ``s``."""

    label: str
    mu: float
    sigma: float
    plays: int = 0
    waited: int = 0
    seat_counts: list[int] = field(default_factory=list)


def overdue_after(active: int, players: int) -> int:
    """Matches an entrant may wait before it is overdue: ``ceil(2 * active / players)``."""
    return max(1, math.ceil(2 * active / players))


def choose(candidates: list[Candidate], players: int, env: trueskill.TrueSkill, seed: int, sched: int,
           active: int | None = None, teams: tuple[tuple[int, ...], ...] = (),
           adjacency: Mapping[tuple[str, str], int] | None = None) -> list[str] | None:
    """The labels of the next match in seat order, or ``None`` when fewer than
    ``players`` candidates are free. ``env``: the ladder's TrueSkill
    environment (its ``sigma`` is the prior sigma0); ``seed``: the ladder
    seed; ``sched``: the sequence number of the match being scheduled;
    ``active``: active entrants in all (busy ones too; default: the candidates);
    ``teams``: the seats of each team of a partnership game (``Game.teams``,
    e.g. ``((0, 2), (1, 3))``), empty for a free-for-all game; ``adjacency``:
    ``(label_a, label_b)`` -> how often a sat immediately before b (cyclically)."""
    if len(candidates) < players:
        return None
    rng = random.Random(derive_seed(seed, f"matchmaking:{sched}"))
    cands = sorted(candidates, key=lambda c: c.label)
    tie = {c.label: rng.random() for c in cands}
    limit = overdue_after(active if active is not None else len(cands), players)
    overdue = {c.label for c in cands if c.waited > limit}
    sigma0 = env.sigma

    def anchor_key(c: Candidate) -> tuple:
        if c.label in overdue:
            return (0, -c.waited, tie[c.label])
        return (1, -round(c.sigma, 9), c.plays, tie[c.label])

    ordered = sorted(cands, key=anchor_key)
    anchor, pool = ordered[0], ordered[1:1 + OPPONENT_POOL]
    best: tuple[float, float] | None = None
    group: tuple[Candidate, ...] = ()
    for others in itertools.combinations(pool, players - 1):
        members = (anchor, *others)
        if teams:
            quality = max(team_quality(split, env) for split in splits(members, teams))
        else:
            pairs = list(itertools.combinations(members, 2))
            quality = sum(pair_quality(a, b, env.beta) for a, b in pairs) / len(pairs)
        need = sum(c.sigma / sigma0 for c in others) / len(others)
        score = quality + need + 2.0 * sum(c.label in overdue for c in others)
        key = (round(score, 9), -sum(tie[c.label] for c in others))
        if best is None or key > best:
            best, group = key, members
    return seat(list(group), players, rng, teams, env, adjacency)


def pair_quality(a: Candidate, b: Candidate, beta: float) -> float:
    """TrueSkill's match quality of ``a`` against ``b`` (in [0, 1]; 1 = equal
    and certain): ``sqrt(2β² / c²) · exp(-(μa - μb)² / (2c²))`` with
    ``c² = 2β² + σa² + σb²`` (Herbrich et al., 2007, eq. 4.7, one player a team)."""
    c2 = 2 * beta * beta + a.sigma * a.sigma + b.sigma * b.sigma
    return math.sqrt(2 * beta * beta / c2) * math.exp(-((a.mu - b.mu) ** 2) / (2 * c2))


def team_quality(split: list[list[Candidate]], env: trueskill.TrueSkill) -> float:
    """TrueSkill's match quality (in [0, 1]) of the teams ``split`` (lists of
    candidates). For two teams A and B of ``n`` players in all:
    ``sqrt(nβ² / c²) · exp(-(ΣμA - ΣμB)² / (2c²))`` with ``c² = nβ² + Σσ²``
    (Herbrich et al., 2007, eq. 4.7 with teams: a team's performance is the
    sum of its players'); other team structures: ``env.quality``."""
    if len(split) != 2:
        return env.quality([tuple(trueskill.Rating(c.mu, c.sigma) for c in team) for team in split])
    members = [c for team in split for c in team]
    c2 = len(members) * env.beta * env.beta + sum(c.sigma * c.sigma for c in members)
    diff = sum(c.mu for c in split[0]) - sum(c.mu for c in split[1])
    return math.sqrt(len(members) * env.beta * env.beta / c2) * math.exp(-(diff * diff) / (2 * c2))


def splits(members: tuple[Candidate, ...] | list[Candidate],
           teams: tuple[tuple[int, ...], ...]) -> list[list[list[Candidate]]]:
    """Every distinct way of dividing ``members`` into the teams of a
    partnership game (``teams``: the seats of each team), as lists of
    candidates per team, in a fixed order (by label)."""
    out: dict[frozenset, list[list[Candidate]]] = {}
    for perm in itertools.permutations(sorted(members, key=lambda c: c.label)):
        split = [[perm[s] for s in team] for team in teams]
        key = frozenset(frozenset(c.label for c in team) for team in split)
        out.setdefault(key, split)
    return list(out.values())


def seat(group: list[Candidate], players: int, rng: random.Random,
         teams: tuple[tuple[int, ...], ...] = (), env: trueskill.TrueSkill | None = None,
         adjacency: Mapping[tuple[str, str], int] | None = None) -> list[str]:
    """The seat order of ``group`` that minimises the sum of each bot's
    previous sittings in its seat (``Candidate.seat_counts``) plus the
    previous cyclic adjacencies of each pair it seats next to each other
    (``adjacency[(a, b)]``: a sat immediately before b); ties by ``rng``.
    With ``teams`` (and the ``env`` to rate them) only the seatings whose
    teams have the best :func:`team_quality` are considered (partners
    balanced). ``O(players! * players)``."""
    rows = list(itertools.permutations(range(len(group))))
    if teams and env is not None:
        def q(row: tuple[int, ...]) -> float:
            return round(team_quality([[group[row[s]] for s in team] for team in teams], env), 9)

        best = max(q(r) for r in rows)
        rows = [r for r in rows if q(r) == best]
    labels = [c.label for c in group]
    i = least_used(labels, rows, {c.label: c.seat_counts for c in group}, adjacency or {}, rng.randrange(len(rows)))
    return [labels[p] for p in rows[i]]
