"""Everyday CLI behaviour (issue 22): readable round summaries for every game,
seat labels, integer JSON scores."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import PY, ROOT, interrupt_when, stop_server
from referee.clikit import bot_label

HEUR = "python sample_bots/heuristic_bot.py"

#: game -> (seats, match-length arguments, words every round line has)
GAMES = {
    "tractor": (4, ["--rounds", "1"], ["declarer seat", "trump", "defenders", "points", "levels"]),
    "smear": (3, ["--rounds", "2"], ["scores ["]),
    "president": (4, ["--rounds", "2"], ["out in order", "(president)", "(scum)", "totals ["]),
    "back_alley": (4, ["--param", "last_round=1"], ["bids 0:", "tricks [", "points [", "totals ["]),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_prints_a_readable_line_per_round(tmp_path: Path, game: str) -> None:
    seats, length, words = GAMES[game]
    args = [PY, "-m", "referee.cli", "match", game, "--seed", "3", "--log-dir", str(tmp_path), *length]
    for s in range(seats):
        args += ["--bot", f"{HEUR} --seed {s}"]
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip().startswith("round ")]
    assert lines and lines[0].startswith("round 1"), r.stdout
    for ln in lines:
        for w in words:
            assert w in ln, (w, ln)
    assert "heuristic" in r.stdout  # bots named in the table
    assert "summary: {" not in r.stdout  # no raw JSON in the human output


def test_smear_line_names_bidder_bid_and_trump(tmp_path: Path) -> None:
    from referee.summary import round_lines

    log = tmp_path / "m.jsonl"
    events = [{"round_start": {"round": 1}}, {"call": {"seat": 1, "bid": 3}},
              {"round_end": {"round": 1, "bidder": 1, "bid": 3, "trump": "H", "made": False,
                             "items": {"points": [1, 0, 2]}, "scores": [1, -3, 2]}},
              {"round_end": {"round": 2, "passed_out": True, "bidder": -1, "scores": [1, -3, 2]}}]
    log.write_text("".join(json.dumps({"type": "event", "to": None, "event": e}) + "\n" for e in events))
    assert round_lines("smear", str(log), ["a", "b", "c"]) == [
        "round 1: seat 1 (b) bid 3, trump H, was set; points won [1 0 2]; scores [1 -3 2]",
        "round 2: everybody passed; scores [1 -3 2]"]


def test_seat_labels_come_from_the_program_or_script_not_the_last_argument() -> None:
    assert bot_label("python sample_bots/random_bot.py --seed 3", 0) == "random_bot#0"
    assert bot_label("sleep 60", 1) == "sleep#1"
    assert bot_label("java -Xmx1g -jar build/mybot.jar", 2) == "mybot#2"
    assert bot_label("./mybot --depth 3", 3) == "mybot#3"
    assert bot_label("referee bot from-policy sample_bots.smear_policy:load --with weights=w.json", 1) == "smear_policy#1"
    assert bot_label(".venv/bin/referee bot from-policy ./mypolicy.py:act", 2) == "mypolicy#2"
    assert bot_label("referee bot from-policy --on-error first-legal --with w=a:b --referee h:1 mypkg.pol:act",
                     0) == "pol#0"


def test_match_json_scores_are_integers_and_ranks_one_based(tmp_path: Path) -> None:
    args = [PY, "-m", "referee.cli", "match", "doudizhu", "--seed", "3", "--rounds", "1", "--json",
            "--log-dir", str(tmp_path)] + ["--bot", HEUR] * 3
    d = json.loads(subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300).stdout)
    assert all(type(x) is int for x in d["scores"]), d["scores"]
    assert min(d["ranks"]) == 1


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_options_are_checked_before_any_match_is_played(tmp_path: Path) -> None:
    ex = ROOT / "tournaments" / "examples" / "doudizhu.toml"
    r = _cli("tournament", "run", str(ex), "--format", "xml", "--db", str(tmp_path / "r.sqlite"))
    assert r.returncode == 2 and "--format must be one of" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "r.sqlite").exists()  # nothing ran
    r = _cli("conformance", "-g", "poker", str(ROOT.parent / "shared" / "rules" / "vectors"))
    assert r.returncode == 2 and "unknown game poker" in r.stderr


def test_rerunning_a_tournament_without_fresh_or_resume_fails_before_the_progress_bar(tmp_path: Path) -> None:
    from tournaments.store import Store

    db = tmp_path / "r.sqlite"
    Store(str(db)).create_tournament("doudizhu-demo", "doudizhu", {}, "x", 24, [])
    ex = ROOT / "tournaments" / "examples" / "doudizhu.toml"
    r = _cli("tournament", "run", str(ex), "-f", "json", "--db", str(db))
    assert r.returncode == 2 and "already exists" in r.stderr and "--resume" in r.stderr
    assert "tournament doudizhu-demo:" not in r.stderr  # no header, no bar


def test_every_file_problem_in_one_pass_with_lines_for_every_toml_form(tmp_path: Path) -> None:
    from tournaments import spec as tspec

    f = tmp_path / "t.toml"
    f.write_text('"name" = "x"\ngame = "doudizhu"\nvariant = { spring = 3 }\nparams = { rounds = "four" }\n'
                 'clock.decision_ms = -1\nfaults = { max_faults = 0 }\n'
                 '[[bots]]\nname = "a"\ncommand = "python sample_bots/random_bot.py"\n')
    with pytest.raises(tspec.SpecError) as ei:
        tspec.load(f)
    probs = {(k, ln) for k, ln, _ in ei.value.problems}
    assert {("variant.spring", 3), ("params.rounds", 4), ("clock.decision_ms", 5),
            ("faults.max_faults", 6)} <= probs, probs
    assert all(ln is not None for _, ln, _ in ei.value.problems)
    f.write_text('name = "x"\ngame = "doudizhu"\n')
    r = _cli("tournament", "run", str(f))
    assert r.returncode == 2 and "in a [[bots]] table" in r.stderr  # not eaten as rich markup


def test_csv_has_plain_line_endings_and_no_blank_line(tmp_path: Path) -> None:
    from tournaments.rating import BoardRow
    from tournaments.report import render

    fields = BoardRow.__dataclass_fields__
    row = BoardRow(**{k: (0 if k != "bot" else "a") for k in fields})
    out = render([row, row], "csv")
    assert "\r" not in out and out.endswith("\n") and not out.endswith("\n\n")
    assert len(out.splitlines()) == 3


def test_errors_name_the_file_without_errno_text(tmp_path: Path) -> None:
    r = _cli("replay", str(tmp_path / "missing.jsonl"))
    assert r.returncode == 1 and "cannot read" in r.stderr and "Errno" not in r.stderr
    r = _cli("match", "doudizhu", "--log-dir", "/proc/nope", *["--bot", HEUR] * 3)
    assert r.returncode == 2 and "--log-dir: cannot write /proc/nope" in r.stderr
    assert "Errno" not in r.stderr and "Traceback" not in r.stderr


def test_help_shows_no_bool_metavar_and_joins_lines() -> None:
    r = _cli("--help")
    words = " ".join(r.stdout.replace("│", " ").split())
    assert "<bool>" not in r.stdout and "AdminService for operators" in words  # docstring lines joined
    r = _cli("match", "--help")
    assert "<bool>" not in r.stdout and "--json" in r.stdout


def test_help_lists_the_commands_a_new_organiser_needs_first() -> None:
    """``referee --help`` starts with init, match and tournament, and lists every command once."""
    import re

    import typer

    from referee.cli import app

    r = _cli("--help")
    listed = re.findall(r"^│ ([a-z]+)  ", r.stdout, re.M)
    assert r.returncode == 0 and listed[:3] == ["init", "match", "tournament"], listed
    assert sorted(listed) == sorted(typer.main.get_command(app).commands), listed


def test_help_and_docs_say_the_leaderboard_is_ranked_by_the_batch_fit() -> None:
    """The board's order is the batch-fit Elo's (README "Reading the leaderboard"); TrueSkill is a column."""
    for args in (["tournament", "--help"], ["tournament", "run", "--help"], ["leaderboard", "--help"]):
        r = _cli(*args)
        words = " ".join(r.stdout.replace("│", " ").split())
        assert r.returncode == 0 and "batch-fit" in words and "TrueSkill leaderboard" not in words, (args, words)
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        assert "TrueSkill leaderboard" not in " ".join(doc.read_text().split()), doc


def test_help_keeps_every_placeholder_in_angle_brackets() -> None:
    """The help is rendered as Markdown, where a bare ``<name>`` is an HTML tag
    and vanishes: every option's ``<placeholder>`` must show in its command's help."""
    import re

    import click
    import typer
    from typer.testing import CliRunner

    from referee.cli import app

    def commands(cmd: click.Command, path: list[str]):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from commands(sub, [*path, name])

    checked = 0
    for path, cmd in commands(typer.main.get_command(app), []):
        wanted = {m for p in cmd.params for m in re.findall(r"<[A-Za-z_ ]+>", getattr(p, "help", None) or "")}
        if not wanted:
            continue
        shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).output
        assert {m for m in wanted if m not in shown} == set(), path
        checked += 1
    assert checked  # `referee report --out` at least
    r = _cli("report", "--help")
    assert "runs/report/<tournament>/" in r.stdout


def test_every_option_name_shows_in_full_at_80_columns() -> None:
    """Rich's help table cuts a cell that does not fit (``--max-unauthenticated-per-con…``): at 80
    columns every shown option of every command has its names whole at the start of its row."""
    import re

    import typer
    from typer.testing import CliRunner

    from referee.cli import app

    def commands(cmd, path: list[str]):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from commands(sub, [*path, name])

    checked, cut = 0, []
    for path, cmd in commands(typer.main.get_command(app), []):
        shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80", "TERMINAL_WIDTH": None}).output
        for p in cmd.params:
            names = ",".join(o for o in getattr(p, "opts", []) if o.startswith("--"))
            if p.param_type_name != "option" or p.hidden or not names:
                continue
            checked += 1
            if not re.search(rf"^│ (?:\*  |   )?{re.escape(names)} ", shown, re.M):  # the required column, if any
                cut.append(f"{' '.join(path)} {names}")
    assert checked > 100 and cut == [], cut
    serve = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "80", "TERMINAL_WIDTH": None}).output
    assert "--max-unauthenticated-per-conn " in serve and "per-connection" not in serve  # the former name: hidden


def test_python_dash_m_referee_works() -> None:
    r = subprocess.run([PY, "-m", "referee", "--version"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("referee ")


@pytest.mark.slow
def test_the_wheel_ships_the_protos_so_bot_new_works_after_a_plain_install(tmp_path: Path) -> None:
    """Build the wheel, install it on its own (no source checkout on the path) and
    make a Node bot, which needs the .proto files at run time."""
    import os
    import zipfile

    wheels = tmp_path / "wheels"
    r = subprocess.run([PY, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels),
                        str(ROOT)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (wheel,) = wheels.glob("*.whl")
    assert "cardgames/v1/referee.proto" in zipfile.ZipFile(wheel).namelist()
    site = tmp_path / "site"
    r = subprocess.run([PY, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("REFEREE_PROTOS", None)
    work = tmp_path / "work"
    work.mkdir()
    r = subprocess.run([PY, "-m", "referee", "bot", "new", "mybot", "--lang", "node"], cwd=work, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    made = "".join(p.read_text() for p in (work / "mybot").rglob("*") if p.is_file())
    assert str(site) in made and str(ROOT) not in made  # the installed copy's protos, not the checkout's


def test_tournament_list_and_results_export(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    f = tmp_path / "t.toml"
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py --seed {i}"\n'
                   for i in range(3))
    f.write_text(f'name = "tiny"\ngame = "doudizhu"\nplayers = 3\nseed = 5\nconcurrency = 2\n'
                 f'database = "{db}"\nlog_dir = "{tmp_path / "logs"}"\nparams = {{ rounds = 1 }}\n{bots}')
    r = _cli("tournament", "run", str(f), "-q")
    assert r.returncode == 0, r.stderr
    r = _cli("tournament", "list", "--db", str(db), "-f", "json")
    (t,) = json.loads(r.stdout)
    assert (t["name"], t["game"], t["status"], t["matches"], t["total"]) == ("tiny", "doudizhu", "complete", 6, 6)
    assert "tiny" in _cli("tournament", "list", "--db", str(db)).stdout
    rows = json.loads(_cli("results", "tiny", "--db", str(db), "-f", "json").stdout)
    assert [r_["match"] for r_ in rows] == list(range(6))  # the 6 seat orders of the 3 bots
    assert all(sorted(r_["seats"]) == ["b0", "b1", "b2"] and sum(r_["scores"]) == 0 for r_ in rows)
    assert all(type(x) is int for r_ in rows for x in r_["scores"]) and all(min(r_["ranks"]) == 1 for r_ in rows)
    csv_text = _cli("results", "--db", str(db)).stdout  # the latest tournament, CSV by default
    lines = csv_text.split("\n")
    assert lines[0].startswith("match,seed,status,seats,scores") and lines[-1] == "" and len(lines) == 8
    for cmd in (["results", "nope"], ["tournament", "status", "nope"], ["leaderboard", "-t", "nope"]):
        r = _cli(*cmd, "--db", str(db))  # one wording for an unknown name
        assert r.returncode == 1 and "no tournament 'nope'" in r.stderr and "known: tiny" in r.stderr, (cmd, r.stderr)


def test_a_bot_that_never_connects_is_named_and_ctrl_c_before_the_start_says_so(tmp_path: Path,
                                                                                 shared_tmp: Path) -> None:
    import tempfile

    sleeper = shared_tmp / "sleeper.py"  # runs (under a bot uid, which can read it there), never connects
    sleeper.write_text("import time\ntime.sleep(60)\n")
    err_file = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen([PY, "-m", "referee.cli", "match", "doudizhu", "--log-dir", str(tmp_path),
                          "--bot", HEUR, "--bot", HEUR, "--bot", f"python {sleeper}"], cwd=ROOT, text=True,
                         stdout=subprocess.PIPE, stderr=err_file, start_new_session=True)

    def waiting() -> bool:
        err_file.seek(0)
        return "seat 2 (sleeper#2) to connect" in err_file.read()

    out, _ = interrupt_when(p, waiting)
    err_file.seek(0)
    err = err_file.read()
    assert "waiting for " in err and "seat 2 (sleeper#2) to connect" in err
    assert p.returncode == 130 and "interrupted before the match started" in err


def test_ctrl_c_mid_match_prints_what_was_played_and_the_log(tmp_path: Path) -> None:
    p = subprocess.Popen([PY, "-m", "referee.cli", "match", "doudizhu", "--log-dir", str(tmp_path), "--seed", "2",
                          "--bot", HEUR, "--bot", HEUR, "--bot", "python sample_bots/chaos_bot.py --mode hang",
                          "--decision-ms", "60000"], cwd=ROOT, text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    out, err = interrupt_when(p, lambda: any(tmp_path.glob("*.jsonl")))
    assert p.returncode == 130, err
    assert "interrupted after" in out and "decisions" in out and "log (incomplete): " in out
    log = out.split("log (incomplete): ")[1].split()[0]
    assert Path(log).exists() and "Traceback" not in err
    r = _cli("replay", log)  # an incomplete log is no error: it reproduces as far as it goes
    assert r.returncode == 0, r.stderr
    assert "decision" in r.stdout and "replay" in r.stdout and "identically" in r.stdout, r.stdout
    assert "the match was not finished (no result line: interrupted)" in r.stdout and "error" not in r.stderr
    lines = Path(log).read_text().splitlines()
    first = next(i for i, ln in enumerate(lines) if '"round_start"' in ln)
    lines[first] = lines[first].replace('"round":1', '"round":7')  # an edited log: a real mismatch
    Path(log).write_text("\n".join(lines) + "\n")
    r = _cli("replay", log)
    assert r.returncode == 1 and "replay differs at event seq" in r.stderr, r.stderr


def test_void_matches_are_counted_as_void_and_end_grace_is_a_clock_key(tmp_path: Path) -> None:
    db = tmp_path / "v.sqlite"
    f = tmp_path / "v.toml"
    bots = "".join(f'[[bots]]\nname = "s{i}"\ncommand = "sleep 30"\n' for i in range(3))  # never connect
    f.write_text(f'name = "nobody"\ngame = "smear"\nplayers = 3\nseed = 5\nschedule = "round_robin"\ngames = 1\n'
                 f'database = "{db}"\nlog_dir = "{tmp_path / "logs"}"\nparams = {{ max_rounds = 1 }}\n'
                 f'[clock]\nconnect_timeout_ms = 300\nend_grace_ms = 0\n{bots}')
    from tournaments.executor import match_job
    from tournaments.schedule import build
    from tournaments.spec import load

    spec = load(f)
    assert spec.end_grace_ms == 0 and match_job(spec, build(spec)[0]).end_grace_s == 0
    r = _cli("tournament", "run", str(f), "-q")
    assert r.returncode == 0, r.stderr
    n = len(build(spec))
    assert f"aborted: 0, void: {n};" in " ".join((r.stdout + r.stderr).split())
    st = _cli("tournament", "status", "nobody", "--db", str(db)).stdout
    assert f"aborted 0, void {n}" in st
    bad = tmp_path / "bad.toml"
    bad.write_text(f.read_text().replace("end_grace_ms = 0", "end_grace_ms = -5"))
    r = _cli("tournament", "run", str(bad), "-q")
    assert r.returncode == 2 and "clock.end_grace_ms" in r.stderr


def test_a_run_that_cannot_start_draws_no_bar_and_leaves_no_tournament(tmp_path: Path) -> None:
    import socket

    db = tmp_path / "d.sqlite"
    f = tmp_path / "d.toml"
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py"\n' for i in range(3))
    f.write_text(f'name = "nostart"\ngame = "doudizhu"\nplayers = 3\nseed = 5\ndatabase = "{db}"\n'
                 f'log_dir = "{tmp_path / "logs"}"\nparams = {{ rounds = 1 }}\n{bots}')
    r = _cli("tournament", "run", str(f), "--scheduler", "nonsense")
    assert r.returncode == 2 and "--scheduler must be a scheduler address" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = _cli("tournament", "run", str(f), "--scheduler", f"tcp://127.0.0.1:{port}")
    assert r.returncode == 1 and "cannot reach the Dask scheduler" in r.stderr, r.stderr
    assert "connecting to the Dask scheduler" in r.stderr and "0/3" not in r.stderr  # no progress bar drawn
    assert "Traceback" not in r.stderr
    assert _cli("tournament", "list", "--db", str(db), "-f", "json").stdout.strip() == "[]"  # no tournament left
    (tmp_path / "notes.txt").write_text("a file, not a directory\n")
    nolog = tmp_path / "nolog.toml"
    nolog.write_text(f.read_text().replace(str(tmp_path / "logs"), str(tmp_path / "notes.txt" / "logs")))
    r = _cli("tournament", "run", str(nolog), "-q")
    assert r.returncode == 1 and f"log directory {tmp_path / 'notes.txt' / 'logs' / 'nostart'}" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert _cli("tournament", "list", "--db", str(db), "-f", "json").stdout.strip() == "[]"
    r = _cli("tournament", "run", str(f), "-q")  # a plain rerun just works
    assert r.returncode == 0, r.stderr
    r = _cli("tournament", "run", str(f), "-q", "--db", str(tmp_path / "notes.txt" / "d.sqlite"))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert (f"cannot create the results database {tmp_path / 'notes.txt' / 'd.sqlite'}: "
            f"{tmp_path / 'notes.txt'} is not a directory") in " ".join(r.stderr.split()), r.stderr
    assert "tournament nostart" not in r.stderr  # refused before the plan line


def test_resume_hints_name_the_database_given_with_db(tmp_path: Path) -> None:
    import os

    db = tmp_path / "my results.sqlite"  # not runs/referee.sqlite: a hint without --db would resume another
    f = tmp_path / "t.toml"
    bots = "".join(f'[[bots]]\nname = "h{i}"\ncommand = "python {ROOT}/sample_bots/chaos_bot.py --mode hang"\n'
                   for i in range(3))
    f.write_text(f'name = "hinted"\ngame = "doudizhu"\nplayers = 3\nseed = 5\nlog_dir = "{tmp_path / "logs"}"\n'
                 f'params = {{ rounds = 1 }}\n[clock]\ndecision_ms = 60000\n{bots}')
    p = subprocess.Popen([PY, "-m", "referee.cli", "tournament", "run", str(f), "--fresh", "-q", "--db", str(db)],
                         cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    _, err = interrupt_when(p, lambda: any((tmp_path / "logs").rglob("*.jsonl*")))
    assert p.returncode == 130, err
    quoted = f"'{db}'"
    assert f"`referee tournament run {f} --resume --db {quoted}`" in " ".join(err.split()), err
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}
    st = subprocess.run([PY, "-m", "referee.cli", "tournament", "status", "hinted", "--db", str(db)], cwd=ROOT,
                        capture_output=True, text=True, env=env)
    assert "status interrupted" in st.stdout and f"`referee tournament run {f} --resume --db {quoted}`" in st.stdout
    from referee.clikit import db_flag

    assert db_flag("postgresql://me:s3cret@127.0.0.1:5432/x") == (
        " --db 'postgresql://me:***@127.0.0.1:5432/x'", " (with your password in place of ***)")


def test_leaderboard_tables_piped_keep_whole_names_and_intervals_and_a_legend_per_column(tmp_path: Path) -> None:
    import os
    import re

    db = tmp_path / "w.sqlite"
    f = tmp_path / "w.toml"
    names = [f"random-player-with-a-long-name-{i}" for i in range(3)]
    bots = "".join(f'[[bots]]\nname = "{n}"\ncommand = "python {ROOT}/sample_bots/random_bot.py --seed {i}"\n'
                   for i, n in enumerate(names))
    f.write_text(f'name = "wide"\ngame = "doudizhu"\nplayers = 3\nseed = 5\nschedule = "duplicate"\ngames = 2\n'
                 f'database = "{db}"\nlog_dir = "{tmp_path / "logs"}"\nparams = {{ rounds = 1 }}\n{bots}')
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    r = subprocess.run([PY, "-m", "referee.cli", "tournament", "run", str(f), "-q"], cwd=ROOT, capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert all(n in r.stdout for n in names) and "…" not in r.stdout, r.stdout  # the final board, piped
    for columns in (None, "140"):
        run_env = env if columns is None else {**env, "COLUMNS": columns}
        out = subprocess.run([PY, "-m", "referee.cli", "leaderboard", "--details", "--db", str(db)], cwd=ROOT,
                             capture_output=True, text=True, env=run_env).stdout  # stdout is a pipe
        assert "…" not in out, out
        board = out.split("elo: ")[0]
        assert all(n in board for n in names), out
        assert re.search(r"-?\d+\.\d\d\.\.-?\d+\.\d\d", out), out  # the duplicate table's whole intervals
        assert all(n in line for n in names for line in out.splitlines() if line.startswith(n))
        if columns:
            assert max(len(line) for line in out.splitlines()) <= 140
    legend = out.split("t/i/c/o", 1)[1]  # below the table's header line: one line per column
    for item in ("elo:", "95%:", "P>next:", "mu, σ:", "matches:", "wins:", "score:", "t/i/c/o:"):
        assert any(line.startswith(item) for line in legend.splitlines()), (item, legend)
    assert "*" not in legend  # no wins* in this board: nothing to explain


def test_status_names_the_file_an_interrupted_tournament_was_started_from(tmp_path: Path) -> None:
    import os

    from tournaments import spec as tspec
    from tournaments.store import Store

    cup = tmp_path / "cup dir"
    cup.mkdir()
    f = cup / "cup.toml"
    db = tmp_path / "r.sqlite"
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py"\n' for i in range(3))
    f.write_text(f'name = "cupS"\ngame = "doudizhu"\nplayers = 3\ndatabase = "{db}"\n{bots}')
    old = f.with_name("old.toml")
    old.write_text(f.read_text().replace("cupS", "cupOld"))
    st = Store(str(db))
    try:
        for path in (f, old):  # an interrupted run: created, no lease, not complete
            s = tspec.load(path)
            stored = s.public_json()
            assert stored["file"] == str(path.resolve())
            if path == old:
                del stored["file"]  # stored by a version that did not keep the path
            st.create_tournament(s.name, s.game, stored, s.fingerprint(), 6, [(b.name, b.command, False) for b in s.bots])
    finally:
        st.close()
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}

    def status(name: str, cwd: Path) -> str:
        r = subprocess.run([PY, "-m", "referee.cli", "tournament", "status", name, "--db", str(db)], cwd=cwd,
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        return " ".join(r.stdout.split())

    out = status("cupS", ROOT)  # started from ROOT (the tests' cwd), the file elsewhere: its absolute path
    assert f"finish it with `referee tournament run '{f}' --resume --db {db}`" in out, out
    out = status("cupS", tmp_path)  # from another directory: go back to where it was started
    assert f"finish it with `cd {ROOT} && referee tournament run '{f}' --resume --db {db}`" in out, out
    out = status("cupOld", ROOT)
    assert "`referee tournament run FILE --resume" in out and "FILE: the tournament file of 'cupOld'" in out, out


def test_a_status_command_that_changes_directory_names_the_same_database(tmp_path: Path, monkeypatch) -> None:
    """Started in h/ with ``database = "cup.sqlite"``, status read from h's parent with ``--db h/cup.sqlite``:
    the printed ``cd h && ...`` command, run as printed, resumes the stored tournament in that database."""
    import os
    import sqlite3

    from tournaments import spec as tspec
    from tournaments.store import Store

    h = tmp_path / "h"
    h.mkdir()
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py"\n' for i in range(3))
    (h / "cup.toml").write_text('name = "cupD"\ngame = "doudizhu"\nplayers = 3\ndatabase = "cup.sqlite"\n'
                                f'log_dir = "logs"\nparams = {{ rounds = 1 }}\n{bots}')
    monkeypatch.chdir(h)  # where the organiser started it (interrupted: created, no lease, nothing played)
    s = tspec.load(Path("cup.toml"))
    st = Store(s.database)
    try:
        st.create_tournament(s.name, s.game, s.public_json(), s.fingerprint(), 6,
                             [(b.name, b.command, False) for b in s.bots])
    finally:
        st.close()
    env = {**{k: v for k, v in os.environ.items() if k != "REFEREE_DB"},
           "PATH": f"{Path(PY).parent}{os.pathsep}{os.environ['PATH']}"}
    r = subprocess.run([PY, "-m", "referee.cli", "tournament", "status", "cupD", "--db", "h/cup.sqlite"],
                       cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    command = re.search(r"finish it with `([^`]+)`", " ".join(r.stdout.split()))
    assert command and command.group(1) == (f"cd {h} && referee tournament run cup.toml --resume "
                                            f"--db {h / 'cup.sqlite'}"), r.stdout
    r = subprocess.run(["bash", "-c", command.group(1)], cwd=tmp_path, capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0 and "resuming: 0 of 6 matches already played" in r.stderr, r.stderr
    with sqlite3.connect(h / "cup.sqlite") as db:
        assert db.execute("SELECT count(*) FROM matches").fetchone()[0] == 6
    assert not (h / "h").exists()


def test_resume_of_a_tournament_not_stored_says_it_starts_it(tmp_path: Path) -> None:
    """``--resume`` where nothing of the tournament is stored (no database yet, or one without it)
    plays it from the start and says so in one note line on stderr."""
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py"\n' for i in range(3))
    f = tmp_path / "cup.toml"
    db = tmp_path / "r.sqlite"
    f.write_text(f'name = "cupN"\ngame = "doudizhu"\nplayers = 3\ndatabase = "{db}"\n'
                 f'log_dir = "{tmp_path / "logs"}"\nparams = {{ rounds = 1 }}\n{bots}')
    for name in ("cupN", "cupM"):  # a new database, then one that holds cupN but not cupM
        if name == "cupM":
            f.write_text(f.read_text().replace('"cupN"', '"cupM"'))
        r = subprocess.run([PY, "-m", "referee.cli", "tournament", "run", str(f), "--resume", "--quiet"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        notes = [line for line in r.stderr.splitlines() if line.startswith("note:")]
        assert notes == [f"note: nothing of tournament {name!r} is stored in {db} yet: --resume starts it"], r.stderr
        assert "resuming:" not in r.stderr and "6 matches played" in r.stderr, r.stderr


def test_tournament_check_validates_like_run_prints_the_plan_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    (tmp_path / "entries").mkdir()
    f = tmp_path / "cup.toml"
    f.write_text(f'name = "cupC"\ngame = "doudizhu"\nplayers = 3\ndatabase = "{db}"\ninclude = ["entries/*.toml"]\n')
    for i in range(4):
        (tmp_path / "entries" / f"e{i}.toml").write_text(
            f'[[bots]]\nname = "e{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py --seed {i}"\n')

    def check(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([PY, "-m", "referee.cli", "tournament", "check", *args], cwd=ROOT, capture_output=True,
                              text=True)

    r = check(str(f))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("cupC: doudizhu, 4 bots, 3 seats, round_robin, 24 matches (every bot 18 matches"), r.stdout
    assert f"no problem found in {f}" in r.stdout
    (tmp_path / "entries" / "e4.toml").write_text('[[bots]]\nname = "e4"\ncomand = "python x.py"\n')
    (tmp_path / "entries" / "e5.toml").write_text('[[bots]]\nname = "e5\n')
    r = check(str(f))
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stdout == "", r.stderr
    assert "3 problems" in r.stderr and "did you mean `command`?" in r.stderr and "(syntax)" in r.stderr, r.stderr
    r = check(str(tmp_path / "nope.toml"))
    assert r.returncode == 2 and "no such tournament file" in r.stderr
    assert not db.exists()  # nothing stored


def test_allowed_player_counts_read_as_a_range_a_pair_or_a_list(tmp_path: Path) -> None:
    from referee.words import counts_text

    assert [counts_text(c) for c in ((4,), (3, 4), (4, 5, 6, 7), (3, 4, 6), (2, 4))] == [
        "4", "3 or 4", "4 to 7", "3, 4 or 6", "2 or 4"]
    f = tmp_path / "t.toml"
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py"\n' for i in range(4))
    for game, players, words in (("president", 3, "president is played by 4 to 7 players, not 3"),
                                 ("doudizhu", 5, "doudizhu is played by 3 or 4 players, not 5")):
        f.write_text(f'name = "n"\ngame = "{game}"\nplayers = {players}\n{bots}')
        r = _cli("tournament", "check", str(f))
        assert r.returncode == 2 and f"{f}:3: players: {words}" in " ".join(r.stderr.split()), r.stderr


def test_status_gives_the_referee_and_ca_a_tournament_last_ran_with(tmp_path: Path) -> None:
    """A tournament run with ``--referee HOST:PORT --tls-ca CA`` stores both (never the admin
    token): status's command gives them again, the CA relative to the directory it runs in when
    under it; a resume elsewhere replaces them (the stored spec keeps the latest run's)."""
    import os

    from tournaments import spec as tspec
    from tournaments.run import _open
    from tournaments.store import LeaseHolder, Store

    f = tmp_path / "cup.toml"
    db = tmp_path / "r.sqlite"
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py"\n' for i in range(3))
    f.write_text(f'name = "cupR"\ngame = "doudizhu"\nplayers = 3\ndatabase = "{db}"\n{bots}')
    s = tspec.load(f)
    s.referee, s.tls_ca = "localhost:50051", str(tmp_path / "certs" / "ca.pem")
    st = Store(str(db))
    try:
        st.create_tournament(s.name, s.game, s.public_json(), s.fingerprint(), 6,
                             [(b.name, b.command, False) for b in s.bots])
    finally:
        st.close()
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}

    def status(cwd: Path) -> str:
        r = subprocess.run([PY, "-m", "referee.cli", "tournament", "status", "cupR", "--db", str(db)], cwd=cwd,
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        return " ".join(r.stdout.split())

    out = status(ROOT)
    assert (f"finish it with `referee tournament run {f} --referee localhost:50051 --tls-ca {tmp_path}/certs/ca.pem "
            f"--resume --db {db}`") in out, out
    st = Store(str(db))
    try:
        st.update_spec(1, {"cwd": str(tmp_path)})  # started from tmp_path: the CA is under it
        assert "localhost:50051 --tls-ca certs/ca.pem --resume" in status(tmp_path)
        s.referee, s.tls_ca = "127.0.0.1:6000", ""  # resumed on another referee, without TLS, then interrupted
        me = LeaseHolder.me()
        st.release_lease(_open(s, True, False, st, [], me), me)
    finally:
        st.close()
    out = status(tmp_path)
    assert "`referee tournament run cup.toml --referee 127.0.0.1:6000 --resume --db" in out, out


def _tiny(tmp_path: Path, name: str, db: Path, seed: int = 5) -> Path:
    """A tournament file of 3 random bots, 6 one-round matches, results in ``db``."""
    f = tmp_path / f"{name}.toml"
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py --seed {i}"\n'
                   for i in range(3))
    f.write_text(f'name = "{name}"\ngame = "doudizhu"\nplayers = 3\nseed = {seed}\ndatabase = "{db}"\n'
                 f'log_dir = "{tmp_path / "logs"}"\nparams = {{ rounds = 1 }}\n{bots}')
    return f


