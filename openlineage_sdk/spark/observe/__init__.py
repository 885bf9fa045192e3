"""Observe: where the adapter sees an execution the user's code runs.

One observer per kind of execution: DataFrame writes (``_writes``), SQL statements
(``_statements``), reads that end in an action (``_actions``), RDD saves (``_rdd``). Each hands
what it saw to the one template of ``_flow``, with the session's description of it.
"""
