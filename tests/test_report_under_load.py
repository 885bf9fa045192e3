"""The report's layout under load: the reproducer of a crash seen inside igraph's C code.

The HTML report lays its graph out with igraph's Sugiyama layout, in C (OpenMP threads of its
bundled libgomp). Two runs of the suite on a loaded machine ended inside igraph's automatic
layering (``layout_sugiyama`` with no layers given, which solves for the layers with its GLPK
simplex); the report now assigns the layers itself, in Python, and gives them to igraph, which
only orders and places each layer.

This test puts the layout where those runs had it, as hard as a test can: processes laying out
graphs of every shape the report makes (small and large, with cycles, edges spanning many
layers) at once, beside threads of Python work in the same processes and processes that only
burn CPU, with ``faulthandler`` on so that a crash prints where it happened (the Python stack
down to the igraph call) instead of ending quietly. Each process must finish every layout and
exit 0.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("igraph")

ROOT = Path(__file__).resolve().parent.parent

_LAYOUTS = """
import faulthandler, random, sys, threading, time
faulthandler.enable()
from openlineage_sdk import report

seed, seconds = int(sys.argv[1]), float(sys.argv[2])
stop = time.monotonic() + seconds
done = [0]

def lay_out(seed):
    rng = random.Random(seed)
    while time.monotonic() < stop:
        size = rng.choice([rng.randint(2, 60), rng.randint(60, 400), rng.randint(1000, 1400)])
        edges = sorted({tuple(sorted(rng.sample(range(size), 2))) for _ in range(size * 2)})
        if rng.random() < 0.5:  # cycles: the layout breaks them
            edges += [(b, a) for a, b in edges[: max(1, size // 5)]]
        corners, bends = report._layout([str(n) for n in range(size)], edges)
        assert len(corners) == size and len(bends) == len(edges)
        done[0] += 1

def python_work():
    while time.monotonic() < stop:
        sorted(str(i) for i in range(2000))

threads = [threading.Thread(target=lay_out, args=(seed * 10 + i,)) for i in range(3)]
threads += [threading.Thread(target=python_work) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("laid out", done[0])
"""

_BURN = "import time\nstop = time.monotonic() + float(__import__('sys').argv[1])\nwhile time.monotonic() < stop:\n    pass\n"


@pytest.mark.slow
def test_the_layout_survives_a_loaded_machine() -> None:
    seconds = 20.0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    burners = [
        subprocess.Popen([sys.executable, "-c", _BURN, str(seconds)], env=env) for _ in range(2)
    ]
    try:
        layouts = [
            subprocess.Popen(
                [sys.executable, "-c", _LAYOUTS, str(seed), str(seconds)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for seed in range(3)
        ]
        for process in layouts:
            out, err = process.communicate(timeout=seconds * 20)
            assert process.returncode == 0, err[-4000:]
            assert out.startswith("laid out "), out + err[-4000:]
            assert int(out.split()[-1]) > 0
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
