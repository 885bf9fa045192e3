"""The kinds of execution: one owner of *when* per kind, as the JVM agent's execution contexts.

An observer (``observe``) sees where an execution starts; the execution's kind decides when it
is described, when its START and its end go out, and what is gathered around it, each as a
:class:`~openlineage_sdk.spark._flow.ExecutionSteps` run by the one template (``_flow``). The
session (``session``) only answers what is asked, when it is asked:

========================  ===============================================================
``_write``                a DataFrame writer call
``_statement``            a SQL statement (classic: the analyzer, or the command that ran;
                          Spark Connect: the server's ``EXPLAIN`` and catalog)
``_action``               a read that ends in an action (heard by the listener, or the
                          Connect client's plan)
``_rdd_save``             an RDD save
``_merge``                ``DataFrame.mergeInto(...).merge()`` under Spark Connect
``streams``               a streaming query: its start, its run and progress, its
                          ``foreachBatch`` writes (here and in a Connect server's worker)
``_pipeline``             a declarative pipeline's run and its flows' runs
========================  ===============================================================

A listener-driven path (an execution started from JVM code, heard only from Spark's listener)
reduces the ``QueryExecution`` it is given to the same described command
(``Session.plan_executed``) and reports it through the same template.
"""

from __future__ import annotations

from openlineage_sdk.spark.executions._action import ActionRead, report_heard_read
from openlineage_sdk.spark.executions._adapters import (
    Adapter,
    adapter_of,
    adapters,
    register,
    unregister,
)
from openlineage_sdk.spark.executions._jvm_command import JvmCommandError, report_heard_command
from openlineage_sdk.spark.executions._merge import MergeCommand
from openlineage_sdk.spark.executions._rdd_job import RddJobError, report_heard_rdd_job
from openlineage_sdk.spark.executions._rdd_save import RddSave
from openlineage_sdk.spark.executions._statement import statement_description
from openlineage_sdk.spark.executions._unknown_command import UnknownCommand
from openlineage_sdk.spark.executions._write import WriteExecution

__all__ = [
    "ActionRead",
    "Adapter",
    "JvmCommandError",
    "MergeCommand",
    "RddJobError",
    "RddSave",
    "UnknownCommand",
    "WriteExecution",
    "adapter_of",
    "adapters",
    "register",
    "report_heard_command",
    "report_heard_rdd_job",
    "report_heard_read",
    "statement_description",
    "unregister",
]
