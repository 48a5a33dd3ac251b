"""Groups of a sampled schedule: fields too large for a round robin.

A round robin of ``n`` bots, ``k`` seats, has ``C(n, k)`` groups (1.3 M for
200 bots and 3 seats). A sampled schedule draws **rounds** of groups
instead, without ever listing the combinations:

* in a round every bot is in at most one group, and ``floor(n / k) * k``
  bots play: the ones with the fewest appearances so far (every bot below
  the boundary level, and as many of those at it as the seats need, picked
  by the split below), so appearances never differ by more than one
  between any two bots;
* the schedule ends once every bot has ``appearances`` groups: the last
  round has only as many groups as the bots still short need (filled up
  with the least-played others), so every bot ends with ``appearances`` or
  ``appearances + 1``, and there are exactly
  ``ceil(n * appearances / k)`` groups in all;
* a round is split into groups so that pairs of bots meet as evenly as
  possible: greedily, each group starting from a random bot of the round
  (its *anchor*) and adding, one at a time, the bot that met the members so
  far the fewest times, among a seeded sample of :data:`POOL` candidates
  (ties: the sample's order); then :data:`SWAPS` random swaps per group
  between two groups of the round, each kept when it lowers the sum of the
  squared pair meetings.

Everything is drawn from the ``random.Random`` given, so the groups are a
pure function of its seed. Cost: ``O(rounds * n log n)`` for the rounds'
orders plus ``O(groups * (POOL + SWAPS) * k^2)`` for the splits; memory
``O(groups * k^2)`` for the pair meetings. 1,000 bots, 3 seats, 60
appearances: 20,000 groups in under a second here.
"""

from __future__ import annotations

import math
import random
from typing import Iterable

#: candidates considered for each seat of a group after its anchor
POOL = 16
#: swaps tried per group of a round when improving its split
SWAPS = 4


def group_count(n: int, k: int, appearances: int) -> int:
    """Groups :func:`draw_rounds` draws in all: ``ceil(n * appearances / k)``."""
    return math.ceil(n * appearances / k)


def draw_rounds(n: int, k: int, appearances: int, rng: random.Random) -> list[list[tuple[int, ...]]]:
    """Rounds of groups of ``k`` bots out of bots ``0..n-1`` until every bot
    is in ``appearances`` groups (or one more, see the module docstring).
    Each group is a tuple of bot indices in increasing order. Raises
    ``ValueError`` when ``n < k`` or ``appearances < 1``."""
    if n < k:
        raise ValueError(f"{n} bots for groups of {k}")
    if appearances < 1:
        raise ValueError(f"appearances must be >= 1, got {appearances}")
    plays = [0] * n
    met: dict[tuple[int, int], int] = {}
    rounds: list[list[tuple[int, ...]]] = []
    while True:
        short = sum(1 for p in plays if p < appearances)
        if not short:
            return rounds
        seats = min(n // k, math.ceil(short / k)) * k
        level = sorted(plays)[seats - 1]  # the bots below it must play; enough of those at it may
        must = [b for b in range(n) if plays[b] < level]
        may = [b for b in range(n) if plays[b] == level]
        groups = split(must, may, seats - len(must), k, met, rng)
        rounds.append(groups)
        for g in groups:
            for b in g:
                plays[b] += 1


def split(must: list[int], may: list[int], take: int, k: int, met: dict[tuple[int, int], int],
          rng: random.Random) -> list[tuple[int, ...]]:
    """Groups of ``k`` of every bot of ``must`` and ``take`` of ``may``
    (``len(must) + take`` a multiple of ``k``; all distinct), whose pairs met
    the fewest times so far (``met[(a, b)]``, ``a < b``; updated with the
    new groups). Greedy, then improved by swaps, see the module docstring."""
    remaining = must + may
    optional = set(may)
    rng.shuffle(remaining)
    out: list[list[int]] = []
    while remaining:
        pool = rng.sample(range(len(remaining) - 1), min(POOL, len(remaining) - 1))
        chosen = [len(remaining) - 1]  # the anchor: the last of the shuffled bots
        take -= remaining[-1] in optional
        for _ in range(k - 1):
            allowed = optional if take > 0 else set()
            best = _fewest_meetings(pool, remaining, chosen, met, optional - allowed)
            if best < 0:  # no one in the sample may play: look at every bot left
                best = _fewest_meetings(range(len(remaining) - 1), remaining, chosen, met, optional - allowed)
            chosen.append(best)
            take -= remaining[best] in optional
        members = [remaining[i] for i in chosen]
        for i in sorted(chosen, reverse=True):  # swap-remove, highest index first
            remaining[i] = remaining[-1]
            remaining.pop()
        if take == 0 and optional:  # the quota of optional bots is filled: the others sit this round out
            remaining = [x for x in remaining if x not in optional]
            optional = set()
        _meet(members, met, +1)
        out.append(members)
    _improve(out, met, rng)
    return [tuple(sorted(g)) for g in out]


def _fewest_meetings(candidates: Iterable[int], remaining: list[int], chosen: list[int],
                     met: dict[tuple[int, int], int], barred: set[int]) -> int:
    """The index (among ``candidates``, indices into ``remaining``) of the bot
    that met the bots at ``chosen`` the fewest times, skipping ``chosen`` and
    ``barred`` bots; the first such candidate on ties; -1 if none."""
    best, best_cost = -1, 0
    for i in candidates:
        c = remaining[i]
        if i in chosen or c in barred:
            continue
        cost = sum(met.get(_pair(c, remaining[j]), 0) for j in chosen)
        if best < 0 or cost < best_cost:
            best, best_cost = i, cost
    return best


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _meet(group: list[int], met: dict[tuple[int, int], int], step: int) -> None:
    for x in range(len(group)):
        for y in range(x + 1, len(group)):
            p = _pair(group[x], group[y])
            met[p] = met.get(p, 0) + step


def _improve(groups: list[list[int]], met: dict[tuple[int, int], int], rng: random.Random) -> None:
    """Swap bots between random groups of one round while that lowers the
    sum of squared pair meetings (``SWAPS`` tries per group)."""
    if len(groups) < 2:
        return
    k = len(groups[0])
    for _ in range(SWAPS * len(groups)):
        a, b = rng.sample(range(len(groups)), 2)
        i, j = rng.randrange(k), rng.randrange(k)
        ga, gb = groups[a], groups[b]
        x, y = ga[i], gb[j]
        # meetings x and y lose in their own group and gain in the other (squares: (c-1)^2 - c^2 = 1 - 2c)
        delta = 0
        for z in ga:
            if z != x:
                delta += (1 - 2 * met[_pair(x, z)]) + (1 + 2 * met.get(_pair(y, z), 0))
        for z in gb:
            if z != y:
                delta += (1 - 2 * met[_pair(y, z)]) + (1 + 2 * met.get(_pair(x, z), 0))
        if delta < 0:
            _meet(ga, met, -1)
            _meet(gb, met, -1)
            ga[i], gb[j] = y, x
            _meet(ga, met, +1)
            _meet(gb, met, +1)