def _store_as_started(f: Path, lease: bool = False) -> None:
    """Store the tournament of file ``f`` as a run that started it and played nothing yet
    (``lease``: and still runs, its lease held by this test's process)."""
    from tournaments import spec as tspec
    from tournaments.store import LeaseHolder, Store

    s = tspec.load(f)
    st = Store(s.database)
    try:
        st.create_tournament(s.name, s.game, s.public_json(), s.fingerprint(), 6,
                             [(b.name, b.command, False) for b in s.bots], LeaseHolder.me() if lease else None)
    finally:
        st.close()


def test_tournament_check_says_what_the_database_run_would_use_holds(tmp_path: Path) -> None:
    import os

    db = tmp_path / "r.sqlite"
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}

    def check(f: Path, *args: str) -> tuple[int, str, str]:
        r = subprocess.run([PY, "-m", "referee.cli", "tournament", "check", str(f), *args], cwd=ROOT,
                           capture_output=True, text=True, env=env)
        assert "Traceback" not in r.stderr, r.stderr
        return r.returncode, " ".join(r.stdout.split()), " ".join(r.stderr.split())

    f = _tiny(tmp_path, "cupA", db)
    code, out, _ = check(f)
    assert code == 0 and f"not stored yet in {db} (no results database there yet)" in out, out
    assert not db.exists()  # check never creates the database
    _store_as_started(f)
    code, out, _ = check(f)
    assert code == 0 and f"stored in {db}: 0 of 6 matches played; `run` needs --resume (or --fresh to start over)" \
        in out and "would refuse" not in out, out
    f = _tiny(tmp_path, "cupA", db, seed=6)  # the file changed since it was started
    code, out, _ = check(f)
    assert out.endswith("--resume would refuse: the file changed since it was started: seed: 5 -> 6"), out
    other = tmp_path / "other.sqlite"  # --db: the database run --db would use
    code, out, _ = check(f, "--db", str(other))
    assert code == 0 and f"not stored yet in {other}" in out and not other.exists(), out
    _store_as_started(_tiny(tmp_path, "cupL", db), lease=True)  # a run holds its lease now
    code, out, _ = check(tmp_path / "cupL.toml")
    assert code == 0 and f"running now in {db}: lease held by pid {os.getpid()} on this host (heartbeat" in out, out
    for bad, why in ((tmp_path / "junk.sqlite", "is corrupt"), ("nosuchdriver://x/y", "not a database path or URL")):
        if isinstance(bad, Path):
            bad.write_text("not a database\n")
        code, out, err = check(f, "--db", str(bad))
        assert code == 2 and out == "" and "cannot read the database `run` would use" in err and why in err, err
    notes = tmp_path / "notes.txt"  # a database `run` could not create: below a regular file
    notes.write_text("a file, not a directory\n")
    for below in (notes / "r.sqlite", notes / "sub" / "r.sqlite"):
        code, out, err = check(f, "--db", str(below))
        assert code == 2 and out == "", out
        assert err == f"error: `run` could not create the results database {below}: {notes} is not a directory", err
    assert notes.read_text() == "a file, not a directory\n"  # check created nothing


