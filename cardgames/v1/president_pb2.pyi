from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PresidentPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PRESIDENT_PHASE_UNSPECIFIED: _ClassVar[PresidentPhase]
    PRESIDENT_PHASE_EXCHANGE: _ClassVar[PresidentPhase]
    PRESIDENT_PHASE_PLAY: _ClassVar[PresidentPhase]
    PRESIDENT_PHASE_OVER: _ClassVar[PresidentPhase]
PRESIDENT_PHASE_UNSPECIFIED: PresidentPhase
PRESIDENT_PHASE_EXCHANGE: PresidentPhase
PRESIDENT_PHASE_PLAY: PresidentPhase
PRESIDENT_PHASE_OVER: PresidentPhase

class PresidentRules(_message.Message):
    __slots__ = ("bigger_sets_beat_lower", "bigger_sets_beat_any", "equal_rank_beats", "equal_rank_skip", "revolution", "jokers", "two_high_low", "transparent_threes", "double_exchange", "later_leader", "target_score", "max_rounds", "first_dealer")
    BIGGER_SETS_BEAT_LOWER_FIELD_NUMBER: _ClassVar[int]
    BIGGER_SETS_BEAT_ANY_FIELD_NUMBER: _ClassVar[int]
    EQUAL_RANK_BEATS_FIELD_NUMBER: _ClassVar[int]
    EQUAL_RANK_SKIP_FIELD_NUMBER: _ClassVar[int]
    REVOLUTION_FIELD_NUMBER: _ClassVar[int]
    JOKERS_FIELD_NUMBER: _ClassVar[int]
    TWO_HIGH_LOW_FIELD_NUMBER: _ClassVar[int]
    TRANSPARENT_THREES_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    LATER_LEADER_FIELD_NUMBER: _ClassVar[int]
    TARGET_SCORE_FIELD_NUMBER: _ClassVar[int]
    MAX_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    bigger_sets_beat_lower: bool
    bigger_sets_beat_any: bool
    equal_rank_beats: bool
    equal_rank_skip: bool
    revolution: bool
    jokers: bool
    two_high_low: bool
    transparent_threes: bool
    double_exchange: bool
    later_leader: str
    target_score: int
    max_rounds: int
    first_dealer: int
    def __init__(self, bigger_sets_beat_lower: _Optional[bool] = ..., bigger_sets_beat_any: _Optional[bool] = ..., equal_rank_beats: _Optional[bool] = ..., equal_rank_skip: _Optional[bool] = ..., revolution: _Optional[bool] = ..., jokers: _Optional[bool] = ..., two_high_low: _Optional[bool] = ..., transparent_threes: _Optional[bool] = ..., double_exchange: _Optional[bool] = ..., later_leader: _Optional[str] = ..., target_score: _Optional[int] = ..., max_rounds: _Optional[int] = ..., first_dealer: _Optional[int] = ...) -> None: ...

class PresidentTop(_message.Message):
    __slots__ = ("count", "rank")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    count: int
    rank: str
    def __init__(self, count: _Optional[int] = ..., rank: _Optional[str] = ...) -> None: ...

class PresidentPlay(_message.Message):
    __slots__ = ("seat", "cards", "auto_pass", "transparent", "top", "revolution", "hand_size", "place")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    AUTO_PASS_FIELD_NUMBER: _ClassVar[int]
    TRANSPARENT_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    REVOLUTION_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    auto_pass: bool
    transparent: bool
    top: PresidentTop
    revolution: bool
    hand_size: int
    place: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., auto_pass: _Optional[bool] = ..., transparent: _Optional[bool] = ..., top: _Optional[_Union[PresidentTop, _Mapping]] = ..., revolution: _Optional[bool] = ..., hand_size: _Optional[int] = ..., place: _Optional[int] = ...) -> None: ...

