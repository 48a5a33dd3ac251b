"""The report, the replay viewer and the live site in a real headless Chromium
(Selenium + the system's chromedriver), one browser session for the module.

Pages are opened from the file system (the report, the replays `referee
match` writes) or from `referee web` on 127.0.0.1; every request a report
page makes is checked to stay on the file system. Screenshots of each page
type and of each game's replay go to runs/screenshots/ (not committed).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from weblib import MATCHES, REFEREE, ROOT, allowed_cards, decisions, env, game_report, match_logs, new_chrome

from selenium.webdriver.common.by import By  # noqa: E402  (the test extra)
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

SHOTS = ROOT / "runs" / "screenshots"


@pytest.fixture(scope="module")
def driver():
    d = new_chrome()
    try:
        yield d
    finally:
        d.quit()


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    return match_logs(tmp_path_factory.mktemp("weblogs"))


def shot(driver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))


def requests_made(driver) -> list[str]:
    """URLs the browser requested since the last call (performance log)."""
    urls = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    return urls


def step_of(driver) -> int:
    return int(driver.find_element(By.ID, "replay").get_attribute("data-step"))


def press(driver, key, times: int = 1) -> None:
    body = driver.find_element(By.TAG_NAME, "body")
    for _ in range(times):
        body.send_keys(key)


def replay_dir(log: Path) -> Path:
    return log.with_name(log.name.removesuffix(".jsonl") + ".replay")


# --------------------------------------------------------------------------- report
TOURNAMENT = """
name = "web-report"
game = "doudizhu"
players = 3
schedule = "round_robin"
games = 1
seed = 5
concurrency = 2
database = "{db}"
log_dir = "{logs}"
params = {{ rounds = 2 }}
[clock]
decision_ms = 2000
[faults]
policy = "default_action"
max_faults = 3
[[bots]]
name = "heuristic"
command = "{py} sample_bots/heuristic_bot.py --seed 1"
[[bots]]
name = "random"
command = "{py} sample_bots/random_bot.py --seed 2"
[[bots]]
name = "illegal"
command = "{py} sample_bots/chaos_bot.py --mode illegal"
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    db = tmp / "results.sqlite"
    f = tmp / "t.toml"
    f.write_text(TOURNAMENT.format(db=db, logs=tmp / "logs", py=sys.executable))
    run = subprocess.run([*REFEREE, "tournament", "run", str(f), "--quiet"], cwd=ROOT, env=env(),
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "referee report web-report" in run.stderr  # where its report can be made and opened
    assert "serves http://127.0.0.1:8080/t/web-report/ on its default port (--port changes it)" in run.stderr
    out = tmp / "site"
    rep = subprocess.run([*REFEREE, "report", "web-report", "--db", str(db), "--out", str(out)], cwd=ROOT, env=env(),
                         capture_output=True, text=True, timeout=600)
    assert rep.returncode == 0, rep.stdout + rep.stderr
    assert f"report: {(out / 'index.html').resolve()}" in rep.stdout
    board = subprocess.run([*REFEREE, "leaderboard", "--tournament", "web-report", "--format", "json", "--db", str(db)],
                           cwd=ROOT, env=env(), capture_output=True, text=True, timeout=120)
    assert board.returncode == 0, board.stderr
    return {"out": out, "db": db, "board": json.loads(board.stdout)}


def test_report_pages_offline_and_leaderboard_order(driver, report):
    out = report["out"]
    requests_made(driver)
    driver.get_log("browser")  # the console, from here on
    driver.get((out / "index.html").as_uri())
    names = [tr.get_attribute("data-bot") for tr in driver.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")]
    assert names == [r["bot"] for r in report["board"]]
    cells = driver.find_element(By.CSS_SELECTOR, "table.leaderboard tbody tr").text
    assert f"{report['board'][0]['conservative']:.2f}" in cells and f"{report['board'][0]['sigma']:.2f}" in cells
    assert driver.find_elements(By.CSS_SELECTOR, "#plot svg polyline.mu")
    assert len(driver.find_elements(By.CSS_SELECTOR, "table.h2h tbody tr")) == 3
    # the last bot has no bot below: a dash with a tooltip where P(> next) and separated would be
    last = driver.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")[-1]
    dashes = last.find_elements(By.CSS_SELECTOR, "td.no-next")
    assert [(d.text, d.get_attribute("title")) for d in dashes] == [("—", "last place: no bot below")] * 2
    assert not driver.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr:not(:last-child) td.no-next")
    shot(driver, "page-leaderboard")

    driver.find_element(By.LINK_TEXT, "illegal").click()
    assert driver.find_element(By.TAG_NAME, "h1").text == "illegal"
    faults = driver.find_elements(By.CSS_SELECTOR, "#bot-faults tbody tr")
    assert faults and "illegal" in faults[0].text
    stderr_links = driver.find_elements(By.CSS_SELECTOR, "#bot-faults a[href*='stderr/']")
    assert stderr_links, "each fault links to the bot's captured stderr"
    assert Path(urllib.request.url2pathname(stderr_links[0].get_attribute("href").removeprefix("file://"))).is_file()
    assert driver.find_elements(By.CSS_SELECTOR, "#bot-plot svg polygon")  # the mu ± 3 sigma band
    shot(driver, "page-bot")

    driver.get((out / "matches.html").as_uri())
    rows = driver.find_elements(By.CSS_SELECTOR, "#match-list tr[data-bots]")
    assert len(rows) == 6 and all(r.find_elements(By.CSS_SELECTOR, "a.replay-link") for r in rows)
    numbers = [int(r.find_element(By.TAG_NAME, "td").text) for r in rows]
    assert numbers == sorted(numbers, reverse=True)  # newest first
    shot(driver, "page-matches")
    # the report has no server to filter: choosing a bot opens its page, at its matches
    Select(driver.find_element(By.ID, "bot-filter")).select_by_visible_text("heuristic")
    wait_for(lambda: driver.current_url.endswith("bots/heuristic.html#bot-matches"), 10, "the bot's page")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#bot-matches tr[data-bots]")) == 6  # it plays them all
    driver.get((out / "matches.html").as_uri())
    rows = driver.find_elements(By.CSS_SELECTOR, "#match-list tr[data-bots]")
    rows[0].find_element(By.CSS_SELECTOR, "a.replay-link").click()
    assert driver.find_element(By.ID, "replay")
    link = driver.find_element(By.PARTIAL_LINK_TEXT, "download the match log").get_attribute("href")
    assert Path(link.removeprefix("file://")).read_bytes().startswith(b'{"format"')
    urls = requests_made(driver)
    assert urls and all(u.startswith("file://") for u in urls), [u for u in urls if not u.startswith("file://")]
    assert (out / "static" / "favicon.svg").is_file() and not any(u.endswith("/favicon.ico") for u in urls)
    # no console error on any page of the report (such as a missing /favicon.ico)
    assert [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


# --------------------------------------------------------------------------- replays
def act_cards(driver, seat: int) -> list[str]:
    return [e.get_attribute("data-card")
            for e in driver.find_elements(By.CSS_SELECTOR, f'#acts .act[data-seat="{seat}"] [data-card]')]


@pytest.mark.parametrize("name", list(MATCHES))
def test_arrow_key_k_times_shows_the_kth_decision(driver, logs, name):
    log = logs[name]
    decs = decisions(log)
    with_cards = [k for k, d in enumerate(decs, 1) if d["applied"]["cards"]]
    plays = [k for k in with_cards if decs[k - 1]["kind"] == "PLAY"]
    targets = sorted({with_cards[0], plays[0], plays[min(5, len(plays) - 1)]})
    driver.get((replay_dir(log) / "all.html").as_uri())
    assert step_of(driver) == 0
    at = 0
    for k in targets:
        press(driver, Keys.ARROW_RIGHT, k - at)
        at = k
        assert step_of(driver) == k
        d = decs[k - 1]
        got = act_cards(driver, d["seat"])
        text = driver.find_element(By.CSS_SELECTOR, f'#acts .act[data-seat="{d["seat"]}"]').text
        if "throw failed" in text:  # Tractor: a failed throw plays its forced part
            assert got and set(got) <= set(d["applied"]["cards"])
        else:
            assert sorted(got) == sorted(d["applied"]["cards"]), (k, d)
        seat_box = driver.find_element(By.CSS_SELECTOR, f'#table .seat[data-seat="{d["seat"]}"]')
        assert "actor" in seat_box.get_attribute("class")
        for c in ("H", "D"):  # red suits are drawn red
            for e in driver.find_elements(By.CSS_SELECTOR, f'[data-card$="{c}"]')[:1]:
                assert "red" in e.get_attribute("class")
    shot(driver, f"replay-{name}")


def test_keyboard_buttons_slider_and_round_menu(driver, logs):
    log = logs["doudizhu"]
    n = len(decisions(log))
    data = json.loads(re.search(r'id="replay-data">(.*?)</script>', (replay_dir(log) / "all.html").read_text(),
                                re.S).group(1))
    driver.get((replay_dir(log) / "all.html").as_uri())
    press(driver, Keys.END)
    assert step_of(driver) == n
    assert driver.find_element(By.ID, "over").is_displayed()
    press(driver, Keys.HOME)
    assert step_of(driver) == 0
    press(driver, Keys.PAGE_DOWN)
    assert step_of(driver) == data["rounds"][1][1]
    press(driver, Keys.PAGE_DOWN)
    assert step_of(driver) == data["rounds"][2][1]
    press(driver, Keys.PAGE_UP)
    assert step_of(driver) == data["rounds"][1][1]
    press(driver, Keys.ARROW_LEFT)
    assert step_of(driver) == data["rounds"][1][1] - 1
    driver.find_element(By.ID, "next").click()
    driver.find_element(By.ID, "next").click()
    driver.find_element(By.ID, "prev").click()
    assert step_of(driver) == data["rounds"][1][1]
    driver.find_element(By.ID, "last").click()
    assert step_of(driver) == n
    driver.find_element(By.ID, "first").click()
    assert step_of(driver) == 0
    slider = driver.find_element(By.ID, "slider")
    slider.send_keys(Keys.ARROW_RIGHT)
    slider.send_keys(Keys.ARROW_RIGHT)
    assert step_of(driver) == 2 and slider.get_attribute("value") == "2"
    Select(driver.find_element(By.ID, "jump")).select_by_index(3)
    assert step_of(driver) == data["rounds"][3][1]
    assert "Round 4" in driver.find_element(By.ID, "round").text
    driver.find_element(By.CSS_SELECTOR, 'a[href^="seat1.html"]').click()  # another view, same step
    assert driver.current_url.endswith(f"seat1.html#step={data['rounds'][3][1]}")
    assert step_of(driver) == data["rounds"][3][1]


def test_the_table_panel_says_when_nothing_is_on_the_table(driver, logs):
    log = logs["doudizhu"]
    for page in ("all.html", "seat1.html"):
        driver.get((replay_dir(log) / page).as_uri())
        assert step_of(driver) == 0
        assert driver.find_elements(By.CSS_SELECTOR, "#info dt") == []
        note = driver.find_element(By.ID, "no-info")
        assert note.is_displayed() and note.text == "nothing on the table yet"
        press(driver, Keys.END)  # the auction is over: the landlord, the result
        assert driver.find_elements(By.CSS_SELECTOR, "#info dt") and not note.is_displayed()


def dom_cards_per_step(driver, steps: int) -> list[list[str]]:
    """Card codes in the rendered replay (card elements and card-like words in
    its text) at steps 0..steps, stepping with the → key's handler."""
    return driver.execute_script("""
        const out = [];
        const tokens = /(?<![A-Za-z0-9])(?:[2-9TJQKA][SHDC]|BJ|RJ)(?![A-Za-z0-9])/g;
        const root = document.getElementById('replay');
        for (let k = 0; k <= arguments[0]; k++) {
          const seen = [...root.querySelectorAll('[data-card]')].map(e => e.getAttribute('data-card'));
          out.push(seen.concat(root.textContent.match(tokens) || []));
          document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
        }
        return out;""", steps)


@pytest.mark.parametrize("name", list(MATCHES))
def test_seat_view_dom_never_holds_a_card_the_seat_could_not_see(driver, logs, name):
    log = logs[name]
    seat = 1
    allowed = allowed_cards(log, seat)
    n = len(allowed) - 1
    driver.get((replay_dir(log) / f"seat{seat}.html").as_uri())
    seen = dom_cards_per_step(driver, n)
    bad = [(k, sorted(set(c) - allowed[k])) for k, c in enumerate(seen) if set(c) - allowed[k]]
    assert bad == []
    assert any(seen), "the seat's own hand is drawn"
    # negative control: the all-seeing page at the same steps shows cards seat 1 could not see
    driver.get((replay_dir(log) / "all.html").as_uri())
    seen_all = dom_cards_per_step(driver, min(n, 40))
    assert any(set(c) - allowed[k] for k, c in enumerate(seen_all))
    if name == "doudizhu":
        driver.get((replay_dir(log) / f"seat{seat}.html").as_uri() + "#step=27")
        shot(driver, f"replay-{name}-seat{seat}")


# --------------------------------------------------------------------------- live site
SLOW_BOT = """
import os, random, sys, time
sys.path.insert(0, {root!r})
from sample_bots import botlib
args = botlib.parse_args("slow", None)
rng = random.Random(args.seed)
def choose(req, _started):
    time.sleep(0.08)
    return rng.choice(list(req.legal_actions))
sys.exit(botlib.run(choose, args))
"""

LIVE = """
name = "web-live"
game = "doudizhu"
players = 3
schedule = {{ kind = "sampled", matches_per_bot = 3 }}
seed = 9
concurrency = 1
database = "{db}"
log_dir = "{logs}"
params = {{ rounds = 2 }}
[clock]
decision_ms = 3000
[[bots]]
name = "slow-a"
command = "{py} {bot} --seed 1"
[[bots]]
name = "slow-b"
command = "{py} {bot} --seed 2"
[[bots]]
name = "slow-c"
command = "{py} {bot} --seed 3"
"""


def wait_for(cond, timeout_s: float, what: str, step_s: float = 0.25):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(step_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def fetch(url: str) -> str:
    try:
        return urllib.request.urlopen(url, timeout=10).read().decode()
    except urllib.error.URLError:
        return ""


def test_live_site_follows_a_running_tournament(driver, tmp_path, shared_tmp):
    bot = shared_tmp / "slow_bot.py"  # where the bots' own uids can read it
    bot.write_text(SLOW_BOT.format(root=str(ROOT)))
    db = tmp_path / "live.sqlite"
    f = tmp_path / "live.toml"
    f.write_text(LIVE.format(db=db, logs=tmp_path / "logs", py=sys.executable, bot=bot))
    t = subprocess.Popen([*REFEREE, "tournament", "run", str(f), "--quiet"], cwd=ROOT, env=env(),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    web = None
    try:
        wait_for(lambda: db.exists(), 120, "the tournament's database")
        web = subprocess.Popen([*REFEREE, "web", "--db", str(db), "--port", "0"], cwd=ROOT, env=env(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = web.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        base = f"http://127.0.0.1:{m.group(1)}"
        wait_for(lambda: "web-live" in fetch(base + "/"), 60, "the tournament on the live site")
        # the leaderboard follows the tournament without a reload (loaded before the first match ends)
        driver.get(base + "/t/web-live/index.html")
        driver.execute_script("window.__not_reloaded = true;")
        before = driver.find_element(By.ID, "summary").text
        assert "0 of 3" in before or "1 of 3" in before, before
        wait_for(lambda: driver.find_element(By.ID, "summary").text != before, 180, "the leaderboard to update")
        assert driver.execute_script("return window.__not_reloaded === true;")
        # a match being played shows up by itself, and can be watched in the public view only
        driver.get(base + "/t/web-live/matches.html")
        driver.execute_script("window.__not_reloaded = true;")
        watched = False
        for _ in range(2):  # the match found may end before it is watched: then the next one
            links = wait_for(lambda: driver.find_elements(By.XPATH, "//a[text()='watch']"), 120, "a match in progress")
            href = links[0].get_attribute("href")
            assert href.endswith("/public.html")
            try:
                urllib.request.urlopen(href.replace("public.html", "all.html"), timeout=10)
                hidden_refused = False
            except urllib.error.HTTPError as e:
                hidden_refused = e.code == 403
            driver.get(href)
            data = json.loads(urllib.request.urlopen(href.replace(".html", ".json"), timeout=10).read())
            if data["complete"]:
                driver.get(base + "/t/web-live/matches.html")
                continue
            assert hidden_refused, "the all-seeing view of a match in progress must be refused"
            driver.execute_script("window.__not_reloaded = true;")
            assert not driver.find_elements(By.CSS_SELECTOR, "#table .seat .hand [data-card]"), "no hand shown"
            first = int(driver.find_element(By.ID, "slider").get_attribute("max"))
            assert step_of(driver) == first  # a live page follows the end of the match
            wait_for(lambda: int(driver.find_element(By.ID, "slider").get_attribute("max")) > first, 120,
                     "the watched match to move on")
            assert driver.execute_script("return window.__not_reloaded === true;")
            watched = True
            break
        assert watched
        shot(driver, "page-live-match")
        driver.get(base + "/t/web-live/index.html")
        driver.execute_script("window.__not_reloaded = true;")
        assert t.wait(timeout=600) == 0, t.stdout.read()
        wait_for(lambda: "3 of 3 matches" in driver.find_element(By.ID, "summary").text, 60, "the final leaderboard")
        board = subprocess.run([*REFEREE, "leaderboard", "--tournament", "web-live", "--format", "json", "--db",
                                str(db)], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=120)
        names = [tr.get_attribute("data-bot")
                 for tr in driver.find_elements(By.CSS_SELECTOR, "table.leaderboard tbody tr")]
        assert names == [r["bot"] for r in json.loads(board.stdout)]
        assert driver.execute_script("return window.__not_reloaded === true;")
        # once over, a match's every view and its log are served
        assert urllib.request.urlopen(href.replace("public.html", "all.html"), timeout=10).status == 200
        assert urllib.request.urlopen(href.replace("public.html", "log.jsonl"), timeout=10).read().startswith(b"{")
    finally:
        for p in (web, t):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


# --------------------------------------------------------------------------- ladder
def test_live_site_shows_a_ladders_entrant_states_and_versions(driver, tmp_path):
    """`referee web` on a ladder's database: each entrant's state, why and
    when, and its versions (the history written as the ladder writes it)."""
    from tournaments.ladder import parse_ladder
    from tournaments.ladder_store import Event, LadderStore
    from tournaments.store import Store

    db = tmp_path / "ladder.sqlite"
    spec = parse_ladder({"name": "web-ladder", "game": "doudizhu", "database": str(db)})
    store = Store(str(db))
    ls = LadderStore(store)
    tid = ls.create(spec.name, "doudizhu", spec.stored_json(), spec.fingerprint())
    seq = 0

    def commit(kind: str, name: str, data: dict, **kw) -> None:
        nonlocal seq
        seq += 1
        ls.commit(tid, [Event(seq, kind, name, data=data)], **kw)

    for name, version in (("alice", 1), ("bob", 1), ("carol", 1), ("bob", 2)):
        label = f"{name}@v{version}"
        commit("add" if version == 1 else "replace", name, {"version": version, "label": label, "command": "x"},
               new_version={"name": name, "version": version, "label": label, "command": "python x.py",
                            "external": False, "token": "", "state": "active", "reason": "", "added_seq": seq + 1},
               version_states={"bob@v1": ("replaced", "replaced by v2")} if version == 2 else None)
    commit("suspend", "alice", {"label": "alice@v1", "reason": "3 faulty matches in a row (last, m7: crash)"},
           version_states={"alice@v1": ("suspended", "3 faulty matches in a row (last, m7: crash)")})
    commit("retire", "carol", {"label": "carol@v1", "reason": "withdrawn by its author"},
           version_states={"carol@v1": ("retired", "withdrawn by its author")})
    store.close()
    web = subprocess.Popen([*REFEREE, "web", "--db", str(db), "--port", "0"], cwd=ROOT, env=env(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", web.stdout.readline())
        assert m
        driver.get(f"http://127.0.0.1:{m.group(1)}/t/web-ladder/index.html")
        rows = {tr.get_attribute("data-entrant"): tr for tr in driver.find_elements(By.CSS_SELECTOR, "#entrants tr")
                if tr.get_attribute("data-entrant")}
        assert {n: r.get_attribute("data-state") for n, r in rows.items()} == {
            "alice": "suspended", "bob": "active", "carol": "retired"}
        assert "3 faulty matches in a row" in rows["alice"].text and "UTC" in rows["alice"].text
        assert "withdrawn by its author" in rows["carol"].text
        assert "bob@v2" in rows["bob"].text and "v1 replaced" in rows["bob"].text
        shot(driver, "page-ladder-entrants")
        rows["bob"].find_element(By.LINK_TEXT, "v1").click()
        assert driver.find_element(By.ID, "bot-state").get_attribute("data-state") == "replaced"
        assert [tr.get_attribute("data-version") for tr in
                driver.find_elements(By.CSS_SELECTOR, "#bot-versions tbody tr")] == ["bob@v1", "bob@v2"]
    finally:
        web.terminate()
        try:
            web.wait(timeout=20)
        except subprocess.TimeoutExpired:
            web.kill()
            web.wait()


# --------------------------------------------------------------------------- paged pages at scale
@pytest.fixture(scope="module")
def big_site(tmp_path_factory):
    """`referee web` over an imported tournament of 150 bots with long names
    and 3,000 matches (pages of 100: two of bots, thirty of matches)."""
    from tournaments.importer import import_results
    from tournaments.store import Store
    from weblib import write_synthetic_results

    tmp = tmp_path_factory.mktemp("big")
    src = tmp / "results.jsonl"
    names = write_synthetic_results(src, 150, 3_000, seed=7, name="a-rather-long-bot-name-{:03d}-v12")
    db = tmp / "big.sqlite"
    store = Store(str(db))
    import_results(store, src, "big", "doudizhu", 3)
    store.close()
    web = subprocess.Popen([*REFEREE, "web", "--db", str(db), "--port", "0"], cwd=ROOT, env=env(),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", web.stdout.readline())
        assert m
        yield {"base": f"http://127.0.0.1:{m.group(1)}/t/big", "names": names}
    finally:
        web.terminate()
        try:
            web.wait(timeout=20)
        except subprocess.TimeoutExpired:
            web.kill()
            web.wait()


def overflow(driver) -> dict:
    """How far the page and its tables reach past the window's width (0: they fit)."""
    return driver.execute_script("""
        const w = document.documentElement.clientWidth;
        const out = {page: Math.max(0, document.documentElement.scrollWidth - w)};
        document.querySelectorAll('main table').forEach((t, i) => {
          if (t.closest('.scroll, .h2h-wrap')) return;  // a box of its own that scrolls (the top-50 matrix)
          out[(t.className || 'table') + i] = Math.max(0, Math.ceil(t.getBoundingClientRect().right) - w);
        });
        return out;""")


@pytest.mark.parametrize("width", [1400, 1920])
def test_paged_pages_fit_the_window(driver, big_site, width):
    base, names = big_site["base"], big_site["names"]
    driver.set_window_size(width, 1000)
    try:
        pages = ["index.html", "index.html?page=2", "matches.html", "matches.html?page=17",
                 f"matches.html?bot={names[3]}", f"bots/{names[3]}.html", f"bots/{names[3]}.html?page=2&opage=2",
                 "h2h.html", "h2h.html?k=50"]
        for p in pages:
            driver.get(f"{base}/{p}")
            assert driver.find_elements(By.CSS_SELECTOR, "main table"), p
            assert set(overflow(driver).values()) == {0}, (p, width, overflow(driver))
        # the page links: next, then a page number, on the leaderboard and the matches
        driver.get(f"{base}/index.html")
        driver.find_element(By.CSS_SELECTOR, "#board .pager a[rel=next]").click()
        first = driver.find_element(By.CSS_SELECTOR, "table.leaderboard tbody tr td").text
        assert driver.current_url.endswith("index.html?page=2") and first == "101"
        shot(driver, f"page-leaderboard-2-{width}")
        driver.get(f"{base}/matches.html")
        driver.find_element(By.LINK_TEXT, "3").click()
        numbers = [int(td.text) for td in driver.find_elements(By.CSS_SELECTOR, "#match-list tbody tr td:first-child")]
        assert numbers == list(range(2_799, 2_699, -1))  # newest first, 100 a page
        # the bot menu filters on the server
        Select(driver.find_element(By.ID, "bot-filter")).select_by_visible_text(names[5])
        wait_for(lambda: "bot=" in driver.current_url, 10, "the filtered list")
        bots = [json.loads(tr.get_attribute("data-bots")) for tr in
                driver.find_elements(By.CSS_SELECTOR, "#match-list tr[data-bots]")]
        assert bots and all(names[5] in b for b in bots)
        shot(driver, f"page-matches-bot-{width}")
        driver.get(f"{base}/bots/{names[3]}.html")
        shot(driver, f"page-bot-paged-{width}")
    finally:
        driver.set_window_size(1400, 900)


def test_head_to_head_of_30_bots_scrolls_in_its_box_at_1280(driver, big_site):
    """At 1280 x 900 the top-30 matrix is wider than the window: its box fits
    the window (both its scroll bars in view once the box is), scrolls
    sideways to the 30th column, and holds the bot column and the header row
    in place meanwhile. The bots' long names, alike but for a number, show
    apart (shortened in the middle, not cut by the column), each with its
    rank, which stays in view with the name."""
    driver.set_window_size(1280, 900)
    try:
        driver.get(f"{big_site['base']}/h2h.html?k=30")
        box = driver.execute_script("""
            const s = document.getElementById('h2h'), css = getComputedStyle(s), r = s.getBoundingClientRect();
            return {overflowX: css.overflowX, scroll: s.scrollWidth, client: s.clientWidth, right: r.right,
                    height: r.height, window: document.documentElement.clientWidth, innerHeight: innerHeight,
                    page: document.documentElement.scrollWidth};""")
        assert box["overflowX"] in ("auto", "scroll") and box["scroll"] > box["client"] + 200, box
        assert box["right"] <= box["window"] and box["page"] <= box["window"], box  # nothing cut off by the window
        assert box["height"] <= box["innerHeight"], box
        assert len(driver.find_elements(By.CSS_SELECTOR, "table.h2h thead th")) == 1 + 30
        moved = driver.execute_script("""
            const s = document.getElementById('h2h');
            s.scrollLeft = s.scrollWidth; s.scrollTop = s.scrollHeight;
            const box = s.getBoundingClientRect(), heads = s.querySelectorAll('thead th');
            const last = heads[heads.length - 1].getBoundingClientRect();
            const bot = s.querySelector('tbody tr:last-child th.bot').getBoundingClientRect();
            return {scrolled: s.scrollLeft, left: box.left, right: box.right, top: box.top,
                    last_left: last.left, last_right: last.right, last_top: last.top, bot_left: bot.left};""")
        assert moved["scrolled"] > 0
        assert moved["left"] < moved["last_left"] and moved["last_right"] <= moved["right"], moved  # column 30 shown
        assert abs(moved["bot_left"] - moved["left"]) <= 2 and abs(moved["last_top"] - moved["top"]) <= 2, moved
        rows = driver.execute_script("""
            const s = document.getElementById('h2h'), box = s.getBoundingClientRect();
            return [...s.querySelectorAll('tbody th.bot')].map(th => {
              const rank = th.querySelector('.rank').getBoundingClientRect();
              return {rank: th.querySelector('.rank').textContent, name: th.querySelector('a').textContent,
                      title: th.querySelector('a').title, clipped: th.scrollWidth > th.clientWidth,
                      rank_shown: rank.left >= box.left && rank.right <= th.getBoundingClientRect().right};
            });""")
        assert [r["rank"] for r in rows] == [str(k) for k in range(1, 31)]
        assert all(r["rank_shown"] and not r["clipped"] for r in rows), rows
        assert len({r["name"] for r in rows}) == 30 and all(r["title"] in big_site["names"] for r in rows)
        shot(driver, "page-h2h-30-scrolled-1280")
    finally:
        driver.set_window_size(1400, 900)


@pytest.mark.parametrize("width", [1400, 1920])
def test_replay_rounds_and_match_list_fit_the_window(driver, logs, tmp_path_factory, width):
    """Every game's replay at its last step (every round in the rounds table)
    and the match list of a tournament of that game (long bot names): nothing
    reaches past the window, and the rounds table needs no scrolling sideways."""
    base = tmp_path_factory.mktemp(f"fit{width}")
    driver.set_window_size(width, 1000)
    try:
        for name, log in logs.items():
            driver.get((replay_dir(log) / "all.html").as_uri())
            press(driver, Keys.END)
            assert driver.find_elements(By.CSS_SELECTOR, "#results tbody tr"), name
            assert set(overflow(driver).values()) == {0}, (name, width, overflow(driver))
            assert driver.execute_script(
                "const w = document.querySelector('.results-wrap'); return w.scrollWidth - w.clientWidth;") == 0
            shot(driver, f"replay-rounds-{name}-{width}")
            site = game_report(base, name, log)
            driver.get((site / "matches.html").as_uri())
            assert len(driver.find_elements(By.CSS_SELECTOR, "#match-list tr[data-bots]")) == 6, name
            assert set(overflow(driver).values()) == {0}, (name, width, overflow(driver))
            shot(driver, f"page-matches-{name}-{width}")
    finally:
        driver.set_window_size(1400, 900)


def test_the_rating_chart_fills_the_width_and_names_its_lines_at_1280(driver, big_site):
    """At 1280 x 900 the leaderboard's chart takes the room it has (up to its
    960 px), its legend shows ten distinct names, each entry and line
    naming its bot in full in a <title>, and the x axis' name lies below
    its tick labels."""
    driver.set_window_size(1280, 900)
    try:
        driver.get(f"{big_site['base']}/index.html")
        chart = driver.execute_script("""
            const svg = document.querySelector('#plot svg'), r = svg.getBoundingClientRect();
            const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
            return {width: r.width, window: document.documentElement.clientWidth,
                    shown: [...svg.querySelectorAll('g.legend text')].map(t => t.textContent),
                    legend: [...svg.querySelectorAll('g.legend > title')].map(t => t.textContent),
                    lines: [...svg.querySelectorAll('polyline.mu > title')].map(t => t.textContent),
                    ticks: [...svg.querySelectorAll('text.x-tick')].map(box),
                    axis: box(svg.querySelector('text.x-axis'))};""")
        assert 900 <= chart["width"] <= 960 and chart["width"] <= chart["window"], chart
        assert len(set(chart["shown"])) == 10 and all("…" in t for t in chart["shown"]), chart["shown"]
        assert chart["legend"] == chart["lines"] and len(chart["legend"]) == 10
        assert set(chart["legend"]) <= set(big_site["names"])
        assert all(chart["axis"][1] >= bottom for *_, bottom in chart["ticks"]), chart  # below every tick label
        driver.execute_script("document.getElementById('plot').scrollIntoView()")
        shot(driver, "page-chart-1280")
    finally:
        driver.set_window_size(1400, 900)
