"""Replay data of the web viewer, from real match logs of every game: steps,
hidden information per view (with negative controls), page size, logs of
matches being played, and the CLI around it (`referee match` prints the
replay, `referee report` / `referee web` errors)."""

from __future__ import annotations

import html
import json
import re
import subprocess

import pytest

from referee.web.replay import NotAMatchLog, build_replay, parse_log, read_log, steps, views
from referee.web.site import replay_page
from weblib import MATCHES, REFEREE, ROOT, allowed_cards, codes, decisions, env, match_logs

GAMES = list(MATCHES)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    return match_logs(tmp_path_factory.mktemp("weblogs"))


def frames_of(data):
    """Fold the page data's deltas back into whole steps (what viewer.js does)."""
    out, cur = [], {}
    for f in data["frames"]:
        cur = {**cur, **f}
        cur = {k: v for k, v in cur.items() if v is not None}
        out.append(cur)
    return out


def violations(frames, allowed):
    """Steps whose frame holds a card code outside the allowed set of that step."""
    return [(k, sorted(codes(f) - allowed[k])) for k, f in enumerate(frames) if codes(f) - allowed[k]]


@pytest.mark.parametrize("name", GAMES)
def test_one_step_per_decision_and_deltas_fold_back(logs, name):
    log = read_log(logs[name])
    n_dec = len(decisions(logs[name]))
    for view in views(log.players):
        data = build_replay(log, view)
        assert len(data["frames"]) == n_dec + 1
        assert frames_of(data) == [{k: v for k, v in f.items() if v is not None} for f in steps(log, view)]
        assert data["rounds"][0][1] == 0 and all(a[1] < b[1] for a, b in zip(data["rounds"], data["rounds"][1:]))
    last = frames_of(build_replay(log, "all"))[-1]
    assert last["over"].startswith("Final:")
    # every decision with cards shows them in front of its seat at its step (the all-seeing view)
    full = frames_of(build_replay(log, "all"))
    for k, d in enumerate(decisions(logs[name]), 1):
        cards = d["applied"]["cards"]
        if cards:
            act = full[k][f"s{d['seat']}"]["act"]
            assert act is not None, (k, d)
            if act["text"].startswith("throw failed"):  # Tractor: the forced part of a failed throw is played
                assert set(act["cards"]) <= set(cards), (k, d, act)
            else:
                assert sorted(act["cards"]) == sorted(cards), (k, d, act)
            assert full[k]["caption"]["seat"] == d["seat"]


@pytest.mark.parametrize("name", GAMES)
def test_seat_view_data_holds_only_what_the_seat_saw(logs, name):
    """Every step of "view as seat S" holds only cards S could see by then;
    negative control: the all-seeing data at the same steps does not pass."""
    log = read_log(logs[name])
    everything = build_replay(log, "all")
    starts = sorted({step for _, step in everything["rounds"]})
    for seat in range(log.players):
        allowed = allowed_cards(logs[name], seat)
        assert violations(frames_of(build_replay(log, seat)), allowed) == []
        bad = {k for k, _ in violations(frames_of(everything), allowed)}
        # in every round the all-seeing data shows cards this seat never saw (not at every
        # step: with two decks, late in a round the codes left may all be codes it has seen)
        for first, end in zip(starts, [*starts[1:], len(allowed)]):
            assert bad & set(range(first, end)), f"the oracle must reject other seats' hands (steps {first}-{end})"
        own = frames_of(build_replay(log, seat))
        assert any(f[f"s{seat}"]["hand"] for f in own)
        assert all(f[f"s{o}"]["hand"] is None for f in own for o in range(log.players) if o != seat)
        page = replay_page(log, seat, "../../")
        hidden = codes(build_replay(log, "all")["frames"]) - set().union(*allowed)
        assert not any(f'"{c}"' in page for c in hidden), "a never-seen card reached the page"


@pytest.mark.parametrize("name", ["doudizhu", "tractor", "president"])
def test_public_view_holds_no_private_card(logs, name):
    log = read_log(logs[name])
    allowed = allowed_cards(logs[name], None)
    assert violations(frames_of(build_replay(log, "public")), allowed) == []
    assert violations(frames_of(build_replay(log, 0)), allowed), "negative control: seat 0 sees its hand"


def test_twelve_round_doudizhu_page_is_well_under_a_megabyte(logs):
    log = read_log(logs["doudizhu"])
    assert log.spec["params"]["rounds"] == 12
    sizes = {v: len(replay_page(log, v, "../../").encode()) for v in views(log.players)}
    print(f"12-round Dou Dizhu replay pages ({len(decisions(logs['doudizhu']))} decisions), bytes: {sizes}")
    assert max(sizes.values()) < 400_000


