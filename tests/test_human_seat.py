"""Human seats (referee/web/seatview.py, human.py, play.py, playapp.py; `referee play`).

(a) What a human's page is pushed never depends on cards its seat cannot
    see: the differential test of tests/test_hidden_info.py, run on the state
    the server pushes (the exact JSON of the event stream, built by the same
    code from the seat's protocol messages), at many decision points of real
    seeded matches of every game and player count, with negative controls.
(b) Per-seat clocks: a human's seat gets its own clock, the bots the match's.
(c) `referee play` over HTTP: a seat's page, its event stream and its
    answers need the seat's secret key; bad answers and bad forms get clear
    errors; the spectators' view is public only, behind by its delay; whole
    matches with two humans answering through the API; every process stopped.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import http.client
import json
import random
import re
import signal
import subprocess
import tempfile
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from cardgames.v1 import referee_pb2 as pb
from referee import protocol
from referee.engine import Event, Game, IllegalAction
from referee.games import game_class
from referee.runner import BasicSeatLink, MatchSpec, run_match, seat_teams
from referee.web.replay import final_hands, parse_log
from referee.web.seatview import SeatView
from test_hidden_info import (
    CONFIGS,
    _leaky_observation,
    card_codes,
    new_game,
    nontrivial,
    patch_observation,
    play_and_pick,
    rules_reveal,
    seen_by,
    shuffle_zones,
)
from weblib import CARD_TOKEN, REFEREE, ROOT, env


# --------------------------------------------------------------------------- (a) the pushed state
def started(game: Game, seat: int) -> pb.RefereeMessage:
    """The ``MatchStarted`` a seat gets (as the runner builds it)."""
    team = seat_teams(game.teams(game.players), game.players)
    return pb.RefereeMessage(match_started=pb.MatchStarted(
        match_id="m", game=game.name, seat=seat,
        seats=[pb.SeatInfo(seat=i, name=f"p{i}", team=team[i]) for i in range(game.players)],
        variant=protocol.to_struct(game.variant), params=protocol.to_struct(game.params),
        clock=pb.Clock(decision_ms=60_000), ruleset=game.ruleset, fault_policy="default_action"))


def step(game: Game, action: Any, seq: int, rids: list[int]) -> tuple[list[list[pb.RefereeMessage]], list[Any]]:
    """Apply ``action`` of the seat to act to ``game`` (changed in place): what each
    seat is sent for it (the request to the actor, numbered ``rids[actor]``, then the
    events each seat sees, numbered from ``seq + 1``), and the engine's events."""
    actor = game.to_act
    out: list[list[pb.RefereeMessage]] = [[] for _ in range(game.players)]
    out[actor].append(protocol.decision_message(game, "m", rids[actor], 60_000, 0))
    game.apply(actor, action)
    events = game.pop_events()
    for i, ev in enumerate(events):
        for s in (range(game.players) if ev.to is None else (ev.to,)):
            out[s].append(protocol.event_message(game.name, "m", seq + i + 1, ev))
    return out, events


def pushed(view: SeatView, messages: list[pb.RefereeMessage]) -> list[str]:
    """Feed ``messages`` to a seat's view: the state its page is pushed after each
    (:meth:`HumanSeat.state_json` is ``view.state_json(now)``; the clock is fixed here)."""
    out = []
    for m in messages:
        view.feed(m, 0.0)
        out.append(view.state_json(0.0))
    return out


@dataclasses.dataclass
class Stats:
    checks: int = 0
    moved: int = 0
    acting: int = 0
    problems: list[str] = dataclasses.field(default_factory=list)


