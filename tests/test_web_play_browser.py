"""A human plays whole matches of every game against the sample bots, by clicking
in a real headless Chromium (Selenium + the system's chromedriver).

One `referee play` server on 127.0.0.1 for the module (its first match is the
timeout test's); the other matches are made with its new-match form, in the
browser. The human clicks cards of its hand and the buttons of its page,
never calls the server itself. Included: an illegal attempt (the rule that
forbids it is shown, the referee plays the fallback), a timeout, a reload of
the page mid-match that resumes the seat, two humans at one table. After each
match, every state the page received over its event stream (Chromium's
performance log) is checked: no other seat's hand, no card the seat had not
been shown by then. Screenshots at 1,400 and 1,920 px go to runs/screenshots/.
"""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

import pytest

from referee.web.replay import final_hands, read_log
from weblib import CARD_TOKEN, HEUR, REFEREE, ROOT, codes, env, new_chrome, read_lines

from selenium.webdriver.common.by import By  # noqa: E402  (the test extra)
from selenium.webdriver.support.ui import Select  # noqa: E402

SHOTS = ROOT / "runs" / "screenshots"


def wait_for(cond: Callable[[], Any], timeout_s: float, what: str, step_s: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(step_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def texts(driver, css: str) -> list[str]:
    """The text of every element ``css`` selects, read in one script: the page redraws its table and
    results as states arrive, so elements found first and read later may be gone (stale)."""
    return driver.execute_script("return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText)", css)


def shot(driver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))


def overflow(driver) -> int:
    """How far the page reaches past the window's width, in pixels (0: it fits)."""
    return driver.execute_script("return Math.max(0, document.documentElement.scrollWidth - "
                                 "document.documentElement.clientWidth);")


@pytest.fixture(scope="module")
def driver():
    d = new_chrome(1400, 1000)
    try:
        yield d
    finally:
        d.quit()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`referee play smear` (2 players, 2 rounds, a 4 s human clock: the timeout test's match),
    the heuristic sample bot given as a command (the form offers it too)."""
    tmp = tmp_path_factory.mktemp("playweb")
    proc = subprocess.Popen([*REFEREE, "play", "smear", "--players", "2", "--rounds", "2", "--seed", "6",
                             "--human-ms", "4000", "--bot", HEUR, "--no-open", "--port", "0",
                             "--log-dir", str(tmp / "logs")], cwd=ROOT, env=env(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        head = proc.stdout.readline()
        m = re.search(r"serving (http://127\.0\.0\.1:\d+)/play .*referee on 127\.0\.0\.1:(\d+)", head)
        assert m, head
        seat = re.match(r"seat 0 \(human#0\): (http://\S+)", proc.stdout.readline())
        assert seat
        yield {"base": m.group(1), "referee_port": int(m.group(2)), "first": seat.group(1), "logs": tmp / "logs"}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
        left = [d.name for d in Path("/proc").iterdir() if d.name.isdigit() and _cmdline_has(d, m.group(2))]
        assert left == [], f"bot processes left after referee play stopped: {left}"


def _cmdline_has(d: Path, port: str) -> bool:
    try:
        return f"127.0.0.1:{port}".encode() in (d / "cmdline").read_bytes()
    except OSError:
        return False


# --------------------------------------------------------------------------- playing by clicking
def page_state(driver) -> str:
    return driver.find_element(By.ID, "play").get_attribute("data-state")


def my_hand(driver) -> list[str]:
    return [e.get_attribute("data-card") for e in driver.find_elements(By.CSS_SELECTOR, "#my-hand .card")]


def click_card(driver, card) -> None:
    """Click a card of the hand as a person would: scrolled to the middle of the window
    first (Selenium's own scrolling puts it at the bottom edge, where the action bar,
    held at the bottom of the window, may cover it)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", card)
    card.click()


def click_cards(driver, cards: list[str]) -> None:
    """Select ``cards`` by clicking them in the hand, one by one (the hand is redrawn after each click)."""
    for c in cards:
        el = driver.find_elements(By.CSS_SELECTOR, f'#my-hand .card.pick[data-card="{c}"]:not(.selected)')
        assert el, f"{c} is not in the hand {my_hand(driver)}"
        click_card(driver, el[0])
    picked = [e.get_attribute("data-card") for e in driver.find_elements(By.CSS_SELECTOR, "#my-hand .card.selected")]
    assert sorted(picked) == sorted(cards)


def illegal_pair(hand: list[str]) -> list[str] | None:
    """Two cards of different ranks (no joker): never one Dou Dizhu combination."""
    plain = [c for c in hand if c not in ("BJ", "RJ")]
    for a in plain:
        for b in plain:
            if a[0] != b[0]:
                return [a, b]
    return None


def take_turn(driver, rng: random.Random, illegal: bool = False) -> str:
    """Answer the pending decision by clicking: a listed legal action chosen at random
    (its cards clicked in the hand, or its button), 8 cards of the hand for a Tractor
    burial, the Hint for a long list; with ``illegal``, two cards that are no
    combination. Waits until the page has moved on; what was done."""
    root = driver.find_element(By.ID, "play")
    rid = root.get_attribute("data-request")
    send = driver.find_elements(By.ID, "send-cards")
    kind = send[0].get_attribute("data-kind") if send else None
    done = ""
    if illegal and kind == "PLAY" and (pair := illegal_pair(my_hand(driver))):
        click_cards(driver, pair)
        status = driver.find_element(By.ID, "selection-status").text
        assert "not a legal action" in status and driver.find_element(By.ID, "send-cards").text.startswith("Send anyway")
        driver.find_element(By.ID, "send-cards").click()
        done = "illegal"
    elif kind == "DISCARD":  # the kitty: any 8 cards of the hand may be buried (the list is not complete)
        n = len(my_hand(driver))
        for i in sorted(rng.sample(range(n), 8)):
            click_card(driver, driver.find_element(By.CSS_SELECTOR, f'#my-hand .card[data-i="{i}"]'))
        assert len(driver.find_elements(By.CSS_SELECTOR, "#my-hand .card.selected")) == 8
        driver.find_element(By.ID, "send-cards").click()
        done = "bury"
    else:
        choices = [("button", b.get_attribute("data-action"))
                   for b in driver.find_elements(By.CSS_SELECTOR, "#buttons button[data-action]")]
        choices += [("cards", o.get_attribute("data-cards"))
                    for o in driver.find_elements(By.CSS_SELECTOR, "#options .option")]
        if send and not any(c[0] == "cards" for c in choices):
            choices.append(("hint", ""))
        assert choices, "no action offered"
        what, value = rng.choice(choices)
        if what == "button":
            driver.find_element(By.CSS_SELECTOR, f'#buttons button[data-action="{value}"]').click()
        elif what == "cards":
            click_cards(driver, value.split())
            assert "a legal action" in driver.find_element(By.ID, "selection-status").text
            driver.find_element(By.ID, "send-cards").click()
        else:
            for _ in range(rng.randrange(1, 4)):
                driver.find_element(By.ID, "hint").click()
            driver.find_element(By.ID, "send-cards").click()
        done = what
    wait_for(lambda: root.get_attribute("data-request") != rid or page_state(driver) != "your-turn", 60,
             "the page to take the answer")
    return done


def play_to_the_end(driver, rng: random.Random, max_s: float = 600.0) -> dict:
    """Play the seat of the open page until the match is over; counts of what was done."""
    done: dict[str, int] = {}
    deadline = time.monotonic() + max_s
    while True:
        state = wait_for(lambda: page_state(driver) in ("your-turn", "ended") and page_state(driver), 180,
                         "the seat's turn or the end")
        if state == "ended":
            return done
        assert time.monotonic() < deadline, "the match did not end"
        what = take_turn(driver, rng)
        done[what] = done.get(what, 0) + 1


# --------------------------------------------------------------------------- what the page received
def received_states(driver) -> list[dict]:
    """Every state pushed to the page(s) since the last call (the event-stream
    messages Chromium's performance log recorded)."""
    out = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg.get("method") == "Network.eventSourceMessageReceived" and msg["params"].get("eventName") == "state":
            out.append(json.loads(msg["params"]["data"]))
    return out


def seen_by_seq(log: Path, seat: int) -> dict[int, set[str]]:
    """For each event number N of the match log: the card codes ``seat`` had been
    shown by then (events public or private to it up to N, its own actions)."""
    seen: set[str] = set()
    out = {0: set()}
    for d in read_lines(log)[1:]:
        if d["type"] == "event" and (d["to"] is None or d["to"] == seat):
            seen |= codes(d["event"])
            out[d["seq"]] = set(seen)
        elif d["type"] == "event":
            out[d["seq"]] = set(seen)
        elif d["type"] == "decision" and d["seat"] == seat:
            seen |= codes(d.get("applied")) | codes(d.get("reply"))
    return out


def check_received(states: list[dict], log: Path, seat: int) -> None:
    """What the page of ``seat`` received never shows another seat's hand, nor a card
    the seat had not been shown by the time of the state, until the match is over (its
    replay links given): then every seat's last hand, as the finished log has them."""
    mine = [s for s in states if s.get("seat") == seat and s.get("table")]
    assert mine, "the page received its states"
    allowed = seen_by_seq(log, seat)
    last = final_hands(read_log(log))
    for st in mine:
        revealed: set[str] = set()
        for o in range(st["players"]):
            if st.get("replay"):
                assert st["table"][f"s{o}"]["hand"] == last[o], f"seat {o}'s last hand on seat {seat}'s page"
                revealed |= set(last[o])
            elif o != seat:
                assert st["table"][f"s{o}"]["hand"] is None, f"seat {o}'s hand reached seat {seat}'s page"
        extra = {c for c in CARD_TOKEN.findall(json.dumps(st))} - allowed[st["seq"]] - revealed
        assert not extra, f"seat {seat}'s page got {sorted(extra)} before it was shown them (event {st['seq']})"


def card_text(code: str) -> str:
    """A card as the page writes it in a line of text: "TH" -> "10♥"."""
    return ("10" if code[0] == "T" else code[0]) + {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}[code[1]]


def match_log(server, url: str) -> Path:
    mid = url.split("/play/")[1].split("/")[0]
    return server["logs"] / f"{mid}.jsonl"


def decisions_of(log: Path, seat: int) -> list[dict]:
    return [d for d in read_lines(log) if d["type"] == "decision" and d["seat"] == seat]


def new_match_in_the_browser(driver, base: str, game: str, players: int, seats: dict[int, str],
                             names: dict[int, str] | None = None, rounds: int | None = None,
                             params: str = "", seed: int | None = None) -> dict[int, str]:
    """Fill the new-match form (unlisted seats: the heuristic sample bot; no seed: a random
    deal) and submit it; the human seats' private links from the creator's page."""
    driver.get(base + "/play")
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    Select(driver.find_element(By.ID, "players")).select_by_value(str(players))
    if rounds is not None:
        driver.find_element(By.ID, "rounds").send_keys(str(rounds))
    if params:
        driver.find_element(By.NAME, "params").send_keys(params)
    if seed is not None:
        driver.find_element(By.NAME, "seed").send_keys(str(seed))
    for s, who in seats.items():
        Select(driver.find_element(By.NAME, f"seat{s}")).select_by_value(who)
    for s, name in (names or {}).items():
        driver.find_element(By.NAME, f"seat{s}_name").send_keys(name)
    hidden = [tr for tr in driver.find_elements(By.CSS_SELECTOR, "tr[data-seat-row]") if not tr.is_displayed()]
    assert len(hidden) == 7 - players  # the form shows the game's seats only
    driver.find_element(By.ID, "start").click()
    wait_for(lambda: "/setup/" in driver.current_url, 30, "the creator's page")
    links = {int(tr.get_attribute("data-seat")): tr.find_element(By.CSS_SELECTOR, "a.seat-link").get_attribute("href")
             for tr in driver.find_elements(By.CSS_SELECTOR, '#setup-seats tr[data-kind="human"]')}
    assert sorted(links) == sorted(s for s, who in {**{s: "sample:heuristic" for s in range(players)},
                                                     **seats}.items() if who == "human")
    return links


# --------------------------------------------------------------------------- the tests
def test_a_timeout_is_a_timeout_then_the_human_plays_on(driver, server):
    """The human's 4 s clock runs out: the page says so and shows the fallback the
    referee played; then the human plays the match to its end, sees the result
    and opens the replay."""
    url = server["first"]
    received_states(driver)
    driver.get(url)
    wait_for(lambda: page_state(driver) == "your-turn", 60, "the first decision")
    rid = driver.find_element(By.ID, "play").get_attribute("data-request")
    assert driver.find_element(By.ID, "clock").text.endswith("s left")
    notice = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, '#notice[data-fault="timeout"]'), 60,
                      "the timeout notice")[0]
    said = notice.text
    assert said.startswith("Time ran out") and said.endswith(" for you.")
    # every seat is named as the match names it (a bot by its Hello), on the table and in the moves
    names = read_lines(match_log(server, url))[0]["spec"]["seat_names"]
    seat_names = texts(driver, "#table .seat-name")
    assert seat_names != [] and set(seat_names) == set(names), seat_names
    assert all(li.split(" ")[0] in names for li in texts(driver, "#recent li"))
    shot(driver, "play-timeout")
    play_to_the_end(driver, random.Random(1))
    assert driver.find_element(By.ID, "ended").is_displayed()
    rows = texts(driver, "#final tr")
    assert len(rows) == 3 and "human#0" in rows[1], rows
    log = match_log(server, url)
    first, *later = decisions_of(log, 0)
    assert first["request_id"] == int(rid) and first["fault"] == "timeout" and first["reply"] is None
    fallback = first["applied"]  # in words, said once: "The referee passed for you.", "... played 3♦ for you."
    did = {"PASS": "passed", "BID": f"bid {fallback['amount']}"}.get(fallback["kind"], "played")
    assert said.endswith(" ".join(["The referee", did, *map(card_text, fallback["cards"])]) + " for you."), said
    assert any(d["reply"] is not None and d["fault"] is None for d in later)  # then it played on
    check_received(received_states(driver), log, 0)
    wait_for(lambda: driver.find_elements(By.ID, "replay-all"), 60, "the replay's link")[0].click()
    wait_for(lambda: driver.find_elements(By.ID, "replay"), 30, "the replay")
    assert driver.current_url.split("#")[0].endswith("/replay/all.html")
    assert driver.find_elements(By.CSS_SELECTOR, '#table .seat[data-seat="1"] .hand [data-card]')  # all cards now


