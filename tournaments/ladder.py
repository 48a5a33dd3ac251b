"""A standing competition: ``referee ladder FILE`` runs until stopped,
bots join, get new versions and retire while it runs, and every finished
match updates the ratings at once.

Pieces:

* :func:`load`: the ladder file (TOML): the keys of a tournament file
  (:mod:`tournaments.spec`, validated the same way, every problem with its
  key and line) without ``schedule``/``games``, plus a ``[ladder]`` table;
* :class:`LadderState`: the entrants, their versions, ratings and the
  matches being played, rebuilt from the event history
  (:mod:`tournaments.ladder_store`) by :meth:`LadderState.apply`;
* :mod:`tournaments.matchmaking`: who plays next, from that state;
* :class:`Ladder`: the running ladder: a referee (``referee.service``) that
  plays the matches with the existing machinery (``referee.play``) and
  answers AdminService's ``Ladder*`` calls.

Determinism: every decision (a match scheduled, a bot suspended) is made
from the state the recorded events produce, under one lock that also writes
the events, so replaying the history reproduces every decision
(:func:`verify_history`), whatever the timing of the matches was.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

import grpc
import trueskill

from cardgames.v1 import admin_pb2
from referee.botcommand import check_command
from referee.bots import BotProcess, Limits
from referee.games import game_class
from referee.outcomes import FaultKind
from referee.play import SeatPlan, launch, play_match, private_log_dir
from referee.remote import RefereeGone, RefereeWait, RemoteReferee, RemoteSeat
from referee.runner import MatchSpec
from referee.sandbox import Sandbox, SandboxError, prepare
from referee.service import Referee, token_digest
from referee.words import plural
from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError

from tournaments import matchmaking
from tournaments.executor import DaskExecutor, ExecutorError, MatchJob, SeatEntry
from tournaments.figures import trueskill_text
from tournaments.ladder_store import (Event, FinishedMatch, LadderStore, RecordedView, ladder_events,
                                      ladder_snapshots, ladder_versions, stored_token)
from tournaments.rating import LiveRating
from tournaments.run import keep_log
from tournaments.running import RunningIndex
from tournaments.schedule import derive_seed
from tournaments.seatings import adjacencies
from tournaments.spec import (SpecError, TournamentSpec, _key_lines, command_labels, parse, syntax_problem,
                              unknown_key)
from tournaments.store import LEASE_HEARTBEAT_S, LeaseHeld, LeaseHolder, MatchRow, StorageError, Store

#: format of a stored state snapshot (:meth:`LadderState.to_json`); another format is ignored
SNAPSHOT_FORMAT = 2
#: the state is stored as a snapshot after this many events (and when the ladder stops)
SNAPSHOT_EVERY = 1000
#: fault kinds that do not make a match faulty for its bot (the bot's reply came, only late or twice)
HARMLESS_FAULTS = (FaultKind.LATE_REPLY, FaultKind.UNKNOWN_REQUEST)
ENTRANT_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,55}$")


# --------------------------------------------------------------------------- the file
@dataclass
class LadderSpec:
    """A validated ladder file: the tournament keys (``t``) and the ``[ladder]`` table.

    ``host``: address the referee binds (external bots and the admin RPC
    connect to it; ``t.port`` its port, 0 = any); ``suspend_after``: faulty
    matches in a row after which an entrant is suspended; ``drain_ms``: on a
    stop, how long matches in progress may take to finish before they are
    abandoned (and played again on the next start)."""

    t: TournamentSpec
    host: str = "127.0.0.1"
    suspend_after: int = 3
    drain_ms: int = 30_000

    @property
    def name(self) -> str:
        return self.t.name

    def fingerprint(self) -> str:
        """Hash of what the ratings depend on (game, rules, clocks, faults,
        TrueSkill, seed), not of the initial bots (the history owns those)."""
        d = asdict(self.t)
        keep = {k: d[k] for k in ("game", "players", "seed", "variant", "params", "decision_ms", "bank_ms",
                                  "fault_policy", "max_faults", "trueskill")}
        if self.t.clock != "wall":  # ladders from before the CPU clock option keep their fingerprint
            keep["clock"] = self.t.clock
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:16]

    def stored_json(self) -> dict[str, Any]:
        """What the ``tournaments`` row keeps (no tokens; ``bots`` grows with each new version)."""
        d = asdict(self.t)
        d["bots"] = []
        d["schedule"] = "ladder"
        d["ladder"] = {"host": self.host, "suspend_after": self.suspend_after, "drain_ms": self.drain_ms}
        return d


def load(path: str | Path, check_commands: bool = True) -> LadderSpec:
    """Read and validate a ladder file. Raises :class:`tournaments.spec.SpecError`
    listing every problem with key and line, or ``FileNotFoundError``.
    ``check_commands = False``: the bots' commands (relative to the current
    directory) are not checked, for a reader that launches no bot."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(str(path), [("(syntax)", *syntax_problem(e, text))]) from None
    spec = parse_ladder(raw, str(path), _key_lines(text), base_dir=str(path.parent), check_commands=check_commands)
    spec.t.file = str(path.resolve())
    return spec


def parse_ladder(raw: dict[str, Any], path: str = "<ladder>", lines: dict[str, int] | None = None,
                 base_dir: str = ".", check_commands: bool = True) -> LadderSpec:
    """Validate a parsed ladder file (see :func:`load`)."""
    lines = lines or {}
    problems: list[tuple[str, int | None, str]] = []
    raw = dict(raw)
    for k in ("schedule", "games"):
        if k in raw:
            problems.append((k, lines.get(k), "a ladder has no fixed schedule: matches are chosen as it runs"))
            raw.pop(k)
    table = raw.pop("ladder", {})
    t: TournamentSpec | None = None
    try:  # fewer bots than seats (even none) is fine: the ladder waits for `referee ladder add`
        t = _parse_padded(raw, path, lines, base_dir, check_commands)
    except SpecError as e:
        problems.extend(e.problems)
    out = LadderSpec(t)  # type: ignore[arg-type]
    if not isinstance(table, dict):
        problems.append(("ladder", lines.get("ladder"), "must be a table"))
        table = {}
    known = {"host", "suspend_after", "drain_ms"}
    for k, v in table.items():
        where = (f"ladder.{k}", lines.get(f"ladder.{k}", lines.get("ladder")))
        if k not in known:
            problems.append((*where, unknown_key(k, known)))
        elif k == "host" and not (isinstance(v, str) and v):
            problems.append((*where, f"must be an address such as \"127.0.0.1\" (got {v!r})"))
        elif k != "host" and (not isinstance(v, int) or isinstance(v, bool) or v < (1 if k == "suspend_after" else 0)):
            problems.append((*where, f"must be an integer >= {1 if k == 'suspend_after' else 0} (got {v!r})"))
        else:
            setattr(out, k, v)
    for i, b in enumerate(raw.get("bots") or []):
        if isinstance(b, dict):
            if isinstance(b.get("name"), str) and len(b["name"]) > 56:
                problems.append((f"bots[{i}].name", lines.get(f"bots[{i}].name"), "at most 56 characters"))
    if problems:
        problems.sort(key=lambda p: (p[1] is None, p[1] or 0))
        raise SpecError(path, problems)
    return out


#: names of the stand-ins that let tournaments.spec.parse check a ladder file with fewer bots
#: than seats: longer than any entrant name (56), so they never clash with one
_PADS = [f"{'p' * 60}{i}" for i in range(8)]


