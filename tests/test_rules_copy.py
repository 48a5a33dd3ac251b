"""docs/rules is a byte-identical copy of the authoritative specs in ../shared/rules."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, SHARED_RULES

from referee.games import GAME_IDS

COPY = ROOT / "docs" / "rules"


def _files(root: Path) -> dict[str, bytes]:
    """The spec files under root (``*.md`` and ``vectors/*.json``), relative path -> bytes."""
    paths = [*root.glob("*.md"), *root.glob("vectors/*.json")]
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in paths if p.name != "README.md"}


def test_the_copy_holds_every_games_spec_and_vectors() -> None:
    names = set(_files(COPY))
    assert "CONVENTIONS.md" in names
    for game in GAME_IDS:
        assert {f"{game}.md", f"vectors/{game}.json"} <= names, game


def test_the_copy_is_identical_to_shared_rules() -> None:
    if not SHARED_RULES.is_dir():  # a clone on its own: the copy is all there is
        return
    shared, copy = _files(SHARED_RULES), _files(COPY)
    assert sorted(copy) == sorted(shared), "docs/rules lists other files than ../shared/rules"
    differ = [name for name in shared if shared[name] != copy[name]]
    assert not differ, f"docs/rules differs from ../shared/rules in {differ}: copy them over"
