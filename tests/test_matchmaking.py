"""Ladder matchmaking (tournaments/matchmaking.py) and the ladder's event-sourced
state (tournaments/ladder.py), without processes: uncertain bots first, every bot
at a fair rate, seats rotated, deterministic; ladder files validated with lines;
suspension after faulty matches; ratings equal to the tournament rating of the
stored matches."""

from __future__ import annotations

import json

import random
import textwrap
from collections import Counter
from pathlib import Path

import pytest
import trueskill

from tournaments import matchmaking
from tournaments.ladder import LadderState, load, rebuild, state_differences, verify_history
from tournaments.ladder_store import Event
from tournaments.matchmaking import Candidate, choose
from tournaments.rating import environment, rate
from tournaments.spec import SpecError, TrueSkillParams
from tournaments.store import MatchRow

ENV = environment(TrueSkillParams())


class Sim:
    """A ladder in miniature: bots of known strength, the matchmaker picks,
    results drawn from the strengths, TrueSkill updated, counters kept."""

    def __init__(self, names: list[str], players: int, seed: int = 1):
        self.players, self.seed, self.sched = players, seed, 0
        self.rng = random.Random(seed)
        self.r = {n: ENV.create_rating() for n in names}
        self.plays = Counter()
        self.last: dict[str, int] = {n: 0 for n in names}
        self.seats = {n: [0] * players for n in names}
        self.strength = {n: i for i, n in enumerate(names)}

    def add(self, name: str) -> None:
        self.r[name] = ENV.create_rating()
        self.last[name] = self.sched
        self.seats[name] = [0] * self.players
        self.strength[name] = len(self.strength)

    def cands(self) -> list[Candidate]:
        return [Candidate(n, r.mu, r.sigma, self.plays[n], self.sched - self.last[n], list(self.seats[n]))
                for n, r in self.r.items()]

    def step(self) -> list[str]:
        self.sched += 1
        seats = choose(self.cands(), self.players, ENV, self.seed, self.sched)
        assert seats is not None
        for s, n in enumerate(seats):
            self.plays[n] += 1
            self.last[n] = self.sched
            self.seats[n][s] += 1
        order = sorted(seats, key=lambda n: -(self.strength[n] + self.rng.gauss(0, 2)))
        new = ENV.rate([(self.r[n],) for n in order], ranks=list(range(len(order))))
        for n, (rt,) in zip(order, new):
            self.r[n] = rt
        return seats


def test_a_new_bot_plays_more_of_the_next_matches_than_an_established_one() -> None:
    sim = Sim([f"old{i}" for i in range(6)], players=3)
    for _ in range(60):
        sim.step()
    sim.add("new")
    before = Counter(sim.plays)
    for _ in range(10):
        sim.step()
    played = {n: sim.plays[n] - before[n] for n in sim.r}
    assert played["new"] >= 6, played  # far beyond its fair share (10 x 3 / 7 = 4.3)
    others = [played[n] for n in sim.r if n != "new"]
    # more than the established bots on average (its closest-rated opponent may play as often: the
    # matchmaker pairs it with them)
    assert played["new"] > sum(others) / len(others) and played["new"] >= max(others) - 1, played
    assert sim.r["new"].sigma < ENV.sigma  # and it got rated


def test_every_bot_plays_at_a_fair_rate_and_in_every_seat() -> None:
    names = [f"b{i}" for i in range(7)]
    sim = Sim(names, players=3, seed=5)
    waits: dict[str, int] = Counter()
    last = {n: 0 for n in names}
    for k in range(1, 211):
        for n in sim.step():
            waits[n] = max(waits[n], k - last[n])
            last[n] = k
    fair = 210 * 3 / 7
    limit = matchmaking.overdue_after(7, 3)
    for n in names:
        assert sim.plays[n] >= fair / 2, (n, sim.plays)
        assert waits[n] <= limit + 2, (n, waits)  # never starved beyond the overdue bound (+ one match in play)
        assert min(sim.seats[n]) >= sim.plays[n] / 3 - 4, (n, sim.seats[n])  # seats rotate


