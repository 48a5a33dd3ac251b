"""The tables of the results database (SQLAlchemy Core), schema version
:data:`SCHEMA_VERSION`; :class:`tournaments.store.Store` creates and
migrates them, :mod:`tournaments.record` writes matches into them.

Stored as played:

* ``tournaments``: name, game, spec JSON and fingerprint, status; how far
  live TrueSkill has been applied (``live_through``: every match up to this
  index) and a counter bumped by every write of results (``results_version``,
  what caches compare);
* ``bots``: per tournament, name, command, external; live TrueSkill ``mu``
  and ``sigma`` (``NULL``: not rated yet, the prior);
* ``matches``: per tournament and schedule index: seed, seats (bot names
  JSON), status (``complete|aborted|void``), result JSON, log path; the
  rating ``unit`` and ``rating_weight`` (0: not rated); ``match_id`` (the
  id its log is named by);
* ``seat_results``: per match and seat: bot (name and id), score, rank,
  forfeited, ``place`` (the place of the seat's team for the ratings, 0 =
  best; ``NULL`` when not rated);
* ``faults``: per match: seat, bot, kind, rule, message;
* ``rating_history``: per tournament, after each rated match index: its
  bots' mu and sigma;
* ``leases``: per tournament, the driver running it (one row at most);
* ``waits``: per tournament, what the holder of its lease is waiting for
  now (a ladder: its hosted referee that went away), since when and until
  when at most (one row at most, deleted when the wait ends or the lease
  is released).

Totals kept up to date as matches are stored (:mod:`tournaments.aggregates`),
so that pages and the leaderboard never read every match:

* ``bot_seat_stats``: per bot and seat: matches, wins, score sum, forfeits,
  wins while broken;
* ``pair_stats``: per pair of bots (``bot_a < bot_b``, ids): as opponents
  and as partners;
* ``fault_stats``: per bot and fault kind: count;
* ``role_stats``: per bot and role: rounds, won, value sum;
* ``fit_cache``: per tournament, the last batch fit and the
  ``results_version`` it was computed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from referee.outcomes import MatchStatus

SCHEMA_VERSION = 3

metadata = MetaData()

schema_info = Table("schema_info", metadata, Column("version", Integer, nullable=False))

tournaments = Table(
    "tournaments", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("game", String(32), nullable=False),
    Column("spec_json", Text, nullable=False),
    Column("fingerprint", String(32), nullable=False),
    Column("status", String(16), nullable=False),  # running | complete | stopped (a ladder)
    Column("total_matches", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("finished_at", Float),
    Column("live_through", Integer, nullable=False, server_default="-1"),
    Column("results_version", Integer, nullable=False, server_default="0"),
    Column("totals_version", Integer, nullable=False, server_default="0"),  # SCHEMA_VERSION once totals are built
)

bots = Table(
    "bots", metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False),
    Column("name", String(64), nullable=False),
    Column("command", Text, nullable=False),
    Column("external", Boolean, nullable=False),
    Column("mu", Float),
    Column("sigma", Float),
    UniqueConstraint("tournament_id", "name"),
)

matches = Table(
    "matches", metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("seed", String(24), nullable=False),  # 63-bit ints as text: portable across backends
    Column("seats_json", Text, nullable=False),
    Column("status", String(16), nullable=False),  # complete | aborted | void
    Column("result_json", Text, nullable=False),
    Column("log_path", Text),
    Column("decisions", Integer, nullable=False),
    Column("elapsed_s", Float, nullable=False),
    Column("finished_at", Float, nullable=False),
    Column("unit", BigInteger),
    Column("rating_weight", Float, nullable=False, server_default="0"),
    Column("match_id", String(128)),  # the match's id (its log's name); a ladder's differs from its index
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
    Column("bot_id", Integer),
    Column("place", Integer),
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

waits = Table(
    "waits", metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("holder", String(64), nullable=False),  # the lease holder that waits
    Column("what", Text, nullable=False),  # what it waits for, e.g. "the referee at 10.0.0.5:50051"
    Column("since", Float, nullable=False),  # unix seconds
    Column("until", Float, nullable=False),  # when it gives up (unix seconds)
)

bot_seat_stats = Table(
    "bot_seat_stats", metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("bot_id", Integer, primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("matches", Float, nullable=False),
    Column("wins", Float, nullable=False),
    Column("score_sum", Float, nullable=False),
    Column("forfeits", Float, nullable=False),
    Column("broken_wins", Float, nullable=False),  # wins in matches whose bot crashed, left or was forfeited
)

pair_stats = Table(
    "pair_stats", metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("bot_a", Integer, primary_key=True),
    Column("bot_b", Integer, primary_key=True),
    Column("matches", Float, nullable=False),
    Column("a_ahead", Float, nullable=False),
    Column("b_ahead", Float, nullable=False),
    Column("tied", Float, nullable=False),
    Column("partners", Float, nullable=False),
    Column("partners_won", Float, nullable=False),
    Column("partners_lost", Float, nullable=False),
    Column("partners_drawn", Float, nullable=False),
)

fault_stats = Table(
    "fault_stats", metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("bot_id", Integer, primary_key=True),
    Column("kind", String(32), primary_key=True),
    Column("n", Integer, nullable=False),
)

role_stats = Table(
    "role_stats", metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("bot_id", Integer, primary_key=True),
    Column("role", String(32), primary_key=True),
    Column("rounds", Float, nullable=False),
    Column("won", Float, nullable=False),
    Column("won_known", Float, nullable=False),
    Column("value_sum", Float, nullable=False),
    Column("value_known", Float, nullable=False),
)

fit_cache = Table(
    "fit_cache", metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("method", String(16), primary_key=True),
    Column("results_version", Integer, nullable=False),
    Column("computed_at", Float, nullable=False),
    Column("payload", Text, nullable=False),
)

#: indexes beyond the unique constraints (created for old databases by the migration too)
INDEXES = (
    Index("ix_seat_results_match", seat_results.c.match_id, seat_results.c.seat),
    Index("ix_seat_results_bot", seat_results.c.bot_id, seat_results.c.match_id),
    Index("ix_faults_match", faults.c.match_id),
    Index("ix_rating_history_bot", rating_history.c.tournament_id, rating_history.c.bot, rating_history.c.match_idx),
    Index("ix_matches_status", matches.c.tournament_id, matches.c.status),
    Index("ix_matches_match_id", matches.c.tournament_id, matches.c.match_id),
    Index("ix_pair_stats_b", pair_stats.c.tournament_id, pair_stats.c.bot_b),
)

#: columns added by schema v3 to tables of older databases: table -> [(column, SQL type and default)]
ADDED_COLUMNS = {
    "tournaments": [("live_through", "INTEGER NOT NULL DEFAULT -1"),
                    ("results_version", "INTEGER NOT NULL DEFAULT 0"),
                    ("totals_version", "INTEGER NOT NULL DEFAULT 0")],
    "bots": [("mu", "FLOAT"), ("sigma", "FLOAT")],
    "matches": [("unit", "BIGINT"), ("rating_weight", "FLOAT NOT NULL DEFAULT 0"), ("match_id", "VARCHAR(128)")],
    "seat_results": [("bot_id", "INTEGER"), ("place", "INTEGER")],
}


@dataclass
class MatchRow:
    """A stored match result (``result`` as written by the executor)."""

    idx: int
    seed: int
    seats: list[str]
    status: MatchStatus
    result: dict[str, Any]
    log_path: str | None
