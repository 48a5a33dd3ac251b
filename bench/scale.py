"""Competition scale (section ``scale`` of bench/run.py, run only when asked:
``referee bench --only scale``): what an organiser's commands cost on a
large stored field, and the ladder at 1,000 entrants.

For each size (bots × matches; default 100 × 10,000, 1,000 × 100,000 and
1,000 × 1,000,000; ``--quick``: 100 × 2,000 and 300 × 20,000) a synthetic
Dou Dizhu field (3 seats; each match 3 bots drawn at random, the finishing
order drawn from Plackett–Luce with known strengths, Dou Dizhu money) is
written as JSON Lines and imported with ``referee results import`` (the
real command and write path, timed); the store is kept under
``runs/bench-scale/`` and reused by later runs. Then, each as its own
process, timed with its peak resident memory (``wait4``):

* ``referee leaderboard`` (JSON) with no fit kept (cold) and again (warm);
* ``referee tournament status``;
* ``referee web``: the leaderboard page and the match list, first request
  and again (warm), and their sizes;
* ``referee report`` into a temporary directory: time and size on disk;
* the rank correlation (Spearman) of the fitted ratings with the true
  strengths, and how many true strengths fall inside their 95% interval.

The ladder: a history of 1,000 entrants and as many matches as the size
(random groups, Plackett–Luce results) is written through the ladder's
store and the one write path, with its snapshot; then timed: a restart
(the state from the snapshot and the events after it, as ``referee ladder``
does), the full replay that ``referee ladder verify`` does (only up to
100,000 matches; it is linear), and matchmaking on the restored state:
matches scheduled per second (the real matchmaker, each match finished at
once with a random result, TrueSkill applied).

Everything listens on 127.0.0.1 only; every process started is stopped.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "runs" / "bench-scale"
SIZES = [(100, 10_000), (1_000, 100_000), (1_000, 1_000_000)]
QUICK_SIZES = [(100, 2_000), (300, 20_000)]
#: the full ladder replay is only timed up to this many matches (it is O(matches))
REPLAY_LIMIT = 100_000
TARGETS = {"leaderboard_s": 10.0, "leaderboard_mib": 1024.0, "status_s": 2.0, "page_warm_ms": 300.0,
           "page_kib": 1024.0, "ladder_restart_s": 30.0}


# ----------------------------------------------------------------------------- the synthetic field
def strengths(bots: int, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [rng.gauss(0.0, 1.0) for _ in range(bots)]


def names(bots: int) -> list[str]:
    return [f"bot{i:04d}" for i in range(bots)]


def match_results(bots: int, matches: int, seed: int = 1):
    """``(seats as bot numbers, ranks 1..3)`` of each synthetic match."""
    rng = random.Random(seed * 1_000_003 + bots)
    s = strengths(bots, seed)
    for _ in range(matches):
        seats = rng.sample(range(bots), 3)
        perf = [s[b] - math.log(-math.log(rng.random())) for b in seats]  # Gumbel trick: Plackett–Luce
        order = sorted(range(3), key=lambda k: -perf[k])
        yield seats, rng, [order.index(k) + 1 for k in range(3)]


def write_field(path: Path, bots: int, matches: int) -> None:
    """The synthetic field as ``referee results --format jsonl`` writes it."""
    nm = names(bots)
    money = ([4, -2, -2], [2, 1, -3], [6, -3, -3])
    with path.open("w") as f:
        for i, (seats, rng, ranks) in enumerate(match_results(bots, matches)):
            pay = sorted(money[i % 3], reverse=True)
            f.write(json.dumps({"match": i, "seed": rng.getrandbits(62), "status": "complete",
                                "seats": [nm[b] for b in seats], "scores": [pay[r - 1] for r in ranks],
                                "ranks": ranks, "forfeited": [], "faults": [0, 0, 0], "log_path": None},
                               separators=(",", ":")) + "\n")


# ----------------------------------------------------------------------------- processes
def referee(*args: str) -> list[str]:
    return [sys.executable, "-m", "referee.cli", *args]


def measured(cmd: list[str], timeout: float = 3600) -> dict[str, Any]:
    """Run ``cmd`` to its end: ``s`` wall seconds, ``peak_mib`` the peak
    resident memory of exactly that process (``os.wait4``), ``rc``, ``out``
    and ``err`` (its output, through files: no pipe can fill up). Raises
    ``TimeoutError`` (the process group killed) after ``timeout`` seconds."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=err, text=True, start_new_session=True)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(p.pid, signal.SIGKILL)
                os.wait4(p.pid, 0)
                raise TimeoutError(f"{' '.join(cmd)}: still running after {timeout:.0f} s")
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"s": wall, "peak_mib": usage.ru_maxrss / 1024, "rc": p.returncode, "out": out.read(),
                "err": err.read()}