def test_choice_is_deterministic_and_independent_of_candidate_order() -> None:
    rng = random.Random(3)
    cands = [Candidate(f"b{i}", rng.uniform(20, 30), rng.uniform(1, 8), rng.randrange(20), rng.randrange(5),
                       [rng.randrange(5) for _ in range(4)]) for i in range(9)]
    first = choose(cands, 4, ENV, 11, 42)
    assert first is not None and len(set(first)) == 4
    for _ in range(5):
        rng.shuffle(cands)
        assert choose(cands, 4, ENV, 11, 42) == first
    assert choose(cands[:3], 4, ENV, 11, 42) is None
    picks = {tuple(choose(cands, 4, ENV, s, 42) or ()) for s in range(30)}
    assert len(picks) > 1  # the seed breaks ties: it does change choices


def test_an_overdue_bot_is_seated_before_uncertain_ones() -> None:
    cands = [Candidate("fresh1", 25, 8.3, 0, 0), Candidate("fresh2", 25, 8.3, 0, 0),
             Candidate("fresh3", 25, 8.3, 0, 0), Candidate("waiting", 30, 1.0, 50, 40)]
    assert "waiting" in (choose(cands, 3, ENV, 1, 1) or [])


# ---------------------------------------------------------------------- partnership games
TEAMS = ((0, 2), (1, 3))


def _teams_of(seats: list[str]) -> set[frozenset]:
    return {frozenset(seats[s] for s in team) for team in TEAMS}


def test_team_quality_is_trueskills_quality_of_the_teams() -> None:
    rng = random.Random(8)
    for _ in range(20):
        cs = [Candidate(f"b{i}", rng.uniform(10, 40), rng.uniform(0.5, 8.3)) for i in range(4)]
        split = [[cs[0], cs[2]], [cs[1], cs[3]]]
        want = ENV.quality([tuple(trueskill.Rating(c.mu, c.sigma) for c in team) for team in split])
        assert matchmaking.team_quality(split, ENV) == pytest.approx(want, rel=1e-9)
    assert len(matchmaking.splits(cs, TEAMS)) == 3  # four bots pair up in three ways


def test_partners_are_balanced_strong_with_weak() -> None:
    # two strong and two weak bots, all certain: strong+weak against strong+weak is the close match
    cands = [Candidate("s1", 35, 1.0, seat_counts=[0] * 4), Candidate("s2", 35, 1.0, seat_counts=[0] * 4),
             Candidate("w1", 15, 1.0, seat_counts=[0] * 4), Candidate("w2", 15, 1.0, seat_counts=[0] * 4)]
    for sched in range(1, 13):
        seats = choose(cands, 4, ENV, 3, sched, teams=TEAMS)
        assert seats is not None
        assert _teams_of(seats) in ({frozenset({"s1", "w1"}), frozenset({"s2", "w2"})},
                                    {frozenset({"s1", "w2"}), frozenset({"s2", "w1"})}), seats
    # without the teams, any seating is as good as any other: strong bots do end up partners
    free = {frozenset(map(frozenset, _teams_of(choose(cands, 4, ENV, 3, k) or []))) for k in range(1, 40)}
    assert any(frozenset({"s1", "s2"}) in split for split in free)


def test_the_group_chosen_makes_the_closest_team_match() -> None:
    # the anchor (most uncertain) plus three of five equally certain bots: as two teams, 40+10
    # against 25+25 is an even match; a mean over pairs would pick the bots most alike instead
    cands = [Candidate("new", 25, 8.0), Candidate("a", 40, 1.0), Candidate("b", 10, 1.0),
             Candidate("c", 25, 1.0), Candidate("d", 26, 1.0), Candidate("e", 24, 1.0)]
    seats = choose(cands, 4, ENV, 1, 1, teams=TEAMS)
    assert seats is not None and set(seats) == {"new", "a", "b", "c"}
    assert _teams_of(seats) == {frozenset({"a", "b"}), frozenset({"new", "c"})}
    assert set(choose(cands, 4, ENV, 1, 1) or []) == {"new", "c", "d", "e"}


