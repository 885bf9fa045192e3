"""Cloud warehouses and catalogs: Athena, Glue, BigQuery, Redshift, Snowflake, Spanner, Unity
Catalog, Cosmos DB and Data Explorer.

Each store is its builder followed by its declaration (see :mod:`openlineage_sdk.naming._store`).
Most are named by an account, project or region rather than a host, so their URLs need parsers
of their own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._parts import Ident
from openlineage_sdk.naming._store import (
    DEFAULT_PORTS,
    Port,
    Store,
    Tables,
    declare,
    dotted,
    finish,
    from_params,
    hostbased_jdbc,
    hosted,
    hostport,
    jdbc_hostbased,
)

__all__ = [
    "athena",
    "azure_cosmos",
    "azure_data_explorer",
    "bigquery",
    "glue",
    "redshift",
    "snowflake",
    "snowflake_account",
    "spanner",
    "unity_catalog",
]

_DB3 = ("database", "schema", "table")


def _aws_region(region: str, store: str) -> str:
    text = p.ident(region, store, "region").lower()
    if not p.AWS_REGION_RE.match(text):
        raise p.fail(store, f"invalid region {text!r}")
    return text


# --------------------------------------------------------------------------- Athena


def athena(region: str, catalog: str, database: str, table: str) -> DatasetName:
    """Name an Amazon Athena table.

    Args:
        region: The AWS region, e.g. ``"us-east-1"``.
        catalog: The data catalog, e.g. ``"AwsDataCatalog"``.
        database: The database.
        table: The table.

    Returns:
        ``awsathena://athena.{region}.amazonaws.com`` and
        ``{catalog}.{database}.{table}``.
    """
    store = "athena"
    return DatasetName(
        f"awsathena://athena.{_aws_region(region, store)}.amazonaws.com",
        dotted(store, catalog=catalog, database=database, table=table),
    )


_ATHENA_HOST_RE = re.compile(r"^athena\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$")


def _athena_region(url: str, host: str | None) -> str:
    found = p.host(host, url)
    match = _ATHENA_HOST_RE.match(found)
    if not match:
        raise p.fail(url, "invalid host: athena.{region}.amazonaws.com expected")
    return match[1]


def _athena_table(
    url: str, host: str | None, port: str | None, levels: Sequence[Ident]
) -> DatasetName:
    return athena(_athena_region(url, host), levels[0], levels[1], levels[2])


def _jdbc_athena(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:awsathena://AwsRegion=us-east-1;... or //athena.{region}.amazonaws.com:443;...
    found, remainder = u.authority(url, rest)
    _, params = u.jdbc_properties(remainder)
    host: str | None = None
    if "=" in found:
        # No host: the properties start right after '//'.
        params.update(u.properties(found))
    else:
        host, _ = p.host_port(found)
    region = u.first_value(params, "awsregion", "region")
    if host and not region:
        region = _athena_region(url, host)
    if not region:
        raise p.fail(url, "missing region: AwsRegion= or the athena.{region} host")
    known = from_params(store.table_names, params)
    return finish(store.table_names, url, f"athena.{region}.amazonaws.com", None, known, table)


declare(
    Store(
        "athena",
        # The Athena driver queries the AwsDataCatalog catalog unless told otherwise.
        tables=Tables(
            ("catalog", "database", "table"),
            _athena_table,
            params={"catalog": ("catalog",), "database": ("schema", "database")},
            fixed={"catalog": "AwsDataCatalog"},
        ),
        schemes=("awsathena",),
        jdbc={"awsathena": _jdbc_athena},
    )
)


# --------------------------------------------------------------------------- Glue

_ACCOUNT_ID_RE = re.compile(r"^\d{12}$")


def glue(
    region: str, account_id: str, database: str, table: str, *, partition: str = "aws"
) -> DatasetName:
    """Name an AWS Glue Data Catalog table.

    Args:
        region: The AWS region, e.g. ``"us-east-1"``.
        account_id: The 12-digit AWS account id owning the catalog.
        database: The Glue database.
        table: The table.
        partition: The AWS partition; ``"aws"`` everywhere but in China
            (``"aws-cn"``) and GovCloud (``"aws-us-gov"``).

    Returns:
        ``arn:aws:glue:{region}:{account id}`` and ``table/{database}/{table}``;
        :attr:`DatasetName.uri` then is the table's ARN.
    """
    store = "glue"
    account = p.ident(str(account_id), store, "account id")
    if not _ACCOUNT_ID_RE.match(account):
        raise p.fail(store, "invalid account id: 12 digits expected")
    part = p.ident(partition, store, "partition").lower()
    if part not in ("aws", "aws-cn", "aws-us-gov"):
        raise p.fail(store, f"invalid partition {part!r}")
    db = p.ident(database, store, "database")
    tbl = p.ident(table, store, "table")
    return DatasetName(
        f"arn:{part}:glue:{_aws_region(region, store)}:{account}", f"table/{db}/{tbl}"
    )


def _glue_arn(store: Store, uri: str, table: str | None) -> DatasetName:
    # arn:{partition}:glue:{region}:{account}:table/{database}/{table}
    fields = uri.split(":", 5)
    if len(fields) < 5 or fields[2].lower() != "glue":
        raise p.fail(uri, "unsupported ARN: only AWS Glue ARNs name datasets")
    resource = fields[5] if len(fields) == 6 else ""
    if table is not None:
        resource = f"{resource.rstrip('/')}/{table}" if resource else f"table/{table}"
    kind, _, rest = resource.partition("/")
    if kind == "database" and table is not None:
        kind, rest = "table", resource.partition("/")[2]
    if kind != "table":
        raise p.fail(uri, "missing table: arn:aws:glue:{region}:{account}:table/{database}/{table}")
    database, _, name = rest.partition("/")
    if not database:
        raise p.fail(uri, "missing database")
    if not name:
        raise p.fail(uri, "missing table")
    with u.reported_against(uri):
        return glue(fields[3], fields[4], database, name, partition=fields[1])


declare(Store("glue", schemes=("arn",), parse_uri=_glue_arn))


# --------------------------------------------------------------------------- Azure Cosmos DB


def azure_cosmos(host: str, database: str, table: str) -> DatasetName:
    """Name an Azure Cosmos DB container (collection).

    Args:
        host: The account endpoint, ``{account}.documents.azure.com``; a bare
            account name gets that suffix.
        database: The database.
        table: The container (``colls`` in Cosmos DB's resource paths).

    Returns:
        ``azurecosmos://{host}/dbs/{database}`` and ``colls/{table}``.
    """
    store = "azure_cosmos"
    endpoint = p.host(host, store)
    if "." not in endpoint:
        endpoint = f"{endpoint}.documents.azure.com"
    db = p.ident(database, store, "database")
    tbl = p.ident(table, store, "table")
    return DatasetName(f"azurecosmos://{endpoint}/dbs/{db}", f"colls/{tbl}")


def _cosmos_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    # azurecosmos://{host}/dbs/{database}/colls/{table}
    _, host, _, path, _ = u.split_uri(uri)
    segments = u.path_segments(path)
    if len(segments) < 2 or segments[0] != "dbs":
        raise p.fail(uri, "missing database: /dbs/{database} expected")
    rest = segments[2:]
    if table is not None:
        if rest:
            raise p.fail(uri, "collection given twice: in the path and as table")
        rest = ["colls", table]
    if len(rest) != 2 or rest[0] != "colls":
        raise p.fail(uri, "missing table: /colls/{table} expected")
    with u.reported_against(uri):
        return azure_cosmos(host or "", segments[1], rest[1])


declare(Store("azure_cosmos", schemes=("azurecosmos",), parse_uri=_cosmos_uri))


# --------------------------------------------------------------------------- Azure Data Explorer


def azure_data_explorer(cluster: str, database: str, table: str) -> DatasetName:
    """Name an Azure Data Explorer (Kusto) table.

    Args:
        cluster: ``{cluster name}.{region}``, e.g. ``"help.westeurope"``; a full
            ``https://...kusto.windows.net`` endpoint is accepted too.
        database: The database.
        table: The table.

    Returns:
        ``azurekusto://{cluster}.kusto.windows.net`` and ``{database}/{table}``.
    """
    store = "azure_data_explorer"
    text = p.text(cluster).lower()
    text = text.removeprefix("https://").removeprefix("http://").rstrip("/")
    text = p.host(text.removesuffix(".kusto.windows.net"), store, "cluster")
    db = p.ident(database, store, "database")
    tbl = p.ident(table, store, "table")
    return DatasetName(f"azurekusto://{text}.kusto.windows.net", f"{db}/{tbl}")


def _kusto_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    # azurekusto://{cluster}.kusto.windows.net/{database}/{table}
    _, host, _, path, _ = u.split_uri(uri)
    segments = u.path_segments(path)
    if table is not None:
        segments.append(table)
    if len(segments) < 1:
        raise p.fail(uri, "missing database")
    if len(segments) < 2:
        raise p.fail(uri, "missing table")
    if len(segments) > 2:
        raise p.fail(uri, "path has too many parts: /{database}/{table} expected")
    with u.reported_against(uri):
        return azure_data_explorer(host or "", segments[0], segments[1])


declare(Store("azure_data_explorer", schemes=("azurekusto",), parse_uri=_kusto_uri))


# --------------------------------------------------------------------------- BigQuery


def bigquery(project: str, dataset: str, table: str) -> DatasetName:
    """Name a BigQuery table.

    Args:
        project: The project id (not its display name or number).
        dataset: The dataset.
        table: The table.

    Returns:
        ``bigquery`` and ``{project}.{dataset}.{table}``.
    """
    store = "bigquery"
    return DatasetName("bigquery", dotted(store, project=project, dataset=dataset, table=table))


def _bigquery_table(
    url: str, host: str | None, port: str | None, levels: Sequence[Ident]
) -> DatasetName:
    return bigquery(levels[0], levels[1], levels[2])


def _bigquery_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    # bigquery:{project}.{dataset}.{table}; also bigquery://{project}/{dataset}.{table}
    body = unquote(uri.partition(":")[2])
    if body.startswith("//"):
        body = body[2:].replace("/", ".", 1)
    body = body.strip("/")
    tables = store.table_names
    if table is None:
        if not body:
            raise p.fail(uri, "missing name: project.dataset.table expected")
        return finish(tables, uri, None, None, {}, body, "name")
    segments = p.split_qualified(body, uri, "name") if body else []
    if len(segments) >= len(tables.levels):
        raise p.fail(uri, "URI names a table already")
    known = dict(zip(tables.levels, segments, strict=False))
    return finish(tables, uri, None, None, known, table)


def _jdbc_bigquery(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:bigquery://https://www.googleapis.com/bigquery/v2:443;ProjectId=p;DefaultDataset=d
    _, params = u.jdbc_properties(rest)
    tables = store.table_names
    return finish(tables, url, None, None, from_params(tables, params), table)


declare(
    Store(
        "bigquery",
        tables=Tables(
            ("project", "dataset", "table"),
            _bigquery_table,
            params={"project": ("projectid", "project"), "dataset": ("defaultdataset", "dataset")},
        ),
        schemes=("bigquery", "bq"),
        parse_uri=_bigquery_uri,
        jdbc={"bigquery": _jdbc_bigquery},
    )
)


# --------------------------------------------------------------------------- Redshift

_CLUSTER_ID_RE = re.compile(r"^[a-z][a-z0-9-]*$")


def redshift(
    cluster_identifier: str,
    region: str,
    database: str,
    schema: str,
    table: str,
    *,
    port: Port = None,
) -> DatasetName:
    """Name an Amazon Redshift table.

    The cluster identifier and region, not the endpoint host, identify a
    cluster: they are what both SQL connections and the Data API see.

    Args:
        cluster_identifier: The cluster identifier (or serverless workgroup).
        region: The AWS region, e.g. ``"us-west-2"``.
        database: The database.
        schema: The schema.
        table: The table.
        port: The port; 5439 when not given.

    Returns:
        ``redshift://{cluster_identifier}.{region}:{port}`` and
        ``{database}.{schema}.{table}``.
    """
    store = "redshift"
    cluster = p.ident(cluster_identifier, store, "cluster identifier").lower()
    if not _CLUSTER_ID_RE.match(cluster):
        raise p.fail(store, f"invalid cluster identifier {cluster!r}")
    number = p.port(port, DEFAULT_PORTS[store], store)
    return DatasetName(
        f"redshift://{cluster}.{_aws_region(region, store)}:{number}",
        dotted(store, database=database, schema=schema, table=table),
    )


_REDSHIFT_HOST_RE = re.compile(
    rf"^(?P<cluster>[a-z][a-z0-9-]*)\.[a-z0-9]+\.(?P<region>{p.AWS_REGION})"
    r"\.redshift(?:-serverless)?\.amazonaws\.com(?:\.cn)?$"
)


def _redshift_table(
    url: str, host: str | None, port: str | None, levels: Sequence[Ident]
) -> DatasetName:
    store = "redshift"
    endpoint = p.host(host, store)
    if port and p.AWS_REGION_RE.match(port.lower()):
        # jdbc:redshift:iam://{cluster}:{region}/db names the cluster directly.
        return redshift(endpoint, port, levels[0], levels[1], levels[2])
    match = _REDSHIFT_HOST_RE.match(endpoint)
    if match:
        return redshift(
            match["cluster"], match["region"], levels[0], levels[1], levels[2], port=port
        )
    # A host that is not a Redshift endpoint (a tunnel, a private DNS name)
    # does not tell the cluster and region: the host stands in for them.
    return DatasetName(
        f"redshift://{hostport(store, endpoint, port)}",
        dotted(store, database=levels[0], schema=levels[1], table=levels[2]),
    )


def _jdbc_redshift(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:redshift://{endpoint}:5439/db, jdbc:redshift:iam://{cluster}:{region}/db
    if rest.lower().startswith("iam:"):
        rest = rest[4:]
    return jdbc_hostbased(store, url, rest, table, ("database",))


declare(
    Store(
        "redshift",
        default_port=5439,
        tables=Tables(_DB3, _redshift_table, params={"schema": ("currentschema", "schema")}),
        schemes=("redshift",),
        jdbc={"redshift": _jdbc_redshift},
    )
)


# --------------------------------------------------------------------------- Snowflake

_SNOWFLAKE_ACCOUNT_RE = re.compile(r"^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$")


def snowflake_account(account: str) -> str:
    """Normalize a Snowflake account identifier for a namespace.

    Accepts the preferred ``{organization}-{account name}`` form, a legacy
    account locator with its optional compliance, region and cloud parts
    (``xy12345.us-east-2.aws``), or a whole account URL or host. The
    ``snowflakecomputing.com`` domain and a ``privatelink`` segment are
    connection details, not identity, and are dropped; the rest is
    lower-cased (Snowflake account identifiers are case-insensitive).

    Args:
        account: The account identifier, host or URL.

    Returns:
        The identifier, e.g. ``"myorg-myaccount"`` or ``"xy12345.us-east-2.aws"``.

    Raises:
        NamingError: The account is missing or is not an account identifier.
    """
    store = "snowflake"
    text = p.ident(account, store, "account").lower()
    text = text.removeprefix("https://").removeprefix("http://").rstrip("/")
    for domain in (".snowflakecomputing.com", ".snowflakecomputing.cn"):
        text = text.removesuffix(domain)
    text = text.removesuffix(".privatelink")
    if not _SNOWFLAKE_ACCOUNT_RE.match(text):
        raise p.fail(store, f"invalid account {text!r}")
    return text


def _snowflake_ident(value: str, level: str) -> str:
    # Snowflake stores unquoted identifiers in upper case and resolves them
    # case-insensitively; only a double-quoted identifier keeps its case.
    quoted = isinstance(value, p.Ident) and value.quoted
    text = p.ident(value, "snowflake", level)
    if not quoted and len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        text, quoted = text[1:-1].replace('""', '"'), True
        if not text:
            raise p.fail("snowflake", f"missing {level}")
    return text if quoted else text.upper()


def snowflake(account: str, database: str, schema: str, table: str) -> DatasetName:
    """Name a Snowflake table.

    Unquoted identifiers are upper-cased, as Snowflake stores them; wrap
    one in double quotes (``'"MixedCase"'``) to keep its case.

    Args:
        account: ``{organization}-{account name}`` (preferred), a legacy
            account locator such as ``xy12345.us-east-2.aws``, or the
            account's host; see :func:`snowflake_account`.
        database: The database.
        schema: The schema.
        table: The table.

    Returns:
        ``snowflake://{account}`` and ``{DATABASE}.{SCHEMA}.{TABLE}``.
    """
    return DatasetName(
        f"snowflake://{snowflake_account(account)}",
        ".".join(
            _snowflake_ident(value, level)
            for level, value in (("database", database), ("schema", schema), ("table", table))
        ),
    )


def _snowflake_table(
    url: str, host: str | None, port: str | None, levels: Sequence[Ident]
) -> DatasetName:
    # The levels are Idents: snowflake() keeps the case of those that were quoted.
    return snowflake(host or "", levels[0], levels[1], levels[2])


declare(
    Store(
        "snowflake",
        tables=Tables(
            _DB3,
            _snowflake_table,
            params={"database": ("db", "database"), "schema": ("schema",)},
        ),
        schemes=("snowflake",),
        jdbc={"snowflake": hostbased_jdbc()},
    )
)


# --------------------------------------------------------------------------- Spanner


def spanner(project: str, instance: str, database: str, schema: str, table: str) -> DatasetName:
    """Name a Cloud Spanner table.

    Args:
        project: The project id.
        instance: The instance id.
        database: The database.
        schema: The named schema.
        table: The table.

    Returns:
        ``spanner://{project}:{instance}`` and ``{database}.{schema}.{table}``.
    """
    store = "spanner"
    proj = p.ident(project, store, "project")
    inst = p.ident(instance, store, "instance")
    for label, value in (("project", proj), ("instance", inst)):
        if "/" in value or (label == "instance" and ":" in value):
            raise p.fail(store, f"invalid {label} {value!r}")
    return DatasetName(
        f"spanner://{proj}:{inst}",
        dotted(store, database=database, schema=schema, table=table),
    )


def _spanner_table(
    url: str, host: str | None, port: str | None, levels: Sequence[Ident]
) -> DatasetName:
    # spanner://{project}:{instance}: the instance sits where a port would.
    return spanner(host or "", port or "", levels[0], levels[1], levels[2])


_SPANNER_PATH_RE = re.compile(r"^/projects/([^/]+)/instances/([^/]+)/databases/([^/]+)/?$")


def _jdbc_spanner(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:cloudspanner:[//host:port]/projects/p/instances/i/databases/d[;props]
    path = rest.split(";")[0].split("?")[0]
    if path.startswith("//"):
        _, path = u.authority(url, path)
    match = _SPANNER_PATH_RE.match(path)
    if not match:
        raise p.fail(url, "missing database: /projects/{p}/instances/{i}/databases/{d} expected")
    project, instance, database = (unquote(x) for x in match.groups())
    return finish(store.table_names, url, project, instance, {"database": database}, table)


declare(
    Store(
        "spanner",
        tables=Tables(_DB3, _spanner_table),
        schemes=("spanner",),
        jdbc={"cloudspanner": _jdbc_spanner},
    )
)


# --------------------------------------------------------------------------- Unity Catalog


def unity_catalog(
    host: str, catalog: str, schema: str, table: str, *, port: Port = None
) -> DatasetName:
    """Name a Unity Catalog table (Databricks or the open-source server).

    The naming conventions allow the host with or without a port; to give
    one dataset one name, the port is written only when it is not 443.

    Args:
        host: The workspace or Unity Catalog server host.
        catalog: The catalog.
        schema: The schema.
        table: The table.
        port: The port, if not 443.

    Returns:
        ``unitycatalog://{host}`` (or ``...:{port}``) and
        ``{catalog}.{schema}.{table}``.
    """
    store = "unity_catalog"
    return DatasetName(
        f"unitycatalog://{hostport(store, host, port, omit_default=True)}",
        dotted(store, catalog=catalog, schema=schema, table=table),
    )


def _jdbc_databricks(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:databricks://host:443/default;httpPath=...;ConnCatalog=c;ConnSchema=s;PWD=...
    host, port, remainder = u.server(url, rest)
    path, params = u.jdbc_properties(remainder)
    known = from_params(store.table_names, params)
    segments = u.path_segments(path)
    if not known.get("schema") and segments:
        known["schema"] = segments[0]
    return finish(store.table_names, url, host, port, known, table)


declare(
    Store(
        "unity_catalog",
        default_port=443,
        tables=Tables(
            ("catalog", "schema", "table"),
            hosted(unity_catalog),
            params={"catalog": ("conncatalog", "catalog"), "schema": ("connschema", "schema")},
        ),
        schemes=("unitycatalog",),
        jdbc={"databricks": _jdbc_databricks, "spark": _jdbc_databricks},
    )
)
