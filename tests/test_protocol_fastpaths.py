"""What referee/protocol.py builds is what the plain protobuf calls build:
same DecisionRequest (its legal actions merged from cached encodings) and
Event bytes, same JSON as ``json_format.MessageToDict`` with fields at their
default written out (match logs are compared with it on replay)."""

from __future__ import annotations

import random

import orjson
import pytest
from google.protobuf import json_format

from cardgames.v1 import referee_pb2 as pb
from referee import protocol
from referee.engine import seeded_rng
from referee.games import game_class, implemented, view_module

PLAYERS = {"doudizhu": 3, "tractor": 4, "smear": 3, "president": 4, "back_alley": 4}
ONE_ROUND = {"doudizhu": {"rounds": 1}, "tractor": {"max_rounds": 1}, "smear": {"max_rounds": 2},
             "president": {"max_rounds": 1}, "back_alley": {"last_round": 2}}


def _reference_request(game, match_id: str, request_id: int, time_left_ms: int, bank_left_ms: int) -> pb.DecisionRequest:
    """The straightforward construction: one message per legal action."""
    seat = game.to_act
    legal, complete = game.legal_actions()
    obs = pb.Observation()
    getattr(obs, game.name).CopyFrom(protocol.game_observation(game, seat))
    return pb.DecisionRequest(match_id=match_id, request_id=request_id, seat=seat,
                              kind=protocol.decision_kind_pb(game.decision_kind()), observation=obs,
                              legal_actions=[protocol.action_to_pb(a) for a in legal],
                              legal_actions_complete=complete, time_left_ms=time_left_ms, bank_left_ms=bank_left_ms)


