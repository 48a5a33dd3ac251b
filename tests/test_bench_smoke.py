"""The benchmark runs end to end in --quick mode and reports every section.

Only the report's structure is checked (figures present and positive):
speed is never asserted in tests; bench/run.py prints the figures.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

from conftest import PY, ROOT


def test_bench_quick_reports_every_section(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    p = subprocess.run([PY, str(ROOT / "bench" / "run.py"), "--quick", "--json", str(out)],
                       capture_output=True, text=True, timeout=900, cwd=str(ROOT))  # with the compiled build's first build
    assert p.returncode == 0, p.stderr[-3000:]
    assert "-- targets" in p.stdout
    rep = json.loads(out.read_text())
    assert rep["machine"]["nproc"] >= 1
    games = set(rep["engine"])
    assert "doudizhu" in games and games == set(rep["decision"])
    for g in games:
        e = rep["engine"][g]
        assert e["rounds_per_s"] > 0 and e["decisions_per_s"] > 0, g
        d = rep["decision"][g]
        for k in ("legal_us_median", "legal_us_p99", "engine_us_median", "echo_rtt_us", "engine_vs_echo",
                  "match_decisions_per_s", "match_us_per_decision", "referee_vs_echo", "wire_us_per_decision"):
            assert d[k] > 0, (g, k)
    assert rep["peers"]["ours_games_per_s"] > 0
    for r in rep["peers"]["peers"].values():  # empty when RLCard/OpenSpiel are not installed
        assert r["games_per_s"] > 0 and r["ours_over_theirs"] > 0
    assert len(rep["tournament"]) >= 2
    for r in rep["tournament"].values():
        assert r["matches"] > 0 and r["matches_per_min"] > 0
    m = rep["memory"]
    assert m["matches"] == 8 and m["aborted"] == 0 and m["rss_max_mb"] > 0
    e = rep["envs"]  # the training environments: steps and games per second per game
    assert set(e["games"]) == {"doudizhu", "smear", "president", "tractor", "back_alley"}
    for x in e["games"].values():
        assert x["steps_per_s"] > 0 and x["games_per_s"] > 0
    assert e["loop_steps_per_s"] > 0  # the same loop over an environment doing nothing
    assert e["compiled"] is not None, e["compiled_note"]  # the compiled build (make wheel), measured too
    assert set(e["compiled"]) == set(e["games"]) and all(x["games_per_s"] > 0 for x in e["compiled"].values())
    if e["rlcard"] is not None:
        assert e["rlcard"]["games_per_s"] > 0 and e["rlcard"]["ours_over_theirs"] > 0
    so = rep["scaleout"]
    for k in ("local", "dask_1w", "dask_2w", "driver_sqlite", "driver_postgresql"):
        assert so[k]["matches"] > 0 and so[k]["matches_per_min"] > 0, k
    assert so["dask_2w_over_1w"] > 0 and so["dask_1w_over_local"] > 0
    assert rep["targets"] and all(isinstance(t["met"], bool) or t["not_measured"] for t in rep["targets"])


def test_compare_interleaves_checkouts_and_prints_ratios(tmp_path: Path) -> None:
    other = tmp_path / "other"  # a second checkout (of HEAD): one given twice is refused
    subprocess.run(["git", "clone", "-q", str(ROOT), str(other)], check=True, timeout=120)
    compare = [PY, str(ROOT / "bench" / "compare.py")]
    p = subprocess.run(compare + [str(other), str(ROOT), "--runs", "1", "--matches", "1", "--games", "smear"],
                       capture_output=True, text=True, timeout=420, cwd=str(ROOT))
    assert p.returncode == 0, p.stderr[-3000:]
    rows = [ln.split() for ln in p.stdout.splitlines() if ln.startswith("smear")]
    assert len(rows) == 2  # CPU and wall tables
    for r in rows:
        assert float(r[1]) > 0 and float(r[2]) > 0 and float(r[3]) > 0
    alone = subprocess.run(compare + [str(other), str(ROOT), "--runs", "1", "--matches", "1", "--games", "smear",
                                      "--referee-only"], capture_output=True, text=True, timeout=420, cwd=str(ROOT))
    assert alone.returncode == 0, alone.stderr[-3000:]
    rows = [ln.split() for ln in alone.stdout.splitlines() if ln.startswith("smear")]
    assert len(rows) == 1 and float(rows[0][1]) > 0 and float(rows[0][2]) > 0  # one table: CPU only
    for args, says in (([str(ROOT)], "at least two checkouts"), ([str(ROOT), str(ROOT)], "given twice"),
                       ([str(other), str(ROOT), "--games", "smaer"], "unknown game smaer"),
                       ([str(other), str(ROOT), "--runs", "0"], "at least 1")):
        bad = subprocess.run(compare + args, capture_output=True, text=True, timeout=60, cwd=str(ROOT))
        assert bad.returncode == 2 and says in bad.stderr, bad.stderr


def test_envs_targets_use_the_fixed_lightest_game_judge_the_compiled_build_and_say_when_rlcard_is_missing() -> None:
    spec = importlib.util.spec_from_file_location("bench_envs", ROOT / "bench" / "envs.py")  # bench: not a package here
    assert spec is not None and spec.loader is not None
    envs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(envs)
    games = {g: {"players": envs.CONFIGS[g][0], "steps_per_s": 1000.0, "games_per_s": 10.0} for g in envs.CONFIGS}
    games["smear"]["steps_per_s"], games["back_alley"]["steps_per_s"] = 51_000.0, 90_000.0  # not the fastest
    missing = {"games": games, "rlcard": None, "loop_steps_per_s": 1.0,
               "note": "RLCard not available (ModuleNotFoundError: No module named 'rlcard'); pip install rlcard"}
    rl, steps = envs.targets(missing)
    assert rl["met"] is None and rl["not_measured"] == "RLCard not installed (pip install rlcard)"
    assert steps["met"] is True and "(smear, 3 players" in steps["what"] and steps["measured"] == "51,000 steps/s"
    games["smear"]["steps_per_s"] = 40_000.0
    measured = dict(missing, rlcard={"label": "RLCard 1.2.0 env.run (RandomAgent)", "games_per_s": 50.0,
                                     "ours_over_theirs": 12.0})
    rl, steps = envs.targets(measured)
    assert rl["met"] is False and rl["measured"] == "12.00x" and steps["met"] is False
    assert "(source, no compiled build)" in rl["what"]
    fast = {g: dict(x, steps_per_s=70_000.0) for g, x in games.items()}  # the compiled build's figures
    rl, steps = envs.targets(dict(measured, compiled=fast, rlcard=dict(measured["rlcard"], compiled_over_theirs=24.0)))
    assert rl["met"] is True and rl["measured"] == "24.00x" and "(compiled build)" in rl["what"]
    assert steps["met"] is True and steps["measured"] == "70,000 steps/s"
