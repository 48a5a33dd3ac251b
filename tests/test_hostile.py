"""Hostile bots against a real in-process referee (loopback gRPC, port 0):
every misbehaviour of the connection policy table in ``referee/service.py``
that ``test_service.py`` does not already cover, each with an asserted
outcome; where a hostile bot sits in a match, a clean match runs beside it
on the same referee and must come out exactly as it does alone. Also:
request ids routed per connection, multiplexed connections, a frozen bot
process (SIGSTOP) and the keepalive that drops it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any, Awaitable, Callable

import grpc
import pytest

from cardgames.v1 import referee_pb2 as pb, referee_pb2_grpc
from conftest import ROOT, aio_bot, run, with_referee
from referee.bots import BotProcess
from referee.runner import MatchOutcome, MatchSpec
from referee.service import CloseKind, Referee

GAME = dict(game="doudizhu", players=3, params={"rounds": 1})
CONNECT = "/cardgames.v1.RefereeService/Connect"

#: faults of a seat whose bot went away: treated as timing out on every later
#: request, forfeited after max_faults (5)
DISCONNECTED = ["disconnect"] + ["absent"] * 4 + ["forfeit"]


def spec(match_id: str, seed: int, **kw: Any) -> MatchSpec:
    return MatchSpec(**GAME, seed=seed, seat_names=["s0", "s1", "s2"], match_id=match_id, **kw)


def decisions(outcome: MatchOutcome) -> list[dict]:
    return [ln for ln in map(json.loads, Path(outcome.log_path).read_text().splitlines()) if ln["type"] == "decision"]


def applied(outcome: MatchOutcome) -> list[tuple[int, dict]]:
    return [(d["seat"], d["applied"]) for d in decisions(outcome)]


async def clean_match(ref: Referee, match_id: str, seed: int = 77) -> MatchOutcome:
    """Three well-behaved in-process bots (deterministic: each picks with its own Random(0))."""
    toks = [ref.new_token(f"{match_id}-{i}") for i in range(3)]
    bots = [asyncio.create_task(aio_bot(ref.port, t, name=f"c{i}")) for i, t in enumerate(toks)]
    out = await ref.play(spec(match_id, seed), toks, connect_timeout_s=10)
    await asyncio.gather(*bots)
    return out


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> MatchOutcome:
    """The clean match played alone: what it must look like beside any hostile bot."""
    return run(with_referee(tmp_path_factory.mktemp("ref"), lambda ref: clean_match(ref, "clean")))


def assert_unaffected(out: MatchOutcome, reference: MatchOutcome) -> None:
    assert out.status == "complete" and not out.faults
    assert out.result.scores == reference.result.scores
    assert applied(out) == applied(reference)


async def hostile_match(ref: Referee, hostile: Callable[[int, str], Awaitable[Any]], seed: int = 5,
                        **spec_kw: Any) -> tuple[MatchOutcome, Any, MatchOutcome, str]:
    """Seat 0 of match "h" is ``hostile(port, token)``, seats 1-2 are clean
    bots; a clean match "clean" runs concurrently on the same referee.
    Returns (hostile match, hostile's result, clean match, hostile token)."""
    tok = ref.new_token("hostile")
    toks = [tok] + [ref.new_token(f"h{i}") for i in (1, 2)]
    h = asyncio.create_task(hostile(ref.port, tok))
    others = [asyncio.create_task(aio_bot(ref.port, t, name=f"h{i}")) for i, t in enumerate(toks[1:], 1)]
    out, clean = await asyncio.gather(ref.play(spec("h", seed, **spec_kw), toks, connect_timeout_s=10),
                                      clean_match(ref, "clean"))
    res = await h
    await asyncio.gather(*others)
    return out, res, clean, tok


def only_seat0(out: MatchOutcome) -> None:
    assert out.status == "complete"
    assert not [f for f in out.faults if f.seat != 0], out.faults


def hello(token: str, name: str = "hostile", **kw: Any) -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(bot_name=name, token=token, protocol_version=1, **kw))


