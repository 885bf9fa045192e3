"""Every code example of the documentation, and how it runs.

Every page under ``docs/`` and the README are read by themselves (:func:`pages`); a page added
later needs nothing registered. In a page:

* A fenced block whose language is ``python`` (or ``py``) is an example: it runs. The blocks of
  a page run in order, in one namespace, in a fresh empty folder (the working directory), so a
  block may use what an earlier one made.
* A block not meant to run says so in its info string: ```` ```python {.no-run} ````. It is
  shown like any other (GitHub reads the language from the first word, MkDocs puts the class
  on the block).
* ```` ```yaml title="openlineage.yml" ```` is a configuration file: it is loaded with
  :func:`openlineage_sdk.config.load_config`, which must accept it.
* Hidden code, in HTML comments that neither the site nor GitHub shows:
  ``<!-- example-setup ... -->`` runs before the next example (the data an example reads, a
  function it calls); ``<!-- example-check ... -->`` runs after the previous one (assertions
  on what it did: the events it sent, the files it wrote).
* A page whose examples use the name ``spark`` without making it runs on a local SparkSession
  (``local[2]``): ``python -m docsgen.examples PAGE...`` runs such pages one after the other
  on one driver started in the working folder (the JVM resolves relative paths against the
  folder it started in), leaving nothing of a page for the next (:func:`main`).

Other languages (``console``, ``bash``, ``json``, ...) are shown, not run.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import re
import shutil
import sys
import textwrap
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "ROOT",
    "Block",
    "ExampleError",
    "blocks",
    "needs_spark",
    "pages",
    "run_page",
    "spark_session",
]

#: The repository's root.
ROOT = Path(__file__).resolve().parents[1]

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*)$")
_HIDDEN = re.compile(r"^[ \t]*<!--[ \t]*example-(?P<kind>setup|check)[ \t]*$")
_PYTHON = frozenset({"python", "py", "python3"})


class ExampleError(Exception):
    """An example failed; the message names the page, the line and what went wrong."""


@dataclass(frozen=True)
class Block:
    """A code block of a page.

    Attributes:
        page: the page's path.
        line: the line (1-based) of the block's first line of code.
        kind: ``example`` (a fenced block), ``setup`` or ``check`` (hidden, in a comment).
        language: the fence's language, lower-cased (``python`` for hidden code).
        info: the rest of the fence's info string (``{.no-run}``, ``title="..."``).
        code: the code, dedented.
    """

    page: Path
    line: int
    kind: Literal["example", "setup", "check"]
    language: str
    info: str
    code: str

    @property
    def runs(self) -> bool:
        """Whether the block runs: Python not marked ``.no-run``, or a configuration file."""
        if re.search(r"(?:^|[\s{])\.no-run\b", self.info):
            return False
        return self.language in _PYTHON or self.is_config

    @property
    def is_config(self) -> bool:
        """Whether the block is an ``openlineage.yml`` (``yaml`` titled ``openlineage.yml``)."""
        return self.language in ("yaml", "yml") and 'title="openlineage.yml"' in self.info


def pages(root: Path = ROOT) -> list[Path]:
    """The pages whose examples run: the README and every Markdown page under ``docs/``.

    Args:
        root: the repository's root.

    Returns:
        The paths, the README first, then ``docs/`` in sorted order.
    """
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def _language(info: str) -> tuple[str, str]:
    """``python {.no-run}`` -> ("python", "{.no-run}"); ``{.python .no-run}`` alike."""
    info = info.strip()
    if info.startswith("{"):
        classes = re.findall(r"\.([\w-]+)", info)
        return (classes[0].lower() if classes else ""), info
    word, _, rest = info.partition(" ")
    return word.lower(), rest.strip()


def blocks(page: Path) -> list[Block]:
    """The code blocks of a page, in order.

    Args:
        page: a Markdown file.

    Returns:
        Its fenced blocks and its hidden setup and check code.

    Raises:
        ExampleError: a block is not closed.
    """
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        hidden = _HIDDEN.match(line)
        if fence is not None:
            marker, indent = fence.group("fence"), len(fence.group("indent"))
            language, info = _language(fence.group("info"))
            end = index + 1
            while end < len(lines):
                closing = _FENCE.match(lines[end])
                if (
                    closing is not None
                    and closing.group("fence")[0] == marker[0]
                    and len(closing.group("fence")) >= len(marker)
                    and not closing.group("info").strip()
                ):
                    break
                end += 1
            else:
                raise ExampleError(f"{page}:{index + 1}: the code block is not closed")
            code = "\n".join(
                text[indent:] if text[:indent].strip() == "" else text
                for text in lines[index + 1 : end]
            )
            found.append(Block(page, index + 2, "example", language, info, code))
            index = end + 1
            continue
        if hidden is not None:
            end = index + 1
            while end < len(lines) and lines[end].strip() != "-->":
                end += 1
            if end == len(lines):
                raise ExampleError(
                    f"{page}:{index + 1}: the example-{hidden.group('kind')} comment is not closed"
                )
            code = textwrap.dedent("\n".join(lines[index + 1 : end]))
            kind: Literal["setup", "check"] = (
                "setup" if hidden.group("kind") == "setup" else "check"
            )
            found.append(Block(page, index + 2, kind, "python", "", code))
            index = end + 1
            continue
        index += 1
    return found


def _free_names(code: str) -> set[str]:
    """Names a piece of code reads without having bound them itself."""
    tree = ast.parse(code)
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return read - bound - set(dir(builtins))


def needs_spark(page: Path) -> bool:
    """Whether a page's examples use a SparkSession named ``spark`` that they do not make.

    Args:
        page: a Markdown file.

    Returns:
        True when the page runs on a Spark driver.
    """
    made: set[str] = set()
    for block in blocks(page):
        if not (block.runs and block.language in _PYTHON):
            continue
        if "spark" in _free_names(block.code) - made:
            return True
        made |= _bound_names(block.code)
    return False


def _bound_names(code: str) -> set[str]:
    tree = ast.parse(code)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
    return names


def _relative(page: Path) -> str:
    try:
        return str(page.relative_to(ROOT))
    except ValueError:
        return str(page)


def _check_config(block: Block, folder: Path) -> None:
    from openlineage_sdk.config import ConfigError, load_config

    path = folder / "openlineage.yml"
    path.write_text(block.code + "\n", encoding="utf-8")
    try:
        load_config({}, config_file=path)
    except ConfigError as error:
        raise ExampleError(
            f"{_relative(block.page)}:{block.line}: this openlineage.yml is refused: {error}"
        ) from None
    finally:
        path.unlink()


def run_page(page: Path, namespace: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run a page's examples, in order, in the working directory.

    Args:
        page: a Markdown file.
        namespace: what the examples start with (``spark`` for a Spark page).

    Returns:
        The namespace the examples ran in, with what they made.

    Raises:
        ExampleError: an example raised; the message names the page and the line, and the
            example's own exception is chained.
    """
    namespace = {"__name__": "__docs_example__", **(namespace or {})}
    for block in blocks(page):
        if not block.runs:
            continue
        if block.is_config:
            _check_config(block, Path.cwd())
            continue
        # Padded with empty lines so that a traceback names the page's own line.
        code = compile("\n" * (block.line - 1) + block.code, _relative(page), "exec")
        try:
            exec(code, namespace)
        except Exception as error:
            raise ExampleError(
                f"{_relative(page)}:{block.line}: the {block.kind} block raised "
                f"{type(error).__name__}: {error}"
            ) from error
    return namespace


