"""The one write path of match results: a tournament's driver, the ladder and
``referee results import`` all store matches through :func:`record_matches`,
so every total and cache derived from the matches stays right.

In ONE transaction (the caller's), a batch of finished matches gets:

1. its rows: ``matches`` (with the rating unit and weight), ``seat_results``
   (with each seat's bot id and team place), ``faults``;
2. its share of the totals (:class:`tournaments.aggregates.Totals`) added
   to ``bot_seat_stats``, ``pair_stats``, ``fault_stats`` and ``role_stats``;
3. live TrueSkill advanced (:class:`tournaments.live.LiveRating`), in
   schedule index order, with its ``rating_history`` rows: how far it got is
   ``tournaments.live_through``. ``live="in_order"`` (a tournament's driver,
   whose results arrive out of order) applies only while the indices follow
   each other without a gap, so a match finishing early waits for the ones
   before it; ``live="all"`` (the ladder, an import) applies every stored
   match above the mark in index order. A match stored below the mark (an
   import out of order) makes the whole live rating be replayed
   (:func:`rebuild_live`): rare, O(matches).
4. ``tournaments.results_version`` bumped, which tells caches (the fit, the
   live pages) that something changed.

A match already stored (same tournament and index) is skipped: a match is
never counted twice.

:func:`rebuild` recomputes every derived column and total of a tournament
from its stored matches (a database written by an older version).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import trueskill
from sqlalchemy import and_, bindparam, delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from referee.outcomes import MatchStatus
from referee.runner import FAULT_TEXT_CHARS, capped
from tournaments.aggregates import PAIR_COLUMNS, ROLE_COLUMNS, SEAT_COLUMNS, Totals, rated
from tournaments.live import LiveRating
from tournaments.outcomes import teams_of
from tournaments.schema import (
    SCHEMA_VERSION,
    bot_seat_stats,
    bots,
    fault_stats,
    faults,
    matches,
    pair_stats,
    rating_history,
    role_stats,
    seat_results,
    tournaments,
)
from tournaments.spec import TrueSkillParams

#: a fault record keeps at most this much of its message (characters; the cut is noted with the size)
FAULT_MESSAGE_CHARS = FAULT_TEXT_CHARS
#: live modes of :func:`record_matches`
LIVE_MODES = ("in_order", "all")


@dataclass
class MatchRecord:
    """One finished match to store: ``idx`` its schedule index, ``seats``
    bot names in seat order, ``status`` ``complete|aborted|void``,
    ``result`` as the executor wrote it (``MatchOutcome.to_json()``),
    ``elapsed_s`` seconds, ``finished_at`` Unix seconds (default: now)."""

    idx: int
    seed: int
    seats: list[str]
    status: MatchStatus
    result: dict[str, Any]
    log_path: str | None = None
    decisions: int = 0
    elapsed_s: float = 0.0
    finished_at: float | None = None


class UnknownBot(KeyError):
    """A match names a bot the tournament does not have (add it first)."""


@dataclass
class Context:
    """What the write path needs of a tournament: its game, seats per match,
    teams (seat indices), TrueSkill parameters and bot ids by name."""

    tid: int
    game: str
    players: int
    teams: tuple[tuple[int, ...], ...]
    trueskill: TrueSkillParams
    bot_ids: dict[str, int]

    @classmethod
    def read(cls, c: Connection, tid: int, players: int | None = None) -> "Context":
        """The context of tournament ``tid``; ``players``: seats per match when
        the stored spec does not say (a tournament created without one)."""
        row = c.execute(select(tournaments.c.game, tournaments.c.spec_json).where(tournaments.c.id == tid)).first()
        if row is None:
            raise LookupError(f"no tournament with id {tid}")
        spec = json.loads(row.spec_json)
        players = int(spec.get("players") or players or 0)
        ids = {name: int(i) for i, name in c.execute(select(bots.c.id, bots.c.name).where(bots.c.tournament_id == tid))}
        return cls(tid, row.game, players, teams_of(row.game, players),
                   TrueSkillParams(**spec.get("trueskill", {})), ids)

    def bot_id(self, name: str) -> int:
        try:
            return self.bot_ids[name]
        except KeyError:
            raise UnknownBot(f"bot {name!r} is not a bot of this tournament") from None


def record_matches(c: Connection, tid: int, records: Sequence[MatchRecord], live: str = "in_order") -> int:
    """Store ``records`` of tournament ``tid`` inside the caller's transaction
    ``c`` (see the module docstring). Returns how many were new. Raises
    :class:`UnknownBot` (the caller's transaction should then roll back)."""
    if live not in LIVE_MODES:
        raise ValueError(f"live must be one of {', '.join(LIVE_MODES)}, got {live!r}")
    if not records:
        return 0
    # one writer per tournament at a time: its row is locked first, before any total row, so that
    # concurrent writers queue instead of deadlocking (SQLite: BEGIN IMMEDIATE already serialises)
    c.execute(select(tournaments.c.id).where(tournaments.c.id == tid).with_for_update())
    ctx = Context.read(c, tid, len(records[0].seats))
    wanted = sorted({r.idx for r in records})
    have = set()
    for k in range(0, len(wanted), 500):
        have.update(c.execute(select(matches.c.idx).where(
            (matches.c.tournament_id == tid) & matches.c.idx.in_(wanted[k:k + 500]))).scalars())
    new: dict[int, MatchRecord] = {}
    for r in records:
        if r.idx not in have and r.idx not in new:
            new[r.idx] = r
    if not new:
        return 0
    now = time.time()
    facts = {i: rated(ctx.game, ctx.players, r.seed, r.seats, r.status, r.result) for i, r in new.items()}
    c.execute(insert(matches), [
        {"tournament_id": tid, "idx": i, "seed": str(r.seed), "seats_json": json.dumps(r.seats), "status": r.status,
         "result_json": json.dumps(r.result, sort_keys=True), "log_path": r.log_path, "decisions": r.decisions,
         "elapsed_s": r.elapsed_s, "finished_at": r.finished_at if r.finished_at is not None else now,
         "unit": facts[i].unit, "rating_weight": facts[i].weight, "match_id": r.result.get("match_id")}
        for i, r in new.items()])
    ids = _match_ids(c, tid, list(new))
    seat_rows, fault_rows = [], []
    totals = Totals()
    for i, r in new.items():
        bot_ids = [ctx.bot_id(b) for b in r.seats]
        scores = r.result.get("scores") or [None] * len(r.seats)
        ranks = r.result.get("ranks") or [None] * len(r.seats)
        forfeited = set(r.result.get("forfeited") or [])
        for s, name in enumerate(r.seats):
            seat_rows.append({"match_id": ids[i], "seat": s, "bot": name, "score": scores[s], "rank": ranks[s],
                              "forfeited": s in forfeited, "bot_id": bot_ids[s], "place": facts[i].places[s]})
        for f in r.result.get("faults") or []:
            fault_rows.append({"match_id": ids[i], "seat": f["seat"], "bot": r.seats[f["seat"]], "kind": f["kind"],
                               "rule": f.get("rule", ""), "message": capped(f.get("message") or "", FAULT_MESSAGE_CHARS)})
        totals.add(ctx.game, ctx.players, bot_ids, r.status, r.result)
    c.execute(insert(seat_results), seat_rows)
    if fault_rows:
        c.execute(insert(faults), fault_rows)
    add_totals(c, tid, totals)
    mark = c.execute(select(tournaments.c.live_through).where(tournaments.c.id == tid)).scalar_one()
    if min(new) <= mark:
        rebuild_live(c, ctx)
    else:
        advance_live(c, ctx, live)
    c.execute(update(tournaments).where(tournaments.c.id == tid).values(
        results_version=tournaments.c.results_version + 1))
    return len(new)


def _match_ids(c: Connection, tid: int, idxs: list[int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for k in range(0, len(idxs), 500):
        q = select(matches.c.idx, matches.c.id).where(
            (matches.c.tournament_id == tid) & matches.c.idx.in_(idxs[k:k + 500]))
        out.update({int(i): int(mid) for i, mid in c.execute(q)})
    return out


# --------------------------------------------------------------------------- totals
#: the INSERT with ON CONFLICT of each supported backend
_UPSERT = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


def _add(c: Connection, table: Any, keys: tuple[str, ...], cols: tuple[str, ...],
         rows: Iterable[tuple[tuple, Sequence[float]]]) -> None:
    """Add ``rows`` (key values, column values) to ``table``: insert a new
    key, or add the values to the row already there (one statement, both backends)."""
    params = [dict(zip(keys, k), **dict(zip(cols, v))) for k, v in rows]
    if not params:
        return
    stmt = _UPSERT[c.dialect.name](table)
    stmt = stmt.on_conflict_do_update(index_elements=list(keys),
                                      set_={col: table.c[col] + stmt.excluded[col] for col in cols})
    c.execute(stmt, params)


def add_totals(c: Connection, tid: int, t: Totals) -> None:
    """Add a batch's :class:`Totals` to the tournament's total tables."""
    _add(c, bot_seat_stats, ("tournament_id", "bot_id", "seat"), SEAT_COLUMNS,
         (((tid, b, s), v) for (b, s), v in t.seat.items()))
    _add(c, pair_stats, ("tournament_id", "bot_a", "bot_b"), PAIR_COLUMNS,
         (((tid, a, b), v) for (a, b), v in t.pair.items()))
    _add(c, fault_stats, ("tournament_id", "bot_id", "kind"), ("n",),
         (((tid, b, k), (n,)) for (b, k), n in t.fault.items()))
    _add(c, role_stats, ("tournament_id", "bot_id", "role"), ROLE_COLUMNS,
         (((tid, b, r), v) for (b, r), v in t.role.items()))


# --------------------------------------------------------------------------- live TrueSkill
def _pending(c: Connection, tid: int, after: int, chunk: int = 20_000) -> Iterator[tuple[int, str, float, list]]:
    """Stored matches with index > ``after``, in index order: ``(idx, status,
    weight, [(bot_id, name, place) per seat])``, read ``chunk`` matches at a time."""
    while True:
        q = (select(matches.c.idx, matches.c.status, matches.c.rating_weight, seat_results.c.bot_id,
                    seat_results.c.bot, seat_results.c.place)
             .join(seat_results, seat_results.c.match_id == matches.c.id)
             .where((matches.c.tournament_id == tid) & (matches.c.idx > after)
                    & (matches.c.idx <= after + chunk))
             .order_by(matches.c.idx, seat_results.c.seat))
        rows = c.execute(q).all()
        if not rows:
            nxt = c.execute(select(matches.c.idx).where((matches.c.tournament_id == tid) & (matches.c.idx > after))
                            .order_by(matches.c.idx).limit(1)).scalar()
            if nxt is None:
                return
            after = nxt - 1
            continue
        cur: tuple[int, str, float, list] | None = None
        for idx, status, weight, bot_id, name, place in rows:
            if cur is None or cur[0] != idx:
                if cur is not None:
                    yield cur
                cur = (int(idx), status, float(weight), [])
            cur[3].append((int(bot_id), name, place))
        assert cur is not None
        yield cur
        after = cur[0]


def advance_live(c: Connection, ctx: Context, live: str = "all") -> int:
    """Apply live TrueSkill to the stored matches above the tournament's
    ``live_through`` mark, in index order (``"in_order"``: only while no index
    is missing), writing the bots' ``mu``/``sigma``, ``rating_history`` rows
    and the new mark. Returns the new mark."""
    tid = ctx.tid
    mark = c.execute(select(tournaments.c.live_through).where(tournaments.c.id == tid)).scalar_one()
    rater = LiveRating(ctx.trueskill)
    ratings: dict[int, trueskill.Rating] = {}
    names: dict[int, str] = {}
    history: list[dict[str, Any]] = []
    changed: set[int] = set()
    start = mark
    for idx, status, weight, seats in _pending(c, tid, mark):
        if live == "in_order" and idx != mark + 1:
            break
        mark = idx
        if status != "complete":
            continue
        missing = [b for b, _, _ in seats if b not in ratings]
        if missing:
            ratings.update(_current(c, missing, rater.env))
        for b, name, _ in seats:
            names[b] = name
        places = [p for _, _, p in seats]
        if places and places[0] is not None:
            teams = [[seats[s][0] for s in team] for team in ctx.teams]
            if rater.update(ratings, teams, [places[team[0]] for team in ctx.teams], weight):
                changed.update(b for b, _, _ in seats)
        for b in dict.fromkeys(b for b, _, _ in seats):
            history.append({"tournament_id": tid, "match_idx": idx, "bot": names[b], "mu": ratings[b].mu,
                            "sigma": ratings[b].sigma})
        if len(history) >= 50_000:
            c.execute(insert(rating_history), history)
            history.clear()
    if history:
        c.execute(insert(rating_history), history)
    if changed:
        c.execute(update(bots).where(bots.c.id == bindparam("bid")).values(mu=bindparam("new_mu"), sigma=bindparam("new_sigma")),
                  [{"bid": b, "new_mu": ratings[b].mu, "new_sigma": ratings[b].sigma} for b in sorted(changed)])
    if mark != start:
        c.execute(update(tournaments).where(tournaments.c.id == tid).values(live_through=mark))
    return mark


def _current(c: Connection, ids: list[int], env: trueskill.TrueSkill) -> dict[int, trueskill.Rating]:
    """The bots' live ratings as stored (the prior for a bot not rated yet)."""
    out = {}
    for k in range(0, len(ids), 500):
        for b, mu, sigma in c.execute(select(bots.c.id, bots.c.mu, bots.c.sigma).where(bots.c.id.in_(ids[k:k + 500]))):
            out[int(b)] = env.create_rating() if mu is None else env.create_rating(mu, sigma)
    return out


def rebuild_live(c: Connection, ctx: Context) -> None:
    """Replay live TrueSkill over every stored match in index order (the
    mark, the bots' ratings and ``rating_history`` are rebuilt). O(matches)."""
    tid = ctx.tid
    c.execute(delete(rating_history).where(rating_history.c.tournament_id == tid))
    c.execute(update(bots).where(bots.c.tournament_id == tid).values(mu=None, sigma=None))
    c.execute(update(tournaments).where(tournaments.c.id == tid).values(live_through=-1))
    advance_live(c, ctx, "all")


# --------------------------------------------------------------------------- rebuilding
def rebuild(c: Connection, tid: int, chunk: int = 5_000) -> None:
    """Recompute every derived column and total of tournament ``tid`` from its
    stored matches, inside the caller's transaction: seat bot ids and places,
    match units and weights, the total tables, live TrueSkill and its history.
    A bot named by a match but missing from ``bots`` is added (external,
    no command). O(matches)."""
    for table in (bot_seat_stats, pair_stats, fault_stats, role_stats):
        c.execute(delete(table).where(table.c.tournament_id == tid))
    first = c.execute(select(matches.c.seats_json).where(matches.c.tournament_id == tid).limit(1)).scalar()
    ctx = Context.read(c, tid, len(json.loads(first)) if first else None)
    last = -1
    while True:
        rows = c.execute(select(matches.c.id, matches.c.idx, matches.c.seed, matches.c.seats_json, matches.c.status,
                                matches.c.result_json)
                         .where((matches.c.tournament_id == tid) & (matches.c.idx > last))
                         .order_by(matches.c.idx).limit(chunk)).all()
        if not rows:
            break
        totals = Totals()
        match_params, seat_params = [], []
        for mid, idx, seed, seats_json, status, result_json in rows:
            seats, result = json.loads(seats_json), json.loads(result_json)
            for name in seats:
                if name not in ctx.bot_ids:
                    ctx.bot_ids[name] = int(c.execute(insert(bots).values(
                        tournament_id=tid, name=name, command="", external=True)).inserted_primary_key[0])
            facts = rated(ctx.game, ctx.players, int(seed), seats, status, result)
            match_params.append({"mid": mid, "new_unit": facts.unit, "new_weight": facts.weight,
                                 "new_match_id": result.get("match_id")})
            seat_params.extend({"mid": mid, "at_seat": s, "new_bot": ctx.bot_ids[name], "new_place": facts.places[s]}
                               for s, name in enumerate(seats))
            totals.add(ctx.game, ctx.players, [ctx.bot_ids[b] for b in seats], status, result)
            last = idx
        c.execute(update(matches).where(matches.c.id == bindparam("mid")).values(
            unit=bindparam("new_unit"), rating_weight=bindparam("new_weight"), match_id=bindparam("new_match_id")),
            match_params)
        c.execute(update(seat_results).where(and_(seat_results.c.match_id == bindparam("mid"),
                                                  seat_results.c.seat == bindparam("at_seat")))
                  .values(bot_id=bindparam("new_bot"), place=bindparam("new_place")), seat_params)
        add_totals(c, tid, totals)
    rebuild_live(c, ctx)
    c.execute(update(tournaments).where(tournaments.c.id == tid).values(
        totals_version=SCHEMA_VERSION, results_version=tournaments.c.results_version + 1))
