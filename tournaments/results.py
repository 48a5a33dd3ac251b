"""Per-match results of a stored tournament, for export (``referee results``)
and the tournament list (``referee tournament list``)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from tournaments.store import Store

#: columns of a results export, in order
RESULT_FIELDS = ("match", "seed", "status", "seats", "scores", "ranks", "forfeited", "faults", "log_path")


def match_results(store: Store, tid: int) -> list[dict[str, Any]]:
    """One dict per stored match, in schedule order: ``match`` (its index in
    the schedule), ``seed``, ``status``, ``seats`` (bot names in seat order),
    ``scores`` (per seat, the game's unit), ``ranks`` (per seat, 1 = best),
    ``forfeited`` (seats), ``faults`` (per seat, how many; ignored stray
    replies included) and ``log_path``."""
    out = []
    for m in store.matches(tid):
        r = m.result
        per_seat = [0] * len(m.seats)
        for f in r.get("faults") or []:
            per_seat[f["seat"]] += 1
        scores = r.get("scores")
        out.append({"match": m.idx, "seed": m.seed, "status": m.status, "seats": m.seats,
                    "scores": [int(x) if float(x).is_integer() else x for x in scores] if scores else None,
                    "ranks": r.get("ranks"), "forfeited": r.get("forfeited") or [], "faults": per_seat,
                    "log_path": m.log_path})
    return out


def render_results(rows: list[dict[str, Any]], fmt: str) -> str:
    """``json`` (a list of the dicts of :func:`match_results`) or ``csv`` (one
    line per match, per-seat lists joined by spaces, ``\\n`` line ends).
    ``ValueError`` for another format."""
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if fmt != "csv":
        raise ValueError("format must be json or csv")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(RESULT_FIELDS)
    for r in rows:
        w.writerow([" ".join(map(str, v)) if isinstance(v, list) else ("" if v is None else v)
                    for v in (r[k] for k in RESULT_FIELDS)])
    return buf.getvalue()


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
