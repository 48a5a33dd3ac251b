"""Decision clocks that measure the bot, not the machine.

* :class:`StallMonitor` measures the referee's own stalls: a task on the
  event loop wakes every ``interval_ms`` and records how late it woke
  (event-loop lag: the loop was busy, blocked, or the process was not
  scheduled). A timeout whose deadline fell in a stall of the referee that
  had lasted more than ``threshold_ms`` (:meth:`StallMonitor.stall_at`) is
  the referee's fault (``harness``), not the bot's (see
  :meth:`referee.runner.MatchRunner.apply`).
* :func:`ask_on_cpu_clock` runs one decision on the CPU clock: the bot is
  charged the CPU time its process tree used while the request was open
  (from its cgroup's ``cpu.stat``, or ``/proc``), polled while it thinks,
  with a wall-clock cap of :data:`CPU_WALL_CAP` times its time so that a
  sleeping bot still times out.
"""

from __future__ import annotations

import asyncio
import collections
import time
from typing import Awaitable, Callable

#: a decision on the CPU clock may take at most this many times its time in wall-clock time
CPU_WALL_CAP = 10
#: stalls of the referee above this (ms, in total during one request) turn a timeout into ``harness``
DEFAULT_STALL_THRESHOLD_MS = 100.0


class StallMonitor:
    """Event-loop lag of this referee, as intervals of monotonic time.

    :meth:`start` on the referee's loop, :meth:`stop` at the end. Keeps the
    stalls of the last ``keep_s`` seconds (bounded). ``max_lag_ms``: the
    largest lag seen since start.
    """

    def __init__(self, interval_ms: float = 10.0, threshold_ms: float = DEFAULT_STALL_THRESHOLD_MS,
                 keep_s: float = 600.0):
        self.interval_s = interval_ms / 1000.0
        self.threshold_ms = threshold_ms
        self.keep_s = keep_s
        self.stalls: collections.deque[tuple[float, float]] = collections.deque(maxlen=100_000)
        self.max_lag_ms = 0.0
        self.last_tick = time.monotonic()
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        if self._task is None:
            self.last_tick = time.monotonic()
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def _run(self) -> None:
        slack = 0.002  # timer granularity: a lag below it is no stall
        while True:
            due = time.monotonic() + self.interval_s
            await asyncio.sleep(self.interval_s)
            now = time.monotonic()
            self.last_tick = now
            lag = now - due
            if lag > slack:
                self.stalls.append((due, now))
                self.max_lag_ms = max(self.max_lag_ms, lag * 1000.0)
                while self.stalls and self.stalls[0][1] < now - self.keep_s:
                    self.stalls.popleft()

    def stalled_ms(self, t0: float, t1: float) -> float:
        """The longest stall of the referee within [t0, t1] (monotonic
        seconds), in milliseconds, including a stall still going on (the loop
        has not woken the monitor for longer than its interval). The longest,
        not the sum: a reply that came in time is read late by at most the
        stall going on when it came, and a loaded machine's many small lags
        do not add up to a missed deadline."""
        longest = 0.0
        for a, b in reversed(self.stalls):
            if b < t0:
                break
            longest = max(longest, min(b, t1) - max(a, t0))
        ongoing_from = self.last_tick + self.interval_s
        if self._task is not None and ongoing_from < t1:
            longest = max(longest, t1 - max(ongoing_from, t0))
        return longest * 1000.0

    def stall_at(self, deadline: float, since: float) -> float:
        """How long before ``deadline`` (monotonic seconds) the referee had been
        stalled without a break, if it was stalled at the deadline; in
        milliseconds, counted from ``since`` at the earliest (the request's
        start). This is the time of the bot's that the referee lost: a reply
        that arrived in that span was read only after the deadline. A stall
        that ended before the deadline cost the bot nothing (its reply was
        read when the stall ended, still in time)."""
        lost = 0.0
        for a, b in reversed(self.stalls):
            if b < deadline:
                break
            if a < deadline:
                lost = max(lost, deadline - max(a, since))
        ongoing_from = self.last_tick + self.interval_s
        if self._task is not None and ongoing_from < deadline and time.monotonic() > deadline:
            lost = max(lost, deadline - max(ongoing_from, since))
        return max(0.0, lost) * 1000.0

    def total_stalled_ms(self, t0: float, t1: float) -> float:
        """All the stalls within [t0, t1] added up, in milliseconds."""
        return 1000.0 * sum(max(0.0, min(b, t1) - max(a, t0)) for a, b in self.stalls if b >= t0)


async def ask_on_cpu_clock(call: Callable[[float], Awaitable], budget_ms: float,
                           cpu_seconds: Callable[[], float | None],
                           on_expired: Callable[[], None] | None = None) -> tuple[object, float, float, bool]:
    """Run ``call(wall_cap_s)`` (a link's ask) with the bot charged CPU time.

    ``budget_ms``: the CPU milliseconds the decision may use (decision plus
    bank); ``cpu_seconds()``: the bot's CPU time so far. The CPU use is polled
    while the request is open; once it exceeds the budget the ask is
    cancelled (``on_expired`` first, so the link counts a later reply as
    late). Returns ``(what call returned or None, CPU ms used, wall ms,
    ran out of CPU)``.
    """
    t0 = time.monotonic()
    cpu0 = cpu_seconds() or 0.0
    task = asyncio.ensure_future(call(budget_ms * CPU_WALL_CAP / 1000.0))
    period = min(0.05, max(0.005, budget_ms / 20_000.0))
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=period)
            used = ((cpu_seconds() or cpu0) - cpu0) * 1000.0
            if done:
                return task.result(), used, (time.monotonic() - t0) * 1000.0, False
            if used > budget_ms:
                if on_expired is not None:
                    on_expired()
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
                return None, used, (time.monotonic() - t0) * 1000.0, True
    finally:
        if not task.done():
            task.cancel()
