from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BackAlleyPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BACK_ALLEY_PHASE_UNSPECIFIED: _ClassVar[BackAlleyPhase]
    BACK_ALLEY_PHASE_BIDDING: _ClassVar[BackAlleyPhase]
    BACK_ALLEY_PHASE_PLAY: _ClassVar[BackAlleyPhase]
    BACK_ALLEY_PHASE_OVER: _ClassVar[BackAlleyPhase]

class BackAlleyBidKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BACK_ALLEY_BID_KIND_UNSPECIFIED: _ClassVar[BackAlleyBidKind]
    BACK_ALLEY_BID_KIND_PASS: _ClassVar[BackAlleyBidKind]
    BACK_ALLEY_BID_KIND_NUMBER: _ClassVar[BackAlleyBidKind]
    BACK_ALLEY_BID_KIND_BOARD: _ClassVar[BackAlleyBidKind]
BACK_ALLEY_PHASE_UNSPECIFIED: BackAlleyPhase
BACK_ALLEY_PHASE_BIDDING: BackAlleyPhase
BACK_ALLEY_PHASE_PLAY: BackAlleyPhase
BACK_ALLEY_PHASE_OVER: BackAlleyPhase
BACK_ALLEY_BID_KIND_UNSPECIFIED: BackAlleyBidKind
BACK_ALLEY_BID_KIND_PASS: BackAlleyBidKind
BACK_ALLEY_BID_KIND_NUMBER: BackAlleyBidKind
BACK_ALLEY_BID_KIND_BOARD: BackAlleyBidKind

class BackAlleyBid(_message.Message):
    __slots__ = ("seat", "kind", "tricks", "board_level")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    BOARD_LEVEL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: BackAlleyBidKind
    tricks: int
    board_level: int
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[BackAlleyBidKind, str]] = ..., tricks: _Optional[int] = ..., board_level: _Optional[int] = ...) -> None: ...

class BackAlleyContract(_message.Message):
    __slots__ = ("team", "board", "board_level", "tricks")
    TEAM_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    BOARD_LEVEL_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    team: int
    board: bool
    board_level: int
    tricks: int
    def __init__(self, team: _Optional[int] = ..., board: _Optional[bool] = ..., board_level: _Optional[int] = ..., tricks: _Optional[int] = ...) -> None: ...

class BackAlleyPlay(_message.Message):
    __slots__ = ("seat", "card", "trick_number", "position")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    TRICK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    trick_number: int
    position: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., trick_number: _Optional[int] = ..., position: _Optional[int] = ...) -> None: ...

class BackAlleyTrick(_message.Message):
    __slots__ = ("number", "leader", "plays", "winner")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    number: int
    leader: int
    plays: _containers.RepeatedCompositeFieldContainer[BackAlleyPlay]
    winner: int
    def __init__(self, number: _Optional[int] = ..., leader: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[BackAlleyPlay, _Mapping]]] = ..., winner: _Optional[int] = ...) -> None: ...

