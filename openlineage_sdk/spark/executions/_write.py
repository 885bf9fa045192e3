"""DataFrame writes: when a writer call's target, inputs and statistics are described.

What the write targets (the output, its lifecycle, the job's name) is read before it runs, since
the write changes it; what it reads (inputs, schemas, column lineage) does not change while it
runs, and is described beside it where the session allows (classic), before it otherwise (Spark
Connect, whose server would analyse the DataFrame's plan twice if both were sent at once). The
write's statistics are gathered around the call and read after it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._execution import DatasetIdentity, DatasetLineage, SparkExecution
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import ExecutionSteps
from openlineage_sdk.spark.describe._commands import Command, job_suffix
from openlineage_sdk.spark.describe._jdbc import jdbc_table_identity
from openlineage_sdk.spark.describe._kafka import kafka_datasets
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._write_commands import WriteTarget, write_command, write_target
from openlineage_sdk.spark.session import Session, WriteStatistics

__all__ = ["WriteExecution"]


class WriteExecution(ExecutionSteps):
    """How a writer call is described around its run (see the module)."""

    def __init__(
        self,
        session: Session,
        execution: SparkExecution,
        writer: Any,
        method: str,
        original: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        self.session = session
        self.execution = execution
        self.writer = writer
        self.method = method
        self.original = original
        self.args = args
        self.kwargs = kwargs
        self.target: WriteTarget | None = None
        self.command: Command | None = None
        self.statistics: WriteStatistics | None = None
        self._statistics_read = False
        self.start = "beside" if self.session.describes_writes_beside else "before"

    def before(self) -> bool:
        session, execution = self.session, self.execution
        try:
            self.target = target = write_target(
                self.method,
                self.original,
                self.writer,
                self.args,
                self.kwargs,
                session.writer_settings(self.writer),
                session.writer_mode(self.writer),
                session.default_format,
                session.writer_table(self.writer),
            )
        except Exception as error:
            _note(execution.problems, "output target", error)
            target = None
        output: DatasetLineage | None = None
        if target is not None:
            try:
                output = DatasetLineage(self._identity(target), "output")
            except Exception as error:
                _note(execution.problems, "output dataset", error)
        execution.output = output
        if target is not None:
            hive = (target.provider or "").lower() == "hive"
            self.command = command = write_command(self.method, target, hive_table=hive)
            if output is not None:
                overwrites = command.overwrite_state and target.mode == "overwrite"
                output.lifecycle_state = "OVERWRITE" if overwrites else command.state
            table = (
                output.identity.symlinks[0].name if output and output.identity.symlinks else None
            )
            execution.name_job(
                command.name,
                job_suffix(
                    command,
                    qualified_table=table if target.kind == "table" else target.jdbc_table,
                    table=table.rsplit(".", 1)[-1] if table else None,
                    location=output.identity.name if output is not None else None,
                ),
            )
        self._read_statistics()
        if self.start == "before":
            self.beside()
        return True

    def beside(self) -> bool:
        output = self.execution.output
        df = self.session.writer_frame(self.writer)
        target = self.target
        if output is not None:
            try:
                if self.method == "insertInto" and target is not None:
                    output.schema = schema_fields(self.session.table_schema(target.location))
                else:
                    output.schema = schema_fields(self.session.frame_schema(df))
            except Exception as error:
                _note(output.problems, "output schema", error)
        names = None
        if self.method == "insertInto" and output is not None and output.schema is not None:
            names = [f["name"] for f in output.schema]  # insertInto matches columns by position
        try:
            self.session.frame_lineage(df, self.execution, output, names)
        except Exception as error:
            _note(self.execution.problems, "inputs", error)
        return True

    def _read_statistics(self) -> None:
        if self._statistics_read:
            return
        self._statistics_read = True
        try:
            self.statistics = self.session.write_statistics(self.writer, self.execution)
        except Exception as error:
            _note(self.execution.problems, "statistics", error)

    def around(self) -> Any:
        # Read in before(), unless its description was left out first (a tripped breaker):
        # the statistics' window still tells the listener the write's commands are this call's.
        self._read_statistics()
        statistics = self.statistics
        return statistics.around() if statistics is not None else super().around()

    def left_out(self) -> None:
        if self.statistics is not None:
            self.statistics.discard()

    def after(self) -> bool:
        execution, target, command = self.execution, self.target, self.command
        if self.statistics is not None:
            try:
                # A JDBC or Kafka write reports no write metrics: nothing to wait for.
                writes = command is not None and command.writes_data
                self.statistics.collect(
                    execution, writes and target is not None and target.kind in ("path", "table")
                )
            except Exception as error:
                _note(execution.problems, "statistics", error)
        output = execution.output
        if output is not None and target is not None and target.kind == "table":
            self._confirm_table(output, target)
        return True

    def _identity(self, target: WriteTarget) -> DatasetIdentity:
        session = self.session
        if target.kind == "kafka":
            found, problems = kafka_datasets(target.options or {}, "output")
            self.execution.problems.extend(problems)
            if len(found) != 1:
                raise ValueError(f"a Kafka write names {len(found)} topics")
            return found[0].identity
        if target.kind == "jdbc":
            if not target.jdbc_table:
                raise ValueError("the JDBC write names no table (dbtable)")
            # As the agent names a JDBC write: the URL and the table, no connection properties.
            derby = session.derby_home() if target.location.startswith("jdbc:derby:") else None
            return jdbc_table_identity(target.location, target.jdbc_table, derby_home=derby)
        if target.kind == "path":
            return session.path_identity(target.location)
        info = session.describe_table(target.location)
        target.existed = info is not None and info.location is not None
        target.provider = info.provider if info is not None else None
        if info is None or info.location is None:
            info = session.planned_table(target.location, target.table_path)
        return session.table_identity(info)

    def _confirm_table(self, output: DatasetLineage, target: WriteTarget) -> None:
        """Check a table the write created against the catalog; a difference becomes a problem.

        Before the write, a new table's location is where Spark's session catalog would put it;
        after the write the catalog knows. They agree unless a catalog places tables its own
        way. The output keeps the identity the start gave it: the run merges its datasets by
        identity, so another one at the end would be a second output, not a correction.
        """
        if target.existed or self.execution.error is not None:
            return
        try:
            info = self.session.describe_table(target.location)
            if info is None or info.location is None:
                return
            actual = self.session.table_identity(info)
            if actual != output.identity:
                output.problems.append(
                    f"output: the catalog placed the table at {actual.namespace} "
                    f"{actual.name}, not at {output.identity.namespace} {output.identity.name} "
                    "as planned"
                )
        except Exception as error:
            _note(output.problems, "output table after the write", error)
