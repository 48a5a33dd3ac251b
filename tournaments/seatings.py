"""Seatings: the seat orders a group of bots plays in.

A card table is round: the seat after seat ``k - 1`` is seat 0. Bot *a*
sits **immediately before** bot *b* when *b* is in the seat after *a*'s,
cyclically (in every game here the turn passes from a seat to the next).

A **block** is the list of seat orders one group of ``k`` bots plays, each
row a permutation of the group's positions ``0..k-1`` (``row[s]`` = the
position of the bot in seat ``s``). Every block here is made of *directed
Hamiltonian cycles* over the positions, each taken in all its ``k``
rotations, so that

* **seats**: every bot sits in every seat equally often, and every whole
  cycle of ``k`` rows (a Latin square) keeps that true;
* **cyclic order**: every bot sits immediately before every other bot of the
  group equally often (the cycles cover every ordered pair of positions
  equally often).

Two designs (``[schedule] seatings``):

* ``"all"``: every order, ``k!`` rows: the cycles are all ``(k-1)!``
  directed Hamiltonian cycles, each undirected cycle followed by its
  reverse. A block of every order is closed under swapping any two bots, so
  two copies of one deterministic bot that share a group (or sit in groups
  that differ only by the copy) get exactly equal results on the same deals.
* ``"balanced"`` (the default): the same as ``"all"`` for ``k <= 4``
  (2 rows for 2 players, 6 for 3, 24 for 4). For ``k >= 5`` a cyclic
  balanced design: undirected Hamiltonian cycles of the complete graph
  covering every pair of positions ``lam`` times, each cycle in both
  directions, each direction in all ``k`` rotations. Odd ``k``: Walecki's
  ``(k-1)/2`` edge-disjoint cycles (``lam = 1``): 20 rows for 5, 42 for 7.
  Even ``k``: ``k - 1`` cycles covering every pair twice (``lam = 2``),
  found by a deterministic search: 60 rows for 6. Seats and cyclic order
  are balanced as above; exact equality of copies is not guaranteed.

Partnership games (seats 0+2 against 1+3, 4 players) use the same blocks:
every order, 24 rows. Each cycle of 4 rows keeps one pairing of partners
(opposite seats are never adjacent), with each team at the even seats twice
and the partners' order both ways. Fewer orders (say the 12 that keep both
teams' orders tied) are not closed under swapping two opponents, and copies
then differ.

:func:`least_used` picks, among seat orders, the one that repeats the
least history (sittings per seat plus cyclic adjacencies): the ladder's
seat choice and a sampled schedule's use it.
"""

from __future__ import annotations

import itertools
import math
from functools import cache
from typing import Hashable, Mapping, Sequence

#: the values of ``[schedule] seatings``
DESIGNS = ("balanced", "all")

Row = tuple[int, ...]


def _normal(cycle: Sequence[int]) -> Row:
    """An undirected cycle in its normal form: starting at position 0, with
    the smaller neighbour of 0 second."""
    i = list(cycle).index(0)
    c = tuple(cycle[i:]) + tuple(cycle[:i])
    return c if c[1] < c[-1] else (0,) + tuple(reversed(c[1:]))


def _edges(cycle: Row) -> list[frozenset[int]]:
    return [frozenset((cycle[i], cycle[(i + 1) % len(cycle)])) for i in range(len(cycle))]


def walecki(k: int) -> list[Row]:
    """Walecki's decomposition of the complete graph on ``k`` (odd, >= 3)
    positions into ``(k - 1) / 2`` Hamiltonian cycles, every pair of
    positions adjacent in exactly one of them (normal form, see
    :func:`undirected_cycles`). Raises ``ValueError`` for an even ``k``."""
    if k < 3 or k % 2 == 0:
        raise ValueError(f"Walecki's construction needs an odd number >= 3 of positions, got {k}")
    m = (k - 1) // 2
    hub = k - 1  # the centre; the others 0..2m-1 stand on a circle
    out = []
    for i in range(m):
        path = [i]
        for j in range(1, m + 1):  # zigzag across the circle: i, i+1, i-1, i+2, i-2, ..., i+m
            path.append((i + j) % (2 * m))
            if j < m:
                path.append((i - j) % (2 * m))
        out.append(_normal([hub] + path))
    return out


