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
  bot's mu and sigma.

A finished match is written in ONE transaction (match row, seat results,
faults), so a run killed at any moment leaves each match either absent or
complete: that is what makes ``--resume`` exact.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

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
    update,
)
from sqlalchemy.engine import Engine

SCHEMA_VERSION = 1

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
    """``"runs/x.sqlite"`` -> ``"sqlite:///runs/x.sqlite"``; URLs pass through."""
    if "://" in database:
        return database
    Path(database).parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{database}"


class Store:
    """Results database. ``database``: a file path (SQLite) or an SQLAlchemy URL."""

    def __init__(self, database: str):
        self.url = url_for(database)
        self.engine: Engine = create_engine(self.url, future=True)
        if self.engine.dialect.name == "sqlite":
            @event.listens_for(self.engine, "connect")
            def _pragmas(conn: Any, _rec: Any) -> None:  # durable and concurrent-reader friendly
                cur = conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=FULL")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.close()
        self.migrate()

    def migrate(self) -> None:
        """Create missing tables and bring the schema to :data:`SCHEMA_VERSION`.
        Raises ``RuntimeError`` for a database written by a newer version."""
        metadata.create_all(self.engine)
        with self.engine.begin() as c:
            v = c.execute(select(schema_info.c.version)).scalar()
            if v is None:
                c.execute(insert(schema_info).values(version=SCHEMA_VERSION))
            elif v > SCHEMA_VERSION:
                raise RuntimeError(f"database schema v{v} is newer than this referee (v{SCHEMA_VERSION})")
            # future migrations: `if v < 2: ...; v = 2` then update schema_info

    def close(self) -> None:
        self.engine.dispose()

    # -- tournaments ---------------------------------------------------------------
    def tournament(self, name: str) -> dict[str, Any] | None:
        with self.engine.connect() as c:
            row = c.execute(select(tournaments).where(tournaments.c.name == name)).mappings().first()
            return dict(row) if row else None

    def latest_tournament(self) -> dict[str, Any] | None:
        with self.engine.connect() as c:
            row = c.execute(select(tournaments).order_by(tournaments.c.created_at.desc())).mappings().first()
            return dict(row) if row else None

    def list_tournaments(self) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(select(tournaments).order_by(tournaments.c.created_at)).mappings()]

    def create_tournament(self, name: str, game: str, spec_json: dict[str, Any], fingerprint: str,
                          total: int, bot_rows: Iterable[tuple[str, str, bool]]) -> int:
        with self.engine.begin() as c:
            tid = c.execute(insert(tournaments).values(
                name=name, game=game, spec_json=json.dumps(spec_json, sort_keys=True), fingerprint=fingerprint,
                status="running", total_matches=total, created_at=time.time())).inserted_primary_key[0]
            for bname, cmd, ext in bot_rows:
                c.execute(insert(bots).values(tournament_id=tid, name=bname, command=cmd, external=ext))
            return int(tid)

    def delete_tournament(self, name: str) -> None:
        t = self.tournament(name)
        if t is None:
            return
        tid = t["id"]
        with self.engine.begin() as c:
            mids = select(matches.c.id).where(matches.c.tournament_id == tid)
            c.execute(delete(seat_results).where(seat_results.c.match_id.in_(mids)))
            c.execute(delete(faults).where(faults.c.match_id.in_(mids)))
            c.execute(delete(matches).where(matches.c.tournament_id == tid))
            c.execute(delete(rating_history).where(rating_history.c.tournament_id == tid))
            c.execute(delete(bots).where(bots.c.tournament_id == tid))
            c.execute(delete(tournaments).where(tournaments.c.id == tid))

    def set_tournament_status(self, tid: int, status: str) -> None:
        with self.engine.begin() as c:
            c.execute(update(tournaments).where(tournaments.c.id == tid).values(
                status=status, finished_at=time.time() if status == "complete" else None))

    def set_total_matches(self, tid: int, total: int) -> None:
        """Record how many matches the schedule holds (grows with an adaptive schedule)."""
        with self.engine.begin() as c:
            c.execute(update(tournaments).where(tournaments.c.id == tid).values(total_matches=total))

    # -- matches -----------------------------------------------------------------------
    def finished_indices(self, tid: int) -> set[int]:
        with self.engine.connect() as c:
            return set(c.execute(select(matches.c.idx).where(matches.c.tournament_id == tid)).scalars())

    def record_match(self, tid: int, idx: int, seed: int, seats: list[str], status: str, result: dict[str, Any],
                     log_path: str | None, decisions: int, elapsed_s: float) -> None:
        """Write a finished match atomically (idempotent: a second write of the
        same index is ignored, so a match is never counted twice)."""
        with self.engine.begin() as c:
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

    def matches(self, tid: int) -> list[MatchRow]:
        """Every stored match of the tournament, in index order."""
        with self.engine.connect() as c:
            rows = c.execute(select(matches).where(matches.c.tournament_id == tid).order_by(matches.c.idx)).mappings()
            return [MatchRow(r["idx"], int(r["seed"]), json.loads(r["seats_json"]), r["status"],
                             json.loads(r["result_json"]), r["log_path"]) for r in rows]

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

    def write_rating_history(self, tid: int, history: list[tuple[int, str, float, float]]) -> None:
        """Replace the tournament's rating history with ``(match_idx, bot, mu, sigma)`` rows."""
        with self.engine.begin() as c:
            c.execute(delete(rating_history).where(rating_history.c.tournament_id == tid))
            if history:
                c.execute(insert(rating_history), [
                    {"tournament_id": tid, "match_idx": i, "bot": b, "mu": mu, "sigma": sg} for i, b, mu, sg in history])
