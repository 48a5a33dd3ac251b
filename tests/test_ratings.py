"""Ratings: outcomes by the match objective, live TrueSkill, the order-free
batch fit with its bootstrap, the leaderboard table, details, adaptive schedules."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import random
import re
import textwrap
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
import trueskill
from rich.console import Console

from tournaments import spec as tspec
from tournaments.adaptive import AdaptiveSchedule
from tournaments.batch import ELO_PER_UNIT, fit
from tournaments.details import details
from tournaments.outcomes import match_outcome, pairwise
from tournaments.rating import fit_rows, leaderboard, rate, units
from tournaments.report import board_texts, render
from tournaments.spec import TrueSkillParams
from tournaments.store import MatchRow

P = TrueSkillParams(mu=25, sigma=25 / 3, beta=25 / 6, tau=25 / 300, draw_probability=0.1)


def _ranks(scores: list[float]) -> list[int]:
    return [1 + sum(o > x for o in scores) for x in scores]


def _row(idx: int, seats: list[str], scores: list[float], seed: int | None = None, summary: dict | None = None,
         ranks: list[int] | None = None) -> MatchRow:
    return MatchRow(idx, idx if seed is None else seed, seats, "complete",
                    {"scores": scores, "ranks": ranks or _ranks(scores), "summary": summary or {}}, None)


def _plackett_luce(rng: random.Random, strengths: dict[str, float], seats: list[str]) -> list[float]:
    """Scores of one simulated match: the finishing order drawn from
    Plackett–Luce with the given strengths (Gumbel trick), score = -place."""
    perf = {b: strengths[b] + -math.log(-math.log(rng.random())) for b in seats}
    order = sorted(seats, key=lambda b: -perf[b])
    return [-float(order.index(b)) for b in seats]


def _tournament(rng: random.Random, strengths: dict[str, float], n: int) -> list[MatchRow]:
    bots = list(strengths)
    return [_row(i, seats, _plackett_luce(rng, strengths, seats)) for i, seats in
            enumerate(rng.sample(bots, 3) for _ in range(n))]


# --------------------------------------------------------------------------- outcomes
def test_each_game_is_rated_by_its_final_standing() -> None:
    dd = match_outcome("doudizhu", {"ranks": [2, 1, 2]}, 3)
    assert dd.teams == ((0,), (1,), (2,)) and dd.places == (1, 0, 1)
    assert sorted(pairwise(dd)) == [(0, 1, 0.0), (0, 2, 0.5), (1, 2, 1.0)]
    tr = match_outcome("tractor", {"ranks": [2, 1, 2, 1]}, 4)
    assert tr.teams == ((0, 2), (1, 3)) and tr.places == (1, 0)
    assert sorted(pairwise(tr)) == [(0, 1, 0.0), (0, 3, 0.0), (1, 2, 1.0), (2, 3, 0.0)]  # partners never compared
    redealt = match_outcome("doudizhu", {"ranks": [1, 1, 1]}, 3)  # every round redealt: all level at 0 money
    assert redealt.all_tied and all(s == 0.5 for _, _, s in pairwise(redealt))
    assert match_outcome("smear", {"ranks": None}, 3) is None  # aborted: not rated


def test_live_trueskill_is_one_update_per_match_as_by_hand() -> None:
    env = trueskill.TrueSkill(mu=25, sigma=25 / 3, beta=25 / 6, tau=25 / 300, draw_probability=0.1)
    r = env.create_rating()
    got, _ = rate([_row(0, ["a", "b", "c"], [3, 1, 1])], ["a", "b", "c"], P, "smear", 3)
    for g in env.rate([{"a": r}, {"b": r}, {"c": r}], ranks=[0, 1, 1]):
        for k, v in g.items():
            assert (got[k].mu, got[k].sigma) == pytest.approx((v.mu, v.sigma))
    got, _ = rate([_row(0, list("abcd"), [0, 1, 0, 1])], list("abcd"), P, "tractor", 4)
    for g in env.rate([{"a": r, "c": r}, {"b": r, "d": r}], ranks=[1, 0]):
        for k, v in g.items():
            assert (got[k].mu, got[k].sigma) == pytest.approx((v.mu, v.sigma))
    # an all-way draw (every round redealt) is skipped by live TrueSkill, even with draw_probability 0
    got, hist = rate([_row(0, list("abc"), [0, 0, 0])], list("abc"), TrueSkillParams(draw_probability=0.0),
                     "doudizhu", 3)
    assert all(v.mu == 25 and v.sigma == pytest.approx(25 / 3) for v in got.values()) and len(hist) == 3


def test_live_trueskill_does_not_depend_on_completion_order() -> None:
    rng = random.Random(4)
    rows = _tournament(rng, {"a": 1.0, "b": 0.3, "c": 0.0, "d": -1.0}, 30)
    a, ha = rate(rows, list("abcd"), P, "president", 3)
    shuffled = rows[:]
    rng.shuffle(shuffled)
    b, hb = rate(shuffled, list("abcd"), P, "president", 3)
    assert {k: (v.mu, v.sigma) for k, v in a.items()} == {k: (v.mu, v.sigma) for k, v in b.items()} and ha == hb


def test_roles_do_not_bias_dou_dizhu_ratings() -> None:
    """The chaos artefact: a bot made landlord in nearly every round (by its
    fallback bids) must not gain from it. Two bots with the same final
    standings rate the same, however the landlord role fell."""
    rows = []
    for i in range(24):
        seats = ["often-landlord", "never-landlord", "third"] if i % 2 == 0 else ["never-landlord",
                                                                                "often-landlord", "third"]
        ll = seats.index("often-landlord")
        summary = {"rounds": [{"round": 1, "redeal": False, "landlord": ll, "landlord_won": i % 4 < 2,
                               "deltas": [0, 0, 0]}]}
        scores = [0.0, 0.0, 0.0]
        scores[i % 3] = 2.0  # every bot first in a third of the matches
        rows.append(_row(i, seats, scores, summary=summary))
    board = {r.bot: r for r in leaderboard(rows, ["often-landlord", "never-landlord", "third"], P, {},
                                           "doudizhu", 3, seed=1)}
    assert board["often-landlord"].elo == pytest.approx(board["never-landlord"].elo, abs=1e-6)


# --------------------------------------------------------------------------- batch fit
def test_batch_fit_recovers_known_strengths_and_stays_finite_for_a_bot_that_always_loses() -> None:
    rng = random.Random(7)
    true = {"a": 1.0, "b": 0.5, "c": 0.0, "d": -0.5, "e": -1.0}
    rows = _tournament(rng, true, 2000)
    board = {r.bot: r for r in leaderboard(rows, list(true), P, {}, "president", 3, seed=1)}
    for b, t in true.items():
        assert board[b].elo / ELO_PER_UNIT == pytest.approx(t, abs=0.12), b
        assert board[b].low < t * ELO_PER_UNIT < board[b].high
    w = np.array([[0, 5, 5], [0, 0, 3], [0, 2, 0]], dtype=float)  # bot 0 never loses
    theta = fit(w)
    assert np.isfinite(theta).all() and theta.sum() == pytest.approx(0, abs=1e-9) and theta[0] > theta[1]


def test_batch_fit_and_its_confidence_do_not_depend_on_schedule_order() -> None:
    rng = random.Random(11)
    rows = _tournament(rng, {"a": 0.6, "b": 0.2, "c": 0.0, "d": -0.8}, 60)
    bots = list("abcd")
    base = [r.to_json() for r in leaderboard(rows, bots, P, {}, "president", 3, seed=5)]
    for _ in range(5):  # the same results, scheduled (indexed) and finished in another order
        perm = list(range(len(rows)))
        rng.shuffle(perm)
        moved = [MatchRow(perm[i], r.seed, r.seats, r.status, r.result, None) for i, r in enumerate(rows)]
        rng.shuffle(moved)
        again = leaderboard(moved, bots, P, {}, "president", 3, seed=5)
        strip = [{k: v for k, v in r.to_json().items() if k not in ("mu", "sigma", "conservative")} for r in again]
        assert strip == [{k: v for k, v in r.items() if k not in ("mu", "sigma", "conservative")} for r in base]


def _same_order_every_time(matches: int) -> list[MatchRow]:
    """``matches`` matches of three bots over every seat order, each finishing carol, alice, bob."""
    orders = list(itertools.permutations(["carol", "alice", "bob"]))
    points = {"carol": 2.0, "alice": 1.0, "bob": 0.0}
    return [_row(i, list(orders[i % 6]), [points[b] for b in orders[i % 6]]) for i in range(matches)]


@pytest.mark.parametrize("matches", [6, 36])
@pytest.mark.parametrize("confidence", ["sandwich", "bootstrap"])
def test_matches_that_all_end_in_the_same_order_still_leave_room_for_doubt(matches: int, confidence: str) -> None:
    """Every unit's result is the same, so their measured spread is 0; the
    intervals and P>next fall back on the model's own (Laplace) uncertainty."""
    bots = ["alice", "bob", "carol"]
    fit = fit_rows(_same_order_every_time(matches), bots, "president", 3, seed=1, confidence=confidence)
    assert fit.cov is not None and np.abs(np.diag(fit.cov)).max() < 1e-6  # what the results alone say: nothing
    z = NormalDist().inv_cdf(0.975)
    for i in range(3):
        assert fit.floor[i, i] > 0
        assert fit.high[i] - fit.elo[i] >= z * math.sqrt(fit.floor[i, i]) - 1e-6
    carol, alice, bob = (bots.index(b) for b in ("carol", "alice", "bob"))
    for up, down in ((carol, alice), (alice, bob)):
        p = fit.p_better(up, down)
        d = math.sqrt(fit.floor[up, up] + fit.floor[down, down] - 2 * fit.floor[up, down])
        assert p == pytest.approx(NormalDist().cdf((fit.elo[up] - fit.elo[down]) / d))  # the same rule
        assert 0.5 < p < (0.999 if matches == 6 else 1.0)
    board = leaderboard(_same_order_every_time(matches), bots, P, {}, "president", 3, seed=1)
    assert [r.bot for r in board] == ["carol", "alice", "bob"]
    assert all(board_texts(r)["interval"] != "±0" for r in board)
    assert board_texts(board[0])["p_better_than_next"] != "1.00"


