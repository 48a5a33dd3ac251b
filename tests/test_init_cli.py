"""``referee init``: what it copies, that every example runs from the copy, and
that it never overwrites without ``--force``. (The installed wheel's own
``referee init``, run end to end: tests/test_wheel.py.)"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from conftest import PY, ROOT
from referee.botcommand import check_command
from referee.initcli import init_examples


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "referee.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_init_copies_every_example_with_the_files_its_bots_need(tmp_path: Path) -> None:
    written = {p.relative_to(tmp_path).as_posix() for p in init_examples(tmp_path)}
    examples = sorted((ROOT / "tournaments" / "examples").rglob("*.toml"))
    assert {f"tournaments/{p.relative_to(ROOT / 'tournaments').as_posix()}" for p in examples} <= written
    for f in ("sample_bots/cpp/bot.cc", "sample_bots/cpp/Makefile", "sample_bots/node/bot.js",
              "sample_bots/node/package.json", "sample_bots/node/package-lock.json",
              "sample_bots/heuristics/tractor.py", "protos/cardgames/v1/referee.proto",
              "protos/cardgames/v1/doudizhu.proto", "docs/protocol.md", "docs/games/smear.md",
              "sample_bots/cpp/README.md", "sample_bots/node/README.md",  # the set-up referee init points to
              "docs/rules/README.md", "docs/rules/CONVENTIONS.md", "docs/rules/smear.md",
              "docs/rules/vectors/smear.json"):
        assert f in written, f"{f} not copied"
    assert not [f for f in written if {"node_modules", "build", "__pycache__"} & set(f.split("/"))]
    for p in examples:  # every bot of every example starts from the copy, with its paths relative to it
        for bot in tomllib.loads(p.read_text())["bots"]:
            assert check_command(bot["command"], cwd=tmp_path) is None, (p.name, bot)


def test_init_writes_the_readme_with_links_that_work_from_the_copy(tmp_path: Path) -> None:
    """README.md goes to DIR/README.md (docs/ point to its sections), where its links into
    docs/ and sample_bots/ resolve."""
    written = {p.relative_to(tmp_path).as_posix() for p in init_examples(tmp_path)}
    assert "README.md" in written and "docs/README.md" not in written
    text = (tmp_path / "README.md").read_text()
    assert text == (ROOT / "README.md").read_text()
    links = {m for m in re.findall(r"\]\(([^)#\s]+)[^)]*\)", text) if "://" not in m}
    assert {"docs/tournaments.md", "sample_bots/cpp/README.md"} <= links
    assert [link for link in sorted(links) if not (tmp_path / link).exists()] == []


def test_init_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    mine = tmp_path / "sample_bots" / "random_bot.py"
    mine.parent.mkdir()
    mine.write_text("# mine\n")
    with pytest.raises(FileExistsError, match="random_bot.py already exists; nothing was written"):
        init_examples(tmp_path)
    assert mine.read_text() == "# mine\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["random_bot.py", "sample_bots"]
    init_examples(tmp_path, force=True)
    assert mine.read_text() == (ROOT / "sample_bots" / "random_bot.py").read_text()


def test_init_command_prints_the_next_command_and_refuses_a_second_run(tmp_path: Path) -> None:
    r = _cli("init", "my examples", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "  cd 'my examples'\n  referee tournament run tournaments/examples/doudizhu.toml\n" in r.stdout
    assert "make -C sample_bots/cpp" in r.stdout and "(cd sample_bots/node && npm ci)" in r.stdout
    assert (tmp_path / "my examples" / "tournaments" / "examples" / "doudizhu.toml").is_file()
    again = _cli("init", "my examples", cwd=tmp_path)
    assert again.returncode == 1
    assert "already exist; nothing was written (--force overwrites them" in again.stderr
    assert "Traceback" not in again.stderr
    assert _cli("init", "my examples", "--force", cwd=tmp_path).returncode == 0


def test_init_into_a_file_says_so_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("a file\n")
    for target in ("notes.txt", "notes.txt/sub"):
        r = _cli("init", target, cwd=tmp_path)
        assert r.returncode == 1 and r.stdout == "", r.stdout
        assert r.stderr == f"error: {target}: notes.txt is a file, not a directory\n", r.stderr
    assert (tmp_path / "notes.txt").read_text() == "a file\n"
