"""``--reconnect SECONDS`` of the Python sample bots (sample_bots/botlib.py):
a bot connected on its own comes back to a referee that restarted on the
same address, and plays there; without the option it exits as before; a
refusal a new connection cannot cure (a bad token) is never retried. Also
what they say on stderr: connected (run by hand only), rejections.

The scenarios, shared with the Node and C++ sample bots, are in
tests/reconnectlib.py; here they run ``random_bot.py`` as a child process.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from reconnectlib import (a_negative_value_is_a_usage_error, comes_back_to_a_restarted_referee_and_plays,
                          ctrl_c_while_reconnecting_exits_130, exits_without_reconnect_and_never_retries_a_bad_token,
                          reports_its_connection_and_rejections_on_stderr, says_nothing_on_connecting_when_launched)

PY_BOT = [sys.executable, "sample_bots/random_bot.py"]


@pytest.mark.parametrize("goodbye", [True, False], ids=["goodbye", "dropped"])
def test_a_bot_with_reconnect_comes_back_to_a_restarted_referee_and_plays(tmp_path: Path, goodbye: bool) -> None:
    comes_back_to_a_restarted_referee_and_plays(PY_BOT, tmp_path, goodbye)


def test_without_reconnect_the_bot_exits_and_it_never_retries_a_bad_token(tmp_path: Path) -> None:
    exits_without_reconnect_and_never_retries_a_bad_token(PY_BOT, tmp_path)


def test_ctrl_c_while_reconnecting_exits_130(tmp_path: Path) -> None:
    ctrl_c_while_reconnecting_exits_130(PY_BOT, tmp_path)


def test_rejects_a_negative_reconnect() -> None:
    a_negative_value_is_a_usage_error(PY_BOT)


def test_reports_its_connection_and_a_reply_after_its_match_ended(tmp_path: Path) -> None:
    reports_its_connection_and_rejections_on_stderr(PY_BOT, tmp_path)


def test_a_launched_bot_says_nothing_on_connecting(tmp_path: Path) -> None:
    says_nothing_on_connecting_when_launched(PY_BOT, tmp_path)