GAMES = {  # name -> (game, players, rounds, other match parameters); Dou Dizhu 3p: the illegal attempt's test
    "doudizhu4": ("doudizhu", 4, 1, ""),
    "smear": ("smear", 3, 1, ""),
    "president": ("president", 4, 1, ""),
    "back_alley": ("back_alley", 4, None, "last_round=2"),
}


@pytest.mark.parametrize("name", list(GAMES))
def test_a_human_plays_a_whole_match_by_clicking(driver, server, name):
    """Seat 0 human, seat 1 the bot command the server was given, the rest sample bots."""
    game, players, rounds, params = GAMES[name]
    links = new_match_in_the_browser(driver, server["base"], game, players, {0: "human", 1: "command:0"},
                                     rounds=rounds, params=params)
    received_states(driver)
    driver.get(links[0])
    done = play_to_the_end(driver, random.Random(7))
    assert overflow(driver) == 0 and driver.execute_script(  # the rounds table fits, without scrolling sideways
        "const w = document.querySelector('.results-wrap'); return w.scrollWidth - w.clientWidth;") == 0
    log = match_log(server, links[0])
    assert next(d for d in read_lines(log) if d["type"] == "result")["status"] == "complete"
    mine = decisions_of(log, 0)
    assert [d for d in mine if d["fault"]] == []
    assert len(mine) >= sum(done.values()) > 0  # besides the clicked ones: the single-action ones answered for it
    check_received(received_states(driver), log, 0)
    link = wait_for(lambda: driver.find_elements(By.ID, "replay-all"), 60, "the replay's link")[0]
    assert link.get_attribute("href").endswith("/replay/all.html")


