"""Tournaments: schedules, ratings, file validation, kill-and-resume, faults."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import time
import uuid
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from conftest import PY, ROOT
from tournaments import spec as tspec
from tournaments.schedule import build, seatings
from tournaments.store import Store

BOTS4 = "\n".join(f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                  for i in range(4))


def _spec(text: str, tmp_path: Path) -> tspec.TournamentSpec:
    f = tmp_path / "t.toml"
    f.write_text(textwrap.dedent(text))
    return tspec.load(f)


def test_round_robin_has_every_combination_and_seat_order_once_per_repetition(tmp_path: Path) -> None:
    s = _spec(f'name = "x"\ngame = "doudizhu"\nplayers = 3\ngames = 2\n{BOTS4}', tmp_path)
    sched = build(s)
    assert len(sched) == 2 * 4 * 6
    for rep in range(2):
        ms = [m for m in sched if m.repetition == rep]
        assert len({m.seats for m in ms}) == len(ms) == 24
        assert {frozenset(m.seats) for m in ms} == {frozenset(c) for c in combinations(["b0", "b1", "b2", "b3"], 3)}
        seat_count = Counter((b, seat) for m in ms for seat, b in enumerate(m.seats))
        assert set(seat_count.values()) == {6}  # every bot in every seat equally often
    assert len({m.seed for m in sched}) == len(sched)  # round robin: every match its own deal
    assert [m.index for m in sched] == list(range(len(sched)))
    assert build(s) == sched  # reproducible


def test_duplicate_replays_the_same_deals_in_every_combination_and_seat_order(tmp_path: Path) -> None:
    s = _spec(f'name = "x"\ngame = "doudizhu"\nplayers = 3\nschedule = "duplicate"\ngames = 2\n{BOTS4}', tmp_path)
    sched = build(s)
    seeds: dict[int, set[int]] = {}
    for m in sched:
        seeds.setdefault(m.repetition, set()).add(m.seed)
    assert all(len(v) == 1 for v in seeds.values()) and len(seeds) == 2  # one deal seed per repetition
    assert len(set().union(*seeds.values())) == 2


def test_partnership_seatings_cover_every_pairing_team_side_and_order() -> None:
    ss = seatings(("a", "b", "c", "d"))
    assert len(ss) == len(set(ss)) == 24
    partners = Counter(frozenset((x[0], x[2])) for x in ss) + Counter(frozenset((x[1], x[3])) for x in ss)
    assert set(partners.values()) == {8} and len(partners) == 6
    for x in ss:  # the swapped-teams seating of every arrangement is also there
        assert (x[1], x[0], x[3], x[2]) in ss


def test_malformed_file_reports_every_problem_with_key_and_line(tmp_path: Path) -> None:
    text = """\
        name = "bad name!"
        game = "doudizhu"
        players = 5
        schedule = "swiss"

        [clock]
        decision_ms = -3
        bogus = 1

        [[bots]]
        name = "a"
        command = "python sample_bots/random_bot.py"

        [[bots]]
        name = "a"
        """
    with pytest.raises(tspec.SpecError) as ei:
        _spec(text, tmp_path)
    probs = {(k, ln) for k, ln, _ in ei.value.problems}
    assert ("name", 1) in probs
    assert ("players", 3) in probs
    assert ("schedule", 4) in probs
    assert ("clock.decision_ms", 7) in probs
    assert ("clock.bogus", 8) in probs
    assert ("bots[1].name", 15) in probs
    assert ("bots[1].command", 14) in probs  # missing key: the table's header line
    assert "t.toml:3: players" in str(ei.value)


def test_syntax_error_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(tspec.SpecError) as ei:
        _spec('name = "x"\ngame = \n', tmp_path)
    assert ei.value.problems[0][1] == 2


def test_unknown_variant_and_param_are_reported(tmp_path: Path) -> None:
    with pytest.raises(tspec.SpecError) as ei:
        _spec(f'name = "x"\ngame = "doudizhu"\nvariant = {{ sprung = true }}\nparams = {{ rondes = 2 }}\n{BOTS4}',
              tmp_path)
    probs = {(k, ln) for k, ln, _ in ei.value.problems}
    assert ("variant.sprung", 3) in probs and ("params.rondes", 4) in probs


def test_included_files_add_their_bots_and_their_problems_name_file_key_and_line(tmp_path: Path) -> None:
    comp = tmp_path / "comp"
    (comp / "entries" / "late").mkdir(parents=True)
    main = comp / "t.toml"
    main.write_text('name = "comp"\ngame = "doudizhu"\nplayers = 3\ninclude = ["entries/*.toml", "entries/**/*.toml"]\n'
                    '[[bots]]\nname = "house"\ncommand = "python sample_bots/heuristic_bot.py"\n')
    for who in ("carol", "alice", "bob"):
        (comp / "entries" / f"{who}.toml").write_text(
            f'# {who}\'s entry\n[[bots]]\nname = "{who}"\ncommand = "python sample_bots/random_bot.py"\n')
    (comp / "entries" / "late" / "dave.toml").write_text(
        '[[bots]]\nname = "dave-1"\ncommand = "python sample_bots/random_bot.py"\n'
        '[[bots]]\nname = "dave-2"\ncommand = "python sample_bots/random_bot.py"\nlimits = { memory_mb = 512 }\n')
    s = tspec.load(main)  # each file once, in pattern order, each pattern's matches sorted; commands from the cwd
    assert [b.name for b in s.bots] == ["house", "alice", "bob", "carol", "dave-1", "dave-2"]
    assert s.bots[5].limits is not None and s.bots[5].limits.memory_mb == 512 and len(build(s)) == 20 * 6

    (comp / "entries" / "bob.toml").write_text(
        '[[bots]]\nname = "bob"\ncommand = "python sample_bots/random_bot.py"\nlimits = { memory_mb = -1, cpus = 3 }\n'
        '[[bots]]\nname = "house"\ncommand = "python sample_bots/nope.py"\n')
    (comp / "entries" / "carol.toml").write_text('players = 4\n[[bots]]\nname = "carol"\ncomand = "x"\n')
    (comp / "entries" / "late" / "dave.toml").write_text('[[bots]\nname = "dave"\n')
    main.write_text(main.read_text().replace('"entries/**/*.toml"', '"entries/**/*.toml",\n  "nobody/*.toml"'))
    with pytest.raises(tspec.SpecError) as ei:
        tspec.load(main)
    e = ei.value
    got = {(Path(f).relative_to(comp).as_posix(), k, ln) for f, (k, ln, _) in zip(e.files, e.problems)}
    assert got == {("t.toml", "include", 4),  # the pattern matching nothing
                   ("entries/bob.toml", "bots[0].limits.memory_mb", 4), ("entries/bob.toml", "bots[0].limits.cpus", 4),
                   ("entries/bob.toml", "bots[1].name", 6), ("entries/bob.toml", "bots[1].command", 7),
                   ("entries/carol.toml", "players", 1), ("entries/carol.toml", "bots[0].comand", 4),
                   ("entries/carol.toml", "bots[0].command", 2), ("entries/late/dave.toml", "(syntax)", 1)}, got
    text = str(e)
    assert f"{main}:4: include: 'nobody/*.toml' matches no file (patterns are relative to {comp}{os.sep}, " \
        "the tournament file's directory)" in text
    assert f"{comp / 'entries' / 'bob.toml'}:6: bots[1].name: duplicate bot name 'house' (also at {main}:7)" in text
    assert text.index(f"{main}:4") < text.index("bob.toml:4") < text.index("carol.toml:1")  # the main file first
    main.write_text(main.read_text().replace('include = [', 'include = "entries/*.toml"\nx = ['))
    with pytest.raises(tspec.SpecError) as ei:
        tspec.load(main)
    assert f"{main}:4: include: must be a list of glob patterns" in str(ei.value)
    main.write_text(main.read_text().replace('include = "entries/*.toml"\nx = [', f'include = ["{comp}/none/*.toml",'))
    with pytest.raises(tspec.SpecError) as ei:  # an absolute pattern is relative to nothing: only "matches no file"
        tspec.load(main)
    assert f"{main}:4: include: '{comp}/none/*.toml' matches no file\n" in str(ei.value) + "\n", str(ei.value)


def test_every_example_file_is_valid() -> None:
    examples = sorted((ROOT / "tournaments" / "examples").glob("*.toml"))
    assert examples
    from referee.games import implemented

    for f in examples:
        s = tspec.load(f)
        assert s.game in implemented(), f
        assert len(build(s)) > 0


def _write(tmp_path: Path, name: str, extra: str = "", bots: str = BOTS4, rounds: int = 1) -> Path:
    f = tmp_path / f"{name}.toml"
    f.write_text(f'name = "{name}"\ngame = "doudizhu"\nplayers = 3\nseed = 9\nconcurrency = 2\n'
                 f'database = "{tmp_path / (name + ".sqlite")}"\nlog_dir = "{tmp_path / "logs"}"\n'
                 f'params = {{ rounds = {rounds} }}\n{extra}\n{bots}')
    return f


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True, **kw)


def _board(db: Path, name: str) -> list[dict]:
    r = _cli("leaderboard", "--db", str(db), "--tournament", name, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.slow
def test_kill_9_mid_run_then_resume_equals_uninterrupted_run(tmp_path: Path) -> None:
    f = _write(tmp_path, "kr")
    db = tmp_path / "kr.sqlite"
    proc = subprocess.Popen([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        done = 0
        while time.monotonic() < deadline and done < 3:
            time.sleep(0.2)
            if db.exists():
                try:
                    s = Store(str(db))
                    t = s.tournament("kr")
                    done = len(s.finished_indices(t["id"])) if t else 0
                    s.close()
                except Exception:
                    done = 0
        assert done >= 3, "tournament made no progress"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    s = Store(str(db))
    partial = len(s.finished_indices(s.tournament("kr")["id"]))
    s.close()
    assert partial < 24, "killed too late to test resume"
    r = _cli("tournament", "run", str(f), "--resume", "--quiet")
    assert r.returncode == 0, r.stderr
    assert f"{partial} already done" in r.stderr
    s = Store(str(db))
    rows = s.matches(s.tournament("kr")["id"])
    assert [m.idx for m in rows] == list(range(24))  # no match twice, none missing
    s.close()
    # the same tournament, uninterrupted, into another database: not over the first one's logs
    f2 = _write(tmp_path, "kr2")
    f2.write_text(f2.read_text().replace('name = "kr2"', 'name = "kr"'))
    logs = {p: p.read_bytes() for p in (tmp_path / "logs" / "kr").glob("kr-m*.jsonl")}
    check = _cli("tournament", "check", str(f2))
    assert check.returncode == 0 and check.stdout.splitlines()[-1] == (
        f"not stored yet in {tmp_path / 'kr2.sqlite'} (no results database there yet); `run` needs --fresh (or "
        f"--resume): {tmp_path / 'logs' / 'kr'} holds match logs of a tournament 'kr' that it would write over"), \
        check.stdout + check.stderr
    r = _cli("tournament", "run", str(f2), "--quiet")
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert r.returncode == 2 and errors == [
        f"error: {tmp_path / 'logs' / 'kr'} already holds match logs of a tournament 'kr' that "
        f"{tmp_path / 'kr2.sqlite'} does not hold (another database's?); this run would write over them: move "
        "them away, set another log_dir, or use --fresh to replace them (--resume to continue that tournament)"], \
        r.stderr
    assert logs and {p: p.read_bytes() for p in logs} == logs  # nothing written over
    f2.write_text(f2.read_text().replace(f'log_dir = "{tmp_path / "logs"}"', f'log_dir = "{tmp_path / "logs2"}"'))
    r = _cli("tournament", "run", str(f2), "--quiet")
    assert r.returncode == 0, r.stderr
    assert _board(db, "kr") == _board(tmp_path / "kr2.sqlite", "kr")


def test_existing_tournament_needs_resume_or_fresh_and_changed_file_is_refused(tmp_path: Path) -> None:
    f = _write(tmp_path, "again")
    r = _cli("tournament", "run", str(f), "--quiet")
    assert r.returncode == 0, r.stderr
    r = _cli("tournament", "run", str(f), "--quiet")
    assert r.returncode == 2 and "--resume" in r.stderr
    r = _cli("tournament", "run", str(f), "--quiet", "--resume")
    assert r.returncode == 0 and "24 already done" in r.stderr
    f.write_text(f.read_text().replace("seed = 9", "seed = 10"))
    r = _cli("tournament", "run", str(f), "--quiet", "--resume")
    assert r.returncode == 2 and "the file changed since it was started: seed: 9 -> 10." in r.stderr, r.stderr
    st = _cli("tournament", "status", "again", "--db", str(tmp_path / "again.sqlite"))
    assert "24/24 matches done" in st.stdout


@pytest.mark.slow
def test_crashing_hanging_and_illegal_bots_do_not_stop_the_tournament(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex[:12]  # on every chaos bot's command line: finds this test's processes
    bots = "\n".join([
        '[[bots]]\nname = "random"\ncommand = "python sample_bots/random_bot.py --seed 1"\n',
        f'[[bots]]\nname = "crasher"\ncommand = "python sample_bots/chaos_bot.py --mode crash-at-start --name c-{marker}"\n',
        f'[[bots]]\nname = "hanger"\ncommand = "python sample_bots/chaos_bot.py --mode hang --name h-{marker}"\n',
        f'[[bots]]\nname = "cheater"\ncommand = "python sample_bots/chaos_bot.py --mode illegal --name i-{marker}"\n',
    ])
    f = _write(tmp_path, "chaos", extra="[clock]\ndecision_ms = 200\n[faults]\nmax_faults = 3\n", bots=bots)
    r = _cli("tournament", "run", str(f), "--quiet", "--format", "json")
    assert r.returncode == 0, r.stderr
    board = {row["bot"]: row for row in json.loads(r.stdout)}
    assert all(row["matches"] == 18 for row in board.values())
    assert board["crasher"]["crashes"] >= 18
    assert board["hanger"]["timeouts"] >= 18
    assert board["cheater"]["illegal"] >= 18
    assert board["random"]["timeouts"] == board["random"]["illegal"] == board["random"]["crashes"] == 0
    assert board["random"]["rank"] == 1 and board["random"]["elo"] > max(board[b]["elo"] for b in ("crasher", "hanger",
                                                                                                  "cheater"))
    out = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert not out.stdout.split(), "a chaos bot survived the tournament"


def test_bot_commands_that_cannot_run_are_reported_before_any_match(tmp_path: Path) -> None:
    bots = ('[[bots]]\nname = "a"\ncommand = "python sample_bots/nosuch.py"\n'
            '[[bots]]\nname = "b"\ncommand = "nosuchprogram --x"\n'
            '[[bots]]\nname = "c"\ncommand = "python sample_bots/random_bot.py"\n')
    f = _write(tmp_path, "badcmd", bots=bots)
    r = _cli("tournament", "run", str(f), "--quiet")
    assert r.returncode == 2
    assert "bots[0].command: script 'sample_bots/nosuch.py' not found" in r.stderr
    assert "bots[1].command: program 'nosuchprogram' not found on PATH" in r.stderr
    assert not (tmp_path / "badcmd.sqlite").exists()  # nothing started, nothing stored


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_persistent_and_external_bots_play_many_matches_on_one_connection(tmp_path: Path) -> None:
    port = _free_port()
    bots = ('[[bots]]\nname = "launched"\ncommand = "python sample_bots/random_bot.py --seed 1"\n'
            '[[bots]]\nname = "kept"\ncommand = "python sample_bots/random_bot.py --seed 2 --max-matches 2"\n'
            'persistent = true\n'
            '[[bots]]\nname = "visitor"\nexternal = true\ntoken = "visitor-secret"\n')
    f = _write(tmp_path, "mixed", extra=f"port = {port}\n", bots=bots)
    run = subprocess.Popen([PY, "-m", "referee.cli", "tournament", "run", str(f), "--quiet", "--format", "json"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    visitor = None
    try:
        import socket

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # wait until the referee listens, then the visitor connects
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        visitor = subprocess.Popen([PY, "sample_bots/random_bot.py", "--referee", f"127.0.0.1:{port}",
                                    "--token", "visitor-secret", "--name", "visitor", "--max-matches", "2"],
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
        board = {row["bot"]: row for row in json.loads(out)}
        assert {b: row["matches"] for b, row in board.items()} == {"launched": 6, "kept": 6, "visitor": 6}
        assert all(row["timeouts"] == row["illegal"] == row["crashes"] == 0 for row in board.values())
        assert visitor.wait(30) == 0  # told Goodbye when the tournament ended
        kept_runs = list((tmp_path / "logs" / "mixed").glob("kept.persistent*.stderr"))
        assert len(kept_runs) == 1  # launched once for all its matches
    finally:
        for p in (run, visitor):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(5)


def _cup(tmp_path: Path, main_extra: str = "") -> Path:
    """A competition directory: cup.toml including entries/*.toml, three launched entries."""
    (tmp_path / "entries").mkdir(exist_ok=True)
    main = tmp_path / "cup.toml"
    main.write_text(f'name = "cup"\ngame = "doudizhu"\nplayers = 3\n{main_extra}include = ["entries/*.toml"]\n')
    for i in range(3):
        (tmp_path / "entries" / f"e0{i}.toml").write_text(
            f'[[bots]]\nname = "e0{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n')
    return main


def test_problems_name_their_bots_and_lines_and_no_line_is_a_question_mark(tmp_path: Path) -> None:
    main = _cup(tmp_path)
    (tmp_path / "entries" / "e03.toml").write_text('# the visitor\n[[bots]]\nname = "visitor"\nexternal = true\n'
                                                   'token = "t0k"\n')
    (tmp_path / "entries" / "e04.toml").write_text("# nothing yet\n")
    with pytest.raises(tspec.SpecError) as ei:
        tspec.load(main)
    text = str(ei.value)
    assert ":?" not in text, text
    e03, e04 = tmp_path / "entries" / "e03.toml", tmp_path / "entries" / "e04.toml"
    assert f"{main}: port: external bots need a fixed port to connect to: visitor ({e03}:3); set port = N" in text
    assert "--referee HOST:PORT" in text and "t0k" not in text
    assert f"{e04}:1: bots: the file has no [[bots]] table" in text
    e04.unlink()
    assert [b.name for b in tspec.load(main, remote=True).bots] == ["e00", "e01", "e02", "visitor"]


def test_syntax_errors_keep_file_and_line_and_say_what_to_fix(tmp_path: Path) -> None:
    main = _cup(tmp_path)
    entries = tmp_path / "entries"
    (entries / "e12.toml").write_text('[[bots]]\nname = "e12\ncommand = "python sample_bots/random_bot.py"\n')
    (entries / "e14.toml").write_text('[[bots]]\nname = "e14"\nname = "e14b"\n')
    (entries / "e15.toml").write_text('[[bots]]\nname "e15"\n')
    (entries / "e16.toml").write_text('[[bots]\nname = "e16"\n')
    (entries / "e17.toml").write_text('[[bots]]\nname = "e17"\nresources = ["java"')
    (entries / "e18.toml").write_text('[[bots]]\nname = "e18"\nx = 1979-13-01\n')
    with pytest.raises(tspec.SpecError) as ei:
        tspec.load(main)
    text = str(ei.value)
    assert f"{entries / 'e12.toml'}:2: (syntax): a string is not closed on this line: add its closing quote" in text
    assert f"{entries / 'e14.toml'}:3: (syntax): name is given twice" in text
    assert f"{entries / 'e15.toml'}:2: (syntax): a key without '='" in text
    assert f"{entries / 'e16.toml'}:1: (syntax): a [[...]] header is not closed: end it with ]]" in text
    assert f"{entries / 'e17.toml'}:3: (syntax): a list is not closed: end it with ]" in text
    assert f"{entries / 'e18.toml'}:3: (syntax): Expected newline" in text  # unmapped: tomllib's own words
    assert "Illegal character" not in text and "Cannot overwrite" not in text


def test_misspelt_keys_get_a_suggestion_also_on_the_missing_line(tmp_path: Path) -> None:
    main = _cup(tmp_path)
    main.write_text('name = "cup"\ngmae = "doudizhu"\ninclude = ["entries/*.toml"]\n[clock]\ndecison_ms = 5\n'
                    '[limits]\nmemory_mbb = 1\n[schedule]\nkind = "sampled"\nmatches_per_bots = 3\n')
    (tmp_path / "entries" / "e05.toml").write_text('[[bots]]\nname = "e05"\ncomand = "python x.py"\n'
                                                   'limits = { memroy_mb = 512 }\n')
    with pytest.raises(tspec.SpecError) as ei:
        tspec.load(main)
    text, e05 = str(ei.value), tmp_path / "entries" / "e05.toml"
    assert f"{e05}:3: bots[0].comand: unknown key (did you mean `command`?) (known: command," in text, text
    assert f"{e05}:1: bots[0].command: missing (or set external = true with a token) (`comand` looks like a " \
           "misspelling of it)" in text, text
    assert "limits.memroy_mb: unknown limit 'memroy_mb' (did you mean `memory_mb`?)" in text
    assert "gmae: unknown key (did you mean `game`?)" in text
    assert "game: missing (`gmae` looks like a misspelling of it)" in text
    assert "clock.decison_ms: unknown key (did you mean `decision_ms`?)" in text
    assert "limits.memory_mbb: unknown key (did you mean `memory_mb`?)" in text
    assert "schedule.matches_per_bots: unknown key (did you mean `matches_per_bot`?)" in text
    assert "K (matches each bot plays) (`matches_per_bots` looks like a misspelling of it)" in text
    assert "did you mean" not in tspec.unknown_key("zzz", ("command", "name"))  # nothing close: no guess


def test_an_include_matching_only_the_tournament_file_says_so(tmp_path: Path) -> None:
    main = _cup(tmp_path)
    main.write_text(main.read_text().replace('include = ["entries/*.toml"]', 'include = ["*.toml", "entries/*.toml"]'))
    with pytest.raises(tspec.SpecError) as ei:
        tspec.load(main)
    assert f"{main}:4: include: '*.toml' matches only the tournament file itself, which is never included" \
        in str(ei.value), str(ei.value)
    (tmp_path / "house.toml").write_text('[[bots]]\nname = "house"\ncommand = "python sample_bots/random_bot.py"\n')
    assert [b.name for b in tspec.load(main).bots] == ["house", "e00", "e01", "e02"]


def test_resume_of_a_changed_file_names_the_changes_before_the_plan_line(tmp_path: Path) -> None:
    main = _cup(tmp_path, main_extra=f'seed = 9\nport = 5\ndatabase = "{tmp_path / "cup.sqlite"}"\n'
                f'log_dir = "{tmp_path / "logs"}"\n')
    main.write_text(main.read_text() + '[[bots]]\nname = "visitor"\nexternal = true\ntoken = "s3cret"\n')
    s = tspec.load(main)
    from tournaments.run import existing_problem
    from tournaments.schedule import build as build_schedule

    st = Store(s.database)
    try:
        st.create_tournament(s.name, s.game, s.public_json(), s.fingerprint(), len(build_schedule(s)),
                             [(b.name, b.command, b.external) for b in s.bots])
        assert existing_problem(s, st, resume=True, fresh=False) is None  # the same file: go ahead
    finally:
        st.close()
    (tmp_path / "entries" / "e31.toml").write_text('# late\n[[bots]]\nname = "e31"\n'
                                                   'command = "python sample_bots/random_bot.py"\n')
    (tmp_path / "entries" / "e01.toml").unlink()
    (tmp_path / "entries" / "e02.toml").write_text('[[bots]]\nname = "e02"\ncommand = "python sample_bots/random_bot.py'
                                                   ' --seed 7"\n')
    main.write_text(main.read_text().replace("seed = 9", "seed = 10").replace('token = "s3cret"', 'token = "n3w"')
                    + "[trueskill]\nmu = 30\n[clock]\nkind = \"cpu\"\ndecision_ms = 800\nconnect_timeout_ms = 500\n")
    r = _cli("tournament", "run", str(main), "--resume", "-q")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    err = " ".join(r.stderr.split())
    assert f"bot added: e31 ({tmp_path / 'entries' / 'e31.toml'}:3)" in err, err
    assert "bot removed: e01" in err
    assert 'bot e02 changed (command "python sample_bots/random_bot.py --seed 2" -> ' \
           '"python sample_bots/random_bot.py --seed 7")' in err
    assert "seed: 9 -> 10" in err and "trueskill.mu: 25.0 -> 30.0" in err and 'clock.kind: "wall" -> "cpu"' in err
    assert "clock.decision_ms: 1000 -> 800" in err and "; decision_ms" not in err  # the file's own dotted keys
    assert "connect_timeout_ms" not in err  # does not change the matches: not a change that refuses
    assert "s3cret" not in err and "n3w" not in err  # tokens are never shown
    assert "--fresh" in err and "tournament cup:" not in err and "sandbox:" not in err  # refused before the plan


def test_resume_says_how_many_matches_are_played_and_which_allowed_settings_changed(tmp_path: Path) -> None:
    import asyncio

    from tournaments.run import run_tournament

    f = tmp_path / "t.toml"
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                   for i in range(3))
    f.write_text(f'name = "rs"\ngame = "doudizhu"\nplayers = 3\nconcurrency = 1\ndatabase = "{tmp_path / "r.sqlite"}"\n'
                 f'log_dir = "{tmp_path / "logs"}"\nparams = {{ rounds = 1 }}\n{bots}')
    old = os.getcwd()
    os.chdir(ROOT)  # the bots' commands are relative to the repository
    try:
        asyncio.run(run_tournament(tspec.load(f), stop_after=2))
    finally:
        os.chdir(old)
    f.write_text(f.read_text().replace("concurrency = 1", "concurrency = 2")
                 .replace("[[bots]]", "[clock]\nconnect_timeout_ms = 5000\n[[bots]]", 1)
                 .replace("--seed 2\"\n", "--seed 2\"\nlimits = { memory_mb = 1024 }\n"))
    r = _cli("tournament", "run", str(f), "--resume", "-q", "-f", "json")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    err = " ".join(r.stderr.split())
    assert ("resuming: 2 of 6 matches already played; changed since it was started: clock.connect_timeout_ms: "
            "15000 -> 5000; concurrency: 1 -> 2; bot b2 changed (limits.memory_mb 2048 -> 1024) ") in err, err
    assert err.index("tournament rs:") < err.index("resuming:")  # under the plan line
    r = _cli("tournament", "run", str(f), "--resume", "-q", "-f", "json")
    assert "resuming: all 6 matches already played, nothing more to play" in " ".join(r.stderr.split()), r.stderr


def test_external_bots_seated_by_name_keep_the_fingerprint_and_show_how_each_is_seated(tmp_path: Path) -> None:
    """An external bot without a token (seated by name on a hosted referee) is the same bot to the
    fingerprint as with one; the stored spec says how each is seated and holds no token. A local
    run needs every token: the error names each tokenless bot at its name's line."""
    head = 'name = "t"\ngame = "doudizhu"\nplayers = 3\nport = 50999\n\n'
    bots = "".join(f'[[bots]]\nname = "b{i}"\nexternal = true\ntoken = "secret{i}"\n\n' for i in range(3))
    f = tmp_path / "t.toml"
    f.write_text(head + bots)
    with_tokens = tspec.load(f, remote=True)
    assert tspec.load(f).fingerprint() == with_tokens.fingerprint()
    f.write_text(head + bots.replace('token = "secret0"\n', "").replace('token = "secret2"\n', ""))
    by_name = tspec.load(f, remote=True)
    assert [b.by_name for b in by_name.bots] == [True, False, True]
    assert by_name.fingerprint() == with_tokens.fingerprint()
    stored = by_name.public_json()
    assert [(b["name"], b["seated_by"]) for b in stored["bots"]] == [("b0", "name"), ("b1", "token"), ("b2", "name")]
    assert "secret" not in json.dumps(stored)
    assert by_name.changes_from(with_tokens.public_json()) == [] == with_tokens.changes_from(stored)

    with pytest.raises(tspec.SpecError) as ei:
        tspec.load(f)
    line = {ln.split('"')[1]: n for n, ln in enumerate(f.read_text().splitlines(), 1) if ln.startswith("name")}
    hint = 'give token = "...", or run on a hosted referee with --referee where the bot is registered by this name'
    assert str(ei.value).splitlines()[1:] == [
        f"{f}:{line[f'b{i}']}: bots[{i}].token: external bot b{i} has no token: {hint}" for i in (0, 2)]
