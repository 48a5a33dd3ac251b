"""``referee report``: a tournament as a static site that opens from the file
system and works offline (see :mod:`referee.web.site` for the page layout)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from referee.web.replay import NotAMatchLog, read_log, view_slug, views
from referee.web.site import Pages, TournamentData, read_tail, replay_page, slug, static_files, stderr_href, stderr_path


@dataclass
class ReportSummary:
    out: Path
    pages: int
    replays: int
    skipped: list[str]  # matches whose log is missing or unreadable, with the reason

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def write_report(data: TournamentData, out: Path) -> ReportSummary:
    """Write every page of the tournament under ``out`` (created; files
    written by an earlier report are replaced). Raises ``OSError`` when
    ``out`` cannot be written."""
    out.mkdir(parents=True, exist_ok=True)
    pages = Pages(data)
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

    write("index.html", pages.index())
    write("matches.html", pages.matches())
    for name in data.names:
        write(f"bots/{pages.bot_slug(name)}.html", pages.bot(name))
    replays, skipped = 0, []
    for m in data.matches:
        if m.live:
            continue
        for f in m.fault_list:
            s = f.get("seat", -1)
            if 0 <= s < len(m.seats):
                src = stderr_path(data, m.match_id, s, m.seats[s])
                if src is not None:
                    dst = out / stderr_href(m.match_id, s)
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    dst.write_bytes(read_tail(src))
        if not m.log_path:
            skipped.append(f"{m.match_id}: no match log")
            continue
        try:
            log = read_log(m.log_path)
        except (OSError, NotAMatchLog) as e:
            skipped.append(f"{m.match_id}: {e}")
            continue
        d = out / "replays" / slug(m.match_id)
        d.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(m.log_path, d / "log.jsonl")
        for v in views(log.players) if log.complete else ["public"]:
            write(f"replays/{slug(m.match_id)}/{view_slug(v)}.html", replay_page(log, v, "../../", t=pages.t))
        replays += 1
    return ReportSummary(out, n_pages, replays, skipped)