def page_differential(game_name: str, players: int, seed: int, points: int, shuffles: int = 2) -> Stats:
    """At ``points`` decision points of a random seeded match, for every seat:
    the states its page is pushed for the next decision, in the real world and
    in worlds where the cards it cannot see are shuffled (those the step shows
    it keep their place), must be byte-identical."""
    actions, pick = play_and_pick(game_name, players, seed, points)
    game = new_game(game_name, players, seed)
    opening = game.pop_events()
    views = []
    for s in range(players):
        v = SeatView()
        v.feed(started(game, s), 0.0)
        pushed(v, [protocol.event_message(game_name, "m", i + 1, ev) for i, ev in enumerate(opening)
                   if ev.to is None or ev.to == s])
        views.append(v)
    seq, rids = len(opening), [1] * players
    rng = random.Random(seed * 31337)
    stats = Stats()
    for i, a in enumerate(actions):
        actor = game.to_act
        if i in pick:
            real, ev_after = step(copy.deepcopy(game), a, seq, rids)
            for s in range(players):
                zones = game.hidden_zones(s)
                hidden = {c for cards in zones.values() for c in cards}
                fixed = {c for e in seen_by(ev_after, s) for cs in card_codes(protocol.event_payload(game_name, e))
                         for c in cs} & hidden
                want = pushed(copy.deepcopy(views[s]), real[s])
                for _ in range(shuffles):
                    alt_zones = shuffle_zones(zones, fixed, rng)
                    stats.checks += 1
                    stats.moved += nontrivial(zones, alt_zones)
                    stats.acting += s == actor
                    try:
                        alt, alt_events = step(game.with_hidden_zones(alt_zones), a, seq, rids)
                    except IllegalAction as e:
                        if s == actor:
                            stats.problems.append(f"{game_name} seat {s}: {a} legal in one world only: {e}")
                        continue  # another seat's action that its moved hand cannot make here
                    got = pushed(copy.deepcopy(views[s]), alt[s])
                    if rules_reveal(game_name, ev_after) or rules_reveal(game_name, alt_events):
                        n = 1 if s == actor else 0  # Tractor's failed throw: compare the request only
                        got, cmp = got[:n], want[:n]
                    else:
                        cmp = want
                    if got != cmp:
                        stats.problems.append(f"{game_name} {players}p seat {s} ({game.decision_kind()} of seat "
                                              f"{actor}): the page's state depends on hidden cards")
        real, events = step(game, a, seq, rids)
        for s in range(players):
            pushed(views[s], real[s])
        rids[actor] += 1
        seq += len(events)
    return stats


@pytest.mark.parametrize("game_name,players", CONFIGS, ids=[f"{g}-{n}p" for g, n in CONFIGS])
def test_the_state_pushed_to_a_human_page_is_independent_of_cards_the_seat_cannot_see(game_name, players):
    points = 12 if (game_name, players) == ("doudizhu", 4) else 30
    st = page_differential(game_name, players, 3, points)
    assert not st.problems, f"{len(st.problems)} leak(s), first: " + "; ".join(st.problems[:5])
    assert st.checks >= points * players and st.moved >= st.checks // 2 and st.acting > 0


@pytest.mark.parametrize("game_name", ["doudizhu", "tractor", "smear", "president", "back_alley"])
def test_negative_control_a_hidden_card_in_the_observation_reaches_the_page_and_is_detected(
        game_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    patch_observation(monkeypatch, game_name, _leaky_observation)
    st = page_differential(game_name, game_class(game_name).player_counts[0], 4, 8)
    assert any("depends on hidden cards" in p for p in st.problems), st.problems[:3]


def test_negative_control_a_count_of_hidden_cards_in_an_event_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    """A leak that names no card: each public Smear bid carries the number of
    hearts in seat 0's hand, which the page shows as the bid."""
    cls = game_class("smear")
    real = cls.pop_events

    def pop_events(self: Game) -> list:
        hearts = sum(1 for c in self.hands[0] if c.endswith("H"))
        return [Event(dataclasses.replace(e.record, bid=e.record.bid + 10 * hearts), e.to)
                if type(e.record).__name__ == "Call" else e for e in real(self)]

    monkeypatch.setattr(cls, "pop_events", pop_events)
    st = page_differential("smear", 3, 5, 16)
    assert any("depends on hidden cards" in p for p in st.problems), st.problems[:3]


# --------------------------------------------------------------------------- (b) per-seat clocks
class ClockLink(BasicSeatLink):
    """In-process link that answers the first legal action and keeps what it was told."""

    def __init__(self, seat: int):
        self.name, self.connected = f"p{seat}", True
        self.clock: pb.Clock | None = None
        self.time_left: set[int] = set()

    async def send(self, msg: pb.RefereeMessage) -> None:
        if msg.HasField("match_started"):
            self.clock = msg.match_started.clock

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply, float]:
        req = msg.decision_request
        self.time_left.add(req.time_left_ms)
        assert timeout_s == pytest.approx((req.time_left_ms + req.bank_left_ms) / 1000)
        return pb.ActionReply(match_id=req.match_id, request_id=req.request_id, action=req.legal_actions[0]), 5.0


