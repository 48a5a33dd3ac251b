"""Tractor (Sheng Ji / 80 Points) engine, spec shared/rules/tractor.md (ruleset ``tractor/1``).

Modules: :mod:`.rules` (pure rule functions shared with the conformance
queries), :mod:`.game` (the :class:`TractorGame` match state machine),
:mod:`.conformance` (spec section 15 queries).
"""

from referee.games.tractor.game import TractorGame

GAME = TractorGame

__all__ = ["GAME", "TractorGame"]
