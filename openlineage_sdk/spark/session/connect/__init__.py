"""Spark Connect: what the adapter asks a Connect session, without a JVM.

Under Spark Connect the Python process holds no JVM and no plan the server resolved. It has:

* the writer's settings, which the Connect ``DataFrameWriter`` keeps in its write operation;
* the DataFrame's unresolved plan (the protobuf it sends), whose ``read`` relations name the
  files, tables and JDBC tables it reads (``_plan``);
* the server, which explains a plan or a statement as text without running it (``_explain``,
  ``_server_statement``, ``_text_lineage``) and answers catalog look-ups;
* the observed metrics the server returns with a command: a ``count(1)`` observation added to
  the DataFrame being written gives the rows written, computed in the write's own job. The
  server sends no plan metrics for commands, so bytes and files written are left out.

A stream's sources, sink, row-count observation and listener are read from the client
(``_stream_io``).

Nothing in this package touches a JVM (a test checks that), so it behaves on a remote cluster
exactly as against a local server.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import logging
import re
from collections.abc import Callable
from typing import Any

from openlineage_sdk.naming import jdbc_url_without_credentials
from openlineage_sdk.spark._execution import (
    CatalogInfo,
    DatasetLineage,
    IoStats,
    SparkExecution,
)
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark.describe._commands import DescribedCommand, described
from openlineage_sdk.spark.describe._jdbc import (
    JdbcRead,
    JdbcSource,
    jdbc_table_identity,
    resolve_jdbc,
)
from openlineage_sdk.spark.describe._kafka import kafka_datasets
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._sql_text import PATH_QUERY
from openlineage_sdk.spark.describe._stream_datasets import StreamSink, StreamSource, source_kind
from openlineage_sdk.spark.describe._tables import Rows, name_parts, relation_rows
from openlineage_sdk.spark.session._base import (
    BatchFunction,
    ServerStatement,
    Session,
    StreamEvents,
    WriteStatistics,
)
from openlineage_sdk.spark.session.connect._explain import (
    ExplainedStatement,
    parse_explain,
    physical_root,
    sql_relation,
)
from openlineage_sdk.spark.session.connect._plan import (
    SQL_INPUTS_UNKNOWN,
    ClientPlanReads,
    RowCountObservation,
    client_plan_reads,
    connect_writer_settings,
    declared_schema,
    extension_inputs_unknown,
    path_uri,
    plan_sql_text,
    relations,
    same_columns,
)
from openlineage_sdk.spark.session.connect._server_statement import (
    ConnectServerStatement,
    explained_inputs,
    traced_lineage,
)
from openlineage_sdk.spark.session.connect._stream_io import (
    listen_to_streams,
    recent_progress,
    relation_reads,
    stream_reads,
    stream_sink,
    stream_start,
)
from openlineage_sdk.spark.session.connect._text_lineage import jdbc_stand_ins

__all__ = ["ConnectSession"]

log = logging.getLogger("openlineage_sdk.spark")


class _RowCount(WriteStatistics):
    """A Connect write's rows, from an observation the server computes in the write's job."""

    def __init__(self, observation: RowCountObservation | None) -> None:
        self.observation = observation

    def around(self) -> contextlib.AbstractContextManager[Any]:
        return self.observation if self.observation is not None else contextlib.nullcontext()

    def collect(self, execution: SparkExecution, writes_data: bool) -> None:
        output = execution.output
        if self.observation is None or output is None or execution.error is not None:
            return
        rows = self.observation.row_count()
        output.stats = IoStats(row_count=rows) if rows is not None else None


class ConnectSession(Session):
    """A Spark Connect client session."""

    kind = "connect"
    describes_writes_beside = False

    def __init__(self, spark: Any) -> None:
        super().__init__(spark)
        self.default_fs: str | None = None
        # The JDBC reads the client's plans held, by their table or query (see ``seen``).
        self._jdbc_seen: dict[tuple[str, str], tuple[dict[str, str], Any]] = {}
        self._jdbc_read: dict[tuple[str, str], JdbcRead] = {}  # resolved, for the current plan
        self._jdbc_schema: dict[tuple[str, str], Any] = {}  # their relations' schemas
        try:
            self.default_fs = spark.conf.get("spark.hadoop.fs.defaultFS", None)
        except Exception as error:
            log.warning("openlineage: reading the session configuration failed: %s", error)

    def debug_facts(self) -> dict[str, Any]:
        """The Spark version and the server's confs the agent reports: the classpath, system
        and memory of the driver are the server's, out of the client's sight."""
        facts = super().debug_facts()
        conf = self.spark.conf
        config = {
            field: conf.get(key, None)
            for field, key in (
                ("extraListeners", "spark.extraListeners"),
                ("extensions", "spark.sql.extensions"),
            )
        }
        known = {field: value for field, value in config.items() if value is not None}
        if known:
            facts["config"] = known
        return facts

    @property
    def client(self) -> Any:
        """The session's gRPC client."""
        return self.spark.client

    def execute(self, command: Any) -> Any:
        """Send one command of the adapter's own through the client (observers let it pass).

        It is sent as a plain execution, not a reattachable one (the client's default). A
        reattachable execution lets a long query outlive a broken connection; it costs a
        ``ReleaseExecute`` request after the answers (about four in all for a short command) and
        more of the server's CPU (measured on a busy machine, 40 of each: 46 ms of server CPU
        for a ``DESCRIBE ... AS JSON`` sent plainly, 84 ms through ``spark.sql``). The
        adapter's requests are short questions: a broken connection fails one, and the failure
        is a problem of the run. The session's client is used through a copy of it, so the
        user's own requests, which may be under way on other threads, keep the client's setting.
        """
        client = self.client
        plain = copy.copy(client)
        if hasattr(plain, "_use_reattachable_execute"):
            plain._use_reattachable_execute = False
        # The class's method: the copy holds the observers' wrapper of the client's.
        return type(client).execute_command(plain, command)

    def sql_rows(self, text: str) -> list[tuple[Any, ...]]:
        """The rows of a statement of the adapter's own (a ``DESCRIBE``), sent by :meth:`execute`."""
        from pyspark.sql.connect.plan import SQL

        data, properties, _ = self.execute(SQL(text).command(self.client))
        rows = relation_rows(properties.get("sql_command_result"))
        if rows is not None:
            return rows
        if data is not None:
            return [tuple(row) for row in data.itertuples(index=False)]
        raise ValueError(f"the server sent no rows for {text}")

    def statement_rows(self) -> Rows:
        # The catalog is asked by the adapter's own plain requests, each time: an answer kept
        # from an earlier statement could describe a table as it was before another client
        # changed it.
        return self.sql_rows

    def qualify(self, path: str) -> str:
        return path_uri(path, self.default_fs)

    # -- writes

    def writer_frame(self, writer: Any) -> Any:
        from pyspark.sql.connect.dataframe import DataFrame

        return DataFrame(writer._df, session=writer._spark)

    def writer_settings(self, writer: Any) -> tuple[str | None, dict[str, str]]:
        return connect_writer_settings(writer)

    def writer_mode(self, writer: Any) -> str | None:
        mode = getattr(writer._write, "mode", None)
        return str(mode).lower() if mode else None

    def write_statistics(self, writer: Any, execution: SparkExecution) -> WriteStatistics:
        try:
            return _RowCount(RowCountObservation(writer))
        except Exception as error:
            _note(execution.problems, "row count observation", error)
            return _RowCount(None)

    def frame_lineage(
        self,
        df: Any,
        execution: SparkExecution,
        output: DatasetLineage | None,
        output_names: list[str] | None = None,
    ) -> None:
        relation = df._plan.plan(self.client)
        execution.sql = plan_sql_text(relation)
        reads = client_plan_reads(relation)
        execution.problems.extend(reads.problems)
        # The schema the server already sent for the frame (PySpark keeps it on the DataFrame
        # once asked, as the write's output schema): a JDBC read whose columns reach the frame
        # unchanged has it, and needs no request of its own in front of the write.
        known = getattr(df, "_cached_schema", None)
        _add_inputs(
            execution,
            self.resolve_reads(
                reads, execution.problems, frame=(relation, known) if known is not None else None
            ),
        )
        traced = output is not None and output.schema is not None
        if not traced and not reads.extensions:
            return
        # Column lineage (and what SQL or a server plugin's relation in the plan reads) from
        # the server's explanation.
        try:
            explained = self._explain_relation(relation, reads)
        except Exception as error:
            _note(output.problems if traced and output else execution.problems, "explain", error)
            return
        if explained is None:
            return
        unknown = [SQL_INPUTS_UNKNOWN, *map(extension_inputs_unknown, reads.extensions)]
        if any(problem in execution.problems for problem in unknown):
            # The server named what the SQL or the plugin's relation reads: the inputs the
            # client could not see.
            try:
                _add_inputs(execution, explained_inputs(self, explained, execution.problems))
                execution.problems[:] = [p for p in execution.problems if p not in unknown]
            except Exception as error:
                _note(execution.problems, "inputs of SQL", error)
        if traced and output is not None:
            traced_lineage(explained, execution.inputs, output)

    def resolve_reads(
        self,
        reads: ClientPlanReads,
        problems: list[str],
        *,
        frame: tuple[Any, Any] | None = None,
    ) -> list[DatasetLineage]:
        """The datasets a client plan's relations read: files, tables and JDBC tables.

        ``frame`` is the plan's root relation with the schema the server gave for it, when the
        caller has it (see :meth:`_jdbc_inputs`).
        """
        return [
            *self._path_inputs(reads, problems),
            *self._table_inputs(reads.tables, problems),
            *self._jdbc_inputs(reads, problems, frame),
            *_kafka_inputs(reads, problems),
        ]

    def _path_inputs(self, reads: ClientPlanReads, problems: list[str]) -> list[DatasetLineage]:
        found: list[DatasetLineage] = []
        for path in reads.paths:
            try:
                dataset = DatasetLineage(self.path_identity(path), "input")
            except Exception as error:  # one bad input must not hide the rest
                _note(problems, f"input {path}", error)
                continue
            declared = reads.declared.get(path)
            if declared is not None:
                try:
                    dataset.schema = schema_fields(declared_schema(self.spark, declared))
                except Exception as error:
                    _note(dataset.problems, f"input {path}: declared schema", error)
            found.append(dataset)
        return found

    def _table_inputs(
        self, names: list[str], problems: list[str], *, exists: bool = False
    ) -> list[DatasetLineage]:
        found = (self.input_table(name, problems, exists=exists) for name in names)
        return [dataset for dataset in found if dataset is not None]

    def command_sql(self, command: Any) -> str | None:
        sql = sql_relation(command)
        return str(sql.query) if sql is not None else None

    def remember_command(self, command: Any) -> None:
        """Remember the JDBC reads of a command that names a plan (a temporary view's).

        A view of a JDBC read shows in the server's plans as a ``JDBCRelation`` without its
        URL: the client's own plan of the view has it.
        """
        if command.WhichOneof("command_type") != "create_dataframe_view":
            return
        for options, relation in client_plan_reads(command.create_dataframe_view.input).jdbc:
            self._jdbc_seen[_jdbc_key(options)] = (options, relation)

    def seen_jdbc_inputs(self, shown: str, problems: list[str]) -> list[DatasetLineage]:
        """The datasets of a JDBC relation a server's plan shows (its table or query), when the
        client saw the read; else a problem says it is not known."""
        key = _shown_key(shown)
        read = self._jdbc_read.get(key)
        if read is not None:  # resolved for an earlier plan: the same datasets
            return [dataclasses.replace(dataset, problems=[]) for dataset in read.inputs]
        found = self._jdbc_seen.get(key)
        if found is None:
            problems.append(
                "inputs: the server's plan reads a JDBC relation whose read this client did not "
                "see (its URL is not in the plan)"
            )
            return []
        return self._jdbc_inputs(ClientPlanReads(jdbc=[found]), problems)

    def jdbc_columns(self, shown: str) -> Any:
        """Where the columns of a JDBC relation a server's plan shows come from, if resolved."""
        read = self._jdbc_read.get(_shown_key(shown))
        return read.columns if read is not None else None

    def _jdbc_inputs(
        self,
        reads: ClientPlanReads,
        problems: list[str],
        frame: tuple[Any, Any] | None = None,
    ) -> list[DatasetLineage]:
        """The JDBC reads' datasets, their columns from the relation's schema on the server.

        When ``frame`` (the plan's root and its schema from the server) reaches a read through
        relations that keep the columns (a filter, a sort...), that schema is the read's: the
        request for the read's own schema is left out.
        """
        found: list[DatasetLineage] = []
        for options, relation in reads.jdbc:
            self._jdbc_seen[_jdbc_key(options)] = (options, relation)
            try:
                source = JdbcSource.of(options)
            except Exception as error:  # one bad input must not hide the rest
                _note(problems, "input JDBC table", error)
                continue
            fields = schema = None
            try:
                known = frame[1] if frame is not None and same_columns(frame[0], relation) else None
                schema = known if known is not None else self._relation_schema(relation)
                fields = schema_fields(schema)
            except Exception as error:
                _note(problems, "input JDBC table: the relation's schema", error)
            try:
                derby = self.derby_home() if source.url.startswith("jdbc:derby:") else None
                read = resolve_jdbc(source, fields, derby_home=derby)
                found.extend(read.inputs)
                if fields is not None:
                    self._jdbc_read[_jdbc_key(options)] = read
                    self._jdbc_schema[_jdbc_key(options)] = schema
            except Exception as error:
                _note(problems, "input JDBC table", error)
        return found

    def _relation_schema(self, relation: Any) -> Any:
        """The schema of one relation of the user's plan, as the server resolves it.

        For a JDBC read the server asks the database for the columns once: it keeps the
        resolved relation in its plan cache, and the user's own action uses it from there,
        so the database sees the same statements with the adapter as without.
        """
        from pyspark.sql.connect.proto import Plan

        plan = Plan()
        plan.root.CopyFrom(relation)
        return self.client.schema(plan)

    def input_table(
        self, name: str, problems: list[str], *, exists: bool = False
    ) -> DatasetLineage | None:
        """A catalog table read as an input, with its schema (one request when the server can)."""
        try:
            jdbc = self.jdbc_catalog_table(name)
        except Exception as error:
            _note(problems, f"input table {name}", error)
            return None
        if jdbc is not None:
            return jdbc
        try:
            info = self.describe_table(name, exists=exists, with_schema=True)
            described = self.self_described(name, info, "input") if info is not None else None
            if described is not None:
                return described
            if info is None or info.location is None:
                raise ValueError(f"{name} is not a table with a location")
            dataset = DatasetLineage(self.table_identity(info), "input")
        except Exception as error:  # one bad input must not hide the rest
            _note(problems, f"input table {name}", error)
            return None
        try:
            # The catalog knows a table's columns: analysing it reads no data.
            dataset.schema = info.schema or schema_fields(self.table_schema(name))
        except Exception as error:
            _note(dataset.problems, f"input table {name}: schema", error)
        return dataset

    def jdbc_catalog_table(self, name: str) -> DatasetLineage | None:
        """A table of a v2 JDBC catalog (``JDBCTableCatalog``), named from the catalog's confs.

        ``None`` for a table of any other catalog. Its schema is left out: the catalog would ask
        the database for it.
        """
        parts = name_parts(name)
        if len(parts) < 2:
            return None
        catalog = parts[0]
        conf = self.spark.conf
        implementation = conf.get(f"spark.sql.catalog.{catalog}", None)
        if not implementation or not str(implementation).endswith("JDBCTableCatalog"):
            return None
        url = conf.get(f"spark.sql.catalog.{catalog}.url", None)
        if not url:
            raise ValueError(f"the JDBC catalog {catalog} has no url")
        derby = self.derby_home() if str(url).startswith("jdbc:derby:") else None
        identity = jdbc_table_identity(str(url), ".".join(parts[1:]), derby_home=derby)
        dataset = DatasetLineage(identity, "input")
        metadata = jdbc_url_without_credentials(str(url))
        dataset.catalog = CatalogInfo("jdbc", "jdbc", catalog, metadata_uri=metadata)
        return dataset

    def _explain_relation(self, relation: Any, reads: ClientPlanReads) -> ExplainedStatement | None:
        """The server's explanation of a plan, unless explaining it would run a job.

        A plan that reads files by path without a declared schema (or SQL that does) is not
        explained: the server would infer the files' schema, which runs a job.
        """
        from pyspark.sql.connect.proto import Plan

        if any(PATH_QUERY.search(query) for query in reads.sql):
            return None
        for node in relations(relation):
            source = node.read.data_source if node.WhichOneof("rel_type") == "read" else None
            if (
                source is not None
                and node.read.HasField("data_source")
                and not source.schema
                and source.format.lower() != "jdbc"
            ):
                return None  # files without a schema would be inferred
        stand_ins: dict[str, Any] = {}
        if reads.jdbc:
            # The server would resolve a JDBC read with a connection to the database of its
            # own, which the adapter never opens: each is explained as an empty relation of
            # the schema already known for it, and traced to its columns.
            found = jdbc_stand_ins(relation, self._jdbc_resolved)
            if found is None:
                return None
            relation, stand_ins = found
        plan = Plan()
        plan.root.CopyFrom(relation)
        explained = self._explain_plan(plan)
        explained.jdbc_columns.update(stand_ins)
        return explained

    def _jdbc_resolved(self, options: dict[str, str]) -> tuple[Any, dict[str, Any]] | None:
        """A JDBC read's schema and its columns' sources, once resolved for the current plan."""
        read = self._jdbc_read.get(_jdbc_key(options))
        schema = self._jdbc_schema.get(_jdbc_key(options))
        return (schema, read.columns) if read is not None and schema is not None else None

    def _explain_plan(self, plan: Any) -> ExplainedStatement:
        """The server's ``EXPLAIN EXTENDED`` of a client plan (``FORMATTED`` when asked)."""
        text = self.client.explain_string(plan, "extended")
        explained = parse_explain(text)
        explained.text = text
        explained.formatted = lambda: str(self.client.explain_string(plan, "formatted"))
        return explained

    # -- statements and actions

    def server_statement(self, text: str, command: Any) -> ServerStatement:
        return ConnectServerStatement(self, text, command)

    def merge_command(self, command: Any) -> DescribedCommand:
        """What ``DataFrame.mergeInto(...).merge()`` does: the client holds the MERGE as a
        command (target table, source plan, conditions and actions), which the server cannot
        explain: the target is the output (from the catalog) and an input, the source's reads
        the other inputs; the job is named after the logical MERGE (``merge_into_table``), as
        Spark holds it before it plans its rows."""
        merge = command.merge_into_table_command
        name = str(merge.target_table_name)
        planned = described("MergeIntoTable")
        info = self.describe_table(name, with_schema=True)
        if info is None or info.location is None:
            planned.problems.append(f"output: {name} is not a table with a location")
        else:
            output = DatasetLineage(self.table_identity(info), "output")
            try:
                output.schema = info.schema or schema_fields(self.table_schema(name))
            except Exception as error:
                _note(output.problems, "output schema", error)
            planned.output = output
            planned.table = info
            target = DatasetLineage(output.identity, "input", output.schema)
            planned.inputs.append(target)
        reads = client_plan_reads(merge.source_table_plan)
        planned.problems.extend(p for p in reads.problems if p != SQL_INPUTS_UNKNOWN)
        source = self.resolve_reads(reads, planned.problems)
        known = {(d.identity.namespace, d.identity.name) for d in planned.inputs}
        planned.inputs.extend(
            d for d in source if (d.identity.namespace, d.identity.name) not in known
        )
        return planned

    def action_reads(self, plan: Any, execution: SparkExecution) -> bool:
        """What an action's plan reads, into ``execution``; ``False`` when it reads no dataset.

        Files, tables and JDBC tables come from the client's plan; what SQL in it reads, from
        the server's explanation of the plan (not asked when the SQL reads files by path, which
        the server would infer in a job).
        """
        if not plan.HasField("root"):
            return False
        root = plan.root
        execution.name_job((root.WhichOneof("rel_type") or "").strip("_") or "query")
        execution.sql = plan_sql_text(root)
        reads = client_plan_reads(root)
        problems = [p for p in reads.problems if p != SQL_INPUTS_UNKNOWN]
        # The action's plan names its tables: they exist, or the action fails.
        inputs = self._table_inputs(reads.tables, problems, exists=True)
        explained: ExplainedStatement | None = None
        if reads.sql and any(PATH_QUERY.search(query) for query in reads.sql):
            # Explaining would make the server infer the files' schema: a job of its own.
            problems.append(
                "inputs: a SQL query reads files by path; asking the server would run a job"
            )
        elif reads.sql:
            explained = self._explain_plan(plan)
        elif reads.extensions:
            # A server plugin's relation: the server's explanation says what it reads, when
            # the server has the plugin (else the action fails there too, and the run says
            # what was not understood).
            try:
                explained = self._explain_plan(plan)
            except Exception as error:  # the problem noted for the relation says it all
                log.debug("openlineage: the server did not explain the plan: %s", error)
        if explained is not None:
            inputs.extend(explained_inputs(self, explained, problems))
            unknown = set(map(extension_inputs_unknown, reads.extensions))
            problems = [p for p in problems if p not in unknown]
            # The plan the server will run names the run, as the agent names it.
            command = physical_root(explained.text)
            if command:
                execution.name_job(command)
        inputs.extend(self._path_inputs(reads, problems))
        inputs.extend(self._jdbc_inputs(reads, problems))
        inputs.extend(_kafka_inputs(reads, problems))
        execution.problems.extend(problems)
        _add_inputs(execution, inputs)
        return bool(execution.inputs or execution.problems)

    # -- streams

    def stream_frame(self, writer: Any) -> Any:
        from pyspark.sql.connect.dataframe import DataFrame

        return DataFrame(writer._write_stream._child, session=writer._session)

    def stream_sink(self, writer: Any, path: str | None, table: str | None) -> StreamSink:
        return stream_sink(writer, path, table)

    def stream_sources(
        self, df: Any, problems: list[str]
    ) -> tuple[list[StreamSource], list[DatasetLineage]]:
        sources, static = stream_reads(self.spark, df, problems)
        problems.extend(static.problems)
        return sources, self.resolve_reads(static, problems)

    def stream_schema(self, df: Any, sources: list[StreamSource]) -> Any:
        """The stream's columns from the server's analysis, unless that would infer a schema.

        A file source without a declared schema would be inferred from its files, in a job:
        the output's columns are then left out.
        """
        for source in sources:
            if source_kind(source) == "file" and source.schema is None:
                return None
        return df.schema

    def stream_start(
        self, writer: Any, rows_observation: str | None, batch: BatchFunction | None
    ) -> contextlib.AbstractContextManager[Any]:
        return stream_start(self.spark, writer, rows_observation, batch)

    def listen_to_streams(self, events: StreamEvents) -> Callable[[], None]:
        return listen_to_streams(self.spark, events)

    def stream_progress(self, query: Any) -> list[dict[str, Any]]:
        return recent_progress(query)

    # -- declarative pipelines (the client registers their definitions)

    def relation_reads(
        self, relation: Any, problems: list[str]
    ) -> tuple[list[StreamSource], ClientPlanReads]:
        """What a pipeline flow's query plan reads: its streaming sources, its static reads."""
        return relation_reads(self.spark, relation, problems)

    def relation_streams(self, relation: Any) -> bool:
        return any(
            node.WhichOneof("rel_type") == "read" and node.read.is_streaming
            for node in relations(relation)
        )

    def query_inputs(self, query: str, problems: list[str]) -> list[DatasetLineage]:
        """What a SQL query reads, from the server's analysis of it (``EXPLAIN``, no job).

        ``STREAM(t)`` reads are analysed as the pipeline runs them. Raises when the server
        cannot analyse the query (it reads what only the pipeline knows, a view of its own).
        """
        from pyspark.sql.connect.proto import Plan

        if PATH_QUERY.search(query):
            raise ValueError("the query reads files by path: the server would infer them in a job")
        plan = Plan()
        plan.root.sql.query = query
        explained = self._explain_plan(plan)
        if explained.error is not None:
            raise ValueError(f"the server cannot analyse the query: {explained.error}")
        return explained_inputs(self, explained, problems)


