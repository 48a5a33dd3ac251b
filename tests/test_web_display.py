"""What the pages show, in words a reader expects (issue #42, "Display"),
from real match logs of every game: President's leader is the seat leading
the trick now, scores are whole numbers everywhere in a replay, the
sidebars say things in words (no protocol identifiers), `referee replay`
prints whole scores, and the last bot of a board shows a dash with a
tooltip where the figures about the next bot down would be; the
head-to-head counts ties and leaves pairs that never met empty, says what
its colours mean, and tells bots with long, alike names apart; the rating
chart tells its lines apart, labels its axes at round steps and names its
lines in full in tooltips."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import math
import re
import subprocess
import time

import pytest

from cardgames.v1 import referee_pb2 as pb
from referee.games import replay_module
from referee.runner import BasicSeatLink, MatchSpec, run_match
from referee.web import svg
from referee.web.replay import read_log, steps, views
from referee.web.site import replay_page
from referee.web.table import score_text
from weblib import MATCHES, REFEREE, ROOT, env, game_report, match_logs, read_lines

GAMES = list(MATCHES)
#: a protocol identifier shown as is: snake_case, an enum value's name, Tractor's "NT"
IDENTIFIER = re.compile(r"\b(?:[a-z]+_[a-z_]+|[A-Z]+_[A-Z_]+|NT)\b")
WHOLE = re.compile(r"-?\d+")


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    return match_logs(tmp_path_factory.mktemp("weblogs"))


def texts(frame: dict, players: int) -> list[str]:
    """Every piece of text a step shows, but the seats' names and cards."""
    out = [frame.get("round", ""), frame.get("phase", ""), frame["caption"]["text"], frame.get("over", "")]
    for s in range(players):
        seat = frame[f"s{s}"]
        out += [*seat["tags"], seat["score"], (seat["act"] or {}).get("text", "")]
    out += [p["label"] for p in frame.get("piles", [])]
    out += [x for row in frame.get("info", []) for x in row]
    if "results" in frame:
        out += frame["results"]["cols"] + [x for row in frame["results"]["rows"] for x in row]
    return out


@pytest.mark.parametrize("name", GAMES)
def test_the_sidebar_and_table_say_things_in_words(logs, name):
    log = read_log(logs[name])
    for view in views(log.players):
        for k, f in enumerate(steps(log, view)):
            found = [t for t in texts(f, log.players) if IDENTIFIER.search(t)]
            assert found == [], (view, k, found)


def test_tractor_and_back_alley_identifiers_in_words():
    """The identifiers a short match may not reach: a joker pair's "NT"
    declaration, a kitty flip, a joker laid out in Back Alley."""
    tractor = replay_module("tractor")
    assert tractor.trump_text("NT") == "no trump" and tractor.trump_text("H") == "\u2665 hearts"
    assert tractor.declaration_text("joker_pair") == "joker pair"
    header = {"spec": {"players": 4, "seat_names": ["a", "b", "c", "d"]}}
    t = tractor.TABLE(header, "all")
    msg = tractor.TABLE.EVENT()
    msg.declaration.seat, msg.declaration.kind, msg.declaration.trump_suit = 1, "joker_pair", "NT"
    msg.declaration.cards.extend(["RJ", "RJ"])
    t.apply(None, msg)
    flip = tractor.TABLE.EVENT()
    flip.kitty_flip.trump_suit = "D"
    flip.kitty_flip.flipped.extend(["3C", "KD"])
    t.apply(None, flip)
    info = dict(t.snapshot()["info"])
    assert info["Declarations"] == "b joker pair RJ RJ" and info["Trump suit"] == "\u2666 diamonds"
    back_alley = replay_module("back_alley")
    b = back_alley.TABLE(header, "all")
    ex = back_alley.TABLE.EVENT()
    ex.exchange.seat, ex.exchange.joker = 2, "RJ"
    b.apply(None, ex)
    assert dict(b.snapshot()["info"])["Joker exchange"] == "c lays out the red joker"


