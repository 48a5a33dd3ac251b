from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TractorPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRACTOR_PHASE_UNSPECIFIED: _ClassVar[TractorPhase]
    TRACTOR_PHASE_DECLARE: _ClassVar[TractorPhase]
    TRACTOR_PHASE_BURY: _ClassVar[TractorPhase]
    TRACTOR_PHASE_PLAY: _ClassVar[TractorPhase]
    TRACTOR_PHASE_OVER: _ClassVar[TractorPhase]
TRACTOR_PHASE_UNSPECIFIED: TractorPhase
TRACTOR_PHASE_DECLARE: TractorPhase
TRACTOR_PHASE_BURY: TractorPhase
TRACTOR_PHASE_PLAY: TractorPhase
TRACTOR_PHASE_OVER: TractorPhase

class TractorDeclaration(_message.Message):
    __slots__ = ("seat", "cards", "kind", "strength", "reinforcement", "trump_suit", "cards_dealt")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    REINFORCEMENT_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    CARDS_DEALT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    kind: str
    strength: int
    reinforcement: bool
    trump_suit: str
    cards_dealt: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., kind: _Optional[str] = ..., strength: _Optional[int] = ..., reinforcement: _Optional[bool] = ..., trump_suit: _Optional[str] = ..., cards_dealt: _Optional[int] = ...) -> None: ...

class TractorPlay(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class TractorThrowFailure(_message.Message):
    __slots__ = ("seat", "attempted", "forced", "penalty", "defender_points_delta")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTED_FIELD_NUMBER: _ClassVar[int]
    FORCED_FIELD_NUMBER: _ClassVar[int]
    PENALTY_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_POINTS_DELTA_FIELD_NUMBER: _ClassVar[int]
    seat: int
    attempted: _containers.RepeatedScalarFieldContainer[str]
    forced: _containers.RepeatedScalarFieldContainer[str]
    penalty: int
    defender_points_delta: int
    def __init__(self, seat: _Optional[int] = ..., attempted: _Optional[_Iterable[str]] = ..., forced: _Optional[_Iterable[str]] = ..., penalty: _Optional[int] = ..., defender_points_delta: _Optional[int] = ...) -> None: ...

class TractorTrick(_message.Message):
    __slots__ = ("number", "leader", "plays", "lead_type", "lead_suit", "throw_failure", "winner", "points")
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    LEAD_TYPE_FIELD_NUMBER: _ClassVar[int]
    LEAD_SUIT_FIELD_NUMBER: _ClassVar[int]
    THROW_FAILURE_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    number: int
    leader: int
    plays: _containers.RepeatedCompositeFieldContainer[TractorPlay]
    lead_type: str
    lead_suit: str
    throw_failure: TractorThrowFailure
    winner: int
    points: int
    def __init__(self, number: _Optional[int] = ..., leader: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[TractorPlay, _Mapping]]] = ..., lead_type: _Optional[str] = ..., lead_suit: _Optional[str] = ..., throw_failure: _Optional[_Union[TractorThrowFailure, _Mapping]] = ..., winner: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class TractorRoundResult(_message.Message):
    __slots__ = ("round_number", "declarer_team", "starter", "trump_rank", "trump_suit", "kitty", "kitty_points", "kitty_multiplier", "kitty_bonus", "trick_points", "penalty_points", "defender_points", "team_up", "levels_up", "levels", "next_declarer_team", "next_starter", "match_over", "winner_team", "draw")
    ROUND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DECLARER_TEAM_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    TRUMP_RANK_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    KITTY_FIELD_NUMBER: _ClassVar[int]
    KITTY_POINTS_FIELD_NUMBER: _ClassVar[int]
    KITTY_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    KITTY_BONUS_FIELD_NUMBER: _ClassVar[int]
    TRICK_POINTS_FIELD_NUMBER: _ClassVar[int]
    PENALTY_POINTS_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_POINTS_FIELD_NUMBER: _ClassVar[int]
    TEAM_UP_FIELD_NUMBER: _ClassVar[int]
    LEVELS_UP_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    NEXT_DECLARER_TEAM_FIELD_NUMBER: _ClassVar[int]
    NEXT_STARTER_FIELD_NUMBER: _ClassVar[int]
    MATCH_OVER_FIELD_NUMBER: _ClassVar[int]
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    round_number: int
    declarer_team: int
    starter: int
    trump_rank: str
    trump_suit: str
    kitty: _containers.RepeatedScalarFieldContainer[str]
    kitty_points: int
    kitty_multiplier: int
    kitty_bonus: int
    trick_points: int
    penalty_points: int
    defender_points: int
    team_up: int
    levels_up: int
    levels: _containers.RepeatedScalarFieldContainer[str]
    next_declarer_team: int
    next_starter: int
    match_over: bool
    winner_team: int
    draw: bool
    def __init__(self, round_number: _Optional[int] = ..., declarer_team: _Optional[int] = ..., starter: _Optional[int] = ..., trump_rank: _Optional[str] = ..., trump_suit: _Optional[str] = ..., kitty: _Optional[_Iterable[str]] = ..., kitty_points: _Optional[int] = ..., kitty_multiplier: _Optional[int] = ..., kitty_bonus: _Optional[int] = ..., trick_points: _Optional[int] = ..., penalty_points: _Optional[int] = ..., defender_points: _Optional[int] = ..., team_up: _Optional[int] = ..., levels_up: _Optional[int] = ..., levels: _Optional[_Iterable[str]] = ..., next_declarer_team: _Optional[int] = ..., next_starter: _Optional[int] = ..., match_over: _Optional[bool] = ..., winner_team: _Optional[int] = ..., draw: _Optional[bool] = ...) -> None: ...

