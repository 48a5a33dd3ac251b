"""High Card, a toy game for tests/test_game_packages.py: a game package as
docs/adding-a-game.md describes it, kept outside ``referee/games/``. The test
adds its parent directory to the registry's package path and its id to
``GAME_IDS``, and nothing else.

Each round every seat is dealt two cards of an 8-card pack and plays one;
the highest card wins the round and a point. The seat after the round's
winner leads the next round.
"""

from .game import HighCard

GAME = HighCard

__all__ = ["GAME", "HighCard"]
