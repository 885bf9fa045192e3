"""Running datamodel-code-generator over staged documents, and writing or checking the output."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from openlineage_sdk.codegen._stage import (
    BASES_MODULE,
    BASES_URL,
    STAGING_HOST,
    TYPES_MODULE,
    TYPES_URL,
    StagedDocument,
    map_refs,
    types_document,
)

__all__ = ["GeneratedFile", "check", "file_header", "run_generator", "write"]

#: datamodel-code-generator options shared by every run (the staging does the rest).
#: Each one is a documented option of datamodel-code-generator's ``generate()`` API.
COMMON_OPTIONS: Final[Mapping[str, Any]] = {
    "target_python_version": "3.10",
    "disable_timestamp": True,  # byte-for-byte reproducible output
    "formatters": ["builtin"],  # no external formatter: the output depends on the pin alone
    # Explicit, so that no pyproject.toml around the output changes the layout.
    "builtin_format_line_length": 100,
    "use_double_quotes": True,
    "use_schema_description": True,
    "use_field_description": True,
    "use_standard_collections": True,
    "use_union_operator": True,
    "enum_field_as_literal": "all",
    # Evaluating string annotations costs a compile() per field at import; without the
    # __future__ import, classes are ordered by dependency and annotations are plain objects.
    "disable_future_imports": True,
    # Unions of records (a subset condition) refer to each other; TypeAliasType resolves them
    # lazily in the records module, wherever the alias is used.
    "use_type_alias_type": True,
    "skip_root_model": True,
    "allow_remote_refs": False,
    "strict_nullable": True,  # a field with a default is not Optional
    # TypedDict must come from typing_extensions for pydantic on Python < 3.12.
    "import_overrides": {"TypedDict": "typing_extensions"},
}
MODEL_OPTIONS: Final[Mapping[str, Any]] = {
    "output_model_type": "pydantic_v2.BaseModel",
    "base_class": "openlineage_sdk._base.OpenLineageModel",
    "base_class_map": {"BaseFacet": "openlineage_sdk._base.FacetModel"},
    "snake_case_field": True,
    "remove_special_field_name_prefix": True,  # _producer -> producer, _schemaURL -> schema_url
    "use_annotated": True,
    "field_constraints": True,
    "model_extra_keys_without_x_prefix": ["x-facetKey"],
}
#: Records need no configuration of their own: a TypedDict validated inside a model takes that
#: model's configuration (unknown keys kept, types checked strictly).
RECORD_OPTIONS: Final[Mapping[str, Any]] = {
    "output_model_type": "typing.TypedDict",
}


@dataclass(frozen=True)
class GeneratedFile:
    """A generated module: its path relative to the output root and its text."""

    path: Path
    text: str


def _module_path(module: str) -> Path:
    return Path(*module.split(".")).with_suffix(".py")


def file_header(header: str, sources: str) -> str:
    """The header of a generated file (no trailing newline): ``{sources}`` names its schemas."""
    return header.format(sources=sources).rstrip("\n")


def run_generator(
    staged: Iterable[StagedDocument],
    *,
    header: str,
    display: Mapping[Path, str] | None = None,
) -> list[GeneratedFile]:
    """Generate one module per staged document.

    Args:
        staged: the staged documents.
        header: the file header; ``{sources}`` is replaced by the schema files a module comes from.
        display: how to print each source path in the header (defaults to the path).

    Returns:
        The generated files, paths relative to the output root.
    """
    from datamodel_code_generator import InputFileType, generate

    staged = _relocate(list(staged))
    display = display or {}
    mappings = {TYPES_URL: TYPES_MODULE, _staged_url(BASES_URL): BASES_MODULE}
    mappings.update({doc.url: doc.module for doc in staged})
    files: list[GeneratedFile] = []
    with tempfile.TemporaryDirectory(prefix="openlineage-sdk-codegen-") as tmp:
        root = Path(tmp)
        all_docs = [*staged, StagedDocument(TYPES_URL, types_document(), TYPES_MODULE, "types")]
        for doc in all_docs:
            target = root / doc.relative_path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(doc.document, indent=2, sort_keys=False), encoding="utf-8")
        for doc in staged:
            options: dict[str, Any] = dict(COMMON_OPTIONS)
            options.update(MODEL_OPTIONS if doc.kind == "models" else RECORD_OPTIONS)
            sources = ", ".join(display.get(path, str(path)) for path in doc.sources)
            options["custom_file_header"] = file_header(header, sources)
            if not doc.document.get("$defs"):
                # Nothing to generate (facets without records): an empty module keeps the layout.
                text = (
                    options["custom_file_header"]
                    + '\n\n"""No records: these facets hold only plain values."""\n'
                )
                files.append(GeneratedFile(_module_path(doc.module), text))
                continue
            options["external_ref_mapping"] = {
                url: module for url, module in mappings.items() if url != doc.url
            }
            options["http_local_ref_path"] = root
            if doc.base_classes:
                options["base_class_map"] = {
                    **options.get("base_class_map", {}),
                    **doc.base_classes,
                }
            text = generate(
                root / doc.relative_path,
                input_file_type=InputFileType.JsonSchema,
                **options,
            )
            if not isinstance(
                text, str
            ):  # pragma: no cover - generate() returns text without output=
                raise RuntimeError(f"datamodel-code-generator returned no text for {doc.url}")
            files.append(GeneratedFile(_module_path(doc.module), text.rstrip("\n") + "\n"))
    return files


def _staged_url(url: str) -> str:
    """Where a document lives during generation.

    datamodel-code-generator resolves references between documents as relative file paths, so
    every staged document sits in one directory of the staging host, named after its URL.
    """
    if url.startswith(f"https://{STAGING_HOST}/") and url.count("/") == 3:
        return url
    flat = re.sub(r"[^0-9A-Za-z.]+", "-", url.split("://", 1)[-1]).strip("-")
    return f"https://{STAGING_HOST}/{flat}"


def _relocate(staged: list[StagedDocument]) -> list[StagedDocument]:
    """Move every staged document (and every reference to one) to :func:`_staged_url`."""
    moved = {doc.url: _staged_url(doc.url) for doc in staged}
    moved[BASES_URL] = _staged_url(BASES_URL)

    def relocate(ref: str) -> str:
        url, sep, fragment = ref.partition("#")
        return moved[url] + sep + fragment if url in moved else ref

    result = []
    for doc in staged:
        document = map_refs(doc.document, relocate)
        document["$id"] = moved[doc.url]
        result.append(
            StagedDocument(
                moved[doc.url], document, doc.module, doc.kind, doc.sources, doc.base_classes
            )
        )
    return result


def write(files: Iterable[GeneratedFile], out_root: Path) -> list[Path]:
    """Write generated files under ``out_root``; return the paths that changed."""
    changed = []
    for file in files:
        target = out_root / file.path
        if target.exists() and target.read_text(encoding="utf-8") == file.text:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(file.text, encoding="utf-8")
        changed.append(target)
    return changed


def check(
    files: Iterable[GeneratedFile], out_root: Path, *, owned: Iterable[Path] = ()
) -> list[str]:
    """Compare generated files with what is on disk; return one line per drifted file.

    Args:
        files: what generation produces now.
        out_root: the output root.
        owned: directories (relative to ``out_root``) that hold only generated files; a file there
            that generation no longer produces is reported as stale.
    """
    problems = []
    expected = {file.path: file.text for file in files}
    for path, text in sorted(expected.items()):
        target = out_root / path
        if not target.exists():
            problems.append(f"{path}: missing (regenerate)")
        elif target.read_text(encoding="utf-8") != text:
            problems.append(f"{path}: differs from its schemas (regenerate)")
    for directory in owned:
        for target in sorted((out_root / directory).rglob("*")):
            if not target.is_file() or "__pycache__" in target.parts:
                continue
            relative = target.relative_to(out_root)
            if relative not in expected:
                problems.append(f"{relative}: not produced by codegen (stale or edited by hand)")
    return problems
