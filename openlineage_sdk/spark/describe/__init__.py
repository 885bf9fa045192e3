"""Describe: what an execution reads and writes, as the JVM agent says it.

The knowledge both kinds of session share: the registry of Spark commands with their handlers
(``_commands``, ``_handlers``, ``_planned``: a command in one neutral form, described), which
command a writer call runs (``_write_commands``), statement text (``_sql_text``), catalog tables
and what a plan reads by name (``_tables``), names (``_naming``), schemas (``_schema``), column
lineage over a plan (``_lineage``), JDBC, v2 and Kafka datasets (``_jdbc``, ``_v2``,
``_kafka``), a stream's datasets (``_stream_datasets``), the methods that save an RDD
(``_rdd_writers``) and what a pipeline's SQL files define and its events say
(``_pipeline_graph``).
Nothing here observes an execution or asks a session: it is given what a session read (a handler
asks only the questions of ``_planned.CommandReader``).
"""
