"""Spark Connect: what the adapter asks a Connect session, without a JVM.

Under Spark Connect the Python process holds no JVM and no plan the server resolved. It has:

* the writer's settings, which the Connect ``DataFrameWriter`` keeps in its write operation;
* the DataFrame's unresolved plan (the protobuf it sends), whose ``read`` relations name the
  files, tables and JDBC tables it reads (``_plan``);
* the server, which explains a plan or a statement as text without running it (``_explain``,
  ``_statements``, ``_text_lineage``) and answers catalog look-ups;
* the observed metrics the server returns with a command: a ``count(1)`` observation added to
  the DataFrame being written gives the rows written, computed in the write's own job. The
  server sends no plan metrics for commands, so bytes and files written are left out.

Nothing in this package touches a JVM (a test checks that), so it behaves on a remote cluster
exactly as against a local server.
"""

from __future__ import annotations

import contextlib
import copy
import logging
from typing import Any

from openlineage_sdk.spark._execution import (
    DatasetIdentity,
    DatasetLineage,
    IoStats,
    SparkExecution,
)
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import Description
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._sql_text import PATH_QUERY
from openlineage_sdk.spark.describe._tables import Rows, relation_rows
from openlineage_sdk.spark.session._base import Session, WriteStatistics
from openlineage_sdk.spark.session.connect._explain import (
    ExplainedStatement,
    parse_explain,
    physical_root,
)
from openlineage_sdk.spark.session.connect._plan import (
    SQL_INPUTS_UNKNOWN,
    ClientPlanReads,
    RowCountObservation,
    client_plan_reads,
    connect_writer_settings,
    declared_schema,
    path_uri,
    relations,
)
from openlineage_sdk.spark.session.connect._statements import (
    ConnectStatement,
    explained_inputs,
    traced_lineage,
)

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
        try:
            self.default_fs = spark.conf.get("spark.hadoop.fs.defaultFS", None)
        except Exception as error:
            log.warning("openlineage: reading the session configuration failed: %s", error)

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
        reads = client_plan_reads(relation)
        execution.problems.extend(reads.problems)
        _add_inputs(execution, self.resolve_reads(reads, execution.problems))
        if output is None or output.schema is None:
            return
        # Column lineage (and what SQL in the plan reads) from the server's explanation.
        try:
            explained = self._explain_relation(relation, reads)
        except Exception as error:
            _note(output.problems, "column lineage", error)
            return
        if explained is None:
            return
        if SQL_INPUTS_UNKNOWN in execution.problems:
            # The server named what the SQL reads: the inputs the client could not see.
            try:
                _add_inputs(execution, explained_inputs(self, explained, execution.problems))
                execution.problems.remove(SQL_INPUTS_UNKNOWN)
            except Exception as error:
                _note(execution.problems, "inputs of SQL", error)
        traced_lineage(explained, execution.inputs, output)

    def resolve_reads(self, reads: ClientPlanReads, problems: list[str]) -> list[DatasetLineage]:
        """The datasets a client plan's relations read: files, tables and JDBC tables."""
        return [
            *self._path_inputs(reads, problems),
            *self._table_inputs(reads.tables, problems),
            *self._jdbc_inputs(reads, problems),
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

    def _jdbc_inputs(self, reads: ClientPlanReads, problems: list[str]) -> list[DatasetLineage]:
        found: list[DatasetLineage] = []
        for url, table_name in reads.jdbc:
            try:
                found.append(DatasetLineage(DatasetIdentity.from_uri(url, table_name), "input"))
            except Exception as error:  # one bad input must not hide the rest
                _note(problems, "input JDBC table", error)
        return found

    def input_table(
        self, name: str, problems: list[str], *, exists: bool = False
    ) -> DatasetLineage | None:
        """A catalog table read as an input, with its schema (one request when the server can)."""
        try:
            info = self.describe_table(name, exists=exists, with_schema=True)
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
            if source is not None and node.read.HasField("data_source") and not source.schema:
                return None
        plan = Plan()
        plan.root.CopyFrom(relation)
        return self._explain_plan(plan)

    def _explain_plan(self, plan: Any) -> ExplainedStatement:
        """The server's ``EXPLAIN EXTENDED`` of a client plan (``FORMATTED`` when asked)."""
        text = self.client.explain_string(plan, "extended")
        explained = parse_explain(text)
        explained.text = text
        explained.formatted = lambda: str(self.client.explain_string(plan, "formatted"))
        return explained

    # -- statements and actions

    def statement(
        self, text: str | None, execution: SparkExecution, call: Any = None
    ) -> Description:
        assert text is not None
        return ConnectStatement(self, execution, text, call)

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
        reads = client_plan_reads(root)
        problems = [p for p in reads.problems if p != SQL_INPUTS_UNKNOWN]
        # The action's plan names its tables: they exist, or the action fails.
        inputs = self._table_inputs(reads.tables, problems, exists=True)
        if reads.sql:
            if any(PATH_QUERY.search(query) for query in reads.sql):
                # Explaining would make the server infer the files' schema: a job of its own.
                problems.append(
                    "inputs: a SQL query reads files by path; asking the server would run a job"
                )
            else:
                explained = self._explain_plan(plan)
                inputs.extend(explained_inputs(self, explained, problems))
                # The plan the server will run names the run, as the agent names it.
                command = physical_root(explained.text)
                if command:
                    execution.name_job(command)
        inputs.extend(self._path_inputs(reads, problems))
        inputs.extend(self._jdbc_inputs(reads, problems))
        execution.problems.extend(problems)
        _add_inputs(execution, inputs)
        return bool(execution.inputs or execution.problems)


def _add_inputs(execution: SparkExecution, found: list[DatasetLineage]) -> None:
    """Add the datasets not yet among the execution's inputs."""
    known = {(d.identity.namespace, d.identity.name) for d in execution.inputs}
    for dataset in found:
        key = (dataset.identity.namespace, dataset.identity.name)
        if key not in known:
            known.add(key)
            execution.inputs.append(dataset)