def test_team_choice_is_deterministic_and_independent_of_candidate_order() -> None:
    rng = random.Random(5)
    cands = [Candidate(f"b{i}", rng.uniform(20, 30), rng.uniform(1, 8), rng.randrange(20), rng.randrange(5),
                       [rng.randrange(5) for _ in range(4)]) for i in range(8)]
    first = choose(cands, 4, ENV, 11, 7, teams=TEAMS)
    assert first is not None and len(set(first)) == 4
    for _ in range(5):
        rng.shuffle(cands)
        assert choose(cands, 4, ENV, 11, 7, teams=TEAMS) == first


def test_a_partnership_ladder_seats_balanced_teams(tmp_path: Path) -> None:
    """The ladder state asks the game for its teams (Tractor: seats 0+2 against 1+3)."""
    bots = "".join(f'[[bots]]\nname = "t{i}"\ncommand = "python sample_bots/random_bot.py"\n' for i in range(4))
    spec = load(_file(tmp_path, 'name = "l"\ngame = "tractor"\nplayers = 4\n' + bots))
    st = LadderState(spec)
    assert st.teams == TEAMS
    for i, b in enumerate(spec.t.bots):
        st.apply(Event(i + 1, "add", b.name, data={"version": 1, "label": f"{b.name}@v1", "command": b.command}))
    for lbl, mu in zip(st.ratings, (35, 34, 16, 15)):
        st.ratings[lbl] = trueskill.Rating(mu, 1.0)
    m = st.next_match()
    assert m is not None
    teams = _teams_of(m.seats)
    assert all(len({lbl[:2] for lbl in team}) == 2 for team in teams)
    strong = {"t0@v1", "t1@v1"}
    assert all(len(team & strong) == 1 for team in teams), m.seats  # one strong bot per team


