from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.transports._support import LineageServer


@pytest.fixture
def server() -> Iterator[LineageServer]:
    srv = LineageServer()
    yield srv
    srv.stop()
