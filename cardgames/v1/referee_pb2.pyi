from cardgames.v1 import back_alley_pb2 as _back_alley_pb2
from cardgames.v1 import doudizhu_pb2 as _doudizhu_pb2
from cardgames.v1 import president_pb2 as _president_pb2
from cardgames.v1 import smear_pb2 as _smear_pb2
from cardgames.v1 import tractor_pb2 as _tractor_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_BID: _ClassVar[DecisionKind]
    DECISION_KIND_PLAY: _ClassVar[DecisionKind]
    DECISION_KIND_DECLARE: _ClassVar[DecisionKind]
    DECISION_KIND_DISCARD: _ClassVar[DecisionKind]
    DECISION_KIND_EXCHANGE: _ClassVar[DecisionKind]

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_PASS: _ClassVar[ActionKind]
    ACTION_KIND_BID: _ClassVar[ActionKind]
    ACTION_KIND_PLAY: _ClassVar[ActionKind]
    ACTION_KIND_DECLARE: _ClassVar[ActionKind]
    ACTION_KIND_DISCARD: _ClassVar[ActionKind]
    ACTION_KIND_EXCHANGE: _ClassVar[ActionKind]
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_BID: DecisionKind
DECISION_KIND_PLAY: DecisionKind
DECISION_KIND_DECLARE: DecisionKind
DECISION_KIND_DISCARD: DecisionKind
DECISION_KIND_EXCHANGE: DecisionKind
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_PASS: ActionKind
ACTION_KIND_BID: ActionKind
ACTION_KIND_PLAY: ActionKind
ACTION_KIND_DECLARE: ActionKind
ACTION_KIND_DISCARD: ActionKind
ACTION_KIND_EXCHANGE: ActionKind

