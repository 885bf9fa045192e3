"""AWS Glue: jobs named by the Glue job, and Glue Data Catalog tables named by their ARN.

As the JVM agent (``AwsGlueApplicationJobNameProvider``, ``AwsUtils``, ``PathUtils``):

* **Job names.** A Glue job's driver has ``spark.glue.GLUE_VERSION``, ``spark.glue.JOB_NAME``
  (the job's name as its owner wrote it) and ``spark.glue.JOB_RUN_ID`` (``jr_...``) among its
  confs. Glue names the application ``nativespark-{job name}-{job run id}``, a new name on every
  run; when ``spark.app.name`` is exactly that (or not set), the application is named after the
  Glue job, so every run of one Glue job is one job. An app name the script set itself is kept;
  ``spark.openlineage.appName`` wins over both.
* **Catalog tables.** When the session catalog's Hive client is Glue's
  (``hive.metastore.client.factory.class`` is
  ``com.amazonaws.glue.catalog.metastore.AWSGlueDataCatalogHiveClientFactory``, in the Hadoop
  configuration or the confs) or a ``spark.sql.catalog.*`` is a ``...GlueCatalog``, a catalog
  table's symlink is ``arn:aws:glue:{region}:{catalog id}`` / ``table/{database}/{table}``. The
  catalog id is ``hive.metastore.glue.catalogid`` (confs, then the Hadoop configuration), else
  ``spark.glue.accountId``; the region ``AWS_DEFAULT_REGION``, else ``AWS_REGION``, else the
  instance's region from the EC2 instance metadata service (IMDSv2, at
  ``AWS_EC2_METADATA_SERVICE_ENDPOINT`` when set, as the AWS SDKs read it; not asked when
  ``AWS_EC2_METADATA_DISABLED`` is ``true``). Without a region or a catalog id there is no ARN
  and the table keeps the symlink it would have without Glue. (The agent also asks AWS STS for the
  account id when no conf names it; the adapter does not call AWS services.)
"""

from __future__ import annotations

from collections.abc import Mapping

from openlineage_sdk.spark.platforms._facts import Facts

__all__ = ["GLUE_FACTORY", "application_name", "glue_catalog_arn", "glue_table_name"]

VERSION_CONF = "spark.glue.GLUE_VERSION"
JOB_NAME_CONF = "spark.glue.JOB_NAME"
JOB_RUN_ID_CONF = "spark.glue.JOB_RUN_ID"
GLUE_FACTORY = "com.amazonaws.glue.catalog.metastore.AWSGlueDataCatalogHiveClientFactory"
_FACTORY_KEY = "hive.metastore.client.factory.class"
_CATALOG_ID_KEY = "hive.metastore.glue.catalogid"
_IMDS = "http://169.254.169.254"
_IMDS_TIMEOUT_S = 2.0


def application_name(confs: Mapping[str, str]) -> str | None:
    """The Glue job's name, when the application is a Glue job with the name Glue generated.

    Args:
        confs: The session's confs.

    Returns:
        ``spark.glue.JOB_NAME``; ``None`` outside Glue, or when the app name is the script's own.
    """
    if VERSION_CONF not in confs:
        return None
    job = confs.get(JOB_NAME_CONF)
    if not job:
        return None
    app = confs.get("spark.app.name")
    if app is None or app == f"nativespark-{job}-{confs.get(JOB_RUN_ID_CONF)}":
        return job
    return None


def _uses_glue(facts: Facts) -> bool:
    factory = facts.hadoop.get(_FACTORY_KEY) or facts.confs.get(_FACTORY_KEY)
    if factory is None:
        factory = facts.confs.get(f"spark.hadoop.{_FACTORY_KEY}")
    if factory == GLUE_FACTORY:
        return True
    return any(
        key.startswith("spark.sql.catalog.") and value.endswith("GlueCatalog")
        for key, value in facts.confs.items()
    )


def _region(facts: Facts) -> str | None:
    region = facts.env_var("AWS_DEFAULT_REGION") or facts.env_var("AWS_REGION")
    if region is not None or facts.kind != "classic":
        return region
    if (facts.env_var("AWS_EC2_METADATA_DISABLED") or "").lower() == "true":
        return None
    base = (facts.env_var("AWS_EC2_METADATA_SERVICE_ENDPOINT") or _IMDS).rstrip("/")
    token = facts.http(
        f"{base}/latest/api/token",
        {"X-aws-ec2-metadata-token-ttl-seconds": "21600"},
        "PUT",
        _IMDS_TIMEOUT_S,
    )
    if not token:
        return None
    answer = facts.http(
        f"{base}/latest/meta-data/placement/region",
        {"X-aws-ec2-metadata-token": token.strip()},
        "GET",
        _IMDS_TIMEOUT_S,
    )
    return answer.strip() if answer and answer.strip() else None


def glue_catalog_arn(facts: Facts) -> str | None:
    """``arn:aws:glue:{region}:{catalog id}`` when the session's catalog is Glue's, else ``None``."""
    if not _uses_glue(facts):
        return None
    catalog = (
        facts.conf(_CATALOG_ID_KEY)
        or facts.hadoop_conf(_CATALOG_ID_KEY)
        or facts.conf("spark.glue.accountId")
    )
    if catalog is None:
        return None
    region = _region(facts)
    return f"arn:aws:glue:{region}:{catalog}" if region is not None else None


def glue_table_name(database: str | None, table: str) -> str:
    """A Glue table's name in its catalog's ARN namespace: ``table/{database}/{table}``."""
    return f"table/{database}/{table}" if database else f"table/{table}"
