"""The referee service over real loopback gRPC with in-process bots: tokens,
versions, bad input and clocks, each with an asserted outcome."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import grpc

from cardgames.v1 import referee_pb2 as pb
from conftest import aio_bot, run, with_referee
from referee.runner import MatchSpec, replay_log
from referee.service import Referee

SPEC = dict(game="doudizhu", players=3, seat_names=["a", "b", "c"], params={"rounds": 1})


async def _match(ref: Referee, policies, seed=5, **spec_kw):
    tokens = [ref.new_token(f"bot{i}") for i in range(3)]
    spec = MatchSpec(**{**SPEC, **spec_kw}, seed=seed, match_id=f"m{seed}")
    bots = [asyncio.create_task(aio_bot(ref.port, t, p, name=f"bot{i}")) for i, (t, p) in
            enumerate(zip(tokens, policies))]
    outcome = await ref.play(spec, tokens, connect_timeout_s=5)
    got = await asyncio.gather(*bots)
    return outcome, [msgs for msgs, _code in got]


def test_connection_refusals_use_grpc_status_codes(tmp_logs: Path) -> None:
    async def body(ref: Referee):
        ref.register_token("good")
        _, bad_token = await aio_bot(ref.port, "wrong")
        _, bad_version = await aio_bot(ref.port, "good", version=2)
        _, not_hello = await aio_bot(ref.port, "good", first=pb.BotMessage(action_reply=pb.ActionReply()))
        return bad_token, bad_version, not_hello

    bad_token, bad_version, not_hello = run(with_referee(tmp_logs, body))
    assert bad_token == grpc.StatusCode.UNAUTHENTICATED
    assert bad_version == grpc.StatusCode.FAILED_PRECONDITION
    assert not_hello == grpc.StatusCode.INVALID_ARGUMENT


def test_a_token_registered_by_its_hash_is_accepted_and_learnt_only_when_presented(tmp_logs: Path) -> None:
    import pytest

    from referee.service import token_digest

    token = "t0ken-known-only-by-its-hash"

    async def body(ref: Referee):
        digest = token_digest(token)
        ref.register_token_hash(digest, "hashed")
        assert token not in ref.tokens and ref.token_for_digest(digest) is None
        with pytest.raises(ValueError):
            ref.register_token_hash("not-a-digest")
        _, wrong = await aio_bot(ref.port, token + "x")
        assert ref.token_for_digest(digest) is None  # a wrong token reveals nothing
        spec = MatchSpec(**SPEC, seed=3, match_id="m-hash")
        others = [ref.new_token(f"bot{i}") for i in range(2)]
        bots = [asyncio.create_task(aio_bot(ref.port, t, None, name=f"bot{i}"))
                for i, t in enumerate([token, *others])]
        for _ in range(200):  # the hashed bot's Hello registers its token
            if ref.token_for_digest(digest):
                break
            await asyncio.sleep(0.05)
        assert ref.token_for_digest(digest) == token
        outcome = await ref.play(spec, [token, *others], connect_timeout_s=5)
        await asyncio.gather(*bots)
        return wrong, outcome

    wrong, outcome = run(with_referee(tmp_logs, body))
    assert wrong == grpc.StatusCode.UNAUTHENTICATED
    assert outcome.status == "complete" and not outcome.faults
    assert not [f for f in tmp_logs.rglob("*") if f.is_file() and token.encode() in f.read_bytes()]


def test_silent_bot_is_refused_after_hello_timeout(tmp_logs: Path) -> None:
    async def body(ref: Referee):
        ch = grpc.aio.insecure_channel(f"127.0.0.1:{ref.port}")
        from cardgames.v1 import referee_pb2_grpc

        call = referee_pb2_grpc.RefereeServiceStub(ch).Connect()
        try:
            await call.read()
        except grpc.aio.AioRpcError as e:
            return e.code()
        finally:
            await ch.close()

    assert run(with_referee(tmp_logs, body, hello_timeout_s=0.3)) == grpc.StatusCode.DEADLINE_EXCEEDED


def test_full_match_each_seat_gets_its_own_view_and_log_replays(tmp_logs: Path) -> None:
    outcome, got = run(with_referee(tmp_logs, lambda ref: _match(ref, [None, None, None])))
    assert outcome.status == "complete" and not outcome.faults
    assert sum(outcome.result.scores) == 0
    for seat, msgs in enumerate(got):
        kinds = Counter(m.WhichOneof("msg") for m in msgs)
        assert kinds["welcome"] == 1 and kinds["match_started"] == 1 and kinds["match_ended"] == 1
        for m in msgs:
            if m.WhichOneof("msg") == "decision_request":
                assert m.decision_request.seat == seat
                assert m.decision_request.legal_actions_complete
                assert m.decision_request.time_left_ms == 1000
            if m.WhichOneof("msg") == "event" and m.event.is_private:
                assert m.event.doudizhu.WhichOneof("kind") == "deal"
    spec, events, result = replay_log(Path(outcome.log_path))
    assert result.scores == outcome.result.scores


def test_no_message_to_a_seat_names_a_card_hidden_in_another_hand(tmp_logs: Path) -> None:
    """3p Dou Dizhu has one copy of each code, so any code of another seat's
    current hand (other than the public marker) in a message is a leak."""

    sent: list[tuple[int, bytes, dict[int, set[str]], str]] = []

    # Record every message with the hands at the time it was built.
    async def body(ref: Referee):
        from referee import runner

        real_run = runner.run_match

        async def spying_run(spec, links, log_path=None, max_decisions=2_000_000, **clocks):
            class Spy(runner.BasicSeatLink):
                def __init__(self, link, seat):
                    self.link, self.seat, self.name = link, seat, link.name

                @property
                def connected(self):
                    return self.link.connected

                async def send(self, msg):
                    sent.append((self.seat, msg.SerializeToString(), None, ""))
                    await self.link.send(msg)

                async def ask(self, msg, timeout_s):
                    sent.append((self.seat, msg.SerializeToString(), None, ""))
                    return await self.link.ask(msg, timeout_s)

                def attach(self, reporter):
                    self.link.attach(reporter)

            return await real_run(spec, [Spy(l, s) for s, l in enumerate(links)], log_path, max_decisions, **clocks)

        from referee import service

        service.run_match = spying_run
        try:
            return await _match(ref, [None, None, None], seed=11)
        finally:
            service.run_match = real_run

    outcome, _ = run(with_referee(tmp_logs, body))
    assert outcome.status == "complete"
    # Rebuild each seat's hand over time from the full log and check every message.
    import json

    lines = [json.loads(x) for x in Path(outcome.log_path).read_text().splitlines()]
    deal = {ln["to"]: set(ln["event"]["deal"]["hand"]) for ln in lines
            if ln["type"] == "event" and ln["to"] is not None and "deal" in ln["event"]}
    marker = next(ln["event"]["round_start"]["marker"] for ln in lines
                  if ln["type"] == "event" and "round_start" in ln["event"])
    kitty = next((set(ln["event"]["auction_end"].get("kitty", [])) for ln in lines
                  if ln["type"] == "event" and "auction_end" in ln["event"]), set())
    # A card is hidden from seat s if it was dealt to another seat (kitty and marker are public).
    assert len(sent) > 50
    for seat, raw, _, _ in sent:
        hidden = set().union(*(h for s, h in deal.items() if s != seat)) - {marker}
        msg = pb.RefereeMessage.FromString(raw)
        codes = _codes_in(msg)
        played = _played_before(lines, msg)
        leaked = (codes & hidden) - played - kitty
        assert not leaked, f"seat {seat} was sent hidden cards {leaked} in {msg.WhichOneof('msg')}"


def _codes_in(msg) -> set[str]:
    """Every string anywhere in the message."""
    from referee.protocol import message_to_json

    out: set[str] = set()

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str):
            out.add(v)

    walk(message_to_json(msg))
    return out


def _played_before(lines, msg) -> set[str]:
    """Cards played publicly up to (and including) the message's event seq, or all plays if no seq."""
    limit = msg.event.seq if msg.WhichOneof("msg") == "event" else None
    out: set[str] = set()
    for ln in lines:
        if ln["type"] == "event" and ln["to"] is None and "play" in ln["event"]:
            if limit is None or ln["seq"] <= limit:
                out |= set(ln["event"]["play"].get("cards", []))
    return out


