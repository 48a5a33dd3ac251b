"""The High Card engine: pure, on the contract of :mod:`referee.engine`."""

from __future__ import annotations

import copy
import random
from typing import Any

from referee.engine import PLAY, Action, Game, IllegalAction, MatchResult, RatingOutcome, ranks_from_scores

from . import events as E

PACK = ("2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S")


class HighCard(Game):
    """State: ``hands``, ``stock`` (undealt), ``trick`` (cards played this
    round, in seat order of play), ``scores``, ``round``, ``rounds`` (the
    summary's list of ``{"leader", "winner"}``)."""

    name = "toy"
    player_counts = (2, 3)
    ruleset = "toy/1"
    param_defaults = {"rounds": 12}

    def __init__(self, players: int, variant: dict[str, Any] | None, params: dict[str, Any] | None,
                 rng: random.Random):
        super().__init__(players, variant, params, rng)
        self.scores = [0] * players
        self.round = 0
        self.rounds: list[dict[str, int]] = []
        self.leader = 0
        self._deal()

    def _deal(self) -> None:
        self.round += 1
        pack = list(PACK)
        self.rng.shuffle(pack)
        n = self.players
        self.hands = [pack[2 * s:2 * s + 2] for s in range(n)]
        self.stock = pack[2 * n:]
        self.trick: list[tuple[int, str]] = []
        self._to_act: int | None = self.leader
        self.emit(E.RoundStart(self.round, self.leader))
        for s in range(n):
            self.emit(E.Deal(s, tuple(self.hands[s])), to=s)

    @property
    def to_act(self) -> int | None:
        return self._to_act

    def _decision_kind(self) -> str:
        return PLAY

    def _legal_actions(self) -> tuple[tuple[Action, ...], bool]:
        return tuple(Action(PLAY, (c,)) for c in sorted(self.hands[self._to_act])), True

    def _fallback_action(self) -> Action:
        return self.legal_actions().actions[0]

    def _validate(self, seat: int, action: Action) -> None:
        if seat != self._to_act:
            raise IllegalAction("TURN", f"it is seat {self._to_act}'s turn")
        if action.kind != PLAY or action.amount or len(action.cards) != 1 or action.cards[0] not in self.hands[seat]:
            raise IllegalAction("PLAY", "play one card of your hand")

    def _apply(self, seat: int, action: Action) -> None:
        self._validate(seat, action)
        card = action.cards[0]
        self.hands[seat].remove(card)
        self.trick.append((seat, card))
        self.emit(E.Play(seat, card))
        if len(self.trick) < self.players:
            self._to_act = (seat + 1) % self.players
            return
        winner = max(self.trick, key=lambda p: PACK.index(p[1]))[0]
        self.scores[winner] += 1
        self.rounds.append({"leader": self.leader, "winner": winner})
        self.emit(E.RoundEnd(self.round, winner, tuple(self.scores)))
        if self.round >= self.params["rounds"]:
            self._to_act = None
            return
        self.leader = (winner + 1) % self.players
        self._deal()

    def result(self) -> MatchResult:
        if self._to_act is not None:
            raise RuntimeError("toy: the match is not over")
        ranks = ranks_from_scores(self.scores)
        return MatchResult([float(x) for x in self.scores], ranks,
                           [RatingOutcome([[s] for s in range(self.players)], [r - 1 for r in ranks])],
                           {"rounds": list(self.rounds)})

    def deck(self) -> tuple[str, ...]:
        return PACK

    def card_zones(self) -> dict[str, tuple[str, ...]]:
        z = {f"hand{s}": tuple(h) for s, h in enumerate(self.hands)}
        z["stock"] = tuple(self.stock)
        z["trick"] = tuple(c for _, c in self.trick)
        return z

    def hidden_zones(self, seat: int) -> dict[str, list[str]]:
        z = {f"hand{s}": list(h) for s, h in enumerate(self.hands) if s != seat}
        z["stock"] = list(self.stock)
        return z

    def with_hidden_zones(self, zones: dict[str, list[str]]) -> "HighCard":
        g = copy.deepcopy(self)
        for k, cards in zones.items():
            if k == "stock":
                g.stock = list(cards)
            else:
                g.hands[int(k[4:])] = list(cards)
        return g