def reply(req: pb.DecisionRequest, action: pb.Action | None = None, **kw: Any) -> pb.BotMessage:
    r = pb.ActionReply(match_id=req.match_id, request_id=req.request_id,
                       action=action if action is not None else req.legal_actions[0])
    for k, v in kw.items():
        setattr(r, k, v)
    return pb.BotMessage(action_reply=r)


# --------------------------------------------------------------------------- garbage bytes
def test_garbage_bytes_drop_the_connection_and_the_seat_plays_fallbacks(tmp_logs: Path, reference) -> None:
    async def garbage(port: int, token: str) -> Any:
        ch = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        call = ch.stream_stream(CONNECT, request_serializer=lambda b: b, response_deserializer=lambda b: b)()
        got = []
        try:
            await call.write(hello(token).SerializeToString())
            while (raw := await call.read()) is not grpc.aio.EOF:
                msg = pb.RefereeMessage.FromString(raw)
                got.append(msg.WhichOneof("msg"))
                if msg.WhichOneof("msg") == "decision_request":
                    await call.write(b"\xff\xfe\xfd not a protobuf \x00\x01" * 10)
            return got, None
        except grpc.aio.AioRpcError as e:
            return got, e.code()
        finally:
            await ch.close()

    async def body(ref: Referee):
        out, (got, code), clean, tok = await hostile_match(ref, garbage)
        return out, got, code, clean, [*ref.tokens[tok].closed, *ref.tokens[tok].conns]

    out, got, code, clean, conns = run(with_referee(tmp_logs, body))
    only_seat0(out)
    assert [f.kind for f in out.faults] == DISCONNECTED  # later decisions absent at once, then forfeit
    assert got.count("decision_request") == 1 and "match_ended" not in got  # nothing after the garbage
    assert code == grpc.StatusCode.INTERNAL  # told why, not a bare end of stream
    assert conns and conns[0].closed.is_set() and conns[0].close_reason.startswith("read failed")
    assert conns[0].close_kind is CloseKind.READ_FAILED
    # the seat's remaining decisions were played by the referee (fallbacks)
    assert all(d["reply"] is None for d in decisions(out) if d["seat"] == 0)
    assert_unaffected(clean, reference)


# --------------------------------------------------------------------------- second Hello
def test_a_second_hello_mid_stream_is_ignored_and_recorded(tmp_logs: Path, reference) -> None:
    async def twice(port: int, token: str) -> Any:
        sent = [False]

        def policy(req: pb.DecisionRequest):
            if not sent[0]:
                sent[0] = True
                return [hello(token, name="impostor"), reply(req)]
            return req.legal_actions[0]

        return await aio_bot(port, token, policy, name="hostile")

    async def body(ref: Referee):
        out, (msgs, code), clean, tok = await hostile_match(ref, twice)
        return out, msgs, code, clean, [*ref.tokens[tok].closed, *ref.tokens[tok].conns]

    out, msgs, code, clean, conns = run(with_referee(tmp_logs, body))
    assert out.status == "complete" and not out.faults and code is None
    assert conns[0].name == "hostile" and conns[0].hello.bot_name == "hostile"  # the first Hello stands
    assert ("unexpected_message", "unexpected hello message") in conns[0].unattributed
    assert all(d["fault"] is None for d in decisions(out) if d["seat"] == 0)
    assert sum(m.WhichOneof("msg") == "match_ended" for m in msgs) == 1
    assert_unaffected(clean, reference)


