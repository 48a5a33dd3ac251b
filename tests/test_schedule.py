"""Fair schedules at any size (issue #37): seat order balanced on a round
table, duplicate deals shared by every group of a repetition, exactly equal
results for copies of one deterministic bot, sampled schedules for large
fields, the ladder's seat choice."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import random
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import PY, ROOT
from referee.games import game_class
from referee.local import play_local, random_policy
from sample_bots.heuristics import chooser
from tournaments import matchmaking, spec as tspec
from tournaments.adaptive import STOP_PAIRS, AdaptiveSchedule, describe_pairs, nearest
from tournaments.ladder import LadderState, load as load_ladder, rebuild, verify_history
from tournaments.ladder_store import Event
from tournaments.rating import fit_rows, leaderboard
from tournaments.schedule import ScheduledMatch, balance, build, derive_seed
from tournaments.seatings import (DESIGNS, adjacencies, block, block_size, double_cover, least_used,
                                  undirected_cycles, walecki)
from tournaments.spec import TrueSkillParams, schedule_size
from tournaments.store import MatchRow

#: every game and player count
SETUPS = [(g, k) for g in ("smear", "doudizhu", "president", "tractor", "back_alley")
          for k in game_class(g).player_counts]
#: short matches: one round (deal) where the game allows it
SHORT = {"doudizhu": {"rounds": 1}, "tractor": {"max_rounds": 1}, "smear": {"max_rounds": 2},
         "president": {"max_rounds": 1}, "back_alley": {"first_round": 1, "last_round": 1}}


def _spec(game: str, players: int, names: list[str], **schedule) -> tspec.TournamentSpec:
    """A parsed tournament file with a ``[schedule]`` table (``games`` and
    ``seed`` may be given too)."""
    raw = {"name": "t", "game": game, "players": players, "seed": schedule.pop("seed", 5),
           "params": SHORT[game], "schedule": schedule,
           "bots": [{"name": n, "command": "python sample_bots/random_bot.py"} for n in names]}
    if "games" in schedule:
        raw["games"] = schedule.pop("games")
    return tspec.parse(raw)


def _names(n: int) -> list[str]:
    return [f"b{i:03d}" for i in range(n)]


# ------------------------------------------------------------------ (a) balance of the blocks
@pytest.mark.parametrize("k", range(2, 8))
@pytest.mark.parametrize("design", DESIGNS)
def test_every_block_balances_seats_and_cyclic_order(k: int, design: str) -> None:
    rows = block(k, design)
    assert len(rows) == len(set(rows)) == block_size(k, design)
    assert all(sorted(r) == list(range(k)) for r in rows)
    seats = Counter((r[s], s) for r in rows for s in range(k))
    assert len(seats) == k * k and len(set(seats.values())) == 1  # every position in every seat equally often
    order = Counter(pair for r in rows for pair in adjacencies(r))
    assert len(order) == k * (k - 1) and len(set(order.values())) == 1  # a before b (cyclically) equally often
    for start in range(0, len(rows), k):  # every whole group of k rows is a Latin square
        assert all(sorted(r[s] for r in rows[start:start + k]) == list(range(k)) for s in range(k))
    if design == "all" or k <= 4:
        assert set(rows) == set(itertools.permutations(range(k)))
    expected = {5: 20, 6: 60, 7: 42}.get(k, math.factorial(k)) if design == "balanced" else math.factorial(k)
    assert len(rows) == expected


def test_the_cyclic_designs_cover_every_pair_as_claimed() -> None:
    for k, cycles, lam in ((5, walecki(5), 1), (7, walecki(7), 1), (6, double_cover(6), 2), (4, double_cover(4), 2)):
        assert len(cycles) == len(set(cycles)) == (k - 1) * lam // 2
        cover = Counter(frozenset((c[i], c[(i + 1) % k])) for c in cycles for i in range(k))
        assert all(sorted(c) == list(range(k)) for c in cycles)
        assert len(cover) == k * (k - 1) // 2 and set(cover.values()) == {lam}, k
    assert len(walecki(7)) == 3 and len(double_cover(6)) == 5 and undirected_cycles(6) == double_cover(6)
    with pytest.raises(ValueError):
        walecki(6)
    with pytest.raises(ValueError, match="seatings must be one of"):
        block(4, "some")


@settings(max_examples=60, deadline=None)
@given(k=st.integers(2, 5), history=st.lists(st.integers(0, 5), min_size=0, max_size=40),
       start=st.integers(0, 200))
def test_least_used_picks_the_cheapest_seat_order_first_from_start(k: int, history: list[int], start: int) -> None:
    names = [f"x{i}" for i in range(k)]
    rng = random.Random(sum(history) + k)
    counts = {b: [rng.choice(history or [0]) for _ in range(k)] for b in names}
    adjacency = {(a, b): rng.choice(history or [0]) for a in names for b in names if a != b}
    rows = block(k)
    i = least_used(names, rows, counts, adjacency, start % len(rows))

    def cost(row: tuple[int, ...]) -> int:
        seats = [names[p] for p in row]
        return sum(counts[b][s] for s, b in enumerate(seats)) + sum(adjacency[p] for p in adjacencies(seats))

    best = min(cost(r) for r in rows)
    assert cost(rows[i]) == best
    first = next(j % len(rows) for j in range(start % len(rows), start % len(rows) + len(rows))
                 if cost(rows[j % len(rows)]) == best)
    assert i == first


@pytest.mark.parametrize("game,players", SETUPS)
@pytest.mark.parametrize("kind", ["round_robin", "duplicate"])
def test_round_robin_and_duplicate_balance_seats_and_order_in_every_combination(game: str, players: int,
                                                                                kind: str) -> None:
    names = _names(players + 1)
    spec = _spec(game, players, names, kind=kind, games=2)
    sched = build(spec)
    assert len(sched) == schedule_size(len(names), players, kind, 2) == spec_size(spec)
    assert [m.index for m in sched] == list(range(len(sched)))
    by_group: dict[tuple[int, int], list[ScheduledMatch]] = {}
    for m in sched:
        by_group.setdefault((m.repetition, m.group), []).append(m)
    assert len(by_group) == 2 * math.comb(len(names), players)
    teams = game_class(game).teams(players)
    for ms in by_group.values():
        group = set(ms[0].seats)
        assert all(set(m.seats) == group for m in ms) and len(group) == players
        seats = Counter((b, s) for m in ms for s, b in enumerate(m.seats))
        assert len(seats) == players * players and len(set(seats.values())) == 1
        order = Counter(p for m in ms for p in adjacencies(m.seats))  # in a partnership game: opponents
        assert len(order) == players * (players - 1) and len(set(order.values())) == 1
        if teams:
            partners = Counter(frozenset((m.seats[t[0]], m.seats[t[1]])) for m in ms for t in teams)
            assert len(partners) == 6 and len(set(partners.values())) == 1
    seeds = Counter(m.seed for m in sched)
    if kind == "duplicate":  # one seed per repetition, shared by every combination and seat order
        assert {m.repetition: m.seed for m in sched} == {r: derive_seed(5, f"dup:{r}") for r in range(2)}
        assert len(seeds) == 2
    else:
        assert len(seeds) == len(sched)
    assert build(spec) == sched


def spec_size(spec: tspec.TournamentSpec) -> int:
    return schedule_size(len(spec.bots), spec.players, spec.schedule, spec.games, spec.seatings,
                         spec.matches_per_bot, spec.duplicate)


def _swapped(sched: list[ScheduledMatch], a: str, b: str) -> Counter:
    swap = {a: b, b: a}
    return Counter((m.seed, tuple(swap.get(x, x) for x in m.seats)) for m in sched)


@pytest.mark.parametrize("players,design,closed,extra", [(3, "balanced", True, 2), (4, "balanced", True, 2),
                                                         (5, "all", True, 2), (7, "all", True, 1),
                                                         (5, "balanced", False, 2), (6, "balanced", False, 2),
                                                         (7, "balanced", False, 2)])
def test_a_duplicate_schedule_is_closed_under_swapping_two_bots_exactly_when_its_blocks_hold_every_order(
        players: int, design: str, closed: bool, extra: int) -> None:
    """What makes copies equal: swapping the names of two bots maps the
    schedule (seed, seats) onto itself. Every order (k <= 4, or seatings =
    "all") does that for every pair, whatever the combinations; the cyclic
    designs at 5+ players do not (docs: the price of exactness)."""
    game = "president" if players >= 4 else "doudizhu"
    names = _names(players + extra)
    sched = build(_spec(game, players, names, kind="duplicate", seatings=design))
    mine = Counter((m.seed, m.seats) for m in sched)
    results = [_swapped(sched, a, b) == mine for a, b in itertools.combinations(names, 2)]
    assert all(results) if closed else not all(results)


# ------------------------------------------------------------------ (b) copies get exactly equal results
@pytest.mark.parametrize("game", ["smear", "doudizhu", "president", "tractor", "back_alley"])
def test_the_heuristics_are_deterministic(game: str) -> None:
    h = chooser(game)
    players = game_class(game).player_counts[-1]

    def played(seed: int) -> list[bytes]:
        seen: list[bytes] = []

        def rec(req):
            action = h(req)
            seen.append(req.SerializeToString() + b"|" + action.SerializeToString())
            return action

        play_local(game, players, [rec] * players, seed, params=SHORT[game])
        return seen

    for seed in (1, 2):
        assert played(seed) == played(seed) and played(seed)


def _play(game: str, players: int, sched: list[ScheduledMatch], copies: tuple[str, str]) -> list[MatchRow]:
    """Play ``sched`` in process: the copies with the heuristic, every other
    bot with a random policy seeded by its name and the match's seed (a bot
    that behaves the same on the same deals)."""
    h = chooser(game)
    rows = []
    for m in sched:
        pols = [h if b in copies else random_policy(derive_seed(m.seed, b)) for b in m.seats]
        _, res, _ = play_local(game, players, pols, m.seed, params=SHORT[game])
        rows.append(MatchRow(m.index, m.seed, list(m.seats), "complete",
                             {"ranks": list(res.ranks), "scores": list(res.scores)}, None))
    return rows


EXACT = [("smear", 2, 4, "balanced"), ("smear", 3, 5, "balanced"), ("doudizhu", 3, 5, "balanced"),
         ("doudizhu", 4, 5, "balanced"), ("president", 4, 5, "balanced"), ("president", 5, 6, "all"),
         ("president", 6, 6, "all"), ("tractor", 4, 5, "balanced"), ("back_alley", 4, 5, "balanced")]


@pytest.mark.parametrize("game,players,bots,design", EXACT)
def test_copies_of_a_deterministic_bot_get_exactly_equal_results_on_a_duplicate_schedule(
        game: str, players: int, bots: int, design: str) -> None:
    others = [f"random-{i}" for i in range(bots - 2)]
    names = others[:1] + ["copy-a"] + others[1:2] + ["copy-b"] + others[2:]  # not next to each other in the list
    spec = _spec(game, players, names, kind="duplicate", seatings=design)
    sched = build(spec)
    one_copy = {m.group for m in sched if ("copy-a" in m.seats) != ("copy-b" in m.seats)}
    assert one_copy or bots == players  # some combinations hold only one of the copies
    t0 = time.perf_counter()
    rows = _play(game, players, sched, ("copy-a", "copy-b"))
    print(f"{game} {players}p {bots} bots {design}: {len(rows)} matches in {time.perf_counter() - t0:.1f} s")
    total = Counter()
    for r in rows:
        for s, b in enumerate(r.seats):
            total[b] += r.result["scores"][s]
    assert total["copy-a"] == total["copy-b"]
    fit = fit_rows(rows, names, game, players, spec.seed)
    a, b = names.index("copy-a"), names.index("copy-b")
    assert fit.elo[a] == pytest.approx(fit.elo[b], abs=1e-9)
    board = leaderboard(rows, names, TrueSkillParams(), {}, game, players, spec.seed)
    means = {r.bot: r.mean_score for r in board}
    assert means["copy-a"] == means["copy-b"]
    at = [r.bot for r in board]
    upper = board[min(at.index("copy-a"), at.index("copy-b"))]
    assert abs(at.index("copy-a") - at.index("copy-b")) == 1  # equal ratings: next to each other
    print(f"P(copy ahead of copy) = {upper.p_next}")
    assert not upper.separated
    # the other bots played: a control that the copies did not simply tie everyone
    assert len({round(r.elo, 6) for r in board}) > 1


@pytest.mark.parametrize("players", [5, 6, 7])
def test_the_balanced_design_at_five_to_seven_players_shares_deals_and_balances_every_bot(players: int) -> None:
    """What the default design guarantees beyond 4 players (the copies'
    results may differ: see the closure test): one deal seed per repetition,
    and over the schedule every bot plays as often, in every seat as often,
    before and after every other bot as often (per group: the round robin
    test above)."""
    names = ["copy-a", "random-0", "random-1", "copy-b"] + [f"random-{i}" for i in range(2, players - 1)]
    spec = _spec("president", players, names, kind="duplicate", games=2)
    sched = build(spec)
    assert len(sched) == 2 * math.comb(players + 1, players) * {5: 20, 6: 60, 7: 42}[players]
    assert {m.repetition: m.seed for m in sched} == {r: derive_seed(spec.seed, f"dup:{r}") for r in (0, 1)}
    bal = balance(sched, names)
    assert bal.seat_spread == 0 and bal.order_spread == 0 and bal.per_bot[0] == bal.per_bot[1]
    assert bal.meetings[0] == bal.meetings[1]


@pytest.mark.slow
def test_the_sample_dou_dizhu_tournament_rates_its_two_heuristic_copies_equal_over_grpc(tmp_path: Path) -> None:
    src = (ROOT / "tournaments" / "examples" / "doudizhu.toml").read_text()
    assert 'schedule = "duplicate"' in src
    text = (src.replace('database = "runs/referee.sqlite"', f'database = "{tmp_path / "d.sqlite"}"')
               .replace('log_dir = "runs/logs"', f'log_dir = "{tmp_path / "logs"}"'))
    text = text.replace("games = 2 ", "games = 1 ").replace("rounds = 4 ", "rounds = 2 ")  # shorter, same design
    assert text.count("\n") == src.count("\n") and len(set(text.splitlines()) - set(src.splitlines())) == 4
    f = tmp_path / "d.toml"
    f.write_text(text)
    r = subprocess.run([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet", "--format", "json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "24 matches (every bot 18 matches" in r.stderr
    board = {row["bot"]: row for row in json.loads(r.stdout)}
    a, b = board["heuristic-a"], board["heuristic-b"]
    assert a["matches"] == b["matches"] == 18 and a["timeouts"] == b["timeouts"] == 0
    assert a["mean_score"] == b["mean_score"] and a["elo"] == b["elo"] and a["wins"] == b["wins"]
    upper = a if a["rank"] < b["rank"] else b
    assert abs(a["rank"] - b["rank"]) == 1 and upper["separated_from_next"] is False


# ------------------------------------------------------------------ (c) sampled schedules
@settings(max_examples=40, deadline=None)
@given(setup=st.sampled_from(SETUPS), extra=st.integers(0, 30), per_bot=st.integers(1, 40),
       duplicate=st.booleans(), seed=st.integers(0, 2**20))
def test_a_sampled_schedule_gives_every_bot_its_matches_within_one(setup, extra, per_bot, duplicate, seed) -> None:
    game, k = setup
    names = _names(k + extra)
    spec = _spec(game, k, names, kind="sampled", matches_per_bot=per_bot, duplicate=duplicate, seed=seed)
    sched = build(spec)
    assert len(sched) == spec_size(spec)
    assert [m.index for m in sched] == list(range(len(sched)))
    per = Counter(b for m in sched for b in m.seats)
    assert all(len(set(m.seats)) == k for m in sched)
    size = block_size(k)
    if duplicate:  # whole blocks: K rounded up to blocks, every bot within one block
        blocks = math.ceil(per_bot / size)
        assert set(per.values()) <= {blocks * size, (blocks + 1) * size} and len(per) == len(names)
        for r in {m.repetition for m in sched}:  # a round: every bot in at most one group, one seed
            ms = [m for m in sched if m.repetition == r]
            assert len({m.seed for m in ms}) == 1
            groups = {m.group: frozenset(m.seats) for m in ms}
            assert sum(len(g) for g in groups.values()) == len(set().union(*groups.values()))
            for g in groups:
                rows = [m.seats for m in ms if m.group == g]
                assert len(rows) == size and len(set(rows)) == size  # the whole block
    else:
        assert set(per.values()) <= {per_bot, per_bot + 1} and len(per) == len(names)
        assert len({m.seed for m in sched}) == len(sched)
    assert build(spec) == sched  # a pure function of the file


@pytest.mark.parametrize("bots,game,k,per_bot", [(10, "smear", 3, 30), (12, "president", 5, 50),
                                                 (20, "doudizhu", 3, 60), (40, "president", 4, 40),
                                                 (100, "doudizhu", 3, 60), (100, "president", 7, 60)])
def test_a_sampled_schedule_spreads_meetings_seats_and_order_evenly(bots: int, game: str, k: int,
                                                                   per_bot: int) -> None:
    names = _names(bots)
    spec = _spec(game, k, names, kind="sampled", matches_per_bot=per_bot)
    sched = build(spec)
    bal = balance(sched, names)
    mean = len(sched) * k * (k - 1) / 2 / math.comb(bots, 2)
    print(f"{bots} bots, {k} seats, {per_bot} each: {bal.describe()} (mean meetings {mean:.2f})")
    assert bal.per_bot[1] - bal.per_bot[0] <= 1
    assert math.floor(mean) - 2 <= bal.meetings[0] and bal.meetings[1] <= math.ceil(mean) + 2
    assert bal.seat_spread <= 3 and bal.order_spread <= 3
    # the report is what a plain count gives
    met = Counter(frozenset(p) for m in sched for p in itertools.combinations(m.seats, 2))
    every = [met.get(frozenset(p), 0) for p in itertools.combinations(names, 2)]
    assert bal.meetings == (min(every), max(every))
    seats = Counter((b, s) for m in sched for s, b in enumerate(m.seats))
    assert bal.seat_spread == max(max(seats[(b, s)] for s in range(k)) - min(seats[(b, s)] for s in range(k))
                                  for b in names)
    other = build(_spec(game, k, names, kind="sampled", matches_per_bot=per_bot, seed=6))
    assert [m.seats for m in other] != [m.seats for m in sched]  # the seed decides the draw


def test_a_thousand_bot_sampled_schedule_is_drawn_without_listing_combinations(monkeypatch, tmp_path: Path) -> None:
    import tournaments.schedule as schedule

    def refuse(spec):
        raise AssertionError("a sampled schedule listed the combinations")

    monkeypatch.setattr(schedule, "combinations", refuse)
    names = _names(1000)
    for duplicate in (False, True):
        spec = _spec("doudizhu", 3, names, kind="sampled", matches_per_bot=60, duplicate=duplicate)
        t0 = time.perf_counter()
        sched = AdaptiveSchedule(spec)
        built = time.perf_counter() - t0
        plan = sched.plan()
        print(f"1,000 bots, 3 seats, 60 matches each{' (duplicate)' if duplicate else ''}: {len(sched.matches)} "
              f"matches drawn in {built:.2f} s, plan in {time.perf_counter() - t0 - built:.2f} s: {plan}")
        assert len(sched.matches) == spec_size(spec) == (20_000 if not duplicate else 3334 * 6)
    # the spec refuses the round robin of the same field, at the schedule key's line, and says what to do
    f = tmp_path / "big.toml"
    f.write_text('name = "big"\ngame = "doudizhu"\nplayers = 3\nschedule = "round_robin"\n' + "".join(
        f'[[bots]]\nname = "{n}"\ncommand = "python sample_bots/random_bot.py"\n' for n in names[:200]))
    with pytest.raises(tspec.SpecError) as e:
        tspec.load(f)
    assert "big.toml:4: schedule: a round robin of 200 bots in 3 seats is 7,880,400 matches" in str(e.value)
    assert 'use a [schedule] table with kind = "sampled" and matches_per_bot = K' in str(e.value)


def test_sampled_keys_are_validated_with_lines(tmp_path: Path) -> None:
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py"\n' for i in range(4))
    cases = [('schedule = "sampled"\n', "t.toml:4: schedule: a sampled schedule needs its length"),
             ('[schedule]\nkind = "sampled"\n', "t.toml:4: schedule: a sampled schedule needs its length"),
             ('games = 2\n[schedule]\nkind = "sampled"\nmatches_per_bot = 3\n', "t.toml:4: games: a sampled"),
             ('[schedule]\nkind = "duplicate"\nmatches_per_bot = 3\n', "t.toml:6: schedule.matches_per_bot: only"),
             ('[schedule]\nkind = "round_robin"\nduplicate = true\n', 'kind = "duplicate"'),
             ('[schedule]\nseatings = "some"\n', "t.toml:5: schedule.seatings: must be one of balanced, all"),
             ('[schedule]\nkind = "sampled"\nmatches_per_bot = 0\n', "t.toml:6: schedule.matches_per_bot"),
             ('[schedule]\nkind = "sampled"\nmatches_per_bot = 4\nuntil = "separated"\nmax_matches = 5\n',
              "schedule.max_matches: is below the first full schedule (6 matches)")]
    for text, want in cases:
        f = tmp_path / "t.toml"
        f.write_text('name = "x"\ngame = "doudizhu"\nplayers = 3\n' + text + bots)
        with pytest.raises(tspec.SpecError) as e:
            tspec.load(f)
        assert want in str(e.value), (text, str(e.value))
    f.write_text('name = "x"\ngame = "doudizhu"\nplayers = 3\n[schedule]\nkind = "sampled"\nmatches_per_bot = 4\n'
                 'duplicate = true\nseatings = "all"\n' + bots)
    s = tspec.load(f)
    assert (s.schedule, s.matches_per_bot, s.duplicate, s.seatings) == ("sampled", 4, True, "all")


def _strength_rows(sched: AdaptiveSchedule, strengths: dict[str, float], kill_after: int | None = None
                   ) -> tuple[AdaptiveSchedule, list[MatchRow]]:
    """Run an adaptive schedule against simulated results (each match's
    finishing order a pure function of its seed and seats); ``kill_after``:
    stop after that many matches and go on with a new schedule built from the
    stored rows alone (a killed driver)."""
    spec = sched.spec
    rows: list[MatchRow] = []
    played = 0
    while sched.advance(rows) is None:
        for m in sched.pending({r.idx for r in rows}):
            if kill_after is not None and played == kill_after:
                sched = AdaptiveSchedule(spec)
                kill_after = None
                break
            rng = random.Random(derive_seed(m.seed, "|".join(m.seats)))
            perf = {b: strengths[b] + rng.gauss(0, 1) for b in m.seats}
            order = sorted(m.seats, key=lambda b: -perf[b])
            ranks = [order.index(b) + 1 for b in m.seats]
            rows.append(MatchRow(m.index, m.seed, list(m.seats), "complete",
                                 {"ranks": ranks, "scores": [-r for r in ranks]}, None))
            played += 1
    return sched, rows


@pytest.mark.parametrize("duplicate", [False, True])
def test_sampled_until_separated_adds_groups_for_open_pairs_only_and_resumes_exactly(duplicate: bool) -> None:
    strengths = {"top": 6.0, "twin-a": 0.0, "twin-b": 0.0, "low-a": -3.0, "low-b": -3.2, "bottom": -9.0}
    spec = _spec("smear", 3, list(strengths), kind="sampled", matches_per_bot=12, duplicate=duplicate,
                 until="separated", max_matches=150)
    sched, rows = _strength_rows(AdaptiveSchedule(spec), strengths)
    fixed = sched.fixed_matches
    assert sched.stop is not None and len(sched.matches) > fixed and len(rows) == len(sched.matches) <= 150
    # replay the decisions: each added block holds, for each open pair of the board before it, one group of
    # the pair and its nearest neighbour on the board, in its whole block, on one new seed
    done = fixed
    for rep in range(sched.fixed_repetitions, sched.fixed_repetitions + sched.blocks):
        block_ms = [m for m in sched.matches if m.repetition == rep]
        board = leaderboard([r for r in rows if r.idx < done], list(strengths), TrueSkillParams(), {}, "smear", 3,
                            spec.seed)
        names = [r.bot for r in board]
        open_pairs = [(u.bot, lo.bot) for u, lo in zip(board, board[1:]) if not u.separated]
        want = list(dict.fromkeys(frozenset(nearest(names, p, 3)) for p in open_pairs))
        got = list(dict.fromkeys(frozenset(m.seats) for m in block_ms))
        assert got == want[:len(got)] and got
        assert all(any(a in g and b in g for a, b in open_pairs) for g in got)
        assert len({m.seed for m in block_ms}) == 1 and len(block_ms) == 6 * len(got)
        done += len(block_ms)
    for kill in (fixed - 1, len(rows) - 2):
        resumed, rows2 = _strength_rows(AdaptiveSchedule(spec), strengths, kill_after=kill)
        assert resumed.matches == sched.matches and sorted(r.idx for r in rows2) == sorted(r.idx for r in rows)


def test_a_budget_stop_line_names_the_first_open_pairs_by_place_and_counts_the_rest() -> None:
    names = _names(30)  # equal bots: hardly a pair separates, the budget is the fixed schedule
    spec = _spec("smear", 3, names, kind="sampled", matches_per_bot=6, until="separated", max_matches=60)
    sched, rows = _strength_rows(AdaptiveSchedule(spec), dict.fromkeys(names, 0.0))
    assert sched.stop is not None and sched.stop.kind == "budget" and len(rows) == 60
    board = leaderboard(rows, names, TrueSkillParams(), {}, "smear", 3, spec.seed)
    open_pairs = [f"{u.bot} > {lo.bot} (P {u.p_next:.2f})" for u, lo in zip(board, board[1:]) if not u.separated]
    assert len(open_pairs) > STOP_PAIRS
    assert sched.stop.text.endswith(f"not separated at 95%: {', '.join(open_pairs[:STOP_PAIRS])} and "
                                    f"{len(open_pairs) - STOP_PAIRS} more (every one marked ~ on the leaderboard)")
    assert describe_pairs(board, limit=len(board)) == ", ".join(open_pairs)  # a short list is written whole


def test_nearest_takes_the_neighbours_above_and_below_in_turn() -> None:
    board = list("abcdefg")
    assert nearest(board, ("c", "d"), 3) == ["c", "d", "b"]
    assert nearest(board, ("c", "d"), 5) == ["c", "d", "b", "e", "a"]
    assert nearest(board, ("a", "b"), 4) == ["a", "b", "c", "d"]
    assert nearest(board, ("f", "g"), 4) == ["f", "g", "e", "d"]


@pytest.mark.slow
def test_a_sampled_tournament_stopped_and_resumed_plays_the_same_matches(tmp_path: Path) -> None:
    from tournaments.run import run_tournament

    def file(name: str) -> tspec.TournamentSpec:
        f = tmp_path / f"{name}.toml"
        f.write_text(f'name = "s"\ngame = "smear"\nplayers = 3\nseed = 8\nconcurrency = 2\n'
                     f'database = "{tmp_path / name}.sqlite"\nlog_dir = "{tmp_path / name}"\n'
                     'params = { max_rounds = 2 }\n[schedule]\nkind = "sampled"\nmatches_per_bot = 3\n' + "".join(
                         f'[[bots]]\nname = "r{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                         for i in range(5)))
        return tspec.load(f)

    def stored(spec: tspec.TournamentSpec) -> list[tuple]:
        from tournaments.store import Store

        s = Store(spec.database)
        try:
            return [(r.idx, r.seed, tuple(r.seats), tuple(r.result["scores"]))
                    for r in s.matches(s.tournament("s")["id"])]
        finally:
            s.close()

    whole = file("whole")
    res = asyncio.run(run_tournament(whole))
    assert res.stop is not None and res.progress.done == 5 == spec_size(whole)
    part = file("part")
    first = asyncio.run(run_tournament(part, stop_after=2))
    assert first.stop is None and len(stored(part)) == 2  # a run cut short, as by kill -9 between matches
    rest = asyncio.run(run_tournament(part, resume=True))
    assert rest.progress.skipped == 2 and rest.stop is not None
    assert stored(part) == stored(whole)


# ------------------------------------------------------------------ (d) the ladder's seat choice
def test_the_ladder_seat_choice_balances_cyclic_order_over_time() -> None:
    """Many matches of a few bots through matchmaking.seat: with the
    adjacency history every bot sits before and after every other about
    equally often; with seat counts alone (the negative control) it does not."""
    names = [f"l{i}" for i in range(5)]

    def simulate(use_adjacency: bool) -> tuple[int, int]:
        seat_counts = {n: [0, 0, 0] for n in names}
        adjacency: dict[tuple[str, str], int] = {}
        rng = random.Random(3)
        for sched in range(300):
            group = [matchmaking.Candidate(n, 25, 8, seat_counts=list(seat_counts[n]))
                     for n in sorted(rng.sample(names, 3))]
            seats = matchmaking.seat(group, 3, random.Random(derive_seed(1, f"m:{sched}")),
                                     adjacency=adjacency if use_adjacency else None)
            for s, n in enumerate(seats):
                seat_counts[n][s] += 1
            for p in adjacencies(seats):
                adjacency[p] = adjacency.get(p, 0) + 1
        order = max(abs(adjacency.get((a, b), 0) - adjacency.get((b, a), 0)) for a in names for b in names)
        seat = max(max(c) - min(c) for c in seat_counts.values())
        return order, seat

    with_order, seat_spread = simulate(True)
    without, _ = simulate(False)
    print(f"order spread with adjacency {with_order}, seat counts only {without}; seat spread {seat_spread}")
    assert with_order <= 2 and seat_spread <= 2 and without > with_order


def test_the_ladder_state_keeps_adjacency_from_its_events_and_its_history_verifies(tmp_path: Path) -> None:
    f = tmp_path / "l.toml"
    f.write_text('name = "l"\ngame = "president"\nplayers = 4\nseed = 4\n' + "".join(
        f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n' for i in range(6)))
    spec = load_ladder(f)
    st_ = LadderState(spec)
    events: list[Event] = []
    rows: dict[int, MatchRow] = {}

    def rec(e: Event, row: MatchRow | None = None) -> None:
        e.seq = st_.last_seq + 1
        events.append(e)
        st_.apply(e, row)

    for b in spec.t.bots:
        rec(Event(0, "add", b.name, data={"version": 1, "label": f"{b.name}@v1", "command": b.command}))
    for i in range(120):
        m = st_.next_match()
        rec(Event(0, "scheduled", sched=m.sched, data={"seats": m.seats, "seed": str(m.seed),
                                                          "match_id": m.match_id,
                                                          "seating": matchmaking.SEATING_DESIGN}))
        ranks = [1 + (s + i) % 4 for s in range(4)]
        row = MatchRow(i + 1, m.seed, m.seats, "complete", {"status": "complete", "ranks": ranks,
                                                            "scores": [-r for r in ranks], "faults": [],
                                                            "forfeited": []}, None)
        rows[i + 1] = row
        rec(Event(0, "finished", sched=m.sched, data={"idx": i + 1, "status": "complete"}), row)
    counted = Counter(p for e in events if e.kind == "scheduled" for p in adjacencies(e.data["seats"]))
    assert st_.adjacency == dict(counted) == rebuild(spec, events, rows).adjacency
    assert verify_history(spec, events, rows) == []
    labels = list(st_.versions)
    spread = max(abs(counted.get((a, b), 0) - counted.get((b, a), 0)) for a in labels for b in labels)
    print(f"ladder: 120 matches of 6 bots, 4 seats: cyclic order spread {spread}")
    assert spread <= 2
