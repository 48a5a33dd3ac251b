"""Words of the text people read (pages, terminal lines, error messages)."""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``noun`` for a count ``n`` of exactly 1, else its plural: ``nouns``, or
    ``noun + "s"`` (``plural(1, "card")`` -> ``"card"``, ``plural(0, "card")`` ->
    ``"cards"``, ``plural(2, "match", "matches")`` -> ``"matches"``). The caller
    writes the number itself, in the format it wants (``f"{n:,} {plural(n, 'bot')}"``)."""
    return noun if n == 1 else (nouns if nouns is not None else noun + "s")


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """The closest of ``known`` to a misspelt ``word`` as `` (did you mean
    `command`?)`` (with a leading space), or ``""`` when none is close
    (``difflib.get_close_matches``, its default cutoff 0.6)."""
    close = get_close_matches(word, list(known), n=1)
    return f" (did you mean `{close[0]}`?)" if close else ""


def counts_text(values: Iterable[int]) -> str:
    """Allowed counts (sorted, distinct) as words: ``"4"``, ``"3 or 4"``, a
    run of three or more consecutive values as ``"4 to 7"``, else ``"3, 4
    or 6"`` (``f"played by {counts_text((4, 5, 6, 7))} players"``)."""
    vs = sorted(set(values))
    if len(vs) >= 3 and vs[-1] - vs[0] == len(vs) - 1:
        return f"{vs[0]} to {vs[-1]}"
    words = [str(v) for v in vs]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