def test_tournament_check_reports_a_file_problem_and_an_uncreatable_db_each_on_its_line(tmp_path: Path) -> None:
    """A seat problem (5 players for Dou Dizhu) and a --db `run` could not create: both said,
    exit 2, nothing created; with a creatable --db only the file's problem."""
    f = _tiny(tmp_path, "cupS", tmp_path / "r.sqlite")
    f.write_text(f.read_text().replace("players = 3", "players = 5"))
    notes = tmp_path / "notes.txt"
    notes.write_text("a file, not a directory\n")
    below = notes / "r.sqlite"
    r = _cli("tournament", "check", str(f), "--db", str(below))
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.splitlines()
    assert any(f"{f}:3: players: doudizhu is played by 3 or 4 players, not 5" in ln for ln in lines), r.stderr
    assert lines[-1] == f"error: `run` could not create the results database {below}: {notes} is not a directory"
    assert sum(ln.startswith("error:") for ln in lines) == 2, r.stderr
    r = _cli("tournament", "check", str(f), "--db", str(tmp_path / "ok.sqlite"))
    assert r.returncode == 2 and "could not create" not in r.stderr and "not 5" in r.stderr, r.stderr
    assert notes.read_text() == "a file, not a directory\n" and not (tmp_path / "ok.sqlite").exists()
    assert not (tmp_path / "r.sqlite").exists() and not (tmp_path / "logs").exists()


