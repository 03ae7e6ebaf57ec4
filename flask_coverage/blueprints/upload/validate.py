"""``POST /validate``: a ``codecov.yml`` checked as Codecov's validator checks it, in text
(docs/pull-requests.md), so ``curl --data-binary @codecov.yml https://host/validate`` works as
against Codecov. No token: the answer says nothing about any repository.
"""

from __future__ import annotations

from flask import Response, request

from ...codecov_yml.loader import MAX_YAML_BYTES, YamlError
from ...codecov_yml.schema import parse
from . import _text, bp

USAGE = "Usage:\n\n    curl -X POST --data-binary @codecov.yml {url}\n"


@bp.route("/validate", methods=["GET"])
def validate_usage() -> Response:
    """How to use the validator."""
    return _text(200, USAGE.format(url=request.base_url))


@bp.route("/validate", methods=["POST"])
@bp.route("/validate/v1", methods=["POST"])
def validate_yaml() -> Response:
    """``Valid!`` and the file as it was understood (JSON), or the first error and where it is."""
    if (request.content_length or 0) > MAX_YAML_BYTES:
        return _text(400, f"The file is larger than {MAX_YAML_BYTES:,} bytes.\n")
    body = request.stream.read(MAX_YAML_BYTES + 1)
    if not body.strip():
        return _text(400, "No content posted.\n")
    try:
        validated = parse(body)
    except YamlError as error:
        message = f"Error at {list(error.path)}: \n{error.message}" if error.path else error.message
        return _text(400, message + "\n")
    if validated is None:
        return _text(400, "No content posted.\n")
    notes = "".join(f"\nNote: {note}" for note in validated.notes)
    return _text(200, f"Valid!\n\n{validated.to_json()}\n{notes}")