def _parse_padded(raw: dict[str, Any], path: str, lines: dict[str, int], base_dir: str,
                  check_commands: bool = True) -> TournamentSpec:
    """:func:`tournaments.spec.parse` of the file with stand-in bots added
    (then dropped): a ladder may start with fewer entrants than seats."""
    bots = raw.get("bots", [])
    if not isinstance(bots, list):
        return parse(raw, path, lines, base_dir, fixed_schedule=False, check_commands=check_commands)
    n = len(bots)
    t = parse(dict(raw, bots=bots + [{"name": p, "command": "python"} for p in _PADS]), path, lines, base_dir,
              fixed_schedule=False, check_commands=check_commands)
    t.bots = t.bots[:n]
    return t


# --------------------------------------------------------------------------- state
def label_of(name: str, version: int) -> str:
    """The rated identity of an entrant's version: ``"<name>@v<version>"``."""
    return f"{name}@v{version}"


@dataclass
class Version:
    """One version of an entrant and its record. ``plays``: matches scheduled;
    ``last_sched``: scheduling number of its last match (its join point before
    any); ``streak``: faulty matches in a row. An external bot's token is
    known by its SHA-256 only (``token_hash``, what the database keeps);
    ``token`` is the token itself once the bot has presented it (in memory
    only, learnt from the referee), else empty."""

    name: str
    version: int
    command: str
    external: bool
    token: str
    joined_sched: int
    state: str = "active"
    reason: str = ""
    online: bool = False
    plays: int = 0
    finished: int = 0
    last_sched: int = -1
    seat_counts: list[int] = field(default_factory=list)
    streak: int = 0
    last_fault: str = ""
    token_hash: str = ""
    #: launched once and kept across matches (``persistent = true``)
    persistent: bool = False
    #: its own limits (a file bot's ``limits``; ``None``: the file's ``[limits]``)
    limits: Limits | None = None
    #: Dask resources its matches need (a file bot's ``resources``)
    resources: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return label_of(self.name, self.version)


@dataclass
class Scheduled:
    """A match scheduled and not finished yet."""

    sched: int
    seats: list[str]
    seed: int
    match_id: str


class LadderState:
    """The ladder as its events make it (pure: no I/O, no clock).

    ``entrants``: name -> current :class:`Version`; ``versions``: label ->
    every version ever; ``ratings``: label -> TrueSkill rating (updated by
    every complete match in finishing order, exactly as
    :func:`tournaments.rating.rate` rates the stored matches); ``running``:
    scheduled, unfinished matches by scheduling number; ``adjacency``:
    ``(label_a, label_b)`` -> how many scheduled matches sat a immediately
    before b (the seat after a's, cyclically), for the seat choice."""

    def __init__(self, spec: LadderSpec):
        self.spec = spec
        self.live = LiveRating(spec.t.trueskill, spec.t.game, spec.t.players)
        self.env = self.live.env
        #: the seats of each team in a partnership game (the game says: ``Game.teams``), else empty
        self.teams = game_class(spec.t.game).teams(spec.t.players)
        self.entrants: dict[str, Version] = {}
        self.versions: dict[str, Version] = {}
        self.ratings: dict[str, trueskill.Rating] = {}
        self.running: dict[int, Scheduled] = {}
        self.adjacency: dict[tuple[str, str], int] = {}
        self.last_seq = 0
        self.next_sched = 1
        self.finished = 0

    # -- snapshots
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-able data (a snapshot: :meth:`from_json`
        gives the same state back). Tokens are left out (a restarted ladder
        learns them from the referee, as after a replay of the history)."""
        versions = []
        for v in self.versions.values():  # in the order they were added
            d = asdict(v)
            d.pop("token")
            d.pop("token_hash")
            versions.append(d)
        return {"format": SNAPSHOT_FORMAT, "fingerprint": self.spec.fingerprint(), "last_seq": self.last_seq,
                "next_sched": self.next_sched, "finished": self.finished, "versions": versions,
                "entrants": {name: v.label for name, v in self.entrants.items()},
                # TrueSkill keeps a rating as precision and precision-adjusted mean: kept as such, bit for bit
                "ratings": {lbl: [r.pi, r.tau] for lbl, r in self.ratings.items()},
                "running": [asdict(m) for m in self.running.values()],
                "adjacency": [[a, b, n] for (a, b), n in self.adjacency.items()]}

    @classmethod
    def from_json(cls, spec: "LadderSpec", d: dict[str, Any]) -> "LadderState | None":
        """The state a snapshot holds, or ``None`` for a snapshot of another
        format or of a ladder file with other rules (the history is then replayed)."""
        if d.get("format") != SNAPSHOT_FORMAT or d.get("fingerprint") != spec.fingerprint():
            return None
        st = cls(spec)
        st.last_seq, st.next_sched, st.finished = int(d["last_seq"]), int(d["next_sched"]), int(d["finished"])
        for vd in d["versions"]:
            vd = dict(vd, token="", token_hash="")
            vd["limits"] = Limits(**vd["limits"]) if vd.get("limits") else None
            v = Version(**vd)
            st.versions[v.label] = v
        st.entrants = {name: st.versions[lbl] for name, lbl in d["entrants"].items()}
        st.ratings = {lbl: _rating(pi, tau) for lbl, (pi, tau) in d["ratings"].items()}
        st.running = {int(m["sched"]): Scheduled(**m) for m in d["running"]}
        st.adjacency = {(a, b): int(n) for a, b, n in d["adjacency"]}
        return st

    # -- reading
    def eligible(self) -> list[Version]:
        """Active entrants that can play now (external ones only while connected)."""
        return [v for v in self.entrants.values() if v.state == "active" and (v.online or not v.external)]

    def busy(self) -> set[str]:
        return {lbl for m in self.running.values() for lbl in m.seats}

    def candidates(self) -> list[matchmaking.Candidate]:
        busy = self.busy()
        out = []
        for v in self.eligible():
            if v.label in busy:
                continue
            r = self.ratings[v.label]
            waited = self.next_sched - 1 - max(v.last_sched, v.joined_sched)
            out.append(matchmaking.Candidate(v.label, r.mu, r.sigma, v.plays, waited, list(v.seat_counts)))
        return out

    def next_match(self) -> Scheduled | None:
        """The match the matchmaker picks now (not recorded), or ``None``."""
        seats = matchmaking.choose(self.candidates(), self.spec.t.players, self.env, self.spec.t.seed,
                                   self.next_sched, active=len(self.eligible()), teams=self.teams,
                                   adjacency=self.adjacency)
        if seats is None:
            return None
        sched = self.next_sched
        return Scheduled(sched, seats, derive_seed(self.spec.t.seed, f"ladder-match:{sched}"),
                         f"{self.spec.name}-m{sched:05d}")

    def faulty_seats(self, seats: list[str], result: dict[str, Any]) -> dict[int, str]:
        """seat -> first fault text, for the seats of a match whose bot faulted (or was forfeited)."""
        out: dict[int, str] = {}
        # a crash says most (exit status, stderr): it wins over the no-show or disconnect it caused
        for f in sorted(result.get("faults") or [], key=lambda f: f.get("kind") != FaultKind.CRASH):
            if f.get("kind") not in HARMLESS_FAULTS and f.get("seat") is not None and f["seat"] not in out:
                msg = _short(f.get("message") or f.get("rule") or "")
                out[f["seat"]] = f"{f['kind']}" + (f": {msg}" if msg else "")
        for s in result.get("forfeited") or []:
            out.setdefault(s, "forfeited")
        return out

    def suspensions(self, m: Scheduled, result: dict[str, Any]) -> list[Event]:
        """The ``suspend`` events the match's result causes (not applied; seq 0)."""
        if result.get("status") == "void":
            return []
        bad = self.faulty_seats(m.seats, result)
        out = []
        for s, lbl in enumerate(m.seats):
            v = self.versions[lbl]
            if s not in bad or self.entrants.get(v.name) is not v or v.state != "active":
                continue
            n = v.streak + 1
            if n >= self.spec.suspend_after:
                out.append(Event(0, "suspend", v.name, data={
                    "label": lbl, "reason": f"{n} faulty matches in a row (last, {m.match_id}: {bad[s]})"}))
        return out

    # -- changing
    def apply(self, e: Event, row: MatchRow | None = None) -> None:
        """Apply one recorded event (``row``: the stored match of a ``finished`` event)."""
        self.last_seq = e.seq
        d = e.data or {}
        if e.kind in ("add", "replace"):
            old = self.entrants.get(e.name or "")
            if old is not None:
                old.state, old.reason = "replaced", f"replaced by v{d['version']}"
            v = Version(e.name or "", d["version"], d.get("command", ""), d.get("external", False),
                        "", self.next_sched - 1, online=d.get("online", False),
                        seat_counts=[0] * self.spec.t.players, persistent=d.get("persistent", False),
                        limits=Limits(**d["limits"]) if d.get("limits") else None,
                        resources=list(d.get("resources") or []))
            self.entrants[v.name] = v
            self.versions[v.label] = v
            self.ratings[v.label] = self.env.create_rating()
        elif e.kind in ("retire", "suspend"):
            v = self.entrants[e.name or ""]
            v.state = "retired" if e.kind == "retire" else "suspended"
            v.reason = d.get("reason", "")
        elif e.kind in ("online", "offline"):
            v = self.versions[d["label"]]
            v.online = e.kind == "online"
            if v.online:  # its wait counts from when it can play
                v.joined_sched = max(v.joined_sched, self.next_sched - 1)
        elif e.kind == "scheduled":
            m = Scheduled(e.sched or 0, list(d["seats"]), int(d["seed"]), d["match_id"])
            self.running[m.sched] = m
            self.next_sched = max(self.next_sched, m.sched + 1)
            for s, lbl in enumerate(m.seats):
                v = self.versions[lbl]
                v.plays += 1
                v.last_sched = m.sched
                v.seat_counts[s] += 1
            for pair in adjacencies(m.seats):
                self.adjacency[pair] = self.adjacency.get(pair, 0) + 1
        elif e.kind == "finished":
            m = self.running.pop(e.sched or 0)
            self.finished += 1
            result = row.result if row is not None else {}
            bad = self.faulty_seats(m.seats, result) if d.get("status") != "void" else {}
            for s, lbl in enumerate(m.seats):
                v = self.versions[lbl]
                v.finished += 1
                if d.get("status") != "void":
                    v.streak = v.streak + 1 if s in bad else 0
                    v.last_fault = bad.get(s, v.last_fault)
            if row is not None and row.status == "complete":
                self.live(self.ratings, row)
        elif e.kind == "abandoned":
            self.running.pop(e.sched or 0, None)
        else:
            raise ValueError(f"unknown ladder event kind {e.kind!r} (seq {e.seq})")