# --------------------------------------------------------------------------- answers twice
def test_answering_twice_applies_the_first_answer_and_records_the_second(tmp_logs: Path, reference) -> None:
    async def double(port: int, token: str) -> Any:
        return await aio_bot(port, token, lambda req: [reply(req), reply(req, req.legal_actions[-1])])

    out, (msgs, code), clean, _ = run(with_referee(tmp_logs, lambda ref: hostile_match(ref, double)))
    only_seat0(out)
    mine = [d for d in decisions(out) if d["seat"] == 0]
    assert mine and all(d["fault"] is None and d["reply"] is not None for d in mine)
    kinds = Counter(f.kind for f in out.faults)
    assert set(kinds) == {"unknown_request"} and kinds["unknown_request"] >= len(mine) - 1
    assert not out.forfeited
    dup = [f.request_id for f in out.faults]
    assert set(dup) <= {d["request_id"] for d in mine}  # each one names a request already answered
    told = [m.action_result for m in msgs if m.WhichOneof("msg") == "action_result"]
    assert told and all(r.fault == "unknown_request" and not r.accepted for r in told)
    # told apart from an id it was never sent
    assert all(r.message == f"request {r.request_id} was already answered" for r in told), [r.message for r in told]
    assert_unaffected(clean, reference)


# --------------------------------------------------------------------------- answers for another match
def test_a_reply_naming_a_match_the_bot_is_not_in_is_recorded_not_applied(tmp_logs: Path, reference) -> None:
    async def ghost(port: int, token: str) -> Any:
        return await aio_bot(port, token, lambda req: [reply(req, match_id="ghost-match")])

    async def body(ref: Referee):
        out, (msgs, code), clean, tok = await hostile_match(ref, ghost, decision_ms=300, max_faults=3)
        return out, msgs, clean, [*ref.tokens[tok].closed, *ref.tokens[tok].conns][0]

    out, msgs, clean, conn = run(with_referee(tmp_logs, body))
    only_seat0(out)
    assert [f.kind for f in out.faults] == ["timeout", "timeout", "timeout", "forfeit"]
    asked = [d for d in decisions(out) if d["seat"] == 0 and d["request_id"]]
    assert len(asked) == 3 and all(d["reply"] is None and d["fault"] == "timeout" for d in asked)
    assert [k for k, _ in conn.unattributed] == ["unknown_request"] * 3
    assert all("ghost-match" in detail for _, detail in conn.unattributed)
    told = [m.action_result for m in msgs if m.WhichOneof("msg") == "action_result" and m.action_result.fault
            == "unknown_request"]
    assert len(told) == 3 and all(r.match_id == "" for r in told)  # nothing about a match it is not in
    assert all(r.message.startswith(f"no pending request {r.request_id} ") for r in told)
    assert_unaffected(clean, reference)


def test_a_bot_in_two_matches_cannot_answer_one_with_the_others_request(tmp_logs: Path) -> None:
    """One connection seated in two matches answers each request under the
    other match's id: the request id is right, the match is not. Neither
    answer is applied; each is recorded in the match it names."""
    async def body(ref: Referee):
        tok = ref.new_token("double-agent")
        toks = {m: [tok, ref.new_token(f"{m}1"), ref.new_token(f"{m}2")] for m in ("m1", "m2")}
        other = {"m1": "m2", "m2": "m1"}
        agent = asyncio.create_task(aio_bot(
            ref.port, tok, lambda req: [reply(req, match_id=other[req.match_id])],
            first=hello(tok, name="double-agent", max_concurrent_matches=2)))
        bots = [asyncio.create_task(aio_bot(ref.port, t)) for m in toks for t in toks[m][1:]]
        outs = await asyncio.gather(*(ref.play(spec(m, 9 + i, decision_ms=300, max_faults=3), toks[m],
                                               connect_timeout_s=10) for i, m in enumerate(("m1", "m2"))))
        msgs, code = await agent
        await asyncio.gather(*bots)
        return outs, msgs, code

    outs, msgs, code = run(with_referee(tmp_logs, body))
    assert code is None and msgs[-1].WhichOneof("msg") == "goodbye"
    assert {m.match_started.match_id for m in msgs if m.WhichOneof("msg") == "match_started"} == {"m1", "m2"}
    for out in outs:
        only_seat0(out)
        asked = [d for d in decisions(out) if d["seat"] == 0 and d["request_id"]]
        assert len(asked) == 3 and all(d["reply"] is None and d["fault"] == "timeout" for d in asked)
        assert Counter(f.kind for f in out.faults)["forfeit"] == 1
    # every misaddressed reply was recorded in the match it named, as a stray of seat 0 there
    strays = [f for out in outs for f in out.faults if f.kind == "unknown_request"]
    asked_ids = {d["request_id"] for out in outs for d in decisions(out) if d["seat"] == 0 and d["request_id"]}
    assert strays and {f.request_id for f in strays} <= asked_ids


