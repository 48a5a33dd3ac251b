"""The pages at competition scale (issue #36): a synthetic tournament of 300
bots and 30,000 matches (imported through the one write path), every page
of the live site (in-process, Starlette's test client) and of `referee
report` paged and bounded in rows and bytes, newest first, and the live
site computing the leaderboard once per change of the results, in the
background, never per request."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from weblib import REFEREE, ROOT, env, write_synthetic_results

from referee.web.app import create_app
from referee.web.report import write_report
from tournaments.importer import import_results
from tournaments.rating import store_board
from tournaments.store import Store

BOTS, MATCHES = 300, 30_000
#: what no page may exceed, whatever the size of the tournament
MAX_ROWS, MAX_BYTES = 300, 1 << 20
BOARD_ROW = re.compile(r'<tr data-bot="([^"]+)"><td>(\d+)</td><td class="l bot">')
MATCH_ROW = re.compile(r'<tr data-bots="[^"]*" data-match="([^"]*)"(?: data-live)?><td>(-?\d+)</td>')
OPPONENT_ROW = re.compile(r'<tr data-bot="([^"]+)"><td class="l bot">')


@pytest.fixture(scope="module")
def scale(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("scale")
    src = tmp / "results.jsonl"
    names = write_synthetic_results(src, BOTS, MATCHES, seed=3, name="synthetic-bot-{:03d}")
    db = tmp / "scale.sqlite"
    store = Store(str(db))
    import_results(store, src, "scale", "doudizhu", 3)
    t = store.tournament("scale")
    board = [r.bot for r in store_board(store, t)]  # fits once, and the store keeps the fit
    store.close()
    return {"db": db, "names": names, "board": board}


#: the small tournaments: a field of 120 bots in 400 matches (about 10 matches and 20 opponents each), and
#: the same field with a hub bot that also plays 130 more matches against 119 opponents
SMALL_BOTS, SMALL_MATCHES, HUB_MATCHES = 120, 400, 130


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> dict:
    """``small`` and ``hub`` (see :data:`SMALL_BOTS`) in one SQLite file: ``{"db", "hub"}``."""
    import json

    tmp = tmp_path_factory.mktemp("small")
    db = tmp / "small.sqlite"
    store = Store(str(db))
    try:
        src = tmp / "small.jsonl"
        names = write_synthetic_results(src, SMALL_BOTS, SMALL_MATCHES, seed=5, name="b{:03d}")
        import_results(store, src, "small", "doudizhu", 3)
        with src.open("a", encoding="utf-8") as f:
            for m in range(HUB_MATCHES):  # the hub beats two others each time
                seats = [names[0], names[1 + m % 119], names[1 + (m + 60) % 119]]
                f.write(json.dumps({"match": SMALL_MATCHES + m, "seed": 10**6 + m, "status": "complete",
                                    "seats": seats, "scores": [2, -1, -1], "ranks": [1, 2, 2], "faults": [0] * 3,
                                    "summary": {"rounds": [{"landlord": 0, "landlord_won": True,
                                                            "deltas": [2, -1, -1]}]},
                                    "decisions": 40, "elapsed_s": 1.0}) + "\n")
        import_results(store, src, "hub", "doudizhu", 3)
    finally:
        store.close()
    return {"db": db, "hub": names[0], "names": names}


def copy_db(scale: dict, tmp_path: Path) -> Path:
    db = tmp_path / "copy.sqlite"
    shutil.copyfile(scale["db"], db)
    return db


def rows(html: str) -> int:
    return html.count("<tr")


def check_bounded(url: str, html: str) -> None:
    assert len(html.encode()) <= MAX_BYTES, (url, len(html.encode()))
    assert rows(html) <= MAX_ROWS, (url, rows(html))


def page_of(html: str) -> tuple[int, int]:
    """(page, pages) of the first pager of a page."""
    m = re.search(r'<nav class="pager"[^>]*data-page="(\d+)" data-pages="(\d+)"', html)
    assert m, "a paged list has page links"
    return int(m.group(1)), int(m.group(2))


def test_every_live_page_is_paged_bounded_and_newest_first(scale):
    with TestClient(create_app(str(scale["db"]))) as client:
        def get(url: str) -> str:
            r = client.get(url)
            assert r.status_code == 200, (url, r.status_code, r.text[:300])
            check_bounded(url, r.text)
            return r.text

        # the leaderboard: 100 bots a page, ranks continue, the same order as `referee leaderboard`
        seen = []
        for n in (1, 2, 3):
            html = get(f"/t/scale/index.html?page={n}")
            got = BOARD_ROW.findall(html)
            assert len(got) == 100 and [int(r) for _, r in got] == list(range(100 * n - 99, 100 * n + 1))
            assert page_of(html) == (n, 3)
            seen += [b for b, _ in got]
        assert seen == scale["board"]
        html = get("/t/scale/index.html?page=99")  # past the end: the last page
        assert BOARD_ROW.findall(html)[0] == (scale["board"][200], "201")
        first = get("/t/scale/index.html")
        # under the board: each seat's mean score and win rate, the landlord against the peasants
        assert [int(s) for s in re.findall(r'<tr data-seat="(\d+)">', first)] == [0, 1, 2]
        assert re.findall(r'<tr data-role="([a-z ]+)">', first) == ["landlord", "peasant"]
        # the chart shows the page's top 10, the head-to-head the top 10 of the board
        assert len(re.findall(r'<polyline class="mu"', first)) == 10
        h2h = re.search(r'<div id="h2h".*?</table>', first, re.S).group(0)
        assert re.findall(r'<tr data-bot="([^"]+)">', h2h) == scale["board"][:10]
        page2 = get("/t/scale/index.html?page=2")
        assert re.findall(r'<polyline class="mu" data-bot="([^"]+)"', page2) == scale["board"][100:110]

        # head to head: top K up to 50; every pair on request, as CSV
        for k, want in (("", 10), ("?k=30", 30), ("?k=5000", 50)):
            html = get(f"/t/scale/h2h.html{k}")
            table = re.search(r'<table class="grid h2h">.*?</table>', html, re.S).group(0)
            assert re.findall(r'<tr data-bot="([^"]+)">', table) == scale["board"][:want]
        csv_text = client.get("/t/scale/h2h.csv").text
        lines = csv_text.splitlines()
        assert lines[0] == "a,b,matches,a_ahead,b_ahead,tied"
        store = Store(str(scale["db"]), create=False)
        tid = store.tournament("scale")["id"]
        assert len(lines) - 1 == len(store.pair_totals(tid)) > 10_000
        store.close()

        # the matches: newest first, 100 a page, the pages continuing one another
        html = get("/t/scale/matches.html")
        idx = [int(i) for _, i in MATCH_ROW.findall(html)]
        assert idx == list(range(MATCHES - 1, MATCHES - 101, -1))
        assert page_of(html) == (1, MATCHES // 100)
        html = get("/t/scale/matches.html?page=2")
        assert [int(i) for _, i in MATCH_ROW.findall(html)][0] == MATCHES - 101
        html = get("/t/scale/matches.html?page=100000")
        assert [int(i) for _, i in MATCH_ROW.findall(html)][-1] == 0 and page_of(html)[0] == MATCHES // 100
        # filtered by a bot, on the server: its matches only, newest first, paged
        bot = scale["board"][150]
        html = get(f"/t/scale/matches.html?bot={bot}")
        got = MATCH_ROW.findall(html)
        idx = [int(i) for _, i in got]
        assert len(got) == 100 and idx == sorted(idx, reverse=True)
        assert all(bot in tr for tr in re.findall(r'<tr data-bots="([^"]*)"', html))
        assert f'<option value="{bot}" selected>' in html
        n_pages = page_of(html)[1]
        last = get(f"/t/scale/matches.html?bot={bot}&page={n_pages}")
        assert 0 < len(MATCH_ROW.findall(last)) <= 100
        assert f"bot={bot}" in re.search(r'<nav class="pager".*?</nav>', last, re.S).group(0)

        # a bot's page: its matches newest first and its opponents, each paged; its faults newest first
        slug = bot  # bot names here are their own slugs
        html = get(f"/t/scale/bots/{slug}.html")
        matches = re.search(r'<div id="bot-matches".*?</div>', html, re.S).group(0)
        idx = [int(i) for _, i in MATCH_ROW.findall(matches)]
        assert len(idx) == 100 and idx == sorted(idx, reverse=True)
        opponents = re.search(r'<div id="bot-opponents".*?(?=<h2|</main>)', html, re.S).group(0)
        assert len(OPPONENT_ROW.findall(opponents)) == 100 and page_of(opponents)[1] >= 2
        html2 = get(f"/t/scale/bots/{slug}.html?page=2&opage=2")
        idx2 = [int(i) for _, i in MATCH_ROW.findall(re.search(r'<div id="bot-matches".*?</div>', html2,
                                                               re.S).group(0))]
        assert idx2 and idx2[0] < idx[-1]
        opp2 = OPPONENT_ROW.findall(re.search(r'<div id="bot-opponents".*?(?=<h2|</main>)', html2, re.S).group(0))
        assert opp2 and not set(opp2) & set(OPPONENT_ROW.findall(opponents))
        assert get("/").count("scale") >= 1


def test_live_site_computes_once_per_change_in_the_background(scale, tmp_path, monkeypatch):
    import tournaments.rating as rating

    db = copy_db(scale, tmp_path)
    real_fit = rating.batch_fit
    fits = []
    gate = threading.Event()
    gate.set()

    def counting_fit(*a, **kw):
        fits.append(threading.current_thread().name)
        assert gate.wait(120), "the test never let the fit go on"
        return real_fit(*a, **kw)

    monkeypatch.setattr(rating, "batch_fit", counting_fit)
    store = Store(str(db))
    tid = store.tournament("scale")["id"]
    row = store.match_page(tid, 0, 1)[1][0]

    def record(idx: int) -> None:
        store.record_match(tid, idx, int(row["seed"]) + idx, row["seats"], "complete", row["result"], None, 50, 1.0)

    def played(html: str) -> int:
        return int(re.search(r'<div id="summary"[^>]*><p class="muted">(\d+) of', html).group(1))

    def wait_for(cond, what: str) -> None:
        deadline = time.monotonic() + 120
        while not cond():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.05)

    class Clock:  # the cache's clock, moved on by hand only: a quiet spell without sleeping
        now = 1000.0

        def __call__(self) -> float:
            return self.now

    app = create_app(str(db), min_refresh_gap_s=1.0)
    cache = app.state.cache
    clock = cache.clock = Clock()
    urls = ["/t/scale/index.html", "/t/scale/index.html?page=2", "/t/scale/matches.html", "/t/scale/h2h.html",
            f"/t/scale/bots/{scale['board'][0]}.html", "/t/scale/matches.html?page=7"]
    try:
        with TestClient(app) as client:
            for _ in range(3):
                for u in urls:
                    assert client.get(u).status_code == 200
            assert fits == [] and cache.refreshes[tid] == 1  # computed once, with the fit the store keeps

            # the results moved on after a quiet spell: the next request computes the pages, with the fit
            # the store keeps, and ONE refresh in the background brings the fit up to date
            record(MATCHES)
            clock.now += 5
            assert played(client.get(urls[0]).text) == MATCHES + 1
            assert fits == [] and cache.refreshes[tid] == 2
            wait_for(lambda: cache.refreshes[tid] == 3, "the background refresh")
            assert len(fits) == 1 and fits[0].startswith("referee-web-refresh")
            assert played(client.get(urls[0]).text) == MATCHES + 1
            for u in urls:
                client.get(u)
            assert len(fits) == 1 and cache.refreshes[tid] == 3  # nothing new: nothing computed

            gate.clear()  # results arriving within the refresh interval, and a slow refresh: requests go
            record(MATCHES + 1)  # on serving the pages computed last meanwhile
            client.get(urls[0])
            wait_for(lambda: len(fits) == 2, "the refresh to start")
            for i in range(3):
                record(MATCHES + 2 + i)
                for u in urls:
                    r = client.get(u)
                    assert r.status_code == 200
                assert played(client.get(urls[0]).text) == MATCHES + 1
            assert len(fits) == 2  # at most one refresh of a tournament at a time
            gate.set()
            wait_for(lambda: cache.refreshes[tid] == 4, "the slow refresh")
            client.get(urls[0])  # it was computed before the last matches: one more refresh
            wait_for(lambda: cache.refreshes[tid] == 5, "the refresh after it")
            assert played(client.get(urls[0]).text) == MATCHES + 5
            assert len(fits) == 3

        # a site that never computed the tournament serves the fit the store keeps, even one result
        # behind, and brings it up to date in the background
        record(MATCHES + 5)
        app = create_app(str(db), min_refresh_gap_s=0)
        with TestClient(app) as client:
            assert played(client.get(urls[0]).text) == MATCHES + 6
            assert len(fits) == 3
            wait_for(lambda: app.state.cache.refreshes[tid] == 2, "the refresh of the kept fit")
            assert len(fits) == 4
    finally:
        gate.set()
        store.close()


def test_report_is_paged_and_bounded(scale, tmp_path):
    store = Store(str(scale["db"]), create=False)
    out = tmp_path / "site"
    try:
        summary = write_report(store, store.tournament("scale"), out, max_matches=1_000)
    finally:
        store.close()
    assert summary.matches_listed == 1_000 and summary.matches_stored == MATCHES
    assert any("older than the newest 1,000" in x for x in summary.left_out)
    assert any("replays of 1,000 listed matches without a match log" in x for x in summary.left_out)
    html_files = sorted(out.rglob("*.html"))
    assert len(html_files) == 3 + 1 + 10 + BOTS  # leaderboard pages, h2h, match pages, bot pages
    for f in html_files:
        check_bounded(str(f), f.read_text())
    seen = []
    for n, name in enumerate(["index.html", "index-2.html", "index-3.html"], 1):
        got = BOARD_ROW.findall((out / name).read_text())
        assert [int(r) for _, r in got][0] == 100 * n - 99
        seen += [b for b, _ in got]
    assert seen == scale["board"]
    idx = []
    for n in range(1, 11):
        page = (out / ("matches.html" if n == 1 else f"matches-{n}.html")).read_text()
        idx += [int(i) for _, i in MATCH_ROW.findall(page)]
        assert "the newest 1,000 of 30,000 matches" in page
    assert idx == list(range(MATCHES - 1, MATCHES - 1_001, -1))
    last = (out / "matches-10.html").read_text()
    assert page_of(last) == (10, 10) and "matches-11.html" not in last
    bot = (out / "bots" / f"{scale['board'][0]}.html").read_text()
    assert len(MATCH_ROW.findall(bot)) == 100 and 'class="pager"' not in bot  # one page per bot, said so
    assert "`referee results scale` exports them" in bot
    assert len((out / "h2h.csv").read_text().splitlines()) > 10_000
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    assert size < 60 * (1 << 20)
    print(f"report of {BOTS} bots, {MATCHES} matches (1,000 listed): {len(html_files)} pages, {size / 2**20:.1f} MiB")


def test_report_command_says_what_it_left_out(scale, tmp_path):
    out = tmp_path / "cli"
    p = subprocess.run([*REFEREE, "report", "scale", "--db", str(scale["db"]), "--out", str(out), "--matches", "250"],
                       cwd=ROOT, env=env(), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "250 of 30,000 matches listed" in p.stderr and "left out: matches older than the newest 250" in p.stderr
    assert f"report: {(out / 'index.html').resolve()}" in p.stdout
    assert (out / "matches-3.html").is_file() and not (out / "matches-4.html").exists()


def test_the_live_dot_shows_only_while_the_tournament_is_played(scale, monkeypatch):
    """A finished (or stopped) tournament's live pages say they update live, without the red dot
    of a tournament being played."""
    with TestClient(create_app(str(scale["db"]))) as client:
        html = client.get("/t/scale/index.html").text
        assert "updates live" in html and "live-dot" not in html
        monkeypatch.setattr(Store, "run_state", lambda self, t: ("running", None))
        html = client.get("/t/scale/matches.html").text
        assert 'class="live-dot"' in html and "updates live" not in html


def test_report_lists_exactly_the_newest_n_matches(small, tmp_path):
    """``--matches N`` lists (and replays) N matches, not whole pages of 100; 0 lists none and says so."""
    store = Store(str(small["db"]), create=False)
    try:
        t = store.tournament("small")
        for n, pages in ((50, 1), (150, 2), (SMALL_MATCHES, 4), (10_000, 4), (0, 1)):
            out = tmp_path / f"site-{n}"
            summary = write_report(store, t, out, max_matches=n)
            want = min(n, SMALL_MATCHES)
            assert summary.matches_listed == want and summary.matches_stored == SMALL_MATCHES
            idx = []
            for k in range(1, pages + 1):
                html = (out / ("matches.html" if k == 1 else f"matches-{k}.html")).read_text()
                idx += [int(i) for _, i in MATCH_ROW.findall(html)]
            assert idx == list(range(SMALL_MATCHES - 1, SMALL_MATCHES - 1 - want, -1))
            assert not (out / f"matches-{pages + 1}.html").exists()
            first = (out / "matches.html").read_text()
            if n == 0:
                assert "none of the 400 matches is listed here" in first
                assert summary.left_out[0].startswith("the match list and every replay, none of the 400")
            elif want < SMALL_MATCHES:
                assert f"the newest {want} of 400 matches" in first
                assert summary.left_out[0].startswith(f"matches older than the newest {want} of 400")
            else:
                assert "the newest" not in first and not any("older than" in x for x in summary.left_out)
    finally:
        store.close()
    out = tmp_path / "cli"
    p = subprocess.run([*REFEREE, "report", "small", "--db", str(small["db"]), "--out", str(out), "--matches", "50"],
                       cwd=ROOT, env=env(), capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "50 of 400 matches listed" in p.stderr


def test_report_says_left_out_only_what_a_bot_page_really_left_out(small, tmp_path):
    """120 bots of about 10 matches and 20 opponents each: no bot page leaves anything out, and
    the report says nothing of them; a hub of 130 matches and 119 opponents: only its page does."""
    store = Store(str(small["db"]), create=False)
    try:
        for name, cut in (("small", []), ("hub", [small["hub"]])):
            out = tmp_path / name
            summary = write_report(store, store.tournament(name), out)
            notes = {}
            for f in (out / "bots").glob("*.html"):
                html = f.read_text()
                notes[f.stem] = ("its newest 100 of" in html, "its 100 most frequent of" in html)
            assert len(notes) == SMALL_BOTS
            assert sorted(b for b, n in notes.items() if any(n)) == cut
            bot_lines = [x for x in summary.left_out if "bot's page" in x or "bots' pages" in x]
            if not cut:
                assert bot_lines == [] and summary.left_out == [f"replays of {SMALL_MATCHES} listed matches without a "
                                                                "match log"]
                continue
            assert notes[small["hub"]] == (True, True)
            hub = (out / "bots" / f"{small['hub']}.html").read_text()
            assert len(MATCH_ROW.findall(hub)) == 100 and len(OPPONENT_ROW.findall(hub)) == 100
            played = store.match_page(store.tournament(name)["id"], 0, 0, bot=small["hub"])[0]
            assert played > HUB_MATCHES and f"its newest 100 of {played}: " in hub
            assert "its 100 most frequent of 119: " in hub
            assert bot_lines == ["on 1 bot's page, its matches beyond its newest 100",
                                 "on 1 bot's page, its opponents beyond its 100 most frequent (h2h.csv holds every pair)"]
    finally:
        store.close()


def test_live_site_says_when_a_bot_filter_names_no_bot(small):
    """``matches.html?bot=NAME`` of a bot the tournament does not have: 404, no match listed and a
    notice saying so (never every match, unfiltered); a bot's page of no bot: 404."""
    with TestClient(create_app(str(small["db"]))) as client:
        for name in ("nobody", small["names"][0] + "x", "<b>bold</b>"):
            r = client.get("/t/small/matches.html", params={"bot": name})
            assert r.status_code == 404, name
            assert MATCH_ROW.findall(r.text) == []
            shown = name.replace("<", "&lt;").replace(">", "&gt;")
            assert f"no bot called ‘{shown}’ in this tournament" in r.text and "<b>bold" not in r.text
            assert f'<option value="{small["names"][5]}">' in r.text  # the menu offers the real ones
        r = client.get("/t/small/matches.html", params={"bot": small["names"][5]})
        assert r.status_code == 200 and "no bot called" not in r.text
        got = re.findall(r'<tr data-bots="([^"]*)"', r.text)
        assert got and all(small["names"][5] in b for b in got)
        r = client.get("/t/small/matches.html?bot=")  # "all bots"
        assert r.status_code == 200 and len(MATCH_ROW.findall(r.text)) == 100 and "no bot called" not in r.text
        assert client.get("/t/small/bots/nobody.html").status_code == 404


