from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunMatchRequest(_message.Message):
    __slots__ = ("game", "players", "variant", "params", "seed", "seat_tokens", "decision_ms", "bank_ms", "fault_policy", "max_faults", "bot_connect_ms", "register_tokens", "seat_names", "match_id", "seat_labels", "hello_names")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    FAULT_POLICY_FIELD_NUMBER: _ClassVar[int]
    MAX_FAULTS_FIELD_NUMBER: _ClassVar[int]
    BOT_CONNECT_MS_FIELD_NUMBER: _ClassVar[int]
    REGISTER_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_LABELS_FIELD_NUMBER: _ClassVar[int]
    HELLO_NAMES_FIELD_NUMBER: _ClassVar[int]
    game: str
    players: int
    variant: _struct_pb2.Struct
    params: _struct_pb2.Struct
    seed: int
    seat_tokens: _containers.RepeatedScalarFieldContainer[str]
    decision_ms: int
    bank_ms: int
    fault_policy: str
    max_faults: int
    bot_connect_ms: int
    register_tokens: _containers.RepeatedScalarFieldContainer[str]
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    match_id: str
    seat_labels: _containers.RepeatedScalarFieldContainer[str]
    hello_names: bool
    def __init__(self, game: _Optional[str] = ..., players: _Optional[int] = ..., variant: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seed: _Optional[int] = ..., seat_tokens: _Optional[_Iterable[str]] = ..., decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., fault_policy: _Optional[str] = ..., max_faults: _Optional[int] = ..., bot_connect_ms: _Optional[int] = ..., register_tokens: _Optional[_Iterable[str]] = ..., seat_names: _Optional[_Iterable[str]] = ..., match_id: _Optional[str] = ..., seat_labels: _Optional[_Iterable[str]] = ..., hello_names: _Optional[bool] = ...) -> None: ...

class RegisterTokensRequest(_message.Message):
    __slots__ = ("tokens",)
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    tokens: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tokens: _Optional[_Iterable[str]] = ...) -> None: ...

class RegisterTokensResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CheckTokensRequest(_message.Message):
    __slots__ = ("tokens", "names")
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    tokens: _containers.RepeatedScalarFieldContainer[str]
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tokens: _Optional[_Iterable[str]] = ..., names: _Optional[_Iterable[str]] = ...) -> None: ...

class CheckTokensResponse(_message.Message):
    __slots__ = ("unknown", "unknown_names", "ambiguous_names", "names_checked", "connected", "connected_names", "connections_checked")
    UNKNOWN_FIELD_NUMBER: _ClassVar[int]
    UNKNOWN_NAMES_FIELD_NUMBER: _ClassVar[int]
    AMBIGUOUS_NAMES_FIELD_NUMBER: _ClassVar[int]
    NAMES_CHECKED_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_NAMES_FIELD_NUMBER: _ClassVar[int]
    CONNECTIONS_CHECKED_FIELD_NUMBER: _ClassVar[int]
    unknown: _containers.RepeatedScalarFieldContainer[int]
    unknown_names: _containers.RepeatedScalarFieldContainer[int]
    ambiguous_names: _containers.RepeatedScalarFieldContainer[int]
    names_checked: bool
    connected: _containers.RepeatedScalarFieldContainer[int]
    connected_names: _containers.RepeatedScalarFieldContainer[int]
    connections_checked: bool
    def __init__(self, unknown: _Optional[_Iterable[int]] = ..., unknown_names: _Optional[_Iterable[int]] = ..., ambiguous_names: _Optional[_Iterable[int]] = ..., names_checked: _Optional[bool] = ..., connected: _Optional[_Iterable[int]] = ..., connected_names: _Optional[_Iterable[int]] = ..., connections_checked: _Optional[bool] = ...) -> None: ...

class RunMatchResponse(_message.Message):
    __slots__ = ("match_id", "status", "result", "log_path", "seat_names")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    LOG_PATH_FIELD_NUMBER: _ClassVar[int]
    SEAT_NAMES_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    status: str
    result: _struct_pb2.Struct
    log_path: str
    seat_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, match_id: _Optional[str] = ..., status: _Optional[str] = ..., result: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., log_path: _Optional[str] = ..., seat_names: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchLogRequest(_message.Message):
    __slots__ = ("match_id", "offset")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    offset: int
    def __init__(self, match_id: _Optional[str] = ..., offset: _Optional[int] = ...) -> None: ...

