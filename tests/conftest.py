"""Shared paths, data and servers for the test suite."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.transports._support import LineageServer

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


@pytest.fixture
def server() -> Iterator[LineageServer]:
    """A real HTTP server on loopback that speaks the OpenLineage API and can misbehave."""
    srv = LineageServer()
    yield srv
    srv.stop()
