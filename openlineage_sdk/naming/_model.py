"""The value a naming call returns, and the error it raises."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openlineage_sdk.models.facets.datasource_dataset import DatasourceDatasetFacet

__all__ = ["DatasetName", "NamingError"]


class NamingError(ValueError):
    """A dataset's parts, URI or JDBC URL cannot be turned into a name.

    The message starts with the input (with every credential masked) or the
    store's name, then names the part that is wrong, e.g.
    ``"jdbc:postgresql://:5432/db: missing host"``. It never contains a
    password, token or other secret taken from the input.

    Attributes:
        context: The masked input or the store's name.
        problem: The wrong part and what is wrong with it, e.g. ``"missing host"``.
    """

    def __init__(self, context: str, problem: str) -> None:
        super().__init__(f"{context}: {problem}")
        self.context = context
        self.problem = problem

    def __reduce__(self) -> tuple[type[NamingError], tuple[str, str]]:
        # Exceptions are pickled by their args, which here is the one joined
        # message; keep the two parts so the error survives process pools.
        return (type(self), (self.context, self.problem))


def _nonempty(value: object) -> bool:
    # Typed as object: callers without a type checker may pass anything.
    return isinstance(value, str) and bool(value)


def dataset_uri(namespace: str, name: str) -> str:
    """A dataset's namespace and name joined into one URI (see :attr:`DatasetName.uri`)."""
    if "://" in namespace:
        return f"{namespace}{name}" if name.startswith("/") else f"{namespace}/{name}"
    return f"{namespace}:{name}"


@dataclass(frozen=True, slots=True)
class DatasetName:
    """A dataset's identity in OpenLineage: a namespace and a name.

    Instances come from the builders in :mod:`openlineage_sdk.naming` or from
    :func:`~openlineage_sdk.naming.dataset_from_uri`; they are immutable and
    hashable, so they can key dictionaries of datasets.

    Attributes:
        namespace: The data source, e.g. ``"postgres://db.example.com:5432"``.
        name: The dataset within it, e.g. ``"shop.sales.orders"``.
    """

    namespace: str
    name: str

    def __post_init__(self) -> None:
        # A dataset with an empty namespace or name can never be matched to
        # the same dataset seen by another producer, so it is refused here
        # rather than emitted.
        if not _nonempty(self.namespace):
            raise NamingError("DatasetName", "missing namespace")
        if not _nonempty(self.name):
            raise NamingError("DatasetName", "missing name")

    @property
    def uri(self) -> str:
        """The dataset as one URI, ``namespace`` and ``name`` joined.

        The naming conventions combine the two as ``scheme:[//authority]path``:
        a namespace with an authority (``postgres://host:5432``) is joined to
        the name with a ``/`` (not doubled when the name is already an absolute
        path), and a namespace that is a bare scheme or a prefix ending in a
        colon-separated part (``bigquery``, ``pubsub``, ``file``,
        ``arn:aws:glue:{region}:{account}``) is joined with a ``:``, which for
        AWS Glue yields the table's real ARN.

        Returns:
            For example ``"postgres://db.example.com:5432/shop.sales.orders"``,
            ``"bigquery:project.dataset.table"`` or ``"file:/data/orders.csv"``.
        """
        return dataset_uri(self.namespace, self.name)

    def datasource_facet(self, producer: str | None = None) -> DatasourceDatasetFacet:
        """The dataSource facet of this dataset, in one call.

        The facet class is imported here, not at module level, so that
        ``import openlineage_sdk.naming`` stays standard-library only; the
        first call pays for loading the models.

        Args:
            producer: The facet's ``_producer`` URI; the SDK's own when ``None``.

        Returns:
            ``DatasourceDatasetFacet(name=self.datasource_name,
            uri=self.datasource_uri)``, e.g. name and uri
            ``"postgres://db.example.com:5432"``, or name ``"bigquery"`` and
            uri ``"bigquery:"``.
        """
        from openlineage_sdk.models.facets.datasource_dataset import DatasourceDatasetFacet

        if producer is None:
            # The producer field is required with a default: None would be refused, not omitted.
            return DatasourceDatasetFacet(name=self.datasource_name, uri=self.datasource_uri)
        return DatasourceDatasetFacet(
            name=self.datasource_name, uri=self.datasource_uri, producer=producer
        )

    @property
    def datasource_name(self) -> str:
        """The name of the data source holding this dataset: its namespace.

        Returns:
            The namespace, e.g. ``"postgres://db.example.com:5432"``.
        """
        return self.namespace

    @property
    def datasource_uri(self) -> str:
        """The data source as an absolute URI, for the dataSource facet's ``uri``.

        The facet's ``uri`` must be an absolute URI, which needs a scheme
        followed by a colon. Namespaces that already are one are returned as
        they are; the few that are a bare scheme (``bigquery``, ``pubsub``,
        ``file``) get the colon that makes them one (``bigquery:``).

        Returns:
            For example ``"postgres://db.example.com:5432"`` or ``"bigquery:"``.
        """
        if ":" in self.namespace:
            return self.namespace
        return f"{self.namespace}:"
