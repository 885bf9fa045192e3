"""Dataset name trimming: the rules the JVM agent and the official clients share."""

from __future__ import annotations

import pytest

from openlineage_sdk import naming
from openlineage_sdk.naming import TRIMMERS, trim_dataset_name


@pytest.mark.parametrize(
    ("name", "trimmed"),
    [
        ("/data/events/dt=2025-09-01", "/data/events"),
        ("/data/events/dt=2025-09-01/hour=03", "/data/events"),
        ("/tmp/rdd_c/20251030", "/tmp/rdd_c"),
        ("/tmp/t/2025-07-22", "/tmp/t"),
        ("/tmp/t/22.07.2025", "/tmp/t"),
        ("/tmp/t/20250722T0901Z", "/tmp/t"),
        ("/tmp/t/2025-07-22T09:01:00.000Z", "/tmp/t"),
        ("/tmp/t/2025/07/22", "/tmp/t"),
        ("/tmp/t/2025/07", "/tmp/t"),
        ("/tmp/t/202507", "/tmp/t"),
        ("/tmp/t/2025-07", "/tmp/t"),
        ("bucket/t/dt=1/", "bucket/t"),
        # Never the root, never a folder that only looks like a date.
        ("/20250721", "/20250721"),
        ("/dt=1", "/dt=1"),
        ("/tmp/t/20251399", "/tmp/t/20251399"),
        ("/tmp/t/2025-13", "/tmp/t/2025-13"),
        ("/tmp/t/a=b=c", "/tmp/t/a=b=c"),
        ("/tmp/t/v2025-07-22x", "/tmp/t/v2025-07-22x"),
        ("/tmp/orders", "/tmp/orders"),
        ("orders", "orders"),
        ("", ""),
    ],
)
def test_default_trimmers(name: str, trimmed: str) -> None:
    assert trim_dataset_name(name) == trimmed


def test_chosen_trimmers_only() -> None:
    assert trim_dataset_name("/t/dt=1/20250101", [TRIMMERS["date"]]) == "/t/dt=1"
    assert trim_dataset_name("/t/dt=1/20250101", []) == "/t/dt=1/20250101"


def test_a_misbehaving_trimmer_cannot_lengthen_or_loop() -> None:
    assert trim_dataset_name("/t/x", [lambda name: name + "/y"]) == "/t/x"
    flip = {"/t/a": "/t/b", "/t/b": "/t/a"}
    assert trim_dataset_name("/t/a", [lambda name: flip.get(name, name)]) == "/t/a"


def test_exported_from_naming() -> None:
    assert naming.trim_dataset_name is trim_dataset_name