def test_report_and_web_take_the_database_and_name_from_config(tmp_path: Path) -> None:
    import os

    from tournaments.store import Store

    db = tmp_path / "r.sqlite"
    f = _tiny(tmp_path, "cupR", db)
    _store_as_started(f)
    Store(str(db)).create_tournament("later", "doudizhu", {}, "x", 6, [])  # the latest: not the one --config names
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}
    r = subprocess.run([PY, "-m", "referee.cli", "report", "--config", str(f), "-o", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip() == f"report: {tmp_path / 'site' / 'index.html'}", r.stderr
    assert "cupR" in (tmp_path / "site" / "index.html").read_text()
    missing = tmp_path / "none.sqlite"
    for cmd in ("report", "web"):  # --config names the database (never created); --db overrides it
        g = _tiny(tmp_path, "cupM", missing)
        r = subprocess.run([PY, "-m", "referee.cli", cmd, "-c", str(g), "--port" if cmd == "web" else "-o",
                            "0" if cmd == "web" else str(tmp_path / "m")], cwd=ROOT, capture_output=True, text=True,
                           env=env, timeout=60)
        assert r.returncode == 1 and f"no results database at {missing}" in r.stderr, r.stderr
        assert "--config FILE" in r.stderr and not missing.exists()
    web = subprocess.Popen([PY, "-m", "referee.cli", "web", "-c", str(_tiny(tmp_path, "cupM", missing)), "--db",
                            str(db), "--port", "0", "--play-log-dir", str(tmp_path / "play")], cwd=ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        line = web.stdout.readline()  # the server's first line; it ends when the process does
    finally:
        stop_server(web, group=True)
        web.stdout.close()
    served, _, urls = line.partition(" on http://127.0.0.1:")
    assert served.startswith("serving ") and served.endswith(str(db)) and "; cupM: http://127.0.0.1:" in urls, line
    assert "/t/cupM/; play: " in line, line


def test_a_tournament_file_named_like_a_stored_ladder_is_refused_plainly(tmp_path: Path) -> None:
    """A ladder's row is no tournament: check, run and run --fresh say so (exit 2, no traceback) and the
    ladder is left as it was (--fresh does not delete it)."""
    db = tmp_path / "l.sqlite"
    bots = "".join(f'[[bots]]\nname = "r{i}"\ncommand = "python {ROOT}/sample_bots/random_bot.py --seed {i}"\n'
                   for i in range(3))
    f = tmp_path / "lad.toml"
    f.write_text(f'name = "lad"\ngame = "doudizhu"\nplayers = 3\ndatabase = "{db}"\n{bots}')
    r = _cli("ladder", str(f), "--max-matches", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    for args in (("check",), ("run",), ("run", "--fresh"), ("run", "--resume")):
        r = _cli("tournament", *args, str(f))
        text = " ".join(r.stderr.split())
        assert r.returncode == 2 and "Traceback" not in r.stderr, (args, r.stderr)
        assert "'lad' in" in text and "is a ladder (`referee ladder`), not a tournament" in text, (args, text)
    r = _cli("ladder", "verify", str(f))
    assert r.returncode == 0, r.stdout + r.stderr
    # tournament status of it: a ladder's figures (no "N/N done") and the command that shows its entrants
    r = _cli("tournament", "status", "lad", "--db", str(db))
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert lines[0] == "lad: doudizhu ladder, 0 matches finished, status stopped, aborted 0", lines
    command = f"referee ladder status --config {f} --db {db}"
    assert lines[-1] == f"  a ladder: its entrants and their states with `{command}`", lines
    r = _cli(*command.split()[1:])
    assert r.returncode == 0 and r.stdout.startswith("ladder lad: doudizhu, 0 matches finished, 3 entrants"), \
        r.stdout + r.stderr
