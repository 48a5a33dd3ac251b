"""``referee results import``: match results from a JSON Lines file into a
tournament of the results store, through the same write path as played
matches (:func:`tournaments.record.record_matches`), so every total, live
rating and cache is what playing those matches would have made.

One match per line, in the shape ``referee results --format jsonl`` writes
(:func:`tournaments.results.iter_results`): ``match`` (schedule index),
``seed``, ``status`` (``complete``, ``aborted`` or ``void``), ``seats`` (bot
names in seat order), ``scores`` and ``ranks`` (per seat, required for a
complete match), ``forfeited`` (seats), ``faults`` (per seat, how many),
``log_path``; optionally ``fault_kinds`` (per seat, kind -> how many: kept
as those kinds, else the faults count as kind ``unknown``), ``rating_weight``
(0..1), ``summary`` (the engine's match summary: role tables), ``match_id``,
``decisions`` and ``elapsed_s``.

The file is read twice, streamed (bounded memory: the set of match indices
and of bot names): first every line is checked and every problem reported
with its line number (nothing is written if any is wrong); then the
matches are stored in batches of :data:`BATCH` matches, one transaction
each. A match already stored under its index is skipped, so importing the
same file again changes nothing; ``append`` instead numbers the file's
matches after the tournament's last one (to merge shards played apart).
While it imports, the tournament's lease is held, so no driver plays it at
the same time.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from referee.games import GAME_IDS, game_class
from referee.outcomes import MatchStatus
from referee.words import counts_text
from tournaments.record import MatchRecord
from tournaments.spec import TrueSkillParams
from tournaments.store import LeaseHeld, LeaseHolder, Store

#: matches stored per transaction
BATCH = 2_000
#: problems reported before the check stops reading
MAX_PROBLEMS = 20
STATUSES = tuple(MatchStatus)


class BadImport(ValueError):
    """The file cannot be imported; ``problems`` are ``(line, message)``
    (line 0: the file as a whole). Nothing was written."""

    def __init__(self, path: str, problems: list[tuple[int, str]]):
        self.problems = problems
        lines = "\n".join(f"  {path}:{n}: {msg}" if n else f"  {path}: {msg}" for n, msg in problems)
        more = "\n  (stopped after the first problems)" if len(problems) >= MAX_PROBLEMS else ""
        super().__init__(f"{path}: cannot import, nothing was written:\n{lines}{more}")


@dataclass
class Checked:
    """What the check of a file found: ``matches`` (lines), ``bots`` (names,
    first seen first), the lowest and highest match index."""

    matches: int = 0
    bots: dict[str, None] = field(default_factory=dict)
    low: int = 0
    high: int = -1


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open("r", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                yield n, line


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)


def check_record(d: Any, players: int) -> str | None:
    """Why one decoded line is not a match record for ``players`` seats (``None``: it is)."""
    if not isinstance(d, dict):
        return "not a JSON object"
    k = players
    if not _is_int(d.get("match")) or d["match"] < 0:
        return "'match' must be an integer >= 0 (the match's index)"
    if not _is_int(d.get("seed")) or not 0 <= d["seed"] < 2 ** 63:
        return "'seed' must be an integer in 0..2^63-1"
    if d.get("status") not in STATUSES:
        return f"'status' must be one of {', '.join(STATUSES)}, got {d.get('status')!r}"
    seats = d.get("seats")
    if not isinstance(seats, list) or len(seats) != k or not all(isinstance(s, str) and 0 < len(s) <= 64
                                                                  for s in seats):
        return f"'seats' must be a list of {k} bot names (1-64 characters)"
    complete = d["status"] == "complete"
    for key, ok, what in (("scores", _is_number, "numbers"), ("ranks", lambda v: _is_int(v) and 1 <= v <= k,
                                                                    f"integers 1..{k}")):
        v = d.get(key)
        if v is None and not complete:
            continue
        if not isinstance(v, list) or len(v) != k or not all(ok(x) for x in v):
            return f"'{key}' must be a list of {k} {what}" + (" (required for a complete match)" if complete else "")
    if not isinstance(d.get("forfeited", []), list) or not all(_is_int(s) and 0 <= s < k
                                                                 for s in d.get("forfeited", [])):
        return f"'forfeited' must be a list of seats 0..{k - 1}"
    faults = d.get("faults")
    if faults is not None and (not isinstance(faults, list) or len(faults) != k
                               or not all(_is_int(x) and x >= 0 for x in faults)):
        return f"'faults' must be a list of {k} counts (per seat)"
    kinds = d.get("fault_kinds")
    if kinds is not None and (not isinstance(kinds, list) or len(kinds) != k or not all(
            isinstance(x, dict) and all(isinstance(a, str) and _is_int(b) and b >= 0 for a, b in x.items())
            for x in kinds)):
        return f"'fault_kinds' must be a list of {k} objects (fault kind -> count)"
    w = d.get("rating_weight", 1.0)
    if not _is_number(w) or not 0 <= w <= 1:
        return "'rating_weight' must be a number in 0..1"
    if d.get("log_path") is not None and not isinstance(d["log_path"], str):
        return "'log_path' must be a path or null"
    if d.get("summary") is not None and not isinstance(d["summary"], dict):
        return "'summary' must be an object"
    return None


def check_file(path: Path, game: str, players: int) -> Checked:
    """Read the whole file once and check every line. Raises
    :class:`BadImport` listing the problems (with line numbers), or
    ``OSError`` when the file cannot be read."""
    problems: list[tuple[int, str]] = []
    if game not in GAME_IDS:
        problems.append((0, f"unknown game {game!r} (known: {', '.join(GAME_IDS)})"))
    elif players not in game_class(game).player_counts:
        counts = counts_text(game_class(game).player_counts)
        problems.append((0, f"{game} is played by {counts} players, not {players}"))
    if problems:
        raise BadImport(str(path), problems)
    out = Checked()
    seen: dict[int, int] = {}
    for n, line in _lines(path):
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append((n, f"not JSON ({e.msg} at column {e.colno})"))
        else:
            why = check_record(d, players)
            if why is None and d["match"] in seen:
                why = f"match {d['match']} is also on line {seen[d['match']]}"
            if why is not None:
                problems.append((n, why))
            else:
                seen[d["match"]] = n
                out.matches += 1
                out.bots.update(dict.fromkeys(d["seats"]))
                out.low = d["match"] if out.matches == 1 else min(out.low, d["match"])
                out.high = max(out.high, d["match"])
        if len(problems) >= MAX_PROBLEMS:
            break
    if not problems and out.matches == 0:
        problems.append((0, "no match in the file"))
    if problems:
        raise BadImport(str(path), problems)
    return out


def to_record(d: dict[str, Any], idx: int, tournament: str) -> MatchRecord:
    """A checked line as the record the write path stores under index ``idx``
    of ``tournament`` (its match id, when the line has none: ``<tournament>-m<idx>``)."""
    faults: list[dict[str, Any]] = []
    kinds = d.get("fault_kinds")
    for s, n in enumerate(d.get("faults") or [0] * len(d["seats"])):
        per = dict(kinds[s]) if kinds else ({"unknown": n} if n else {})
        for kind, count in sorted(per.items()):
            faults.extend({"seat": s, "kind": kind, "rule": "", "message": "imported"} for _ in range(count))
    result: dict[str, Any] = {
        "match_id": d.get("match_id") or f"{tournament}-m{idx:05d}", "status": d["status"], "reason": "",
        "scores": d.get("scores"), "ranks": d.get("ranks"), "outcomes": [], "summary": d.get("summary") or {},
        "faults": faults, "forfeited": list(d.get("forfeited") or []), "decisions": int(d.get("decisions") or 0),
        "log_path": d.get("log_path"), "rating_weight": float(d.get("rating_weight", 1.0))}
    return MatchRecord(idx, int(d["seed"]), list(d["seats"]), MatchStatus(d["status"]), result, d.get("log_path"),
                       int(d.get("decisions") or 0), float(d.get("elapsed_s") or 0.0))


@dataclass
class Imported:
    """What an import did: ``new`` matches stored, ``skipped`` (already stored), ``bots_added``, ``created``."""

    tournament: str
    new: int
    skipped: int
    bots_added: int
    created: bool


def import_results(store: Store, path: Path, tournament: str, game: str, players: int, append: bool = False,
                   on_progress: Callable[[int, int], None] | None = None) -> Imported:
    """Import ``path`` into ``tournament`` (created as an ``imported``
    tournament of ``game`` with ``players`` seats when absent). Raises
    :class:`BadImport` (nothing written) for a bad file, a tournament of
    another game or player count, or one a driver is running;
    :class:`~tournaments.store.StorageError` when the database fails.
    ``on_progress(done, total)`` after every batch."""
    checked = check_file(path, game, players)
    me = LeaseHolder.me()
    t = store.tournament(tournament)
    created = t is None
    if t is None:
        spec = {"name": tournament, "game": game, "players": players, "schedule": "imported", "games": 1,
                "seed": 0, "confidence": 0.95, "trueskill": TrueSkillParams().__dict__,
                "bots": [{"name": b, "command": "", "external": True, "token": ""} for b in checked.bots]}
        tid = store.create_tournament(tournament, game, spec, "imported", checked.matches,
                                      [(b, "", True) for b in checked.bots], lease_holder=me)
    else:
        stored = json.loads(t["spec_json"])
        if t["game"] != game or int(stored.get("players", players)) != players:
            raise BadImport(str(path), [(0, f"tournament {tournament!r} is {t['game']} with "
                                                f"{stored.get('players')} players, not {game} with {players}")])
        tid = int(t["id"])
        try:
            store.acquire_lease(tid, me)
        except LeaseHeld as e:
            raise BadImport(str(path), [(0, f"tournament {tournament!r} {e}")]) from None
    try:
        added = 0 if created else len(store.add_bots(tid, checked.bots))
        offset = 0
        if append and not created:
            last = store.match_page(tid, 0, 1)[1]
            offset = (last[0]["idx"] + 1 - checked.low) if last else -checked.low
        new = done = 0
        batch: list[MatchRecord] = []
        for _, line in _lines(path):
            d = json.loads(line)
            if append:  # renumbered: a shard's ids would clash with the tournament's
                d["match_id"] = None
            batch.append(to_record(d, d["match"] + offset, tournament))
            if len(batch) >= BATCH:
                new += store.record_matches(tid, batch, live="all")
                done += len(batch)
                batch = []
                if on_progress:
                    on_progress(done, checked.matches)
        if batch:
            new += store.record_matches(tid, batch, live="all")
            done += len(batch)
            if on_progress:
                on_progress(done, checked.matches)
        count = store.match_count(tid)
        store.set_total_matches(tid, max(count, int(store.tournament(tournament)["total_matches"])))
        if created or json.loads(store.tournament(tournament)["spec_json"]).get("schedule") == "imported":
            store.set_tournament_status(tid, "complete")
    finally:
        store.release_lease(tid, me)
    return Imported(tournament, new, checked.matches - new, added, created)
