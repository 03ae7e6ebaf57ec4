"""Marshmallow schemas of the JSON APIs, by resource as the views are: query arguments in, bodies out.

:mod:`.common` and :mod:`.fields` hold what every endpoint builds on (pagination, the error body,
the path and query arguments naming an owner, a repository, a commit; the field types); then one
module per family of endpoints: :mod:`.users`, :mod:`.repos`, :mod:`.report` (with the report's
streamed JSON writer), :mod:`.coverage` and, for the legacy API, :mod:`.settings`. They run on
marshmallow 3.13+ and 4.x alike: options through ``load_default=`` and ``metadata={...}`` only.

The same schemas write the OpenAPI document (:mod:`flask_coverage.openapi`): what an endpoint
declares as its path, query and response schemas is what the document says. Where a body is not
dumped by its schema field by field, the schema only documents what other code writes, and nothing
in the schemas keeps the two together; tests do: the report's JSON text
(:func:`.report.report_json`) against ``FileReportSchema``'s and ``CoverageTotalsSchema``'s dump,
byte for byte (``tests/blueprints/test_api_report.py``); the totals (:func:`.report.totals_body`,
passed through by :class:`.fields.PlainNested`), the repository and commit bodies written as plain
values (``blueprints/api/repos.py``) and the ``Raw`` fields whose type is written in their
``metadata``, by schemathesis checking every answer of every endpoint against the document
(``tests/blueprints/test_api_repos.py``, ``test_api_flags.py``, ``test_api_openapi.py``).
"""