def test_a_whole_dou_dizhu_match_with_an_illegal_attempt(driver, server):
    """A Dou Dizhu play of two cards of different ranks: the page names the rule the
    referee quotes and the fallback it played instead; the match goes on to its end."""
    # a fixed deal: with a random one the landlord can play out before seat 0 ever plays
    links = new_match_in_the_browser(driver, server["base"], "doudizhu", 3, {0: "human"}, rounds=1, seed=5)
    received_states(driver)
    driver.get(links[0])
    rng = random.Random(3)
    while True:
        wait_for(lambda: page_state(driver) in ("your-turn", "ended"), 120, "a decision")
        assert page_state(driver) != "ended", "the match ended before seat 0 played"
        send = driver.find_elements(By.ID, "send-cards")
        if send and send[0].get_attribute("data-kind") == "PLAY":
            break
        take_turn(driver, rng)
    shot(driver, "play-doudizhu")
    assert take_turn(driver, rng, illegal=True) == "illegal"
    notice = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, '#notice[data-fault="illegal"]'), 30,
                      "the illegal notice")[0]
    log = match_log(server, links[0])
    fault = next(d for d in decisions_of(log, 0) if d["fault"])
    assert fault["fault"] == "illegal" and fault["reply"]["kind"] == "PLAY" and len(fault["reply"]["cards"]) == 2
    assert notice.get_attribute("data-rule") == fault["rule"] != ""
    assert f"Illegal action (rule {fault['rule']})" in notice.text
    # the fallback in words, its cards as the page writes cards: "The referee played 3♦ for you."
    played = " ".join(card_text(c) for c in fault["applied"]["cards"])
    assert notice.find_element(By.ID, "fallback").text.strip() == f"The referee played {played} for you."
    assert not CARD_TOKEN.search(notice.text), notice.text  # no card code: 4S 5S is "4♠ 5♠"
    assert " ".join(card_text(c) for c in fault["reply"]["cards"]) in notice.text
    assert "illegal" in driver.find_element(By.ID, "faults").text
    shot(driver, "play-illegal")
    play_to_the_end(driver, rng)
    shot(driver, "play-doudizhu-end")
    result = next(d for d in read_lines(log) if d["type"] == "result")
    assert result["status"] == "complete"
    wait_for(lambda: driver.find_elements(By.ID, "replay-all"), 30, "the replay links")
    names = [driver.find_element(By.CSS_SELECTOR, f'.seat[data-seat="{s}"] .seat-name').get_attribute("title")
             for s in range(3)]
    over = driver.find_element(By.ID, "over").text
    for s, name in enumerate(names):  # each name with its own score
        assert f"{name} ({result['scores'][s]:g})" in over, (over, result["scores"])
    # the match over, its all-seeing log public: the others' last hands face up
    last = final_hands(read_log(log))
    for s in (1, 2):
        shown = [e.get_attribute("data-card") for e in
                 driver.find_elements(By.CSS_SELECTOR, f'.seat[data-seat="{s}"] .hand .card[data-card]')]
        assert shown == last[s], (s, shown, last[s])
    assert [d["fault"] for d in decisions_of(log, 0) if d["fault"]] == ["illegal"]
    check_received(received_states(driver), log, 0)


