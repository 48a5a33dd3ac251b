"""Per-match results of a stored tournament, for export (``referee results``)
and the tournament list (``referee tournament list``)."""

from __future__ import annotations

import csv
import json
from typing import Any, Iterable, Iterator, TextIO

from tournaments.store import Store

#: columns of a results export, in order
RESULT_FIELDS = ("match", "seed", "status", "seats", "scores", "ranks", "forfeited", "faults", "log_path")
#: export formats: json (one list), csv (one line per match), jsonl (one JSON object per line, with the extras)
EXPORT_FORMATS = ("csv", "json", "jsonl")


def iter_results(store: Store, tid: int, extras: bool = False) -> Iterator[dict[str, Any]]:
    """One dict per stored match, in schedule order, streamed: ``match`` (its
    index in the schedule), ``seed``, ``status``, ``seats`` (bot names in
    seat order), ``scores`` (per seat, the game's unit), ``ranks`` (per
    seat, 1 = best), ``forfeited`` (seats), ``faults`` (per seat, how many;
    ignored stray replies included) and ``log_path``. ``extras`` adds what
    ``referee results import`` needs to rebuild every total exactly:
    ``fault_kinds`` (per seat, kind -> count), ``rating_weight`` (when below
    1), ``summary``, ``match_id``, ``decisions``, ``elapsed_s``."""
    for m in store.iter_matches(tid):
        r = m.result
        per_seat = [0] * len(m.seats)
        kinds: list[dict[str, int]] = [{} for _ in m.seats]
        for f in r.get("faults") or []:
            per_seat[f["seat"]] += 1
            kinds[f["seat"]][f["kind"]] = kinds[f["seat"]].get(f["kind"], 0) + 1
        scores = r.get("scores")
        d: dict[str, Any] = {
            "match": m.idx, "seed": m.seed, "status": m.status, "seats": m.seats,
            "scores": [int(x) if float(x).is_integer() else x for x in scores] if scores else None,
            "ranks": r.get("ranks"), "forfeited": r.get("forfeited") or [], "faults": per_seat,
            "log_path": m.log_path}
        if extras:
            d["fault_kinds"] = kinds
            if float(r.get("rating_weight", 1.0)) != 1.0:
                d["rating_weight"] = float(r["rating_weight"])
            d["summary"] = r.get("summary") or {}
            d["match_id"] = r.get("match_id") or f"m{m.idx:05d}"
            d["decisions"] = int(r.get("decisions") or 0)
        yield d


def match_results(store: Store, tid: int) -> list[dict[str, Any]]:
    """Every match of :func:`iter_results` as a list (O(matches) memory)."""
    return list(iter_results(store, tid))


def write_results(rows: Iterable[dict[str, Any]], fmt: str, out: TextIO) -> int:
    """Write ``rows`` to ``out`` as ``json`` (one list), ``csv`` (one line
    per match, per-seat lists joined by spaces, ``\\n`` line ends) or
    ``jsonl`` (one object per line), streamed. Returns the rows written.
    ``ValueError`` for another format."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(EXPORT_FORMATS)}")
    n = 0
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(RESULT_FIELDS)
        for r in rows:
            w.writerow([" ".join(map(str, v)) if isinstance(v, list) else ("" if v is None else v)
                        for v in (r[k] for k in RESULT_FIELDS)])
            n += 1
        return n
    if fmt == "jsonl":
        for r in rows:
            out.write(json.dumps(r, separators=(",", ":")) + "\n")
            n += 1
        return n
    out.write("[")
    for r in rows:
        out.write(("\n" if n == 0 else ",\n") + "\n".join("  " + line for line in json.dumps(r, indent=2).splitlines()))
        n += 1
    out.write("\n]\n" if n else "]\n")
    return n


def tournament_list(store: Store) -> list[dict[str, Any]]:
    """Every tournament in the store, newest first: ``name``, ``game``,
    ``status`` (``running``, ``interrupted``, ``stopped`` (a ladder) or ``complete``, see
    :meth:`Store.run_state`), ``matches`` (stored), ``total`` (scheduled),
    ``created_at`` (seconds since the epoch)."""
    out = []
    for t in store.list_tournaments():
        out.append({"name": t["name"], "game": t["game"], "status": store.run_state(t)[0],
                    "matches": store.match_count(t["id"]), "total": t["total_matches"],
                    "created_at": t["created_at"]})
    return sorted(out, key=lambda d: d["created_at"] or 0, reverse=True)