def test_a_seat_clock_override_is_the_seats_own_clock():
    spec = MatchSpec(game="smear", players=3, seed=2, seat_names=["a", "b", "c"], params={"max_rounds": 1},
                     decision_ms=700, seat_clocks=[None, [45_000, 9_000], None])
    links = [ClockLink(s) for s in range(3)]
    outcome = asyncio.run(run_match(spec, links))
    assert outcome.status == "complete"
    assert [(ln.clock.decision_ms, ln.clock.bank_ms) for ln in links] == [(700, 0), (45_000, 9_000), (700, 0)]
    assert links[0].time_left == {700} and links[1].time_left == {45_000} and links[2].time_left == {700}
    assert spec.clock_of(1) == (45_000, 9_000) and spec.clock_of(0) == (700, 0)
    for bad in ([None, None], [None, [0, 0], None], [None, [1000, -1], None], [None, [1000], None]):
        with pytest.raises(ValueError, match="seat_clocks"):
            dataclasses.replace(spec, seat_clocks=bad).check()


# --------------------------------------------------------------------------- (c) over HTTP
def bot_processes(referee_pid: int) -> list[int]:
    """Pids of the bots launched by the referee in process ``referee_pid``: their
    command line names their own socket, in that referee's socket directory."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if f"referee-sock-{referee_pid}-" in cmd:
                out.append(int(d.name))
    return out


class PlayServer:
    """`referee play` in a subprocess on 127.0.0.1 (port 0); stopped by SIGTERM at exit."""

    def __init__(self, tmp: Path, *args: str):
        self.proc = subprocess.Popen([*REFEREE, "play", *args, "--no-open", "--port", "0", "--log-dir",
                                      str(tmp / "logs")], cwd=ROOT, env=env(), stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.log_dir = tmp / "logs"
        head = self.proc.stdout.readline()
        m = re.search(r"serving (http://127\.0\.0\.1:\d+)/play .*referee on 127\.0\.0\.1:(\d+)", head)
        assert m, head + self.proc.stdout.read()
        self.base, self.referee_port = m.group(1), int(m.group(2))
        self.seats: dict[int, str] = {}
        while len(self.seats) < args.count("--human-seat") or not self.seats:
            line = self.proc.stdout.readline()
            m = re.match(r"seat (\d+) \([^)]*\): (http://\S+)", line)
            assert m, line
            self.seats[int(m.group(1))] = m.group(2)

    def stop(self) -> int:
        """SIGTERM, as a service manager stops it: the server shuts down (every match and bot
        stopped), then dies of the signal it was sent (uvicorn raises it again): -15."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("referee play did not stop within 30 s of SIGTERM")


