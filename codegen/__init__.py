"""Project driver for code generation: ``python -m codegen`` (what ``nox -s codegen`` runs).

It regenerates :mod:`openlineage_sdk.models` from the vendored schemas in ``spec/`` with the
engine in :mod:`openlineage_sdk.codegen`, which plugin teams use for their own facets.
"""
