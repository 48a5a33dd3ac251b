"""The protocol layer's two shortcuts give what the plain protobuf calls give:
the views' lists of records merged from cached encodings
(``viewkit.merge_records``), and the match log's JSON (``message_to_json``),
which is ``json_format.MessageToDict`` with fields at their default written
out (match logs are compared with it on replay)."""

from __future__ import annotations

import random

import orjson
import pytest
from google.protobuf import json_format

from cardgames.v1 import referee_pb2 as pb
from referee import protocol
from referee.engine import Action, seeded_rng
from referee.games import game_class, implemented, view_module

PLAYERS = {"doudizhu": 3, "tractor": 4, "smear": 3, "president": 4, "back_alley": 4}
ONE_ROUND = {"doudizhu": {"rounds": 1}, "tractor": {"max_rounds": 1}, "smear": {"max_rounds": 2},
             "president": {"max_rounds": 1}, "back_alley": {"last_round": 2}}


def _reference_request(game, match_id: str, request_id: int, time_left_ms: int, bank_left_ms: int,
                       events: list[pb.Event]) -> pb.DecisionRequest:
    """The straightforward construction, through constructors."""
    seat = game.to_act
    legal, complete = game.legal_actions()
    obs = pb.Observation(**{game.name: protocol.game_observation(game, seat)})
    return pb.DecisionRequest(match_id=match_id, request_id=request_id, seat=seat,
                              kind=pb.DecisionKind.Value(f"DECISION_KIND_{game.decision_kind()}"), observation=obs,
                              legal_actions=[protocol.action_to_pb(a) for a in legal],
                              legal_actions_complete=complete, time_left_ms=time_left_ms, bank_left_ms=bank_left_ms,
                              events=events)