class BackAlleyObservation(_message.Message):
    __slots__ = ("seat", "phase", "round_index", "round_hand_size", "last_round", "dealer", "passed_out_in_row", "totals", "upcard", "trump", "exchange_seat", "laid_out_joker", "hand", "hand_counts", "bids", "contracts", "opening_leader", "completed_tricks", "current_trick", "team_tricks", "trumps_broken", "to_act")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ROUND_INDEX_FIELD_NUMBER: _ClassVar[int]
    ROUND_HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PASSED_OUT_IN_ROW_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    UPCARD_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_SEAT_FIELD_NUMBER: _ClassVar[int]
    LAID_OUT_JOKER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_COUNTS_FIELD_NUMBER: _ClassVar[int]
    BIDS_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    OPENING_LEADER_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_TRICKS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TRICK_FIELD_NUMBER: _ClassVar[int]
    TEAM_TRICKS_FIELD_NUMBER: _ClassVar[int]
    TRUMPS_BROKEN_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    phase: BackAlleyPhase
    round_index: int
    round_hand_size: int
    last_round: int
    dealer: int
    passed_out_in_row: int
    totals: _containers.RepeatedScalarFieldContainer[int]
    upcard: str
    trump: str
    exchange_seat: int
    laid_out_joker: str
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_counts: _containers.RepeatedScalarFieldContainer[int]
    bids: _containers.RepeatedCompositeFieldContainer[BackAlleyBid]
    contracts: _containers.RepeatedCompositeFieldContainer[BackAlleyContract]
    opening_leader: int
    completed_tricks: _containers.RepeatedCompositeFieldContainer[BackAlleyTrick]
    current_trick: BackAlleyTrick
    team_tricks: _containers.RepeatedScalarFieldContainer[int]
    trumps_broken: bool
    to_act: int
    def __init__(self, seat: _Optional[int] = ..., phase: _Optional[_Union[BackAlleyPhase, str]] = ..., round_index: _Optional[int] = ..., round_hand_size: _Optional[int] = ..., last_round: _Optional[int] = ..., dealer: _Optional[int] = ..., passed_out_in_row: _Optional[int] = ..., totals: _Optional[_Iterable[int]] = ..., upcard: _Optional[str] = ..., trump: _Optional[str] = ..., exchange_seat: _Optional[int] = ..., laid_out_joker: _Optional[str] = ..., hand: _Optional[_Iterable[str]] = ..., hand_counts: _Optional[_Iterable[int]] = ..., bids: _Optional[_Iterable[_Union[BackAlleyBid, _Mapping]]] = ..., contracts: _Optional[_Iterable[_Union[BackAlleyContract, _Mapping]]] = ..., opening_leader: _Optional[int] = ..., completed_tricks: _Optional[_Iterable[_Union[BackAlleyTrick, _Mapping]]] = ..., current_trick: _Optional[_Union[BackAlleyTrick, _Mapping]] = ..., team_tricks: _Optional[_Iterable[int]] = ..., trumps_broken: _Optional[bool] = ..., to_act: _Optional[int] = ...) -> None: ...

class BackAlleyRoundStart(_message.Message):
    __slots__ = ("round_index", "hand_size", "dealer", "passed_out_in_row", "upcard", "trump")
    ROUND_INDEX_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PASSED_OUT_IN_ROW_FIELD_NUMBER: _ClassVar[int]
    UPCARD_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    round_index: int
    hand_size: int
    dealer: int
    passed_out_in_row: int
    upcard: str
    trump: str
    def __init__(self, round_index: _Optional[int] = ..., hand_size: _Optional[int] = ..., dealer: _Optional[int] = ..., passed_out_in_row: _Optional[int] = ..., upcard: _Optional[str] = ..., trump: _Optional[str] = ...) -> None: ...

