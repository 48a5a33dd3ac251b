"""The live site and the report of a small tournament as a new user meets them:
pages fresh on the first request after a quiet spell and after a tournament is
made again, the site's 404 page, the live mark only while something is played,
empty stderr files said empty, the match list's bot links, finish time and
durations, and every page fitting a 390 px phone screen (Chromium)."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from weblib import REFEREE, ROOT, env, new_chrome

from referee.web.app import create_app
from referee.web.report import write_report
from referee.web.site import duration_text
from tournaments.importer import to_record
from tournaments.store import Store

BOTS = ["alpha", "beta", "gamma", "delta"]
NAME = "small-web"


def make(store: Store, log_dir: Path, bots: list[str] = BOTS, total: int = 12) -> int:
    spec = {"name": NAME, "game": "doudizhu", "players": 3, "log_dir": str(log_dir.parent)}
    return store.create_tournament(NAME, "doudizhu", spec, "fingerprint", total,
                                   [(b, f"python {b}.py", False) for b in bots])


def record(store: Store, tid: int, idx: int, seats: list[str], faults: dict[str, int] | None = None,
           elapsed_s: float = 0.0421, decisions: int = 145) -> str:
    """Store match ``idx`` (``seats[0]`` wins; ``faults``: illegal actions per seat), through the import path."""
    kinds = [{"illegal": (faults or {}).get(str(s), 0)} if (faults or {}).get(str(s)) else {} for s in range(3)]
    line = {"match": idx, "seed": idx + 1, "status": "complete", "seats": seats, "scores": [2, -1, -1],
            "ranks": [1, 2, 2], "faults": [sum(k.values()) for k in kinds], "fault_kinds": kinds,
            "summary": {"rounds": [{"landlord": 0, "landlord_won": True, "deltas": [2, -1, -1]}]},
            "decisions": decisions, "elapsed_s": elapsed_s}
    rec = to_record(line, idx, NAME)
    store.record_matches(tid, [rec])
    return rec.result["match_id"]


def played(html: str) -> str:
    m = re.search(r'<div id="summary"[^>]*><p class="muted">(\d+ of \d+) matches played', html)
    assert m, html[:500]
    return m.group(1)


def board(html: str) -> list[str]:
    return re.findall(r'<tr data-bot="([^"]+)"><td>\d+</td>', html)


class Clock:
    """The cache's clock, moved on by hand only: a quiet spell without sleeping, and no interval
    running out while a loaded machine is slow."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def wait_for(cond, what: str, timeout_s: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while not (got := cond()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return got


@pytest.fixture
def site(tmp_path):
    db = tmp_path / "web.sqlite"
    store = Store(str(db))
    log_dir = tmp_path / "logs" / NAME
    log_dir.mkdir(parents=True)
    tid = make(store, log_dir)
    try:
        yield {"db": db, "store": store, "tid": tid, "log_dir": log_dir}
    finally:
        store.close()


def test_the_first_request_after_a_quiet_spell_shows_what_is_stored(site):
    """A page is computed on the request when the one kept is older than the refresh interval
    (the very next request shows a new match); while results arrive, the kept page is served and
    one background refresh brings it up to date."""
    store, tid = site["store"], site["tid"]
    record(store, tid, 0, BOTS[:3])
    app = create_app(str(site["db"]))  # the default refresh interval: 1 s
    clock = app.state.cache.clock = Clock()
    with TestClient(app) as client:
        assert played(client.get(f"/t/{NAME}/index.html").text) == "1 of 12"
        for idx in (1, 2, 3):
            record(store, tid, idx, BOTS[1:])
            clock.now += 5  # a quiet spell (after the match: a refresh reading the clock then sees it)
            html = client.get(f"/t/{NAME}/index.html").text
            assert played(html) == f"{idx + 1} of 12" and "delta" in board(html)
        # results arriving within the interval: the page just computed is served, and refreshed behind it
        cache = app.state.cache
        wait_for(lambda: client.get(f"/t/{NAME}/index.html") and not cache.refreshing(tid)
                 and not cache.peek(tid).fit_stale, "the fit's refresh")  # a request starts it when none runs
        record(store, tid, 4, BOTS[:3])
        assert played(client.get(f"/t/{NAME}/index.html").text) == "4 of 12"
        wait_for(lambda: played(client.get(f"/t/{NAME}/index.html").text) == "5 of 12", "the background refresh")