def test_the_same_order_every_time_is_surer_after_more_matches() -> None:
    bots = ["alice", "bob", "carol"]
    few, many = (fit_rows(_same_order_every_time(m), bots, "president", 3, seed=1) for m in (6, 36))
    for i in range(3):
        assert 0 < many.high[i] - many.low[i] < few.high[i] - few.low[i]
    carol, alice = bots.index("carol"), bots.index("alice")
    assert few.p_better(carol, alice) < many.p_better(carol, alice) < 1.0


def test_duplicate_deals_are_resampled_together() -> None:
    rows = [_row(i, ["a", "b", "c"][i % 3:] + ["a", "b", "c"][:i % 3], [1, 0, 0], seed=100 + i // 3)
            for i in range(12)]
    assert len(units(rows, list("abc"), "doudizhu", 3)) == 4  # 4 deals, 3 rotations each


def test_adjacent_pairs_say_how_sure_the_order_is() -> None:
    rng = random.Random(3)
    rows = _tournament(rng, {"strong": 2.0, "twin-a": 0.0, "twin-b": 0.0}, 90)
    board = leaderboard(rows, ["strong", "twin-a", "twin-b"], P, {}, "president", 3, seed=2)
    assert board[0].bot == "strong" and board[0].p_next > 0.99 and board[0].separated
    assert 0.05 < board[1].p_next < 0.95 and board[1].separated is False
    assert board[2].p_next is None and board[2].separated is None


# --------------------------------------------------------------------------- output
def _board_with_long_names() -> list:
    rng = random.Random(5)
    names = ["a-bot-with-a-really-long-name-indeed", "b", "crash-mid-match", "d"]
    rows = _tournament(rng, {names[0]: 3.0, "b": 0.0, "crash-mid-match": -3.0, "d": -0.1}, 400)
    fc = {"crash-mid-match": {"crash": 12345, "timeout": 999, "illegal": 7, "forfeit": 1000}}
    return leaderboard(rows, names, P, fc, "president", 3, seed=1)


def test_leaderboard_table_fits_80_columns_without_cutting_numbers() -> None:
    board = _board_with_long_names()
    con = Console(width=80, record=True, color_system=None)
    render(board, "table", title="t", console=con)
    text = con.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    lines = {line.split()[0]: line for line in text.splitlines() if line.strip()[:1].isdigit()}
    crash = next(r for r in board if r.bot == "crash-mid-match")
    row = lines[str(board.index(crash) + 1)]
    for cell in (f"{crash.elo:.0f}", f"±{round((crash.high - crash.low) / 2)}", "999/7/12345/1000",
                 f"{crash.mu:.2f}", f"{crash.sigma:.2f}"):
        assert cell in row.split(), (cell, row)
    assert "…" not in re.sub(r"a-bot-with-a-\S*…", "", text)  # only the long name is shortened


def test_json_and_csv_carry_intervals_and_separation() -> None:
    board = _board_with_long_names()
    rows = json.loads(render(board, "json"))
    assert {"elo", "elo_low", "elo_high", "p_better_than_next", "separated_from_next", "mu", "sigma"} <= set(rows[0])
    assert rows[-1]["p_better_than_next"] is None
    got = list(csv.DictReader(io.StringIO(render(board, "csv"))))
    assert got[0]["bot"] == rows[0]["bot"] and float(got[0]["elo_low"]) == rows[0]["elo_low"]
    assert got[0]["separated_from_next"] in ("True", "False")


def test_details_head_to_head_seats_roles_and_duplicate_pairs() -> None:
    summ = {"rounds": [{"round": 1, "redeal": False, "landlord": 0, "landlord_won": True, "deltas": [4, -2, -2]},
                       {"round": 2, "redeal": True, "landlord": -1, "landlord_won": False, "deltas": [0, 0, 0]}]}
    rows = [_row(0, ["a", "b", "c"], [4, -2, -2], seed=1, summary=summ),
            _row(1, ["b", "c", "a"], [4, -2, -2], seed=1, summary=summ),
            _row(2, ["c", "a", "b"], [4, -2, -2], seed=1, summary=summ)]
    d = details(rows, ["a", "b", "c"], "doudizhu", 3, "duplicate")
    ab = next(x for x in d["head_to_head"] if (x["a"], x["b"]) == ("a", "b"))
    assert ab == {"a": "a", "b": "b", "matches": 3, "a_ahead": 1, "b_ahead": 1, "tied": 1}
    assert {(x["bot"], x["seat"]): x["wins"] for x in d["seats"]}[("a", 0)] == 1
    roles = {(x["bot"], x["role"]): x for x in d["roles"]}
    assert roles[("a", "landlord")] == {"bot": "a", "role": "landlord", "rounds": 1, "won": 1, "mean_money": 4.0}
    assert roles[("a", "peasant")]["rounds"] == 2 and roles[("a", "peasant")]["won"] == 0  # the redeal is left out
    dup = d["duplicate"][0]
    assert dup["tables"] == 1 and dup["mean_diff"] == 0 and dup["equal"] == 1
    team = details([_row(0, list("abcd"), [1, 0, 1, 0])], list("abcd"), "tractor", 4, "round_robin")
    ac = next(x for x in team["head_to_head"] if (x["a"], x["b"]) == ("a", "c"))
    assert ac["matches"] == 0 and ac["partners"] == {"matches": 1, "won": 1, "lost": 0, "drawn": 0}
    con = Console(width=80, record=True, color_system=None)
    render(leaderboard(rows, list("abc"), P, {}, "doudizhu", 3), "table", console=con, details=d)
    assert max(len(line) for line in con.export_text().splitlines()) <= 80


# --------------------------------------------------------------------------- adaptive schedule
def _adaptive_spec(tmp_path: Path, max_matches: int, strengths: dict[str, float]) -> tspec.TournamentSpec:
    bots = "".join(f'[[bots]]\nname = "{b}"\ncommand = "python sample_bots/random_bot.py"\n' for b in strengths)
    f = tmp_path / "a.toml"
    f.write_text(textwrap.dedent(f"""\
        name = "adapt"
        game = "smear"
        players = 3
        seed = 3
        [schedule]
        kind = "round_robin"
        until = "separated"
        confidence = 0.95
        max_matches = {max_matches}
        """) + bots)
    return tspec.load(f)


def _simulate(spec: tspec.TournamentSpec, strengths: dict[str, float], kill_after: int | None = None
              ) -> tuple[AdaptiveSchedule, list[MatchRow]]:
    """Run an adaptive schedule against simulated results (each match's
    outcome a pure function of its seed); ``kill_after``: stop after that
    many matches and start a fresh AdaptiveSchedule from the stored rows."""
    sched = AdaptiveSchedule(spec)
    rows: list[MatchRow] = []
    played = 0
    while sched.advance(rows) is None:
        for m in sched.pending({r.idx for r in rows}):
            if kill_after is not None and played == kill_after:
                sched = AdaptiveSchedule(spec)  # the process died: a new one knows only the store
                kill_after = None
                break
            scores = _plackett_luce(random.Random(m.seed), strengths, list(m.seats))
            rows.append(_row(m.index, list(m.seats), scores, seed=m.seed))
            played += 1
    return sched, rows


def test_adaptive_schedule_plays_until_separated_deterministically_and_resumes_exactly(tmp_path: Path) -> None:
    strengths = {"top": 0.8, "mid": 0.0, "low": -0.8}  # close enough to need blocks beyond the fixed 6 matches
    spec = _adaptive_spec(tmp_path, 300, strengths)
    sched, rows = _simulate(spec, strengths)
    assert sched.stop.kind == "separated" and "separated at 95%" in sched.stop.text
    assert 6 < len(rows) <= 300 and len(rows) % 6 == 0  # whole blocks of seat orders only
    assert [r.idx for r in sorted(rows, key=lambda r: r.idx)] == list(range(len(rows)))
    board = leaderboard(rows, list(strengths), P, {}, "smear", 3, seed=3)
    assert [r.bot for r in board] == ["top", "mid", "low"] and all(r.separated for r in board[:-1])
    again, rows2 = _simulate(spec, strengths)
    assert [m for m in again.matches] == [m for m in sched.matches]  # same seed, same schedule
    for kill in (1, 4, len(rows) - 2):
        resumed, rows3 = _simulate(spec, strengths, kill_after=kill)
        assert resumed.matches == sched.matches and sorted(r.idx for r in rows3) == sorted(r.idx for r in rows)


def test_adaptive_schedule_stops_at_the_budget_and_names_the_open_pairs(tmp_path: Path) -> None:
    strengths = {"twin-a": 0.0, "twin-b": 0.0, "twin-c": 0.0}
    spec = _adaptive_spec(tmp_path, 10, strengths)
    sched, rows = _simulate(spec, strengths)
    assert sched.stop.kind == "budget" and len(rows) == 6  # a second block of 6 seat orders would exceed 10
    assert "budget of 10 matches" in sched.stop.text and " > " in sched.stop.text and "(P 0." in sched.stop.text


def test_schedule_table_is_validated_with_lines(tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('name = "x"\ngame = "smear"\nplayers = 3\n[schedule]\nuntil = "forever"\nconfidence = 2\n'
                 'colour = 1\n[[bots]]\nname = "a"\ncommand = "python sample_bots/random_bot.py"\n')
    with pytest.raises(tspec.SpecError) as e:
        tspec.load(f)
    text = str(e.value)
    assert "bad.toml:5: schedule.until" in text and "bad.toml:6: schedule.confidence" in text
    assert "bad.toml:7: schedule.colour" in text
    f.write_text(f.read_text().replace('until = "forever"\nconfidence = 2\ncolour = 1\n', 'until = "separated"\n'))
    with pytest.raises(tspec.SpecError, match="max_matches"):
        tspec.load(f)
