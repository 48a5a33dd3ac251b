"""The index of the matches being played: ``<log_dir>/.running``.

A tournament of a million matches has a million logs in its log directory;
the live site must not list that directory to find the few matches in
progress. The driver (:mod:`tournaments.run`) and the ladder
(:mod:`tournaments.ladder`) keep instead, in ``<log_dir>/.running``, the
ids of the matches they are playing: a JSON list of strings, rewritten
whole (temporary file, then ``os.replace``) each time a match starts or
ends, so a reader sees the old list or the new one, never a torn one. One
process writes a log directory (the tournament's lease); its writes happen
on its event loop, one at a time.

The index only feeds the pages: a write that fails (a full disk) is
ignored here, and the match goes on (its log and its result are what
count, and fail loudly elsewhere). A driver killed mid-match leaves its ids
behind; readers skip an id whose log is complete or missing.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

RUNNING = ".running"


class RunningIndex:
    """The writer of ``<log_dir>/.running`` (see the module docstring)."""

    def __init__(self, log_dir: Path):
        self.path = Path(log_dir) / RUNNING
        self._ids: dict[str, None] = {}  # insertion order: oldest first

    def reset(self) -> None:
        """Start empty (a driver starting: whatever a dead run left is stale)."""
        self._ids.clear()
        self._write()

    @contextmanager
    def playing(self, match_id: str) -> Iterator[None]:
        """``match_id`` is listed while the ``with`` block runs."""
        self._ids[match_id] = None
        self._write()
        try:
            yield
        finally:
            self._ids.pop(match_id, None)
            self._write()

    def _write(self) -> None:
        tmp = self.path.with_name(f"{RUNNING}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(list(self._ids)), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass  # see the module docstring: the pages miss a match in progress, nothing else


def read_running(log_dir: Path) -> list[str] | None:
    """The match ids listed in ``<log_dir>/.running``, oldest first; ``None``
    when there is no index (logs written before it existed) or it cannot be
    read. O(matches in progress)."""
    try:
        ids = json.loads((Path(log_dir) / RUNNING).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(ids, list):
        return None
    return [i for i in ids if isinstance(i, str)]
