#!/usr/bin/env python3
"""Refereed matches per decision, two or more checkouts interleaved match by match:

    python bench/compare.py OLD_CHECKOUT NEW_CHECKOUT [MORE...] [--runs 6] [--matches 6] [--games a,b]

For a change's performance budget ("no more than 10% worse per refereed
decision"). Each checkout gets one worker process, started once, running
that checkout's own code: its ``bench.transport.MatchBench`` (a referee on
127.0.0.1 with four ``random_bot.py`` processes connected once) plays one
warm-up match per game, then waits for orders. The driver then has the
checkouts play the same matches in turn, one match at a time (game, seed:
old, new, new, old, ... the first side alternating), so that a change in
the machine's state (a shared or virtual machine drifts by tens of percent
within seconds) hits every side alike. A worker reports, per match, its
decisions, the referee process's CPU time (gRPC threads included) and the
wall clock.

``--referee-only``: the referee's own work alone, steadier (no gRPC, no
bot processes): the worker plays the matches through
``referee.runner.run_match`` with in-process seat links that answer at
once with a random legal action, and reports the CPU time minus the links'
own.

``--runs`` rounds, each playing ``--matches`` matches per game on every
checkout. The table gives per game the median per-decision figure of each
side, and against the first checkout the ratio of the totals and the
median of the per-round ratios with their range. Make a checkout of an
old commit with ``git worktree add DIR COMMIT``. It prints figures and
asserts nothing; every process it starts is stopped.
"""

from __future__ import annotations

import argparse
import select
import statistics
import subprocess
import sys
from pathlib import Path

GAMES = ("doudizhu", "tractor", "smear", "president", "back_alley")

#: runs inside a checkout (its own bench.transport): after "ready", reads
#: "game seed" lines and answers each with "decisions cpu_s wall_s" of one match
_WORKER = """
import asyncio, sys, time, tempfile
from pathlib import Path
sys.path.insert(0, ".")
from bench.transport import MatchBench

async def main(games):
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory() as d:
        async with MatchBench(Path(d)) as mb:
            for g in games:
                await mb.match(g, 1)  # warm-up
            print("ready", flush=True)
            while line := await loop.run_in_executor(None, sys.stdin.readline):
                g, seed = line.split()
                c0, t0 = time.process_time(), time.perf_counter()
                dec = (await mb.match(g, int(seed)))["decisions"]
                print(dec, time.process_time() - c0, time.perf_counter() - t0, flush=True)

asyncio.run(main(sys.argv[1].split(",")))
"""