def checked(cmd: list[str], timeout: float = 3600) -> dict[str, Any]:
    """:func:`measured`, raising ``RuntimeError`` with its stderr when it fails."""
    r = measured(cmd, timeout)
    if r["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd[2:])} exited {r['rc']}: {r['err'][-2000:]}")
    return r


class Web:
    """``referee web`` on 127.0.0.1 (any free port) for the duration of a ``with``."""

    def __init__(self, db: str):
        self.db = db
        self.p: subprocess.Popen | None = None
        self.base = ""

    def __enter__(self) -> "Web":
        self.out = tempfile.TemporaryFile("w+")
        self.p = subprocess.Popen(referee("web", "--db", self.db, "--port", "0"), cwd=ROOT, stdout=self.out,
                                  stderr=subprocess.STDOUT, text=True, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            self.out.seek(0)
            m = re.search(r"on (http://127\.0\.0\.1:\d+)/", self.out.read())
            if m:
                self.base = m.group(1)
                return self
            if self.p.poll() is not None:
                break
            time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("referee web did not start")

    def get(self, path: str) -> tuple[float, int]:
        """Fetch a page: ``(milliseconds, bytes)``."""
        t0 = time.perf_counter()
        with urllib.request.urlopen(self.base + path, timeout=600) as r:
            body = r.read()
        return (time.perf_counter() - t0) * 1000, len(body)

    def __exit__(self, *exc: Any) -> None:
        if self.p is not None and self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGTERM)
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()
        self.out.close()


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# ----------------------------------------------------------------------------- one field
def field_store(bots: int, matches: int, say: Callable[[str], None]) -> tuple[str, dict[str, Any]]:
    """The store of the synthetic field (built now, or reused): ``(database, import figures)``."""
    CACHE.mkdir(parents=True, exist_ok=True)
    db = CACHE / f"field-{bots}x{matches}.sqlite"
    done = CACHE / f"field-{bots}x{matches}.json"
    if db.exists() and done.exists():
        say(f"  reusing {db.relative_to(ROOT)}")
        return str(db), json.loads(done.read_text())
    for p in CACHE.glob(f"field-{bots}x{matches}.sqlite*"):
        p.unlink()
    src = CACHE / f"field-{bots}x{matches}.jsonl"
    write_field(src, bots, matches)
    say(f"  importing {matches:,} matches of {bots:,} bots (referee results import) ...")
    r = checked(referee("results", "import", str(src), "--tournament", "field", "--game", "doudizhu",
                        "--players", "3", "--db", str(db), "--quiet"))
    figures = {"import_s": r["s"], "import_peak_mib": r["peak_mib"], "jsonl_mib": src.stat().st_size / 2**20}
    src.unlink()
    done.write_text(json.dumps(figures))
    return str(db), figures


def clear_fit(db: str) -> None:
    """Forget the fit the store keeps, so that the next leaderboard fits (cold)."""
    import sqlite3

    with sqlite3.connect(db) as c:
        c.execute("DELETE FROM fit_cache")