@pytest.mark.parametrize("name", GAMES)
def test_scores_are_whole_numbers_everywhere_in_the_replay(logs, name):
    log = read_log(logs[name])
    result = next(d for d in reversed(read_lines(logs[name])) if d["type"] == "result")
    result["scores"] = [float(x) for x in result["scores"]]  # as the result line often has them: 61.0
    for view in views(log.players):
        frames = steps(log, view)
        for k, f in enumerate(frames):
            for s in range(log.players):
                score = f[f"s{s}"]["score"]
                assert WHOLE.fullmatch(score.removeprefix("level ")) or name == "tractor", (view, k, s, score)
            assert not re.search(r"\d\.\d", " ".join(texts(f, log.players))), (view, k)
        over = frames[-1]["over"]
        # each seat's name with its own final score: "Final: 1. b (9) · 2. a (-18)"
        shown = [re.search(re.escape(log.names[s]) + r" \(([^)]*)\)", over).group(1) for s in range(log.players)]
        assert shown == [score_text(x) for x in result["scores"]] and all(WHOLE.fullmatch(x) for x in shown)
        if name != "tractor":  # Tractor's seats show their level, its final scores are levels too
            assert [frames[-1][f"s{s}"]["score"] for s in range(log.players)] == shown
    assert score_text(61.0) == "61" and score_text("-16") == "-16" and score_text(0) == "0"


def test_president_leader_is_the_seat_leading_the_trick_now(logs):
    """Oracle from the log's plays: the seat that makes the first play of a
    trick (after the deal or the exchange, or after a trick ended) is the
    leader shown just before it plays; once a round is over no leader is shown."""
    path = logs["president"]
    frames = steps(read_log(path), "all")
    names = read_lines(path)[0]["spec"]["seat_names"]
    decided, leads, ended = 0, [], []
    opening = True
    for d in read_lines(path)[1:]:
        if d["type"] == "decision":
            decided += 1
        elif d["type"] == "event":
            kind, ev = next(iter(d["event"].items()))
            if kind in ("round_start", "exchange_end", "trick_end"):
                opening = True
            elif kind == "play" and opening:
                leads.append((decided, ev.get("seat", 0)))
                opening = False
            elif kind == "round_end":
                ended.append(decided)
    assert len(leads) > 10 and len({s for _, s in leads}) > 1
    for k, seat in leads:  # the k-th decision led: the table before it (step k - 1) names its seat
        assert dict(frames[k - 1]["info"]).get("Leader") == names[seat], (k, seat)
    for k in ended:
        assert "Leader" not in dict(frames[k]["info"]), k


class PassInRound(BasicSeatLink):
    """In-process Dou Dizhu seat: passes every call of round ``passes_in``, bids the
    most elsewhere, and plays the last legal action."""

    def __init__(self, seat: int, passes_in: int):
        self.name, self.connected, self.passes_in = f"p{seat}", True, passes_in

    async def send(self, msg: pb.RefereeMessage) -> None:
        pass

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply, float]:
        req = msg.decision_request
        legal = list(req.legal_actions)
        act = legal[-1]
        if req.observation.doudizhu.round == self.passes_in:
            act = next(a for a in legal if a.kind == pb.ACTION_KIND_PASS)
        return pb.ActionReply(match_id=req.match_id, request_id=req.request_id, action=act), 0.001