def test_illegal_actions_are_rejected_with_rule_and_match_finishes(tmp_logs: Path) -> None:
    bad = pb.Action(kind=pb.ACTION_KIND_PLAY, cards=["AS"] * 5)
    outcome, got = run(with_referee(tmp_logs, lambda ref: _match(ref, [lambda r: bad, None, None],
                                                                   max_faults=10_000)))
    assert outcome.status == "complete"
    ill = [f for f in outcome.faults if f.kind == "illegal"]
    assert ill and all(f.seat == 0 and f.rule for f in ill)
    results = [m.action_result for m in got[0] if m.WhichOneof("msg") == "action_result"]
    assert results and all(not r.accepted and r.fault == "illegal" and r.rule for r in results)
    assert all(r.applied.kind != pb.ACTION_KIND_UNSPECIFIED for r in results)
    # other seats are never told about seat 0's faults
    assert not any(m.WhichOneof("msg") == "action_result" for m in got[1] + got[2])


def test_malformed_card_code_is_an_illegal_action(tmp_logs: Path) -> None:
    junk = pb.Action(kind=pb.ACTION_KIND_PLAY, cards=["1X"])
    outcome, _ = run(with_referee(tmp_logs, lambda ref: _match(ref, [lambda r: junk, None, None], max_faults=10_000)))
    f = next(f for f in outcome.faults if f.kind == "illegal")
    assert "malformed card code" in f.message