class BackAlleyDeal(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class BackAlleyJokerExchange(_message.Message):
    __slots__ = ("seat", "joker")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    JOKER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    joker: str
    def __init__(self, seat: _Optional[int] = ..., joker: _Optional[str] = ...) -> None: ...

class BackAlleyDraw(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class BackAlleyBiddingEnd(_message.Message):
    __slots__ = ("passed_out", "contracts", "opening_leader")
    PASSED_OUT_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    OPENING_LEADER_FIELD_NUMBER: _ClassVar[int]
    passed_out: bool
    contracts: _containers.RepeatedCompositeFieldContainer[BackAlleyContract]
    opening_leader: int
    def __init__(self, passed_out: _Optional[bool] = ..., contracts: _Optional[_Iterable[_Union[BackAlleyContract, _Mapping]]] = ..., opening_leader: _Optional[int] = ...) -> None: ...

class BackAlleyTrickEnd(_message.Message):
    __slots__ = ("trick_number", "winner", "winning_card", "team_tricks", "trumps_broken")
    TRICK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    WINNING_CARD_FIELD_NUMBER: _ClassVar[int]
    TEAM_TRICKS_FIELD_NUMBER: _ClassVar[int]
    TRUMPS_BROKEN_FIELD_NUMBER: _ClassVar[int]
    trick_number: int
    winner: int
    winning_card: str
    team_tricks: _containers.RepeatedScalarFieldContainer[int]
    trumps_broken: bool
    def __init__(self, trick_number: _Optional[int] = ..., winner: _Optional[int] = ..., winning_card: _Optional[str] = ..., team_tricks: _Optional[_Iterable[int]] = ..., trumps_broken: _Optional[bool] = ...) -> None: ...

class BackAlleyRoundEnd(_message.Message):
    __slots__ = ("round_index", "hand_size", "dealer", "passed_out", "passed_out_in_row", "index_complete", "team_tricks", "points", "totals", "contracts")
    ROUND_INDEX_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    PASSED_OUT_FIELD_NUMBER: _ClassVar[int]
    PASSED_OUT_IN_ROW_FIELD_NUMBER: _ClassVar[int]
    INDEX_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    TEAM_TRICKS_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_FIELD_NUMBER: _ClassVar[int]
    round_index: int
    hand_size: int
    dealer: int
    passed_out: bool
    passed_out_in_row: int
    index_complete: bool
    team_tricks: _containers.RepeatedScalarFieldContainer[int]
    points: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    contracts: _containers.RepeatedCompositeFieldContainer[BackAlleyContract]
    def __init__(self, round_index: _Optional[int] = ..., hand_size: _Optional[int] = ..., dealer: _Optional[int] = ..., passed_out: _Optional[bool] = ..., passed_out_in_row: _Optional[int] = ..., index_complete: _Optional[bool] = ..., team_tricks: _Optional[_Iterable[int]] = ..., points: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ..., contracts: _Optional[_Iterable[_Union[BackAlleyContract, _Mapping]]] = ...) -> None: ...

class BackAlleyMatchEnd(_message.Message):
    __slots__ = ("totals", "winner_team")
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    winner_team: int
    def __init__(self, totals: _Optional[_Iterable[int]] = ..., winner_team: _Optional[int] = ...) -> None: ...

class BackAlleyEvent(_message.Message):
    __slots__ = ("round_start", "deal", "exchange", "draw", "bid", "bidding_end", "play", "trick_end", "round_end", "match_end")
    ROUND_START_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    BIDDING_END_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    TRICK_END_FIELD_NUMBER: _ClassVar[int]
    ROUND_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    round_start: BackAlleyRoundStart
    deal: BackAlleyDeal
    exchange: BackAlleyJokerExchange
    draw: BackAlleyDraw
    bid: BackAlleyBid
    bidding_end: BackAlleyBiddingEnd
    play: BackAlleyPlay
    trick_end: BackAlleyTrickEnd
    round_end: BackAlleyRoundEnd
    match_end: BackAlleyMatchEnd
    def __init__(self, round_start: _Optional[_Union[BackAlleyRoundStart, _Mapping]] = ..., deal: _Optional[_Union[BackAlleyDeal, _Mapping]] = ..., exchange: _Optional[_Union[BackAlleyJokerExchange, _Mapping]] = ..., draw: _Optional[_Union[BackAlleyDraw, _Mapping]] = ..., bid: _Optional[_Union[BackAlleyBid, _Mapping]] = ..., bidding_end: _Optional[_Union[BackAlleyBiddingEnd, _Mapping]] = ..., play: _Optional[_Union[BackAlleyPlay, _Mapping]] = ..., trick_end: _Optional[_Union[BackAlleyTrickEnd, _Mapping]] = ..., round_end: _Optional[_Union[BackAlleyRoundEnd, _Mapping]] = ..., match_end: _Optional[_Union[BackAlleyMatchEnd, _Mapping]] = ...) -> None: ...
