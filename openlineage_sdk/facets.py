"""Every standard facet class, and the records (TypedDicts) inside them.

Facets are pydantic models with Python attribute names (``OutputStatisticsOutputDatasetFacet(
row_count=10)``); each knows its ``facet_key``, ``facet_entity`` and pinned ``facet_schema_url``.
Records inside facets (a schema field, a column-lineage input) are TypedDicts keyed by the spec's
JSON names (``{"name": "id", "type": "long"}``): typed for mypy, checked when the facet is built.
"""

from openlineage_sdk.models.facets import *  # noqa: F403
from openlineage_sdk.models.facets import __all__ as __all__
