"""Schedules: which bots meet, in which seats, with which seed.

A schedule is made of **groups** of k bots (k = players per match). A
group plays the seat orders of its **block** (:mod:`tournaments.seatings`):
every bot in every seat equally often and, the table being round, every bot
immediately before every other bot of the group equally often. The block
is every order for k <= 4 (2, 6 or 24 matches; Tractor and Back Alley
too), a cyclic balanced design for 5-7 players (20, 60, 42 matches), or
every order whatever k with ``[schedule] seatings = "all"``.

``round_robin``: every combination of k of the N bots is a group, in its
whole block, ``games`` repetitions; every match has a seed of its own.

``duplicate``: the round robin, where every match of a repetition, whatever
its combination and seat order, plays the repetition's one seed
(``dup:<repetition>``), hence the same deals, as in bridge: the luck of the
cards cancels out across the seat orders and between combinations, so two
bots that never share a table are still compared on the same cards. With
blocks of every order, two copies of one deterministic bot get exactly
equal results.

``sampled`` (fields too large for a round robin): rounds of groups drawn
by :mod:`tournaments.sampled`, every bot in at most one group of a round,
pairs of bots meeting as evenly as the draw makes them, without listing
the combinations. Not duplicate: each group plays one match, with its own
seed, in the seat order of its block that repeats the least history
(sittings per seat plus cyclic adjacencies so far,
:func:`tournaments.seatings.least_used`, ties by a seeded draw), until every
bot has ``matches_per_bot`` (or one more). Duplicate: each group plays its
whole block on the round's seed (``dup:<round>``) until every bot has
``ceil(matches_per_bot / block)`` blocks (or one more).

Seeds derive from the tournament seed and the match's key only, so a
tournament is reproducible: ``sha256("<seed>:<key>")`` truncated to 63 bits.
:func:`balance` measures what a list of matches achieved.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from dataclasses import dataclass

from referee.games import game_class
from referee.words import plural
from tournaments.seatings import adjacencies, arrange, block, least_used
from tournaments.sampled import draw_rounds
from tournaments.spec import TournamentSpec


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of a tournament: ``index`` 0-based in schedule order (the
    order ratings are applied in), ``seats`` bot names in seat order;
    ``repetition``: the round robin's repetition or the sampled schedule's
    round (an ``until`` block continues the numbering); ``group``: the
    combination's index in :func:`combinations` (round robin) or the group's
    number in drawing order (sampled); ``seating``: the row of the group's
    block (:func:`tournaments.seatings.block`)."""

    index: int
    seats: tuple[str, ...]
    seed: int
    repetition: int
    group: int
    seating: int


def derive_seed(tournament_seed: int, key: str) -> int:
    """Deterministic 63-bit seed for ``key`` under ``tournament_seed``."""
    h = hashlib.sha256(f"{tournament_seed}:{key}".encode()).digest()
    return int.from_bytes(h[:8], "big") & ((1 << 63) - 1)


def seatings(group: tuple[str, ...], kind: str = "balanced") -> list[tuple[str, ...]]:
    """Every seat order of one group (bot names) in block order (see
    :mod:`tournaments.seatings`; ``kind``: ``"balanced"`` or ``"all"``)."""
    return arrange(group, block(len(group), kind))


def check_teams(spec: TournamentSpec) -> None:
    """Raise ``ValueError`` for a team structure no schedule here supports
    (the game declares its teams, ``Game.teams``; only seats 0+2 against 1+3)."""
    teams = game_class(spec.game).teams(spec.players)
    if teams and teams != ((0, 2), (1, 3)):
        raise ValueError(f"{spec.game}: no schedule for teams {teams} (only seats 0+2 against 1+3)")


def combinations(spec: TournamentSpec) -> list[tuple[str, ...]]:
    """Every combination of ``players`` bots, in schedule order (round robin only:
    ``C(N, k)`` of them)."""
    return list(itertools.combinations([b.name for b in spec.bots], spec.players))


def block_matches(spec: TournamentSpec, group: tuple[str, ...], rep: int, number: int, start: int,
                  seed: int | None) -> list[ScheduledMatch]:
    """The whole block of ``group`` as matches numbered from ``start``, all
    on ``seed``, or (``None``) each match on its own seed (``match:<index>``)."""
    return [ScheduledMatch(start + i, seats, derive_seed(spec.seed, f"match:{start + i}") if seed is None else seed,
                           rep, number, i)
            for i, seats in enumerate(seatings(group, spec.seatings))]


def repetition(spec: TournamentSpec, rep: int, combo_indices: list[int], start: int,
               combos: list[tuple[str, ...]] | None = None) -> list[ScheduledMatch]:
    """Repetition ``rep`` of the combinations ``combo_indices`` (indices into
    :func:`combinations`, passed as ``combos`` when already listed), each in
    its whole block, numbered from ``start``. Duplicate: every match on the
    repetition's seed ``dup:<rep>``."""
    combos = combinations(spec) if combos is None else combos
    seed = derive_seed(spec.seed, f"dup:{rep}") if spec.duplicate else None
    out: list[ScheduledMatch] = []
    for ci in combo_indices:
        out.extend(block_matches(spec, combos[ci], rep, ci, start + len(out), seed))
    return out


