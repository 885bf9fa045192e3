"""DatasetName, the qualified-name splitter, and the module's import hygiene."""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from openlineage_sdk import naming
from openlineage_sdk.naming import DatasetName, NamingError
from openlineage_sdk.naming._parts import split_qualified

# (case, namespace, name, uri)
URIS = [
    ("authority + dotted name", "postgres://h:5432", "d.s.t", "postgres://h:5432/d.s.t"),
    ("authority + absolute path", "hdfs://nn:8020", "/w/t", "hdfs://nn:8020/w/t"),
    ("authority + key", "s3://my-bucket", "raw/orders", "s3://my-bucket/raw/orders"),
    ("bare scheme", "bigquery", "p.d.t", "bigquery:p.d.t"),
    ("local file", "file", "/data/x.csv", "file:/data/x.csv"),
    ("pubsub", "pubsub", "topic:p:t", "pubsub:topic:p:t"),
    (
        "glue ARN",
        "arn:aws:glue:us-east-1:123456789012",
        "table/d/t",
        "arn:aws:glue:us-east-1:123456789012:table/d/t",
    ),
    ("in memory", "inmemory://", "view", "inmemory:///view"),
    (
        "namespace with a path",
        "azurecosmos://a.documents.azure.com/dbs/d",
        "colls/t",
        "azurecosmos://a.documents.azure.com/dbs/d/colls/t",
    ),
]


@pytest.mark.parametrize(("case", "namespace", "name", "uri"), URIS, ids=[u[0] for u in URIS])
def test_uri_joins_namespace_and_name(case: str, namespace: str, name: str, uri: str) -> None:
    assert DatasetName(namespace, name).uri == uri


@pytest.mark.parametrize(
    ("namespace", "datasource_uri"),
    [
        ("postgres://h:5432", "postgres://h:5432"),
        ("bigquery", "bigquery:"),
        ("file", "file:"),
        ("arn:aws:glue:us-east-1:123456789012", "arn:aws:glue:us-east-1:123456789012"),
    ],
    ids=["authority", "bare scheme", "local file", "arn"],
)
def test_datasource_fields(namespace: str, datasource_uri: str) -> None:
    # The dataSource facet's name is the namespace; its uri must be absolute.
    dataset = DatasetName(namespace, "x")
    assert dataset.datasource_name == namespace
    assert dataset.datasource_uri == datasource_uri


def test_dataset_name_is_immutable_and_hashable() -> None:
    dataset = naming.postgres("h", "d", "s", "t")
    with pytest.raises(dataclasses.FrozenInstanceError):
        dataset.name = "other"  # type: ignore[misc]
    same = naming.dataset_from_uri("jdbc:postgresql://H:5432/d", "s.t")
    assert same == dataset
    assert {dataset: 1}[same] == 1
    assert dataset != DatasetName(dataset.namespace, "d.s.other")


def test_dataset_name_fields() -> None:
    assert [f.name for f in dataclasses.fields(DatasetName)] == ["namespace", "name"]


@pytest.mark.parametrize(
    ("value", "parts", "quoted"),
    [
        ("orders", ["orders"], [False]),
        ("sales.orders", ["sales", "orders"], [False, False]),
        ('"Sales"."Order.Lines"', ["Sales", "Order.Lines"], [True, True]),
        ("[dbo].[Order Lines]", ["dbo", "Order Lines"], [True, True]),
        ("`shop`.orders", ["shop", "orders"], [True, False]),
        ('"say ""hi"""', ['say "hi"'], [True]),
        ("[a]]b]", ["a]b"], [True]),
    ],
    ids=[
        "one part",
        "two parts",
        "double quotes",
        "brackets",
        "backticks",
        "doubled quote",
        "doubled bracket",
    ],
)
def test_split_qualified(value: str, parts: list[str], quoted: list[bool]) -> None:
    result = split_qualified(value, "ctx")
    assert [str(x) for x in result] == parts
    assert [x.quoted for x in result] == quoted


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("", "missing table"),
        ("(select 1) t", "table is a sub-query"),
        ("a b", "invalid table: unexpected ' '"),
        ("a.", "table: empty part"),
        (".a", "table: empty part"),
        ('"a"b', "invalid table: unexpected 'b'"),
        ('""', "table: empty quoted part"),
        ("[a", "table: unclosed quote"),
    ],
    ids=[
        "empty",
        "sub-query",
        "space",
        "trailing dot",
        "leading dot",
        "text after quote",
        "empty quotes",
        "unclosed",
    ],
)
def test_split_qualified_rejects(value: str, problem: str) -> None:
    with pytest.raises(NamingError) as caught:
        split_qualified(value, "ctx")
    assert caught.value.problem.startswith(problem)


def test_public_api_is_listed_in_all() -> None:
    # Everything public is in __all__ and the reverse ("annotations" is the
    # __future__ import, private submodules start with "_").
    public = {name for name in dir(naming) if not name.startswith("_")} - {"annotations"}
    assert set(naming.__all__) == public
    for name in naming.__all__:
        value = getattr(naming, name)
        if callable(value) and not isinstance(value, type):
            assert value.__doc__, name
            assert "Args:" in value.__doc__, name
            assert "Returns:" in value.__doc__, name


def test_import_loads_only_the_standard_library() -> None:
    # Naming is used on hot paths and in thin clients: importing it must not
    # pull in pydantic, jsonschema or anything else outside the stdlib.
    root = Path(__file__).parents[2]
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import openlineage_sdk.naming\n"
        "new = sorted(m for m in set(sys.modules) - before)\n"
        "bad = [m for m in new if m.split('.')[0] not in sys.stdlib_module_names"
        " and m.split('.')[0] != 'openlineage_sdk']\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": ""},
    )
    assert result.stdout.strip() == ""


NAMING_MODULES = [
    "openlineage_sdk.naming",
    *(info.name for info in pkgutil.iter_modules(naming.__path__, "openlineage_sdk.naming.")),
]


@pytest.mark.parametrize("module", NAMING_MODULES)
def test_doctests(module: str) -> None:
    # The docs' examples are run, so that they stay true.
    assert doctest.testmod(importlib.import_module(module)).failed == 0


def test_package_docs_have_examples() -> None:
    examples = sum(len(test.examples) for test in doctest.DocTestFinder().find(naming))
    assert examples >= 5
