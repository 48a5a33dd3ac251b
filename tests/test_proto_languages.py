"""The .proto files work in the languages bot authors use, not only Python.

- C++: protoc + grpc_cpp_plugin generate code for every file and g++ compiles
  all of it (syntax and semantics: ``-fsyntax-only`` instantiates what the
  generated code uses), against the system's protobuf and gRPC headers.
- protoc's other built-in generators (Java, Kotlin, C#, Objective-C, PHP,
  Ruby, Python) and the gRPC plugins Debian ships generate without error or
  warning.
- No message, field, oneof or enum value is named with a keyword that a
  generator must rename (``private`` -> C++ ``private_()``, ``auto``, ...).

The C++ toolchain is the system one (Debian: protobuf-compiler,
protobuf-compiler-grpc, libgrpc++-dev, libprotobuf-dev, pkg-config, g++;
.ci/run installs them). Everything is generated in a temporary directory.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import ROOT

PROTOS = ROOT / "protos"
PROTO_FILES = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))


def _tool(name: str) -> str:
    exe = shutil.which(name)
    if exe is None:
        pytest.fail(f"{name} not found: install protobuf-compiler, protobuf-compiler-grpc, libgrpc++-dev, "
                    "libprotobuf-dev, pkg-config and g++ (.ci/run does)")
    return exe


def _protoc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_tool("protoc"), f"-I{PROTOS}", *args, *PROTO_FILES],
                          capture_output=True, text=True, timeout=120)


def _cxx_flags() -> list[str]:
    r = subprocess.run([_tool("pkg-config"), "--cflags", "grpc++", "protobuf"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return ["-std=c++17", *r.stdout.split()]


def test_cpp_stubs_compile(tmp_path: Path) -> None:
    r = _protoc(f"--cpp_out={tmp_path}", f"--grpc_out={tmp_path}",
                f"--plugin=protoc-gen-grpc={_tool('grpc_cpp_plugin')}")
    assert r.returncode == 0 and not r.stderr, r.stderr
    sources = sorted(tmp_path.rglob("*.cc"))
    # one .pb.cc and one .grpc.pb.cc per .proto file
    assert len(sources) == 2 * len(PROTO_FILES), sources
    flags = [*_cxx_flags(), f"-I{tmp_path}"]
    # The library headers every generated file includes, parsed once into a
    # precompiled header: halves the CPU time of the compiles below.
    system = sorted({m for src in tmp_path.rglob("*.[hc]*")
                     for m in re.findall(r"^#include (<[^>]+>)", src.read_text(), re.M)
                     if not m.endswith(".inc>")})
    pch = tmp_path / "system.h"
    pch.write_text("".join(f"#include {h}\n" for h in system))
    r = subprocess.run([_tool("g++"), *flags, "-x", "c++-header", str(pch), "-o", f"{pch}.gch"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr

    def compile_one(src: Path) -> str:
        c = subprocess.run([_tool("g++"), *flags, "-include", str(pch), "-fsyntax-only", str(src)],
                           capture_output=True, text=True, timeout=600)
        return "" if c.returncode == 0 else f"{src.relative_to(tmp_path)}:\n{c.stderr[:4000]}"

    with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as ex:
        errors = [e for e in ex.map(compile_one, sources) if e]
    assert not errors, "generated C++ does not compile:\n" + "\n".join(errors)


# protoc's built-in generators (besides C++) and the gRPC plugins of protobuf-compiler-grpc
BUILTIN = ["java", "kotlin", "csharp", "objc", "php", "ruby", "python", "pyi"]
GRPC_PLUGINS = ["python", "php", "ruby"]


@pytest.mark.parametrize("lang", BUILTIN)
def test_builtin_generator_runs_clean(lang: str, tmp_path: Path) -> None:
    r = _protoc(f"--{lang}_out={tmp_path}")
    assert r.returncode == 0 and not r.stderr, r.stderr
    assert any(p.is_file() for p in tmp_path.rglob("*")), f"protoc --{lang}_out wrote nothing"


@pytest.mark.parametrize("lang", GRPC_PLUGINS)
def test_grpc_plugin_runs_clean(lang: str, tmp_path: Path) -> None:
    r = _protoc(f"--grpc_out={tmp_path}", f"--plugin=protoc-gen-grpc={_tool(f'grpc_{lang}_plugin')}")
    assert r.returncode == 0 and not r.stderr, r.stderr


# Reserved words of languages whose generators keep field names as written
# (snake_case or lowerCamelCase) and so must rename a field called like one.
# Java, C# and Go capitalise (getPrivate, Private), so their lists do not matter.
KEYWORDS = {
    "C++": """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
        char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
        co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern
        false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr
        operator or or_eq private protected public register reinterpret_cast requires return short signed
        sizeof static static_assert static_cast struct switch template this thread_local throw true try
        typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq
        NULL major minor""",
    "Python": """False None True and as assert async await break class continue def del elif else except
        finally for from global if import in is lambda nonlocal not or pass raise return try while with
        yield""",
    "JavaScript": """break case catch class const continue debugger default delete do else enum export
        extends false finally for function if import in instanceof new null return super switch this throw
        true try typeof var void while with yield let static implements interface package private
        protected public await arguments eval""",
    "Rust": """as break const continue crate else enum extern false fn for if impl in let loop match mod
        move mut pub ref return self static struct super trait true type unsafe use where while async
        await dyn abstract become box do final macro override priv typeof unsized virtual yield try""",
    "Swift": """associatedtype class deinit enum extension fileprivate func import init inout internal let
        open operator private protocol public rethrows static struct subscript typealias var break case
        continue default defer do else fallthrough for guard if in repeat return switch where while as
        catch false is nil super self throw throws true try""",
    "Kotlin": """as break class continue do else false for fun if in interface is null object package
        return super this throw true try typealias typeof val var when while""",
}


def _names() -> dict[str, str]:
    """Every field, oneof and enum value name of the protocol -> where it is."""
    from cardgames.v1 import admin_pb2, referee_pb2

    out: dict[str, str] = {}

    def message(m) -> None:  # noqa: ANN001 - protobuf descriptor
        for f in m.fields:
            out.setdefault(f.name, f.full_name)
        for o in m.oneofs:
            out.setdefault(o.name, o.full_name)
        for n in m.nested_types:
            message(n)

    files = [referee_pb2.DESCRIPTOR, admin_pb2.DESCRIPTOR, *referee_pb2.DESCRIPTOR.dependencies]
    for fd in files:
        if not fd.package.startswith("cardgames."):
            continue
        for m in fd.message_types_by_name.values():
            message(m)
        for e in fd.enum_types_by_name.values():
            for v in e.values:
                out.setdefault(v.name, f"{e.full_name}.{v.name}")
    return out


def _lower_camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def test_no_name_is_a_keyword_generators_rename() -> None:
    names = _names()
    assert "match_id" in names and "DECISION_KIND_PLAY" in names  # the walk found the protocol
    clashes = [f"{where}: {lang} keyword {n!r}"
               for name, where in sorted(names.items())
               for n in {name, _lower_camel(name)}
               for lang, words in KEYWORDS.items() if n in words.split()]
    assert not clashes, "rename these fields (generators rename keywords):\n" + "\n".join(clashes)