def get(url: str) -> tuple[int, str, Any]:
    """``(status, body, headers)`` of a GET (headers: case-insensitive)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), e.headers


def post(url: str, body: bytes, ctype: str = "application/json") -> tuple[int, str]:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": ctype}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def states(url: str, until: Any, timeout_s: float = 120.0) -> dict[str, Any]:
    """Read the seat's event stream until a pushed state satisfies ``until(state)``
    (within ``timeout_s``); that state. Opening the stream is what "opens the page"."""
    u = urllib.parse.urlsplit(url)
    deadline = time.monotonic() + timeout_s
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)  # keep-alives come every 15 s
    try:
        conn.request("GET", u.path + "events")
        r = conn.getresponse()
        assert r.status == 200 and r.headers["Content-Type"].startswith("text/event-stream")
        for raw in r:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                st = json.loads(line[6:])
                if until(st):
                    return st
            assert time.monotonic() < deadline, f"no state as awaited within {timeout_s} s"
        raise AssertionError("the event stream ended first")
    finally:
        conn.close()


def play_via_api(url: str, rng: random.Random) -> dict[str, Any]:
    """Answer every decision of the seat with a random listed legal action, through
    the page's own endpoints (event stream + act) until the match is over."""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=300)
    last = None
    try:
        conn.request("GET", u.path + "events")
        r = conn.getresponse()
        for raw in r:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: end"):
                return last
            if not line.startswith("data: "):
                continue
            last = st = json.loads(line[6:])
            req = st["request"]
            if req and not req["sent"] and not st["ended"]:
                kind, cards, amount = rng.choice(req["legal"])
                code, text = post(url + "act", json.dumps({"request_id": req["id"], "kind": kind, "cards": cards,
                                                           "amount": amount}).encode())
                assert code in (200, 409), text  # 409: the decision timed out meanwhile
        return last
    finally:
        conn.close()


def form_key(base: str) -> str:
    code, html, _ = get(base + "/play")
    assert code == 200
    return re.search(r'name="form_key" value="([^"]+)"', html).group(1)


def new_match(base: str, fields: dict[str, str]) -> tuple[int, str, str]:
    """POST the new-match form; ``(status, body, final url)`` (a created match redirects to its creator's page)."""
    data = urllib.parse.urlencode({"form_key": form_key(base), **fields}).encode()
    req = urllib.request.Request(base + "/play/new", data=data, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode(), r.url
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), url_of(e)


def url_of(e: urllib.error.HTTPError) -> str:
    return e.url


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`referee play smear` with seats 0 and 2 human (3 players), seat 1 the heuristic bot;
    both humans' pages opened (the match starts)."""
    srv = PlayServer(tmp_path_factory.mktemp("play"), "smear", "--players", "3", "--human-seat", "0",
                     "--human-seat", "2", "--rounds", "2", "--seed", "4", "--human-ms", "30000")
    def seat2() -> None:  # plays seat 2 to the end, so that seat 0 is asked without waiting for it
        try:
            play_via_api(srv.seats[2], random.Random(2))
        except (OSError, http.client.HTTPException):
            pass  # the server stopped first

    try:
        states(srv.seats[0], lambda s: "waiting for human2 (seat 2)" in s["note"])
        threading.Thread(target=seat2, daemon=True).start()
        yield srv
    finally:
        assert srv.stop() == -signal.SIGTERM
        assert bot_processes(srv.proc.pid) == [], "a bot outlived referee play"


def test_a_seat_needs_its_own_key(server):
    url0, url2 = server.seats[0], server.seats[2]
    code, html, headers = get(url0)
    assert code == 200 and "you play seat 0" in html
    assert not CARD_TOKEN.search(re.sub(r"<[^>]+>", " ", html)), "the page itself holds no card"
    assert headers["Referrer-Policy"] == "no-referrer" and "no-store" in headers["Cache-Control"]
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    key0, key2 = url0.rstrip("/").rsplit("/", 1)[1], url2.rstrip("/").rsplit("/", 1)[1]
    swapped = url2.replace(key2, key0)  # seat 2 with seat 0's key
    for u in (swapped, url0.replace(key0, "x" * len(key0)), url0.replace(key0, key0[:-1])):
        assert get(u)[0] == 403
        assert get(u + "events")[0] == 403
        assert post(u + "act", b'{"request_id": 1, "kind": "PASS"}')[0] == 403
        assert post(u + "auto", b'{"on": false}')[0] == 403
    seat1 = url0.replace("/seat0/", "/seat1/")  # a bot's seat has no page
    assert get(seat1)[0] == 403
    assert get(server.base + "/play/nosuchmatch/seat0/" + key0 + "/")[0] == 404
    mid = url0.split("/play/")[1].split("/")[0]
    assert get(f"{server.base}/play/{mid}/setup/{key0}")[0] == 403  # a seat's key is not the creator's