# --------------------------------------------------------------------------- answers for another seat
def test_a_reply_carrying_another_seats_request_id_is_not_applied(tmp_logs: Path) -> None:
    """Seat 0 forges an answer to seat 1's pending request (right match id,
    right request id, a legal action for seat 1). Request ids are routed per
    connection, so it is a stray of seat 0 and seat 1's request times out."""
    victim: dict[str, Any] = {}

    def slow_victim(req: pb.DecisionRequest):
        if not victim:
            victim.update(rid=req.request_id, match_id=req.match_id, action=req.legal_actions[-1])
            return None  # leave it pending: the forger has 500 ms to answer it
        return req.legal_actions[0]

    async def forger(port: int, token: str) -> tuple[list[str], int | None]:
        ch = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        call = referee_pb2_grpc.RefereeServiceStub(ch).Connect()
        forged: list[int] = []
        lock = asyncio.Lock()

        async def forge() -> None:
            while not victim:
                await asyncio.sleep(0.005)
            async with lock:
                await call.write(pb.BotMessage(action_reply=pb.ActionReply(
                    match_id=victim["match_id"], request_id=victim["rid"], action=victim["action"])))
            forged.append(victim["rid"])

        side = asyncio.create_task(forge())
        try:
            await call.write(hello(token, name="forger"))
            while (msg := await call.read()) is not grpc.aio.EOF:
                if msg.WhichOneof("msg") == "decision_request":
                    async with lock:
                        await call.write(reply(msg.decision_request))
                if msg.WhichOneof("msg") == "goodbye":
                    break
            await side
        finally:
            side.cancel()
            await ch.close()
        return forged

    async def body(ref: Referee):
        toks = [ref.new_token(n) for n in ("forger", "victim", "bystander")]
        tasks = [asyncio.create_task(forger(ref.port, toks[0])),
                 asyncio.create_task(aio_bot(ref.port, toks[1], slow_victim, name="victim")),
                 asyncio.create_task(aio_bot(ref.port, toks[2], name="bystander"))]
        out = await ref.play(spec("seats", 4, decision_ms=500), toks, connect_timeout_s=10)
        forged, *_ = await asyncio.gather(*tasks)
        return out, forged

    out, forged = run(with_referee(tmp_logs, body))
    assert out.status == "complete" and forged == [victim["rid"]]
    target = [d for d in decisions(out) if d["seat"] == 1 and d["request_id"] == victim["rid"]]
    assert len(target) == 1 and target[0]["reply"] is None and target[0]["fault"] == "timeout"
    by_seat = {s: [f.kind for f in out.faults if f.seat == s] for s in range(3)}
    assert by_seat[1] == ["timeout"] and by_seat[2] == []
    assert by_seat[0] == ["unknown_request"]
    assert next(f for f in out.faults if f.seat == 0).request_id == victim["rid"]


# --------------------------------------------------------------------------- flood
def test_a_flood_of_stray_messages_closes_the_connection(tmp_logs: Path, reference) -> None:
    async def flood(port: int, token: str) -> Any:
        bursts = [0]

        def policy(req: pb.DecisionRequest):
            # one answer and a burst of 21 strays, then only reading (a client still writing
            # when the stream ends may see its own write fail as INTERNAL instead of the status)
            bursts[0] += 1
            if bursts[0] > 1:
                return None
            return [reply(req)] + [reply(req, request_id=10_000 + i) for i in range(21)]

        return await aio_bot(port, token, policy)

    async def body(ref: Referee):
        out, (msgs, code), clean, tok = await hostile_match(ref, flood)
        return out, msgs, code, clean, [*ref.tokens[tok].closed, *ref.tokens[tok].conns][0]

    out, msgs, code, clean, conn = run(with_referee(tmp_logs, body, max_strays=20))
    only_seat0(out)
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert conn.close_reason == "flood: more than 20 stray messages" and conn.close_kind is CloseKind.FLOOD
    kinds = [f.kind for f in out.faults]
    assert kinds == ["unknown_request"] * 21 + DISCONNECTED
    mine = [d for d in decisions(out) if d["seat"] == 0]
    assert mine[0]["reply"] is not None and mine[0]["fault"] is None  # answered before flooding
    assert all(d["reply"] is None for d in mine[1:])  # then fallbacks, played by the referee
    assert not any(m.WhichOneof("msg") == "match_ended" for m in msgs)
    assert_unaffected(clean, reference)


