"""Results store (SQLAlchemy Core): SQLite by default, any SQLAlchemy URL
(e.g. ``postgresql+psycopg://...``) without changing callers.

Schema (version :data:`SCHEMA_VERSION`, created and migrated by
:meth:`Store.migrate`):

* ``tournaments``: name, game, spec JSON and fingerprint, status;
* ``bots``: per tournament, name, command, external;
* ``matches``: per tournament and schedule index: seed, seats (bot names
  JSON), status (``pending|complete|aborted``), result JSON, log path;
* ``seat_results``: per match and seat: bot, score, rank, forfeited;
* ``faults``: per match: seat, bot, kind, rule, message;
* ``rating_history``: per tournament, after each rated match index: every
  bot's mu and sigma;
* ``leases`` (v2): per tournament, the driver running it (host, pid, a
  random holder id, heartbeat time); at most one row per tournament, which
  is what keeps a second driver from playing the same matches.

Backends: SQLite (a file path) and PostgreSQL (``postgresql://...``, driver
psycopg 3 from the ``postgres`` extra) are both tested. Every failure of the
database itself (missing, corrupt, full disk, unreachable) is raised as
:class:`StorageError` naming the database (password masked) and the problem.

A finished match is written in ONE transaction (match row, seat results,
faults), so a run killed at any moment leaves each match either absent or
complete: that is what makes ``--resume`` exact.
"""

from __future__ import annotations

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
from typing import Any, Callable, Iterable, Iterator, TypeVar

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    delete,
    event,
    insert,
    select,
    text,
    update,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Engine, make_url

SCHEMA_VERSION = 2

#: a lease whose heartbeat is older than this is expired: another driver may take the tournament over
LEASE_TTL_S = 30.0
#: how often a running driver renews its lease
LEASE_HEARTBEAT_S = 5.0
#: PostgreSQL advisory lock held while tables are created (also by tournaments.ladder_store)
SCHEMA_LOCK_KEY = 7219001

metadata = MetaData()

schema_info = Table("schema_info", metadata, Column("version", Integer, nullable=False))

tournaments = Table(
    "tournaments", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("game", String(32), nullable=False),
    Column("spec_json", Text, nullable=False),
    Column("fingerprint", String(32), nullable=False),
    Column("status", String(16), nullable=False),  # running | complete
    Column("total_matches", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("finished_at", Float),
)

bots = Table(
    "bots", metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False),
    Column("name", String(64), nullable=False),
    Column("command", Text, nullable=False),
    Column("external", Boolean, nullable=False),
    UniqueConstraint("tournament_id", "name"),
)

matches = Table(
    "matches", metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("seed", String(24), nullable=False),  # 63-bit ints as text: portable across backends
    Column("seats_json", Text, nullable=False),
    Column("status", String(16), nullable=False),  # complete | aborted
    Column("result_json", Text, nullable=False),
    Column("log_path", Text),
    Column("decisions", Integer, nullable=False),
    Column("elapsed_s", Float, nullable=False),
    Column("finished_at", Float, nullable=False),
    UniqueConstraint("tournament_id", "idx"),
)