def test_a_tournament_made_again_shows_its_own_matches_at_once(site):
    """``--fresh`` deletes the tournament and makes it again, in SQLite under the same id; after as
    many matches its results_version is the same as before: the pages still show the new one."""
    store, tid = site["store"], site["tid"]
    for idx in range(3):
        record(store, tid, idx, BOTS[:3])
    app = create_app(str(site["db"]))
    clock = app.state.cache.clock = Clock()
    with TestClient(app) as client:
        html = client.get(f"/t/{NAME}/index.html").text
        assert played(html) == "3 of 12" and sorted(board(html)) == sorted(BOTS)
        version = store.tournament(NAME)["results_version"]
        store.delete_tournament(NAME)
        again = make(store, site["log_dir"], bots=["alpha", "beta", "epsilon"], total=6)
        assert again == tid  # the case that hid the new tournament
        for idx in range(3):
            record(store, again, idx, ["epsilon", "alpha", "beta"])
        assert store.tournament(NAME)["results_version"] == version
        clock.now += 5
        html = client.get(f"/t/{NAME}/index.html").text
        assert played(html) == "3 of 6" and board(html)[0] == "epsilon"
        assert sorted(board(html)) == ["alpha", "beta", "epsilon"]
        assert client.get(f"/t/{NAME}/bots/epsilon.html").status_code == 200


def test_missing_pages_are_the_sites_404_page_with_its_navigation(site):
    record(site["store"], site["tid"], 0, BOTS[:3])
    with TestClient(create_app(str(site["db"]))) as client:
        for url in ("/t/nosuch/", "/t/nosuch", "/t/nosuch/index.html", "/t/nosuch/bots/x.html"):
            r = client.get(url, follow_redirects=False)
            assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), url
            assert "no tournament called ‘nosuch’" in r.text and '<a href="/">' in r.text, url
        for url, said in ((f"/t/{NAME}/bots/nosuch.html", "no bot called ‘nosuch’"),
                          (f"/t/{NAME}/replays/nosuch/all.html", "no match called ‘nosuch’"),
                          (f"/t/{NAME}/stderr/nosuch.seat0.txt", "no stderr file called"),
                          (f"/t/{NAME}/entrants.html", "not a ladder")):
            r = client.get(url)
            assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), url
            assert said in r.text, url
            for link in (f"/t/{NAME}/index.html", f"/t/{NAME}/matches.html", f"/t/{NAME}/static/style.css", "/"):
                assert f'href="{link}"' in r.text, (url, link)
        r = client.get(f"/t/{NAME}/", follow_redirects=False)  # a tournament's root still leads to its leaderboard
        assert r.status_code == 307 and r.headers["location"] == f"/t/{NAME}/index.html"


def test_the_live_mark_shows_only_while_something_is_played(site, monkeypatch):
    record(site["store"], site["tid"], 0, BOTS[:3])
    with TestClient(create_app(str(site["db"]))) as client:
        for url in ("/", f"/t/{NAME}/index.html", "/t/nosuch/"):
            html = client.get(url).text
            assert "live-dot" not in html and "updates live" in html, url
        monkeypatch.setattr(Store, "run_state", lambda self, t: ("running", None))
        html = client.get("/").text
        assert 'class="live-dot"' in html and "1 tournament is being played now" in html
        assert 'class="live-dot"' in client.get(f"/t/{NAME}/index.html").text


def test_empty_stderr_files_are_said_empty_live_and_in_the_report(site, tmp_path):
    store, tid, log_dir = site["store"], site["tid"], site["log_dir"]
    quiet = record(store, tid, 0, ["alpha", "beta", "gamma"], faults={"0": 1})
    loud = record(store, tid, 1, ["alpha", "gamma", "delta"], faults={"0": 1})
    (log_dir / f"{quiet}.seat0.stderr").write_bytes(b"")
    (log_dir / f"{loud}.seat0.stderr").write_text("Traceback: alpha fell over\n")
    with TestClient(create_app(str(site["db"]))) as client:
        html = client.get(f"/t/{NAME}/bots/alpha.html").text
        assert f'href="../stderr/{loud}.seat0.txt">stderr</a>' in html
        assert f"stderr/{quiet}.seat0.txt" not in html and html.count("stderr (empty)") == 1
        assert "alpha fell over" in client.get(f"/t/{NAME}/stderr/{loud}.seat0.txt").text
        r = client.get(f"/t/{NAME}/stderr/{quiet}.seat0.txt")  # an old link: says so, never a blank page
        assert r.status_code == 200 and "alpha wrote nothing to its stderr" in r.text
    out = tmp_path / "report"
    write_report(store, store.tournament(NAME), out)
    html = (out / "bots" / "alpha.html").read_text()
    assert f'href="../stderr/{loud}.seat0.txt">stderr</a>' in html and "stderr (empty)" in html
    assert f"stderr/{quiet}.seat0.txt" not in html
    assert (out / "stderr" / f"{loud}.seat0.txt").is_file() and not (out / "stderr" / f"{quiet}.seat0.txt").exists()


