"""How every table and page writes a rating figure: the CLI's leaderboard
(:mod:`tournaments.report`), the live site and the report
(:mod:`referee.web.site`), the ladder's status and progress lines.

Each text is made from the raw value (the fit's or live TrueSkill's own
float), rounded once here, so the same bot shows the same figure
everywhere. Never build one from the JSON/CSV export's figures
(:meth:`tournaments.rating.BoardRow.to_json`): those are already rounded
(Elo to 0.1), and rounding them again can move a figure by one (47.46 is
47, but 47.5 rounds to 48).
"""

from __future__ import annotations

import math


def elo_text(v: float) -> str:
    """Elo points (a rating or an end of its interval) as a whole number
    (Python's ``round``: halves to even), never ``-0``."""
    return str(round(v) + 0)


def interval_text(low: float, high: float) -> str:
    """Half a 95% interval (symmetric about the rating), in whole Elo points: ``"±52"``."""
    return f"±{round((high - low) / 2) + 0}"


def trueskill_text(v: float) -> str:
    """A live TrueSkill figure (mu, sigma, mu − 3·sigma) with two decimals, never ``-0.00``."""
    return _two_decimals(v)


def score_text(v: float) -> str:
    """A mean final score (the game's unit) with two decimals, never ``-0.00``."""
    return _two_decimals(v)


def p_next_text(p: float) -> str:
    """A probability such as P>next with two decimals, rounded down, so that a
    probability below 1 never shows as ``1.00`` and a pair not separated never
    shows the confidence itself (0.9496 is ``0.94``, not ``0.95``)."""
    return f"{math.floor(p * 100) / 100:.2f}"


def _two_decimals(v: float) -> str:
    text = f"{v:.2f}"
    return "0.00" if text == "-0.00" else text
