"""Competition scale: the sparse batch fit and its sandwich confidence, the
totals and live ratings the store keeps as matches are stored, import and
export of results, the migration of an older database, and readers that
never load every match. (Sizes and times: ``referee bench --only scale``.)"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Boolean, Column, Float, ForeignKey, Integer, MetaData, String, Table, Text, UniqueConstraint
from sqlalchemy import create_engine, insert

from conftest import PY, ROOT
from referee.web.data import compute_snapshot
from tournaments import batch
from tournaments.details import details, store_details
from tournaments.importer import BadImport, import_results
from tournaments.outcomes import match_outcome, pairwise
from tournaments.rating import comparisons, fit_rows, leaderboard, rate, store_board
from tournaments.record import MatchRecord
from tournaments.schema import MatchRow
from tournaments.spec import TrueSkillParams
from tournaments.store import Store

P = TrueSkillParams()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ), timeout=300)


def _random_rows(rng: random.Random, game: str, players: int, bots: list[str], n: int,
                 duplicate: bool = False) -> list[MatchRow]:
    """Results of ``n`` matches with ties, faults, forfeits and fractional rating weights."""
    rows = []
    for i in range(n):
        seats = rng.sample(bots, players)
        if game in ("tractor", "back_alley"):
            win = rng.choice([0, 1, None])
            ranks = [1 if win is None or s % 2 == win else 2 for s in range(players)]
        else:
            ranks = [rng.randint(1, players) for _ in range(players)]
        scores = [float(players - r) * 2 + rng.choice([0, 0.5]) for r in ranks]
        faults = [{"seat": rng.randrange(players), "kind": rng.choice(["timeout", "illegal", "crash", "late_reply"]),
                   "rule": "x", "message": "m"} for _ in range(rng.choice([0, 0, 0, 1, 2]))]
        result = {"scores": scores, "ranks": ranks, "faults": faults, "forfeited": [0] if rng.random() < 0.05 else [],
                  "rating_weight": rng.choice([1.0, 1.0, 1.0, 0.5]), "summary": {}}
        status = "complete" if rng.random() > 0.05 else "aborted"
        if status == "aborted":
            result = {"scores": None, "ranks": None, "faults": faults, "forfeited": []}
        rows.append(MatchRow(i, (i // 4) if duplicate else 1000 + i, seats, status, result, None))
    return rows


# --------------------------------------------------------------------------- the fit
def _dense_fit(rows: list[MatchRow], bots: list[str], game: str, players: int) -> np.ndarray:
    """The fit this module replaced: a dense N x N wins matrix and Newton's
    method on it (kept here as the reference the sparse fit must agree with)."""
    n, at = len(bots), {b: i for i, b in enumerate(bots)}
    w = np.zeros((n, n))
    for r in rows:
        oc = match_outcome(game, r.result, players) if r.status == "complete" else None
        wt = float(r.result.get("rating_weight", 1.0)) if oc else 0.0
        if oc is None or wt <= 0:
            continue
        for a, b, s in pairwise(oc):
            w[at[r.seats[a]], at[r.seats[b]]] += wt * s
            w[at[r.seats[b]], at[r.seats[a]]] += wt * (1 - s)
    games = w + w.T
    theta = np.zeros(n)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        grad = (w - games * p).sum(axis=1) - theta / batch.PRIOR_SD ** 2
        h = games * p * (1 - p)
        hess = -h
        hess[np.diag_indices(n)] = h.sum(axis=1) - np.diag(h) + 1 / batch.PRIOR_SD ** 2
        step = np.linalg.solve(hess, grad)
        theta += step * min(1.0, 2.0 / max(np.abs(step).max(), 1e-300))
        if np.abs(step).max() < 1e-10:
            break
    return theta * batch.ELO_PER_UNIT


@pytest.mark.parametrize("game,players", [("president", 4), ("doudizhu", 3), ("tractor", 4), ("smear", 2)])
def test_the_sparse_fit_agrees_with_the_dense_fit_it_replaces(game: str, players: int) -> None:
    rng = random.Random(players * 7 + len(game))
    bots = [f"b{i}" for i in range(9)]
    rows = _random_rows(rng, game, players, bots, 300)
    got = fit_rows(rows, bots, game, players, seed=1)
    assert np.allclose(got.elo, _dense_fit(rows, bots, game, players), atol=1e-6)
    assert abs(sum(got.elo)) < 1e-6  # centred: 0 is the average bot


def test_the_sandwich_covariance_is_centred_symmetric_and_gives_consistent_probabilities() -> None:
    rng = random.Random(5)
    bots = [f"b{i}" for i in range(7)] + ["idle"]
    rows = _random_rows(rng, "doudizhu", 3, bots[:-1], 400)
    fit = fit_rows(rows, bots, "doudizhu", 3, seed=1)
    for cov in (fit.cov, fit.floor):  # measured (sandwich) and model-based (Laplace)
        assert cov is not None and np.allclose(cov, cov.T) and np.linalg.eigvalsh(cov).min() > -1e-6
        assert np.allclose(cov.sum(axis=1), 0.0, atol=1e-6)  # ratings are relative: their sum has no variance
    for i in range(len(bots) - 1):
        sd = math.sqrt(max(fit.cov[i, i], fit.floor[i, i]))  # never less than the model implies
        assert fit.high[i] - fit.elo[i] == pytest.approx(1.959964 * sd, rel=1e-5)
        for j in range(len(bots) - 1):
            if i != j:
                assert fit.p_better(i, j) + fit.p_better(j, i) == pytest.approx(1.0)
    idle = bots.index("idle")  # no match: nothing known, no interval
    assert fit.elo[idle] == 0 and fit.low[idle] == fit.high[idle] == 0 and fit.comparisons[idle] == 0


def test_duplicate_deals_pair_the_seat_orders_of_one_combination_into_one_unit() -> None:
    rows = []
    for deal in range(4):
        for k, seats in enumerate([list("abc"), list("acb"), list("bca"), list("bac"), list("cab"), list("cba")]):
            rows.append(MatchRow(deal * 6 + k, 100 + deal, seats, "complete",
                                 {"scores": [1, 0, 0], "ranks": [1, 2, 2]}, None))
        # another combination on the same deal is its own unit
        rows.append(MatchRow(1000 + deal, 100 + deal, list("abd"), "complete", {"scores": [1, 0, 0],
                                                                                  "ranks": [1, 2, 2]}, None))
    comps = comparisons(rows, list("abcd"), "doudizhu", 3)
    assert len(set(comps.unit.tolist())) == 8


def test_copies_with_mirrored_results_rate_the_same_and_are_never_separated() -> None:
    rng = random.Random(2)
    rows = []
    for i in range(200):  # copy and twin always face the same bots with the same outcome, in swapped seats
        other = rng.sample(["x", "y", "z"], 2)
        ranks = rng.sample([1, 2, 3], 3)
        for seats in (["copy", *other], ["twin", *other]):
            rows.append(MatchRow(len(rows), i, seats, "complete", {"scores": [3 - r for r in ranks],
                                                                    "ranks": ranks}, None))
    board = leaderboard(rows, ["copy", "twin", "x", "y", "z"], P, {}, "doudizhu", 3)
    at = {r.bot: k for k, r in enumerate(board)}
    assert board[at["copy"]].elo == board[at["twin"]].elo and at["twin"] == at["copy"] + 1  # equal: by name
    assert board[at["copy"]].p_next == 0.5 and board[at["copy"]].separated is False


def test_wins_a_broken_bot_shares_are_counted_and_marked() -> None:
    """A crashed peasant shares the peasants' first place: counted, as the game
    counts it, and marked on the board (``wins_while_broken``, ``*`` in the table)."""
    crash = [{"seat": 1, "kind": "crash", "message": "exited"}]
    rows = [MatchRow(0, 1, ["lord", "crasher", "peasant"], "complete",
                     {"scores": [-4, 2, 2], "ranks": [3, 1, 1], "faults": crash, "forfeited": []}, None),
            MatchRow(1, 2, ["lord", "crasher", "peasant"], "complete",
                     {"scores": [4, -2, -2], "ranks": [1, 2, 2], "faults": [], "forfeited": []}, None)]
    board = {r.bot: r for r in leaderboard(rows, ["lord", "crasher", "peasant"], P, {}, "doudizhu", 3)}
    assert (board["crasher"].wins, board["crasher"].broken_wins) == (1, 1)
    assert (board["peasant"].wins, board["peasant"].broken_wins) == (1, 0)
    assert board["crasher"].to_json()["wins_while_broken"] == 1
    from rich.console import Console

    from tournaments.report import render

    con = Console(width=80, record=True, color_system=None)
    render(list(board.values()), "table", console=con)
    text = con.export_text().splitlines()
    line = next(x for x in text if " crasher " in x)
    assert " 1* " in line
    assert any(x.startswith("  *: ") for x in text)  # the legend explains the *


def test_a_bootstrap_too_large_is_refused_with_the_alternative(monkeypatch) -> None:
    rows = _random_rows(random.Random(1), "doudizhu", 3, list("abcde"), 50)
    monkeypatch.setattr(batch, "BOOTSTRAP_LIMIT", 1000)
    with pytest.raises(batch.TooLarge, match="sandwich"):
        fit_rows(rows, list("abcde"), "doudizhu", 3, seed=1, confidence="bootstrap")
    monkeypatch.undo()
    boot = fit_rows(rows, list("abcde"), "doudizhu", 3, seed=1, confidence="bootstrap")
    sand = fit_rows(rows, list("abcde"), "doudizhu", 3, seed=1)
    assert boot.elo == sand.elo and boot.replicates is not None and boot.replicates.shape == (1000, 5)


# --------------------------------------------------------------------------- the store's totals
def _store_with(tmp_path: Path, rows: list[MatchRow], game: str, players: int, bots: list[str], name: str = "t",
                seed: int = 0, order: list[int] | None = None, batch_size: int = 1) -> tuple[Store, dict]:
    s = Store(str(tmp_path / f"{name}.sqlite"))
    spec = {"name": name, "game": game, "players": players, "seed": 0, "confidence": 0.95,
            "trueskill": P.__dict__, "bots": [{"name": b} for b in bots], "schedule": "round_robin"}
    tid = s.create_tournament(name, game, spec, "fp", len(rows), [(b, "", False) for b in bots])
    todo = [rows[i] for i in (order or range(len(rows)))]
    for k in range(0, len(todo), batch_size):
        s.record_matches(tid, [MatchRecord(r.idx, r.seed, r.seats, r.status, r.result) for r in todo[k:k + batch_size]])
    return s, s.tournament(name)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), game=st.sampled_from([("doudizhu", 3), ("tractor", 4), ("president", 5)]),
       batch_size=st.sampled_from([1, 3, 50]))
def test_totals_and_live_ratings_kept_as_matches_arrive_equal_a_recomputation(tmp_path_factory, seed: int,
                                                                              game: tuple[str, int],
                                                                              batch_size: int) -> None:
    g, players = game
    rng = random.Random(seed)
    bots = [f"b{i}" for i in range(players + 3)]
    rows = _random_rows(rng, g, players, bots, 40)
    order = list(range(len(rows)))
    rng.shuffle(order)  # results arrive in any order; live TrueSkill still follows the index order
    s, t = _store_with(tmp_path_factory.mktemp("t"), rows, g, players, bots, order=order, batch_size=batch_size)
    try:
        fc: dict[str, dict[str, int]] = {}
        for r in rows:
            for f in r.result.get("faults") or []:
                kinds = fc.setdefault(r.seats[f["seat"]], {})
                kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
        want = [r.to_json() for r in leaderboard(rows, bots, P, fc, g, players)]
        got = [r.to_json() for r in store_board(s, t)]
        assert got == want
        assert store_details(s, t, json.loads(t["spec_json"])) == details(rows, bots, g, players, "round_robin")
        live, history = rate(rows, bots, P, g, players)
        kept = {b["name"]: b for b in s.bot_table(t["id"])}
        for b, r in live.items():
            if kept[b]["mu"] is not None:
                assert (kept[b]["mu"], kept[b]["sigma"]) == pytest.approx((r.mu, r.sigma), abs=1e-9)
        series = s.rating_series(t["id"], bots, points=10_000)
        assert sum(len(v) for v in series.values()) == len(history)
    finally:
        s.close()


def test_the_leaderboard_and_status_read_totals_never_every_match(tmp_path: Path, monkeypatch) -> None:
    rows = _random_rows(random.Random(3), "doudizhu", 3, list("abcdef"), 60)
    s, t = _store_with(tmp_path, rows, "doudizhu", 3, list("abcdef"), batch_size=20)
    s.close()

    def refuse(*a, **k):
        raise AssertionError("every match was read")

    monkeypatch.setattr(Store, "matches", refuse)
    monkeypatch.setattr(Store, "iter_matches", refuse)
    s = Store(str(tmp_path / "t.sqlite"))
    board = store_board(s, s.tournament("t"))
    assert len(board) == 6 and s.status_counts(t["id"])["complete"] + s.status_counts(t["id"]).get("aborted", 0) == 60
    s.close()


def test_a_fit_kept_under_another_confidence_rule_is_recomputed(tmp_path: Path) -> None:
    rows = _random_rows(random.Random(4), "doudizhu", 3, list("abcde"), 40)
    s, t = _store_with(tmp_path, rows, "doudizhu", 3, list("abcde"), batch_size=40)
    try:
        want = [r.to_json() for r in store_board(s, t)]
        version, payload = s.cached_fit(t["id"], "sandwich")
        assert payload["rule"] == batch.CONFIDENCE_RULE
        old = {**payload, "low": payload["elo"], "high": payload["elo"]}  # intervals of ±0, as an older rule made them
        del old["rule"]
        assert s.store_fit(t["id"], "sandwich", version, old)
        assert compute_snapshot(s, t, kept_fit=True).fit_stale  # a page shows it only until the refresh
        assert [r.to_json() for r in store_board(s, t)] == want
        assert s.cached_fit(t["id"], "sandwich")[1]["rule"] == batch.CONFIDENCE_RULE  # and kept again
    finally:
        s.close()


# --------------------------------------------------------------------------- import and export
def _jsonl(path: Path, lines: list) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def _line(i: int, seats: list[str], ranks: list[int], **extra) -> dict:
    return {"match": i, "seed": i + 7, "status": "complete", "seats": seats, "scores": [3 - r for r in ranks],
            "ranks": ranks, "forfeited": [], "faults": [0] * len(seats), "log_path": None, **extra}


def _canonical(out):
    """Output with its per-bot and per-pair tables in name order (an import adds
    the bots in the order it meets them, a tournament in its file's order)."""
    if not isinstance(out, dict):
        return out
    d = dict(out["details"])
    flip = {"a": "b", "b": "a", "a_ahead": "b_ahead", "b_ahead": "a_ahead"}
    d["head_to_head"] = sorted((({flip.get(k, k): v for k, v in x.items()} if x["a"] > x["b"] else x)
                                for x in d["head_to_head"]), key=lambda x: (x["a"], x["b"]))
    for key in ("seats", "roles"):
        d[key] = sorted(d[key], key=lambda x: json.dumps(x, sort_keys=True))
    return {"leaderboard": out["leaderboard"], "details": d}


def test_export_then_import_gives_the_same_leaderboard_details_and_results(tmp_path: Path) -> None:
    rng = random.Random(9)
    bots = [f"b{i}" for i in range(6)]
    rows = _random_rows(rng, "tractor", 4, bots, 80)
    for r in rows:
        if r.status == "complete":
            r.result["summary"] = {"rounds": [{"declarer_team": rng.randrange(2), "team_up": rng.randrange(2)}]}
    s, _ = _store_with(tmp_path, rows, "tractor", 4, bots, name="src", batch_size=7)
    s.close()
    src = str(tmp_path / "src.sqlite")
    out = _cli("results", "src", "--db", src, "--format", "jsonl")
    assert out.returncode == 0, out.stderr
    f = tmp_path / "src.jsonl"
    f.write_text(out.stdout)
    dst = str(tmp_path / "dst.sqlite")
    r = _cli("results", "import", str(f), "--tournament", "src", "--game", "tractor", "--players", "4", "--db", dst)
    assert r.returncode == 0 and "imported 80 matches into new tournament 'src'" in r.stderr, r.stderr
    for args in (["leaderboard", "-t", "src", "--format", "json", "--details", "--top", "0"],
                 ["results", "src", "--format", "json"]):
        a, b = _cli(*args, "--db", src), _cli(*args, "--db", dst)
        assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
        assert _canonical(json.loads(a.stdout)) == _canonical(json.loads(b.stdout)), args
    again = _cli("results", "import", str(f), "--tournament", "src", "--game", "tractor", "--players", "4",
                 "--db", dst)
    assert again.returncode == 0 and "imported 0 matches" in again.stderr and "80 already stored" in again.stderr
    shard = _cli("results", "import", str(f), "--tournament", "src", "--game", "tractor", "--players", "4",
                 "--db", dst, "--append")
    assert shard.returncode == 0 and "imported 80 matches" in shard.stderr
    s = Store(dst)
    assert s.match_count(s.tournament("src")["id"]) == 160
    assert s.match_page(s.tournament("src")["id"], 0, 1)[1][0]["idx"] == 159  # numbered after the first 80
    s.close()


def test_import_names_every_bad_line_and_writes_nothing(tmp_path: Path) -> None:
    f = _jsonl(tmp_path / "bad.jsonl", [
        _line(0, ["a", "b", "c"], [1, 2, 3]),
        "{not json",
        _line(2, ["a", "b"], [1, 2]),
        _line(3, ["a", "b", "c"], [1, 2, 9]),
        _line(0, ["a", "b", "c"], [1, 2, 3]),
        {**_line(5, ["a", "b", "c"], [1, 2, 3]), "status": "won"},
    ])
    db = tmp_path / "x.sqlite"
    r = _cli("results", "import", str(f), "--tournament", "x", "--game", "doudizhu", "--players", "3", "--db", str(db))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    for n, what in ((2, "not JSON"), (3, "'seats' must be a list of 3"), (4, "'ranks' must be a list of 3"),
                    (5, "match 0 is also on line 1"), (6, "'status' must be one of")):
        assert f"bad.jsonl:{n}: {what}" in r.stderr, (n, r.stderr)
    assert "nothing was written" in r.stderr
    assert not db.exists() or Store(str(db)).tournament("x") is None
    with pytest.raises(BadImport, match="played by 3 or 4 players"):
        import_results(Store(str(tmp_path / "y.sqlite")), f, "y", "doudizhu", 5)


# --------------------------------------------------------------------------- an older database
def _v2_database(path: Path, rows: list[MatchRow], bots: list[str]) -> None:
    """A results database as schema v2 wrote it (no totals, no rating columns)."""
    md = MetaData()
    Table("schema_info", md, Column("version", Integer, nullable=False))
    Table("tournaments", md, Column("id", Integer, primary_key=True), Column("name", String(64), unique=True),
          Column("game", String(32)), Column("spec_json", Text), Column("fingerprint", String(32)),
          Column("status", String(16)), Column("total_matches", Integer), Column("created_at", Float),
          Column("finished_at", Float))
    Table("bots", md, Column("id", Integer, primary_key=True), Column("tournament_id", Integer,
                                                                      ForeignKey("tournaments.id")),
          Column("name", String(64)), Column("command", Text), Column("external", Boolean),
          UniqueConstraint("tournament_id", "name"))
    Table("matches", md, Column("id", Integer, primary_key=True), Column("tournament_id", Integer,
                                                                         ForeignKey("tournaments.id")),
          Column("idx", Integer), Column("seed", String(24)), Column("seats_json", Text), Column("status", String(16)),
          Column("result_json", Text), Column("log_path", Text), Column("decisions", Integer),
          Column("elapsed_s", Float), Column("finished_at", Float), UniqueConstraint("tournament_id", "idx"))
    Table("seat_results", md, Column("id", Integer, primary_key=True), Column("match_id", Integer,
                                                                              ForeignKey("matches.id")),
          Column("seat", Integer), Column("bot", String(64)), Column("score", Float), Column("rank", Integer),
          Column("forfeited", Boolean))
    Table("faults", md, Column("id", Integer, primary_key=True), Column("match_id", Integer, ForeignKey("matches.id")),
          Column("seat", Integer), Column("bot", String(64)), Column("kind", String(32)), Column("rule", String(64)),
          Column("message", Text))
    Table("rating_history", md, Column("id", Integer, primary_key=True), Column("tournament_id", Integer),
          Column("match_idx", Integer), Column("bot", String(64)), Column("mu", Float), Column("sigma", Float))
    Table("leases", md, Column("tournament_id", Integer, primary_key=True), Column("holder", String(64)),
          Column("host", String(255)), Column("pid", Integer), Column("acquired_at", Float),
          Column("heartbeat_at", Float))
    eng = create_engine(f"sqlite:///{path}")
    md.create_all(eng)
    spec = {"name": "old", "game": "doudizhu", "players": 3, "seed": 0, "trueskill": P.__dict__,
            "bots": [{"name": b} for b in bots], "schedule": "round_robin"}
    with eng.begin() as c:
        c.execute(insert(md.tables["schema_info"]).values(version=2))
        c.execute(insert(md.tables["tournaments"]).values(id=1, name="old", game="doudizhu", spec_json=json.dumps(spec),
                                                          fingerprint="f", status="complete",
                                                          total_matches=len(rows), created_at=1.0))
        for b in bots:
            c.execute(insert(md.tables["bots"]).values(tournament_id=1, name=b, command="", external=False))
        for k, r in enumerate(rows, 1):
            c.execute(insert(md.tables["matches"]).values(id=k, tournament_id=1, idx=r.idx, seed=str(r.seed),
                                                          seats_json=json.dumps(r.seats), status=r.status,
                                                          result_json=json.dumps(r.result), decisions=1, elapsed_s=0.1,
                                                          finished_at=1.0))
            for s, b in enumerate(r.seats):
                c.execute(insert(md.tables["seat_results"]).values(
                    match_id=k, seat=s, bot=b, score=(r.result.get("scores") or [None] * 3)[s],
                    rank=(r.result.get("ranks") or [None] * 3)[s], forfeited=False))
            for f in r.result.get("faults") or []:
                c.execute(insert(md.tables["faults"]).values(match_id=k, seat=f["seat"], bot=r.seats[f["seat"]],
                                                             kind=f["kind"], rule="", message="m"))
    eng.dispose()


def test_a_database_of_the_previous_schema_is_migrated_and_its_totals_built_from_its_matches(tmp_path: Path) -> None:
    bots = list("abcde")
    rows = _random_rows(random.Random(4), "doudizhu", 3, bots, 50)
    _v2_database(tmp_path / "old.sqlite", rows, bots)
    s = Store(str(tmp_path / "old.sqlite"))
    try:
        t = s.tournament("old")
        fc: dict[str, dict[str, int]] = {}
        for r in rows:
            for f in r.result.get("faults") or []:
                fc.setdefault(r.seats[f["seat"]], {}).setdefault(f["kind"], 0)
                fc[r.seats[f["seat"]]][f["kind"]] += 1
        assert [r.to_json() for r in store_board(s, t)] == [r.to_json() for r in leaderboard(rows, bots, P, fc,
                                                                                              "doudizhu", 3)]
        assert t["totals_version"] == 3
    finally:
        s.close()
    Store(str(tmp_path / "old.sqlite")).close()  # opened again: nothing left to migrate
