"""Build an event with MyCo's custom facets, validate it strictly, print it, read it back.

pip install -e examples/myco-facets && python examples/myco-facets/demo.py
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from myco_facets import MyCoCostsRunFacet, MyCoQualityDatasetFacet

from openlineage_sdk import (
    DatasetFacets,
    Job,
    OutputDataset,
    Run,
    RunEvent,
    RunFacets,
    read_event,
    validate_event,
)


def main() -> int:
    costs = MyCoCostsRunFacet(
        amount=12.75,
        currency="EUR",
        cost_center="data-platform",
        breakdown=[
            {"resource": "cluster", "amount": 11.5},
            {"resource": "storage", "amount": 1.25},
        ],
    )
    quality = MyCoQualityDatasetFacet(score=97, checked_at=datetime.now(timezone.utc))
    event = RunEvent(
        event_type="COMPLETE",
        event_time=datetime.now(timezone.utc),
        run=Run(run_id=uuid.uuid4(), facets=RunFacets.of(costs)),
        job=Job(namespace="myco", name="billing.daily_costs"),
        outputs=[
            OutputDataset(
                namespace="s3://myco-lake",
                name="billing/daily_costs",
                facets=DatasetFacets.of(quality),
            )
        ],
    )
    text = event.to_json()
    print(text)
    problems = validate_event(text, strict=True, formats=True)
    for problem in problems:
        print(f"problem: {problem}")
    again = read_event(text)
    assert isinstance(again, RunEvent)
    assert again.run.facets is not None
    print(f"read back: myCo_costs is a {type(again.run.facets['myCo_costs']).__name__}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
