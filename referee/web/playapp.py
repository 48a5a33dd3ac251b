"""The pages of matches with human seats (:mod:`referee.web.play`), for ``referee web`` and ``referee play``.

Routes (``<match>``: a match id, ``<key>``: a secret of the page)::

    GET  /play                              the new-match form and the hall's matches
    POST /play/new                          create a match (the form; its hidden form key)
    GET  /play/<match>/setup/<key>          the creator's page: every human's private link
    GET  /play/<match>/seat<S>/<key>/       seat S's page (403 without its key)
    GET  /play/<match>/seat<S>/<key>/events its state, pushed as server-sent events
    POST /play/<match>/seat<S>/<key>/act    {request_id, kind, cards, amount}: the seat's answer
    POST /play/<match>/seat<S>/<key>/auto   {on}: answer single-action decisions by themselves
    GET  /play/<match>/replay/<view>.html   public view (live, behind by the spectators' delay);
                                            every view once the match is over (and .json, log.jsonl)

A seat's page gets nothing but its seat's state (:class:`referee.web.seatview.SeatView`),
pushed as a ``state`` event each time it changes (then ``end`` when the match
is over); a reload opens a new stream, whose first event is the current state.
"""

from __future__ import annotations

import contextlib
import json
import time
import urllib.parse
from typing import Any, AsyncIterator, Awaitable, Callable

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
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from referee.games import GAME_IDS, game_class
from referee.web.human import ActionRefused, HumanSeat, parse_action
from referee.web.play import (
    DEFAULT_HUMAN_DECISION_MS,
    FormError,
    Hall,
    LiveMatch,
    parse_form,
)
from referee.web.replay import NotAMatchLog, build_replay, parse_log, parse_view, read_log
from referee.web.site import STATIC_DIR, environment, game_label, replay_page

#: headers of every page that holds a secret key: never cached, never sent on as a referrer,
#: nothing loaded from another site
PRIVATE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                   "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'"}
#: seconds between keep-alive comments on an idle event stream
KEEPALIVE_S = 15.0
#: largest answer body accepted from a page, and largest new-match form (bytes)
MAX_ACT_BYTES = 8192
MAX_FORM_BYTES = 65536


def _games() -> list[dict[str, Any]]:
    """What the form needs of each game: player counts, variant flags, match parameters."""
    out = []
    for g in GAME_IDS:
        cls = game_class(g)
        out.append({"id": g, "label": game_label(g), "players": list(cls.player_counts),
                    "variants": list(cls.variant_defaults), "params": dict(cls.param_defaults)})
    return out


def _seat_url(m: LiveMatch, seat: int) -> str:
    h = m.seats[seat].human
    return f"/play/{m.match_id}/seat{seat}/{h.key}/" if h is not None else ""


