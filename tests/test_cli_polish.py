"""Everyday CLI behaviour (issue 22): readable round summaries for every game,
seat labels, integer JSON scores."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import PY, ROOT
from referee.cli import _bot_label

HEUR = "python sample_bots/heuristic_bot.py"

#: game -> (seats, match-length arguments, words every round line has)
GAMES = {
    "tractor": (4, ["--rounds", "1"], ["declarer seat", "trump", "defenders", "points", "levels"]),
    "smear": (3, ["--rounds", "2"], ["scores ["]),
    "president": (4, ["--rounds", "2"], ["out in order", "(president)", "(scum)", "totals ["]),
    "back_alley": (4, ["--param", "last_round=1"], ["bids 0:", "tricks [", "points [", "totals ["]),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_prints_a_readable_line_per_round(tmp_path: Path, game: str) -> None:
    seats, length, words = GAMES[game]
    args = [PY, "-m", "referee.cli", "match", game, "--seed", "3", "--log-dir", str(tmp_path), *length]
    for s in range(seats):
        args += ["--bot", f"{HEUR} --seed {s}"]
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip().startswith("round ")]
    assert lines and lines[0].startswith("round 1"), r.stdout
    for ln in lines:
        for w in words:
            assert w in ln, (w, ln)
    assert "heuristic" in r.stdout  # bots named in the table
    assert "summary: {" not in r.stdout  # no raw JSON in the human output


def test_smear_line_names_bidder_bid_and_trump(tmp_path: Path) -> None:
    from referee.summary import round_lines

    log = tmp_path / "m.jsonl"
    events = [{"round_start": {"round": 1}}, {"call": {"seat": 1, "bid": 3}},
              {"round_end": {"round": 1, "bidder": 1, "bid": 3, "trump": "H", "made": False,
                             "items": {"points": [1, 0, 2]}, "scores": [1, -3, 2]}},
              {"round_end": {"round": 2, "passed_out": True, "bidder": -1, "scores": [1, -3, 2]}}]
    log.write_text("".join(json.dumps({"type": "event", "to": None, "event": e}) + "\n" for e in events))
    assert round_lines("smear", str(log), ["a", "b", "c"]) == [
        "round 1: seat 1 (b) bid 3, trump H, was set; points won [1 0 2]; scores [1 -3 2]",
        "round 2: everybody passed; scores [1 -3 2]"]


def test_seat_labels_come_from_the_program_or_script_not_the_last_argument() -> None:
    assert _bot_label("python sample_bots/random_bot.py --seed 3", 0) == "random_bot#0"
    assert _bot_label("sleep 60", 1) == "sleep#1"
    assert _bot_label("java -Xmx1g -jar build/mybot.jar", 2) == "mybot#2"
    assert _bot_label("./mybot --depth 3", 3) == "mybot#3"


def test_match_json_scores_are_integers_and_ranks_one_based(tmp_path: Path) -> None:
    args = [PY, "-m", "referee.cli", "match", "doudizhu", "--seed", "3", "--rounds", "1", "--json",
            "--log-dir", str(tmp_path)] + ["--bot", HEUR] * 3
    d = json.loads(subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300).stdout)
    assert all(type(x) is int for x in d["scores"]), d["scores"]
    assert min(d["ranks"]) == 1
