"""Tractor (Sheng Ji / 80 Points) engine, spec shared/rules/tractor.md (ruleset ``tractor/1``).

Modules: :mod:`.rules` (pure rule functions shared with the conformance
queries), :mod:`.game` (the :class:`TractorGame` match state machine),
:mod:`.events` (its event records), :mod:`.view` (what a seat is sent, as
protocol messages), :mod:`.conformance` (spec section 15 queries),
:mod:`.meta` (its labels, roles and round lines), :mod:`.replay` (the replay
viewer's renderer) and :mod:`.envs` (the game in the training environments,
with the oracles of its incompletely listed decisions).
"""

from referee.games.tractor.game import TractorGame

GAME = TractorGame

__all__ = ["GAME", "TractorGame"]