def double_cover(k: int) -> list[Row]:
    """``k - 1`` Hamiltonian cycles of the complete graph on ``k`` (even,
    >= 4) positions covering every pair of positions exactly twice (an odd
    degree forbids covering each once), found by a depth-first search over
    the cycles in lexicographic order: deterministic. Cost: instant for
    ``k <= 6`` (60 cycles for 6). Raises ``ValueError`` for an odd ``k``."""
    if k < 4 or k % 2:
        raise ValueError(f"the double cover is for an even number >= 4 of positions, got {k}")
    every = all_undirected(k)
    need = k - 1
    cover: dict[frozenset[int], int] = {}
    chosen: list[Row] = []

    def search(start: int) -> bool:
        if len(chosen) == need:
            return True
        for i in range(start, len(every)):
            es = _edges(every[i])
            if all(cover.get(e, 0) < 2 for e in es):
                for e in es:
                    cover[e] = cover.get(e, 0) + 1
                chosen.append(every[i])
                if search(i + 1):
                    return True
                chosen.pop()
                for e in es:
                    cover[e] -= 1
        return False

    if not search(0):  # pragma: no cover - exists for every even k >= 4
        raise ValueError(f"no double cover of K{k} by Hamiltonian cycles found")
    return chosen


def all_undirected(k: int) -> list[Row]:
    """Every undirected Hamiltonian cycle on ``k >= 3`` positions, in normal
    form (from 0, smaller neighbour of 0 second), lexicographic order:
    ``(k - 1)! / 2`` of them."""
    return [(0,) + p for p in itertools.permutations(range(1, k)) if p[0] < p[-1]]


def undirected_cycles(k: int, design: str = "balanced") -> list[Row]:
    """The undirected cycles of a block of ``k >= 3`` positions (see the module docstring)."""
    if design == "all" or k <= 4:
        return all_undirected(k)
    return walecki(k) if k % 2 else double_cover(k)


@cache
def block(k: int, design: str = "balanced") -> tuple[Row, ...]:
    """The seat orders of a group of ``k >= 2`` bots under ``design``
    (``"balanced"`` or ``"all"``): rows of positions, each undirected cycle
    forward (its ``k`` rotations) then backward (its ``k`` rotations).
    Raises ``ValueError`` for an unknown design or ``k < 2``."""
    if design not in DESIGNS:
        raise ValueError(f"seatings must be one of {', '.join(DESIGNS)}, got {design!r}")
    if k < 2:
        raise ValueError(f"a block needs at least 2 seats, got {k}")
    if k == 2:  # the one cycle is its own reverse
        return ((0, 1), (1, 0))
    rows: list[Row] = []
    for c in undirected_cycles(k, design):
        for directed in (c, (0,) + tuple(reversed(c[1:]))):
            rows.extend(tuple(directed[(s + r) % k] for s in range(k)) for r in range(k))
    return tuple(rows)


def block_size(k: int, design: str = "balanced") -> int:
    """Rows of :func:`block` without building it: ``k!`` for ``"all"`` and
    for ``k <= 4``; else ``k(k-1)`` for odd ``k`` and ``2k(k-1)`` for even."""
    if design == "all" or k <= 4:
        return math.factorial(k)
    return k * (k - 1) * (1 if k % 2 else 2)


def arrange(group: Sequence[str], rows: Sequence[Row]) -> list[tuple[str, ...]]:
    """The seat orders of ``group`` (bot names by position) for ``rows``."""
    return [tuple(group[p] for p in row) for row in rows]


def adjacencies(seats: Sequence[Hashable]) -> list[tuple[Hashable, Hashable]]:
    """The ordered cyclic adjacencies of one seat order: ``(seats[s], seats[s+1])``
    for every seat ``s``, the last followed by seat 0."""
    k = len(seats)
    return [(seats[s], seats[(s + 1) % k]) for s in range(k)]


def least_used(group: Sequence[Hashable], rows: Sequence[Row], seat_counts: Mapping[Hashable, Sequence[int]],
               adjacency: Mapping[tuple[Hashable, Hashable], int], start: int = 0) -> int:
    """The index in ``rows`` of the seat order of ``group`` that repeats the
    least history: the sum of each bot's previous sittings in its seat
    (``seat_counts[bot][seat]``, missing = 0) plus, for each cyclically
    adjacent pair of the order, how often the first already sat immediately
    before the second (``adjacency[(a, b)]``, missing = 0). Ties go to the
    first such row counting from ``start`` (wrapping), so a seeded ``start``
    breaks them. ``O(len(rows) * k)`` after ``O(k^2)`` look-ups."""
    k = len(group)

    def sat(b: Hashable, s: int) -> int:
        counts = seat_counts.get(b, ())
        return counts[s] if s < len(counts) else 0

    sc = [[sat(b, s) for s in range(k)] for b in group]
    ad = [[adjacency.get((a, b), 0) if a != b else 0 for b in group] for a in group]
    best, best_cost = 0, None
    n = len(rows)
    for j in range(n):
        i = (start + j) % n
        row = rows[i]
        cost = 0
        for s in range(k):
            cost += sc[row[s]][s] + ad[row[s]][row[(s + 1) % k]]
        if best_cost is None or cost < best_cost:
            best, best_cost = i, cost
    return best