# --------------------------------------------------------------------------- oversized message
def test_an_oversized_message_ends_only_that_stream_with_resource_exhausted(tmp_logs: Path, reference) -> None:
    async def huge(port: int, token: str) -> Any:
        big = pb.Action(kind=pb.ACTION_KIND_PLAY, cards=["AS"] * 5000)  # ~15 KB > 4 KiB limit
        return await aio_bot(port, token, lambda req: big)

    async def body(ref: Referee):
        out, (msgs, code), clean, tok = await hostile_match(ref, huge)
        return out, code, clean, [*ref.tokens[tok].closed, *ref.tokens[tok].conns][0]

    out, code, clean, conn = run(with_referee(tmp_logs, body, max_message_bytes=4096))
    only_seat0(out)
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert [f.kind for f in out.faults] == DISCONNECTED
    assert conn.closed.is_set()
    assert_unaffected(clean, reference)


# --------------------------------------------------------------------------- half-open (SIGSTOP)
def test_a_stopped_bot_process_times_out_and_the_match_ends(tmp_logs: Path, reference) -> None:
    """A half-open peer: the bot's process is frozen with SIGSTOP after it
    connected. Its TCP socket stays open (the kernel still acknowledges), so
    only the clock protects the match; keepalive (service.KEEPALIVE_OPTIONS,
    see docs/sandbox.md) would drop the connection later."""
    async def body(ref: Referee):
        tok = ref.new_token("frozen")
        toks = [tok, ref.new_token("a"), ref.new_token("b")]
        proc = BotProcess("python sample_bots/random_bot.py --seed 3", "frozen", f"127.0.0.1:{ref.port}", tok,
                          tmp_logs, cwd_for_relative=ROOT).start()
        try:
            conn = await ref.acquire(tok, 30, lambda: proc.poll() is not None)
            assert conn is not None, proc.tail_stderr()
            os.killpg(proc.proc.pid, signal.SIGSTOP)
            others = [asyncio.create_task(aio_bot(ref.port, t)) for t in toks[1:]]
            out, clean = await asyncio.gather(
                ref.play(spec("frozen", 6, decision_ms=300, max_faults=3), toks, connect_timeout_s=10),
                clean_match(ref, "clean"))
            await asyncio.gather(*others)
            alive = proc.poll() is None
            return out, clean, alive
        finally:
            if proc.proc is not None:
                os.killpg(proc.proc.pid, signal.SIGCONT)
            proc.stop()

    out, clean, alive = run(with_referee(tmp_logs, body))
    assert alive  # stopped, not dead: the stream stayed open during the match
    only_seat0(out)
    assert [f.kind for f in out.faults] == ["timeout", "timeout", "timeout", "forfeit"]
    assert all(f.elapsed_ms >= 300 for f in out.faults if f.kind == "timeout")
    assert out.forfeited == [0] and out.result.ranks[0] == 3
    assert_unaffected(clean, reference)