def fit_quality(board: list[dict[str, Any]], bots: int) -> dict[str, float]:
    """Spearman's rank correlation of the fitted ratings with the true
    strengths, and the share of true (centred, Elo) strengths inside their
    95% interval."""
    from tournaments.batch import ELO_PER_UNIT

    s = strengths(bots)
    mean = sum(s) / len(s)
    truth = {n: (x - mean) * ELO_PER_UNIT for n, x in zip(names(bots), s)}
    fitted = {r["bot"]: r for r in board}
    order_fit = sorted(truth, key=lambda n: -fitted[n]["elo"])
    order_true = sorted(truth, key=lambda n: -truth[n])
    rf = {n: i for i, n in enumerate(order_fit)}
    rt = {n: i for i, n in enumerate(order_true)}
    n = len(truth)
    rho = 1 - 6 * sum((rf[k] - rt[k]) ** 2 for k in truth) / (n * (n * n - 1))
    inside = sum(fitted[k]["elo_low"] <= truth[k] <= fitted[k]["elo_high"] for k in truth) / n
    return {"spearman": rho, "covered": inside}


def measure_field(bots: int, matches: int, say: Callable[[str], None]) -> dict[str, Any]:
    db, out = field_store(bots, matches, say)
    say("  leaderboard (cold, warm), status ...")
    clear_fit(db)
    cold = checked(referee("leaderboard", "--db", db, "-t", "field", "--format", "json"))
    warm = checked(referee("leaderboard", "--db", db, "-t", "field", "--format", "json"))
    status = checked(referee("tournament", "status", "field", "--db", db))
    out.update({"bots": bots, "matches": matches,
                "leaderboard_cold_s": cold["s"], "leaderboard_cold_peak_mib": cold["peak_mib"],
                "leaderboard_warm_s": warm["s"], "leaderboard_warm_peak_mib": warm["peak_mib"],
                "status_s": status["s"], "status_peak_mib": status["peak_mib"],
                **fit_quality(json.loads(cold["out"]), bots)})
    say("  referee web: pages cold and warm ...")
    with Web(db) as web:
        for page in ("index.html", "matches.html"):
            first_ms, size = web.get(f"/t/field/{page}")
            warm_ms = min(web.get(f"/t/field/{page}")[0] for _ in range(3))
            out[f"web_{page}"] = {"first_ms": first_ms, "warm_ms": warm_ms, "kib": size / 1024}
    say("  referee report ...")
    with tempfile.TemporaryDirectory() as td:
        rep = checked(referee("report", "field", "--db", db, "--out", td), timeout=3 * 3600)
        out.update({"report_s": rep["s"], "report_peak_mib": rep["peak_mib"], "report_mib": du(Path(td)) / 2**20,
                    "report_files": sum(1 for _ in Path(td).rglob("*.html"))})
    return out


