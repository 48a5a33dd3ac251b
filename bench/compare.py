#!/usr/bin/env python3
"""Refereed matches per decision, two or more checkouts interleaved:

    python bench/compare.py OLD_CHECKOUT NEW_CHECKOUT [MORE...] [--runs 6] [--matches 6] [--games a,b]

For a change's performance budget ("no more than 10% worse per refereed
decision"): each run starts, in one checkout, that checkout's own
``bench.transport.MatchBench`` (a referee on 127.0.0.1 with four
``random_bot.py`` processes connected once), plays one warm-up match per
game, then ``--matches`` refereed matches per game, and reports the referee
process's CPU time (gRPC threads included) and the wall clock per decision.
The checkouts take turns, ``--runs`` times, so a change in the machine's
state hits every side alike; the table gives per game the median of each
side and the median of the per-run ratios against the first checkout, with
their range. Make a checkout of an old commit with ``git worktree add DIR
COMMIT``; each checkout runs with its own code (and the Python running this
script). It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

GAMES = ("doudizhu", "tractor", "smear", "president", "back_alley")

#: run inside a checkout (its own bench.transport): prints "game decisions cpu_s wall_s" per game
_ONE_RUN = """
import asyncio, sys, time, tempfile
from pathlib import Path
sys.path.insert(0, ".")
from bench.transport import MatchBench

async def main(games, n):
    with tempfile.TemporaryDirectory() as d:
        async with MatchBench(Path(d)) as mb:
            for g in games:
                await mb.match(g, 1)  # warm-up
            for g in games:
                c0, t0, dec = time.process_time(), time.perf_counter(), 0
                for i in range(n):
                    dec += (await mb.match(g, 100 + i))["decisions"]
                print(g, dec, time.process_time() - c0, time.perf_counter() - t0, flush=True)

asyncio.run(main(sys.argv[1].split(","), int(sys.argv[2])))
"""


def one_run(checkout: Path, games: list[str], matches: int, timeout_s: float) -> dict[str, tuple[float, float]]:
    """game -> (CPU µs per decision, wall µs per decision) of one run in ``checkout``.
    Raises RuntimeError with the run's stderr if it fails."""
    p = subprocess.run([sys.executable, "-c", _ONE_RUN, ",".join(games), str(matches)], cwd=checkout,
                       capture_output=True, text=True, timeout=timeout_s)
    if p.returncode != 0:
        raise RuntimeError(f"run in {checkout} failed:\n{p.stderr[-2000:]}")
    out = {}
    for line in p.stdout.splitlines():
        g, dec, cpu, wall = line.split()
        out[g] = (float(cpu) * 1e6 / int(dec), float(wall) * 1e6 / int(dec))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", nargs="+", type=Path, help="source checkouts; the first is the baseline")
    ap.add_argument("--runs", type=int, default=6, help="runs per checkout, interleaved (default 6)")
    ap.add_argument("--matches", type=int, default=6, help="refereed matches per game and run (default 6)")
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated games")
    ap.add_argument("--timeout", type=float, default=900, help="seconds one run may take")
    a = ap.parse_args(argv)
    if len(a.checkouts) < 2:
        ap.error("give at least two checkouts")
    for c in a.checkouts:
        if not (c / "bench" / "transport.py").is_file():
            ap.error(f"{c}: not a source checkout (no bench/transport.py)")
    games = [g for g in a.games.split(",") if g]
    runs: dict[Path, list[dict[str, tuple[float, float]]]] = {c: [] for c in a.checkouts}
    for i in range(a.runs):
        for c in a.checkouts:
            try:
                runs[c].append(one_run(c, games, a.matches, a.timeout))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                sys.exit(f"error: {e}")
            print(f"run {i + 1}/{a.runs} in {c} done", file=sys.stderr, flush=True)
    base = a.checkouts[0]
    names = [c.name or str(c) for c in a.checkouts]
    for k, what in ((0, "referee CPU per decision (µs)"), (1, "wall clock per decision (µs)")):
        print(f"\n{what}, median of {a.runs} interleaved runs of {a.matches} matches per game; "
              f"ratio = median of per-run ratios against {names[0]} [range]")
        print("game        " + "".join(f"{n[:14]:>16}" for n in names)
              + "".join(f"{(n[:10] + '/' + names[0][:6]):>26}" for n in names[1:]))
        for g in games:
            cells = [f"{statistics.median(r[g][k] for r in runs[c]):>16.0f}" for c in a.checkouts]
            for c in a.checkouts[1:]:
                rs = [new[g][k] / old[g][k] for new, old in zip(runs[c], runs[base])]
                cells.append(f"{statistics.median(rs):>12.2f} [{min(rs):.2f}-{max(rs):.2f}]".rjust(26))
            print(f"{g:<12}" + "".join(cells))


if __name__ == "__main__":
    main()