def test_a_doudizhu_match_ending_on_a_redeal_shows_that_round_and_announces_no_redeal(tmp_path):
    """Round 2 of 2 is all passes: the rounds table has its row (a redeal counts
    as a round, no money moved) and once the match is over the table says no
    redeal is coming; in every view, and in the static replay page's data."""
    spec = MatchSpec(game="doudizhu", players=3, seed=11, seat_names=["a", "b", "c"], params={"rounds": 2})
    path = tmp_path / "redeal.jsonl"
    outcome = asyncio.run(run_match(spec, [PassInRound(s, 2) for s in range(3)], path))
    assert outcome.status == "complete"
    log = read_log(path)
    for view in views(log.players):
        last = steps(log, view)[-1]
        assert last["round"] == "Round 2 of 2" and last["phase"] == "match over"
        rows = last["results"]["rows"]
        assert [r[0] for r in rows] == ["1", "2"], (view, rows)
        assert rows[0][1] in ("a", "b", "c") and rows[1][1:] == ["everybody passed", "\u2014", "\u2014", "0", "0", "0"]
        info = dict(last["info"])
        assert info["Auction"] == "everybody passed" and info["Result"] == "no landlord, no money moved", info
        assert not any("redeal" in text for text in info.values()), info
        page = replay_page(log, view, "../../")
        assert "everybody passed: redeal" not in page and '"everybody passed"' in page
    # the negative control: a redeal in the middle of a match still announces the redeal
    path = tmp_path / "middle.jsonl"
    spec = dataclasses.replace(spec, params={"rounds": 3})
    asyncio.run(run_match(spec, [PassInRound(s, 2) for s in range(3)], path))
    frames = steps(read_log(path), "all")
    assert any(dict(f["info"]).get("Auction") == "everybody passed: redeal" for f in frames)
    assert [r[1] == "everybody passed" for r in frames[-1]["results"]["rows"]] == [False, True, False]


def test_replay_command_prints_whole_scores(logs):
    run = subprocess.run([*REFEREE, "replay", str(logs["back_alley"])], cwd=ROOT, env=env(), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["scores"] and all(isinstance(x, int) for x in out["scores"]), out


def test_last_bot_shows_a_dash_for_the_figures_about_the_next_bot(logs, tmp_path):
    site = game_report(tmp_path, "display-board", logs["doudizhu"])
    html = (site / "index.html").read_text()
    rows = re.findall(r'<tr data-bot="([^"]+)">(.*?)</tr>', html.split('class="grid leaderboard"')[1].split(
        "</table>")[0], re.S)
    assert len(rows) == 5
    dash = '<td class="no-next" title="last place: no bot below">—</td>'
    assert rows[-1][1].count(dash) == 2  # P(> next) and separated
    assert all(dash not in r for _, r in rows[:-1])
    last = (site / "bots" / f"{rows[-1][0]}.html").read_text()
    assert last.count('title="last place: no bot below">—</span>') == 2
    assert "P(&gt; next) <span" in last and "separated <span" in last
    first = (site / "bots" / f"{rows[0][0]}.html").read_text()
    assert "no bot below" not in first


def test_head_to_head_counts_ties_and_leaves_pairs_that_never_met_empty(tmp_path):
    """Five bots of a Dou Dizhu tournament: b and c, the peasants of both
    matches, lost together twice (tied twice, as the CSV says); c and d never
    met. The report's matrix (its page and the leaderboard's) shows each
    pair as ahead–behind–tied under a legend saying so, and nothing where a
    pair never met."""
    from referee.web.report import write_report
    from tournaments.importer import import_results
    from tournaments.store import Store

    src = tmp_path / "results.jsonl"
    games = [(["a", "b", "c"], [2, -1, -1]), (["a", "b", "c"], [2, -1, -1]), (["a", "b", "d"], [-2, 1, 1]),
             (["e", "a", "b"], [2, -1, -1])]
    with src.open("w", encoding="utf-8") as f:
        for m, (seats, scores) in enumerate(games):
            ranks = [1 + sum(x > y for x in scores) for y in scores]
            f.write(json.dumps({"match": m, "seed": m + 1, "status": "complete", "seats": seats, "scores": scores,
                                "ranks": ranks, "faults": [0] * 3, "decisions": 10, "elapsed_s": 1.0}) + "\n")
    store = Store(str(tmp_path / "h2h.sqlite"))
    try:
        import_results(store, src, "ties", "doudizhu", 3)
        write_report(store, store.tournament("ties"), tmp_path / "site")
    finally:
        store.close()
    csv_rows = (tmp_path / "site" / "h2h.csv").read_text().splitlines()
    assert "b,c,2,0,0,2" in csv_rows and not any(r.startswith(("c,d,", "d,c,")) for r in csv_rows)

    def cell(html: str, a: str, b: str) -> tuple[str, str]:
        """The text and the tooltip of row a's cell in column b."""
        m = re.search(rf'<td[^>]* title="{a} vs {b}: ([^"]*)">([^<]*)</td>', html)
        assert m, (a, b)
        return m.group(2), m.group(1)

    for page in ("h2h.html", "index.html"):
        html = (tmp_path / "site" / page).read_text()
        assert "each cell is <b>ahead–behind–tied</b>" in html and "empty: they never met" in html
        assert cell(html, "b", "c") == ("0–0–2", "0 ahead, 0 behind, 2 tied")
        assert cell(html, "c", "b") == ("0–0–2", "0 ahead, 0 behind, 2 tied")
        assert cell(html, "a", "b") == ("2–1–1", "2 ahead, 1 behind, 1 tied")
        assert cell(html, "b", "d") == ("0–0–1", "0 ahead, 0 behind, 1 tied")
        assert cell(html, "c", "d") == ("", "never met as opponents")
        assert cell(html, "d", "c") == ("", "never met as opponents")
        assert "–0–0–" not in html and ">0–0<" not in html


def svg_lines(plot: str) -> list[tuple[str, str]]:
    """The (colour, dash pattern) of each rating line of a chart."""
    return [(m.group(1), m.group(2) or "") for m in
            re.finditer(r'<polyline class="mu" [^>]*stroke="([^"]+)" stroke-width="2"(?: stroke-dasharray="([^"]+)")?',
                        plot)]


def round_step(labels: list[float]) -> float:
    """The one step between the labels, checked to be 1, 2 or 5 × 10^k."""
    steps = {round(b - a, 9) for a, b in itertools.pairwise(labels)}
    assert len(steps) == 1, labels
    step = steps.pop()
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m) for m in (1, 2, 5)), (step, labels)
    return step


