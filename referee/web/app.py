"""``referee web``: the report's pages served live from the results store.

Starlette app, one route per page type of :mod:`referee.web.site`, under
``/t/<tournament>/``. Pages are rendered per request from the store, so the
leaderboard and the match list follow a running tournament (the pages
refresh their live parts every ``live_ms``). A match being played (its log
has no result line yet) is served in the public view only; its other views,
its log and its bots' stderr are refused (403) until the match is over.
"""

from __future__ import annotations

import contextlib
import json

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from referee.web.replay import NotAMatchLog, build_replay, parse_view, read_log
from referee.web.site import (
    STATIC_DIR,
    Pages,
    environment,
    find_log,
    load_tournament,
    read_tail,
    replay_page,
    slug,
    stderr_path,
)
from tournaments.store import Store


def create_app(db: str, live_ms: int = 2000, poll_ms: int = 1500) -> Starlette:
    """The live site over the results database ``db`` (path or URL)."""
    store = Store(db)
    computed: dict = {}  # per tournament: ratings of the stored matches, until one more is recorded

    def tournament(request: Request, live: bool = True):
        name = request.path_params["name"]
        try:
            return load_tournament(store, name, live=live, cache=computed)
        except LookupError:
            return None

    def not_found(what: str) -> Response:
        return PlainTextResponse(f"not found: {what}", status_code=404)

    def home(request: Request) -> Response:
        ts = store.list_tournaments()
        for x in ts:
            x["done"] = store.match_count(x["id"])
            x["ladder"] = json.loads(x["spec_json"]).get("schedule") == "ladder"
        html = environment().get_template("tournaments.html").render(
            t=None, root="/", live=True, live_ms=live_ms, tournaments=ts, db=store.url)
        return HTMLResponse(html)

    def t_root(request: Request) -> Response:
        return RedirectResponse(f"/t/{request.path_params['name']}/index.html")

    def index(request: Request) -> Response:
        data = tournament(request)
        if data is None:
            return not_found(f"tournament {request.path_params['name']}")
        return HTMLResponse(Pages(data, live=True, live_ms=live_ms).index())

    def matches(request: Request) -> Response:
        data = tournament(request)
        if data is None:
            return not_found(f"tournament {request.path_params['name']}")
        return HTMLResponse(Pages(data, live=True, live_ms=live_ms).matches())

    def bot(request: Request) -> Response:
        data = tournament(request)
        if data is None:
            return not_found(f"tournament {request.path_params['name']}")
        pages = Pages(data, live=True, live_ms=live_ms)
        want = request.path_params["bot"]
        name = next((n for n in data.names if pages.bot_slug(n) == want), None)
        if name is None:
            return not_found(f"bot {want}")
        return HTMLResponse(pages.bot(name))

    def match_log(request: Request):
        data = tournament(request)
        if data is None:
            return None, None, not_found(f"tournament {request.path_params['name']}")
        m = find_log(data, request.path_params["match"])
        if m is None or not m.log_path:
            return None, None, not_found(f"match {request.path_params['match']}")
        try:
            log = read_log(m.log_path)
        except (OSError, NotAMatchLog) as e:
            return None, None, PlainTextResponse(f"cannot read the match log: {e}", status_code=500)
        return data, log, None

    def view_of(request: Request, log):
        try:
            view = parse_view(request.path_params["view"], log.players)
        except ValueError as e:
            return None, not_found(str(e))
        if view != "public" and not log.complete:
            return None, PlainTextResponse("this match is being played: only its public view can be watched "
                                           "until it is over", status_code=403)
        return view, None

    def replay(request: Request) -> Response:
        data, log, err = match_log(request)
        if err:
            return err
        view, err = view_of(request, log)
        if err:
            return err
        pages = Pages(data, live=True, live_ms=live_ms)
        poll = None if log.complete else f"{request.path_params['view']}.json"
        return HTMLResponse(replay_page(log, view, "../../", poll=poll, poll_ms=poll_ms, t=pages.t))

    def replay_data(request: Request) -> Response:
        data, log, err = match_log(request)
        if err:
            return err
        view, err = view_of(request, log)
        if err:
            return err
        return JSONResponse(build_replay(log, view), headers={"Cache-Control": "no-store"})

    def download(request: Request) -> Response:
        data, log, err = match_log(request)
        if err:
            return err
        if not log.complete:
            return PlainTextResponse("the log of a match being played is not served", status_code=403)
        return FileResponse(str(log.path), media_type="application/x-ndjson",
                            filename=f"{slug(log.match_id)}.jsonl")

    def stderr(request: Request) -> Response:
        data = tournament(request, live=False)  # finished matches only
        if data is None:
            return not_found(f"tournament {request.path_params['name']}")
        want = request.path_params["file"]
        for m in data.matches:
            for s, bot_name in enumerate(m.seats):
                if want == f"{slug(m.match_id)}.seat{s}.txt":
                    p = stderr_path(data, m.match_id, s, bot_name)
                    if p is None:
                        break
                    return PlainTextResponse(read_tail(p).decode("utf-8", "replace"))
        return not_found(want)

    static = StaticFiles(directory=str(STATIC_DIR))
    routes = [
        Route("/", home),
        Mount("/static", static),
        Route("/t/{name}", t_root),
        Route("/t/{name}/", t_root),
        Route("/t/{name}/index.html", index),
        Route("/t/{name}/matches.html", matches),
        Route("/t/{name}/bots/{bot}.html", bot),
        Route("/t/{name}/replays/{match}/log.jsonl", download),
        Route("/t/{name}/replays/{match}/{view}.html", replay),
        Route("/t/{name}/replays/{match}/{view}.json", replay_data),
        Route("/t/{name}/stderr/{file}", stderr),
        Mount("/t/{name}/static", static),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette):
        yield
        store.close()

    return Starlette(routes=routes, lifespan=lifespan)


