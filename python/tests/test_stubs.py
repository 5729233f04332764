"""The type stubs (blockmodes/_native.pyi) name everything the native
module has: a name missing there is an ``attr-defined`` error for mypy in
``blockmodes.files`` and ``blockmodes.hazmat``, which import them."""

from __future__ import annotations

import ast
from pathlib import Path

import blockmodes._native as native

STUB = Path(__file__).resolve().parents[1] / "blockmodes" / "_native.pyi"


def _stub_names() -> set[str]:
    tree = ast.parse(STUB.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_every_native_name_is_in_the_stub():
    runtime = {n for n in dir(native) if not (n.startswith("__") and n.endswith("__"))}
    runtime.add("__version__")
    assert sorted(runtime - _stub_names()) == []


def test_native_functions_match_the_stub_parameters():
    import inspect

    tree = ast.parse(STUB.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and hasattr(native, node.name):
            stub = [a.arg for a in node.args.args]
            got = list(inspect.signature(getattr(native, node.name)).parameters)
            assert stub == got, node.name