#: the same loop, the referee alone: matches through :func:`referee.runner.run_match`
#: with in-process seat links (bundled events, encoded requests where the
#: checkout's runner has them, a random legal reply at once, the match log
#: written); per match the CPU time minus the links' own (parsing the request
#: and choosing a reply, what a bot does) is the referee's work per decision;
#: a request handed over as a message is serialised first, as gRPC would
_REFEREE_ONLY_WORKER = """
import asyncio, random, sys, time, tempfile
from pathlib import Path
sys.path.insert(0, ".")
from cardgames.v1 import referee_pb2 as pb
from referee import protocol
from referee.runner import BasicSeatLink, MatchSpec, run_match
from bench.transport import GRPC_MATCH

# the name of the numbering function changed over time
NUMBERED = getattr(protocol, "numbered_request", None) or getattr(protocol, "decision_wire", None)

class Link(BasicSeatLink):
    bundle_events = True
    encoded_requests = NUMBERED is not None

    def __init__(self, seat, rng, own):
        self.name, self.connected, self.rng, self.own, self.rid = f"bot{seat}", True, rng, own, 0

    async def send(self, msg):
        pass

    def _reply(self, m):
        r = m.decision_request
        return pb.ActionReply(match_id=r.match_id, request_id=r.request_id, action=self.rng.choice(r.legal_actions))

    async def ask(self, msg, timeout_s):
        self.rid += 1
        msg.decision_request.request_id = self.rid
        wire = msg.SerializeToString()  # what gRPC does with a message: the referee's work
        t0 = time.process_time()
        reply = self._reply(pb.RefereeMessage.FromString(wire))
        self.own[0] += time.process_time() - t0
        return reply, 1.0

    async def ask_encoded(self, body, timeout_s):
        t0 = time.process_time()
        self.rid += 1
        reply = self._reply(pb.RefereeMessage.FromString(NUMBERED(body, self.rid)))
        self.own[0] += time.process_time() - t0
        return reply, 1.0, self.rid

async def match(game, seed, d):
    n, params = GRPC_MATCH[game]
    spec = MatchSpec(game=game, players=n, seed=seed, seat_names=[f"bot{i}" for i in range(n)],
                     params=dict(params), decision_ms=5000, match_id=f"bench-{game}-{seed}")
    own, rng = [0.0], random.Random(seed)
    c0, t0 = time.process_time(), time.perf_counter()
    out = await run_match(spec, [Link(i, rng, own) for i in range(n)], Path(d) / f"{spec.match_id}.jsonl")
    return out.decisions, time.process_time() - c0 - own[0], time.perf_counter() - t0

async def main(games):
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory() as d:
        for g in games:
            await match(g, 1, d)  # warm-up
        print("ready", flush=True)
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            g, seed = line.split()
            print(*(await match(g, int(seed), d)), flush=True)

asyncio.run(main(sys.argv[1].split(",")))
"""


