"""Events: from the record of an execution to OpenLineage events.

Datasets and facets (``_facets``), the runs of automatic and explicit mode (``_sinks``), and the
facet builders plugins register (``_extensions``). Nothing here knows Spark: it reads the
:class:`~openlineage_sdk.spark._execution.SparkExecution` record alone.
"""