# --------------------------------------------------------------------------- multiplexing
def test_a_connection_in_two_matches_stays_open_until_its_last_match_ends(tmp_logs: Path) -> None:
    """``Referee.play`` closes its seats' connections when a match ends
    (AdminService.RunMatch does); a connection also seated in a longer
    match must not be closed under it."""
    async def body(ref: Referee):
        tok = ref.new_token("mux")
        toks = {m: [tok, ref.new_token(f"{m}1"), ref.new_token(f"{m}2")] for m in ("short", "long")}
        mux = asyncio.create_task(aio_bot(ref.port, tok, first=hello(tok, name="mux", max_concurrent_matches=2)))
        bots = [asyncio.create_task(aio_bot(ref.port, t)) for m in toks for t in toks[m][1:]]
        outs = await asyncio.gather(
            ref.play(MatchSpec(**{**GAME, "params": {"rounds": 1}}, seed=1, seat_names=[], match_id="short"),
                     toks["short"], connect_timeout_s=10),
            ref.play(MatchSpec(**{**GAME, "params": {"rounds": 4}}, seed=2, seat_names=[], match_id="long"),
                     toks["long"], connect_timeout_s=10))
        msgs, code = await mux
        await asyncio.gather(*bots)
        return outs, msgs, code

    outs, msgs, code = run(with_referee(tmp_logs, body))
    for out in outs:
        assert out.status == "complete" and not out.faults, (out.spec.match_id, out.faults)
    ended = [m.match_ended.match_id for m in msgs if m.WhichOneof("msg") == "match_ended"]
    assert sorted(ended) == ["long", "short"] and msgs[-1].WhichOneof("msg") == "goodbye" and code is None


def test_one_connection_never_holds_two_seats_of_a_match(tmp_logs: Path) -> None:
    """A token seated twice in one match: a single connection gets one seat
    (the other is a no-show, forfeited), two connections of that token get one each;
    no stream ever receives both seats' views."""
    async def body(ref: Referee):
        tok, a = ref.new_token("twin"), ref.new_token("a")
        many = hello(tok, name="twin", max_concurrent_matches=4)  # capacity is not the point
        one = asyncio.create_task(aio_bot(ref.port, tok, first=many))
        other = asyncio.create_task(aio_bot(ref.port, a))
        alone = await ref.play(spec("alone", 1), [tok, tok, a], connect_timeout_s=1)
        got_alone = [(await one)[0]]
        await other
        two = [asyncio.create_task(aio_bot(ref.port, tok, first=many)) for _ in range(2)]
        other = asyncio.create_task(aio_bot(ref.port, a))
        pair = await ref.play(spec("pair", 2), [tok, tok, a], connect_timeout_s=10)
        got_pair = [m for m, _ in await asyncio.gather(*two)]
        await other
        return alone, got_alone, pair, got_pair

    alone, got_alone, pair, got_pair = run(with_referee(tmp_logs, body))

    def seats(msgs: list[pb.RefereeMessage]) -> set[int]:
        out = {m.match_started.seat for m in msgs if m.WhichOneof("msg") == "match_started"}
        out |= {m.decision_request.seat for m in msgs if m.WhichOneof("msg") == "decision_request"}
        return out

    assert alone.status == "complete"
    assert [(f.seat, f.kind) for f in alone.faults] == [(1, "no_show"), (1, "forfeit")]
    assert seats(got_alone[0]) == {0}
    assert pair.status == "complete" and not pair.faults
    assert sorted(len(seats(m)) for m in got_pair) == [1, 1] and set.union(*map(seats, got_pair)) == {0, 1}


