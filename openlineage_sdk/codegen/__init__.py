"""Code generation: OpenLineage JSON Schemas to typed pydantic models.

One generator serves both the standard facets (``nox -s codegen`` regenerates
:mod:`openlineage_sdk.models` from the vendored ``spec/``) and plugin teams' custom facets
(``openlineage-sdk codegen``). It stages the schemas (see :mod:`openlineage_sdk.codegen._stage`)
and hands them to datamodel-code-generator, driven only by its documented options.

datamodel-code-generator is needed only here: install ``openlineage-sdk[codegen]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from openlineage_sdk.codegen._generate import GeneratedFile, check, run_generator, write
from openlineage_sdk.codegen._schemas import SchemaDocument, SchemaError, load_document
from openlineage_sdk.codegen._stage import STAGING_HOST, StagedDocument, stage_core, stage_facets

__all__ = [
    "GeneratedFile",
    "SchemaError",
    "check",
    "check_custom_rules",
    "generate_package",
    "generate_standard",
    "write",
]

STANDARD_PACKAGE = "openlineage_sdk.models"


def _python_header(header: str, sources: str) -> str:
    return header.format(sources=sources).rstrip("\n") + "\n"


def _display(paths: Iterable[Path], root: Path) -> dict[Path, str]:
    out = {}
    for path in paths:
        try:
            out[path] = path.relative_to(root).as_posix()
        except ValueError:
            out[path] = path.as_posix()
    return out


def generate_standard(
    spec_dir: Path, *, header: str, display_root: Path | None = None
) -> list[GeneratedFile]:
    """Generate :mod:`openlineage_sdk.models` from a spec directory.

    Args:
        spec_dir: holds ``OpenLineage.json`` and ``facets/*.json``.
        header: file header; ``{sources}`` is replaced by the schema files of each module.
        display_root: source paths in headers are written relative to this directory.

    Raises:
        SchemaError: a schema breaks a rule; the message names the file and the rule.
    """
    core = spec_dir / "OpenLineage.json"
    documents = [load_document(path) for path in sorted((spec_dir / "facets").glob("*.json"))]
    facets_package = f"{STANDARD_PACKAGE}.facets"
    records_url = f"https://{STAGING_HOST}/{STANDARD_PACKAGE}.records.json"
    staged: list[StagedDocument] = [
        *stage_core(core, documents, package=STANDARD_PACKAGE, facets_package=facets_package),
        *stage_facets(
            documents,
            package=STANDARD_PACKAGE,
            facets_package=facets_package,
            records_url=records_url,
        ),
    ]
    root = display_root or spec_dir.parent
    display = _display([core, *(doc.path for doc in documents)], root)
    files = run_generator(staged, header=header, display=display)
    files.extend(_package_inits(staged, documents, header, display))
    files.append(bundle_schemas(spec_dir))
    return files


def bundle_schemas(spec_dir: Path) -> GeneratedFile:
    """Bundle every schema strict validation may need into one JSON document keyed by ``$id``.

    The bundle holds the current core schema and facet schemas, and every published version of
    them under ``spec/published``. A schema that appears twice must be identical.

    Raises:
        SchemaError: a schema has no ``$id``, or two different schemas share one.
    """
    paths = [
        spec_dir / "OpenLineage.json",
        *sorted((spec_dir / "facets").glob("*.json")),
        *sorted((spec_dir / "published").rglob("*.json")),
    ]
    bundle: dict[str, Any] = {}
    for path in paths:
        schema = json.loads(path.read_text(encoding="utf-8"))
        schema_id = schema.get("$id") if isinstance(schema, dict) else None
        if not isinstance(schema_id, str):
            raise SchemaError(f"{path}: a bundled schema needs an '$id'")
        if schema_id in bundle and bundle[schema_id] != schema:
            raise SchemaError(f"{path}: {schema_id} is bundled twice with different content")
        bundle[schema_id] = schema
    lines = ",\n".join(
        f"{json.dumps(key)}: {json.dumps(value, separators=(',', ':'), ensure_ascii=False)}"
        for key, value in sorted(bundle.items())
    )
    return GeneratedFile(
        Path(*STANDARD_PACKAGE.split("."), "schemas.json"), "{\n" + lines + "\n}\n"
    )


def _package_inits(
    staged: Sequence[StagedDocument],
    documents: Sequence[SchemaDocument],
    header: str,
    display: dict[Path, str],
) -> list[GeneratedFile]:
    records = next(doc for doc in staged if doc.kind == "records")
    record_names = sorted(records.document["$defs"])
    lines = [
        _python_header(header, "spec/OpenLineage.json and spec/facets/*.json"),
        '"""The generated OpenLineage models. Import them from ``openlineage_sdk`` and',
        '``openlineage_sdk.facets``; this package is regenerated from the schemas."""',
        "",
    ]
    models_init = GeneratedFile(
        Path(*STANDARD_PACKAGE.split("."), "__init__.py"), "\n".join(lines) + "\n"
    )

    imports: list[str] = []
    exported: list[str] = []
    for doc in sorted(documents, key=lambda d: d.module):
        names = sorted(f.name for f in doc.facets)
        imports.append(f"from {STANDARD_PACKAGE}.facets.{doc.module} import {', '.join(names)}")
        exported.extend(names)
    facet_names = sorted(exported)
    imports.append(f"from {STANDARD_PACKAGE}.records import (")
    imports.extend(f"    {name}," for name in record_names)
    imports.append(")")
    body = [
        _python_header(header, "spec/facets/*.json"),
        '"""Every standard facet class and the records (TypedDicts) inside them."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
        "from openlineage_sdk._base import FacetModel",
        *imports,
        "",
        "#: Every standard facet class, in key order.",
        "STANDARD_FACETS: Final[tuple[type[FacetModel], ...]] = (",
        *(f"    {name}," for name in sorted(facet_names, key=lambda n: (_key_of(documents, n), n))),
        ")",
        "",
        "__all__ = [",
        *(f'    "{name}",' for name in sorted([*facet_names, *record_names, "STANDARD_FACETS"])),
        "]",
    ]
    facets_init = GeneratedFile(
        Path(*STANDARD_PACKAGE.split("."), "facets", "__init__.py"), "\n".join(body) + "\n"
    )
    del display
    return [models_init, facets_init]


def _key_of(documents: Sequence[SchemaDocument], name: str) -> str:
    for doc in documents:
        for facet in doc.facets:
            if facet.name == name:
                return facet.key
    return name


def _standard_keys() -> set[str]:
    from openlineage_sdk.models.facets import STANDARD_FACETS

    return {cls.facet_key for cls in STANDARD_FACETS if cls.facet_key is not None}


def check_custom_rules(documents: Sequence[SchemaDocument]) -> list[str]:
    """The custom facet naming rules, applied to schemas; one ``file: problem`` line each."""
    from openlineage_sdk._facet_rules import check_class_name, check_key, check_schema_id

    standard = _standard_keys()
    problems: list[str] = []
    for doc in documents:
        problems.extend(f"{doc.path}: {p}" for p in check_schema_id(doc.id))
        for facet in doc.facets:
            found = [
                *check_key(facet.key, standard),
                *check_class_name(facet.name, facet.key, facet.entity),
            ]
            problems.extend(f"{doc.path}: {p}" for p in found)
    return problems


def generate_package(
    schemas_dir: Path, package: str, *, header: str, display_root: Path | None = None
) -> list[GeneratedFile]:
    """Generate an importable package of custom facet classes from a folder of schemas.

    The package holds one module per schema file, a ``records`` module, the schemas themselves
    (``schemas/*.json``, for offline strict validation), ``py.typed``, and an ``__init__`` that
    exports every class plus ``FACETS`` and ``SCHEMAS`` for the ``openlineage_sdk.facets`` entry
    point group.

    Raises:
        SchemaError: a schema cannot be read or breaks a naming rule; the message lists every
            problem with its file, the rule, and the right name.
    """
    if not package.replace(".", "").replace("_", "").isalnum() or not all(
        part.isidentifier() for part in package.split(".")
    ):
        raise SchemaError(f"{package!r} is not a Python package name")
    paths = sorted(schemas_dir.rglob("*.json"))
    paths = [p for p in paths if _is_facet_schema(p)]
    if not paths:
        raise SchemaError(f"{schemas_dir}: no facet schemas (*.json with a '$id' and 'properties')")
    documents = [load_document(path) for path in paths]
    problems = check_custom_rules(documents)
    modules = [doc.module for doc in documents]
    clashes = sorted({m for m in modules if modules.count(m) > 1 or m in ("records", "schemas")})
    problems.extend(
        f"{schemas_dir}: two schema files map to module {m!r}; rename one" for m in clashes
    )
    if problems:
        raise SchemaError("custom facet rules broken:\n  " + "\n  ".join(problems))
    records_url = f"https://{STAGING_HOST}/{package}.records.json"
    staged = stage_facets(
        documents, package=package, facets_package=package, records_url=records_url
    )
    display = _display(paths, display_root or schemas_dir.parent)
    files = run_generator(staged, header=header, display=display)
    base = Path(*package.split("."))
    for doc in documents:
        files.append(
            GeneratedFile(base / "schemas" / doc.path.name, doc.path.read_text(encoding="utf-8"))
        )
    files.append(GeneratedFile(base / "py.typed", ""))
    files.append(_plugin_init(package, documents, staged, header))
    return files


def _is_facet_schema(path: Path) -> bool:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True  # let load_document report it
    return isinstance(document, dict) and ("$id" in document or "properties" in document)


def _plugin_init(
    package: str, documents: Sequence[SchemaDocument], staged: Sequence[StagedDocument], header: str
) -> GeneratedFile:
    records = next(doc for doc in staged if doc.kind == "records")
    record_names = sorted(records.document["$defs"])
    facet_names = sorted(f.name for doc in documents for f in doc.facets)
    lines = [
        _python_header(header, ", ".join(doc.path.name for doc in documents)),
        f'"""Custom OpenLineage facets: {", ".join(facet_names)}.',
        "",
        "Register them with openlineage-sdk through the ``openlineage_sdk.facets`` entry point group",
        f'(``[project.entry-points."openlineage_sdk.facets"] {package.split(".")[0]} = "{package}"``),',
        'or call ``openlineage_sdk.register_facets(*FACETS, schemas=SCHEMAS)``."""',
        "",
        "import json",
        "from importlib import resources",
        "from typing import Any, Final",
        "",
        "from openlineage_sdk import FacetModel",
    ]
    for doc in sorted(documents, key=lambda d: d.module):
        names = ", ".join(sorted(f.name for f in doc.facets))
        lines.append(f"from {package}.{doc.module} import {names}")
    if record_names:
        lines.append(f"from {package}.records import {', '.join(record_names)}")
    lines += [
        "",
        "#: The facet classes of this package.",
        "FACETS: Final[tuple[type[FacetModel], ...]] = ("
        + ", ".join(facet_names)
        + ("," if len(facet_names) == 1 else "")
        + ")",
        "",
        "",
        "def _schemas() -> dict[str, dict[str, Any]]:",
        '    folder = resources.files(__name__).joinpath("schemas")',
        "    out: dict[str, dict[str, Any]] = {}",
        "    for entry in sorted(folder.iterdir(), key=lambda e: e.name):",
        '        if entry.name.endswith(".json"):',
        '            schema = json.loads(entry.read_text(encoding="utf-8"))',
        '            out[schema["$id"]] = schema',
        "    return out",
        "",
        "",
        "#: The schemas of these facets by $id, shipped in the package for offline validation.",
        "SCHEMAS: Final[dict[str, dict[str, Any]]] = _schemas()",
        "",
        "__all__ = [",
        *(f'    "{n}",' for n in sorted([*facet_names, *record_names, "FACETS", "SCHEMAS"])),
        "]",
    ]
    return GeneratedFile(Path(*package.split("."), "__init__.py"), "\n".join(lines) + "\n")
