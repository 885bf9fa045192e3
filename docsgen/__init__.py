"""The documentation site's own tools (not shipped in the wheel).

* :mod:`docsgen.reference`: the configuration reference, generated from the code that reads the
  configuration (the transport registry and each transport's config class, the tables beside
  ``config.py``, ``_event_config`` and ``spark/_conf.py``).
* :mod:`docsgen.roles`: a griffe extension that turns the docstrings' Sphinx roles
  (``:class:`~a.B```) into cross-references the site resolves, or fails on.
* :mod:`docsgen.hooks`: the MkDocs hooks of ``mkdocs.yml``: the generated reference put into
  its pages, and the check that every public name has its entry in the API reference.
* :mod:`docsgen.examples`: every code example of every page under ``docs/``, and how it runs.
* :mod:`docsgen.pictures`: the site's pictures of the lineage report, taken in headless Chromium.

``nox -s docs`` builds the site in strict mode; ``nox -s docs -- --pictures`` takes the
pictures first.
"""