def test_keepalive_drops_a_frozen_bot_connection(tmp_logs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's keepalive knobs (service.KEEPALIVE_OPTIONS), every one
    scaled down tenfold, close the stream of a SIGSTOPped bot by themselves.
    (gRPC's own ping timeout, 60 s by default, has to be lowered with them:
    without it a frozen peer stayed connected for a minute.)"""
    from referee import service

    scaled = [(k, max(1, v // 10) if k.endswith("_ms") else v) for k, v in service.KEEPALIVE_OPTIONS]
    assert ("grpc.http2.ping_timeout_ms", 1_000) in scaled
    monkeypatch.setattr(service, "KEEPALIVE_OPTIONS", scaled)

    async def body(ref: Referee):
        tok = ref.new_token("frozen")
        proc = BotProcess("python sample_bots/random_bot.py", "frozen", f"127.0.0.1:{ref.port}", tok, tmp_logs,
                          cwd_for_relative=ROOT).start()
        try:
            conn = await ref.acquire(tok, 30, lambda: proc.poll() is not None)
            assert conn is not None, proc.tail_stderr()
            os.killpg(proc.proc.pid, signal.SIGSTOP)
            deadline = time.monotonic() + 30  # generous: the scaled bound is ~2 s
            while not conn.closed.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            return conn.closed.is_set(), conn.close_reason, proc.poll()
        finally:
            if proc.proc is not None:
                os.killpg(proc.proc.pid, signal.SIGCONT)
            proc.stop()

    closed, reason, rc = run(with_referee(tmp_logs, body))
    assert rc is None  # the process was alive (frozen) the whole time
    assert closed, "a frozen bot kept its connection"
    assert reason  # e.g. "the connection was lost ...": gRPC cancelled the call when the transport dropped


# --------------------------------------------------------------------------- #38 item 4: oversized illegal replies
def test_an_oversized_illegal_reply_is_kept_cut_with_its_size_noted(tmp_logs: Path, tmp_path: Path) -> None:
    """A bot answers once with a card code of 50,000 characters and once with
    12,000 cards (each under the 64 KiB limit): ``illegal`` faults whose
    message keeps at most 2,000 characters of what the bot sent and notes the
    full size (as its ActionResult says), a match log whose decision line keeps
    the start of an oversized reply and its size, and stored fault rows no
    longer than that."""
    import re

    from referee.runner import FAULT_TEXT_CHARS
    from tournaments.record import MatchRecord
    from tournaments.store import Store

    code = "Z" * 50_000

    async def huge(port: int, token: str) -> Any:
        sent = []

        def policy(req: pb.DecisionRequest):
            sent.append(req.request_id)
            if len(sent) == 1:
                return [reply(req, pb.Action(kind=pb.ACTION_KIND_PLAY, cards=[code]))]
            if len(sent) == 2:
                return [reply(req, pb.Action(kind=pb.ACTION_KIND_PLAY, cards=["AS"] * 12_000))]
            return req.legal_actions[0]

        return await aio_bot(port, token, policy, name="huge")

    async def body(ref: Referee):
        out, (msgs, _), clean, _ = await hostile_match(ref, huge)
        return out, msgs

    out, msgs = run(with_referee(tmp_logs, body))
    only_seat0(out)
    malformed, big = [f for f in out.faults if f.kind == "illegal"][:2]
    assert malformed.rule == "PROTOCOL" and len(malformed.message) < FAULT_TEXT_CHARS + 100, len(malformed.message)
    m = re.search(r"\.\.\.\[cut: (\d+) characters in all\]$", malformed.message)
    assert m and int(m.group(1)) > len(code), malformed.message[-80:]
    told = [x.action_result for x in msgs if x.WhichOneof("msg") == "action_result"]
    assert told[0].message == malformed.message
    line = [ln for ln in decisions(out) if ln["fault"] == "illegal"][1]  # the 12,000 cards: a reply the log keeps
    assert line["request_id"] == big.request_id
    assert set(line["reply"]) == {"cut", "chars"} and line["reply"]["chars"] > 12_000 * 4
    assert len(line["reply"]["cut"]) == FAULT_TEXT_CHARS
    assert max(len(x) for x in Path(out.log_path).read_text().splitlines()) < 3 * FAULT_TEXT_CHARS
    store = Store(str(tmp_path / "r.sqlite"))
    try:
        tid = store.create_tournament("t", "doudizhu", {}, "f", 1, [(n, "", True) for n in ("s0", "s1", "s2")])
        result = out.to_json()
        result["faults"][0]["message"] = "x" * 10_000  # a message from elsewhere: cut when stored
        store.record_matches(tid, [MatchRecord(0, 5, ["s0", "s1", "s2"], "complete", result)])
        _, rows = store.bot_faults(tid, "s0")
    finally:
        store.close()
    assert all(len(r["message"]) < FAULT_TEXT_CHARS + 100 for r in rows)
    assert any(r["message"].endswith("...[cut: 10000 characters in all]") for r in rows)