class TractorObservation(_message.Message):
    __slots__ = ("seat", "hand", "round_number", "deal_number", "levels", "trump_rank", "declarer_team", "starter", "first_drawer", "cards_dealt", "final_window", "declaration_closed", "declarations", "trump_suit", "kitty_flipped", "kitty_taken", "kitty_buried", "hand_sizes", "tricks", "current_trick", "defender_points", "last_round", "notrump_rank_cards_trump", "must_follow_tractor", "kitty_multiplier_power", "must_play_ace", "no_throw_penalty", "max_rounds", "max_round1_deals", "phase")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    ROUND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_RANK_FIELD_NUMBER: _ClassVar[int]
    DECLARER_TEAM_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    FIRST_DRAWER_FIELD_NUMBER: _ClassVar[int]
    CARDS_DEALT_FIELD_NUMBER: _ClassVar[int]
    FINAL_WINDOW_FIELD_NUMBER: _ClassVar[int]
    DECLARATION_CLOSED_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    KITTY_FLIPPED_FIELD_NUMBER: _ClassVar[int]
    KITTY_TAKEN_FIELD_NUMBER: _ClassVar[int]
    KITTY_BURIED_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    TRICKS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TRICK_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_POINTS_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_FIELD_NUMBER: _ClassVar[int]
    NOTRUMP_RANK_CARDS_TRUMP_FIELD_NUMBER: _ClassVar[int]
    MUST_FOLLOW_TRACTOR_FIELD_NUMBER: _ClassVar[int]
    KITTY_MULTIPLIER_POWER_FIELD_NUMBER: _ClassVar[int]
    MUST_PLAY_ACE_FIELD_NUMBER: _ClassVar[int]
    NO_THROW_PENALTY_FIELD_NUMBER: _ClassVar[int]
    MAX_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    MAX_ROUND1_DEALS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    round_number: int
    deal_number: int
    levels: _containers.RepeatedScalarFieldContainer[str]
    trump_rank: str
    declarer_team: int
    starter: int
    first_drawer: int
    cards_dealt: int
    final_window: bool
    declaration_closed: bool
    declarations: _containers.RepeatedCompositeFieldContainer[TractorDeclaration]
    trump_suit: str
    kitty_flipped: _containers.RepeatedScalarFieldContainer[str]
    kitty_taken: _containers.RepeatedScalarFieldContainer[str]
    kitty_buried: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    tricks: _containers.RepeatedCompositeFieldContainer[TractorTrick]
    current_trick: TractorTrick
    defender_points: int
    last_round: TractorRoundResult
    notrump_rank_cards_trump: bool
    must_follow_tractor: bool
    kitty_multiplier_power: bool
    must_play_ace: bool
    no_throw_penalty: bool
    max_rounds: int
    max_round1_deals: int
    phase: TractorPhase
    def __init__(self, seat: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., round_number: _Optional[int] = ..., deal_number: _Optional[int] = ..., levels: _Optional[_Iterable[str]] = ..., trump_rank: _Optional[str] = ..., declarer_team: _Optional[int] = ..., starter: _Optional[int] = ..., first_drawer: _Optional[int] = ..., cards_dealt: _Optional[int] = ..., final_window: _Optional[bool] = ..., declaration_closed: _Optional[bool] = ..., declarations: _Optional[_Iterable[_Union[TractorDeclaration, _Mapping]]] = ..., trump_suit: _Optional[str] = ..., kitty_flipped: _Optional[_Iterable[str]] = ..., kitty_taken: _Optional[_Iterable[str]] = ..., kitty_buried: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., tricks: _Optional[_Iterable[_Union[TractorTrick, _Mapping]]] = ..., current_trick: _Optional[_Union[TractorTrick, _Mapping]] = ..., defender_points: _Optional[int] = ..., last_round: _Optional[_Union[TractorRoundResult, _Mapping]] = ..., notrump_rank_cards_trump: _Optional[bool] = ..., must_follow_tractor: _Optional[bool] = ..., kitty_multiplier_power: _Optional[bool] = ..., must_play_ace: _Optional[bool] = ..., no_throw_penalty: _Optional[bool] = ..., max_rounds: _Optional[int] = ..., max_round1_deals: _Optional[int] = ..., phase: _Optional[_Union[TractorPhase, str]] = ...) -> None: ...