def test_the_match_list_links_the_seats_and_says_when_and_how_long(site, tmp_path):
    store, tid = site["store"], site["tid"]
    before = time.time()
    record(store, tid, 0, ["gamma", "alpha", "beta"], elapsed_s=0.0421)
    record(store, tid, 1, ["delta", "alpha", "beta"], elapsed_s=83.6)
    finished = time.strftime("%Y-%m-%d %H:%M", time.gmtime(before))
    with TestClient(create_app(str(site["db"]))) as client:
        for url, root in ((f"/t/{NAME}/matches.html", ""), (f"/t/{NAME}/bots/alpha.html", "../")):
            html = client.get(url).text
            row = re.search(r'<tr data-bots="[^"]*" data-match="small-web-m00000">(.*?)</tr>', html, re.S).group(1)
            seats = re.findall(r'<a class="seat-bot" href="([^"]+)">([^<]+)</a>', row)
            assert seats == [(f"{root}bots/{b}.html", b) for b in ("gamma", "alpha", "beta")], url
            assert "<td>42 ms</td>" in row and "finished (UTC)" in html
            assert re.search(rf"<td class=\"l\">{finished}:\d\d</td>", row) or finished[:-1] in row
            assert "<td>1 min 24 s</td>" in html
            for href, _ in seats:  # each link opens the bot's page
                assert client.get(f"/t/{NAME}/{href.removeprefix('../')}").status_code == 200
    write_report(store, store.tournament(NAME), tmp_path / "report")
    html = (tmp_path / "report" / "matches.html").read_text()
    assert '<a class="seat-bot" href="bots/gamma.html">gamma</a>' in html and "<td>42 ms</td>" in html


def test_durations_read_in_the_unit_that_fits():
    assert [duration_text(s) for s in (None, 0.0004, 0.0421, 0.9994, 1.0, 12.34, 59.96, 83.6, 3725.0)] == [
        "", "0 ms", "42 ms", "999 ms", "1.0 s", "12.3 s", "60.0 s", "1 min 24 s", "62 min 05 s"]


#: the pages a phone user opens, under the live site's root
PHONE_PAGES = ["/", f"/t/{NAME}/index.html", f"/t/{NAME}/matches.html", f"/t/{NAME}/bots/alpha.html",
               f"/t/{NAME}/h2h.html", "/play", f"/t/{NAME}/bots/nosuch.html"]


def test_every_page_fits_a_390_px_phone_screen(site, tmp_path):
    """At 390 x 844 the page is never wider than the screen: wide tables and the chart scroll in
    their own box, the chart keeps its labels readable (10 px at least), and the /play form fits."""
    store, tid = site["store"], site["tid"]
    for idx in range(12):
        record(store, tid, idx, [BOTS[(idx + s) % 4] for s in range(3)], faults={"0": idx % 2})
    store.close()
    web = subprocess.Popen([*REFEREE, "web", "--db", str(site["db"]), "--port", "0"], cwd=ROOT, env=env(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    driver = None
    try:
        line = web.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        base = f"http://127.0.0.1:{m.group(1)}"
        driver = new_chrome(500, 844)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        for p in PHONE_PAGES:
            driver.get(base + p)
            got = driver.execute_script("""
                const w = document.documentElement.clientWidth;
                const boxes = [...document.querySelectorAll('main table, main svg.plot, main input, main select')]
                  .filter(e => !e.closest('.scroll, .h2h-wrap'))
                  .map(e => Math.ceil(e.getBoundingClientRect().right) - w).filter(x => x > 0);
                const fonts = [...document.querySelectorAll('svg.plot text')].map(
                  t => t.getBoundingClientRect().height);
                return {w: w, page: document.documentElement.scrollWidth, past: boxes,
                        smallest: fonts.length ? Math.min(...fonts) : null};""")
            assert got["w"] == 390 and got["page"] <= 390 and got["past"] == [], (p, got)
            if got["smallest"] is not None:
                assert got["smallest"] >= 10, (p, got)
    finally:
        if driver is not None:
            driver.quit()
        web.terminate()
        try:
            web.wait(30)
        except subprocess.TimeoutExpired:
            web.kill()
            web.wait()
