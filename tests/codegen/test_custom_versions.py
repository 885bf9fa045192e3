"""A plugin's facet schema gets a new version: regenerate, and old events still validate."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from openlineage_sdk.cli import main
from tests.conftest import ROOT

PLUGIN = ROOT / "examples" / "myco-facets"
OLD_ID = "https://schemas.myco.example/openlineage/facets/1-0-0/MyCoCostsRunFacet.json"
NEW_ID = "https://schemas.myco.example/openlineage/facets/1-1-0/MyCoCostsRunFacet.json"


def _codegen(schemas: Path, out: Path, *extra: str) -> tuple[int, str]:
    stdout = io.StringIO()
    args = ["codegen", "--schemas", str(schemas), "--package", "acme_v", "--out", str(out)]
    return main([*args, *extra], out=stdout), stdout.getvalue()


def _bump(schemas: Path) -> None:
    path = schemas / "MyCoCostsRunFacet.json"
    schema = json.loads(path.read_text())
    assert schema["$id"] == OLD_ID
    schema["$id"] = NEW_ID
    body = schema["$defs"]["MyCoCostsRunFacet"]["allOf"][1]
    body["properties"]["region"] = {"type": "string", "description": "Where the run ran."}
    path.write_text(json.dumps(schema, indent=2))


def test_a_new_schema_version_keeps_the_old_one(tmp_path: Path) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(PLUGIN / "schemas", schemas)
    out = tmp_path / "out"
    assert _codegen(schemas, out)[0] == 0
    package = out / "acme_v"
    assert not (package / "schemas" / "1-0-0").exists()

    _bump(schemas)
    assert _codegen(schemas, out, "--check")[0] == 1  # drift until regenerated
    assert _codegen(schemas, out)[0] == 0
    assert _codegen(schemas, out, "--check") == (0, "")
    kept = package / "schemas" / "1-0-0" / "MyCoCostsRunFacet.json"
    assert json.loads(kept.read_text())["$id"] == OLD_ID
    assert json.loads((package / "schemas" / "MyCoCostsRunFacet.json").read_text())["$id"] == NEW_ID
    assert "region" in (package / "my_co_costs_run.py").read_text()
    # Regenerating again keeps it (it is read back from the package itself).
    assert _codegen(schemas, out)[0] == 0
    assert kept.exists()

    probe = textwrap.dedent(
        f"""
        from acme_v import FACETS, SCHEMAS, MyCoCostsRunFacet
        from openlineage_sdk import read_event, register_facets, validate_event

        register_facets(*FACETS, schemas=SCHEMAS)
        assert {{"{OLD_ID}", "{NEW_ID}"}} <= set(SCHEMAS)
        assert MyCoCostsRunFacet.facet_schema_url == "{NEW_ID}#/$defs/MyCoCostsRunFacet"

        def event(facet):
            return {{
                "eventType": "COMPLETE", "eventTime": "2024-05-01T12:00:00Z",
                "run": {{"runId": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
                        "facets": {{"myCo_costs": facet}}}},
                "job": {{"namespace": "ns", "name": "job"}},
                "producer": "https://example.com/p",
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            }}

        old = {{"_producer": "https://example.com/p",
               "_schemaURL": "{OLD_ID}#/$defs/MyCoCostsRunFacet",
               "amount": 3, "currency": "EUR"}}
        assert validate_event(event(old)) == [], validate_event(event(old))
        # The old schema is the one that applies to an old event: it forbids a wrong currency.
        bad = dict(old, currency="XYZ")
        assert [p.rule for p in validate_event(event(bad))] == ["enum"], validate_event(event(bad))
        read = read_event(event(old))
        assert type(read.run.facets["myCo_costs"]) is MyCoCostsRunFacet
        assert read.to_dict() == event(old)
        new = MyCoCostsRunFacet(amount=1, currency="USD", region="eu-west-1").to_dict()
        assert validate_event(event(new)) == [], validate_event(event(new))
        print("ok")
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(out), str(ROOT)])}
    result = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_a_schema_changed_under_its_published_id_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(PLUGIN / "schemas", schemas)
    out = tmp_path / "out"
    assert _codegen(schemas, out)[0] == 0
    path = schemas / "MyCoCostsRunFacet.json"
    path.write_text(path.read_text().replace('"costCenter"', '"costCentre"'))
    code, _ = _codegen(schemas, out)
    assert code == 1
    stderr = capsys.readouterr().err
    assert f"{OLD_ID} changed under the same '$id'" in stderr
    assert "a published $id is immutable" in stderr
