"""Helpers of the web viewer tests: real match logs of every game (played by
``referee match`` with the sample bots over gRPC, once per test session) and
an independent oracle of the cards a seat may have seen at each step."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REFEREE = [sys.executable, "-m", "referee.cli"]
HEUR = f"{sys.executable} sample_bots/heuristic_bot.py"
RAND = f"{sys.executable} sample_bots/random_bot.py"

#: name -> (game, players, extra arguments of `referee match`): short but real matches
MATCHES: dict[str, tuple[str, int, list[str]]] = {
    "doudizhu": ("doudizhu", 3, ["--rounds", "12"]),
    "doudizhu4": ("doudizhu", 4, ["--rounds", "1"]),
    "tractor": ("tractor", 4, ["--rounds", "1"]),
    "smear": ("smear", 3, ["--rounds", "2"]),
    "president": ("president", 4, ["--rounds", "2"]),
    "back_alley": ("back_alley", 4, ["--param", "last_round=2"]),
}
#: the event that opens a round, per game (an oracle of its own: not the viewer's table)
ROUND_OPENER = {"doudizhu": "round_start", "tractor": "round_start", "smear": "round_start",
                "president": "round_start", "back_alley": "round_start"}
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][SHDC]|BJ|RJ)(?![A-Za-z0-9])")

_logs: dict[str, Path] = {}


def new_chrome(width: int = 1400, height: int = 900):
    """A headless Chromium driven by the system's chromedriver (Selenium), its
    performance log on (the network requests and event-stream messages the page
    received). The caller quits it."""
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"),
                                 shutil.which("google-chrome")) if p), None)
    chromedriver = shutil.which("chromedriver")
    assert chromium and chromedriver, ("Chromium and chromedriver are needed (Debian: apt-get install chromium "
                                       "chromium-driver; .ci/run installs them)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-extensions", "--no-first-run", f"--window-size={width},{height}"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    d = webdriver.Chrome(service=Service(chromedriver), options=opts)  # a driver path: no Selenium Manager lookup
    d.set_page_load_timeout(60)
    d.set_script_timeout(600)  # stepping a whole match in one script on a loaded machine
    return d


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


def match_logs(base: Path) -> dict[str, Path]:
    """One finished match log per entry of :data:`MATCHES` (played once per
    session, all at once), with `referee match`'s stdout next to it."""
    if _logs:
        return _logs
    procs = {}
    for name, (game, players, extra) in MATCHES.items():
        d = base / name
        d.mkdir(parents=True, exist_ok=True)
        bots = [HEUR if s % 2 == 0 else RAND for s in range(players)]
        cmd = [*REFEREE, "match", game, "--seed", "11", "--log-dir", str(d), *extra]
        for b in bots:
            cmd += ["--bot", b]
        procs[name] = (d, subprocess.Popen(cmd, cwd=ROOT, env=env(), stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True))
    for name, (d, p) in procs.items():
        out, _ = p.communicate(timeout=600)
        assert p.returncode == 0, f"referee match {name} failed:\n{out}"
        (d / "stdout.txt").write_text(out)
        logs = sorted(d.glob("*.jsonl"))
        assert len(logs) == 1, out
        _logs[name] = logs[0]
    return _logs


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def codes(obj: Any) -> set[str]:
    """Card codes anywhere in a JSON value (strings that are exactly a code)."""
    out: set[str] = set()
    if isinstance(obj, str):
        if CARD_TOKEN.fullmatch(obj):
            out.add(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            out |= codes(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= codes(v)
    return out


def allowed_cards(path: Path, seat: int | None) -> list[set[str]]:
    """For each replay step k (0 = before the first decision), the card codes
    that ``seat`` (``None``: a spectator) may have seen by the end of step k:
    those of public events, of events private to it and of its own decisions
    in the current round (and in the round just closed, while its last trick
    is still on the table), plus those of public round and match results."""
    lines = read_lines(path)
    game = lines[0]["spec"]["game"]
    opener = ROUND_OPENER[game]
    steps: list[set[str]] = []
    this_round: set[str] = set()
    carried: set[str] = set()  # the round closed during the current step
    results: set[str] = set()
    for d in lines[1:]:
        if d["type"] == "decision":
            steps.append(this_round | carried | results)
            carried = set()
            if d["seat"] == seat:
                this_round |= codes(d["applied"]) | codes(d.get("reply"))
        elif d["type"] == "event" and (d["to"] is None or d["to"] == seat):
            ev = d["event"]
            kind = next(iter(ev))
            if kind == opener:
                carried |= this_round
                this_round = set()
            this_round |= codes(ev)
            if kind in ("round_end", "match_end"):
                results |= codes(ev)
    steps.append(this_round | carried | results)
    return steps


def decisions(path: Path) -> list[dict[str, Any]]:
    return [d for d in read_lines(path) if d["type"] == "decision"]


def write_synthetic_results(path: Path, bots: int, matches: int, seed: int = 1, name: str = "bot{:04d}") -> list[str]:
    """A synthetic Dou Dizhu tournament as a JSON Lines file that ``referee
    results import`` reads (3 seats): each match seats a random group of 3 of
    ``bots`` bots; the finishing order is drawn Plackett–Luce from random
    strengths (one per bot); the scores are Dou Dizhu's (the landlord, a
    random seat, wins or loses twice what each peasant loses or wins, over 1
    to 4 rounds), with the round summary the role tables read; one seat in
    500 has a timeout. Returns the bot names (``name`` formatted with the
    bot's number)."""
    import math
    import random

    rng = random.Random(seed)
    names = [name.format(i) for i in range(bots)]
    strength = [rng.gauss(0.0, 1.0) for _ in names]
    with path.open("w", encoding="utf-8") as f:
        for m in range(matches):
            seats = rng.sample(range(bots), 3)
            left, order = list(seats), []
            while left:  # Plackett–Luce: the next place drawn in proportion to exp(strength)
                pick = rng.choices(range(len(left)), weights=[math.exp(strength[b]) for b in left])[0]
                order.append(left.pop(pick))
            rounds, scores = [], [0, 0, 0]
            for _ in range(rng.randint(1, 4)):
                ll = rng.randrange(3)
                won = order[0] == seats[ll] if rng.random() < 0.7 else rng.random() < 0.5
                stake = rng.choice((1, 2, 4, 8))
                deltas = [(2 * stake if won else -2 * stake) if s == ll else (-stake if won else stake)
                          for s in range(3)]
                scores = [a + b for a, b in zip(scores, deltas)]
                rounds.append({"landlord": ll, "landlord_won": won, "deltas": deltas})
            ranks = [1 + sum(scores[t] > scores[s] for t in range(3)) for s in range(3)]  # ties share a rank
            faults = [1 if rng.random() < 0.002 else 0 for _ in range(3)]
            f.write(json.dumps({"match": m, "seed": rng.getrandbits(62), "status": "complete",
                                "seats": [names[b] for b in seats], "scores": scores, "ranks": ranks,
                                "faults": faults, "fault_kinds": [{"timeout": n} if n else {} for n in faults],
                                "summary": {"rounds": rounds}, "decisions": rng.randint(30, 300),
                                "elapsed_s": round(rng.uniform(0.2, 3.0), 2)}) + "\n")
    return names


def game_report(base: Path, name: str, log: Path, bots: int = 5, matches: int = 6) -> Path:
    """`referee report`'s pages (written in-process) of a small tournament of
    the game of ``log``, imported through the one write path: ``matches``
    matches among ``bots`` bots with long names, each with the result of the
    real match ``log`` (its scores and ranks), the newest with that log (so
    one replay). Returns the report's directory."""
    from referee.web.report import write_report
    from tournaments.importer import import_results
    from tournaments.store import Store

    lines = read_lines(log)
    spec, result = lines[0]["spec"], next(d for d in reversed(lines) if d["type"] == "result")
    players = int(spec["players"])
    names = [f"a-rather-long-bot-name-{i:03d}-v12" for i in range(bots)]
    src = base / f"{name}.jsonl"
    with src.open("w", encoding="utf-8") as f:
        for m in range(matches):
            seats = [names[(m + s) % bots] for s in range(players)]
            f.write(json.dumps({"match": m, "seed": m + 1, "status": "complete", "seats": seats,
                                "scores": result["scores"], "ranks": result["ranks"], "faults": [0] * players,
                                "decisions": result.get("decisions", 0), "elapsed_s": 1.5,
                                "log_path": str(log) if m == matches - 1 else None}) + "\n")
    store = Store(str(base / f"{name}.sqlite"))
    try:
        import_results(store, src, name, spec["game"], players)
        out = base / f"{name}-site"
        write_report(store, store.tournament(name), out)
    finally:
        store.close()
    return out