def sampled(spec: TournamentSpec) -> list[ScheduledMatch]:
    """The sampled schedule (see the module docstring): groups from
    :func:`tournaments.sampled.draw_rounds`, seeded by the tournament seed.
    ``O(matches * k)`` beyond the draw (``O(matches * block * k)`` for the seat
    choice when not duplicate): 1,000 bots, 3 seats, 60 matches each in
    about a second."""
    names = [b.name for b in spec.bots]
    k = spec.players
    rows = block(k, spec.seatings)
    appearances = math.ceil(spec.matches_per_bot / len(rows)) if spec.duplicate else spec.matches_per_bot
    rounds = draw_rounds(len(names), k, appearances, random.Random(derive_seed(spec.seed, "sampled")))
    out: list[ScheduledMatch] = []
    number = 0
    if spec.duplicate:
        for r, groups in enumerate(rounds):
            seed = derive_seed(spec.seed, f"dup:{r}")
            for g in groups:
                out.extend(block_matches(spec, tuple(names[b] for b in g), r, number, len(out), seed))
                number += 1
        return out
    tie = random.Random(derive_seed(spec.seed, "sampled-seats"))
    seat_counts: dict[str, list[int]] = {b: [0] * k for b in names}
    adjacency: dict[tuple[str, str], int] = {}
    for r, groups in enumerate(rounds):
        for g in groups:
            group = tuple(names[b] for b in g)
            i = least_used(group, rows, seat_counts, adjacency, tie.randrange(len(rows)))
            seats = tuple(group[p] for p in rows[i])
            for s, b in enumerate(seats):
                seat_counts[b][s] += 1
            for pair in adjacencies(seats):
                adjacency[pair] = adjacency.get(pair, 0) + 1
            idx = len(out)
            out.append(ScheduledMatch(idx, seats, derive_seed(spec.seed, f"match:{idx}"), r, number, i))
            number += 1
    return out


def build(spec: TournamentSpec) -> list[ScheduledMatch]:
    """The whole fixed schedule (for ``until = "separated"``: its first part,
    see :mod:`tournaments.adaptive`) in index order; its length is
    :func:`tournaments.spec.schedule_size`. Raises ``ValueError`` if there
    are fewer bots than seats or the game's teams are not seats 0+2 against
    1+3."""
    if len(spec.bots) < spec.players:
        raise ValueError(f"{len(spec.bots)} {plural(len(spec.bots), 'bot')} for {spec.players} seats")
    check_teams(spec)
    if spec.schedule == "sampled":
        return sampled(spec)
    combos = combinations(spec)
    every = list(range(len(combos)))
    out: list[ScheduledMatch] = []
    for rep in range(spec.games):
        out.extend(repetition(spec, rep, every, len(out), combos))
    return out


@dataclass(frozen=True)
class Balance:
    """How even a list of matches is. ``per_bot``: the fewest and the most
    matches of one bot; ``meetings``: the fewest and the most matches two
    bots played together, over every pair of bots; ``seat_spread``: for the
    bot where it is largest, its most minus its fewest sittings in one seat;
    ``order_spread``: for the pair where it is largest, how much more often
    one sat immediately before the other (cyclically) than the reverse."""

    matches: int
    per_bot: tuple[int, int]
    meetings: tuple[int, int]
    seat_spread: int
    order_spread: int

    def describe(self) -> str:
        """``"every bot 60-61 matches, pairs meet 0-2 times, seats within 1, order within 0"``."""
        def span(lo: int, hi: int, noun: str, nouns: str) -> str:
            return f"{lo} {plural(lo, noun, nouns)}" if lo == hi else f"{lo}-{hi} {nouns}"

        return (f"every bot {span(*self.per_bot, 'match', 'matches')}, pairs meet "
                f"{span(*self.meetings, 'time', 'times')}, "
                f"seats within {self.seat_spread}, order within {self.order_spread}")


def balance(matches: list[ScheduledMatch], bots: list[str]) -> Balance:
    """The :class:`Balance` of ``matches`` among ``bots``. ``O(matches * k)``
    plus ``O(groups * k^2)`` for the pairs (matches of one group are counted
    together)."""
    per_bot = {b: 0 for b in bots}
    seats: dict[str, dict[int, int]] = {b: {} for b in bots}
    order: dict[tuple[str, str], int] = {}
    groups: dict[frozenset[str], int] = {}
    for m in matches:
        for s, b in enumerate(m.seats):
            per_bot[b] += 1
            seats[b][s] = seats[b].get(s, 0) + 1
        for pair in adjacencies(m.seats):
            order[pair] = order.get(pair, 0) + 1
        key = frozenset(m.seats)
        groups[key] = groups.get(key, 0) + 1
    met: dict[frozenset[str], int] = {}
    for g, n in groups.items():
        for a, b in itertools.combinations(sorted(g), 2):
            met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + n
    k = len(matches[0].seats) if matches else 0
    pairs = len(bots) * (len(bots) - 1) // 2
    fewest = 0 if len(met) < pairs else min(met.values(), default=0)
    seat_spread = max((max(c.get(s, 0) for s in range(k)) - min(c.get(s, 0) for s in range(k))
                       for c in seats.values()), default=0)
    order_spread = max((abs(n - order.get((b, a), 0)) for (a, b), n in order.items()), default=0)
    return Balance(len(matches), (min(per_bot.values(), default=0), max(per_bot.values(), default=0)),
                   (fewest, max(met.values(), default=0)), seat_spread, order_spread)