def test_the_rating_chart_tells_its_lines_apart_and_ticks_at_round_steps():
    def series(bots: int, xs: list[float]) -> dict[str, list[tuple[float, float, float]]]:
        return {f"entry-{b:02d}": [(x, 25 + 3 * math.sin(b + k / 3) + b / 7, 2.0) for k, x in enumerate(xs)]
                for b in range(bots)}

    plot = svg.rating_plot(series(10, list(range(40))))
    lines = svg_lines(plot)
    assert len(lines) == 10 and len({c for c, _ in lines}) == 10 and {d for _, d in lines} == {""}
    rgb = [[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c, _ in lines]
    assert min(math.dist(p, q) for p, q in itertools.combinations(rgb, 2)) > 60  # no two blues
    legend = re.findall(r'<line x1="[^"]+" x2="[^"]+" y1="[^"]+" y2="[^"]+" stroke="([^"]+)" stroke-width="3"', plot)
    assert legend == [c for c, _ in lines]
    # the match axis from 0 to 39: 0, 10, 20, 30 (not 0, 8, 16, 23, 31, 39); the rating axis as round
    x_ticks = [float(t) for t in re.findall(r'<text class="x-tick"[^>]*>([^<]+)</text>', plot)]
    assert x_ticks == [0, 10, 20, 30]
    assert round_step([float(t) for t in re.findall(r'<text class="y-tick"[^>]*>([^<]+)</text>', plot)]) >= 0.1
    for last in (3, 7, 23, 79, 250, 1234):
        got = [float(t) for t in re.findall(r'<text class="x-tick"[^>]*>([^<]+)</text>',
                                            svg.rating_plot(series(2, [0, last])))]
        assert got[0] == 0 and got[-1] <= last < got[-1] + round_step(got) and 3 <= len(got) <= 6, (last, got)
    # more lines than colours: the next ones dashed, no two lines alike
    lines = svg_lines(svg.rating_plot(series(14, list(range(10)))))
    assert len(set(lines)) == 14 and lines[10][1] and lines[10][0] == lines[0][0]
    # a time axis: round minutes (UTC)
    t0 = 1_700_000_123.0
    plot = svg.rating_plot(series(3, [t0 + 60 * k for k in range(38)]), by_time=True)
    minutes = [time.strptime(t, "%H:%M") for t in re.findall(r'<text class="x-tick"[^>]*>([^<]+)</text>', plot)]
    assert [m.tm_min % 10 for m in minutes] == [0] * len(minutes) and len(minutes) >= 3


def test_p_better_than_next_is_rounded_down_as_in_the_cli() -> None:
    from tournaments.rating import BoardRow
    from tournaments.report import _p_next, board_texts

    def row(**kw) -> BoardRow:
        return BoardRow(**{k: 0 for k in BoardRow.__dataclass_fields__} | {"bot": "a", "separated": True} | kw)

    for p, shown in ((0.9996, "0.99"), (0.9496, "0.94"), (1.0, "1.00"), (0.5, "0.50"), (0.0, "0.00"),
                     (0.99996, "0.99")):
        assert board_texts(row(p_next=p))["p_better_than_next"] == shown  # the pages' cell
        assert _p_next(row(p_next=p)) == shown  # the terminal's board
    assert "p_better_than_next" not in board_texts(row(p_next=None))  # the last bot: the pages show a dash
    assert board_texts(row(mean_score=0.9996))["mean_score"] == "1.00"  # other figures keep their rounding
    assert row(p_next=0.99996).to_json()["p_better_than_next"] == 0.9999  # the JSON: never 1.0 below 1


def test_rating_figures_are_rounded_once_from_the_raw_values() -> None:
    """47.46 Elo is 47 (the JSON's 47.5 would round to 48), -70.54 is -71 (not -70); never "-0"."""
    from tournaments.rating import BoardRow
    from tournaments.report import board_texts

    r = BoardRow("a", 47.46, -5.04, 100.06, 25.004999, 0.8449, 22.47, matches=3, mean_score=-0.004)
    assert (r.to_json()["elo"], r.to_json()["elo_low"], r.to_json()["elo_high"]) == (47.5, -5.0, 100.1)
    t = board_texts(r)
    assert (t["elo"], t["elo_low"], t["elo_high"], t["interval"]) == ("47", "-5", "100", "±53")
    assert (t["mu"], t["sigma"], t["conservative"], t["mean_score"]) == ("25.00", "0.84", "22.47", "0.00")
    t = board_texts(BoardRow("b", -70.54, -0.4, 0.3, 25.0, 8.0, 1.0))
    assert (t["elo"], t["elo_low"], t["elo_high"], t["interval"]) == ("-71", "0", "0", "-")  # no match yet: "-"


class SmearPasser(BasicSeatLink):
    """In-process Smear seat that passes whenever it may, else plays the first legal action."""

    def __init__(self, seat: int):
        self.name, self.connected = f"p{seat}", True

    async def send(self, msg: pb.RefereeMessage) -> None:
        pass

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply, float]:
        req = msg.decision_request
        act = next((a for a in req.legal_actions if a.kind == pb.ACTION_KIND_PASS), req.legal_actions[0])
        return pb.ActionReply(match_id=req.match_id, request_id=req.request_id, action=act), 0.001