def icon_of(url: str) -> str:
    """The icon the page at ``url`` names (its ``<link rel="icon">``), fetched: it is
    served, as an SVG image (no page makes the browser ask for a missing /favicon.ico);
    its address."""
    code, html, _ = get(url)
    assert code == 200, url
    m = re.search(r'<link rel="icon" href="([^"]+)"', html)
    assert m, f"{url} names no icon"
    icon = urllib.parse.urljoin(url, m.group(1))
    code, svg, headers = get(icon)
    assert code == 200 and headers["Content-Type"].startswith("image/svg+xml") and svg.startswith("<svg"), icon
    return icon


def test_every_page_names_an_icon_it_serves(server):
    for url in (server.base + "/play", server.seats[0], server.seats[2]):
        assert icon_of(url) == server.base + "/static/favicon.svg"


def test_bad_answers_get_clear_errors(server):
    url = server.seats[0]
    st = states(url, lambda s: s["request"] and not s["request"]["sent"])
    rid = st["request"]["id"]
    for body, status, words in ((b"not json", 400, "not JSON"), (b"[1]", 400, "JSON object"),
                                (b'{"request_id": "1", "kind": "PASS"}', 400, "request_id"),
                                (json.dumps({"request_id": rid, "kind": "FOLD"}).encode(), 400, "kind must be"),
                                (json.dumps({"request_id": rid, "kind": "PLAY", "cards": ["1X"]}).encode(), 400,
                                 "not a card code"),
                                (json.dumps({"request_id": rid, "kind": "PLAY", "cards": ["2C"] * 61}).encode(), 400,
                                 "at most 60"),
                                (json.dumps({"request_id": rid + 7, "kind": "PASS"}).encode(), 409, "not pending"),
                                (b"x" * 9000, 400, "over 8192 bytes")):
        code, text = post(url + "act", body)
        assert code == status and words in json.loads(text)["error"], (body[:40], code, text)
    assert post(url + "auto", b'{"on": "yes"}')[0] == 400


def test_the_new_match_form_checks_its_fields(server):
    base = server.base
    data = urllib.parse.urlencode({"game": "smear", "players": "2", "seat0": "human", "seat1": "sample:random"})
    assert post(base + "/play/new", data.encode(), "application/x-www-form-urlencoded")[0] == 403  # no form key
    for fields, words in (({"game": "chess"}, "unknown game"),
                          ({"game": "tractor", "players": "3"}, "tractor is played by 4 players"),
                          ({"game": "smear", "players": "2", "seat0": "sample:random", "seat1": "sample:random"},
                           "no seat is human"),
                          ({"game": "smear", "players": "2", "seat0": "human", "seat1": "command:0"},
                           "no bot command #0"),
                          ({"game": "smear", "players": "2", "seat0": "human", "seat1": "sample:rm -rf"},
                           "no sample bot"),
                          ({"game": "smear", "players": "2", "seat0": "human", "seat1": "sample:random",
                            "human_decision_ms": "lots"}, "must be a whole number"),
                          ({"game": "smear", "players": "2", "seat0": "human", "seat1": "sample:random",
                            "params": "max_rounds=0"}, "max_rounds"),
                          ({"game": "smear", "players": "2", "seat0": "human", "seat0_name": "a#b",
                            "seat1": "sample:random"}, "without #"),
                          ({"game": "back_alley", "players": "4", "seat0": "human", "rounds": "2",
                            "params": "first_round=x", **{f"seat{s}": "sample:random" for s in (1, 2, 3)}},
                           "first_round must be a whole number")):
        code, html, _ = new_match(base, fields)
        assert code == 400 and 'id="form-error"' in html and words in html, (fields, code, html[-800:])
        assert "Traceback" not in html