def _dict(m) -> dict:
    return json_format.MessageToDict(m, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


@pytest.mark.parametrize("game_name", [g for g in implemented() if g in PLAYERS])
def test_requests_and_events_equal_the_plain_protobuf_calls(game_name: str) -> None:
    n = PLAYERS[game_name]
    checked = 0
    from_record = [0, 0]  # events whose log JSON is made from the message, from the record
    for seed in range(3):
        g = game_class(game_name)(n, None, ONE_ROUND[game_name], seeded_rng(seed))
        rng = random.Random(seed)
        seq = 0
        events: list[bytes] = []  # encoded events not yet bundled into a request
        for _ in range(20_000):
            want_events = []  # this decision's events (bundled into the request below)
            for ev in g.pop_events():
                seq += 1
                payload = protocol.event_payload(game_name, ev)
                # what the runner sends and logs: the payload encoded (a record the view
                # lists in EVENT_FIELDS from its one encoding, shared with the observations)
                encoded_payload, built = protocol.payload_encoding(game_name, ev.record)
                assert built is None or built == payload
                assert type(payload).FromString(encoded_payload) == payload
                assert protocol.payload_from_encoding(game_name, encoded_payload) == payload
                assert protocol.encoded_payload_json(game_name, encoded_payload) == _dict(payload)
                assert protocol.encoded_payload_json(game_name, encoded_payload, built) == _dict(payload)
                # the log's JSON is kept per encoding: it equals the payload's own
                assert protocol.message_to_json(payload) == _dict(payload) == protocol.event_json(game_name, ev)
                # what the log writes (from the record itself, for a RECORD_EVENTS record): the same bytes
                logged = protocol.logged_event_json(game_name, ev.record, encoded_payload, built)
                assert orjson.dumps(logged, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
                    _dict(payload), option=orjson.OPT_SORT_KEYS)
                from_record[type(ev.record) in view_module(game_name).RECORD_EVENTS] += 1
                want_ev = pb.Event(match_id="m", seq=seq, is_private=ev.to is not None)
                getattr(want_ev, game_name).CopyFrom(payload)
                assert protocol.event_pb(game_name, "m", seq, ev) == want_ev
                got = protocol.event_message(game_name, "m", seq, ev, payload)
                assert got.SerializeToString(deterministic=True) == pb.RefereeMessage(
                    event=want_ev).SerializeToString(deterministic=True)
                assert protocol.message_to_json(got) == _dict(got)
                encoded = protocol.event_bytes(game_name, "m", seq, ev, payload)
                assert pb.Event.FromString(encoded) == want_ev
                want_events.append(want_ev)
                events.append(encoded)
            seat = g.to_act
            if seat is None:
                break
            want = _reference_request(g, "m", seq + 1, 900, 50)
            req = protocol.decision_request(g, "m", seq + 1, 900, 50)
            assert req.SerializeToString(deterministic=True) == want.SerializeToString(deterministic=True)
            msg = protocol.decision_message(g, "m", seq + 1, 900, 50, events)
            assert protocol.message_to_json(msg) == _dict(msg)
            want.events.extend(want_events)
            assert msg == pb.RefereeMessage(decision_request=want)
            # the encoded observation (record entries appended, not parsed in) and the
            # encoded request (what a service link hands gRPC) parse to the same messages
            obs = protocol.game_observation(g, seat)
            assert type(obs).FromString(protocol.encoded_observation(g, seat)) == obs
            body = protocol.decision_body(g, "m", 900, 50, events)
            assert pb.RefereeMessage.FromString(protocol.numbered_request(body, seq + 1)) == msg
            events = []
            checked += 1
            g.apply(seat, protocol.action_from_pb(rng.choice(req.legal_actions)))
        assert g.over
        ended, want_ended = pb.MatchEnded(match_id="m"), pb.MatchEnded(match_id="m", events=want_events)
        protocol.add_match_ended_events(ended, events)  # the last events go in MatchEnded
        assert ended == want_ended and len(ended.events) == len(events) > 0
    assert checked > 0
    assert from_record[1] > 0 or not view_module(game_name).RECORD_EVENTS


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


def test_legal_actions_encoding_matches_one_message_per_action() -> None:
    from referee.engine import Action

    legal = [Action("PASS"), Action("PLAY", ("3C", "3D")), Action("BID", (), 3), Action("PLAY", ("RJ",), -1)]
    want = pb.DecisionRequest(legal_actions=[protocol.action_to_pb(a) for a in legal])
    for actions in (legal, legal * 20,  # longer than the merged path takes
                    [Action("PLAY", ["4S", "4H"])] + legal,  # a list of cards is unhashable
                    [Action("PLAY", ("XX",))] + legal,  # not a card code: protobuf takes any string
                    [Action("BID", (), 2**40)] + legal):  # not an int32: the message says so
        if actions[0].amount == 2**40:
            with pytest.raises(ValueError):
                protocol._add_legal_actions(pb.DecisionRequest(), actions)
            continue
        r = pb.DecisionRequest(match_id="m")
        protocol._add_legal_actions(r, actions)
        assert list(r.legal_actions) == [protocol.action_to_pb(a) for a in actions]
    r = pb.DecisionRequest()
    protocol._add_legal_actions(r, legal)
    assert r.SerializeToString(deterministic=True) == want.SerializeToString(deterministic=True)


def test_fields_at_their_default_are_written_and_old_logs_normalise() -> None:
    from cardgames.v1 import doudizhu_pb2

    # seat 0 passing: every field is at its default, yet a reader sees them all
    ev = doudizhu_pb2.DouDizhuEvent(call=doudizhu_pb2.DouDizhuCall(seat=0, amount=0))
    assert protocol.message_to_json(ev) == {"call": {"seat": 0, "amount": 0}}
    # a message field that is not set stays absent (it has presence)
    assert "call" not in protocol.message_to_json(doudizhu_pb2.DouDizhuEvent())
    # a log line written before defaults were written out reads as today's
    assert protocol.normalised_json({"call": {}}, doudizhu_pb2.DouDizhuEvent) == {"call": {"seat": 0, "amount": 0}}


def _plain_part(message, build, *args) -> None:
    """What protocol.merge_part stands for, without any cache."""
    message.MergeFrom(build(*args))


def _plain_match_part(message, build, game) -> None:
    """What protocol.merge_match_part stands for, without any cache."""
    message.MergeFrom(build(game))


def _plain_merge(message, field, records, convert) -> None:
    """What protocol.merge_records stands for, without any cache."""
    if message.DESCRIPTOR.fields_by_name[field].is_repeated:
        getattr(message, field).extend(convert(r) for r in records)
    else:
        for r in records:
            getattr(message, field).MergeFrom(convert(r))


@pytest.mark.parametrize("game_name", [g for g in implemented() if g in PLAYERS])
def test_cached_parts_and_entries_equal_the_observation_built_anew(game_name: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # the views merge their lists of records through protocol.merge_records (entries
    # cached per record, lists that grow at the end joined from the last one) and the
    # fields that stay the same over many decisions through protocol.merge_part (each
    # part's encoding cached per distinct arguments) and protocol.merge_match_part (the
    # match's settings, once per game object): at every decision of seeded
    # matches, every seat's observation (as a message and encoded) equals the one
    # built with every part and record converted anew
    from referee.games import view_module

    view = view_module(game_name)
    n = PLAYERS[game_name]
    checked = 0
    for seed in range(2):
        g = game_class(game_name)(n, None, ONE_ROUND[game_name], seeded_rng(seed))
        rng = random.Random(seed)
        while g.to_act is not None:
            for s in range(n):
                got, encoded = protocol.game_observation(g, s), protocol.encoded_observation(g, s)
                with monkeypatch.context() as m:
                    m.setattr(view, "merge_records", _plain_merge)
                    if hasattr(view, "merge_part"):
                        m.setattr(view, "merge_part", _plain_part)
                    if hasattr(view, "merge_match_part"):
                        m.setattr(view, "merge_match_part", _plain_match_part)
                    want = view.observation(g, s)
                assert got == want and type(want).FromString(encoded) == want
                checked += 1
            g.apply(g.to_act, rng.choice(g.legal_actions()[0]))
            g.pop_events()
    assert checked > 100


def test_encoded_request_fields_at_their_defaults_and_large() -> None:
    # fields at 0 are left out, as protobuf leaves them out; large and multi-byte values
    g = game_class("smear")(3, None, ONE_ROUND["smear"], seeded_rng(4))
    g.pop_events()
    for match_id, request_id, left, bank in (("", 0, 0, 0), ("m" * 300, 2**40, 2**32 - 1, 16384), ("é-1", 1, 127, 128)):
        got = pb.RefereeMessage.FromString(protocol.numbered_request(protocol.decision_body(g, match_id, left, bank),
                                                                     request_id))
        assert got == protocol.decision_message(g, match_id, request_id, left, bank)


def test_event_json_is_kept_per_encoding() -> None:
    # equal payloads share their JSON (computed once); different ones do not
    from referee.engine import Event
    from referee.games.president import events as E

    a, b = Event(E.TrickEnd(last_player=1, leader=2)), Event(E.TrickEnd(last_player=1, leader=0))
    first = protocol.event_json("president", a)
    assert protocol.event_json("president", a) is first
    assert first == _dict(protocol.event_payload("president", a)) == {"trick_end": {"last_player": 1, "leader": 2}}
    assert protocol.event_json("president", b) == {"trick_end": {"last_player": 1, "leader": 0}}



def test_record_json_writes_what_message_to_json_writes() -> None:
    # defaults, None (left to the default; a message field left out), a field the
    # record lacks, enums by name, 64-bit integers as strings, nested and repeated records
    import dataclasses

    from cardgames.v1 import tractor_pb2
    from referee.games.tractor import events as E

    @dataclasses.dataclass(frozen=True)
    class Part:  # of TractorObservation: the record lacks most of its fields
        seat: int
        phase: int | None
        cards_dealt: int | None
        hand: tuple[str, ...]
        current_trick: E.Trick | None
        tricks: tuple[E.Trick, ...]

    trick = E.Trick(3, 1, (E.Play(1, ("AS",)), E.Play(2, ())), "single", "S", None, 1, 0)
    for rec in (Part(0, None, None, (), None, ()), Part(2, 2, 7, ("3S", "BJ"), trick, (trick, trick))):
        m = tractor_pb2.TractorObservation()
        protocol.fill_message(m, rec)
        got = protocol.record_json(rec, m.DESCRIPTOR)
        assert orjson.dumps(got, option=orjson.OPT_SORT_KEYS) == orjson.dumps(_dict(m), option=orjson.OPT_SORT_KEYS)
        assert got == protocol.message_to_json(m)
    a, b = (protocol.record_json(Part(0, 1, 0, (), None, ()), tractor_pb2.TractorObservation.DESCRIPTOR)
            for _ in range(2))
    assert a["hand_sizes"] == [] and a["hand_sizes"] is not b["hand_sizes"]  # a field the record lacks: a list each
    assert protocol.record_json(Part(0, 1, 0, (), None, ()), tractor_pb2.TractorObservation.DESCRIPTOR)["phase"] == \
        "TRACTOR_PHASE_DECLARE"

    @dataclasses.dataclass(frozen=True)
    class Stray:
        seat: int
        no_such_field: int

    with pytest.raises(AttributeError, match="no_such_field"):
        protocol.record_json(Stray(1, 2), tractor_pb2.TractorPlay.DESCRIPTOR)
    with pytest.raises(TypeError):  # a oneof of several fields: not a message record_json handles
        protocol.record_json(Stray(1, 2), tractor_pb2.TractorEvent.DESCRIPTOR)