# ----------------------------------------------------------------------------- the ladder
def ladder_file(entrants: int, matches: int) -> Path:
    """A ladder file of ``entrants`` launched sample bots (never launched by the bench)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    f = CACHE / f"ladder-{entrants}x{matches}.toml"
    bots = "".join(f'[[bots]]\nname = "e{i:04d}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                   for i in range(entrants))
    f.write_text(f'name = "scale-ladder"\ngame = "doudizhu"\nplayers = 3\nseed = 7\nconcurrency = 1\nport = 0\n'
                 f'database = "{CACHE / f"ladder-{entrants}x{matches}.sqlite"}"\nlog_dir = "{CACHE / "logs"}"\n'
                 f'params = {{ rounds = 1 }}\n[trueskill]\ndraw_probability = 0.0\n[sandbox]\nbot_uids = "off"\n'
                 + bots)
    return f


def ladder_store(entrants: int, matches: int, say: Callable[[str], None]) -> tuple[Path, dict[str, Any]]:
    """A stored ladder history of ``entrants`` entrants and ``matches`` finished
    matches (random groups of 3, Plackett–Luce results) with its snapshot,
    written through the ladder's store and the one write path (built now or reused)."""
    from tournaments.ladder import LadderState, label_of, load
    from tournaments.ladder_store import Event, LadderStore
    from tournaments.record import MatchRecord
    from tournaments.schema import MatchRow
    from tournaments.store import Store

    f = ladder_file(entrants, matches)
    done = f.with_suffix(".json")
    if done.exists():
        say(f"  reusing {f.relative_to(ROOT)}")
        return f, json.loads(done.read_text())
    spec = load(f)
    for p in CACHE.glob(f"ladder-{entrants}x{matches}.sqlite*"):
        p.unlink()
    say(f"  writing a ladder history of {entrants:,} entrants and {matches:,} matches ...")
    t0 = time.perf_counter()
    store = Store(spec.t.database)
    lstore = LadderStore(store)
    tid = lstore.create(spec.name, spec.t.game, spec.stored_json(), spec.fingerprint())
    st = LadderState(spec)

    def event(kind: str, name: str | None = None, sched: int | None = None, data: dict | None = None) -> Event:
        e = Event(st.last_seq + 1, kind, name, sched, data)
        st.apply(e, rows.get(data.get("idx", -1)) if kind == "finished" and data else None)
        return e

    rows: dict[int, MatchRow] = {}
    for b in spec.t.bots:
        data = {"version": 1, "label": label_of(b.name, 1), "command": b.command, "external": False, "online": False}
        lstore.commit(tid, [event("add", b.name, data=data)], new_version={
            "name": b.name, "version": 1, "label": data["label"], "command": b.command, "external": False,
            "token": "", "state": "active", "reason": "", "added_seq": st.last_seq})
    labels = sorted(st.versions)
    s = {lbl: x for lbl, x in zip(labels, strengths(entrants))}
    rng = random.Random(7)
    events: list[Event] = []
    records: list[MatchRecord] = []
    for _ in range(matches):
        seats = rng.sample(labels, 3)
        perf = [s[b] - math.log(-math.log(rng.random())) for b in seats]
        order = sorted(range(3), key=lambda k: -perf[k])
        ranks = [order.index(k) + 1 for k in range(3)]
        seed, sched, idx = rng.getrandbits(62), st.next_sched, st.finished + 1
        result = {"status": "complete", "scores": [[2, 1, -3][r - 1] for r in ranks], "ranks": ranks,
                  "faults": [], "forfeited": [], "summary": {}}
        rows = {idx: MatchRow(idx, seed, seats, "complete", result, None)}
        events.append(event("scheduled", sched=sched, data={"seats": seats, "seed": str(seed),
                                                            "match_id": f"{spec.name}-m{sched:05d}"}))
        events.append(event("finished", sched=sched, data={"idx": idx, "status": "complete"}))
        records.append(MatchRecord(idx, seed, seats, "complete", result))
        if len(records) >= 2_000:
            lstore.commit(tid, events)
            store.record_matches(tid, records, live="all")
            events, records = [], []
    if records:
        lstore.commit(tid, events)
        store.record_matches(tid, records, live="all")
    lstore.save_snapshot(tid, st.last_seq, st.to_json())
    store.set_tournament_status(tid, "stopped")
    store.close()
    figures = {"build_s": time.perf_counter() - t0, "events": st.last_seq}
    done.write_text(json.dumps(figures))
    return f, figures


REPLAY = """
import sys, time
from tournaments.ladder import RowsInOrder, load, rebuild
from tournaments.ladder_store import LadderStore
from tournaments.store import Store
spec = load(sys.argv[1]); store = Store(spec.t.database, create=False); ls = LadderStore(store, create=False)
tid = store.tournament(spec.name)["id"]
t0 = time.perf_counter(); st = rebuild(spec, ls.iter_events(tid), RowsInOrder(store, tid))
print(f"{time.perf_counter() - t0:.3f} {st.finished}")
"""


