"""`referee conformance`: the shared vectors pass through the real engines,
and the runner really fails on a wrong expectation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, VECTORS

from referee.conformance import run
from referee.games import implemented


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True)


def test_shared_vectors_pass_for_every_implemented_game() -> None:
    assert VECTORS.is_dir(), f"shared vectors not found at {VECTORS} (set REFEREE_VECTORS)"
    report = run([VECTORS])
    failed = [(o.id, o.expected, o.actual, o.reason) for o in report.outcomes if o.status == "failed"]
    assert not failed, failed[:5]
    games = {o.game for o in report.outcomes if o.status == "passed"}
    assert "doudizhu" in games
    assert games == set(implemented()) & {o.game for o in report.outcomes}


def test_cli_prints_final_counts_and_exit_status() -> None:
    r = _cli("conformance", str(VECTORS))
    assert r.returncode == 0, r.stdout + r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert last.endswith("skipped") and " passed, 0 failed" in last


def test_wrong_expectation_fails_with_id_expected_actual(tmp_path: Path) -> None:
    doc = {"game": "doudizhu", "spec": "doudizhu.md", "cases": [
        {"id": "t-wrong", "kind": "classify", "players": 3, "input": {"cards": ["3S", "3H"]},
         "expect": {"type": "single", "rank": "3", "length": 1}},
        {"id": "t-right", "kind": "classify", "players": 3, "input": {"cards": ["4S", "4H", "4D", "4C"]},
         "expect": {"type": "bomb", "rank": "4", "length": 1}},
    ]}
    (tmp_path / "x.json").write_text(json.dumps(doc))
    (tmp_path / "other.json").write_text(json.dumps({"game": "nosuchgame", "cases": [{"id": "z", "kind": "k"}]}))
    r = _cli("conformance", str(tmp_path))
    assert r.returncode == 1
    assert "FAIL t-wrong" in r.stdout and '"pair"' in r.stdout
    assert r.stdout.strip().splitlines()[-1] == "1 passed, 1 failed, 1 skipped"


def test_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    r = _cli("conformance", str(tmp_path / "nope"))
    assert r.returncode == 2 and "no such vector file or directory" in r.stderr
