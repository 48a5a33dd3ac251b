"""The ``--reconnect SECONDS`` scenarios every sample bot (Python, Node, C++)
must pass, for tests/test_bot_reconnect.py, tests/test_node_bot.py and
tests/test_cpp_bot.py: a bot connected on its own comes back to a referee
that restarted on the same address, and plays there; without the option it
exits as before; a refusal a new connection cannot cure (a bad token) is
never retried; Ctrl-C while it waits to reconnect exits 130 quietly; a
negative value is a usage error.

Real processes and real gRPC on loopback: an in-process Referee on
127.0.0.1 (port 0, then the same port again) and the bot as a child process
(``--name rb``, token in ``REFEREE_TOKEN``). ``bot_argv`` is the bot's
command line before its options, e.g. ``["node", "sample_bots/node/bot.js"]``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable

from conftest import ROOT, aio_bot, run, stop_process
from referee.runner import MatchSpec
from referee.service import Referee

TOKEN = "reconnect-test-secret"


def _bot(bot_argv: list[str], port: int, stderr: Path, *extra: str, token: str = TOKEN) -> subprocess.Popen:
    """The bot connecting to 127.0.0.1:PORT on its own as ``rb``, stderr to a file."""
    with open(stderr, "wb") as err:
        return subprocess.Popen([*bot_argv, "--referee", f"127.0.0.1:{port}", "--name", "rb", "--seed", "1",
                                 *extra], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
                                env={**os.environ, "REFEREE_TOKEN": token})


async def _until(cond: Callable[[], bool], what: str, timeout_s: float = 30) -> None:
    """Poll ``cond`` until it holds; AssertionError naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def _connected(ref: Referee) -> bool:
    return any(c.token == TOKEN and not c.closed.is_set() for c in ref.connections)


async def _start(tmp: Path, port: int = 0) -> Referee:
    """A referee on 127.0.0.1:PORT accepting TOKEN (retried for 10 s while the port is still taken)."""
    deadline = time.monotonic() + 10
    while True:
        ref = Referee(tmp)
        ref.register_token(TOKEN, "rb")
        try:
            await ref.start("127.0.0.1", port)
            return ref
        except OSError:  # "could not bind": the old server's socket may still be closing
            await ref.stop(0)
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def _exit_code(p: subprocess.Popen, timeout_s: float = 20) -> int | None:
    """``p``'s exit code once it ends, or None if it still runs after ``timeout_s``."""
    try:
        return await asyncio.to_thread(p.wait, timeout_s)
    except subprocess.TimeoutExpired:
        return None


def comes_back_to_a_restarted_referee_and_plays(bot_argv: list[str], tmp_path: Path, goodbye: bool) -> None:
    """The bot, started with ``--reconnect 60``, loses its referee - stopped
    with its Goodbye "referee shutting down" (``goodbye``), or its server gone
    under the bot without one, as a killed process would - and the same
    process connects to a new referee on the same port and plays a match."""
    err = tmp_path / "bot.err"

    async def body() -> None:
        first = await _start(tmp_path / "first")
        refs = [first]
        bot = _bot(bot_argv, first.port, err, "--reconnect", "60")
        try:
            await _until(lambda: _connected(first), "the bot to connect to the first referee")
            if not goodbye:
                await first.server.stop(0)  # the streams end without a Goodbye
            await first.stop(0.2)  # (else Goodbye "referee shutting down"), then the port is free
            second = await _start(tmp_path / "second", first.port)
            refs.append(second)
            await _until(lambda: _connected(second), "the bot to reconnect to the second referee")
            others = [second.new_token(f"o{i}") for i in range(2)]
            seats = [asyncio.create_task(aio_bot(second.port, t, name=f"o{i}")) for i, t in enumerate(others)]
            spec = MatchSpec(game="doudizhu", players=3, seed=5, seat_names=[], params={"rounds": 1},
                             match_id="after-restart")
            out = await second.play(spec, [TOKEN, *others], connect_timeout_s=30, close_after=False,
                                    close_tokens=set(others))  # as `referee serve`: the bot stays
            await asyncio.gather(*seats)
            assert out.status == "complete" and not out.faults, (out.status, out.reason, out.faults)
            assert bot.poll() is None  # the same process, still connected for the next match
            assert _connected(second)
        finally:
            stop_process(bot)
            for ref in refs:
                await ref.stop(0.2)

    run(body())
    text = err.read_text()
    assert "rb: lost the referee at 127.0.0.1:" in text, text
    assert ("Goodbye: referee shutting down" in text) == goodbye, text
    assert "rb: reconnected to 127.0.0.1:" in text, text
    assert TOKEN not in text


def exits_without_reconnect_and_never_retries_a_bad_token(bot_argv: list[str], tmp_path: Path) -> None:
    """Without the option the bot exits 0 after the referee's Goodbye, as
    before; with ``--reconnect 1`` it gives up (exit 1) when nobody answers on
    the port for 1 s; a bad token is refused at once, never retried."""
    async def body() -> None:
        ref = await _start(tmp_path / "ref")
        plain = _bot(bot_argv, ref.port, tmp_path / "plain.err")
        brief = _bot(bot_argv, ref.port, tmp_path / "brief.err", "--reconnect", "1")
        bad = _bot(bot_argv, ref.port, tmp_path / "bad.err", "--reconnect", "60", token="not-a-registered-token")
        try:
            assert await _exit_code(bad) == 1  # refused at once, not retried for 60 s
            await _until(lambda: sum(not c.closed.is_set() for c in ref.connections) == 2, "both bots to connect")
            await ref.stop(0.2)
            assert await _exit_code(plain) == 0  # today's behaviour: Goodbye, exit
            assert await _exit_code(brief) == 1  # nobody answers on the port for 1 s: gives up
        finally:
            for p in (plain, brief, bad):
                stop_process(p)
            await ref.stop(0.2)

    run(body())
    bad = (tmp_path / "bad.err").read_text()
    assert "UNAUTHENTICATED" in bad and "reconnect" not in bad, bad
    assert (tmp_path / "plain.err").read_text() == ""
    brief = (tmp_path / "brief.err").read_text()
    assert "rb: lost the referee at 127.0.0.1:" in brief, brief
    assert "rb: could not reconnect to 127.0.0.1:" in brief and "giving up" in brief, brief


def ctrl_c_while_reconnecting_exits_130(bot_argv: list[str], tmp_path: Path) -> None:
    """Ctrl-C (SIGINT) while the bot waits to reach a referee: exit status
    130, nothing on stderr after its "reconnecting" line."""
    err = tmp_path / "bot.err"

    async def body() -> None:
        ref = await _start(tmp_path / "ref")
        port = ref.port
        await ref.stop(0)  # a port nobody answers on
        bot = _bot(bot_argv, port, err, "--reconnect", "60")
        try:
            await _until(lambda: "reconnecting for up to 60 s" in err.read_text(), "the bot's reconnecting line")
            os.kill(bot.pid, signal.SIGINT)
            assert await _exit_code(bot) == 130
        finally:
            stop_process(bot)

    run(body())
    lines = err.read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rb: cannot reach the referee at 127.0.0.1:"), lines


def a_negative_value_is_a_usage_error(bot_argv: list[str]) -> None:
    """``--reconnect -1``: exit status 2, the option named on stderr, no traceback."""
    r = subprocess.run([*bot_argv, "--referee", "127.0.0.1:1", "--reconnect", "-1"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60, env={**os.environ, "REFEREE_TOKEN": TOKEN})
    assert r.returncode == 2 and "--reconnect" in r.stderr and "Traceback" not in r.stderr, (r.returncode, r.stderr)
