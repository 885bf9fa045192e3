"""What import-linter cannot see in the package's structure, read from its source.

import-linter checks the layering contracts of ``pyproject.toml`` on the imports Python makes;
a module named in a string (``__import__``, ``importlib.import_module``) is not among them. The
package names modules by string in a few places; these tests read every one and hold them to
what the layering allows. They also hold the Spark adapter to its session interface: above
``spark/session/`` a session is a typed ``Session``, never ``Any``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "openlineage_sdk"
SPARK = PACKAGE / "spark"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _strings(tree: ast.AST) -> dict[str, str]:
    """Module-level string constants by name (``WORKER_MODULE = "..."``)."""
    found = {}
    for node in ast.walk(tree):
        value = node.value if isinstance(node, ast.Assign) else None
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            for target in node.targets:  # type: ignore[attr-defined]
                if isinstance(target, ast.Name):
                    found[target.id] = value.value
    return found


def _resolve(tree: ast.AST, name: str, constants: dict[str, str]) -> str | None:
    """The constant a local ``name`` is bound to (``a = X`` or ``a, b = X, Y``), if one is."""
    if name in constants:
        return constants[name]
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = (
                zip(target.elts, node.value.elts, strict=False)
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                else [(target, node.value)]
            )
            for bound, value in pairs:
                if isinstance(bound, ast.Name) and bound.id == name and isinstance(value, ast.Name):
                    return constants.get(value.id)
    return None


def _string_imports(path: Path) -> list[tuple[int, str | None]]:
    """Each ``__import__(...)`` or ``import_module(...)`` call: its line and the module it names
    (``None`` when the name is computed beyond a constant or a module-level constant)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = _strings(tree)
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in ("__import__", "import_module"):
            continue
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            calls.append((node.lineno, arg.value))
        elif isinstance(arg, ast.Name):
            # A local bound to a module-level constant (the closure sent to a server).
            calls.append((node.lineno, _resolve(tree, arg.id, constants)))
        else:
            calls.append((node.lineno, None))
    return calls


# Where the package imports a module by a name it computes, and why each is allowed.
_COMPUTED = {
    # A user's plugin by the dotted path the configuration gives: a trimmer, a transport, an
    # auth provider, a transformer (never a module of the package).
    "openlineage_sdk._event_config.sections",
    "openlineage_sdk.transports._registry",
    "openlineage_sdk.transports.file",  # the official client's fsspec filesystem, by path
    "openlineage_sdk.transports.http",
    "openlineage_sdk.transports.transform",
    # The lazy exports of a package's ``__init__``: the tables are read below.
    "openlineage_sdk._lazy",
    # PySpark's writer module of a session's kind (classic or Connect).
    "openlineage_sdk.spark.observe._writes",
    "openlineage_sdk.spark.observe._streams",
}


def _allowed(module: str, named: str) -> bool:
    """Whether ``module`` may name ``named`` by string.

    Third-party modules, any time. Within the package: a module may name one of its own layer
    or below as import-linter would allow a real import; the function the Spark adapter sends
    to a Spark Connect server names, in the server's worker, the worker beside it and the
    adapter's public API (``openlineage_sdk.spark``), as a user's script would.
    """
    if not named.startswith("openlineage_sdk"):
        return True
    if module == "openlineage_sdk.spark.executions.streams._batches":
        return named in (
            "openlineage_sdk.spark.executions.streams._worker",
            "openlineage_sdk.spark",
        )
    # Everything else of the package is imported for real, where import-linter sees it.
    return False


def _package_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "models" not in p.parts)


def test_every_string_import_of_the_package_is_one_the_layering_allows() -> None:
    problems = []
    for path in _package_files():
        module = _module_name(path)
        for line, named in _string_imports(path):
            if named is None:
                if module not in _COMPUTED and not module.startswith("openlineage_sdk._lazy"):
                    problems.append(f"{module}:{line}: a module named by a computed string")
                continue
            if not _allowed(module, named):
                problems.append(f"{module}:{line}: names {named} by string")
    assert problems == []