def _rating(pi: float, tau: float) -> trueskill.Rating:
    """The TrueSkill rating of precision ``pi`` and precision-adjusted mean
    ``tau`` (exactly: going through mu and sigma would round the last bits)."""
    r = trueskill.Rating()
    r.pi, r.tau = pi, tau
    return r


def rebuild(spec: LadderSpec, events: Iterable[Event], rows: Mapping[int, MatchRow] | "RowsInOrder",
            on_step: Callable[[LadderState, Event], None] | None = None,
            start: LadderState | None = None) -> LadderState:
    """The state after ``events`` (``rows``: stored matches by index, ``get``
    is all it needs), from ``start`` (a snapshot's state) or from nothing.
    ``on_step(state, event)`` is called before each event is applied."""
    st = start if start is not None else LadderState(spec)
    for e in events:
        if on_step is not None:
            on_step(st, e)
        st.apply(e, rows.get((e.data or {}).get("idx", -1)) if e.kind == "finished" else None)
    return st


class RowsInOrder:
    """Stored matches read in index order as the history asks for them
    (``finished`` events come in index order), so that replaying a long
    history holds one chunk of matches at a time, never all of them."""

    def __init__(self, store: Store, tid: int):
        self._it = store.iter_matches(tid)
        self._row: MatchRow | None = None

    def get(self, idx: int, default: MatchRow | None = None) -> MatchRow | None:
        while self._row is None or self._row.idx < idx:
            self._row = next(self._it, None)
            if self._row is None:
                self._it = iter(())
                return default
        return self._row if self._row.idx == idx else default


def restore(spec: LadderSpec, lstore: LadderStore, tid: int, as_of: RecordedView | None = None
            ) -> tuple[LadderState, int, bool]:
    """The ladder's state from its snapshot and the events after it, or from
    the whole history when it has no usable snapshot. Returns ``(state,
    events applied, from a snapshot)``. O(events after the snapshot).
    ``as_of``: the state as of that view (its snapshot, events up to its
    ``last_seq``) instead of the latest."""
    snap = lstore.snapshot(tid) if as_of is None else as_of.snapshot
    upto = None if as_of is None else as_of.last_seq
    start = LadderState.from_json(spec, snap[1]) if snap is not None else None
    after = start.last_seq if start is not None else 0
    if start is None:  # every event, streamed
        count = [0]

        def counted() -> Iterator[Event]:
            for e in lstore.iter_events(tid, upto=upto):
                count[0] += 1
                yield e

        return rebuild(spec, counted(), RowsInOrder(lstore.store, tid)), count[0], False
    tail = lstore.events(tid, after=after, upto=upto)
    rows = lstore.match_rows(tid, [int(e.data["idx"]) for e in tail if e.kind == "finished" and e.data])
    return rebuild(spec, tail, rows, start=start), len(tail), True


def _short(message: str, limit: int = 160) -> str:
    """A fault message for a suspension reason: without the bot's output file
    paths (the pages link them), cut at a word with an ellipsis."""
    msg = re.sub(r"\s*\(stderr: [^()]*\)\s*$", "", message.strip())
    if len(msg) <= limit:
        return msg
    cut = msg[:limit].rsplit(" ", 1)[0] if " " in msg[:limit] else msg[:limit]
    return cut.rstrip(" ,;:|") + " …"


def verify_history(spec: LadderSpec, events: Iterable[Event], rows: Mapping[int, MatchRow] | RowsInOrder
                   ) -> list[str]:
    """Replay the history and check that every recorded decision is the one
    the state before it gives (see :func:`replay_checked`). Returns the
    discrepancies (empty: deterministic)."""
    return replay_checked(spec, events, rows)[1]


