from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SmearPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SMEAR_PHASE_UNSPECIFIED: _ClassVar[SmearPhase]
    SMEAR_PHASE_AUCTION: _ClassVar[SmearPhase]
    SMEAR_PHASE_PLAY: _ClassVar[SmearPhase]
    SMEAR_PHASE_OVER: _ClassVar[SmearPhase]
SMEAR_PHASE_UNSPECIFIED: SmearPhase
SMEAR_PHASE_AUCTION: SmearPhase
SMEAR_PHASE_PLAY: SmearPhase
SMEAR_PHASE_OVER: SmearPhase

class SmearVariant(_message.Message):
    __slots__ = ("with_joker", "dealer_forced_bid", "low_to_taker", "strict_follow")
    WITH_JOKER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FORCED_BID_FIELD_NUMBER: _ClassVar[int]
    LOW_TO_TAKER_FIELD_NUMBER: _ClassVar[int]
    STRICT_FOLLOW_FIELD_NUMBER: _ClassVar[int]
    with_joker: bool
    dealer_forced_bid: bool
    low_to_taker: bool
    strict_follow: bool
    def __init__(self, with_joker: _Optional[bool] = ..., dealer_forced_bid: _Optional[bool] = ..., low_to_taker: _Optional[bool] = ..., strict_follow: _Optional[bool] = ...) -> None: ...

class SmearCall(_message.Message):
    __slots__ = ("seat", "bid")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bid: int
    def __init__(self, seat: _Optional[int] = ..., bid: _Optional[int] = ...) -> None: ...

class SmearPlay(_message.Message):
    __slots__ = ("seat", "card", "trick")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    trick: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., trick: _Optional[int] = ...) -> None: ...

class SmearTrick(_message.Message):
    __slots__ = ("index", "leader", "cards", "winner")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    index: int
    leader: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    winner: int
    def __init__(self, index: _Optional[int] = ..., leader: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., winner: _Optional[int] = ...) -> None: ...

class SmearObservation(_message.Message):
    __slots__ = ("seat", "players", "variant", "target", "max_rounds", "round", "dealer", "scores", "phase", "hand", "hand_sizes", "calls", "bidder", "bid", "trump", "leader", "trick", "tricks", "winner")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    MAX_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    BIDDER_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    players: int
    variant: SmearVariant
    target: int
    max_rounds: int
    round: int
    dealer: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    phase: SmearPhase
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    calls: _containers.RepeatedCompositeFieldContainer[SmearCall]
    bidder: int
    bid: int
    trump: str
    leader: int
    trick: _containers.RepeatedCompositeFieldContainer[SmearPlay]
    tricks: _containers.RepeatedCompositeFieldContainer[SmearTrick]
    winner: int
    def __init__(self, seat: _Optional[int] = ..., players: _Optional[int] = ..., variant: _Optional[_Union[SmearVariant, _Mapping]] = ..., target: _Optional[int] = ..., max_rounds: _Optional[int] = ..., round: _Optional[int] = ..., dealer: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., phase: _Optional[_Union[SmearPhase, str]] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., calls: _Optional[_Iterable[_Union[SmearCall, _Mapping]]] = ..., bidder: _Optional[int] = ..., bid: _Optional[int] = ..., trump: _Optional[str] = ..., leader: _Optional[int] = ..., trick: _Optional[_Iterable[_Union[SmearPlay, _Mapping]]] = ..., tricks: _Optional[_Iterable[_Union[SmearTrick, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class SmearRoundStart(_message.Message):
    __slots__ = ("round", "dealer", "scores", "hand_sizes")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    round: int
    dealer: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., dealer: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., hand_sizes: _Optional[_Iterable[int]] = ...) -> None: ...

class SmearDeal(_message.Message):
    __slots__ = ("round", "seat", "hand")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    round: int
    seat: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, round: _Optional[int] = ..., seat: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ...) -> None: ...

class SmearAuctionEnd(_message.Message):
    __slots__ = ("passed_out", "bidder", "bid")
    PASSED_OUT_FIELD_NUMBER: _ClassVar[int]
    BIDDER_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    passed_out: bool
    bidder: int
    bid: int
    def __init__(self, passed_out: _Optional[bool] = ..., bidder: _Optional[int] = ..., bid: _Optional[int] = ...) -> None: ...

class SmearTrump(_message.Message):
    __slots__ = ("suit", "seat")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    suit: str
    seat: int
    def __init__(self, suit: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class SmearRoundItems(_message.Message):
    __slots__ = ("high", "low", "jack", "game", "high_card", "low_card", "game_points", "points")
    HIGH_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    JACK_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    HIGH_CARD_FIELD_NUMBER: _ClassVar[int]
    LOW_CARD_FIELD_NUMBER: _ClassVar[int]
    GAME_POINTS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    high: int
    low: int
    jack: int
    game: int
    high_card: str
    low_card: str
    game_points: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, high: _Optional[int] = ..., low: _Optional[int] = ..., jack: _Optional[int] = ..., game: _Optional[int] = ..., high_card: _Optional[str] = ..., low_card: _Optional[str] = ..., game_points: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ...) -> None: ...

class SmearRoundEnd(_message.Message):
    __slots__ = ("round", "passed_out", "bidder", "bid", "trump", "items", "made", "deltas", "scores", "winner")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PASSED_OUT_FIELD_NUMBER: _ClassVar[int]
    BIDDER_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    MADE_FIELD_NUMBER: _ClassVar[int]
    DELTAS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    round: int
    passed_out: bool
    bidder: int
    bid: int
    trump: str
    items: SmearRoundItems
    made: bool
    deltas: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    winner: int
    def __init__(self, round: _Optional[int] = ..., passed_out: _Optional[bool] = ..., bidder: _Optional[int] = ..., bid: _Optional[int] = ..., trump: _Optional[str] = ..., items: _Optional[_Union[SmearRoundItems, _Mapping]] = ..., made: _Optional[bool] = ..., deltas: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ..., winner: _Optional[int] = ...) -> None: ...

class SmearMatchEnd(_message.Message):
    __slots__ = ("winner", "scores", "ranks", "rounds")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    winner: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    rounds: int
    def __init__(self, winner: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ..., rounds: _Optional[int] = ...) -> None: ...

class SmearEvent(_message.Message):
    __slots__ = ("round_start", "deal", "call", "auction_end", "play", "trump", "trick_end", "round_end", "match_end")
    ROUND_START_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    CALL_FIELD_NUMBER: _ClassVar[int]
    AUCTION_END_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    TRICK_END_FIELD_NUMBER: _ClassVar[int]
    ROUND_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    round_start: SmearRoundStart
    deal: SmearDeal
    call: SmearCall
    auction_end: SmearAuctionEnd
    play: SmearPlay
    trump: SmearTrump
    trick_end: SmearTrick
    round_end: SmearRoundEnd
    match_end: SmearMatchEnd
    def __init__(self, round_start: _Optional[_Union[SmearRoundStart, _Mapping]] = ..., deal: _Optional[_Union[SmearDeal, _Mapping]] = ..., call: _Optional[_Union[SmearCall, _Mapping]] = ..., auction_end: _Optional[_Union[SmearAuctionEnd, _Mapping]] = ..., play: _Optional[_Union[SmearPlay, _Mapping]] = ..., trump: _Optional[_Union[SmearTrump, _Mapping]] = ..., trick_end: _Optional[_Union[SmearTrick, _Mapping]] = ..., round_end: _Optional[_Union[SmearRoundEnd, _Mapping]] = ..., match_end: _Optional[_Union[SmearMatchEnd, _Mapping]] = ...) -> None: ...