def test_a_smear_round_passed_out_names_no_seat_for_its_items(tmp_path):
    """Everybody passes (no forced dealer): the round's row says passed out and
    gives no bid and no high, low, jack or game to anyone (the round-end
    message leaves them unset, which must not read as seat 0)."""
    spec = MatchSpec(game="smear", players=3, seed=4, seat_names=["a", "b", "c"], params={"max_rounds": 2})
    path = tmp_path / "passed.jsonl"
    assert asyncio.run(run_match(spec, [SmearPasser(s) for s in range(3)], path)).status == "complete"
    for view in views(3):
        rows = steps(read_log(path), view)[-1]["results"]["rows"]
        assert [r[:8] for r in rows] == [[str(k), "passed out", "-", "-", "-", "-", "-", "-"] for k in (1, 2)], rows


LONG = [f"random-bot-with-long-name-{i:02d}" for i in range(1, 13)]


def test_long_alike_names_keep_their_distinct_end_around_an_ellipsis():
    assert svg.short_name("heuristic-04") == "heuristic-04"
    assert svg.short_name("x" * svg.NAME_CHARS) == "x" * svg.NAME_CHARS
    shown = [svg.short_name(n) for n in LONG]
    assert shown[0] == "random-bot-…long-name-01"
    assert len(set(shown)) == len(LONG) and all(len(s) == svg.NAME_CHARS for s in shown)
    assert all(s.endswith(n[-9:]) for s, n in zip(shown, LONG))