def test_two_humans_play_a_whole_match_through_their_pages(server):
    """A match made with the form: seats 0 and 2 human, answering through their own
    endpoints (in two threads); the creator's page lists their links; the public
    view is served while the match is played, the hidden ones only after."""
    code, html, url = new_match(server.base, {
        "game": "smear", "players": "3", "rounds": "2", "seed": "8", "seat0": "human", "seat0_name": "ann",
        "seat1": "sample:heuristic", "seat2": "human", "seat2_name": "bob", "seat2_decision_ms": "20000"})
    assert code == 200 and "/setup/" in url, html[-500:]
    links = dict(re.findall(r'<tr data-seat="(\d)" data-kind="human">.*?<a class="seat-link" href="([^"]+)"', html, re.S))
    assert set(links) == {"0", "2"} and "ann#0" in html and "bob#2" in html
    mid = url.split("/play/")[1].split("/")[0]
    assert links["0"].startswith(f"/play/{mid}/seat0/")
    seats = {int(s): server.base + u for s, u in links.items()}
    assert "not opened yet" in html
    assert "live-dot" not in html and "updates live" in html  # waiting: nothing is played yet
    results: dict[int, Any] = {}

    def player(seat: int) -> None:
        results[seat] = play_via_api(seats[seat], random.Random(seat))

    threads = [threading.Thread(target=player, args=(s,)) for s in (0, 2)]
    for t in threads:
        t.start()
    replay = f"{server.base}/play/{mid}/replay/"
    states(seats[0], lambda s: s["table"] is not None)  # both pages opened: the match is played
    code, html, _ = get(replay + "public.html")
    if code == 200 and "match in progress" in html:  # still playing: the hidden views are refused
        assert get(replay + "all.html")[0] == 403 and get(replay + "seat1.html")[0] == 403
        assert get(replay + "log.jsonl")[0] == 403
    for t in threads:
        t.join(timeout=300)
        assert not t.is_alive()
    for seat in (0, 2):
        st = results[seat]
        assert st["ended"]["status"] == "complete" and st["replay"]["all"] == f"/play/{mid}/replay/all.html"
        assert [r["seat"] for r in st["ended"]["results"]] == [0, 1, 2]
        assert st["table"][f"s{seat}"]["hand"] is not None
    assert get(replay + "all.html")[0] == 200 and get(replay + "seat2.html")[0] == 200
    code, html, _ = get(url)  # the creator's page of a match that is over: no live mark
    assert code == 200 and "live-dot" not in html and "updates live" in html
    text = get(replay + "log.jsonl")[1]
    log = [json.loads(x) for x in text.splitlines()]
    # the match over, its all-seeing log public: every seat's last hand face up on both pages
    hands = final_hands(parse_log(text))
    for seat in (0, 2):
        assert [results[seat]["table"][f"s{o}"]["hand"] for o in (0, 1, 2)] == hands
    assert log[0]["spec"]["seat_names"] == ["ann#0", "heuristic#1", "bob#2"]
    assert log[0]["spec"]["seat_clocks"] == [[60000, 0], None, [20000, 0]]
    assert {d["seat"] for d in log if d["type"] == "decision" and d["reply"] is not None} == {0, 1, 2}
    assert next(d for d in log if d["type"] == "result")["status"] == "complete"
    code, html, _ = get(server.base + "/play")
    assert re.search(rf'<tr data-match="{mid}">.*?over.*?<a href="/play/{mid}/replay/all.html">replay</a>', html, re.S)


