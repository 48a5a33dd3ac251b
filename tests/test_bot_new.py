"""``referee bot new``: the skeletons it writes, and that they play real matches.

The end-to-end cases run ``referee bot new`` then ``referee match doudizhu``
as subprocesses over loopback gRPC. The Node cases are skipped only when
``node`` is not installed; they share one generated folder in which
``npm install`` runs once, as its README tells a user to (npm registry or a
warm npm cache needed). The Node skeleton's ``--reconnect SECONDS`` goes
through the scenarios of tests/reconnectlib.py, as the sample bots do.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from conftest import shared_dir
from reconnectlib import (a_negative_value_is_a_usage_error, comes_back_to_a_restarted_referee_and_plays,
                          ctrl_c_while_reconnecting_exits_130, exits_without_reconnect_and_never_retries_a_bad_token,
                          reports_its_connection_and_rejections_on_stderr)
from referee.botnew import new_bot

REPO = Path(__file__).resolve().parent.parent
RANDOM_BOT = "python sample_bots/random_bot.py"
GAME = "doudizhu"


def referee_cmd() -> list[str]:
    """argv prefix running the ``referee`` CLI of this interpreter's environment."""
    script = Path(sys.executable).parent / "referee"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from referee.cli import app; sys.argv[0] = 'referee'; app()"]


