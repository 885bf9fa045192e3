"""S3 and Kinesis against moto's server mode, DataZone against a loopback server speaking its
REST API, all through boto3 as in production: real requests, signed, on loopback."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

boto3 = pytest.importorskip("boto3")
pytest.importorskip("moto")

from openlineage_sdk import DatasetEvent, JobEvent, read_event  # noqa: E402
from openlineage_sdk.transports import create_transport  # noqa: E402
from openlineage_sdk.transports._cloud import object_name, request_id  # noqa: E402
from openlineage_sdk.transports.amazon_datazone import AmazonDataZoneTransport  # noqa: E402
from openlineage_sdk.transports.kinesis import KinesisTransport, partition_key  # noqa: E402
from openlineage_sdk.transports.s3 import S3Transport  # noqa: E402
from tests.transports._cloud_support import (  # noqa: E402
    MotoServer,
    RecordingApi,
    Seen,
    official_run_event,
)
from tests.transports._support import (  # noqa: E402
    assert_exactly_once_in_order,
    hold_sender,
    run_event,
    run_events,
)

REGION = "us-east-1"


@pytest.fixture(autouse=True)
def aws_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Fixed test credentials from the environment; no AWS files of the machine are read."""
    for name in ("AWS_PROFILE", "AWS_REGION", "AWS_SESSION_TOKEN", "AWS_ROLE_ARN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDOPENLINEAGETEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret-key")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture(scope="module")
def moto() -> Iterator[MotoServer]:
    server = MotoServer()
    yield server
    server.stop()


def _client(service: str, moto: MotoServer) -> Any:
    return boto3.client(service, endpoint_url=moto.url, region_name=REGION)


# ------------------------------------------------------------------------------- S3


def _bucket(moto: MotoServer) -> str:
    name = f"lineage-{uuid.uuid4().hex[:12]}"
    _client("s3", moto).create_bucket(Bucket=name)
    return name


def _objects(moto: MotoServer, bucket: str) -> dict[str, bytes]:
    s3 = _client("s3", moto)
    listing = s3.list_objects_v2(Bucket=bucket).get("Contents", [])
    return {o["Key"]: s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read() for o in listing}


def test_s3_writes_each_event_as_an_object_named_by_its_time(
    moto: MotoServer, tmp_path: Path
) -> None:
    bucket = _bucket(moto)
    events = run_events(4)
    transport = create_transport(
        {
            "type": "s3",
            "endpoint": moto.url,
            "bucketName": bucket,
            "fileNamePrefix": "lineage/",
            "spool_dir": str(tmp_path),
        }
    )
    hold = hold_sender(transport)
    with hold.closed():
        # Emit never waits for S3: the others return while the first is held on its way.
        transport.emit(events[0])
        hold.wait_for_waiting(1)
        for event in events[1:]:
            transport.emit(event)
    result = transport.close(20)
    assert result.complete
    assert result.delivered == len(events)
    stored = _objects(moto, bucket)
    # The Java client's names: the prefix (a folder), the event time in milliseconds, .json.
    expected = {f"lineage/{_millis(e)}.json": e for e in events}
    assert set(stored) == set(expected)
    for name, event in expected.items():
        assert stored[name] == event.to_json().encode()
    assert_exactly_once_in_order([json.loads(v) for v in stored.values()], events)
    head = _client("s3", moto).head_object(Bucket=bucket, Key=next(iter(expected)))
    assert head["ContentType"] == "application/json"


def _millis(event: Any) -> int:
    from datetime import datetime

    when = datetime.fromisoformat(str(event.event_time).replace("Z", "+00:00"))
    return int(when.timestamp() * 1000)


def test_s3_prefix_without_slash_is_joined_with_an_underscore(
    moto: MotoServer, tmp_path: Path
) -> None:
    bucket = _bucket(moto)
    event = run_event(str(uuid.uuid4()), "job", "START", 7)
    with S3Transport(
        endpoint=moto.url, bucketName=bucket, fileNamePrefix="events", spool_dir=tmp_path
    ) as transport:
        transport.emit(event)
    assert list(_objects(moto, bucket)) == [f"events_{_millis(event)}.json"]