def test_spectators_wait_out_the_delay(tmp_path):
    srv = PlayServer(tmp_path, "smear", "--players", "2", "--rounds", "1", "--spectator-delay-s", "3600")
    try:
        mid = srv.seats[0].split("/play/")[1].split("/")[0]
        states(srv.seats[0], lambda s: s["request"] is not None)  # the match is being played
        code, text, _ = get(f"{srv.base}/play/{mid}/replay/public.html")
        assert code == 404 and "delay of 3600 s has not passed" in text
        assert get(f"{srv.base}/play/{mid}/replay/all.html")[0] == 404
    finally:
        assert srv.stop() == -signal.SIGTERM
    assert bot_processes(srv.proc.pid) == []


def test_referee_play_refuses_bad_arguments_before_starting(tmp_path):
    for args, words in ((["chess"], "unknown game"), (["tractor", "--players", "3"], "tractor is played by 4"),
                        (["smear", "--human-seat", "5"], "--human-seat must be a seat 0..1"),
                        (["smear", "--bot", "no-such-program-xyz"], "--bot #1"),
                        (["president", "--players", "5", "--bot", "a", "--bot", "b"], "4 bot seats but 2 --bot")):
        r = subprocess.run([*REFEREE, "play", *args, "--no-open", "--port", "0", "--log-dir", str(tmp_path)],
                           cwd=ROOT, env=env(), capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and words in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_referee_play_help_says_how_a_launched_bot_gets_its_address_and_token():
    r = subprocess.run([*REFEREE, "play", "--help"], cwd=ROOT, env={**env(), "COLUMNS": "300"}, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "appends --referee ADDRESS (a Unix socket of the bot's own)" in r.stdout
    assert "REFEREE_TOKEN_FD" in r.stdout and "HOST:PORT" not in r.stdout


def test_referee_web_serves_play_beside_the_tournaments(tmp_path):
    """`referee web` over a results database also runs /play (its referee started and
    stopped with it): the home page links to it, a match made with its form waits for
    its human, whose page opens."""
    from tournaments.store import Store

    import socket

    db = tmp_path / "results.sqlite"
    Store(str(db)).close()
    with socket.socket() as s:  # a free port for the referee (to find its bots by it afterwards)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    web = subprocess.Popen([*REFEREE, "web", "--db", str(db), "--port", "0", "--play-log-dir", str(tmp_path / "play"),
                            "--referee-port", str(port)], cwd=ROOT, env=env(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    try:
        line = web.stdout.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+)/ .*play: http://127\.0\.0\.1:\d+/play", line)
        assert m, line
        base = m.group(1)
        assert 'href="/play"' in get(base + "/")[1]
        assert icon_of(base + "/") == base + "/static/favicon.svg"  # the live site's pages too
        code, html, url = new_match(base, {"game": "president", "players": "5", "seat0": "sample:random",
                                           "seat3": "human", "seat3_name": "cy", **{f"seat{s}": "sample:heuristic"
                                                                                    for s in (1, 2, 4)}})
        assert code == 200 and "waiting" in html, html[-500:]
        link = re.search(r'<a class="seat-link" href="([^"]+)"', html).group(1)
        assert link.startswith("/play/president-") and "/seat3/" in link
        st = states(base + link, lambda s: s["request"] is not None or s["table"] is not None)
        assert st["seat"] == 3 and st["names"][3] == "cy#3" and st["clock"] == {"decision_ms": 60000, "bank_ms": 0}
        assert bot_processes(web.pid), "the match's bots are running"
    finally:
        web.send_signal(signal.SIGTERM)
        web.wait(timeout=30)
    assert bot_processes(web.pid) == [], "referee web stopped the match and its bots"


def test_an_external_bot_takes_a_seat(tmp_path):
    """A bot with a token of `--token-file` connects by itself to the referee's
    port; the form offers it, and it plays against the human."""
    import socket

    (tmp_path / "bots.tokens").write_text("ext=s3cret-token\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = PlayServer(tmp_path, "smear", "--players", "2", "--token-file", str(tmp_path / "bots.tokens"),
                     "--referee-port", str(port))
    bot = subprocess.Popen([sys.executable, str(ROOT / "sample_bots" / "random_bot.py"), "--referee",
                            f"127.0.0.1:{port}", "--name", "ext"], cwd=ROOT, env={**env(), "REFEREE_TOKEN":
                                                                                  "s3cret-token"},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert srv.referee_port == port
        code, html, _ = get(srv.base + "/play")
        assert 'value="external:ext"' in html
        code, html, url = new_match(srv.base, {"game": "smear", "players": "2", "rounds": "1", "seat0": "human",
                                               "seat1": "external:ext"})
        assert code == 200, html[-500:]
        link = srv.base + re.search(r'<a class="seat-link" href="([^"]+)"', html).group(1)
        st = play_via_api(link, random.Random(5))
        assert st["ended"]["status"] == "complete" and st["names"] == ["human#0", "ext#1"]
        mid = link.split("/play/")[1].split("/")[0]
        log = [json.loads(x) for x in (srv.log_dir / f"{mid}.jsonl").read_text().splitlines()]
        assert any(d["type"] == "decision" and d["seat"] == 1 and d["reply"] for d in log)
        assert not any(d["type"] == "fault" for d in log)
    finally:
        bot.terminate()
        bot.wait(timeout=30)
        assert srv.stop() == -signal.SIGTERM


def test_a_hall_plays_a_bounded_number_of_matches():
    """Beyond ``max_running`` matches at once a new one is refused (each launches its
    bots); stopping the hall ends the matches waiting for their humans."""
    from referee.web.play import FormError, Hall, MatchRequest, SeatChoice

    async def main(tmp: Path) -> None:
        hall = Hall(tmp, max_running=1)
        await hall.start()
        try:
            req = MatchRequest("smear", 2, [SeatChoice("human", "ann"), SeatChoice("sample", "random")])
            first = hall.create(req)
            assert first.status == "waiting" and first.seats[0].human is not None
            with pytest.raises(FormError, match="at most 1 at once"):
                hall.create(req)
        finally:
            await hall.stop()
        assert first.task.done() and first.status == "failed" and first.why == "the server stopped"

    import tempfile

    with tempfile.TemporaryDirectory() as d:
        asyncio.run(main(Path(d)))


def test_ctrl_c_stops_the_match_reaps_its_bots_and_says_what_was_cut_off(tmp_path):
    """SIGINT (Ctrl-C) in the middle of a match: the server exits, the bot is reaped, the bots' private
    directories are gone, one line names the cut-off match and its log; the command bot's seat is named
    after its Hello, as `referee match` names it."""
    srv = PlayServer(tmp_path, "smear", "--players", "2", "--rounds", "3", "--human-ms", "60000",
                     "--bot", f"{sys.executable} sample_bots/random_bot.py --name mybot")
    mid = srv.seats[0].split("/play/")[1].split("/")[0]
    try:
        states(srv.seats[0], lambda s: s["request"] is not None)  # the match is being played
        assert bot_processes(srv.proc.pid)
        code, page, _ = get(srv.seats[0])
        assert code == 200 and "mybot#1" in page and "random_bot#1" not in page
        srv.proc.send_signal(signal.SIGINT)
        assert srv.proc.wait(timeout=30) == 0
    finally:
        srv.stop()
    out = srv.proc.stdout.read()
    log_path = srv.log_dir / f"{mid}.jsonl"
    assert f"smear match {mid}: stopped with the server; log (incomplete): {log_path}" in out, out
    assert "Traceback" not in out
    assert bot_processes(srv.proc.pid) == []
    assert not list(Path(tempfile.gettempdir()).glob(f"referee-bots-{srv.proc.pid}-*"))
