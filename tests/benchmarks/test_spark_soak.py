"""The soak benchmark (``python -m benchmarks spark --soak``): its verdict, and its output's shape.

The verdict's arithmetic is checked on made-up samples; the whole mode runs once with tiny
counts on a local driver of its own (slow), and its printed tables are read back.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.spark_soak import FLAT_MIB, Sample, verdict

ROOT = Path(__file__).resolve().parents[2]


def _samples(rss: list[float], heap: list[float], every: int = 500) -> list[Sample]:
    return [
        Sample(i * every, float(i), r, h, 1000, 100.0)
        for i, (r, h) in enumerate(zip(rss, heap, strict=True))
    ]


def test_memory_that_settles_after_the_warm_up_is_flat() -> None:
    # A big first step (the first micro-batches load classes and fill caches), then noise.
    samples = _samples([100, 160, 161, 159, 162, 160], [2, 9, 9.1, 9.0, 9.2, 9.1])
    result = verdict(samples, warmup=1000)
    assert result.flat
    assert result.after == 1000
    assert result.rss_range == pytest.approx(3.0)
    assert result.heap_range == pytest.approx(0.2)


def test_memory_that_keeps_growing_is_not_flat_and_its_slope_says_how_fast() -> None:
    # 2 MiB of Python heap per 500 micro-batches: 4 MiB per thousand, 16 MiB over the stretch.
    heap = [10 + 2 * i for i in range(11)]
    result = verdict(_samples([200.0] * 11, [float(h) for h in heap]), warmup=1000)
    assert not result.flat
    assert result.heap_range == pytest.approx(16.0)
    assert result.heap_range > FLAT_MIB
    assert result.heap_slope == pytest.approx(4.0)
    assert result.rss_range == 0
    assert result.rss_slope == 0


def test_with_no_sample_past_the_warm_up_every_sample_is_judged() -> None:
    result = verdict(_samples([100, 140], [1, 2]), warmup=10_000)
    assert result.after == 0
    assert not result.flat


def _spark_runs() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.skipif(not _spark_runs(), reason="needs pyspark and java")
def test_the_soak_mode_runs_with_tiny_counts_and_prints_its_tables() -> None:
    command = [
        sys.executable, "-m", "benchmarks", "spark", "--soak", "--mode", "classic",
        "--soak-batches", "6", "--soak-statements", "6", "--soak-every", "3",
        "--soak-warmup", "3", "--soak-wide-writes", "2", "--soak-columns", "1100",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    out = done.stdout
    assert done.returncode == (1 if "NOT MET" in out else 0), done.stderr[-3000:]
    assert re.search(r"soak: \d{4}-\d\d-\d\d \d\d:\d\d UTC, load average [\d.]+ ", out)

    stream = out.split("classic stream:")[1].split("classic statements:")[0]
    assert re.match(r" \d+ micro-batches of 10 rows", stream)  # 6, or one more before the stop
    rows = re.findall(r"^ +(\d+) +[\d.]+ +[\d.]+ +[\d.]+ +[\d,]+ +[\d.]+$", stream, re.M)
    assert [int(r) for r in rows][:1] == [0]
    assert len(rows) >= 3
    assert re.search(r"after \d+ batches: RSS moved [\d.]+ MiB", stream)
    assert re.search(r"target flat within 10 MiB after the first 3: (met|NOT MET)", stream)
    events = re.search(
        r"events: \d+ \(1 START, (\d+) RUNNING, 1 COMPLETE\).*allows at most (\d+) RUNNING"
        r".*: within",
        stream,
    )
    assert events is not None
    assert int(events[1]) <= int(events[2])

    statements = out.split("classic statements:")[1].split("classic wide table:")[0]
    rows = re.findall(r"^ +(\d+) +[\d.]+ +[\d.]+ +[\d.]+ +[\d,]+ +[\d.]+$", statements, re.M)
    assert [int(r) for r in rows] == [0, 3, 6]
    # Each INSERT and each TRUNCATE at a sample is a run of its own.
    assert "events: 16 (8 START, 8 COMPLETE, 0 FAIL)" in statements

    wide = out.split("classic wide table:")[1]
    assert wide.startswith(" 1,100 columns written 2 times")
    default = re.search(r"1,000 \(the default\) +1 +no +([\d.]+) +([\d.]+)", wide)
    above = re.search(r"2,200 +1 +yes +([\d.]+) +([\d.]+)", wide)
    assert default is not None
    assert above is not None
    # Column lineage for 1,100 columns makes the events far larger than the schema alone.
    assert float(above[1]) > 2 * float(default[1])