def test_forfeit_policy_ranks_the_faulty_seat_last(tmp_logs: Path) -> None:
    bad = pb.Action(kind=pb.ACTION_KIND_BID, amount=999)
    outcome, _ = run(with_referee(tmp_logs, lambda ref: _match(ref, [lambda r: bad, None, None],
                                                                   fault_policy="forfeit")))
    assert outcome.status == "complete" and outcome.forfeited == [0]
    assert outcome.result.ranks[0] == 3
    assert [f.kind for f in outcome.faults if f.seat == 0][:2] == ["illegal", "forfeit"]


def test_unknown_request_id_is_ignored_and_recorded(tmp_logs: Path) -> None:
    def wrong_id(req):
        act = req.legal_actions[0]
        return [pb.BotMessage(action_reply=pb.ActionReply(match_id=req.match_id, request_id=req.request_id + 777,
                                                          action=act)),
                pb.BotMessage(action_reply=pb.ActionReply(match_id=req.match_id, request_id=req.request_id,
                                                          action=act))]

    outcome, got = run(with_referee(tmp_logs, lambda ref: _match(ref, [wrong_id, None, None])))
    assert outcome.status == "complete"
    kinds = Counter(f.kind for f in outcome.faults)
    assert kinds["unknown_request"] >= 1 and kinds["timeout"] == 0 and not outcome.forfeited
    assert any(m.WhichOneof("msg") == "action_result" and m.action_result.fault == "unknown_request" for m in got[0])


def test_bot_that_never_answers_times_out_and_gets_fallbacks(tmp_logs: Path) -> None:
    outcome, got = run(with_referee(tmp_logs, lambda ref: _match(ref, [lambda r: None, None, None],
                                                                   decision_ms=50, max_faults=10_000)))
    assert outcome.status == "complete"
    t = [f for f in outcome.faults if f.kind == "timeout"]
    assert t and all(f.seat == 0 and f.elapsed_ms >= 50 for f in t)
    res = [m.action_result for m in got[0] if m.WhichOneof("msg") == "action_result"]
    assert res and all(r.fault == "timeout" and r.elapsed_ms >= 50 for r in res)