def test_two_humans_and_two_bots_at_tractor_with_a_reload(driver, server):
    """Partners in seats 0 and 2 (two windows), bots in 1 and 3; seat 0's page is
    reloaded at its turn mid-match and takes the same decision up again. A
    seat's link with another seat's key opens nothing."""
    links = new_match_in_the_browser(driver, server["base"], "tractor", 4, {0: "human", 2: "human"},
                                     names={0: "ann", 2: "bob"}, rounds=1)
    key0 = links[0].rstrip("/").rsplit("/", 1)[1]
    wrong = links[2].rsplit("/", 2)[0] + f"/{key0}/"
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(wrong, timeout=30)
    assert e.value.code == 403
    received_states(driver)
    first = driver.current_window_handle
    driver.get(links[0])
    driver.switch_to.new_window("window")
    second = driver.current_window_handle
    driver.get(links[2])
    windows = {0: first, 2: second}
    rng = random.Random(11)
    turns = {0: 0, 2: 0}
    reloaded = False
    done: dict[str, int] = {}
    deadline = time.monotonic() + 900
    while True:
        ended = 0
        moved = False
        for seat, handle in windows.items():
            driver.switch_to.window(handle)
            state = page_state(driver)
            if state == "ended":
                ended += 1
            elif state == "your-turn":
                if seat == 0 and turns[0] == 6 and not reloaded:
                    rid = driver.find_element(By.ID, "play").get_attribute("data-request")
                    hand = my_hand(driver)
                    driver.refresh()
                    wait_for(lambda: page_state(driver) == "your-turn", 60, "the seat after the reload")
                    assert driver.find_element(By.ID, "play").get_attribute("data-request") == rid
                    assert my_hand(driver) == hand
                    shot(driver, "play-tractor-reloaded")
                    reloaded = True
                what = take_turn(driver, rng)
                done[what] = done.get(what, 0) + 1
                turns[seat] += 1
                moved = True
        if ended == 2:
            break
        assert time.monotonic() < deadline, "the match did not end"
        if not moved:
            time.sleep(0.1)
    assert reloaded and turns[0] > 6 and turns[2] > 0
    log = match_log(server, links[0])
    assert next(d for d in read_lines(log) if d["type"] == "result")["status"] == "complete"
    assert read_lines(log)[0]["spec"]["seat_names"][0::2] == ["ann#0", "bob#2"]
    states = received_states(driver)
    for seat in (0, 2):
        check_received(states, log, seat)
    for seat, handle in windows.items():
        driver.switch_to.window(handle)
        assert "ann#0" in driver.find_element(By.ID, "final").text
    driver.switch_to.window(second)
    driver.close()
    driver.switch_to.window(first)