def spark_session(app_name: str = "docs_example") -> Any:
    """A local SparkSession for a page's examples, with its warehouse in the working directory.

    Args:
        app_name: the application's name (it is the first part of job names).

    Returns:
        The session.
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.warehouse.dir", str(Path.cwd() / "spark-warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={Path.cwd() / 'derby'}")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def _iter_pages(arguments: list[str]) -> Iterator[Path]:
    for argument in arguments:
        path = Path(argument)
        yield path if path.is_absolute() else ROOT / path


#: What the driver keeps in the working folder from one page to the next.
_KEPT = frozenset({"spark-warehouse", "derby"})


def _settings(spark: Any) -> dict[str, str]:
    return {row[0]: row[1] for row in spark.sql("SET").collect()}


def _reset(spark: Any, folder: Path, settings: dict[str, str]) -> None:
    """Leave the session and the folder as the next page expects them: nothing of this one."""
    from openlineage_sdk.spark import uninstall

    os.chdir(folder)
    uninstall(spark)
    for query in spark.streams.active:
        query.stop()
    for table in spark.catalog.listTables():
        if table.isTemporary:
            spark.catalog.dropTempView(table.name)
        else:
            kind = "VIEW" if table.tableType == "VIEW" else "TABLE"
            spark.sql(f"DROP {kind} IF EXISTS `{table.name}`")
    for key, value in _settings(spark).items():
        if key not in settings:
            spark.conf.unset(key)
        elif settings[key] != value:
            spark.conf.set(key, settings[key])
    for entry in folder.iterdir():
        if entry.name not in _KEPT:
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def main(arguments: list[str]) -> int:
    """``python -m docsgen.examples [--report FILE] PAGE...``: run Spark pages on one driver.

    The pages run one after the other on one local session, in the working folder (the
    driver's, so relative paths resolve there); between two pages the adapter is uninstalled,
    streams stopped, tables dropped, confs restored and the folder emptied.

    Args:
        arguments: the pages (paths relative to the repository's root, or absolute), after
            ``--report FILE``, where each page's outcome is written as JSON (``null`` when its
            examples ran, else the error).

    Returns:
        0 when every page's examples ran, 1 otherwise (the errors are printed).
    """
    report: Path | None = None
    if arguments[:1] == ["--report"]:
        report, arguments = Path(arguments[1]).resolve(), arguments[2:]
    folder = Path.cwd()
    spark = spark_session()
    settings = _settings(spark)
    outcomes: dict[str, str | None] = {}
    try:
        for page in _iter_pages(arguments):
            try:
                run_page(page, {"spark": spark})
                outcomes[str(page)] = None
            except ExampleError as error:
                cause = error.__cause__ or error
                trace = "".join(traceback.format_exception(cause))
                outcomes[str(page)] = f"{trace}\n{error}"
                print(outcomes[str(page)], file=sys.stderr)
            finally:
                _reset(spark, folder, settings)
    finally:
        spark.stop()
        if report is not None:
            report.write_text(json.dumps(outcomes, indent=2), encoding="utf-8")
    return 0 if all(outcome is None for outcome in outcomes.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