class Worker:
    """One checkout's worker process (see :data:`_WORKER`)."""

    def __init__(self, checkout: Path, games: list[str], timeout_s: float, referee_only: bool = False):
        self.checkout = checkout
        self.timeout_s = timeout_s
        code = _REFEREE_ONLY_WORKER if referee_only else _WORKER
        self.p = subprocess.Popen([sys.executable, "-c", code, ",".join(games)], cwd=checkout, text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def _line(self) -> str:
        """The worker's next line; RuntimeError if it stops, or says nothing within the timeout."""
        assert self.p.stdout is not None
        if not select.select([self.p.stdout], [], [], self.timeout_s)[0]:
            self.p.kill()
            raise RuntimeError(f"the worker in {self.checkout} said nothing for {self.timeout_s:.0f} s")
        line = self.p.stdout.readline()
        if not line:
            err = self.p.stderr.read() if self.p.stderr else ""
            raise RuntimeError(f"the worker in {self.checkout} stopped:\n{err[-2000:]}")
        return line.strip()

    def wait_ready(self) -> None:
        if self._line() != "ready":
            raise RuntimeError(f"the worker in {self.checkout} did not start")

    def match(self, game: str, seed: int) -> tuple[int, float, float]:
        """(decisions, CPU seconds, wall seconds) of one refereed match."""
        assert self.p.stdin is not None
        self.p.stdin.write(f"{game} {seed}\n")
        self.p.stdin.flush()
        dec, cpu, wall = self._line().split()
        return int(dec), float(cpu), float(wall)

    def stop(self) -> None:
        if self.p.stdin is not None:
            self.p.stdin.close()  # the worker's loop ends, its bots are stopped
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def compare(checkouts: list[Path], games: list[str], runs: int, matches: int, timeout_s: float,
            referee_only: bool = False) -> dict[Path, dict[str, list[tuple[int, float, float]]]]:
    """checkout -> game -> per run (decisions, CPU s, wall s) summed over its matches."""
    workers = [Worker(c, games, timeout_s, referee_only) for c in checkouts]
    out: dict[Path, dict[str, list[tuple[int, float, float]]]] = {c: {g: [] for g in games} for c in checkouts}
    try:
        for w in workers:
            w.wait_ready()
        for i in range(runs):
            for g in games:
                sums = {c: [0, 0.0, 0.0] for c in checkouts}
                for m in range(matches):
                    order = workers if (i + m) % 2 == 0 else workers[::-1]
                    for w in order:
                        dec, cpu, wall = w.match(g, 100 + i * matches + m)
                        s = sums[w.checkout]
                        s[0] += dec
                        s[1] += cpu
                        s[2] += wall
                for c in checkouts:
                    out[c][g].append(tuple(sums[c]))  # type: ignore[arg-type]
            print(f"run {i + 1}/{runs} done", file=sys.stderr, flush=True)
    finally:
        for w in workers:
            w.stop()
    return out


def _labels(checkouts: list[Path]) -> list[str]:
    """Column labels: each checkout's folder name ("." is named after its folder
    too), with the path where two folders share a name."""
    names = [c.resolve().name for c in checkouts]
    return [n if names.count(n) == 1 else str(c) for n, c in zip(names, checkouts)]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkouts", nargs="+", type=Path, help="source checkouts; the first is the baseline")
    ap.add_argument("--runs", type=int, default=6, help="rounds (default 6)")
    ap.add_argument("--matches", type=int, default=6, help="matches per game, round and checkout (default 6)")
    ap.add_argument("--games", default=",".join(GAMES), help="comma-separated games")
    ap.add_argument("--timeout", type=float, default=900,
                    help="seconds a worker may take to start, or to play one match (default 900)")
    ap.add_argument("--referee-only", action="store_true",
                    help="the referee's own work alone: in-process seat links instead of gRPC and bot processes")
    a = ap.parse_args(argv)
    if len(a.checkouts) < 2:
        ap.error("give at least two checkouts")
    for c in a.checkouts:
        if not (c / "bench" / "transport.py").is_file():
            ap.error(f"{c}: not a source checkout (no bench/transport.py)")
    if len({c.resolve() for c in a.checkouts}) < len(a.checkouts):
        ap.error("a checkout is given twice: make a second one with `git worktree add DIR COMMIT`")
    games = [g for g in a.games.split(",") if g]
    unknown = [g for g in games if g not in GAMES]
    if unknown or not games:
        ap.error(f"unknown game {', '.join(unknown) or '(none given)'}: choose from {', '.join(GAMES)}")
    if a.runs < 1 or a.matches < 1:
        ap.error("--runs and --matches must be at least 1")
    try:
        res = compare(a.checkouts, games, a.runs, a.matches, a.timeout, a.referee_only)
    except RuntimeError as e:
        sys.exit(f"error: {e}")
    base = a.checkouts[0]
    names = _labels(a.checkouts)
    tables = ((1, "referee CPU per decision (µs)"), (2, "wall clock per decision (µs)"))
    if a.referee_only:
        tables = ((1, "referee-only CPU per decision (µs): in-process links, their own time taken out"),)
    for k, what in tables:
        print(f"\n{what}, {a.runs} round(s) of {a.matches} match(es) per game, the checkouts taking turns "
              f"match by match; each checkout against {names[0]}: the ratio of the totals, then the median of "
              f"the per-round ratios [their range]")
        print("game        " + "".join(f"{n[:14]:>16}" for n in names)
              + "".join(f"{(n[:12] + ' vs ' + names[0][:12]):>32}" for n in names[1:]))
        for g in games:
            per = {c: [r[k] * 1e6 / r[0] for r in res[c][g]] for c in a.checkouts}
            cells = [f"{statistics.median(per[c]):>16.0f}" for c in a.checkouts]
            for c in a.checkouts[1:]:
                rs = [new / old for new, old in zip(per[c], per[base])]
                total = (sum(r[k] for r in res[c][g]) / sum(r[0] for r in res[c][g])) / (
                    sum(r[k] for r in res[base][g]) / sum(r[0] for r in res[base][g]))
                cells.append(f"{total:>8.2f} {statistics.median(rs):>8.2f} [{min(rs):.2f}-{max(rs):.2f}]".rjust(32))
            print(f"{g:<12}" + "".join(cells))


if __name__ == "__main__":
    main()