def test_late_reply_is_ignored_and_reported(tmp_logs: Path) -> None:
    async def late(req):
        await asyncio.sleep(0.12)  # past the 60 ms clock
        return req.legal_actions[0]

    outcome, _ = run(with_referee(tmp_logs, lambda ref: _match(ref, [late, None, None], decision_ms=60,
                                                                   max_faults=10_000)))
    kinds = Counter(f.kind for f in outcome.faults)
    assert outcome.status == "complete" and kinds["timeout"] >= 1 and kinds["late_reply"] >= 1


def test_time_bank_is_charged_only_for_the_excess(tmp_logs: Path) -> None:
    async def slowish(req):
        await asyncio.sleep(0.08)
        return req.legal_actions[0]

    outcome, got = run(with_referee(tmp_logs, lambda ref: _match(ref, [slowish, None, None], decision_ms=50,
                                                                   bank_ms=100_000)))
    assert outcome.status == "complete" and not [f for f in outcome.faults if f.kind == "timeout"]
    banks = [m.decision_request.bank_left_ms for m in got[0] if m.WhichOneof("msg") == "decision_request"]
    import json

    elapsed = [ln["elapsed_ms"] for ln in map(json.loads, Path(outcome.log_path).read_text().splitlines())
               if ln["type"] == "decision" and ln["seat"] == 0]
    assert banks[0] == 100_000 and banks[-1] < banks[0]
    # each decision is charged exactly its measured time beyond the 50 ms clock
    for i in range(len(banks) - 1):
        assert banks[i + 1] == banks[i] - int(max(0.0, elapsed[i] - 50)), (i, banks[i:i + 2], elapsed[i])


def test_disconnected_bot_gets_fallbacks_and_match_ends(tmp_logs: Path) -> None:
    async def body(ref: Referee):
        tokens = [ref.new_token(f"bot{i}") for i in range(3)]
        spec = MatchSpec(**SPEC, seed=3, match_id="dc")
        bots = [asyncio.create_task(aio_bot(ref.port, t)) for t in tokens[1:]]
        # seat 0 never connects at all
        outcome = await ref.play(spec, tokens, connect_timeout_s=0.3)
        await asyncio.gather(*bots)
        return outcome

    outcome = run(with_referee(tmp_logs, body))
    assert outcome.status == "complete"
    # a seat that never connected is a no-show: forfeited before the first decision (issue #15 item 6)
    assert [f.kind for f in outcome.faults if f.seat == 0] == ["no_show", "forfeit"]
    assert outcome.forfeited == [0] and outcome.result.ranks[0] == 3


def test_bundled_events_are_the_same_events_in_fewer_messages(tmp_logs: Path) -> None:
    """Hello.bundle_events: the events arrive inside the next DecisionRequest or
    MatchEnded, in the same order and content as separate Event messages."""

    def play(bundle: bool):
        async def body(ref: Referee):
            tokens = [ref.new_token(f"bot{i}") for i in range(3)]
            spec = MatchSpec(**{**SPEC, "params": {"rounds": 2}}, seed=21, match_id="b")
            bots = [asyncio.create_task(aio_bot(ref.port, t, name=f"bot{i}", bundle_events=bundle and i == 0))
                    for i, t in enumerate(tokens)]
            await ref.play(spec, tokens, connect_timeout_s=5)
            return [msgs for msgs, _ in await asyncio.gather(*bots)]

        return run(with_referee(tmp_logs, body))

    def events(msgs):
        out = []
        for m in msgs:
            w = m.WhichOneof("msg")
            if w == "event":
                out.append(m.event.SerializeToString())
            elif w == "decision_request":
                out += [e.SerializeToString() for e in m.decision_request.events]
            elif w == "match_ended":
                out += [e.SerializeToString() for e in m.match_ended.events]
        return out

    separate, bundled = play(False), play(True)
    assert events(bundled[0]) == events(separate[0]) and len(events(separate[0])) > 20
    assert not any(m.WhichOneof("msg") == "event" for m in bundled[0])
    assert len(bundled[0]) < len(separate[0]) / 2
    assert events(bundled[1]) == events(separate[1])  # other seats unaffected
