"""What the pages of one tournament show, computed once per change of its
results, and the live site's cache of it.

A :class:`Snapshot` holds what needs every bot or every result (the
leaderboard with its batch fit, the seat and role summaries, the
head-to-head of the top bots, the chart of the top bots, a ladder's
entrants), computed by :func:`compute_snapshot` at one *key*: the
tournament's ``results_version`` (bumped by every write of results), its
spec (bots added), for a ladder its latest event (entrants added,
suspended, retired), and when the tournament row was created (a tournament
made again with ``--fresh`` may get the same id and, once it played as
many matches, the same ``results_version``). Everything else a page shows
is a bounded read per request: a page of matches, a bot's faults,
opponents and rating series.

:class:`LiveCache` (``referee web``) keeps one snapshot per tournament. A
request reads the key (O(1) queries) and serves the snapshot it finds when
the key is the same. When the key moved on and the kept snapshot is older
than the refresh interval (a quiet spell), the request computes the new
one itself, with the batch fit the store keeps
(:meth:`tournaments.store.Store.cached_fit`) when it covers the
tournament's bots, even if a few results old: no fit on the request, and
the background then brings the fit up to date. While results arrive (the
kept snapshot is younger than the interval), a
request serves the kept snapshot and ONE background thread per tournament
computes the next one. A tournament never computed before is computed on
the request the same way.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tournaments.batch import CONFIDENCE_RULE
from tournaments.details import store_summaries
from tournaments.ladder_store import LadderStore
from tournaments.live import environment as trueskill_environment
from tournaments.rating import BoardRow, FitSummary, assemble, store_fit, store_totals
from tournaments.spec import TrueSkillParams
from tournaments.store import Store

#: rows per page of every list (leaderboard, matches, a bot's matches and opponents, entrants)
PAGE_ROWS = 100
#: the head-to-head matrix: bots shown by default on the leaderboard, and at most on h2h.html
H2H_K = 10
H2H_MAX_K = 50
#: bots in a rating chart, and points per bot
CHART_BOTS = 10
CHART_POINTS = 200
#: a bot's faults listed on its page (newest first)
FAULTS_SHOWN = 100
#: the fit method of the pages (the leaderboard's default)
FIT_METHOD = "sandwich"
#: what a snapshot keeps of the reads its pages made (charts, a bot's opponents), at most
MEMO_ENTRIES = 128


_SLUG_RE = re.compile(r"[^A-Za-z0-9_.-]")


def slug(name: str) -> str:
    """A file-name-safe form of a bot or match name."""
    s = _SLUG_RE.sub("_", name).lstrip(".") or "_"
    return s[:100]


def unique_slugs(names: list[str]) -> dict[str, str]:
    """name -> slug, distinct ignoring case (a later name gets ``-2``, ``-3``...)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for n in names:
        s = slug(n)
        base, i = s, 2
        while s.lower() in used:
            s, i = f"{base}-{i}", i + 1
        used.add(s.lower())
        out[n] = s
    return out


def is_ladder(spec: dict[str, Any]) -> bool:
    return spec.get("schedule") == "ladder"


#: what a snapshot is computed at: see :func:`snapshot_key`
SnapshotKey = tuple[int, str, int, float]


def snapshot_key(store: Store, t: dict[str, Any]) -> SnapshotKey:
    """What a snapshot of tournament row ``t`` is computed at:
    ``(results_version, digest of the spec, a ladder's latest event or 0,
    the row's created_at)``. O(1) queries."""
    spec_digest = hashlib.sha256(t["spec_json"].encode()).hexdigest()[:16]
    seq = 0
    if is_ladder(json.loads(t["spec_json"])):
        seq = LadderStore(store, create=False).last_seq(int(t["id"]))
    return int(t["results_version"]), spec_digest, seq, float(t["created_at"])