def play_routes(hall: Hall, poll_ms: int = 1500) -> list[BaseRoute]:
    """The routes of the human-seat pages over ``hall`` (see the module doc)."""
    env = environment()

    def forbidden(what: str) -> Response:
        return PlainTextResponse(what, status_code=403, headers={"Cache-Control": "no-store"})

    def not_found(what: str) -> Response:
        return PlainTextResponse(f"not found: {what}", status_code=404)

    def match_of(request: Request) -> LiveMatch | None:
        return hall.matches.get(request.path_params["match"])

    def human_of(request: Request) -> tuple[LiveMatch | None, HumanSeat | None, Response | None]:
        m = match_of(request)
        if m is None:
            return None, None, not_found(f"match {request.path_params['match']}")
        h = m.human(request.path_params["seat"], request.path_params["key"])
        if h is None:
            return m, None, forbidden("this link does not open a seat: its key is wrong, or the seat is not a "
                                      "human's (each player has a private link of their own)")
        return m, h, None

    def form_page(form: dict[str, str] | None = None, error: FormError | None = None, status: int = 200) -> Response:
        matches = sorted(hall.matches.values(), key=lambda x: x.created_at, reverse=True)
        rows = [{"id": m.match_id, "game": game_label(m.spec.game), "seats": m.spec.seat_names,
                 "status": m.status, "why": m.why, "over": m.over,
                 "view": f"/play/{m.match_id}/replay/{'all' if m.status == 'over' else 'public'}.html"}
                for m in matches]
        html = env.get_template("play.html").render(
            t=None, root="/", live=False, live_ms=0, games=_games(), bots=hall.bot_choices(), form=form or {},
            error=error, form_key=hall.form_key, matches=rows, max_seats=max(max(g["players"]) for g in _games()),
            human_ms=DEFAULT_HUMAN_DECISION_MS, commands=hall.commands, referee=hall.referee_addr,
            external=[{"name": n, "connected": hall.external_connected(n)} for n, _ in hall.external])
        return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})

    def index(request: Request) -> Response:
        return form_page()

    async def new(request: Request) -> Response:
        raw = await request.body()
        if len(raw) > MAX_FORM_BYTES:
            return PlainTextResponse(f"the form is over {MAX_FORM_BYTES} bytes", status_code=400)
        # an HTML form's application/x-www-form-urlencoded body (no multipart parser needed)
        form = dict(urllib.parse.parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))
        if not hall.form_key_ok(form.get("form_key", "")):
            return forbidden("this form is out of date or did not come from this server: reload /play and try again")
        try:
            req = parse_form(form, hall.commands, [n for n, _ in hall.external])
            m = hall.create(req)
        except FormError as e:
            return form_page(form, e, status=400)
        return RedirectResponse(f"/play/{m.match_id}/setup/{m.creator_key}", status_code=303)

    def setup(request: Request) -> Response:
        m = match_of(request)
        if m is None:
            return not_found(f"match {request.path_params['match']}")
        if not m.is_creator(request.path_params["key"]):
            return forbidden("this is not the link of the match's creator")
        seats = [{"seat": e.seat, "label": e.label, "kind": e.kind, "url": _seat_url(m, e.seat),
                  "joined": e.human.joined.is_set() if e.human else None,
                  "connected": hall.external_connected(e.external) if e.external else None} for e in m.seats]
        html = env.get_template("play_setup.html").render(
            t=None, root="/", live=True, live_ms=2000, m=m, seats=seats, referee=hall.referee_addr,
            game_label=game_label(m.spec.game), running=m.status == "playing",
            running_note="this match is being played")
        return HTMLResponse(html, headers=PRIVATE_HEADERS)

    def seat_page(request: Request) -> Response:
        m, h, err = human_of(request)
        if err:
            return err
        config = {"match_id": m.match_id, "game": m.spec.game, "seat": h.seat, "players": m.spec.players,
                  "names": m.spec.seat_names, "events": "events", "act": "act", "auto": "auto"}
        html = env.get_template("play_seat.html").render(
            t=None, root="/", live=False, live_ms=0, m=m, h=h, game_label=game_label(m.spec.game),
            config_json=json.dumps(config).replace("<", "\\u003c"))
        return HTMLResponse(html, headers=PRIVATE_HEADERS)

    def events(request: Request) -> Response:
        m, h, err = human_of(request)
        if err:
            return err
        h.joined.set()

        async def stream() -> AsyncIterator[str]:
            version = None
            yield "retry: 2000\n\n"
            while True:
                if h.view.version != version:
                    version = h.view.version
                    yield f"event: state\ndata: {h.state_json()}\n\n"
                    continue
                if m.over:
                    yield "event: end\ndata: {}\n\n"
                    return
                if not await h.wait_change(version, KEEPALIVE_S):
                    yield ": keep-alive\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={**PRIVATE_HEADERS, "X-Accel-Buffering": "no"})

    async def json_body(request: Request) -> Any:
        raw = await request.body()
        if len(raw) > MAX_ACT_BYTES:
            raise ActionRefused(400, f"the request is over {MAX_ACT_BYTES} bytes")
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ActionRefused(400, "the request is not JSON") from None

    async def act(request: Request) -> Response:
        m, h, err = human_of(request)
        if err:
            return err
        try:
            rid, action = parse_action(await json_body(request))
            await h.act(rid, action)
        except ActionRefused as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        return JSONResponse({"sent": rid})

    async def auto(request: Request) -> Response:
        m, h, err = human_of(request)
        if err:
            return err
        try:
            body = await json_body(request)
        except ActionRefused as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        if not isinstance(body, dict) or not isinstance(body.get("on"), bool):
            return JSONResponse({"error": "expected {\"on\": true|false}"}, status_code=400)
        h.set_auto(body["on"])
        return JSONResponse({"auto": h.auto})

    def replay_log(request: Request) -> tuple[Any, Any, Response | None]:
        m = match_of(request)
        if m is None:
            return None, None, not_found(f"match {request.path_params['match']}")
        if m.status in ("waiting", "abandoned"):
            return m, None, not_found(f"a replay of match {m.match_id}: it was not played")
        try:
            if m.over:
                log = read_log(m.log_path)
            else:
                text = m.public_log_text(time.monotonic())
                if not text:
                    return m, None, not_found(f"a replay of match {m.match_id} yet: it has not started "
                                              f"(or the spectators' delay of {m.spectator_delay_s} s has not passed)")
                log = parse_log(text, m.log_path)
        except (OSError, NotAMatchLog) as e:
            return m, None, PlainTextResponse(f"cannot read the match log: {e}", status_code=500)
        return m, log, None

    def view_of(request: Request, m: LiveMatch, log: Any) -> tuple[Any, Response | None]:
        try:
            view = parse_view(request.path_params["view"], log.players)
        except ValueError as e:
            return None, not_found(str(e))
        if view != "public" and not (m.over and log.complete):
            return None, forbidden("this match is being played: only its public view can be watched until it is over")
        return view, None

    def replay(request: Request) -> Response:
        m, log, err = replay_log(request)
        if err:
            return err
        view, err = view_of(request, m, log)
        if err:
            return err
        delay = f", {m.spectator_delay_s} s behind the table" if m.spectator_delay_s else ""
        poll = None if log.complete else f"{request.path_params['view']}.json"
        html = replay_page(log, view, "/", poll=poll, poll_ms=poll_ms, t=None,
                           live_note=f"match in progress: public view only{delay}", home=("/play", "all matches"))
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    def replay_data(request: Request) -> Response:
        m, log, err = replay_log(request)
        if err:
            return err
        view, err = view_of(request, m, log)
        if err:
            return err
        return JSONResponse(build_replay(log, view), headers={"Cache-Control": "no-store"})

    def download(request: Request) -> Response:
        m = match_of(request)
        if m is None:
            return not_found(f"match {request.path_params['match']}")
        if not m.over or not m.log_path.is_file():
            return forbidden("the log of a match being played is not served")
        return FileResponse(str(m.log_path), media_type="application/x-ndjson", filename=f"{m.match_id}.jsonl")

    return [
        Route("/play", index),
        Route("/play/", index),
        Route("/play/new", new, methods=["POST"]),
        Route("/play/{match}/setup/{key}", setup),
        Route("/play/{match}/seat{seat:int}/{key}/", seat_page),
        Route("/play/{match}/seat{seat:int}/{key}/events", events),
        Route("/play/{match}/seat{seat:int}/{key}/act", act, methods=["POST"]),
        Route("/play/{match}/seat{seat:int}/{key}/auto", auto, methods=["POST"]),
        Route("/play/{match}/replay/log.jsonl", download),
        Route("/play/{match}/replay/{view}.html", replay),
        Route("/play/{match}/replay/{view}.json", replay_data),
    ]


def hall_lifespan(hall: Hall, on_start: Callable[[Hall], Awaitable[None]] | None = None):
    """A Starlette lifespan that starts ``hall`` (then ``await on_start(hall)``) and stops it."""

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette):
        await hall.start()
        try:
            if on_start is not None:
                await on_start(hall)
            yield
        finally:
            await hall.stop()

    return lifespan


def create_play_app(hall: Hall, on_start: Callable[[Hall], Awaitable[None]] | None = None) -> Starlette:
    """``referee play``'s site: the human-seat pages over ``hall`` and the static
    files; ``/`` opens the new-match form. ``on_start(hall)`` runs once the hall's
    referee listens (``referee play`` creates its first match there)."""
    routes = [Route("/", lambda request: RedirectResponse("/play")), *play_routes(hall),
              Mount("/static", StaticFiles(directory=str(STATIC_DIR)))]
    app = Starlette(routes=routes, lifespan=hall_lifespan(hall, on_start))
    app.state.hall = hall
    return app
