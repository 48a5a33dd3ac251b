"""``referee web``: the report's pages served live from the results store.

Starlette app, one route per page type of :mod:`referee.web.site`, under
``/t/<tournament>/``. What a page needs of every bot or every result (the
leaderboard and its fit, the seat and role summaries, the head-to-head of
the top bots, the chart of the top bots, a ladder's entrants) is kept per
tournament by a :class:`referee.web.data.LiveCache`, computed at one
``results_version`` and refreshed in the background when results arrive:
no request recomputes it, except the very first one of a tournament. The
rest of a page is a bounded read of the store (a page of matches, a bot's
faults and opponents), so every page costs the same at a thousand matches
or a million. The pages refresh their live parts every ``live_ms``.

With a :class:`referee.web.play.Hall`, it also runs matches with human seats
(``/play``, :mod:`referee.web.playapp`).

A match being played (listed in ``<log_dir>/.running``, its log without a
result line yet) is served in the public view only; its other views, its
log and its bots' stderr are refused (403) until the match is over. A
finished match is found by its id (:meth:`tournaments.store.Store.match_by_id`).
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any
from urllib.parse import quote

import anyio

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from referee.web.data import H2H_K, LiveCache
from referee.web.play import Hall
from referee.web.playapp import play_routes
from referee.web.replay import NotAMatchLog, build_replay, parse_view, read_log
from referee.web.site import (
    STATIC_DIR,
    Pages,
    environment,
    live_log_path,
    read_tail,
    replay_page,
    resolve_log,
    empty_stderr_text,
    slug,
    stderr_path,
)
from tournaments.running import read_running
from tournaments.store import Store

_STDERR_RE = re.compile(r"^(.+)\.seat(\d+)\.txt$")


def _int(request: Request, key: str, default: int) -> int:
    try:
        return int(request.query_params.get(key, default))
    except ValueError:
        return default


def create_app(db: str, live_ms: int = 2000, poll_ms: int = 1500, min_refresh_gap_s: float = 1.0,
               hall: Hall | None = None) -> Starlette:
    """The live site over the results database ``db`` (path or URL).
    ``min_refresh_gap_s``: see :class:`referee.web.data.LiveCache`. The
    cache is ``app.state.cache``. ``hall``: also serve matches with human seats
    (:mod:`referee.web.playapp`, under ``/play``), started and stopped with the app."""
    store = Store(db)
    cache = LiveCache(store, min_gap_s=min_refresh_gap_s)

    def no_tournament(name: str) -> Response:
        """The site's 404 page for a tournament the database does not hold."""
        html = environment().get_template("notfound.html").render(
            t=None, root="/", live=True, live_ms=0, nav_home=True, running=False,
            message=f"no tournament called ‘{name}’ in {store.display_url}")
        return HTMLResponse(html, status_code=404)

    def pages(request: Request) -> Pages | Response:
        """The pages of the request's tournament: its row read now (O(1)), the
        cache's snapshot (see :meth:`referee.web.data.LiveCache.snapshot`);
        the 404 page when there is no such tournament."""
        name = request.path_params["name"]
        t = store.tournament(name)
        if t is None:
            return no_tournament(name)
        return Pages(store, cache.snapshot(t), t=t, live=True, live_ms=live_ms)

    def not_found(p: Pages, message: str) -> Response:
        """The site's 404 page of tournament ``p`` saying ``message``, with its navigation."""
        return HTMLResponse(p.not_found(message, f"/t/{quote(p.snap.name, safe='')}/"), status_code=404)

    def home(request: Request) -> Response:
        """Every tournament with its matches played: O(tournaments) (a count
        for those never computed, a lease read for those not complete)."""
        ts = store.list_tournaments()
        running = 0
        for x in ts:
            snap = cache.peek(int(x["id"]))
            x["done"] = snap.done if snap is not None else store.match_count(x["id"])
            x["ladder"] = json.loads(x["spec_json"]).get("schedule") == "ladder"
            x["state"] = store.run_state(x)[0]
            running += x["state"] == "running"
        note = f"{running} {'tournament is' if running == 1 else 'tournaments are'} being played now"
        html = environment().get_template("tournaments.html").render(
            t=None, root="/", live=True, live_ms=live_ms, tournaments=ts, db=store.display_url, play=hall is not None,
            running=running > 0, running_note=note)
        return HTMLResponse(html)

    def t_root(request: Request) -> Response:
        name = request.path_params["name"]
        if store.tournament(name) is None:
            return no_tournament(name)
        return RedirectResponse(f"/t/{quote(name, safe='')}/index.html")

    def index(request: Request) -> Response:
        p = pages(request)
        if isinstance(p, Response):
            return p
        return HTMLResponse(p.index(_int(request, "page", 1)))

    def entrants(request: Request) -> Response:
        p = pages(request)
        if isinstance(p, Response):
            return p
        if p.snap.entrants is None:
            return not_found(p, f"{p.snap.name} is not a ladder: it has no entrants page")
        return HTMLResponse(p.entrants(_int(request, "page", 1)))

    def h2h(request: Request) -> Response:
        p = pages(request)
        if isinstance(p, Response):
            return p
        return HTMLResponse(p.h2h(_int(request, "k", H2H_K)))

    def h2h_csv(request: Request) -> Response:
        p = pages(request)
        if isinstance(p, Response):
            return p
        return StreamingResponse(p.h2h_csv(), media_type="text/csv; charset=utf-8",
                                 headers={"Content-Disposition": f'attachment; filename="{slug(p.snap.name)}-h2h.csv"'})

    def matches(request: Request) -> Response:
        p = pages(request)
        if isinstance(p, Response):
            return p
        bot = request.query_params.get("bot") or None  # a bot the tournament does not have: 404, and the page says so
        return HTMLResponse(p.matches(_int(request, "page", 1), bot),
                            status_code=404 if bot is not None and not p.has_bot(bot) else 200)

    def bot(request: Request) -> Response:
        p = pages(request)
        if isinstance(p, Response):
            return p
        want = request.path_params["bot"]
        name = p.snap.bot_by_slug(want)
        if name is None:
            return not_found(p, f"no bot called ‘{want}’ in this tournament")
        return HTMLResponse(p.bot(name, _int(request, "page", 1), _int(request, "opage", 1)))

    def match_log(request: Request) -> tuple[Any, Response | None]:
        """The log of the request's match: a stored match by its id (O(1)
        with the indexes), else one being played (listed in ``.running``, or
        any log of that name when there is no such index)."""
        p = pages(request)
        if isinstance(p, Response):
            return None, p
        want = request.path_params["match"]
        path = None
        row = store.match_by_id(p.snap.tid, want)
        if row is not None:
            path = resolve_log(row.get("log_path"), p.snap.log_dir)
        elif want == slug(want):
            running = read_running(p.snap.log_dir)
            if running is None or want in running:
                path = live_log_path(p.snap.log_dir, want)
        if path is None:
            return None, not_found(p, f"no match called ‘{want}’ in this tournament")
        try:
            log = read_log(path)
        except (OSError, NotAMatchLog) as e:
            return None, PlainTextResponse(f"cannot read the match log: {e}", status_code=500)
        return (p, log), None

    def view_of(request: Request, p: Pages, log: Any) -> tuple[Any, Response | None]:
        try:
            view = parse_view(request.path_params["view"], log.players)
        except ValueError as e:
            return None, not_found(p, str(e))
        if view != "public" and not log.complete:
            return None, PlainTextResponse("this match is being played: only its public view can be watched "
                                           "until it is over", status_code=403)
        return view, None

    def replay(request: Request) -> Response:
        found, err = match_log(request)
        if err:
            return err
        p, log = found
        view, err = view_of(request, p, log)
        if err:
            return err
        poll = None if log.complete else f"{request.path_params['view']}.json"
        return HTMLResponse(replay_page(log, view, "../../", poll=poll, poll_ms=poll_ms, t=p.t, all_tournaments=True))

    def replay_data(request: Request) -> Response:
        found, err = match_log(request)
        if err:
            return err
        p, log = found
        view, err = view_of(request, p, log)
        if err:
            return err
        return JSONResponse(build_replay(log, view), headers={"Cache-Control": "no-store"})

    def download(request: Request) -> Response:
        found, err = match_log(request)
        if err:
            return err
        _, log = found
        if not log.complete:
            return PlainTextResponse("the log of a match being played is not served", status_code=403)
        return FileResponse(str(log.path), media_type="application/x-ndjson",
                            filename=f"{slug(log.match_id)}.jsonl")

    def stderr(request: Request) -> Response:
        """A bot's captured stderr in a finished match (``<match>.seat<S>.txt``). O(1) queries."""
        p = pages(request)
        if isinstance(p, Response):
            return p
        want = request.path_params["file"]
        m = _STDERR_RE.match(want)
        row = store.match_by_id(p.snap.tid, m.group(1)) if m else None  # finished matches only
        if m is None or row is None or int(m.group(2)) >= len(row["seats"]):
            return not_found(p, f"no stderr file called ‘{want}’ in this tournament")
        seat = int(m.group(2))
        mid = row["result"].get("match_id") or m.group(1)
        path = stderr_path(p.snap.log_dir, mid, seat, row["seats"][seat])
        if path is None:
            return not_found(p, f"no stderr kept of seat {seat} ({row['seats'][seat]}) in match {mid}")
        text = read_tail(path).decode("utf-8", "replace")
        return PlainTextResponse(text or empty_stderr_text(mid, seat, row["seats"][seat]))

    static = StaticFiles(directory=str(STATIC_DIR))
    routes = [
        Route("/", home),
        Mount("/static", static),
        Route("/t/{name}", t_root),
        Route("/t/{name}/", t_root),
        Route("/t/{name}/index.html", index),
        Route("/t/{name}/entrants.html", entrants),
        Route("/t/{name}/h2h.html", h2h),
        Route("/t/{name}/h2h.csv", h2h_csv),
        Route("/t/{name}/matches.html", matches),
        Route("/t/{name}/bots/{bot}.html", bot),
        Route("/t/{name}/replays/{match}/log.jsonl", download),
        Route("/t/{name}/replays/{match}/{view}.html", replay),
        Route("/t/{name}/replays/{match}/{view}.json", replay_data),
        Route("/t/{name}/stderr/{file}", stderr),
        Mount("/t/{name}/static", static),
    ]
    if hall is not None:
        routes[1:1] = play_routes(hall, poll_ms=poll_ms)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette):
        if hall is not None:
            await hall.start()
        try:
            yield
        finally:
            if hall is not None:
                await hall.stop()  # every match stopped, its bots reaped
            await anyio.to_thread.run_sync(cache.close)  # a refresh running ends before the store closes
            store.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.cache = cache
    return app
