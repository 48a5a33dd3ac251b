"""Storage of a standing competition (``referee ladder``), beside the
tournament tables of :mod:`tournaments.store` in the same database.

A ladder is a row of ``tournaments`` (so ``referee leaderboard`` and the web
view read it like a tournament): its ``bots`` are the rated *versions*
(``name@vN``), its ``matches`` the finished matches, numbered in the order
they finished. Two tables are added (created when missing: the migration is
additive, older tables are untouched):

* ``ladder_events``: the ladder's history, numbered ``seq`` 1, 2, ...:
  ``add``, ``replace``, ``retire``, ``suspend``, ``online``, ``offline``
  (an external bot connected or dropped), ``scheduled``, ``finished``,
  ``abandoned``; ``name`` the entrant, ``sched`` the match's scheduling
  number, ``data_json`` the details. The ladder's state is rebuilt from it
  on restart, and matchmaking is a function of it.
* ``ladder_snapshots``: the ladder's state (:class:`tournaments.ladder.LadderState`)
  as of one event ``seq``, stored every few hundred matches and when the
  ladder stops, so that a restart applies only the events after it instead
  of the whole history (``referee ladder verify`` still replays it all).
* ``ladder_versions``: one row per version of an entrant: command, or for
  an external bot the SHA-256 of its token (``token`` holds
  ``"sha256:<hex>"``: the token itself is never written, see
  :func:`stored_token`), state (``active``, ``suspended``, ``retired``,
  ``replaced``), reason, the event that added it.

Every change is written in ONE transaction with its events (a finished
match: its ``matches``/``seat_results``/``faults`` rows, its ``finished``
event and any ``suspend`` it caused), so a ladder killed at any moment
restarts from a consistent history: a match is either finished (and rated
once) or scheduled but unfinished (and played again on restart).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Iterator

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
    delete,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy import exc as sa_exc

from referee.outcomes import MatchStatus
from referee.service import token_digest
from tournaments import record
from tournaments.record import MatchRecord
from tournaments.schema import MatchRow, bots, matches, tournaments
from tournaments.store import SCHEMA_LOCK_KEY, LeaseHolder, StorageError, Store

ladder_metadata = MetaData()
# the foreign keys name tables of tournaments.store's metadata: declare them here too
Table("tournaments", ladder_metadata, Column("id", Integer, primary_key=True))

ladder_events = Table(
    "ladder_events", ladder_metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("name", String(64)),
    Column("sched", Integer),
    Column("data_json", Text, nullable=False),
    Column("at", Float, nullable=False),
    UniqueConstraint("tournament_id", "seq"),
)

ladder_versions = Table(
    "ladder_versions", ladder_metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False),
    Column("name", String(64), nullable=False),
    Column("version", Integer, nullable=False),
    Column("label", String(64), nullable=False),
    Column("command", Text, nullable=False),
    Column("external", Boolean, nullable=False),
    Column("token", Text, nullable=False),  # external bots only: "sha256:<hex>" of the token, never the token
    Column("state", String(16), nullable=False),  # active | suspended | retired | replaced
    Column("reason", Text, nullable=False),
    Column("added_seq", Integer, nullable=False),
    UniqueConstraint("tournament_id", "label"),
)


ladder_snapshots = Table(
    "ladder_snapshots", ladder_metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("seq", Integer, nullable=False),  # the last event the state includes
    Column("at", Float, nullable=False),
    Column("state_json", Text, nullable=False),
)


#: how ``ladder_versions.token`` marks a token's SHA-256 (rows written before it held the token itself)
TOKEN_HASH_PREFIX = "sha256:"


def stored_token(digest: str) -> str:
    """What ``ladder_versions.token`` keeps for a token whose SHA-256 is ``digest`` ("" for none)."""
    return TOKEN_HASH_PREFIX + digest if digest else ""


@dataclass
class Event:
    """One ladder event (see the module docstring for the kinds)."""

    seq: int
    kind: str
    name: str | None = None
    sched: int | None = None
    data: dict[str, Any] | None = None


@dataclass
class FinishedMatch:
    """What the ``matches`` table gets for a finished match (``idx``: its finishing number)."""

    idx: int
    seed: int
    seats: list[str]
    status: MatchStatus
    result: dict[str, Any]
    log_path: str | None
    decisions: int
    elapsed_s: float


@dataclass
class RecordedView:
    """What the database held at one moment (read in one snapshot, see
    :meth:`LadderStore.recorded_view`): ``last_seq`` (0: no event yet), the
    stored ``snapshot`` (``(seq, state)`` with seq <= last_seq, or ``None``)
    and the live ``ratings`` (label -> ``(mu, sigma)``, rated versions only),
    which are those after event ``last_seq``."""

    last_seq: int
    snapshot: tuple[int, dict[str, Any]] | None
    ratings: dict[str, tuple[float, float]]


def _seq_range(tid: int, after: int, upto: int | None) -> Any:
    """The condition for ladder ``tid``'s events with ``after`` < seq (<= ``upto``)."""
    cond = (ladder_events.c.tournament_id == tid) & (ladder_events.c.seq > after)
    return cond if upto is None else cond & (ladder_events.c.seq <= upto)


