#!/usr/bin/env python3
"""The web pages at competition scale (issue #36): a synthetic tournament,
then each live page timed cold and warm with its size, and ``referee report``.

    python bench/web_scale.py make FILE [--bots 1000] [--matches 200000] [--seed 1]
    referee results import FILE -t big --game doudizhu --players 3 --db DB
    python bench/web_scale.py measure DB [--tournament big] [--report-out DIR]

``make`` writes a JSON Lines file in the shape ``referee results import``
reads: each match seats a random group of 3 of the bots; the finishing order
is drawn Plackett–Luce from random strengths (one per bot); the scores are
Dou Dizhu's (the landlord, a random seat, wins or loses twice what each
peasant loses or wins, over 1 to 4 rounds), with the round summary the role
tables read. ``measure`` serves the live site in-process (Starlette's test
client: no socket), requests each page twice (cold: the first request of a
page; the very first one also computes the tournament's pages; warm: the
second) and prints milliseconds and bytes, then times ``referee report``
and sizes what it wrote. It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make(path: Path, bots: int, matches: int, seed: int) -> None:
    rng = random.Random(seed)
    names = [f"bot{i:04d}" for i in range(bots)]
    strength = [rng.gauss(0.0, 1.0) for _ in names]
    with path.open("w", encoding="utf-8") as f:
        for m in range(matches):
            seats = rng.sample(range(bots), 3)
            left, order = list(seats), []
            while left:  # Plackett–Luce: the next place drawn in proportion to exp(strength)
                w = [math.exp(strength[b]) for b in left]
                pick = rng.choices(range(len(left)), weights=w)[0]
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
            ranked = sorted(range(3), key=lambda s: -scores[s])
            ranks = [0, 0, 0]
            for place, s in enumerate(ranked, 1):
                tied = [t for t in range(3) if scores[t] == scores[s] and ranks[t]]
                ranks[s] = ranks[tied[0]] if tied else place
            faults = [1 if rng.random() < 0.002 else 0 for _ in range(3)]
            f.write(json.dumps({"match": m, "seed": rng.getrandbits(62), "status": "complete",
                                "seats": [names[b] for b in seats], "scores": scores, "ranks": ranks,
                                "faults": faults, "fault_kinds": [{"timeout": n} if n else {} for n in faults],
                                "summary": {"rounds": rounds}, "decisions": rng.randint(30, 300),
                                "elapsed_s": round(rng.uniform(0.2, 3.0), 2)}) + "\n")


def measure(db: str, tournament: str, report_out: Path | None, matches: int) -> None:
    from starlette.testclient import TestClient

    from referee.web.app import create_app
    from tournaments.store import Store

    store = Store(db, create=False)
    t = store.tournament(tournament)
    assert t is not None, f"no tournament {tournament} in {db}"
    names = [b["name"] for b in store.bot_table(int(t["id"]))]
    store.close()
    mid = names[len(names) // 2]
    base = f"/t/{tournament}"
    pages = [("index (page 1; computes the tournament)", f"{base}/index.html"),
             ("index page 5", f"{base}/index.html?page=5"),
             ("h2h.html (k=10)", f"{base}/h2h.html"),
             ("h2h.html?k=50", f"{base}/h2h.html?k=50"),
             ("matches page 1", f"{base}/matches.html"),
             ("matches page 1000", f"{base}/matches.html?page=1000"),
             ("matches last page", f"{base}/matches.html?page=99999"),
             ("matches ?bot=", f"{base}/matches.html?bot={mid}"),
             ("bot page", f"{base}/bots/{mid}.html"),
             ("bot page, matches page 3", f"{base}/bots/{mid}.html?page=3"),
             ("tournament list", "/")]
    with TestClient(create_app(db)) as client:
        print(f"{'page':44} {'cold ms':>9} {'warm ms':>9} {'bytes':>10}")
        for label, url in pages:
            t0 = time.perf_counter()
            r = client.get(url)
            cold = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            r2 = client.get(url)
            warm = (time.perf_counter() - t0) * 1000
            assert r.status_code == r2.status_code == 200, (url, r.status_code, r.text[:300])
            print(f"{label:44} {cold:9.0f} {warm:9.0f} {len(r2.content):10,}")
        t0 = time.perf_counter()
        n = 0
        with client.stream("GET", f"{base}/h2h.csv") as r:
            for chunk in r.iter_bytes():
                n += len(chunk)
        print(f"{'h2h.csv (streamed, every pair)':44} {(time.perf_counter() - t0) * 1000:9.0f} {'':>9} {n:10,}")
    if report_out is not None:
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "referee.cli", "report", tournament, "--db", db, "--out",
                            str(report_out), "--matches", str(matches)], cwd=ROOT, capture_output=True, text=True)
        took = time.perf_counter() - t0
        files = [q for q in report_out.rglob("*") if q.is_file()]
        size = sum(q.stat().st_size for q in files)
        biggest = max(files, key=lambda q: q.stat().st_size)
        print(f"referee report: {took:.1f} s, {len(files):,} files, {size / 2**20:.1f} MiB "
              f"(largest {biggest.relative_to(report_out)}: {biggest.stat().st_size:,} bytes); exit {p.returncode}")
        print(p.stderr.strip()[-600:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("file", type=Path)
    mk.add_argument("--bots", type=int, default=1000)
    mk.add_argument("--matches", type=int, default=200_000)
    mk.add_argument("--seed", type=int, default=1)
    me = sub.add_parser("measure")
    me.add_argument("db")
    me.add_argument("--tournament", default="big")
    me.add_argument("--report-out", type=Path)
    me.add_argument("--matches", type=int, default=10_000, help="referee report --matches")
    a = ap.parse_args()
    if a.cmd == "make":
        make(a.file, a.bots, a.matches, a.seed)
    else:
        measure(a.db, a.tournament, a.report_out, a.matches)


if __name__ == "__main__":
    main()
