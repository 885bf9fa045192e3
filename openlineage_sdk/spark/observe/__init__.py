"""Observe: where the adapter sees an execution the user's code runs.

One observer per kind of execution: DataFrame writes (``_writes``), SQL statements and the
Connect client's commands (``_statements``), reads that end in an action (``_actions``), RDD
saves (``_rdd_saves``), ``DataFrame.mergeInto`` (``_merges``), streaming queries (``_streams``),
declarative pipelines (``_pipelines``). Each makes the execution's record and hands it to its
kind (``executions``), which decides when it is described and runs it through the template.
"""
