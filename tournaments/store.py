"""Results store: SQLite by default, PostgreSQL (``postgresql://...``)
without changing callers, through SQLAlchemy Core.

The tables are in :mod:`tournaments.schema` (version
:data:`~tournaments.schema.SCHEMA_VERSION`, created and migrated by
:meth:`Store.migrate`): the matches as played, and totals kept up to date
as matches are stored (per bot and seat, per pair of bots, per fault kind,
per role, live TrueSkill), so that the leaderboard, the status and every
page read totals and pages of matches, never every match.

Writing: every finished match goes through :func:`tournaments.record.record_matches`
(:meth:`Store.record_match` and :meth:`Store.record_matches` here, the
ladder's commit, ``referee results import``), ONE transaction per batch
(match rows, seat results, faults, totals, live TrueSkill), so a run
killed at any moment leaves each match either absent or complete with its
totals: that is what makes ``--resume`` exact.

Backends: SQLite (a file path) and PostgreSQL (``postgresql://...``, driver
psycopg 3 from the ``postgres`` extra) are both tested. Every failure of the
database itself (missing, corrupt, full disk, unreachable) is raised as
:class:`StorageError` naming the database (password masked) and the problem.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import socket
import sqlite3
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Iterator, TypeVar

import numpy as np
from sqlalchemy import create_engine, delete, event, func, insert, select, text, union_all, update
from sqlalchemy import inspect as sa_inspect
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Engine

from referee.outcomes import MatchStatus
from tournaments import record
from tournaments.batch import Comparisons
from tournaments.dburl import mask_url, sqlite_path, url_for  # noqa: F401  (re-exported)
from tournaments.record import MatchRecord
from tournaments.schema import (
    ADDED_COLUMNS,
    INDEXES,
    SCHEMA_VERSION,
    MatchRow,
    bot_seat_stats,
    bots,
    fault_stats,
    faults,
    fit_cache,
    leases,
    matches,
    metadata,
    pair_stats,
    rating_history,
    role_stats,
    schema_info,
    seat_results,
    tournaments,
    waits,
)

#: a lease whose heartbeat is older than this is expired: another driver may take the tournament over
LEASE_TTL_S = 30.0
#: how often a running driver renews its lease
LEASE_HEARTBEAT_S = 5.0
#: PostgreSQL advisory lock held while tables are created (also by tournaments.ladder_store)
SCHEMA_LOCK_KEY = 7219001
#: every table that holds rows of one tournament, children first (deleting a tournament)
PER_TOURNAMENT = (bot_seat_stats, pair_stats, fault_stats, role_stats, fit_cache, rating_history, waits, leases)

class StorageError(RuntimeError):
    """The results database cannot be used: the message names it (password
    masked) and says what is wrong and what to do. Nothing already committed
    is lost by the failure that raised it."""


class LeaseHeld(RuntimeError):
    """Another live driver holds the tournament's lease; ``lease`` is its row."""

    def __init__(self, lease: dict[str, Any], ttl_s: float):
        self.lease = lease
        age = max(0.0, time.time() - lease["heartbeat_at"])
        super().__init__(
            f"is being run by pid {lease['pid']} on host {lease['host']} (lease heartbeat {age:.0f} s ago); "
            f"wait for that run to finish, or if it is gone for good, retry once its lease expires "
            f"(in {max(0.0, ttl_s - age):.0f} s)")


@dataclass(frozen=True)
class LeaseHolder:
    """Who holds a lease: this process, identified by host, pid and a random id."""

    holder: str
    host: str
    pid: int

    @classmethod
    def me(cls) -> "LeaseHolder":
        return cls(uuid.uuid4().hex, socket.gethostname(), os.getpid())