# ---------------------------------------------------------------------- ladder files
def _file(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "l.toml"
    f.write_text(textwrap.dedent(text))
    return f


BOTS = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n' for i in range(3))


def test_ladder_file_problems_name_key_and_line(tmp_path: Path) -> None:
    f = _file(tmp_path, 'name = "l"\ngame = "doudizhu"\nschedule = "round_robin"\n[ladder]\nsuspend_after = 0\n'
                        'colour = "red"\n' + BOTS + 'persistent = "yes"\n')
    with pytest.raises(SpecError) as ei:
        load(f)
    probs = {(k, ln) for k, ln, _ in ei.value.problems}
    assert ("schedule", 3) in probs
    assert ("ladder.suspend_after", 5) in probs
    assert ("ladder.colour", 6) in probs
    assert ("bots[2].persistent", 16) in probs


def test_example_ladder_file_is_valid() -> None:
    from conftest import ROOT

    s = load(ROOT / "tournaments" / "examples" / "ladder" / "doudizhu.toml")
    assert s.t.game == "doudizhu" and s.suspend_after == 3 and len(s.t.bots) == 4


# ---------------------------------------------------------------------- state
def _spec(tmp_path: Path, suspend_after: int = 2):
    return load(_file(tmp_path, f'name = "l"\ngame = "doudizhu"\nseed = 4\n[ladder]\nsuspend_after = '
                                f'{suspend_after}\n' + BOTS))


def _result(seats: list[str], faults: list[dict] | None = None, winner: int = 0) -> dict:
    ranks = [1 if s == winner else 2 for s in range(len(seats))]
    return {"status": "complete", "scores": [2 if r == 1 else -1 for r in ranks], "ranks": ranks,
            "outcomes": [{"teams": [[winner], [s for s in range(len(seats)) if s != winner]], "ranks": [0, 1]}],
            "faults": faults or [], "forfeited": []}


def _drive(spec, results: list[tuple[list[dict], int]]) -> tuple[list[Event], dict[int, MatchRow]]:
    """Schedule and finish matches through the state the way the ladder does,
    recording the events (suspensions decided from the state, as live)."""
    st = LadderState(spec)
    events: list[Event] = []
    rows: dict[int, MatchRow] = {}

    def rec(e: Event, row: MatchRow | None = None) -> None:
        e.seq = st.last_seq + 1
        events.append(e)
        st.apply(e, row)

    for b in spec.t.bots:
        rec(Event(0, "add", b.name, data={"version": 1, "label": f"{b.name}@v1", "command": b.command}))
    for faults, winner in results:
        m = st.next_match()
        assert m is not None
        rec(Event(0, "scheduled", sched=m.sched, data={"seats": m.seats, "seed": str(m.seed), "match_id": m.match_id,
                                                       "seating": matchmaking.SEATING_DESIGN}))
        res = _result(m.seats, [dict(f, seat=m.seats.index(f["bot"])) for f in faults if f["bot"] in m.seats],
                      winner)
        idx = st.finished + 1
        row = MatchRow(idx, m.seed, m.seats, "complete", res, None)
        rows[idx] = row
        susp = st.suspensions(m, res)
        rec(Event(0, "finished", sched=m.sched, data={"idx": idx, "status": "complete"}), row)
        for e in susp:
            rec(e)
    return events, rows


def test_an_entrant_is_suspended_after_the_configured_faulty_matches_in_a_row(tmp_path: Path) -> None:
    spec = _spec(tmp_path, suspend_after=2)
    crash = {"bot": "b1@v1", "kind": "crash", "message": "bot exited with status 3"}
    events, rows = _drive(spec, [([crash], 0), ([], 0), ([crash], 0)])
    st = rebuild(spec, events, rows)
    assert st.entrants["b1"].state == "active"  # a clean match in between reset the count
    events, rows = _drive(spec, [([crash], 0), ([crash], 2)])
    st = rebuild(spec, events, rows)
    assert st.entrants["b1"].state == "suspended"
    assert "2 faulty matches in a row" in st.entrants["b1"].reason and "crash: bot exited" in st.entrants["b1"].reason
    assert st.next_match() is None  # two left for three seats
    assert verify_history(spec, events, rows) == []


def test_ratings_follow_the_stored_matches_and_a_tampered_history_is_detected(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    events, rows = _drive(spec, [([], i % 3) for i in range(6)])
    st = rebuild(spec, events, rows)
    ratings, _ = rate(list(rows.values()), list(st.versions), spec.t.trueskill, "doudizhu", 3)
    for lbl, r in ratings.items():
        assert st.ratings[lbl].mu == pytest.approx(r.mu) and st.ratings[lbl].sigma == pytest.approx(r.sigma)
    assert verify_history(spec, events, rows) == []
    sched = next(e for e in reversed(events) if e.kind == "scheduled")
    sched.data = dict(sched.data, seats=list(reversed(sched.data["seats"])))
    assert verify_history(spec, events, rows)  # a decision the history does not explain
    old = dict(sched.data)
    old.pop("seating")  # seated by the matchmaker of an earlier version: who played is checked, not the order
    sched.data = old
    assert verify_history(spec, events, rows) == []


def test_a_snapshot_and_the_events_after_it_give_the_state_the_whole_history_gives(tmp_path: Path) -> None:
    spec = _spec(tmp_path, suspend_after=2)
    crash = {"bot": "b1@v1", "kind": "crash", "message": "bot exited with status 3"}
    events, rows = _drive(spec, [([crash] if i in (2, 10, 11) else [], i % 3) for i in range(12)])
    full = rebuild(spec, events, rows)
    assert full.entrants["b1"].state == "suspended" and full.finished == 12
    for cut in range(len(events) + 1):  # a snapshot taken after any event
        snap = json.loads(json.dumps(rebuild(spec, events[:cut], rows).to_json()))  # as stored: JSON
        start = LadderState.from_json(spec, snap)
        assert start is not None and start.last_seq == cut
        again = rebuild(spec, events[cut:], rows, start=start)
        assert again.to_json() == full.to_json()
        assert state_differences(again, full) == []
        assert again.next_match() == full.next_match()  # the same next decision
    other = _spec(tmp_path, suspend_after=2)
    other.t.seed += 1  # a file with other rules: its snapshot is not used
    assert LadderState.from_json(other, full.to_json()) is None
    assert LadderState.from_json(spec, dict(full.to_json(), format=0)) is None


def test_a_ladder_may_start_with_fewer_entrants_than_seats(tmp_path: Path) -> None:
    s = load(_file(tmp_path, 'name = "l"\ngame = "doudizhu"\n'))
    assert s.t.bots == [] and s.t.players == 3
    s = load(_file(tmp_path, 'name = "l"\ngame = "doudizhu"\n' + BOTS.split("[[bots]]")[1].join(["[[bots]]", ""])))
    assert [b.name for b in s.t.bots] == ["b0"]