def replay_checked(spec: LadderSpec, events: Iterable[Event], rows: Mapping[int, MatchRow] | RowsInOrder
                   ) -> tuple[LadderState, list[str]]:
    """Replay the whole history and check that every recorded decision is the
    one the state before it gives: each ``scheduled`` match (seats and seed)
    and each ``suspend``. Returns ``(the state at the end, discrepancies)``
    (no discrepancy: deterministic). O(events) time; with streamed
    ``events`` and :class:`RowsInOrder`, bounded memory."""
    problems: list[str] = []
    pending: list[Event] = []

    def step(st: LadderState, e: Event) -> None:
        if e.kind == "scheduled":
            m = st.next_match()
            got = None if m is None else (m.sched, m.seats, m.seed)
            want = (e.sched, e.data["seats"], int(e.data["seed"])) if e.data else None
            if got is not None and want is not None and e.data.get("seating", 1) != matchmaking.SEATING_DESIGN:
                # seated by an earlier matchmaker: who plays is checked, the seat order is that version's
                got, want = (got[0], sorted(got[1]), got[2]), (want[0], sorted(want[1]), want[2])
            if got != want:
                problems.append(f"event {e.seq}: recorded match {want}, matchmaking gives {got}")
        elif e.kind == "finished":
            m = st.running.get(e.sched or 0)
            row = rows.get((e.data or {}).get("idx", -1))
            pending[:] = [Event(0, s.kind, s.name, data=s.data) for s in
                          (st.suspensions(m, row.result) if m is not None and row is not None else [])]
        elif e.kind == "suspend":
            if not any(p.name == e.name for p in pending):
                problems.append(f"event {e.seq}: suspension of {e.name} not caused by the match before it")

    state = rebuild(spec, events, rows, step)
    return state, problems


def state_differences(a: LadderState, b: LadderState) -> list[str]:
    """Where two states of one ladder differ (empty: the same), in words."""
    da, db = a.to_json(), b.to_json()
    out = []
    for key in da:
        if key == "ratings":
            for lbl in sorted(set(da[key]) | set(db[key])):
                if da[key].get(lbl) != db[key].get(lbl):
                    ra, rb = a.ratings.get(lbl), b.ratings.get(lbl)
                    out.append(f"rating of {lbl}: " + " vs ".join(
                        "none" if r is None else f"{r.mu:.6f}/{r.sigma:.6f}" for r in (ra, rb)))
        elif da[key] != db[key]:
            out.append(f"{key} differs")
    return out


# --------------------------------------------------------------------------- running
class PersistentBot:
    """The process of a persistent version (``persistent = true``): launched
    for its first match, kept across matches (it plays one at a time),
    relaunched with the same token if it died, and stopped (reaped) by
    :meth:`stop` when the version stops playing or the ladder stops. Its
    stderr goes to ``<log_dir>/<label>.persistent<N>.stderr`` (launch N)."""

    def __init__(self, ref: Referee, v: Version, spec: TournamentSpec, log_dir: Path, sandbox: Sandbox | None):
        self.ref, self.label, self.command = ref, v.label, v.command
        self.limits = v.limits or spec.limits
        self.spec, self.log_dir, self.sandbox = spec, log_dir, sandbox
        self.token = ref.new_token(v.label)
        self.proc: BotProcess | None = None
        self.launches = 0
        self._lock = asyncio.Lock()

    async def ensure(self) -> BotProcess | None:
        """The running process (launched or relaunched now if needed); ``None``
        if its command cannot be started (the seat is then a no-show)."""
        async with self._lock:
            if self.proc is None or self.proc.poll() is not None:
                if self.proc is not None:
                    await asyncio.to_thread(self.proc.stop, 0.2)
                self.launches += 1
                try:
                    self.proc = await launch(self.ref, self.command, f"{self.label}.persistent{self.launches}",
                                             self.token, self.log_dir, self.limits, self.sandbox,
                                             Path(self.spec.cwd))
                except (OSError, ValueError, RuntimeError):
                    self.proc = None
            return self.proc

    async def stop(self) -> None:
        """Stop and reap the process (idempotent); the token is no longer accepted."""
        async with self._lock:
            if self.proc is not None:
                await asyncio.to_thread(self.proc.stop)
            await self.ref.withdraw(self.token)


