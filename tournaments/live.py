"""Live TrueSkill: the one update a rated match makes, wherever it is applied.

The results store applies it as matches are stored (:mod:`tournaments.record`,
in schedule index order), :func:`tournaments.rating.rate` to matches in
memory, and the ladder (:mod:`tournaments.ladder`) in finishing order. All
three call :meth:`LiveRating.update` with the match's teams and places, so
they agree to the last bit.

One update per match, by its final standing (:mod:`tournaments.outcomes`):
the teams (one per seat in a free-for-all game) ranked by their places.
An all-way draw (every team level) is skipped: it carries no order to learn
from, and TrueSkill with ``draw_probability = 0`` would call it impossible.
A tie between some teams is rated with :data:`TIE_DRAW_PROBABILITY` when the
file's draw probability is 0. A match partly decided by fallbacks while the
referee stalled (``rating_weight`` < 1) moves each rating only that share
of the way.
"""

from __future__ import annotations

from typing import Hashable, Sequence

import trueskill

from tournaments.spec import TrueSkillParams

#: draw probability used for a tied outcome when the file says 0 (TrueSkill
#: would call the tie impossible and blow sigma up)
TIE_DRAW_PROBABILITY = 0.10


def environment(p: TrueSkillParams, draw_probability: float | None = None) -> trueskill.TrueSkill:
    """A TrueSkill environment with the tournament's parameters (pure-Python backend)."""
    return trueskill.TrueSkill(mu=p.mu, sigma=p.sigma, beta=p.beta, tau=p.tau,
                               draw_probability=p.draw_probability if draw_probability is None else draw_probability)


class LiveRating:
    """The live TrueSkill update of one match under a tournament's parameters.

    ``env``: the tournament's environment (its ``create_rating()`` is the prior)."""

    def __init__(self, p: TrueSkillParams):
        self.env = environment(p)
        self.tie_env = self.env if p.draw_probability > 0 else environment(p, TIE_DRAW_PROBABILITY)

    def update(self, ratings: dict[Hashable, trueskill.Rating], teams: Sequence[Sequence[Hashable]],
               places: Sequence[int], weight: float = 1.0) -> bool:
        """Update ``ratings`` (every member of ``teams`` present) by one match:
        ``teams`` the members of each team, ``places`` each team's place (0 =
        best, equal = tied), ``weight`` in (0, 1]. Returns whether anything
        was updated (``False`` for an all-way draw or weight 0)."""
        if len(set(places)) <= 1 or weight <= 0:
            return False
        groups = [{b: ratings[b] for b in team} for team in teams]
        tied = len(set(places)) < len(places)
        new = (self.tie_env if tied else self.env).rate(groups, ranks=list(places))
        if weight < 1:  # move each rating only that share of the way (variance interpolated)
            new = [{b: self.env.create_rating(ratings[b].mu + weight * (r.mu - ratings[b].mu),
                                              (ratings[b].sigma ** 2 + weight * (r.sigma ** 2 - ratings[b].sigma ** 2))
                                              ** 0.5)
                    for b, r in g.items()} for g in new]
        for g in new:
            ratings.update(g)
        return True