def test_match_in_progress_is_public_only(logs):
    text = logs["president"].read_text()
    lines = text.splitlines(keepends=True)
    cut = "".join(lines[: len(lines) // 2]) + lines[len(lines) // 2][:20]  # a half-written last line
    log = parse_log(cut)
    assert not log.complete
    with pytest.raises(ValueError, match="public view"):
        build_replay(log, "all")
    with pytest.raises(ValueError, match="public view"):
        build_replay(log, 1)
    data = build_replay(log, "public")
    assert not data["complete"]
    assert violations(frames_of(data), allowed_cards(logs["president"], None)) == []
    page = replay_page(log, "public", "../../", poll="public.json")
    assert page.count('class="keep-step') == 1 and 'href="public.html"' in page  # the only view offered
    assert "seat0.html" not in page and "download" not in page


def test_not_a_match_log(tmp_path):
    for text, why in [("", "empty"), ("hello\n", "line 1 is not JSON"), ('{"type": "x"}\n', "header"),
                      ('{"type": "header", "spec": {}}\n{oops\n', "line 2 is not JSON")]:
        with pytest.raises(NotAMatchLog, match=why):
            parse_log(text)


def test_match_command_prints_the_replay(logs):
    out = (logs["smear"].parent / "stdout.txt").read_text()
    line = next(x for x in out.splitlines() if x.startswith("replay: "))
    page = line.removeprefix("replay: ")
    assert page.endswith("all.html")
    from pathlib import Path

    d = Path(page).parent
    assert (d / "public.html").is_file() and (d / "seat2.html").is_file() and (d / "static" / "viewer.js").is_file()
    assert (d / "log.jsonl").read_bytes() == logs["smear"].read_bytes()


def test_report_and_web_errors_are_plain(tmp_path):
    for args in (["report", "--db", str(tmp_path / "none.sqlite")], ["web", "--db", str(tmp_path / "none.sqlite")]):
        p = subprocess.run([*REFEREE, *args], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=120)
        assert p.returncode == 1
        assert "no results database" in p.stderr and "Traceback" not in p.stderr
    from tournaments.store import Store

    Store(str(tmp_path / "empty.sqlite")).close()
    p = subprocess.run([*REFEREE, "report", "nope", "--db", str(tmp_path / "empty.sqlite")], cwd=ROOT, env=env(),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "no tournament 'nope'" in p.stderr and "Traceback" not in p.stderr
    assert json.loads(json.dumps({"ok": True}))


def test_matches_in_progress_come_from_the_running_index(tmp_path):
    """The driver lists the matches it plays in ``<log_dir>/.running``; the
    live site reads that instead of listing the log directory, and falls
    back to listing it for logs of a run older than the index."""
    from referee.web.site import live_matches
    from tournaments.running import RunningIndex, read_running
    from tournaments.store import Store

    db, logs_dir = tmp_path / "w.sqlite", tmp_path / "logs"
    f = tmp_path / "w.toml"
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py --seed {i}"\n'
                   for i in range(3))
    f.write_text(f'name = "cached"\ngame = "doudizhu"\nplayers = 3\nseed = 5\ndatabase = "{db}"\n'
                 f'log_dir = "{logs_dir}"\nparams = {{ rounds = 1 }}\n{bots}')
    r = subprocess.run([*REFEREE, "tournament", "run", str(f), "-q"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, env=env())
    assert r.returncode == 0, r.stderr
    log_dir = logs_dir / "cached"
    assert read_running(log_dir) == []  # every match the driver listed is over
    assert not list(log_dir.glob(".running.*"))  # written through a temporary file, renamed over
    # a match being played: its log without a result line yet
    recorded = log_dir / "cached-m00001.jsonl"
    head = recorded.read_text().splitlines()[:5]
    (log_dir / "cached-m00042.jsonl.part").write_text("\n".join(head).replace("cached-m00001", "cached-m00042")
                                                     + "\n")
    index = RunningIndex(log_dir)
    with index.playing("cached-m00042"):
        assert read_running(log_dir) == ["cached-m00042"]
        live = live_matches(log_dir, "cached")
        assert [(m.match_id, m.status, m.replay) for m in live] == [
            ("cached-m00042", "in progress", "replays/cached-m00042/public.html")]
    assert read_running(log_dir) == [] and live_matches(log_dir, "cached") == []  # not listed: not in progress
    # the live site lists it first on page 1 while a driver holds the tournament's lease, public view only
    from starlette.testclient import TestClient

    from referee.web.app import create_app
    from tournaments.store import LeaseHolder

    st = Store(str(db))
    tid, me = st.tournament("cached")["id"], LeaseHolder.me()
    with index.playing("cached-m00042"), TestClient(create_app(str(db))) as client:
        def listed(url: str) -> list[str]:
            return re.findall(r'<tr data-bots="[^"]*" data-match="([^"]*)"', client.get(url).text)

        stored = [f"cached-m{i:05d}" for i in reversed(range(6))]  # newest first
        assert listed("/t/cached/matches.html") == stored  # complete: nothing is being played
        st.set_tournament_status(tid, "running")
        assert st.acquire_lease(tid, me) is None
        assert listed("/t/cached/matches.html") == ["cached-m00042", *stored]
        seat = json.loads(html.unescape(re.search(r'data-bots="([^"]*)" data-match="cached-m00042"',
                                                  client.get("/t/cached/matches.html").text).group(1)))[0]
        assert listed(f"/t/cached/matches.html?bot={seat}")[0] == "cached-m00042"
        assert client.get("/t/cached/replays/cached-m00042/public.html").status_code == 200
        assert client.get("/t/cached/replays/cached-m00042/all.html").status_code == 403
        assert client.get("/t/cached/replays/cached-m00042/log.jsonl").status_code == 403
        assert client.get("/t/cached/replays/cached-m00001/all.html").status_code == 200  # found by its id
        st.release_lease(tid, me)
        assert listed("/t/cached/matches.html") == stored  # no driver: nothing in progress
    st.set_tournament_status(tid, "complete")
    st.close()
    # no index (logs of an older run): every log without a result line, except the matches stored
    (log_dir / ".running").unlink()
    recorded.write_text("\n".join(head) + "\n")  # a recorded match's log, cut short: still not "in progress"
    st = Store(str(db))
    tid = st.tournament("cached")["id"]
    live = live_matches(log_dir, "cached", lambda mid: st.match_by_id(tid, mid) is not None)
    assert [m.match_id for m in live] == ["cached-m00042"]
    st.close()
    (log_dir / ".running").write_text("not json")  # unreadable: the directory is listed, as without one
    assert [m.match_id for m in live_matches(log_dir, "cached")] == ["cached-m00042", "cached-m00001"]
