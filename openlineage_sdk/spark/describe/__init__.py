"""Describe: what an execution reads and writes, as the JVM agent says it.

The knowledge both kinds of session share: the one table of Spark commands (``_commands``), which
command a writer call runs (``_writes``), a planned statement into the record (``_statement``),
statement text (``_sql_text``), catalog tables (``_tables``), names (``_naming``), schemas
(``_schema``) and column lineage over a plan (``_lineage``). Nothing here observes an execution
or asks a session: it is given what a session read.
"""