class TractorRoundStart(_message.Message):
    __slots__ = ("round_number", "deal_number", "first_drawer", "levels", "trump_rank", "declarer_team", "starter")
    ROUND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    FIRST_DRAWER_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    TRUMP_RANK_FIELD_NUMBER: _ClassVar[int]
    DECLARER_TEAM_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    round_number: int
    deal_number: int
    first_drawer: int
    levels: _containers.RepeatedScalarFieldContainer[str]
    trump_rank: str
    declarer_team: int
    starter: int
    def __init__(self, round_number: _Optional[int] = ..., deal_number: _Optional[int] = ..., first_drawer: _Optional[int] = ..., levels: _Optional[_Iterable[str]] = ..., trump_rank: _Optional[str] = ..., declarer_team: _Optional[int] = ..., starter: _Optional[int] = ...) -> None: ...

class TractorCardDealt(_message.Message):
    __slots__ = ("index", "seat", "card")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    index: int
    seat: int
    card: str
    def __init__(self, index: _Optional[int] = ..., seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class TractorDeclarePass(_message.Message):
    __slots__ = ("seat", "cards_dealt")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_DEALT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards_dealt: int
    def __init__(self, seat: _Optional[int] = ..., cards_dealt: _Optional[int] = ...) -> None: ...

class TractorDeclarationClosed(_message.Message):
    __slots__ = ("outcome", "standing", "trump_suit", "declarer_team", "starter")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    DECLARER_TEAM_FIELD_NUMBER: _ClassVar[int]
    STARTER_FIELD_NUMBER: _ClassVar[int]
    outcome: str
    standing: TractorDeclaration
    trump_suit: str
    declarer_team: int
    starter: int
    def __init__(self, outcome: _Optional[str] = ..., standing: _Optional[_Union[TractorDeclaration, _Mapping]] = ..., trump_suit: _Optional[str] = ..., declarer_team: _Optional[int] = ..., starter: _Optional[int] = ...) -> None: ...

class TractorKittyFlip(_message.Message):
    __slots__ = ("flipped", "trump_suit")
    FLIPPED_FIELD_NUMBER: _ClassVar[int]
    TRUMP_SUIT_FIELD_NUMBER: _ClassVar[int]
    flipped: _containers.RepeatedScalarFieldContainer[str]
    trump_suit: str
    def __init__(self, flipped: _Optional[_Iterable[str]] = ..., trump_suit: _Optional[str] = ...) -> None: ...

class TractorKittyTaken(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class TractorKittyBuried(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class TractorPlayed(_message.Message):
    __slots__ = ("trick", "lead", "play", "lead_type", "lead_suit")
    TRICK_FIELD_NUMBER: _ClassVar[int]
    LEAD_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    LEAD_TYPE_FIELD_NUMBER: _ClassVar[int]
    LEAD_SUIT_FIELD_NUMBER: _ClassVar[int]
    trick: int
    lead: bool
    play: TractorPlay
    lead_type: str
    lead_suit: str
    def __init__(self, trick: _Optional[int] = ..., lead: _Optional[bool] = ..., play: _Optional[_Union[TractorPlay, _Mapping]] = ..., lead_type: _Optional[str] = ..., lead_suit: _Optional[str] = ...) -> None: ...

class TractorTrickEnd(_message.Message):
    __slots__ = ("trick", "winner", "points", "defenders_won", "defender_points")
    TRICK_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    DEFENDERS_WON_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_POINTS_FIELD_NUMBER: _ClassVar[int]
    trick: int
    winner: int
    points: int
    defenders_won: bool
    defender_points: int
    def __init__(self, trick: _Optional[int] = ..., winner: _Optional[int] = ..., points: _Optional[int] = ..., defenders_won: _Optional[bool] = ..., defender_points: _Optional[int] = ...) -> None: ...

class TractorMatchEnd(_message.Message):
    __slots__ = ("winner_team", "draw", "passed_ace", "levels", "rounds_played")
    WINNER_TEAM_FIELD_NUMBER: _ClassVar[int]
    DRAW_FIELD_NUMBER: _ClassVar[int]
    PASSED_ACE_FIELD_NUMBER: _ClassVar[int]
    LEVELS_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    winner_team: int
    draw: bool
    passed_ace: bool
    levels: _containers.RepeatedScalarFieldContainer[str]
    rounds_played: int
    def __init__(self, winner_team: _Optional[int] = ..., draw: _Optional[bool] = ..., passed_ace: _Optional[bool] = ..., levels: _Optional[_Iterable[str]] = ..., rounds_played: _Optional[int] = ...) -> None: ...

class TractorEvent(_message.Message):
    __slots__ = ("round_start", "card_dealt", "declare_pass", "declaration", "declaration_closed", "kitty_flip", "kitty_taken", "kitty_buried", "throw_failure", "play", "trick_end", "round_end", "match_end")
    ROUND_START_FIELD_NUMBER: _ClassVar[int]
    CARD_DEALT_FIELD_NUMBER: _ClassVar[int]
    DECLARE_PASS_FIELD_NUMBER: _ClassVar[int]
    DECLARATION_FIELD_NUMBER: _ClassVar[int]
    DECLARATION_CLOSED_FIELD_NUMBER: _ClassVar[int]
    KITTY_FLIP_FIELD_NUMBER: _ClassVar[int]
    KITTY_TAKEN_FIELD_NUMBER: _ClassVar[int]
    KITTY_BURIED_FIELD_NUMBER: _ClassVar[int]
    THROW_FAILURE_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    TRICK_END_FIELD_NUMBER: _ClassVar[int]
    ROUND_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    round_start: TractorRoundStart
    card_dealt: TractorCardDealt
    declare_pass: TractorDeclarePass
    declaration: TractorDeclaration
    declaration_closed: TractorDeclarationClosed
    kitty_flip: TractorKittyFlip
    kitty_taken: TractorKittyTaken
    kitty_buried: TractorKittyBuried
    throw_failure: TractorThrowFailure
    play: TractorPlayed
    trick_end: TractorTrickEnd
    round_end: TractorRoundResult
    match_end: TractorMatchEnd
    def __init__(self, round_start: _Optional[_Union[TractorRoundStart, _Mapping]] = ..., card_dealt: _Optional[_Union[TractorCardDealt, _Mapping]] = ..., declare_pass: _Optional[_Union[TractorDeclarePass, _Mapping]] = ..., declaration: _Optional[_Union[TractorDeclaration, _Mapping]] = ..., declaration_closed: _Optional[_Union[TractorDeclarationClosed, _Mapping]] = ..., kitty_flip: _Optional[_Union[TractorKittyFlip, _Mapping]] = ..., kitty_taken: _Optional[_Union[TractorKittyTaken, _Mapping]] = ..., kitty_buried: _Optional[_Union[TractorKittyBuried, _Mapping]] = ..., throw_failure: _Optional[_Union[TractorThrowFailure, _Mapping]] = ..., play: _Optional[_Union[TractorPlayed, _Mapping]] = ..., trick_end: _Optional[_Union[TractorTrickEnd, _Mapping]] = ..., round_end: _Optional[_Union[TractorRoundResult, _Mapping]] = ..., match_end: _Optional[_Union[TractorMatchEnd, _Mapping]] = ...) -> None: ...
