from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DouDizhuPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DOU_DIZHU_PHASE_UNSPECIFIED: _ClassVar[DouDizhuPhase]
    DOU_DIZHU_PHASE_AUCTION: _ClassVar[DouDizhuPhase]
    DOU_DIZHU_PHASE_PLAY: _ClassVar[DouDizhuPhase]
    DOU_DIZHU_PHASE_OVER: _ClassVar[DouDizhuPhase]
DOU_DIZHU_PHASE_UNSPECIFIED: DouDizhuPhase
DOU_DIZHU_PHASE_AUCTION: DouDizhuPhase
DOU_DIZHU_PHASE_PLAY: DouDizhuPhase
DOU_DIZHU_PHASE_OVER: DouDizhuPhase

class DouDizhuCall(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class DouDizhuPlay(_message.Message):
    __slots__ = ("seat", "cards", "combination", "rank", "length")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    COMBINATION_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    combination: str
    rank: str
    length: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., combination: _Optional[str] = ..., rank: _Optional[str] = ..., length: _Optional[int] = ...) -> None: ...

class DouDizhuObservation(_message.Message):
    __slots__ = ("players", "round", "rounds", "scores", "hand", "hand_sizes", "marker", "first_bidder", "calls", "landlord", "bid", "kitty", "trick", "top", "top_seat", "doublings", "multiplier", "played", "seat", "spring", "history", "results", "high_bid", "passes", "phase")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    MARKER_FIELD_NUMBER: _ClassVar[int]
    FIRST_BIDDER_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    LANDLORD_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    TOP_SEAT_FIELD_NUMBER: _ClassVar[int]
    DOUBLINGS_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SPRING_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    HIGH_BID_FIELD_NUMBER: _ClassVar[int]
    PASSES_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    players: int
    round: int
    rounds: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    marker: str
    first_bidder: int
    calls: _containers.RepeatedCompositeFieldContainer[DouDizhuCall]
    landlord: int
    bid: int
    kitty: _containers.RepeatedScalarFieldContainer[str]
    trick: _containers.RepeatedCompositeFieldContainer[DouDizhuPlay]
    top: _containers.RepeatedScalarFieldContainer[str]
    top_seat: int
    doublings: int
    multiplier: int
    played: _containers.RepeatedScalarFieldContainer[str]
    seat: int
    spring: bool
    history: _containers.RepeatedCompositeFieldContainer[DouDizhuPlay]
    results: _containers.RepeatedCompositeFieldContainer[DouDizhuRoundEnd]
    high_bid: int
    passes: int
    phase: DouDizhuPhase
    def __init__(self, players: _Optional[int] = ..., round: _Optional[int] = ..., rounds: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., marker: _Optional[str] = ..., first_bidder: _Optional[int] = ..., calls: _Optional[_Iterable[_Union[DouDizhuCall, _Mapping]]] = ..., landlord: _Optional[int] = ..., bid: _Optional[int] = ..., kitty: _Optional[_Iterable[str]] = ..., trick: _Optional[_Iterable[_Union[DouDizhuPlay, _Mapping]]] = ..., top: _Optional[_Iterable[str]] = ..., top_seat: _Optional[int] = ..., doublings: _Optional[int] = ..., multiplier: _Optional[int] = ..., played: _Optional[_Iterable[str]] = ..., seat: _Optional[int] = ..., spring: _Optional[bool] = ..., history: _Optional[_Iterable[_Union[DouDizhuPlay, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[DouDizhuRoundEnd, _Mapping]]] = ..., high_bid: _Optional[int] = ..., passes: _Optional[int] = ..., phase: _Optional[_Union[DouDizhuPhase, str]] = ...) -> None: ...

class DouDizhuRoundStart(_message.Message):
    __slots__ = ("round", "marker", "first_bidder", "hand_sizes")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    MARKER_FIELD_NUMBER: _ClassVar[int]
    FIRST_BIDDER_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    round: int
    marker: str
    first_bidder: int
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., marker: _Optional[str] = ..., first_bidder: _Optional[int] = ..., hand_sizes: _Optional[_Iterable[int]] = ...) -> None: ...

class DouDizhuDeal(_message.Message):
    __slots__ = ("round", "seat", "hand")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    round: int
    seat: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, round: _Optional[int] = ..., seat: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ...) -> None: ...

class DouDizhuAuctionEnd(_message.Message):
    __slots__ = ("redeal", "landlord", "bid", "kitty")
    REDEAL_FIELD_NUMBER: _ClassVar[int]
    LANDLORD_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    redeal: bool
    landlord: int
    bid: int
    kitty: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, redeal: _Optional[bool] = ..., landlord: _Optional[int] = ..., bid: _Optional[int] = ..., kitty: _Optional[_Iterable[str]] = ...) -> None: ...

class DouDizhuTrickEnd(_message.Message):
    __slots__ = ("leader",)
    LEADER_FIELD_NUMBER: _ClassVar[int]
    leader: int
    def __init__(self, leader: _Optional[int] = ...) -> None: ...

class DouDizhuRoundEnd(_message.Message):
    __slots__ = ("round", "winner", "landlord_won", "multiplier", "spring", "deltas", "scores", "redeal", "landlord", "bid", "doublings")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    LANDLORD_WON_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    SPRING_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    REDEAL_FIELD_NUMBER: _ClassVar[int]
    LANDLORD_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    DOUBLINGS_FIELD_NUMBER: _ClassVar[int]
    round: int
    winner: int
    landlord_won: bool
    multiplier: int
    spring: bool
    deltas: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    redeal: bool
    landlord: int
    bid: int
    doublings: int
    def __init__(self, round: _Optional[int] = ..., winner: _Optional[int] = ..., landlord_won: _Optional[bool] = ..., multiplier: _Optional[int] = ..., spring: _Optional[bool] = ..., deltas: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., redeal: _Optional[bool] = ..., landlord: _Optional[int] = ..., bid: _Optional[int] = ..., doublings: _Optional[int] = ...) -> None: ...

class DouDizhuMatchEnd(_message.Message):
    __slots__ = ("scores", "ranks")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ...) -> None: ...

class DouDizhuEvent(_message.Message):
    __slots__ = ("round_start", "deal", "call", "auction_end", "play", "trick_end", "round_end", "match_end")
    ROUND_START_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    AUCTION_END_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    TRICK_END_FIELD_NUMBER: _ClassVar[int]
    ROUND_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    round_start: DouDizhuRoundStart
    deal: DouDizhuDeal
    call: DouDizhuCall
    auction_end: DouDizhuAuctionEnd
    play: DouDizhuPlay
    trick_end: DouDizhuTrickEnd
    round_end: DouDizhuRoundEnd
    match_end: DouDizhuMatchEnd
    def __init__(self, round_start: _Optional[_Union[DouDizhuRoundStart, _Mapping]] = ..., deal: _Optional[_Union[DouDizhuDeal, _Mapping]] = ..., call: _Optional[_Union[DouDizhuCall, _Mapping]] = ..., auction_end: _Optional[_Union[DouDizhuAuctionEnd, _Mapping]] = ..., play: _Optional[_Union[DouDizhuPlay, _Mapping]] = ..., trick_end: _Optional[_Union[DouDizhuTrickEnd, _Mapping]] = ..., round_end: _Optional[_Union[DouDizhuRoundEnd, _Mapping]] = ..., match_end: _Optional[_Union[DouDizhuMatchEnd, _Mapping]] = ...) -> None: ...
