"""A ladder on a hosted referee (``referee ladder FILE --referee HOST:PORT``)
when that referee stops or restarts while the ladder runs.

Real processes on loopback: ``referee serve`` on 127.0.0.1 port 0 (started
again on the same port, with the same log directory) and the ladder with three
launched bots that take a little while per decision, so that a match is in
flight when the referee is stopped. The ladder either waits for the referee
and plays the lost match again (each match recorded once, ``ladder verify``
agrees), or, with ``--reconnect 0``, stops with the command that continues it
(``--referee``, never an admin token), as ``ladder status`` also says; Ctrl-C
while it waits stops it at once. While it waits, ``ladder status`` and
``tournament status`` say so (from the database), and stop saying it once the
referee is back or the ladder stopped.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from conftest import ROOT, stop_process
from referee.clikit import referee_flags, stored_flags
from test_hosted_driver import ADMIN, SLOW_BOT, _in_flight, _records, _serve, _sigterm, _until
from test_ladder import ADMIN as LADDER_ADMIN
from test_ladder import LadderProc


@pytest.fixture()
def hosted_ladder(tmp_path: Path):
    """(address, referee process, its operator log, again(log): a new referee on the same port,
    ladder file, --referee-admin-token-file) with three slow launched bots in the file."""
    (tmp_path / "slow.py").write_text(SLOW_BOT)
    oplog = tmp_path / "serve1.jsonl"
    serve, port = _serve(tmp_path, oplog)
    procs = [serve]
    try:
        f = tmp_path / "hl.toml"
        bots = "".join(f'[[bots]]\nname = "s{i}"\ncommand = "python {tmp_path / "slow.py"} --seed {i}"\n'
                       for i in range(3))
        f.write_text(f'name = "hl"\ngame = "doudizhu"\nplayers = 3\nseed = 5\nconcurrency = 1\nport = 0\n'
                     f'database = "{tmp_path / "ladder.sqlite"}"\nlog_dir = "{tmp_path / "logs"}"\n'
                     f'params = {{ rounds = 1 }}\n[clock]\ndecision_ms = 5000\n{bots}')
        token_file = tmp_path / "referee.token"
        token_file.write_text(ADMIN)

        def again(log: Path) -> subprocess.Popen:
            p, _ = _serve(tmp_path, log, port)
            procs.append(p)
            return p

        yield f"127.0.0.1:{port}", serve, oplog, again, f, token_file
    finally:
        for p in procs:
            stop_process(p)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def _counted_once(tmp: Path, matches: int) -> None:
    """``matches`` matches stored, each once, each scheduled match finished by one event."""
    with sqlite3.connect(tmp / "ladder.sqlite") as db:
        idx = [r[0] for r in db.execute("SELECT idx FROM matches ORDER BY idx")]
        finished = [r[0] for r in db.execute("SELECT sched FROM ladder_events WHERE kind = 'finished'")]
        scheduled = [r[0] for r in db.execute("SELECT sched FROM ladder_events WHERE kind = 'scheduled'")]
    assert idx == list(range(1, matches + 1)), idx
    assert sorted(finished) == sorted(scheduled) == list(range(1, matches + 1)), (scheduled, finished)


def _verified(f: Path) -> None:
    r = _cli("ladder", "verify", str(f))
    assert r.returncode == 0 and "every recorded decision and rating is the one the history gives" in r.stdout, \
        r.stdout + r.stderr


def _ladder_on(tmp: Path, f: Path, addr: str, token_file: Path, max_matches: int, reconnect_s: int) -> LadderProc:
    """``referee ladder F`` on the hosted referee at ``addr``, with its admin token file."""
    return LadderProc(tmp, f, "--referee", addr, "--referee-admin-token-file", str(token_file),
                      "--max-matches", str(max_matches), "--reconnect", str(reconnect_s))


def _stop_referee_during_match(n: int, oplog: Path, serve: subprocess.Popen) -> None:
    """SIGTERM the referee once match number ``n`` is in flight; it exits 0."""
    _until(lambda: _in_flight(oplog, n), f"match {n} to be in flight", shown=oplog)
    assert _sigterm(serve) == 0


def test_a_ladder_waits_for_its_restarted_referee_and_plays_the_lost_match_again(hosted_ladder,
                                                                                 tmp_path: Path) -> None:
    addr, serve, oplog, again, f, token_file = hosted_ladder
    lad = _ladder_on(tmp_path, f, addr, token_file, 3, 60)
    try:
        _stop_referee_during_match(2, oplog, serve)
        stopped = [r["match_id"] for r in _records(oplog, "match_ended") if "shutting down" in r["status"]]
        assert stopped == ["hl-m00002"], _records(oplog)  # the ladder's own match ids, on the referee too
        lad.wait("waiting up to 60 s for it to come back")
        assert "waiting for the referee at" in _cli("ladder", "status", "--config", str(f)).stdout
        second = tmp_path / "serve2.jsonl"
        again(second)  # same port, same log directory: it has the stopped match's log
        lad.wait("is back; playing on")
        st = _cli("ladder", "status", "--config", str(f))
        assert st.returncode == 0 and "waiting" not in st.stdout, st.stdout + st.stderr  # the wait is over
        assert lad.p.wait(60) == 0, lad.text()
    finally:
        lad.close()
    out = lad.text()
    # worded as the tournament driver's lines (test_hosted_driver)
    assert f"note: the referee at {addr} went away" in out and "waiting up to 60 s for it to come back" in out, out
    assert f"note: the referee at {addr} is back; playing on" in out and "Traceback" not in out, out
    assert "abandoned" not in out, out
    assert [r["match_id"] for r in _records(second, "match_started")] == ["hl-m00002-2", "hl-m00003"]
    assert all(r["status"] == "complete" for r in _records(second, "match_ended"))
    _counted_once(tmp_path, 3)
    _verified(f)
    assert (tmp_path / "logs" / "hl" / "hl-m00002.jsonl").exists()


def test_without_reconnect_a_ladder_stops_with_the_command_that_continues_it(hosted_ladder, tmp_path: Path) -> None:
    addr, serve, oplog, again, f, token_file = hosted_ladder
    lad = _ladder_on(tmp_path, f, addr, token_file, 2, 0)
    try:
        _stop_referee_during_match(1, oplog, serve)
        assert lad.p.wait(60) == 1, lad.text()
    finally:
        lad.close()
    out = " ".join(lad.text().split())
    assert f"the referee at {addr} went away" in out and "Traceback" not in out and ADMIN not in out, out
    assert "match 1 is played again when the ladder starts again" in out, out
    command = f"referee ladder {f} --referee {addr} --referee-admin-token-file {token_file}"  # its path, not the token
    # the ladder's own admin token was in REFEREE_ADMIN_TOKEN: the command says it needs it set again
    assert f"once the referee is back, continue it with `{command}` (with REFEREE_ADMIN_TOKEN set)" in out, out
    _verified(f)  # the lost match is still scheduled: nothing of it was recorded
    st = _cli("ladder", "status", "--config", str(f))
    assert f"not running; continue it with `{command}` (with REFEREE_ADMIN_TOKEN set)" in st.stdout, \
        st.stdout + st.stderr
    again(tmp_path / "serve2.jsonl")
    r = _cli(*command.split()[1:], "--max-matches", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "match 1 (" in r.stdout and "was interrupted: playing it again" in r.stdout, r.stdout
    _counted_once(tmp_path, 1)
    _verified(f)


def test_ctrl_c_while_a_ladder_waits_for_its_referee_stops_it_at_once(hosted_ladder, tmp_path: Path) -> None:
    addr, serve, oplog, _, f, token_file = hosted_ladder
    lad = _ladder_on(tmp_path, f, addr, token_file, 2, 600)
    try:
        _stop_referee_during_match(1, oplog, serve)
        lad.wait("waiting up to 600 s for it to come back")
        for args in (("ladder", "status", "--config", str(f)), ("tournament", "status", "hl", "--db",
                                                                  str(tmp_path / "ladder.sqlite"))):
            st = _cli(*args)  # the database says it waits, since when and until when
            m = re.search(rf"\n  waiting for the referee at {re.escape(addr)} since (\d\d:\d\d:\d\d) "
                          r"\(gives up at (\d\d:\d\d:\d\d)\)\n", st.stdout)
            assert st.returncode == 0 and m and "status running" in st.stdout, st.stdout + st.stderr
            since, until = (datetime.strptime(t, "%H:%M:%S") for t in m.groups())
            assert (until - since).total_seconds() % 86400 == 600, m.group(0)
        waiting = json.loads(_cli("ladder", "status", "--config", str(f), "--json").stdout)["waiting"]
        assert waiting["what"] == f"the referee at {addr}" and waiting["until"] - waiting["since"] == 600, waiting
        # the running ladder says it too (LadderStatus)
        live = subprocess.run([sys.executable, "-m", "referee.cli", "ladder", "status", "--referee", lad.addr],
                              cwd=ROOT, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "REFEREE_ADMIN_TOKEN": LADDER_ADMIN})
        assert re.search(rf"\n  waiting for the referee at {re.escape(addr)} since \d\d:\d\d:\d\d "
                         r"\(gives up at \d\d:\d\d:\d\d\)\n", live.stdout), live.stdout + live.stderr
        live = subprocess.run([sys.executable, "-m", "referee.cli", "ladder", "status", "--referee", lad.addr,
                               "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "REFEREE_ADMIN_TOKEN": LADDER_ADMIN})
        d = json.loads(live.stdout)
        assert d["waiting_for"] == f"the referee at {addr}" and d["waiting_until"] - d["waiting_since"] == 600, d
        assert lad.stop(signal.SIGINT, timeout=20) == 0  # not the file's drain_ms (30 s): nothing can finish
    finally:
        lad.close()
    out = lad.text()
    assert f"stopping while waiting for the referee at {addr}: match 1 is played again when the ladder " \
           "starts again" in out and "ladder stopped" in out and "Traceback" not in out, out
    _verified(f)
    st = _cli("ladder", "status", "--config", str(f))
    command = f"referee ladder {f} --referee {addr} --referee-admin-token-file {token_file}"
    assert f"not running; continue it with `{command}`" in st.stdout and ADMIN not in st.stdout, st.stdout
    assert "waiting" not in st.stdout, st.stdout  # the wait ended with the ladder


def test_the_referee_options_of_a_printed_command(tmp_path: Path) -> None:
    assert referee_flags(None, str(tmp_path / "ca.pem"), str(tmp_path)) == ""
    assert referee_flags("h:1", None) == " --referee h:1"
    assert referee_flags("h:1", tmp_path / "tls" / "ca.pem", str(tmp_path)) == " --referee h:1 --tls-ca tls/ca.pem"
    elsewhere = tmp_path / "my certs" / "ca.pem"  # not under `here`: the absolute path, quoted for the shell
    assert referee_flags("h:1", elsewhere, str(tmp_path / "run")) == f" --referee h:1 --tls-ca '{elsewhere}'"
    token = tmp_path / "adm.token"
    assert referee_flags("h:1", None, str(tmp_path), token) == " --referee h:1 --admin-token-file adm.token"
    assert referee_flags(None, None, None, tmp_path / "adm.token") == ""  # the token file goes with --referee
    # a stored tournament's and a stored ladder's: the admin token files, by the option each command has
    stored = {"referee": "h:1", "tls_ca": "", "admin_token_file": str(tmp_path / "adm.token")}
    assert stored_flags(stored, str(tmp_path)) == " --referee h:1 --admin-token-file adm.token"
    ladder = {**stored, "schedule": "ladder", "referee_admin_token_file": str(tmp_path / "ref.token")}
    assert stored_flags(ladder, str(tmp_path)) == (" --admin-token-file adm.token --referee h:1 "
                                                   "--referee-admin-token-file ref.token")
    assert stored_flags({"schedule": "ladder", "admin_token_file": str(tmp_path / "a b")}) == \
        f" --admin-token-file '{tmp_path / 'a b'}'"
    assert stored_flags({"referee": "", "admin_token_file": str(tmp_path / "adm.token")}) == ""


def test_a_ladder_whose_referee_does_not_answer_at_start_fails_at_once(tmp_path: Path) -> None:
    """No referee on that port when the ladder starts: an error at once (exit 2), as `tournament run
    --referee` gives, and nothing recorded; never a match abandoned after another."""
    import socket

    with socket.socket() as s:  # a port nobody listens on (bound, then closed)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    f = tmp_path / "down.toml"
    bots = "".join(f'[[bots]]\nname = "r{i}"\ncommand = "python sample_bots/random_bot.py --seed {i}"\n'
                   for i in range(3))
    f.write_text(f'name = "down"\ngame = "doudizhu"\nplayers = 3\ndatabase = "{tmp_path / "l.sqlite"}"\n{bots}')
    token_file = tmp_path / "referee.token"
    token_file.write_text(ADMIN)
    r = _cli("ladder", str(f), "--referee", f"127.0.0.1:{port}", "--referee-admin-token-file", str(token_file),
             "--reconnect", "3", "--max-matches", "3")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert f"no referee answers at 127.0.0.1:{port}" in r.stderr and "abandoned" not in r.stdout, r.stdout + r.stderr
    assert not (tmp_path / "l.sqlite").exists()