@pytest.mark.parametrize("width", [1400, 1920])
def test_play_pages_fit_the_window(driver, server, width):
    """The form, a seat's page at its turn, and the spectators' view, at 1,400
    and 1,920 px wide: nothing reaches past the window; the seat's page itself
    holds no card (its state comes by the event stream)."""
    driver.set_window_size(width, 1100)
    try:
        driver.get(server["base"] + "/play")
        assert overflow(driver) == 0
        shot(driver, f"play-form-{width}")
        links = new_match_in_the_browser(driver, server["base"], "tractor", 4, {0: "human"}, rounds=1)
        html = urllib.request.urlopen(links[0], timeout=30).read().decode()
        assert not CARD_TOKEN.search(re.sub(r"<[^>]+>", " ", html))
        shot(driver, f"play-setup-{width}")
        driver.get(links[0])
        rng = random.Random(5)
        for _ in range(40):  # on to the first trick of the round
            wait_for(lambda: page_state(driver) in ("your-turn", "ended"), 120, "a decision")
            send = driver.find_elements(By.ID, "send-cards")
            if send and send[0].get_attribute("data-kind") == "PLAY" and my_hand(driver):
                break
            take_turn(driver, rng)
        cards = driver.find_elements(By.CSS_SELECTOR, "#options .option")
        if cards:
            click_cards(driver, cards[0].get_attribute("data-cards").split())
        else:
            driver.find_element(By.ID, "hint").click()
        assert overflow(driver) == 0
        shot(driver, f"play-tractor-{width}")
        mid = links[0].split("/play/")[1].split("/")[0]
        driver.get(f"{server['base']}/play/{mid}/replay/public.html")
        assert "match in progress" in driver.find_element(By.CSS_SELECTOR, ".views").text
        assert not driver.find_elements(By.CSS_SELECTOR, "#table .seat .hand [data-card]")
        assert overflow(driver) == 0
        shot(driver, f"play-spectators-{width}")
        driver.get(links[0])
        if width == 1920:  # the end of a Tractor match (other games' ends: the tests above, at 1,400)
            play_to_the_end(driver, rng)
            assert overflow(driver) == 0
            shot(driver, f"play-tractor-end-{width}")
    finally:
        driver.set_window_size(1400, 1000)


