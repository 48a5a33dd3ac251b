"""Back Alley (shared/rules/back_alley.md): 4 players in two partnerships,
25 rounds of 13 down to 1 and back up to 13 cards, one bid per seat,
trick play with the Blooper jokers.

``GAME`` is the engine class (:class:`.game.BackAlley`); the pure rule
functions live in :mod:`.rules`, the event records in :mod:`.events`, what a
seat is sent (protocol messages) in :mod:`.view`, the conformance queries
in :mod:`.conformance`; then :mod:`.meta` (its labels, roles and round
lines), :mod:`.replay` (the replay viewer's renderer) and :mod:`.envs` (the
game in the training environments).
"""

from .game import BackAlley

GAME = BackAlley

__all__ = ["GAME", "BackAlley"]
