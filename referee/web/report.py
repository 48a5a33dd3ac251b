"""``referee report``: a tournament as a static site that opens from the file
system and works offline (see :mod:`referee.web.site` for the page layout).

Its size and time are bounded whatever the number of matches: the match
list covers the newest ``max_matches`` matches (pages of 100; ``referee
results`` exports every match), replays are written for those of them that
have a log, each bot page shows its newest 100 matches and faults and its
100 most frequent opponents, and ``h2h.csv`` holds every pair of bots.
Cost: O(bots × (their page's reads) + max_matches × (a replay each)).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.web.data import FAULTS_SHOWN, PAGE_ROWS, Snapshot, compute_snapshot
from referee.web.replay import NotAMatchLog, read_log, view_slug, views
from referee.web.site import (
    Links,
    Pages,
    page_count,
    read_tail,
    replay_href,
    replay_page,
    slug,
    static_files,
    stderr_href,
    stderr_is_empty,
    stderr_path,
)
from referee.words import plural
from tournaments.store import Store

#: the newest matches the report's match list covers, by default
REPORT_MATCHES = 10_000


@dataclass
class ReportSummary:
    out: Path
    pages: int
    replays: int
    skipped: list[str]  # listed matches whose log is unreadable, with the reason
    matches_listed: int = 0
    matches_stored: int = 0
    left_out: list[str] = field(default_factory=list)  # what the report does not hold, said in its summary

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def write_report(store: Store, t: dict[str, Any], out: Path, max_matches: int = REPORT_MATCHES,
                 snap: Snapshot | None = None) -> ReportSummary:
    """Write the pages of tournament row ``t`` under ``out`` (created; files
    written by an earlier report are replaced). ``max_matches``: how many of
    the newest matches are listed (pages of 100; 0: none, the match list says
    so), replayed when they have a log. Raises ``OSError`` when ``out`` cannot be written,
    :class:`tournaments.store.StorageError` when the database fails."""
    snap = snap or compute_snapshot(store, t)
    out.mkdir(parents=True, exist_ok=True)
    links = Links(static=True)
    pages = Pages(store, snap, t=t, live=False, links=links)
    (out / "static").mkdir(exist_ok=True)
    for f in static_files():
        shutil.copyfile(f, out / "static" / f.name)
    n_pages = 0

    def write(rel: str, text: str) -> None:
        nonlocal n_pages
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        n_pages += 1

    for n in range(1, page_count(len(snap.board)) + 1):
        write(links.index(n), pages.index(n))
    if snap.entrants is not None:
        for n in range(1, page_count(len(snap.entrants)) + 1):
            write(links.entrants(n), pages.entrants(n))
    write("h2h.html", pages.h2h(50))
    with (out / "h2h.csv").open("w", encoding="utf-8", newline="") as f:
        for chunk in pages.h2h_csv():
            f.write(chunk)

    stored = snap.done
    listed = min(stored, max(0, max_matches))
    listed_pages = page_count(listed)  # one page (saying none is listed) when there is none
    if listed == stored:
        note = ""
    elif listed:
        note = f"the newest {listed:,} of {stored:,} matches; `referee results {snap.name}` exports every match"
    else:
        note = (f"none of the {stored:,} {plural(stored, 'match', 'matches')} is listed here; "
                f"`referee results {snap.name}` exports every match")
    replays, no_log, skipped = 0, 0, []
    pages.replayed = set()
    for n in range(1, listed_pages + 1):
        infos, p = pages.match_list(n, cap=listed)
        for m in infos:
            why = _write_replay(out, m, pages, write)
            if why is None:
                replays += 1
                pages.replayed.add(m.match_id)
                m.replay = replay_href(m.match_id)
            if why:
                skipped.append(f"{m.match_id}: {why}")
            elif why is not None:
                no_log += 1
        write(links.matches(n), pages.render_matches(infos, p, note=note))

    copied_stderr: set[str] = set()
    for b in snap.bots:
        name = b["name"]
        write(f"bots/{pages.bot_slug(name)}.html", pages.bot(name))
        _, faults = store.bot_faults(snap.tid, name, FAULTS_SHOWN)  # the faults its page lists
        for f in faults:
            src = stderr_path(snap.log_dir, f["match_id"], f["seat"], name)
            rel = stderr_href(f["match_id"], f["seat"])
            if src is not None and not stderr_is_empty(src) and rel not in copied_stderr:
                dst = out / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.write_bytes(read_tail(src))
                copied_stderr.add(rel)
    left_out = []
    if 0 < listed < stored:
        left_out.append(f"matches older than the newest {listed:,} of {stored:,} (no list page, no replay: "
                        f"`referee results {snap.name}` exports them)")
    elif listed < stored:
        left_out.append(f"the match list and every replay, none of the {stored:,} "
                        f"{plural(stored, 'match', 'matches')} listed "
                        f"(`referee results {snap.name}` exports them)")
    for what, beyond in (("matches", f"newest {PAGE_ROWS}"), ("opponents", f"{PAGE_ROWS} most frequent")):
        if k := len(pages.trimmed[what]):
            where, its = ("1 bot's page", "its") if k == 1 else (f"{k:,} bots' pages", "their")
            left_out.append(f"on {where}, {its} {what} beyond {its} {beyond}"
                            + (" (h2h.csv holds every pair)" if what == "opponents" else ""))
    if no_log:
        left_out.append(f"replays of {no_log:,} listed {plural(no_log, 'match', 'matches')} without a match log")
    return ReportSummary(out, n_pages, replays, skipped, listed, stored, left_out)


def _write_replay(out: Path, m: Any, pages: Pages, write: Any) -> str | None:
    """The replay views of one listed match: ``None`` when written, else why
    not (``""``: the match has no log)."""
    if not m.log_path:
        return ""
    try:
        log = read_log(m.log_path)
    except (OSError, NotAMatchLog) as e:
        return str(e)
    d = out / "replays" / slug(m.match_id)
    d.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(m.log_path, d / "log.jsonl")
    for v in views(log.players) if log.complete else ["public"]:
        write(f"replays/{slug(m.match_id)}/{view_slug(v)}.html", replay_page(log, v, "../../", t=pages.t))
    return None
