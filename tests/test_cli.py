"""``openlineage-sdk validate`` over files, JSON Lines and folders."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from openlineage_sdk import validate_event
from openlineage_sdk.cli import main
from tests.conftest import CONFORMANCE

VALID = CONFORMANCE / "events/marquez/ol_event_simple.json"
INVALID = CONFORMANCE / "events/ol-fluentd/fluentd-events_event_invalid_input_dataset_facet.json"


def _run(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    status = main(["validate", *args], out=out)
    return status, out.getvalue()


def test_valid_file_exits_zero() -> None:
    assert _run(str(VALID)) == (0, "1 event(s), 0 invalid\n")


def test_invalid_file_prints_one_line_per_problem_and_exits_one() -> None:
    status, output = _run(str(INVALID))
    assert status == 1
    assert output.splitlines() == [
        f"{INVALID}: run 41fb5137-f0fd-4ee5-ba5c-56f8571d1bd7 COMPLETE: "
        "inputs[0].inputFacets.dataQualityMetrics.columnMetrics: required field is missing",
        "1 event(s), 1 invalid",
    ]


def test_folder_reports_exactly_the_invalid_events() -> None:
    # The manifest's schema_valid reads `format` as JSON Schema 2020-12 does (an annotation).
    status, output = _run("--no-formats", str(CONFORMANCE / "events"))
    assert status == 1
    reported = {line.split(":", 1)[0] for line in output.splitlines()[:-1]}
    manifest = json.loads((CONFORMANCE / "manifest.json").read_text())
    expected = {str(CONFORMANCE / r["path"]) for r in manifest if not r["schema_valid"]}
    assert reported == expected


def test_by_default_real_events_with_malformed_strings_are_invalid_too() -> None:
    status, output = _run(str(CONFORMANCE / "events"))
    assert status == 1
    problems = output.splitlines()[:-1]
    reported = {line.split(":", 1)[0] for line in problems}
    manifest = json.loads((CONFORMANCE / "manifest.json").read_text())
    assert {str(CONFORMANCE / r["path"]) for r in manifest if not r["schema_valid"]} < reported
    assert any(line.endswith("dataSource.uri: expected a URI, got 'file'") for line in problems)
    assert output.splitlines()[-1] == f"61 event(s), {len(reported)} invalid"


def test_json_lines_name_the_line(tmp_path: Path) -> None:
    lines = tmp_path / "events.jsonl"
    lines.write_text(
        VALID.read_text().replace("\n", "") + "\n\n" + INVALID.read_text().replace("\n", "") + "\n"
    )
    status, output = _run(str(lines))
    assert status == 1
    assert output.startswith(f"{lines}:3: ")


def test_not_json_is_a_problem(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    status, output = _run(str(broken))
    assert status == 1
    assert "not valid JSON" in output


def test_json_lines_that_are_not_events_are_named_with_their_problem(tmp_path: Path) -> None:
    lines = tmp_path / "events.jsonl"
    lines.write_text('{not json\n"a string"\n[1]\nnull\n')
    status, output = _run(str(lines))
    assert status == 1
    assert [line.split(": ", 2)[2].split(" (")[0] for line in output.splitlines()[:-1]] == [
        "not valid JSON",
        "expected a JSON object, got a string",
        "expected a JSON object, got an array",
        "expected a JSON object, got null",
    ]


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    assert _run(str(tmp_path / "nope.json"))[0] == 2


def test_console_script_is_installed(tmp_path: Path) -> None:
    shutil.copy(VALID, tmp_path / "ok.json")
    exe = shutil.which("openlineage-sdk") or str(Path(sys.executable).parent / "openlineage-sdk")
    result = subprocess.run(
        [exe, "validate", str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "1 event(s), 0 invalid\n"  # results on stdout, to be piped


BAD_STRINGS = {
    "eventType": "START",
    "eventTime": "yesterday",
    "run": {"runId": "nope"},
    "job": {"namespace": "shop", "name": "orders"},
    "producer": "https://example.com/producer",
    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
}


def test_string_formats_are_checked_by_default(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(BAD_STRINGS))
    status, output = _run(str(path))
    assert status == 1
    assert output.splitlines() == [
        f"{path}: run nope START: eventTime: expected an RFC 3339 date-time with a time zone, "
        "got 'yesterday'",
        f"{path}: run nope START: run.runId: expected a UUID, got 'nope'",
        "1 event(s), 1 invalid",
    ]


def test_no_formats_reads_formats_as_annotations(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(BAD_STRINGS))
    assert _run("--no-formats", str(path)) == (0, "1 event(s), 0 invalid\n")


def test_validate_event_checks_formats_by_default() -> None:
    assert [p.path for p in validate_event(BAD_STRINGS)] == ["eventTime", "run.runId"]
    assert validate_event(BAD_STRINGS, formats=False) == []


def test_codegen_without_its_extra_says_which_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "datamodel_code_generator", None)  # as if not installed
    status = main(["codegen", "--schemas", ".", "--package", "x", "--out", "."], out=io.StringIO())
    assert status == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "pip install 'openlineage-sdk[codegen]'" in error
