#!/usr/bin/env python3
"""The web pages at competition scale (issue #36): a synthetic tournament,
then each live page timed cold and warm with its size, and ``referee report``.

    python bench/web_scale.py make FILE [--bots 1000] [--matches 200000] [--seed 1]
    referee results import FILE -t big --game doudizhu --players 3 --db DB
    python bench/web_scale.py measure DB [--tournament big] [--report-out DIR]

``make`` writes a JSON Lines file in the shape ``referee results import``
reads (the tests' generator, ``tests/weblib.py: write_synthetic_results``):
each match seats a random group of 3 of the bots; the finishing order is
drawn Plackett–Luce from random strengths (one per bot); the scores are
Dou Dizhu's, with the round summary the role tables read. ``measure`` serves the live site in-process (Starlette's test
client: no socket), requests each page twice (cold: the first request of a
page; the very first one also computes the tournament's pages; warm: the
second) and prints milliseconds and bytes, then times ``referee report``
and sizes what it wrote. It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
        snap = client.app.state.cache.peek(int(t["id"]))
        print(f"{'(the first computation of the pages)':44} {snap.seconds * 1000:9.0f}")
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
        sys.path.insert(0, str(ROOT / "tests"))
        from weblib import write_synthetic_results

        write_synthetic_results(a.file, a.bots, a.matches, a.seed)
    else:
        measure(a.db, a.tournament, a.report_out, a.matches)


if __name__ == "__main__":
    main()
