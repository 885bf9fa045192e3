"""The configuration reference holds every key the code reads, and only those.

The reference (``docs/configuration/reference.md``) is generated from the code when the site is
built (``docsgen.reference``). These tests make the code tell what it reads, by reading a
recording environment or conf mapping, the known keys its errors list, and its source, and
check each is in the tables the reference is made from: a key added to the code without its
entry fails here.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from pydantic import Field

from docsgen import reference
from openlineage_sdk.transports import Transport, TransportConfig
from tests.conftest import ROOT

PACKAGE = ROOT / "openlineage_sdk"


class _Key(str):
    """A key of a recording mapping: it notes the prefixes the code tests it against."""

    prefixes: ClassVar[set[str]] = set()

    def startswith(self, prefix: Any, *args: Any) -> bool:
        for one in prefix if isinstance(prefix, tuple) else (prefix,):
            type(self).prefixes.add(one)
        return str(self).startswith(prefix, *args)


class Recording(dict[str, str]):
    """A mapping that notes every key it is asked for, and the prefixes its keys are tested for."""

    def __init__(self, data: dict[str, str]) -> None:
        super().__init__(data)
        self.asked: set[str] = set()
        _Key.prefixes = set()

    def get(self, key: Any, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        return (_Key(k) for k in list(dict.__iter__(self)))

    def keys(self) -> Any:
        return [_Key(k) for k in dict.__iter__(self)]

    def items(self) -> Any:
        return [(_Key(k), v) for k, v in super().items()]

    @property
    def prefixes(self) -> set[str]:
        return set(_Key.prefixes)


def _pattern(key: str) -> re.Pattern[str]:
    """A key of the reference as a pattern: ``<name>`` stands for any text."""
    parts = re.split(r"(<[^>]+>)", key)
    return re.compile(
        "^" + "".join(".+" if p.startswith("<") else re.escape(p) for p in parts) + "$"
    )


def _package_sources() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if "models" in path.relative_to(PACKAGE).parts:
            continue
        yield path, ast.parse(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- transports


def test_every_transport_type_and_every_key_of_its_configuration_is_in_the_reference() -> None:
    from openlineage_sdk.transports import available_kinds, transport_class

    text = reference.transports_reference()
    for kind in available_kinds():
        assert f"`{kind}`" in text, kind
        config = transport_class(kind).config_class
        for name, info in config.model_fields.items():
            if name != "type":
                assert f"| `{info.alias or name}`" in text, (kind, name)
    # The auth kinds of the http transport, key by key.
    for key in ("auth.apiKey", "auth.tokenEndpoint", "auth.clientSecret", "auth.clientAuthMethod"):
        assert f"| `{key}`" in text, key


class _LaterConfig(TransportConfig):
    """Configuration of a transport added after the reference was written.

    Attributes:
        region: where it sends.
    """

    type: Literal["later"] = "later"
    region: str = Field(default="eu", min_length=1)


class _LaterTransport(Transport):
    """Sends events somewhere added later."""

    kind = "later"
    config_class = _LaterConfig

    def emit(self, event: Any) -> None:
        """Drop the event."""


class _UndescribedConfig(TransportConfig):
    """Configuration with a key nobody described."""

    type: Literal["undescribed"] = "undescribed"
    secret_sauce: int = 1


class _UndescribedTransport(_LaterTransport):
    kind = "undescribed"
    config_class = _UndescribedConfig


def test_a_transport_registered_later_appears_in_the_reference_by_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from openlineage_sdk.transports import _registry

    monkeypatch.setitem(_registry._BUILTIN, "later", f"{__name__}:_LaterTransport")  # type: ignore[index]
    text = reference.transports_reference()
    assert "#### `type: later`" in text
    assert "| `region` | text, not empty | `eu` | where it sends. |" in text


def test_a_key_without_a_description_fails_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    from openlineage_sdk.transports import _registry

    monkeypatch.setitem(_registry._BUILTIN, "undescribed", f"{__name__}:_UndescribedTransport")  # type: ignore[index]
    with pytest.raises(reference.ReferenceError, match=r"_UndescribedConfig\.secret_sauce has no"):
        reference.transports_reference()


def test_the_attributes_of_a_docstring_are_read_with_their_continuation_lines() -> None:
    class Documented:
        """A class.

        Attributes:
            first: one line.
            second: two
                lines, with ``code`` and :class:`~pydantic.SecretStr`.

        Raises:
            ValueError: not an attribute.
        """

    assert reference.attribute_docs(Documented) == {
        "first": "one line.",
        "second": "two lines, with `code` and `SecretStr`.",
    }


# --------------------------------------------------------------------------- openlineage.yml


def test_every_top_level_section_the_loader_knows_is_described_and_no_other() -> None:
    from openlineage_sdk import config

    assert set(config._SECTION_DOCS) == {*config._SECTIONS, *config._JAVA_ONLY_SECTIONS}
    text = reference.sections_table()
    for name in config._SECTION_DOCS:
        assert f"| `{name}` |" in text


def _known_in_error(**sections: Any) -> set[str]:
    """The known keys a SectionError lists for an unknown one."""
    from openlineage_sdk._event_config import SectionError, parse_sections

    arguments: dict[str, Any] = {"facets": None, "filters": None, "tags": None, "dataset": None}
    arguments.update(sections)
    with pytest.raises(SectionError) as caught:
        parse_sections(**arguments)
    known = caught.value.message.split("known: ", 1)[1].split(" (did you mean")[0]
    return {name.strip() for name in known.split(",")}


def test_every_key_of_the_event_sections_the_code_accepts_is_in_the_reference() -> None:
    from openlineage_sdk._event_config import sections

    documented = {setting.key for setting in sections.SETTINGS}
    accepted = {
        *(f"filters[].{k}" for k in _known_in_error(filters=[{"zzz": 1}])),
        *(f"tags.{k}" for k in _known_in_error(tags={"zzz": {}})),
        *(f"dataset.{k}" for k in _known_in_error(dataset={"zzz": 1})),
        *(
            f"dataset.namespaceResolvers.<name>.{k}"
            for k in _known_in_error(dataset={"namespaceResolvers": {"r": {"zzz": 1}}})
        ),
        *(
            f"facets.source_code_location.{k}"
            for k in _known_in_error(facets={"source_code_location": {"zzz": 1}})
        ),
        *(f"facets.{k}" for k in sections._FACETS_KEYS.values() if k != "source_code_location"),
        "facets.<name>.disabled",
    }

    # A setting that is a mapping of its own (dataset.namespaceResolvers) is documented by
    # the keys under it.
    def covered(key: str, by: set[str]) -> bool:
        return key in by or any(other.startswith(key + ".") for other in by)

    assert {key for key in accepted if not covered(key, documented)} == set()
    # And the reverse: nothing documented that the code does not accept.
    stale = {
        key
        for key in documented
        if key not in accepted and not any(key.startswith(a + ".") for a in accepted)
    }
    assert stale == set()


# --------------------------------------------------------------------------- environment


def _variables() -> list[re.Pattern[str]]:
    from openlineage_sdk import config

    names = [n.strip() for v in config._ENVIRONMENT_VARIABLES for n in v.name.split(",")]
    # "<the names in facets.environment_variables>" is the user's choice, not a pattern.
    return [_pattern(name) for name in names if not name.startswith("<")]


def _documented(name: str) -> bool:
    return any(pattern.match(name) for pattern in _variables())


def test_every_environment_variable_the_loaders_read_is_in_the_reference(tmp_path: Path) -> None:
    from openlineage_sdk._event_config import git
    from openlineage_sdk.config import default_config_paths, environment_settings, load_config
    from openlineage_sdk.transports import http
    from openlineage_sdk.transports._delivery.spool import default_spool_dir

    env = Recording(
        {
            "HOME": str(tmp_path),
            "OPENLINEAGE_URL": "http://localhost:5000",
            "OPENLINEAGE_API_KEY": "key",
            "OPENLINEAGE_ENDPOINT": "api/v1/lineage",
            "OPENLINEAGE_CONFIG": str(tmp_path / "missing.yml"),
            "OPENLINEAGE__TAGS__JOB__TEAM": "lineage",
            "HTTPS_PROXY": "http://proxy:3128",
        }
    )
    load_config(env, cwd=tmp_path)
    environment_settings(env)
    default_config_paths(env, tmp_path)
    http._environment_proxy("https://lineage.example.com/api", env)
    default_spool_dir(env)
    git._ci_pull_request(env)
    read = {name for name in env.asked if isinstance(name, str)}
    read |= {prefix + "X" for prefix in env.prefixes}
    assert len(read) > 10  # the recording saw the loaders read
    assert {name for name in read if not _documented(name)} == set()


def test_every_environment_variable_named_in_the_package_source_is_in_the_reference() -> None:
    """``env.get("NAME")``, ``environ["NAME"]``, ``os.getenv("NAME")`` anywhere in the package."""
    found: dict[str, str] = {}
    for path, tree in _package_sources():
        for node in ast.walk(tree):
            name: str | None = None
            receiver = ""
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr in ("get", "getenv", "pop"):
                    receiver = ast.unparse(func.value)
                    name = node.args[0].value if isinstance(node.args[0].value, str) else None
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                receiver = ast.unparse(node.value)
                name = node.slice.value if isinstance(node.slice.value, str) else None
            if name and ("env" in receiver.lower() or receiver == "os") and name.isupper():
                found[name] = f"{path.relative_to(ROOT)}:{node.lineno}"
    assert "OPENLINEAGE_URL" in found  # the scan sees the loader
    undocumented = {name: where for name, where in found.items() if not _documented(name)}
    # Set by the demo for its own Spark (not read): SPARK_LOCAL_IP, SPARK_CONNECT_MODE_ENABLED.
    undocumented = {
        k: v for k, v in undocumented.items() if not v.startswith("openlineage_sdk/spark/demo.py")
    }
    assert undocumented == {}


# --------------------------------------------------------------------------- spark confs


def _conf_patterns() -> list[re.Pattern[str]]:
    from openlineage_sdk.spark._conf import CONFS

    return [_pattern(conf.key) for conf in CONFS]


def test_every_spark_conf_the_adapter_reads_is_in_the_reference() -> None:
    from openlineage_sdk.spark._conf import CONF_PREFIX, CONFS, CONFS_NOT_READ, parse_confs

    confs = Recording(
        {
            f"{CONF_PREFIX}transport.type": "console",
            f"{CONF_PREFIX}job.owners.team": "lineage",
            f"{CONF_PREFIX}facets.spark_unknown.disabled": "true",
            f"{CONF_PREFIX}parentJobNamespace": "airflow",
            f"{CONF_PREFIX}parentJobName": "dag.task",
            f"{CONF_PREFIX}parentRunId": "01890f5e-8c1c-7cc4-a7a4-3b9b1fe4d3a1",
            f"{CONF_PREFIX}rootParentJobNamespace": "airflow",
            f"{CONF_PREFIX}rootParentJobName": "dag",
            f"{CONF_PREFIX}rootParentRunId": "01890f5e-8c1c-7cc4-a7a4-3b9b1fe4d3a2",
            "spark.master": "local[2]",
        }
    )
    settings = parse_confs(confs, strict=True)
    assert settings.job_owners == {"team": "lineage"}  # the confs were read
    # The platform the driver runs on is detected from the confs as well (spark.platforms).
    from openlineage_sdk.spark import platforms

    platforms.detect(platforms.Facts(kind="classic", confs=confs, http=lambda *_: None))
    read = {key[len(CONF_PREFIX) :] for key in confs.asked if key.startswith(CONF_PREFIX)}
    read |= {p[len(CONF_PREFIX) :] + "x" for p in confs.prefixes if p.startswith(CONF_PREFIX)}
    patterns = _conf_patterns()
    assert {key for key in read if not any(p.match(key) for p in patterns)} == set()
    # And the reverse: each conf of the reference named in full is one the code asks for.
    prefixes = {p[len(CONF_PREFIX) :] for p in confs.prefixes if p.startswith(CONF_PREFIX)}
    exact = {conf.key for conf in CONFS if "<" not in conf.key}
    assert {key for key in exact - read if not key.startswith(tuple(prefixes))} == set()
    assert {conf.key for conf in CONFS_NOT_READ} & read == set()


def test_every_spark_conf_named_in_the_package_is_in_the_reference() -> None:
    """Code and docstrings alike: a conf read elsewhere, or promised in a docstring, is listed."""
    from openlineage_sdk.spark._conf import CONFS_NOT_READ

    patterns = _conf_patterns() + [_pattern(conf.key) for conf in CONFS_NOT_READ]
    unknown = set()
    for path, tree in _package_sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for match in re.finditer(r"spark\.openlineage\.([A-Za-z][\w.*]*[\w*])", node.value):
                    key = re.sub(r"\.\*$", ".x", match.group(1))
                    if not any(p.match(key) for p in patterns):
                        unknown.add(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert unknown == set()


def test_the_reference_page_holds_every_table() -> None:
    page = (ROOT / "docs" / "configuration" / "reference.md").read_text(encoding="utf-8")
    markers = set(re.findall(r"<!--\s*reference:\s*([\w-]+)\s*-->", page))
    assert markers == set(reference.MARKERS)
    rendered = reference.render(page)
    assert "<!-- reference:" not in rendered
    assert "| `spark.openlineage.streaming.runningInterval` |" in rendered
    assert "| `OPENLINEAGE_URL` |" in rendered
    assert "| `dataset.namespaceResolvers.<name>.type` |" in rendered


def test_an_unknown_marker_is_an_error() -> None:
    with pytest.raises(reference.ReferenceError, match="unknown reference marker 'nope'"):
        reference.render("<!-- reference: nope -->", page="page.md")