seat_results = Table(
    "seat_results", metadata,
    Column("id", Integer, primary_key=True),
    Column("match_id", Integer, ForeignKey("matches.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("bot", String(64), nullable=False),
    Column("score", Float),
    Column("rank", Integer),
    Column("forfeited", Boolean, nullable=False),
)

faults = Table(
    "faults", metadata,
    Column("id", Integer, primary_key=True),
    Column("match_id", Integer, ForeignKey("matches.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("bot", String(64), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("rule", String(64), nullable=False),
    Column("message", Text, nullable=False),
)

rating_history = Table(
    "rating_history", metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False),
    Column("match_idx", Integer, nullable=False),
    Column("bot", String(64), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
)


leases = Table(
    "leases", metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("holder", String(64), nullable=False),
    Column("host", String(255), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("acquired_at", Float, nullable=False),
    Column("heartbeat_at", Float, nullable=False),
)


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


@dataclass
class MatchRow:
    """A stored match result (``result`` as written by the executor)."""

    idx: int
    seed: int
    seats: list[str]
    status: str
    result: dict[str, Any]
    log_path: str | None


def url_for(database: str) -> str:
    """``"runs/x.sqlite"`` -> ``"sqlite:///runs/x.sqlite"``; ``postgresql://``
    and ``postgres://`` -> ``postgresql+psycopg://`` (psycopg 3); other URLs pass through."""
    if "://" not in database:
        return f"sqlite:///{database}"
    for prefix in ("postgresql://", "postgres://"):
        if database.startswith(prefix):
            return "postgresql+psycopg://" + database[len(prefix):]
    return database


def mask_url(database: str) -> str:
    """A database path or URL fit to print: the password replaced by ``***``."""
    if "://" not in database:
        return database
    try:
        return make_url(database).render_as_string(hide_password=True)
    except sa_exc.ArgumentError:
        return "<unparsable database URL>"


def sqlite_path(database: str) -> Path | None:
    """The file behind a SQLite path or URL (``None``: not a file-backed SQLite database)."""
    if "://" not in database:
        return Path(database)
    u = make_url(database)
    if u.get_backend_name() == "sqlite" and u.database and u.database != ":memory:":
        return Path(u.database)
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
                try:
                    self.file.parent.mkdir(parents=True, exist_ok=True)
                except OSError as e:
                    raise StorageError(f"results database {self.file}: cannot create its directory "
                                       f"({e.strerror or e})") from None
        try:
            self.engine: Engine = create_engine(
                self.url, future=True,
                connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000} if self.file is not None else {"connect_timeout": 10})
        except ModuleNotFoundError as e:
            raise StorageError(f"{self.display_url}: the database driver is not installed ({e.name}); "
                               "for PostgreSQL: pip install 'cardgame-referee[postgres]'") from None
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
        once all succeed. Raises :class:`StorageError` for a database written
        by a newer version or one that is not a results database."""
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
            elif v < 2:  # v2 added the leases table (created above)
                c.execute(update(schema_info).values(version=SCHEMA_VERSION))

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
                    status="running", total_matches=total, created_at=now)).inserted_primary_key[0]
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
            c.execute(delete(rating_history).where(rating_history.c.tournament_id == tid))
            c.execute(delete(bots).where(bots.c.tournament_id == tid))
            c.execute(delete(leases).where(leases.c.tournament_id == tid))
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
        with self._write() as c:
            c.execute(delete(leases).where((leases.c.tournament_id == tid) & (leases.c.holder == me.holder)))

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

    @_guarded
    def record_match(self, tid: int, idx: int, seed: int, seats: list[str], status: str, result: dict[str, Any],
                     log_path: str | None, decisions: int, elapsed_s: float) -> None:
        """Write a finished match atomically (idempotent: a second write of the
        same index is ignored, so a match is never counted twice). Raises
        :class:`StorageError` (writing nothing) if the database is gone or full."""
        self.check()
        with self._write() as c:
            exists = c.execute(select(matches.c.id).where(
                (matches.c.tournament_id == tid) & (matches.c.idx == idx))).first()
            if exists:
                return
            mid = c.execute(insert(matches).values(
                tournament_id=tid, idx=idx, seed=str(seed), seats_json=json.dumps(seats), status=status,
                result_json=json.dumps(result, sort_keys=True), log_path=log_path, decisions=decisions,
                elapsed_s=elapsed_s, finished_at=time.time())).inserted_primary_key[0]
            scores = result.get("scores") or [None] * len(seats)
            ranks = result.get("ranks") or [None] * len(seats)
            forfeited = set(result.get("forfeited") or [])
            for s, bname in enumerate(seats):
                c.execute(insert(seat_results).values(match_id=mid, seat=s, bot=bname, score=scores[s],
                                                      rank=ranks[s], forfeited=s in forfeited))
            for f in result.get("faults") or []:
                c.execute(insert(faults).values(match_id=mid, seat=f["seat"], bot=seats[f["seat"]], kind=f["kind"],
                                                rule=f.get("rule", ""), message=f.get("message", "")[:2000]))

    @_guarded
    def matches(self, tid: int) -> list[MatchRow]:
        """Every stored match of the tournament, in index order."""
        with self.engine.connect() as c:
            rows = c.execute(select(matches).where(matches.c.tournament_id == tid).order_by(matches.c.idx)).mappings()
            return [MatchRow(r["idx"], int(r["seed"]), json.loads(r["seats_json"]), r["status"],
                             json.loads(r["result_json"]), r["log_path"]) for r in rows]

    @_guarded
    def fault_counts(self, tid: int) -> dict[str, dict[str, int]]:
        """bot -> fault kind -> count."""
        out: dict[str, dict[str, int]] = {}
        with self.engine.connect() as c:
            q = select(faults.c.bot, faults.c.kind).join(matches, faults.c.match_id == matches.c.id).where(
                matches.c.tournament_id == tid)
            for bname, kind in c.execute(q):
                out.setdefault(bname, {}).setdefault(kind, 0)
                out[bname][kind] += 1
        return out

    @_guarded
    def write_rating_history(self, tid: int, history: list[tuple[int, str, float, float]]) -> None:
        """Replace the tournament's rating history with ``(match_idx, bot, mu, sigma)`` rows."""
        with self._write() as c:
            c.execute(delete(rating_history).where(rating_history.c.tournament_id == tid))
            if history:
                c.execute(insert(rating_history), [
                    {"tournament_id": tid, "match_idx": i, "bot": b, "mu": mu, "sigma": sg} for i, b, mu, sg in history])