class LadderStore:
    """The ladder tables on a :class:`tournaments.store.Store` (same engine)."""

    def __init__(self, store: Store, create: bool = True):
        """``create``: create the ladder tables when missing (readers that
        know the ladder exists, such as the web pages, pass ``False``)."""
        self.store = store
        self.engine = store.engine
        if create:
            self._create_tables()

    def _create_tables(self) -> None:
        """Create the ladder tables when missing, under the lock the store's
        own migration takes (:meth:`Store.migrate`), so that several processes
        opening an empty database at once all succeed. Raises
        :class:`~tournaments.store.StorageError` when the database fails."""
        try:
            with self.store._write() as c:  # SQLite: BEGIN IMMEDIATE serialises the creators
                if c.dialect.name == "postgresql":
                    c.execute(text(f"SELECT pg_advisory_xact_lock({SCHEMA_LOCK_KEY})"))  # held until commit
                ladder_metadata.create_all(c)
        except (sa_exc.OperationalError, sa_exc.DatabaseError, sa_exc.InterfaceError) as e:
            raise StorageError(self.store.explain(e)) from None

    def create(self, name: str, game: str, spec_json: dict[str, Any], fingerprint: str,
               lease_holder: LeaseHolder | None = None) -> int:
        """A new ladder (a ``tournaments`` row with status ``running``, no bots
        yet; with ``lease_holder``, its lease taken in the same transaction).
        Raises ``sqlalchemy.exc.IntegrityError`` when a ladder or tournament
        of that name was created meanwhile (by another process)."""
        return self.store.create_tournament(name, game, spec_json, fingerprint, 0, [], lease_holder=lease_holder)

    def events(self, tid: int, after: int = 0, upto: int | None = None) -> list[Event]:
        """The ladder's events with ``after`` < ``seq`` (<= ``upto`` if given), in order."""
        with self.engine.connect() as c:
            q = select(ladder_events).where(_seq_range(tid, after, upto)).order_by(ladder_events.c.seq)
            return [Event(r["seq"], r["kind"], r["name"], r["sched"], json.loads(r["data_json"]))
                    for r in c.execute(q).mappings()]

    def iter_events(self, tid: int, after: int = 0, chunk: int = 10_000, upto: int | None = None
                    ) -> Iterator[Event]:
        """The ladder's events with ``after`` < ``seq`` (<= ``upto`` if given), in order,
        read ``chunk`` at a time (bounded memory)."""
        while True:
            batch = self.events_page(tid, after, chunk, upto)
            yield from batch
            if len(batch) < chunk:
                return
            after = batch[-1].seq

    def events_page(self, tid: int, after: int, limit: int, upto: int | None = None) -> list[Event]:
        with self.engine.connect() as c:
            q = select(ladder_events).where(_seq_range(tid, after, upto)).order_by(ladder_events.c.seq).limit(limit)
            return [Event(r["seq"], r["kind"], r["name"], r["sched"], json.loads(r["data_json"]))
                    for r in c.execute(q).mappings()]

    def recorded_view(self, tid: int) -> RecordedView:
        """The latest event's number, the stored snapshot and the live ratings,
        read in ONE read transaction that sees one snapshot of the database
        (SQLite: one read transaction; PostgreSQL: REPEATABLE READ), so that
        the ratings are exactly those after that event even while the ladder
        records matches. Raises :class:`~tournaments.store.StorageError` when
        the database fails."""
        try:
            with self.engine.connect() as c:
                if c.dialect.name == "postgresql":  # READ COMMITTED would see a commit between two reads
                    c = c.execution_options(isolation_level="REPEATABLE READ")
                with c.begin():
                    last = int(c.execute(select(func.max(ladder_events.c.seq)).where(
                        ladder_events.c.tournament_id == tid)).scalar() or 0)
                    row = c.execute(select(ladder_snapshots.c.seq, ladder_snapshots.c.state_json).where(
                        ladder_snapshots.c.tournament_id == tid)).first()
                    ratings = {name: (mu, sigma) for name, mu, sigma in c.execute(
                        select(bots.c.name, bots.c.mu, bots.c.sigma).where(
                            (bots.c.tournament_id == tid) & bots.c.mu.is_not(None)))}
        except (sa_exc.OperationalError, sa_exc.DatabaseError, sa_exc.InterfaceError) as e:
            raise StorageError(self.store.explain(e)) from None
        return RecordedView(last, (int(row[0]), json.loads(row[1])) if row else None, ratings)

    def last_seq(self, tid: int) -> int:
        """The number of the ladder's latest event (0: none yet): it changes with
        every change of the ladder (what the live site's cache compares). O(log events)."""
        with self.engine.connect() as c:
            return int(c.execute(select(func.max(ladder_events.c.seq)).where(
                ladder_events.c.tournament_id == tid)).scalar() or 0)

    def versions(self, tid: int) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            q = select(ladder_versions).where(ladder_versions.c.tournament_id == tid).order_by(
                ladder_versions.c.added_seq)
            return [dict(r) for r in c.execute(q).mappings()]

    def entrants(self, tid: int) -> list[dict[str, Any]]:
        """The entrants of ladder ``tid`` for display (no token): one dict per
        entrant, in the order they were added: ``name``, ``current`` (its
        latest version) and ``versions`` (every version, oldest first), each
        version a dict of ``label``, ``version``, ``external``, ``state``
        (active, suspended, retired, replaced), ``reason``, ``added_at`` and
        ``since`` (Unix seconds: when it was added, and when it got its
        current state)."""
        with self.engine.connect() as c:
            q = select(ladder_events.c.kind, ladder_events.c.name, ladder_events.c.data_json,
                       ladder_events.c.at).where(
                (ladder_events.c.tournament_id == tid)
                & ladder_events.c.kind.in_(("add", "replace", "retire", "suspend"))).order_by(ladder_events.c.seq)
            events = [(k, n, json.loads(d), at) for k, n, d, at in c.execute(q)]
        added: dict[str, float] = {}
        changed: dict[str, float] = {}  # label -> when it got its latest state
        for kind, name, data, at in events:
            label = data.get("label", "")
            if kind in ("add", "replace"):
                added[label] = at
                if kind == "replace":  # the version before it is replaced from now on
                    changed[f"{name}@v{int(data['version']) - 1}"] = at
            else:
                changed[label] = at
        out: dict[str, dict[str, Any]] = {}
        for v in self.versions(tid):
            at = added.get(v["label"], 0.0)
            row = {"label": v["label"], "version": v["version"], "external": bool(v["external"]),
                   "state": v["state"], "reason": v["reason"], "added_at": at,
                   "since": changed.get(v["label"], at) if v["state"] != "active" else at}
            e = out.setdefault(v["name"], {"name": v["name"], "versions": []})
            e["versions"].append(row)
        for e in out.values():
            e["versions"].sort(key=lambda r: r["version"])
            e["current"] = e["versions"][-1]
        return list(out.values())

    def token_hashes(self, tid: int) -> dict[str, str]:
        """label -> SHA-256 (hex) of each external version's token. A token
        stored in the clear by an older version of the ladder is replaced by
        its hash here (on SQLite the file is then vacuumed and its WAL
        truncated, so that no copy of it stays in free pages)."""
        out: dict[str, str] = {}
        legacy: dict[str, str] = {}
        for v in self.versions(tid):
            tok = v["token"] or ""
            if tok.startswith(TOKEN_HASH_PREFIX):
                out[v["label"]] = tok[len(TOKEN_HASH_PREFIX):]
            elif tok:
                out[v["label"]] = legacy[v["label"]] = token_digest(tok)
        if legacy:
            with self.engine.begin() as c:
                for label, digest in legacy.items():
                    c.execute(update(ladder_versions).where(
                        (ladder_versions.c.tournament_id == tid) & (ladder_versions.c.label == label)).values(
                        token=stored_token(digest)))
            if self.engine.dialect.name == "sqlite":
                with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
                    c.exec_driver_sql("VACUUM")
                    c.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")  # and no old page in the WAL file
        return out

    def match_rows(self, tid: int, idxs: list[int] | None = None) -> dict[int, MatchRow]:
        """Stored matches by index: all of them, or those of ``idxs``."""
        if idxs is None:
            return {r.idx: r for r in self.store.matches(tid)}
        out: dict[int, MatchRow] = {}
        with self.engine.connect() as c:
            for k in range(0, len(idxs), 500):
                q = select(matches).where((matches.c.tournament_id == tid) & matches.c.idx.in_(idxs[k:k + 500]))
                for r in c.execute(q).mappings():
                    out[r["idx"]] = MatchRow(r["idx"], int(r["seed"]), json.loads(r["seats_json"]),
                                             MatchStatus(r["status"]), json.loads(r["result_json"]), r["log_path"])
        return out

    def snapshot(self, tid: int) -> tuple[int, dict[str, Any]] | None:
        """``(seq, state)`` of the ladder's stored snapshot, if any."""
        with self.engine.connect() as c:
            row = c.execute(select(ladder_snapshots.c.seq, ladder_snapshots.c.state_json).where(
                ladder_snapshots.c.tournament_id == tid)).first()
        return (int(row[0]), json.loads(row[1])) if row else None

    def save_snapshot(self, tid: int, seq: int, state: dict[str, Any]) -> None:
        """Keep ``state`` (as of event ``seq``) as the ladder's snapshot, replacing the one before."""
        with self.store._write() as c:
            c.execute(delete(ladder_snapshots).where(ladder_snapshots.c.tournament_id == tid))
            c.execute(insert(ladder_snapshots).values(tournament_id=tid, seq=seq, at=time.time(),
                                                      state_json=json.dumps(state, separators=(",", ":"))))

    def commit(self, tid: int, events: list[Event], new_version: dict[str, Any] | None = None,
               version_states: dict[str, tuple[str, str]] | None = None,
               match: FinishedMatch | None = None) -> None:
        """Write ``events`` and what goes with them in one transaction:
        ``new_version`` (a ``ladder_versions`` row, also added to the
        tournament's bots and spec; its ``persistent`` key to the spec only), ``version_states`` (label -> (state,
        reason)), ``match`` (a finished match's rows). Raises
        ``sqlalchemy.exc.IntegrityError`` (writing nothing) if an event's
        ``seq`` or a match's ``idx`` is taken: nothing is ever recorded twice."""
        now = time.time()
        with self.engine.begin() as c:
            for e in events:
                c.execute(insert(ladder_events).values(
                    tournament_id=tid, seq=e.seq, kind=e.kind, name=e.name, sched=e.sched,
                    data_json=json.dumps(e.data or {}, sort_keys=True), at=now))
            if new_version is not None:
                new_version = dict(new_version)
                persistent = bool(new_version.pop("persistent", False))  # in the event's data, no column
                c.execute(insert(ladder_versions).values(tournament_id=tid, **new_version))
                c.execute(insert(bots).values(tournament_id=tid, name=new_version["label"],
                                              command=new_version["command"], external=new_version["external"]))
                spec = json.loads(c.execute(select(tournaments.c.spec_json).where(tournaments.c.id == tid)).scalar())
                spec["bots"].append({"name": new_version["label"], "command": new_version["command"],
                                     "external": new_version["external"], "token": "", "persistent": persistent})
                c.execute(update(tournaments).where(tournaments.c.id == tid).values(
                    spec_json=json.dumps(spec, sort_keys=True)))
            for label, (state, reason) in (version_states or {}).items():
                c.execute(update(ladder_versions).where(
                    (ladder_versions.c.tournament_id == tid) & (ladder_versions.c.label == label)).values(
                    state=state, reason=reason))
            if match is not None:
                self._insert_match(c, tid, match, now)

    @staticmethod
    def _insert_match(c: Any, tid: int, m: FinishedMatch, now: float) -> None:
        """Store a finished match through the one write path (totals, live
        TrueSkill in finishing order), and count it in ``total_matches``."""
        record.record_matches(c, tid, [MatchRecord(m.idx, m.seed, m.seats, m.status, m.result, m.log_path,
                                                   m.decisions, m.elapsed_s, now)], live="all")
        total = c.execute(select(func.count()).select_from(matches).where(matches.c.tournament_id == tid)).scalar()
        c.execute(update(tournaments).where(tournaments.c.id == tid).values(total_matches=total))
