"""Words of the text people read (pages, terminal lines, error messages)."""

from __future__ import annotations


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``noun`` for a count ``n`` of exactly 1, else its plural: ``nouns``, or
    ``noun + "s"`` (``plural(1, "card")`` -> ``"card"``, ``plural(0, "card")`` ->
    ``"cards"``, ``plural(2, "match", "matches")`` -> ``"matches"``). The caller
    writes the number itself, in the format it wants (``f"{n:,} {plural(n, 'bot')}"``)."""
    return noun if n == 1 else (nouns if nouns is not None else noun + "s")
