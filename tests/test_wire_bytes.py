"""The bytes a seat receives are the plain protobuf encoding of plain messages,
and the same as recorded in tests/wire_bytes.json.

Seeded random matches of every game and player count run through
:func:`referee.runner.run_match` with in-process links that turn every
message into the bytes gRPC writes (the service's serializer) and answer
with a random legal action, now and then an illegal or unreadable one (so
``ActionResult`` messages and fallbacks are sent too), some seats bundling
their events, one seat disconnecting in some matches. Per match the
fixture holds the SHA-256 of every seat's messages in their canonical
encoding (``SerializeToString(deterministic=True)``) and of the events sent
one by one as received.

``python tests/test_wire_bytes.py --record`` writes the fixture anew from the
code as it is: only for a deliberate change of what seats are sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardgames.v1 import referee_pb2 as pb  # noqa: E402
from referee.runner import BasicSeatLink, MatchSpec, run_match  # noqa: E402
from referee.service import _serialize_referee_message  # noqa: E402

FIXTURE = Path(__file__).with_name("wire_bytes.json")
#: game -> match parameters (short matches)
PARAMS = {"doudizhu": {"rounds": 1}, "tractor": {"max_rounds": 1}, "smear": {"max_rounds": 2},
          "president": {"max_rounds": 1}, "back_alley": {"last_round": 2}}
#: (game, players) of every match recorded
CONFIGS = [("doudizhu", 3), ("doudizhu", 4), ("tractor", 4), ("smear", 2), ("smear", 3), ("president", 4),
           ("president", 5), ("president", 7), ("back_alley", 4)]
SEEDS = range(5)


class WireLink(BasicSeatLink):
    """Records the bytes of every message it is sent, as gRPC would write them;
    answers at once (1 ms) with a random legal action, or now and then an
    illegal or unreadable one; ``drop_at``: the request at which it disconnects."""

    def __init__(self, seat: int, seed: int, bundle: bool, drop_at: int | None):
        self.name = f"wire{seat}"
        self.connected = True
        self.bundle_events = bundle
        self.rng = random.Random(seed * 100 + seat)
        self.drop_at = drop_at
        self.asked = 0
        self.received: list[bytes] = []

    async def send(self, msg: pb.RefereeMessage) -> None:
        self.received.append(_serialize_referee_message(msg))

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply | None, float]:
        self.asked += 1
        msg.decision_request.request_id = self.asked
        self.received.append(_serialize_referee_message(msg))
        if self.asked == self.drop_at:
            self.connected = False
            return None, 0.0
        return self.reply(pb.RefereeMessage.FromString(self.received[-1]).decision_request), 1.0

    def reply(self, req: pb.DecisionRequest) -> pb.ActionReply:
        roll = self.rng.random()
        if roll < 0.03:  # a card that cannot be held five times: illegal
            action = pb.Action(kind=pb.ACTION_KIND_PLAY, cards=["2C"] * 5)
        elif roll < 0.05:  # not a card code: unreadable
            action = pb.Action(kind=pb.ACTION_KIND_PLAY, cards=["ZZ"])
        else:
            action = self.rng.choice(list(req.legal_actions))
        return pb.ActionReply(match_id=req.match_id, request_id=req.request_id, action=action)


def play(game: str, players: int, seed: int, link: type[WireLink] = WireLink) -> list[WireLink]:
    """One recorded match; its links, in seat order."""
    spec = MatchSpec(game=game, players=players, seed=seed, seat_names=[f"wire{s}" for s in range(players)],
                     params=PARAMS[game], match_id=f"{game}-{players}-{seed}")
    links = [link(s, seed, bundle=(s + seed) % 2 == 0, drop_at=5 if seed % 4 == 3 and s == 1 else None)
             for s in range(players)]
    asyncio.run(run_match(spec, links, None))
    return links


def digests(links: list[WireLink]) -> dict[str, str]:
    """SHA-256 of every seat's messages in canonical encoding, and of the events sent one by one."""
    every, events = hashlib.sha256(), hashlib.sha256()
    for s, link in enumerate(links):
        for raw in link.received:
            canonical = pb.RefereeMessage.FromString(raw).SerializeToString(deterministic=True)
            every.update(b"%d:%d:" % (s, len(canonical)) + canonical)
            if raw.startswith(_EVENT_KEY):
                events.update(b"%d:%d:" % (s, len(raw)) + raw)
    return {"messages": every.hexdigest(), "events": events.hexdigest()}


#: the key of RefereeMessage.event (field 3, length-delimited): how an event's encoding starts
_EVENT_KEY = bytes([pb.RefereeMessage.DESCRIPTOR.fields_by_name["event"].number << 3 | 2])


def record() -> dict[str, dict[str, str]]:
    return {f"{g}-{n}-{seed}": digests(play(g, n, seed)) for g, n in CONFIGS for seed in SEEDS}


@pytest.mark.parametrize("game,players", CONFIGS, ids=[f"{g}-{n}p" for g, n in CONFIGS])
def test_seats_receive_the_recorded_bytes_in_plain_encoding(game: str, players: int) -> None:
    want = json.loads(FIXTURE.read_text())
    kinds: set[str] = set()
    for seed in SEEDS:
        links = play(game, players, seed)
        for link in links:
            for raw in link.received:
                msg = pb.RefereeMessage.FromString(raw)
                kinds.add(msg.WhichOneof("msg"))
                if msg.WhichOneof("msg") in ("decision_request", "event"):
                    # what a seat gets is the plain encoding of the message: nothing hand-made
                    assert raw == msg.SerializeToString() == msg.SerializeToString(deterministic=True)
        assert digests(links) == want[f"{game}-{players}-{seed}"], f"{game} {players} players, seed {seed}"
    assert {"match_started", "event", "decision_request", "action_result", "match_ended"} <= kinds


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    FIXTURE.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE}")
