"""Marshmallow schemas of the JSON APIs, by resource as the views are: query arguments in, bodies out.

:mod:`.common` and :mod:`.fields` hold what every endpoint builds on (pagination, the error body,
the path and query arguments naming an owner, a repository, a commit; the field types); then one
module per family of endpoints: :mod:`.users`, :mod:`.repos`, :mod:`.report` (with the report's
streamed JSON writer), :mod:`.coverage` and, for the legacy API, :mod:`.settings`. They run on
marshmallow 3.13+ and 4.x alike: options through ``load_default=`` and ``metadata={...}`` only.

The same schemas write the OpenAPI document (:mod:`flask_coverage.openapi`): what an endpoint
declares as its path, query and response schemas is what the document says. Some bodies are not
dumped by their schema field by field, and there the schema only documents what another function
writes: the report's JSON text (:func:`.report.report_json`, held byte for byte to
``FileReportSchema``'s dump by ``tests/test_schemas.py``), the totals (:func:`.report.totals_body`,
dumped as they are by ``PlainNested``), and the ``Raw`` fields whose type is written in their
``metadata``. What keeps those in line is the tests that validate every answer against the
document (``tests/blueprints/test_openapi.py``), not the schemas themselves.
"""
