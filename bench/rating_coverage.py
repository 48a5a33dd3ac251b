"""Do the leaderboard's 95% intervals cover the truth 95% of the time?

A simulation at the rating-model level (playing real matches for hundreds
of tournaments would take hours on a shared 2-core machine): six bots of
known strength, each a mix of heuristic and random play in set
proportions. A bot that plays its heuristic in a share ``s`` of its
matches has strength ``s * GAP`` (natural units; ``GAP`` = the
heuristic-over-random strength), and every match's finishing order is
drawn from the Plackett–Luce model with those strengths (free-for-all, 3
seats, as in Dou Dizhu rated by final money). Each simulated tournament is
the usual round robin (every 3 of the 6 bots in every seat order,
``--games`` times; with ``--shared``, a duplicate one whose matches on
one deal go together) and is rated by the project's own code
(:func:`tournaments.rating.fit_rows`: Bradley–Terry batch fit, with the
confidence of ``--confidence``: sandwich, the default, or bootstrap).

Printed: how often each bot's 95% interval holds its true (centred)
rating, overall and per bot; and how often a pair the board calls
separated (P >= 0.95 that the upper bot is better) is really in that order.

    python bench/rating_coverage.py [--tournaments 200] [--games 1] [--seed 1] [--confidence sandwich]
                                    [--shared 0.0] [--gap 1.5]

A large ``--gap`` (6 or more) makes most matches finish in the bots' own
order, the case where intervals measured from the spread of the results
alone would shrink to nothing.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.batch import ELO_PER_UNIT, METHODS  # noqa: E402
from tournaments.rating import fit_rows  # noqa: E402
from tournaments.store import MatchRow  # noqa: E402

SHARES = {"h100": 1.0, "h80": 0.8, "h60": 0.6, "h40": 0.4, "h20": 0.2, "h0": 0.0}
GAP = 1.5  # heuristic over random: finishes ahead of it 82% of the time (260 Elo)


def simulate(rng: random.Random, games: int, shared: float = 0.0, gap: float = GAP) -> list[MatchRow]:
    """One round-robin tournament of the SHARES bots: every 3 of them in every
    seat order, ``games`` times, each finishing order drawn from Plackett–Luce.
    ``shared`` > 0 plays it as a duplicate schedule: the seat orders of a group
    share one deal (one seed), and each of them, with probability ``shared``,
    finishes in the deal's own order instead of a fresh one (results of one
    deal that go together, while each match on its own still follows
    Plackett–Luce: the true ratings stay what they are). ``gap``: the
    all-heuristic bot's strength over the all-random one (natural units)."""
    strength = {b: s * gap for b, s in SHARES.items()}

    def finish(seats: tuple[str, ...]) -> list[str]:
        perf = {b: strength[b] - math.log(-math.log(rng.random())) for b in seats}  # Gumbel trick
        return sorted(seats, key=lambda b: -perf[b])

    rows: list[MatchRow] = []
    for _ in range(games):
        for combo in itertools.combinations(SHARES, 3):
            deal, deal_order = rng.getrandbits(62), finish(combo)
            for seats in itertools.permutations(combo):
                order = deal_order if shared and rng.random() < shared else finish(seats)
                scores = [-float(order.index(b)) for b in seats]
                ranks = [1 + order.index(b) for b in seats]
                rows.append(MatchRow(len(rows), deal if shared else rng.getrandbits(62), list(seats), "complete",
                                     {"scores": scores, "ranks": ranks}, None))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tournaments", type=int, default=200, help="simulated tournaments (default 200)")
    ap.add_argument("--games", type=int, default=1, help="repetitions of the round robin (120 matches each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--confidence", choices=METHODS, default="sandwich", help="how intervals are computed")
    ap.add_argument("--shared", type=float, default=0.0, help="play duplicate deals whose seat orders finish in "
                    "the deal's own order with this probability (0..1; default 0: every match its own deal)")
    ap.add_argument("--gap", type=float, default=GAP, help=f"strength of all-heuristic over all-random play, "
                    f"natural units (default {GAP}: {GAP * ELO_PER_UNIT:.0f} Elo)")
    a = ap.parse_args(argv)
    if a.tournaments < 1 or a.games < 1:
        ap.error("--tournaments and --games must be >= 1")
    rng = random.Random(a.seed)
    bots = list(SHARES)
    mean = sum(SHARES.values()) / len(SHARES) * a.gap
    truth = {b: (s * a.gap - mean) * ELO_PER_UNIT for b, s in SHARES.items()}
    covered = {b: 0 for b in bots}
    per_tournament: list[float] = []  # share of the 6 intervals holding the truth, per tournament
    widths: list[float] = []
    called = wrong = 0
    t0 = time.monotonic()
    for t in range(a.tournaments):
        bf = fit_rows(simulate(rng, a.games, a.shared, a.gap), bots, "smear", 3, seed=t, confidence=a.confidence)
        hits = [bf.low[i] <= truth[b] <= bf.high[i] for i, b in enumerate(bots)]
        for i, b in enumerate(bots):
            covered[b] += hits[i]
            widths.append(bf.high[i] - bf.low[i])
        per_tournament.append(sum(hits) / len(bots))
        order = sorted(range(len(bots)), key=lambda i: -bf.elo[i])
        for up, lo in zip(order, order[1:]):
            if bf.p_better(up, lo) >= 0.95:
                called += 1
                wrong += truth[bots[up]] < truth[bots[lo]]
    n = a.tournaments
    total = sum(covered.values()) / (n * len(bots))
    # the six intervals of one tournament are not independent: the margin comes from the spread between tournaments
    se = statistics.stdev(per_tournament) / math.sqrt(n) if n > 1 else float("nan")
    print(f"{n} simulated {f'duplicate (shared {a.shared:g}) ' if a.shared else ''}tournaments of {120 * a.games} matches, 6 bots (heuristic share 100%..0%, "
          f"GAP {a.gap:g} = {a.gap * ELO_PER_UNIT:.0f} Elo from all-random to all-heuristic), {a.confidence}, "
          f"{time.monotonic() - t0:.1f} s")
    print(f"95% intervals holding the true rating: {total:.1%} (95% sure to be within +-{1.96 * se:.1%} of the true coverage), "
          f"mean width {sum(widths) / len(widths):.0f} Elo, median half-width {statistics.median(widths) / 2:.0f} Elo")
    print("  per bot: " + ", ".join(f"{b} {covered[b] / n:.0%}" for b in bots))
    print(f"adjacent pairs called separated at 95%: {called}, in the wrong order: {wrong}"
          f" ({wrong / called:.1%})" if called else "adjacent pairs called separated at 95%: none")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
