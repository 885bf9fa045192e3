"""Platform detection as pure functions of a driver's confs, environment, files and context.

Each platform is told what it really sets (the confs, variables and files named in
``openlineage_sdk.spark.platforms``), and the facets' fields are compared with the JVM agent's
own unit tests of the same builders (``SparkApplicationDetailsFacetBuilderTest``,
``GCPUtilsTest``, ``AwsGlueApplicationJobNameProviderTest``, ``PathUtilsTest``,
``JobNameBuilderTest``) and with events the agent sent on Dataproc (the conformance corpus).
Metadata servers are real HTTP servers on loopback. No Spark here: the sessions' side is in
``test_platform_sessions.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark import platforms
from openlineage_sdk.spark.platforms import Facts, detect
from openlineage_sdk.spark.platforms._application import application_details
from openlineage_sdk.spark.platforms._databricks import environment_properties
from openlineage_sdk.spark.platforms._dataproc import run_facet_fields
from openlineage_sdk.spark.platforms._emr import emr_fields
from openlineage_sdk.spark.platforms._glue import application_name, glue_catalog_arn
from openlineage_sdk.spark.platforms._kubernetes import kubernetes_fields
from tests.spark._metadata import ec2_metadata, gcp_metadata

CORPUS = Path(__file__).resolve().parent.parent / "data" / "conformance" / "events"
DATAPROC_CLASSPATH = "/etc/hadoop/conf:/usr/local/share/google/dataproc/lib/*:/usr/lib/hadoop/*"


def classic(**kwargs: Any) -> Facts:
    return Facts(kind="classic", **kwargs)


def test_nothing_set_is_no_platform() -> None:
    found = detect(classic(confs={"spark.app.name": "etl"}, env={"PATH": "/bin"}))
    assert found.names == ()
    assert (found.environment, found.dataproc, found.gcp_lineage) == (None, None, None)
    assert (found.emr, found.kubernetes, found.catalog) == (None, None, None)
    assert set(found.run_facets("https://producer")) == {"spark_applicationDetails"}
    assert found.job_facets("https://producer") == {}


# ----------------------------------------------------------------- spark_applicationDetails


def _context(**confs: str) -> Facts:
    # SparkApplicationDetailsFacetBuilderTest's SparkContext.
    return classic(
        confs={"spark.deploy.mode": "client", "spark.driver.host": "some.host", **confs},
        master="local",
        app_name="someapp",
        application_id="app-123-456",
        user="dummy",
        ui_web_url="http://driver.host:4040",
    )


AGENT_DETAILS = {
    "master": "local",
    "appName": "someapp",
    "applicationId": "app-123-456",
    "userName": "dummy",
    "deployMode": "client",
    "driverHost": "some.host",
    "uiWebUrl": "http://driver.host:4040",
}


def test_application_details_as_the_agents_unit_tests_say() -> None:
    assert application_details(_context()) == AGENT_DETAILS
    no_ui = Facts(**{**_context().__dict__, "ui_web_url": None})
    assert "uiWebUrl" not in application_details(no_ui)
    yarn = _context(
        **{
            "spark.org.apache.hadoop.yarn.server.webproxy.amfilter.AmIpFilter.param."
            "PROXY_URI_BASES": "http://yarn.server:8088/proxy/app-123-456"
        }
    )
    assert application_details(yarn)["proxyUrl"] == "http://yarn.server:8088/proxy/app-123-456"
    reverse = {"spark.ui.reverseProxyUrl": "https://some.host/path/"}
    on = application_details(_context(**reverse, **{"spark.ui.reverseProxy": "true"}))
    assert on["proxyUrl"] == "https://some.host/path/proxy/app-123-456"
    off = application_details(_context(**reverse, **{"spark.ui.reverseProxy": "false"}))
    assert "proxyUrl" not in off
    history = application_details(_context(**{"spark.yarn.historyServer.address": "hs:18080"}))
    assert history["historyUrl"] == "http://hs:18080/history/app-123-456"
    secure = Facts(
        **{
            **_context(**{"spark.yarn.historyServer.address": "hs:18080"}).__dict__,
            "hadoop": {"yarn.http.policy": "HTTPS_ONLY"},
        }
    )
    assert application_details(secure)["historyUrl"] == "https://hs:18080/history/app-123-456"
    given = application_details(
        _context(
            **{
                "spark.yarn.historyServer.address": "https://hs/",
                "spark.submit.deployMode": "cluster",
            }
        )
    )
    assert given["historyUrl"] == "https://hs/history/app-123-456"
    assert given["deployMode"] == "cluster"


def test_application_details_have_the_fields_of_the_agents_events() -> None:
    """The agent's facet on a local session (openlineage-spark 1.19) has these fields; ours for
    the same facts has the same ones."""
    event = json.loads((CORPUS / "compat-consumer" / "cll_1.json").read_text())
    theirs = event["run"]["facets"]["spark_applicationDetails"]
    ours = application_details(
        classic(
            confs={"spark.driver.host": theirs["driverHost"]},
            master=theirs["master"],
            app_name=theirs["appName"],
            application_id=theirs["applicationId"],
            user=theirs["userName"],
            ui_web_url=theirs["uiWebUrl"],
        )
    )
    assert ours == {k: v for k, v in theirs.items() if not k.startswith("_")}


def test_under_connect_only_the_confs_tell() -> None:
    facts = Facts(
        kind="connect",
        confs={"spark.master": "local[2]", "spark.app.name": "etl", "spark.app.id": "local-1"},
        master="local[2]",
        app_name="etl",
        application_id="local-1",
    )
    assert application_details(facts) == {
        "master": "local[2]",
        "appName": "etl",
        "applicationId": "local-1",
        "deployMode": "client",
    }


# ------------------------------------------------------------------------------- Databricks

WORKSPACE = "https://dbc-954f5d5f-34dd.cloud.databricks.com/"


def test_databricks_is_told_by_its_runtime_variable_in_a_classic_driver() -> None:
    confs = {
        "spark.databricks.clusterUsageTags.clusterName": "etl-cluster",
        "spark.databricks.clusterUsageTags.clusterOwnerOrgId": "1234567890",
        "spark.databricks.workspaceUrl": WORKSPACE,
    }
    local = {
        "spark.databricks.notebook.path": "/Users/ana@example.com/orders",
        "spark.databricks.job.type": "python",
        "user": "ana@example.com",
        "orgId": "1234567890",
    }
    outside = classic(confs=confs, local_properties=local)
    assert environment_properties(outside) is None  # no DATABRICKS_RUNTIME_VERSION: not the agent's
    inside = classic(
        confs=confs, local_properties=local, env={"DATABRICKS_RUNTIME_VERSION": "15.4"}
    )
    assert environment_properties(inside) == {
        "orgId": "1234567890",
        "spark.databricks.clusterUsageTags.clusterOwnerOrgId": "1234567890",
        "spark.databricks.notebook.path": "/Users/ana@example.com/orders",
        "spark.databricks.job.type": "python",
        "user": "ana@example.com",
        "spark.databricks.clusterUsageTags.clusterName": "etl-cluster",
    }
    assert detect(inside).names == ("databricks",)
    facet = detect(inside).run_facets("https://p")["environment-properties"]
    assert facet["_schemaURL"] == platforms.GENERIC_RUN_FACET
    assert facet["environment-properties"]["user"] == "ana@example.com"


def test_custom_environment_variables_make_the_facet_anywhere() -> None:
    confs = {"spark.openlineage.facets.custom_environment_variables": "[TEAM;MISSING; REGION]"}
    facts = classic(confs=confs, env={"TEAM": "payments", "REGION": "eu-west-1"})
    assert environment_properties(facts) == {"TEAM": "payments", "REGION": "eu-west-1"}
    # The client's variables are not the driver's.
    assert environment_properties(Facts(kind="connect", confs=confs)) is None


def test_databricks_job_names_and_unity_catalog() -> None:
    assert platforms.workspace_id({"spark.databricks.workspaceUrl": WORKSPACE}) == (
        "dbc-954f5d5f-34dd"
    )
    assert platforms.workspace_id({}) is None
    name = "databricks_shell.append_data_exec_v1.air_companies_db_air_companies"
    assert platforms.prettify_job_name(name, "dbc-954f5d5f-34dd") == (
        "dbc-954f5d5f-34dd.append_data_exec_v1.air_companies_db_air_companies"
    )
    unity = {
        "spark.databricks.workspaceUrl": WORKSPACE,
        "spark.databricks.unityCatalog.enabled": "true",
    }
    assert detect(classic(confs=unity)).catalog == "unity-catalog"
    assert (
        detect(classic(confs={**unity, "spark.databricks.unityCatalog.enabled": "false"})).catalog
        is None
    )
    assert detect(classic(confs={"spark.databricks.unityCatalog.enabled": "true"})).catalog is None


# ---------------------------------------------------------------------------------- Dataproc

APP = {"spark.app.name": "openlineage-gcp-utils-test", "spark.app.id": "application_12345"}
METADATA = {
    "/instance/attributes/dataproc-region": "us-central1",
    "/project/project-id": "openlineage-gcp-project",
}


def _dataproc(server_url: str, master: str = "local", **confs: str) -> Facts:
    return classic(
        confs={**APP, "google.metadata.api.base-url": server_url, "spark.master": master, **confs},
        master=master,
        env={"SPARK_DIST_CLASSPATH": DATAPROC_CLASSPATH},
    )


def test_dataproc_cluster_job_as_gcputils_test_says() -> None:
    values = {**METADATA, "/instance/attributes/dataproc-cluster-uuid": "1q2w3e4r5t6y7u8i"}
    with gcp_metadata(values) as server:
        facts = _dataproc(
            server.url,
            "yarn",
            **{
                "spark.driver.host": "openlineage-test-cluster-m.us-central1-a.c."
                "openlineage-gcp-project.google.com.internal",
                "spark.yarn.tags": "random_tag_dataproc_job_0,dataproc_job_attempt_timestamp_"
                "1234567890,dataproc_job_openlineage-test-job,dataproc_uuid_1q2w3e4r5t6y7u8i",
            },
        )
        found = detect(facts)
    assert found.names == ("dataproc",)
    assert found.dataproc == {
        "jobUuid": "1q2w3e4r5t6y7u8i",
        "jobId": "openlineage-test-job",
        "clusterUuid": "1q2w3e4r5t6y7u8i",
        "clusterName": "openlineage-test-cluster",
        "appName": "openlineage-gcp-utils-test",
        "appId": "application_12345",
        "projectId": "openlineage-gcp-project",
        "jobType": "dataproc_job",
    }
    assert found.gcp_lineage == {
        "origin": {
            "sourceType": "DATAPROC",
            "name": "projects/openlineage-gcp-project/regions/us-central1/clusters/"
            "openlineage-test-cluster",
        }
    }


@pytest.mark.parametrize(
    ("kind", "resource", "expected_type"),
    [("batch", "batches", "batch"), ("session", "sessions", "session")],
)
def test_dataproc_serverless_as_gcputils_test_says(
    kind: str, resource: str, expected_type: str
) -> None:
    values = {
        **METADATA,
        f"/instance/attributes/dataproc-{kind}-id": f"openlineage-test-{kind}",
        f"/instance/attributes/dataproc-{kind}-uuid": "1q2w3e4r5t6y7u8i",
    }
    with gcp_metadata(values) as server:
        dataproc, lineage = run_facet_fields(_dataproc(server.url))
    assert dataproc == {
        f"{kind}Uuid": "1q2w3e4r5t6y7u8i",
        f"{kind}Id": f"openlineage-test-{kind}",
        "appName": "openlineage-gcp-utils-test",
        "appId": "application_12345",
        "projectId": "openlineage-gcp-project",
        "jobType": expected_type,
    }
    assert lineage["origin"]["name"] == (
        f"projects/openlineage-gcp-project/locations/us-central1/{resource}/openlineage-test-{kind}"
    )


def test_dataproc_facets_equal_the_agents_events_on_a_dataproc_cluster() -> None:
    """An event openlineage-spark sent from a Dataproc cluster (the conformance corpus; the
    facet's key was ``gcp_dataproc_spark`` then): the same driver's facts give its fields."""
    event = json.loads((CORPUS / "compat-consumer" / "sparkbq_1729097588979.json").read_text())
    theirs = {k: v for k, v in event["run"]["facets"]["gcp_dataproc_spark"].items() if k[0] != "_"}
    lineage = {k: v for k, v in event["job"]["facets"]["gcp_lineage"].items() if k[0] != "_"}
    details = event["run"]["facets"]["spark_applicationDetails"]
    values = {
        "/instance/attributes/dataproc-region": "us-west1",
        "/project/project-id": "projects/" + theirs["projectId"],
        "/instance/attributes/dataproc-cluster-uuid": theirs["clusterUuid"],
    }
    with gcp_metadata(values) as server:
        facts = classic(
            confs={
                "spark.app.name": details["appName"],
                "spark.app.id": details["applicationId"],
                "spark.master": "yarn",
                "spark.driver.host": details["driverHost"],
                "spark.yarn.tags": f"dataproc_hash_1,dataproc_job_{theirs['jobId']},"
                f"dataproc_uuid_{theirs['jobUuid']},dataproc_job_attempt_timestamp_1729097248",
                "google.metadata.api.base-url": server.url,
            },
            master="yarn",
            env={"SPARK_DIST_CLASSPATH": DATAPROC_CLASSPATH},
        )
        ours, our_lineage = run_facet_fields(facts)
    assert {k: v for k, v in ours.items() if k != "jobType"} == theirs
    assert our_lineage == lineage


def test_dataproc_is_not_detected_without_its_library_or_under_connect() -> None:
    with gcp_metadata(METADATA) as server:
        elsewhere = classic(confs={"google.metadata.api.base-url": server.url})
        assert detect(elsewhere).dataproc is None
        connect = Facts(
            kind="connect",
            confs={"google.metadata.api.base-url": server.url},
            env={"SPARK_DIST_CLASSPATH": DATAPROC_CLASSPATH},
        )
        assert detect(connect).dataproc is None
        assert server.requests == []  # nothing is asked off Dataproc


def test_an_executions_dataproc_facet_names_its_node() -> None:
    found = platforms.Platform(
        dataproc={"appId": "a", "appName": "n", "projectId": "p", "jobType": "batch"}
    )
    facet = found.dataproc_facet("https://producer", "execute_insert_into_hive_table")
    assert type(facet).__name__ == "GcpDataprocRunFacet"
    assert facet.to_dict()["queryNodeName"] == "execute_insert_into_hive_table"
    assert facet.to_dict()["_schemaURL"].endswith(
        "/1-0-0/GcpDataprocRunFacet.json#/$defs/GcpDataprocRunFacet"
    )
    # Without what its schema requires it is sent as the agent sends it, untyped.
    partial = platforms.Platform(dataproc={"jobType": "batch"}).dataproc_facet("https://p")
    assert partial == {
        "_producer": "https://p",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/GcpDataprocRunFacet.json#/$defs/GcpDataprocRunFacet",
        "jobType": "batch",
    }


# -------------------------------------------------------------------------------------- Glue


def _glue(job: str, run: str, app: str | None) -> dict[str, str]:
    confs = {
        "spark.glue.GLUE_VERSION": "4.0",
        "spark.glue.JOB_NAME": job,
        "spark.glue.JOB_RUN_ID": run,
    }
    return {**confs, "spark.app.name": app} if app is not None else confs


def test_glue_job_names_as_the_agents_unit_tests_say() -> None:
    assert application_name({}) is None
    assert application_name({"spark.app.name": "nativespark-x-jr_1"}) is None
    generated = _glue(
        "Some job 1", "jr_11111111111111111111", "nativespark-Some job 1-jr_11111111111111111111"
    )
    assert application_name(generated) == "Some job 1"
    crosscheck = _glue(
        "Some job 2 cross-check",
        "jr_22222222222222222222",
        "nativespark-Some job 2 cross-check-jr_22222222222222222222",
    )
    assert application_name(crosscheck) == "Some job 2 cross-check"
    # A name the script gave its application is kept (the settings keep the session's).
    assert application_name(_glue("Some job 3", "jr_3", "User provided name")) is None
    assert application_name(_glue("Some job 4", "jr_4", None)) == "Some job 4"


def test_a_glue_job_is_one_job_on_every_run() -> None:
    from openlineage_sdk.naming import spark_job_name
    from openlineage_sdk.spark._conf import parse_confs

    names = {
        spark_job_name(
            parse_confs(_glue("Send data - V2", run, f"nativespark-Send data - V2-{run}")).app_name
            or ""
        )
        for run in ("jr_27897ad718cfca473928fdd53d57bec6", "jr_d351c4fe530830212cbd1c74e9c84c2e")
    }
    assert names == {"send_data_v2"}
    overridden = parse_confs(
        {**_glue("j", "jr_1", "nativespark-j-jr_1"), "spark.openlineage.appName": "mine"}
    )
    assert overridden.app_name == "mine"


GLUE_FACTORY = "com.amazonaws.glue.catalog.metastore.AWSGlueDataCatalogHiveClientFactory"


def test_glue_catalog_arns_as_the_agents_unit_tests_say() -> None:
    region = {"AWS_DEFAULT_REGION": "us-west-2"}
    # Glue's Hive client in the Hadoop configuration, the account from Glue's own conf.
    glue_job = classic(
        hadoop={"hive.metastore.client.factory.class": GLUE_FACTORY},
        confs={"spark.sql.catalogImplementation": "hive", "spark.glue.accountId": "123456789"},
        env=region,
    )
    assert glue_catalog_arn(glue_job) == "arn:aws:glue:us-west-2:123456789"
    # EMR: the catalog id a Spark property; Athena: the factory a Spark property, the id Hadoop's.
    emr = classic(
        hadoop={"hive.metastore.client.factory.class": GLUE_FACTORY},
        confs={"hive.metastore.glue.catalogid": "123456789012"},
        env={"AWS_DEFAULT_REGION": "us-east-1"},
    )
    assert glue_catalog_arn(emr) == "arn:aws:glue:us-east-1:123456789012"
    athena = classic(
        hadoop={"hive.metastore.glue.catalogid": "123456789012"},
        confs={"hive.metastore.client.factory.class": GLUE_FACTORY},
        env={"AWS_REGION": "us-east-1"},
    )
    assert glue_catalog_arn(athena) == "arn:aws:glue:us-east-1:123456789012"
    # spark.hadoop.* confs (what a Connect client sees of the Hadoop configuration).
    confs_only = classic(
        confs={
            "spark.hadoop.hive.metastore.client.factory.class": GLUE_FACTORY,
            "spark.glue.accountId": "1",
        },
        env=region,
    )
    assert glue_catalog_arn(confs_only) == "arn:aws:glue:us-west-2:1"
    iceberg = classic(
        confs={
            "spark.sql.catalog.glue": "org.apache.iceberg.aws.glue.GlueCatalog",
            "spark.glue.accountId": "2",
        },
        env=region,
    )
    assert glue_catalog_arn(iceberg) == "arn:aws:glue:us-west-2:2"
    # No Glue client, no account, no region: no ARN.
    assert glue_catalog_arn(classic(confs={"spark.glue.accountId": "1"}, env=region)) is None
    no_account = classic(hadoop={"hive.metastore.client.factory.class": GLUE_FACTORY}, env=region)
    assert glue_catalog_arn(no_account) is None
    assert platforms.glue_table_name("database", "mytable") == "table/database/mytable"
    assert platforms.glue_table_name(None, "mytable") == "table/mytable"


def test_the_glue_region_comes_from_the_instance_metadata_service() -> None:
    glue = {"hive.metastore.client.factory.class": GLUE_FACTORY}
    with ec2_metadata("eu-central-1") as server:
        facts = classic(
            hadoop=glue,
            confs={"spark.glue.accountId": "123456789012"},
            env={"AWS_EC2_METADATA_SERVICE_ENDPOINT": server.url},
        )
        assert glue_catalog_arn(facts) == "arn:aws:glue:eu-central-1:123456789012"
        assert server.requests == [
            ("PUT", "/latest/api/token"),
            ("GET", "/latest/meta-data/placement/region"),
        ]
        disabled = classic(
            hadoop=glue,
            confs={"spark.glue.accountId": "1"},
            env={
                "AWS_EC2_METADATA_SERVICE_ENDPOINT": server.url,
                "AWS_EC2_METADATA_DISABLED": "true",
            },
        )
        assert glue_catalog_arn(disabled) is None
        assert len(server.requests) == 2


# --------------------------------------------------------------------------------------- EMR

JOB_FLOW = {
    "jobFlowId": "j-2AXXXXXXGAPLF",
    "jobFlowCreationInstant": 1795800000000,
    "instanceCount": 3,
    "masterInstanceId": "i-08dea4f4XXXXXXXX",
    "masterPrivateDnsName": "ip-172-31-2-12.ec2.internal",
    "masterInstanceType": "m5.xlarge",
    "slaveInstanceType": "m5.xlarge",
    "hadoopVersion": "3.3.6",
}


def _emr_node(root: Path) -> Path:
    info = root / "mnt" / "var" / "lib" / "info"
    info.mkdir(parents=True)
    (info / "job-flow.json").write_text(json.dumps(JOB_FLOW))
    (info / "instance.json").write_text(json.dumps({"isMaster": True, "instanceGroupId": "ig-1"}))
    return root


def test_emr_cluster_and_step_from_the_nodes_files(tmp_path: Path) -> None:
    root = _emr_node(tmp_path)
    step = root / "mnt" / "var" / "lib" / "hadoop" / "steps" / "s-07767992IY7VC5NVV854"
    step.mkdir(parents=True)
    assert emr_fields(classic(root=root, cwd=step)) == {
        "clusterId": "j-2AXXXXXXGAPLF",
        "stepId": "s-07767992IY7VC5NVV854",
    }
    # A driver in a YARN container (cluster deploy mode), a folder that is not a step's.
    assert emr_fields(classic(root=root, cwd=root / "mnt" / "yarn")) == {
        "clusterId": "j-2AXXXXXXGAPLF"
    }
    other = root / "mnt" / "var" / "lib" / "hadoop" / "steps" / "scratch"
    assert emr_fields(classic(root=root, cwd=other)) == {"clusterId": "j-2AXXXXXXGAPLF"}
    found = detect(classic(root=root, cwd=step))
    assert found.names == ("emr",)
    facet = found.run_facets("https://producer")["openlineageSdk_emr"]
    assert type(facet).__name__ == "OpenlineageSdkEmrRunFacet"
    assert facet.to_dict() == {
        "_producer": "https://producer",
        "_schemaURL": "https://openlineage-sdk.github.io/openlineage-sdk/spec/facets/1-0-0/"
        "OpenlineageSdkEmrRunFacet.json#/$defs/OpenlineageSdkEmrRunFacet",
        "clusterId": "j-2AXXXXXXGAPLF",
        "stepId": "s-07767992IY7VC5NVV854",
    }


def test_no_emr_without_its_file(tmp_path: Path) -> None:
    step = tmp_path / "mnt" / "var" / "lib" / "hadoop" / "steps" / "s-1FGXI0FVEYC4N"
    step.mkdir(parents=True)
    assert emr_fields(classic(root=tmp_path, cwd=step)) is None
    broken = _emr_node(tmp_path / "broken")
    (broken / "mnt/var/lib/info/job-flow.json").write_text("{not json")
    assert emr_fields(classic(root=broken, cwd=broken)) is None
    assert emr_fields(Facts(kind="connect", root=_emr_node(tmp_path / "client"))) is None


# -------------------------------------------------------------------------------- Kubernetes

POD = {
    "KUBERNETES_SERVICE_HOST": "10.96.0.1",
    "KUBERNETES_SERVICE_PORT": "443",
    "SPARK_DRIVER_BIND_ADDRESS": "10.244.1.7",
    "SPARK_APPLICATION_ID": "spark-0f5b1c8e2b1d4f7e9a3c",
}
IMAGE = {"spark.kubernetes.container.image": "registry.example/spark-py:4.3.0"}


def test_kubernetes_driver_in_cluster_mode(tmp_path: Path) -> None:
    """What spark-submit gives a driver pod it starts: its name and image as confs; the
    downward API's variables from the pod template; the service account's namespace file."""
    secrets = tmp_path / "var/run/secrets/kubernetes.io/serviceaccount"
    secrets.mkdir(parents=True)
    (secrets / "namespace").write_text("data-eng")
    confs = {
        "spark.master": "k8s://https://10.96.0.1:443",
        "spark.kubernetes.namespace": "data-eng",
        "spark.kubernetes.driver.pod.name": "orders-0f5b-driver",
        **IMAGE,
    }
    found = detect(classic(confs=confs, env=POD, root=tmp_path, master=confs["spark.master"]))
    assert found.names == ("kubernetes",)
    assert found.kubernetes == {
        "namespace": "data-eng",
        "podName": "orders-0f5b-driver",
        "image": "registry.example/spark-py:4.3.0",
    }
    downward = {
        **POD,
        "POD_NAME": "orders-driver-x",
        "POD_NAMESPACE": "team-a",
        "NODE_NAME": "node-7",
    }
    assert kubernetes_fields(classic(confs=confs, env=downward, root=tmp_path)) == {
        "namespace": "team-a",
        "podName": "orders-driver-x",
        "nodeName": "node-7",
        "image": "registry.example/spark-py:4.3.0",
    }
    driver_image = {**confs, "spark.kubernetes.driver.container.image": "registry.example/driver:1"}
    assert kubernetes_fields(classic(confs=driver_image, env=POD, root=tmp_path))["image"] == (
        "registry.example/driver:1"
    )
    # The namespace file before the conf (executors may be sent elsewhere).
    other = {**confs, "spark.kubernetes.namespace": "executors"}
    assert (
        kubernetes_fields(classic(confs=other, env=POD, root=tmp_path))["namespace"] == "data-eng"
    )


def test_kubernetes_client_mode_and_connect() -> None:
    confs = {
        "spark.master": "k8s://https://api.example:6443",
        "spark.kubernetes.namespace": "batch",
        **IMAGE,
    }
    outside = classic(confs=confs, env={"PATH": "/bin"}, master=confs["spark.master"])
    assert kubernetes_fields(outside) == {
        "namespace": "batch",
        "image": "registry.example/spark-py:4.3.0",
    }
    connect = Facts(kind="connect", confs=confs, master=confs["spark.master"])
    assert kubernetes_fields(connect) == {
        "namespace": "batch",
        "image": "registry.example/spark-py:4.3.0",
    }
    # A pod's variables on the client say nothing about the server.
    assert kubernetes_fields(Facts(kind="connect", confs=IMAGE, env=POD)) is None
    assert kubernetes_fields(classic(confs=IMAGE, env={"PATH": "/bin"})) is None


def test_kubernetes_facet_reads_back_typed_and_validates() -> None:
    from openlineage_sdk import read_event, validate_event

    facet = detect(classic(confs=IMAGE, env={**POD, "POD_NAME": "d"})).run_facets("https://p")[
        "openlineageSdk_kubernetes"
    ]
    event = {
        "eventType": "START",
        "eventTime": "2026-11-28T10:00:00Z",
        "producer": "https://p",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {
            "runId": "01938f8a-7f00-7000-8000-000000000001",
            "facets": {"openlineageSdk_kubernetes": facet.to_dict()},
        },
        "job": {"namespace": "ns", "name": "job"},
    }
    text = json.dumps(event)
    assert validate_event(text) == []
    read = read_event(text)
    assert (
        type(read.run.facets["openlineageSdk_kubernetes"]).__name__
        == "OpenlineageSdkKubernetesRunFacet"
    )
    bad = json.loads(text)
    bad["run"]["facets"]["openlineageSdk_kubernetes"]["podName"] = 7
    problems = validate_event(json.dumps(bad))
    assert [str(p) for p in problems] == [
        "run.facets.openlineageSdk_kubernetes.podName: expected a string, got 7"
    ]
