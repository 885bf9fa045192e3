"""Headless Chromium for the report's browser tests: the system's browser, driven by Playwright.

The browser is the one the system package manager installs (``.ci/run`` installs Debian's
``chromium``); Playwright never downloads one. Where none is found the tests are skipped with a
reason that says so.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

#: Chromium flags: headless, and nothing that would reach the network on its own.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    """The system's Chromium (or ``OPENLINEAGE_SDK_CHROMIUM``), or None when there is none."""
    configured = os.environ.get("OPENLINEAGE_SDK_CHROMIUM")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@contextmanager
def chromium_page(width: int = 1400, height: int = 1000) -> Iterator[Any]:
    """A page of a fresh headless Chromium at ``width`` x ``height``; skips without a browser."""
    executable = find_chromium()
    if executable is None:
        pytest.skip(
            "no browser found: install Debian's chromium (apt-get install chromium) "
            "or set OPENLINEAGE_SDK_CHROMIUM to a Chromium executable"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("no browser driver: playwright is not installed (the test dependency group)")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            # Offline by construction: any request leaving the page fails the tests below.
            yield context.new_page()
        finally:
            browser.close()
