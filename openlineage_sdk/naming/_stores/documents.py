"""Document management systems: Box, IBM FileNet, SharePoint.

Each store is its builder followed by its declaration (see :mod:`openlineage_sdk.naming._store`).
All three name a document by a root (an enterprise, a repository, a site) in the namespace and
the object's key as the name.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._store import Port, Store, declare, hostport

__all__ = ["box", "filenet", "sharepoint"]


def _document_store(
    scheme: str, store: str, host: str, port: Port, root: str, label: str, key: str
) -> DatasetName:
    root_id = p.ident(root, store, label)
    if "/" in root_id:
        raise p.fail(store, f"invalid {label}: '/' not allowed")
    return DatasetName(
        f"{scheme}://{hostport(store, host, port)}/{root_id}", p.object_key(key, store)
    )


def _document_uri(builder: Callable[..., DatasetName]) -> Callable[..., DatasetName]:
    """The URI parser of a document store: ``scheme://{host}:{port}/{root}/{key}``."""

    def parse(store: Store, uri: str, table: str | None) -> DatasetName:
        _, host, port, path, _ = u.split_uri(uri)
        segments = path.lstrip("/").split("/", 1)
        root = unquote(segments[0])
        key = u.joined(unquote(segments[1]) if len(segments) > 1 else "", table)
        with u.reported_against(uri):
            return builder(host or "", root, key, port=port)

    return parse


def box(host: str, enterprise_id: str, key: str, *, port: Port = None) -> DatasetName:
    """Name a Box file or folder.

    Args:
        host: The API host, e.g. ``"api.box.com"``.
        enterprise_id: The enterprise id.
        key: The object key (file or folder path or id).
        port: The port; 443 when not given.

    Returns:
        ``box://{host}:{port}/{enterprise id}`` and ``{key}``.
    """
    return _document_store("box", "box", host, port, enterprise_id, "enterprise id", key)


declare(Store("box", default_port=443, schemes=("box",), parse_uri=_document_uri(box)))


def filenet(host: str, repository_id: str, key: str, *, port: Port) -> DatasetName:
    """Name an IBM FileNet document or folder.

    FileNet servers listen on no single well-known port, so it must be given.

    Args:
        host: The content engine host.
        repository_id: The repository (object store) id.
        key: The object key.
        port: The content engine's port.

    Returns:
        ``filenet://{host}:{port}/{repository id}`` and ``{key}``.
    """
    return _document_store("filenet", "filenet", host, port, repository_id, "repository id", key)


declare(Store("filenet", schemes=("filenet",), parse_uri=_document_uri(filenet)))


def sharepoint(host: str, site: str, key: str, *, port: Port = None) -> DatasetName:
    """Name a SharePoint document or folder.

    Args:
        host: The tenant host, e.g. ``"contoso.sharepoint.com"``.
        site: The site.
        key: The object key (path within the site).
        port: The port; 443 when not given.

    Returns:
        ``mssharepoint://{host}:{port}/{site}`` and ``{key}``.
    """
    return _document_store("mssharepoint", "sharepoint", host, port, site, "site", key)


declare(
    Store(
        "sharepoint",
        default_port=443,
        schemes=("mssharepoint",),
        parse_uri=_document_uri(sharepoint),
    )
)
