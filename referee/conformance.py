"""Conformance runner: answers the spec's test vectors with the real engines.

A vector file is a JSON object ``{"game", "spec", "cases": [...]}`` (format in
shared/rules/CONVENTIONS.md). For every case the game's conformance module
(``referee/games/<game>/conformance.py``) computes an answer from ``case``
(``kind``, ``input``, ``players``, ``variant``, ``params``); the runner
compares it with ``expect``. Card lists compare as multisets: before the
comparison every list whose items are all card codes is sorted. A game
module may export ``normalize(kind, answer) -> answer`` to canonicalise
further (e.g. a list of legal plays whose order does not matter).
"""

from __future__ import annotations

import json
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from referee.cards import is_card
from referee.games import UnknownGame, conformance_module


@dataclass
class CaseOutcome:
    id: str
    game: str
    status: str  # "passed" | "failed" | "skipped"
    expected: Any = None
    actual: Any = None
    reason: str = ""


@dataclass
class Report:
    outcomes: list[CaseOutcome] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def ok(self) -> bool:
        return self.count("failed") == 0


def canon(value: Any) -> Any:
    """Canonical form for comparison: card-code lists sorted, recursively."""
    if isinstance(value, dict):
        return {k: canon(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [canon(v) for v in value]
        if items and all(is_card(v) for v in items):
            return sorted(items)
        return items
    return value


def vector_files(paths: list[Path]) -> list[Path]:
    """Every ``*.json`` in the given directories (sorted), plus given files."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(p.glob("*.json")))
        elif p.is_file():
            out.append(p)
        else:
            raise FileNotFoundError(f"no such vector file or directory: {p}")
    return out


def run_case(game: str, case: dict[str, Any], mod: Any) -> CaseOutcome:
    cid = str(case.get("id", "?"))
    queries: dict[str, Callable[[dict[str, Any]], Any]] = mod.QUERIES
    kind = case.get("kind")
    if kind not in queries:
        return CaseOutcome(cid, game, "failed", case.get("expect"), None,
                           f"query kind {kind!r} is not answered by the {game} engine")
    try:
        actual = queries[kind](case)
    except Exception as e:  # an engine bug must show up as a failing case, not a crash
        return CaseOutcome(cid, game, "failed", case.get("expect"), None,
                           f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}")
    norm = getattr(mod, "normalize", None)
    exp = case.get("expect")
    a, b = canon(actual), canon(exp)
    if norm is not None:
        a, b = norm(kind, a), norm(kind, b)
    status = "passed" if a == b else "failed"
    return CaseOutcome(cid, game, status, exp, actual)


def run(paths: list[Path], games: set[str] | None = None) -> Report:
    """Run every case of every vector file under ``paths``.

    Raises ``FileNotFoundError`` for a missing path and ``ValueError`` (naming
    the file) for a file that is not a vector file.
    """
    report = Report()
    for f in vector_files(paths):
        try:
            doc = json.loads(f.read_text())
            game, cases = doc["game"], doc["cases"]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise ValueError(f"{f}: not a vector file ({e})") from e
        if games and game not in games:
            continue
        try:
            mod = conformance_module(game)
        except UnknownGame:
            mod = None
        for case in cases:
            if mod is None:
                report.outcomes.append(CaseOutcome(str(case.get("id")), game, "skipped",
                                                   reason=f"game {game!r} not implemented"))
            else:
                report.outcomes.append(run_case(game, case, mod))
    return report