def run_referee(args: list[str], cwd: Path = REPO, timeout: float = 300, env: dict | None = None
                ) -> subprocess.CompletedProcess:
    return subprocess.run(referee_cmd() + args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def play_seat0(bot_cmd: str, log_dir: Path) -> dict:
    """Play a 2-round Dou Dizhu match: ``bot_cmd`` in seat 0 against two random bots; the ``--json`` result."""
    r = run_referee(["match", GAME, "--param", "rounds=2", "--seed", "3", "--json", "--log-dir", str(log_dir),
                     "--bot", bot_cmd, "--bot", f"{RANDOM_BOT} --seed 1", "--bot", f"{RANDOM_BOT} --seed 2"])
    assert r.returncode == 0, f"referee match failed:\n{r.stdout}\n{r.stderr}"
    return json.loads(r.stdout)


# ----------------------------------------------------------------------------- files written
def test_python_skeleton_files(tmp_path: Path) -> None:
    written = new_bot("alpha", "python", tmp_path)
    assert [p.name for p in written] == ["bot.py", "README.md"]
    bot = (tmp_path / "alpha" / "bot.py").read_text()
    assert "__" + "BOT_NAME__" not in bot and 'BOT_NAME = "alpha"' in bot
    assert "sample_bots" not in bot.split('"""', 2)[2], "the skeleton must be self-contained"
    assert "from cardgames.v1 import referee_pb2" in bot
    assert os.access(tmp_path / "alpha" / "bot.py", os.X_OK)
    readme = (tmp_path / "alpha" / "README.md").read_text()
    assert "referee match doudizhu" in readme and "alpha/bot.py" in readme
    compile(bot, "bot.py", "exec")


def test_node_skeleton_files_point_at_the_protos(tmp_path: Path) -> None:
    written = new_bot("beta", "node", tmp_path)
    assert [p.name for p in written] == ["bot.js", "package.json", "README.md"]
    js = (tmp_path / "beta" / "bot.js").read_text()
    protos = (REPO / "protos").resolve()
    assert f'const DEFAULT_PROTOS = {json.dumps(str(protos))};' in js
    assert "process.env.REFEREE_PROTOS" in js
    # one file: sample_bots/node/botlib.js pasted in (no require of it, no placeholder left), below the strategy
    assert "__BOTLIB__" not in js and "botlib" not in js.replace("sample_bots/node/botlib.js", "")
    assert "module.exports" not in js and js.count("'use strict';") == 1
    assert js.index("function choose(") < js.index("function connectAndPlay(") < js.index("\nmain();")
    pkg = json.loads((tmp_path / "beta" / "package.json").read_text())
    assert pkg["name"] == "beta" and set(pkg["dependencies"]) == {"@grpc/grpc-js", "@grpc/proto-loader"}
    assert "npm install" in (tmp_path / "beta" / "README.md").read_text()
    if shutil.which("node"):
        r = subprocess.run(["node", "--check", str(tmp_path / "beta" / "bot.js")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_refuses_an_existing_folder(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep me")
    r = run_referee(["bot", "new", "taken", "--dir", str(tmp_path)])
    assert r.returncode == 1
    assert "already exists" in r.stderr
    assert sorted(p.name for p in (tmp_path / "taken").iterdir()) == ["mine.txt"]
    assert (tmp_path / "taken" / "mine.txt").read_text() == "keep me"
    with pytest.raises(FileExistsError):
        new_bot("taken", "node", tmp_path)


@pytest.mark.parametrize("name", ["", "../escape", ".hidden", "-x", "a b", "x" * 65])
def test_rejects_bad_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="bad bot name"):
        new_bot(name, "python", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_rejects_unknown_language(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown language"):
        new_bot("gamma", "cobol", tmp_path)
    r = run_referee(["bot", "new", "gamma", "--lang", "cobol", "--dir", str(tmp_path)])
    assert r.returncode != 0
    assert not (tmp_path / "gamma").exists()


def test_node_needs_findable_protos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFEREE_PROTOS", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="REFEREE_PROTOS"):
        new_bot("delta", "node", tmp_path)
    assert not (tmp_path / "delta").exists()
    monkeypatch.setenv("REFEREE_PROTOS", str(REPO / "protos"))
    new_bot("delta", "node", tmp_path)
    assert json.dumps(str((REPO / "protos").resolve())) in (tmp_path / "delta" / "bot.js").read_text()


def test_cli_creates_missing_parent_and_prints_next_steps(tmp_path: Path) -> None:
    parent = tmp_path / "a" / "b"
    r = run_referee(["bot", "new", "epsilon", "--dir", str(parent)])
    assert r.returncode == 0, r.stderr
    assert (parent / "epsilon" / "bot.py").is_file()
    assert "referee match doudizhu" in r.stdout and "epsilon/bot.py" in r.stdout


# ----------------------------------------------------------------------------- real matches
# (the bots are written to a directory every uid can read, as a user's would be: bots run under their own uid)
def test_python_skeleton_finishes_a_real_match(shared_tmp: Path) -> None:
    """Launched, it plays without a fault and says nothing on stderr; run by hand, it
    says it is connected and reports rejections as the sample bots do."""
    tmp_path = shared_tmp
    r = run_referee(["bot", "new", "pyskel", "--lang", "python", "--dir", str(tmp_path)])
    assert r.returncode == 0, r.stderr
    out = play_seat0(f"python {tmp_path / 'pyskel' / 'bot.py'} --seed 5", tmp_path / "logs")
    assert out["status"] == "complete"
    assert [f for f in out["faults"] if f["seat"] == 0] == []
    assert next((tmp_path / "logs").glob("*.seat0.stderr")).read_text() == ""
    reports_its_connection_and_rejections_on_stderr([sys.executable, str(tmp_path / "pyskel" / "bot.py")],
                                                    tmp_path / "by-hand")


def test_python_skeleton_relative_path_from_its_folder(shared_tmp: Path) -> None:
    """Exactly the README's command: `referee match ... --bot "python NAME/bot.py"` run where NAME/ was made."""
    tmp_path = shared_tmp
    r = run_referee(["bot", "new", "relbot"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    opp = f"python {REPO / 'sample_bots' / 'random_bot.py'}"
    m = run_referee(["match", GAME, "--param", "rounds=1", "--json", "--log-dir", str(tmp_path / "logs"),
                     "--bot", "python relbot/bot.py", "--bot", opp, "--bot", opp], cwd=tmp_path)
    assert m.returncode == 0, f"{m.stdout}\n{m.stderr}"
    out = json.loads(m.stdout)
    assert out["status"] == "complete" and [f for f in out["faults"] if f["seat"] == 0] == []


@pytest.fixture(scope="module")
def node_skeleton() -> Iterator[Path]:
    """The folder of a Node skeleton ``jsskel`` made by ``referee bot new`` in a
    directory every uid can read, after ``npm install`` in it as its README says."""
    if shutil.which("node") is None:
        pytest.skip("node not installed: the Node.js skeleton tests need Node.js >= 18 on PATH")
    npm = shutil.which("npm")
    assert npm, "node is installed but npm is not"
    tmp_path = shared_dir()
    try:
        r = run_referee(["bot", "new", "jsskel", "--lang", "node", "--dir", str(tmp_path)])
        assert r.returncode == 0, r.stderr
        folder = tmp_path / "jsskel"
        inst = subprocess.run([npm, "install", "--prefer-offline", "--no-audit", "--no-fund"], cwd=folder,
                              capture_output=True, text=True, timeout=600)
        assert inst.returncode == 0, f"npm install failed:\n{inst.stdout}\n{inst.stderr}"
        yield folder
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def test_node_skeleton_finishes_a_real_match(node_skeleton: Path, shared_tmp: Path) -> None:
    folder = node_skeleton
    tmp_path = shared_tmp
    out = play_seat0(f"node {folder / 'bot.js'} --seed 5", tmp_path / "logs")
    assert out["status"] == "complete"
    assert [f for f in out["faults"] if f["seat"] == 0] == []
    assert next((tmp_path / "logs").glob("*.seat0.stderr")).read_text() == ""  # launched: nothing to say
    # run by hand: says it is connected, reports rejections as the sample bots do
    reports_its_connection_and_rejections_on_stderr(["node", str(folder / "bot.js")], tmp_path / "by-hand")
    # nothing listening: UNAVAILABLE, without the empty "Resolution note: " grpc-js appends
    r = subprocess.run(["node", str(folder / "bot.js"), "--referee", "127.0.0.1:1", "--token", "t"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "jsskel: connection ended: UNAVAILABLE: " in r.stderr, r.stderr
    assert "Resolution note" not in r.stderr and not r.stderr.rstrip("\n").endswith(" "), r.stderr


# ----------------------------------------------------------------------------- --reconnect (Node skeleton)
# The Python skeleton runs sample_bots/botlib.py's code, tested in tests/test_bot_reconnect.py;
# the Node skeleton runs sample_bots/node/botlib.js's code pasted into its one file: the same scenarios.
@pytest.mark.parametrize("goodbye", [True, False], ids=["goodbye", "dropped"])
def test_node_skeleton_comes_back_to_a_restarted_referee_and_plays(node_skeleton: Path, tmp_path: Path,
                                                                   goodbye: bool) -> None:
    comes_back_to_a_restarted_referee_and_plays(["node", str(node_skeleton / "bot.js")], tmp_path, goodbye)


def test_node_skeleton_without_reconnect_exits_and_never_retries_a_bad_token(node_skeleton: Path,
                                                                             tmp_path: Path) -> None:
    exits_without_reconnect_and_never_retries_a_bad_token(["node", str(node_skeleton / "bot.js")], tmp_path)


def test_node_skeleton_ctrl_c_while_reconnecting_exits_130(node_skeleton: Path, tmp_path: Path) -> None:
    ctrl_c_while_reconnecting_exits_130(["node", str(node_skeleton / "bot.js")], tmp_path)


def test_node_skeleton_rejects_a_negative_reconnect(node_skeleton: Path) -> None:
    a_negative_value_is_a_usage_error(["node", str(node_skeleton / "bot.js")])


def test_node_skeleton_reports_an_unreadable_tls_ca_without_a_stack_trace(node_skeleton: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-ca.pem"
    r = subprocess.run(["node", str(node_skeleton / "bot.js"), "--referee", "127.0.0.1:1", "--token", "t",
                        "--tls-ca", str(missing)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"jsskel: cannot read --tls-ca file {missing} (ENOENT"), r.stderr
    assert "    at " not in r.stderr  # no stack trace