def measure_ladder(entrants: int, matches: int, say: Callable[[str], None]) -> dict[str, Any]:
    from tournaments.ladder import LadderState, load
    from tournaments.ladder_store import Event, LadderStore
    from tournaments.schema import MatchRow
    from tournaments.store import Store

    f, out = ladder_store(entrants, matches, say)
    out.update({"entrants": entrants, "matches": matches})
    say("  ladder restart (referee ladder FILE --max-matches 0) ...")
    r = checked(referee("ladder", str(f), "--max-matches", "0"), timeout=3600)
    if "restored from its snapshot" not in r["out"] + r["err"]:
        raise RuntimeError(f"the ladder did not restart from its snapshot:\n{r['out']}{r['err']}")
    out.update({"restart_s": r["s"], "restart_peak_mib": r["peak_mib"]})
    if matches <= REPLAY_LIMIT:
        say("  the whole history replayed (what a restart without a snapshot did) ...")
        rp = checked([sys.executable, "-c", REPLAY, str(f)], timeout=3 * 3600)
        out.update({"replay_s": float(rp["out"].split()[0]), "replay_peak_mib": rp["peak_mib"]})
    say("  matchmaking on the restored state ...")
    spec = load(f)
    store = Store(spec.t.database, create=False)
    try:
        lstore = LadderStore(store, create=False)
        snap = lstore.snapshot(store.tournament(spec.name)["id"])
        assert snap is not None
        st = LadderState.from_json(spec, snap[1])
    finally:
        store.close()
    assert st is not None
    rng = random.Random(3)
    decide_s, n, t0 = 0.0, 0, time.perf_counter()
    while time.perf_counter() - t0 < 5.0:
        t1 = time.perf_counter()
        m = st.next_match()
        decide_s += time.perf_counter() - t1
        assert m is not None
        st.apply(Event(st.last_seq + 1, "scheduled", sched=m.sched,
                       data={"seats": m.seats, "seed": str(m.seed), "match_id": m.match_id}))
        ranks = rng.sample([1, 2, 3], 3)
        idx = st.finished + 1
        row = MatchRow(idx, m.seed, m.seats, "complete", {"scores": [3 - r for r in ranks], "ranks": ranks,
                                                           "faults": [], "forfeited": []}, None)
        st.apply(Event(st.last_seq + 1, "finished", sched=m.sched, data={"idx": idx, "status": "complete"}), row)
        n += 1
    out.update({"scheduled_per_s": n / decide_s, "cycles_per_s": n / (time.perf_counter() - t0)})
    return out


