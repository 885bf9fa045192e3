"""The cloud transports' configuration: every spelling the official clients use (their YAML,
the ``OPENLINEAGE__`` environment variables, the ``spark.openlineage.transport.*`` confs), typed
errors that name the key, and the Java client's object names and time rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.config import load_config
from openlineage_sdk.spark._conf import transport_section
from openlineage_sdk.transports import TransportConfigError, parse_transport_config
from openlineage_sdk.transports._cloud import event_millis, object_name, request_id
from openlineage_sdk.transports.amazon_datazone import AmazonDataZoneConfig
from openlineage_sdk.transports.gcplineage import GcpLineageConfig
from openlineage_sdk.transports.gcs import GcsConfig
from openlineage_sdk.transports.kafka import MskIamConfig
from openlineage_sdk.transports.kinesis import KinesisConfig
from openlineage_sdk.transports.s3 import S3Config


def _from_env(tmp_path: Path, **variables: str) -> Any:
    env = {f"OPENLINEAGE__TRANSPORT__{k.upper()}": v for k, v in variables.items()}
    env["HOME"] = str(tmp_path)
    config = load_config(env=env, search_paths=[])
    return config.transport


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        (
            {"type": "s3", "bucketName": "b", "fileNamePrefix": "p/", "endpoint": "http://h:9"},
            S3Config(bucketName="b", fileNamePrefix="p/", endpoint="http://h:9"),
        ),
        (
            {"type": "gcs", "projectId": "42", "bucketName": "b", "credentialsFile": "/k"},
            GcsConfig(projectId="42", bucketName="b", credentialsFile="/k"),
        ),
        (
            {"type": "kinesis", "streamName": "s", "region": "eu-west-1", "roleArn": "arn:r"},
            KinesisConfig(streamName="s", region="eu-west-1", roleArn="arn:r"),
        ),
        (
            {"type": "amazon_datazone_api", "domainId": "dzd_1", "endpointOverride": "https://d"},
            AmazonDataZoneConfig(domainId="dzd_1", endpointOverride="https://d"),
        ),
        (
            {"type": "gcplineage", "project_id": "p", "location": "eu", "credentials_path": "/k"},
            GcpLineageConfig(projectId="p", location="eu", credentialsFile="/k"),
        ),
        (
            {"type": "msk-iam", "topic": "t", "region": "us-east-1", "aws_profile": "x"},
            MskIamConfig(topic="t", region="us-east-1", aws_profile="x"),
        ),
    ],
)
def test_openlineage_variables_with_their_lower_cased_keys(
    tmp_path: Path, variables: dict[str, str], expected: Any
) -> None:
    # The environment's keys arrive lower-cased (bucketname, domainid); a number is text here.
    assert _from_env(tmp_path, **variables) == expected


def test_project_number_from_a_variable_is_text(tmp_path: Path) -> None:
    transport = _from_env(tmp_path, type="gcs", projectId="1234", bucketName="b")
    assert transport.project_id == "1234"


def test_spark_confs_in_the_java_client_s_spellings() -> None:
    def section(kind: str, **keys: str) -> Any:
        confs = {"spark.openlineage.transport.type": kind}
        confs.update({f"spark.openlineage.transport.{k}": v for k, v in keys.items()})
        result = transport_section(confs)
        assert result is not None
        return parse_transport_config(result)

    s3 = section("s3", bucketName="b", fileNamePrefix="e_", endpoint="https://minio:9000")
    assert s3 == S3Config(bucketName="b", fileNamePrefix="e_", endpoint="https://minio:9000")
    gcs = section("gcs", projectId="p", bucketName="b", maxRetries="3", retryIntervalMillis="2000")
    assert isinstance(gcs, GcsConfig)
    assert (gcs.max_retries, gcs.backoff_initial, gcs.backoff_max) == (3, 2.0, 2.0)
    kinesis = section(
        "kinesis",
        streamName="s",
        region="eu-west-1",
        **{"properties.VerifyCertificate": "true", "properties.ConnectTimeout": "6000"},
    )
    assert isinstance(kinesis, KinesisConfig)
    assert kinesis.properties == {"VerifyCertificate": "true", "ConnectTimeout": "6000"}
    lineage = section("gcplineage", projectId="p", mode="sync")
    assert isinstance(lineage, GcpLineageConfig)
    assert lineage.location == "us"  # the Java client's default from the Spark confs
    datazone = section("amazon_datazone_api", domainId="dzd_1", region="eu-west-1")
    assert datazone == AmazonDataZoneConfig(domainId="dzd_1", region="eu-west-1")


@pytest.mark.parametrize(
    ("section", "named"),
    [
        ({"type": "s3"}, "bucketName"),
        ({"type": "s3", "bucketName": "b", "endpoint": "minio:9000"}, "endpoint"),
        ({"type": "s3", "bucketName": "b", "bucketname": "c"}, "bucketname"),
        ({"type": "s3", "bucketName": "b", "bucket": "c"}, "bucket"),
        ({"type": "gcs", "bucketName": ""}, "bucketName"),
        ({"type": "gcs", "bucketName": "b", "maxRetries": -1}, "maxRetries"),
        ({"type": "kinesis"}, "streamName"),
        ({"type": "kinesis", "streamName": "s", "batch_size": 501}, "batch_size"),
        (
            {"type": "kinesis", "streamName": "s", "properties": {"VerifyCertificate": "maybe"}},
            "VerifyCertificate",
        ),
        ({"type": "amazon_datazone_api"}, "domainId"),
        ({"type": "amazon_datazone_api", "domainId": "d", "endpointOverride": "d.io"}, "endpoint"),
        ({"type": "gcplineage", "mode": "sometimes"}, "mode"),
        ({"type": "gcplineage", "async_transport_rules": {"dbt": "yes"}}, "async_transport_rules"),
        ({"type": "msk-iam", "region": "r"}, "topic"),
    ],
)
def test_bad_settings_are_typed_errors_naming_the_key(section: dict[str, Any], named: str) -> None:
    with pytest.raises(TransportConfigError) as error:
        parse_transport_config(section)
    assert named in str(error.value)


def test_a_misspelt_key_gets_a_suggestion() -> None:
    with pytest.raises(TransportConfigError, match="did you mean 'streamName'"):
        parse_transport_config({"type": "kinesis", "streamNme": "s"})


def test_secret_kafka_settings_of_msk_iam_are_masked() -> None:
    config = MskIamConfig(topic="t", config={"sasl.oauthbearer.client.secret": "s3cr3t"})
    assert "s3cr3t" not in repr(config)
    assert "s3cr3t" not in config.model_dump_json()


def test_event_time_in_milliseconds_as_java_s_to_epoch_milli() -> None:
    assert event_millis({"eventTime": "2024-01-01T00:00:00Z"}) == 1_704_067_200_000
    # Digits below the millisecond are cut, not rounded (nanoseconds from the JVM).
    assert event_millis({"eventTime": "2024-01-01T00:00:00.123999999Z"}) == 1_704_067_200_123
    assert event_millis({"eventTime": "2024-01-01T02:00:00.5+02:00"}) == 1_704_067_200_500
    assert event_millis({"eventTime": "2023-12-31T19:00:00-05:00"}) == 1_704_067_200_000
    with pytest.raises(ValueError, match="eventTime"):
        event_millis({"eventTime": "yesterday"})
    with pytest.raises(ValueError, match="eventTime"):
        event_millis({})


def test_object_names_as_the_java_client_names_them() -> None:
    assert object_name(None, 1700000000000) == "1700000000000.json"
    assert object_name("lineage/", 1700000000000) == "lineage/1700000000000.json"
    assert object_name("events", 1700000000000) == "events_1700000000000.json"
    assert object_name("events", 1700000000000, 2) == "events_1700000000000-2.json"


def test_request_ids_are_stable_and_fit_the_services_limits() -> None:
    first = request_id(b'{"a": 1}')
    assert first == request_id(b'{"a": 1}') != request_id(b'{"a": 2}')
    assert len(first) == 36
    assert first.count("-") == 4
    assert first.isascii()


@pytest.mark.parametrize(
    "section",
    [
        {"type": "amazon_datazone_api", "domainId": "d"},
        {"type": "kinesis", "streamName": "s"},
        {"type": "kinesis", "streamName": "s", "roleArn": "arn:aws:iam::1:role/r"},
    ],
)
def test_no_region_anywhere_is_a_typed_error_naming_region(
    section: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("boto3")
    from openlineage_sdk.transports import create_transport

    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    with pytest.raises(TransportConfigError, match="region"):
        create_transport({**section, "spool": False})