def test_s3_events_of_one_millisecond_never_overwrite_each_other(
    moto: MotoServer, tmp_path: Path
) -> None:
    bucket = _bucket(moto)
    # Another writer (another process under the same prefix) holds the first name already.
    first = run_event(str(uuid.uuid4()), "a", "START", 3)
    taken = object_name(None, _millis(first))
    _client("s3", moto).put_object(Bucket=bucket, Key=taken, Body=b'{"other": "writer"}')
    same_ms = [run_event(str(uuid.uuid4()), f"job{i}", "START", 3) for i in range(3)]
    with S3Transport(endpoint=moto.url, bucketName=bucket, spool_dir=tmp_path) as transport:
        for event in same_ms:
            transport.emit(event)
        result = transport.close(20)
    assert result.delivered == 3
    stored = _objects(moto, bucket)
    ms = _millis(first)
    assert stored[f"{ms}.json"] == b'{"other": "writer"}'  # never overwritten
    written = {k: v for k, v in stored.items() if k != f"{ms}.json"}
    assert set(written) <= {f"{ms}-{n}.json" for n in range(1, 5)}
    assert sorted(written.values()) == sorted(e.to_json().encode() for e in same_ms)


def test_s3_a_write_that_already_arrived_is_not_written_twice(
    moto: MotoServer, tmp_path: Path
) -> None:
    bucket = _bucket(moto)
    event = run_event(str(uuid.uuid4()), "job", "COMPLETE", 9)
    name = object_name("p/", _millis(event))
    # As if an earlier attempt had arrived and its answer was lost.
    _client("s3", moto).put_object(Bucket=bucket, Key=name, Body=event.to_json().encode())
    with S3Transport(
        endpoint=moto.url, bucketName=bucket, fileNamePrefix="p/", spool_dir=tmp_path
    ) as transport:
        transport.emit(event)
        assert transport.close(20).delivered == 1
    assert list(_objects(moto, bucket)) == [name]


def test_s3_down_then_back_loses_nothing(moto: MotoServer, tmp_path: Path) -> None:
    bucket = _bucket(moto)
    events = run_events(3)
    moto.stop()
    try:
        transport = S3Transport(
            endpoint=moto.url,
            bucketName=bucket,
            spool_dir=tmp_path,
            backoff_initial=0.05,
            backoff_max=0.2,
            timeout=1,
        )
        for event in events:
            transport.emit(event)
        result = transport.close(1)
        assert not result.complete
        assert result.dropped == 0
        assert result.pending + result.spooled == len(events)
    finally:
        moto.start()
    # The next process (here: the next transport) delivers what was kept.
    with S3Transport(endpoint=moto.url, bucketName=bucket, spool_dir=tmp_path) as again:
        assert again.close(20).complete
    stored = _objects(moto, bucket)
    assert_exactly_once_in_order([json.loads(v) for v in stored.values()], events)


def test_s3_a_missing_bucket_is_refused_and_kept(moto: MotoServer, tmp_path: Path) -> None:
    transport = S3Transport(endpoint=moto.url, bucketName="no-such-bucket-x1", spool_dir=tmp_path)
    transport.emit(run_event(str(uuid.uuid4()), "job", "START", 1))
    result = transport.close(20)
    assert result.rejected == 1
    assert transport.spool_path is not None
    rejected = (transport.spool_path / "rejected.jsonl").read_text().splitlines()
    assert len(rejected) == 1
    assert json.loads(rejected[0])["job"]["name"] == "job"


# ------------------------------------------------------------------------------- Kinesis


def _stream(moto: MotoServer, shards: int = 2) -> str:
    name = f"lineage-{uuid.uuid4().hex[:12]}"
    kinesis = _client("kinesis", moto)
    kinesis.create_stream(StreamName=name, ShardCount=shards)
    kinesis.get_waiter("stream_exists").wait(
        StreamName=name, WaiterConfig={"Delay": 0.1, "MaxAttempts": 50}
    )
    return name