@dataclass
class Snapshot:
    """What the pages of one tournament show that needs every bot or every
    result, computed at ``key`` (see :func:`snapshot_key`).

    ``board``: the leaderboard, best first (:class:`tournaments.rating.BoardRow`);
    ``bots``: the store's bot rows in the order they were added (``id``,
    ``name``, ``command``, ``external``); ``slugs``: bot -> its page's name;
    ``counts``: stored matches per status; ``summaries``: ``seat_summary``
    and ``role_summary`` (:func:`tournaments.details.store_summaries`);
    ``top``: the best :data:`H2H_MAX_K` bots and ``pairs[(a, b)] =
    (a finished ahead of b, behind, tied)`` among them, over the matches they
    played as opponents (a pair that never did is not in it); ``entrants``: a ladder's (``None`` for a tournament);
    ``fit_stale``: the board's fit is older than ``key`` (the kept fit of a
    first computation)."""

    key: SnapshotKey
    t: dict[str, Any]
    spec: dict[str, Any]
    board: list[BoardRow]
    bots: list[dict[str, Any]]
    slugs: dict[str, str]
    counts: dict[str, int]
    summaries: dict[str, Any]
    top: list[str]
    pairs: dict[tuple[str, str], tuple[int, int, int]]
    entrants: list[dict[str, Any]] | None
    fit_stale: bool = False
    seconds: float = 0.0
    _memo: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    _memo_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def name(self) -> str:
        return str(self.t["name"])

    @property
    def tid(self) -> int:
        return int(self.t["id"])

    @property
    def ladder(self) -> bool:
        return is_ladder(self.spec)

    @property
    def log_dir(self) -> Path:
        return Path(self.spec.get("log_dir", "runs/logs")) / self.name

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def rank(self, bot: str) -> int | None:
        """1-based rank on the board (``None``: not on it). O(1) after the first call."""
        ranks = self.__dict__.get("_ranks")
        if ranks is None:
            ranks = self.__dict__["_ranks"] = {r.bot: i for i, r in enumerate(self.board, 1)}
        return ranks.get(bot)

    def bot_named(self, name: str) -> dict[str, Any] | None:
        rows = self.__dict__.get("_by_name")
        if rows is None:
            rows = self.__dict__["_by_name"] = {b["name"]: b for b in self.bots}
        return rows.get(name)

    def bot_by_slug(self, s: str) -> str | None:
        names = self.__dict__.get("_by_slug")
        if names is None:
            names = self.__dict__["_by_slug"] = {v: k for k, v in self.slugs.items()}
        return names.get(s)

    def memo(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        """``compute()``, read once per snapshot and kept with it under ``key``
        (at most :data:`MEMO_ENTRIES` kept: a page's chart, a bot's opponents).
        Thread-safe; two requests at once may both compute it."""
        with self._memo_lock:
            if key in self._memo:
                return self._memo[key]
        value = compute()
        with self._memo_lock:
            if len(self._memo) >= MEMO_ENTRIES:
                self._memo.pop(next(iter(self._memo)))  # the oldest
            self._memo[key] = value
        return value

    def chart(self, store: Store, bots: list[str]) -> dict[str, list[tuple[float, float, float]]]:
        """The rating series of ``bots`` (at most :data:`CHART_POINTS` each;
        against finishing time for a ladder), read once per snapshot (see
        :meth:`memo`). O(rating rows of those bots) the first time."""
        return self.memo(("chart", *bots),
                         lambda: store.rating_series(self.tid, list(bots), CHART_POINTS, by_time=self.ladder))

    def pairs_of(self, store: Store, bot_id: int) -> list[tuple[int, ...]]:
        """One bot's record against each other bot it met, from its side:
        ``(other bot id, matches as opponents, it finished ahead, behind,
        tied, matches as partners, won, lost, drawn)``, read once per snapshot
        (see :meth:`memo`; :meth:`tournaments.store.Store.pair_totals`).
        O(the tournament's pairs) the first time; O(bots) memory."""
        def read() -> list[tuple[int, ...]]:
            out = []
            for r in store.pair_totals(self.tid, bot_id=bot_id):
                mine_a = r["bot_a"] == bot_id
                ahead, behind = (r["a_ahead"], r["b_ahead"]) if mine_a else (r["b_ahead"], r["a_ahead"])
                out.append(tuple(int(v) for v in (r["bot_b"] if mine_a else r["bot_a"], r["matches"], ahead, behind,
                                                  r["tied"], r["partners"], r["partners_won"], r["partners_lost"],
                                                  r["partners_drawn"])))
            return out

        return self.memo(("pairs", bot_id), read)


def compute_snapshot(store: Store, t: dict[str, Any], kept_fit: bool = False) -> Snapshot:
    """The :class:`Snapshot` of tournament row ``t`` (read just before). The
    board's batch fit is the one the store keeps for the current results, else
    fitted now and kept (:func:`tournaments.rating.store_fit`); with
    ``kept_fit``, any fit the store keeps that covers the same bots is used
    even if older or made by another :data:`tournaments.batch.CONFIDENCE_RULE`
    (``fit_stale``). Cost: the fit when not kept (O(rated
    matches)); otherwise O(bots × (seats + roles) + top pairs) and, for a
    ladder, O(its events). Raises :class:`tournaments.store.StorageError`
    when the database fails."""
    t0 = time.perf_counter()
    key = snapshot_key(store, t)
    tid = int(t["id"])
    spec = json.loads(t["spec_json"])
    bots = [{k: b[k] for k in ("id", "name", "command", "external")} for b in store.bot_table(tid)]
    names = [b["name"] for b in bots]
    fit, stale = None, False
    if kept_fit:
        kept = store.cached_fit(tid, FIT_METHOD)
        if kept is not None and sorted(kept[1]["bots"]) == sorted(names):
            fit, stale = FitSummary.from_json(kept[1]), kept[0] != key[0] or kept[1].get("rule") != CONFIDENCE_RULE
    if fit is None:
        fit = store_fit(store, t, FIT_METHOD)
    p = TrueSkillParams(**spec.get("trueskill", {}))
    board = assemble(fit, store_totals(store, tid), trueskill_environment(p).create_rating(),
                     float(spec.get("confidence", 0.95)))
    top = [r.bot for r in board[:H2H_MAX_K]]
    ids = {b["name"]: b["id"] for b in bots}
    name_of = {b["id"]: b["name"] for b in bots}
    pairs: dict[tuple[str, str], tuple[int, int, int]] = {}
    for r in store.pair_totals(tid, among=[ids[b] for b in top if b in ids]):
        a, b = name_of[r["bot_a"]], name_of[r["bot_b"]]
        if not r["matches"]:  # partners only
            continue
        ahead, behind, tied = int(r["a_ahead"]), int(r["b_ahead"]), int(r["tied"])
        pairs[(a, b)] = (ahead, behind, tied)
        pairs[(b, a)] = (behind, ahead, tied)
    entrants = None
    if is_ladder(spec):
        entrants = LadderStore(store, create=False).entrants(tid)
    snap = Snapshot(key, dict(t), spec, board, bots, unique_slugs(names), store.status_counts(tid),
                    store_summaries(store, t, spec), top, pairs, entrants, fit_stale=stale)
    snap.chart(store, [r.bot for r in board[:CHART_BOTS]])  # the first page's chart, read with the rest
    snap.seconds = time.perf_counter() - t0
    return snap


@dataclass
class _Entry:
    snap: Snapshot | None = None
    taken_at: float = 0.0  # LiveCache.clock() when the key of ``snap`` was read
    first: threading.Lock = field(default_factory=threading.Lock)  # held while a request computes a snapshot
    refreshing: bool = False
    last_end: float = 0.0  # LiveCache.clock() when the last background refresh ended
    last_seconds: float = 0.0  # how long it took
    thread: threading.Thread | None = None


class LiveCache:
    """One :class:`Snapshot` per tournament for the live site (see the module
    docstring). ``min_gap_s``: the refresh interval is this, or as long as the
    last background refresh took if longer: a background refresh starts no
    sooner than that after the last one ended (a tournament recording
    matches all the time refreshes back to back at most half the time), and
    a request computes the snapshot itself only when the one kept is older
    than that. Thread-safe. ``refreshes`` counts the snapshots computed
    (on requests and in the background), per tournament id. ``clock``: the
    monotonic clock in seconds (tests may pass their own)."""

    def __init__(self, store: Store, min_gap_s: float = 1.0, clock: Callable[[], float] = time.monotonic):
        self.store = store
        self.min_gap_s = min_gap_s
        self.clock = clock
        self.refreshes: dict[int, int] = {}
        self._lock = threading.Lock()
        self._entries: dict[int, _Entry] = {}
        self._closing = threading.Event()

    def peek(self, tid: int) -> Snapshot | None:
        """The snapshot kept for tournament ``tid``, if any (no computation)."""
        e = self._entries.get(tid)
        return e.snap if e is not None else None

    def refreshing(self, tid: int) -> bool:
        """Whether a background refresh of tournament ``tid`` is running (or waiting to start)."""
        e = self._entries.get(tid)
        return e is not None and e.refreshing

    def interval(self, tid: int) -> float:
        """The refresh interval of tournament ``tid`` now, in seconds (see the class docstring)."""
        e = self._entries.get(tid)
        return max(self.min_gap_s, e.last_seconds if e is not None else 0.0)

    def snapshot(self, t: dict[str, Any]) -> Snapshot:
        """The snapshot to serve for tournament row ``t`` (read by this
        request). O(1) queries when the one kept is current, or younger than
        the refresh interval (a refresh is then started in the background);
        otherwise (the first time, or the first request after a quiet spell)
        computed here, with the fit the store keeps (see
        :func:`compute_snapshot` with ``kept_fit``; a background refresh then
        brings the fit up to date when it was older). At most one request per
        interval computes. Raises
        :class:`tournaments.store.StorageError` when the database fails."""
        tid = int(t["id"])
        with self._lock:
            e = self._entries.setdefault(tid, _Entry())
        key = snapshot_key(self.store, t)
        if e.snap is None or e.snap.key != key:
            with e.first:  # concurrent requests: one computes, the others wait for it and serve its snapshot
                snap = e.snap
                if snap is None or (snap.key != key and self.clock() - e.taken_at >= self.interval(tid)):
                    taken = self.clock()
                    self._keep(e, compute_snapshot(self.store, t, kept_fit=True), taken)
                    self._count(tid)
        snap = e.snap
        assert snap is not None
        if snap.fit_stale or snap.key != key:
            self._refresh_later(tid, str(t["name"]), e)
        return snap

    def _keep(self, e: _Entry, snap: Snapshot, taken_at: float) -> None:
        """Keep ``snap`` (its key read at ``taken_at``) unless a newer one was kept meanwhile."""
        with self._lock:
            if e.snap is None or taken_at >= e.taken_at:
                e.snap, e.taken_at = snap, taken_at

    def _count(self, tid: int) -> None:
        with self._lock:
            self.refreshes[tid] = self.refreshes.get(tid, 0) + 1

    def _refresh_later(self, tid: int, name: str, e: _Entry) -> None:
        with self._lock:
            if e.refreshing or self._closing.is_set():
                return  # at most one refresh per tournament at a time
            e.refreshing = True
            e.thread = threading.Thread(target=self._refresh, args=(tid, name, e), name=f"referee-web-refresh-{tid}",
                                        daemon=True)
        e.thread.start()

    def _refresh(self, tid: int, name: str, e: _Entry) -> None:
        started = self.clock()
        try:
            wait = e.last_end + max(self.min_gap_s, e.last_seconds) - self.clock()
            if wait > 0 and self._closing.wait(wait):
                return
            started = self.clock()
            t = self.store.tournament(name)
            if t is None or int(t["id"]) != tid:
                return  # deleted (or made again under a new id: its own entry)
            self._keep(e, compute_snapshot(self.store, t), started)
            self._count(tid)
        except Exception as ex:  # noqa: BLE001 - the pages keep the previous snapshot; say why, retry later
            if not self._closing.is_set():
                print(f"referee web: cannot refresh tournament {name}: {type(ex).__name__}: {ex}", file=sys.stderr,
                      flush=True)
            e.last_seconds = max(e.last_seconds, 10.0)
        else:
            e.last_seconds = self.clock() - started
        finally:
            e.last_end = self.clock()
            with self._lock:
                e.refreshing = False

    def close(self, timeout_s: float = 60.0) -> None:
        """Stop starting refreshes and wait (up to ``timeout_s``) for those running."""
        self._closing.set()
        with self._lock:
            threads = [e.thread for e in self._entries.values() if e.thread is not None]
        deadline = time.monotonic() + timeout_s
        for th in threads:
            th.join(max(0.0, deadline - time.monotonic()))
