"""`referee ladder` on a real Dask cluster (a scheduler and two worker
processes on 127.0.0.1): every match is a Dask task, the ladder process
writes the store and the logs, a bot added mid-run is rated, an external
entrant is refused, a retired persistent version's processes on the workers
are stopped, a worker killed mid-match loses nothing, and the ladder stops
with no process left; after a kill -9 of the ladder, its restart stops the
persistent processes the killed run left on the workers."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
from pathlib import Path

import pytest

from daskcluster import Cluster
from referee.runner import replay_log
from test_ladder import LadderProc, _board, _bot, _check_each_match_once, _cli, _file, _history, _no_bot_left, _pids
from tournaments.ladder import verify_history


@pytest.mark.slow
def test_a_ladder_on_a_dask_cluster_rates_an_added_bot_and_stops_cleanly(tmp_path: Path) -> None:
    (tmp_path / "cluster").mkdir()
    cluster = Cluster(tmp_path / "cluster", workers=2)
    marker, pmark, qmark = f"lad{secrets.token_hex(4)}", f"per{secrets.token_hex(4)}", f"keep{secrets.token_hex(4)}"
    lad = None
    try:
        bots = [(n, _bot("random", i, marker)) for i, n in enumerate("abcde", 1)]
        f = _file(tmp_path, "dl", bots)
        f.write_text(f.read_text().replace("concurrency = 1", "concurrency = 2")
                     + f'[[bots]]\nname = "p"\ncommand = "{_bot("random", 7, pmark)}"\npersistent = true\n'
                     + f'[[bots]]\nname = "q"\ncommand = "{_bot("random", 8, qmark)}"\npersistent = true\n')
        # the executor from the command line, as `tournament run --executor dask --scheduler ...`
        lad = LadderProc(tmp_path, f, "--executor", "dask", "--scheduler", cluster.address)
        assert f"matches on the Dask cluster at {cluster.address}" in lad.text()
        lad.wait(r"match \d+ finished \(complete\)", count=3)
        r = _cli("ladder", "add", "newbot", "--referee", lad.addr, "--command", _bot("heuristic", 9, marker))
        assert r.returncode == 0 and "added newbot@v1" in r.stdout, r.stderr
        tok = tmp_path / "ext.token"
        tok.write_text(secrets.token_hex(16))
        r = _cli("ladder", "add", "ext", "--external", "--token-file", str(tok), "--referee", lad.addr)
        assert r.returncode == 1 and "FAILED_PRECONDITION" in r.stderr and "Dask cluster" in r.stderr, r.stderr
        lad.wait(r"match \d+ finished \(complete\): .*newbot@v1")
        lad.wait(r"match \d+ finished \(complete\): .*p@v1")
        assert _pids(pmark), "the persistent bot runs on the workers between matches"
        # a second ladder process is refused, and leaves the cluster (and the persistent bots) alone
        second = _cli("ladder", str(f), "--port", "0", "--executor", "dask", "--scheduler", cluster.address)
        assert second.returncode == 1 and f"is being run by pid {lad.p.pid}" in second.stderr, second.stderr
        assert _pids(pmark)
        r = _cli("ladder", "retire", "p", "--referee", lad.addr, "--reason", "withdrawn")
        assert r.returncode == 0, r.stderr
        lad.wait(r"stopped the persistent bot of p@v1 \(retired\) on [12] Dask worker")
        assert _no_bot_left(pmark), "a retired persistent version kept its processes on the workers"
        # a worker lost mid-match: the scheduler plays its match again on the other worker, same seed
        n = len(re.findall(r"match \d+ finished", lad.text()))
        cluster.kill_worker(0)
        lad.wait(r"match \d+ finished \(complete\)", count=n + 3, timeout=180)
        assert lad.stop(signal.SIGINT) == 0
        assert "ladder stopped" in lad.text() and "abandoned" not in lad.text()
        assert _no_bot_left(marker), "a bot process outlived the ladder"
        assert _no_bot_left(pmark) and _no_bot_left(qmark)
        last_worker = _history(f)[2]
        assert last_worker[max(last_worker)].result["worker"] == "w1"  # after the kill, w1 alone

        # kill -9 of the ladder: the worker keeps q's process; the next start stops it first
        dask = ("--executor", "dask", "--scheduler", cluster.address)
        lad = LadderProc(tmp_path, f, *dask)
        n = len(re.findall(r"finished \(complete\): .*q@v1", lad.text()))
        lad.wait(r"match \d+ finished \(complete\): .*q@v1", count=n + 1)
        os.kill(lad.p.pid, signal.SIGKILL)
        lad.p.wait(10)
        lad.close()
        assert _pids(qmark), "the killed ladder's persistent bot should still run on the worker"
        lad = LadderProc(tmp_path, f, "--max-matches", "1", *dask)
        assert lad.p.wait(120) == 0, lad.text()
        assert "stopped the persistent bots a killed run left on 1 Dask worker(s)" in lad.text()
        assert _no_bot_left(qmark) and _no_bot_left(marker)
    finally:
        if lad is not None:
            lad.close()
        cluster.stop()

    spec, events, rows, versions = _history(f)
    _check_each_match_once(events, rows)
    assert verify_history(spec, events, rows) == []
    assert {r.result["worker"] for r in rows.values()} == {"w0", "w1"}  # both workers played
    logs = Path(spec.t.log_dir) / "dl"
    for r in rows.values():  # every log written here, whole, and its own match's
        assert Path(r.log_path).parent == logs
        mspec, _, result = replay_log(Path(r.log_path))
        assert mspec.seed == r.seed and result.scores == r.result["scores"]
    assert not list(logs.glob("*.part"))
    assert {v["label"]: v["state"] for v in versions}["p@v1"] == "retired"
    board = _board(f)
    assert board["newbot@v1"]["matches"] >= 1 and board["p@v1"]["matches"] >= 1
    st = _cli("ladder", "status", "--config", str(f), "--json")
    assert st.returncode == 0 and json.loads(st.stdout)["state"] == "stopped", st.stdout + st.stderr