_GENERATED_SUBQUERY = re.compile(r"\((.*)\) SPARK_GEN_SUBQ_\d+", re.DOTALL)


def _kafka_inputs(reads: ClientPlanReads, problems: list[str]) -> list[DatasetLineage]:
    """The topics of the plan's Kafka reads, with the Kafka source's schema."""
    found: list[DatasetLineage] = []
    for options in reads.kafka:
        datasets, noted = kafka_datasets(options, "input")
        found.extend(datasets)
        problems.extend(noted)
    return found


def _shown_key(shown: str) -> tuple[str, str]:
    """The key of a JDBC relation as a plan shows it: ``(query) SPARK_GEN_SUBQ_3`` or a table."""
    query = _GENERATED_SUBQUERY.fullmatch(shown)
    return ("query", query.group(1)) if query is not None else ("dbtable", shown)


def _jdbc_key(options: dict[str, str]) -> tuple[str, str]:
    lowered = {k.lower(): v for k, v in options.items()}
    if "dbtable" in lowered:
        return ("dbtable", lowered["dbtable"])
    return ("query", lowered.get("query", ""))


def _add_inputs(execution: SparkExecution, found: list[DatasetLineage]) -> None:
    """Add the datasets not yet among the execution's inputs."""
    known = {(d.identity.namespace, d.identity.name) for d in execution.inputs}
    for dataset in found:
        key = (dataset.identity.namespace, dataset.identity.name)
        if key not in known:
            known.add(key)
            execution.inputs.append(dataset)