def _records(moto: MotoServer, stream: str) -> list[tuple[str, str, bytes]]:
    """Every record of the stream: shard, partition key, data; in each shard's order."""
    kinesis = _client("kinesis", moto)
    found: list[tuple[str, str, bytes]] = []
    for shard in kinesis.list_shards(StreamName=stream)["Shards"]:
        iterator = kinesis.get_shard_iterator(
            StreamName=stream, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        for record in kinesis.get_records(ShardIterator=iterator, Limit=10_000)["Records"]:
            found.append((shard["ShardId"], record["PartitionKey"], record["Data"]))
    return found


def test_kinesis_records_carry_the_java_client_s_partition_keys(
    moto: MotoServer, tmp_path: Path
) -> None:
    stream = _stream(moto)
    events = run_events(5)
    transport = create_transport(
        {
            "type": "kinesis",
            "streamName": stream,
            "region": REGION,
            "endpoint": moto.url,
            "spool_dir": str(tmp_path),
        }
    )
    for event in events:
        transport.emit(event)
    result = transport.close(20)
    assert result.complete
    assert result.delivered == len(events)
    records = _records(moto, stream)
    assert_exactly_once_in_order([json.loads(data) for _, _, data in records], events)
    for _shard, key, data in records:
        doc = json.loads(data)
        assert key == f"run:ns/{doc['job']['name']}"
        assert data == read_event(doc).to_json().encode()


def test_kinesis_partition_key_follows_the_parent_chain() -> None:
    base = json.loads(run_event(str(uuid.uuid4()), "child", "START", 1).to_json())
    assert partition_key(base) == "run:ns/child"
    parent: dict[str, Any] = {
        "_producer": "https://example.com/p",
        "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/ParentRunFacet.json"
        "#/$defs/ParentRunFacet",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "airflow", "name": "dag.task"},
    }
    base["run"]["facets"] = {"parent": dict(parent)}
    assert partition_key(base) == "run:airflow/dag.task"
    parent["root"] = {
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "airflow", "name": "dag"},
    }
    base["run"]["facets"] = {"parent": parent}
    assert partition_key(base) == "run:airflow/dag"
    # The same rule on the event objects (what emit sees) as on their JSON (the spool's).
    event = read_event(base)
    assert partition_key(event) == "run:airflow/dag"
    job_event = JobEvent(
        eventTime="2024-01-01T00:00:00Z",
        job={"namespace": "n", "name": "j"},
        producer="https://example.com/p",
    )
    assert partition_key(job_event) == "job:n/j"
    dataset_event = DatasetEvent(
        eventTime="2024-01-01T00:00:00Z",
        dataset={"namespace": "s3://b", "name": "t"},
        producer="https://example.com/p",
    )
    assert partition_key(json.loads(dataset_event.to_json())) == "dataset:s3://b/t"
    long_name = "x" * 400
    key = partition_key({"job": {"namespace": "n", "name": long_name}})
    assert len(key) == 256
    assert key.startswith("job:n/xxx")
    assert key != partition_key({"job": {"namespace": "n", "name": long_name + "y"}})


def test_kinesis_writes_under_an_assumed_role(moto: MotoServer, tmp_path: Path) -> None:
    stream = _stream(moto, shards=1)
    transport = KinesisTransport(
        streamName=stream,
        region=REGION,
        roleArn="arn:aws:iam::123456789012:role/lineage-writer",
        endpoint=moto.url,
        properties={"StsEndpoint": "127.0.0.1", "StsPort": moto.port, "MaxConnections": 4},
        spool_dir=tmp_path,
    )
    sender: Any = transport._engine.sender
    # The KPL's STS endpoint property is HTTPS; moto here is plain HTTP: point it there.
    sender._aws._sts_endpoint_url = moto.url
    transport.emit(run_event(str(uuid.uuid4()), "job", "START", 1))
    assert transport.close(20).delivered == 1
    client = sender._aws.get()
    credentials = client._request_signer._credentials
    # Temporary credentials of the assumed role, not the environment's.
    assert credentials.access_key != "AKIDOPENLINEAGETEST"
    assert credentials.token
    assert len(_records(moto, stream)) == 1


def test_kinesis_kpl_properties_are_applied_or_named(caplog: pytest.LogCaptureFixture) -> None:
    transport = KinesisTransport(
        streamName="s",
        region="eu-west-1",
        properties={
            "KinesisEndpoint": "kinesis.internal",
            "KinesisPort": 4443,
            "VerifyCertificate": "false",
            "RequestTimeout": 3000,
            "CollectionMaxCount": 50,
            "AggregationEnabled": "true",
            "RecordMaxBufferedTime": 100,
        },
        spool=False,
    )
    try:
        sender: Any = transport._engine.sender
        client = sender._aws.get()
        assert client.meta.endpoint_url == "https://kinesis.internal:4443"
        assert client._endpoint.http_session._verify is False
        assert client.meta.config.read_timeout == 3.0
        assert sender.max_batch == 50
        assert "AggregationEnabled, RecordMaxBufferedTime" in caplog.text
    finally:
        transport.close(1)


def test_kinesis_an_oversized_event_is_refused_alone(moto: MotoServer, tmp_path: Path) -> None:
    stream = _stream(moto, shards=1)
    run_id = str(uuid.uuid4())
    small = run_event(run_id, "job", "START", 1)
    huge = run_event(str(uuid.uuid4()), "big", "START", 2, padding=1 << 20)
    with KinesisTransport(
        streamName=stream, region=REGION, endpoint=moto.url, spool_dir=tmp_path
    ) as transport:
        transport.emit(huge)
        transport.emit(small)
        result = transport.close(20)
    assert result.delivered == 1
    assert result.rejected == 1
    assert [json.loads(d)["job"]["name"] for _, _, d in _records(moto, stream)] == ["job"]


# ------------------------------------------------------------------------------- DataZone


def _datazone_answer(seen: Seen) -> tuple[int, dict[str, str], bytes]:
    domain = seen.path.split("/")[3]
    body = {"domainId": domain, "id": f"event-{uuid.uuid4().hex[:8]}"}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


