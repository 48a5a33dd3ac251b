"""The pages of a tournament, shared by ``referee report`` (files) and
``referee web`` (served live): Jinja2 templates in ``templates/``, one
script and one style sheet in ``static/``, plots as inline SVG. A page
never loads anything from another site.

Page paths, relative to a tournament's root (the report's output directory,
or ``/t/<name>/`` on the live site). Every list is paged, at most
:data:`~referee.web.data.PAGE_ROWS` rows a page: live, the page number is
the ``page`` query parameter; in the report, each page is a file of its
own (``index-2.html``, ``matches-2.html``...)::

    index.html                     leaderboard (100 bots a page, ranks continue), seat and role
                                   summaries, the rating chart of the page's top 10 bots,
                                   the head-to-head of the top 10 bots; a ladder's first entrants
    entrants.html                  a ladder's entrants, 100 a page
    h2h.html                       head-to-head of the top K bots (live ``?k=K``, K <= 50)
    h2h.csv                        every pair of bots (streamed live; written by the report)
    matches.html                   the matches, newest first, 100 a page (live: ``?bot=NAME``
                                   filters; matches in progress first on page 1)
    bots/<bot>.html                one bot: rating chart, faults (newest 100), opponents and
                                   matches (newest first), each 100 a page (live: ``?opage=``, ``?page=``)
    replays/<match>/<view>.html    replay views: all, public, seat0, seat1...
    replays/<match>/log.jsonl      the match log (download)
    stderr/<match>.seat<S>.txt     a faulted bot's captured stderr
    static/style.css, static/cardtable.js, static/viewer.js, static/site.js

What a page needs of every bot or every result comes from a
:class:`~referee.web.data.Snapshot` (computed once per change of the
results); the rest is read per page, bounded: each page method states its
cost.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape

from referee.games import UnknownGame, game_meta
from referee.outcomes import FaultKind
from referee.web import svg
from referee.web.data import (
    CHART_BOTS,
    FAULTS_SHOWN,
    H2H_K,
    H2H_MAX_K,
    PAGE_ROWS,
    Snapshot,
    slug,
    unique_slugs,
)
from referee.web.replay import ParsedLog, View, build_replay, read_log, replay_json, view_slug
from tournaments.outcomes import teams_of
from tournaments.report import board_texts
from tournaments.running import read_running
from tournaments.store import Store

__all__ = ["Links", "MatchInfo", "Pages", "duration_text", "empty_stderr_text", "environment", "live_matches",
           "read_tail", "replay_page", "slug", "static_files", "stderr_href", "stderr_is_empty", "stderr_path",
           "unique_slugs"]

STATIC_DIR = Path(__file__).parent / "static"
#: leaderboard columns: field of ``BoardRow.to_json()`` -> (label, tooltip); other fields are shown by name
BOARD_LABELS = {
    "elo": ("Elo", "batch fit of every match (Bradley–Terry, Elo points, 0 = the average bot): the ranking key"),
    "elo_low": ("low", "lower end of the 95% interval of the Elo rating"),
    "elo_high": ("high", "upper end of the 95% interval of the Elo rating"),
    "p_better_than_next": ("P(> next)", "probability that this bot is really better than the next one down"),
    "separated_from_next": ("separated", "P(> next) reaches the tournament's confidence"),
    "conservative": ("mu − 3σ", "live TrueSkill conservative rating"),
    "mu": ("mu", "TrueSkill mean skill"),
    "sigma": ("sigma", "TrueSkill uncertainty"),
    "matches": ("matches", "matches played"),
    "wins": ("wins", "matches finished in first place; * marks a count that includes wins in matches the bot "
             "crashed in, left, never came to or was forfeited (a first place shared with its partner or "
             "other seats)"),
    "mean_score": ("avg score", "mean final score in the game's unit"),
    "timeouts": ("t/o", "timeouts"),
    "illegal": ("ill", "illegal actions"),
    "crashes": ("crash", "crashes and disconnects"),
    "other_faults": ("oth", "other faults: absent (decisions missed after a crash or disconnect), forfeits, "
                     "no-shows, not reading, late or stray replies"),
}
#: fields of ``BoardRow.to_json()`` shown inside another column rather than as one of their own
FOLDED = ("wins_while_broken",)
#: the role summary's column of every game (a key of :func:`tournaments.details.role_summary`) ->
#: (label, tooltip); the game's own columns come from its metadata (:func:`role_labels`)
ROLE_LABELS = {"rounds": ("rounds", "rounds played in the role, over every bot")}
STDERR_TAIL_BYTES = 256 * 1024  # the end of a bot's stderr shown per faulted match
#: the head-to-head sizes offered on h2h.html
H2H_CHOICES = (10, 20, 30, 50)


def game_label(game: str) -> str:
    """The game's name as the pages show it (:attr:`GameMeta.label
    <referee.games.metakit.GameMeta.label>`); the id itself for a game that
    is not implemented."""
    try:
        return game_meta(game).label
    except UnknownGame:
        return game


def role_labels(game: str) -> dict[str, tuple[str, str]]:
    """Every column of ``game``'s role summary -> (label, tooltip): the
    common ones (:data:`ROLE_LABELS`) and the game's won rate and value
    (:class:`referee.games.metakit.GameMeta`)."""
    meta = game_meta(game)
    out = dict(ROLE_LABELS)
    out[meta.won.name + "_rate"] = (meta.won.label, meta.won.help)
    if meta.value is not None:
        out[meta.value.name] = (meta.value.label, meta.value.help)
    return out


@functools.lru_cache(maxsize=1)
def environment() -> Environment:
    """The Jinja2 environment of the page templates (HTML autoescaped), made once."""
    env = Environment(loader=PackageLoader("referee.web", "templates"), autoescape=select_autoescape(["html"]))
    env.filters["short_name"] = svg.short_name  # a long bot name's start and end around an ellipsis
    return env


def replay_href(match_id: str, view: View = "all") -> str:
    return f"replays/{slug(match_id)}/{view_slug(view)}.html"


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v + 0.0:.2f}" if abs(v) >= 0.005 else "0.00"  # never "-0.00"
    return str(v)


#: board figures about the next bot down: the last bot has none, and shows :data:`NO_NEXT` instead
NEXT_BOT = ("p_better_than_next", "separated_from_next")
#: what the last bot shows for the figures of :data:`NEXT_BOT`: (text, tooltip)
NO_NEXT = ("—", "last place: no bot below")


def utc_text(at: float) -> str:
    """A Unix time as ``"2026-12-01 22:54 UTC"`` ("" for none)."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at)) if at else ""


def page_count(total: int, per: int = PAGE_ROWS) -> int:
    return max(1, -(-total // per))


def clamp_page(page: int, total: int, per: int = PAGE_ROWS) -> int:
    return min(max(1, page), page_count(total, per))


# --------------------------------------------------------------------------- links and pagers
@dataclass(frozen=True)
class Links:
    """The page addresses, relative to the tournament's root: ``static`` (the
    report) gives each page of a list a file of its own, the live site query
    parameters."""

    static: bool

    @staticmethod
    def _live(path: str, **params: Any) -> str:
        """``path`` with the parameters that are not ``None`` (a first page: ``None``)."""
        q = {k: v for k, v in params.items() if v is not None}
        return f"{path}?{urlencode(q)}" if q else path

    @staticmethod
    def _n(page: int) -> int | None:
        return page if page > 1 else None

    def index(self, page: int = 1) -> str:
        if self.static:
            return "index.html" if page <= 1 else f"index-{page}.html"
        return self._live("index.html", page=self._n(page))

    def entrants(self, page: int = 1) -> str:
        if self.static:
            return "entrants.html" if page <= 1 else f"entrants-{page}.html"
        return self._live("entrants.html", page=self._n(page))

    def matches(self, page: int = 1, bot: str | None = None) -> str:
        if self.static:  # the report has no filter: a bot's matches are on its page
            return "matches.html" if page <= 1 else f"matches-{page}.html"
        return self._live("matches.html", bot=bot or None, page=self._n(page))

    def bot(self, bot_slug: str, page: int = 1, opage: int = 1) -> str:
        if self.static:
            return f"bots/{bot_slug}.html"
        return self._live(f"bots/{bot_slug}.html", page=self._n(page), opage=self._n(opage))

    def h2h(self, k: int = H2H_K) -> str:
        if self.static:
            return "h2h.html"
        return self._live("h2h.html", k=None if k == H2H_K else k)


def pager(page: int, total: int, href: Callable[[int], str], per: int = PAGE_ROWS, around: int = 2,
          what: str = "") -> dict[str, Any]:
    """What the ``pager`` macro draws: the current page, the number of pages,
    previous and next, and the page numbers around the current one (with the
    first and last; ``None`` marks a gap). O(around)."""
    pages = page_count(total, per)
    page = clamp_page(page, total, per)
    nums = sorted({1, pages, *range(max(1, page - around), min(pages, page + around) + 1)})
    links: list[dict[str, Any] | None] = []
    for i, n in enumerate(nums):
        if i and n - nums[i - 1] > 1:
            links.append(None)
        links.append({"n": n, "href": href(n), "current": n == page})
    first = (page - 1) * per + 1 if total else 0
    return {"page": page, "pages": pages, "total": total, "first": first, "last": min(total, page * per),
            "what": what, "prev": href(page - 1) if page > 1 else None,
            "next": href(page + 1) if page < pages else None, "links": links}


# --------------------------------------------------------------------------- matches
@dataclass
class MatchInfo:
    """One row of a match list (a stored match, or one being played)."""

    idx: int
    match_id: str
    seats: list[str]
    status: str
    result: str
    decisions: int | str
    duration: str
    faults: str
    replay: str | None
    log_path: str | None
    live: bool = False
    fault_list: list[dict[str, Any]] = field(default_factory=list)
    #: when the match finished, as ``"2026-12-06 22:05:34"`` (UTC; "" for one in progress)
    finished: str = ""
    #: the bots' page names, seat by seat (set by :meth:`Pages.match_list`)
    seat_slugs: list[str] = field(default_factory=list)

    @property
    def seat_links(self) -> list[tuple[str, str]]:
        """``(bot, its page's name)`` seat by seat."""
        return list(zip(self.seats, self.seat_slugs or [slug(s) for s in self.seats]))

    @property
    def bots_json(self) -> str:
        return json.dumps(sorted(set(self.seats)))


def _result_text(seats: list[str], result: dict[str, Any]) -> str:
    ranks = result.get("ranks") or []
    scores = result.get("scores") or []
    if not ranks:
        return "–"
    order = sorted(range(len(seats)), key=lambda s: (ranks[s], s))
    parts = []
    for s in order:
        sc = scores[s] if s < len(scores) else None
        sc_txt = f" {int(sc) if isinstance(sc, float) and sc.is_integer() else sc}" if sc is not None else ""
        parts.append(f"{ranks[s]}. {seats[s]}{sc_txt}")
    return " · ".join(parts)


def _faults_text(seats: list[str], faults: list[dict[str, Any]]) -> str:
    counts: dict[tuple[str, str], int] = {}
    for f in faults:
        if f.get("kind") in (FaultKind.LATE_REPLY, FaultKind.UNKNOWN_REQUEST):
            continue
        key = (seats[f["seat"]] if 0 <= f.get("seat", -1) < len(seats) else "?", f.get("kind", "?"))
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{b} {k}×{n}" for (b, k), n in sorted(counts.items()))


def resolve_log(log_path: str | None, log_dir: Path) -> str | None:
    """The stored log path of a match if the file is there, else the file of
    that name in ``log_dir`` (a relative path stored from another
    directory), else ``None``. Two ``stat`` calls at most."""
    if not log_path:
        return None
    if Path(log_path).is_file():
        return log_path
    here = log_dir / Path(log_path).name
    return str(here) if here.is_file() else None


def duration_text(seconds: float | None) -> str:
    """A match's playing time for the lists: ``"86 ms"`` under a second, ``"1.4 s"``, ``"2 min 05 s"``
    from a minute ("" when not known)."""
    if seconds is None:
        return ""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, sec = divmod(int(round(seconds)), 60)
    return f"{m} min {sec:02d} s"


def match_info(row: dict[str, Any], log_dir: Path) -> MatchInfo:
    """A stored match (a row of :meth:`tournaments.store.Store.match_page`) as a list row."""
    result = row["result"]
    mid = result.get("match_id") or f"m{row['idx']:05d}"
    faults = list(result.get("faults") or [])
    log_path = resolve_log(row.get("log_path"), log_dir)
    return MatchInfo(idx=row["idx"], match_id=mid, seats=list(row["seats"]), status=row["status"],
                     result=_result_text(row["seats"], result), decisions=row.get("decisions", ""),
                     duration=duration_text(row.get("elapsed_s")),
                     finished=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(row["finished_at"]))
                     if row.get("finished_at") else "",
                     faults=_faults_text(row["seats"], faults), replay=replay_href(mid) if log_path else None,
                     log_path=log_path, fault_list=faults)


def live_log_path(log_dir: Path, match_id: str) -> Path | None:
    """The log of a match being played: ``<id>.jsonl.part`` (a tournament's
    executor) or ``<id>.jsonl`` (the ladder, written in place); ``None`` if neither."""
    for name in (f"{match_id}.jsonl.part", f"{match_id}.jsonl", f"{match_id}.jsonl.tmp"):
        p = log_dir / name
        if p.is_file():
            return p
    return None


def _live_info(p: Path) -> MatchInfo | None:
    try:
        log = read_log(p)
    except (OSError, ValueError):
        return None
    if log.complete:
        return None
    idx_txt = log.match_id.rsplit("-m", 1)[-1]
    idx = int(idx_txt) if idx_txt.isdigit() else -1
    n_dec = sum(1 for e in log.entries if e[0] == "decision")
    return MatchInfo(idx=idx, match_id=log.match_id, seats=log.names, status="in progress", result="",
                     decisions=n_dec, duration="", faults="", replay=replay_href(log.match_id, "public"),
                     log_path=str(p), live=True)


def live_matches(log_dir: Path, tournament: str, is_recorded: Callable[[str], bool] | None = None
                 ) -> list[MatchInfo]:
    """Matches of ``tournament`` being played (public view only), newest
    first: those ``<log_dir>/.running`` lists (:mod:`tournaments.running`)
    whose log has no result line yet. O(matches in progress) (each log read).

    Without that index (logs of a run older than it), every log of the
    tournament in ``log_dir`` without a result line, skipping the match ids
    ``is_recorded`` says are stored: O(logs in the directory)."""
    out: list[MatchInfo] = []
    ids = read_running(log_dir)
    if ids is not None:
        for mid in ids:
            p = live_log_path(log_dir, mid)
            info = _live_info(p) if p is not None else None
            if info is not None:
                out.append(info)
    elif log_dir.is_dir():
        for p in sorted(log_dir.glob(f"{tournament}-m*.jsonl*")):
            if p.suffix not in (".jsonl", ".part", ".tmp") or not p.is_file():
                continue
            if is_recorded is not None and is_recorded(p.name.split(".jsonl", 1)[0]):
                continue
            info = _live_info(p)
            if info is not None:
                out.append(info)
    out.sort(key=lambda m: m.idx, reverse=True)
    return out


# --------------------------------------------------------------------------- stderr
def stderr_path(log_dir: Path, match_id: str, seat: int, bot: str) -> Path | None:
    """The captured stderr of ``bot`` in ``seat`` of a match: its per-match
    file, else the latest launch's file of a persistent bot
    (``<bot>.persistent<N>.stderr``, N = 1, 2...); ``None`` if there is
    none. O(launches) ``stat`` calls: the log directory is never listed."""
    p = log_dir / f"{match_id}.seat{seat}.stderr"
    if p.is_file():
        return p
    last = None
    for n in range(1, 10_000):
        q = log_dir / f"{bot}.persistent{n}.stderr"
        if not q.is_file():
            break
        last = q
    return last


def stderr_is_empty(path: Path) -> bool:
    """Whether a stderr file holds nothing (the bot wrote nothing to it). One ``stat`` call."""
    try:
        return path.stat().st_size == 0
    except OSError:
        return True


def empty_stderr_text(match_id: str, seat: int, bot: str) -> str:
    """What the stderr address of a bot that wrote nothing answers."""
    return f"(empty: {bot} wrote nothing to its stderr in match {match_id}, seat {seat})\n"


def stderr_href(match_id: str, seat: int) -> str:
    return f"stderr/{slug(match_id)}.seat{seat}.txt"


def read_tail(path: Path, n: int = STDERR_TAIL_BYTES) -> bytes:
    with path.open("rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - n))
        data = f.read()
    return (b"[... earlier output cut ...]\n" + data) if size > n else data


# --------------------------------------------------------------------------- pages
class Pages:
    """Renders the pages of one tournament from ``snap`` and bounded reads of
    ``store``. ``t``: the tournament row as read by this request (status and
    scheduled matches now; default the snapshot's). ``live``: the pages
    refresh their live parts every ``live_ms`` milliseconds and list the
    matches being played (``referee web``). ``links``: how pages are
    addressed (default: files for the report, query parameters live)."""

    def __init__(self, store: Store, snap: Snapshot, t: dict[str, Any] | None = None, live: bool = False,
                 live_ms: int = 2000, links: Links | None = None):
        self.store = store
        self.snap = snap
        self.live = live
        self.live_ms = live_ms
        self.links = links or Links(static=not live)
        row = t or snap.t
        self.row = row
        self.status = str(row["status"])
        self.t = {"name": snap.name, "game": snap.spec.get("game", row.get("game")),
                  "players": snap.spec.get("players"), "status": self.status, "done": snap.done,
                  # a ladder has no fixed number of matches: the pages say how many were played
                  "total": None if snap.ladder else row.get("total_matches"), "live_count": 0}
        self._live: list[MatchInfo] | None = None
        self._running: bool | None = None
        #: the report: the match ids whose replay was written (other rows link none); ``None``: every log
        self.replayed: set[str] | None = None
        #: the report: the bots whose page left out some of their ``"matches"`` / ``"opponents"`` (one page each)
        self.trimmed: dict[str, set[str]] = {"matches": set(), "opponents": set()}

    # -- helpers ------------------------------------------------------------------------------
    def _render(self, template: str, root: str, **ctx: Any) -> str:
        return environment().get_template(template).render(t=self.t, root=root, live=self.live,
                                                           live_ms=self.live_ms, links=self.links,
                                                           running=self.running(), **ctx)

    def running(self) -> bool:
        """Live site only: a driver (or the ladder) is playing this tournament now (its lease is live)."""
        if self._running is None:
            self._running = self.live and self.store.run_state(self.row)[0] == "running"
        return self._running

    def bot_slug(self, name: str) -> str:
        return self.snap.slugs.get(name) or slug(name)

    def live_matches(self) -> list[MatchInfo]:
        """The matches being played (live site only, and only while a driver
        runs the tournament: its lease is live), newest first. See :func:`live_matches`."""
        if self._live is None:
            self._live = []
            if self.running():
                tid = self.snap.tid
                self._live = live_matches(self.snap.log_dir, self.snap.name,
                                          lambda mid: self.store.match_by_id(tid, mid) is not None)
        return self._live

    def board_cols(self) -> list[dict[str, str]]:
        keys: list[str] = []
        for r in self.snap.board[:1]:  # whatever figures the ratings provide, in their order
            keys.extend(k for k in r.to_json() if k not in ("bot", *FOLDED) and k not in keys)
        return [{"key": k, "label": BOARD_LABELS.get(k, (k.replace("_", " "), ""))[0],
                 "help": BOARD_LABELS.get(k, ("", ""))[1]} for k in keys]

    def _board_row(self, rank: int, r: Any) -> dict[str, Any]:
        """One bot's board figures as text: ``cells`` (key -> text) and ``titles``
        (key -> tooltip, for the cells that have one). The ratings, P(> next)
        and the mean score are the CLI's texts of the raw figures
        (:func:`tournaments.report.board_texts`), never the rounded JSON's;
        counts and yes/no by :func:`_fmt`."""
        figures = r.to_json()
        texts = board_texts(r)
        cells = {k: texts[k] if k in texts else _fmt(v) for k, v in figures.items()}
        titles: dict[str, str] = {}
        if figures.get("wins_while_broken"):  # folded into the wins cell, as the CLI board does
            cells["wins"] += "*"
        for k in NEXT_BOT:
            if k in figures and figures[k] is None:  # the last bot: no bot below to compare with
                cells[k], titles[k] = NO_NEXT
        return {"rank": rank, "bot": r.bot, "slug": self.bot_slug(r.bot), "cells": cells, "titles": titles}

    def rank_note(self) -> str:
        keys = [c["key"] for c in self.board_cols()]
        if "elo" in keys or not keys:
            return ("Elo (batch fit of every match, with its 95% interval low–high); mu and sigma: "
                    "live TrueSkill")
        return "mu − 3·sigma (TrueSkill)"

    def states(self) -> dict[str, str]:
        return {v["label"]: v["state"] for e in self.snap.entrants or [] for v in e["versions"]}

    def _entrant_rows(self, page: int) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
        ents = self.snap.entrants
        if ents is None:
            return None
        p = pager(page, len(ents), self.links.entrants, what="entrants")
        out = []
        for e in ents[(p["page"] - 1) * PAGE_ROWS: p["page"] * PAGE_ROWS]:
            versions = [dict(v, slug=self.bot_slug(v["label"]), since_text=utc_text(v["since"]),
                             added_text=utc_text(v["added_at"])) for v in e["versions"]]
            out.append({"name": e["name"], "versions": versions, "current": versions[-1]})
        return out, p

    def plot(self, bots: list[str], band: bool = False) -> str:
        return svg.rating_plot(self.snap.chart(self.store, bots), band=band, by_time=self.snap.ladder)

    def summaries(self) -> dict[str, Any]:
        """The seat and role summaries as the leaderboard shows them."""
        s = self.snap.summaries
        seats = [{"seat": x["seat"], "matches": x["matches"], "mean_score": _fmt(float(x["mean_score"])),
                  "win_rate": f"{x['win_rate']:.0%}"} for x in s.get("seat_summary") or []]
        roles = s.get("role_summary") or []
        keys = list(dict.fromkeys(k for x in roles for k in x if k != "role"))
        game = str(self.t["game"])
        labels = role_labels(game)
        cols = [{"key": k, "label": labels.get(k, (k.replace("_", " "), ""))[0],
                 "help": labels.get(k, ("", ""))[1]} for k in keys]
        rows = [{"role": x["role"].replace("_", " "),
                 "cells": {k: ("" if k not in x else f"{x[k]:.0%}" if k.endswith("_rate") else
                               str(x[k]) if isinstance(x[k], int) else f"{x[k]:+.2f}") for k in keys}}
                for x in roles]
        return {"seats": seats, "roles": rows, "role_cols": cols,
                "role_note": game_meta(game).role_note}

    def head_to_head(self, k: int) -> dict[str, Any]:
        """The matrix of the top ``k`` bots (k <= :data:`H2H_MAX_K`):
        ``cells[a][b] = (a finished ahead of b, behind, tied)`` over the matches
        they played as opponents, ``None`` when they never met as opponents. O(k²)."""
        bots = self.snap.top[:max(1, min(k, H2H_MAX_K))]
        cells = {a: {b: self.snap.pairs.get((a, b)) for b in bots} for a in bots}
        return {"bots": bots, "slugs": {b: self.bot_slug(b) for b in bots}, "cells": cells,
                "ranks": {b: self.snap.rank(b) for b in bots}}

    # -- pages --------------------------------------------------------------------------------
    def not_found(self, message: str, root: str) -> str:
        """The site's "not found" page of this tournament saying ``message``, with
        its navigation (``root``: the tournament's root, absolute on the live
        site, since the page answers any address under it). O(1)."""
        return environment().get_template("notfound.html").render(  # live_ms 0: nothing on it to refresh
            t=self.t, root=root, live=self.live, live_ms=0, links=self.links, running=self.running(), message=message)

    def index(self, page: int = 1) -> str:
        """The leaderboard page ``page`` (100 bots, ranks continue), the seat and
        role summaries, the chart of the page's top 10 bots, the top-10
        head-to-head and a ladder's first entrants. O(rows shown) from the
        snapshot; the chart of a page other than the first is read once per
        snapshot (O(rating rows of 10 bots)); live, the matches in progress."""
        board = self.snap.board
        p = pager(page, len(board), self.links.index, what="bots")
        start = (p["page"] - 1) * PAGE_ROWS
        shown = board[start:start + PAGE_ROWS]
        rows = [self._board_row(start + i + 1, r) for i, r in enumerate(shown)]
        self.t["live_count"] = len(self.live_matches())
        ents = self._entrant_rows(1)
        chart_bots = [r.bot for r in shown[:CHART_BOTS]]
        return self._render("leaderboard.html", "", board=rows, board_cols=self.board_cols(), pager=p,
                            rank_note=self.rank_note(), entrants=ents[0] if ents else None,
                            entrants_pager=ents[1] if ents else None, states=self.states(),
                            plot=self.plot(chart_bots), chart_first=start + 1, chart_last=start + len(chart_bots),
                            by_time=self.snap.ladder, h2h=self.head_to_head(H2H_K), summaries=self.summaries())

    def entrants(self, page: int = 1) -> str:
        """A ladder's entrants page ``page`` (100 a page). O(rows shown)."""
        ents = self._entrant_rows(page)
        if ents is None:
            raise LookupError("entrants: not a ladder")
        return self._render("entrants.html", "", entrants=ents[0], entrants_pager=ents[1])

    def h2h(self, k: int = H2H_K) -> str:
        """The head-to-head matrix of the top ``k`` bots (clamped to 1..50). O(k²)."""
        k = max(1, min(k, H2H_MAX_K))
        choices = [] if self.links.static else [{"k": c, "href": self.links.h2h(c), "current": c == k}
                                                for c in H2H_CHOICES]
        return self._render("h2h.html", "", h2h=self.head_to_head(k), k=len(self.snap.top[:k]), choices=choices,
                            bots=len(self.snap.board))

    def h2h_csv(self) -> Iterator[str]:
        """Every pair of bots as CSV lines (header first): as opponents,
        matches together, how often each finished ahead, ties; team games
        also as partners. Streamed from the store: O(pairs) time, O(1) memory
        beyond the bot names."""
        name_of = {b["id"]: b["name"] for b in self.snap.bots}
        team = any(len(x) > 1 for x in teams_of(str(self.t["game"]), int(self.t["players"] or 2)))
        head = ["a", "b", "matches", "a_ahead", "b_ahead", "tied"]
        if team:
            head += ["partners", "partners_won", "partners_lost", "partners_drawn"]
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(head)
        n = 0
        for r in self.store.iter_pair_totals(self.snap.tid):
            row = [name_of.get(r["bot_a"], r["bot_a"]), name_of.get(r["bot_b"], r["bot_b"])]
            row += [int(r[k]) for k in head[2:]]
            w.writerow(row)
            n += 1
            if n % 1000 == 0:
                yield buf.getvalue()
                buf.seek(0)
                buf.truncate()
        yield buf.getvalue()

    def match_list(self, page: int = 1, bot: str | None = None, href: Callable[[int], str] | None = None,
                   cap: int | None = None) -> tuple[list[MatchInfo], dict[str, Any]]:
        """Page ``page`` of the matches (of ``bot``), newest first, with the
        matches in progress first on page 1 (live): ``(rows, pager)``;
        ``href(n)``: the address of page n (default: the match list's);
        ``cap``: only the newest ``cap`` matches (0: none) are paged (the report).
        O(offset + 100) with the store's indexes (a bot's: O(its matches))."""
        offset = (max(1, page) - 1) * PAGE_ROWS
        total, rows = self.store.match_page(self.snap.tid, offset, PAGE_ROWS, bot=bot)
        shown = total if cap is None else min(total, max(0, cap))
        if offset and offset >= shown:  # past the end: the last page
            offset = (page_count(shown) - 1) * PAGE_ROWS
            total, rows = self.store.match_page(self.snap.tid, offset, PAGE_ROWS, bot=bot)
        rows = rows[:max(0, shown - offset)]  # the last page of a cap holds only the matches up to it
        p = pager(offset // PAGE_ROWS + 1, shown, href or (lambda n: self.links.matches(n, bot)), what="matches")
        p["stored"] = total  # beyond ``cap``, too
        infos = [match_info(r, self.snap.log_dir) for r in rows]
        if self.replayed is not None:
            for m in infos:
                if m.match_id not in self.replayed:
                    m.replay = None
        if p["page"] == 1:
            infos = [m for m in self.live_matches() if bot is None or bot in m.seats] + infos
        for m in infos:
            m.seat_slugs = [self.bot_slug(s) for s in m.seats]
        return infos, p

    def matches(self, page: int = 1, bot: str | None = None, note: str = "", cap: int | None = None) -> str:
        """The match list page ``page`` (newest first, 100 a page; ``bot``: that
        bot's only; ``cap`` and ``note``: only the newest ``cap`` matches are
        paged, and the page says why). A ``bot`` not in the tournament
        (:meth:`has_bot`): the page lists none and says there is no such bot.
        See :meth:`match_list` for the cost."""
        if bot is not None and not self.has_bot(bot):
            p = pager(1, 0, lambda n: self.links.matches(n), what="matches")
            return self.render_matches([], p, note=note, missing=bot)
        infos, p = self.match_list(page, bot, cap=cap)
        return self.render_matches(infos, p, bot, note)

    def has_bot(self, name: str) -> bool:
        """Whether the tournament has a bot called ``name`` (as of the snapshot). O(1)."""
        return self.snap.bot_named(name) is not None

    def render_matches(self, infos: list[MatchInfo], p: dict[str, Any], bot: str | None = None, note: str = "",
                       missing: str | None = None) -> str:
        """The match list page of rows ``infos`` with pager ``p`` (from
        :meth:`match_list`); ``missing``: the bot asked for, which the
        tournament does not have (the page says so). O(rows + bots)."""
        p["note"] = note
        names = sorted(b["name"] for b in self.snap.bots)
        if self.links.static:
            choices = [{"value": self.links.bot(self.bot_slug(n)) + "#bot-matches", "label": n} for n in names]
        else:
            choices = [{"value": n, "label": n, "selected": n == bot} for n in names]
        return self._render("matches.html", "", matches=infos, pager=p, bot=bot, choices=choices, missing=missing)

    def opponents(self, name: str, page: int = 1, href: Callable[[int], str] | None = None
                  ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """A bot's opponents, most matches together first, 100 a page:
        ``(rows, pager)``; ``href(n)``: the address of page n. O(the bot's
        pairs) (at most the bots), once its rows were read (once per snapshot:
        :meth:`referee.web.data.Snapshot.pairs_of`)."""
        me = self.snap.bot_named(name)
        rows: list[dict[str, Any]] = []
        if me is not None:
            name_of = {b["id"]: b["name"] for b in self.snap.bots}
            for other_id, n, ahead, behind, tied, partners, won, lost, drawn in self.snap.pairs_of(self.store,
                                                                                                   me["id"]):
                other = name_of.get(other_id, "?")
                rows.append({"bot": other, "slug": self.bot_slug(other), "rank": self.snap.rank(other),
                             "matches": n, "ahead": ahead, "behind": behind, "tied": tied, "partners": partners,
                             "partners_wld": f"{won}-{lost}-{drawn}"})
        rows.sort(key=lambda x: (-x["matches"] - x["partners"], x["rank"] or 10**9, x["bot"]))
        slug_ = self.bot_slug(name)
        shown = min(len(rows), PAGE_ROWS) if self.links.static else len(rows)  # a report's bot page: one page
        p = pager(page, shown, href or (lambda n: self.links.bot(slug_, opage=n)), what="opponents")
        p["stored"] = len(rows)
        return rows[(p["page"] - 1) * PAGE_ROWS: p["page"] * PAGE_ROWS], p

    def bot(self, name: str, page: int = 1, opage: int = 1) -> str:
        """One bot's page: its board row, a ladder version's state, its rating
        chart, its newest 100 faults, its opponents (page ``opage``) and its
        matches (page ``page``, newest first). The report's page is one page:
        its newest 100 matches and 100 most frequent opponents, each list
        saying so only when it left some out (noted in :attr:`trimmed`).
        O(the bot's matches) at most."""
        snap = self.snap
        rank = snap.rank(name)
        row = self._board_row(rank, snap.board[rank - 1]) if rank else None
        me = snap.bot_named(name) or {}
        cmd = me.get("command", "")
        n_faults, fault_rows = self.store.bot_faults(snap.tid, name, FAULTS_SHOWN)
        faults = []
        for f in fault_rows:
            mid, s = f["match_id"], f["seat"]
            has_log = resolve_log(f["log_path"], snap.log_dir) is not None and (
                self.replayed is None or mid in self.replayed)
            err = stderr_path(snap.log_dir, mid, s, name)
            empty = err is not None and stderr_is_empty(err)
            faults.append({"match_id": mid, "replay": replay_href(mid) if has_log else "", "seat": s,
                           "kind": f["kind"], "rule": f["rule"], "message": f["message"],
                           "stderr": stderr_href(mid, s) if err is not None and not empty else None,
                           "stderr_empty": empty})
        entrant = next((e for e in snap.entrants or [] if any(v["label"] == name for v in e["versions"])), None)
        if entrant is not None:
            entrant = {"name": entrant["name"], "versions": [
                dict(v, slug=self.bot_slug(v["label"]), since_text=utc_text(v["since"]),
                     added_text=utc_text(v["added_at"])) for v in entrant["versions"]]}
        version = next((v for v in entrant["versions"] if v["label"] == name), None) if entrant else None
        slug_ = self.bot_slug(name)
        opps, op = self.opponents(name, opage, lambda n: self.links.bot(slug_, page=page, opage=n))
        matches, mp = self.match_list(page, name, lambda n: self.links.bot(slug_, page=n, opage=op["page"]),
                                      cap=PAGE_ROWS if self.links.static else None)  # a report's bot page: one page
        if mp["stored"] > mp["total"]:
            self.trimmed["matches"].add(name)
            mp["note"] = (f"its newest {mp['total']:,} of {mp['stored']:,}: `referee web` pages through them all, "
                          f"`referee results {snap.name}` exports them")
        if op["stored"] > op["total"]:
            self.trimmed["opponents"].add(name)
            op["note"] = (f"its {op['total']:,} most frequent of {op['stored']:,}: `referee web` pages through "
                          f"them all, h2h.csv holds every pair")
        team = any(len(x) > 1 for x in teams_of(str(self.t["game"]), int(self.t["players"] or 2)))
        bot = {"name": name, "rank": rank, "row": row, "command": cmd, "faults": faults, "n_faults": n_faults,
               "fault_kinds": snap.board[rank - 1].faults if rank else {},
               "entrant": entrant, "version": version, "matches": matches, "matches_pager": mp,
               "opponents": opps, "opponents_pager": op, "team": team,
               "plot": self.plot([name], band=True)}
        return self._render("bot.html", "../", bot=bot, board_cols=self.board_cols(), by_time=snap.ladder,
                            states=self.states())


def replay_page(log: ParsedLog, view: View, root: str, live: bool = False, log_href: str | None = "log.jsonl",
                poll: str | None = None, poll_ms: int = 1500, t: dict[str, Any] | None = None,
                data: dict[str, Any] | None = None, live_note: str = "match in progress: public view only",
                all_tournaments: bool = False, home: tuple[str, str] | None = None) -> str:
    """One view of one match as a page (the replay data inline).

    ``root``: relative path to the tournament root (``"../../"`` in
    ``replays/<match>/``); ``poll``: URL of this view's data to poll while
    the match is running (live site); ``live_note``: what the page says of a
    match in progress; ``all_tournaments``: the nav links to the live site's
    list of tournaments (``/``), as its other pages do; ``home``: ``(href, label)``
    of a link before the view links (``referee play``'s list of matches).
    ``ValueError`` for a hidden view of a match in progress."""
    data = data if data is not None else build_replay(log, view)
    n = log.players
    views = [{"label": "all cards", "href": "all.html", "current": view == "all"},
             {"label": "public", "href": "public.html", "current": view == "public"}]
    views += [{"label": f"as seat {s}: {log.names[s]}", "href": f"seat{s}.html", "current": view == s}
              for s in range(n)]
    if not log.complete:
        views = [v for v in views if v["href"] == "public.html"]
    if view == "all":
        label, note = "all cards", "All-seeing view: every hand and every private event."
    elif view == "public":
        label, note = "public", "Public view: what a spectator sees; no hand is shown."
    else:
        label = f"as seat {view}"
        note = (f"View as seat {view} ({log.names[view]}): its own hand, the public cards and its own private "
                "events, at each step; nothing else reached this page.")
    faults_note = {"all": "", "public": "faults are told to the faulting seat only"}.get(
        view if isinstance(view, str) else "", "this seat's own faults only")
    r = {"match_id": log.match_id, "game_label": game_label(log.game), "views": views,
         "view_label": label, "view_note": note, "faults_note": faults_note,
         "log_href": log_href if log.complete else None, "data_json": replay_json(data), "poll": poll,
         "poll_ms": poll_ms, "live_note": "" if log.complete else live_note, "home": home}
    return environment().get_template("replay.html").render(t=t, root=root, live=False, live_ms=0, r=r,
                                                            links=Links(static=True), all_tournaments=all_tournaments)


def static_files() -> list[Path]:
    return sorted(p for p in STATIC_DIR.iterdir() if p.is_file())
