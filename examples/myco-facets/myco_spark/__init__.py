"""MyCo's facet builder for the openlineage-sdk Spark adapter (hand-written, unlike myco_facets).

Installing the package registers :func:`costs` through the ``openlineage_sdk.spark.facet_builders``
entry point: every Spark run the adapter reports then carries MyCo's facets, in classic PySpark
and under Spark Connect alike, with no change to the pipeline's code.

* ``myCo_costs`` on the run's end: its cost, billed per second of the run at
  ``MYCO_RATE_PER_SECOND`` (EUR, default 0.002) to the cost center ``MYCO_COST_CENTER``
  (default ``data-platform``);
* ``myCo_quality`` on the output at the start: 100 when the adapter learned the output's schema
  without a problem, else 50.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from myco_facets import MyCoCostsRunFacet, MyCoQualityDatasetFacet

from openlineage_sdk.spark import FacetContext

__all__ = ["costs"]


def costs(context: FacetContext) -> None:
    """Add MyCo's cost of the run to its end, and a quality score to its output at the start."""
    execution = context.execution
    if context.event_type == "START":
        output = execution.output
        if output is not None:
            score = 100 if output.schema is not None and not output.problems else 50
            context.add_to(
                output,
                MyCoQualityDatasetFacet(
                    score=score,
                    checked_at=datetime.now(timezone.utc),
                    owner=os.environ.get("MYCO_COST_CENTER", "data-platform"),
                ),
            )
        return
    seconds = max((execution.finished or execution.started) - execution.started, 0.0)
    rate = float(os.environ.get("MYCO_RATE_PER_SECOND", "0.002"))
    context.add(
        MyCoCostsRunFacet(
            amount=round(seconds * rate, 6),
            currency="EUR",
            cost_center=os.environ.get("MYCO_COST_CENTER", "data-platform"),
            breakdown=[{"resource": execution.command, "amount": round(seconds * rate, 6)}],
        )
    )