AT_THE_TABLE = {  # name -> (game, players, rounds, other match parameters): every game, at its most crowded tables
    "doudizhu": ("doudizhu", 3, 1, ""),
    "doudizhu4": ("doudizhu", 4, 1, ""),
    "tractor": ("tractor", 4, 1, ""),
    "smear": ("smear", 3, 1, ""),
    "president": ("president", 4, 1, ""),
    "back_alley": ("back_alley", 4, None, "last_round=2"),
}


def viewport(driver, width: int | None, height: int | None = None) -> None:
    """Make the page's viewport ``width`` x ``height`` CSS pixels, whatever the window's
    frame takes (Chromium's device metrics); ``None``: the window's own again."""
    if width is None:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        return
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    assert driver.execute_script("return [window.innerWidth, window.innerHeight];") == [width, height]


def what_is_out_of_reach(driver) -> list[str]:
    """At the top of the page, with no scrolling: the action bar's parts below or above the
    window, and the cards of the hand and the buttons that something else covers (the point
    clicked is a card's corner, where its rank is: the cards of a hand overlap)."""
    driver.execute_script("window.scrollTo(0, 0);")
    return driver.execute_script("""
      const out = [], bar = document.getElementById('action-bar').getBoundingClientRect();
      if (bar.top < 0 || bar.bottom > window.innerHeight) out.push('the action bar at ' + bar.top + '-' + bar.bottom);
      document.querySelectorAll('#my-hand .card, #buttons button').forEach(function (e) {
        const b = e.getBoundingClientRect(), hit = document.elementFromPoint(b.left + 6, b.top + 10);
        if (!hit || !(hit === e || e.contains(hit)))
          out.push((e.getAttribute('data-card') || e.textContent) + ' under ' + (hit ? hit.id || hit.className : 'nothing'));
      });
      return out;""")