# ----------------------------------------------------------------------------- the section
def run(quick: bool, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Every size's figures (see the module docstring)."""
    out: dict[str, Any] = {"fields": [], "ladders": []}
    for bots, matches in QUICK_SIZES if quick else SIZES:
        say(f"scale: {bots:,} bots, {matches:,} matches")
        out["fields"].append(measure_field(bots, matches, say))
        out["ladders"].append(measure_ladder(1_000 if not quick else bots, matches, say))
    return out


def report(r: dict[str, Any], say: Callable[[str], None], fmt: Callable[..., str]) -> None:
    say("\n-- competition scale: a stored Dou Dizhu field (synthetic results imported with referee results import);"
        " seconds and peak MiB of each command as its own process")
    say(f"{'bots':>6} {'matches':>10} {'import':>8} {'board cold':>11} {'MiB':>6} {'board warm':>11} {'status':>7} "
        f"{'index 1st/warm ms':>18} {'KiB':>6} {'matches warm ms':>16} {'KiB':>6} {'report s':>9} {'MiB':>7} "
        f"{'rho':>5} {'in 95%':>7}")
    for x in r["fields"]:
        i, m = x["web_index.html"], x["web_matches.html"]
        say(f"{x['bots']:>6,} {x['matches']:>10,} {fmt(x['import_s'], 0):>8} {fmt(x['leaderboard_cold_s'], 2):>11} "
            f"{fmt(x['leaderboard_cold_peak_mib'], 0):>6} {fmt(x['leaderboard_warm_s'], 2):>11} "
            f"{fmt(x['status_s'], 2):>7} {fmt(i['first_ms'], 0) + ' / ' + fmt(i['warm_ms'], 0):>18} "
            f"{fmt(i['kib'], 0):>6} {fmt(m['warm_ms'], 0):>16} {fmt(m['kib'], 0):>6} {fmt(x['report_s'], 1):>9} "
            f"{fmt(x['report_mib'], 1):>7} {x['spearman']:>5.3f} {x['covered']:>6.0%}")
    say("   board: referee leaderboard --format json, cold = no fit kept in the store; status: referee tournament"
        " status; index/matches: referee web pages, first request and best of 3 after; report: referee report"
        " (MiB on disk); rho: Spearman rank correlation of the ratings with the true strengths; in 95%: true"
        " strengths inside their interval")
    say("\n-- ladder (a stored history of random matches, with its snapshot)")
    say(f"{'entrants':>8} {'matches':>10} {'events':>10} {'restart s':>10} {'MiB':>6} {'full replay s':>14} {'scheduled/s':>12} "
        f"{'sched+finish/s':>15}")
    for x in r["ladders"]:
        say(f"{x['entrants']:>8,} {x['matches']:>10,} {x['events']:>10,} {fmt(x['restart_s'], 2):>10} {fmt(x['restart_peak_mib'], 0):>6} "
            f"{fmt(x.get('replay_s'), 1):>14} {fmt(x['scheduled_per_s'], 0):>12} {fmt(x['cycles_per_s'], 0):>15}")
    say("   restart: referee ladder FILE --max-matches 0 (open, state from the snapshot and the events after it,"
        " referee up and down); full replay: every event from the first (a restart without a snapshot,"
        f" referee ladder verify), timed up to {REPLAY_LIMIT:,} matches; scheduled/s: the matchmaker's decisions"
        " on the restored state, each match finished at once with TrueSkill applied")


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets at the largest size measured."""
    out: list[dict[str, Any]] = []
    if not r.get("fields"):
        return out
    x = max(r["fields"], key=lambda f: (f["bots"], f["matches"]))
    where = f" ({x['bots']:,} bots, {x['matches']:,} matches)"
    out.append({"what": "referee leaderboard with intervals and P>next <= 10 s, <= 1 GiB" + where,
                "measured": f"{x['leaderboard_cold_s']:.1f} s, {x['leaderboard_cold_peak_mib']:.0f} MiB (cold)",
                "met": x["leaderboard_cold_s"] <= TARGETS["leaderboard_s"]
                and x["leaderboard_cold_peak_mib"] <= TARGETS["leaderboard_mib"]})
    out.append({"what": "referee tournament status <= 2 s" + where, "measured": f"{x['status_s']:.2f} s",
                "met": x["status_s"] <= TARGETS["status_s"]})
    for page in ("index.html", "matches.html"):
        p = x[f"web_{page}"]
        out.append({"what": f"live page {page} warm <= 300 ms and <= 1 MiB" + where,
                    "measured": f"{p['warm_ms']:.0f} ms, {p['kib']:.0f} KiB",
                    "met": p["warm_ms"] <= TARGETS["page_warm_ms"] and p["kib"] <= TARGETS["page_kib"]})
    lad = max(r["ladders"], key=lambda f: f["matches"])
    out.append({"what": f"ladder restart <= 30 s ({lad['entrants']:,} entrants, {lad['matches']:,} matches)",
                "measured": f"{lad['restart_s']:.1f} s", "met": lad["restart_s"] <= TARGETS["ladder_restart_s"]})
    return out
