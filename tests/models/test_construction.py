"""Constructors take the compiled validator's quick way, and follow the class when it is rebuilt."""

from __future__ import annotations

import pytest

from openlineage_sdk import Job, OpenLineageValidationError
from openlineage_sdk import facets as f
from openlineage_sdk._base import OpenLineageModel


def test_a_model_rebuilt_with_a_name_defined_later_builds() -> None:
    class Outer(OpenLineageModel):
        inner: Inner | None = None

    class Inner(OpenLineageModel):
        x: int

    # The names of this function are found through model_rebuild's own frame.
    Outer.model_rebuild()
    assert Outer(inner=Inner(x=1)).to_dict() == {"inner": {"x": 1}}
    with pytest.raises(OpenLineageValidationError, match=r"inner\.x"):
        Outer(inner={"x": "one"})


def test_a_constructor_uses_the_validator_of_the_rebuilt_class() -> None:
    class Thing(OpenLineageModel):
        x: int

    assert Thing(x=1).to_dict() == {"x": 1}
    before = Thing.__pydantic_validator__
    Thing.model_rebuild(force=True)
    assert Thing.__pydantic_validator__ is not before
    assert Thing(x=2).to_dict() == {"x": 2}
    with pytest.raises(OpenLineageValidationError, match="x"):
        Thing(x="two")


def test_built_objects_write_what_was_given_and_the_pinned_defaults() -> None:
    source = f.DatasourceDatasetFacet(name="s3://b", uri="s3://b", deleted=None)
    written = source.to_dict()
    assert written["name"] == "s3://b"
    assert "deleted" not in written  # given as None: absent
    assert written["_producer"]
    assert written["_schemaURL"]
    job = Job(namespace="n", name="j", facets=None, x={"a": [1.5]})
    assert job.to_dict() == {"namespace": "n", "name": "j", "x": {"a": [1.5]}}
    assert job.to_json() == '{"namespace":"n","name":"j","x":{"a":[1.5]}}'
