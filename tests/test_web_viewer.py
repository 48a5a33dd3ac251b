"""The replay viewer's result line, faults panel, decision times, autoplay, nav
links and narrow-screen layout, from real match logs of faulty bots (Dou Dizhu,
two rounds: a bot that crashes mid-match, one whose every answer is illegal),
as data and in a real headless Chromium (the pages opened from the file
system, or from a server on 127.0.0.1 for the live page's end)."""

from __future__ import annotations

import functools
import http.server
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from referee.web.replay import build_replay, final_hands, read_log, steps
from referee.web.site import replay_page
from weblib import HEUR, RAND, REFEREE, ROOT, env, new_chrome, read_lines

from selenium.webdriver.common.by import By  # noqa: E402  (the test extra)
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CHAOS = f"{sys.executable} sample_bots/chaos_bot.py --mode"


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """name -> the log of a 2-round Dou Dizhu match of seat 1 = that chaos mode (the
    replay pages written next to it by `referee match`)."""
    base = tmp_path_factory.mktemp("viewer")
    procs = {}
    for mode in ("crash-mid-match", "illegal"):
        d = base / mode
        cmd = [*REFEREE, "match", "doudizhu", "--seed", "11", "--rounds", "2", "--log-dir", str(d),
               "--bot", HEUR, "--bot", f"{CHAOS} {mode}", "--bot", RAND]
        procs[mode] = (d, subprocess.Popen(cmd, cwd=ROOT, env=env(), stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True))
    out = {}
    for mode, (d, p) in procs.items():
        text, _ = p.communicate(timeout=300)
        assert p.returncode == 0, text
        out[mode] = next(d.glob("*.jsonl"))
    return out


@pytest.fixture(scope="module")
def driver():
    d = new_chrome(1280, 900)
    try:
        yield d
    finally:
        d.quit()


def wait_for(cond, timeout_s: float, what: str, step_s: float = 0.05):
    deadline = time.monotonic() + timeout_s
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(step_s)


def result_of(log: Path) -> dict:
    return next(d for d in read_lines(log) if d["type"] == "result")


def page(log: Path, view: str = "all") -> str:
    return (log.with_name(log.name.removesuffix(".jsonl") + ".replay") / f"{view}.html").as_uri()


def step_of(driver) -> int:
    return int(driver.find_element(By.ID, "replay").get_attribute("data-step"))


def viewport(driver, width: int | None, height: int | None = None) -> None:
    if width is None:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    else:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


# --------------------------------------------------------------------------- the data
@pytest.mark.parametrize("mode", ["crash-mid-match", "illegal"])
def test_the_final_line_names_each_seat_with_its_own_score_in_finishing_order(logs, mode):
    log = read_log(logs[mode])
    res = result_of(logs[mode])
    over = steps(log, "all")[-1]["over"]
    assert over.startswith("Final: ")
    entries = re.findall(r"(?:(\d+)\. )?([^ ,·()]+) \((-?\d+)\)", over.removeprefix("Final: "))
    assert sorted(name for _, name, _ in entries) == sorted(log.names)
    for _, name, score in entries:
        s = log.names.index(name)
        assert int(score) == res["scores"][s], (over, res["scores"])
    places = [res["ranks"][log.names.index(name)] for _, name, _ in entries]
    assert places == sorted(places)  # finishing order
    assert "scores" not in over  # no second list in seat order