@pytest.fixture
def datazone() -> Iterator[RecordingApi]:
    api = RecordingApi(answer=_datazone_answer)
    yield api
    api.stop()


def test_datazone_posts_run_events_as_its_api_describes(
    datazone: RecordingApi, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    events = run_events(3)
    transport = create_transport(
        {
            "type": "amazon_datazone_api",
            "domainId": "dzd_4p9n6sw4qt9xgn",
            "region": "eu-west-1",
            "endpointOverride": datazone.url,
            "spool_dir": str(tmp_path),
        }
    )
    job_event = JobEvent(
        eventTime="2024-01-01T00:00:00Z",
        job={"namespace": "n", "name": "j"},
        producer="https://example.com/p",
    )
    transport.emit(job_event)
    transport.emit(job_event)
    for event in events:
        transport.emit(event)
    result = transport.close(20)
    assert result.complete
    assert result.delivered == len(events)
    # DataZone takes run events only: the job events were not sent, and said so once.
    assert caplog.text.count("takes run events only") == 1
    seen = datazone.wait_for(len(events))
    assert len(seen) == len(events)
    assert_exactly_once_in_order([json.loads(s.body) for s in seen], events)
    for request in seen:
        assert request.method == "POST"
        assert request.path == "/v2/domains/dzd_4p9n6sw4qt9xgn/lineage/events"
        # The body is the event's JSON, byte for byte (the API's blob payload).
        assert read_event(json.loads(request.body)).to_json().encode() == request.body
        # Idempotent: the token is made from the event's content.
        assert request.header("Client-Token") == request_id(request.body)
        authorization = request.header("Authorization") or ""
        assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDOPENLINEAGETEST/")
        assert "/eu-west-1/datazone/aws4_request" in authorization
        assert request.header("X-Amz-Date")


def test_datazone_side_by_side_with_the_official_client(datazone: RecordingApi) -> None:
    official = pytest.importorskip("openlineage.client.transport.amazon_datazone")
    from openlineage.client.serde import Serde

    event = run_event(str(uuid.uuid4()), "job", "COMPLETE", 4)
    theirs = official.AmazonDataZoneTransport(
        official.AmazonDataZoneConfig.from_dict(
            {"domainId": "dzd_same", "endpointOverride": datazone.url}
        )
    )
    their_event = official_run_event(event)
    theirs.emit(their_event)
    theirs.close()
    ours = AmazonDataZoneTransport(domainId="dzd_same", endpointOverride=datazone.url, spool=False)
    # The same event object, as the project's side-by-side tests hand it over.
    ours.emit(read_event(Serde.to_json(their_event)))
    assert ours.close(20).delivered == 1
    first, second = datazone.wait_for(2)
    assert first.method == second.method == "POST"
    assert first.path == second.path == "/v2/domains/dzd_same/lineage/events"
    assert json.loads(first.body) == json.loads(second.body)
    for name in ("Content-Type",):
        assert first.header(name) == second.header(name)
    assert first.header("Client-Token")
    assert second.header("Client-Token")


def test_datazone_throttling_is_retried_and_refusals_are_kept(
    datazone: RecordingApi, tmp_path: Path
) -> None:
    # 429 (ThrottlingException) then 500: tried again; 400 (ValidationException): refused.
    datazone.statuses.extend([429, 500])
    first = run_event(str(uuid.uuid4()), "a", "START", 1)
    with AmazonDataZoneTransport(
        domainId="dzd_x",
        endpointOverride=datazone.url,
        spool_dir=tmp_path,
        backoff_initial=0.01,
        backoff_max=0.05,
    ) as transport:
        transport.emit(first)
        assert transport.flush(20).delivered == 1
        datazone.statuses.append(400)
        transport.emit(run_event(str(uuid.uuid4()), "b", "START", 2))
        result = transport.close(20)
    assert result.rejected == 1
    bodies = [json.loads(s.body)["job"]["name"] for s in datazone.seen]
    assert bodies == ["a", "a", "a", "b"]
    # The retried request carried the same idempotency token each time.
    tokens = {s.header("Client-Token") for s in datazone.seen[:3]}
    assert len(tokens) == 1


def test_datazone_refuses_an_event_over_its_size_limit(
    datazone: RecordingApi, tmp_path: Path
) -> None:
    with AmazonDataZoneTransport(
        domainId="dzd_x", endpointOverride=datazone.url, spool_dir=tmp_path
    ) as transport:
        transport.emit(run_event(str(uuid.uuid4()), "big", "START", 1, padding=300_000))
        result = transport.close(20)
    assert result.rejected == 1
    assert datazone.seen == []
