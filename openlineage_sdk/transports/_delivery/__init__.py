"""Asynchronous, ordered, loss-free delivery shared by the network transports.

A queued transport (HTTP, Kafka) hands each encoded event to a :class:`DeliveryEngine`
(:mod:`.engine`), which delivers it from its own threads through the transport's
:class:`BatchSender` (:mod:`.protocol`): in order per run (:mod:`.lanes`), retried
(:mod:`.retries`), kept on disk while the destination cannot take it (:mod:`.spool`), as
its settings say (:mod:`.options`); what cannot be kept anywhere is counted and told
(:mod:`.drops`).
"""

from openlineage_sdk.transports._delivery.engine import DeliveryEngine
from openlineage_sdk.transports._delivery.options import DeliveryOptions
from openlineage_sdk.transports._delivery.protocol import BatchSender, Outcome, Record, SendResult
from openlineage_sdk.transports._delivery.spool import PARTITIONS, default_spool_dir

__all__ = [
    "PARTITIONS",
    "BatchSender",
    "DeliveryEngine",
    "DeliveryOptions",
    "Outcome",
    "Record",
    "SendResult",
    "default_spool_dir",
]
