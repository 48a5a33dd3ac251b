"""Measurements over real loopback gRPC with bot processes.

* Bare echo baseline: a ``grpc.aio`` server in this process implements
  ``RefereeService.Connect`` with no referee logic at all: it writes a
  recorded ``DecisionRequest`` (median size of the game) and reads the
  reply, over and over. The client is the unmodified
  ``sample_bots/random_bot.py`` (sync grpcio, separate process), so the
  transport, the stubs and the bot's work per message are exactly those of a
  refereed match. One round trip = write request -> read reply, timed here.
* The same echo with a match's process layout ("layout echo"): the
  messages of a match of the same game replayed by that server with no
  referee logic, each request to the bot process in the seat to act (the
  sample bots take turns as in a match, requests carry their events), so the
  only difference from a refereed match is the referee.
* Refereed match: the real :class:`referee.service.Referee` in this process,
  random bots (``random_bot.py``) in separate processes, full matches
  through :func:`referee.runner.run_match` (match log written, events sent to
  every seat). Per decision = match wall time / decisions; referee-side part
  = (wall time - time waiting for replies, from the match log) / decisions.
* Tournament throughput with :func:`tournaments.run.run_tournament`.
* Memory: a fresh referee process running 8 concurrent matches.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

from bench import engines
from cardgames.v1 import referee_pb2 as pb, referee_pb2_grpc

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = f"python {ROOT / 'sample_bots' / 'random_bot.py'}"

#: per game: (players, match parameters) of the refereed matches: ~300-450 decisions
#: each (a few tenths of a second), so that a hiccup of a shared machine weighs little
GRPC_MATCH: dict[str, tuple[int, dict[str, Any]]] = {
    "doudizhu": (3, {"rounds": 6}),
    "tractor": (4, {"max_rounds": 2}),
    "smear": (3, {"max_rounds": 20}),
    "president": (4, {"max_rounds": 4}),
    "back_alley": (4, {"last_round": 9}),
}


# ----------------------------------------------------------------------------- echo
class EchoServicer(referee_pb2_grpc.RefereeServiceServicer):
    """``RefereeService.Connect`` with no referee logic: it keeps every bot
    stream open for the bench, which writes and reads on them directly."""

    def __init__(self) -> None:
        self.ctxs: list[grpc.aio.ServicerContext] = []
        self.joined = asyncio.Event()
        self.done = asyncio.Event()

    async def Connect(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        first = await context.read()  # the bot's Hello
        if first is grpc.aio.EOF:
            return
        self.ctxs.append(context)
        self.joined.set()
        await self.done.wait()
        await context.write(pb.RefereeMessage(goodbye=pb.Goodbye(reason="bench over")))


def wire_script(game: str, seed: int) -> list[tuple[int, bytes]]:
    """What a refereed match puts on the wire, decision by decision, without
    the referee: for each decision, the seat to act and its request (an encoded
    ``RefereeMessage``). Built
    from a seeded random playout of a match like the one ``MatchBench`` plays, with the same seats and
    the same messages the referee sends the sample bots: they ask for
    ``Hello.bundle_events``, so a seat's events ride inside its next request
    and nothing else goes out between decisions."""
    import random

    from referee.protocol import decision_request, event_pb  # plain builders (not timed here)

    n, params = GRPC_MATCH[game]
    g = engines.new_game(game, seed, params)
    rng = random.Random(seed)
    steps = []
    seq = 0
    pending: list[list[pb.Event]] = [[] for _ in range(n)]
    for d in range(engines.MAX_DECISIONS):
        for ev in g.pop_events():
            seq += 1
            e = event_pb(game, "wire", seq, ev)
            for s in (range(n) if ev.to is None else (ev.to,)):
                pending[s].append(e)
        seat = g.to_act
        if seat is None:
            break
        req = pb.RefereeMessage(decision_request=decision_request(g, "wire", d + 1, 5000, 0))
        req.decision_request.events.extend(pending[seat])
        pending[seat] = []
        steps.append((seat, req.SerializeToString()))  # written as bytes, as the referee writes its requests
        legal, _ = g.legal_actions()
        g.apply(seat, rng.choice(legal))
    return steps


class EchoBench:
    """An echo server on 127.0.0.1 with ``bots`` random_bot.py processes connected to it.

    :meth:`rtt`: the bare round trip (write one DecisionRequest, read the
    reply) on one stream. :meth:`wire`: the echo with a match's process layout,
    a match's messages replayed from a :func:`wire_script` (each request to
    the bot in its seat, then its reply read): the transport's cost of a
    decision without the referee."""

    def __init__(self, log_dir: Path, bots: int = 4):
        self.log_dir = log_dir
        self.nbots = bots
        self.servicer = EchoServicer()
        self.server: grpc.aio.Server | None = None
        self.procs: list[Any] = []

    async def __aenter__(self) -> "EchoBench":
        from referee.bots import BotProcess
        from referee.service import DEFAULT_MAX_MESSAGE_BYTES, KEEPALIVE_OPTIONS, add_referee_service

        self.server = grpc.aio.server(options=[
            ("grpc.max_receive_message_length", DEFAULT_MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", 64 * 1024 * 1024), *KEEPALIVE_OPTIONS])
        add_referee_service(self.servicer, self.server)  # writes bytes as they are, like the referee
        port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()
        for i in range(self.nbots):
            self.procs.append(BotProcess(f"{RANDOM_BOT} --seed {i + 1}", f"echo-bot{i}", f"127.0.0.1:{port}",
                                         "echo", self.log_dir).start())
        for _ in range(3000):  # bounded: up to 60 s
            if len(self.servicer.ctxs) >= self.nbots:
                return self
            if any(p.poll() is not None for p in self.procs):
                break
            await asyncio.sleep(0.02)
        raise RuntimeError("echo bots did not connect: " + " | ".join(p.tail_stderr(300) for p in self.procs))

    async def __aexit__(self, *exc: object) -> None:
        self.servicer.done.set()
        await asyncio.sleep(0.05)
        await asyncio.gather(*(asyncio.to_thread(p.stop, 1.0) for p in self.procs))
        if self.server is not None:
            await self.server.stop(0.2)

    async def rtt(self, request: bytes, n: int) -> tuple[list[float], float]:
        """``n`` round trips: (each in microseconds, total seconds)."""
        ctx = self.servicer.ctxs[0]
        msg = pb.RefereeMessage(decision_request=pb.DecisionRequest.FromString(request))
        wires = []  # encoded before the clock starts: the echo writes bytes (its own cost left out)
        for i in range(n):
            msg.decision_request.request_id = i + 1
            wires.append(msg.SerializeToString())
        rtts: list[float] = []
        self.last_cpu_s = time.process_time()
        t00 = time.perf_counter()
        for w in wires:
            t0 = time.perf_counter()
            await ctx.write(w)
            r = await ctx.read()
            if r is grpc.aio.EOF:
                raise RuntimeError("echo bot closed its stream")
            rtts.append((time.perf_counter() - t0) * 1e6)
        self.last_cpu_s = time.process_time() - self.last_cpu_s  # server-side CPU of the block
        return rtts, time.perf_counter() - t00

    async def wire(self, script: list) -> tuple[int, float]:
        """Replay a :func:`wire_script`; returns (decisions, seconds)."""
        ctxs = self.servicer.ctxs
        self.last_cpu_s = time.process_time()
        t0 = time.perf_counter()
        for seat, req in script:
            await ctxs[seat].write(req)
            r = await ctxs[seat].read()
            if r is grpc.aio.EOF:
                raise RuntimeError("echo bot closed its stream")
        self.last_cpu_s = time.process_time() - self.last_cpu_s
        return len(script), time.perf_counter() - t0


# ----------------------------------------------------------------------------- refereed matches
class MatchBench:
    """A :class:`Referee` on 127.0.0.1 with 4 random bots connected once
    (persistent tokens), so matches can be timed without process start-up."""

    def __init__(self, log_dir: Path, bots: int = 4):
        self.log_dir = log_dir
        self.nbots = bots
        self.ref: Any = None
        self.procs: list[Any] = []
        self.tokens: list[str] = []
        self._n = 0

    async def __aenter__(self) -> "MatchBench":
        from referee.bots import BotProcess
        from referee.service import Referee

        self.ref = Referee(self.log_dir)
        port = await self.ref.start("127.0.0.1", 0)
        for i in range(self.nbots):
            tok = self.ref.new_token(f"random{i}")
            self.tokens.append(tok)
            self.procs.append(BotProcess(f"{RANDOM_BOT} --seed {i + 1}", f"bench-bot{i}", f"127.0.0.1:{port}",
                                         tok, self.log_dir).start())
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            if self.ref is not None:
                await self.ref.stop(0.5)
        finally:
            await asyncio.gather(*(asyncio.to_thread(p.stop, 1.0) for p in self.procs))

    async def match(self, game: str, seed: int) -> dict[str, float]:
        """One refereed match; per-decision wall time and referee-side time (microseconds)."""
        from referee.runner import MatchSpec

        n, params = GRPC_MATCH[game]
        self._n += 1
        spec = MatchSpec(game=game, players=n, seed=seed, seat_names=[f"random{i}" for i in range(n)],
                         params=dict(params), decision_ms=5000, match_id=f"bench-{game}-{self._n}")
        log = self.log_dir / f"{spec.match_id}.jsonl"
        c0 = time.process_time()
        t0 = time.perf_counter()
        out = await self.ref.play(spec, self.tokens[:n], connect_timeout_s=60, close_after=False, log_path=log)
        wall = time.perf_counter() - t0
        cpu = time.process_time() - c0  # this process: the referee (gRPC threads included)
        if out.status != "complete" or any(f.kind not in ("late_reply",) for f in out.faults):
            raise RuntimeError(f"bench match {spec.match_id}: {out.status}, faults {out.faults[:3]}")
        waited_ms = 0.0
        with log.open() as f:
            for line in f:
                if '"type":"decision"' in line:
                    waited_ms += json.loads(line)["elapsed_ms"]
        log.unlink()
        d = max(1, out.decisions)
        return {"decisions": out.decisions, "wall_s": wall, "per_decision_us": wall * 1e6 / d,
                "referee_side_us": max(0.0, wall * 1e6 - waited_ms * 1e3) / d,
                "referee_cpu_us": cpu * 1e6 / d,
                "decisions_per_s": out.decisions / wall}


# ----------------------------------------------------------------------------- tournaments
async def tournament(concurrency: int, matches_per_rotation: int, rounds: int, tmp: Path,
                     persistent: bool = False) -> dict[str, float]:
    """A Dou Dizhu round robin of 3 random bots (their 6 seat orders x
    ``matches_per_rotation`` repetitions) with ``rounds`` rounds per match, temp SQLite store."""
    from tournaments.run import run_tournament
    from tournaments.spec import parse

    name = f"bench-c{concurrency}-{'p' if persistent else 'l'}-{time.monotonic_ns()}"
    raw = {
        "name": name, "game": "doudizhu", "players": 3, "schedule": "round_robin",
        "games": matches_per_rotation, "seed": 7, "concurrency": concurrency,
        "database": str(tmp / f"{name}.sqlite"), "log_dir": str(tmp / "tlogs"),
        "params": {"rounds": rounds},
        "bots": [{"name": f"r{i}", "command": f"{RANDOM_BOT} --seed {i}", "persistent": persistent}
                 for i in range(3)],
    }
    spec = parse(raw, "<bench>")
    t0 = time.perf_counter()
    res = await run_tournament(spec)
    el = time.perf_counter() - t0
    played = res.progress.done - res.progress.skipped
    if res.progress.aborted:
        raise RuntimeError(f"bench tournament: {res.progress.aborted} aborted matches")
    return {"matches": played, "seconds": el, "matches_per_min": played * 60.0 / el}


# ----------------------------------------------------------------------------- memory
def _rss_kb(field: str = "VmRSS") -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


async def _memory_worker(matches: int, rounds: int, multiplex: bool, log_dir: Path) -> dict[str, Any]:
    """Run in a fresh process: a referee with ``matches`` concurrent Dou Dizhu
    matches; RSS of this process sampled while they all run."""
    from referee.bots import BotProcess
    from referee.runner import MatchSpec
    from referee.service import Referee

    base = _rss_kb()
    ref = Referee(log_dir)
    port = await ref.start("127.0.0.1", 0)
    procs: list[BotProcess] = []
    specs = [MatchSpec(game="doudizhu", players=3, seed=100 + i, seat_names=[f"r{s}" for s in range(3)],
                       params={"rounds": rounds}, decision_ms=5000, match_id=f"mem-{i}") for i in range(matches)]
    samples: list[int] = []
    full: list[int] = []
    try:
        if multiplex:
            tokens = [ref.new_token(f"r{s}") for s in range(3)]
            procs = [BotProcess(f"{RANDOM_BOT} --max-matches {matches}", f"mem-bot{s}", f"127.0.0.1:{port}",
                                tokens[s], log_dir).start() for s in range(3)]
            jobs = [ref.play(sp, tokens, connect_timeout_s=60, close_after=False) for sp in specs]
        else:
            # a bot process per seat per match, as a tournament at concurrency 8 runs them, all
            # connected before the matches start so that the 8 matches really overlap
            seat_tokens = [[ref.new_token(f"m{i}s{s}") for s in range(3)] for i in range(matches)]
            procs = [BotProcess(RANDOM_BOT, f"mem-m{i}s{s}", f"127.0.0.1:{port}", tok, log_dir).start()
                     for i, toks in enumerate(seat_tokens) for s, tok in enumerate(toks)]
            for _ in range(6000):  # bounded: up to 120 s
                if all(ref.tokens[t].conns for toks in seat_tokens for t in toks):
                    break
                if any(p.poll() is not None for p in procs):
                    raise RuntimeError("a bench bot exited before connecting")
                await asyncio.sleep(0.02)
            jobs = [ref.play(sp, seat_tokens[i], connect_timeout_s=60) for i, sp in enumerate(specs)]
        task = asyncio.gather(*jobs)
        for _ in range(100_000):  # bounded: sampling every 20 ms
            if task.done():
                break
            rss = _rss_kb()
            samples.append(rss)
            if ref.active_matches == matches:
                full.append(rss)
            await asyncio.sleep(0.02)
        outs = await task
    finally:
        await ref.stop(0.5)
        for p in procs:
            p.stop(1.0)
    bad = [o.status for o in outs if o.status != "complete"]
    return {"matches": matches, "bot_processes": 3 if multiplex else 3 * matches,
            "rss_base_mb": base / 1024, "rss_8_active_mb": (max(full) if full else 0) / 1024,
            "rss_max_mb": (max(samples) if samples else 0) / 1024,
            # the kernel updates VmHWM lazily: it can trail a sampled VmRSS by a few pages
            "peak_hwm_mb": max(_rss_kb("VmHWM"), max(samples, default=0)) / 1024,
            "samples_all_active": len(full), "aborted": len(bad)}


def memory(matches: int, rounds: int, multiplex: bool, tmp: Path, timeout_s: float = 300) -> dict[str, Any]:
    """Run :func:`_memory_worker` in a fresh interpreter (imports only the referee)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--memory-worker", str(matches), str(rounds),
           "1" if multiplex else "0", str(tmp / "mem")]
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=env, cwd=str(ROOT))
    if p.returncode != 0:
        raise RuntimeError(f"memory worker failed ({p.returncode}): {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def tempdir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="referee-bench-")


if __name__ == "__main__" and len(sys.argv) == 6 and sys.argv[1] == "--memory-worker":
    _res = asyncio.run(_memory_worker(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", Path(sys.argv[5])))
    print(json.dumps(_res))