def test_the_head_to_head_shows_long_names_apart_with_their_rank_and_says_what_its_colours_mean(logs, tmp_path):
    """Five bots named a-rather-long-bot-name-000-v12 and on: each row's
    sticky cell holds its rank and the name shortened in the middle (the
    full name its tooltip), all five distinct; the legend says what green
    and red mean."""
    site = game_report(tmp_path, "h2h-long", logs["doudizhu"])
    for page in ("h2h.html", "index.html"):
        html = (site / page).read_text()
        assert ('<span class="win-more">green, bold</span>: ahead more often than behind, '
                '<span class="win-less">red</span>: behind more often') in html
        table = re.search(r'<table class="grid h2h">.*?</table>', html, re.S).group(0)
        rows = re.findall(r'<tr data-bot="([^"]+)"><th class="l bot"><span class="rank">(\d+)</span>'
                          r'<a href="[^"]+" title="([^"]+)">([^<]+)</a></th>', table)
        assert [int(r) for _, r, _, _ in rows] == [1, 2, 3, 4, 5]
        assert all(bot == title and shown == svg.short_name(bot) and "…" in shown for bot, _, title, shown in rows)
        assert len({shown for *_, shown in rows}) == 5


def test_the_rating_chart_names_long_lines_in_full_and_its_axis_under_the_ticks():
    series = {n: [(x, 25 + k + x / 10, 2.0) for x in range(30)] for k, n in enumerate(LONG[:10])}
    plot = svg.rating_plot(series)
    legend = re.findall(r'<g class="legend"><title>([^<]+)</title><line [^>]+/><text [^>]+>([^<]+)</text></g>', plot)
    assert [full for full, _ in legend] == LONG[:10]
    assert [shown for _, shown in legend] == [svg.short_name(n) for n in LONG[:10]]
    assert len({shown for _, shown in legend}) == 10
    lines = re.findall(r'<polyline class="mu" data-bot="([^"]+)" [^>]+><title>([^<]+)</title></polyline>', plot)
    assert lines == [(n, n) for n in LONG[:10]]
    # the canvas takes the container's width, at most its own
    assert re.match(r'<svg [^>]*viewBox="0 0 960 320" style="width: 100%; height: auto; max-width: 960px"', plot)
    # the axis name sits under the tick labels, centred on the plot, clear of the first tick
    ticks = [(float(x), float(y)) for x, y in re.findall(r'<text class="x-tick" x="([^"]+)" y="([^"]+)"', plot)]
    x, y = (float(v) for v in re.search(r'<text x="([^"]+)" y="([^"]+)"[^>]* class="x-axis">match<', plot).groups())
    assert all(y >= ty + 10 for _, ty in ticks) and x - ticks[0][0] > 100
