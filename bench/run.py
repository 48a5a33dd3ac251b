#!/usr/bin/env python3
"""The referee's benchmark, one command:

    python bench/run.py [--quick] [--reps N] [--json FILE] [--only SECTION,...]
    referee bench [--quick] ...                      (same thing)

Sections (all by default, about 3-4 minutes): ``engine`` (seeded random
playouts per game, one core), ``decision`` (per-decision engine time; a bare
gRPC echo round trip; the "layout echo", i.e. a match's requests replayed to
the same bot processes in the same seats with no referee logic, which is the
baseline of the per-decision target; refereed matches over loopback gRPC with
random_bot.py processes; interleaved per repetition so the ratios come from
the same moments),
``peers`` (Dou Dizhu vs RLCard and OpenSpiel, interleaved), ``tournament``
(matches per minute at concurrency 1 and 2), ``memory`` (RSS of a
referee running 8 concurrent matches), ``envs`` (training-environment steps per second, bench/envs.py) and ``scaleout`` (matches per minute
with the local executor and on a Dask scheduler with 1 and 2 workers, and
the driver's own ceiling on SQLite and PostgreSQL; see bench/scaleout.py), and, only when named with
``--only scale``, ``scale`` (leaderboard, status, live pages, report and the ladder on stored fields of
up to 1,000 bots and 1,000,000 matches; see bench/scale.py). Ratios are medians of per-repetition
ratios. It prints figures; it asserts nothing about speed.

Everything listens on 127.0.0.1 only; every process it starts is stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import engines, envs, peers, scale, scaleout, transport  # noqa: E402

SECTIONS = ("engine", "decision", "peers", "tournament", "memory", "scaleout", "envs", "scale")
#: sections run only when named with --only (they take long: scale builds stores of up to 1M matches)
ON_REQUEST = ("scale",)
TARGETS = {
    "doudizhu_vs_rlcard": 10.0,        # engine-only playouts >= 10x RLCard
    "engine_vs_echo": 0.10,            # median engine time per decision <= 10% of an echo round trip
    "match_vs_echo": 1.5,              # per-decision time over gRPC <= 1.5x an echo round trip
                                       # (same transport, same process layout: the "layout echo")
    "tractor_rounds_per_s": 50.0,      # Tractor engine-only >= 50 full rounds/s
    "rss_8_matches_mb": 200.0,         # referee RSS with 8 concurrent matches < 200 MB
}


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else 0.0


def say(*a: Any) -> None:
    print(*a, flush=True)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def machine() -> dict[str, Any]:
    return {"nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "cpu": cpu_model(), "python": platform.python_version(),
            "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None}


# ----------------------------------------------------------------------------- sections
def bench_engine(quick: bool, reps: int) -> dict[str, Any]:
    """(a) engine-only seeded random playouts, one core."""
    slice_s = 0.25 if quick else 1.5
    out: dict[str, Any] = {}
    runs: dict[str, list[dict[str, float]]] = {g: [] for g in engines.games()}
    for rep in range(reps):
        for g in engines.games():  # games interleaved within each repetition
            runs[g].append(engines.throughput(g, slice_s, seed0=rep * 100_000))
    for g, rs in runs.items():
        out[g] = {"rounds_per_s": med([r["rounds_per_s"] for r in rs]),
                  "rounds_per_wall_s": med([r["rounds"] / r["seconds"] for r in rs]),
                  "decisions_per_s": med([r["decisions_per_s"] for r in rs]),
                  "decisions_per_round": sum(r["decisions"] for r in rs) / max(1, sum(r["rounds"] for r in rs)),
                  "full_matches_per_s": None, "rounds_per_full_match": None}
        if not quick:
            f = engines.throughput(g, 3.0, seed0=1_000_000, full=True)
            out[g]["full_matches_per_s"] = f["matches_per_s"]
            out[g]["rounds_per_full_match"] = f["rounds"] / f["matches"]
            out[g]["full_match_rounds_per_s"] = f["rounds_per_s"]
    return out


async def bench_decision(quick: bool, reps: int, tmp: Path) -> dict[str, Any]:
    """(b), (c), refereed matches over gRPC, the same matches' messages replayed
    without the referee ("wire", the layout echo) and a bare echo, interleaved
    per repetition: echo, layout echo, match, layout echo, echo.

    Per-decision times over gRPC are totals / decisions (so a hiccup of the
    machine counts the same in every figure); ratios are taken within each
    repetition, then the median over repetitions is reported."""
    eng_s = 0.2 if quick else 1.0
    n_rtt = 100 if quick else 300
    gl = engines.games()
    raw: dict[str, list[dict[str, Any]]] = {g: [] for g in gl}
    async with transport.EchoBench(tmp / "echo") as echo, transport.MatchBench(tmp / "matches") as mb:
        # warm-up: connections and code paths hot before anything is timed
        first = engines.per_decision("doudizhu", 0.05)
        await echo.rtt(first["sample_request"], 50)
        await echo.wire(transport.wire_script("doudizhu", 999))
        await mb.match("doudizhu", 999)
        for rep in range(reps):
            for g in gl:
                e = engines.per_decision(g, eng_s, seed0=10_000 + rep * 1000)
                script = transport.wire_script(g, seed=rep + 1)  # same game, seed and deal as the match mb plays next
                rtts, rt_s = await echo.rtt(e["sample_request"], n_rtt)
                ecpu = echo.last_cpu_s
                wd, w_s = await echo.wire(script)
                wcpu = echo.last_cpu_s
                m = await mb.match(g, seed=rep + 1)
                wd2, w_s2 = await echo.wire(script)  # layout echo and echo on both sides of the match
                wcpu, w_s, wd = wcpu + echo.last_cpu_s, w_s + w_s2, wd + wd2
                rtts2, rt_s2 = await echo.rtt(e["sample_request"], n_rtt)
                ecpu += echo.last_cpu_s
                echo_mean = (rt_s + rt_s2) * 1e6 / (2 * n_rtt)
                raw[g].append({"engine": e, "echo_med": med(rtts + rtts2), "echo_mean": echo_mean,
                               "echo_cpu_us": ecpu * 1e6 / (2 * n_rtt), "wire_cpu_us": wcpu * 1e6 / wd,
                               "wire_us": w_s * 1e6 / wd, "match": m})
    out: dict[str, Any] = {}
    for g, rs in raw.items():
        E = [r["engine"] for r in rs]
        M = [r["match"] for r in rs]
        out[g] = {
            "legal_us_median": med([e["legal_us_median"] for e in E]),
            "legal_us_p99": med([e["legal_us_p99"] for e in E]),
            "observation_us_median": med([e["observation_us_median"] for e in E]),
            "request_us_median": med([e["request_us_median"] for e in E]),
            "apply_us_median": med([e["apply_us_median"] for e in E]),
            "engine_us_median": med([e["refereed_us_median"] for e in E]),
            "engine_us_p99": med([e["refereed_us_p99"] for e in E]),
            "request_bytes_median": E[0]["request_bytes_median"],
            "echo_rtt_us": med([r["echo_med"] for r in rs]),
            "echo_rtt_mean_us": med([r["echo_mean"] for r in rs]),
            "engine_vs_echo": med([r["engine"]["refereed_us_median"] / r["echo_med"] for r in rs]),
            "wire_us_per_decision": med([r["wire_us"] for r in rs]),
            "match_decisions_per_s": med([m["decisions_per_s"] for m in M]),
            "match_us_per_decision": med([m["per_decision_us"] for m in M]),
            "referee_side_us_per_decision": med([m["referee_side_us"] for m in M]),
            "referee_vs_echo": med([r["match"]["per_decision_us"] / r["echo_mean"] for r in rs]),
            "referee_side_vs_echo": med([r["match"]["referee_side_us"] / r["echo_mean"] for r in rs]),
            "wire_vs_echo": med([r["wire_us"] / r["echo_mean"] for r in rs]),
            "referee_vs_wire": med([r["match"]["per_decision_us"] / r["wire_us"] for r in rs]),
            "referee_cpu_us_per_decision": med([m["referee_cpu_us"] for m in M]),
            "wire_cpu_us_per_decision": med([r["wire_cpu_us"] for r in rs]),
            "echo_cpu_us_per_rtt": med([r["echo_cpu_us"] for r in rs]),
            "referee_cpu_vs_echo_cpu": med([r["match"]["referee_cpu_us"] / r["echo_cpu_us"] for r in rs]),
            "referee_cpu_vs_wire_cpu": med([r["match"]["referee_cpu_us"] / r["wire_cpu_us"] for r in rs]),
            "match_decisions": M[0]["decisions"],
            "match_params": transport.GRPC_MATCH[g][1],
        }
    return out


def bench_peers(quick: bool, reps: int) -> dict[str, Any]:
    """Dou Dizhu random full games per second: ours vs RLCard vs OpenSpiel, interleaved."""
    slice_s = 0.3 if quick else 2.0
    contenders: dict[str, Any] = {}
    notes: list[str] = []
    for key, make in (("rlcard_env", peers.make_rlcard_env), ("rlcard_game", peers.make_rlcard_game),
                      ("openspiel", peers.make_openspiel)):
        r = make()
        if isinstance(r, str):
            if r not in notes:  # RLCard missing: one note for its two contenders
                notes.append(r)
                say(f"  note: {r}; continuing without it")
        else:
            contenders[key] = r
    ours_runs: list[float] = []
    theirs: dict[str, list[float]] = {k: [] for k in contenders}
    ratios: dict[str, list[float]] = {k: [] for k in contenders}
    for rep in range(reps):
        k, el = engines.doudizhu_games(slice_s, seed0=500_000 + rep * 10_000)
        ours = k / el
        ours_runs.append(ours)
        for key, (_, run) in contenders.items():
            n, el2 = run(slice_s)
            theirs[key].append(n / el2)
            ratios[key].append(ours / (n / el2))
    out: dict[str, Any] = {"ours_games_per_s": med(ours_runs), "notes": notes, "peers": {}}
    for key, (label, _) in contenders.items():
        out["peers"][key] = {"label": label, "games_per_s": med(theirs[key]), "ours_over_theirs": med(ratios[key])}
    return out


async def bench_tournament(quick: bool, tmp: Path) -> dict[str, Any]:
    """Matches per minute at concurrency 1 and 2 (Dou Dizhu, 3 random bots, 1-round matches)."""
    out: dict[str, Any] = {}
    modes = [("persistent", True)] if quick else [("launched", False), ("persistent", True)]
    per_rot = 1 if quick else 2
    for label, persistent in modes:
        for c in (1, 2):
            r = await transport.tournament(c, per_rot, 1, tmp / "t", persistent=persistent)
            out[f"{label}_c{c}"] = r
    return out


def bench_memory(quick: bool, tmp: Path) -> dict[str, Any]:
    return transport.memory(8, 1 if quick else 3, multiplex=quick, tmp=tmp)


# ----------------------------------------------------------------------------- report
def fmt(x: Any, nd: int = 1) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:,.{nd}f}"
    return str(x)


def print_report(rep: dict[str, Any]) -> None:
    m = rep["machine"]
    say("")
    say(f"== referee bench  ({'quick' if rep['quick'] else 'standard budgets'}, sections {','.join(rep['sections'])}, "
        f"{rep['reps']} repetition{'s' if rep['reps'] != 1 else ''}, "
        f"nproc {m['nproc']}, {m['cpu']}, Python {m['python']}, load at start {fmt(m['loadavg'][0], 2) if m['loadavg'] else '?'})")
    if "engine" in rep:
        say("\n-- (a) engine-only seeded random playouts, per second of one core (CPU time of this single-threaded"
            " process; median of repetitions)")
        say(f"{'game':<11} {'rounds/s':>10} {'(wall)':>8} {'decisions/s':>12} {'dec/round':>10} {'full matches/s':>15}"
            f" {'rounds/match':>13}")
        for g, r in rep["engine"].items():
            say(f"{g:<11} {fmt(r['rounds_per_s']):>10} {fmt(r['rounds_per_wall_s']):>8} {fmt(r['decisions_per_s'], 0):>12} "
                f"{fmt(r['decisions_per_round']):>10} {fmt(r['full_matches_per_s'], 2):>15} "
                f"{fmt(r['rounds_per_full_match']):>13}")
        say("   rounds/s: one-round matches (deal + auction/declarations + all tricks + scoring) per CPU second;"
            " (wall): the same per wall-clock second, lower when other processes share the cores;"
            " full matches: the game's default match parameters, per CPU second")
    if "decision" in rep:
        say("\n-- (b) legal actions and (c) engine time per refereed decision, in process (microseconds, medians)")
        say(f"{'game':<11} {'legal med':>9} {'legal p99':>9} {'obs med':>8} {'engine med':>10} {'engine p99':>10} "
            f"{'req bytes':>9} {'echo RTT':>9} {'engine/echo':>11}")
        for g, r in rep["decision"].items():
            say(f"{g:<11} {fmt(r['legal_us_median']):>9} {fmt(r['legal_us_p99']):>9} "
                f"{fmt(r['observation_us_median']):>8} {fmt(r['engine_us_median']):>10} "
                f"{fmt(r['engine_us_p99']):>10} {r['request_bytes_median']:>9} {fmt(r['echo_rtt_us']):>9} "
                f"{fmt(100 * r['engine_vs_echo']):>10}%")
        say("   obs = the observation alone (the game's view; part of engine); engine = legal_actions + DecisionRequest"
            " (built and serialised as the referee sends it) + apply (validates) + pop_events (event messages built);"
            " echo RTT = median bare round trip (write the DecisionRequest, read the reply) on the same transport")
        say("\n-- full matches over loopback gRPC, random_bot.py processes (microseconds per decision = total time /"
            " decisions; ratios per repetition, medians)")
        say(f"{'game':<11} {'match dec/s':>11} {'match':>8} {'ref-side':>8} {'layout':>8} {'echo':>8} "
            f"{'match/layout':>12} {'match/echo':>10} {'side/echo':>9} {'layout/echo':>11}")
        for g, r in rep["decision"].items():
            say(f"{g:<11} {fmt(r['match_decisions_per_s']):>11} {fmt(r['match_us_per_decision'], 0):>8} "
                f"{fmt(r['referee_side_us_per_decision'], 0):>8} {fmt(r['wire_us_per_decision'], 0):>8} "
                f"{fmt(r['echo_rtt_mean_us'], 0):>8} {fmt(r['referee_vs_wire'], 2):>12} "
                f"{fmt(r['referee_vs_echo'], 2):>10} {fmt(r['referee_side_vs_echo'], 2):>9} "
                f"{fmt(r['wire_vs_echo'], 2):>11}")
        say(f"{'':<11} {'CPU of this process per decision: referee':>45} {'layout':>8} {'echo':>8} {'ref/echo':>9} {'ref/layout':>10}")
        for g, r in rep["decision"].items():
            say(f"{g:<11} {fmt(r['referee_cpu_us_per_decision'], 0):>45} {fmt(r['wire_cpu_us_per_decision'], 0):>8} "
                f"{fmt(r['echo_cpu_us_per_rtt'], 0):>8} {fmt(r['referee_cpu_vs_echo_cpu'], 2):>9} "
                f"{fmt(r['referee_cpu_vs_wire_cpu'], 2):>10}")
        say("   match = a refereed match (events to every seat, match log, clocks) / decisions; ref-side = the part"
            " not spent waiting for the acting bot's reply; layout = bare echo round trips with the match's process"
            " layout: a match of the same game replayed with no referee logic, each request (events bundled, as the"
            " referee sends them) to the bot process in that seat, its reply read; echo = one bot, one request of"
            " median size, over and over")
    if "peers" in rep:
        p = rep["peers"]
        say("\n-- Dou Dizhu, 3 players, random agents, full games per second of one core (one round = one game),"
            " interleaved")
        say(f"{'ours (engine only)':<48} {fmt(p['ours_games_per_s']):>10}")
        for key, r in p["peers"].items():
            say(f"{r['label']:<48} {fmt(r['games_per_s']):>10}   ours/theirs = {fmt(r['ours_over_theirs'], 2)}x")
        for n in p["notes"]:
            say(f"   {n}")
    if "tournament" in rep:
        say("\n-- tournament throughput (Dou Dizhu, 3 random bots, one-round matches, temp SQLite store)")
        for k, r in rep["tournament"].items():
            say(f"{k:<16} {r['matches']:>3} matches in {fmt(r['seconds'], 2)} s = {fmt(r['matches_per_min'])} matches/min")
        say("   launched: a bot process per seat per match (the default); persistent: bots launched once")
    if "memory" in rep:
        r = rep["memory"]
        say(f"\n-- memory: referee process with {r['matches']} concurrent Dou Dizhu matches "
            f"({r['bot_processes']} bot processes, not counted)")
        if r["samples_all_active"]:
            say(f"RSS before matches {fmt(r['rss_base_mb'])} MB; max RSS while all {r['matches']} ran "
                f"{fmt(r['rss_8_active_mb'])} MB; peak {fmt(r['peak_hwm_mb'])} MB")
        else:
            say(f"RSS before matches {fmt(r['rss_base_mb'])} MB; the {r['matches']} matches never all ran at once "
                f"(quick run): max RSS {fmt(r['rss_max_mb'])} MB; peak {fmt(r['peak_hwm_mb'])} MB")
    if "scaleout" in rep:
        scaleout.report(rep["scaleout"], say, fmt)
    if "scale" in rep:
        scale.report(rep["scale"], say, fmt)
    if "envs" in rep:
        envs.report(rep["envs"], say, fmt)
    if rep.get("targets"):
        say("\n-- targets")
        for t in rep["targets"]:
            if t["met"] is None:  # a peer that is not installed
                say(f"[not measured: {t['not_measured']}] {t['what']}")
            else:
                say(f"[{'met' if t['met'] else 'NOT met'}] {t['what']}: {t['measured']}")
    say("")


def targets(rep: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    p = rep.get("peers", {}).get("peers", {})
    for key, note in (("rlcard_env", " (the issue's 'RLCard's Dou Dizhu environment')"),
                      ("rlcard_game", " (stricter: RLCard's engine without its environment)")):
        if key in p:
            r = p[key]["ours_over_theirs"]
            out.append({"what": f"Dou Dizhu engine-only playouts >= 10x {p[key]['label']}{note}",
                        "measured": f"{r:.3f}x", "met": r >= TARGETS["doudizhu_vs_rlcard"]})
    for g, r in rep.get("decision", {}).items():
        out.append({"what": f"{g}: median engine time per decision <= 10% of an echo round trip",
                    "measured": f"{100 * r['engine_vs_echo']:.2f}%", "met": r["engine_vs_echo"] <= TARGETS["engine_vs_echo"]})
    for g, r in rep.get("decision", {}).items():
        out.append({"what": f"{g}: per-decision time of a refereed match over gRPC <= 1.5x a bare echo round trip"
                            " with the same process layout",
                    "measured": f"{r['referee_vs_wire']:.3f}x (against one bot echoing one median request:"
                                f" {r['referee_vs_echo']:.3f}x; referee side alone {r['referee_side_vs_echo']:.2f}x"
                                " of that echo)",
                    "met": r["referee_vs_wire"] <= TARGETS["match_vs_echo"]})
    for g, r in rep.get("decision", {}).items():
        out.append({"what": f"{g}: the same against one bot echoing one request of median size (stricter)",
                    "measured": f"{r['referee_vs_echo']:.3f}x",
                    "met": r["referee_vs_echo"] <= TARGETS["match_vs_echo"]})
    if "tractor" in rep.get("engine", {}):
        v = rep["engine"]["tractor"]["rounds_per_s"]
        out.append({"what": "Tractor engine-only >= 50 full rounds/s", "measured": f"{v:.1f} rounds/s",
                    "met": v >= TARGETS["tractor_rounds_per_s"]})
    if "scale" in rep:
        out.extend(scale.targets(rep["scale"]))
    if "memory" in rep:
        v = rep["memory"]["rss_8_active_mb"] or rep["memory"]["rss_max_mb"]
        out.append({"what": "referee RSS with 8 concurrent matches < 200 MB", "measured": f"{v:.1f} MB",
                    "met": v < TARGETS["rss_8_matches_mb"]})
    if "envs" in rep:
        out += envs.targets(rep["envs"])
    return out


async def _async_sections(sel: set[str], quick: bool, reps: int, tmp: Path, rep: dict[str, Any]) -> None:
    if "decision" in sel:
        say("decision: engine per decision, echo and refereed matches over gRPC ...")
        rep["decision"] = await bench_decision(quick, reps, tmp)
    if "tournament" in sel:
        say("tournament ...")
        rep["tournament"] = await bench_tournament(quick, tmp)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="bench/run.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run (figures are rough): tiny time budgets, no full-match playouts, no "
                         "launched-bot tournament rows, 3 shared bots in the memory run")
    ap.add_argument("--reps", type=int, default=None, help="repetitions, at least 1 (default 5, quick 1)")
    ap.add_argument("--only", default="", help=f"comma-separated sections of {','.join(SECTIONS)}")
    ap.add_argument("--json", dest="json_path", default=None, help="also write the report as JSON here")
    a = ap.parse_args(argv)
    sel = set(s for s in a.only.split(",") if s) or set(SECTIONS) - set(ON_REQUEST)
    unknown = sel - set(SECTIONS)
    if unknown:
        ap.error(f"unknown section(s) {', '.join(sorted(unknown))}; known: {', '.join(SECTIONS)}")
    if a.reps is not None and a.reps < 1:
        ap.error(f"--reps must be at least 1 (got {a.reps})")
    reps = a.reps or (1 if a.quick else 5)
    rep: dict[str, Any] = {"quick": a.quick, "reps": reps, "sections": [x for x in SECTIONS if x in sel],
                           "machine": machine(),
                           "command": " ".join(["python bench/run.py"] + (argv if argv is not None else sys.argv[1:]))}
    t0 = time.perf_counter()
    with transport.tempdir() as td:
        tmp = Path(td)
        if "engine" in sel:
            say("engine: random playouts ...")
            rep["engine"] = bench_engine(a.quick, reps)
        if "peers" in sel:
            say("peers: Dou Dizhu vs RLCard / OpenSpiel ...")
            rep["peers"] = bench_peers(a.quick, reps)
        asyncio.run(_async_sections(sel, a.quick, reps, tmp, rep))
        if "memory" in sel:
            say("memory: 8 concurrent matches ...")
            rep["memory"] = bench_memory(a.quick, tmp)
        if "scaleout" in sel:
            say("scaleout: local vs Dask (1 and 2 workers), the driver's ceiling on SQLite and PostgreSQL ...")
            rep["scaleout"] = scaleout.run(a.quick, tmp)
        if "scale" in sel:
            say("scale: stored fields and a ladder of up to 1,000 bots and 1,000,000 matches (kept in "
                "runs/bench-scale/ for later runs) ...")
            rep["scale"] = scale.run(a.quick, say)
        if "envs" in sel:
            say("envs: training environments, steps per second per game, vs RLCard's Dou Dizhu environment ...")
            rep["envs"] = envs.run(a.quick, reps)
    rep["elapsed_s"] = time.perf_counter() - t0
    rep["targets"] = targets(rep)
    print_report(rep)
    say(f"(bench took {rep['elapsed_s']:.1f} s)")
    if a.json_path:
        Path(a.json_path).write_text(json.dumps(rep, indent=2, default=str))
    return rep


if __name__ == "__main__":
    main()
