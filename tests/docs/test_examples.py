"""Every code example of the documentation runs as written (the pages that need no Spark driver).

The pages are found by themselves (every Markdown page under ``docs/`` and the README), so a
page added later is run too; ``docsgen.examples`` says how a page marks a block not meant to
run and how it hides setup and checks. The pages that need a Spark driver run in
``tests/spark/test_docs_spark.py`` (slow tier).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from docsgen.examples import ExampleError, blocks, needs_spark, pages, run_page
from tests.conftest import ROOT

PAGES = pages()
PLAIN_PAGES = [page for page in PAGES if not needs_spark(page)]


def _id(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.fixture
def clean_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder, and no configuration from the machine the tests run on."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    return work


def test_every_page_of_the_site_is_found() -> None:
    found = {_id(page) for page in PAGES}
    assert "README.md" in found
    on_disk = {_id(page) for page in (ROOT / "docs").rglob("*.md")}
    assert on_disk <= found
    # The guides hold examples: the harness must see them (a parser that found none would pass).
    assert sum(1 for page in PAGES for block in blocks(page) if block.runs) >= 20


@pytest.mark.parametrize("page", PLAIN_PAGES, ids=_id)
def test_the_examples_of_a_page_run(page: Path, clean_environment: Path) -> None:
    run_page(page)


# --------------------------------------------------------------------------- the harness


def _page(tmp_path: Path, text: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    return page


def test_blocks_run_in_order_in_one_namespace_with_hidden_setup_and_checks(
    tmp_path: Path, clean_environment: Path
) -> None:
    page = _page(
        tmp_path,
        "# A page\n\n<!-- example-setup\nrows = 3\n-->\n\n```python\ntotal = rows * 2\n```\n\n"
        "<!-- example-check\nassert total == 6\n-->\n\n```python {.no-run}\nraise SystemExit\n```\n"
        "\n```console\n$ rm -rf /\n```\n\n- In a list:\n\n    ```python\n    total += 1\n    ```\n",
    )
    found = blocks(page)
    assert [(b.kind, b.language, b.runs) for b in found] == [
        ("setup", "python", True),
        ("example", "python", True),
        ("check", "python", True),
        ("example", "python", False),
        ("example", "console", False),
        ("example", "python", True),
    ]
    assert found[1].line == 8  # the line of the block's code, for errors
    assert run_page(page)["total"] == 7


def test_a_failing_example_names_its_page_and_line(tmp_path: Path, clean_environment: Path) -> None:
    page = _page(tmp_path, "# A page\n\n```python\nx = 1\n```\n\nText.\n\n```python\nx = y\n```\n")
    with pytest.raises(ExampleError, match=r"page\.md:10: the example block raised NameError"):
        run_page(page)


def test_a_failing_check_fails_the_page(tmp_path: Path, clean_environment: Path) -> None:
    page = _page(tmp_path, "```python\nx = 1\n```\n<!-- example-check\nassert x == 2\n-->\n")
    with pytest.raises(ExampleError, match="the check block raised AssertionError"):
        run_page(page)


def test_a_configuration_file_example_is_loaded(tmp_path: Path, clean_environment: Path) -> None:
    good = _page(tmp_path, '```yaml title="openlineage.yml"\ntransport:\n  type: console\n```\n')
    run_page(good)
    bad = _page(tmp_path, '```yaml title="openlineage.yml"\ntransprot:\n  type: console\n```\n')
    with pytest.raises(ExampleError, match=r"refused: transprot: unknown section.*transport"):
        run_page(bad)


def test_an_unclosed_block_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ExampleError, match="not closed"):
        blocks(_page(tmp_path, "```python\nx = 1\n"))


def test_a_page_that_uses_spark_without_making_it_needs_a_driver(tmp_path: Path) -> None:
    assert needs_spark(_page(tmp_path, "```python\nspark.range(3).count()\n```\n"))
    assert not needs_spark(
        _page(tmp_path, "```python\nspark = object()\n```\n```python\nprint(spark)\n```\n")
    )
    assert not needs_spark(_page(tmp_path, "```python {.no-run}\nspark.stop()\n```\n"))


# --------------------------------------------------------------------------- names in the text


def _pattern(key: str) -> re.Pattern[str]:
    """A conf key of the reference as a pattern: ``<name>`` stands for any text."""
    parts = re.split(r"(<[^>]+>)", key)
    return re.compile(
        "^" + "".join(".+" if p.startswith("<") else re.escape(p) for p in parts) + "$"
    )


def test_every_spark_openlineage_conf_the_pages_name_is_one_the_adapter_knows() -> None:
    from openlineage_sdk.spark._conf import CONFS, CONFS_NOT_READ

    keys = [_pattern(conf.key) for conf in (*CONFS, *CONFS_NOT_READ)]
    unknown = set()
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"spark\.openlineage\.([A-Za-z][\w.*<>-]*[\w*>])", text):
            name = match.group(1)
            if name.endswith(".*"):
                name = name[:-2] + ".x"
            if not any(key.match(name) for key in keys):
                unknown.add(f"{_id(page)}: spark.openlineage.{match.group(1)}")
    assert not unknown, sorted(unknown)


def test_every_openlineage_variable_the_pages_name_is_one_the_sdk_reads() -> None:
    from openlineage_sdk import config

    known = {v.name for v in config._ENVIRONMENT_VARIABLES}
    known.add("OPENLINEAGE_SDK_CHROMIUM")  # the tests' own: where the browser tests find Chromium
    known.add("OPENLINEAGE_SDK_RECORD_EVENTS")  # the tests' own: the Spark tests' event recorder
    unknown = set()
    for page in PAGES:
        for name in re.findall(r"\bOPENLINEAGE_[A-Z_]*[A-Z]\b", page.read_text(encoding="utf-8")):
            if not name.startswith("OPENLINEAGE__") and name not in known:
                unknown.add(f"{_id(page)}: {name}")
    assert not unknown, sorted(unknown)