class PresidentTransfer(_message.Message):
    __slots__ = ("kind", "from_seat", "to_seat", "count", "cards")
    KIND_FIELD_NUMBER: _ClassVar[int]
    FROM_SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_SEAT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    from_seat: int
    to_seat: int
    count: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, kind: _Optional[str] = ..., from_seat: _Optional[int] = ..., to_seat: _Optional[int] = ..., count: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class PresidentObservation(_message.Message):
    __slots__ = ("players", "seat", "rules", "round", "dealer", "first_leader", "roles", "totals", "last_order", "hand", "hand_sizes", "exchange", "return_to", "return_count", "return_optional", "to_act", "trick_leader", "top", "top_seat", "revolution", "trick", "passed", "played", "finished", "phase")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    FIRST_LEADER_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    LAST_ORDER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    RETURN_TO_FIELD_NUMBER: _ClassVar[int]
    RETURN_COUNT_FIELD_NUMBER: _ClassVar[int]
    RETURN_OPTIONAL_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    TRICK_LEADER_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    TOP_SEAT_FIELD_NUMBER: _ClassVar[int]
    REVOLUTION_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    players: int
    seat: int
    rules: PresidentRules
    round: int
    dealer: int
    first_leader: int
    roles: _containers.RepeatedScalarFieldContainer[str]
    totals: _containers.RepeatedScalarFieldContainer[int]
    last_order: _containers.RepeatedScalarFieldContainer[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    exchange: _containers.RepeatedCompositeFieldContainer[PresidentTransfer]
    return_to: int
    return_count: int
    return_optional: bool
    to_act: int
    trick_leader: int
    top: PresidentTop
    top_seat: int
    revolution: bool
    trick: _containers.RepeatedCompositeFieldContainer[PresidentPlay]
    passed: _containers.RepeatedScalarFieldContainer[int]
    played: _containers.RepeatedScalarFieldContainer[str]
    finished: _containers.RepeatedScalarFieldContainer[int]
    phase: PresidentPhase
    def __init__(self, players: _Optional[int] = ..., seat: _Optional[int] = ..., rules: _Optional[_Union[PresidentRules, _Mapping]] = ..., round: _Optional[int] = ..., dealer: _Optional[int] = ..., first_leader: _Optional[int] = ..., roles: _Optional[_Iterable[str]] = ..., totals: _Optional[_Iterable[int]] = ..., last_order: _Optional[_Iterable[int]] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., exchange: _Optional[_Iterable[_Union[PresidentTransfer, _Mapping]]] = ..., return_to: _Optional[int] = ..., return_count: _Optional[int] = ..., return_optional: _Optional[bool] = ..., to_act: _Optional[int] = ..., trick_leader: _Optional[int] = ..., top: _Optional[_Union[PresidentTop, _Mapping]] = ..., top_seat: _Optional[int] = ..., revolution: _Optional[bool] = ..., trick: _Optional[_Iterable[_Union[PresidentPlay, _Mapping]]] = ..., passed: _Optional[_Iterable[int]] = ..., played: _Optional[_Iterable[str]] = ..., finished: _Optional[_Iterable[int]] = ..., phase: _Optional[_Union[PresidentPhase, str]] = ...) -> None: ...

class PresidentRoundStart(_message.Message):
    __slots__ = ("round", "dealer", "leader", "roles", "hand_sizes")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    round: int
    dealer: int
    leader: int
    roles: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., dealer: _Optional[int] = ..., leader: _Optional[int] = ..., roles: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ...) -> None: ...

class PresidentDeal(_message.Message):
    __slots__ = ("round", "hand")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    round: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, round: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ...) -> None: ...

class PresidentExchangeEnd(_message.Message):
    __slots__ = ("hand_sizes", "leader")
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    leader: int
    def __init__(self, hand_sizes: _Optional[_Iterable[int]] = ..., leader: _Optional[int] = ...) -> None: ...

class PresidentTrickEnd(_message.Message):
    __slots__ = ("last_player", "leader")
    LAST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    last_player: int
    leader: int
    def __init__(self, last_player: _Optional[int] = ..., leader: _Optional[int] = ...) -> None: ...

class PresidentRoundEnd(_message.Message):
    __slots__ = ("round", "order", "roles", "deltas", "totals")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ORDER_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    round: int
    order: _containers.RepeatedScalarFieldContainer[int]
    roles: _containers.RepeatedScalarFieldContainer[str]
    deltas: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., order: _Optional[_Iterable[int]] = ..., roles: _Optional[_Iterable[str]] = ..., deltas: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ...) -> None: ...

class PresidentMatchEnd(_message.Message):
    __slots__ = ("rounds_played", "totals", "ranking", "winner")
    ROUNDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    rounds_played: int
    totals: _containers.RepeatedScalarFieldContainer[int]
    ranking: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    def __init__(self, rounds_played: _Optional[int] = ..., totals: _Optional[_Iterable[int]] = ..., ranking: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ...) -> None: ...

class PresidentEvent(_message.Message):
    __slots__ = ("round_start", "deal", "transfer", "exchange_end", "play", "trick_end", "round_end", "match_end")
    ROUND_START_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    TRANSFER_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_END_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    TRICK_END_FIELD_NUMBER: _ClassVar[int]
    ROUND_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    round_start: PresidentRoundStart
    deal: PresidentDeal
    transfer: PresidentTransfer
    exchange_end: PresidentExchangeEnd
    play: PresidentPlay
    trick_end: PresidentTrickEnd
    round_end: PresidentRoundEnd
    match_end: PresidentMatchEnd
    def __init__(self, round_start: _Optional[_Union[PresidentRoundStart, _Mapping]] = ..., deal: _Optional[_Union[PresidentDeal, _Mapping]] = ..., transfer: _Optional[_Union[PresidentTransfer, _Mapping]] = ..., exchange_end: _Optional[_Union[PresidentExchangeEnd, _Mapping]] = ..., play: _Optional[_Union[PresidentPlay, _Mapping]] = ..., trick_end: _Optional[_Union[PresidentTrickEnd, _Mapping]] = ..., round_end: _Optional[_Union[PresidentRoundEnd, _Mapping]] = ..., match_end: _Optional[_Union[PresidentMatchEnd, _Mapping]] = ...) -> None: ...
