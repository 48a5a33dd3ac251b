"""A human's seat: a protocol client of the referee, driven from a web page.

:class:`HumanSeat` connects to the match's referee like any bot (one
``RefereeService.Connect`` stream, ``Hello`` with the seat's token, events
one by one), keeps what it receives in a :class:`referee.web.seatview.SeatView`,
tells the page's event streams when it changed (:meth:`HumanSeat.wait_change`)
and sends the human's choice as the ``ActionReply`` of the pending request
(:meth:`HumanSeat.act`). The referee cannot tell it from a bot: same clocks,
same faults (a decision not answered in time is a ``timeout``, an illegal
action an ``illegal`` fault answered by an ``ActionResult`` naming the rule),
same log.

With ``auto`` on (the default), a request whose complete legal list holds a
single action is answered with it at once (Tractor asks every seat after
every card dealt whether it declares; most of those prompts allow only a pass).
"""

from __future__ import annotations

import asyncio
import time
from typing import AsyncIterator, Callable

import grpc

from cardgames.v1 import referee_pb2 as pb, referee_pb2_grpc
from referee.cards import ALL_CODES
from referee.protocol import PROTOCOL_VERSION
from referee.web.seatview import SeatView

#: the biggest legal list (a 4-player Dou Dizhu lead) is several MB
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
ACTION_KINDS = {"PASS": pb.ACTION_KIND_PASS, "BID": pb.ACTION_KIND_BID, "PLAY": pb.ACTION_KIND_PLAY,
                "DECLARE": pb.ACTION_KIND_DECLARE, "DISCARD": pb.ACTION_KIND_DISCARD,
                "EXCHANGE": pb.ACTION_KIND_EXCHANGE}
#: the most cards one action can hold (a Tractor starter's 33-card hand)
MAX_ACTION_CARDS = 60


