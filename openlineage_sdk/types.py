"""Field types of the OpenLineage models, for generated code and facets written by hand.

* :data:`DateTimeString`, :data:`UuidString`, :data:`UriString`: strings with a JSON Schema format,
  kept as the string that is written and checked when built in code (a ``datetime`` or a
  ``uuid.UUID`` is accepted and written in the spec's string form);
* :data:`Number`: a JSON number that keeps integers integers;
* :data:`FacetSchemaURL`: the pinned ``_schemaURL`` field of a facet written by hand.
"""

from openlineage_sdk._types import DateTimeString, FacetSchemaURL, Number, UriString, UuidString

__all__ = ["DateTimeString", "FacetSchemaURL", "Number", "UriString", "UuidString"]