class MatchLogChunk(_message.Message):
    __slots__ = ("data", "offset")
    DATA_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    offset: int
    def __init__(self, data: _Optional[bytes] = ..., offset: _Optional[int] = ...) -> None: ...

class LadderAddRequest(_message.Message):
    __slots__ = ("name", "command", "token", "persistent")
    NAME_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PERSISTENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    command: str
    token: str
    persistent: bool
    def __init__(self, name: _Optional[str] = ..., command: _Optional[str] = ..., token: _Optional[str] = ..., persistent: _Optional[bool] = ...) -> None: ...

class LadderReplaceRequest(_message.Message):
    __slots__ = ("name", "command", "token", "persistent")
    NAME_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    PERSISTENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    command: str
    token: str
    persistent: bool
    def __init__(self, name: _Optional[str] = ..., command: _Optional[str] = ..., token: _Optional[str] = ..., persistent: _Optional[bool] = ...) -> None: ...

class LadderRetireRequest(_message.Message):
    __slots__ = ("name", "reason")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: str
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class LadderChange(_message.Message):
    __slots__ = ("name", "version", "label", "event_seq")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    EVENT_SEQ_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    label: str
    event_seq: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., label: _Optional[str] = ..., event_seq: _Optional[int] = ...) -> None: ...

class LadderAddResponse(_message.Message):
    __slots__ = ("change",)
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    change: LadderChange
    def __init__(self, change: _Optional[_Union[LadderChange, _Mapping]] = ...) -> None: ...

class LadderReplaceResponse(_message.Message):
    __slots__ = ("change",)
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    change: LadderChange
    def __init__(self, change: _Optional[_Union[LadderChange, _Mapping]] = ...) -> None: ...

class LadderRetireResponse(_message.Message):
    __slots__ = ("change",)
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    change: LadderChange
    def __init__(self, change: _Optional[_Union[LadderChange, _Mapping]] = ...) -> None: ...

class LadderStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LadderEntrant(_message.Message):
    __slots__ = ("name", "version", "label", "state", "reason", "external", "online", "mu", "sigma", "matches")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_FIELD_NUMBER: _ClassVar[int]
    ONLINE_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: int
    label: str
    state: str
    reason: str
    external: bool
    online: bool
    mu: float
    sigma: float
    matches: int
    def __init__(self, name: _Optional[str] = ..., version: _Optional[int] = ..., label: _Optional[str] = ..., state: _Optional[str] = ..., reason: _Optional[str] = ..., external: _Optional[bool] = ..., online: _Optional[bool] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., matches: _Optional[int] = ...) -> None: ...

class LadderStatusResponse(_message.Message):
    __slots__ = ("ladder", "game", "entrants", "matches_finished", "matches_running", "last_event_seq", "waiting_for", "waiting_since", "waiting_until")
    LADDER_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FINISHED_FIELD_NUMBER: _ClassVar[int]
    MATCHES_RUNNING_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_SEQ_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_FIELD_NUMBER: _ClassVar[int]
    WAITING_SINCE_FIELD_NUMBER: _ClassVar[int]
    WAITING_UNTIL_FIELD_NUMBER: _ClassVar[int]
    ladder: str
    game: str
    entrants: _containers.RepeatedCompositeFieldContainer[LadderEntrant]
    matches_finished: int
    matches_running: int
    last_event_seq: int
    waiting_for: str
    waiting_since: float
    waiting_until: float
    def __init__(self, ladder: _Optional[str] = ..., game: _Optional[str] = ..., entrants: _Optional[_Iterable[_Union[LadderEntrant, _Mapping]]] = ..., matches_finished: _Optional[int] = ..., matches_running: _Optional[int] = ..., last_event_seq: _Optional[int] = ..., waiting_for: _Optional[str] = ..., waiting_since: _Optional[float] = ..., waiting_until: _Optional[float] = ...) -> None: ...
