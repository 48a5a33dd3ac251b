"""The wire protocol: stubs match the .proto files, buf lint passes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT


def test_generated_stubs_match_protos() -> None:
    r = subprocess.run([sys.executable, "-m", "referee.protogen", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _buf() -> str:
    exe = shutil.which("buf") or str(ROOT / ".venv" / "bin" / "buf")
    if not shutil.which(exe):
        pytest.fail("buf not found: install the test extra (pip install -e '.[test]', which brings buf-bin)")
    return exe


def test_buf_lint_passes() -> None:
    r = subprocess.run([_buf(), "lint"], cwd=ROOT / "protos", capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_protocol_package_is_versioned() -> None:
    from cardgames.v1 import referee_pb2

    assert referee_pb2.DESCRIPTOR.package == "cardgames.v1"
    svc = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"]
    m = svc.methods_by_name["Connect"]
    assert m.client_streaming and m.server_streaming


def test_protocol_doc_reference_is_generated_from_the_protos() -> None:
    r = subprocess.run([sys.executable, "-m", "referee.protodoc", "--check"], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


def test_protodoc_check_catches_a_hand_edit_and_a_missing_comment() -> None:
    from referee import protodoc

    fds = protodoc.descriptor_set()
    doc = protodoc.DOC.read_text()
    generated = protodoc.render(fds)
    assert protodoc.splice(doc, generated) == doc
    edited = doc.replace("| 1 | `seat` | `int32` | Seat that called (0-based). |",
                         "| 1 | `seat` | `int32` | Seat that called. |")
    assert edited != doc and protodoc.splice(edited, generated) != edited
    smear = next(fd for fd in fds.file if fd.name == "cardgames/v1/smear.proto")
    for loc in smear.source_code_info.location:
        if list(loc.path) == [4, 0, 2, 0]:  # first field of the first message
            loc.leading_comments = ""
    with pytest.raises(protodoc.ProtoDocError, match="smear.proto: field SmearVariant.with_joker"):
        protodoc.render(fds)


def test_handwritten_message_tables_match_the_protos() -> None:
    """The tables of referee.proto and admin.proto messages are written by hand (richer text);
    their numbers, names and types are checked against the protos, and none may lack a field."""
    from referee import protodoc

    fds = protodoc.descriptor_set()
    doc = protodoc.DOC.read_text()
    assert protodoc.check_handwritten(doc, fds) == []
    row = "| 3 | `seat` | `int32` | The seat this connection plays in this match (0-based). |"
    assert row in doc
    wrong = doc.replace(row, row.replace("`int32`", "`uint32`"))
    assert any("MatchStarted field 3 is `seat` `int32`" in p for p in protodoc.check_handwritten(wrong, fds))
    dropped = doc.replace(row + "\n", "")
    assert any("MatchStarted lacks field 3" in p for p in protodoc.check_handwritten(dropped, fds))


V1_IMAGE = ROOT / "protos" / "cardgames-v1.binpb"


def _breaking(protos: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_buf(), "breaking", "--against", str(V1_IMAGE)], cwd=protos, capture_output=True,
                          text=True, timeout=120)


def test_v1_is_frozen_against_the_released_image() -> None:
    """cardgames.v1 as released (protos/cardgames-v1.binpb): from then on only additive changes pass."""
    assert V1_IMAGE.is_file(), "the released v1 image is missing"
    r = _breaking(ROOT / "protos")
    assert r.returncode == 0, "not an additive change to cardgames.v1 (put it in cardgames.v2):\n" + r.stdout + r.stderr


def test_buf_breaking_accepts_an_added_field_and_rejects_a_renamed_one(tmp_path: Path) -> None:
    protos = tmp_path / "protos"
    shutil.copytree(ROOT / "protos", protos)
    ref = protos / "cardgames" / "v1" / "referee.proto"
    text = ref.read_text()
    assert "  string reason = 1;\n}" in text
    ref.write_text(text.replace("  string reason = 1;\n}", "  string reason = 1;\n  string detail = 2;\n}"))
    assert _breaking(protos).returncode == 0  # additive
    ref.write_text(text.replace("  string reason = 1;\n}", "  string why = 1;\n}"))
    r = _breaking(protos)
    assert r.returncode != 0 and "reason" in r.stdout + r.stderr
