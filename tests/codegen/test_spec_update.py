"""A new upstream spec laid into ``spec/`` needs ``python -m codegen`` and nothing else.

On a temporary copy of the project: a core 2-0-3 with a new optional field, a facet minor bump
and a brand-new facet (see :mod:`tests.codegen._spec_update`), in an upstream-style folder taken
with ``python -m codegen --take`` (the way ``spec/SOURCE.md`` says). The generator runs unedited,
its output is checked, and the model and codegen tests run against the updated copy as they are.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.codegen._spec_update import (
    COST_URL,
    NEW_CORE,
    NEW_CORE_URL,
    NEW_STATS_URL,
    STATS,
    copy_project,
    update_spec,
    upstream_copy,
)
from tests.conftest import ROOT


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(project)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run(
        [sys.executable, *args], cwd=project, env=env, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def updated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(ROOT, tmp_path_factory.mktemp("project"))
    upstream = upstream_copy(ROOT / "spec", tmp_path_factory.mktemp("upstream") / "spec")
    update_spec(upstream, publish=False)
    taken = _run(project, "-m", "codegen", "--take", str(upstream))
    assert taken.returncode == 0, taken.stderr
    assert f"published published/{NEW_CORE}/OpenLineage.json" in taken.stdout
    assert "codegen: wrote " in taken.stdout
    return project


def test_taking_the_same_spec_again_changes_nothing(updated: Path, tmp_path: Path) -> None:
    again = upstream_copy(updated / "spec", tmp_path / "spec")
    result = _run(updated, "-m", "codegen", "--take", str(again))
    assert result.returncode == 0, result.stderr
    assert "published" not in result.stdout
    assert "wrote 0 of" in result.stdout


def test_a_published_schema_is_never_replaced(updated: Path, tmp_path: Path) -> None:
    changed = upstream_copy(updated / "spec", tmp_path / "spec")
    path = changed / "facets" / f"{STATS}.json"
    path.write_text(path.read_text().replace("partitions written", "partitions made"))
    before = (updated / "spec/facets" / f"{STATS}.json").read_text()
    result = _run(updated, "-m", "codegen", "--take", str(changed))
    assert result.returncode == 2
    assert f"{NEW_STATS_URL} is already published with different content" in result.stderr
    assert (updated / "spec/facets" / f"{STATS}.json").read_text() == before


def test_the_real_spec_is_untouched(updated: Path) -> None:
    assert NEW_CORE_URL not in (ROOT / "spec" / "OpenLineage.json").read_text()
    assert not (ROOT / "openlineage_sdk/models/facets/cost_run.py").exists()
    assert (updated / "openlineage_sdk/models/facets/cost_run.py").exists()


def test_generation_of_the_update_is_then_up_to_date(updated: Path) -> None:
    result = _run(updated, "-m", "codegen", "--check")
    assert result.returncode == 0, result.stderr


def test_the_generated_models_carry_the_update(updated: Path) -> None:
    probe = textwrap.dedent(
        f"""
        import json
        from openlineage_sdk import Job, RunEvent, RunFacets, read_event, validate_event
        from openlineage_sdk import facets as F

        assert "owner" in Job.model_fields
        assert RunFacets.model_fields["cost"].annotation is not None
        assert F.CostRunFacet in F.STANDARD_FACETS
        assert F.CostRunFacet.facet_schema_url == "{COST_URL}#/$defs/CostRunFacet"
        stats = F.{STATS}(rowCount=3, partitionCount=2)
        assert stats.to_dict()["_schemaURL"] == "{NEW_STATS_URL}#/$defs/{STATS}"

        # Built events name the newest core version and validate against it.
        built = RunEvent(
            eventType="COMPLETE",
            eventTime="2024-05-01T12:00:00Z",
            run={{"runId": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
                  "facets": RunFacets(cost=F.CostRunFacet(amount=1.5, currency="EUR"))}},
            job=Job(namespace="ns", name="job", owner="team-a"),
            outputs=[{{"namespace": "ns", "name": "out",
                       "outputFacets": {{"outputStatistics": stats}}}}],
        )
        data = built.to_dict()
        assert data["schemaURL"] == "{NEW_CORE_URL}#/$defs/RunEvent", data["schemaURL"]
        assert data["job"]["owner"] == "team-a"
        assert validate_event(data) == [], validate_event(data)
        assert type(read_event(json.dumps(data)).run.facets.cost) is F.CostRunFacet

        # An event of the previous core version, with the previous facet version, still reads,
        # validates against its own schemas and writes back unchanged.
        old = json.loads(json.dumps(data).replace("/spec/2-0-3/", "/spec/{{old}}/"))
        old["outputs"][0]["outputFacets"]["outputStatistics"] = {{
            "_producer": "https://example.com/p",
            "_schemaURL": "https://openlineage.io/spec/facets/1-0-2/{STATS}.json#/$defs/{STATS}",
            "rowCount": 3,
        }}
        del old["job"]["owner"]
        del old["run"]["facets"]
        assert validate_event(old) == [], validate_event(old)
        assert read_event(json.dumps(old)).to_dict() == old
        print("ok")
        """
    ).replace("{old}", _previous_core(updated))
    result = _run(updated, "-c", probe)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def _previous_core(project: Path) -> str:
    versions = sorted(
        (p.parent.name for p in (project / "spec/published").glob("*/OpenLineage.json")),
        key=lambda v: tuple(int(x) for x in v.split("-")),
    )
    return versions[-2]


def test_the_model_and_codegen_tests_pass_on_the_update(updated: Path) -> None:
    # The standard codegen tests and the model tests, unedited, against the updated copy.
    result = _run(
        updated,
        "-m",
        "pytest",
        "-q",
        "-x",
        "-p",
        "no:cacheprovider",
        "tests/models",
        # The generated-output tests (the drift ones copy the project again: left out for time).
        "tests/codegen/test_standard.py::test_every_generated_module_names_its_sources",
        "tests/codegen/test_standard.py::test_one_module_per_facet_schema",
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout


def test_the_update_adds_what_it_should_to_the_bundle(updated: Path) -> None:
    bundle = json.loads((updated / "openlineage_sdk/models/schemas.json").read_text())["schemas"]
    assert {NEW_CORE_URL, NEW_STATS_URL, COST_URL} <= set(bundle)
    # The previous versions stay bundled, so events naming them still validate.
    assert f"https://openlineage.io/spec/{_previous_core(updated)}/OpenLineage.json" in bundle
    assert f"https://openlineage.io/spec/facets/1-0-2/{STATS}.json" in bundle