def _dict(m) -> dict:
    return json_format.MessageToDict(m, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


@pytest.mark.parametrize("game_name", [g for g in implemented() if g in PLAYERS])
def test_requests_events_and_their_json_equal_the_plain_protobuf_calls(game_name: str) -> None:
    n = PLAYERS[game_name]
    checked = 0
    for seed in range(3):
        g = game_class(game_name)(n, None, ONE_ROUND[game_name], seeded_rng(seed))
        rng = random.Random(seed)
        seq = 0
        for _ in range(20_000):
            events = []  # this decision's events (bundled into the request below)
            for ev in g.pop_events():
                seq += 1
                payload = protocol.event_payload(game_name, ev)
                js = protocol.event_json(game_name, ev)
                assert js == protocol.message_to_json(payload) == _dict(payload)
                assert orjson.dumps(js, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
                    _dict(payload), option=orjson.OPT_SORT_KEYS)  # what the log writes
                want = pb.Event(match_id="m", seq=seq, is_private=ev.to is not None, **{game_name: payload})
                assert protocol.event_pb(game_name, "m", seq, ev) == want
                got = protocol.event_message(game_name, "m", seq, ev, payload)
                assert got == pb.RefereeMessage(event=want) and protocol.message_to_json(got) == _dict(got)
                events.append(want)
            if g.to_act is None:
                break
            want_req = _reference_request(g, "m", seq + 1, 900, 50, events)
            msg = protocol.decision_message(g, "m", seq + 1, 900, 50, events)
            assert msg.SerializeToString() == pb.RefereeMessage(decision_request=want_req).SerializeToString()
            assert protocol.decision_request(g, "m", seq + 1, 900, 50, events) == want_req
            assert protocol.message_to_json(msg) == _dict(msg)
            checked += 1
            g.apply(g.to_act, protocol.action_from_pb(rng.choice(msg.decision_request.legal_actions)))
        assert g.over
    assert checked > 0


def _plain_merge(message, field, records, convert) -> None:
    """What viewkit.merge_records stands for, without its cache."""
    if message.DESCRIPTOR.fields_by_name[field].is_repeated:
        getattr(message, field).extend(convert(r) for r in records)
    else:
        for r in records:
            getattr(message, field).MergeFrom(convert(r))


@pytest.mark.parametrize("game_name", [g for g in implemented() if g in PLAYERS])
def test_cached_record_entries_equal_the_observation_built_anew(game_name: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # at every decision of seeded matches, every seat's observation equals (as a
    # message and encoded) the one built with every record converted anew
    view = view_module(game_name)
    n = PLAYERS[game_name]
    checked = 0
    for seed in range(2):
        g = game_class(game_name)(n, None, ONE_ROUND[game_name], seeded_rng(seed))
        rng = random.Random(seed)
        while g.to_act is not None:
            for s in range(n):
                got = view.observation(g, s)
                with monkeypatch.context() as m:
                    m.setattr(view, "merge_records", _plain_merge)
                    want = view.observation(g, s)
                assert got == want and got.SerializeToString() == want.SerializeToString()
                checked += 1
            g.apply(g.to_act, rng.choice(g.legal_actions()[0]))
            g.pop_events()
    assert checked > 100


def test_actions_convert_both_ways_and_unreadable_ones_are_refused() -> None:
    for a in (Action("PASS"), Action("PLAY", ("3C", "3D")), Action("BID", (), 3), Action("PLAY", ("RJ",), -1)):
        assert protocol.action_from_pb(pb.Action.FromString(protocol.action_to_pb(a).SerializeToString())) == a
    for bad in (pb.Action(kind=pb.ACTION_KIND_PLAY, cards=["XX"]), pb.Action(cards=["3C"]), pb.Action(kind=99)):
        with pytest.raises(protocol.MalformedAction):
            protocol.action_from_pb(bad)


def test_message_to_json_edge_cases_match_json_format() -> None:
    # unknown enum numbers, 64-bit ints, empty and default-valued messages, well-known types
    m = pb.RefereeMessage(decision_request=pb.DecisionRequest(request_id=2**40, kind=99, seat=0))
    assert protocol.message_to_json(m) == _dict(m)
    a = pb.Action(kind=pb.ACTION_KIND_PLAY, cards=["3C", "3D"], amount=-2)
    assert protocol.message_to_json(a) == _dict(a)
    assert protocol.message_to_json(pb.Action()) == _dict(pb.Action()) == {
        "kind": "ACTION_KIND_UNSPECIFIED", "cards": [], "amount": 0}
    s = protocol.to_struct({"rounds": 3, "spring": True, "name": "x", "list": [1, "a"]})
    assert protocol.message_to_json(s) == _dict(s)
    ms = pb.RefereeMessage(match_started=pb.MatchStarted(match_id="m", variant=s, seats=[pb.SeatInfo(seat=1, team=-1)]))
    assert protocol.message_to_json(ms) == _dict(ms)


def test_fields_at_their_default_are_written_and_old_logs_normalise() -> None:
    from cardgames.v1 import doudizhu_pb2

    # seat 0 passing: every field is at its default, yet a reader sees them all
    ev = doudizhu_pb2.DouDizhuEvent(call=doudizhu_pb2.DouDizhuCall(seat=0, amount=0))
    assert protocol.message_to_json(ev) == {"call": {"seat": 0, "amount": 0}}
    # a message field that is not set stays absent (it has presence)
    assert "call" not in protocol.message_to_json(doudizhu_pb2.DouDizhuEvent())
    # a log line written before defaults were written out reads as today's
    assert protocol.normalised_json({"call": {}}, doudizhu_pb2.DouDizhuEvent) == {"call": {"seat": 0, "amount": 0}}


def test_request_fields_at_their_defaults_and_large() -> None:
    # fields at 0 are left out, as protobuf leaves them out; large and multi-byte values
    g = game_class("smear")(3, None, ONE_ROUND["smear"], seeded_rng(4))
    g.pop_events()
    for match_id, request_id, left, bank in (("", 0, 0, 0), ("m" * 300, 2**40, 2**32 - 1, 16384), ("é-1", 1, 127, 128)):
        got = pb.RefereeMessage.FromString(
            protocol.decision_message(g, match_id, request_id, left, bank).SerializeToString()).decision_request
        assert (got.match_id, got.request_id, got.time_left_ms, got.bank_left_ms) == (match_id, request_id, left, bank)