@pytest.mark.parametrize("name", list(AT_THE_TABLE))
def test_at_1280x900_the_action_bar_and_the_hand_are_in_view_at_every_turn(driver, server, name):
    """A 1280 x 900 viewport: at each of the seat's turns up to its first card play (the
    auction's too), the action bar, every card of the hand and every button are in view
    and clickable without scrolling; no console error (such as a missing /favicon.ico)."""
    game, players, rounds, params = AT_THE_TABLE[name]
    try:
        links = new_match_in_the_browser(driver, server["base"], game, players, {0: "human"}, rounds=rounds,
                                         params=params, seed=11)
        driver.get_log("browser")  # the console, from the seat's page on
        driver.get(links[0])
        viewport(driver, 1280, 900)
        rng = random.Random(4)
        for turn in range(60):
            wait_for(lambda: page_state(driver) in ("your-turn", "ended"), 120, "a decision")
            assert page_state(driver) == "your-turn", "the match ended before seat 0 played a card"
            assert what_is_out_of_reach(driver) == [], (name, turn)
            send = driver.find_elements(By.ID, "send-cards")
            if send and send[0].get_attribute("data-kind") == "PLAY" and my_hand(driver):
                break
            take_turn(driver, rng)
        else:
            raise AssertionError("seat 0 was never asked to play cards")
        shot(driver, f"play-1280x900-{name}")
        assert [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        viewport(driver, None)


def test_at_390x844_the_action_bar_is_compact_and_seat_names_fit(driver, server):
    """A phone's viewport, at the seat's first card play after an illegal attempt (the notice
    and the list of legal plays both showing): the action bar held at the bottom takes under
    a third of the window; every seat's name stays in its box (cut with an ellipsis, whole
    in its title)."""
    links = new_match_in_the_browser(driver, server["base"], "doudizhu", 3, {0: "human"}, rounds=1, seed=5)
    driver.get(links[0])
    viewport(driver, 390, 844)
    try:
        rng = random.Random(3)
        while True:
            wait_for(lambda: page_state(driver) in ("your-turn", "ended"), 120, "a decision")
            assert page_state(driver) != "ended", "the match ended before seat 0 played"
            send = driver.find_elements(By.ID, "send-cards")
            if send and send[0].get_attribute("data-kind") == "PLAY":
                break
            take_turn(driver, rng)
        assert take_turn(driver, rng, illegal=True) == "illegal"
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, '#notice[data-fault="illegal"]'), 30, "the notice")
        wait_for(lambda: page_state(driver) == "your-turn" and driver.find_elements(By.CSS_SELECTOR, "#options .option"),
                 120, "the next turn with its list of legal plays")
        driver.execute_script("window.scrollTo(0, 0);")
        got = driver.execute_script("""
          const bar = document.getElementById('action-bar').getBoundingClientRect(), names = [];
          document.querySelectorAll('.seat .seat-name').forEach(function (n) {
            const box = n.closest('.seat').getBoundingClientRect(), b = n.getBoundingClientRect();
            if (b.right > box.right + 0.5 || !n.title) names.push(n.textContent);
          });
          return {bar: bar.height, notice: !document.getElementById('notice').hidden, names: names,
                  page: document.documentElement.scrollWidth - document.documentElement.clientWidth};""")
        shot(driver, "play-390x844")
        assert got["notice"] and got["names"] == [] and got["page"] <= 0, got
        assert got["bar"] < 844 / 3, got
    finally:
        viewport(driver, None)