class LadderRefusal(Exception):
    """An admin call refused; ``grpc_code`` is the status it is answered with."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.grpc_code = code


class LadderError(RuntimeError):
    """A ladder that cannot start as asked; the message says what to do."""


class Ladder:
    """A running ladder. ``admin_token`` protects the ``Ladder*`` calls;
    ``say(line)`` gets one line per event worth telling the operator;
    ``max_matches``: schedule no more than that many new matches this run
    (``None``: until stopped); ``tls``: (certificate PEM, key PEM) to serve
    TLS on the ladder's port (bots the ladder launches connect in plaintext
    to a Unix socket of their own, see :meth:`Referee.private_socket`).

    With ``executor = "dask"`` (``spec.t.executor``/``scheduler``) every match
    is a task on that Dask cluster (:class:`tournaments.executor.DaskExecutor`:
    bots launched on the worker, the compressed log sent back and written
    here by :func:`tournaments.run.keep_log`); this process stays the only
    writer of the store and the log directory, and still answers the admin
    calls. External entrants cannot play there (refused when added).

    With ``remote`` (``referee ladder FILE --referee HOST:PORT``) every match
    is played on that running ``referee serve`` through its AdminService
    (:class:`referee.remote.RemoteReferee`): the bots are launched here and
    connect there, the log is fetched into the ladder's log directory; each
    match has its ladder id there too (``<ladder>-m00039``, or
    ``<ladder>-m00039-2`` ... when that referee already has the id). The
    ladder keeps its own referee for the admin calls. External and
    persistent entrants cannot play there (refused at start and when added).
    When that referee goes away (stopped, restarted) after answering once,
    the ladder waits up to ``reconnect_s`` seconds for it to answer again
    (:class:`referee.remote.RefereeWait`, saying so through ``say``) and plays
    the matches it lost again from the start (nothing of them was recorded);
    with no time to wait or when the time is up, it stops as on Ctrl-C with
    those matches still scheduled (played again on the next start) and
    :meth:`run` raises :class:`~referee.remote.RefereeGone`.

    One process per ladder: the ladder holds the lease of its tournament row
    (:meth:`tournaments.store.Store.acquire_lease`, renewed every
    :data:`~tournaments.store.LEASE_HEARTBEAT_S` s, released on stop), as a
    tournament driver does; a second start is refused with
    :class:`LadderError` naming the holder."""

    def __init__(self, spec: LadderSpec, admin_token: str | None, say: Callable[[str], None] = print,
                 max_matches: int | None = None, fresh: bool = False, tls: tuple[bytes, bytes] | None = None,
                 remote: RemoteReferee | None = None, reconnect_s: float = 0.0):
        self.spec = spec
        #: the running referee every match is played on (None: this process or the Dask cluster)
        self.remote = remote
        #: the one wait for :attr:`remote` when it went away, shared by the matches it lost
        # its lines worded as the tournament driver's: `note: the referee at HOST:PORT went away (...); ...`
        self.remote_wait = (RefereeWait(remote, reconnect_s, lambda line: say(f"note: {line}"), self._record_wait)
                            if remote is not None else None)
        #: :attr:`remote` went away and did not come back in time: the ladder stops, :meth:`run` raises it
        self.gone: RefereeGone | None = None
        #: while it waits for :attr:`remote`: (what, since, until), unix seconds (``LadderStatus`` says it)
        self.waiting: tuple[str, float, float] | None = None
        self.tls = tls
        self.admin_token = admin_token
        self.say = say
        self.max_matches = max_matches
        self.fresh = fresh
        self.store: Store | None = None
        self.lstore: LadderStore | None = None
        self.tid = 0
        self.state = LadderState(spec)
        self.ref: Referee | None = None
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.tasks: dict[int, asyncio.Task] = {}
        self.scheduled_this_run = 0
        self.port = 0
        self.ready = asyncio.Event()
        self.log_dir = Path(spec.t.log_dir) / spec.name
        #: the matches being played, in ``<log_dir>/.running`` (what the live site reads)
        self.running = RunningIndex(self.log_dir)
        self.sandbox: Sandbox | None = None
        #: label -> the process of a persistent version that plays (see :meth:`_stop_unused_persistent`)
        self.persistent: dict[str, PersistentBot] = {}
        #: where matches are played: ``None`` in this process, else the Dask cluster
        self.executor: DaskExecutor | None = DaskExecutor(spec.t.scheduler) if spec.t.executor == "dask" else None
        #: persistent versions that played on the Dask workers (one process per worker each)
        self.remote_persistent: set[str] = set()
        self.me = LeaseHolder.me()
        #: the event the stored snapshot of the state was taken at
        self.snapshot_seq = 0
        #: how the state was rebuilt on opening (for the operator)
        self.restored = ""
        #: why the ladder stopped on its own (its lease was taken over), raised by :meth:`run`
        self.failure = ""

    # -- opening
    def _open(self) -> None:
        """Open the store, take the ladder's lease (creating the ladder if
        new) and rebuild the state. Raises :class:`LadderError` when another
        process runs the ladder, the name is a tournament's or the file
        changed; :class:`~tournaments.store.StorageError` when the database fails."""
        self.store = Store(self.spec.t.database)
        self.lstore = LadderStore(self.store)
        where = f"ladder {self.spec.name!r} in {self.store.display_url}"
        for _ in range(3):  # another ladder process may create it between our steps
            t = self.store.tournament(self.spec.name)
            if t is not None and json.loads(t["spec_json"]).get("schedule") != "ladder":
                raise LadderError(f"{self.spec.name!r} in {self.store.display_url} is a tournament, not a ladder: "
                                  "give the ladder another name")
            try:
                if t is not None:
                    self.store.acquire_lease(int(t["id"]), self.me)  # before anything is read or deleted
                if t is not None and self.fresh:
                    self._delete(t["id"])
                    t = None
                if t is None:
                    try:
                        self.tid = self.lstore.create(self.spec.name, self.spec.t.game, self.spec.stored_json(),
                                                      self.spec.fingerprint(), lease_holder=self.me)
                    except IntegrityError:
                        self.fresh = False  # created just now by another process: its lease decides
                        continue
                    return
            except LeaseHeld as e:
                raise LadderError(f"{where} {e}".replace("wait for that run to finish", "stop that ladder")
                                  ) from None
            break
        else:
            raise LadderError(f"{where} is being created by other ladder processes at the same time; retry")
        if t["fingerprint"] != self.spec.fingerprint():
            self.store.release_lease(int(t["id"]), self.me)
            raise LadderError(f"{where} was started with another game, "
                              "rules, clocks, fault policy, TrueSkill or seed; use --fresh to start it over "
                              "or give it a new name")
        self.tid = int(t["id"])
        self.state, replayed, snapshot = restore(self.spec, self.lstore, self.tid)
        self.snapshot_seq = self.state.last_seq - replayed if snapshot else 0
        self.restored = (f"restored from its snapshot at event {self.snapshot_seq} and {replayed} later events"
                         if snapshot else f"replayed its history of {replayed} events")
        hashes = self.lstore.token_hashes(self.tid)  # also turns tokens stored by older versions into hashes
        for lbl, v in self.state.versions.items():
            v.token_hash = hashes.get(lbl, "")
        # where it plays now, for the command `referee ladder status` gives (token files' paths, never a token)
        ts = self.spec.t
        self.store.update_spec(self.tid, {"referee": ts.referee, "tls_ca": ts.tls_ca,
                                          "admin_token_file": ts.admin_token_file,
                                          "referee_admin_token_file": ts.referee_admin_token_file,
                                          "admin_token_env": ts.admin_token_env})
        self.store.set_tournament_status(self.tid, "running")

    def _delete(self, tid: int) -> None:
        assert self.store is not None
        with self.store.engine.begin() as c:
            for table in (ladder_events, ladder_versions, ladder_snapshots):
                c.execute(delete(table).where(table.c.tournament_id == tid))
        self.store.delete_tournament(self.spec.name, self.me)

    # -- recording (every change goes through here, under the lock)
    async def _commit(self, events: list[Event], rows: dict[int, MatchRow] | None = None,
                      **kw: Any) -> list[Event]:
        """Number ``events``, write them (and ``kw``, see :meth:`LadderStore.commit`)
        in one transaction, then apply them. Called with :attr:`lock` held, so
        events are written and applied in sequence order."""
        assert self.lstore is not None and self.lock.locked()
        numbered = []
        for i, e in enumerate(events, 1):
            numbered.append(Event(self.state.last_seq + i, e.kind, e.name, e.sched, e.data))
        await asyncio.to_thread(self.lstore.commit, self.tid, numbered, **kw)
        for e in numbered:
            self.state.apply(e, (rows or {}).get((e.data or {}).get("idx", -1)))
        if self.state.last_seq - self.snapshot_seq >= SNAPSHOT_EVERY:
            await asyncio.to_thread(self._save_snapshot)
        self.wake.set()
        return numbered

    def _save_snapshot(self) -> None:
        """Store the state as of the last event (see :func:`restore`)."""
        assert self.lstore is not None
        self.lstore.save_snapshot(self.tid, self.state.last_seq, self.state.to_json())
        self.snapshot_seq = self.state.last_seq

    def _token(self, v: Version) -> str:
        """The token of external version ``v`` once its bot has presented it (else "")."""
        if not v.token and v.token_hash and self.ref is not None:
            v.token = self.ref.token_for_digest(v.token_hash) or ""
        return v.token

    async def _add_version(self, kind: str, name: str, command: str, token: str, external: bool,
                           persistent: bool = False, limits: Limits | None = None,
                           resources: list[str] | None = None) -> Event:
        old = self.state.entrants.get(name)
        version = old.version + 1 if old is not None else 1
        label = label_of(name, version)
        digest = token_digest(token) if external else ""
        known = self.ref.token_for_digest(digest) if external and self.ref is not None else None
        online = bool(known and self.ref is not None and self.ref.connected(known))
        data = {"version": version, "label": label, "command": command, "external": external, "online": online}
        if persistent:
            data["persistent"] = True
        if limits is not None:  # a file bot's own limits and Dask resources, kept with the version
            data["limits"] = asdict(limits)
        if resources:
            data["resources"] = list(resources)
        states = {old.label: ("replaced", f"replaced by v{version}")} if old is not None else None
        ev = (await self._commit([Event(0, kind, name, data=data)], new_version={
            "name": name, "version": version, "label": label, "command": command, "external": external,
            "token": stored_token(digest), "state": "active", "reason": "",
            "added_seq": self.state.last_seq + 1, "persistent": persistent}, version_states=states))[0]
        v = self.state.versions[label]
        v.token_hash, v.token = digest, known or ""
        if external and self.ref is not None:  # the same path as after a restart: the referee knows the hash only
            self.ref.register_token_hash(digest, label)
        self.say(f"{'added' if kind == 'add' else 'new version'} {label}"
                 f"{' (external: plays while connected)' if external else ''}"
                 f"{' (persistent: launched once)' if persistent else ''}")
        await self._stop_unused_persistent()
        return ev

    # -- the admin calls (AdminService.Ladder*, via referee.service)
    async def admin(self, method: str, request: Any) -> Any:
        async with self.lock:
            if method == "LadderStatus":
                return self.status_pb()
            name = request.name
            cur = self.state.entrants.get(name)
            if method == "LadderRetire":
                if cur is None:
                    raise LadderRefusal(grpc.StatusCode.NOT_FOUND, f"no entrant {name!r} in this ladder")
                if cur.state == "retired":
                    raise LadderRefusal(grpc.StatusCode.FAILED_PRECONDITION, f"{name} is already retired")
                reason = request.reason.strip()[:200] or "retired by the operator"
                ev = (await self._commit([Event(0, "retire", name, data={"label": cur.label, "reason": reason})],
                                         version_states={cur.label: ("retired", reason)}))[0]
                self.say(f"retired {cur.label}: {reason}")
                await self._stop_unused_persistent()
                return admin_pb2.LadderRetireResponse(change=admin_pb2.LadderChange(
                    name=name, version=cur.version, label=cur.label, event_seq=ev.seq))
            if not ENTRANT_NAME_RE.match(name):
                raise LadderRefusal(grpc.StatusCode.INVALID_ARGUMENT,
                                    f"entrant name {name!r}: 1-56 letters, digits, '_', '-', '.'")
            if method == "LadderAdd" and cur is not None:
                raise LadderRefusal(grpc.StatusCode.ALREADY_EXISTS,
                                    f"{name} is already an entrant (v{cur.version}, {cur.state}); "
                                    "send a new version with replace")
            if method == "LadderReplace" and cur is None:
                raise LadderRefusal(grpc.StatusCode.NOT_FOUND, f"no entrant {name!r} in this ladder (use add)")
            command, token = request.command.strip(), request.token.strip()
            if bool(command) == bool(token):
                raise LadderRefusal(grpc.StatusCode.INVALID_ARGUMENT,
                                    "give either a command (a launched bot) or a token (an external bot)")
            if request.persistent and not command:
                raise LadderRefusal(grpc.StatusCode.INVALID_ARGUMENT,
                                    "persistent is for a launched bot (a command), not an external one")
            if command and (why := check_command(command, Path(self.spec.t.cwd))) is not None:
                raise LadderRefusal(grpc.StatusCode.INVALID_ARGUMENT, f"command {command!r}: {why}")
            if command and self.sandbox is not None:
                try:
                    prepare(self.sandbox, [command], Path(self.spec.t.cwd))
                except SandboxError as e:
                    raise LadderRefusal(grpc.StatusCode.INVALID_ARGUMENT, f"command {command!r}: {e}") from None
            if (token or request.persistent) and self.remote is not None:
                raise LadderRefusal(grpc.StatusCode.FAILED_PRECONDITION,
                                    f"this ladder plays its matches on the referee at {self.remote.addr}; "
                                    "external and persistent bots cannot play there: add a launched bot "
                                    "(--command, not --persistent) instead")
            if token and self.executor is not None:
                raise LadderRefusal(grpc.StatusCode.FAILED_PRECONDITION,
                                    "this ladder plays its matches on a Dask cluster "
                                    f"({self.spec.t.scheduler}); external bots connect to the ladder's own "
                                    "referee and cannot play there: add a launched bot (--command) instead")
            if token:
                if len(token) < 16:
                    raise LadderRefusal(grpc.StatusCode.INVALID_ARGUMENT, "a token needs at least 16 characters")
                if any(v.token_hash == token_digest(token) and v.name != name for v in self.state.versions.values()):
                    raise LadderRefusal(grpc.StatusCode.INVALID_ARGUMENT, "that token belongs to another entrant")
            ev = await self._add_version("add" if method == "LadderAdd" else "replace", name, command, token,
                                         bool(token), bool(request.persistent))
            v = self.state.entrants[name]
            change = admin_pb2.LadderChange(name=name, version=v.version, label=v.label, event_seq=ev.seq)
            if method == "LadderAdd":
                return admin_pb2.LadderAddResponse(change=change)
            return admin_pb2.LadderReplaceResponse(change=change)

    def status_pb(self) -> Any:
        res = admin_pb2.LadderStatusResponse(ladder=self.spec.name, game=self.spec.t.game,
                                             matches_finished=self.state.finished,
                                             matches_running=len(self.state.running),
                                             last_event_seq=self.state.last_seq)
        if self.waiting is not None:
            res.waiting_for, res.waiting_since, res.waiting_until = self.waiting
        for v in self.state.entrants.values():
            r = self.state.ratings[v.label]
            res.entrants.add(name=v.name, version=v.version, label=v.label, state=v.state, reason=v.reason,
                             external=v.external, online=v.online, mu=r.mu, sigma=r.sigma, matches=v.finished)
        return res

    # -- the loop
    async def run(self, stop: asyncio.Event, abandon: asyncio.Event | None = None) -> None:
        """Run until ``stop`` is set (or ``max_matches`` were scheduled and
        played): then schedule nothing more, let matches in progress finish
        for up to ``drain_ms`` (at once when ``abandon`` is set, or when they
        wait for a remote referee that went away), abandon the rest (played
        again on the next start) and stop every process.
        Raises :class:`LadderError` when the store holds an incompatible
        ladder, another process runs it (or took its lease over while it
        ran) or the Dask cluster cannot be used;
        :class:`~referee.remote.RefereeGone` when the remote referee went
        away and did not come back in time (the ladder stopped cleanly);
        :class:`~tournaments.store.StorageError` when the database fails;
        ``OSError`` when the address cannot be bound."""
        t = self.spec.t
        if self.remote is not None:
            if self.executor is not None:
                raise LadderError("--referee plays every match on that referee: it excludes the Dask executor")
            if t.clock != "wall":
                raise LadderError("--referee: the cpu clock needs the ladder's own referee (a remote referee "
                                  "charges wall time); remove kind = \"cpu\" from [clock]")
            odd = [b.name for b in t.bots if b.external or b.persistent]
            if odd:
                raise LadderError(f"--referee: external and persistent bots ({', '.join(odd)}) cannot play on "
                                  "another referee; make them launched bots (command, not persistent)")
        elif self.executor is None:
            try:  # the bots' isolation, as for a tournament (docs/sandbox.md): the file's [sandbox] table
                self.sandbox = Sandbox(t.bot_uids, t.isolate_network)
                prepare(self.sandbox, [b.command for b in t.bots if not b.external], Path(t.cwd),
                        command_labels(t.bots))
            except SandboxError as e:
                raise LadderError(str(e)) from None
        elif any(b.external for b in t.bots):  # each Dask worker isolates the bots it launches itself
            raise LadderError("external bots connect to this machine's referee: they cannot play on a "
                              "Dask cluster (use executor = \"local\")")
        await self._run(stop, abandon)
        if self.failure:
            raise LadderError(self.failure)
        if self.gone is not None:
            raise self.gone

    async def _run(self, stop: asyncio.Event, abandon: asyncio.Event | None) -> None:
        t = self.spec.t
        await asyncio.to_thread(self._open)
        assert self.store is not None
        beat: asyncio.Task | None = None
        started = False
        try:
            beat = asyncio.create_task(self._heartbeat(stop, abandon))  # also while the cluster is awaited
            if self.executor is not None:  # only once the lease is ours: a refused start leaves the cluster alone
                try:
                    await self.executor.start(t, self.log_dir)
                except ExecutorError as e:
                    raise LadderError(str(e)) from None
                started = True
            self.log_dir.mkdir(parents=True, exist_ok=True)
            if self.sandbox is not None and self.sandbox.uids:
                private_log_dir(self.log_dir)  # bots of other uids must not read the live match logs
            self.running.reset()
            self.ref = Referee(self.log_dir, admin_token=self.admin_token)
            self.ref.ladder = self
            if self.executor is not None:  # left on the workers by a ladder process that was killed
                left = await self.executor.stop_bots(None)
                if any(left.values()):
                    self.say(f"stopped the persistent bots a killed run left on {sum(map(bool, left.values()))} "
                             "Dask worker(s)")
            self.port = await self.ref.start(self.spec.host, t.port, tls=self.tls)
            for v in self.state.versions.values():
                if v.external and v.token_hash:
                    self.ref.register_token_hash(v.token_hash, v.label)
            async with self.lock:
                if not self.state.entrants:  # a new ladder: the file's bots
                    for b in self.spec.t.bots:
                        await self._add_version("add", b.name, b.command, b.token, b.external, b.persistent,
                                                b.limits, b.resources)
            where = (f"; matches on the Dask cluster at {t.scheduler}" if self.executor is not None
                     else f"; matches on the referee at {self.remote.addr}" if self.remote is not None else "")
            entrants, finished = len(self.state.entrants), self.state.finished
            self.say(f"ladder {self.spec.name}: {self.spec.t.game}, {entrants} {plural(entrants, 'entrant')}, "
                     f"{finished} {plural(finished, 'match', 'matches')} so far"
                     f"{f' ({self.restored})' if self.restored else ''}; "
                     f"listening on {self.spec.host}:{self.port}"
                     f"{' (TLS)' if self.tls else ''}{where}")
            self.ready.set()
            for m in sorted(self.state.running.values(), key=lambda m: m.sched):  # cut short by the last stop
                self.say(f"match {m.sched} ({' / '.join(m.seats)}) was interrupted: playing it again")
                self.tasks[m.sched] = asyncio.create_task(self._play(m))
            while not stop.is_set() and self.gone is None:
                async with self.lock:
                    await self._poll_online()
                    while len(self.tasks) < self.spec.t.concurrency and not self._budget_spent():
                        m = self.state.next_match()
                        if m is None:
                            break
                        await self._commit([Event(0, "scheduled", sched=m.sched, data={
                            "seats": m.seats, "seed": str(m.seed), "match_id": m.match_id,
                            "seating": matchmaking.SEATING_DESIGN})])
                        self.scheduled_this_run += 1
                        self.tasks[m.sched] = asyncio.create_task(self._play(m))
                if self._budget_spent() and not self.tasks:
                    break
                self.wake.clear()
                waits = [asyncio.ensure_future(self.wake.wait()), asyncio.ensure_future(stop.wait())]
                await asyncio.wait(waits, timeout=0.5, return_when=asyncio.FIRST_COMPLETED)
                for w in waits:
                    w.cancel()
            await self._drain(abandon)
        finally:
            for task in self.tasks.values():
                task.cancel()
            if self.tasks:
                await asyncio.gather(*self.tasks.values(), return_exceptions=True)
            for p in list(self.persistent.values()):
                await p.stop()
            self.persistent.clear()
            if self.ref is not None:
                await self.ref.stop(0.5)
            if started:
                await self.executor.stop()  # and this ladder's persistent bots on every worker
            if beat is not None:
                beat.cancel()
                await asyncio.gather(beat, return_exceptions=True)
            try:
                if self.tid and not self.failure:
                    if self.state.last_seq > self.snapshot_seq:
                        self._save_snapshot()
                    self.store.set_tournament_status(self.tid, "stopped")
                    self.store.release_lease(self.tid, self.me)
            except StorageError as e:  # the database is what failed: the lease expires on its own
                self.say(f"could not record the stop: {e}")
            finally:
                self.store.close()

    async def _heartbeat(self, stop: asyncio.Event, abandon: asyncio.Event | None) -> None:
        """Renew the lease every :data:`LEASE_HEARTBEAT_S` s. If another
        process took it over (this one was presumed dead), stop at once
        (matches in progress abandoned) so that nothing is played twice."""
        assert self.store is not None
        while True:
            await asyncio.sleep(LEASE_HEARTBEAT_S)
            try:
                ours = await asyncio.to_thread(self.store.heartbeat, self.tid, self.me)
                lease = None if ours else await asyncio.to_thread(self.store.lease, self.tid)
            except StorageError as e:  # e.g. the PostgreSQL server restarting: retried; the lease lasts LEASE_TTL_S
                self.say(f"lease heartbeat failed ({e}); retrying")
                continue
            if not ours:
                who = f"pid {lease['pid']} on host {lease['host']}" if lease else "nobody"
                self.failure = (f"ladder {self.spec.name!r} lost its lease in {self.store.display_url} (now held "
                                f"by {who}); this process stopped so that no match is played twice")
                self.say(self.failure)
                if abandon is not None:
                    abandon.set()
                stop.set()
                return

    def _budget_spent(self) -> bool:
        return self.max_matches is not None and self.scheduled_this_run >= self.max_matches

    async def _drain(self, abandon: asyncio.Event | None) -> None:
        if not self.tasks:
            return
        if self.remote_wait is not None and self.remote_wait.waiting:  # none can finish before it is back
            n = len(self.tasks)
            self.say(f"stopping while waiting for the referee at {self.remote_wait.remote.addr}: "
                     f"{plural(n, 'match', 'matches')} {', '.join(map(str, sorted(self.tasks)))} "
                     f"{'is' if n == 1 else 'are'} played again when the ladder starts again")
            return
        self.say(f"stopping: {len(self.tasks)} match(es) in progress may finish for {self.spec.drain_ms / 1000:g} s")
        waits = [asyncio.ensure_future(asyncio.wait(list(self.tasks.values())))]
        if abandon is not None:
            waits.append(asyncio.ensure_future(abandon.wait()))
        await asyncio.wait(waits, timeout=self.spec.drain_ms / 1000, return_when=asyncio.FIRST_COMPLETED)
        for w in waits:
            w.cancel()
        left = [m for m, t in self.tasks.items() if not t.done()]
        if left:
            self.say(f"abandoned match(es) {', '.join(map(str, sorted(left)))}: "
                     "they are played again when the ladder starts again")

    async def _stop_unused_persistent(self) -> None:
        """Stop the process of each persistent version that plays no more
        (retired, suspended, replaced) once it is in no running match."""
        busy = self.state.busy()

        def unused(lbl: str) -> bool:
            v = self.state.versions[lbl]
            return lbl not in busy and not (v.state == "active" and self.state.entrants.get(v.name) is v)

        for lbl, p in list(self.persistent.items()):
            if unused(lbl):
                del self.persistent[lbl]
                await p.stop()
                self.say(f"stopped the persistent bot of {lbl} ({self.state.versions[lbl].state})")
        gone = sorted(lbl for lbl in self.remote_persistent if unused(lbl))
        if gone and self.executor is not None:  # its process on each Dask worker that launched it
            self.remote_persistent.difference_update(gone)
            launches = await self.executor.stop_bots(gone)
            for lbl in gone:
                n = sum(1 for w in launches.values() if lbl in w)
                self.say(f"stopped the persistent bot of {lbl} ({self.state.versions[lbl].state}) "
                         f"on {n} Dask worker(s)")

    async def _await_token(self, v: Version, timeout_s: float) -> str:
        """The token of external ``v``, waiting up to ``timeout_s`` for its bot to
        present it; if it does not, a token nobody has (the seat is a no-show)."""
        assert self.ref is not None
        deadline = asyncio.get_running_loop().time() + timeout_s
        while not self._token(v) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.2)
        return self._token(v) or self.ref.new_token(v.label)

    async def _poll_online(self) -> None:
        """Record an ``online``/``offline`` event for each external bot whose connection changed."""
        assert self.ref is not None
        changes = []
        for v in self.state.entrants.values():
            if v.external and v.state == "active":
                tok = self._token(v)
                # on a Dask ladder (or on another referee) an external bot never plays (it could not reach it)
                now = bool(tok) and self.ref.connected(tok) and self.executor is None and self.remote is None
                if now != v.online:
                    changes.append(Event(0, "online" if now else "offline", v.name, data={"label": v.label}))
        if changes:
            await self._commit(changes)
            for e in changes:
                self.say(f"{e.data['label']} {'connected' if e.kind == 'online' else 'disconnected'}")

    async def _play(self, m: Scheduled) -> None:
        assert self.ref is not None
        try:
            vs = [self.state.versions[lbl] for lbl in m.seats]
            t = self.spec.t
            plans = []
            for v in vs if self.executor is None and self.remote is None else []:  # else launched in _play_*
                if v.external:  # a match cut short by the last stop may be played before its bot is back
                    plans.append(SeatPlan(token=await self._await_token(v, t.connect_timeout_ms / 1000)))
                elif v.persistent:
                    pb = self.persistent.get(v.label)
                    if pb is None:
                        pb = self.persistent[v.label] = PersistentBot(self.ref, v, t, self.log_dir, self.sandbox)
                    plans.append(SeatPlan(token=pb.token, process=await pb.ensure()))
                else:
                    plans.append(SeatPlan(command=v.command, limits=v.limits))
            ms = MatchSpec(game=t.game, players=t.players, seed=m.seed, seat_names=list(m.seats), variant=t.variant,
                           params=t.params, decision_ms=t.decision_ms, bank_ms=t.bank_ms,
                           fault_policy=t.fault_policy, max_faults=t.max_faults, match_id=m.match_id, clock=t.clock)
            self.say(f"match {m.sched}: {' / '.join(m.seats)}")
            try:
                with self.running.playing(m.match_id):
                    if self.executor is not None:
                        done = await self._play_on_dask(m, vs, ms)
                    elif self.remote is not None:
                        done = await self._play_remote(vs, ms)
                    else:
                        outcome = await play_match(self.ref, ms, plans, self.log_dir, t.limits,
                                                   t.connect_timeout_ms / 1000, sandbox=self.sandbox,
                                                   base_dir=Path(t.cwd), end_grace_s=t.end_grace_ms / 1000)
                        done = (outcome.status, outcome.to_json(), outcome.log_path, outcome.decisions,
                                outcome.elapsed_s)
            except RefereeGone as e:  # nothing recorded: the match stays scheduled, played on the next start
                self.gone = self.gone or e
                self.say(f"match {m.sched} is played again when the ladder starts again")
                return
            except Exception as e:  # noqa: BLE001 - a harness failure (not a bot's): record it, free the seats
                why = f"the referee failed: {type(e).__name__}: {e}"[:300]
                async with self.lock:
                    await self._commit([Event(0, "abandoned", sched=m.sched, data={"reason": why})])
                    await self._stop_unused_persistent()
                self.say(f"match {m.sched} abandoned: {why}")
                return
            status, result, log_path, decisions, elapsed_s = done
            async with self.lock:
                idx = self.state.finished + 1
                fm = FinishedMatch(idx, m.seed, list(m.seats), status, result, log_path, decisions, elapsed_s)
                row = MatchRow(idx, m.seed, list(m.seats), status, result, log_path)
                susp = self.state.suspensions(m, result)
                events = [Event(0, "finished", sched=m.sched, data={"idx": idx, "status": status}), *susp]
                states = {e.data["label"]: ("suspended", e.data["reason"]) for e in susp}
                await self._commit(events, {idx: row}, match=fm, version_states=states)
                board = ", ".join(f"{lbl} {trueskill_text(self.state.ratings[lbl].mu)}"
                                  f"±{trueskill_text(self.state.ratings[lbl].sigma)}" for lbl in m.seats)
                self.say(f"match {m.sched} finished ({status}): {board}")
                for e in susp:
                    self.say(f"suspended {e.data['label']}: {e.data['reason']}")
                await self._stop_unused_persistent()
        finally:
            self.tasks.pop(m.sched, None)
            self.wake.set()

    async def _record_wait(self, span: tuple[float, float] | None) -> None:
        """Keep in the database that the ladder waits for its referee
        (:attr:`remote_wait`, :meth:`tournaments.store.Store.wait_recorder`)."""
        assert self.store is not None and self.remote is not None
        what = f"the referee at {self.remote.addr}"
        self.waiting = (what, *span) if span is not None else None
        await self.store.wait_recorder(self.tid, self.me, what, self.say)(span)

    async def _play_remote(self, vs: list[Version], ms: MatchSpec) -> tuple:
        """Play ``ms`` on the remote referee (:attr:`remote`), the bots launched
        here; the log is fetched to ``<log_dir>/<match id>.jsonl``. Returns
        (status, result, log path, decisions, seconds). The match has its
        ladder id on that referee too (with a ``-2``, ``-3`` ... suffix when
        the referee has that id already). When the referee goes away, waits
        for it (:attr:`remote_wait`) and plays the match again from the start.
        Raises :class:`~referee.remote.RemoteError` when the referee refuses or
        cannot be reached, :class:`~referee.remote.RefereeGone` when it went
        away and did not come back in time."""
        assert self.remote is not None
        t = self.spec.t
        # a persistent version of an earlier local run is launched for each match here
        seats = [RemoteSeat(command=v.command, limits=v.limits) for v in vs]
        while True:
            try:
                out = await self.remote.play(ms, seats, self.log_dir, t.limits, t.connect_timeout_ms / 1000,
                                             base_dir=Path(t.cwd), own_id=True)
                break
            except RefereeGone as e:  # nothing of the match counts: play it again once the referee is back
                assert self.remote_wait is not None
                await self.remote_wait.back(e, time.monotonic())
        result = dict(out.result, worker="remote")  # as a tournament run --referee records it
        return out.status, result, out.log_path, out.decisions, out.elapsed_s

    async def _play_on_dask(self, m: Scheduled, vs: list[Version], ms: MatchSpec) -> tuple:
        """Play ``m`` as a task on the Dask cluster (a lost worker's task is run
        again elsewhere by the scheduler, with the same job and seed) and keep
        its log here. Returns (status, result, log path, decisions, seconds).
        Raises :class:`~tournaments.executor.ExecutorError` when the cluster
        cannot play it, :class:`~tournaments.store.StorageError` when the log
        cannot be written."""
        assert self.executor is not None
        t = self.spec.t
        seats = [SeatEntry(v.label, v.command, v.persistent, False, "", v.limits) for v in vs]
        self.remote_persistent.update(v.label for v in vs if v.persistent)
        job = MatchJob(self.spec.name, m.sched, ms, seats, t.limits, t.connect_timeout_ms / 1000,
                       sorted({r for v in vs for r in v.resources}), bot_uids=t.bot_uids,
                       isolate_network=t.isolate_network, base_dir=t.cwd, end_grace_s=t.end_grace_ms / 1000)
        fm = await self.executor.play(job)
        result = dict(fm.result, worker=fm.worker)  # which Dask worker played it
        log_path = await asyncio.to_thread(keep_log, fm, self.log_dir, m.match_id)
        return fm.status, result, log_path, fm.decisions, fm.elapsed_s
