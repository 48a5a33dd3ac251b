"""Regenerate the Python protocol stubs from ``protos/``.

Usage: ``python -m referee.protogen`` (writes ``cardgames/v1/*_pb2*.py`` and a
copy of each ``.proto`` beside them, so that the wheel ships the protocol
and ``referee bot new`` works after a plain ``pip install``) or
``python -m referee.protogen --check`` (exit 1 if the committed stubs differ
from what the ``.proto`` files generate; the test suite runs this).

The stubs are committed so that a bot author needs only ``pip install`` of
this package (or their own ``protoc`` run on ``protos/``); ``grpcio-tools``
is a test/development dependency only.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT


def proto_files() -> list[Path]:
    """All ``.proto`` files under ``protos/``, sorted (relative to ``protos/``)."""
    return sorted(p.relative_to(PROTOS) for p in PROTOS.rglob("*.proto"))


def generate(out_dir: Path) -> None:
    """Run protoc (from grpcio-tools) into ``out_dir``; raises RuntimeError on failure."""
    # grpcio-tools is a development dependency (the [test] extra), not installed with the referee
    from grpc_tools import protoc  # type: ignore[import-untyped]
    import grpc_tools

    include = Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{PROTOS}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *[str(p) for p in proto_files()],
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed: " + " ".join(args))
    for p in proto_files():  # the protocol itself ships inside the package (package-data *.proto)
        (out_dir / p).write_bytes((PROTOS / p).read_bytes())
    for pkg in {out_dir / p.parent for p in proto_files()} | {out_dir / "cardgames"}:
        init = pkg / "__init__.py"
        if not init.exists():
            init.write_text('"""Generated protocol stubs (do not edit; see referee/protogen.py)."""\n')


def _generated(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted((root / "cardgames").rglob("*"))
        if p.is_file() and p.suffix in (".py", ".pyi", ".proto") and "__pycache__" not in p.parts
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    ns = ap.parse_args(argv)
    if not ns.check:
        generate(OUT)
        print(f"generated {len(_generated(OUT))} files under {OUT / 'cardgames'}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        want, have = _generated(Path(tmp)), _generated(OUT)
    bad = sorted(k for k in want.keys() | have.keys() if want.get(k) != have.get(k))
    for k in bad:
        print(f"stale generated stub: {k}", file=sys.stderr)
    if bad:
        print("run: python -m referee.protogen", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
