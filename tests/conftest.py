"""Shared paths and data for the test suite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CONFORMANCE = DATA / "conformance"
SPEC = ROOT / "spec"


def load_manifest() -> list[dict[str, Any]]:
    with (CONFORMANCE / "manifest.json").open(encoding="utf-8") as handle:
        manifest: list[dict[str, Any]] = json.load(handle)
    return manifest


@pytest.fixture
def root() -> Path:
    return ROOT
