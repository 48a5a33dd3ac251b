"""The pages of a tournament, shared by ``referee report`` (files) and
``referee web`` (served live): Jinja2 templates in ``templates/``, one
script and one style sheet in ``static/``, plots as inline SVG. A page
never loads anything from another site.

Page paths, relative to a tournament's root (the report's output directory,
or ``/t/<name>/`` on the live site)::

    index.html                     leaderboard, rating plot, head-to-head matrix
    matches.html                   every match, filterable by bot
    bots/<bot>.html                one bot: rating history, faults, matches
    replays/<match>/<view>.html    replay views: all, public, seat0, seat1...
    replays/<match>/log.jsonl      the match log (download)
    stderr/<match>.seat<S>.txt     a faulted bot's captured stderr
    static/style.css, static/viewer.js, static/site.js
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from sqlalchemy import select

from referee.web import svg
from referee.web.replay import ParsedLog, View, build_replay, read_log, replay_json, view_slug
from tournaments.rating import rate
from tournaments.report import board_from_store, tournament_row
from tournaments.spec import TrueSkillParams
from tournaments.store import MatchRow, Store
from tournaments.store import matches as matches_table

STATIC_DIR = Path(__file__).parent / "static"
GAME_LABELS = {"doudizhu": "Dou Dizhu", "tractor": "Tractor", "smear": "Cutthroat Canadian Smear",
               "president": "President", "back_alley": "Back Alley"}
#: leaderboard columns: field of ``BoardRow.to_json()`` -> (label, tooltip); other fields are shown by name
BOARD_LABELS = {
    "elo": ("Elo", "batch fit of every match (Bradley–Terry, Elo points, 0 = the average bot): the ranking key"),
    "elo_low": ("low", "lower end of the Elo interval (bootstrap)"),
    "elo_high": ("high", "upper end of the Elo interval (bootstrap)"),
    "p_better_than_next": ("P(> next)", "probability that this bot is really better than the next one down"),
    "separated_from_next": ("separated", "P(> next) reaches the tournament's confidence"),
    "conservative": ("mu − 3σ", "live TrueSkill conservative rating"),
    "mu": ("mu", "TrueSkill mean skill"),
    "sigma": ("sigma", "TrueSkill uncertainty"),
    "matches": ("matches", "matches played"),
    "wins": ("wins", "matches finished in first place"),
    "mean_score": ("avg score", "mean final score in the game's unit"),
    "timeouts": ("t/o", "timeouts"),
    "illegal": ("ill", "illegal actions"),
    "crashes": ("crash", "crashes and disconnects"),
    "other_faults": ("oth", "other faults"),
}
STDERR_TAIL_BYTES = 256 * 1024  # the end of a bot's stderr shown per faulted match


def environment() -> Environment:
    """The Jinja2 environment of the page templates (HTML autoescaped)."""
    return Environment(loader=PackageLoader("referee.web", "templates"), autoescape=select_autoescape(["html"]))


_SLUG_RE = re.compile(r"[^A-Za-z0-9_.-]")


def slug(name: str) -> str:
    """A file-name-safe form of a bot or match name."""
    s = _SLUG_RE.sub("_", name).lstrip(".") or "_"
    return s[:100]


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


@dataclass
class MatchInfo:
    """One row of the match list (a stored match, or one being played)."""

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

    @property
    def bots_json(self) -> str:
        return json.dumps(sorted(set(self.seats)))


@dataclass
class TournamentData:
    """Everything the pages of one tournament show, read from the store (and,
    live, from the logs of matches being played)."""

    t: dict[str, Any]
    spec: dict[str, Any]
    rows: list[MatchRow]
    board: list[Any]
    history: list[tuple[int, str, float, float]]
    matches: list[MatchInfo]
    log_dir: Path
    #: a ladder's entrants (:meth:`tournaments.ladder_store.LadderStore.entrants`); ``None`` for a tournament
    entrants: list[dict[str, Any]] | None = None

    @property
    def names(self) -> list[str]:
        return [b["name"] for b in self.spec.get("bots", [])]


#: what :func:`load_tournament` computes from the stored matches (the batch fit with its
#: bootstrap, the TrueSkill history): ``(rows, board, history, extras)``
Computed = tuple[list[MatchRow], list[Any], list[tuple[int, str, float, float]], dict[int, tuple[int, float]]]


def load_tournament(store: Store, name: str | None, live: bool = False,
                    cache: dict[int, tuple[Any, Computed]] | None = None) -> TournamentData:
    """Read tournament ``name`` (latest if ``None``); ``LookupError`` if unknown.
    ``live``: also list matches being played (logs without a result yet).
    ``cache``: a dict kept between calls (the live site's): the ratings are
    computed again only when a match was recorded or the tournament changed
    (a few seconds of CPU for a ladder of a thousand matches)."""
    t = tournament_row(store, name)
    spec = json.loads(t["spec_json"])
    key = (t["spec_json"], t["status"], t["total_matches"], frozenset(store.finished_indices(t["id"])))
    hit = cache.get(t["id"]) if cache is not None else None
    if hit is not None and hit[0] == key:
        rows, board, history, extra = hit[1]
    else:
        t, board = board_from_store(store, t["name"])
        rows = store.matches(t["id"])
        names = [b["name"] for b in spec.get("bots", [])]
        _, history = rate(rows, names, TrueSkillParams(**spec["trueskill"]), spec["game"], spec["players"])
        extra = _match_extras(store, t["id"])
        if cache is not None:
            cache[t["id"]] = (key, (rows, board, history, extra))
    log_dir = Path(spec.get("log_dir", "runs/logs")) / t["name"]
    infos = [_match_info(r, extra.get(r.idx, (None, None)), log_dir) for r in rows]
    if live:
        done = {m.match_id for m in infos}
        infos.extend(m for m in live_matches(log_dir, t["name"], done) if m.match_id not in done)
        infos.sort(key=lambda m: m.idx)
    entrants = None
    if spec.get("schedule") == "ladder":
        from tournaments.ladder_store import LadderStore

        entrants = LadderStore(store, create=False).entrants(t["id"])
    return TournamentData(t, spec, rows, board, history, infos, log_dir, entrants)


def utc_text(at: float) -> str:
    """A Unix time as ``"2026-12-01 22:54 UTC"`` ("" for none)."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at)) if at else ""


def _match_extras(store: Store, tid: int) -> dict[int, tuple[int, float]]:
    """idx -> (decisions, elapsed seconds), read from the matches table."""
    with store.engine.connect() as c:
        q = select(matches_table.c.idx, matches_table.c.decisions, matches_table.c.elapsed_s).where(
            matches_table.c.tournament_id == tid)
        return {int(i): (int(d), float(e)) for i, d, e in c.execute(q)}


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
        if f.get("kind") in ("late_reply", "unknown_request"):
            continue
        key = (seats[f["seat"]] if 0 <= f.get("seat", -1) < len(seats) else "?", f.get("kind", "?"))
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{b} {k}×{n}" for (b, k), n in sorted(counts.items()))


def _match_info(r: MatchRow, extra: tuple[int | None, float | None], log_dir: Path) -> MatchInfo:
    mid = r.result.get("match_id") or f"m{r.idx:05d}"
    decisions, elapsed = extra
    faults = list(r.result.get("faults") or [])
    log_path = r.log_path
    if log_path and not Path(log_path).exists() and (log_dir / Path(log_path).name).exists():
        log_path = str(log_dir / Path(log_path).name)  # a relative path stored from another directory
    has_log = bool(log_path) and Path(log_path).exists()
    return MatchInfo(idx=r.idx, match_id=mid, seats=list(r.seats), status=r.status,
                     result=_result_text(r.seats, r.result),
                     decisions=decisions if decisions is not None else r.result.get("decisions", ""),
                     duration=f"{elapsed:.1f} s" if elapsed is not None else "",
                     faults=_faults_text(r.seats, faults), replay=replay_href(mid) if has_log else None,
                     log_path=log_path if has_log else None, fault_list=faults)


def live_matches(log_dir: Path, tournament: str, recorded: frozenset[str] | set[str] = frozenset()) -> list[MatchInfo]:
    """Matches of ``tournament`` being played: logs in ``log_dir`` without a
    result line yet (public view only). ``recorded``: match ids already in the
    store, whose logs are not read again."""
    out: list[MatchInfo] = []
    if not log_dir.is_dir():
        return out
    for p in sorted(log_dir.glob(f"{tournament}-m*.jsonl*")):
        if p.suffix not in (".jsonl", ".part", ".tmp") or not p.is_file():
            continue
        if p.name.split(".jsonl", 1)[0] in recorded:
            continue
        try:
            log = read_log(p)
        except (OSError, ValueError):
            continue
        if log.complete:
            continue
        idx_txt = log.match_id.rsplit("-m", 1)[-1]
        idx = int(idx_txt) if idx_txt.isdigit() else -1
        n_dec = sum(1 for e in log.entries if e[0] == "decision")
        out.append(MatchInfo(idx=idx, match_id=log.match_id, seats=log.names, status="in progress",
                             result="", decisions=n_dec, duration="", faults="",
                             replay=replay_href(log.match_id, "public"), log_path=str(p), live=True))
    return out


def find_log(data: TournamentData, match_slug: str) -> MatchInfo | None:
    for m in data.matches:
        if slug(m.match_id) == match_slug:
            return m
    return None


def stderr_path(data: TournamentData, match_id: str, seat: int, bot: str) -> Path | None:
    """The captured stderr of ``bot`` in ``seat`` of a match: its per-match file,
    else the latest file of a persistent bot; ``None`` if there is none."""
    p = data.log_dir / f"{match_id}.seat{seat}.stderr"
    if p.is_file():
        return p
    persistent = sorted(data.log_dir.glob(f"{bot}.persistent*.stderr"), key=lambda q: q.stat().st_mtime)
    return persistent[-1] if persistent else None


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
    """Renders the pages of one tournament. ``live``: the pages refresh their
    live parts every ``live_ms`` milliseconds (``referee web``)."""

    def __init__(self, data: TournamentData, live: bool = False, live_ms: int = 2000):
        self.data = data
        self.live = live
        self.live_ms = live_ms
        self.env = environment()
        t = dict(data.t)
        t["players"] = data.spec.get("players")
        t["done"] = sum(1 for m in data.matches if not m.live)
        # a ladder has no fixed number of matches: the pages say how many were played
        t["total"] = None if data.entrants is not None else t.get("total_matches")
        t["live_count"] = sum(1 for m in data.matches if m.live)
        self.t = t
        self.bot_slugs = _unique_slugs(data.names)

    def _render(self, template: str, root: str, **ctx: Any) -> str:
        return self.env.get_template(template).render(t=self.t, root=root, live=self.live, live_ms=self.live_ms,
                                                      **ctx)

    def board_cols(self) -> list[dict[str, str]]:
        keys: list[str] = []
        for r in self.data.board:  # whatever figures the ratings provide, in their order
            keys.extend(k for k in r.to_json() if k != "bot" and k not in keys)
        return [{"key": k, "label": BOARD_LABELS.get(k, (k.replace("_", " "), ""))[0],
                 "help": BOARD_LABELS.get(k, ("", ""))[1]} for k in keys]

    def board_rows(self) -> list[dict[str, Any]]:
        return [{"bot": r.bot, "slug": self.bot_slugs.get(r.bot, slug(r.bot)),
                 "cells": {k: _fmt(v) for k, v in r.to_json().items()}} for r in self.data.board]

    def _series(self) -> dict[str, list[tuple[int, float, float]]]:
        series: dict[str, list[tuple[int, float, float]]] = {b: [] for b in self.data.names}
        for idx, bot, mu, sigma in self.data.history:
            series.setdefault(bot, []).append((idx, mu, sigma))
        return series

    def entrants(self) -> list[dict[str, Any]] | None:
        """A ladder's entrants as the pages show them (``None`` for a tournament):
        each with its versions, oldest first, their state, why and since when."""
        if self.data.entrants is None:
            return None
        out = []
        for e in self.data.entrants:
            versions = [dict(v, slug=self.bot_slug(v["label"]), since_text=utc_text(v["since"]),
                             added_text=utc_text(v["added_at"])) for v in e["versions"]]
            out.append({"name": e["name"], "versions": versions, "current": versions[-1]})
        return out

    def index(self) -> str:
        order = [r.bot for r in self.data.board]
        return self._render("leaderboard.html", "", board=self.board_rows(), board_cols=self.board_cols(),
                            rank_note=self.rank_note(), entrants=self.entrants(),
                            states={v["label"]: v["state"] for e in self.data.entrants or [] for v in e["versions"]},
                            plot=svg.rating_plot({b: self._series().get(b, []) for b in order}),
                            h2h=self.head_to_head(order))

    def rank_note(self) -> str:
        keys = [c["key"] for c in self.board_cols()]
        if "elo" in keys:
            return ("Elo (batch fit of every match, with its bootstrap interval low–high); mu and sigma: "
                    "live TrueSkill")
        return "mu − 3·sigma (TrueSkill)"

    def head_to_head(self, bots: list[str]) -> dict[str, Any]:
        """cells[a][b] = (matches a finished ahead of b, matches behind), over complete matches."""
        cells: dict[str, dict[str, list[int] | None]] = {a: {b: None for b in bots} for a in bots}
        for r in self.data.rows:
            if r.status != "complete":
                continue
            ranks = r.result.get("ranks") or []
            for i, a in enumerate(r.seats):
                for j, b in enumerate(r.seats):
                    if a == b or a not in cells or b not in cells or i >= len(ranks) or j >= len(ranks):
                        continue
                    c = cells[a][b] or [0, 0]
                    if ranks[i] < ranks[j]:
                        c[0] += 1
                    elif ranks[i] > ranks[j]:
                        c[1] += 1
                    cells[a][b] = c
        return {"bots": bots, "cells": cells}

    def matches(self) -> str:
        matches = self.data.matches
        if self.data.entrants is not None:  # a ladder only grows: its latest matches first
            matches = matches[::-1]
        return self._render("matches.html", "", matches=matches, bots=self.data.names)

    def bot(self, name: str) -> str:
        board = self.data.board
        rank = next((i + 1 for i, r in enumerate(board) if r.bot == name), None)
        row = next((r for r in self.board_rows() if r["bot"] == name), None)
        cmd = next((b.get("command", "") for b in self.data.spec.get("bots", []) if b["name"] == name), "")
        faults = []
        for m in self.data.matches:
            for f in m.fault_list:
                s = f.get("seat", -1)
                if 0 <= s < len(m.seats) and m.seats[s] == name:
                    has = stderr_path(self.data, m.match_id, s, name) is not None
                    faults.append({"match_id": m.match_id, "replay": m.replay or "", "seat": s,
                                   "kind": f.get("kind", ""), "rule": f.get("rule", ""),
                                   "message": f.get("message", ""),
                                   "stderr": stderr_href(m.match_id, s) if has else None})
        entrant = next((e for e in self.entrants() or [] if any(v["label"] == name for v in e["versions"])), None)
        version = next((v for v in entrant["versions"] if v["label"] == name), None) if entrant else None
        bot = {"name": name, "rank": rank, "row": row, "command": cmd, "faults": faults,
               "entrant": entrant, "version": version,
               "matches": [m for m in self.data.matches if name in m.seats],
               "plot": svg.rating_plot({name: self._series().get(name, [])}, band=True)}
        return self._render("bot.html", "../", bot=bot, board_cols=self.board_cols())

    def bot_slug(self, name: str) -> str:
        return self.bot_slugs.get(name, slug(name))


def _unique_slugs(names: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    used: set[str] = set()
    for n in names:
        s = slug(n)
        base, i = s, 2
        while s.lower() in used:
            s, i = f"{base}-{i}", i + 1
        used.add(s.lower())
        out[n] = s
    return out


def replay_page(log: ParsedLog, view: View, root: str, live: bool = False, log_href: str | None = "log.jsonl",
                poll: str | None = None, poll_ms: int = 1500, t: dict[str, Any] | None = None,
                data: dict[str, Any] | None = None) -> str:
    """One view of one match as a page (the replay data inline).

    ``root``: relative path to the tournament root (``"../../"`` in
    ``replays/<match>/``); ``poll``: URL of this view's data to poll while
    the match is running (live site). ``ValueError`` for a hidden view of a
    match in progress."""
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
    r = {"match_id": log.match_id, "game_label": GAME_LABELS.get(log.game, log.game), "views": views,
         "view_label": label, "view_note": note, "faults_note": faults_note,
         "log_href": log_href if log.complete else None, "data_json": replay_json(data), "poll": poll,
         "poll_ms": poll_ms, "live_note": "" if log.complete else "match in progress: public view only"}
    env = environment()
    return env.get_template("replay.html").render(t=t, root=root, live=False, live_ms=0, r=r)


def static_files() -> list[Path]:
    return sorted(p for p in STATIC_DIR.iterdir() if p.is_file())
