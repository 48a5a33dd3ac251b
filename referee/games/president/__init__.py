"""President / Scum (shared/rules/president.md): the rules engine.

Modules: :mod:`.rules` (pure rule functions: ranks, legality, effects,
roles, deal, exchange, match end), :mod:`.play` (the trick machinery of one
round, spec 6.9), :mod:`.game` (the match engine), :mod:`.events` (its
event records), :mod:`.view` (what a seat is sent, as protocol messages),
:mod:`.conformance` (answers to the spec's conformance queries, using the
same code), :mod:`.meta` (its labels, roles and round lines), :mod:`.replay`
(the replay viewer's renderer) and :mod:`.envs` (the game in the training
environments).
"""

from .game import PresidentGame

GAME = PresidentGame

__all__ = ["GAME", "PresidentGame"]