class ActionRefused(ValueError):
    """The page's answer cannot be sent: ``status`` 400 (malformed) or 409 (that
    decision is not pending any more); the message says why, for the page."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def parse_action(body: object) -> tuple[int, pb.Action]:
    """A page's answer ``{"request_id": int, "kind": "PLAY", "cards": [codes], "amount": int}``
    as ``(request_id, Action)``. :class:`ActionRefused` (400) for anything malformed:
    an unknown kind, a card that is no card code, more than :data:`MAX_ACTION_CARDS`
    cards. An action the rules forbid is not refused here: the referee judges it."""
    if not isinstance(body, dict):
        raise ActionRefused(400, "expected a JSON object {request_id, kind, cards, amount}")
    rid, kind, cards, amount = body.get("request_id"), body.get("kind"), body.get("cards", []), body.get("amount", 0)
    if not isinstance(rid, int) or isinstance(rid, bool) or rid < 1:
        raise ActionRefused(400, "request_id must be the positive integer of the decision answered")
    if kind not in ACTION_KINDS:
        raise ActionRefused(400, f"kind must be one of {', '.join(ACTION_KINDS)}, got {kind!r}")
    if not isinstance(cards, list) or len(cards) > MAX_ACTION_CARDS:
        raise ActionRefused(400, f"cards must be a list of at most {MAX_ACTION_CARDS} card codes")
    bad = [c for c in cards if not isinstance(c, str) or c not in ALL_CODES]
    if bad:
        raise ActionRefused(400, f"not a card code: {str(bad[0])[:8]!r} (codes such as 7H, TS, BJ)")
    if not isinstance(amount, int) or isinstance(amount, bool) or not -(2**31) <= amount < 2**31:
        raise ActionRefused(400, "amount must be an integer")
    return rid, pb.Action(kind=ACTION_KINDS[kind], cards=cards, amount=amount)


class HumanSeat:
    """The seat ``seat`` of match ``match_id``, played by a person through a web page.

    ``addr``: the referee (``HOST:PORT``); ``token``: the seat's token (never
    sent to the page); ``name``: the ``Hello.bot_name``; ``key``: the secret
    of the seat's page address (checked by the web app). ``clock()``: seconds,
    monotonic (a test may fix it). :meth:`run` plays until the match ends."""

    def __init__(self, match_id: str, seat: int, name: str, token: str, key: str, addr: str, game: str,
                 clock: Callable[[], float] = time.monotonic):
        self.match_id, self.seat, self.name, self.game = match_id, seat, name, game
        self.token, self.key, self.addr = token, key, addr
        self.clock = clock
        self.view = SeatView()
        #: the page has opened its event stream at least once (the match waits for it)
        self.joined = asyncio.Event()
        self.done = False  # the stream to the referee is over (match ended, or it failed)
        self.error = ""
        self._changed = asyncio.Event()
        self._outbox: asyncio.Queue[pb.BotMessage | None] = asyncio.Queue()
        self._connected = asyncio.Event()

    # -- the page's side --------------------------------------------------------------
    def state_json(self) -> str:
        """The state the page draws, as JSON (:meth:`referee.web.seatview.SeatView.state_json`)."""
        return self.view.state_json(self.clock())

    def changed(self) -> None:
        """Wake every event stream waiting in :meth:`wait_change`."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, version: int, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for the state to move past ``version``
        (:attr:`SeatView.version`); True if it did."""
        if self.view.version != version:
            return True
        ev = self._changed
        try:
            await asyncio.wait_for(ev.wait(), timeout_s)
        except asyncio.TimeoutError:
            pass
        return self.view.version != version

    async def act(self, request_id: int, action: pb.Action) -> None:
        """Send ``action`` as the answer to pending request ``request_id``.
        :class:`ActionRefused` (409) when that decision is not pending (already
        answered, timed out, another one now) or the seat is disconnected."""
        if self.view.pending(request_id) is None:
            now = self.view.request
            why = (f"decision {request_id} is not pending any more" +
                   (f" (the pending one is {now.request_id})" if now is not None and not self.view.sent else ""))
            raise ActionRefused(409, why)
        if self.done:
            raise ActionRefused(409, "the seat is not connected to the referee any more")
        self.view.answered()
        await self._outbox.put(pb.BotMessage(action_reply=pb.ActionReply(
            match_id=self.match_id, request_id=request_id, action=action)))
        self.changed()

    @property
    def auto(self) -> bool:
        return self.view.auto

    def set_auto(self, on: bool) -> None:
        """Answer single-action decisions by themselves (``on``), or ask the human for every one."""
        self.view.auto = on
        self.view.version += 1
        self.changed()
        if on:
            self._auto_answer()

    def set_note(self, text: str) -> None:
        """A line for the page from the server (what the match waits for)."""
        if text != self.view.note:
            self.view.note = text
            self.view.version += 1
            self.changed()

    def set_replay(self, links: dict[str, str], hands: list[list[str]] | None = None) -> None:
        """The finished match's replay links for the page and, when the log could be read,
        every seat's last hand (``hands``, by seat: shown face up, the match being over)."""
        self.view.replay = links
        self.view.revealed = hands
        self.view.version += 1
        self.changed()

    # -- the referee's side -------------------------------------------------------------
    async def connected(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for the referee to accept the Hello (``Welcome``)."""
        try:
            await asyncio.wait_for(self._connected.wait(), timeout_s)
        except asyncio.TimeoutError:
            return False
        return True

    async def run(self) -> None:
        """Connect, say Hello with the seat's token, take every message of the
        match, until ``Goodbye`` or the end of the stream. Never raises for a
        connection problem: :attr:`error` says what happened."""
        channel = grpc.aio.insecure_channel(self.addr, options=CHANNEL_OPTIONS)
        await self._outbox.put(pb.BotMessage(hello=pb.Hello(
            bot_name=self.name, bot_version="web", token=self.token, protocol_version=PROTOCOL_VERSION,
            games=[self.game], max_concurrent_matches=1, bundle_events=False)))
        try:
            call = referee_pb2_grpc.RefereeServiceStub(channel).Connect(self._requests())
            async for msg in call:
                which = msg.WhichOneof("msg")
                if which == "welcome":
                    self._connected.set()
                    continue
                if which == "goodbye":
                    break
                self.view.feed(msg, self.clock())
                if which == "decision_request":
                    self._auto_answer()
                elif which == "match_ended":
                    self.close()  # done, as a bot is: the referee then ends the stream
                self.changed()
        except grpc.aio.AioRpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                self.error = f"{e.code().name}: {e.details()}"
                if self.view.ended is None:
                    self.set_note(f"the seat lost its connection to the referee ({self.error})")
        finally:
            self.done = True
            await self._outbox.put(None)
            await channel.close()
            self.changed()

    def close(self) -> None:
        """End the stream to the referee (after the match; a match being played
        goes on without the seat: a disconnect, then timeouts)."""
        self._outbox.put_nowait(None)

    async def _requests(self) -> AsyncIterator[pb.BotMessage]:
        while (m := await self._outbox.get()) is not None:
            yield m

    def _auto_answer(self) -> None:
        r = self.view.request
        if (self.auto and r is not None and not self.view.sent and r.legal_actions_complete
                and len(r.legal_actions) == 1):
            self.view.sent = True
            self.view.version += 1
            self._outbox.put_nowait(pb.BotMessage(action_reply=pb.ActionReply(
                match_id=self.match_id, request_id=r.request_id, action=r.legal_actions[0])))
