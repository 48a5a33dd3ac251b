"""Schedules: which bots meet, in which seats, with which seed.

``round_robin``: every combination of k bots out of N (k = players per
match), each combination in every seat rotation, ``games`` repetitions.
Free-for-all games use the k cyclic rotations of the combination.
Partnership games (two teams: seats 0+2 and 1+3) use, for each of the 3
ways to pair the 4 bots, both team assignments (which pair sits at the even
seats) and both seatings (partners' order swapped), i.e. 12 seatings.

``duplicate``: as round_robin, but every rotation of one combination (in one
repetition) plays the same seed, hence the same deals, so the luck of the
cards cancels out across the rotations.

Seeds derive from the tournament seed and the match's key only, so a
tournament is reproducible: ``sha256("<seed>:<key>")`` truncated to 63 bits.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

from referee.games import game_class
from tournaments.spec import TournamentSpec


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of a tournament: ``index`` 0-based in schedule order (the
    order ratings are applied in), ``seats`` bot names in seat order."""

    index: int
    seats: tuple[str, ...]
    seed: int
    repetition: int
    combination: int
    rotation: int


def derive_seed(tournament_seed: int, key: str) -> int:
    """Deterministic 63-bit seed for ``key`` under ``tournament_seed``."""
    h = hashlib.sha256(f"{tournament_seed}:{key}".encode()).digest()
    return int.from_bytes(h[:8], "big") & ((1 << 63) - 1)


def seatings(combo: tuple[str, ...], partnership: bool) -> list[tuple[str, ...]]:
    """Every seat arrangement of one combination (see module docstring)."""
    k = len(combo)
    if not partnership:
        return [combo[i:] + combo[:i] for i in range(k)]
    if k != 4:
        raise ValueError("partnership schedules need exactly 4 players")
    a = combo[0]
    out: list[tuple[str, ...]] = []
    for partner in combo[1:]:  # the 3 ways to pair four bots
        team_a = (a, partner)
        team_b = tuple(x for x in combo if x not in team_a)
        for even, odd in ((team_a, team_b), (team_b, team_a)):  # team assignment
            for swap in (False, True):  # seating within the teams
                e = even[::-1] if swap else even
                o = odd[::-1] if swap else odd
                out.append((e[0], o[0], e[1], o[1]))
    return out


def _partnership(spec: TournamentSpec) -> bool:
    """Whether the game is played by the partnerships seats 0+2 against 1+3, as
    the game declares (``Game.teams``); ``ValueError`` for a team structure
    no schedule here supports."""
    teams = game_class(spec.game).teams(spec.players)
    if teams and teams != ((0, 2), (1, 3)):
        raise ValueError(f"{spec.game}: no schedule for teams {teams} (only seats 0+2 against 1+3)")
    return bool(teams)


def combinations(spec: TournamentSpec) -> list[tuple[str, ...]]:
    """Every combination of ``players`` bots, in schedule order."""
    return list(itertools.combinations([b.name for b in spec.bots], spec.players))


def repetition(spec: TournamentSpec, rep: int, combo_indices: list[int], start: int) -> list[ScheduledMatch]:
    """Repetition ``rep`` of the combinations ``combo_indices`` (indices into
    :func:`combinations`), each in every seating, numbered from ``start``."""
    partnership = _partnership(spec)
    combos = combinations(spec)
    out: list[ScheduledMatch] = []
    for ci in combo_indices:
        dup_seed = derive_seed(spec.seed, f"dup:{rep}:{ci}")
        for ri, seats in enumerate(seatings(combos[ci], partnership)):
            idx = start + len(out)
            seed = dup_seed if spec.schedule == "duplicate" else derive_seed(spec.seed, f"match:{idx}")
            out.append(ScheduledMatch(idx, seats, seed, rep, ci, ri))
    return out


def build(spec: TournamentSpec) -> list[ScheduledMatch]:
    """The whole fixed schedule (for ``until = "separated"``: its first part,
    see :mod:`tournaments.adaptive`) in index order. Raises ``ValueError``
    if there are fewer bots than seats."""
    if len(spec.bots) < spec.players:
        raise ValueError(f"{len(spec.bots)} bots for {spec.players} seats")
    _partnership(spec)  # an unschedulable team structure is refused here
    every = list(range(len(combinations(spec))))
    out: list[ScheduledMatch] = []
    for rep in range(spec.games):
        out.extend(repetition(spec, rep, every, len(out)))
    return out
