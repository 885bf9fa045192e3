"""The lineage report's private parts: reading and folding events (``fold``, ``fast``), and the
page's assets (``report.html``, ``report.css``, ``report.js``). The public API is
:mod:`openlineage_sdk.report`."""
