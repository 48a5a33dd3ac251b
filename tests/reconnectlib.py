"""The ``--reconnect SECONDS`` and stderr scenarios every sample bot (Python,
Node, C++) must pass, for tests/test_bot_reconnect.py, tests/test_node_bot.py
and tests/test_cpp_bot.py: a bot connected on its own comes back to a referee
that restarted on the same address, and plays there; without the option it
exits as before; a refusal a new connection cannot cure (a bad token) is
never retried; Ctrl-C while it waits to reconnect exits 130 quietly; a
negative value is a usage error. On stderr, a bot run by hand says it is
connected and waiting, a launched one does not; a reply to a match that has
ended is reported as such, other rejections with single spaces.

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

from cardgames.v1 import referee_pb2 as pb
from conftest import ROOT, aio_bot, run, stop_process
from referee.bots import BotProcess
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


def connected_line(port: int) -> str:
    """What ``rb`` run by hand says on stderr once the referee on 127.0.0.1:PORT welcomed it."""
    return f"rb: connected to 127.0.0.1:{port}; waiting for matches"


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
    ports: list[int] = []

    async def body() -> None:
        first = await _start(tmp_path / "first")
        ports.append(first.port)
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
    lines = text.splitlines()
    assert lines[0] == connected_line(ports[0]) and text.count("waiting for matches") == 1, text
    assert "rb: lost the referee at 127.0.0.1:" in text, text
    assert ("Goodbye: referee shutting down" in text) == goodbye, text
    assert f"rb: reconnected to 127.0.0.1:{ports[0]}" in lines, text
    assert TOKEN not in text


def exits_without_reconnect_and_never_retries_a_bad_token(bot_argv: list[str], tmp_path: Path) -> None:
    """Without the option the bot exits 0 after the referee's Goodbye, as
    before; with ``--reconnect 1`` it gives up (exit 1) when nobody answers on
    the port for 1 s; a bad token is refused at once, never retried."""
    ports: list[int] = []

    async def body() -> None:
        ref = await _start(tmp_path / "ref")
        ports.append(ref.port)
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
    assert "UNAUTHENTICATED" in bad and "reconnect" not in bad and "connected to" not in bad, bad
    assert (tmp_path / "plain.err").read_text() == connected_line(ports[0]) + "\n"
    brief = (tmp_path / "brief.err").read_text()
    assert brief.startswith(connected_line(ports[0]) + "\n"), brief
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


def reports_its_connection_and_rejections_on_stderr(bot_argv: list[str], tmp_path: Path) -> None:
    """Run by hand, the bot says ``NAME: connected to ADDR; waiting for
    matches`` once welcomed. The referee then sends it a request of a match
    the connection does not sit in, as after a match ended under a reply on
    its way: the bot's reply is refused (``unknown_request``, no
    ``match_id``), which the bot reports as a reply that came after its
    match ended; an ``ActionResult`` without a rule is printed with single
    spaces. The referee's Goodbye ends the bot (exit 0): three lines in all."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    err = tmp_path / "bot.err"
    ports: list[int] = []

    async def body() -> None:
        ref = await _start(tmp_path / "ref")
        ports.append(ref.port)
        bot = None
        try:
            bot = _bot(bot_argv, ref.port, err)
            await _until(lambda: "waiting for matches" in err.read_text(), "the bot's connected line")
            (conn,) = [c for c in ref.connections if c.token == TOKEN and not c.closed.is_set()]
            pass_action = pb.Action(kind=pb.ACTION_KIND_PASS)
            conn.post(pb.RefereeMessage(decision_request=pb.DecisionRequest(
                match_id="ended-match", request_id=4242, kind=pb.DECISION_KIND_PLAY, legal_actions=[pass_action],
                legal_actions_complete=True, time_left_ms=1000)))
            await _until(lambda: "4242" in err.read_text(), "the bot's line about its late reply")
            conn.post(pb.RefereeMessage(action_result=pb.ActionResult(
                match_id="some-match", request_id=7, accepted=False, fault="timeout",
                message="no answer within 1000 ms", applied=pass_action)))
            await _until(lambda: "request 7" in err.read_text(), "the bot's rejection line")
            await ref.stop(0.2)  # Goodbye "referee shutting down"
            assert await _exit_code(bot) == 0
        finally:
            if bot is not None:
                stop_process(bot)
            await ref.stop(0.2)

    run(body())
    assert err.read_text().splitlines() == [
        connected_line(ports[0]),
        "rb: reply to request 4242 came after its match ended; the referee ignored it",
        "rb: request 7 rejected: timeout no answer within 1000 ms",
    ]


def says_nothing_on_connecting_when_launched(bot_argv: list[str], tmp_path: Path) -> None:
    """Launched by the referee (token on ``REFEREE_TOKEN_FD``, stderr to a
    file the referee keeps), the bot does not announce its connection: after
    a connection and the referee's Goodbye its stderr is empty."""
    launched: list[BotProcess] = []

    async def body() -> None:
        ref = Referee(tmp_path / "ref")
        await ref.start("127.0.0.1", 0)
        token = ref.new_token("rb")
        try:
            bot = BotProcess(" ".join(bot_argv), "launched", f"127.0.0.1:{ref.port}", token, tmp_path / "logs",
                             cwd_for_relative=ROOT)
            launched.append(bot)
            bot.start()
            await _until(lambda: any(c.token == token for c in ref.connections), "the launched bot to connect")
            await ref.stop(0.2)  # Goodbye: the bot exits 0
            await _until(lambda: bot.poll() is not None, "the launched bot to exit")
            assert bot.poll() == 0, bot.tail_stderr()
        finally:
            for bot in launched:
                bot.stop()
            await ref.stop(0.2)

    run(body())
    assert launched[0].stderr_path.read_text() == ""
