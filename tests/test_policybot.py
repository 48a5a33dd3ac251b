"""``referee bot from-policy``: a policy that fails is never silent (the
bot stops with one line the referee's crash fault shows, or with
``--on-error first-legal`` plays on and counts the failures), a policy that
cannot be loaded is one line and exit 2, and the command's help and usage
are the bot's own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest

from cardgames.v1 import referee_pb2 as pb
from conftest import PY, ROOT
from referee.botcommand import check_command, resolve_command
from referee.envs.table import Table
from referee.policybot import PolicyChooser, PolicyFailed

BOT = [str(Path(PY).parent / "referee"), "bot", "from-policy"]  # the console script: the user's command


def first_request() -> tuple[pb.DecisionRequest, pb.MatchStarted]:
    table = Table("smear", 3, {}, {"max_rounds": 1})
    table.reset(1)
    return table.decision_request(7), pb.MatchStarted(seats=[pb.SeatInfo(seat=s) for s in range(3)])


def masked(obs: dict) -> int:
    return int(np.flatnonzero(obs["action_mask"] == 0)[0])


def raises(error: Exception):
    def policy(obs: dict) -> int:
        raise error
    return policy


@contextmanager
def _bad_policy(message: str) -> Iterator[Path]:
    """A temporary directory holding ``badpolicy.py``, whose ``act`` raises
    ``RuntimeError(message)``; both readable by bots under uids of their own."""
    with tempfile.TemporaryDirectory() as d:
        here = Path(d)
        os.chmod(here, 0o755)
        (here / "badpolicy.py").write_text(f"def act(obs):\n    raise RuntimeError({message!r})\n")
        (here / "badpolicy.py").chmod(0o644)
        yield here


@pytest.mark.parametrize("policy,what", [
    (raises(RuntimeError("shapes (3,) and (4,)\nnot aligned")), "RuntimeError: shapes (3,) and (4,) not aligned"),
    (raises(IndexError("index 99 is out of bounds")), "IndexError: index 99 is out of bounds"),
    (raises(ValueError("bad weights")), "ValueError: bad weights"),
    (masked, "IllegalIndex: smear: seat 1: CARD 2C (index 4) is not allowed now; allowed now: PASS, BID 2, BID 3, BID 4"),
    (lambda obs: 2.7, "TypeError: an action is an integer index of the layout, not 2.7 (float)"),
], ids=["runtime", "index", "value", "masked", "float"])
def test_every_policy_failure_stops_the_bot_or_plays_the_first_legal_action_counted(policy, what: str) -> None:
    req, started = first_request()
    with pytest.raises(PolicyFailed) as e:
        PolicyChooser(policy, "mybot")(req, started)
    assert str(e.value).startswith(f"mybot: policy failed on request 7 (BID): {what}") and "\n" not in str(e.value)
    chooser = PolicyChooser(policy, "mybot", on_error="first-legal")
    assert chooser(req, started) == req.legal_actions[0]
    assert chooser(req, started) == req.legal_actions[0]
    assert chooser.summary() == "mybot: policy failed on 2 of 2 requests (answered with the first legal action)"
    assert PolicyChooser(lambda obs: 0, on_error="first-legal").summary() is None


def test_a_failing_policy_is_a_crash_fault_whose_reason_is_its_line() -> None:
    with _bad_policy('shape mismatch (3,) vs (4,)') as here:
        r = subprocess.run([PY, "-m", "referee", "match", "smear", "--rounds", "1", "--json", "--log-dir",
                            str(here / "logs"), "--bot", f"{PY} -m referee bot from-policy ./badpolicy.py:act",
                            "--bot", f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}",
                            "--bot", f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"],
                           cwd=here, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        crash = [f for f in json.loads(r.stdout)["faults"] if f["kind"] == "crash"]
        assert len(crash) == 1 and crash[0]["seat"] == 0, r.stdout
        assert re.match(r"bot exited with status 1: badpolicy: policy failed on request 1 \((BID|PLAY)\): "
                        r"RuntimeError: shape mismatch \(3,\) vs \(4,\) \(stderr: ", crash[0]["message"]), crash


@pytest.mark.parametrize("spec,line", [
    ("./badpolicy.py:nosuch", "AttributeError: module 'badpolicy' has no attribute 'nosuch'"),
    ("badpolicy:act", "ModuleNotFoundError: No module named 'badpolicy' (for the file, write ./badpolicy.py:act)"),
    ("./nofile.py:act", "ImportError: policy file './nofile.py' not found (relative paths are taken from {cwd})"),
    ("./badpolicy:act", "ImportError: policy file './badpolicy' not found (relative paths are taken from {cwd}); "
     "did you mean ./badpolicy.py:act?"),
    ("sample_bots.smear_policy:load --with weights=runs/x.npz",
     "FileNotFoundError: [Errno 2] No such file or directory: 'runs/x.npz' (relative paths are taken from the "
     "bot's working directory {cwd}: give absolute ones)"),
], ids=["function", "module", "file", "no-py", "weights"])
def test_a_policy_that_cannot_be_loaded_is_one_line_and_exit_2(tmp_path: Path, spec: str, line: str) -> None:
    (tmp_path / "badpolicy.py").write_text("def act(obs):\n    return 0\n")
    env = dict(os.environ, REFEREE_TOKEN="t")
    name, *more = spec.split()
    r = subprocess.run(BOT + [name, *more, "--referee", "127.0.0.1:1"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"referee bot from-policy: cannot load the policy {name}: {line.format(cwd=tmp_path)}\n"


def test_the_policy_spec_is_checked_first_and_help_lists_the_bots_options(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_TOKEN")}
    r = subprocess.run(BOT + ["mypolicy"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2  # one line, no usage block: under a match it is the crash reason
    assert r.stderr == ("referee bot from-policy: error: 'mypolicy' is not MODULE:FUNCTION (e.g. mypolicy.py:act "
                        "or mypackage.mod:act)\n")
    r = subprocess.run(BOT + ["mypolicy:act", "--referee", "127.0.0.1:1"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--token" not in r.stderr
    assert r.stderr.splitlines() == [("referee bot from-policy: error: no token: set the environment variable "
                                         "REFEREE_TOKEN (a bot the referee launches gets its token on the "
                                         "descriptor REFEREE_TOKEN_FD names)")]
    r = subprocess.run(BOT + ["--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("usage: referee bot from-policy ")
    for option in ("MODULE:FUNCTION", "--with KEY=VALUE", "--on-error {stop,first-legal}", "--referee", "--name"):
        assert option in r.stdout, option
    text = " ".join(r.stdout.split())  # as the docs say: --token by hand only, --with files from the match's directory
    assert "--token TOKEN token given by the operator, for a quick test by hand only" in text, text
    assert "taken from the directory the match was started from" in text and "give absolute ones" not in text, text


@pytest.mark.parametrize("spec,why", [
    ("./pol/good.py", "'./pol/good.py' is not MODULE:FUNCTION (e.g. mypolicy.py:act or mypackage.mod:act)"),
    ("--on-error first-legal pol/good.py --name x",
     "'pol/good.py' is not MODULE:FUNCTION (e.g. mypolicy.py:act or mypackage.mod:act)"),
    ("./pol/nofile.py:act", "policy file './pol/nofile.py' not found (relative paths are taken from {base})"),
    ("pol/good:act", "policy file 'pol/good' not found (relative paths are taken from {base}); "
     "did you mean pol/good.py:act?"),
    ("./pol/good.py:act --with weights=w.npz", None),
    ("mypackage.mod:act", None),  # a module: the bot's Python imports it
    ("pol/good.py:act --with mode=greedy --with weights=runs/none.npz",
     "--with weights: file 'runs/none.npz' not found (relative paths are taken from {base})"),
    ("pol/good.py:act --with=weights=./none.npz", "--with weights: file './none.npz' not found (relative paths are "
     "taken from {base})"),
    ("pol/good.py:act --with weights=pol/good.py --with dir=pol --with url=https://x/y --with lr=0.5", None),
    ("pol.good:act", "policy module 'pol.good' cannot be imported by the bot (it runs in a directory of its own); "
     "did you mean pol/good.py:act?"),
    ("pol.other:act", None),  # no pol/other.py: nothing to hint at
    ("pol/good.py:nosuch", "policy file 'pol/good.py' defines no 'nosuch' at its top level (it defines: act, "
     "load, np, weights)"),
    ("pol/good.py:load", None),
    ("pol/star.py:anything", None),  # a star import may bind it: left to the bot
    ("pol/broken.py:act", "policy file 'pol/broken.py' does not parse: invalid syntax (line 2)"),
], ids=["no-function", "after-options", "no-file", "no-py", "good", "module", "no-with-file", "with-equals",
        "with-good", "dots", "dots-no-file", "no-such-function", "function-in-try", "star-import", "syntax-error"])
def test_a_from_policy_command_is_checked_before_the_match(tmp_path: Path, spec: str, why: str | None) -> None:
    (tmp_path / "pol").mkdir()
    (tmp_path / "pol" / "good.py").write_text("import numpy as np\ntry:\n    from fast import load\nexcept ImportError:\n"
                                              "    def load(weights=None):\n        return act\nweights = None\n"
                                              "def act(obs):\n    return 0\n")
    (tmp_path / "pol" / "star.py").write_text("from numpy import *\n")
    (tmp_path / "pol" / "broken.py").write_text("def act(obs):\n    return 0 +\n")
    for prefix in (" ".join(BOT), "python -m referee bot from-policy"):
        got = check_command(f"{prefix} {spec}", tmp_path)
        assert got == (why.format(base=tmp_path.resolve()) if why else None), prefix


def test_a_dotted_module_importable_from_anywhere_is_left_to_the_bot() -> None:
    """sample_bots is installed (editable): from the checkout, its file exists too, but the bot
    imports the module wherever it runs."""
    assert (ROOT / "sample_bots" / "smear_policy.py").is_file()
    assert check_command(f"{' '.join(BOT)} sample_bots.smear_policy:load", ROOT) is None


def test_referee_match_refuses_a_bad_policy_spec_naming_it_as_typed(tmp_path: Path) -> None:
    (tmp_path / "pol").mkdir()
    (tmp_path / "pol" / "good.py").write_text("def act(obs):\n    return 0\n")
    r = subprocess.run([PY, "-m", "referee", "match", "smear", "--log-dir", str(tmp_path / "logs"),
                        "--bot", f"{PY} -m referee bot from-policy ./pol/good.py"]
                       + 2 * ["--bot", f"{PY} -m referee bot from-policy pol/good.py:act"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and not (tmp_path / "logs").exists(), r.stdout + r.stderr
    assert r.stderr.splitlines() == [f"error: --bot #1 '{PY} -m referee bot from-policy ./pol/good.py': "
                                     "'./pol/good.py' is not MODULE:FUNCTION (e.g. mypolicy.py:act or "
                                     "mypackage.mod:act)"], r.stderr


def test_referee_match_refuses_a_missing_with_file_naming_it_as_typed(tmp_path: Path) -> None:
    (tmp_path / "pol").mkdir()
    (tmp_path / "pol" / "good.py").write_text("def act(obs):\n    return 0\n")
    bot = f"{PY} -m referee bot from-policy pol/good.py:act --with weights=runs/w.npz"
    r = subprocess.run([PY, "-m", "referee", "match", "smear", "--log-dir", str(tmp_path / "logs"),
                        "--bot", bot] + 2 * ["--bot", f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and not (tmp_path / "logs").exists(), r.stdout + r.stderr
    assert r.stderr.splitlines() == [f"error: --bot #1 '{bot}': --with weights: file 'runs/w.npz' not found "
                                     f"(relative paths are taken from {tmp_path.resolve()})"], r.stderr


def test_referee_match_tells_a_crash_before_its_disconnect_and_where_a_bot_wrote_to_stderr() -> None:
    """Seat 0's policy fails on every request, played on with --on-error first-legal: no fault, but
    the path of what it wrote; seat 1's stops the bot: its crash line, then the disconnect it caused;
    seat 2 wrote nothing: not mentioned."""
    with _bad_policy('shape mismatch') as here:
        r = subprocess.run([PY, "-m", "referee", "match", "smear", "--rounds", "1", "--log-dir", str(here / "logs"),
                            "--bot", f"{PY} -m referee bot from-policy ./badpolicy.py:act --on-error first-legal",
                            "--bot", f"{PY} -m referee bot from-policy ./badpolicy.py:act",
                            "--bot", f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"],
                           cwd=here, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        lines = [ln.strip() for ln in r.stdout.splitlines() if ln.startswith("  seat ")]
        match_id = re.search(r"match (\S+):", r.stdout).group(1)
        stderr0 = here / "logs" / f"{match_id}.seat0.stderr"
        assert len(lines) == 3 and lines[0].startswith("seat 1 crash: bot exited with status 1: badpolicy: policy "
                                                       "failed on request"), r.stdout
        assert lines[1:] == ["seat 1 disconnect: bot disconnected", f"seat 0 wrote to stderr: {stderr0}"], r.stdout
        assert "; playing the first legal action" in stderr0.read_text()


def test_a_relative_with_path_is_taken_from_where_the_match_is_run(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "w.npz").write_bytes(b"")
    argv = resolve_command("python -m referee bot from-policy sample_bots.smear_policy:load --with weights=runs/w.npz "
                           "--with other=runs/none.npz", tmp_path)
    assert argv[-3:] == [f"weights={tmp_path / 'runs' / 'w.npz'}", "--with", "other=runs/none.npz"]


def test_referee_match_tells_a_policy_that_cannot_load_before_the_no_show_it_caused(tmp_path: Path) -> None:
    """The file defines the function (the set-up check passes) but fails when imported: the bot exits
    at once, its seat is a no-show, and the crash line, which says why, comes first."""
    (tmp_path / "pol").mkdir()
    (tmp_path / "pol" / "good.py").write_text("import nosuchmodule\ndef act(obs):\n    return 0\n")
    r = subprocess.run([PY, "-m", "referee", "match", "smear", "--rounds", "1", "--no-bot-uids",
                        "--log-dir", str(tmp_path / "logs"),
                        "--bot", f"{PY} -m referee bot from-policy pol/good.py:act",
                        "--bot", f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}",
                        "--bot", f"{PY} {ROOT / 'sample_bots' / 'random_bot.py'}"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    lines = [ln.strip() for ln in r.stdout.splitlines() if ln.startswith("  seat 0 ")]
    assert lines and lines[0].startswith("seat 0 crash: bot exited with status 2: referee bot from-policy: cannot "
                                         "load the policy"), r.stdout + r.stderr
    assert "No module named 'nosuchmodule'" in lines[0] and any(ln.startswith("seat 0 no_show:") for ln in lines[1:]), \
        r.stdout