def board_cells(html: str) -> dict[str, list[str]]:
    """Each leaderboard row of a page: bot -> the texts of its cells after rank and name."""
    rows = re.findall(r'<tr data-bot="([^"]+)"><td>\d+</td><td class="l bot">.*?</td>(.*?)</tr>',
                      html.split('class="grid leaderboard"')[1].split("</table>")[0], re.S)
    return {b: re.findall(r"<td[^>]*>(.*?)</td>", cells) for b, cells in rows}


def test_the_cli_the_live_site_and_the_report_show_the_same_rating_figures(small, tmp_path):
    """Every figure of a bot's rating (Elo, its interval, P(> next), mu, sigma, mu − 3σ, the mean
    score) is its raw value rounded once, the same text on the CLI's table, the live site's and the
    report's leaderboard and the bot's page, never a rounding of the JSON's rounded figures."""
    from tournaments.figures import elo_text
    from tournaments.report import board_texts

    store = Store(str(small["db"]), create=False)
    try:
        t = store.tournament("small")
        board = store_board(store, t)
        write_report(store, t, tmp_path / "site", max_matches=0)
    finally:
        store.close()
    want = {r.bot: board_texts(r) for r in board}
    # the field has figures that rounding the JSON's 0.1 Elo would move (47.46 -> 47.5 -> 48): the test sees it
    moved = [r.bot for r in board for k, v in (("elo", r.elo), ("elo_low", r.low), ("elo_high", r.high))
             if elo_text(r.to_json()[k]) != elo_text(v)]
    assert moved
    keys = [k for k in board[0].to_json() if k not in ("bot", "wins_while_broken")]
    shown = [k for k in keys if k in want[board[0].bot]]
    assert {"elo", "elo_low", "elo_high", "p_better_than_next", "mu", "sigma", "conservative",
            "mean_score"} <= set(shown)

    def check(cells: dict[str, list[str]]) -> None:
        assert cells
        for bot, texts in cells.items():
            got = dict(zip(keys, texts))
            assert {k: got[k] for k in shown if k in want[bot]} == {k: want[bot][k] for k in shown if k in want[bot]}

    with TestClient(create_app(str(small["db"]))) as client:
        for page in ("index.html", "index.html?page=2"):
            check(board_cells(client.get(f"/t/small/{page}").text))
        bot_page = client.get(f"/t/small/bots/{moved[0]}.html").text
    for page in ("index.html", "index-2.html"):
        check(board_cells((tmp_path / "site" / page).read_text()))
    static_bot = (tmp_path / "site" / "bots" / f"{moved[0]}.html").read_text()
    w = want[moved[0]]
    for html in (bot_page, static_bot):
        assert f"Elo {w['elo']} · low {w['elo_low']} · high {w['elo_high']}" in html
        assert f"mu {w['mu']} · sigma {w['sigma']} · mu − 3σ {w['conservative']}" in html

    p = subprocess.run([*REFEREE, "leaderboard", "-t", "small", "--db", str(small["db"])], cwd=ROOT, env=env(),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    table = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) > 7 and f[0].isdigit() and f[1] in want:
            mu_at = 5 if "p_better_than_next" in want[f[1]] else 4  # the last bot's P>next cell is empty
            table[f[1]] = (f[2], f[3], f[mu_at], f[mu_at + 1])
    assert table == {b: (x["elo"], x["interval"], x["mu"], x["sigma"]) for b, x in want.items()}
