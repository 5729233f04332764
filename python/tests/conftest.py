"""Shared helpers: where the vector files are, and how to load them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

# python/tests -> the repository root (override with BLOCKMODES_VECTORS).
ROOT = Path(__file__).resolve().parents[2]
VECTORS = Path(os.environ.get("BLOCKMODES_VECTORS", ROOT / "vectors"))


def vector_files() -> list[Path]:
    """Every vector file: vectors/*.json, vectors/independent/*.json,
    vectors/negative/*.json (when present) and the whole-sector files in
    vectors/independent/sectors/."""
    files = sorted(VECTORS.glob("*.json"))
    files += sorted((VECTORS / "independent").glob("*.json"))
    files += sorted((VECTORS / "negative").glob("*.json"))
    files += sorted((VECTORS / "independent" / "sectors").glob("*.json"))
    return files


def load(path: Path) -> dict:
    with open(path) as f:
        return json.load(f)


def h(s: str) -> bytes:
    return bytes.fromhex(s)


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    if not VECTORS.is_dir():
        pytest.fail(f"vector directory not found: {VECTORS} (set BLOCKMODES_VECTORS)")
    return VECTORS