def test_faults_are_listed_in_the_order_they_happened_with_their_step(logs):
    """A crash before the disconnect it caused, at the step of the decision the
    disconnect was charged for; the absent seat's faults at the decisions the
    referee took for it; the forfeit after the fault that caused it."""
    path = logs["crash-mid-match"]
    log = read_log(path)
    decisions = [d for d in read_lines(path) if d["type"] == "decision"]
    faults = steps(log, "all")[-1]["faults"]
    kinds = [f["text"].split(": ", 1)[1] for f in faults]
    assert kinds[:2] == ["crash", "disconnect"], kinds
    assert kinds[-1] == "forfeit" and set(kinds[2:-1]) == {"absent"}
    gone = next(i for i, d in enumerate(decisions, 1) if d["fault"] == "disconnect")
    assert faults[0]["step"] == faults[1]["step"] == gone
    away = [i for i, d in enumerate(decisions, 1) if d["seat"] == 1 and i > gone and d["reply"] is None]
    assert [f["step"] for f in faults[2:-1]] == away[:len(faults) - 3]
    assert faults[-1]["step"] == faults[-2]["step"]
    assert [f["step"] for f in faults] == sorted(f["step"] for f in faults)
    assert all(f["round"].startswith("Round ") for f in faults)
    # the illegal bot's faults: one per illegal decision, at its step
    path = logs["illegal"]
    decisions = [d for d in read_lines(path) if d["type"] == "decision"]
    faults = steps(read_log(path), "all")[-1]["faults"]
    illegal = [i for i, d in enumerate(decisions, 1) if d["fault"] == "illegal"]
    assert [f["step"] for f in faults if f["text"].split(": ", 1)[1].startswith("illegal ")] == illegal
    # the seat's own view lists its faults too, the public view none
    assert steps(read_log(path), 1)[-1]["faults"] == faults
    assert "faults" not in steps(read_log(path), "public")[-1]


def test_each_step_carries_its_decision_time_where_the_view_sees_it(logs):
    path = logs["illegal"]
    log = read_log(path)
    decisions = [d for d in read_lines(path) if d["type"] == "decision"]
    every = steps(log, "all")
    assert "ms" not in every[0]
    assert [st["ms"] for st in every[1:]] == [d["elapsed_ms"] for d in decisions]
    assert all("ms" not in st for st in steps(log, "public"))
    mine = steps(log, 2)
    for st, d in zip(mine[1:], decisions):
        assert (st.get("ms") == d["elapsed_ms"]) if d["seat"] == 2 else "ms" not in st


def test_final_hands_are_the_all_seeing_replays_last_hands(logs):
    for path in logs.values():
        log = read_log(path)
        last = steps(log, "all")[-1]
        assert final_hands(log) == [last[f"s{s}"]["hand"] for s in range(log.players)]
        assert any(final_hands(log))


def test_replay_pages_link_to_the_site(logs):
    log = read_log(logs["illegal"])
    t = {"name": "t", "game": "doudizhu", "players": 3}
    live = replay_page(log, "all", "../../", t=t, all_tournaments=True)
    assert '<a href="/">All tournaments</a>' in live and 'href="../../index.html">Leaderboard</a>' in live
    assert "All tournaments" not in replay_page(log, "all", "../../", t=t)  # the static report has no such page
    play = replay_page(log, "all", "/", t=None, home=("/play", "all matches"))
    assert '<a href="/play" id="home-link">all matches</a>' in play


# --------------------------------------------------------------------------- in the browser
def test_autoplay_plays_pauses_and_stops_at_the_end(driver, logs):
    driver.get(page(logs["illegal"]) + "#step=0")
    root = driver.find_element(By.ID, "replay")
    last = int(driver.find_element(By.ID, "slider").get_attribute("max"))
    assert root.get_attribute("data-playing") == "false"
    assert "play" in driver.find_element(By.ID, "play").text
    Select(driver.find_element(By.ID, "speed")).select_by_value("4")
    driver.find_element(By.TAG_NAME, "body").click()  # the keys go to the page, not the menu
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.SPACE)
    assert root.get_attribute("data-playing") == "true" and "pause" in driver.find_element(By.ID, "play").text
    wait_for(lambda: step_of(driver) >= 3, 30, "autoplay to step on")
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.SPACE)
    assert root.get_attribute("data-playing") == "false"
    held = step_of(driver)
    driver.find_element(By.ID, "next").click()
    driver.find_element(By.ID, "next").click()
    assert step_of(driver) == held + 2 and root.get_attribute("data-playing") == "false"
    driver.get(page(logs["illegal"]) + f"#step={last - 3}")
    driver.refresh()
    assert step_of(driver) == last - 3
    Select(driver.find_element(By.ID, "speed")).select_by_value("4")
    driver.find_element(By.ID, "play").click()
    wait_for(lambda: driver.find_element(By.ID, "replay").get_attribute("data-playing") == "false", 30,
             "autoplay to stop at the end")
    assert step_of(driver) == last
    assert "space plays / pauses" in driver.find_element(By.CSS_SELECTOR, ".side .panel.muted").text