def _lazy_tables(path: Path) -> list[str]:
    """The modules a package's ``lazy_exports(__name__, {...})`` table names (relative)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "lazy_exports"
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Dict)
        ):
            found += [k.value for k in node.args[1].keys if isinstance(k, ast.Constant)]
    return found


def test_lazy_exports_name_only_modules_below_their_package() -> None:
    """A package's lazy exports import its own modules by name, downwards only, and each is
    there (a rename would break the public name at its first use)."""
    import importlib

    problems, seen = [], 0
    for path in _package_files():
        if path.name != "__init__.py":
            continue
        package = _module_name(path)
        for relative in _lazy_tables(path):
            seen += 1
            if not relative.startswith("."):
                problems.append(f"{package}: {relative} is not one of its own modules")
                continue
            try:
                importlib.import_module(relative, package)
            except ImportError as error:
                problems.append(f"{package}: {relative}: {error}")
    assert seen > 0
    assert problems == []


def test_the_string_imports_of_the_function_sent_to_a_server_name_real_modules() -> None:
    """A rename of the worker or of the public API would leave every Spark Connect
    ``foreachBatch`` write unreported: the names it imports by string exist."""
    import importlib

    from openlineage_sdk.spark.executions.streams import _batches

    worker = importlib.import_module(_batches.WORKER_MODULE)
    api = importlib.import_module(_batches.API_MODULE)
    assert callable(worker.run_batch)
    assert callable(api.install)
    assert callable(api.installed)
    found = {named for _, named in _string_imports(Path(_batches.__file__))}
    assert found == {_batches.WORKER_MODULE, _batches.API_MODULE}


def _any_sessions(path: Path) -> list[str]:
    """Names annotated ``Any`` that hold a session (``session: Any = ...``, parameters)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def is_any(annotation: ast.AST | None) -> bool:
        return (isinstance(annotation, ast.Name) and annotation.id == "Any") or (
            isinstance(annotation, ast.Constant) and annotation.value == "Any"
        )

    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and is_any(node.annotation):
            target = node.target
            name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
            value = ast.unparse(node.value) if node.value is not None else ""
            if "session" in name and ("session" in value or not value):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {name}")
        elif isinstance(node, ast.arg) and is_any(node.annotation) and node.arg == "session":
            found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.arg}")
    return found


@pytest.mark.parametrize(
    "folder", ["observe", "executions", "events"], ids=lambda folder: f"spark/{folder}"
)
def test_no_session_is_any_typed_above_the_sessions(folder: str) -> None:
    paths = sorted((SPARK / folder).rglob("*.py"))
    paths += [SPARK / "_adapter.py", SPARK / "_flow.py"] if folder == "observe" else []
    assert paths
    found = [line for path in paths for line in _any_sessions(path)]
    assert found == []


def test_the_checks_see_an_any_typed_session_and_a_string_import(tmp_path: Path) -> None:
    """The readers above find what they look for (they would pass on any tree otherwise)."""
    sample = tmp_path / "openlineage_sdk" / "spark" / "observe" / "_sample.py"
    sample.parent.mkdir(parents=True)
    sample.write_text(
        "from typing import Any\n"
        "def f(adapter: Any, session: Any) -> None:\n"
        "    session_: Any = adapter.session\n"
        "    __import__('openlineage_sdk.spark._adapter')\n",
        encoding="utf-8",
    )
    global PACKAGE
    real, PACKAGE = PACKAGE, tmp_path / "openlineage_sdk"
    try:
        assert len(_any_sessions(sample)) == 2
        assert _string_imports(sample) == [(4, "openlineage_sdk.spark._adapter")]
        assert not _allowed("openlineage_sdk.spark.observe._sample", "openlineage_sdk.spark")
    finally:
        PACKAGE = real
