"""A count of one is said in the singular wherever a count can be 1: "1 card",
"1 trick", "1 match" (``referee.words.plural`` in Python, ``CardTable.counted``
in the pages' script)."""

from __future__ import annotations

import json
import shutil
import subprocess

from referee.games import replay_module
from referee.games.back_alley.meta import round_lines
from referee.words import plural
from tournaments.details import summary_lines
from tournaments.schedule import Balance
from weblib import ROOT


def test_plural_of_a_count():
    assert [plural(n, "card") for n in (0, 1, 2)] == ["cards", "card", "cards"]
    assert plural(1, "match", "matches") == "match" and plural(3, "match", "matches") == "matches"
    assert plural(1, "entry", "entries") == "entry" and plural(0, "entry", "entries") == "entries"


def test_back_alley_round_of_one_card_and_a_contract_of_one_trick():
    """Round 13 of Back Alley deals one card each: the replay's round label, its
    contracts and `referee match`'s round line say "1 card", "1 trick"."""
    back_alley = replay_module("back_alley")
    t = back_alley.TABLE({"spec": {"players": 4, "seat_names": ["a", "b", "c", "d"]}}, "all")
    start = back_alley.TABLE.EVENT()
    start.round_start.round_index, start.round_start.hand_size, start.round_start.trump = 13, 1, "H"
    t.apply(None, start)
    assert t.snapshot()["round"] == "Round 13 (1 card)"
    end = back_alley.TABLE.EVENT()
    end.bidding_end.contracts.add(team=0, tricks=1)
    end.bidding_end.contracts.add(team=1, tricks=2)
    t.apply(None, end)
    assert dict(t.snapshot()["info"])["Contracts"] == "a & c: 1 trick; b & d: 2 tricks"
    start.round_start.round_index, start.round_start.hand_size = 12, 2
    t.apply(None, start)
    assert t.snapshot()["round"] == "Round 12 (2 cards)"
    lines = list(round_lines([{"round_start": {}}, {"round_end": {"round_index": 13, "hand_size": 1,
                                                                  "passed_out": True, "totals": [0, 0]}}],
                             ["a", "b", "c", "d"]))
    assert lines[0].startswith("round 13 (1 card): ")


def test_schedules_and_summaries_say_one_in_the_singular():
    assert Balance(2, (1, 1), (1, 1), 0, 0).describe().startswith("every bot 1 match, pairs meet 1 time, ")
    assert Balance(9, (2, 3), (0, 2), 1, 0).describe().startswith("every bot 2-3 matches, pairs meet 0-2 times, ")
    lines = summary_lines({"role_summary": [{"role": "landlord", "rounds": 1}, {"role": "peasant", "rounds": 2}]})
    assert lines == ["roles (per round): landlord: 1 round · peasant: 2 rounds"]


def test_the_pages_script_counts_in_the_singular_and_plural():
    """``CardTable.counted`` of static/cardtable.js (the seat page's "select 1 card
    in your hand", a seat's "1 card"), run by Node.js."""
    node = shutil.which("node")
    assert node, "Node.js is needed (Debian: apt-get install nodejs)"
    script = (ROOT / "referee" / "web" / "static" / "cardtable.js").read_text()
    probe = ("var window = {};\n" + script + "\nconsole.log(JSON.stringify([1, 0, 2].map(function (n) {"
             " return window.CardTable.counted(n, 'card'); }).concat([window.CardTable.counted(1, 'match', 'matches'),"
             " window.CardTable.counted(5, 'match', 'matches')])));")
    run = subprocess.run([node, "-e", probe], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == ["1 card", "0 cards", "2 cards", "1 match", "5 matches"]