class BotMessage(_message.Message):
    __slots__ = ("hello", "action_reply")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_REPLY_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action_reply: ActionReply
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action_reply: _Optional[_Union[ActionReply, _Mapping]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "match_started", "event", "decision_request", "action_result", "match_ended", "goodbye")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_STARTED_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    ACTION_RESULT_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    GOODBYE_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_started: MatchStarted
    event: Event
    decision_request: DecisionRequest
    action_result: ActionResult
    match_ended: MatchEnded
    goodbye: Goodbye
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_started: _Optional[_Union[MatchStarted, _Mapping]] = ..., event: _Optional[_Union[Event, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., action_result: _Optional[_Union[ActionResult, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., goodbye: _Optional[_Union[Goodbye, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("bot_name", "bot_version", "token", "protocol_version", "games", "max_concurrent_matches", "bundle_events")
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENT_MATCHES_FIELD_NUMBER: _ClassVar[int]
    BUNDLE_EVENTS_FIELD_NUMBER: _ClassVar[int]
    bot_name: str
    bot_version: str
    token: str
    protocol_version: int
    games: _containers.RepeatedScalarFieldContainer[str]
    max_concurrent_matches: int
    bundle_events: bool
    def __init__(self, bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ..., token: _Optional[str] = ..., protocol_version: _Optional[int] = ..., games: _Optional[_Iterable[str]] = ..., max_concurrent_matches: _Optional[int] = ..., bundle_events: _Optional[bool] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("session_id", "protocol_version", "referee_version", "max_message_bytes")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    REFEREE_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    protocol_version: int
    referee_version: str
    max_message_bytes: int
    def __init__(self, session_id: _Optional[str] = ..., protocol_version: _Optional[int] = ..., referee_version: _Optional[str] = ..., max_message_bytes: _Optional[int] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "name", "team")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    team: int
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., team: _Optional[int] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("decision_ms", "bank_ms")
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_ms: int
    bank_ms: int
    def __init__(self, decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class MatchStarted(_message.Message):
    __slots__ = ("match_id", "game", "seat", "seats", "variant", "params", "clock", "ruleset", "fault_policy")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    FAULT_POLICY_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    seat: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    variant: _struct_pb2.Struct
    params: _struct_pb2.Struct
    clock: Clock
    ruleset: str
    fault_policy: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., seat: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., variant: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., ruleset: _Optional[str] = ..., fault_policy: _Optional[str] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("kind", "cards", "amount")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    cards: _containers.RepeatedScalarFieldContainer[str]
    amount: int
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., cards: _Optional[_Iterable[str]] = ..., amount: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("match_id", "request_id", "seat", "kind", "observation", "legal_actions", "legal_actions_complete", "time_left_ms", "bank_left_ms", "events")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    seat: int
    kind: DecisionKind
    observation: Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    legal_actions_complete: bool
    time_left_ms: int
    bank_left_ms: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., seat: _Optional[int] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., legal_actions_complete: _Optional[bool] = ..., time_left_ms: _Optional[int] = ..., bank_left_ms: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("doudizhu", "tractor", "smear", "president", "back_alley")
    DOUDIZHU_FIELD_NUMBER: _ClassVar[int]
    TRACTOR_FIELD_NUMBER: _ClassVar[int]
    SMEAR_FIELD_NUMBER: _ClassVar[int]
    PRESIDENT_FIELD_NUMBER: _ClassVar[int]
    BACK_ALLEY_FIELD_NUMBER: _ClassVar[int]
    doudizhu: _doudizhu_pb2.DouDizhuObservation
    tractor: _tractor_pb2.TractorObservation
    smear: _smear_pb2.SmearObservation
    president: _president_pb2.PresidentObservation
    back_alley: _back_alley_pb2.BackAlleyObservation
    def __init__(self, doudizhu: _Optional[_Union[_doudizhu_pb2.DouDizhuObservation, _Mapping]] = ..., tractor: _Optional[_Union[_tractor_pb2.TractorObservation, _Mapping]] = ..., smear: _Optional[_Union[_smear_pb2.SmearObservation, _Mapping]] = ..., president: _Optional[_Union[_president_pb2.PresidentObservation, _Mapping]] = ..., back_alley: _Optional[_Union[_back_alley_pb2.BackAlleyObservation, _Mapping]] = ...) -> None: ...

class ActionReply(_message.Message):
    __slots__ = ("match_id", "request_id", "action")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    action: Action
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class ActionResult(_message.Message):
    __slots__ = ("match_id", "request_id", "accepted", "rule", "message", "applied", "fault", "elapsed_ms")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: int
    accepted: bool
    rule: str
    message: str
    applied: Action
    fault: str
    elapsed_ms: int
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[int] = ..., accepted: _Optional[bool] = ..., rule: _Optional[str] = ..., message: _Optional[str] = ..., applied: _Optional[_Union[Action, _Mapping]] = ..., fault: _Optional[str] = ..., elapsed_ms: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("match_id", "seq", "is_private", "doudizhu", "tractor", "smear", "president", "back_alley")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    IS_PRIVATE_FIELD_NUMBER: _ClassVar[int]
    DOUDIZHU_FIELD_NUMBER: _ClassVar[int]
    TRACTOR_FIELD_NUMBER: _ClassVar[int]
    SMEAR_FIELD_NUMBER: _ClassVar[int]
    PRESIDENT_FIELD_NUMBER: _ClassVar[int]
    BACK_ALLEY_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seq: int
    is_private: bool
    doudizhu: _doudizhu_pb2.DouDizhuEvent
    tractor: _tractor_pb2.TractorEvent
    smear: _smear_pb2.SmearEvent
    president: _president_pb2.PresidentEvent
    back_alley: _back_alley_pb2.BackAlleyEvent
    def __init__(self, match_id: _Optional[str] = ..., seq: _Optional[int] = ..., is_private: _Optional[bool] = ..., doudizhu: _Optional[_Union[_doudizhu_pb2.DouDizhuEvent, _Mapping]] = ..., tractor: _Optional[_Union[_tractor_pb2.TractorEvent, _Mapping]] = ..., smear: _Optional[_Union[_smear_pb2.SmearEvent, _Mapping]] = ..., president: _Optional[_Union[_president_pb2.PresidentEvent, _Mapping]] = ..., back_alley: _Optional[_Union[_back_alley_pb2.BackAlleyEvent, _Mapping]] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "score", "rank", "forfeited")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    FORFEITED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    score: float
    rank: int
    forfeited: bool
    def __init__(self, seat: _Optional[int] = ..., score: _Optional[float] = ..., rank: _Optional[int] = ..., forfeited: _Optional[bool] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("seat", "kind", "rule", "message", "request_id")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    rule: str
    message: str
    request_id: int
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[str] = ..., rule: _Optional[str] = ..., message: _Optional[str] = ..., request_id: _Optional[int] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("match_id", "results", "faults", "status", "events")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    results: _containers.RepeatedCompositeFieldContainer[SeatResult]
    faults: _containers.RepeatedCompositeFieldContainer[Fault]
    status: str
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, match_id: _Optional[str] = ..., results: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., faults: _Optional[_Iterable[_Union[Fault, _Mapping]]] = ..., status: _Optional[str] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class Goodbye(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...
