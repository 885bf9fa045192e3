"""Facet builders: plugins add their facets to every event the adapter builds, in both modes."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from tests.spark._support import Captured, files_of

pytestmark = pytest.mark.plugin_facets


def _facet_builders_of_the_plugin() -> list[Any]:
    from importlib.metadata import entry_points

    return list(entry_points(group="openlineage_sdk.spark.facet_builders"))


def test_the_example_plugin_registers_its_builder() -> None:
    """Installing the example plugin package is enough: its entry point names the builder."""
    [point] = [p for p in _facet_builders_of_the_plugin() if p.name == "myco_costs"]
    assert point.value == "myco_spark:costs"
    assert callable(point.load())


def test_the_plugins_facets_join_every_run_in_both_modes(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    from myco_facets import MyCoCostsRunFacet, MyCoQualityDatasetFacet

    out = data_dir / "out"
    mode_spark.range(4).selectExpr("id", "id * 3 AS v").write.parquet(str(out))

    run = auto.only_write()
    assert run.types == ["START", "COMPLETE"]
    start, end = run.start, run.end
    assert end.run.facets is not None
    costs = end.run.facets.get("myCo_costs")
    assert isinstance(costs, MyCoCostsRunFacet)
    assert costs.currency == "EUR"
    assert costs.breakdown is not None
    assert costs.breakdown[0]["resource"] == "execute_insert_into_hadoop_fs_relation_command"
    [output] = start.outputs or []
    assert output.facets is not None
    quality = output.facets.get("myCo_quality")
    assert isinstance(quality, MyCoQualityDatasetFacet)
    assert quality.score == 100  # the schema was learned without a problem
    # Facets of the adapter's own are all still there.
    assert output.facets.schema_ is not None
    assert start.run.facets is not None
    assert start.run.facets.processing_engine is not None


def test_a_builder_given_in_code_and_one_that_raises(
    mode_spark: Any, client: Any, memory: Any, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A builder that raises is logged and left out; the event and the others' facets go out."""
    from openlineage_sdk.facets import DocumentationJobFacet
    from openlineage_sdk.spark import FacetContext, install, uninstall

    seen: list[tuple[str, str]] = []

    def documented(context: FacetContext) -> None:
        seen.append((context.event_type, context.execution.session_kind))
        context.add(DocumentationJobFacet(description=f"{context.execution.command} by the team"))

    def broken(context: FacetContext) -> None:
        raise RuntimeError("the builder is broken")

    install(mode_spark, client, facet_builders=[broken, documented])
    try:
        with caplog.at_level(logging.WARNING, logger="openlineage_sdk.spark"):
            mode_spark.range(2).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(mode_spark)
    assert files_of(data_dir / "out")
    run = Captured(memory).only_write()
    assert run.types == ["START", "COMPLETE"]
    for event in run.events:
        assert event.job.facets is not None
        assert event.job.facets.documentation is not None
        assert event.job.facets.documentation.description.startswith("execute_insert")
        assert event.run.facets is not None
        assert event.run.facets.get("myCo_costs") is not None or event.event_type == "START"
    kind = "connect" if "connect" in type(mode_spark).__module__ else "classic"
    assert seen == [("START", kind), ("COMPLETE", kind)]
    assert sum("the builder is broken" in r.getMessage() for r in caplog.records) == 2


def test_a_dataset_facet_added_as_a_run_facet_is_refused_with_its_reason() -> None:
    """The context names the rule: a dataset facet goes to one dataset, with add_to."""
    from myco_facets import MyCoQualityDatasetFacet

    from openlineage_sdk.spark import DatasetIdentity, DatasetLineage, FacetContext, SparkExecution

    output = DatasetLineage(DatasetIdentity("file", "/data/out"), "output")
    execution = SparkExecution("classic", "parquet", "app", "write", output=output)
    context = FacetContext(execution, "START")
    quality = MyCoQualityDatasetFacet(score=1, checked_at="2026-01-01T00:00:00Z")
    with pytest.raises(TypeError, match="add_to"):
        context.add(quality)  # type: ignore[arg-type]
    stranger = DatasetLineage(DatasetIdentity("file", "/data/other"), "output")
    with pytest.raises(ValueError, match="not one of the execution's"):
        context.add_to(stranger, quality)
    context.add_to(output, quality)


def test_explicit_mode_adds_the_builders_run_facets_to_the_current_run(
    mode_spark: Any, client: Any, memory: Any, data_dir: Path
) -> None:
    from openlineage_sdk.spark import install, uninstall

    install(mode_spark, mode="explicit")
    try:
        with client.run("orders.daily_load"):
            mode_spark.range(3).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(mode_spark)
    events = Captured(memory).events()
    assert [e.event_type for e in events] == ["START", "COMPLETE"]
    end = events[-1]
    assert end.run.facets is not None
    assert end.run.facets.get("myCo_costs") is not None
    [output] = end.outputs or []
    assert output.facets is not None
    assert output.facets.get("myCo_quality") is not None