def test_the_step_shows_its_decision_time_and_faults_link_to_their_step(driver, logs):
    path = logs["crash-mid-match"]
    decisions = [d for d in read_lines(path) if d["type"] == "decision"]
    driver.get(page(path) + "#step=4")
    took = driver.find_element(By.ID, "took")
    ms = decisions[3]["elapsed_ms"]
    assert took.text == (f"decided in {ms:.1f} ms" if ms < 10 else f"decided in {round(ms)} ms")
    driver.find_element(By.ID, "last").click()
    items = driver.find_elements(By.CSS_SELECTOR, "#faults li")
    texts = [li.text for li in items]
    assert "crash" in texts[0] and "disconnect" in texts[1], texts
    gone = next(i for i, d in enumerate(decisions, 1) if d["fault"] == "disconnect")
    assert texts[0].startswith(f"Round 1 of 2, step {gone} "), texts[0]
    items[0].find_element(By.CSS_SELECTOR, "a.fault-at").click()
    assert step_of(driver) == gone
    driver.get(page(path, "public") + "#step=4")
    assert not driver.find_element(By.ID, "took").is_displayed()


def test_a_ten_shows_both_digits_in_a_row_of_overlapping_cards(driver, logs):
    driver.get(page(logs["illegal"]) + "#step=0")
    hidden = driver.execute_script("""
      const out = [];
      document.querySelectorAll('.cards .card.ten').forEach(function (c) {
        const next = c.nextElementSibling, r = c.querySelector('.r').getBoundingClientRect();
        if (next && next.classList.contains('card') && next.getBoundingClientRect().top < r.bottom
            && next.getBoundingClientRect().left < r.right) out.push(c.getAttribute('data-card'));
      });
      return [document.querySelectorAll('.cards .card.ten').length, out];""")
    assert hidden[0] >= 2 and hidden[1] == [], hidden


def test_at_phone_width_the_rounds_table_scrolls_whole_words_and_names_fit(driver, logs):
    driver.get(page(logs["crash-mid-match"]) + "#step=0")
    viewport(driver, 390, 844)
    try:
        driver.find_element(By.ID, "last").click()
        got = driver.execute_script("""
          const broken = [];
          document.querySelectorAll('#results th, #results td').forEach(function (c) {
            const r = document.createRange();
            r.selectNodeContents(c);
            if (c.textContent && r.getClientRects().length > 1) broken.push(c.textContent);
          });
          const wrap = document.querySelector('.results-wrap');
          const names = [];
          document.querySelectorAll('.seat .seat-name').forEach(function (n) {
            const box = n.closest('.seat').getBoundingClientRect(), b = n.getBoundingClientRect();
            if (b.right > box.right + 0.5 || n.title !== n.textContent) names.push(n.textContent);
          });
          return {broken: broken, page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
                  wrap: getComputedStyle(wrap).overflowX, names: names};""")
        assert got == {"broken": [], "page": 0, "wrap": "auto", "names": []}, got
    finally:
        viewport(driver, None)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def test_a_live_page_drops_its_in_progress_label_when_the_match_is_over(driver, logs, tmp_path):
    """The public page of a match in progress, served on 127.0.0.1, polls its data; the
    data says the match is over: the "the match is over" link shows, "in progress" does not."""
    path = logs["illegal"]
    lines = path.read_text().splitlines(keepends=True)
    partial = tmp_path / "partial.jsonl"
    partial.write_text("".join(ln for ln in lines if '"type":"result"' not in ln and '"type":"fault"' not in ln
                               and '"type":"sandbox"' not in ln))
    running = read_log(partial)
    assert not running.complete
    (tmp_path / "public.html").write_text(replay_page(running, "public", "", poll="public.json", poll_ms=200))
    (tmp_path / "public.json").write_text(json.dumps(build_replay(read_log(path), "public")))
    (tmp_path / "static").symlink_to(ROOT / "referee" / "web" / "static")
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(tmp_path)))
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        driver.get(f"http://127.0.0.1:{srv.server_address[1]}/public.html")
        assert driver.find_element(By.ID, "live-note").is_displayed()
        wait_for(lambda: driver.find_element(By.ID, "live-done").is_displayed(), 30, "the match-over link")
        assert not driver.find_element(By.ID, "live-note").is_displayed()
        assert "in progress" not in driver.find_element(By.CSS_SELECTOR, ".views").text
    finally:
        srv.shutdown()
        srv.server_close()
        t.join(timeout=10)