def lease_is_live(lease: dict[str, Any], now: float | None = None, ttl_s: float = LEASE_TTL_S) -> bool:
    """A lease counts while its heartbeat is fresh, except that a holder on
    this host whose process no longer exists (killed, crashed) holds nothing."""
    now = time.time() if now is None else now
    if now - lease["heartbeat_at"] > ttl_s:
        return False
    if lease["host"] == socket.gethostname() and lease["pid"] != os.getpid():
        try:
            os.kill(int(lease["pid"]), 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # exists, another user's
            return True
    return True


def creation_problem(file: Path) -> str | None:
    """Why a missing SQLite file ``file`` could not be created, found without
    creating anything: the nearest existing path above it is not a directory
    (``notes.txt is not a directory``), or this process may not create files
    in that directory (no permission, a read-only file system). ``None``: as
    far as can be told beforehand, it can be created (with the directories it
    needs)."""
    above = file.parent
    try:
        while not above.exists():  # False also below a regular file (ENOTDIR)
            above = above.parent
    except OSError as e:  # a directory above it cannot be looked into
        return (e.strerror or str(e)).lower() + (f" ({e.filename})" if e.filename else "")
    if not above.is_dir():
        return f"{above} is not a directory"
    if not os.access(above, os.W_OK | os.X_OK):
        return f"no permission to create files in {above}"
    return None


_F = TypeVar("_F", bound=Callable[..., Any])


#: how long (milliseconds) an SQLite connection waits for another one's lock
SQLITE_BUSY_TIMEOUT_MS = 60_000


def _switch_to_wal(cur: Any) -> None:
    """Put the SQLite database in WAL mode (readers never wait for the writer).

    A new file starts in rollback mode; switching it needs an exclusive lock,
    and while another connection holds the write lock (another process
    creating the same database at that moment) SQLite answers "database is
    locked" at once, without waiting on the busy timeout, because waiting
    there could deadlock. So the switch is retried, every 20 ms, for at most
    :data:`SQLITE_BUSY_TIMEOUT_MS`; the last failure is raised. Once the file
    is in WAL mode the pragma takes no lock."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def _guarded(fn: _F) -> _F:
    """Turn the database's own failures into :class:`StorageError` (see :meth:`Store.explain`)."""
    @functools.wraps(fn)
    def wrapper(self: "Store", *a: Any, **kw: Any) -> Any:
        try:
            return fn(self, *a, **kw)
        except sa_exc.IntegrityError:
            raise
        except (sa_exc.OperationalError, sa_exc.DatabaseError, sa_exc.InterfaceError) as e:
            raise StorageError(self.explain(e)) from None
    return wrapper  # type: ignore[return-value]


class Store:
    """Results database. ``database``: a file path (SQLite) or an SQLAlchemy URL
    (``postgresql://user:password@host/db``). ``create``: make a missing
    SQLite file (and its directory); reading commands pass ``False``.

    Raises :class:`StorageError` when the database cannot be opened or is
    not a results database."""

    def __init__(self, database: str, create: bool = True):
        self.url = url_for(database)
        self.display_url = mask_url(database if "://" in database else self.url)  # as the user wrote it
        self.file = sqlite_path(self.url)
        self._file_id: tuple[int, int] | None = None
        if self.file is not None:
            if not self.file.exists():
                if not create:
                    raise StorageError(f"no results database at {self.file}")
                problem = creation_problem(self.file)
                if problem is not None:
                    raise StorageError(f"cannot create the results database {self.file}: {problem}")
                try:
                    self.file.parent.mkdir(parents=True, exist_ok=True)
                except OSError as e:
                    raise StorageError(f"cannot create the results database {self.file}: cannot create its "
                                       f"directory ({(e.strerror or str(e)).lower()})") from None
        try:
            self.engine: Engine = create_engine(
                self.url, future=True,
                connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000} if self.file is not None else {"connect_timeout": 10})
        except ModuleNotFoundError as e:
            raise StorageError(f"{self.display_url}: the database driver is not installed ({e.name}); "
                               "for PostgreSQL, the postgres extra: pip install -e '.[postgres]' in a checkout, "
                               "pip install \"<the .whl file>[postgres]\" with the wheel") from None
        except sa_exc.ArgumentError as e:
            raise StorageError(f"{self.display_url}: not a database path or URL ({e})") from None
        if self.engine.dialect.name == "sqlite":
            @event.listens_for(self.engine, "connect")
            def _pragmas(conn: Any, _rec: Any) -> None:  # durable and concurrent-reader friendly
                conn.isolation_level = None  # transactions are begun below, not by pysqlite
                cur = conn.cursor()
                cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
                _switch_to_wal(cur)
                cur.execute("PRAGMA synchronous=FULL")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.close()

            @event.listens_for(self.engine, "begin")
            def _begin(conn: Connection) -> None:
                if conn.get_execution_options().get("isolation_level") == "AUTOCOMMIT":
                    return  # asked for no transaction (VACUUM cannot run in one)
                # writers take the write lock up front: concurrent writers then queue on
                # the busy timeout instead of failing to upgrade a read transaction
                conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("write")
                                     else "BEGIN")
        self.migrate()
        if self.file is not None:
            st = self.file.stat()
            self._file_id = (st.st_dev, st.st_ino)

    def explain(self, e: BaseException) -> str:
        """A one-line description of a database failure, naming the database."""
        orig = getattr(e, "orig", e)
        msg = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
        low = msg.lower()
        where = f"results database {self.file}" if self.file is not None else f"results database {self.display_url}"
        if "disk is full" in low or "no space left" in low:
            return f"{where}: the disk is full ({msg}); free space, then continue with --resume"
        if "not a database" in low or "malformed" in low or "corrupt" in low:
            return (f"{where} is corrupt ({msg}); move it away or restore a backup, "
                    "then run again (with --resume if restored)")
        if "unable to open" in low or "readonly" in low or "read-only" in low:
            return f"{where} cannot be written ({msg}); check the file, its directory and permissions"
        return f"{where}: {msg}"

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A write transaction (SQLite: BEGIN IMMEDIATE)."""
        with self.engine.connect() as c:
            c.execution_options(write=True)
            with c.begin():
                yield c

    @_guarded
    def migrate(self) -> None:
        """Create missing tables and bring the schema to :data:`SCHEMA_VERSION`,
        under a lock so that several processes opening an empty database at
        once all succeed. A database from an older version gets the columns and
        indexes it lacks, and each of its tournaments gets its totals rebuilt
        from its stored matches (:func:`tournaments.record.rebuild`, once).
        Raises :class:`StorageError` for a database written by a newer version
        or one that is not a results database."""
        with self._write() as c:
            if c.dialect.name == "postgresql":
                c.execute(text(f"SELECT pg_advisory_xact_lock({SCHEMA_LOCK_KEY})"))  # held until commit
            metadata.create_all(c)
            v = c.execute(select(schema_info.c.version)).scalar()
            if v is None:
                c.execute(insert(schema_info).values(version=SCHEMA_VERSION))
            elif v > SCHEMA_VERSION:
                raise StorageError(f"{self.display_url}: database schema v{v} is newer than this referee "
                                   f"(v{SCHEMA_VERSION}); upgrade the referee")
            elif v < SCHEMA_VERSION:  # v2 added the leases table (created above); v3 the totals
                have = {t: {col["name"] for col in sa_inspect(c).get_columns(t)} for t in ADDED_COLUMNS}
                for table, cols in ADDED_COLUMNS.items():
                    for name, ddl in cols:
                        if name not in have[table]:
                            c.execute(text(f"ALTER TABLE {table} ADD COLUMN {name} {ddl}"))
                c.execute(update(schema_info).values(version=SCHEMA_VERSION))
            for ix in INDEXES:
                ix.create(c, checkfirst=True)
            for tid in c.execute(select(tournaments.c.id).where(tournaments.c.totals_version < SCHEMA_VERSION)
                                 ).scalars().all():
                record.rebuild(c, tid)

    def check(self) -> None:
        """Raise :class:`StorageError` if the SQLite file was deleted or replaced
        since it was opened (writes would go to a file nobody can see)."""
        if self.file is None or self._file_id is None:
            return
        try:
            st = self.file.stat()
        except FileNotFoundError:
            raise StorageError(f"results database {self.file} was deleted while the tournament ran; "
                               "restore it and continue with --resume, or start over with --fresh") from None
        if (st.st_dev, st.st_ino) != self._file_id:
            raise StorageError(f"results database {self.file} was replaced by another file while the tournament "
                               "ran; continue with --resume (on the file now there) or start over with --fresh")

    def integrity_problem(self) -> str | None:
        """What is wrong with the SQLite file as it is on disk (``PRAGMA
        quick_check`` on a fresh connection, so that no page this process
        holds in its cache hides a page corrupted on disk; O(size of the
        file)): its first problems, or ``None`` if the file is sound.
        ``None`` for PostgreSQL (the server checks its own pages)."""
        if self.file is None:
            return None
        try:
            con = sqlite3.connect(str(self.file), timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)
            try:
                rows = con.execute("PRAGMA quick_check(10)").fetchall()
            finally:
                con.close()
        except sqlite3.Error as e:
            return str(e).strip() or type(e).__name__
        problems = [str(r[0]) for r in rows if r and r[0] != "ok"]
        return "; ".join(problems[:3]) or None

    def readable_matches(self, tid: int) -> tuple[list[MatchRecord], int]:
        """Every match row of the tournament that can still be read from the
        SQLite file on disk (a fresh connection; row by row when the table
        cannot be read whole): ``(records, rows that could not be read)``,
        records in index order. For a damaged database (:meth:`integrity_problem`);
        never raises for the damage itself (an unreadable table gives ``([], 0)``)."""
        cols = "idx, seed, seats_json, status, result_json, log_path, decisions, elapsed_s, finished_at"
        out: list[MatchRecord] = []
        lost = 0

        def record_of(r: tuple) -> MatchRecord:
            return MatchRecord(int(r[0]), int(r[1]), json.loads(r[2]), MatchStatus(r[3]), json.loads(r[4]), r[5],
                               int(r[6] or 0), float(r[7] or 0.0), r[8])

        try:
            con = sqlite3.connect(str(self.file), timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error:
            return [], 0
        try:
            try:
                rows = con.execute(f"SELECT {cols} FROM matches WHERE tournament_id = ?", (tid,)).fetchall()
                for r in rows:
                    try:
                        out.append(record_of(r))
                    except (ValueError, TypeError):
                        lost += 1
            except sqlite3.Error:  # a page of the table is damaged: every row the table still has, one by one
                out, lost = [], 0
                try:
                    top = int(con.execute("SELECT max(id) FROM matches").fetchone()[0] or 0)
                except sqlite3.Error:
                    top = 0
                for rowid in range(1, top + 1):
                    try:
                        r = con.execute(f"SELECT tournament_id, {cols} FROM matches WHERE id = ?",
                                        (rowid,)).fetchone()
                    except sqlite3.Error:
                        lost += 1
                        continue
                    if r is None or r[0] != tid:
                        continue
                    try:
                        out.append(record_of(r[1:]))
                    except (ValueError, TypeError):
                        lost += 1
        finally:
            con.close()
        out.sort(key=lambda m: m.idx)
        return out, lost

    def close(self) -> None:
        self.engine.dispose()

    # -- tournaments ---------------------------------------------------------------
    @_guarded
    def tournament(self, name: str) -> dict[str, Any] | None:
        with self.engine.connect() as c:
            row = c.execute(select(tournaments).where(tournaments.c.name == name)).mappings().first()
            return dict(row) if row else None

    @_guarded
    def latest_tournament(self) -> dict[str, Any] | None:
        with self.engine.connect() as c:
            row = c.execute(select(tournaments).order_by(tournaments.c.created_at.desc())).mappings().first()
            return dict(row) if row else None

    @_guarded
    def list_tournaments(self) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(select(tournaments).order_by(tournaments.c.created_at)).mappings()]

    def create_tournament(self, name: str, game: str, spec_json: dict[str, Any], fingerprint: str,
                          total: int, bot_rows: Iterable[tuple[str, str, bool]],
                          lease_holder: LeaseHolder | None = None) -> int:
        """Create a tournament (and, with ``lease_holder``, its lease in the same
        transaction). Raises ``sqlalchemy.exc.IntegrityError`` when a tournament
        of that name was created meanwhile (by another driver)."""
        try:
            with self._write() as c:
                now = time.time()
                tid = c.execute(insert(tournaments).values(
                    name=name, game=game, spec_json=json.dumps(spec_json, sort_keys=True), fingerprint=fingerprint,
                    status="running", total_matches=total, created_at=now,
                    totals_version=SCHEMA_VERSION)).inserted_primary_key[0]
                for bname, cmd, ext in bot_rows:
                    c.execute(insert(bots).values(tournament_id=tid, name=bname, command=cmd, external=ext))
                if lease_holder is not None:
                    c.execute(insert(leases).values(tournament_id=tid, holder=lease_holder.holder,
                                                    host=lease_holder.host, pid=lease_holder.pid,
                                                    acquired_at=now, heartbeat_at=now))
                return int(tid)
        except sa_exc.IntegrityError:
            raise
        except (sa_exc.OperationalError, sa_exc.DatabaseError, sa_exc.InterfaceError) as e:
            raise StorageError(self.explain(e)) from None

    @_guarded
    def delete_tournament(self, name: str, me: LeaseHolder | None = None) -> None:
        """Delete a tournament and everything recorded for it. Raises
        :class:`LeaseHeld` (deleting nothing) while another driver runs it."""
        with self._write() as c:
            t = c.execute(select(tournaments.c.id).where(tournaments.c.name == name)).first()
            if t is None:
                return
            tid = t[0]
            lease = c.execute(select(leases).where(leases.c.tournament_id == tid)).mappings().first()
            if lease is not None and (me is None or lease["holder"] != me.holder) and lease_is_live(dict(lease)):
                raise LeaseHeld(dict(lease), LEASE_TTL_S)
            mids = select(matches.c.id).where(matches.c.tournament_id == tid)
            c.execute(delete(seat_results).where(seat_results.c.match_id.in_(mids)))
            c.execute(delete(faults).where(faults.c.match_id.in_(mids)))
            c.execute(delete(matches).where(matches.c.tournament_id == tid))
            for table in PER_TOURNAMENT:
                c.execute(delete(table).where(table.c.tournament_id == tid))
            c.execute(delete(bots).where(bots.c.tournament_id == tid))
            c.execute(delete(tournaments).where(tournaments.c.id == tid))

    # -- leases --------------------------------------------------------------------------
    @_guarded
    def lease(self, tid: int) -> dict[str, Any] | None:
        """The tournament's lease row (holder, host, pid, acquired_at, heartbeat_at; unix seconds), if any."""
        with self.engine.connect() as c:
            row = c.execute(select(leases).where(leases.c.tournament_id == tid)).mappings().first()
            return dict(row) if row else None

    @_guarded
    def acquire_lease(self, tid: int, me: LeaseHolder, ttl_s: float = LEASE_TTL_S) -> dict[str, Any] | None:
        """Take the tournament's lease for ``me``. Returns the expired lease it
        took over (``None`` if there was none). Raises :class:`LeaseHeld` when a
        live driver holds it (see :func:`lease_is_live`)."""
        now = time.time()
        try:
            with self._write() as c:
                q = select(leases).where(leases.c.tournament_id == tid)
                if c.dialect.name == "postgresql":
                    q = q.with_for_update()
                row = c.execute(q).mappings().first()
                mine = dict(tournament_id=tid, holder=me.holder, host=me.host, pid=me.pid, acquired_at=now,
                            heartbeat_at=now)
                if row is None:
                    c.execute(insert(leases).values(**mine))
                    return None
                old = dict(row)
                if old["holder"] == me.holder:
                    c.execute(update(leases).where(leases.c.tournament_id == tid).values(heartbeat_at=now))
                    return None
                if lease_is_live(old, now, ttl_s):
                    raise LeaseHeld(old, ttl_s)
                c.execute(update(leases).where((leases.c.tournament_id == tid) & (leases.c.holder == old["holder"]))
                          .values(**{k: v for k, v in mine.items() if k != "tournament_id"}))
                return old
        except sa_exc.IntegrityError:  # another driver inserted its lease at the same moment
            held = self.lease(tid)
            if held is None:
                raise
            raise LeaseHeld(held, ttl_s) from None

    @_guarded
    def heartbeat(self, tid: int, me: LeaseHolder) -> bool:
        """Renew ``me``'s lease; ``False`` if it is no longer ours (taken over after expiry)."""
        with self._write() as c:
            r = c.execute(update(leases).where((leases.c.tournament_id == tid) & (leases.c.holder == me.holder))
                          .values(heartbeat_at=time.time()))
            return r.rowcount == 1

    @_guarded
    def release_lease(self, tid: int, me: LeaseHolder) -> None:
        """Release ``me``'s lease of the tournament (and end any wait of ``me``'s: :meth:`set_wait`)."""
        with self._write() as c:
            c.execute(delete(waits).where((waits.c.tournament_id == tid) & (waits.c.holder == me.holder)))
            c.execute(delete(leases).where((leases.c.tournament_id == tid) & (leases.c.holder == me.holder)))

    @_guarded
    def set_wait(self, tid: int, me: LeaseHolder, what: str, since: float, until: float) -> None:
        """Record that ``me``, the holder of the tournament's lease, waits for
        ``what`` (``the referee at HOST:PORT``) since ``since``, giving up at
        ``until`` (unix seconds); replaces any earlier wait of the tournament."""
        with self._write() as c:
            c.execute(delete(waits).where(waits.c.tournament_id == tid))
            c.execute(insert(waits).values(tournament_id=tid, holder=me.holder, what=what, since=since, until=until))

    @_guarded
    def end_wait(self, tid: int, me: LeaseHolder) -> None:
        """``me`` waits no more (:meth:`set_wait`)."""
        with self._write() as c:
            c.execute(delete(waits).where((waits.c.tournament_id == tid) & (waits.c.holder == me.holder)))

    def wait_recorder(self, tid: int, me: LeaseHolder, what: str,
                      say: Callable[[str], None]) -> Callable[[tuple[float, float] | None], Awaitable[None]]:
        """The ``record`` hook of a :class:`referee.remote.RefereeWait` for the
        driver ``me`` of tournament ``tid``: a wait for ``what`` (``the
        referee at HOST:PORT``) is kept with :meth:`set_wait` while it lasts
        and removed with :meth:`end_wait`, so that ``tournament status`` and
        ``ladder status`` show it. A database that fails here is said through
        ``say`` and the wait goes on."""
        async def record(span: tuple[float, float] | None) -> None:
            try:
                if span is None:
                    await asyncio.to_thread(self.end_wait, tid, me)
                else:
                    await asyncio.to_thread(self.set_wait, tid, me, what, *span)
            except StorageError as e:
                say(f"cannot record the wait for the referee in the database ({e})")

        return record

    @_guarded
    def wait(self, tid: int, lease: dict[str, Any] | None) -> dict[str, Any] | None:
        """What the holder of the tournament's live ``lease`` (from
        :meth:`run_state`) waits for now: ``{"what", "since", "until"}`` (unix
        seconds); ``None`` when it waits for nothing, or without a live lease
        (a wait left by a killed process is no one's)."""
        if lease is None:
            return None
        with self.engine.connect() as c:
            row = c.execute(select(waits.c.what, waits.c.since, waits.c.until).where(
                (waits.c.tournament_id == tid) & (waits.c.holder == lease["holder"]))).mappings().first()
            return dict(row) if row else None

    def run_state(self, t: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """``(state, live lease or None)``: ``complete``; ``running`` while a
        live driver holds the lease; ``stopped`` for a ladder stopped on
        purpose; otherwise ``interrupted`` (the run was stopped, killed or
        crashed before the last match)."""
        if t["status"] == "complete":
            return "complete", None
        lease = self.lease(t["id"])
        if lease is not None and lease_is_live(lease):
            return "running", lease
        if t["status"] == "stopped":  # a ladder stopped on purpose (Ctrl-C, SIGTERM, --max-matches)
            return "stopped", None
        return "interrupted", None

    @_guarded
    def set_tournament_status(self, tid: int, status: str) -> None:
        with self._write() as c:
            c.execute(update(tournaments).where(tournaments.c.id == tid).values(
                status=status, finished_at=time.time() if status == "complete" else None))

    @_guarded
    def set_total_matches(self, tid: int, total: int) -> None:
        """Record how many matches the schedule holds (grows with an adaptive schedule)."""
        with self._write() as c:
            c.execute(update(tournaments).where(tournaments.c.id == tid).values(total_matches=total))

    # -- matches -----------------------------------------------------------------------
    @_guarded
    def finished_indices(self, tid: int) -> set[int]:
        with self.engine.connect() as c:
            return set(c.execute(select(matches.c.idx).where(matches.c.tournament_id == tid)).scalars())

    def record_match(self, tid: int, idx: int, seed: int, seats: list[str], status: MatchStatus, result: dict[str, Any],
                     log_path: str | None, decisions: int, elapsed_s: float) -> None:
        """Store one finished match (see :meth:`record_matches`)."""
        self.record_matches(tid, [MatchRecord(idx, seed, seats, status, result, log_path, decisions, elapsed_s)])

    @_guarded
    def record_matches(self, tid: int, records: list[MatchRecord], live: str = "in_order") -> int:
        """Store finished matches atomically with their totals and live TrueSkill
        (:func:`tournaments.record.record_matches`; ``live`` as there).
        Idempotent: a match already stored under its index is skipped, so a
        match is never counted twice. Returns how many were new. Raises
        :class:`StorageError` (writing nothing) if the database is gone or
        full, :class:`tournaments.record.UnknownBot` for a bot the tournament lacks."""
        self.check()
        with self._write() as c:
            return record.record_matches(c, tid, records, live)

    @_guarded
    def add_bots(self, tid: int, names: Iterable[str]) -> list[str]:
        """Add the bots of ``names`` the tournament does not have yet (no
        command, ``external``: known by their results only) to its ``bots``
        and to its stored spec. Returns the names added."""
        with self._write() as c:
            have = set(c.execute(select(bots.c.name).where(bots.c.tournament_id == tid)).scalars())
            new = [n for n in dict.fromkeys(names) if n not in have]
            if not new:
                return []
            c.execute(insert(bots), [{"tournament_id": tid, "name": n, "command": "", "external": True} for n in new])
            spec = json.loads(c.execute(select(tournaments.c.spec_json).where(tournaments.c.id == tid)).scalar_one())
            spec.setdefault("bots", []).extend({"name": n, "command": "", "external": True, "token": ""} for n in new)
            c.execute(update(tournaments).where(tournaments.c.id == tid).values(
                spec_json=json.dumps(spec, sort_keys=True)))
            return new

    @_guarded
    def update_spec(self, tid: int, fields: dict[str, Any]) -> None:
        """Set these keys of the tournament's stored spec (settings of the latest run that
        are not in its fingerprint, e.g. ``referee``); the other keys stay."""
        with self._write() as c:
            spec = json.loads(c.execute(select(tournaments.c.spec_json).where(tournaments.c.id == tid)).scalar_one())
            spec.update(fields)
            c.execute(update(tournaments).where(tournaments.c.id == tid).values(
                spec_json=json.dumps(spec, sort_keys=True)))

    @_guarded
    def finish_live(self, tid: int) -> None:
        """Apply live TrueSkill to every stored match not applied yet, in index
        order, missing indices skipped (the end of an import, or of a schedule
        that will not fill its gaps)."""
        with self._write() as c:
            record.advance_live(c, record.Context.read(c, tid), "all")

    @_guarded
    def matches(self, tid: int) -> list[MatchRow]:
        """Every stored match of the tournament, in index order. O(matches)
        memory: for small tournaments and tests; pages read :meth:`match_page`,
        exports :meth:`iter_matches`, ratings :meth:`comparisons`."""
        return list(self.iter_matches(tid))

    def iter_matches(self, tid: int, chunk: int = 5_000) -> Iterator[MatchRow]:
        """Every stored match in index order, read ``chunk`` at a time (bounded memory).
        Raises :class:`StorageError` when the database fails."""
        last = None
        while True:
            q = select(matches).where(matches.c.tournament_id == tid)
            if last is not None:
                q = q.where(matches.c.idx > last)
            rows = self._all(q.order_by(matches.c.idx).limit(chunk))
            for r in rows:
                yield _row(r)
            if len(rows) < chunk:
                return
            last = rows[-1]["idx"]

    @_guarded
    def _all(self, q: Any) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(q).mappings()]

    @_guarded
    def match_count(self, tid: int) -> int:
        """How many matches are stored."""
        with self.engine.connect() as c:
            return int(c.execute(select(func.count()).select_from(matches).where(matches.c.tournament_id == tid))
                       .scalar_one())

    @_guarded
    def status_counts(self, tid: int) -> dict[MatchStatus, int]:
        """Stored matches per status (``complete``, ``aborted``, ``void``)."""
        with self.engine.connect() as c:
            q = select(matches.c.status, func.count()).where(matches.c.tournament_id == tid).group_by(matches.c.status)
            return {MatchStatus(st): int(n) for st, n in c.execute(q)}

    @_guarded
    def match_page(self, tid: int, offset: int = 0, limit: int = 100, bot: str | None = None,
                   newest_first: bool = True) -> tuple[int, list[dict[str, Any]]]:
        """One page of the stored matches, by index (newest first by default):
        ``(matches in all, [row])`` where each row is a ``matches`` row as a dict
        with ``seats`` and ``result`` decoded. ``bot``: only that bot's matches.
        O(offset + limit) with the indexes; a bot's: O(its matches), read from
        its seats (the ``seat_results`` bot index), never by scanning every match."""
        where = matches.c.tournament_id == tid
        order = matches.c.idx.desc() if newest_first else matches.c.idx
        with self.engine.connect() as c:
            if bot is not None:
                bid = c.execute(select(bots.c.id).where((bots.c.tournament_id == tid) & (bots.c.name == bot))).scalar()
                if bid is None:
                    return 0, []
                mine = select(seat_results.c.match_id).where(seat_results.c.bot_id == bid).distinct().subquery()
                total = int(c.execute(select(func.count()).select_from(mine)).scalar_one())
                q = select(matches).select_from(mine.join(matches, matches.c.id == mine.c.match_id)).where(where)
            else:
                total = int(c.execute(select(func.count()).select_from(matches).where(where)).scalar_one())
                q = select(matches).where(where)
            rows = [dict(r) for r in c.execute(q.order_by(order).offset(max(0, offset)).limit(max(0, limit)))
                    .mappings()]
        for r in rows:
            r["seats"] = json.loads(r["seats_json"])
            r["result"] = json.loads(r["result_json"])
        return total, rows

    @_guarded
    def match_by_id(self, tid: int, match_id: str) -> dict[str, Any] | None:
        """The stored match of id ``match_id`` (its log's name), as a ``matches``
        row dict with ``seats`` and ``result`` decoded; ``None`` if absent. O(log matches)."""
        with self.engine.connect() as c:
            row = c.execute(select(matches).where((matches.c.tournament_id == tid) & (matches.c.match_id == match_id))
                            .limit(1)).mappings().first()
        if row is None:
            return None
        r = dict(row)
        r["seats"], r["result"] = json.loads(r["seats_json"]), json.loads(r["result_json"])
        return r

    @_guarded
    def bot_table(self, tid: int) -> list[dict[str, Any]]:
        """The tournament's bots in the order they were added: ``id``, ``name``,
        ``command``, ``external``, live ``mu``/``sigma`` (``None``: not rated yet)."""
        with self.engine.connect() as c:
            q = select(bots.c.id, bots.c.name, bots.c.command, bots.c.external, bots.c.mu, bots.c.sigma).where(
                bots.c.tournament_id == tid).order_by(bots.c.id)
            return [dict(r) for r in c.execute(q).mappings()]

    @_guarded
    def seat_totals(self, tid: int) -> list[dict[str, Any]]:
        """``bot_seat_stats`` rows: ``bot_id``, ``seat``, ``matches``, ``wins``,
        ``score_sum``, ``forfeits`` (complete matches)."""
        with self.engine.connect() as c:
            q = select(bot_seat_stats).where(bot_seat_stats.c.tournament_id == tid)
            return [dict(r) for r in c.execute(q).mappings()]

    @_guarded
    def role_totals(self, tid: int) -> list[dict[str, Any]]:
        """``role_stats`` rows: ``bot_id``, ``role``, ``rounds``, ``won``,
        ``won_known``, ``value_sum``, ``value_known``."""
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(select(role_stats).where(role_stats.c.tournament_id == tid)).mappings()]

    @_guarded
    def pair_totals(self, tid: int, among: list[int] | None = None, bot_id: int | None = None
                    ) -> list[dict[str, Any]]:
        """``pair_stats`` rows (``bot_a < bot_b``, ids): all of them, those of
        pairs within ``among``, or those of one ``bot_id``. O(rows returned)."""
        q = select(pair_stats).where(pair_stats.c.tournament_id == tid)
        if among is not None:
            q = q.where(pair_stats.c.bot_a.in_(among) & pair_stats.c.bot_b.in_(among))
        if bot_id is not None:  # one query per side, each on its index (an OR of the two scans the table)
            q = union_all(q.where(pair_stats.c.bot_a == bot_id), q.where(pair_stats.c.bot_b == bot_id))
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(q).mappings()]

    def iter_pair_totals(self, tid: int, chunk: int = 10_000) -> Iterator[dict[str, Any]]:
        """Every ``pair_stats`` row of the tournament (as :meth:`pair_totals`),
        in key order, streamed ``chunk`` rows at a time through the driver's
        cursor: bounded memory for the full head-to-head export. Raises
        :class:`StorageError` when the database fails."""
        q = select(pair_stats).where(pair_stats.c.tournament_id == tid).order_by(pair_stats.c.bot_a,
                                                                                 pair_stats.c.bot_b)
        keys = [c.name for c in pair_stats.columns]
        driver_error = getattr(self.engine.dialect.dbapi, "Error", sqlite3.Error)  # the raw cursor's own errors
        try:
            for rows in self._stream(q, chunk):
                for r in rows:
                    yield dict(zip(keys, r))
        except (sa_exc.DBAPIError, driver_error) as e:
            raise StorageError(self.explain(e)) from None

    @_guarded
    def bot_faults(self, tid: int, bot: str, limit: int = 100) -> tuple[int, list[dict[str, Any]]]:
        """A bot's faults, newest match first: ``(faults in all, [row])``, at
        most ``limit`` rows, each with the match's ``idx``, ``match_id`` (from
        its result), ``log_path``, and the fault's ``seat``, ``kind``, ``rule``,
        ``message``. Reads the bot's seats through the ``seat_results`` bot
        index: O(the bot's matches), never every fault."""
        with self.engine.connect() as c:
            bid = c.execute(select(bots.c.id).where((bots.c.tournament_id == tid) & (bots.c.name == bot))).scalar()
            if bid is None:
                return 0, []
            on = (faults.c.match_id == seat_results.c.match_id) & (faults.c.seat == seat_results.c.seat)
            total = int(c.execute(select(func.count()).select_from(seat_results.join(faults, on)).where(
                seat_results.c.bot_id == bid)).scalar_one())
            q = (select(matches.c.idx, matches.c.result_json, matches.c.log_path, faults.c.seat, faults.c.kind,
                        faults.c.rule, faults.c.message)
                 .select_from(seat_results.join(faults, on).join(matches, matches.c.id == seat_results.c.match_id))
                 .where(seat_results.c.bot_id == bid).order_by(matches.c.idx.desc(), faults.c.id)
                 .limit(max(0, limit)))
            rows = [dict(r) for r in c.execute(q).mappings()]
        for r in rows:
            r["match_id"] = json.loads(r.pop("result_json")).get("match_id") or f"m{r['idx']:05d}"
        return total, rows

    @_guarded
    def fault_counts(self, tid: int) -> dict[str, dict[str, int]]:
        """bot -> fault kind -> count (every stored match)."""
        out: dict[str, dict[str, int]] = {}
        with self.engine.connect() as c:
            q = select(bots.c.name, fault_stats.c.kind, fault_stats.c.n).join(bots, bots.c.id == fault_stats.c.bot_id) \
                .where(fault_stats.c.tournament_id == tid)
            for bname, kind, n in c.execute(q):
                out.setdefault(bname, {})[kind] = int(n)
        return out

    @_guarded
    def comparisons(self, tid: int, index: dict[int, int], players: int,
                    opponents: tuple[tuple[int, int], ...], chunk: int = 100_000) -> Comparisons:
        """The rated matches as arrays for the batch fit (:class:`tournaments.batch.Comparisons`),
        streamed ``chunk`` seat rows at a time: bounded memory beyond the
        arrays themselves (O(matches × seats) integers). ``index``: bot id ->
        its number 0..N-1 in the fit."""
        q = (select(matches.c.unit, matches.c.rating_weight, seat_results.c.bot_id, seat_results.c.place)
             .join(seat_results, seat_results.c.match_id == matches.c.id)
             .where((matches.c.tournament_id == tid) & (matches.c.rating_weight > 0))
             .order_by(matches.c.idx, seat_results.c.seat))
        units, weights, seat_bots, places = [], [], [], []
        per = max(1, chunk // players) * players  # whole matches in every chunk
        columns = np.dtype([("unit", np.int64), ("weight", np.float64), ("bot", np.int64), ("place", np.int64)])
        for rows in self._stream(q, per):
            a = np.array(rows, dtype=columns)
            units.append(a["unit"][::players])
            weights.append(a["weight"][::players])
            seat_bots.append(a["bot"])
            places.append(a["place"])
        if not units:
            return Comparisons.empty(len(index), players, opponents)
        ids = np.array(sorted(index), dtype=np.int64)
        numbers = np.array([index[i] for i in ids.tolist()], dtype=np.int64)
        bots_at = numbers[np.searchsorted(ids, np.concatenate(seat_bots))].reshape(-1, players)
        return Comparisons(len(index), np.concatenate(units), np.concatenate(weights), bots_at,
                           np.concatenate(places).reshape(-1, players), opponents)

    def _stream(self, q: Any, chunk: int) -> Iterator[list[tuple]]:
        """Rows of the query ``q`` as plain tuples, ``chunk`` at a time, through
        the database driver's own cursor (SQLAlchemy's rows cost 3x more per
        row; on PostgreSQL a server-side cursor, so memory stays bounded)."""
        with self.engine.connect() as c:
            compiled = q.compile(dialect=c.dialect)
            params = compiled.construct_params()
            args: Any = [params[k] for k in compiled.positiontup] if compiled.positional else params
            raw = c.connection.dbapi_connection
            cur = raw.cursor(name=f"stream_{uuid.uuid4().hex[:12]}") if c.dialect.name == "postgresql" else raw.cursor()
            try:
                cur.execute(str(compiled), args)
                while rows := cur.fetchmany(chunk):
                    yield rows
            finally:
                cur.close()

    @_guarded
    def results_version(self, tid: int) -> int:
        """The tournament's results counter: it changes whenever results are stored."""
        with self.engine.connect() as c:
            return int(c.execute(select(tournaments.c.results_version).where(tournaments.c.id == tid)).scalar_one())

    @_guarded
    def rating_series(self, tid: int, names: list[str], points: int = 200, by_time: bool = False
                      ) -> dict[str, list[tuple[float, float, float]]]:
        """Live TrueSkill after each rated match of each bot of ``names``:
        bot -> ``[(x, mu, sigma)]`` in the order ratings were applied (match
        index), at most ``points`` per bot (evenly spaced, the last always
        kept). ``x`` is the match index (an int), or with ``by_time`` the Unix
        time the match finished (``matches.finished_at``, joined on the index:
        a ladder's matches are numbered in finishing order). O(rows of those bots)."""
        out: dict[str, list[tuple[float, float, float]]] = {}
        with self.engine.connect() as c:
            for name in names:
                if by_time:
                    q = select(matches.c.finished_at, rating_history.c.mu, rating_history.c.sigma).select_from(
                        rating_history.join(matches, (matches.c.tournament_id == rating_history.c.tournament_id)
                                            & (matches.c.idx == rating_history.c.match_idx)))
                else:
                    q = select(rating_history.c.match_idx, rating_history.c.mu, rating_history.c.sigma)
                q = q.where((rating_history.c.tournament_id == tid) & (rating_history.c.bot == name)).order_by(
                    rating_history.c.match_idx)
                cast = float if by_time else int
                rows = [(cast(i), float(mu), float(sg)) for i, mu, sg in c.execute(q)]
                if len(rows) > points:
                    keep = sorted({round(k * (len(rows) - 1) / (points - 1)) for k in range(points)})
                    rows = [rows[k] for k in keep]
                out[name] = rows
        return out

    @_guarded
    def cached_fit(self, tid: int, method: str) -> tuple[int, dict[str, Any]] | None:
        """``(results_version, payload)`` of the last fit stored for ``method``, if any."""
        with self.engine.connect() as c:
            row = c.execute(select(fit_cache.c.results_version, fit_cache.c.payload).where(
                (fit_cache.c.tournament_id == tid) & (fit_cache.c.method == method))).first()
        return (int(row[0]), json.loads(row[1])) if row else None

    def store_fit(self, tid: int, method: str, version: int, payload: dict[str, Any]) -> bool:
        """Keep a fit for later readers; ``False`` (nothing kept) when the
        database cannot be written now (a reader never fails for it)."""
        try:
            with self._write() as c:
                c.execute(delete(fit_cache).where((fit_cache.c.tournament_id == tid) & (fit_cache.c.method == method)))
                c.execute(insert(fit_cache).values(tournament_id=tid, method=method, results_version=version,
                                                   computed_at=time.time(), payload=json.dumps(payload)))
            return True
        except (sa_exc.OperationalError, sa_exc.DatabaseError, sa_exc.InterfaceError, OSError):
            return False


def _row(r: dict[str, Any]) -> MatchRow:
    return MatchRow(r["idx"], int(r["seed"]), json.loads(r["seats_json"]), MatchStatus(r["status"]),
                    json.loads(r["result_json"]), r["log_path"])
